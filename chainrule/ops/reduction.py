"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, var/std, logsumexp,
norm, cumulative sums and products, all/any.

Formulas follow derivatives.yaml and FunctionsManual.cpp, including their choices at ties
(max, amax and the inf-norm share the gradient evenly, max along a dim gives it to the
selected index), at zeros (prod and cumprod give the product of the other elements) and at
the zero vector (norm's gradient is 0). Formulas that restore reduced dims use
`_unsqueeze_to`, so keepdim and dim lists are handled in one place.
"""
import math
import warnings

import numpy as np

from .. import _dtype
from .._creation import arange, ones, zeros_like
from .._dtype import FROM_NP
from ..autograd import grad_mode
from .._dims import sizes_str, wrap_dim, wrap_dims
from .binding import Overloads, Signature, declare
from .pointwise import where
from .registry import EXACT, FLOAT, FUNCTIONS, op, out_as_dtype, out_cast, out_exact, public
from .shape import cat

_DEFAULT = object()   # `dim` not passed: PyTorch picks another overload than for dim=None

# out= dtype rules in the ops' own words (Note [out=] in registry.py)
_AMAX_OUT = out_exact("Expected the dtype for input and out to match, but got {expected} for "
                      "input's dtype and {got} for out's dtype.")
_MAX_DIM_OUT = (out_cast("Expected canCast( typeMetaToScalarType(self.dtype()), "
                         "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could "
                         "this error message be improved?  If so, please report an enhancement "
                         "request to PyTorch.)"), EXACT)
_MEAN_OUT = out_as_dtype(out_cast("mean.dtype_out(): input types can't be cast to the desired "
                                   "output type {got}"))
_REDUCE_OUT = out_as_dtype()    # sum, prod, cumsum, cumprod compute in out's dtype


def _logical_out(name):
    def rule(expected, got):
        if got is not _dtype.bool and expected is _dtype.bool:
            return RuntimeError(f"{name} only supports bool tensor for result, got: {got.legacy}")
    return rule




def _logsumexp_out(expected, got):
    if got.category < 2:
        return RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but "
                            f"got: {got.legacy}")


# ---- dims and dtypes ----------------------------------------------------------------------

def _reduce_dims(dim, ndim):
    """The dims a reduction reduces: all of them for None or an empty list, as in PyTorch."""
    return wrap_dims(dim, ndim) or tuple(range(ndim))


def _no_dim(name, keepdim):
    """keepdim without dim matches none of PyTorch's overloads."""
    if keepdim:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(keepdim=bool, ), but expected one of:")


def _int_dim(name, dim):
    if not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    return dim


def _unsqueeze_to(grad, dims, ndim, keepdim):
    """Put back the reduced `dims` (as size 1) that keepdim=False removed."""
    if keepdim or ndim == 0:
        return grad
    shape = list(grad.shape)
    for d in dims:
        shape.insert(d, 1)
    return grad.reshape(shape)


def _numel(shape, dims=None):
    n = 1
    for i, s in enumerate(shape):
        if dims is None or i in dims:
            n *= s
    return n


def _np_dtype(dtype):
    return None if dtype is None else dtype.np


def _acc_dtype(a, dtype):
    """sum, prod, cumsum and cumprod of bool and integer tensors are int64."""
    if dtype is None and a.dtype.kind in "bui":
        return np.int64
    return _np_dtype(dtype)


def _legacy(a):
    return FROM_NP[a.dtype].legacy


def _reversed_cumsum(w, dim):
    return w.flip(dim).cumsum(dim).flip(dim)


# ---- sum and mean -------------------------------------------------------------------------

# The kernels call the ufunc's reduce: ndarray.sum is a Python wrapper around the same call
# (a third of the time of a sum of a small tensor)
_add_reduce = np.add.reduce


def _sum_all(a, dtype):
    return _sum_dim(a, None, False, dtype)


def _sum_dim(a, dim, keepdim, dtype):
    dims = None if dim is None else _reduce_dims(dim, a.ndim)
    acc = _acc_dtype(a, dtype)
    if acc is None and a.dtype == np.float16:
        # PyTorch sums float16 in float32 and rounds once (NumPy's float16 sums round each
        # partial sum)
        return _add_reduce(a, dims, np.float32, None, keepdim).astype(np.float16)
    return _add_reduce(a, dims, acc, None, keepdim)


def _sum_backward(grad, self_shape, dim, keepdim):
    n = len(self_shape)
    return _unsqueeze_to(grad, _reduce_dims(dim, n), n, keepdim).expand(self_shape)


sum_all = op("sum", "SumBackward0", "self, *, dtype=None", _sum_all, function=False, method=False,
             self=lambda grad, self_shape: grad.expand(self_shape))

sum_dim = op("sum.dim_IntList", "SumBackward1", "self, dim, keepdim=False, *, dtype=None", _sum_dim,
             function=False, method=False, self=_sum_backward)


@public("sum", out=_REDUCE_OUT)
def sum(input, dim=_DEFAULT, keepdim=False, *, dtype=None):
    """Sum of all elements, or along `dim` (an int or a tuple of ints)."""
    if dim is _DEFAULT:
        _no_dim("sum", keepdim)
        return sum_all(input, dtype=dtype)
    return sum_dim(input, dim, keepdim, dtype=dtype)


def _mean(a, dim, keepdim, dtype):
    if dtype is None and a.dtype.kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_legacy(a)}")
    dims = _reduce_dims(dim, a.ndim)
    n = _numel(a.shape, dims)
    acc = _np_dtype(dtype)
    # PyTorch sums float16 in float32 and rounds once: the mean of [65504, 65504] is finite
    half = (acc or a.dtype) == np.float16
    total = _add_reduce(a, dims, np.float32 if half else acc, None, keepdim)
    if n:
        mean = total / n
    else:
        with np.errstate(invalid="ignore"):    # the mean of nothing is nan, silently
            mean = total / n
    return mean.astype(np.float16) if half else mean


