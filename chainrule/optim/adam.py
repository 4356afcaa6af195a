"""Adam and AdamW, as torch.optim.Adam / torch.optim.AdamW."""
from .._creation import tensor, zeros_like
from .._tensor import Tensor
from ..ops.aliasing import view_as_real
from .optimizer import (Optimizer, _check_fused, _check_fused_param, _check_hyperparams,
                        _scalar_dtype, _to_scalar)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam, with L2 weight decay added to the gradient, or decoupled (AdamW) when
    `decoupled_weight_decay`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and "
                                 "foreach=True")
        _check_hyperparams(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)
                or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                     "capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        defaults = {"lr": lr, "betas": tuple(map(_to_scalar, betas)), "eps": eps,
                    "weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        # fused=True runs the single-tensor step here: PyTorch's CPU kernel computes the same
        _check_fused(fused, differentiable, foreach)

    _setstate_options = {"amsgrad": False, "maximize": False, "foreach": None,
                         "capturable": False, "differentiable": False, "fused": None,
                         "decoupled_weight_decay": False}

    def _initial_state(self, p, group):
        if group["fused"]:
            _check_fused_param(p)
        state = {"step": tensor(0.0, dtype=_scalar_dtype(group["fused"])),
                 "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _update_group(self, group):
        params, grads = self._params_to_step(group)
        lr, eps, weight_decay = _to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        differentiable = group["differentiable"]
        for param, grad in zip(params, grads):
            state = self.state[param]
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            max_exp_avg_sq = state.get("max_exp_avg_sq") if group["amsgrad"] else None
            step_t = state["step"]
            step_t += 1
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                elif differentiable and _learned(weight_decay):
                    grad = grad.addcmul_(param.clone(), weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            if param.is_complex():
                grad, exp_avg, exp_avg_sq = (view_as_real(grad), view_as_real(exp_avg),
                                             view_as_real(exp_avg_sq))
                if max_exp_avg_sq is not None:
                    max_exp_avg_sq = view_as_real(max_exp_avg_sq)
                param = view_as_real(param)
            exp_avg.lerp_(grad, 1 - beta1)
            if differentiable and _learned(beta2):
                exp_avg_sq.lerp_(grad.square(), 1 - beta2)
            else:
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=_to_python(1 - beta2))

            if differentiable:
                # PyTorch's differentiable step takes the bias corrections from the step
                # tensor, in its dtype (a copy where betas being learned need it saved)
                bias_correction1 = 1 - beta1 ** (step_t.clone() if _learned(beta1) else step_t)
                bias_correction2 = 1 - beta2 ** (step_t.clone() if _learned(beta2) else step_t)
                step_size_neg = (lr / bias_correction1).neg()
                bias_correction2_sqrt = bias_correction2.sqrt()
                if max_exp_avg_sq is not None:
                    max_exp_avg_sq.copy_(max_exp_avg_sq.clone().maximum(exp_avg_sq))
                    exp_avg_sq = max_exp_avg_sq
                denom = (exp_avg_sq.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(
                    eps / step_size_neg)
                param.addcdiv_(exp_avg.clone(), denom)
                continue
            step = step_t.item()
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            if max_exp_avg_sq is not None:
                max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
                exp_avg_sq = max_exp_avg_sq
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            param.addcdiv_(exp_avg, denom, value=-_to_python(step_size))


def _learned(x):
    """Whether a hyperparameter is a tensor that requires grad (learned through a
    differentiable step)."""
    return isinstance(x, Tensor) and x.requires_grad


def _to_python(x):
    """A 0-dim tensor scalar (from a Tensor lr or betas) as the number PyTorch's Scalar
    argument takes from it."""
    return x.item() if isinstance(x, Tensor) else x


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
