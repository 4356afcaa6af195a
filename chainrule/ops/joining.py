"""Joining, splitting and broadcasting, built on the shape family's rows the way PyTorch
composes them (so graphs have PyTorch's nodes): broadcast_tensors/_to/_shapes, meshgrid,
atleast_1d/2d/3d, hstack/vstack/dstack/column_stack/row_stack, hsplit/vsplit/dsplit/
tensor_split, unsafe_split/_chunk/_split_with_sizes, rot90, repeat_interleave, block_diag,
cartesian_prod, combinations; and index helpers: tril_indices, triu_indices, unravel_index.
"""
import operator

import numpy as np

from .. import _dtype
from .._device import check_factory
from .._dims import sizes_str, wrap_dim
from .._dtype import FROM_NP
from .._tensor import Size, Tensor, contiguous_format, make_tensor
from .binding import Overloads, Signature, declare
from .registry import PROMOTE, op, public
from .shape import (_CAT_OUT, _one_int_tensor, _plain_ints, _required, _shape_args, _split,
                    _split_with_sizes, _tensor_list, _varargs, _warn_once, cat, clone, expand_,
                    flatten, reshape, slice_, stack, unbind, unsqueeze, view_)


def _type_name(x):
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _tensor_seq(fname, tensors):
    """A tuple/list of Tensors argument, with PyTorch's argument-parser errors."""
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {_type_name(tensors)}")
    return _tensor_list(tuple(tensors))


# ---- broadcasting -------------------------------------------------------------------------

def _infer_size(a, b):
    """PyTorch's infer_size: two shapes broadcast, with its error."""
    n = max(len(a), len(b))
    out = [0] * n
    for i in range(n - 1, -1, -1):
        off = n - 1 - i
        x = a[len(a) - 1 - off] if off < len(a) else 1
        y = b[len(b) - 1 - off] if off < len(b) else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out[i] = y if x == 1 else x
    return tuple(out)


@public("broadcast_tensors", method=False)
def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views; one already of that
    shape is returned as it is)."""
    tensors = _tensor_list(tensors)
    if not tensors:
        return ()
    shape = tensors[0]._data.shape
    for t in tensors[1:]:
        shape = _infer_size(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else expand_(t, shape) for t in tensors)


@public("broadcast_to", method=False)
def broadcast_to(input, size):
    """`input` expanded to `size` (a view; -1 keeps a dim)."""
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"broadcast_to(): argument 'size' (position 2) must be tuple of ints, "
                        f"not {type(size).__name__}")
    return expand_(input, _shape_args((size,)))


_BROADCAST_TO = Signature("broadcast_to(Tensor input, SymInt[] size)")


@public("broadcast_to", function=False)
def _broadcast_to_method(self, *size):
    if not (_plain_ints(size) or _one_int_tensor(size)):    # as the parser reads them
        _varargs(_BROADCAST_TO, self, size)
    return expand_(self, _required(size, "broadcast_to", "size"))


@public("broadcast_shapes", method=False)
def broadcast_shapes(*shapes):
    """The shape tensors of the given shapes broadcast to (PyTorch's _refs rules and
    messages)."""
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size(())
    for s in shapes:
        if not isinstance(s, (tuple, list, Size)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max(len(s) for s in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] != 1 and common[idx] != shape[idx]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                    f"Mismatching argument at index {arg_idx} had {shape}; but expected shape "
                    f"should be broadcastable to {common}")
    return Size(common)


# ---- meshgrid, cartesian_prod, combinations -----------------------------------------------

_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.")


@public("meshgrid", method=False)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d / 1-d tensors: grid i is tensor i viewed along dim i and
    expanded to the shape of all (views). indexing='ij' (the default) or 'xy' (the first
    two dims swapped)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]     # the old interface: one list of tensors
    tensors = _tensor_list(tuple(tensors))
    if indexing is None:
        _warn_once(_MESHGRID_WARNING)
        indexing = "ij"
    return _meshgrid(tensors, indexing)


def _meshgrid(tensors, indexing):
    size = len(tensors)
    if not size:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:]):
        if a._data.dtype != b._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    refs = list(tensors)
    swap = False
    if indexing == "xy":
        swap = size >= 2
        if swap:
            refs[0], refs[1] = refs[1], refs[0]
    elif indexing != "ij":
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    for t in refs:
        if t._data.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {_cpp_str(t)}")
    shape = tuple(t._data.size for t in refs)
    grids = []
    for i, t in enumerate(refs):
        view_shape = (1,) * i + (-1,) + (1,) * (size - i - 1)
        grids.append(expand_(view_(t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _check_1d(t):
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {sizes_str(t._data.shape)}")


@public("cartesian_prod", method=False)
def cartesian_prod(*tensors):
    """The cartesian product of 1-d tensors, one row per combination (itertools.product)."""
    tensors = _tensor_list(tensors)
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    return stack([flatten(g) for g in _meshgrid(tensors, "ij")], 1)


@public("combinations", method=False)
def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-d tensor's elements (itertools.combinations, or
    combinations_with_replacement), one per row."""
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return make_tensor(np.empty((0,), input._data.dtype))
    n = input._data.size
    grids = _meshgrid((input,) * r, "ij")
    # positions whose indices increase (weakly, with replacement) along the grid's dims
    index = np.indices((n,) * r, sparse=True)
    mask = np.ones((n,) * r, bool)
    compare = np.less_equal if with_replacement else np.less
    for a, b in zip(index, index[1:]):
        mask &= compare(a, b)
    mask = make_tensor(mask)
    return stack([g.masked_select(mask) for g in grids], 1)


