"""Tensor creation: tensor, as_tensor, from_numpy, zeros/ones/full/empty, ranges, random
sampling, *_like, and PyTorch's legacy constructors (Tensor(3, 5), FloatTensor(...))."""
import numbers
import warnings

import numpy as np

from . import _dtype
from ._dtype import FROM_NP
from ._tensor import Size, Tensor, make_tensor
from .ops.registry import FUNCTIONS

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
           "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like",
           "randint_like", "bernoulli", "FloatTensor", "DoubleTensor",
           "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "ShortTensor",
           "CharTensor", "scalar_tensor", "is_tensor", "numel", "complex", "polar"]



def _finish(data, requires_grad):
    t = make_tensor(data)
    if requires_grad:
        if FROM_NP[data.dtype].category < 2:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _infer_array(data):
    """A NumPy array for Python data, with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, np.ndarray):
        FROM_NP.get(data.dtype) or _dtype.from_numpy_dtype(data.dtype)
        return data
    if isinstance(data, np.generic):
        return np.asarray(data)
    if isinstance(data, (list, tuple)):
        data = [_unwrap_nested(x) for x in data]
    try:
        a = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    kind = a.dtype.kind
    if kind == "f":
        return a.astype(_dtype.get_default_dtype().np, copy=False)
    if kind == "c":
        return a.astype(_dtype.default_complex().np, copy=False)
    if kind in "iu":
        return a.astype(np.int64, copy=False)
    if kind == "b":
        return a
    if kind == "O" or kind in "US":
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return a


def _unwrap_nested(x):
    if isinstance(x, Tensor):
        if x._data.size != 1 and x._data.ndim == 0:
            return x._data
        if x._data.ndim:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x._data.item()
    if isinstance(x, (list, tuple)):
        return [_unwrap_nested(y) for y in x]
    return x


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested lists, numbers, arrays or tensors)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    a = _infer_array(data)
    a = np.array(a, dtype=None if dtype is None else dtype.np, copy=True)
    return _finish(a, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing memory with arrays and tensors when the dtype allows."""
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return make_tensor(data if dtype is None else data.astype(dtype.np, copy=False))
    a = _infer_array(data)
    return make_tensor(a if dtype is None else a.astype(dtype.np))


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


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(str(x) for x in size)}]")
    return tuple(int(s) for s in size)


def _np(dtype):
    return (dtype or _dtype.get_default_dtype()).np


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _finish(np.zeros(_size(size), _np(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _finish(np.ones(_size(size), _np(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None, pin_memory=False):
    return _finish(np.empty(_size(size), _np(dtype)), requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = _dtype.result_type([fill_value])
    return _finish(np.full(_size((size,)), fill_value, dtype.np), requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return _finish(np.array(s, _np(dtype)), requires_grad)


def _like(input, dtype):
    return input._data.shape, (dtype or input.dtype).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(np.zeros(shape, d), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(np.ones(shape, d), requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(np.empty(shape, d), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(np.full(shape, fill_value, d), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from start to end (exclusive) by step; integers give int64, else the default
    float dtype."""
    if end is None:
        start, end = 0, start
    start, end, step = (x.item() if isinstance(x, Tensor) else x for x in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.result_type([start, end, step])
    n = int(np.ceil((end - start) / step))
    # PyTorch computes start + i*step in double (or int64), then casts.
    if dtype.category >= 2:
        a = (start + np.arange(n, dtype=np.float64) * step).astype(dtype.np)
    else:
        a = (start + np.arange(n, dtype=np.int64) * step).astype(dtype.np)
    return _finish(a, requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` evenly spaced values from start to end inclusive."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or _dtype.get_default_dtype()
    # PyTorch fills the first half from start and the second half from end, in the
    # output dtype; doing the same keeps the last bits equal.
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    i = np.arange(steps)
    half = steps // 2
    work = d.np if d.category >= 2 else np.float64
    a = np.where(i < half, start + step * i.astype(work), end - step * (steps - 1 - i).astype(work))
    return _finish(a.astype(d.np), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    d = dtype or _dtype.get_default_dtype()
    return _finish(np.power(base, linspace(start, end, steps, dtype=_dtype.float64)._data)
                   .astype(d.np), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _finish(np.eye(n, n if m is None else m, dtype=_np(dtype)), requires_grad)


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
    return _finish(_gen(generator).rand(_size(size), _np(dtype)), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal samples."""
    return _finish(_gen(generator).randn(_size(size), _np(dtype)), requires_grad)


def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Integers uniform in [low, high); int64 unless dtype says otherwise."""
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    d = dtype or _dtype.int64
    return _finish(_gen(generator).randint(low, high, _size((size,)), d.np), requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0..n-1."""
    d = dtype or _dtype.int64
    return _finish(_gen(generator).randperm(n, d.np), requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal samples: scalar mean/std with `size`, or elementwise tensor mean/std."""
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
    return _finish(g.normal(_size((size,)), mean, std, _np(dtype)), requires_grad)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities `input` (or the scalar p)."""
    probs = input._data if p is None else p
    return make_tensor(_gen(generator).bernoulli(probs, input._data.shape, input._data.dtype))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(_gen(None).rand(shape, d), requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    shape, d = _like(input, dtype)
    return _finish(_gen(None).randn(shape, d), requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    shape, d = _like(input, dtype)
    return _finish(_gen(None).randint(low, high, shape, d), requires_grad)


# ---- legacy constructors ------------------------------------------------------------------

def legacy_new(cls, dtype, args, kwargs):
    """Tensor(3, 5) (uninitialized), Tensor([1, 2]) (copied data), Tensor() (empty)."""
    if kwargs.get("device") not in (None, "cpu"):
        from ._device import device
        device(kwargs["device"])
    if not args:
        data = np.empty((0,), dtype.np)
    elif all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        data = np.zeros(_size(args), dtype.np)   # PyTorch leaves it uninitialized
    elif len(args) == 1:
        src = args[0]
        if isinstance(src, Tensor):
            if src.dtype is not dtype:
                raise TypeError(f"expected {_dtype.tensor_type_name(dtype)} (got "
                                f"{_dtype.tensor_type_name(src.dtype)})")
            return src
        data = np.array(_infer_array(src), dtype=dtype.np)
    else:
        raise TypeError(f"new() received an invalid combination of arguments")
    t = make_tensor(data)
    if cls is not Tensor:
        sub = object.__new__(cls)
        for slot in ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc",
                     "_base", "_acc", "_extra"):
            setattr(sub, slot, getattr(t, slot))
        return sub
    return t


def _legacy(name, d):
    def new(*args, **kwargs):
        return legacy_new(Tensor, d, args, kwargs)
    new.__name__ = new.__qualname__ = name
    return new


FloatTensor = _legacy("FloatTensor", _dtype.float32)
DoubleTensor = _legacy("DoubleTensor", _dtype.float64)
HalfTensor = _legacy("HalfTensor", _dtype.float16)
LongTensor = _legacy("LongTensor", _dtype.int64)
IntTensor = _legacy("IntTensor", _dtype.int32)
ShortTensor = _legacy("ShortTensor", _dtype.int16)
CharTensor = _legacy("CharTensor", _dtype.int8)
ByteTensor = _legacy("ByteTensor", _dtype.uint8)
BoolTensor = _legacy("BoolTensor", _dtype.bool)