def _mean_backward(grad, self_shape, dim, keepdim):
    n = len(self_shape)
    dims = _reduce_dims(dim, n)
    return _unsqueeze_to(grad, dims, n, keepdim).expand(self_shape) / _numel(self_shape, dims)


mean_all = op("mean", "MeanBackward0", "self, *, dtype=None",
              lambda a, dtype: _mean(a, None, False, dtype), function=False, method=False,
              self=lambda grad, self_shape: grad.expand(self_shape) / _numel(self_shape))

mean_dim = op("mean.dim", "MeanBackward1", "self, dim, keepdim=False, *, dtype=None", _mean,
              function=False, method=False, self=_mean_backward)


@public("mean", out=_MEAN_OUT)
def mean(input, dim=_DEFAULT, keepdim=False, *, dtype=None):
    """Mean of all elements, or along `dim`."""
    if dim is _DEFAULT:
        _no_dim("mean", keepdim)
        return mean_all(input, dtype=dtype)
    return mean_dim(input, dim, keepdim, dtype=dtype)


# ---- prod ---------------------------------------------------------------------------------

def _prod_dim(a, dim, keepdim, dtype):
    d = wrap_dim(_int_dim("prod", dim), a.ndim)
    return a.prod(axis=d if a.ndim else None, keepdims=keepdim, dtype=_acc_dtype(a, dtype))