# ---- atleast_nd ---------------------------------------------------------------------------

def _atleast(name, one):
    def atleast(*tensors):
        if len(tensors) == 1:
            tensors = tensors[0]
        if isinstance(tensors, Tensor):
            return one(tensors)
        if not isinstance(tensors, (tuple, list)) or not all(
                isinstance(t, Tensor) for t in tensors):
            got = type(tensors).__name__
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n * (Tensor input)\n      didn't match because some of the "
                f"arguments have invalid types: (!{got}!)\n * (tuple of Tensors tensors)\n      "
                f"didn't match because some of the arguments have invalid types: (!{got}!)\n")
        return tuple(one(t) for t in tensors)
    atleast.__name__ = name
    atleast.__doc__ = f"Each tensor viewed with at least {name[-2]} dims (a tuple for several)."
    return public(name, method=False)(atleast)


def _atleast_1d(t):
    return reshape(t, (1,)) if t._data.ndim == 0 else t


def _atleast_2d(t):
    n = t._data.ndim
    return reshape(t, (1, 1)) if n == 0 else unsqueeze(t, 0) if n == 1 else t


def _atleast_3d(t):
    n = t._data.ndim
    if n == 0:
        return reshape(t, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if n == 2 else t


atleast_1d = _atleast("atleast_1d", _atleast_1d)
atleast_2d = _atleast("atleast_2d", _atleast_2d)
atleast_3d = _atleast("atleast_3d", _atleast_3d)


# ---- hstack, vstack, dstack, column_stack -------------------------------------------------

def _nonempty(name, tensors, checked_as=None):
    tensors = _tensor_seq(checked_as or name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


@public("hstack", method=False, out=_CAT_OUT, out_name="cat")
def hstack(tensors):
    """Concatenate along dim 1 (dim 0 for 1-d tensors); 0-d tensors count as 1-d."""
    rep = [_atleast_1d(t) for t in _nonempty("hstack", tensors)]
    return cat(rep, 0 if rep[0]._data.ndim == 1 else 1)


@public("vstack", method=False, out=_CAT_OUT, out_name="cat")
def vstack(tensors):
    """Concatenate along dim 0, after making every tensor at least 2-d."""
    return cat([_atleast_2d(t) for t in _nonempty("vstack", tensors)], 0)


@public("row_stack", method=False, out=_CAT_OUT, out_name="cat")
def row_stack(tensors):
    """An alias of vstack."""
    return cat([_atleast_2d(t) for t in _nonempty("vstack", tensors, "row_stack")], 0)


@public("dstack", method=False, out=_CAT_OUT, out_name="cat")
def dstack(tensors):
    """Concatenate along dim 2, after making every tensor at least 3-d."""
    return cat([_atleast_3d(t) for t in _nonempty("dstack", tensors)], 2)


@public("column_stack", method=False, out=_CAT_OUT, out_name="cat")
def column_stack(tensors):
    """hstack, with 0-d and 1-d tensors made columns first."""
    tensors = _nonempty("column_stack", tensors)
    return hstack([reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors])


# ---- tensor_split, hsplit, vsplit, dsplit -------------------------------------------------

def _split_dims_check(self):
    n = self._data.ndim
    if n == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    return n


def _split_sections(self, sections, dim):
    dim = wrap_dim(dim, _split_dims_check(self))
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size = self._data.shape[dim]
    small, extra = divmod(size, sections)
    out, start = [], 0
    for i in range(sections):
        n = small + 1 if i < extra else small
        out.append(slice_(self, dim, start, start + n, 1))
        start += n
    return tuple(out)


def _split_indices(self, indices, dim):
    dim = wrap_dim(dim, _split_dims_check(self))
    out, start = [], 0
    for end in indices:
        out.append(slice_(self, dim, start, end, 1))
        start = end
    out.append(slice_(self, dim, start, self._data.shape[dim], 1))
    return tuple(out)


@public("tensor_split")
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of `input` along `dim`: `sections` pieces as equal as possible (the first ones
    one longer), or pieces between the given indices (a list, or a 0-d / 1-d int64 tensor)."""
    arg = next((a for a in (indices_or_sections, sections, indices, tensor_indices_or_sections)
                if a is not None), None)
    if isinstance(arg, Tensor):
        _split_dims_check(input)
        a = arg._data
        if a.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                               f"long, but got {FROM_NP[a.dtype].legacy}")
        if a.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {a.ndim} dims")
        if a.ndim == 0:
            return _split_sections(input, int(a), dim)
        return _split_indices(input, a.tolist(), dim)
    if isinstance(arg, (tuple, list)):
        return _split_indices(input, [operator.index(i) for i in arg], dim)
    return _split_sections(input, operator.index(arg), dim)


def _directional_split(name, min_dims, dim_of):
    def split(input, indices_or_sections):
        n = input._data.ndim
        if n < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                               f"dimension, but got a tensor with {n} dimensions!")
        dim = dim_of(n)
        if isinstance(indices_or_sections, (tuple, list)):
            return _split_indices(input, [operator.index(i) for i in indices_or_sections], dim)
        sections = int(indices_or_sections)
        size = input._data.shape[dim]
        if sections == 0 or _cpp_mod(size, sections):
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{sections}!")
        return _split_sections(input, sections, dim)
    split.__name__ = name
    split.__doc__ = f"tensor_split along dim {dim_of(3)}, sections dividing it exactly."
    return public(name)(split)


def _cpp_mod(a, b):
    # C++'s % (the sign of the dividend)
    return abs(a) % abs(b) * (1 if a >= 0 else -1)


hsplit = _directional_split("hsplit", 1, lambda n: 0 if n == 1 else 1)
vsplit = _directional_split("vsplit", 2, lambda n: 0)
dsplit = _directional_split("dsplit", 3, lambda n: 2)


# ---- unsafe_split: split's pieces, not tracked as views -----------------------------------

unsafe_split = op("unsafe_split.Tensor", "UnsafeSplitBackward0", "self, split_size, dim=0",
                  _split, returns=list,
                  self=lambda grads, dim: cat(grads, dim))

unsafe_split_with_sizes = op(
    "unsafe_split_with_sizes", "UnsafeSplitWithSizesBackward0", "self, split_sizes, dim=0",
    lambda a, split_sizes, dim: _split_with_sizes(a, tuple(split_sizes), dim), returns=list,
    self=lambda grads, dim: cat(grads, dim))


@public("unsafe_chunk")
def unsafe_chunk(input, chunks, dim=0):
    """chunk's pieces, not tracked as views (unsafe_split)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = shape[wrap_dim(dim, len(shape))]
    split_size = -(-size // chunks)
    if split_size == 0 and size == 0:
        return unsafe_split_with_sizes(input, (0,) * chunks, dim)
    return unsafe_split(input, split_size, dim)


# ---- rot90 --------------------------------------------------------------------------------

def _rot90_args(ndim, k, dims):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return k % 4, d0, d1


def _rot90(a, k, dims):
    k, d0, d1 = _rot90_args(a.ndim, k, dims)
    # PyTorch's layouts: a flipped copy, transposed for odd k
    if k == 1:
        return np.swapaxes(np.flip(a, d1).copy(), d0, d1)
    if k == 2:
        return np.flip(a, (d0, d1)).copy()
    if k == 3:
        return np.swapaxes(np.flip(a, d0).copy(), d0, d1)
    return np.array(a, order="C")


rot90 = op("rot90", "Rot90Backward0", "self, k=1, dims=(0, 1)", _rot90, out=False,
           self=lambda grad, k, dims: rot90(grad, -k, dims))


# ---- repeat_interleave --------------------------------------------------------------------

def _repeats_index(repeats, output_size):
    """repeat_interleave(repeats): each i repeated repeats[i] times (repeats' dtype)."""
    r = repeats._data
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype != np.int64 and r.dtype != np.int32:
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                  f"'{FROM_NP[r.dtype].legacy}'")
    if r.size and r.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(r.sum()):
        raise RuntimeError("allocated size does not match required size")
    return make_tensor(np.repeat(np.arange(r.size, dtype=r.dtype), r))


@public("repeat_interleave", method=False)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along `dim`) repeated `repeats` times (an int, or a tensor
    with one count per element); the flattened input when dim is None.
    `repeat_interleave(repeats_tensor)` gives the indices 0, 1, ... repeated."""
    if repeats is None:
        if dim is not None:
            raise TypeError("repeat_interleave(): argument 'repeats' must be Tensor or int")
        return _repeats_index(input, output_size)
    if isinstance(repeats, Tensor):
        x = input
        r = repeats._data
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if dim is None:
            x, dim = flatten(x), 0
        if not x._data.ndim:     # PyTorch asks the 0-d input for its size(dim)
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        size = x._data.shape[wrap_dim(dim, x._data.ndim)]
        if r.ndim == 0 or r.shape[0] == 1:
            repeats = make_tensor(np.broadcast_to(r.reshape(1), (size,)))
        elif r.shape[0] != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.shape[0]} and input.size({dim}) = {size}")
        return x.index_select(dim, _repeats_index(repeats, output_size))
    repeats = operator.index(repeats)
    x = input if dim is not None else flatten(input)
    d = wrap_dim(0 if dim is None else dim, input._data.ndim)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = unsqueeze(x, d + 1)
    shape = list(x._data.shape)
    shape[d + 1] = repeats
    x = clone(expand_(x, tuple(shape)), memory_format=contiguous_format)
    result = flatten(x, d, d + 1)
    if output_size is not None and output_size != result._data.shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{result._data.shape[d]} but got {output_size}")
    return result


@public("repeat_interleave", function=False)
def _repeat_interleave_method(self, repeats=None, dim=None, *, output_size=None):
    return repeat_interleave(self, repeats, dim, output_size=output_size)


# ---- block_diag ---------------------------------------------------------------------------

def _block_shape(shape):
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape


def _block_diag(arrays):
    for i, a in enumerate(arrays):
        if a.ndim > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {a.ndim} dimensions")
    shapes = [_block_shape(a.shape) for a in arrays]
    out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), arrays[0].dtype)
    r = c = 0
    for a, (n, m) in zip(arrays, shapes):
        out[r:r + n, c:c + m] = a.reshape(n, m)
        r, c = r + n, c + m
    return out


def _block_diag_backward(grad, tensors_shape):
    out, r, c = [], 0, 0
    for shape in tensors_shape:
        n, m = _block_shape(shape)
        out.append(grad[r:r + n, c:c + m].reshape(shape))
        r, c = r + n, c + m
    return out


_block_diag_row = op("block_diag", "BlockDiagBackward0", "tensors", _block_diag, promote=PROMOTE,
                     list_input=True, function=False, method=False, tensors=_block_diag_backward)


@public("block_diag", method=False)
def block_diag(*tensors):
    """A block-diagonal matrix of the tensors (0-d as 1x1, 1-d as one row)."""
    tensors = _tensor_list(tensors)
    if not tensors:
        return make_tensor(np.empty((1, 0), _dtype.get_default_dtype().np))
    return _block_diag_row(tensors)


# ---- index helpers ------------------------------------------------------------------------

def _triangle_indices(name, row, col, offset, dtype, requires_grad, upper):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = _dtype.int64 if dtype is None else dtype
    if dtype is not _dtype.int64 and dtype is not _dtype.int32:
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype.legacy}'")
    if requires_grad:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    i, j = np.indices((row, col)).reshape(2, -1)
    keep = j - i >= offset if upper else j - i <= offset
    return make_tensor(np.stack((i[keep], j[keep])).astype(dtype.np))


@public("tril_indices", method=False)
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False,
                 requires_grad=False):
    """The (row, column) indices of the lower triangle of a row x col matrix, a 2 x N
    tensor in row-major order; offset shifts the diagonal."""
    check_factory(device, "empty", pin_memory)
    return _triangle_indices("tril_indices", row, col, offset, dtype, requires_grad, False)


@public("triu_indices", method=False)
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False,
                 requires_grad=False):
    """The (row, column) indices of the upper triangle of a row x col matrix."""
    check_factory(device, "empty", pin_memory)
    return _triangle_indices("triu_indices", row, col, offset, dtype, requires_grad, True)


@public("unravel_index", method=False)
def unravel_index(indices, shape):
    """Flat indices as a tuple of coordinate tensors into a tensor of `shape`."""
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int):
        shape = (shape,)
    elif not isinstance(shape, (tuple, list, Size)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    shape = tuple(shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape and indices._data.size:
        raise RuntimeError("ZeroDivisionError")
    coefs = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        coefs[i] = coefs[i + 1] * shape[i + 1]
    a = indices._data.astype(np.int64)[..., None]
    with np.errstate(divide="ignore"):
        coords = np.remainder(np.floor_divide(a, np.array(coefs, np.int64)),
                              np.array(shape, np.int64)) if shape else a[..., :0]
    return unbind(make_tensor(coords), -1)


def _nonzero_static_out(expected, got):
    return RuntimeError("nonzero_static: Expected out tensor to have scalar type Long but got "
                        f"scalar type{got.legacy}")


_nonzero_static_out.overlap_ok = False


@public("nonzero_static", out=_nonzero_static_out)
def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's indices (one row per nonzero element) cut or padded with `fill_value` to
    exactly `size` rows."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    a = input._data
    found = np.argwhere(a) if a.ndim else np.empty((int(bool(a)), 0), np.int64)
    out = np.full((size, a.ndim), fill_value, np.int64)
    n = min(size, found.shape[0])
    out[:n] = found[:n]
    return make_tensor(out)


# ---- C++ tensor printing (some of PyTorch's messages embed it) ----------------------------

def _cpp_str(t):
    """A tensor as ATen's C++ operator<< prints it (Formatting.cpp): its values, then
    `[ torch.FloatTensor{3,4} ]`. Matrices and beyond; every slice of more than two dims
    is printed under a `(i,j,.,.) = ` header, the leading index varying fastest."""
    a = t._data
    name = _dtype.tensor_type_name(FROM_NP[a.dtype])
    footer = f"[ {name}{{{','.join(str(n) for n in a.shape)}}} ]"
    if a.dtype.kind == "c" or not a.size or a.ndim < 2:
        return footer
    values = a.astype(np.float64)
    if a.ndim == 2:
        return _cpp_matrix(values, 0) + footer
    parts = []
    for idx in np.ndindex(*a.shape[-3::-1]):
        idx = idx[::-1]
        parts.append(f"({','.join(str(i + 1) for i in idx)},.,.) = \n"
                     + _cpp_matrix(values[idx], 1))
    return "\n".join(parts) + footer


def _cpp_matrix(m, indent):
    fmt, scale, sz = _cpp_format(m.reshape(-1))
    head = f"{scale:g} *\n" if scale != 1 else ""
    # rows after the first are indented (one more space under a scale line)
    sep = "\n" + " " * indent + (" " if scale != 1 else "")
    return head + sep.join(" ".join(fmt(v / scale, sz) for v in row) for row in m) + "\n"


def _cpp_format(flat):
    """(formatter, scale, width) as ATen's __printFormat picks them."""
    finite = flat[np.isfinite(flat)]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    exp_min = exp_max = 1.0
    if finite.size:
        lo, hi = float(np.abs(finite).min()), float(np.abs(finite).max())
        exp_min = np.floor(np.log10(lo)) + 1 if lo else 1
        exp_max = np.floor(np.log10(hi)) + 1 if hi else 1
    scale = 1
    if int_mode:
        if exp_max > 9:
            return (lambda v, sz: f"{v:.4e}".rjust(sz)), 1, 11
        return (lambda v, sz: f"{v:g}".rjust(sz)), 1, int(exp_max) + 1
    if exp_max - exp_min > 4:
        sz = 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11
        return (lambda v, sz: f"{v:.4e}".rjust(sz)), 1, sz
    if exp_max > 5 or exp_max < 0:
        sz, scale = 7, 10 ** (exp_max - 1)
    else:
        sz = 7 if exp_max == 0 else int(exp_max) + 6
    return (lambda v, sz: f"{v:.4f}".rjust(sz)), scale, sz


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
declare("combinations(Tensor input, int r=2, bool with_replacement=False)", method=False)
declare(*(Overloads(name, ["(Tensor input, int sections)",
                           "(Tensor input, tuple of ints indices)"], fast=(0, 1))
          for name in ("hsplit", "vsplit", "dsplit")))
declare("unsafe_chunk(Tensor input, int chunks, int dim=0)",
        "unsafe_split(Tensor input, SymInt split_size, int dim=0)",
        "unsafe_split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)",
        "rot90(Tensor input, int k=1, int[] dims=[0, 1])",
        Overloads("tensor_split", [
            "(Tensor input, tuple of ints indices, int dim = 0)",
            "(Tensor input, Tensor tensor_indices_or_sections, int dim = 0)",
            "(Tensor input, int sections, int dim = 0)"], fast=(2, 1)),
        Overloads("repeat_interleave", [
            "(Tensor input, Tensor repeats, int dim = None, *, int output_size = None)",
            "(Tensor repeats, *, int output_size = None)",
            "(Tensor input, int repeats, int dim = None, *, int output_size = None)"],
            method_lines=["(Tensor repeats, int dim = None, *, int output_size = None)",
                          "(int repeats, int dim = None, *, int output_size = None)"],
            fast=(2, 0, 1), method_fast=(1, 0)))
