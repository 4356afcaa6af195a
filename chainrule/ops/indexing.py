"""Indexing ops along one dim: index_select, index_add, gather, scatter_add (advanced
indexing, `x[idx]` and `x[idx] = v`, lives in advanced_indexing.py).

Note [Scatter kernels]
Adding rows into an array at repeated indices is the hot spot of graph networks.
`np.add.at` is unbuffered and slow; for floating data the kernels here turn every
destination element into one linear index and make a single `np.bincount` pass over all of
them (vectorized, no loop over rows or columns), falling back to `np.add.at` for integer and
complex data, where bincount's float64 weights do not fit.
"""
import numpy as np

from .._tensor import Tensor, make_tensor
from .._dims import wrap_dim
from .registry import op


def _index_array(index, size, err):
    """The index tensor's array, checked against `size` (err: 'select', 'add' or 'scatter')."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"Expected dtype int64 for index but got {idx.dtype}")
    if idx.size:
        lo, hi = idx.min(), idx.max()
        bad = hi if hi >= size else lo if lo < 0 else None
        if bad is not None:
            if err == "select":
                raise IndexError("index out of range in self")
            raise RuntimeError(f"index {bad} is out of bounds for dimension 0 with size {size}")
    return idx


def _accumulate(out, linear, values):
    """out.flat[linear] += values, with repeated indices summed (see Note [Scatter kernels])."""
    if out.dtype.kind == "f" and linear.size:
        add = np.bincount(linear, weights=values, minlength=out.size)
        out += add.reshape(out.shape).astype(out.dtype, copy=False)
    else:
        np.add.at(out.reshape(-1), linear, values)
    return out


def _same_dtype(name, a, src, src_name):
    if a.dtype != src.dtype:
        from .._dtype import FROM_NP
        raise RuntimeError(f"{name}(): self ({FROM_NP[a.dtype].legacy}) and {src_name} "
                           f"({FROM_NP[src.dtype].legacy}) must have the same scalar type")


def _index_add(a, source, dim, index, alpha):
    _same_dtype("index_add_", a, source, "source")
    dim = wrap_dim(dim, a.ndim)
    idx = _index_array(index, a.shape[dim] if a.ndim else 1, "add").reshape(-1)
    out = np.array(a, copy=True)
    src = source
    if alpha != 1:
        src = src * alpha
    if out.ndim == 0:
        return _accumulate(out.reshape(1), idx, src.reshape(-1)).reshape(())
    o = np.moveaxis(out, dim, 0)
    s = np.moveaxis(src.reshape(src.shape if src.ndim else (1,)), dim, 0)
    inner = int(np.prod(o.shape[1:], dtype=np.int64))
    linear = (idx[:, None] * inner + np.arange(inner)).reshape(-1)
    moved = np.ascontiguousarray(o)
    _accumulate(moved, linear, np.ascontiguousarray(s).reshape(-1))
    return np.moveaxis(moved, 0, dim)


def _zeros(shape, like):
    return make_tensor(np.zeros(shape, like._data.dtype))


index_add = op("index_add", "IndexAddBackward0", "self, dim, index, source, *, alpha=1",
               _index_add, inputs=("self", "source"), inplace="index_add_",
               self=lambda grad: grad,
               source=lambda grad, dim, index, source_shape, alpha: _scale(
                   grad.index_select(dim, index).reshape(source_shape), alpha))


def _scale(t, alpha):
    return t if alpha == 1 else t * alpha


def _index_select(a, dim, index):
    dim = wrap_dim(dim, a.ndim)
    idx = _index_array(index, a.shape[dim] if a.ndim else 1, "select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return np.take(a, idx.reshape(-1), axis=dim) if a.ndim else a.reshape(1)[idx.reshape(-1)].reshape(())


index_select = op("index_select", "IndexSelectBackward0", "self, dim, index", _index_select,
                  self=lambda grad, self_shape, dim, index: _zeros(self_shape, grad).index_add(
                      dim, index, grad))


def _scatter_linear(shape, dim, index):
    """Linear indices into an array of `shape` for scatter along `dim` at `index`."""
    coords = list(np.indices(index.shape, sparse=True))
    coords[dim] = index
    return np.ravel_multi_index(tuple(coords), shape).reshape(-1)


def _check_scatter_index(a, dim, idx):
    size = a.shape[dim] if a.ndim else 1
    if idx.size and (idx.max() >= size or idx.min() < 0):
        bad = idx.max() if idx.max() >= size else idx.min()
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _scatter_add(a, src, dim, index):
    if a.dtype != src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    _check_scatter_index(a, dim, idx)
    out = np.array(a, copy=True)
    if idx.size == 0:
        return out
    s = src[tuple(slice(0, n) for n in idx.shape)]
    return _accumulate(out, _scatter_linear(out.shape, dim, idx), np.ascontiguousarray(s).reshape(-1))


scatter_add = op("scatter_add", "ScatterAddBackward0", "self, dim, index, src", _scatter_add,
                 inputs=("self", "src"), inplace="scatter_add_",
                 self=lambda grad: grad,
                 src=lambda grad, dim, index: grad.gather(dim, index))


def _gather(a, dim, index, sparse_grad=False):
    dim = wrap_dim(dim, a.ndim)
    idx = index._data
    _check_scatter_index(a, dim, idx)
    region = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(idx.shape))
    return np.take_along_axis(a[region], idx, axis=dim)


gather = op("gather", "GatherBackward0", "self, dim, index, *, sparse_grad=False", _gather,
            self=lambda grad, self_shape, dim, index: _zeros(self_shape, grad).scatter_add(
                dim, index, grad))