def _prod_safe_zeros_backward(grad, inp, dim):
    """The product of all other elements along `dim`, as exclusive cumulative products from
    both ends (safe with zeros, and differentiable again)."""
    if inp.numel() == 0:
        return grad.expand_as(inp)
    n = inp.shape[dim]
    shape = list(inp.shape)
    shape[dim] = 1
    one = ones(shape, dtype=grad.dtype)
    exclusive_normal = cat([one, inp.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    exclusive_reverse = cat([one, inp.narrow(dim, 1, n - 1).flip(dim)], dim).cumprod(dim).flip(dim)
    return grad * (exclusive_normal * exclusive_reverse).conj()


def _prod_backward(grad, self, result):
    if self.dim() == 0:
        return grad
    self = self.to(grad.dtype)
    zeros = int((self == 0).sum())
    if zeros == 0:
        return grad * (result / self).conj()
    if zeros > 1 and not grad_mode.state.grad_enabled:
        return zeros_like(self)    # every product of the others has a zero
    return _prod_safe_zeros_backward(grad, self.reshape(-1), 0).reshape(self.shape)


def _prod_dim_backward(grad, self, result, dim, keepdim):
    if self.dim() == 0:
        return grad
    d = wrap_dim(dim, self.dim())
    if not keepdim:
        grad, result = grad.unsqueeze(d), result.unsqueeze(d)
    self = self.to(grad.dtype)
    if not bool((self == 0).any()):
        return grad * (result / self).conj()
    return _prod_safe_zeros_backward(grad, self, d)


prod_all = op("prod", "ProdBackward0", "self, *, dtype=None",
              lambda a, dtype: a.prod(dtype=_acc_dtype(a, dtype)), function=False,
              method=False, self=_prod_backward)

prod_dim = op("prod.dim_int", "ProdBackward1", "self, dim, keepdim=False, *, dtype=None",
              _prod_dim, function=False, method=False, self=_prod_dim_backward)


@public("prod", out=_REDUCE_OUT)
def prod(input, dim=_DEFAULT, keepdim=False, *, dtype=None):
    """Product of all elements, or along the int `dim`."""
    if dim is _DEFAULT:
        _no_dim("prod", keepdim)
        return prod_all(input, dtype=dtype)
    return prod_dim(input, dim, keepdim, dtype=dtype)


# ---- max, min, amax, amin, argmax, argmin -------------------------------------------------

def _max_all(name, pick):
    def forward(a):
        if a.size == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        if a.dtype.kind == "c":
            raise NotImplementedError(f"\"{name}_all\" not implemented for '{_legacy(a)}'")
        return pick(a)
    return forward


def _max_dim(name, arg):
    def forward(a, dim, keepdim):
        d = wrap_dim(_int_dim(name, dim), a.ndim)
        if a.ndim and a.shape[d] == 0:      # (before the dtype, as PyTorch checks)
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name}(): does not support complex input")
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        indices = arg(a, axis=d, keepdims=True)    # the first extreme (or nan), as PyTorch
        values = np.take_along_axis(a, indices, d)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
        return values, indices
    return forward


def _amax(name, pick):
    def forward(a, dim, keepdim):
        dims = _reduce_dims(dim, a.ndim)
        if a.size == 0:
            given = (dim,) if isinstance(dim, int) else tuple(dim)
            if not given:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the 'dim' "
                                   "argument.")
            for g in given:
                if a.shape[wrap_dim(g, a.ndim)] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {g} to have non-zero size.")
        elif a.dtype.kind == "c":     # (an empty result runs no kernel)
            raise NotImplementedError(f"\"{name[1:]}_values_cpu\" not implemented for "
                                      f"'{_legacy(a)}'")
        return pick(a, axis=dims, keepdims=keepdim)
    return forward


def _argmax(name, arg):
    def forward(a, dim, keepdim):
        if a.dtype.kind in "bc":
            kind = "bool" if a.dtype.kind == "b" else "complex"
            raise RuntimeError(f"{name}(): does not support {kind} input")
        if dim is None:
            if a.size == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            return np.full((1,) * a.ndim if keepdim else (), arg(a), np.int64)
        d = wrap_dim(_int_dim(name, dim), a.ndim)
        if a.ndim == 0:
            return np.zeros((), np.int64)
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return arg(a, axis=d, keepdims=keepdim)
    return forward


def _evenly_distribute_backward(grad, self, result):
    """Ties share the gradient evenly; a nan result sends it to the nans."""
    mask = self != self if bool(result != result) else self == result
    return where(mask, grad / mask.sum(), 0.0)


def _select_backward(grads, self_shape, dim, keepdim, result1):
    """value_selecting_reduction_backward: the gradient goes to the selected index."""
    grad, indices = grads[0], result1
    ndim = len(self_shape)
    if ndim == 0:
        return grad
    d = wrap_dim(dim, ndim)
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    positions = arange(self_shape[d]).reshape([-1 if i == d else 1 for i in range(ndim)])
    return where(positions == indices, grad, 0.0)


def _amax_backward(grad, self, result, dim, keepdim):
    """scale_grad_by_count: ties share the gradient evenly."""
    n = self.dim()
    dims = _reduce_dims(dim, n)
    mask = _unsqueeze_to(result, dims, n, keepdim) == self
    return _unsqueeze_to(grad, dims, n, keepdim) / mask.sum(dims, keepdim=True) * mask


