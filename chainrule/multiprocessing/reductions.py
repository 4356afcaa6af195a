"""How tensors cross process boundaries in `chainrule.multiprocessing` (PyTorch's
torch.multiprocessing.reductions for CPU tensors): the tensor's storage is moved into
shared memory (see _shared.py) and the receiver maps the same memory, so both processes
see each other's writes. Registered with multiprocessing's ForkingPickler, which queues,
pipes and spawned processes' arguments use; plain `pickle` still copies the values."""
import warnings
from multiprocessing import reduction

import numpy as np

try:
    # loaded now, so that a process forked while a queue's feeder thread pickles does not
    # inherit a half-imported module (PyTorch does the same)
    import multiprocessing.resource_sharer  # noqa: F401
except ImportError:
    pass

from .._tensor import Tensor, make_tensor
from . import _shared

__all__ = ["reduce_tensor", "rebuild_tensor", "init_reductions"]


def reduce_tensor(tensor):
    """Pickle `tensor` by its shared memory (moved there first, as PyTorch does)."""
    if tensor._requires_grad and tensor._grad_fn is not None:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    extra = tensor._extra
    if extra is not None:
        for hook in extra.hooks.values():
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If "
                              "this is expected, you can decorate the function with "
                              "@torch.utils.hooks.unserializable_hook to suppress this warning",
                              stacklevel=2)
    _shared.share_tensor(tensor)
    # the class travels as a flag: chainrule's classes pickle under PyTorch's names
    is_parameter = type(tensor) is not Tensor
    a = tensor._data
    root = _shared._root(a)
    fd = _shared.fd_of(root)
    if fd is None:       # an empty storage: nothing to share
        return rebuild_empty, (is_parameter, a.shape, a.dtype, tensor._requires_grad)
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return rebuild_tensor, (is_parameter, reduction.DupFd(fd),
                            (root.shape, root.dtype, root.strides),
                            (a.shape, a.dtype, a.strides, offset), tensor._requires_grad)


def _finish(is_parameter, data, requires_grad):
    t = make_tensor(data)
    if is_parameter:
        from ..nn.parameter import Parameter
        return Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def rebuild_tensor(is_parameter, dup_fd, root_meta, meta, requires_grad):
    """The received tensor, over the sender's shared memory."""
    shape, dtype, strides = root_meta
    root = _shared.map_file(dup_fd.detach(), dtype.itemsize * _numel(shape), shape, dtype,
                            strides)
    shape, dtype, strides, offset = meta
    a = np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
    return _finish(is_parameter, a, requires_grad)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def rebuild_empty(is_parameter, shape, dtype, requires_grad):
    root = np.empty(shape, dtype)
    _shared._mark(root)
    return _finish(is_parameter, root, requires_grad)


def init_reductions():
    """Register the tensor reductions with multiprocessing's ForkingPickler."""
    from ..nn.parameter import Parameter
    reduction.register(Tensor, reduce_tensor)
    reduction.register(Parameter, reduce_tensor)
