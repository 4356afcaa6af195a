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
from ._dims import insertion_order, sizes_str
from ._dtype import FROM_NP
from ._device import check_factory
from ._tensor import Size, Tensor, make_tensor
from .autograd import grad_mode as _grad_mode
from .autograd.graph import refresh_view_history
from .ops import registry
from .ops.binding import Overloads, declare
from .ops.inplace import _rebase, check_inplace
from .ops.registry import _OUT_RESIZED, NONE, Op, check_broadcast, check_out_kind, public

_grad_state = _grad_mode.state

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "range", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
           "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
           "randint_like", "FloatTensor", "DoubleTensor",
           "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "BFloat16Tensor",
           "ShortTensor",
           "CharTensor", "scalar_tensor", "is_tensor", "numel", "complex", "polar",
           "bartlett_window", "blackman_window", "hamming_window", "hann_window",
           "kaiser_window", "asarray", "frombuffer", "from_file", "from_dlpack",
           "empty_strided", "empty_permuted"]



def _finish(data, requires_grad):
    t = make_tensor(data)
    if requires_grad:
        if FROM_NP[data.dtype].category < 2:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _infer_array(data, dtype=None, copy_numpy=True):
    """A NumPy array for Python data, with PyTorch's dtype inference; Python numbers are
    converted straight to `dtype` when one is given. NumPy arrays pass PyTorch's checks
    (warning once about a read-only one unless it is to be copied)."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        return _interop.from_numpy_checked(data, not copy_numpy)
    if isinstance(data, np.generic):
        a = np.asarray(data)
        if (dtype or FROM_NP.get(a.dtype)) is _dtype.uint64:
            raise TypeError("an integer is required")    # unpacked as a Python int only
        return a if dtype is None else _convert(a, dtype)
    if type(data) is int and dtype is None and not -2**63 <= data < 2**63:
        raise ValueError("Overflow when unpacking long long")
    inferred = None
    if isinstance(data, (list, tuple)):
        a = _plain_numbers(data)
        if a is not None:
            return _convert(a, dtype) if dtype is not None else a.astype(
                _dtype.result_type([a.flat[0].item()]).np, copy=False)
        if data and isinstance(data[0], np.ndarray):
            _warn_list_of_arrays()
        data, inferred, typed = _unwrap_nested(data)
        if typed and (dtype or inferred) is _dtype.uint64:
            raise TypeError("an integer is required")    # unpacked as a Python int only
    try:
        a = np.asarray(data)
    except ValueError as e:
        _check_nested(data)
        raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    if a.dtype.kind in "fu" and inferred is _dtype.int64:
        a = np.array(data, dtype=object)    # integers past int64 (NumPy made uint64 or floats)
    kind = a.dtype.kind
    if kind in "US":
        # PyTorch sizes the data by first elements (a str there has endless dims), then
        # meets the string among the numbers
        first = data
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        if isinstance(first, str) and first is not data:
            raise ValueError("too many dimensions 'str'")
        raise TypeError(f"new(): invalid data type '{'bytes' if kind == 'S' else 'str'}'")
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
    None when there is no number; and whether some number is not a Python number."""
    inferred = None
    typed = False

    def walk(x):
        nonlocal inferred, typed
        if isinstance(x, (list, tuple)):
            return [walk(y) for y in x]
        if isinstance(x, (Tensor, np.generic, np.ndarray)):
            typed = True
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

    return walk(data), inferred, typed


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
        data = _interop.from_numpy_checked(data)
        return make_tensor(data if dtype is None else data.astype(dtype.np, copy=False))
    a = _infer_array(data, dtype)
    return make_tensor(a if dtype is None else a.astype(dtype.np, copy=False))


def from_numpy(ndarray):
    """A tensor sharing memory with `ndarray`."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return make_tensor(_interop.from_numpy_checked(ndarray))


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    try:
        return input._data.size
    except AttributeError:
        # the parser's error (numel is hot: a bound declaration would cost it more than half)
        from .ops.binding import not_tensor_input
        raise not_tensor_input("numel", input) from None


def _size(size, name, keyword=None):
    """The shape from `size` (ints, or one sequence of ints), with PyTorch's errors for
    factory `name`; `keyword`: the shape given as size=..., which PyTorch also accepts.
    Integers may be NumPy integers, 0-d integer arrays and one-element integer tensors, as
    PyTorch's argument parser takes them."""
    if keyword is not None:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (keyword,)
    if not size:
        if name in ("rand", "randn"):
            raise TypeError(f"{name}() received an invalid combination of arguments - got (), "
                            f"but expected one of:\n * (tuple of ints size, *, torch.Generator "
                            f"generator, {_SAMPLER_KW})\n * (tuple of ints size, *, "
                            f"{_SAMPLER_KW})\n")
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if not all(type(s) is int for s in size):
        size = _parse_size(size, name)
    for s in size:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in size)}]")
    return tuple(size)


_SAMPLER_KW = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
               "torch.device device = None, bool pin_memory = False, bool requires_grad = False")


def _as_index(x):
    """x as an int when PyTorch's parser takes it as one in a size, else None (bool too:
    where bools pass is the caller's decision)."""
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, Tensor):
        a = x._data
        if a.size != 1 or a.dtype.kind not in "iub":
            return None
        if a.dtype.kind == "b":
            raise RuntimeError("Expected scalar.isIntegral( false) to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        return int(a.reshape(()))
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu":
        return int(x)
    return None


def _unpack_error(name, pos, x):
    return TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {pos} with "
                     f"error \"type must be tuple of ints,but got {_arg_type(x)}\"")