max_all = op("max", "MaxBackward1", "self", _max_all("max", np.ndarray.max), function=False,
             method=False, self=_evenly_distribute_backward)
min_all = op("min", "MinBackward1", "self", _max_all("min", np.ndarray.min), function=False,
             method=False, self=_evenly_distribute_backward)
max_dim = op("max.dim", "MaxBackward0", "self, dim, keepdim=False",
             _max_dim("max", np.ndarray.argmax), returns=("values", "indices"),
             differentiable_outputs=(0,), function=False, method=False, self=_select_backward)
min_dim = op("min.dim", "MinBackward0", "self, dim, keepdim=False",
             _max_dim("min", np.ndarray.argmin), returns=("values", "indices"),
             differentiable_outputs=(0,), function=False, method=False, self=_select_backward)
amax = op("amax", "AmaxBackward0", "self, dim=(), keepdim=False", _amax("amax", np.ndarray.max),
          self=_amax_backward, out=_AMAX_OUT)
amin = op("amin", "AminBackward0", "self, dim=(), keepdim=False", _amax("amin", np.ndarray.min),
          self=_amax_backward, out=_AMAX_OUT)
argmax = op("argmax", None, "self, dim=None, keepdim=False", _argmax("argmax", np.ndarray.argmax),
            self=None, out=EXACT)
argmin = op("argmin", None, "self, dim=None, keepdim=False", _argmax("argmin", np.ndarray.argmin),
            self=None, out=EXACT)


@public("max", out=_MAX_DIM_OUT)
def max(input, dim=_DEFAULT, keepdim=False):
    """The largest element; along `dim`, the (values, indices) pair; with a tensor,
    the elementwise maximum."""
    if dim is _DEFAULT:
        _no_dim("max", keepdim)
        return max_all(input)
    if hasattr(dim, "_data"):
        return FUNCTIONS["maximum"](input, dim)
    return max_dim(input, dim, keepdim)


@public("min", out=_MAX_DIM_OUT)
def min(input, dim=_DEFAULT, keepdim=False):
    """The smallest element; along `dim`, the (values, indices) pair; with a tensor,
    the elementwise minimum."""
    if dim is _DEFAULT:
        _no_dim("min", keepdim)
        return min_all(input)
    if hasattr(dim, "_data"):
        return FUNCTIONS["minimum"](input, dim)
    return min_dim(input, dim, keepdim)


# ---- var and std --------------------------------------------------------------------------

def _moment(name, finish):
    def forward(a, dim, correction, keepdim):
        if a.dtype.kind not in "fc":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        dims = _reduce_dims(dim, a.ndim)
        n = _numel(a.shape, dims)
        c = 1 if correction is None else correction
        out_numel = _numel([s for i, s in enumerate(a.shape) if i not in dims])
        if a.size // (out_numel or 1) - c <= 0:
            warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the reduction factor (input numel divided by output numel).",
                          UserWarning, stacklevel=5)
        with np.errstate(invalid="ignore", divide="ignore"):    # inf or nan, as in PyTorch
            if a.dtype.kind == "c":     # the real part's variance plus the imaginary part's
                return finish(_variance(a.real, dims, n, c, keepdim)
                              + _variance(a.imag, dims, n, c, keepdim))
            real = a.dtype
            # PyTorch accumulates in double: a float32 var may overflow where its std does not
            a = a.astype(_MOMENT_ACC.get(a.dtype, a.dtype), copy=False)
            return finish(_squared_deviations(a, dims, n, keepdim) / _dof(n, c)).astype(real)
    return forward


_MOMENT_ACC = {np.dtype(np.float16): np.float64, np.dtype(np.float32): np.float64}


def _squared_deviations(a, dims, n, keepdim):
    d = a - a.sum(axis=dims, keepdims=True) / n
    sq = d.real * d.real + d.imag * d.imag if a.dtype.kind == "c" else d * d
    return sq.sum(axis=dims, keepdims=keepdim)


def _variance(a, dims, n, c, keepdim):
    """The variance of real `a` over `dims` (dividing by n - c, 0 when negative) in its
    dtype, accumulated as PyTorch's. A complex variance sums its parts' (so with n <= c,
    the imaginary part's 0 / 0 makes it NaN where a real one is inf)."""
    acc = a.astype(_MOMENT_ACC.get(a.dtype, a.dtype), copy=False)
    return (_squared_deviations(acc, dims, n, keepdim) / _dof(n, c)).astype(a.dtype)


