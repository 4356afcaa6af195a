"""Indexing ops along one dim and by mask: index_select, index_add, index_copy, index_fill,
gather, scatter, scatter_add, scatter_reduce, masked_fill, masked_select, masked_scatter,
take, take_along_dim, bincount (advanced indexing, `x[idx]` and `x[idx] = v`, lives in
advanced_indexing.py).

Note [Scatter kernels]
Combining values into an array at repeated positions (adding, multiplying, maxing) is the
hot spot of graph networks. Every kernel here turns each destination element into one
flat C-order position (`_positions`, `_index_positions`; an expanded index is checked and
offset once per distinct value) and makes one unbuffered `ufunc.at` pass on the flat
output: since NumPy 1.25, `ufunc.at` has a fast path for a 1-D operand with one integer
index array (NumPy 1.24 takes the slow path). benchmarks/scatter_kernels.py times it against the alternatives, 200,000
edges x 16 / 64 features into 10,000 rows (NumPy 2.4, best of 7, two runs on a loaded
2-core machine): float32/float64 sums take 9-11 / 39-68 ms; np.bincount 12-22 / 35-108 ms
(float64 weights: a cast and a temporary; it only ties for float64 x 64); sort +
np.add.reduceat 62-110 / 155-245 ms; np.add.at on 2-D rows 41-80 / 148-282 ms. Integer
sums take 6-14 ms, bincount 15-31 ms and wrong (float64 is inexact past 2**53, and does
not wrap); amax, amin, prod 10-21 ms, sort + reduceat 56-113 ms. A scipy sparse product
(not a dependency) takes 0.8-1.6x the time at 16 features, 0.55-0.9x at 64; PyTorch's
index_add_ (one thread) 1.0-1.8x at 16 features, 0.4-1.0x at 64.
ufunc.at also keeps PyTorch's semantics: integers wrap, float32 accumulates in float32 in
index order as PyTorch's CPU kernels do, NaN propagates through max and min.
"""
import sys
import warnings

import numpy as np

from .._dims import sizes_str, wrap_dim
from .. import _dtype
from .._dtype import FROM_NP
from .._tensor import Tensor, _contiguous_strides, make_tensor
from ..autograd import grad_mode
from ..autograd.function import DelayedError
from ..autograd.graph import _sequence, edge_of
from .binding import Overloads, _bad_arguments, declare
from .registry import EXACT, FUNCTIONS, NOT_IMPLEMENTED, dispatch, no_derivative, op, out_exact, public


def _legacy(a):
    return FROM_NP[a.dtype].legacy


def _overload(decl, args, types):
    """An overload for _bad_arguments with the argument parser's reason: the arguments
    whose type's name differs from the declared one (a Number matches none, as in PyTorch's
    message) are marked."""
    got = ["Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args]
    marked = ", ".join(g if g == t else f"!{g}!" for g, t in zip(got, types))
    return f"{decl}\n      didn't match because some of the arguments have invalid types: ({marked})"


def _fill_args(name, args, params, types):
    """index_fill's and masked_fill's error for arguments neither overload takes; `args`
    from input on for the function, after self for the method (one declaration less)."""
    if len(args) == len(types) + 2:
        params, types = "Tensor input, " + params, ("Tensor",) + types
    return _bad_arguments(name, args, [_overload(f"({params}, {kind} value)", args,
                                                 types + (kind,)) for kind in ("Tensor", "Number")])


def _infer_size(a, b):
    """Two shapes broadcast together, with PyTorch's error (infer_size)."""
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b "
                               f"({pb[i]}) at non-singleton dimension {i}")
    return np.broadcast_shapes(pa, pb)


def _size(shape, d):
    """shape[d], reading a 0-d shape as (1,) (PyTorch's ensure_nonempty_size); d must be a
    dim of a dimensioned shape, else PyTorch's IndexError."""
    return shape[wrap_dim(d, len(shape))] if shape else 1


def _warn(message):
    """A UserWarning attributed to the user's line (the first frame outside chainrule)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("chainrule."):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def _zeros(shape, like):
    return make_tensor(np.zeros(shape, like._data.dtype))


def _compact(idx):
    """idx without the repeats of its broadcast (stride-0) dims: an expanded index, as
    `index.expand_as(src)` in graph networks, is checked and offset once per distinct value."""
    if 0 not in idx.strides:
        return idx
    return idx[tuple(slice(0, 1) if st == 0 else slice(None) for st in idx.strides)]


def _first_bad(idx, lo, hi):
    """The first index (in C order, as PyTorch's kernels check them) outside [lo, hi), or
    None."""
    idx = _compact(idx)
    if not idx.size or (idx.min() >= lo and idx.max() < hi):
        return None
    return idx[(idx < lo) | (idx >= hi)][0]


# ---- converting a Python number to a tensor's dtype (c10's checked_convert) --------------

_CPP = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
        "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double",
        "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _scalar(value, dtype):
    """`value` as a 0-d array of `dtype`, or PyTorch's overflow error: integers may wrap
    into unsigned types (-1 is 255), floats truncate into integers, non-finite floats fit
    only floating types, and complex numbers need a zero imaginary part unless the dtype
    is complex."""
    if dtype.kind == "b":
        return np.asarray(bool(value))
    if isinstance(value, complex) and dtype.kind != "c":
        if value.imag != 0:
            _overflow(dtype)
        value = value.real
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if isinstance(value, float):
            if value != value or not info.min <= value <= info.max:
                _overflow(dtype)
            value = int(value)
        value = int(value)
        low = -info.max if dtype.kind == "u" else info.min
        if not low <= value <= info.max:
            _overflow(dtype)
        return np.asarray(value % (info.max + 1) if value < 0 and dtype.kind == "u" else value,
                          dtype)
    big = _dtype.float_max(dtype)
    parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
    if any(abs(p) > big and abs(p) != float("inf") for p in parts if p == p):
        _overflow(dtype)
    return np.asarray(value, dtype)


def _overflow(dtype):
    raise RuntimeError(f"value cannot be converted to type {_CPP[dtype.name]} without overflow")


def _item(value):
    """A 0-d tensor passed where PyTorch takes a Scalar, as its Python number."""
    return value.item() if isinstance(value, Tensor) else value


# ---- flat positions and the accumulating kernel (Note [Scatter kernels]) -----------------

def _positions(shape, dim, idx):
    """Flat C-order positions, in an array of `shape`, of the elements a scatter or gather
    along `dim` with index array `idx` addresses, in idx's C order."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    pos = _compact(idx).astype(np.intp)
    if strides[dim] != 1:
        pos *= strides[dim]
    for d, n in enumerate(idx.shape):
        if d != dim and n > 1:
            step = np.arange(0, n * strides[d], strides[d]).reshape(
                (n,) + (1,) * (idx.ndim - d - 1))
            if pos.shape[d] == n:
                pos += step
            else:
                pos = pos + step     # broadcasts a compacted dim out: one pass over the result
    if pos.shape != idx.shape:
        pos = np.broadcast_to(pos, idx.shape)
    return pos.reshape(-1)


def _index_positions(shape, dim, idx):
    """Flat C-order positions of the slices idx[0], idx[1], ... along `dim` of an array of
    `shape`, in the C order of an array with `dim` resized to len(idx) (index_add's source)."""
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1:], dtype=np.int64))
    if outer == inner == 1:
        return idx
    pos = idx.astype(np.intp)[:, None] * inner + np.arange(inner)
    if outer != 1:
        pos = np.arange(outer)[:, None, None] * (shape[dim] * inner) + pos
    return pos.reshape(-1)