def _parse_size(size, name):
    first = size[0] if size else None
    if len(size) == 1 and isinstance(first, (tuple, list, Size)):
        out = []
        for i, x in enumerate(first):
            v = _as_index(x)
            if v is None and (i == 0 or type(x) is not bool):
                if i == 0:
                    raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of "
                                    f"ints, but found element of type {_arg_type(x)} at pos 0")
                raise _unpack_error(name, i + 1, x)
            out.append(int(x) if v is None else v)
        return out
    v = _as_index(first)
    if v is None:
        if len(size) > 1:
            raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{_arg_type(first)}")
    out = [v]
    for i, x in enumerate(size[1:], 2):
        w = _as_index(x)
        if w is None and type(x) is not bool:
            raise _unpack_error(name, i, x)
        out.append(int(x) if w is None else w)
    return out


def _np(dtype):
    if dtype is _dtype.complex32:
        _dtype.warn_complex32(4)
    return (dtype or _dtype.get_default_dtype()).np


def zeros(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of zeros."""
    check_factory(device, "empty")
    shape = _size(sizes, "zeros", size)
    if out is not None:
        return _write_out(out, np.zeros(shape, _factory_dtype(out, dtype, "zeros").np), "zeros")
    return _finish(np.zeros(shape, _np(dtype)), requires_grad)


def ones(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of ones."""
    check_factory(device, "empty")
    shape = _size(sizes, "ones", size)
    if out is not None:
        return _write_out(out, np.ones(shape, _factory_dtype(out, dtype, "ones").np), "ones")
    return _finish(np.ones(shape, _np(dtype)), requires_grad)


def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None, pin_memory=False):
    """An uninitialized tensor."""
    check_factory(device, "empty", pin_memory)
    shape = _size(sizes, "empty", size)
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


def _numpy_number(value):
    """The Python number PyTorch's parser reads a NumPy scalar as: a bool as a float, a
    complex64 as its real part (with NumPy's warning), an integer as an int (uint64 past
    int64 refused)."""
    if isinstance(value, np.integer):
        if isinstance(value, np.uint64) and value > 2**63 - 1:
            raise TypeError("an integer is required")
        return int(value)
    if isinstance(value, builtins.complex):     # np.complex128
        return builtins.complex(value)
    return float(value)


def python_numbers(values):
    """values with NumPy scalars read as Python numbers."""
    return tuple(_numpy_number(v) if isinstance(v, np.generic) else v for v in values)


def _number_arg(value, fname, argname, position):
    """A `Scalar` argument as PyTorch's parser reads it: Python numbers, NumPy scalars
    (_numpy_number) and 0-d tensors that do not require grad; anything else is refused."""
    kind = type(value)
    if kind in (int, float, bool, builtins.complex):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return _numpy_number(value)
    if isinstance(value, Tensor):
        if value._data.ndim == 0 and not value.requires_grad:
            return value._data.item()
    elif isinstance(value, numbers.Number):
        return value
    raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be Number, "
                    f"not {_arg_type(value)}")


def _filled(shape, value, d):
    """np.full of a number converted to dtype d as fill_ converts it (c10's checked_convert:
    PyTorch's overflow errors, unsigned wrap-around of negative integers)."""
    from .ops.pointwise import _checked_scalar
    if d.is_complex and d.np.kind != "c":
        v = builtins.complex(value)     # complex32: ml_dtypes holds it, no range check
    elif d in _REDUCED and math.prod(shape) == 1:
        # fill_ of one element: checked as a double, then rounded (overflowing to inf)
        v = _checked_scalar(value, np.dtype(np.float64))
    else:
        v = _checked_scalar(value, d.np)
    with np.errstate(over="ignore"):
        return np.full(shape, _dtype.cast(np.asarray(v), d.np))