def _dof(n, c):
    """The divisor n - c, 0 when not positive, and 0 for no elements whatever the correction
    (PyTorch's variance of nothing is NaN)."""
    return n - c if n and n > c else 0


def _var_backward(grad, self, dim, correction, keepdim):
    c = 1 if correction is None else correction
    if self.dim() == 0 or dim is None:
        dof = self.numel() - c
        if dof <= 0:
            # 2 / dof is infinite: nan where self is its mean (inf * 0), else inf
            return grad * where(self == self.mean(), math.nan, math.inf)
        return (2.0 / dof) * grad * (self - self.mean())
    dims = wrap_dims(dim, self.dim())   # an empty list counts 1 element here, as in PyTorch
    grad = _unsqueeze_to(grad, dims, self.dim(), keepdim)
    dof = _numel(self.shape, dims) - c
    scale = 2.0 / dof if dof else math.inf
    return scale * grad * (self - self.mean(dims, keepdim=True))


def _std_backward(grad, self, result, dim, correction, keepdim):
    return _var_backward(where(result == 0, 0.0, grad / (result * 2)), self, dim, correction,
                         keepdim)


var_correction = op("var.correction", "VarBackward0",
                    "self, dim=None, *, correction=None, keepdim=False",
                    _moment("var", lambda v: v), function=False, method=False,
                    self=_var_backward)
std_correction = op("std.correction", "StdBackward0",
                    "self, dim=None, *, correction=None, keepdim=False", _moment("std", np.sqrt),
                    function=False, method=False, self=_std_backward)


def _correction(name, dim, unbiased, correction):
    """PyTorch's var/std overloads: (dim, unbiased, keepdim), (unbiased) and
    (dim, *, correction, keepdim)."""
    if isinstance(dim, bool):     # var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is None:
        return dim, correction
    if correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both "
                        "unbiased and correction, but expected one of them")
    return dim, 1 if unbiased else 0


@public("var", out=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over `dim` (all dims for None), dividing by N - correction (default 1)."""
    dim, correction = _correction("var", dim, unbiased, correction)
    return var_correction(input, dim, correction=correction, keepdim=keepdim)


@public("std", out=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over `dim`, dividing by N - correction (default 1)."""
    dim, correction = _correction("std", dim, unbiased, correction)
    return std_correction(input, dim, correction=correction, keepdim=keepdim)


# ---- logsumexp ----------------------------------------------------------------------------

def _logsumexp(a, dim, keepdim):
    dims = wrap_dims(dim, a.ndim)
    if not dims:
        # PyTorch reduces everything but then fails to write the kept [1, ...] max into []
        if a.size and a.ndim and not keepdim:
            raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                               f"{sizes_str((1,) * a.ndim)}")
        dims = tuple(range(a.ndim))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if a.size == 0:
            return np.log(np.exp(a).sum(axis=dims, keepdims=keepdim))
        m = a.max(axis=dims, keepdims=True)
        m = np.where(np.isinf(m), 0, m)    # subtracting an infinite max would give nan
        out = np.log(np.exp(a - m).sum(axis=dims, keepdims=keepdim))
        return out + m.reshape(out.shape)


def _logsumexp_backward(grad, self, result, dim, keepdim):
    n = self.dim()
    dims = _reduce_dims(dim, n)
    result = _unsqueeze_to(result, dims, n, keepdim)
    return _unsqueeze_to(grad, dims, n, keepdim) * (self - result).exp().conj()


logsumexp = op("logsumexp", "LogsumexpBackward0", "self, dim, keepdim=False", _logsumexp,
               promote=FLOAT, self=_logsumexp_backward, out=_logsumexp_out)


# ---- norm ---------------------------------------------------------------------------------