def _accumulate(out, linear, values, ufunc=np.add):
    """out.flat[linear] (op)= values with repeated positions combined, in place; `out` is
    C-contiguous (see Note [Scatter kernels])."""
    ufunc.at(out.reshape(-1), linear, values)
    return out


def _region(src, shape):
    """The leading block of `src` of `shape` (where index has elements: PyTorch reads src
    only there), flattened in C order."""
    if src.shape != shape:
        src = src.reshape(src.shape or (1,) * len(shape))[tuple(slice(0, n) for n in shape)]
    return src.reshape(-1)


def _restrided_has_elements(a, dim, n):
    """Whether PyTorch's index_copy / index_fill kernels visit any element: they view self
    with `dim` resized to the index's length `n` (stride 0 there) and check indices only
    while iterating over that view. An empty self has no storage for a view with elements:
    PyTorch's setStorage error."""
    shape = list(a.shape or (1,))
    shape[dim] = n
    if 0 in shape:
        return False
    if a.size == 0:
        strides = [s // a.itemsize for s in a.strides] if any(a.strides) else list(
            _contiguous_strides(a.shape))
        strides[dim] = 0
        need = 1 + sum((k - 1) * s for k, s in zip(shape, strides))
        raise RuntimeError(f"setStorage: sizes {sizes_str(shape)}, strides {sizes_str(strides)}, "
                           f"storage offset 0, and itemsize {a.itemsize} requiring a storage size "
                           f"of {need * a.itemsize} are out of bounds for storage of size 0")
    return True


# ---- index_select, index_add --------------------------------------------------------------

def _check_index_dtype(idx, message):
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise RuntimeError(message)


def _index_select(a, dim, index):
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if a.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    _check_index_dtype(idx, "index_select(): Expected dtype int32 or int64 for index")
    idx = idx.reshape(-1)
    if a.ndim <= 1:
        if _first_bad(idx, 0, a.size) is not None:
            raise IndexError("index out of range in self")
        out = a.reshape(-1)[idx]
        return out.reshape(()) if a.ndim == 0 else out
    n = a.shape[dim]
    if idx.size and a.size == 0 and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = _first_bad(idx, 0, n)
    if bad is not None:
        if dim == 1 or a.size == 0:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    return np.take(a, idx, axis=dim)


index_select = op("index_select", "IndexSelectBackward0", "self, dim, index", _index_select,
                  self=lambda grad, self_shape, dim, index: _zeros(self_shape, grad).index_add(
                      dim, index, grad))


def _index_func_checks(name, a, source, dim, idx):
    """PyTorch's checks for index_add (index_func_meta_impl)."""
    if idx.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"with type: {_legacy(idx)} and size: {sizes_str(idx.shape)}")
    _check_index_dtype(idx, f"{name}_(): Expected dtype int32/int64 for index but got: "
                            f"{_legacy(idx)}")
    if a.dtype != source.dtype:
        raise RuntimeError(f"{name}_(): self ({_legacy(a)}) and source ({_legacy(source)}) must "
                           "have the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise RuntimeError(f"{name}_(): Indexing dim {dim} is out of bounds of the source tensor "
                           f"with dim {source.ndim}")
    if source.ndim == 0 and idx.size != 1:     # PyTorch asks a 0-d source for its size(dim)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if source.ndim and idx.size != source.shape[dim]:
        raise RuntimeError(f"{name}_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({source.shape[dim]}), for dim: {dim}")
    a_rest, s_rest = list(a.shape), list(source.shape)
    if a.ndim and source.ndim:
        del a_rest[dim], s_rest[dim]
    if a_rest != s_rest:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {sizes_str(a.shape)} "
                           f"source.shape = {sizes_str(source.shape)}")


