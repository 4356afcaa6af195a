"""Tensors over other libraries' memory, as PyTorch makes them: asarray, frombuffer,
from_file, from_dlpack and DLPack export (Tensor.__dlpack__), and the NumPy protocol
(__array__, __array_wrap__, __array_priority__: NumPy ufuncs applied to tensors return
tensors, NumPy arrays on the left of an operator defer to the tensor, which refuses them).

Sharing follows PyTorch: a NumPy array, a buffer or a DLPack producer of the right dtype is
aliased, never copied, unless copy=True asks for it; DLPack goes through NumPy's own DLPack
support (np.from_dlpack, ndarray.__dlpack__), so a capsule made here is NumPy's.
"""
import ctypes
import enum
import os
import warnings

import numpy as np

from . import _creation, _dtype
from ._device import as_device, check_factory
from ._dtype import FROM_NP
from ._tensor import Tensor, make_tensor, strided

__all__ = ["asarray", "frombuffer", "from_file", "from_dlpack"]

_once = set()


def _warn_once(key, message, stacklevel=3):
    """A TORCH_WARN_ONCE warning: said once per process."""
    if key not in _once:
        _once.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)


# ---- NumPy arrays ---------------------------------------------------------------------------

def from_numpy_checked(a, warn_if_not_writeable=True):
    """tensor_from_numpy's checks of array `a`, in its order: PyTorch's once-per-process
    warning for a read-only array, then strides (whole elements, none negative), byte order
    and dtype. Returns `a`."""
    if warn_if_not_writeable and not a.flags.writeable:
        _warn_once("numpy", "The given NumPy array is not writable, and PyTorch does not "
                   "support non-writable tensors. This means writing to this tensor will "
                   "result in undefined behavior. You may want to copy the array to protect "
                   "its data or make it writable before converting it to a tensor. This type "
                   "of warning will be suppressed for the rest of this program.", 4)
    size = a.itemsize
    if size and any(s % size for s in a.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if any(s < 0 for s in a.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and "
                         "tensors with negative strides are not currently supported. (You can "
                         "probably work around this by making a copy of your array  with "
                         "array.copy().) ")
    if not a.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    if a.dtype.isbuiltin != 1 or a.dtype not in FROM_NP:
        _dtype.from_numpy_dtype(a.dtype)     # PyTorch's TypeError for the dtype
    return a if a.flags.writeable else _writable(a)


# ---- buffers ----------------------------------------------------------------------------------

def _buffer(obj):
    """A writable memoryview of obj's buffer, else a read-only one (after PyTorch's
    once-per-process warning); PyTorch's errors for objects without a (contiguous) buffer."""
    try:
        view = memoryview(obj)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    if view.readonly:
        _warn_once("buffer", "The given buffer is not writable, and PyTorch does not support "
                   "non-writable tensors. This means you can write to the underlying "
                   "(supposedly non-writable) buffer using the tensor. You may want to copy "
                   "the buffer to protect its data or make it writable before converting it "
                   "to a tensor. This type of warning will be suppressed for the rest of this "
                   "program.", 5)
    return view.cast("B") if view.ndim != 1 or view.format != "B" else view


def _frombuffer(obj, dtype, count, offset, requires_grad):
    """tensor_frombuffer: the buffer's bytes from `offset`, `count` elements of `dtype` (all
    that fit when count < 0), sharing its memory."""
    view = _buffer(obj)
    size = dtype.itemsize
    length = view.nbytes
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count <= 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({size})")
    n = (length - offset) // size if count < 0 else count
    if offset + n * size > length:
        raise ValueError(f"requested buffer length ({n} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    a = np.frombuffer(view, dtype=dtype.np, count=n, offset=offset)
    return _creation._finish(a if a.flags.writeable else _writable(a), requires_grad)


def frombuffer(*args, dtype=None, count=-1, offset=0, requires_grad=False, **kwargs):
    """A 1-D tensor over an object's buffer (bytes, bytearray, array.array, memoryview,
    mmap...), sharing its memory: `count` elements of `dtype` from byte `offset`."""
    if kwargs:
        raise TypeError(f"frombuffer() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) != 1:
        if not args:
            raise TypeError('frombuffer() missing 1 required positional arguments: "buffer"')
        raise TypeError(f"frombuffer() takes from 2 to 1 positional arguments but {len(args)} "
                        "were given")
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    for name, v in (("count", count), ("offset", offset)):
        if _creation._as_index(v) is None:
            raise TypeError(f"frombuffer(): argument '{name}' must be int, not "
                            f"{_creation._arg_type(v)}")
    return _frombuffer(args[0], dtype, int(count), int(offset), requires_grad)


# ---- files ------------------------------------------------------------------------------------

def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False):
    """`size` elements of `dtype` read from a file through a memory map: private
    (copy-on-write) by default, shared with the file when shared=True (writes reach the file,
    which is created or grown to fit)."""
    if not isinstance(filename, (str, bytes)):
        raise TypeError("from_file(): argument 'filename' (position 1) must be str, not "
                        f"{_creation._arg_type(filename)}")
    if _creation._as_index(size) is None:
        raise TypeError(f"from_file(): argument 'size' must be int, not "
                        f"{_creation._arg_type(size)}")
    check_factory(device, "empty")
    if pin_memory:
        raise RuntimeError("tensors constructed from a file cannot be pinned")
    d = dtype or _dtype.get_default_dtype()
    size = int(size)
    nbytes = size * d.itemsize
    name = os.fsdecode(filename)
    mode = "read-write" if shared else "read-only"
    try:
        fd = os.open(name, os.O_RDWR | os.O_CREAT if shared else os.O_RDONLY, 0o600)
    except OSError as e:
        raise RuntimeError(f"unable to open file <{name}> in {mode} mode: {e.strerror} "
                           f"({e.errno})") from None
    if nbytes < 0 or os.path.isdir(name):
        os.close(fd)
        reason = (12, "Cannot allocate memory") if nbytes < 0 else (19, "No such device")
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{name}>: {reason[1]} "
                           f"({reason[0]})")
    with os.fdopen(fd, "r+b" if shared else "rb") as f:
        file_size = os.fstat(fd).st_size
        if file_size < nbytes:
            if not shared:
                raise RuntimeError(f"file <{name}> size <{file_size}> is smaller than the "
                                   f"required mapping size <{nbytes}>")
            f.truncate(nbytes)
        if nbytes == 0:
            data = np.empty(0, d.np)
        else:
            # a plain ndarray over the map (np.memmap keeps it alive through .base)
            data = np.memmap(f, dtype=d.np, mode="r+" if shared else "c",
                             shape=(size,)).view(np.ndarray)
    return _creation._finish(data, requires_grad)


# ---- DLPack -----------------------------------------------------------------------------------

_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]

