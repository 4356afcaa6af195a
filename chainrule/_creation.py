"""Tensor creation: tensor, as_tensor, from_numpy, zeros/ones/full/empty, ranges, random
sampling, *_like, and PyTorch's legacy constructors (Tensor(3, 5), FloatTensor(...))."""
import builtins
import inspect
import itertools
import math
import numbers
import warnings

import numpy as np

from . import _dtype, _random
from ._dims import sizes_str
from ._dtype import FROM_NP
from ._device import check_factory
from ._tensor import Size, Tensor, make_tensor
from .autograd import grad_mode as _grad_mode
from .autograd.graph import refresh_view_history
from .ops import registry
from .ops.inplace import _rebase, check_inplace
from .ops.registry import _OUT_RESIZED, NONE, Op, check_out_kind, public

_grad_state = _grad_mode.state

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "range", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
           "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
           "randint_like", "FloatTensor", "DoubleTensor",
           "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "BFloat16Tensor",
           "ShortTensor",
           "CharTensor", "scalar_tensor", "is_tensor", "numel", "complex", "polar"]



def _finish(data, requires_grad):
    t = make_tensor(data)
    if requires_grad:
        if FROM_NP[data.dtype].category < 2:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _infer_array(data, dtype=None):
    """A NumPy array for Python data, with PyTorch's dtype inference; Python numbers are
    converted straight to `dtype` when one is given."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        if data.dtype.isbuiltin != 1 or data.dtype not in FROM_NP:     # ml_dtypes: refused
            _dtype.from_numpy_dtype(data.dtype)
        return data
    if isinstance(data, np.generic):
        a = np.asarray(data)
        return a if dtype is None else _convert(a, dtype)
    inferred = None
    if isinstance(data, (list, tuple)):
        a = _plain_numbers(data)
        if a is not None:
            return _convert(a, dtype) if dtype is not None else a.astype(
                _dtype.result_type([a.flat[0].item()]).np, copy=False)
        if data and isinstance(data[0], np.ndarray):
            _warn_list_of_arrays()
        data, inferred = _unwrap_nested(data)
    try:
        a = np.asarray(data)
    except ValueError as e:
        _check_nested(data)
        raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    if a.dtype.kind in "fu" and inferred is _dtype.int64:
        a = np.array(data, dtype=object)    # integers past int64 (NumPy made uint64 or floats)
    kind = a.dtype.kind
    if kind in "US":
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        raise ValueError("too many dimensions 'str'")
    if kind == "O":
        _check_nested(data)
        bad = [v for v in a.flat if not isinstance(v, numbers.Number)]
        if bad:
            bad = bad[0]
            if isinstance(bad, str):
                raise TypeError("new(): invalid data type 'str'")
            raise RuntimeError(f"Could not infer dtype of {type(bad).__name__}")
        # only numbers, and NumPy could not hold them: integers past int64
    if dtype is not None:
        return _convert(a, dtype)
    if kind == "O":
        raise ValueError("Overflow when unpacking long long")
    if inferred is None:
        inferred = _dtype.result_type([data]) if a.ndim == 0 else _dtype.get_default_dtype()
    return a.astype(inferred.np, copy=False)


_PLAIN = frozenset((bool, int, float, complex))


def _plain_numbers(data):
    """NumPy's array for a flat or 2-D list of Python numbers of one kind (bool, int, float
    or complex: then NumPy's dtype kind says PyTorch's inferred dtype), without a Python
    loop over the elements; None for anything else (mixed kinds, NumPy scalars, tensors,
    ragged or deeper nesting, integers past int64), which takes the general path."""
    if not data:
        return None
    types = set(map(type, data))
    if types <= {list, tuple}:
        if len({len(row) for row in data}) != 1:
            return None
        types = set(map(type, itertools.chain.from_iterable(data)))
    if not types or not types <= _PLAIN or len(types) > 1:
        return None
    a = np.asarray(data)
    if a.dtype.kind == "f" and int in types:
        return None     # integers past int64: NumPy made floats of them
    return a if a.dtype.kind in "bifc" and a.size else None


def _convert(a, dtype):
    """NumPy's array of Python numbers as `dtype`, number by number as PyTorch converts
    them: complex into a real dtype, and integers or floats out of an integer dtype's range,
    raise (unsigned dtypes take negative integers down to -max, as two's complement)."""
    kind, cat = a.dtype.kind, dtype.category
    if kind == "c" and cat == 2:
        raise TypeError("must be real number, not complex")
    if dtype is _dtype.uint64 and kind != "b":
        # PyTorch unpacks each number as an unsigned 64-bit integer
        values = a.ravel().tolist() if kind == "O" else ()   # integers past int64
        if kind in "fc" or any(not isinstance(v, int) for v in values):
            raise TypeError("an integer is required")
        if kind == "i" and np.any(a < 0) or any(v < 0 for v in values):
            raise OverflowError("can't convert negative int to unsigned")
        if any(v >= 2**64 for v in values):
            raise OverflowError("int too big to convert")
    elif cat == 1:
        if kind == "c":
            raise TypeError("'complex' object cannot be interpreted as an integer")
        if kind in "uO":    # integers past int64
            raise ValueError("Overflow when unpacking long long")
        info = np.iinfo(dtype.np)
        if kind == "i":
            bad = (a < (-info.max if info.min == 0 else info.min)) | (a > info.max)
        elif kind == "f":
            bad = np.isnan(a) | (a < info.min) | (a > info.max)
        else:
            bad = False
        if np.any(bad):
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without "
                               "overflow")
    with np.errstate(invalid="ignore", over="ignore"):  # float(2**63) wraps, as in PyTorch
        return _dtype.cast(a, dtype.np)


_warned_list_of_arrays = False


def _warn_list_of_arrays():
    # PyTorch says it once per process (TORCH_WARN_ONCE).
    global _warned_list_of_arrays
    if not _warned_list_of_arrays:
        _warned_list_of_arrays = True
        warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                      "consider converting the list to a single numpy.ndarray with numpy.array() "
                      "before converting to a tensor.", UserWarning, stacklevel=4)


def _unwrap_nested(data):
    """Nested sequences as nested lists, one-element tensors unwrapped to numbers, and the
    dtype PyTorch infers for them: each number's own (bool, int64, the default float or
    complex dtype; NumPy scalars and arrays, and tensors, keep theirs), promoted together.
    None when there is no number."""
    inferred = None

    def walk(x):
        nonlocal inferred
        if isinstance(x, (list, tuple)):
            return [walk(y) for y in x]
        if isinstance(x, Tensor):
            if x._data.size != 1:
                if x._data.dtype.kind in "iub":
                    raise TypeError("only integer tensors of a single element can be converted "
                                    "to an index")
                raise ValueError("only one element tensors can be converted to Python scalars")
            d, x = x.dtype, x._data.reshape(()).item()
        elif isinstance(x, (np.generic, np.ndarray)):
            d = _dtype.from_numpy_dtype(x.dtype)
        elif isinstance(x, numbers.Number):
            d = _dtype.result_type([x])
        else:
            return x        # not a number: np.asarray says what is wrong
        inferred = d if inferred is None else _dtype.promote_types(inferred, d)
        return x

    return walk(data), inferred