def _vector_norm(a, ord, dim, keepdim, dtype):
    name = "linalg.vector_norm"
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_legacy(a)}")
    if isinstance(ord, complex):
        raise RuntimeError(f"{name}: Expected a non-complex scalar as the order of norm.")
    if dtype is not None:
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                               f"{dtype.legacy}")
        if dtype.is_complex != (a.dtype.kind == "c"):
            kind = "complex for complex" if a.dtype.kind == "c" else "real for real"
            raise RuntimeError(f"{name}: dtype should be {kind} inputs, but got {dtype.legacy}")
        if dtype.np.itemsize < a.dtype.itemsize:
            raise RuntimeError(f"{name}: the dtype of the input ({_legacy(a)}) should be "
                               f"convertible without narrowing to the specified dtype "
                               f"({dtype.legacy})")
        a = a.astype(dtype.np)
    dims = _reduce_dims(dim, a.ndim)
    if a.size == 0 and (ord < 0 or ord == math.inf):
        # max and min have no identity
        given = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if not given:
            raise RuntimeError(f"{name} cannot compute the {ord:g} norm on an empty tensor "
                               "because the operation does not have an identity")
        for g in given:
            if a.shape[wrap_dim(g, a.ndim)] == 0:
                raise RuntimeError(f"{name} cannot compute the {ord:g} norm on the dimension "
                                   f"{g}because this dimension is empty and the operation does "
                                   "not have an identity")
    x = np.abs(a)
    if x.dtype == np.float16:     # PyTorch computes a half norm in float32 and rounds once
        return _norm_of_abs(x.astype(np.float32), ord, dims, keepdim).astype(np.float16)
    return _norm_of_abs(x, ord, dims, keepdim)


