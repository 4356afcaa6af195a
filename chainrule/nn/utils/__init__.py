"""torch.nn.utils: gradient clipping and flattening parameters into one vector."""
import math

from ..._tensor import Tensor
from ...autograd import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale gradients in place so that their joint norm is at most max_norm; returns the
    norm before clipping."""
    from ... import stack, tensor
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return tensor(0.0)
    with no_grad():
        norms = stack([g.detach().norm(norm_type) for g in grads])
        total_norm = norms.max() if norm_type == math.inf else norms.norm(norm_type)
        if error_if_nonfinite and (total_norm.isnan() | total_norm.isinf()).item():
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef_clamped = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    """Concatenate the flattened parameters into one vector."""
    from ... import cat
    if isinstance(parameters, Tensor):
        raise TypeError("expected an iterable of Tensors, but got "
                        f"torch.{type(parameters).__name__}")
    return cat([p.view(-1) for p in parameters])