def _index_add(a, source, dim, index, alpha):
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    _index_func_checks("index_add", a, source, dim, idx)
    idx = idx.reshape(-1)
    out = np.array(a, order="C")
    if a.ndim > 1 and (not idx.size or not a.size):
        return out
    shape = a.shape or (1,)
    # PyTorch runs scatter_add for the first or last dim of 2+ dims, a number alpha equal
    # to 1 and int64 indices; its other kernels multiply by alpha even when it is 1, as
    # complex numbers (1 * (inf+1j) is inf+nanj)
    scatter = (a.ndim > 1 and dim in (0, a.ndim - 1) and alpha == 1
               and not isinstance(alpha, (bool, np.bool_)) and idx.dtype == np.int64)
    bad = _first_bad(idx, 0, shape[dim])
    if bad is not None:
        if scatter:     # scatter_add's message
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                               f"{shape[dim]}")
        raise IndexError("index out of range in self")
    values = np.ascontiguousarray(source).reshape(-1)
    if alpha != 1 or (a.dtype.kind == "c" and not scatter):
        values = values * _scalar(alpha, a.dtype)
    return _accumulate(out, _index_positions(shape, dim, idx), values)


index_add = op("index_add", "IndexAddBackward0", "self, dim, index, source, *, alpha=1",
               _index_add, inputs=("self", "source"), inplace="index_add_",
               self=lambda grad: grad,
               source=lambda grad, dim, index, source_shape, alpha: _scale(
                   grad.index_select(dim, index).reshape(source_shape), alpha), out=EXACT)


def _scale(t, alpha):
    return t if alpha == 1 else t * alpha


# ---- index_copy, index_fill ---------------------------------------------------------------

def _index_copy(a, source, dim, index):
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if source.ndim == 0 and idx.size != 1:
        raise IndexError("index_copy_(): When source is scalar, index should have one element "
                         f"(got {idx.size})")
    if source.ndim != a.ndim and source.ndim and a.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({a.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{_legacy(idx)}")
    if a.dtype != source.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_legacy(a)} and (source) {_legacy(source)}")
    a_rest, s_rest = list(a.shape), list(source.shape)
    if a_rest:
        del a_rest[dim]
    if s_rest:
        del s_rest[dim]
    if a_rest != s_rest:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {' '.join(map(str, a_rest))} at dimension {dim} and source slice "
            f"shape: {' '.join(map(str, s_rest))} at dimension 0.")
    if source.ndim and idx.size != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    shape = a.shape or (1,)
    out = np.array(a, order="C")
    if not _restrided_has_elements(a, dim, idx.size):
        return out
    bad = _first_bad(idx, 0, shape[dim])
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with "
                         f"size {shape[dim]}")
    out.reshape(-1)[_index_positions(shape, dim, idx.reshape(-1))] = \
            np.ascontiguousarray(source).reshape(-1)
    return out


index_copy = op("index_copy", "IndexCopyBackward0", "self, dim, index, source", _index_copy,
                inputs=("self", "source"), inplace="index_copy_",
                self=lambda grad, dim, index: grad.index_fill(dim, index, 0),
                source=lambda grad, dim, index, source_shape: grad.index_select(
                    dim, index).reshape(source_shape), out=EXACT)


def _index_fill(a, dim, index, value):
    idx = index._data
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, complex) and a.dtype.kind != "c":
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    shape = a.shape or (1,)
    dim = wrap_dim(dim, len(shape))
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    v = _scalar(value, a.dtype)
    out = np.array(a, order="C")
    if _restrided_has_elements(a, dim, idx.size):
        _check_fill_bounds(idx, dim, shape[dim])
        out.reshape(shape)[(slice(None),) * dim + (idx.reshape(-1),)] = v
    return out


def _check_fill_bounds(idx, dim, n):
    bad = _first_bad(idx, -n, n)     # negative indices count from the end
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


def _index_fill_tensor(a, value, dim, index):
    return _index_fill(a, dim, index, _value_item(value, "index_fill_"))


def _value_item(value, name):
    if value.ndim:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value.ndim} dimension(s).")
    return value.item()


def _index_fill_self(grad, dim, index):
    return grad.index_fill(dim, index, 0)


_index_fill_scalar = op("index_fill.int_Scalar", "IndexFillBackward0", "self, dim, index, value",
                        _index_fill, function=False, method=False, self=_index_fill_self)
_index_fill_tensor_row = op(
    "index_fill.int_Tensor", "IndexFillBackward1", "self, dim, index, value", _index_fill_tensor,
    inputs=("self", "value"), function=False, method=False, self=_index_fill_self,
    value=lambda grad, dim, index: grad.index_select(
        dim, make_tensor(np.unique(index._data))).sum())


def _index_fill_call(run, input, dim, index, value):
    if isinstance(value, Tensor):
        return run(_index_fill_tensor_row.op, (input, value), (dim, index))
    return run(_index_fill_scalar.op, (input,), (dim, index, value))


def _index_fill_args(name, args):
    if type(args[-3]) is bool or not isinstance(args[-2], Tensor):
        raise _fill_args(name, args, "int dim, Tensor index", ("int", "Tensor"))


@public("index_fill", method=False)
def index_fill(input, dim, index, value):
    """A copy of input with the slices at `index` along `dim` set to `value` (a number or
    a 0-d tensor)."""
    _index_fill_args("index_fill", (input, dim, index, value))
    return _index_fill_call(dispatch, input, dim, index, value)


@public("index_fill", function=False)
def _index_fill_method(self, dim, index, value):
    """A copy of self with the slices at `index` along `dim` set to `value`."""
    _index_fill_args("index_fill", (dim, index, value))
    return _index_fill_call(dispatch, self, dim, index, value)


@public("index_fill_", function=False)
def index_fill_(self, dim, index, value):
    from .inplace import dispatch_inplace
    _index_fill_args("index_fill_", (dim, index, value))
    return _index_fill_call(dispatch_inplace, self, dim, index, value)


# ---- index_reduce -------------------------------------------------------------------------

