"""Storages: the memory behind tensors. A tensor's storage is the NumPy array that owns its
memory (views share it), seen as bytes (`UntypedStorage`) or as elements of a dtype
(`TypedStorage`, deprecated in PyTorch, and its legacy classes such as `FloatStorage`).
Storages share memory with their tensors: writing into one changes the other.

`share_memory_()` moves a storage into shared memory, with the tensors that use it
(chainrule/multiprocessing/_shared.py); `is_shared()` reports it."""
import weakref

import numpy as np

from . import _dtype

__all__ = ["UntypedStorage", "TypedStorage", "is_storage"]


def _root(a):
    from .ops.views import _storage
    return _storage(a)


def storage_offset(a):
    from .ops.views import storage_offset
    return storage_offset(a)


_SHARED = {}    # id of a root array -> weak reference to it, for roots marked shared


def share(a):
    root = _root(a)
    key = id(root)
    if key not in _SHARED:
        _SHARED[key] = weakref.ref(root, lambda _, key=key: _SHARED.pop(key, None))


def is_shared(a):
    root = _root(a)
    ref = _SHARED.get(id(root))
    return ref is not None and ref() is root


def _bytes_of(a):
    """The bytes of the storage behind array `a`, as a 1-D uint8 array sharing its memory."""
    root = _root(a)
    flat = root.reshape(-1, order="A")   # a view: storage roots are contiguous
    return flat.view(np.uint8) if flat.size else np.empty(0, np.uint8)


def _warn_typed_storage(stacklevel=2):
    # PyTorch warns once per process
    if _warned[0]:
        return
    _warned[0] = True
    import warnings
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage directly, "
                  "use tensor.untyped_storage() instead of tensor.storage()", UserWarning,
                  stacklevel=stacklevel + 1)


_warned = [False]


def _new_bytes(args, name):
    if not args:
        return np.empty(0, np.uint8)
    if len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
        return np.zeros(args[0], np.uint8)     # PyTorch leaves new storage uninitialized
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return np.array(args[0], np.uint8)
    raise TypeError(f"{name}(): could not construct a storage from these arguments")


class UntypedStorage:
    """Raw bytes on the CPU, shared with the tensors that use them."""
    __module__ = "torch.storage"
    is_cuda = False
    is_hpu = False
    is_sparse = False
    is_sparse_csr = False

    def __init__(self, *args, device=None):
        if device is not None:
            from ._device import use
            use(device)
        self._bytes = _new_bytes(args, "UntypedStorage")
        self._owner = self._bytes

    @classmethod
    def _of(cls, a):
        s = object.__new__(cls)
        s._bytes = _bytes_of(a)
        s._owner = _root(a)
        return s

    @property
    def device(self):
        from ._device import cpu
        return cpu

    def get_device(self):
        return -1

    def size(self):
        return self._bytes.size

    def nbytes(self):
        return self._bytes.size

    def __len__(self):
        return self._bytes.size

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes.__array_interface__["data"][0]

    def tolist(self):
        return self._bytes.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            s = object.__new__(UntypedStorage)
            s._bytes = self._bytes[idx]
            s._owner = self._owner
            return s
        return int(self._bytes[idx])

    def __setitem__(self, idx, value):
        self._bytes[idx] = value

    def fill_(self, value):
        self._bytes[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        self._bytes[...] = source._bytes
        return self

    def clone(self):
        s = object.__new__(type(self))
        s._bytes = self._bytes.copy()
        s._owner = s._bytes
        return s

    def cpu(self):
        return self

    def is_pinned(self, device="cuda"):
        return False

    def pin_memory(self, device="cuda"):
        from ._device import NO_ACCELERATOR
        raise RuntimeError(NO_ACCELERATOR)

    def is_shared(self):
        return is_shared(self._owner)

    def share_memory_(self):
        from .multiprocessing._shared import share_root
        share_root(self._owner)
        return self

    def untyped(self):
        return self

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        head = f"[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"
        if not len(self):
            return head
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + head

    __str__ = __repr__


class TypedStorage:
    """A storage seen as elements of one dtype (deprecated in PyTorch, which warns once)."""
    __module__ = "torch.storage"
    is_cuda = False
    is_hpu = False
    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        _warn_typed_storage()
        dtype = dtype or _dtype.get_default_dtype()
        if device is not None:
            from ._device import use
            use(device)
        if wrap_storage is not None:
            self._untyped = wrap_storage
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            self._untyped = UntypedStorage(args[0] * dtype.itemsize)
        else:
            data = np.array(args[0] if args else [], dtype.np)
            self._untyped = object.__new__(UntypedStorage)
            self._untyped._bytes = data.view(np.uint8)
            self._untyped._owner = data
        self._dtype = dtype

    @classmethod
    def _of(cls, a, dtype):
        s = object.__new__(cls)
        s._untyped = UntypedStorage._of(a)
        s._dtype = dtype
        return s

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        from ._device import cpu
        return cpu

    def get_device(self):
        return -1

    def _elements(self):
        b = self._untyped._bytes
        n = b.size // self._dtype.itemsize
        return b[:n * self._dtype.itemsize].view(self._dtype.np)

    def untyped(self):
        return self._untyped

    def size(self):
        return self._untyped._bytes.size // self._dtype.itemsize

    def __len__(self):
        return self.size()

    def nbytes(self):
        return self._untyped.nbytes()

    def element_size(self):
        return self._dtype.itemsize

    def data_ptr(self):
        return self._untyped.data_ptr()

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elements()[idx].item()

    def __setitem__(self, idx, value):
        self._elements()[idx] = value

    def fill_(self, value):
        self._elements()[...] = value
        return self

    def is_shared(self):
        return self._untyped.is_shared()

    def share_memory_(self):
        self._untyped.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        return False

    def cpu(self):
        return self

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        _warn_typed_storage()
        head = (f"[torch.storage.TypedStorage(dtype={self._dtype!r}, device=cpu) of size "
                f"{len(self)}]")
        return " " + "\n ".join(str(v) for v in self.tolist()) + "\n" + head

    __str__ = __repr__


def _legacy_class(d):
    def __new__(cls, *args, **kwargs):
        # PyTorch's legacy classes make TypedStorages of their dtype
        s = object.__new__(TypedStorage)
        TypedStorage.__init__(s, *args, dtype=d, **kwargs)
        return s
    return type(f"{d.legacy}Storage", (TypedStorage,), {"__new__": __new__, "__module__": "torch"})


_LEGACY = {d: _legacy_class(d) for d in _dtype.ALL}
LEGACY_NAMES = {cls.__name__: cls for cls in _LEGACY.values()}


def legacy_storage_class(d):
    """torch.FloatStorage and friends: the legacy storage class of dtype `d`."""
    return _LEGACY[d]


def is_storage(obj):
    """Whether `obj` is a storage."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# torch.Storage: the legacy name of the default float storage class
Storage = LEGACY_NAMES["FloatStorage"]
