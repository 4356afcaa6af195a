"""Advanced indexing: `index` (IndexBackward0), what `x[idx]` calls once the basic parts of
idx are applied as views (shape.py), and `index_put` / `index_put_` (IndexPutBackward0),
what `x[idx] = v` calls.

Note [Advanced indexing]
Both ops take one optional index tensor per leading dim of self (None: the dim is not
indexed; trailing dims may be left out), as `aten::index(Tensor self, Tensor?[] indices)`.
Index tensors are int64 or int32; a bool (or deprecated uint8) mask stands for the
coordinates of its nonzero elements over as many dims as it has. The index tensors
broadcast together to one shape B, which replaces the indexed dims in the result: in
place when the indexed dims are adjacent, else in front (NumPy's rule, so a NumPy key of
index arrays and full slices computes it). PyTorch's checks run in its order: number of
indices, index dtypes, mask shapes, broadcasting, indexed dims of size 0, and, for
index_put, the values' shape and dtype; an index out of bounds is reported for the first
element (in the order of B) and the first indexed dim where it fails, unless the result
is empty. index_put without accumulate, of one element through a single mask, is
PyTorch's masked_fill_ fast path, with its own rules (no dtype check, bool masks only).
"""
import math
import warnings

import numpy as np

from .._dims import sizes_str, wrap_dim
from .._dtype import FROM_NP
from .binding import declare
from .indexing import _accumulate, _zeros
from .inplace import make_inplace
from .registry import _RELEASED, OpNode, op, public

_INDEX_DTYPES = frozenset(np.dtype(t) for t in (np.int64, np.int32, np.uint8, np.bool_))
_BOOL, _UINT8 = np.dtype(np.bool_), np.dtype(np.uint8)


def _too_many(ndim, n):
    return IndexError(f"too many indices for tensor of dimension {ndim} (got {n})")


def _mask_error(mask_shape, j, shape, dim):
    return IndexError(f"The shape of the mask {sizes_str(mask_shape)} at index {j} does not match "
                      f"the shape of the indexed tensor {sizes_str(shape)} at index {dim}")


def _check_mask(mask, start, shape):
    """A mask covering dims start.. of `shape` must have their sizes."""
    for j, n in enumerate(mask.shape):
        if n != shape[wrap_dim(start + j, len(shape))]:
            raise _mask_error(mask.shape, j, shape, start + j)


def _arrays(shape, indices):
    """PyTorch's make_info up to the kernel (Note [Advanced indexing]): the index arrays,
    one per dim or None, masks replaced by their nonzero coordinates, and their broadcast
    shape B."""
    if len(indices) > len(shape):
        raise _too_many(len(shape), len(indices))
    for t in indices:
        if t is not None and t._data.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    idx = []
    for t in indices:
        a = None if t is None else t._data
        if a is None or (a.dtype is not _BOOL and a.dtype is not _UINT8):
            idx.append(a)
            continue
        if a.dtype is _UINT8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                          "torch.bool instead.", UserWarning, stacklevel=4)
        _check_mask(a, len(idx), shape)
        if a.ndim:        # a 0-d mask indexes no dim
            idx.extend(np.nonzero(a))
    shapes = [a.shape for a in idx if a is not None]
    if len(shapes) == 1:
        b = shapes[0]
    else:
        try:
            b = np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(sizes_str(s) for s in shapes)) from None
    if 0 not in b and any(a is not None and shape[d] == 0 for d, a in enumerate(idx)):
        raise IndexError("index is out of bounds for dimension with size 0")
    return idx, b


def _key(idx):
    return tuple(slice(None) if a is None else a for a in idx)


def _result_shape(shape, idx, b):
    """The shape of the indexing result: B in place of the indexed dims when they are
    adjacent, else in front."""
    adv = [d for d, a in enumerate(idx) if a is not None]
    if not adv:
        return shape
    first, last = adv[0], adv[-1]
    if last - first + 1 == len(adv):
        return shape[:first] + tuple(b) + shape[last + 1:]
    return tuple(b) + tuple(n for d, n in enumerate(shape) if d >= len(idx) or idx[d] is None)