_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce(a, source, dim, index, reduce, include_self):
    _warn_once_index_reduce()
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin "
                           f"but got {reduce}.")
    _index_func_checks("index_reduce", a, source, dim, idx)
    if a.dtype.kind in "bc":
        # PyTorch's kernels lack these dtypes, except its slice by slice loop over self's
        # other dims (its arithmetic takes them, its maximum and minimum not complex)
        if not include_self:
            raise NotImplementedError("\"index_reduce_func_exclude_input_init\" not implemented "
                                      f"for '{_legacy(a)}'")
        if a.ndim <= 1:
            raise NotImplementedError(f"\"index_func_\" not implemented for '{_legacy(a)}'")
    idx = idx.reshape(-1)
    out = np.array(a, order="C")
    if not idx.size:
        return out
    shape = a.shape or (1,)
    if not include_self and _restrided_has_elements(a, dim, idx.size):
        _check_fill_bounds(idx, dim, shape[dim])     # PyTorch fills with index_fill_ first
    if a.ndim > 1 and not shape[dim]:
        raise IndexError(f"select(): index 0 out of range for tensor of size "
                         f"{sizes_str(a.shape)} at dimension {dim}")
    if a.dtype.kind == "c" and reduce in ("amax", "amin") and 0 <= idx[0] < shape[dim]:
        kernel = "maximum_cpu" if reduce == "amax" else "minimum_cpu"     # on the first slice
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(a)}'")
    if _first_bad(idx, 0, shape[dim]) is not None:
        raise IndexError("index out of range in self")
    pos = _index_positions(shape, dim, idx)
    flat = out.reshape(-1)
    if not include_self:
        flat[pos] = _identity(reduce, a.dtype)
    _accumulate(out, pos, np.ascontiguousarray(source).reshape(-1), _REDUCE[reduce])
    if reduce == "mean":
        if a.dtype.kind == "b":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
        count = np.bincount(pos, minlength=flat.size)
        if include_self:
            count += 1
        else:
            count[count == 0] = 1
        divide = np.true_divide if a.dtype.kind in "fc" else np.floor_divide
        divide(flat, count, out=flat, casting="unsafe")
    return out


_index_reduce_warned = []


def _warn_once_index_reduce():
    if not _index_reduce_warned:
        _index_reduce_warned.append(True)
        _warn("index_reduce() is in beta and the API may change at any time.")


_INDEX_REDUCE_DOUBLE_BACKWARD = (
    "index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
    "scattered to the same position in self")


def _index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result):
    """PyTorch's index_reduce_backward: (self's gradient, source's)."""
    if reduce == "prod":
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.index_reduce(dim, index, source, reduce,
                                                      include_self=include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = source == 0
        src_num_zeros = _zeros(self.shape, self).index_add(
            dim, index, src_zero.to(self.dtype)).index_select(dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = source.masked_fill(src_single_zero, 1)
        masked_src_result = self.index_reduce(dim, index, masked_src, reduce,
                                              include_self=include_self)
        grad_src = FUNCTIONS["where"](
            src_single_zero, (grad * masked_src_result).index_select(dim, index),
            (grad * result).index_select(dim, index) / source.masked_fill(src_zero, 1))
        if grad_mode.state.grad_enabled and grad_src._requires_grad and bool(
                (src_num_zeros._data > 1).any()):
            grad_src = _delayed_error(grad_src, _INDEX_REDUCE_DOUBLE_BACKWARD)
    elif reduce == "mean":
        n = make_tensor(np.full(grad._data.shape, 1 if include_self else 0, grad._data.dtype))
        n = n.index_add(dim, index, make_tensor(np.ones(source._data.shape, grad._data.dtype)))
        n = n.masked_fill(n == 0, 1)
        grad_self = grad / n
        grad_src = grad.index_select(dim, index) / n.index_select(dim, index)
    else:
        value = result.index_select(dim, index)
        self_is_result = (self == result).to(self.dtype)
        source_is_result = (source == value).to(self.dtype)
        distributed = grad / self_is_result.index_add(dim, index, source_is_result)
        grad_self = self_is_result * distributed
        grad_src = source_is_result * distributed.index_select(dim, index)
    if not include_self:
        grad_self = grad_self.index_fill(dim, index, 0)
    return grad_self, grad_src


index_reduce = op(
    "index_reduce", "IndexReduceBackward0",
    "self, dim, index, source, reduce, *, include_self=True", _index_reduce,
    inputs=("self", "source"), inplace="index_reduce_", out=EXACT,
    self=lambda grad, self, dim, index, source, reduce, include_self, result:
        _index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result)[0],
    source=lambda grad, self, dim, index, source, reduce, include_self, result:
        _index_reduce_backward(grad, self, dim, index, source, reduce, include_self, result)[1])


# ---- put ----------------------------------------------------------------------------------

def _put(a, source, index, accumulate):
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_legacy(idx)}")
    if a.dtype != source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_legacy(a)} and source.dtype = {_legacy(source)}")
    if source.size != idx.size:
        raise IndexError("put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source.size}, index.numel() = {idx.size}")
    if a.size == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    out = np.array(a, order="K")      # self's layout, as PyTorch's clone
    if not idx.size:
        return out
    bad = _first_bad(idx, -a.size, a.size)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {a.size} "
                         "elements.")
    # positions in C order of the logical elements, whatever out's layout
    where = np.unravel_index(idx.reshape(-1) % a.size, a.shape or (1,))
    if not a.ndim:
        out = out.reshape(1)
    values = np.asarray(source).reshape(-1)
    if accumulate:
        np.add.at(out, where, values)
    else:
        out[where] = values
    return out.reshape(a.shape)


put = op("put", "PutBackward0", "self, index, source, accumulate=False", _put,
         inputs=("self", "source"), inplace="put_", out=False,
         self=lambda grad, index, source_shape, accumulate: grad if accumulate else grad.put(
             index, _zeros(source_shape, grad), False),
         source=lambda grad, index, source_shape: grad.take(index).reshape(source_shape))


# ---- gather, scatter, scatter_add, scatter_reduce -----------------------------------------

