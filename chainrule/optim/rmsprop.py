"""RMSprop, as torch.optim.RMSprop."""
from .._creation import tensor, zeros_like
from .optimizer import Optimizer, _real_only, _scalar_dtype

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop with optional momentum, centering, weight decay and maximize."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": False,
                    "foreach": None, "maximize": maximize, "differentiable": False}
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, alpha, momentum = group["lr"], group["alpha"], group["momentum"]
        for param, grad in zip(*self._params_with_grad(group)):
            _real_only(self, param)
            state = self.state[param]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_scalar_dtype())
                state["square_avg"] = zeros_like(param)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(param)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(param)
            state["step"] += 1
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])

            square_avg = state["square_avg"]
            square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = (square_avg - grad_avg * grad_avg).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(group["eps"])

            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(grad / avg)
                param.add_(buf, alpha=-lr)
            else:
                param.add_(grad / avg, alpha=-lr)