_BAD_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                "consumed only once, so you might have already constructed a tensor from it "
                "once.")


class _Capsule:
    """A DLPack capsule presented as a producer, for np.from_dlpack."""
    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def _from_capsule(capsule):
    """torch._C._from_dlpack: the tensor over a DLPack capsule's memory (consuming it)."""
    if not any(_capsule_valid(capsule, name) for name in (b"dltensor_versioned", b"dltensor")):
        raise RuntimeError(_BAD_CAPSULE)
    a = np.from_dlpack(_Capsule(capsule))
    return make_tensor(a if a.flags.writeable else _writable(a))


class _WritableAlias:
    """The __array_interface__ of array `a` with its memory marked writable; NumPy keeps
    this object (and so `a`) alive as the base of the array it makes from it."""
    __slots__ = ("array", "__array_interface__")

    def __init__(self, a):
        self.array = a
        interface = dict(a.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def _writable(a):
    """PyTorch has no read-only tensors: read-only memory (a read-only NumPy array or
    buffer; a DLPack capsule, all unversioned ones in NumPy's reading) is aliased writable,
    as PyTorch aliases it (after its warning that writes reach the memory)."""
    if a.dtype.isbuiltin != 1:
        return a
    return np.asarray(_WritableAlias(a))


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor over the memory of a DLPack producer (an object with __dlpack__: NumPy
    arrays, tensors of other libraries) or of a DLPack capsule, without copying."""
    if hasattr(ext_tensor, "__dlpack__"):
        kwargs = {"max_version": (1, 0)}
        if copy is not None:
            kwargs["copy"] = copy
        ext_device = ext_tensor.__dlpack_device__()
        if device is not None:
            target = as_device(device)
            if target.type != "cpu":
                if copy is False:
                    raise ValueError(f"cannot move DLPack tensor from device {ext_device} to "
                                     f"{_dl_device(target)} without copying. Set copy=None or "
                                     "copy=True.")
                check_factory(target, "copy")
            kwargs["dl_device"] = _dl_device(target)
        capsule, producer_copied = None, True
        for drop in ((), ("max_version",), ("copy",), ("dl_device",)):
            for key in drop:
                kwargs.pop(key, None)
                producer_copied = producer_copied and key != "copy"
            try:
                capsule = ext_tensor.__dlpack__(**kwargs)
                break
            except TypeError:
                if drop == ("dl_device",):
                    raise
        tensor = _from_capsule(capsule)
        if copy is True and not producer_copied:
            tensor = tensor.clone()
        return tensor
    if device is not None or copy is not None:
        raise AssertionError("device and copy kwargs not supported when ext_tensor is already "
                             "a DLPack capsule.")
    return _from_capsule(ext_tensor)


def _dl_device(d):
    return (DLDeviceType.kDLCPU, 0) if d.type == "cpu" else (d.type, d.index or 0)


def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule over this tensor's memory (NumPy's exporter), versioned when the
    consumer's max_version allows."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if self.is_conj():
        raise BufferError("Can't export tensors with the conjugate bit set")
    if self.layout is not strided:
        raise BufferError("Can't export tensors with layout other than torch.strided")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    if dl_device is not None and tuple(dl_device) != (1, 0):
        raise BufferError(f"chainrule tensors live on the CPU: no export to DLPack device "
                          f"{tuple(dl_device)}")
    return _export(self._data, max_version, copy)


def _export(a, max_version=None, copy=None):
    if max_version is None or max_version[0] < 1:
        return a.__dlpack__() if copy is None else a.__dlpack__(copy=copy)
    return a.__dlpack__(max_version=tuple(max_version), copy=copy)


def __dlpack_device__(self):
    """(DLDeviceType.kDLCPU, 0): where DLPack consumers find this tensor."""
    return (DLDeviceType.kDLCPU, 0)


# ---- asarray ----------------------------------------------------------------------------------

def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """`obj` (a tensor, NumPy array or scalar, DLPack capsule, buffer, or nested sequence of
    numbers) as a tensor: aliased when it can be and copy is not True, copied when copy=True
    or when the dtype or device must change (an error when copy=False)."""
    tensor = obj if isinstance(obj, Tensor) else None
    return_rg = requires_grad if requires_grad is not None else (
        tensor is not None and tensor.requires_grad)
    if return_rg and requires_grad is None:
        _warn_once("asarray", "torch.asarray: unspecified requires_grad now defaults to "
                   "obj.requires_grad instead of False. Pass requires_grad=False explicitly to "
                   "get the old behavior and silence this warning.")
    force_copy, force_alias = copy is True, copy is False
    not_writable = False
    if tensor is None and isinstance(obj, (np.ndarray, np.generic)):
        if isinstance(obj, np.generic):
            if force_alias:
                raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or "
                                   "transform it in a ndarray. ")
            obj = np.asarray(obj)
        tensor = make_tensor(from_numpy_checked(obj, False))
        not_writable = not obj.flags.writeable
        if obj.ndim == 0:       # scalars and 0-d arrays are cloned, never aliased
            tensor = make_tensor(obj.copy())
            force_copy = False
    if tensor is None and type(obj).__name__ == "PyCapsule":
        tensor = _from_capsule(obj)
    if tensor is None and _has_buffer(obj):
        tensor = _frombuffer(obj, dtype or _dtype.get_default_dtype(), -1, 0, return_rg)
    if tensor is None:
        if force_alias:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        if device is not None:
            check_factory(device, "copy")
        if hasattr(obj, "__dlpack__"):
            tensor = from_dlpack(obj).to(dtype) if dtype is not None else from_dlpack(obj)
        else:
            a = _creation._infer_array(obj, dtype)
            tensor = make_tensor(np.array(a, dtype=None if dtype is None else dtype.np))
        return _set_requires_grad(tensor, return_rg)
    wrong_device = device is not None and str(as_device(device)) != "cpu"
    wrong_dtype = dtype is not None and dtype is not tensor.dtype
    if force_copy or (copy is None and (wrong_device or wrong_dtype)):
        if wrong_device:
            d = as_device(device)
            if d.type != "cpu":
                _device_error(d)
        if wrong_dtype:
            tensor = tensor.to(dtype, copy=force_copy)
        else:
            tensor = tensor.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{tensor.device}' to "
                             f"'{as_device(device)}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{tensor.dtype.legacy}' into dtype "
                             f"'{dtype.legacy}'.")
        if not_writable:
            from_numpy_checked(obj)
    if tensor._grad_fn is not None and not return_rg:
        return tensor.detach()
    return _set_requires_grad(tensor, return_rg)


def _device_error(d):
    """at::to's error for a device the CPU build has no backend for (no lazy init)."""
    if d.type == "meta":
        check_factory(d, "copy")
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


def _set_requires_grad(tensor, requires_grad):
    """set_requires_grad, in place, as PyTorch's C++ sets it (its wording for other
    dtypes)."""
    if tensor._grad_fn is None:
        tensor._set_requires_grad(requires_grad, "Only Tensors of floating point and complex "
                                                 "dtype can require gradients")
    return tensor


def _has_buffer(obj):
    if isinstance(obj, (str, list, tuple, int, float, complex)):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True



# ---- the NumPy protocol -----------------------------------------------------------------------

def __array__(self, dtype=None):
    # PyTorch's signature (no copy=): NumPy warns when asked for copy=, as it does for torch
    if dtype is None:
        return self.numpy()
    return self.numpy().astype(dtype, copy=False)


def __array_wrap__(self, array):
    # NumPy ufuncs over tensors give tensors (bool results as uint8, as PyTorch's)
    if array.dtype == bool:
        array = array.astype("uint8")
    return _creation.from_numpy(array)


for _f in (__array__, __array_wrap__, __dlpack__, __dlpack_device__):
    _f.__qualname__ = f"Tensor.{_f.__name__}"
Tensor.__array__ = __array__
Tensor.__array_wrap__ = __array_wrap__
Tensor.__array_priority__ = 1000      # prefer Tensor ops over NumPy's
Tensor.__dlpack__ = __dlpack__
Tensor.__dlpack_device__ = __dlpack_device__


class DLDeviceType(enum.IntEnum):
    """DLPack's device types."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


DLDeviceType.__module__ = "torch.utils.dlpack"


def to_dlpack(tensor):
    """An unversioned DLPack capsule over the tensor's memory (the legacy interface: no
    requires-grad check, as PyTorch's)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{_creation._arg_type(tensor)}")
    return _export(tensor._data)
