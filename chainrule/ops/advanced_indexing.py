"""Advanced indexing: `x[idx]` (IndexBackward0) and `x[idx] = v` / index_put
(IndexPutBackward0), where idx holds integer or boolean tensors, lists or arrays."""
import numpy as np

from .._tensor import Tensor, make_tensor
from .._dims import sizes_str
from .registry import op
from .indexing import _zeros


def _index(a, index):
    idx = index._data
    n = a.shape[0]
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
    return a[idx]


index = op("index", "IndexBackward0", "self, indices", _index, function=False, method=False,
           self=lambda grad, self_shape, indices: _zeros(self_shape, grad).index_add(
               0, indices.reshape(-1) % self_shape[0],
               grad.reshape((-1,) + tuple(self_shape[1:]))))


def index_by_tensor(self, idx):
    """`self[idx]` for an integer tensor/list or a 1-D bool mask indexing the first dim."""
    if not isinstance(idx, Tensor):
        idx = make_tensor(np.asarray(idx))
        if idx._data.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if idx._data.dtype.kind == "b":
        if idx._data.ndim != 1:
            raise NotImplementedError("chainrule indexes with 1-D boolean masks only, so far")
        if idx._data.shape[0] != self._data.shape[0]:
            raise IndexError(f"The shape of the mask [{idx._data.shape[0]}] at index 0 does not "
                             f"match the shape of the indexed tensor [{self._data.shape[0]}] at "
                             "index 0")
        idx = make_tensor(np.flatnonzero(idx._data))
    elif idx._data.dtype.kind not in "iu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return index(self, idx)


def _index_put(a, values, indices, accumulate):
    if len(indices) != 1:
        raise NotImplementedError("chainrule's index_put takes a single index tensor, so far")
    idx = indices[0]._data
    if a.dtype != values.dtype:
        from .._dtype import FROM_NP
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{FROM_NP[a.dtype].legacy} for the destination and "
                           f"{FROM_NP[values.dtype].legacy} for the source.")
    out = np.array(a, copy=True)
    target = out[idx].shape
    try:
        values = np.broadcast_to(values, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {sizes_str(target)}") from None
    if accumulate:
        np.add.at(out, idx, values)
    else:
        out[idx] = values
    return out


index_put = op(
    "index_put", "IndexPutBackward0", "self, indices, values, accumulate=False", _index_put,
    inputs=("self", "values"), inplace="index_put_",
    self=lambda grad, indices, accumulate: grad if accumulate else index_put(
        grad, indices, make_tensor(np.zeros((), grad._data.dtype))),
    values=lambda grad, indices: grad[indices[0]])