def _out_of_bounds(shape, idx, b):
    """Raise PyTorch's error for the first index out of bounds, unless the result is empty
    (PyTorch's kernel then reads no index)."""
    if 0 in _result_shape(shape, idx, b):
        return
    defined = [(d, np.broadcast_to(a, b).reshape(-1)) for d, a in enumerate(idx) if a is not None]
    bad = np.stack([(a < -shape[d]) | (a >= shape[d]) for d, a in defined])
    where = bad.any(axis=0)
    if not where.any():
        return
    pos = int(where.argmax())
    j = int(bad[:, pos].argmax())
    d, a = defined[j]
    raise IndexError(f"index {a[pos]} is out of bounds for dimension {j} with size {shape[d]}")


def _index(a, indices):
    idx, b = _arrays(a.shape, indices)
    key = _key(idx)
    if not any(x is not None for x in idx):
        return a.copy()
    try:
        out = a[key]
    except IndexError:
        _out_of_bounds(a.shape, idx, b)
        return np.empty(_result_shape(a.shape, idx, b), a.dtype)
    # PyTorch's result of a contiguous self is contiguous; NumPy's may be in another order
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


def _linear(shape, idx, b, result):
    """The flat (C order) position in self of every element of the indexing result."""
    strides, s = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d], s = s, s * shape[d]
    flat = 0
    for d, a in enumerate(idx):
        if a is not None:
            flat = flat + np.where(a < 0, a + shape[d], a).astype(np.int64) * strides[d]
    # the result's dims in order: the dims not indexed, with B (None) in front or in place
    adv = [d for d, a in enumerate(idx) if a is not None]
    rest = [d for d in range(len(shape)) if d >= len(idx) or idx[d] is None]
    at = adv[0] if adv[-1] - adv[0] + 1 == len(adv) else 0
    dims = rest[:at] + [None] + rest[at:]
    lin, pos = 0, 0
    for d in dims:
        if d is None:
            lin = lin + np.reshape(flat, tuple(b) + (1,) * (len(result) - pos - len(b)))
            pos += len(b)
        else:
            lin = lin + (np.arange(shape[d], dtype=np.int64) * strides[d]).reshape(
                (-1,) + (1,) * (len(result) - pos - 1))
            pos += 1
    return np.broadcast_to(lin, result).reshape(-1)


def scalar_value(value, dtype):
    """A Python number as a 0-d array of `dtype`, with the overflow check of PyTorch's
    Scalar.to<T> (setitem's value, masked_fill_'s): integers wrap into uint8 from -255 on,
    floats and complex numbers with no imaginary part must fit, float16 and bool take
    anything."""
    kind = dtype.kind
    if isinstance(value, complex) and kind not in "cb":
        if value.imag != 0:
            _overflow(dtype)
        value = value.real
    if kind in "iu":
        low, high = _INT_RANGES[dtype]
        if isinstance(value, float):
            if not low <= value <= high:    # nan and inf too
                _overflow(dtype)
        elif not (-255 if kind == "u" else low) <= value <= high:
            _overflow(dtype)
        return np.asarray(value).astype(dtype)     # truncates, wraps into uint8
    if kind == "f" and dtype.itemsize < 8:
        if dtype.itemsize == 2:
            with np.errstate(over="ignore"):     # becomes inf
                return np.asarray(value, dtype)
        if isinstance(value, float) and math.isfinite(value) and abs(value) > _FLOAT32_MAX:
            _overflow(dtype)
    return np.asarray(value, dtype)


_INT_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32,
                         np.uint64)}
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _overflow(dtype):
    from .linalg import _SCALAR_CTYPE
    raise RuntimeError(f"value cannot be converted to type {_SCALAR_CTYPE[dtype]} without overflow")


def _fill_mask(shape, indices):
    """PyTorch's canDispatchToMaskedFill: the mask, shaped to broadcast against self, when the
    indices are a single mask (after dims not indexed); else None."""
    mask, dims = None, 0
    for t in indices:
        if t is None:
            dims += 1
            continue
        a = t._data
        if (a.dtype is not _BOOL and a.dtype is not _UINT8) or mask is not None:
            return None
        _check_mask(a, dims, shape)
        mask = a
        dims += a.ndim
    if mask is None:
        return None
    if mask.dtype is _UINT8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    return mask.reshape(mask.shape + (1,) * (len(shape) - dims))


