"""Adagrad, as torch.optim.Adagrad."""
from .._creation import full_like, tensor
from .optimizer import Optimizer, _real_only, _scalar_dtype

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay, weight decay, an initial accumulator and maximize."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": None,
                    "maximize": maximize, "differentiable": False, "fused": None}
        super().__init__(params, defaults)
        # unlike the other optimizers, Adagrad's state exists from the start
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_scalar_dtype())
                state["sum"] = full_like(p, initial_accumulator_value)

    def _update_group(self, group):
        for param, grad in zip(*self._params_with_grad(group)):
            _real_only(self, param)
            state = self.state[param]
            state["step"] += 1
            step = state["step"].item()
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            state_sum = state["sum"]
            state_sum.add_(grad * grad)
            std = state_sum.sqrt().add_(group["eps"])
            param.add_(grad / std, alpha=-clr)
