"""Adagrad, as torch.optim.Adagrad."""
from .._creation import full_like, tensor
from ..ops.aliasing import view_as_real
from .optimizer import (Optimizer, _check_fused, _check_fused_once, _check_hyperparams,
                        _check_step_options, _scalar_dtype, _to_scalar)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad with learning-rate decay, weight decay, an initial accumulator and maximize."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _check_hyperparams(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        # fused=True runs the single-tensor step here: PyTorch's CPU kernel computes the same
        _check_fused(fused, differentiable, foreach)
        # unlike the other optimizers, Adagrad's state exists from the start
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=_scalar_dtype(group["fused"]))
                value = initial_accumulator_value
                state["sum"] = full_like(p, complex(value, value) if p.is_complex() else value)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "fused": None}

    def share_memory(self):
        """Move the accumulators to shared memory (for Hogwild-style multiprocessing)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _update_group(self, group):
        params, grads = self._params_with_grad(group)
        _check_fused_once(self, group, params)
        if not params:
            return
        _check_step_options(group)
        lr, eps = _to_scalar(group["lr"]), group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            state["step"] += 1
            step = state["step"].item()
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])
            clr = lr / (1 + (step - 1) * group["lr_decay"])
            state_sum = state["sum"]
            if param.is_complex():
                grad, state_sum, param = (view_as_real(grad), view_as_real(state_sum),
                                          view_as_real(param))
            state_sum.addcmul_(grad, grad, value=1)
            if group["differentiable"]:
                std = state_sum.sqrt() + eps
            else:
                std = state_sum.sqrt().add_(eps)
            param.addcdiv_(grad, std, value=-clr)