def _expandable(shape, to):
    if len(shape) > len(to):
        return False
    return all(n == 1 or n == m for n, m in zip(shape[::-1], to[::-1]))


def _index_put(a, values, indices, accumulate):
    if len(indices) > a.ndim:
        raise _too_many(a.ndim, len(indices))
    if not accumulate and values.size == 1:
        mask = _fill_mask(a.shape, indices)
        if mask is not None:
            out = a.copy()
            np.copyto(out, scalar_value(values.reshape(()).item(), a.dtype), where=mask)
            return out
    idx, b = _arrays(a.shape, indices)
    result = _result_shape(a.shape, idx, b)
    if not _expandable(values.shape, result):
        raise RuntimeError(f"shape mismatch: value tensor of shape {sizes_str(values.shape)} "
                           f"cannot be broadcast to indexing result of shape {sizes_str(result)}")
    if values.dtype != a.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{FROM_NP[a.dtype].legacy} for the destination and "
                           f"{FROM_NP[values.dtype].legacy} for the source.")
    out = a.copy()
    if not any(x is not None for x in idx):
        out[...] = values
        return out
    if accumulate:
        if 0 in result:
            return out
        if any(x is not None and x.size and (x.min() < -n or x.max() >= n)
               for x, n in zip(idx, a.shape)):
            _out_of_bounds(a.shape, idx, b)
        flat = np.ascontiguousarray(np.broadcast_to(values, result)).reshape(-1)
        return _accumulate(out, _linear(a.shape, idx, b, result), flat)
    try:
        out[_key(idx)] = values
    except IndexError:
        _out_of_bounds(a.shape, idx, b)
    return out


# indices: a tuple of optional index tensors (Note [Advanced indexing]). The gradient of
# index is _index_put_impl_ with accumulate into zeros (IndexPutImplBackward0, as PyTorch's
# index_backward), and index_put's is index: rows all, so gradients of any order follow.
index = op("index", "IndexBackward0", "self, indices", _index, function=False, method=False,
           self=lambda grad, self_shape, indices: _index_put_impl(
               _zeros(self_shape, grad), indices, grad, True))

_SIGNATURE = "self, indices, values, accumulate=False"
_FORMULAS = dict(
    self=lambda grad, indices, values_shape, accumulate: grad if accumulate else _index_put_row(
        grad, indices, _zeros(values_shape, grad), False),
    values=lambda grad, indices: index(grad, indices))
_index_put_row = op("index_put", "IndexPutBackward0", _SIGNATURE, _index_put,
                    inputs=("self", "values"), function=False, method=False, **_FORMULAS)
_index_put_impl = op("_index_put_impl_", "IndexPutImplBackward0", _SIGNATURE, _index_put,
                     inputs=("self", "values"), function=False, method=False, **_FORMULAS)
_index_put_inplace = make_inplace(_index_put_row.op, _SIGNATURE, None)


def _release(self):
    # PyTorch saves the index tensors as SavedVariables: freed after backward, too
    OpNode._release(self)
    if "indices" in self._saved:
        self._saved["indices"] = _RELEASED


for _row in (index, _index_put_row, _index_put_impl):
    _row.op.node_cls._release = _release


@public("index_put")
def index_put(input, indices, values, accumulate=False):
    """A copy of `input` with `values` put at `indices` (a tuple of index tensors or masks, one
    per leading dim), summed into it with accumulate=True (repeated indices add up)."""
    return _index_put_row(input, tuple(indices), values, accumulate)


@public("index_put_")
def index_put_(input, indices, values, accumulate=False):
    """index_put, in place."""
    return _index_put_inplace(input, tuple(indices), values, accumulate)


# Note [Argument parser checks]
declare(*(f"{name}(Tensor input, Tensor[] indices, Tensor values, bool accumulate=False)"
          for name in ("index_put", "index_put_")))
