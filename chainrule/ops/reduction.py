"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, norm, cumulative ops.

Formulas that restore reduced dims use `_unsqueeze_to`, so keepdim and dim lists are
handled in one place.
"""
import numpy as np

from .dims import wrap_dims
from .registry import PROMOTE, op, public


def _unsqueeze_to(grad, dims, ndim, keepdim):
    """Put back the reduced `dims` (as size 1) that keepdim=False removed."""
    if keepdim or ndim == 0:
        return grad
    shape = list(grad.shape)
    for d in dims:
        shape.insert(d, 1)
    return grad.reshape(shape)


def _np_dtype(dtype):
    return None if dtype is None else dtype.np


def _sum_all(a, dtype):
    if dtype is None and a.dtype.kind in "bui":
        return np.sum(a, dtype=np.int64)
    return np.sum(a, dtype=_np_dtype(dtype))


def _sum_dim(a, dim, keepdim, dtype):
    dims = wrap_dims(dim, a.ndim)
    if dtype is None and a.dtype.kind in "bui":
        dtype_np = np.int64
    else:
        dtype_np = _np_dtype(dtype)
    return np.sum(a, axis=dims, keepdims=keepdim, dtype=dtype_np)


sum_all = op("sum", "SumBackward0", "self, *, dtype=None", _sum_all, function=False, method=False,
             self=lambda grad, self_shape: grad.expand(self_shape))

sum_dim = op("sum.dim_IntList", "SumBackward1", "self, dim, keepdim=False, *, dtype=None", _sum_dim,
             function=False, method=False,
             self=lambda grad, self_shape, dim, keepdim: _unsqueeze_to(
                 grad, wrap_dims(dim, len(self_shape)), len(self_shape), keepdim).expand(self_shape))


@public("sum")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements, or along `dim` (an int or a tuple of ints)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0 and False):
        return sum_all(input, dtype=dtype)
    return sum_dim(input, dim, keepdim, dtype=dtype)


def _mean_check(a, dtype):
    if dtype is None and a.dtype.kind not in "fc":
        from .._dtype import FROM_NP
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {FROM_NP[a.dtype].legacy}")


def _mean_all(a, dtype):
    _mean_check(a, dtype)
    return np.mean(a, dtype=_np_dtype(dtype))


def _mean_dim(a, dim, keepdim, dtype):
    _mean_check(a, dtype)
    return np.mean(a, axis=wrap_dims(dim, a.ndim), keepdims=keepdim, dtype=_np_dtype(dtype))


def _numel(shape, dims=None):
    n = 1
    for i, s in enumerate(shape):
        if dims is None or i in dims:
            n *= s
    return n


mean_all = op("mean", "MeanBackward0", "self, *, dtype=None", _mean_all, function=False,
              method=False,
              self=lambda grad, self_shape: grad.expand(self_shape) / _numel(self_shape))

mean_dim = op("mean.dim", "MeanBackward1", "self, dim, keepdim=False, *, dtype=None", _mean_dim,
              function=False, method=False,
              self=lambda grad, self_shape, dim, keepdim: _unsqueeze_to(
                  grad, wrap_dims(dim, len(self_shape)), len(self_shape), keepdim
              ).expand(self_shape) / _numel(self_shape, wrap_dims(dim, len(self_shape))))


@public("mean")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of all elements, or along `dim`."""
    if dim is None:
        return mean_all(input, dtype=dtype)
    return mean_dim(input, dim, keepdim, dtype=dtype)
