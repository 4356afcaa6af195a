"""Adamax, as torch.optim.Adamax."""
from ..ops.aliasing import view_as_real
from ..ops.shape import cat
from .optimizer import Optimizer, _check_hyperparams, _to_scalar

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: Adam with the second moment replaced by an exponentially weighted infinity
    norm."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_hyperparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "capturable": False}
    _state_buffers = ("exp_avg", "exp_inf")

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, eps, weight_decay = _to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            state["step"] += 1
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if param.is_complex():
                param, grad = view_as_real(param), view_as_real(grad)
                exp_avg, exp_inf = view_as_real(exp_avg), view_as_real(exp_inf)
            exp_avg.lerp_(grad, 1 - beta1)
            if group["differentiable"]:
                # PyTorch takes the max through amax so that it has a derivative
                norm_buf = cat([exp_inf.mul_(beta2).unsqueeze(0),
                                grad.abs().add_(eps).unsqueeze_(0)], 0)
                exp_inf.copy_(norm_buf.amax(0, keepdim=False))
            else:
                exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))
            clr = lr / (1 - beta1 ** state["step"].item())
            param.addcdiv_(exp_avg, exp_inf, value=-clr)
