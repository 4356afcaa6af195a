"""RAdam, as torch.optim.RAdam."""
from ..ops.aliasing import view_as_real
from .optimizer import Optimizer, _check_hyperparams, _to_scalar

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Rectified Adam: plain momentum steps until the variance of the adaptive rate is
    tractable (rho_t > 5), then Adam steps scaled by the rectification term."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_hyperparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "decoupled_weight_decay": False, "capturable": False}
    _state_buffers = ("exp_avg", "exp_avg_sq")

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, eps, weight_decay = _to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            if param.is_complex():
                param, grad = view_as_real(param), view_as_real(grad)
                exp_avg, exp_avg_sq = view_as_real(exp_avg), view_as_real(exp_avg_sq)
            state["step"] += 1
            step = state["step"].item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                exp_avg_sq_sqrt = exp_avg_sq.sqrt()
                exp_avg_sq_sqrt = (exp_avg_sq_sqrt.add(eps) if group["differentiable"]
                                   else exp_avg_sq_sqrt.add_(eps))
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq_sqrt
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
