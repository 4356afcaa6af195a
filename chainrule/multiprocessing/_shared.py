"""Shared memory for storages: what `Tensor.share_memory_()` does, and what a tensor sent
through a `chainrule.multiprocessing` queue travels in.

A storage is the NumPy array that owns a tensor's memory (its root; views reach it through
`.base`). Moving it into shared memory, as PyTorch does, means: allocate an anonymous shared
file (memfd on Linux), map it, copy the bytes, and make every chainrule tensor and storage
that uses the old root use the same place in the new one. The tensor being shared is often
the only user (a parameter), which a reference count shows at once; otherwise the live
objects are searched for the tensors and storages on that root. As in PyTorch, a NumPy array
the memory was shared with (`from_numpy`) keeps the old memory.

Processes started by fork see the mapping; other processes receive the file descriptor with
the pickled tensor (`multiprocessing.reduction.DupFd`, PyTorch's "file_descriptor" strategy)
and map the same memory."""
import gc
import mmap
import os
import sys
import tempfile
import weakref

import numpy as np

from .._storage import UntypedStorage, is_shared, share as _mark
from ..ops.views import _storage as _root

_FDS = {}          # id(root) -> file descriptor of its shared file
_BY_FILE = {}      # (st_dev, st_ino) -> weak reference to the root mapped from that file


def _new_file(nbytes):
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("chainrule-storage", os.MFD_CLOEXEC)
    else:
        with tempfile.TemporaryFile() as f:     # unlinked: it lives while descriptors do
            fd = os.dup(f.fileno())
    os.ftruncate(fd, nbytes)
    return fd


def _close(key, fd, file_key):
    _FDS.pop(key, None)
    _BY_FILE.pop(file_key, None)
    os.close(fd)


def map_file(fd, nbytes, shape, dtype, strides):
    """The root array over the `nbytes` of shared file `fd` (the descriptor is kept while
    the array lives)."""
    st = os.fstat(fd)
    file_key = (st.st_dev, st.st_ino)
    ref = _BY_FILE.get(file_key)
    root = ref() if ref is not None else None
    if root is not None:       # already mapped here: one storage, as PyTorch's shared cache
        os.close(fd)
        return root
    root = np.ndarray(shape, dtype, buffer=mmap.mmap(fd, nbytes), strides=strides)
    _FDS[id(root)] = fd
    _BY_FILE[file_key] = weakref.ref(root)
    weakref.finalize(root, _close, id(root), fd, file_key)
    _mark(root)
    return root


def fd_of(root):
    return _FDS.get(id(root))


def _moved(a, old, new):
    """Array `a` (a view into root `old`) as the same view into root `new`."""
    offset = a.__array_interface__["data"][0] - old.__array_interface__["data"][0]
    b = np.ndarray(a.shape, a.dtype, buffer=new, offset=offset, strides=a.strides)
    if not a.flags.writeable:
        b.flags.writeable = False
    return b


def share_tensor(tensor):
    """Move `tensor`'s storage into shared memory (nothing to do when it is there)."""
    root = _root(tensor._data)
    if is_shared(root):
        return
    # the tensor owning its root alone: references are its _data, `root` and the argument
    if tensor._data is root and sys.getrefcount(root) == 3:
        tensor._data = _new_root(root)
        return
    share_root(root)


def share_root(root):
    """Move storage `root` into shared memory, with every tensor and storage using it."""
    if is_shared(root):
        return
    from .._tensor import Tensor
    # type(o), not isinstance: some objects compute __class__ (with side effects)
    users = [o for o in gc.get_objects()
             if (issubclass(type(o), Tensor) and _root(o._data) is root)
             or (type(o) is UntypedStorage and o._owner is root)]
    new = _new_root(root)
    if new is root:
        return
    for o in users:
        if isinstance(o, Tensor):
            o._data = _moved(o._data, root, new)
        else:
            o._bytes = _moved(o._bytes, root, new)
            o._owner = new


def _new_root(root):
    """A copy of `root` in a new shared file (`root` itself, marked, when it is empty).
    Roots own their memory, so they are contiguous."""
    nbytes = root.nbytes
    if nbytes == 0:       # nothing to share: an empty storage counts as shared
        _mark(root)
        return root
    new = map_file(_new_file(nbytes), nbytes, root.shape, root.dtype, root.strides)
    new[...] = root
    return new
