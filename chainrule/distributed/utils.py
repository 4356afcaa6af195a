"""Helpers of the distributed package (torch.distributed.utils has no public API)."""
import numpy as np

from .._tensor import make_tensor
from ..autograd import grad_mode
from . import distributed_c10d as c10d


def _broadcast_coalesced(tensors, process_group, src=0):
    """Copy the tensors' values on the group's rank src to every rank, in place: one
    broadcast per dtype, of all the tensors of that dtype packed into one buffer."""
    if process_group.size() == 1:
        return
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    with grad_mode.no_grad():
        for ts in by_dtype.values():
            flat = make_tensor(np.concatenate([t._data.reshape(-1) for t in ts]))
            c10d.broadcast(flat, group=process_group, group_src=src)
            start = 0
            for t in ts:
                t._data[...] = flat._data[start:start + t.numel()].reshape(t._data.shape)
                t._vc[0] += 1
                start += t.numel()
