"""Tensor creation: tensor, as_tensor, from_numpy, zeros/ones/full/empty, ranges, random
sampling, *_like, and PyTorch's legacy constructors (Tensor(3, 5), FloatTensor(...))."""
import itertools
import numbers
import warnings

import numpy as np

from . import _dtype
from ._dtype import FROM_NP
from ._device import check_factory
from ._tensor import Size, Tensor, make_tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
           "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
           "randint_like", "bernoulli", "FloatTensor", "DoubleTensor",
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
        FROM_NP.get(data.dtype) or _dtype.from_numpy_dtype(data.dtype)
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
        if kind in "fc":
            raise TypeError("an integer is required")
        if kind == "i" and np.any(a < 0):
            raise OverflowError("can't convert negative int to unsigned")
        if kind == "O":
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
    return (dtype or _dtype.get_default_dtype()).np


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    return _finish(np.zeros(_size(size, "zeros"), _np(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    return _finish(np.ones(_size(size, "ones"), _np(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None, pin_memory=False):
    check_factory(device, "empty", pin_memory)
    return _finish(np.empty(_size(size, "empty"), _np(dtype)), requires_grad)


def _size_arg(size, name):
    """The shape from a factory's `size` argument, which must be a sequence."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _size((size,), name)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    if dtype is None:
        dtype = _dtype.result_type([fill_value])
    return _finish(np.full(_size_arg(size, "full"), fill_value, dtype.np), requires_grad)


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


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from start to end (exclusive) by step; integers give int64, else the default
    float dtype."""
    check_factory(device, "empty")
    if end is None:
        start, end = 0, start
    start, end, step = (x.item() if isinstance(x, Tensor) else x for x in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {float(start):g} -> {float(end):g}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.result_type([start, end, step])
    _no_kernel("arange_cpu", dtype, _NO_ARANGE)
    n = int(np.ceil((end - start) / step))
    # PyTorch computes start + i*step in double (or int64), then casts.
    if dtype.category >= 2:
        a = _dtype.cast(start + np.arange(n, dtype=np.float64) * step, dtype.np)
    else:
        a = (start + np.arange(n, dtype=np.int64) * step).astype(dtype.np)
    return _finish(a, requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` evenly spaced values from start to end inclusive."""
    check_factory(device, "empty")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or _dtype.get_default_dtype()
    _no_kernel("linspace_cpu", d, _NO_LINSPACE)
    # PyTorch fills the first half from start and the second half from end, in the
    # output dtype; doing the same keeps the last bits equal.
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    i = np.arange(steps)
    half = max(steps // 2, 1)   # one step: just `start`
    work = d.np if d.category >= 2 else np.float64
    a = np.where(i < half, start + step * i.astype(work), end - step * (steps - 1 - i).astype(work))
    return _finish(a.astype(d.np), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    d = dtype or _dtype.get_default_dtype()
    _no_kernel("logspace_cpu", d, _NO_LINSPACE)
    return _finish(np.power(base, linspace(start, end, steps, dtype=_dtype.float64)._data)
                   .astype(d.np), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_factory(device, "empty")
    m = n if m is None else m
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    _no_kernel("eye", dtype, _NO_EYE)
    return _finish(np.eye(n, m, dtype=_np(dtype)), requires_grad)


# dtypes PyTorch's CPU factory kernels are not compiled for
_LIMITED = (_dtype.uint16, _dtype.uint32, _dtype.uint64, _dtype.complex32)
_FLOAT8 = (_dtype.float8_e4m3fn, _dtype.float8_e4m3fnuz, _dtype.float8_e5m2,
           _dtype.float8_e5m2fnuz, _dtype.float8_e8m0fnu)
_NO_ARANGE = frozenset(_LIMITED + _FLOAT8 + (_dtype.bool, _dtype.complex64, _dtype.complex128))
_NO_LINSPACE = frozenset(_LIMITED + _FLOAT8 + (_dtype.bool,))
_NO_EYE = frozenset(_LIMITED)


def _no_kernel(kernel, dtype, refused):
    if dtype in refused:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.legacy}'")


def complex(real, imag):
    return make_tensor(real._data + 1j * imag._data).to(real.dtype.to_complex())


def polar(abs, angle):
    return make_tensor(abs._data * np.exp(1j * angle._data)).to(abs.dtype.to_complex())


# ---- random sampling (values bit-identical to PyTorch's CPU generator) --------------------

def _gen(generator):
    from ._random import default_generator
    return default_generator if generator is None else generator


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples in [0, 1)."""
    check_factory(device, "empty", pin_memory)
    return _finish(_gen(generator).rand(_size(size, "rand"), _np(dtype)), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    check_factory(device, "empty", pin_memory)
    return _finish(_gen(generator).randn(_size(size, "randn"), _np(dtype)), requires_grad)


def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Integers uniform in [low, high); int64 unless dtype says otherwise."""
    check_factory(device, "empty")
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    d = dtype or _dtype.int64
    return _finish(_gen(generator).randint(low, high, _size((size,), "randint"), d.np), requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0..n-1."""
    check_factory(device, "empty", pin_memory)
    d = dtype or _dtype.int64
    return _finish(_gen(generator).randperm(n, d.np), requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal samples: scalar mean/std with `size`, or elementwise tensor mean/std."""
    if device is not None:
        check_factory(device, "empty", default=False)
    g = _gen(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else np.asarray(mean)
        s = std._data if isinstance(std, Tensor) else np.asarray(std)
        ref = mean if isinstance(mean, Tensor) else std
        shape = np.broadcast_shapes(m.shape, s.shape)
        z = g.normal(shape, 0.0, 1.0, ref._data.dtype)
        return make_tensor((z * s + m).astype(ref._data.dtype))
    if size is None:
        raise TypeError("normal() missing required argument 'size'")
    return _finish(g.normal(_size((size,), "normal"), mean, std, _np(dtype)), requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities `input` (or the scalar p)."""
    probs = input._data if p is None else p
    return make_tensor(_gen(generator).bernoulli(probs, input._data.shape, input._data.dtype))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(_gen(None).rand(shape, d), requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    shape, d = _like(input, dtype)
    return _finish(_gen(None).randn(shape, d), requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if device is not None:
        check_factory(device, "empty_strided", default=False)
    if high is None:
        low, high = 0, low
    shape, d = _like(input, dtype)
    return _finish(_gen(None).randint(low, high, shape, d), requires_grad)


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