def _gather(a, dim, index, sparse_grad=False):
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    if not idx.size:
        return np.empty(idx.shape, a.dtype)
    _check_index_dtype(idx, "gather(): Expected dtype int32/int64 for index")
    shape = a.shape or (1,)
    if len(shape) != max(idx.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ishape = idx.shape or (1,)
    for d in range(len(shape)):
        if d != dim and ishape[d] > shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{sizes_str(idx.shape)} to be no larger than self "
                               f"{sizes_str(a.shape)} apart from dimension {dim}")
    _check_scatter_bounds(idx, dim, shape[dim])
    return np.take(a, _positions(shape, dim, idx)).reshape(idx.shape)


gather = op("gather", "GatherBackward0", "self, dim, index, *, sparse_grad=False", _gather,
            self=lambda grad, self_shape, dim, index: _zeros(self_shape, grad).scatter_add(
                dim, index, grad), out=EXACT)


def _check_scatter_bounds(idx, dim, size):
    bad = _first_bad(idx, 0, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _scatter_checks(a, dim, index, src=None):
    """PyTorch's checks before every scatter (scatter_meta_impl); returns the wrapped dim and
    the index array."""
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    if idx.size:
        _check_index_dtype(idx, "scatter(): Expected dtype int32/int64 for index")
    if src is not None and src.dtype != a.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if not idx.size:
        return dim, idx
    shape, ishape = a.shape or (1,), idx.shape or (1,)
    if len(shape) != len(ishape):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(i > n for d, (i, n) in enumerate(zip(ishape, shape)) if d != dim)
    if src is not None:
        if not wrong and src.shape != ishape:
            wrong = any(i > _size(src.shape, d) for d, i in enumerate(ishape))
        if max(src.ndim, 1) != len(ishape):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
    if wrong:
        message = (f"Expected index {sizes_str(idx.shape)} to be no larger than self "
                   f"{sizes_str(a.shape)} apart from dimension {dim}")
        if src is not None:
            message += f" and to be no larger size than src {sizes_str(src.shape)}"
        raise RuntimeError(message)
    return dim, idx


def _scatter_kernel(a, dim, idx, values, ufunc=None):
    """A copy of `a` with `values()` (an array in idx's C order, or a 0-d array) written, or
    combined by `ufunc`, at the positions `idx` addresses along `dim` (a thunk: PyTorch
    reads src and converts value only when index has elements)."""
    out = np.array(a, order="C")
    if not idx.size:
        return out
    values = values()
    shape = a.shape or (1,)
    _check_scatter_bounds(idx, dim, shape[dim])
    pos = _positions(shape, dim, idx)
    if ufunc is None:
        out.reshape(-1)[pos] = values
    else:
        _accumulate(out, pos, values, ufunc)
    return out


_LEGACY_REDUCE = {"add": np.add, "multiply": np.multiply}


def _legacy_reduce(reduce):
    if reduce is None:
        return None
    if reduce not in _LEGACY_REDUCE:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return _LEGACY_REDUCE[reduce]


def _scatter_src(a, src, dim, index, reduce=None):
    dim, idx = _scatter_checks(a, dim, index, src)
    ufunc = _legacy_reduce(reduce)
    return _scatter_kernel(a, dim, idx, lambda: _region(src, idx.shape or (1,)), ufunc)


def _scatter_value(a, dim, index, value, reduce=None):
    dim, idx = _scatter_checks(a, dim, index)
    ufunc = _legacy_reduce(reduce)
    return _scatter_kernel(a, dim, idx, lambda: _scalar(value, a.dtype), ufunc)


def _scatter_self(grad, dim, index):
    return grad.scatter(dim, index, 0)


_scatter_src_row = op("scatter.src", "ScatterBackward0", "self, dim, index, src", _scatter_src,
                      inputs=("self", "src"), function=False, method=False, self=_scatter_self,
                      src=lambda grad, dim, index: grad.gather(dim, index))
_scatter_value_row = op("scatter.value", "ScatterBackward1", "self, dim, index, value",
                        _scatter_value, function=False, method=False, self=_scatter_self)


# scatter's legacy reduce= argument has no derivative in PyTorch (a NotImplemented node)
_scatter_reduce_row = op("scatter.reduce", NOT_IMPLEMENTED, "self, dim, index, src, reduce",
                         _scatter_src, inputs=("self", "src"), function=False,
                         method=False, self=no_derivative("aten::scatter"),
                         src=no_derivative("aten::scatter"))
_scatter_value_reduce_row = op(
    "scatter.value_reduce", NOT_IMPLEMENTED, "self, dim, index, value, reduce",
    _scatter_value, function=False, method=False, self=no_derivative("aten::scatter"))


def _scatter_call(run, input, dim, index, src, value, reduce):
    """Pick scatter's overload as PyTorch's argument parser does: a tensor (even 0-d) is
    `src`, a number `value`."""
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required argument: 'src' or 'value'")
    if value is None and isinstance(src, Tensor):
        if reduce is None:
            return run(_scatter_src_row.op, (input, src), (dim, index))
        from .shape import _warn_once
        _warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will "
                   "be removed in a future PyTorch release. Use torch.scatter_reduce instead for "
                   "more reduction options.")
        out = run(_scatter_reduce_row.op, (input, src), (dim, index, reduce))
        node = out._grad_fn
        if type(node) is _scatter_reduce_row.op.node_cls:
            # PyTorch's NotImplemented node has edges only to the inputs that require grad
            node._next = tuple(e for e in node._next if e[0] is not None)
        return out
    value = _item(src if value is None else value)
    if reduce is None:
        return run(_scatter_value_row.op, (input,), (dim, index, value))
    return run(_scatter_value_reduce_row.op, (input,), (dim, index, value, reduce))


_SCATTER_FUNCTION_OVERLOADS = tuple(
    f"(Tensor input, int dim, Tensor index, {v}, *, {r}Tensor out = None)"
    for v in ("Tensor src", "Number value") for r in ("", "str reduce, "))


