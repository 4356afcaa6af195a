"""NAdam, as torch.optim.NAdam."""
from .._creation import tensor, zeros_like
from ..ops.aliasing import view_as_real
from .optimizer import Optimizer, _check_hyperparams, _scalar_dtype, _to_scalar

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam with Nesterov momentum, the momentum warming up by `momentum_decay`; L2 weight
    decay, or decoupled (NAdamW) when `decoupled_weight_decay`."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_hyperparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                           momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _setstate_options = {"maximize": False, "foreach": None, "capturable": False,
                         "differentiable": False, "decoupled_weight_decay": False}
    _setstate_scalars = ("step", "mu_product")
    _step_check = {"what": "params, mu_products and state_steps",
                   "foreach_what": "params, mu_products, and state_steps"}

    def _initial_state(self, p, group):
        return {"step": tensor(0.0, dtype=_scalar_dtype()),
                "mu_product": tensor(1.0, dtype=_scalar_dtype()), "exp_avg": zeros_like(p),
                "exp_avg_sq": zeros_like(p)}

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, eps, weight_decay = _to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            exp_avg, exp_avg_sq, mu_product = (state["exp_avg"], state["exp_avg_sq"],
                                               state["mu_product"])
            if param.is_complex():
                param, grad = view_as_real(param), view_as_real(grad)
                exp_avg, exp_avg_sq = view_as_real(exp_avg), view_as_real(exp_avg_sq)
            state["step"] += 1
            step = state["step"].item()
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product *= mu
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt()
            if group["differentiable"]:
                denom = denom.add(eps)
                mu_product_next = mu_product * mu_next
                grad = grad * (-lr * (1.0 - mu) / (1.0 - mu_product))
                exp_avg = exp_avg * (-lr * mu_next / (1.0 - mu_product_next))
                param.addcdiv_(grad, denom)
                param.addcdiv_(exp_avg, denom)
            else:
                mu_product_next = mu_product.item() * mu_next
                denom.add_(eps)
                param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product.item()))
                param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
