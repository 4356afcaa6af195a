"""Adafactor, as torch.optim.Adafactor."""
from .._creation import tensor, zeros, zeros_like
from .._dtype import finfo
from .._tensor import Tensor
from .optimizer import Optimizer, _scalar_dtype, _to_scalar

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: the second moment of a matrix kept factored as row and column means, a
    relative step size and update clipping (threshold d)."""

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    _setstate_options = {"foreach": None}

    def _update_group(self, group):
        params, grads = [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            params.append(p)
            grads.append(-p.grad if group["maximize"] else p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=_scalar_dtype())
                if p.grad.dim() > 1:
                    state["row_var"] = zeros(p.grad.shape[:-1] + (1,), dtype=p.grad.dtype)
                    state["col_var"] = zeros(p.grad.shape[:-2] + (1, p.grad.shape[-1]),
                                             dtype=p.grad.dtype)
                else:
                    state["variance"] = zeros_like(p.grad)
        lr, d, weight_decay = _to_scalar(group["lr"]), group["d"], group["weight_decay"]
        beta2_decay = group["beta2_decay"]
        eps1, eps2 = group["eps"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            if eps1 is None:
                # PyTorch takes it from the first parameter's dtype for the whole group
                eps1 = finfo(param.dtype).eps
            state["step"] += 1
            step_float = state["step"].item()
            one_minus_beta2_t = step_float ** beta2_decay
            rho_t = min(lr, 1 / step_float ** 0.5)
            alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho_t
            if weight_decay != 0:
                param.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
            param.add_(update, alpha=-alpha / denom)