def _check_nested(data):
    """Raise PyTorch's error for ragged nested sequences: the sizes come from the first
    element at each depth, and every sequence is checked against them in order."""
    sizes = []
    seq = data
    while isinstance(seq, (list, tuple)):
        sizes.append(len(seq))
        if not seq:
            break
        seq = seq[0]
    stack = [(data, 0)]
    while stack:
        obj, dim = stack.pop()
        if dim == len(sizes):
            continue
        if not isinstance(obj, (list, tuple)):
            raise TypeError("not a sequence")
        if len(obj) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {len(obj)})")
        stack.extend((x, dim + 1) for x in reversed(obj))


def _copy(data, dtype, requires_grad, name):
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      f"requires_grad_(True), rather than {name}(sourceTensor).",
                      UserWarning, stacklevel=3)
    a = _infer_array(data, dtype)
    a = np.array(a, dtype=None if dtype is None else dtype.np, copy=True)
    return _finish(a, requires_grad)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists, numbers, arrays or tensors)."""
    check_factory(device, "copy", pin_memory)
    return _copy(data, dtype, requires_grad, "torch.tensor")


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing memory with arrays and tensors when the dtype allows."""
    check_factory(device, "copy")
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return make_tensor(data if dtype is None else data.astype(dtype.np, copy=False))
    a = _infer_array(data, dtype)
    return make_tensor(a if dtype is None else a.astype(dtype.np, copy=False))


def from_numpy(ndarray):
    """A tensor sharing memory with `ndarray`."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return make_tensor(ndarray)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input._data.size


def _size(size, name):
    """The shape from `size` (ints, or one sequence of ints), with PyTorch's errors for
    factory `name`."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        if not isinstance(size[0], (tuple, list, Size)):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size[0]).__name__}")
        size = tuple(size[0])
    for pos, s in enumerate(size, 1):
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos} "
                            f"with error \"type must be tuple of ints,but got {type(s).__name__}\"")
    size = tuple(int(s) for s in size)
    for s in size:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in size)}]")
    return size


