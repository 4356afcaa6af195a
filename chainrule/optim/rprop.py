"""Resilient backpropagation, as torch.optim.Rprop."""
from .._creation import full_like, tensor, zeros_like
from ..ops.aliasing import view_as_real
from .optimizer import Optimizer, _check_lr, _scalar_dtype, _to_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: per-element step sizes grown by etas[1] while the gradient keeps its sign and
    shrunk by etas[0] when it flips (that step then skipped), moving by the sign only."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "capturable": False}
    _step_check = {"xla": (True, True)}

    def _initial_state(self, p, group):
        lr = _to_scalar(group["lr"])
        return {"step": tensor(0.0, dtype=_scalar_dtype()), "prev": zeros_like(p),
                "step_size": full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)}

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            prev, step_size = state["prev"], state["step_size"]
            state["step"] += 1
            if param.is_complex():
                grad, prev = view_as_real(grad), view_as_real(prev)
                param, step_size = view_as_real(param), view_as_real(step_size)
            sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
            sign[sign.gt(0)] = etaplus
            sign[sign.lt(0)] = etaminus
            sign[sign.eq(0)] = 1
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            grad = grad.clone()
            grad[sign.eq(etaminus)] = 0
            param.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
