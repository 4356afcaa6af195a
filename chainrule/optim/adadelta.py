"""Adadelta, as torch.optim.Adadelta."""
from ..ops.aliasing import view_as_complex, view_as_real
from .optimizer import Optimizer, _check_hyperparams, _to_scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: steps scaled by the ratio of running RMS of past updates and of gradients."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_hyperparams(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "capturable": False}
    _step_check = {"xla": (False, False)}
    _state_buffers = ("square_avg", "acc_delta")

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, rho, eps = _to_scalar(group["lr"]), group["rho"], group["eps"]
        weight_decay = group["weight_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            state["step"] += 1
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if param.is_complex():
                square_avg, acc_delta = view_as_real(square_avg), view_as_real(acc_delta)
                grad = view_as_real(grad)
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_()
            if group["differentiable"]:
                delta = delta.clone()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            if param.is_complex():
                delta = view_as_complex(delta)
            param.add_(delta, alpha=-lr)