def _norm_of_abs(x, ord, dims, keepdim):
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if ord == 0:
            return (x != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
        if ord == 1:
            return x.sum(axis=dims, keepdims=keepdim)
        if ord == 2:
            return np.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
        if ord == math.inf:
            return x.max(axis=dims, keepdims=keepdim)
        if ord == -math.inf:
            return x.min(axis=dims, keepdims=keepdim)
        total = (x ** ord).sum(axis=dims, keepdims=keepdim)
        # an empty reduction is PyTorch's fill of zeros, whatever ord (0 ** (1 / nan) is nan)
        return total if x.size == 0 else total ** (1.0 / ord)


def _vector_norm_backward(grad, self, ord, result, dim, keepdim):
    """norm_backward; the gradient at a zero norm is 0, and the 0-"norm" has none."""
    if ord == 0:
        return None
    n = self.dim()
    dims = _reduce_dims(dim, n)
    grad = _unsqueeze_to(grad, dims, n, keepdim)
    norm = _unsqueeze_to(result, dims, n, keepdim)
    if ord == 1:
        return self.sgn() * grad
    if ord == 2:
        return grad * where(norm == 0, 0.0, self / norm)
    sgn, abs_self = self.sgn(), self.abs()
    if math.isinf(ord):
        # ties (and nans) share the gradient, as amax's
        mask = (abs_self == norm) | (abs_self != abs_self)
        return sgn * (grad / mask.sum(dims, keepdim=True) * mask)
    if ord < 1:
        self_scaled = sgn * where(self == 0, 0.0, abs_self ** (ord - 1))
        return self_scaled * grad * norm ** (1 - ord)
    self_scaled = sgn * abs_self ** (ord - 1) if ord < 2 else self * abs_self ** (ord - 2)
    return self_scaled * where(norm == 0, 0.0, grad / norm ** (ord - 1))


vector_norm = op("linalg_vector_norm", "LinalgVectorNormBackward0",
                 "self, ord=2, dim=None, keepdim=False, *, dtype=None", _vector_norm,
                 function=False, method=False, self=_vector_norm_backward)


VECTOR_NORM = Signature("linalg_vector_norm(Tensor input, Scalar ord=2, int[1]? dim=None, "
                        "bool keepdim=False, *, ScalarType? dtype=None)")


@public("norm", out=EXACT, out_name="linalg_vector_norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector norm over `dim` (all dims for None): p a number, inf, -inf, 0, or 'fro' (2)."""
    input.layout    # noqa: B018  (read first by PyTorch's Python norm: an AttributeError)
    if isinstance(dim, int):
        dim = (dim,)
    # PyTorch's Python norm passes dim on, as a list, to linalg_vector_norm's binding
    VECTOR_NORM.check(input, 2, dim)
    if dim is not None:
        dim = tuple(int(d) if type(d) is bool else d for d in dim)    # later bools are ints
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype)
        from .decompositions import matrix_norm
        dims = list(range(input.dim())) if dim is None else dim
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    return vector_norm(input, 2.0 if p is None else p, dim, keepdim, dtype=dtype)


# ---- cumulative sums and products ---------------------------------------------------------

def _cumulative(name, fn):
    def forward(a, dim, dtype):
        d = wrap_dim(_int_dim(name, dim), a.ndim)
        if dtype is _dtype.bool:
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        if a.ndim == 0:
            return a.astype(_acc_dtype(a, dtype) or a.dtype)
        target = _acc_dtype(a, dtype) or a.dtype
        wider = _CUMULATIVE_ACC.get(np.dtype(target))
        if wider is not None:
            # PyTorch's CPU kernel runs the running sum / product in acc_type (double for
            # float, float for half) and rounds each output once
            return fn(a, axis=d, dtype=wider).astype(target)
        return fn(a, axis=d, dtype=target)
    return forward


_CUMULATIVE_ACC = {np.dtype(np.float32): np.float64, np.dtype(np.float16): np.float32,
                   np.dtype(np.complex64): np.complex128}


def _cumsum_backward(grad, dim):
    if grad.numel() <= 1:
        return grad
    d = wrap_dim(dim, grad.dim())
    return grad if grad.shape[d] == 1 else _reversed_cumsum(grad, d)


def _cumprod_backward(grad, self, dim, result):
    """cumprod_backward: without zeros, reversed_cumsum(result * grad) / self; with zeros,
    the products that leave each element out."""
    if self.numel() <= 1:
        return grad
    d = wrap_dim(dim, self.dim())
    if self.shape[d] == 1:
        return grad
    w = result.conj() * grad
    is_zero = self == 0
    if not bool(is_zero.any()):
        return _reversed_cumsum(w, d) / self.conj()
    if grad_mode.state.grad_enabled:
        return _cumprod_backward_differentiable(grad, self, d)
    # O(n), not differentiable again: before the first zero, the formula above; at the first
    # zero k, the product of the elements before it times the sum of grad times the products
    # of those after it, up to the second zero (included, as PyTorch: an infinity before it
    # makes that term inf * 0 = nan), vanishing past it (even past an infinity).
    zeros_before = is_zero.cumsum(d)
    before = zeros_before == 0
    first = is_zero & (zeros_before == 1)
    past_second = (zeros_before > 2) | (zeros_before == 2) & ~is_zero
    until_first = _reversed_cumsum(where(before, w, 0.0), d) / where(before, self, 1.0).conj()
    after_first = where(before | first, 1.0, self).cumprod(d)
    at_first = where(before, self, 1.0).cumprod(d).conj() * _reversed_cumsum(
        where(past_second, 0.0, grad * after_first.conj()), d)
    return where(before, until_first, where(first, at_first, 0.0))


def _cumprod_backward_differentiable(grad, self, d):
    """O(n^2) along `d`: dy_i/dx_k = prod_{j <= i, j != k} x_j, built as the cumprod of x
    with x_k replaced by 1, for every k along a new dim d (so i runs along d + 1)."""
    n = self.shape[d]
    shape = [1] * (self.dim() + 1)
    shape[d] = n
    k = arange(n).reshape(shape)
    shape[d], shape[d + 1] = 1, n
    i = arange(n).reshape(shape)
    left_out = where(k == i, 1.0, self.unsqueeze(d)).cumprod(d + 1)
    return where(i >= k, left_out.conj() * grad.unsqueeze(d), 0.0).sum(d + 1)


cumsum = op("cumsum", "CumsumBackward0", "self, dim, *, dtype=None",
            _cumulative("cumsum", np.ndarray.cumsum),
            inplace="cumsum_", self=_cumsum_backward, out=_REDUCE_OUT)

def _running_product(a, axis, dtype):
    """np.cumprod, with the first element multiplied by 1 as PyTorch's kernel starts its
    running product: for a complex infinity (a + bi)(1 + 0i) = (a - b*0) + (a*0 + b)i is not
    the element (1+infj gives nan+infj)."""
    if np.dtype(dtype).kind == "c" and a.shape[axis]:
        a = a.astype(dtype)
        first = (slice(None),) * axis + (slice(0, 1),)
        a[first] = a[first] * np.ones((), dtype)
    return np.cumprod(a, axis=axis, dtype=dtype)


cumprod = op("cumprod", "CumprodBackward0", "self, dim, *, dtype=None",
             _cumulative("cumprod", _running_product), inplace="cumprod_", self=_cumprod_backward,
             out=_REDUCE_OUT)


# ---- all and any (not differentiable) -----------------------------------------------------

def _logical(fn):
    def forward(a, dim, keepdim):
        out = fn(a, axis=None if dim is None else wrap_dims(dim, a.ndim), keepdims=keepdim)
        return out.astype(np.uint8) if a.dtype == np.uint8 else out   # uint8 stays uint8
    return forward


all = op("all", None, "self, dim=None, keepdim=False", _logical(np.ndarray.all), self=None,
         out=_logical_out("all"))
any = op("any", None, "self, dim=None, keepdim=False", _logical(np.ndarray.any), self=None,
         out=_logical_out("any"))


# ---- hash_tensor --------------------------------------------------------------------------

def _hash_tensor(a, dim, keepdim, mode):
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for "
                                  f"'{FROM_NP[a.dtype].legacy}'")
    if a.size == 0 and not isinstance(dim, int) and not dim:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    dims = _reduce_dims(dim, a.ndim)
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    # each element upcast to its 64-bit float or integer, its bits xor-ed together
    wide = a.astype(np.float64 if a.dtype.kind == "f" else np.int64).view(np.uint64)
    return np.bitwise_xor.reduce(wide, axis=dims, keepdims=keepdim)