def _scalar_dtype(value):
    """The dtype PyTorch infers for a factory's fill value."""
    if type(value) is bool:
        return _dtype.bool
    if isinstance(value, int):
        return _dtype.int64
    return _dtype.result_type([value])


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of `size` filled with `fill_value` (its dtype inferred from the value: bool,
    int64, the default float or complex dtype)."""
    check_factory(device, "empty", pin_memory)
    shape = _size_arg(size, "full")
    value = _number_arg(fill_value, "full", "fill_value", 2)
    if out is not None:
        d = _factory_dtype(out, dtype, "full")
        return _write_out(out, _filled(shape, value, d), "full")
    if dtype is None:
        dtype = _scalar_dtype(value)
    if dtype is _dtype.complex32:
        _dtype.warn_complex32(3)
    return _finish(_filled(shape, value, dtype), requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """A 0-d tensor holding the number s (the default dtype unless told)."""
    check_factory(device, "empty", pin_memory)
    value = _number_arg(s, "scalar_tensor", "s", 1)
    return _finish(_filled((), value, dtype or _dtype.get_default_dtype()), requires_grad)


def _dense_strides(a):
    """Whether array a is non-overlapping and dense with non-negative strides (PyTorch's
    is_non_overlapping_and_dense: its elements fill its span, in some order of the dims)."""
    dims = sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1)
    expected = a.itemsize
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def _strided_empty(shape, strides, np_dtype):
    """An uninitialized array of `shape` with these strides (in elements) over fresh memory
    just large enough (zero-filled: NumPy has no uninitialized as_strided)."""
    if any(n == 0 for n in shape):
        need = 0
    else:
        need = 1 + builtins.sum((n - 1) * st for n, st in zip(shape, strides))
    storage = np.zeros(need, np_dtype)
    return np.lib.stride_tricks.as_strided(storage, shape,
                                           tuple(st * storage.itemsize for st in strides))


def _like_array(input, dtype, memory_format, fname):
    """empty_like's memory: preserve_format (the default) keeps a dense input's strides and
    lays out others as suggest_memory_format says; other formats as asked."""
    from ._tensor import memory_format_arg, preserve_format, suggest_memory_format
    from ._tensor import to_memory_format
    try:
        a = input._data
    except AttributeError:     # zeros_like(None): the parser's error, at no cost otherwise
        from .ops.binding import not_tensor_input
        raise not_tensor_input(fname, input) from None
    d = (dtype or input.dtype).np
    if memory_format is None and a.flags.c_contiguous and 1 not in a.shape and a.size:
        # preserve_format of a contiguous input, directly (a dim of size 1 or 0 may carry
        # strides NumPy's flag ignores and PyTorch preserves)
        return np.zeros(a.shape, d)
    if memory_format is None or memory_format is preserve_format:
        if memory_format is not None:
            memory_format_arg(memory_format, fname)
        if _dense_strides(a):
            return _strided_empty(a.shape, tuple(st // a.itemsize for st in a.strides), d)
        memory_format = suggest_memory_format(a)
    else:
        memory_format_arg(memory_format, fname)
    return to_memory_format(np.empty(a.shape, d), memory_format)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros shaped (and, by default, laid out) like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    a = _like_array(input, dtype, memory_format, "zeros_like")
    a[...] = 0
    return _finish(a, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones shaped (and, by default, laid out) like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    a = _like_array(input, dtype, memory_format, "ones_like")
    a[...] = 1
    return _finish(a, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """An uninitialized tensor shaped (and, by default, laid out) like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    return _finish(_like_array(input, dtype, memory_format, "empty_like"), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """fill_value everywhere, shaped (and, by default, laid out) like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    value = _number_arg(fill_value, "full_like", "fill_value", 2)
    a = _like_array(input, dtype, memory_format, "full_like")
    a[...] = _filled(a.shape, value, dtype or input.dtype)
    return _finish(a, requires_grad)


def _int_list(values, fname, argname, position):
    if not isinstance(values, (tuple, list, Size)):
        raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be tuple "
                        f"of ints, not {_arg_type(values)}")
    out = []
    for i, v in enumerate(values):
        n = _as_index(v)
        if n is None:
            if i == 0:
                raise TypeError(f"{fname}(): argument '{argname}' (position {position}) must be "
                                f"tuple of ints, but found element of type {_arg_type(v)} at "
                                "pos 0")
            raise TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_arg_type(v)}\"")
        out.append(n)
    return tuple(out)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """An uninitialized tensor with these sizes and strides (in elements), over fresh memory
    just large enough."""
    check_factory(device, "empty_strided", pin_memory)
    size = _int_list(size, "empty_strided", "size", 1)
    stride = _int_list(stride, "empty_strided", "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{', '.join(map(str, size))}]")
    if 0 not in size and any(n > 1 and st < 0 for n, st in zip(size, stride)):
        raise RuntimeError(f"Storage size calculation overflowed with sizes="
                           f"[{', '.join(map(str, size))}] and strides="
                           f"[{', '.join(map(str, stride))}]")
    d = dtype or _dtype.get_default_dtype()
    return _finish(_strided_empty(size, stride, _np(d)), requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """An uninitialized tensor of `size` whose dims lie in memory in the order
    `physical_layout` (outermost first)."""
    check_factory(device, "empty", pin_memory)
    size = _int_list(size, "empty_permuted", "size", 1)
    perm = _int_list(physical_layout, "empty_permuted", "physical_layout", 2)
    if len(perm) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    seen = [False] * len(size)
    for i, p in enumerate(perm):
        if not 0 <= p < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {p} at index {i}).  NB: negative dims "
                               "not currently supported; file an issue if you want it.")
        if seen[p]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[p] = True
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{', '.join(map(str, size))}]")
    d = dtype or _dtype.get_default_dtype()
    physical = np.empty(tuple(size[p] for p in perm), _np(d))
    return _finish(physical.transpose(np.argsort(perm)), requires_grad)


# ---- Tensor.new_*: self's dtype unless told otherwise -----------------------------------

def new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.zeros(_size(sizes, "new_zeros", size), (dtype or self.dtype).np),
                   requires_grad)


def new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.ones(_size(sizes, "new_ones", size), (dtype or self.dtype).np),
                   requires_grad)


def new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    return _finish(np.empty(_size(sizes, "new_empty", size), (dtype or self.dtype).np),
                   requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A tensor of `size` (a sequence) filled with `fill_value`, converted with overflow
    checks as fill_ converts it."""
    if device is not None or pin_memory:
        check_factory(device, "empty", pin_memory, default=False)
    shape = _size_arg(size, "new_full")
    value = _number_arg(fill_value, "new_full", "fill_value", 2)
    return _finish(_filled(shape, value, dtype or self.dtype), requires_grad)


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
    """Values rounded to dtype d as C++ converts them (through float for reduced types; c10's
    bfloat16 conversion makes every NaN the positive quiet one)."""
    a = np.asarray(a)
    if d is _dtype.bfloat16:
        a = np.where(a != a, np.nan, a)
    return _dtype.cast(a, d.np)


_REDUCED = (_dtype.float16, _dtype.bfloat16)


def _scalar_to(x, d):
    """Scalar.to<scalar_t>() of a Python number: truncation for integer types."""
    if d.is_complex:
        return builtins.complex(x)
    if d.is_floating_point:
        return float(x)
    if isinstance(x, float) and not math.isfinite(x):
        return 0
    return int(x)


def _to_scalar(x, d):
    """Scalar.to<scalar_t>() of a Python number: converted to dtype d with c10's overflow
    check; a 0-d array of d."""
    from .ops.pointwise import _checked_scalar
    if d.is_complex and d.np.kind != "c":
        return _dtype.cast(np.asarray(builtins.complex(x), np.complex64), d.np)
    return _dtype.cast(np.asarray(_checked_scalar(x, d.np)), d.np)


def _linspace_values(start, end, steps, d):
    if steps <= 1:      # linspace_out fills one step with start
        return _filled((steps,), start, d)
    if d.is_complex:
        # the real kernel's steps, part by part (c10::complex times an integer index)
        s, e = _to_scalar(start, d), _to_scalar(end, d)
        part = _dtype.float64 if d is _dtype.complex128 else _dtype.float32
        re = _linspace_values(s.real.item(), e.real.item(), steps, part)
        im = _linspace_values(s.imag.item(), e.imag.item(), steps, part)
        return _complex_parts(re, im, d)
    i = np.arange(steps)
    first = i < steps // 2
    if d in _REDUCED:
        # c10::Half / BFloat16 arithmetic: each operation rounds to the type
        def r(x):
            return _round(np.asarray(x, np.float32), d).astype(np.float32)
        s, e = (_to_scalar(x, d).astype(np.float32) for x in (start, end))
        step = r(r(e - s) / r(steps - 1)) if steps > 1 else np.float32(0)
        k = r(np.where(first, i, steps - 1 - i).astype(np.float32))
        prod = r(step * k)
        return _round(np.where(first, r(s + prod), r(e - prod)), d)
    if d.is_floating_point:
        work = d.np
        s, e = _to_scalar(start, d)[()], _to_scalar(end, d)[()]
        step = work.type((e - s) / work.type(steps - 1))
    else:
        # integers: start and end in the dtype, the step in double
        work = np.float64
        s, e = float(_to_scalar(start, d)), float(_to_scalar(end, d))
        step = (e - s) / (steps - 1)
    k = np.where(first, i, steps - 1 - i).astype(work)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.where(first, _fma(k, step, s, work), _fma(k, -step, e, work))
    if d.is_floating_point:
        return v.astype(d.np)
    return _double_to_int(v, d)


def _double_to_int(v, d):
    """double -> integer dtype as x86 converts (cvttsd2si: truncation; out of range or NaN
    gives the integer indefinite, INT_MIN), narrow types through int."""
    v = np.trunc(v)
    with np.errstate(invalid="ignore"):
        if d is _dtype.int64:
            return np.where((v >= -2.0 ** 63) & (v < 2.0 ** 63), v, -2.0 ** 63).astype(np.int64)
        wide = np.where((v >= -2.0 ** 31) & (v < 2.0 ** 31), v, -2.0 ** 31).astype(np.int64)
    return wide.astype(np.int32).astype(d.np)


def _arange_values(start, step, n, d):
    idx = np.arange(n)
    if not (d.is_floating_point or d.is_complex):
        with np.errstate(over="ignore"):
            return (np.int64(start) + np.int64(step) * idx).astype(d.np)
    work = np.float32 if d in _REDUCED else np.float64
    start, step = work(start), work(step)       # Scalar.to<accscalar_t>()
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
    """arange's (or range's) checks (arange_check_bounds: in double) and element count;
    with start and step as the kernel takes them (truncated for integer dtypes)."""
    ds, de, dst = float(start), float(end), float(step)
    integral = not (d.is_floating_point or d.is_complex)

    def to_int64(*xs):      # Scalar.to<int64_t>(): checked, then truncated
        return tuple(int(_to_scalar(x, _dtype.int64)) for x in xs)
    if integral and name == "range":
        xs, xe, xst = to_int64(start, end, step)   # range_out converts before its checks
    if dst == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {_g(ds)} -> {_g(de)}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if name == "range":
        if integral:
            if xst == 0:    # (PyTorch's C++ divides by zero here)
                raise RuntimeError("step must be nonzero")
            q = abs(xe - xs) // abs(xst)            # ((end - start) / step) + 1 in int64
            return xs, xst, (q if (xe - xs) * xst >= 0 else -q) + 1
        work = np.float32 if d in _REDUCED else np.float64
        with np.errstate(all="ignore"):         # in the accumulate type, truncated
            return ds, dst, int((work(de) - work(ds)) / work(dst) + work(1))
    if d is _dtype.int64:
        xs, xe, xst = to_int64(start, end, step)
        if xst == 0:
            raise ValueError("step must be nonzero")
        sgn = 1 if xst > 0 else -1
        q, r = divmod(xe - xs + xst - sgn, xst)     # C++ division truncates toward zero
        return xs, xst, q + 1 if r and q < 0 else q
    size_d = math.ceil((de - ds) / dst)
    if not 0 <= size_d <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    if integral:    # the kernel's start and step (a step truncated to 0 repeats start)
        xs, xst = to_int64(start, step)
        return xs, xst, int(size_d)
    return ds, dst, int(size_d)


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


def _check_0d(start, end, name):
    """linspace_out's and logspace_out's refusal of start and end tensors that are not 0-d."""
    ts, te = isinstance(start, Tensor), isinstance(end, Tensor)
    sd, ed = (start.dim() if ts else 0), (end.dim() if te else 0)
    if sd or ed:
        got = [f"start with {sd} dimension(s)"] if ts else []
        got += [f"end with {ed} dimension(s)"] if te else []
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got "
                           f"{' and '.join(got)}.")


