"""Stochastic gradient descent, as torch.optim.SGD."""
from .._tensor import Tensor
from .optimizer import Optimizer, _check_fused, _check_fused_once, _to_scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD with optional momentum (dampening, Nesterov), weight decay and maximize."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        # fused=True and foreach=True run the single-tensor step here: PyTorch's CPU kernels
        # compute the same
        _check_fused(fused, differentiable, foreach)

    _setstate_options = {"nesterov": False, "maximize": False, "foreach": None,
                         "differentiable": False, "fused": False}
    _setstate_scalars = ()

    def _update_group(self, group):
        params, grads = self._params_with_grad(group)
        _check_fused_once(self, group, params)
        lr, momentum = _to_scalar(group["lr"]), group["momentum"]
        weight_decay = group["weight_decay"]
        for param, grad in zip(params, grads):
            if weight_decay != 0:
                if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                    # a weight decay being learned (differentiable) keeps its graph
                    grad = grad.addcmul_(param.clone(), weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            if isinstance(lr, Tensor) and lr.requires_grad:
                param.addcmul_(grad, lr, value=-1)
            else:
                param.add_(grad, alpha=-lr)
