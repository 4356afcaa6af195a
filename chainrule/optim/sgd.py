"""Stochastic gradient descent, as torch.optim.SGD."""
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD with optional momentum (dampening, Nesterov), weight decay and maximize."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        # foreach / differentiable / fused are kept so that param groups read as PyTorch's
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": None, "differentiable": False, "fused": None}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        for param, grad in zip(*self._params_with_grad(group)):
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            param.add_(grad, alpha=-lr)