def _scatter_args(name, input, dim, index, src, reduce):
    """The argument parser's error for a bool dim or an index not a tensor (input None for
    the method); exact for positional arguments."""
    if type(dim) is not bool and isinstance(index, Tensor):
        return
    args = (dim, index) if src is None else (dim, index, src)
    if input is not None:
        error = _bad_arguments(name, (input,) + args, _SCATTER_FUNCTION_OVERLOADS)
    else:
        overloads = []
        for v, kind in (("Tensor src", "Tensor"), ("Number value", "Number")):
            decl = f"(int dim, Tensor index, {v})"
            overloads += [decl if reduce is not None else _overload(
                decl, args, ("int", "Tensor", kind)), decl[:-1] + ", *, str reduce)"]
        error = _bad_arguments(name, args, overloads)
    if reduce is not None:      # the keyword shows among the arguments got
        error = TypeError(str(error).replace(
            "), but", f", reduce={type(reduce).__name__}), but", 1))
    raise error


@public("scatter", out=True, method=False)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """A copy of input with `src` (a tensor) or `value` (a number) written at the positions
    `index` gives along `dim`; reduce='add' or 'multiply' combines instead."""
    _scatter_args("scatter", input, dim, index, src, reduce)
    return _scatter_call(dispatch, input, dim, index, src, value, reduce)


@public("scatter", function=False)
def _scatter_method(self, dim, index, src=None, *, value=None, reduce=None):
    """A copy of self with `src` or `value` written at the positions `index` gives."""
    _scatter_args("scatter", None, dim, index, src, reduce)
    return _scatter_call(dispatch, self, dim, index, src, value, reduce)


@public("scatter_", function=False)
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    from .inplace import dispatch_inplace
    _scatter_args("scatter_", None, dim, index, src, reduce)
    return _scatter_call(dispatch_inplace, self, dim, index, src, value, reduce)


scatter_add = op("scatter_add", "ScatterAddBackward0", "self, dim, index, src",
                 lambda a, src, dim, index: _scatter_src(a, src, dim, index, "add"),
                 inputs=("self", "src"), inplace="scatter_add_",
                 self=lambda grad: grad,
                 src=lambda grad, dim, index: grad.gather(dim, index))


# PyTorch's forward also takes "max" and "min" (its backward then raises)
_REDUCE = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum,
           "amin": np.minimum, "max": np.maximum, "min": np.minimum}


def _identity(reduce, dtype):
    """The value positions start from when include_self=False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    high = _REDUCE[reduce] is np.maximum
    if dtype.kind == "b":
        return not high
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if high else info.max
    return -np.inf if high else np.inf


def _scatter_reduce(a, src, dim, index, reduce, include_self=True):
    dim, idx = _scatter_checks(a, dim, index, src)
    if reduce not in _REDUCE:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    out = np.array(a, order="C")
    if not idx.size:
        # the kernel is skipped, not mean's division of the result by the counts
        if reduce == "mean" and a.dtype.kind == "b":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
        return out
    shape = a.shape or (1,)
    if not include_self:     # PyTorch first scatters the identity, checking the indices
        _check_scatter_bounds(idx, dim, shape[dim])
    if (reduce == "mean" and a.dtype.kind == "b") or (reduce not in ("sum", "prod", "mean")
                                                       and a.dtype.kind == "c"):
        kernel = {"max": "amax", "min": "amin"}.get(reduce, reduce)
        raise NotImplementedError(f"\"scatter_gather_tensor_cpu_reduce_{kernel}\" not implemented "
                                  f"for '{_legacy(a)}'")
    _check_scatter_bounds(idx, dim, shape[dim])
    pos = _positions(shape, dim, idx)
    flat = out.reshape(-1)
    if not include_self:
        flat[pos] = _identity(reduce, a.dtype)
    _accumulate(out, pos, _region(src, idx.shape or (1,)), _REDUCE[reduce])
    if reduce == "mean":
        count = np.bincount(pos, minlength=flat.size)
        if include_self:
            count += 1
        else:
            count[count == 0] = 1
        divide = np.true_divide if a.dtype.kind in "fc" else np.floor_divide
        divide(flat, count, out=flat, casting="unsafe")
    return out


def _mean_counts(grad, dim, index, src_shape, include_self):
    """How many values each position of a mean averaged (at least 1), as a tensor."""
    dt = grad._data.dtype
    ones = np.full(grad._data.shape, 1 if include_self else 0, dt)
    n = _scatter_reduce(ones, np.ones(src_shape, dt), dim, index, "sum")
    n[n == 0] = 1
    return make_tensor(n)


def _share(grad, self, dim, index, src, result):
    """amax/amin: the gradient of each position split evenly among the values that reached
    its extremum (PyTorch's choice at ties)."""
    value = result.gather(dim, index)
    n = (self == result).to(self.dtype).scatter_add(dim, index, (src == value).to(self.dtype))
    return grad / n


def _check_reduce_backward(reduce):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' "
                           f"but got {reduce}.")


def _scatter_reduce_self(grad, self, dim, index, src, reduce, include_self, result):
    _check_reduce_backward(reduce)
    if reduce == "sum":
        g = grad
    elif reduce == "prod":
        masked = self.masked_fill(self == 0, 1)
        g = grad * masked.scatter_reduce(dim, index, src, "prod",
                                         include_self=include_self) / masked
    elif reduce == "mean":
        g = grad / _mean_counts(grad, dim, index, src.shape, include_self)
    else:
        g = (self == result) * _share(grad, self, dim, index, src, result)
    return g if include_self else g.scatter(dim, index, 0)


_PROD_DOUBLE_BACKWARD = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros "
                         "in src are scattered to the same position in self")