def _spaced_dtype(start, end, out, dtype, name):
    """linspace's and logspace's dtype: out's, or dtype, or inferred (the default complex
    dtype for a complex start or end, which a real dtype cannot take)."""
    if out is not None:
        return _factory_dtype(out, dtype, name)
    if isinstance(start, builtins.complex) or isinstance(end, builtins.complex):
        inferred = _dtype.default_complex()
        if dtype is None:
            return inferred
        if not dtype.is_complex:
            raise RuntimeError(f"torch.{name}(): inferred dtype {inferred.cpp} can't be safely "
                               f"cast to passed dtype {dtype.legacy}")
    return dtype or _dtype.get_default_dtype()


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` evenly spaced values from start to end inclusive (Note [Range kernels])."""
    check_factory(device, "empty")
    steps = _steps(steps, "linspace")
    _check_0d(start, end, "linspace")
    start, end = _number(start), _number(end)
    d = _spaced_dtype(start, end, out, dtype, "linspace")
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
    _check_0d(start, end, "logspace")
    start, end = _number(start), _number(end)
    d = _spaced_dtype(start, end, out, dtype, "logspace")
    _no_kernel("logspace_cpu", d, _NO_LINSPACE)
    values = _logspace_values(start, end, steps, base, d)
    if out is not None:
        return _range_out(out, values, "logspace", False)
    return _finish(values, requires_grad)


def _glibc_pow(base, x):
    """The C library's pow (PyTorch's std::pow), overflowing to inf and NaN for negative
    bases with fractional exponents instead of raising."""
    try:
        return math.pow(base, x)
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return float(np.power(base, x))


_POW = np.frompyfunc(_glibc_pow, 2, 1)


def _logspace_values(start, end, steps, base, d):
    """logspace_out (RangeFactories.cpp): start and end in the dtype, the exponent
    start + step*i (end - step*(steps-1-i) past halfway) in double, std::pow in double,
    stored in the dtype."""
    if steps == 0:
        return np.empty(0, d.np)
    if d.is_complex:
        return _complex_logspace(start, end, steps, base, d)
    if steps == 1:
        return _filled((1,), _glibc_pow(float(base), float(start)), d)
    s, e = _to_scalar(start, d), _to_scalar(end, d)
    if d in _REDUCED:
        diff = _round(e.astype(np.float32) - s.astype(np.float32), d).astype(np.float64)
    elif d.is_floating_point:
        diff = float(e - s)
    else:
        diff = float(int(e) - int(s))       # C++ promotes narrow integers to int
        if d in (_dtype.int32, _dtype.int64):
            bits = 32 if d is _dtype.int32 else 64
            diff = float((int(e) - int(s) + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1))
    step = diff / (steps - 1)
    i = np.arange(steps)
    first = i < steps // 2
    with np.errstate(all="ignore"):
        x = np.where(first, float(s.astype(np.float64)) + step * i.astype(np.float64),
                     float(e.astype(np.float64)) - step * (steps - i - 1).astype(np.float64))
    with np.errstate(all="ignore"):
        v = _POW(float(base), x).astype(np.float64)
    if d.is_floating_point:
        with np.errstate(over="ignore"):
            return _round(v, d)
    return _double_to_int(v, d)


def _complex_logspace(start, end, steps, base, d):
    """The complex branch: the step (end - start) times 1/(steps - 1) (c10::complex
    division), the exponent in the dtype's precision, and std::pow(base, x) as the C
    library's cpow computes it: cexp(x * clog(base)), each step rounded to the precision."""
    if steps == 1:
        s = builtins.complex(start)
        with np.errstate(all="ignore"):
            if base > 0:    # std::pow(double, complex<double>): polar(pow(b, re), im log b)
                v = _rect(_glibc_pow(float(base), s.real), s.imag * math.log(base))
            else:
                v = builtins.complex(np.power(builtins.complex(base), s))
        return _filled((1,), v, d)
    real = np.float32 if d is _dtype.complex64 else np.float64
    s, e = _to_scalar(start, d)[()], _to_scalar(end, d)[()]
    step = (e - s) * real(1 / real(steps - 1))
    i = np.arange(steps).astype(real)
    first = np.arange(steps) < steps // 2
    with np.errstate(all="ignore"):
        x = np.where(first, s + step * i, e - step * (real(steps - 1) - i)).astype(d.np)
        b = real(base)
        if b == 0:
            return np.zeros(steps, d.np)
        log_re = real(math.log(abs(float(b))))            # clog of a real base
        log_im = real(math.pi) if b < 0 else real(0)
        a = (x.real * log_re - x.imag * log_im).astype(real)
        t = (x.real * log_im + x.imag * log_re).astype(real)
        # cexp: exp(a) (cos t + i sin t), each function rounded to the precision
        mag = np.exp(a.astype(np.float64)).astype(real)
        cos, sin = (f(t.astype(np.float64)).astype(real) for f in (np.cos, np.sin))
        return _complex_parts(mag * cos, mag * sin, d)


def _rect(r, phi):
    """std::polar(r, phi)."""
    return builtins.complex(r * math.cos(phi), r * math.sin(phi))


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


# ---- window functions (TensorFactories.cpp: arange, then in-place ops in the window's dtype) ---

_MISSING = object()
_WINDOW_KW = ("dtype", "layout", "device", "pin_memory", "requires_grad")
_WINDOW_KW_SIG = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
                  "None, bool pin_memory = False, bool requires_grad = False")


def _arg_type(x):
    """A value's type as PyTorch's argument parser names it in its messages (C types by
    their tp_name, numpy.ndarray; Python classes by their name)."""
    if isinstance(x, Tensor):
        return "Tensor"
    if isinstance(x, (_dtype.dtype,)):
        return "torch.dtype"
    kind = type(x)
    module = kind.__module__
    if module == "torch" or module.startswith("chainrule"):
        return f"torch.{kind.__name__}"
    if module == "builtins" or kind.__flags__ & (1 << 9):     # Py_TPFLAGS_HEAPTYPE
        return kind.__name__
    return f"{module}.{kind.__name__}"


def _is_int(x):
    if isinstance(x, Tensor):
        return x._data.ndim == 0 and x._data.dtype.kind in "iu"
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_float(x):
    if isinstance(x, Tensor):
        return x._data.ndim == 0 and x._data.dtype.kind in "iuf"
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, np.bool_)


_ARG_CHECKS = {"int": _is_int, "bool": lambda x: isinstance(x, (bool, np.bool_)),
               "float": _is_float}


def _window_args(name, extra, args, kwargs, call_kwargs):
    """PyTorch's overload resolution for a window function: (window_length, periodic,
    *extra) from positional and keyword arguments (`kwargs`: those besides the tensor
    options; `call_kwargs`: all, as given), with the parser's TypeErrors. The overloads take
    window_length, then periodic, then each of `extra` in turn."""
    params = [("window_length", "int"), ("periodic", "bool")] + [(e, "float") for e in extra]
    given = len(args) + len(call_kwargs)
    sigs = [params[:n] for n in builtins.range(1, len(params) + 1)]
    plausible = [s for s in sigs if len(s) <= given <= len(s) + len(_WINDOW_KW)]
    values = list(args)
    for sig in plausible:
        if len(args) > len(sig):
            continue
        values = list(args) + [kwargs.get(p, _MISSING) for p, _ in sig[len(args):]]
        unknown = [k for k in kwargs if k not in {p for p, _ in sig[len(args):]}]
        if _MISSING in values or unknown:
            continue
        bad = [(i, v) for i, (v, (_, t)) in enumerate(zip(values, sig)) if not _ARG_CHECKS[t](v)]
        if not bad:
            return [int(v) if t == "int" else bool(v) if t == "bool" else float(v)
                    for v, (_, t) in zip(values, sig)]
        if len(plausible) == 1:
            i, v = bad[0]
            p, t = sig[i]
            where = f" (position {i + 1})" if i < len(args) else ""
            raise TypeError(f"{name}(): argument '{p}'{where} must be {t}, not "
                            f"{_arg_type(v)}")
    got = ", ".join([_arg_type(a) for a in args] +
                    [f"{k}={_arg_type(v)}" for k, v in reversed(call_kwargs.items())])
    options = "".join(f" * ({', '.join(f'{t} {p}' for p, t in sig)}, {_WINDOW_KW_SIG})\n"
                      for sig in sigs)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{options}")


def _window(name, extra, args, kwargs, defaults):
    """Parse a window function's call; return (window_length, periodic, extras, dtype,
    requires_grad) after window_function_checks."""
    given = dict(kwargs)
    options = {k: kwargs.pop(k) for k in _WINDOW_KW if k in kwargs}
    n, *rest = _window_args(name, extra, args, kwargs, given)
    rest += defaults[len(rest):]
    dtype, layout = options.get("dtype"), options.get("layout")
    check_factory(options.get("device"), "empty", options.get("pin_memory", False))
    d = dtype or _dtype.get_default_dtype()

    def what():
        shown = d.cpp + (" (default)" if dtype is None and name == "hann_window" else "")
        kind = "Sparse" if layout is _sparse_coo() else "Strided" + \
            ("" if layout is not None else " (default)")
        pinned = "true" if options.get("pin_memory") else "false"
        return (f"TensorOptions(dtype={shown}, device=cpu, layout={kind}, requires_grad=false "
                f"(default), pinned_memory={pinned}, memory_format=(nullopt))")
    if layout is not None and layout is _sparse_coo():
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {what()}")
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {what()}")
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    return n, rest[0], rest[1:], d, options.get("requires_grad", False)


def _sparse_coo():
    from ._tensor import sparse_coo
    return sparse_coo


def _windowed(n, periodic, d, requires_grad, body):
    """The steps every window shares: empty for 0, ones for 1, else body(arange(N), N,
    scalar) over N = n (+1 when periodic, then cut back to n). The C++ kernels pass their
    constants as Scalars, which reach the kernel converted to the window's dtype: scalar(x)
    is that 0-d tensor."""
    if n == 0 or n == 1:
        if d in _NO_ARANGE and n == 1 and d.is_complex:
            return _finish(np.ones(1, d.np), requires_grad)
        return _finish(np.ones(n, _np(d)), requires_grad)
    length = n + 1 if periodic else n
    with _grad_mode.no_grad():
        w = body(arange(length, dtype=d), length, lambda x: make_tensor(_round(x, d)))
    data = w._data[:n] if periodic else w._data
    return _finish(data, requires_grad)


def bartlett_window(*args, **kwargs):
    """The Bartlett (triangular) window: 1 - |2n/(N-1) - 1|."""
    n, periodic, _, d, rg = _window("bartlett_window", (), args, kwargs, [True])

    def body(w, length, scalar):
        w.mul_(scalar(2. / (length - 1)))
        half = ((length - 1) >> 1) + 1
        w[half:].mul_(scalar(-1)).add_(scalar(2))
        return w
    return _windowed(n, periodic, d, rg, body)


def blackman_window(*args, **kwargs):
    """The Blackman window: 0.42 - 0.5 cos(2 pi n/(N-1)) + 0.08 cos(4 pi n/(N-1))."""
    n, periodic, _, d, rg = _window("blackman_window", (), args, kwargs, [True])

    def body(w, length, scalar):
        w.mul_(scalar(math.pi / (length - 1)))
        return (w.mul(scalar(4)).cos_().mul_(scalar(0.08))
                - w.mul(scalar(2)).cos_().mul_(scalar(0.5)) + scalar(0.42))
    return _windowed(n, periodic, d, rg, body)


def hamming_window(*args, **kwargs):
    """The generalized Hamming window: alpha - beta cos(2 pi n/(N-1))."""
    n, periodic, (alpha, beta), d, rg = _window("hamming_window", ("alpha", "beta"), args,
                                                kwargs, [True, 0.54, 0.46])
    return _hamming(n, periodic, alpha, beta, d, rg)


def _hamming(n, periodic, alpha, beta, d, requires_grad):
    def body(w, length, scalar):
        return w.mul_(scalar(math.pi * 2. / (length - 1))).cos_().mul_(scalar(-beta)).add_(
            scalar(alpha))
    return _windowed(n, periodic, d, requires_grad, body)


def hann_window(*args, **kwargs):
    """The Hann window: 0.5 - 0.5 cos(2 pi n/(N-1))."""
    n, periodic, _, d, rg = _window("hann_window", (), args, kwargs, [True])
    return _hamming(n, periodic, 0.5, 0.5, d, rg)


def kaiser_window(*args, **kwargs):
    """The Kaiser window: I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)."""
    n, periodic, (beta,), d, rg = _window("kaiser_window", ("beta",), args, kwargs,
                                          [True, 12.0])

    def body(w, length, scalar):
        # kaiser_window_kernel, in the op math type (float for half and bfloat16)
        work = np.float64 if d is _dtype.float64 else np.float32
        a = w._data.astype(work)
        alpha, b = work((length - 1) / 2.0), work(beta)
        r = (a - alpha) / alpha
        x = b * np.sqrt(np.abs(_fma(r, -r, np.ones_like(r), work)))   # 1 - r*r, fused
        i0 = make_tensor(np.concatenate([x, [b]])).i0()._data
        with np.errstate(invalid="ignore"):    # inf / inf for a large beta, as in C++
            return make_tensor(_round(i0[:-1] / i0[-1], d))
    return _windowed(n, periodic, d, rg, body)


# ---- complex and polar: complex tensors from real ones (ComplexKernel.cpp) ----------------

_COMPLEX_PARTS = frozenset((np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)))


def _complex_check(a, b):
    """complex_check_floating and complex_check_dtype: Half, Float or Double, both alike."""
    if a.dtype not in _COMPLEX_PARTS or b.dtype not in _COMPLEX_PARTS:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{FROM_NP[a.dtype].legacy} and {FROM_NP[b.dtype].legacy}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {FROM_NP[a.dtype].legacy} but got "
                           f"scalar type {FROM_NP[b.dtype].legacy} for second argument")
    return FROM_NP[a.dtype].to_complex()


def _complex_parts(re, im, d):
    """A complex array of dtype d with these real and imaginary parts (broadcast, laid out
    as TensorIterator lays out its output), each part stored as is."""
    shape = np.broadcast_shapes(re.shape, im.shape)
    if d is _dtype.complex32:       # exact: half parts fit complex64's
        return _dtype.cast(_complex_parts(re.astype(np.float32), im.astype(np.float32),
                                          _dtype.complex64), d.np)
    out = _iterator_empty(shape, d.np, re, im)
    out.real, out.imag = re, im
    return out


def _checked_parts(name, a, b):
    """complex and polar's checks of their (tensor) arguments, before dispatch."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        d = _complex_check(a._data, b._data)
        if d is _dtype.complex32:
            if name == "polar":
                check_broadcast((a._data, b._data))     # TensorIterator's shapes first
                raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
            _dtype.warn_complex32(5)


def _polar_forward(abs, angle):
    # polar_kernel: abs * std::cos(angle), abs * std::sin(angle), in the inputs' type
    with np.errstate(all="ignore"):
        if abs.dtype == np.float64:
            # glibc's cos and sin (NumPy's float64 kernels agree with them)
            c, s = np.cos(angle), np.sin(angle)
        else:
            c, s = (f(angle.astype(np.float64)).astype(np.float32) for f in (np.cos, np.sin))
        return _complex_parts(abs * c, abs * s, FROM_NP[abs.dtype].to_complex())


def _real_of(t):
    from .ops.pointwise import real
    return real(t)


def _imag_of(t):
    from .ops.pointwise import imag
    return imag(t)


_OUT_COMPLEX = registry.out_exact("Expected object of scalar type {expected} but got scalar type "
                                  "{got} for argument 'out'")

_complex = registry.op(
    "complex", "ComplexBackward0", "real, imag",
    lambda re, im: _complex_parts(re, im, FROM_NP[re.dtype].to_complex()), function=False,
    method=False, out=_OUT_COMPLEX,
    real=lambda grad: _real_of(grad), imag=lambda grad: _imag_of(grad))

_polar = registry.op(
    "polar", "PolarBackward0", "abs, angle", _polar_forward, function=False, method=False,
    out=_OUT_COMPLEX,
    abs=lambda grad, result: _real_of(grad.conj() * result.sgn()),
    angle=lambda grad, result: _real_of(grad.conj() * (result * _j_like(result))))


def _j_like(t):
    # 1j as a 0-d tensor of t's dtype: a Python complex factor's conjugate is not taken in
    # MulBackward0's formula, so the double backward would see i where PyTorch sees -i
    return make_tensor(np.array(1j, t._data.dtype))


@public("complex", method=False, out=_OUT_COMPLEX)
def complex(real, imag):
    """A complex tensor with real part `real` and imaginary part `imag` (both Half, Float or
    Double, of one dtype)."""
    _checked_parts("complex", real, imag)
    return _complex(real, imag)


@public("polar", method=False, out=_OUT_COMPLEX)
def polar(abs, angle):
    """The complex tensor abs * (cos(angle) + i sin(angle))."""
    _checked_parts("polar", abs, angle)
    return _polar(abs, angle)


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
    outer = _iter_perm(shape, *strides)
    if outer is None:
        return None
    return np.arange(math.prod(shape)).reshape(shape).transpose(outer).ravel()


def _iter_perm(shape, *strides):
    """The dims from outermost to innermost as PyTorch's TensorIterator orders them for
    operands with these byte strides (reorder_dimensions' insertion sort); None when that
    is the logical order."""
    nd = len(shape)
    if nd < 2:
        return None
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

    outer = insertion_order(nd, should_swap)[::-1]
    return None if outer == sorted(outer) else outer


def _iterator_empty(shape, np_dtype, *operands):
    """An empty array of `shape` laid out as TensorIterator lays out the output of an op
    over these operand arrays (broadcast to shape)."""
    outer = _iter_perm(shape, *(np.broadcast_to(a, shape).strides for a in operands))
    if outer is None:
        return np.empty(shape, np_dtype)
    return np.empty(tuple(shape[d] for d in outer), np_dtype).transpose(np.argsort(outer))


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
            raise RuntimeError(f"{name} is out of bounds for {real.cpp}")
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
    name = d.cpp
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
        kind = dtype.cpp if cpp else dtype.legacy
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


def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples in [0, 1)."""
    check_factory(device, "empty", pin_memory)
    shape = _size(sizes, "rand", size)
    d = _factory_dtype(out, dtype, "rand")
    _no_kernel("check_uniform_bounds", d, _NO_UNIFORM)
    if out is not None:
        return _sample_into(out, shape, "rand", lambda t: uniform_(t, 0, 1, generator=generator))
    if d.is_complex:
        t = _finish(np.empty(shape, d.np), False)
        return _finish(uniform_(t, 0, 1, generator=generator)._data, requires_grad)
    return _finish(_gen(generator).rand(shape, d.np), requires_grad)


def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    check_factory(device, "empty", pin_memory)
    shape = _size(sizes, "randn", size)
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
    check_broadcast([a._data, b._data])
    return np.broadcast_shapes(a._data.shape, b._data.shape)


@public("bernoulli", out=False)
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: 1 with probability `input` (elementwise), or with probability p."""
    if p is not None:
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


# Note [Argument parser checks] (p with out= fits neither declaration)
declare(Overloads("bernoulli", ["(Tensor input, *, torch.Generator generator = None, "
                                "Tensor out = None)",
                                "(Tensor input, float p, *, torch.Generator generator = None)"],
                  fast=(0, 1)))


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


def _standard_gamma_backward(grad, self, result):
    return grad * registry.FUNCTIONS["_standard_gamma_grad"](self, result)


_STANDARD_GAMMA = Op("_standard_gamma", "StandardGammaBackward0", ("self",), (), None,
                     {"self": _standard_gamma_backward}, NONE, None, None, False, False)
_SAMPLE_DIRICHLET = Op("_sample_dirichlet", registry.NOT_IMPLEMENTED, ("self",), (), None,
                       {"self": registry.no_derivative("aten::_sample_dirichlet")}, NONE, None,
                       None, False, False)


def _gamma_kernel(kernel, d):
    if d not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{d.legacy}'")


@public("_standard_gamma", method=False)
def _standard_gamma(input, generator=None):
    """Gamma(input, 1) samples (ATen's sample_gamma); reparameterized: the gradient flows
    through _standard_gamma_grad."""
    _gamma_kernel("gamma_cpu", input.dtype)
    a = input._data
    values = _gen(generator).standard_gamma(a.reshape(-1))
    return _record_sample(_STANDARD_GAMMA, (input,), values.reshape(a.shape))


@public("_sample_dirichlet", method=False)
def _sample_dirichlet(input, generator=None):
    """Dirichlet samples with concentrations in input's last dimension."""
    _gamma_kernel("dirichlet", input.dtype)
    return _record_sample(_SAMPLE_DIRICHLET, (input,), _gen(generator).dirichlet(input._data))


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


# Note [Argument parser checks]: the method numbers its arguments after self
declare("multinomial(Tensor input, int num_samples, bool replacement=False, *, "
        "Generator? generator=None)", function=False)


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


def _empty_like(input, dtype, name, memory_format=None):
    """empty_like(input) (preserve_format: a dense input's strides) for sampler `name`."""
    return make_tensor(_like_array(input, dtype, memory_format, name))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, generator=None):
    """Uniform samples in [0, 1) shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    _no_kernel("check_uniform_bounds", dtype or input.dtype, _NO_UNIFORM)
    t = uniform_(_empty_like(input, dtype, "rand_like", memory_format), 0, 1, generator=generator)
    return _finish(t._data, requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, generator=None):
    """Standard normal samples shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    _no_kernel("normal_kernel_cpu", dtype or input.dtype, _NO_UNIFORM)
    t = normal_(_empty_like(input, dtype, "randn_like", memory_format), generator=generator)
    return _finish(t._data, requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    """Integers uniform in [low, high) shaped like input."""
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    if high is None:
        low, high = 0, low
    _check_randint(dtype or input.dtype)
    t = random_(_empty_like(input, dtype, "randint_like", memory_format), low, high, generator=generator)
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
        if isinstance(src, (numbers.Number, dict)) or not hasattr(type(src), "__getitem__"):
            # what Python's C API counts as a sequence (None, a dict or a set is not)
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



# last: the interop module reads this one's helpers
from . import _interop  # noqa: E402
from ._interop import asarray, from_dlpack, from_file, frombuffer  # noqa: E402