hash_tensor = op("hash_tensor", None, "self, dim=(), *, keepdim=False, mode=0", _hash_tensor,
                 self=None, out=out_exact("Expected result to be of dtype uint64, but got {got}"))


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
_DTYPE = "*, torch.dtype dtype = None"
_MOMENT = ["(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, "
           "*, Tensor out = None)",
           "(Tensor input, tuple of ints[1] dim = None, *, Number correction = None, "
           "bool keepdim = False, Tensor out = None)",
           "(Tensor input, bool unbiased = True)"]
_LOGICAL = ["(Tensor input, *, Tensor out = None)",
            "(Tensor input, tuple of ints[1] dim = None, bool keepdim = False, *, "
            "Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"]
declare(Overloads("sum", [f"(Tensor input, {_DTYPE})", "(Tensor input, tuple of ints[1]? dim, "
                          f"bool keepdim = False, {_DTYPE}, Tensor out = None)"], fast=(1, 0)),
        Overloads("mean", [f"(Tensor input, {_DTYPE}, Tensor out = None)",
                           "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, "
                           f"{_DTYPE}, Tensor out = None)"], fast=(1, 0)),
        Overloads("prod", [f"(Tensor input, {_DTYPE})", "(Tensor input, int dim, bool keepdim = "
                           f"False, {_DTYPE}, Tensor out = None)"], fast=(1, 0)),
        *(Overloads(name, ["(Tensor input, *, Tensor out = None)",
                           "(Tensor input, Tensor other, *, Tensor out = None)",
                           "(Tensor input, int dim, bool keepdim = False, *, "
                           "tuple of Tensors out = None)"], fast=(2, 0, 1))
          for name in ("max", "min")),
        *(Overloads(name, _MOMENT, fast=(1, 0)) for name in ("var", "std")),
        *(Overloads(name, _LOGICAL, fast=(2, 0, 1)) for name in ("all", "any")),
        "amax(Tensor input, int[1] dim=[], bool keepdim=False)",
        "amin(Tensor input, int[1] dim=[], bool keepdim=False)",
        "argmax(Tensor input, int? dim=None, bool keepdim=False)",
        "argmin(Tensor input, int? dim=None, bool keepdim=False)",
        "logsumexp(Tensor input, int[1] dim, bool keepdim=False)",
        "cumsum(Tensor input, int dim, *, ScalarType? dtype=None)",
        "cumprod(Tensor input, int dim, *, ScalarType? dtype=None)")
declare("cumsum_(Tensor input, int dim, *, ScalarType? dtype=None)",
        "cumprod_(Tensor input, int dim, *, ScalarType? dtype=None)", function=False)
declare("hash_tensor(Tensor input, int[1] dim=[], *, bool keepdim=False, int mode=0)")