def _np(dtype):
    if dtype is _dtype.complex32:
        _dtype.warn_complex32(4)
    return (dtype or _dtype.get_default_dtype()).np


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of zeros."""
    check_factory(device, "empty")
    shape = _size(size, "zeros")
    if out is not None:
        return _write_out(out, np.zeros(shape, _factory_dtype(out, dtype, "zeros").np), "zeros")
    return _finish(np.zeros(shape, _np(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of ones."""
    check_factory(device, "empty")
    shape = _size(size, "ones")
    if out is not None:
        return _write_out(out, np.ones(shape, _factory_dtype(out, dtype, "ones").np), "ones")
    return _finish(np.ones(shape, _np(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None, pin_memory=False):
    """An uninitialized tensor."""
    check_factory(device, "empty", pin_memory)
    shape = _size(size, "empty")
    if out is not None:
        _factory_dtype(out, dtype, "empty")
        return _resize_out(out, shape, "empty", resize_error=True)
    return _finish(np.empty(shape, _np(dtype)), requires_grad)


def _size_arg(size, name):
    """The shape from a factory's `size` argument, which must be a sequence."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _size((size,), name)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    shape = _size_arg(size, "full")
    if out is not None:
        d = _factory_dtype(out, dtype, "full")
        return _write_out(out, np.full(shape, fill_value, d.np), "full")
    if dtype is None:
        dtype = _dtype.result_type([fill_value])
    return _finish(np.full(shape, fill_value, dtype.np), requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    return _finish(np.array(s, _np(dtype)), requires_grad)


def _like(input, dtype):
    return input._data.shape, (dtype or input.dtype).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(np.zeros(shape, d), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(np.ones(shape, d), requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(np.empty(shape, d), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(np.full(shape, fill_value, d), requires_grad)


# ---- Tensor.new_*: self's dtype unless told otherwise -----------------------------------

def _new_size(size, name):
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return _size(size, name)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.zeros(_new_size(size, "new_zeros"), (dtype or self.dtype).np),
                   requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.ones(_new_size(size, "new_ones"), (dtype or self.dtype).np),
                   requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.empty(_new_size(size, "new_empty"), (dtype or self.dtype).np),
                   requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A tensor of `size` (a sequence) filled with `fill_value`, converted with overflow
    checks as fill_ converts it."""
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    from .ops.pointwise import _checked_scalar
    d = (dtype or self.dtype).np
    shape = _size_arg(size, "new_full")
    return _finish(np.full(shape, _checked_scalar(fill_value, d), d), requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A copy of `data` as a new leaf, of self's dtype unless `dtype` is given."""
    if device is not None or pin_memory:
        check_factory(device, "copy", pin_memory, default=False)
    return _copy(data, dtype or self.dtype, requires_grad, "tensor.new_tensor")


for _f in (new_zeros, new_ones, new_empty, new_full, new_tensor):
    setattr(Tensor, _f.__name__, _f)


# (this module defines torch.range: builtins.range is Python's)

# ---- ranges: PyTorch's CPU kernels, value for value (Note [Range kernels]) -----------------
#
# Note [Range kernels]
# linspace computes start + step*i for the first half and end - step*(steps-1-i) for the
# second, in the output type (double for integers, which are then truncated), each as one
# FMA (GCC contracts it in the vectorized kernel files). arange computes start + step*i in
# the accumulate type (double for float, float for half and bfloat16, int64 for integers),
# in AVX2 vectors: each block of 32 bytes gets its base start + step*i0 rounded to the
# output type, then base + step*j per lane; the tail past the last pair of blocks is
# scalar. logspace is pow(base, linspace's exponent) without FMA.

def _fma(a, b, c, work):
    return (_random._fma32 if work == np.float32 else _random._fma64)(a, b, c)


def _round(a, d):
    """Values rounded to dtype d as C++ converts them (through float for reduced types)."""
    return _dtype.cast(np.asarray(a), d.np)


_REDUCED = (_dtype.float16, _dtype.bfloat16)


def _scalar_to(x, d):
    """Scalar.to<scalar_t>() of a Python number: truncation for integer types."""
    if d.is_complex:
        return complex(x)
    if d.is_floating_point:
        return float(x)
    if isinstance(x, float) and not math.isfinite(x):
        return 0
    return int(x)


def _linspace_values(start, end, steps, d):
    if steps <= 1:      # linspace_out fills one step with start
        return _round(np.full(steps, _scalar_to(start, d)), d)
    if d.is_complex:
        s, e = complex(start), complex(end)
        step = (e - s) / (steps - 1) if steps > 1 else 0
        i = np.arange(steps)
        return np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i)).astype(d.np)
    i = np.arange(steps)
    first = i < steps // 2
    if d in _REDUCED:
        # c10::Half / BFloat16 arithmetic: each operation rounds to the type
        def r(x):
            return _round(np.asarray(x, np.float32), d).astype(np.float32)
        s, e = r(float(start)), r(float(end))
        step = r(r(e - s) / r(steps - 1)) if steps > 1 else np.float32(0)
        k = r(np.where(first, i, steps - 1 - i).astype(np.float32))
        prod = r(step * k)
        return _round(np.where(first, r(s + prod), r(e - prod)), d)
    if d.is_floating_point:
        work = d.np
        s, e = work.type(start), work.type(end)
        step = work.type((e - s) / work.type(steps - 1)) if steps > 1 else work.type(0)
    else:
        work = np.float64
        s, e = float(_scalar_to(start, d)), float(_scalar_to(end, d))
        step = (e - s) / (steps - 1) if steps > 1 else 0.0
    k = np.where(first, i, steps - 1 - i).astype(work)
    v = np.where(first, _fma(k, step, s, work), _fma(k, -step, e, work))
    if d.is_floating_point:
        return v.astype(d.np)
    with np.errstate(invalid="ignore"):
        return np.trunc(v).astype(np.int64).astype(d.np)


def _arange_values(start, step, n, d):
    idx = np.arange(n)
    if not (d.is_floating_point or d.is_complex):
        with np.errstate(over="ignore"):
            return (np.int64(start) + np.int64(step) * idx).astype(d.np)
    work = np.float32 if d in _REDUCED else np.float64
    lanes = 32 // d.itemsize
    vector = n // (2 * lanes) * 2 * lanes
    blk = idx[:vector] // lanes * lanes
    base = _round(_fma(blk.astype(work), step, start, work), d).astype(work)
    head = _fma((idx[:vector] - blk).astype(work), step, base, work)
    tail = _fma(idx[vector:].astype(work), step, start, work)
    return _round(np.concatenate([head, tail]), d)


def _number(x):
    return x.item() if isinstance(x, Tensor) else x


def _range_size(start, end, step, d, name):
    """arange's (or range's) checks and element count."""
    if d.is_floating_point:
        xs, xe, xst = float(start), float(end), float(step)
    else:
        xs, xe, xst = _scalar_to(start, d), _scalar_to(end, d), _scalar_to(step, d)
    if xst == 0:
        # an integer dtype's step truncated to 0 is refused before the kernel runs
        raise (RuntimeError if step == 0 else ValueError)("step must be nonzero")
    if not (math.isfinite(xs) and math.isfinite(xe)):
        raise RuntimeError(f"unsupported range: {_g(xs)} -> {_g(xe)}")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if name == "range":
        size = math.floor((float(end) - float(start)) / float(step)) + 1
    elif d is _dtype.int64:
        sgn = 1 if xst > 0 else -1
        q, r = divmod(xe - xs + xst - sgn, xst)     # C++ division truncates toward zero
        size = q + 1 if r and q < 0 else q
    else:
        size_d = math.ceil((float(end) - float(start)) / float(step))
        if not 0 <= size_d <= 2**63 - 1:
            raise RuntimeError("invalid size, possible overflow?")
        size = int(size_d)
    return xs, xst, size


def _range_out(out, values, name, warn):
    """Write a range into out: kept in out's shape when the count matches, else resized to
    1-D (arange says so when out had elements)."""
    _resize_out(out, out._data.shape, name)
    if out._data.size != values.size:
        if warn and out._data.size:
            warnings.warn(f"The number of elements in the out tensor of shape "
                          f"{sizes_str(out._data.shape)} is {out._data.size} which does not "
                          f"match the computed number of elements {values.size}. Note that this "
                          "may occur as a result of rounding error. The out tensor will be "
                          f"resized to a tensor of shape ({values.size},).", UserWarning,
                          stacklevel=3)
        out.resize_(values.shape)
    np.copyto(out._data, values.reshape(out._data.shape), casting="unsafe")
    out._vc[0] += 1
    return out


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from start to end (exclusive) by step; integers give int64, else the default
    float dtype."""
    check_factory(device, "empty")
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    for v in (start, end, step):
        if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
            raise OverflowError("int too big to convert")
    if out is not None:
        d = _factory_dtype(out, dtype, "arange")
    else:
        d = dtype or _dtype.result_type([start, end, step])
    _no_kernel("arange_cpu", d, _NO_ARANGE)
    xs, xst, n = _range_size(start, end, step, d, "arange")
    values = _arange_values(xs, xst, n, d)
    if out is not None:
        return _range_out(out, values, "arange", True)
    return _finish(values, requires_grad)


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated: values from start to end INCLUSIVE by step, in the default float dtype
    unless told (use arange)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    check_factory(device, "empty")
    start, end, step = _number(start), _number(end), _number(step)
    d = _factory_dtype(out, dtype, "range")
    _no_kernel("range_cpu", d, _NO_ARANGE)
    xs, xst, n = _range_size(start, end, step, d, "range")
    if d.is_floating_point:
        # range_out: start + i*step in the accumulate type (no FMA in that file)
        work = np.float32 if d in _REDUCED else np.float64
        values = _round(work(xs) + work(xst) * np.arange(n).astype(work), d)
    else:
        values = (np.int64(xs) + np.int64(xst) * np.arange(n)).astype(d.np)
    if out is not None:
        return _range_out(out, values, "range", False)
    return _finish(values, requires_grad)


def _steps(steps, name):
    if isinstance(steps, Tensor):
        steps = steps.item()
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"steps of type {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return int(steps)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` evenly spaced values from start to end inclusive (Note [Range kernels])."""
    check_factory(device, "empty")
    steps = _steps(steps, "linspace")
    start, end = _number(start), _number(end)
    d = _factory_dtype(out, dtype, "linspace")
    _no_kernel("linspace_cpu", d, _NO_LINSPACE)
    values = _linspace_values(start, end, steps, d)
    if out is not None:
        return _range_out(out, values, "linspace", False)
    return _finish(values, requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` values base**x for x evenly spaced from start to end inclusive."""
    check_factory(device, "empty")
    steps = _steps(steps, "logspace")
    start, end = _number(start), _number(end)
    d = _factory_dtype(out, dtype, "logspace")
    _no_kernel("logspace_cpu", d, _NO_LINSPACE)
    values = _logspace_values(start, end, steps, base, d)
    if out is not None:
        return _range_out(out, values, "logspace", False)
    return _finish(values, requires_grad)


_POW = np.frompyfunc(math.pow, 2, 1)


def _logspace_values(start, end, steps, base, d):
    if steps == 0:
        return np.empty(0, d.np)
    i = np.arange(steps)
    first = i < steps // 2
    if d.is_complex:
        s, e = complex(start), complex(end)
        step = (e - s) / (steps - 1) if steps > 1 else 0
        x = np.where(first, s + step * i, e - step * (steps - 1 - i))
        return np.power(complex(base), x).astype(d.np)
    if d.is_floating_point:
        work = np.float32 if d.itemsize <= 4 else np.float64
        s, e = _round(float(start), d).astype(work), _round(float(end), d).astype(work)
        b = _round(float(base), d).astype(work)
        step = _round((e - s) / work(steps - 1), d).astype(work) if steps > 1 else work(0)
        k = np.where(first, i, steps - 1 - i).astype(work)
        x = np.where(first, s + _round(step * k, d).astype(work),
                     e - _round(step * k, d).astype(work))
        x = _round(x, d).astype(np.float64)
        with np.errstate(all="ignore"):
            v = _POW(float(b), x).astype(np.float64) if d is _dtype.float64 else \
                np.power(np.float64(b), x)
        return _round(v, d)
    s, e = float(_scalar_to(start, d)), float(_scalar_to(end, d))
    step = (e - s) / (steps - 1) if steps > 1 else 0.0
    x = np.where(first, s + step * i, e - step * (steps - 1 - i))
    b = float(_scalar_to(base, d))
    with np.errstate(all="ignore"):
        return _POW(b, x).astype(np.float64).astype(np.int64).astype(d.np)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The n x m identity."""
    check_factory(device, "empty")
    m = n if m is None else m
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    d = _factory_dtype(out, dtype, "eye")
    _no_kernel("eye", d, _NO_EYE)
    values = np.eye(n, m, dtype=d.np)
    if out is not None:
        return _write_out(out, values, "eye")
    return _finish(values, requires_grad)


# dtypes PyTorch's CPU factory kernels are not compiled for
_LIMITED = (_dtype.uint16, _dtype.uint32, _dtype.uint64, _dtype.complex32)
_FLOAT8 = (_dtype.float8_e4m3fn, _dtype.float8_e4m3fnuz, _dtype.float8_e5m2,
           _dtype.float8_e5m2fnuz, _dtype.float8_e8m0fnu)
_NO_ARANGE = frozenset(_LIMITED + _FLOAT8 + (_dtype.bool, _dtype.complex64, _dtype.complex128))
_NO_LINSPACE = frozenset(_LIMITED + _FLOAT8 + (_dtype.bool,))
_NO_EYE = frozenset(_LIMITED)


# the random kernels: uniform and normal samples only in floating and complex dtypes
_NO_UNIFORM = frozenset(d for d in _dtype.TENSOR_DTYPES if d.category < 2) | frozenset(_FLOAT8)
_NO_RANDPERM = frozenset(_LIMITED + _FLOAT8 + (_dtype.bool, _dtype.complex64, _dtype.complex128))


def _check_randint(dtype):
    if dtype.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    _no_kernel("random_update_from_to", dtype, _FLOAT8)


def _no_kernel(kernel, dtype, refused):
    if dtype in refused:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy}'")


def complex(real, imag):
    return make_tensor(real._data + 1j * imag._data).to(real.dtype.to_complex())


def polar(abs, angle):
    return make_tensor(abs._data * np.exp(1j * angle._data)).to(abs.dtype.to_complex())


# ---- random sampling (values bit-identical to PyTorch's CPU generator) --------------------
#
# Note [Sampling order]
# PyTorch's CPU samplers draw one value per element, in the order its TensorIterator visits
# the elements: dims sorted by stride, smallest innermost (memory order for a dense tensor,
# the logical order for a contiguous one). Only normal_ has another path: blocks of 16
# (Generator.normal) for contiguous tensors of at least 16 elements. A factory with out=
# resizes out and samples into it, so a transposed out is filled in memory order too.

def _gen(generator):
    from ._random import default_generator
    return default_generator if generator is None else generator


def _iter_order(shape, *strides):
    """Logical flat indices in the order PyTorch's TensorIterator visits a tensor of `shape`
    whose operands have these byte strides (reorder_dimensions' insertion sort); None when
    that is the logical order."""
    nd = len(shape)
    if nd < 2:
        return None
    perm = list(builtins.range(nd - 1, -1, -1))     # perm[0] is the innermost dim

    def should_swap(d0, d1):
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in builtins.range(1, nd):
        d1 = i
        for d0 in builtins.range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    outer = perm[::-1]
    if outer == sorted(outer):
        return None
    return np.arange(math.prod(shape)).reshape(shape).transpose(outer).ravel()


def _place(values, shape, order):
    """Values drawn in iteration order, laid out in the logical order of `shape`."""
    if order is None:
        return values.reshape(shape)
    out = np.empty(values.shape, values.dtype)
    out[order] = values
    return out.reshape(shape)


def _zeros_formula(grad):
    return make_tensor(np.zeros(grad._data.shape, grad._data.dtype))


def _zeros_of(name):
    def formula(grad, shape):
        return make_tensor(np.zeros(shape, grad._data.dtype))
    formula.__signature__ = inspect.Signature([
        inspect.Parameter("grad", inspect.Parameter.POSITIONAL_ONLY),
        inspect.Parameter(name + "_shape", inspect.Parameter.POSITIONAL_ONLY)])
    return formula


def _node(node_name, inputs, params=()):
    """A backward node type for a sampler: zero gradients for each input (PyTorch's
    derivatives.yaml), saving only their shapes. Not a table row: samplers pick their own
    kernels (Note [Sampling order])."""
    formulas = {n: _zeros_formula if n == "self" else _zeros_of(n) for n in inputs}
    return Op(node_name.lower(), node_name, tuple(inputs), tuple(params), None, formulas, NONE,
              None, None, False, False)


_UNIFORM = _node("UniformBackward0", ("self",))
_NORMAL = _node("NormalBackward0", ("self",))
_BERNOULLI_FLOAT = _node("BernoulliBackward2", ("self",))
_BERNOULLI_TENSOR = _node("BernoulliBackward1", ("self", "p"))
_RANDOM = _node("RandomBackward2", ("self",))
_RANDOM_TO = _node("RandomBackward1", ("self",))
_RANDOM_FROM_TO = _node("RandomBackward0", ("self",))
_EXPONENTIAL = _node("ExponentialBackward0", ("self",))
_GEOMETRIC = _node("GeometricBackward0", ("self",))
_LOG_NORMAL = _node("LogNormalBackward0", ("self",))
_CAUCHY = _node("CauchyBackward0", ("self",))
_BERNOULLI = _node("BernoulliBackward0", ("self",))
_POISSON = _node("PoissonBackward0", ("self",))
_NORMAL_T_F = _node("NormalBackward1", ("mean",))
_NORMAL_F_T = _node("NormalBackward2", ("std",))
_NORMAL_T_T = _node("NormalBackward3", ("mean", "std"))


def _begin(self, *inputs):
    """PyTorch's checks before a sampler writes into `self`; whether it records a node."""
    records = _grad_state.grad_enabled and (
        self._requires_grad or (self._base is not None and self._base._requires_grad)
        or any(x._requires_grad for x in inputs))
    check_inplace(self, records)
    if self._base is not None:
        refresh_view_history(self)
    return records


def _fill(self, records, node, draw, inputs=(), order_of=()):
    """Write `draw(n, order)` (n values in iteration order, Note [Sampling order]) into
    self, and record `node` when autograd does."""
    target = self._data
    if target.size > 1 and any(st == 0 and n > 1 for st, n in zip(target.strides, target.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if target.size:
        order = _iter_order(target.shape, target.strides, *order_of)
        target[...] = _place(draw(target.size, order), target.shape, order)
    if records:
        _rebase(node, self, (self,) + inputs, (), target)
    else:
        self._vc[0] += 1
    return self


def _g(x):
    """A double as C++ streams it into messages (6 significant digits)."""
    return f"{float(x):g}"


# C++ type names PyTorch's dtype messages print (caffe2::TypeMeta)
_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "uint16": "unsigned short", "uint32": "unsigned int",
             "uint64": "long unsigned int", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>", "complex32": "c10::complex<c10::Half>"}

_SAMPLED_FLOATS = frozenset((_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64))


def _floating_kernel(kernel, dtype):
    """AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16): PyTorch's refusal otherwise."""
    if dtype not in _SAMPLED_FLOATS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy}'")


def _real_view(self):
    """view_as_real of a complex tensor's array (PyTorch samples its real and imaginary
    parts as a float tensor of twice the size)."""
    a = self._data
    return a.view(a.real.dtype).reshape(a.shape + (2,)) if a.dtype.kind == "c" else a


def _complex_fill(self, records, node, draw):
    """_fill for complex self: draws into the real view."""
    view = make_tensor(_real_view(self))
    _fill(view, False, None, draw)
    if records:
        _rebase(node, self, (self,), (), self._data)
    else:
        self._vc[0] += 1
    return self


def uniform_(self, from_=0, to=1, *, generator=None):
    """Fill with samples uniform in [from, to)."""
    records = _begin(self)
    d = self.dtype
    real = d.to_real() if d.is_complex else d
    if real not in _SAMPLED_FLOATS:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{d.legacy}'")
    info = _dtype.finfo(real)
    for name, v in (("from", from_), ("to", to)):
        if not info.min <= v <= info.max:
            raise RuntimeError(f"{name} is out of bounds for {_CPP_TYPE[real.name]}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_g(from_)} > to={_g(to)}")
    if to - from_ > info.max:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{real.legacy}>::max()"
                           f", but found to={_g(to)} and from={_g(from_)} which result in to-from "
                           "to exceed the limit")
    g = _gen(generator)

    def draw(n, order):
        return g.uniform((n,), from_, to, real.np)
    if d.is_complex:
        return _complex_fill(self, records, _UNIFORM, draw)
    return _fill(self, records, _UNIFORM, draw)


def normal_(self, mean=0, std=1, *, generator=None):
    """Fill with normal samples N(mean, std**2)."""
    records = _begin(self)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    d = self.dtype
    real = d.to_real() if d.is_complex else d
    _floating_kernel("normal_kernel_cpu", real)
    g = _gen(generator)
    if d.is_complex:
        std = std / math.sqrt(2)
        a = _real_view(self)
    else:
        a = self._data
    contiguous = a.flags.c_contiguous

    def draw(n, order):
        if contiguous and n >= 16:
            return g.normal((n,), mean, std, real.np)
        return g.normal_serial(n, mean, std, real.np)
    if d.is_complex:
        return _complex_fill(self, records, _NORMAL, draw)
    return _fill(self, records, _NORMAL, draw)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples: 1 with probability p (a number, or a tensor broadcast to
    self's shape)."""
    g = _gen(generator)
    d = self.dtype
    if isinstance(p, Tensor):
        records = _begin(self, p)
        if d.is_complex or d in _LIMITED or d in _FLOAT8:
            raise NotImplementedError(
                f"\"bernoulli_tensor_cpu_self_\" not implemented for '{d.legacy}'")
        pd = p.dtype
        if pd not in _SAMPLED_FLOATS:
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                      f"'{pd.legacy}'")
        probs = p.expand(self.shape)._data
        if np.any(~((probs >= 0) & (probs <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        double = pd is _dtype.float64
        work = probs.astype(np.float64 if double else np.float32)

        def draw(n, order):
            flat = work.reshape(-1) if order is None else work.reshape(-1)[order]
            return (g._unit(n, double) < flat).astype(d.np)
        return _fill(self, records, _BERNOULLI_TENSOR, draw, (p,), (probs.strides,))
    records = _begin(self)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if d.is_complex or d in _LIMITED or d in _FLOAT8:
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{d.legacy}'")
    return _fill(self, records, _BERNOULLI_FLOAT,
                 lambda n, order: (g._unit(n, True) < p).astype(d.np))


_NO_ARG = object()


def random_(self, from_=_NO_ARG, to=_NO_ARG, *, generator=None):
    """Fill with integers: uniform over [from, to), [0, to), or every value the dtype holds
    exactly (random_())."""
    records = _begin(self)
    g = _gen(generator)
    d = self.dtype
    if from_ is _NO_ARG:
        if not self._data.size:
            return _fill(self, records, _RANDOM, None)
        if d.is_complex or d in _LIMITED or d in _FLOAT8:
            raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{d.legacy}'")
        return _fill(self, records, _RANDOM, lambda n, order: g.random_bits(n, d.np))
    if to is _NO_ARG:
        from_, to, node = 0, from_, _RANDOM_TO
    else:
        node = _RANDOM_FROM_TO
    for v in (from_, to):
        if v is not None and (not isinstance(v, numbers.Integral) or isinstance(v, bool)):
            raise TypeError("random_() received an invalid combination of arguments - got "
                            f"({', '.join(type(x).__name__ for x in (from_, to))}), but "
                            "expected one of:\n * (*, torch.Generator generator = None)\n * "
                            "(int from, int to, *, torch.Generator generator = None)\n * (int to,"
                            " *, torch.Generator generator = None)\n")
        if v is not None and not -2**63 <= v < 2**63:
            raise ValueError("Overflow when unpacking long long")
    from_ = int(from_)
    floating = d.is_floating_point
    if to is not None:
        to = int(to)
        if from_ >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={from_} >= to={to}")
        if floating:
            _no_kernel("random_update_from_to", d, _FLOAT8)
            from_, to = _random._nudge(from_, 1, d.np), _random._nudge(to, -1, d.np)
            if from_ >= to:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' "
                                   f"casted to dtype, but got from={from_} >= to={to}")
        _check_from_to(d, from_, to - 1)
        span = to - from_
    elif from_ != -2**63:
        if floating:
            _no_kernel("random_from_to_range_calc", d, _FLOAT8)
            to_inc = min(2**(_random._nmant(d.np) + 1), 2**63 - 1)
            from_ = _random._nudge(from_, 1, d.np)
            if from_ >= to_inc:
                raise RuntimeError("random_ expects 'from' casted to dtype to be less than or "
                                   "equal to 'to_inc' casted to dtype, but got "
                                   f"from={from_} > to_inc={to_inc}")
        elif d.is_complex:
            raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                               "boolean types")
        else:
            to_inc = 1 if d is _dtype.bool else int(np.iinfo(d.np).max)
            to_inc = (to_inc + 2**63) % 2**64 - 2**63       # static_cast<int64_t>
        _check_from_to(d, from_, to_inc)
        span = to_inc - from_ + 1
    else:
        if self._data.size:
            if d not in (_dtype.int64, _dtype.float64, _dtype.float32, _dtype.bfloat16):
                if d in (_dtype.int8, _dtype.int16, _dtype.int32, _dtype.uint8):
                    raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only "
                                       "int64, double, float and bfloat16")
                raise NotImplementedError("\"random_full_64_bits_range_kernel_cpu\" not "
                                          f"implemented for '{d.legacy}'")
        return _fill(self, records, node, lambda n, order: g.random_full64(n, d.np))
    return _fill(self, records, node,
                 lambda n, order: g.random_from_to(n, span, from_, d.np))


def _check_from_to(d, from_, to_inc):
    """check_from_to_in_range, with the precision warnings for floating dtypes."""
    if d.is_floating_point:
        info = _dtype.finfo(d)
        low, high = info.min, info.max
    elif d is _dtype.uint64:
        low, high = 0, 2**63 - 1
    elif d is _dtype.bool:
        low, high = 0, 1
    elif d.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    else:
        info = np.iinfo(d.np)
        low, high = int(info.min), int(info.max)
    name = _CPP_TYPE.get(d.name, d.name)
    for what, v in (("from", from_), ("to - 1", to_inc)):
        if not low <= v <= high:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if d.is_floating_point:
        digits = _random._nmant(d.np) + 1
        for what, v in (("from", from_), ("to - 1", to_inc)):
            if not -2**digits <= v <= 2**digits:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {name} can support discrete uniform "
                              "distribution only within this range. This warning will become "
                              "an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=4)


def _continuous(name, dtype, cpp):
    if not dtype.is_floating_point:
        kind = _CPP_TYPE.get(dtype.name, dtype.name) if cpp else dtype.legacy
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {kind}")


def exponential_(self, lambd=1, *, generator=None):
    """Fill with exponential samples of rate lambd."""
    records = _begin(self)
    _continuous("Exponential", self.dtype, False)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    _floating_kernel("exponential_cpu", self.dtype)
    g, d = _gen(generator), self.dtype.np
    return _fill(self, records, _EXPONENTIAL, lambda n, order: g.exponential(n, lambd, d))


def geometric_(self, p, *, generator=None):
    """Fill with geometric samples: the number of Bernoulli(p) trials up to the first
    success."""
    records = _begin(self)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    d = self.dtype
    if d.is_complex or d in _LIMITED or d in _FLOAT8 or d is _dtype.bool:
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{d.legacy}'")
    g = _gen(generator)
    return _fill(self, records, _GEOMETRIC, lambda n, order: g.geometric(n, p, d.np))


def log_normal_(self, mean=1, std=2, *, generator=None):
    """Fill with samples whose logarithm is normal N(mean, std**2)."""
    records = _begin(self)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    _floating_kernel("log_normal_cpu", self.dtype)
    g, d = _gen(generator), self.dtype.np
    return _fill(self, records, _LOG_NORMAL, lambda n, order: g.log_normal(n, mean, std, d))


def cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fill with Cauchy samples."""
    records = _begin(self)
    _continuous("Cauchy", self.dtype, True)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    _floating_kernel("cauchy_cpu", self.dtype)
    g, d = _gen(generator), self.dtype.np
    return _fill(self, records, _CAUCHY, lambda n, order: g.cauchy(n, median, sigma, d))


for _f in (uniform_, normal_, bernoulli_, random_, exponential_, geometric_, log_normal_,
           cauchy_):
    setattr(Tensor, _f.__name__, _f)


# ---- factories that sample ----------------------------------------------------------------

def _factory_dtype(out, dtype, name):
    """The dtype a factory makes: out's when out= is given (PyTorch's error for another
    dtype=), else `dtype` or the default."""
    if out is None:
        return dtype or _dtype.get_default_dtype()
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    d = FROM_NP[out._data.dtype]
    if dtype is not None and dtype is not d:
        raise RuntimeError(f"dtype {dtype.legacy} does not match dtype of out parameter "
                           f"({d.legacy})")
    return d


def _resize_out(out, shape, name, resize_error=False):
    """resize_ `out` to `shape` (silently, as factories do), with PyTorch's refusal of an
    out that requires grad."""
    if out._requires_grad and _grad_state.grad_enabled:
        if resize_error:
            raise RuntimeError("cannot resize variables that require grad")
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if out._data.shape != tuple(shape):
        with _grad_mode.no_grad():
            out.resize_(tuple(shape))
    return out


def _write_out(out, data, name, resize_error=False):
    """A factory's result written into out (resized to its shape)."""
    _resize_out(out, data.shape, name, resize_error)
    np.copyto(out._data, data, casting="unsafe")
    out._vc[0] += 1
    return out


def _sample_into(out, shape, name, fill, resize_error=False):
    """A sampling factory with out=: out resized, then sampled in place (its memory order,
    Note [Sampling order])."""
    _resize_out(out, shape, name, resize_error)
    with _grad_mode.no_grad():
        return fill(out)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples in [0, 1)."""
    check_factory(device, "empty", pin_memory)
    shape = _size(size, "rand")
    d = _factory_dtype(out, dtype, "rand")
    _no_kernel("check_uniform_bounds", d, _NO_UNIFORM)
    if out is not None:
        return _sample_into(out, shape, "rand", lambda t: uniform_(t, 0, 1, generator=generator))
    if d.is_complex:
        t = _finish(np.empty(shape, d.np), False)
        return _finish(uniform_(t, 0, 1, generator=generator)._data, requires_grad)
    return _finish(_gen(generator).rand(shape, d.np), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    check_factory(device, "empty", pin_memory)
    shape = _size(size, "randn")
    d = _factory_dtype(out, dtype, "randn")
    _no_kernel("normal_kernel_cpu", d, _NO_UNIFORM)
    if out is not None:
        return _sample_into(out, shape, "randn", lambda t: normal_(t, generator=generator), True)
    t = _finish(np.empty(shape, d.np), False)
    return _finish(normal_(t, generator=generator)._data, requires_grad)


def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Integers uniform in [low, high); int64 unless dtype says otherwise."""
    check_factory(device, "empty")
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    shape = _size((size,), "randint")
    d = _factory_dtype(out, dtype or (None if out is not None else _dtype.int64), "randint")
    _check_randint(d)
    if out is not None:
        return _sample_into(out, shape, "randint",
                            lambda t: random_(t, low, high, generator=generator))
    t = _finish(np.empty(shape, d.np), False)
    return _finish(random_(t, low, high, generator=generator)._data, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0..n-1."""
    check_factory(device, "empty", pin_memory)
    d = _factory_dtype(out, dtype or (None if out is not None else _dtype.int64), "randperm")
    _no_kernel("randperm", d, _NO_RANDPERM)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    result = _gen(generator).randperm(n, d.np)
    if out is not None:
        return _write_out(out, result, "randperm")
    return _finish(result, requires_grad)


def _record_sample(node, inputs, data):
    """The sample as a tensor, recorded under `node` when an input requires grad."""
    if _grad_state.grad_enabled and any(x._requires_grad for x in inputs):
        return registry._record(node, inputs, (), (data,))[0]
    return make_tensor(data)


def _check_std_tensor(std):
    if std.is_complex():
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std._data.size and not np.all(std._data >= 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """Normal samples: tensor mean and/or std (broadcast together), or numbers with `size`."""
    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (tm or ts):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({type(mean).__name__}, {type(std).__name__}), but expected one "
                            "of:\n * (Tensor mean, Tensor std, *, torch.Generator generator = "
                            "None, Tensor out = None)\n * (Tensor mean, float std = 1, *, "
                            "torch.Generator generator = None, Tensor out = None)\n * (float "
                            "mean, Tensor std, *, torch.Generator generator = None, Tensor out "
                            "= None)\n * (float mean, float std, tuple of ints size, *, "
                            "torch.Generator generator = None, Tensor out = None, torch.dtype "
                            "dtype = None, torch.layout layout = None, torch.device device = "
                            "None, bool pin_memory = False, bool requires_grad = False)\n")
        check_factory(device, "empty", pin_memory)
        shape = _size((size,), "normal")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
        d = _factory_dtype(out, dtype, "normal")
        _no_kernel("normal_kernel_cpu", d, _NO_UNIFORM)
        if out is not None:
            return _sample_into(out, shape, "normal",
                                lambda t: normal_(t, mean, std, generator=generator))
        t = _finish(np.empty(shape, d.np), False)
        return _finish(normal_(t, mean, std, generator=generator)._data, requires_grad)
    if tm and not ts:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
        ref, node, inputs = mean, _NORMAL_T_F, (mean,)
    elif ts and not tm:
        _check_std_tensor(std)
        ref, node, inputs = std, _NORMAL_F_T, (std,)
    else:
        _check_std_tensor(std)
        ref, node, inputs = mean, _NORMAL_T_T, (mean, std)
    if out is None:
        shape = ref._data.shape if not (tm and ts) else _broadcast(mean, std)
        result = make_tensor(np.empty(shape, ref._data.dtype))
    else:
        check_out_kind("normal", out)
        if _grad_state.grad_enabled and (out._requires_grad or any(x._requires_grad for x in inputs)):
            raise RuntimeError("normal(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        other = out if not (tm and ts) else std
        shape = _broadcast(mean if tm else out, other if tm else std)
        if out._data.shape != shape:
            if out._data.size:
                warnings.warn(_OUT_RESIZED.format(sizes_str(out._data.shape), sizes_str(shape)),
                              UserWarning, stacklevel=2)
            out.resize_(shape)
        result = out
    with _grad_mode.no_grad():
        if tm and not ts:
            normal_(result, 0, std, generator=generator)
            result.add_(mean)
        else:
            normal_(result, 0, 1, generator=generator)
            result.mul_(std).add_(mean)
    if out is not None:
        return out
    return _record_sample(node, inputs, result._data)


def _broadcast(a, b):
    from .ops.registry import check_broadcast
    check_broadcast([a._data, b._data])
    return np.broadcast_shapes(a._data.shape, b._data.shape)


@public("bernoulli", out=False)
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: 1 with probability `input` (elementwise), or with probability p."""
    if p is not None:
        if out is not None:
            raise TypeError("bernoulli() received an invalid combination of arguments - got "
                            f"(Tensor, {type(p).__name__}, out=Tensor), but expected one of:\n * (Tensor "
                            "input, *, torch.Generator generator = None, Tensor out = None)\n * "
                            "(Tensor input, float p, *, torch.Generator generator = None)\n")
        result = make_tensor(np.empty_like(input._data))
        bernoulli_(result, p, generator=generator)
        return make_tensor(result._data)
    if out is not None:
        check_out_kind("bernoulli", out)
        if _grad_state.grad_enabled and (out._requires_grad or input._requires_grad):
            raise RuntimeError("bernoulli(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        if out._data.shape != input._data.shape:
            out.resize_(input._data.shape)
        return bernoulli_(out, input, generator=generator)
    result = make_tensor(np.empty(input._data.shape, input._data.dtype))     # contiguous
    with _grad_mode.no_grad():
        bernoulli_(result, input, generator=generator)
    return _record_sample(_BERNOULLI, (input,), result._data)


@public("poisson", out=False)
def poisson(input, generator=None):
    """Poisson samples with rates `input`."""
    d = input.dtype
    _floating_kernel("poisson_cpu", d)
    rates = input._data
    values = _gen(generator).poisson(rates.reshape(-1).astype(np.float64), d.np)
    return _record_sample(_POISSON, (input,), values.reshape(rates.shape))


@public("binomial", out=False)
def binomial(count, prob, generator=None):
    """Binomial samples: successes in `count` trials of probability `prob`."""
    d = count.dtype
    if d not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for '{d.legacy}'")
    c, p = count._data, np.broadcast_to(prob._data, count._data.shape).astype(d.np)
    # the result is contiguous, and its order leads TensorIterator's (Note [Sampling order])
    values = _gen(generator).binomial(c.reshape(-1), p.reshape(-1), d.np)
    return make_tensor(values.reshape(c.shape))


@public("multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from the categorical distributions in input's rows (1-D or 2-D,
    nonnegative weights), with or without replacement, as PyTorch's CPU kernel draws them:
    without replacement (or one sample) the Gumbel top-k of input / Exp(1) samples, with
    replacement one 53-bit uniform per sample looked up in the row's normalized running
    sum."""
    a = input._data
    if not 1 <= a.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    d = input.dtype
    if not d.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{d.legacy}")
    if out is not None:
        check_out_kind("multinomial", out)
        if out.dtype is not _dtype.int64:
            raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype.legacy}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = a.shape[-1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n_categories > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    shape = (num_samples,) if a.ndim == 1 else (a.shape[0], num_samples)
    g = _gen(generator)
    if not replacement or num_samples == 1:
        if not a.size:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        if not (a.max() < np.inf and a.min() >= 0):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(a.sum(-1) == 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        with _grad_mode.no_grad():
            q = exponential_(make_tensor(np.empty_like(a)), 1, generator=generator)
            q = input.detach() / q
            if num_samples == 1:
                result = q.argmax(-1, keepdim=True)._data
            else:
                result = q.topk(num_samples).indices._data
    else:
        result = _multinomial_with_replacement(a, num_samples, g).reshape(shape)
    if out is None:
        return make_tensor(result)
    if out._data.shape != shape:
        out.resize_(shape)
    np.copyto(out._data, result)
    out._vc[0] += 1
    return out


def _multinomial_with_replacement(a, num_samples, g):
    """multinomial_with_replacement_apply: rows checked and sampled in turn (a bad row
    raises after the rows before it drew their samples)."""
    rows = a.reshape(a.shape[0] if a.ndim == 2 else 1, a.shape[-1])
    work = np.float32 if rows.dtype.itemsize == 2 else rows.dtype    # half, bfloat16: float
    rows = rows.astype(work)
    negative = ~(rows >= 0)
    bad = negative | ~np.isfinite(rows)
    cum = np.cumsum(rows, axis=1)        # sequential, as the kernel's running sum
    total = cum[:, -1] if rows.shape[1] else np.zeros(len(rows), work)
    failed = bad.any(1) | ~(total > 0)
    if failed.any():
        r = int(failed.argmax())
        g._unit(r * num_samples, True)
        if bad[r].any():
            j = int(bad[r].argmax())
            if negative[r, j]:
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry < 0)")
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    cum /= total[:, None]
    cum[:, -1] = 1
    u = g._unit(len(rows) * num_samples, True).reshape(len(rows), num_samples)
    # the kernel's binary search for the first bucket >= u, all samples at once
    row = np.arange(len(rows))[:, None]
    left = np.zeros(u.shape, np.int64)
    right = np.full(u.shape, rows.shape[1], np.int64)
    while True:
        active = right > left
        if not active.any():
            return left
        mid = left + (right - left) // 2
        below = cum[row, np.minimum(mid, rows.shape[1] - 1)] < u
        left = np.where(active & below, mid + 1, left)
        right = np.where(active & ~below, mid, right)


def _empty_like(input, dtype, name):
    """empty_like(input) (preserve_format: a dense input's strides), dtype refused as the
    sampler `name`'s kernel refuses it."""
    return make_tensor(np.empty_like(input._data, (dtype or input.dtype).np))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, generator=None):
    """Uniform samples in [0, 1) shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    _no_kernel("check_uniform_bounds", dtype or input.dtype, _NO_UNIFORM)
    t = uniform_(_empty_like(input, dtype, "rand_like"), 0, 1, generator=generator)
    return _finish(t._data, requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, generator=None):
    """Standard normal samples shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    _no_kernel("normal_kernel_cpu", dtype or input.dtype, _NO_UNIFORM)
    t = normal_(_empty_like(input, dtype, "randn_like"), generator=generator)
    return _finish(t._data, requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    """Integers uniform in [low, high) shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    if high is None:
        low, high = 0, low
    _check_randint(dtype or input.dtype)
    t = random_(_empty_like(input, dtype, "randint_like"), low, high, generator=generator)
    return _finish(t._data, requires_grad)


# ---- legacy constructors ------------------------------------------------------------------

def legacy_new(cls, dtype, args, kwargs):
    """Tensor(3, 5) (uninitialized), Tensor([1, 2]) (copied data), Tensor() (empty),
    Tensor(t) (an alias of t). dtype None: Tensor itself, of the default dtype, which
    accepts a tensor of any dtype; the typed constructors (FloatTensor...) do not."""
    if kwargs.get("device") is not None:
        from ._device import as_device
        kind = as_device(kwargs["device"]).type
        if kind != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{kind} was passed")
    typed = dtype is not None
    dtype = dtype or _dtype.get_default_dtype()
    if not args:
        data = np.empty((0,), dtype.np)
    elif all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        data = np.zeros(_size(args, "new"), dtype.np)   # PyTorch leaves it uninitialized
    elif len(args) == 1:
        src = args[0]
        if isinstance(src, Tensor):
            if typed and src.dtype is not dtype:
                raise TypeError(f"expected {_options(dtype)} (got {_options(src.dtype)})")
            if src._requires_grad:
                return src.view(src._data.shape)
            t = src.detach()
            t._base = src if src._base is None else src._base
            t._fn_version = t._vc[0]
            return t
        if isinstance(src, numbers.Number):
            raise TypeError(f"new(): data must be a sequence (got {type(src).__name__})")
        data = np.array(_infer_array(src, dtype), dtype=dtype.np)
    else:
        raise TypeError("new() received an invalid combination of arguments")
    t = make_tensor(data)
    if cls is not Tensor:
        sub = object.__new__(cls)
        for slot in ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc",
                     "_base", "_acc", "_extra"):
            setattr(sub, slot, getattr(t, slot))
        return sub
    return t


def _options(d):
    return (f"TensorOptions(dtype={d.cpp}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _legacy(name, d):
    def new(*args, **kwargs):
        return legacy_new(Tensor, d, args, kwargs)
    new.__name__ = new.__qualname__ = name
    return new


FloatTensor = _legacy("FloatTensor", _dtype.float32)
DoubleTensor = _legacy("DoubleTensor", _dtype.float64)
HalfTensor = _legacy("HalfTensor", _dtype.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _legacy("LongTensor", _dtype.int64)
IntTensor = _legacy("IntTensor", _dtype.int32)
ShortTensor = _legacy("ShortTensor", _dtype.int16)
CharTensor = _legacy("CharTensor", _dtype.int8)
ByteTensor = _legacy("ByteTensor", _dtype.uint8)
BoolTensor = _legacy("BoolTensor", _dtype.bool)