def _scatter_reduce_src(grad, self, dim, index, src, reduce, include_self, result):
    _check_reduce_backward(reduce)
    if reduce == "sum":
        return grad.gather(dim, index)
    if reduce == "mean":
        n = _mean_counts(grad, dim, index, src.shape, include_self)
        return grad.gather(dim, index) / n.gather(dim, index)
    if reduce != "prod":
        return (src == result.gather(dim, index)) * _share(
            grad, self, dim, index, src, result).gather(dim, index)
    # prod: a lone zero's gradient is the product of the others, computed without it
    zero = src == 0
    zeros = _zeros(self.shape, self).scatter_add(dim, index, zero.to(self.dtype)).gather(dim, index)
    single = zero & (zeros == 1)
    without = self.scatter_reduce(dim, index, src.masked_fill(single, 1), "prod",
                                  include_self=include_self)
    g = FUNCTIONS["where"](single, (grad * without).gather(dim, index),
                           (grad * result).gather(dim, index) / src.masked_fill(zero, 1))
    if grad_mode.state.grad_enabled and g._requires_grad and bool((zeros._data > 1).any()):
        g = _delayed_error(g, _PROD_DOUBLE_BACKWARD)
    return g


def _delayed_error(t, message):
    """`t` behind a node that raises `message` if gradient ever flows through it."""
    node = DelayedError()
    node._seq = next(_sequence)
    node._hooks = None
    node.msg = message
    node._next = (edge_of(t),)
    node._meta = ((t._data.shape, t._data.dtype),)
    return make_tensor(t._data, True, node, 0)


scatter_reduce = op(
    "scatter_reduce.two", "ScatterReduceBackward0",
    "self, dim, index, src, reduce, *, include_self=True", _scatter_reduce,
    inputs=("self", "src"), inplace="scatter_reduce_",
    self=_scatter_reduce_self, src=_scatter_reduce_src)


# ---- masked_fill, masked_select, masked_scatter -------------------------------------------

def _masked_fill(a, mask, value):
    m = mask._data
    _infer_size(m.shape, a.shape)
    _check_fill_mask(m)
    return np.where(m, _scalar(value, a.dtype), a)


def _check_fill_mask(m):
    if m.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{FROM_NP[m.dtype].cpp}")


def _masked_fill_tensor(a, value, mask):
    _infer_size(mask._data.shape, a.shape)
    return _masked_fill(a, mask, _value_item(value, "masked_fill_"))


def _masked_fill_self(grad, mask):
    return grad.masked_fill(mask, 0)


_masked_fill_scalar = op("masked_fill.Scalar", "MaskedFillBackward0", "self, mask, value",
                         _masked_fill, function=False, method=False, self=_masked_fill_self)
_masked_fill_tensor_row = op(
    "masked_fill.Tensor", "MaskedFillBackward1", "self, mask, value", _masked_fill_tensor,
    inputs=("self", "value"), function=False, method=False, self=_masked_fill_self,
    value=lambda grad, mask: grad.masked_select(mask).sum())


def _masked_fill_args(name, args):
    if not isinstance(args[-2], Tensor):
        raise _fill_args(name, args, "Tensor mask", ("Tensor",))


@public("masked_fill", method=False)
def masked_fill(input, mask, value):
    """A copy of input (broadcast with mask) with `value` (a number or a 0-d tensor) where
    the bool `mask` is True."""
    _masked_fill_args("masked_fill", (input, mask, value))
    return _masked_fill_call(input, mask, value)


@public("masked_fill", function=False)
def _masked_fill_method(self, mask, value):
    """A copy of self (broadcast with mask) with `value` where the bool `mask` is True."""
    _masked_fill_args("masked_fill", (mask, value))
    return _masked_fill_call(self, mask, value)


def _masked_fill_call(input, mask, value):
    if isinstance(value, Tensor):
        return _masked_fill_tensor_row(input, mask, value)
    return _masked_fill_scalar(input, mask, value)


@public("masked_fill_", function=False)
def masked_fill_(self, mask, value):
    from .inplace import dispatch_inplace
    _masked_fill_args("masked_fill_", (mask, value))
    # in place, PyTorch checks the mask before broadcasting it against self (not the reverse)
    if isinstance(value, Tensor):
        _value_item(value._data, "masked_fill_")
    _check_fill_mask(mask._data)
    _infer_size(self._data.shape, mask._data.shape)
    if isinstance(value, Tensor):
        return dispatch_inplace(_masked_fill_tensor_row.op, (self, value), (mask,))
    return dispatch_inplace(_masked_fill_scalar.op, (self,), (mask, value))


def _masked_select(a, mask):
    m = mask._data
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _infer_size(m.shape, a.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(m, shape)]


_MASKED_SELECT_OUT = out_exact("masked_select(): self and result must have the same scalar type")

masked_select = op(
    "masked_select", "MaskedSelectBackward0", "self, mask", _masked_select,
    self=lambda grad, self_shape, mask: _zeros(
        np.broadcast_shapes(self_shape, mask.shape), grad).masked_scatter(mask, grad), out=_MASKED_SELECT_OUT)


def _masked_scatter(a, source, mask):
    m = mask._data
    shape = _infer_size(m.shape, a.shape)
    _masked_scatter_dtypes(a, source)
    if m.dtype == np.uint8:
        _warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
              "deprecated,please use a mask with dtype torch.bool instead.")
    if m.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_legacy(m)}")
    m = np.broadcast_to(m, shape)
    n = np.count_nonzero(m)
    if n > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = np.array(np.broadcast_to(a, shape), order="C")
    out[m] = source.reshape(-1)[:n]
    return out


def _masked_scatter_dtypes(a, source):
    if a.dtype != source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_legacy(a)} and {_legacy(source)}")


def _masked_scatter_source(grad, mask, source_shape):
    """PyTorch's masked_scatter_backward: the masked gradient, padded with zeros to the
    source's size."""
    picked = grad.masked_select(mask)
    missing = int(np.prod(source_shape, dtype=np.int64)) - picked.shape[0]
    if missing > 0:
        picked = FUNCTIONS["cat"]([picked, _zeros((missing,), grad)])
    return picked.view(source_shape)


