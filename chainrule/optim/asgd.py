"""Averaged stochastic gradient descent, as torch.optim.ASGD."""
from .._creation import as_tensor, ones, tensor, zeros, zeros_like
from ..ops.aliasing import view_as_real
from .optimizer import Optimizer, _check_hyperparams, _scalar_dtype, _to_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """SGD with a decaying step size eta and a running average `ax` of the parameters
    (started after t0 steps)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check_hyperparams(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None, "maximize": False, "differentiable": False,
                         "capturable": False}
    _setstate_scalars = ("step", "eta", "mu")
    _step_check = {"what": "params, mus, etas, and state_steps"}

    def _initial_state(self, p, group):
        return {"step": zeros((), dtype=_scalar_dtype()),
                "eta": tensor(float(_to_scalar(group["lr"])), dtype=_scalar_dtype()),
                "mu": ones((), dtype=_scalar_dtype()), "ax": zeros_like(p)}

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, lambd, alpha, t0 = (_to_scalar(group["lr"]), group["lambd"], group["alpha"],
                                group["t0"])
        weight_decay = group["weight_decay"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            ax, eta, mu = state["ax"], state["eta"], state["mu"]
            if param.is_complex():
                grad, param, ax = view_as_real(grad), view_as_real(param), view_as_real(ax)
            state["step"] += 1
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            eta_value = eta.item()
            param.mul_(1 - lambd * eta_value)
            param.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_(param.sub(ax).mul_(mu))
            else:
                ax.copy_(param)
            # through tensors of the default dtype, as PyTorch's as_tensor: that rounding
            # stays when a loaded state dict made eta and mu float64
            step = state["step"].item()
            eta.copy_(as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(as_tensor(1 / max(1, step - t0)))
