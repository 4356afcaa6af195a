"""RMSprop, as torch.optim.RMSprop."""
from .._creation import tensor, zeros_like
from ..ops.aliasing import view_as_real
from .optimizer import Optimizer, _check_hyperparams, _scalar_dtype, _to_scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop with optional momentum, centering, weight decay and maximize."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_hyperparams(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                           alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _setstate_options = {"momentum": 0, "centered": False, "foreach": None,
                         "maximize": False, "differentiable": False, "capturable": False}
    _step_check = {"xla": (True, True)}

    def _initial_state(self, p, group):
        state = {"step": tensor(0.0, dtype=_scalar_dtype()), "square_avg": zeros_like(p)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)
        return state

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        momentum = group["momentum"]
        lr, alpha, eps = _to_scalar(group["lr"]), group["alpha"], group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            square_avg = state["square_avg"]
            state["step"] += 1
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])
            is_complex_param = param.is_complex()
            if is_complex_param:
                param, grad = view_as_real(param), view_as_real(grad)
                square_avg = view_as_real(square_avg)
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                if is_complex_param:
                    grad_avg = view_as_real(grad_avg)
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                if is_complex_param:
                    buf = view_as_real(buf)
                buf.mul_(momentum).addcdiv_(grad, avg)
                param.add_(buf, alpha=-lr)
            else:
                param.addcdiv_(grad, avg, value=-lr)