masked_scatter = op("masked_scatter", "MaskedScatterBackward0", "self, mask, source",
                    _masked_scatter, inputs=("self", "source"), out=False, self=_masked_fill_self,
                    source=_masked_scatter_source)


@public("masked_scatter_", function=False)
def masked_scatter_(self, mask, source):
    from .inplace import dispatch_inplace
    _masked_scatter_dtypes(self._data, source._data)
    mask.expand(self.shape)     # in place, the mask must expand to self (expand's errors)
    return dispatch_inplace(masked_scatter.op, (self, source), (mask,))


# ---- take, take_along_dim, bincount -------------------------------------------------------

def _take(a, index):
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_legacy(idx)}")
    if a.size == 0 and idx.size:
        raise IndexError("take(): tried to take from an empty tensor")
    bad = _first_bad(idx, -a.size, a.size)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {a.size} "
                         "elements.")
    return np.take(a, idx)


def _take_backward(grad, self_shape, index):
    n = int(np.prod(self_shape, dtype=np.int64))
    flat = make_tensor(index._data.reshape(-1) % max(n, 1))
    return _zeros((n,), grad).index_add(0, flat, grad.reshape(-1)).reshape(self_shape)


take = op("take", "TakeBackward0", "self, index", _take, self=_take_backward)


@public("take_along_dim", out=True)
def take_along_dim(input, indices, dim=None):
    """Values of input at `indices` along `dim` (broadcast against each other apart from
    dim; indices taken modulo the size of dim, as PyTorch 2.13 does), or of the flattened
    input when dim is None; PyTorch records it as gather."""
    if dim is None:
        return input.view(-1).gather(0, indices.view(-1))
    a, idx = input._data, indices._data
    if a.ndim != idx.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {a.ndim} dimensions for input, and {idx.ndim} "
                           "dimensions for indices")
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_legacy(idx)}")
    dim = wrap_dim(dim, a.ndim)
    if not a.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    shape = _infer_size(_with(a.shape, dim, idx.shape), idx.shape)
    input = input.expand(_infer_size(_with(idx.shape, dim, a.shape), a.shape))
    size = a.shape[dim]
    if not size and idx.size:
        raise RuntimeError("ZeroDivisionError")
    idx = np.broadcast_to(idx, shape)
    return input.gather(dim, make_tensor(np.remainder(idx, size) if size else idx))


def _with(shape, dim, other):
    """`shape` with its size at `dim` taken from `other`."""
    return shape[:dim] + other[dim:dim + 1] + shape[dim + 1:]


def _bincount(a, weights, minlength):
    if not isinstance(minlength, int):
        raise TypeError(f"bincount(): argument 'minlength' must be int, not "
                        f"{type(minlength).__name__}")
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_legacy(a)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim == 1 and not a.size:
        return np.zeros(minlength, np.int64)
    if a.ndim != 1 or a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != a.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    top = int(a.max())
    if top == np.iinfo(np.int64).max:
        raise RuntimeError(f"maximum value of input overflowed, it should be < {top} but got {top}")
    bins = max(top + 1, minlength)
    if weights is None:
        return np.bincount(a, minlength=bins).astype(np.int64, copy=False)
    # float32 weights accumulate in float32, in order (as PyTorch); others in float64
    dt = np.float32 if weights.dtype == np.float32 else np.float64
    if weights.dtype.kind == "c":
        _warn("Casting complex values to real discards the imaginary part")
        weights = weights.real
    return _accumulate(np.zeros(bins, dt), a, weights.astype(dt, copy=False))


# PyTorch records a NotImplemented node when weights require grad
bincount = op("bincount", NOT_IMPLEMENTED, "self, weights=None, minlength=0", _bincount,
              out=False, self=None, weights=no_derivative("aten::bincount"))


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
declare("index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1)",
        "index_reduce(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, "
        "bool include_self=True)",
        "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False)",
        "scatter_reduce(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True)",
        "masked_select(Tensor input, Tensor mask)", "take(Tensor input, Tensor index)",
        "index_select(Tensor input, int dim, Tensor index)",
        "take_along_dim(Tensor input, Tensor indices, int? dim=None)",
        "index_copy(Tensor input, int dim, Tensor index, Tensor source)",
        "masked_scatter(Tensor input, Tensor mask, Tensor source)",
        "put(Tensor input, Tensor index, Tensor source, bool accumulate=False)",
        "scatter_add(Tensor input, int dim, Tensor index, Tensor src)")
declare("index_add_(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1)",
        "index_reduce_(Tensor input, int dim, Tensor index, Tensor source, str reduce, *, "
        "bool include_self=True)",
        "scatter_reduce_(Tensor input, int dim, Tensor index, Tensor src, str reduce, *, "
        "bool include_self=True)",
        "index_copy_(Tensor input, int dim, Tensor index, Tensor source)",
        "masked_scatter_(Tensor input, Tensor mask, Tensor source)",
        "put_(Tensor input, Tensor index, Tensor source, bool accumulate=False)",
        "scatter_add_(Tensor input, int dim, Tensor index, Tensor src)", function=False)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("bincount(Tensor input, Tensor? weights=None, int minlength=0)",
        *(Overloads(name, [f"(Tensor input, Tensor mask, {kind} value)"
                           for kind in ("Tensor", "Number")], fast=(0, 1))
          for name in ("masked_fill", "masked_fill_")),
        *(Overloads(name, [f"(Tensor input, int dim, Tensor index, {kind} value)"
                           for kind in ("Tensor", "Number")], fast=(0, 1))
          for name in ("index_fill", "index_fill_")),
        *(Overloads(name, ["(Tensor input, int dim, Tensor index, Tensor src)",
                           "(Tensor input, int dim, Tensor index, Tensor src, *, str reduce)",
                           "(Tensor input, int dim, Tensor index, Number value)",
                           "(Tensor input, int dim, Tensor index, Number value, *, str reduce)"],
                    fast=(0, 2)) for name in ("scatter", "scatter_")), function=False)
