"""Views and their functional variants: unfold, view_as_real / view_as_complex,
slice_inverse (views); the in-place view ops that change a tensor's own sizes and strides
(t_, transpose_, squeeze_, unsqueeze_, as_strided_); resize_, resize_as_, set_ and the
deprecated resize / resize_as; the `*_copy` functions (a view's values in fresh memory,
with the view's derivative: PermuteBackward0_copy ...) and the `*_scatter` functions (the
inverse: a copy of the input with a view of it replaced).

Note [In-place view ops]
`x.t_()` changes x's sizes and strides, not its values: x keeps its memory (and its base,
when it is a view), its version counter is bumped, and when autograd records, x's history
becomes the op's node (TBackward1, ...) over its old history, as for any in-place op. There
is no CopySlices: the base's values did not change. PyTorch's checks on leaves and views
apply (inplace.check_inplace).
"""
import math
import operator

import numpy as np

from .. import _dtype
from .._dims import sizes_str, wrap_dim
from .._dtype import FROM_NP
from .._tensor import Size, Tensor, contiguous_format, make_tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, rebase_history, refresh_view_history
from . import registry
from .diagonal import _diagonal_view
from .inplace import check_inplace
from .binding import Overloads, declare
from .registry import (EXACT, NOT_IMPLEMENTED, no_derivative, op, out_without_derivative,
                       public)
from .shape import (_infer_shape, _shape_args, _split_with_sizes, _squeeze_all_row,
                    _squeeze_dim_row, _squeeze_dims, _squeeze_dims_row, expand_, permute_, select,
                    slice_, slice_backward, split_, split_with_sizes, t, transpose, unbind,
                    unsqueeze, view_)
from .views import (_as_strided, _as_strided_backward, _elements, _storage, as_strided,
                    geometry, storage_offset)
from .views import _as_strided_row as _as_strided_view_row

_state = grad_mode.state


@public("_is_view", function=False)
def _is_view(self):
    """Whether this tensor is a view of another (has a `_base`)."""
    return self._base is not None


public("detach", method=False)(Tensor.detach)
public("detach_", method=False)(Tensor.detach_)


# ---- unfold -------------------------------------------------------------------------------

def _unfold_geometry(shape, strides, dimension, size, step):
    """Shape and strides (any unit) of `unfold(dimension, size, step)`."""
    d = wrap_dim(dimension, len(shape))
    n = shape[d] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not shape:
        return (size,), (1,)
    count = (n - size) // step + 1
    return (shape[:d] + (count,) + shape[d + 1:] + (size,),
            strides[:d] + (strides[d] * step,) + strides[d + 1:] + (strides[d],))


def _unfold(a, dimension, size, step):
    shape, strides = _unfold_geometry(a.shape, a.strides, dimension, size, step)
    if not a.shape:
        strides = (a.itemsize,)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _unfold_backward(grad, input_sizes, dim, size, step):
    out = np.zeros(input_sizes, grad.dtype)
    windows = _unfold(out, dim, size, step)
    # within one window offset the windows' positions are distinct: a plain add is exact;
    # offsets from the last, so that each position sums its windows in ascending order, as
    # PyTorch's kernel does (float16 rounds each partial sum)
    for j in reversed(range(size)):
        windows[..., j] += grad[..., j]
    return out


unfold_backward = op("unfold_backward", "UnfoldBackwardBackward0",
                     "grad_in, input_sizes, dim, size, step", _unfold_backward, function=False,
                     method=False,
                     grad_in=lambda grad, dim, size, step: unfold(grad, dim, size, step))

unfold = op("unfold", "UnfoldBackward0", "self, dimension, size, step", _unfold, view=True,
            function=False,
            self=lambda grad, self_shape, dimension, size, step: unfold_backward(
                grad, self_shape, dimension, size, step))


# ---- view_as_real, view_as_complex --------------------------------------------------------

def _view_as_real(a):
    if a.dtype.kind == "W":         # complex32
        _with_complex32()
    real = _REAL_OF.get(a.dtype)
    if real is None:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return a[..., None].view(real)


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _with_complex32():
    """Add float16 <-> complex32: complex32 is ml_dtypes', an optional package imported on
    first use, not when chainrule is (ImportError naming the extra when it is missing)."""
    c32 = _dtype.complex32.np
    _COMPLEX_OF[np.dtype(np.float16)] = c32
    _REAL_OF[c32] = np.dtype(np.float16)


def _view_as_complex(a):
    if a.dtype == np.float16:
        _with_complex32()
    if a.dtype not in _COMPLEX_OF:
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           "tensors, but got a tensor of scalar type: "
                           f"{FROM_NP[a.dtype].legacy}")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if not a.size and not any(a.strides):     # an empty array's zero strides mean nothing
        return np.empty(a.shape[:-1], _COMPLEX_OF[a.dtype])
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s // a.itemsize % 2 for s in a.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if storage_offset(a) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return a.view(_COMPLEX_OF[a.dtype])[..., 0]


view_as_real = op("view_as_real", "ViewAsRealBackward0", "self", _view_as_real, view=True,
                  method=False, self=lambda grad: view_as_complex(grad.contiguous()))

view_as_complex = op("view_as_complex", "ViewAsComplexBackward0", "self", _view_as_complex,
                     view=True, method=False, self=lambda grad: view_as_real(grad.contiguous()))


# ---- slice_inverse ------------------------------------------------------------------------

def _slice_inverse(a, src, dim, start, end, step):
    """A view of a's storage with src's sizes, strides and offset."""
    shape, strides, offset = geometry(src)
    return _as_strided(a, shape, strides, offset, None)


slice_inverse = op(
    "slice_inverse", "SliceInverseBackward0", "self, src, dim=0, start=None, end=None, step=1",
    _slice_inverse, view=True,
    self=lambda grad, dim, start, end, step: slice_(grad, dim, start, end, step),
    src=lambda grad, self, dim, start, end, step: slice_scatter(
        grad, make_tensor(np.zeros(self._data.shape, grad._data.dtype)), dim, start, end, step))


# ---- in-place view ops (Note [In-place view ops]) -----------------------------------------

def _inplace_view(row, self, params):
    op_ = row.op
    records = _state.grad_enabled and (self._requires_grad or (
        self._base is not None and self._base._requires_grad))
    check_inplace(self, records)
    if self._base is not None:
        refresh_view_history(self)
    new = op_.forward(self._data, *params)     # PyTorch's errors before anything changes
    if records:
        fresh = registry._record(op_, (self,), params, (new,))[0]
        rebase_history(self, fresh._grad_fn, 0)
    self._data = new
    self._vc[0] += 1
    if records and self._base is not None:
        self._fn_version = self._vc[0]
    if registry.FORWARD_AD is not None:
        from ..autograd.forward_ad import get_tangent
        tangent = get_tangent(self)
        if tangent is not None:
            _inplace_view(row, tangent, params)    # the tangent follows its primal's geometry
    return self


def _t_inplace(a):
    if a.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return t.op.forward(a)


_t_row = op("t_", "TBackward1", "self", _t_inplace, function=False, method=False,
            self=lambda grad: grad.t())
_transpose_row = op("transpose_", "TransposeBackward1", "self, dim0, dim1",
                    transpose.op.forward, function=False, method=False,
                    self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
_unsqueeze_row = op("unsqueeze_", "UnsqueezeBackward1", "self, dim", unsqueeze.op.forward,
                    function=False, method=False, self=lambda grad, dim: grad.squeeze(dim))
_squeeze_all_inplace = op("squeeze_", "SqueezeBackward3", "self", lambda a: np.squeeze(a).view(),
                      function=False, method=False,
                      self=lambda grad, self_shape: grad.reshape(self_shape))
_squeeze_dim_inplace = op("squeeze_.int", "SqueezeBackward4", "self, dim",
                      lambda a, dim: _squeeze_dims(a, (dim,)), function=False, method=False,
                      self=lambda grad, self_shape: grad.reshape(self_shape))
_squeeze_dims_inplace = op("squeeze_.dims", "SqueezeBackward5", "self, dim", _squeeze_dims,
                       function=False, method=False,
                       self=lambda grad, self_shape: grad.reshape(self_shape))
_as_strided_inplace = op(
    "as_strided_", "AsStridedBackward1", "self, size, stride, storage_offset, self_geometry",
    _as_strided, function=False, method=False,
    self=lambda grad, self_geometry, size, stride, storage_offset: _as_strided_backward(
        grad, self_geometry, size, stride, storage_offset))


@public("t_", function=False)
def t_(self):
    """Transpose this tensor's sizes and strides in place (<= 2 dims)."""
    return _inplace_view(_t_row, self, ())


@public("transpose_", function=False)
def transpose_(self, dim0, dim1):
    """Swap two dims of this tensor in place."""
    return _inplace_view(_transpose_row, self, (dim0, dim1))


public("swapaxes_", function=False)(transpose_)
public("swapdims_", function=False)(transpose_)


@public("unsqueeze_", function=False)
def unsqueeze_(self, dim):
    """Insert a dim of size 1 in place."""
    return _inplace_view(_unsqueeze_row, self, (dim,))


@public("squeeze_", function=False)
def squeeze_(self, dim=None):
    """Remove dims of size 1 in place (all, or those of `dim`)."""
    if dim is None:
        return _inplace_view(_squeeze_all_inplace, self, ())
    if isinstance(dim, (tuple, list)):
        return _inplace_view(_squeeze_dims_inplace, self, (tuple(dim),))
    return _inplace_view(_squeeze_dim_inplace, self, (dim,))


@public("as_strided_")
def as_strided_(input, size, stride, storage_offset=None):
    """Give this tensor the sizes, strides and storage offset in place."""
    return _inplace_view(_as_strided_inplace, input, (tuple(size), tuple(stride), storage_offset,
                                                   geometry(input._data)))


declare("as_strided_(Tensor input, SymInt[] size, SymInt[] stride, "
        "SymInt? storage_offset=None)")


# ---- resize_, set_ ------------------------------------------------------------------------

def _check_resizable(self):
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")


def _format_strides(sizes, memory_format):
    """Contiguous strides (in elements) of `sizes` in `memory_format`."""
    from .._tensor import _CHANNELS_LAST
    order = tuple(range(len(sizes)))
    rank_order = _CHANNELS_LAST.get(memory_format)
    if rank_order is not None:
        rank, physical = rank_order
        if len(sizes) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format} format")
        order = physical
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(sizes[d], 1)
    return tuple(strides)


def _set_geometry(self, storage, offset, sizes, strides):
    """Point self at `storage` (a root array, bytes of any dtype) with this geometry, growing
    the storage when it is too small (a new array: other tensors keep the old memory)."""
    itemsize = self._data.itemsize
    need = 0 if 0 in sizes else offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    flat = storage.reshape(-1, order="A").view(np.uint8)
    if need * itemsize > flat.size:
        grown = np.zeros(need * itemsize, np.uint8)
        grown[:flat.size] = flat
        flat = grown
    elements = flat[:flat.size - flat.size % itemsize].view(self._data.dtype)
    self._data = np.lib.stride_tricks.as_strided(elements[offset:], sizes,
                                                 tuple(s * itemsize for s in strides))


@public("resize_", function=False)
def resize_(self, *sizes, memory_format=None):
    """Give this tensor new sizes (contiguous strides) in place, keeping its memory from its
    storage offset on; the storage grows when too small (new elements are zeros)."""
    sizes = _shape_args(sizes)
    _check_resizable(self)
    if any(s < 0 for s in sizes):
        raise RuntimeError("numel: integer multiplication overflow")
    a = self._data
    if a.shape == sizes and memory_format is None:
        return self
    strides = _format_strides(sizes, memory_format)
    _set_geometry(self, _storage(a), storage_offset(a), sizes, strides)
    self._vc[0] += 1
    return self


@public("resize_as_")
def resize_as_(input, the_template, *, memory_format=None):
    """resize_ to the_template's sizes."""
    return resize_(input, the_template._data.shape, memory_format=memory_format)


def _resize_function():
    # torch.autograd._functions.Resize: a custom Function (its node is ResizeBackward)
    from ..autograd.function import Function

    class Resize(Function):
        @staticmethod
        def forward(ctx, tensor, sizes):
            ctx.sizes = sizes
            ctx.numel = math.prod(sizes)
            if tensor.numel() != ctx.numel:
                raise RuntimeError(
                    f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements in "
                    f"total), but the given tensor has a size of "
                    f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                    "autograd's resize can only change the shape of a given tensor, while "
                    "preserving the number of elements. ")
            ctx.input_sizes = tensor.size()
            if tensor.is_contiguous():
                return make_tensor(tensor._data).view(*sizes)   # shares tensor's memory
            return tensor.contiguous().view(*sizes)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.contiguous().view(ctx.input_sizes), None
    return Resize


_Resize = None


def _resize_apply(self, sizes, message):
    global _Resize
    import warnings
    warnings.warn(message, UserWarning, stacklevel=3)
    if _Resize is None:
        _Resize = _resize_function()
    return _Resize.apply(self, sizes)


@public("resize", function=False)
def resize(self, *sizes):
    """Deprecated: a tensor of the same elements with new sizes."""
    return _resize_apply(self, sizes, "non-inplace resize is deprecated")


@public("resize_as", function=False)
def resize_as(self, tensor):
    """Deprecated: resize to tensor's sizes."""
    return _resize_apply(self, tensor.size(), "non-inplace resize_as is deprecated")


# set_ from a tensor that requires grad records PyTorch's NotImplemented node
_set_row = op("set_.source_Tensor", NOT_IMPLEMENTED, "self, source", lambda a, s: s,
              function=False, method=False, self=no_derivative("set_"),
              source=no_derivative("set_"))
# unlike other NotImplemented nodes, set_'s lists self's edge even when self needs no grad
_set_row.op.node_cls.next_functions = Node.next_functions

_SET_SIGNATURES = (
    "set_() received an invalid combination of arguments - got ({}), but expected one of:\n"
    " * ()\n      didn't match because some of the arguments have invalid types: (!{}!)\n"
    " * (torch.Storage source)\n      didn't match because some of the arguments have invalid "
    "types: (!{}!)\n"
    " * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = "
    "None)\n"
    " * (Tensor source)\n      didn't match because some of the arguments have invalid types: "
    "(!{}!)\n"
    " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


@public("set_", function=False)
def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Make this tensor use `source`'s memory: a tensor's (its sizes, strides and offset
    unless given), a storage's, or none (an empty tensor)."""
    from .._storage import TypedStorage, UntypedStorage
    if source is None:
        check_inplace(self, False)
        self._data = np.empty((0,), self._data.dtype)
        self._vc[0] += 1
        return self
    if isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(f"Could not set tensor of type {FROM_NP[source._data.dtype].cpp} "
                               f"to a tensor of type {FROM_NP[self._data.dtype].cpp}")
        root, geom = _storage(source._data), geometry(source._data)
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        untyped = source.untyped() if isinstance(source, TypedStorage) else source
        root = untyped._bytes
        n = root.size // self._data.itemsize
        geom = ((n,), (1,), 0)
    else:
        name = type(source).__name__
        raise TypeError(_SET_SIGNATURES.format(name, name, name, name))
    if storage_offset is not None:
        size = tuple(size)
        strides = tuple(stride) if stride is not None else _format_strides(size, None)
        geom = (size, strides, storage_offset)
    grads = isinstance(source, Tensor) and source.requires_grad
    records = _state.grad_enabled and (self.requires_grad or grads)
    check_inplace(self, records)
    old = self._data
    _set_geometry(self, root, geom[2], geom[0], geom[1])
    if records:
        new, self._data = self._data, old
        fresh = registry._record(_set_row.op, (self, source if grads else None), (), (new,))[0]
        rebase_history(self, fresh._grad_fn, 0)
        self._data = new
    self._vc[0] += 1
    return self


@public("new_empty_strided", function=False)
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                      pin_memory=False, requires_grad=False):
    """A new tensor (self's dtype by default) with the given sizes and strides, over fresh
    memory just large enough."""
    from .._creation import _finish
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    d = (dtype or self.dtype).np
    need = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    storage = np.zeros(need, d)
    a = np.lib.stride_tricks.as_strided(storage, size, tuple(s * storage.itemsize for s in stride))
    return _finish(a, requires_grad)


# ---- *_copy: a view's values in fresh memory ----------------------------------------------

def _copied(forward):
    def copy(a, *params):
        out = forward(a, *params)
        if isinstance(out, tuple):
            return tuple(np.array(o, order="C") for o in out)
        return np.array(out, order="C")
    return copy


def _copy_row(name, node, signature, view_row, forward=None, **kw):
    """The row of `<view>_copy`: the view's forward, copied; the view's formula."""
    return op(name, node, signature, _copied(forward or view_row.op.forward), method=False,
              self=view_row.op.formulas[0][0], out=EXACT, **kw)


alias_copy = op("alias_copy", "AliasBackward0_copy", "self", lambda a: np.array(a, order="C"),
                method=False, out=EXACT, self=lambda grad: grad)
permute_copy = _copy_row("permute_copy", "PermuteBackward0_copy", "self, dims", permute_)
t_copy = _copy_row("t_copy", "TBackward0_copy", "self", t)
transpose_copy = _copy_row("transpose_copy", "TransposeBackward0_copy", "self, dim0, dim1",
                           transpose)
unsqueeze_copy = _copy_row("unsqueeze_copy", "UnsqueezeBackward0_copy", "self, dim", unsqueeze)
select_copy = _copy_row("select_copy", "SelectBackward0_copy", "self, dim, index", select)
slice_copy = _copy_row("slice_copy", "SliceBackward0_copy",
                       "self, dim=0, start=None, end=None, step=1", slice_)
expand_copy = _copy_row("expand_copy", "ExpandBackward0_copy", "self, size, *, implicit=False",
                        expand_, lambda a, size, implicit: expand_.op.forward(a, size))
unfold_copy = _copy_row("unfold_copy", "UnfoldBackward0_copy", "self, dimension, size, step",
                        unfold)
view_as_real_copy = _copy_row("view_as_real_copy", "ViewAsRealBackward0_copy", "self",
                              view_as_real)
_view_copy_row = _copy_row("view_copy", "ViewBackward0_copy", "self, size", view_,
                           lambda a, size: np.reshape(a, _infer_shape(size, a.size)),
                           function=False)
_squeeze_copy_all = _copy_row("squeeze_copy", "SqueezeBackward0_copy", "self",
                              _squeeze_all_row,
                              lambda a: np.squeeze(a), function=False)
_squeeze_copy_dim = _copy_row("squeeze_copy.dim", "SqueezeBackward1_copy", "self, dim",
                              _squeeze_dim_row, lambda a, dim: _squeeze_dims(a, (dim,)),
                              function=False)
_squeeze_copy_dims = _copy_row("squeeze_copy.dims", "SqueezeBackward2_copy", "self, dim",
                               _squeeze_dims_row, _squeeze_dims, function=False)
split_copy = _copy_row("split_copy.Tensor", "SplitBackward0_copy", "self, split_size, dim=0",
                       split_, returns=list, function=False)
split_with_sizes_copy = _copy_row("split_with_sizes_copy", "SplitWithSizesBackward0_copy",
                                  "self, split_sizes, dim=0", split_with_sizes,
                                  lambda a, sizes, dim: _split_with_sizes(a, tuple(sizes), dim),
                                  returns=list, function=False)
unbind_copy = _copy_row("unbind_copy.int", "UnbindBackward0_copy", "self, dim=0", unbind,
                        returns=list, function=False)
_as_strided_copy_row = _copy_row(
    "as_strided_copy", "AsStridedBackward0_copy",
    "self, size, stride, storage_offset, self_geometry", _as_strided_view_row, function=False)

# detach_copy records PyTorch's NotImplemented node when its input requires grad
detach_copy = op("detach_copy", NOT_IMPLEMENTED, "self", lambda a: np.array(a, order="C"),
                 method=False, out=EXACT, self=no_derivative("aten::detach_copy"))


@public("as_strided_copy", method=False, out=EXACT)
def as_strided_copy(input, size, stride, storage_offset=None):
    """as_strided's values in fresh memory."""
    return _as_strided_copy_row(input, tuple(size), tuple(stride), storage_offset,
                                geometry(input._data))


@public("squeeze_copy", method=False, out=EXACT)
def squeeze_copy(input, dim=None):
    """squeeze's values in fresh memory."""
    if dim is None:
        return _squeeze_copy_all(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_copy_dims(input, tuple(dim))
    return _squeeze_copy_dim(input, dim)


@public("view_copy", method=False, out=EXACT)
def view_copy(input, size):
    """view's values in fresh memory (any layout; `size` may hold one -1), or the bits
    reinterpreted as another dtype."""
    if isinstance(size, _dtype.dtype):
        with grad_mode.no_grad():
            return input.view(size).clone(memory_format=contiguous_format)
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(
            f"view_copy() received an invalid combination of arguments - got (Tensor, "
            f"{type(size).__name__}), but expected one of:\n * (Tensor input, torch.dtype dtype, "
            "*, Tensor out = None)\n * (Tensor input, tuple of ints size, *, Tensor out = None)\n")
    return _view_copy_row(input, _shape_args((size,)))


@public("view_as_complex_copy", method=False, out=EXACT)
def view_as_complex_copy(input):
    """view_as_complex's values in fresh memory (not differentiable: PyTorch refuses)."""
    if _state.grad_enabled and input.requires_grad:
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for "
                           "outputs with complex dtype.")
    return make_tensor(np.array(_view_as_complex(input._data), order="C"))


def _list_copy(row, size_name, resize, refuse_grad=False):
    """The public function of a list-returning *_copy. out= is a list of tensors: each is
    resized and written (dtype exact) when `resize`, else copied into with copy_'s
    broadcasting and casting (split_copy); the function then returns None. unbind_copy
    alone refuses outs that require grad."""
    name = row.op.name.split(".")[0]

    def f(input, *args, out=None):
        if out is None:
            return row(input, *args)
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        if refuse_grad and _state.grad_enabled and any(o.requires_grad for o in out):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        with grad_mode.no_grad():
            result = row(input, *args)
            if len(out) != len(result):
                raise RuntimeError(f"{size_name} expected an out= argument of size "
                                   f"{len(result)}, got size {len(out)}")
            for o, r in zip(out, result):
                if resize:
                    registry.write_out(name, r, o, EXACT, (input,))
                else:
                    o.copy_(r)
        return None
    f.__name__ = name
    return f


public("split_copy", method=False)(_list_copy(split_copy, "split_copy_Tensor_out()", False))
public("split_with_sizes_copy", method=False)(
    _list_copy(split_with_sizes_copy, "split_with_sizes_copy_out", True))
public("unbind_copy", method=False)(_list_copy(unbind_copy, "unbind_copy_int_out", True, True))


def _narrow_args(shape, dim, start, length):
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    start, length = operator.index(start), operator.index(length)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return d, start


def _narrow_copy(a, dim, start, length):
    if a.ndim and dim >= a.ndim:     # its kernel checks a positive dim before wrapping one
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    d, start = _narrow_args(a.shape, dim, start, length)
    return np.array(a[(slice(None),) * d + (slice(start, start + length),)], order="C")


def _narrow_copy_backward(grad, self_shape, dim, start, length):
    # PyTorch's formula slices from start as given: a negative start makes an empty slice
    # that grad does not fit, and its backward fails
    d = wrap_dim(dim, len(self_shape))
    size = len(range(*slice(start, start + length).indices(self_shape[d])))
    if size != grad._data.shape[d]:
        raise RuntimeError(f"The size of tensor a ({size}) must match the size of tensor b "
                           f"({grad._data.shape[d]}) at non-singleton dimension {d}")
    return slice_backward(grad, self_shape, d, start, start + length, 1)


narrow_copy = op("narrow_copy", "NarrowCopyBackward0", "self, dim, start, length", _narrow_copy,
                 self=_narrow_copy_backward, out=EXACT)


# ---- *_scatter: a copy of self with a view of it replaced by src ---------------------------

def _scatter_into(a, src, view_of, out=None):
    if out is None:
        out = np.array(a, order="K")       # self's layout, as PyTorch's clone
    view = view_of(out)
    if src.shape != view.shape:
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{sizes_str(src.shape)}, slice size = {sizes_str(view.shape)}")
    np.copyto(view, src, casting="unsafe")
    return out


def _zeros_of(shape, grad):
    return make_tensor(np.zeros(shape, grad._data.dtype))


slice_scatter = op(
    "slice_scatter", "SliceScatterBackward0", "self, src, dim=0, start=None, end=None, step=1",
    lambda a, src, dim, start, end, step: _scatter_into(
        a, src, lambda o: slice_.op.forward(o, dim, start, end, step)),
    out=EXACT,
    self=lambda grad, src_shape, dim, start, end, step: slice_scatter(
        grad, _zeros_of(src_shape, grad), dim, start, end, step),
    src=lambda grad, dim, start, end, step: slice_(grad, dim, start, end, step))

select_scatter = op(
    "select_scatter", "SelectScatterBackward0", "self, src, dim, index",
    lambda a, src, dim, index: _scatter_into(a, src, lambda o: select.op.forward(o, dim, index)),
    out=False,
    self=lambda grad, src_shape, dim, index: select_scatter(
        grad, _zeros_of(src_shape, grad), dim, index),
    src=lambda grad, dim, index: select(grad, dim, index))

diagonal_scatter = op(
    "diagonal_scatter", "DiagonalScatterBackward0", "self, src, offset=0, dim1=0, dim2=1",
    lambda a, src, offset, dim1, dim2: _scatter_into(
        a, src, lambda o: _diagonal_view(o, offset, dim1, dim2)),
    out=False,
    self=lambda grad, src_shape, offset, dim1, dim2: diagonal_scatter(
        grad, _zeros_of(src_shape, grad), offset, dim1, dim2),
    src=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))


def _clone_preserve_strides(a):
    """a copy of a's whole storage seen with a's geometry, as PyTorch clones as_strided_scatter's
    input: sizes, strides and offset address that storage, elements outside `a` included."""
    flat = _elements(a).copy()
    return np.lib.stride_tricks.as_strided(flat[storage_offset(a):], a.shape, a.strides)


def _as_strided_slice(grad, size, stride, storage_offset):
    return as_strided(grad.contiguous(), size, stride, storage_offset)


# PyTorch's as_strided_scatter_backward, as it is: self's gradient is the slice of grad
# written into zeros (not grad with the slice zeroed), so it fails gradcheck there too
_as_strided_scatter_row = op(
    "as_strided_scatter", "AsStridedScatterBackward0",
    "self, src, size, stride, storage_offset=None",
    lambda a, src, size, stride, storage_offset: _scatter_into(
        a, src, lambda o: _as_strided(o, size, stride, storage_offset, geometry(o)),
        _clone_preserve_strides(a)),
    function=False, method=False,
    self=lambda grad, self_shape, size, stride, storage_offset: as_strided_scatter(
        _zeros_of(self_shape, grad), _as_strided_slice(grad, size, stride, storage_offset),
        size, stride, storage_offset),
    src=lambda grad, size, stride, storage_offset: _as_strided_slice(
        grad, size, stride, storage_offset).clone(memory_format=contiguous_format))


@public("as_strided_scatter")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input with its as_strided view (sizes, strides, offset in its own fresh
    memory) replaced by src."""
    if input.requires_grad and not input._data.flags.c_contiguous:
        raise RuntimeError(
            "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at "
            "\"/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp\":4754, please report a "
            "bug to PyTorch. as_strided_scatter is currently only supported for contiguous "
            "inputs")
    return _as_strided_scatter_row(input, src, tuple(size), tuple(stride), storage_offset)


# ---- out= of the *_copy functions ---------------------------------------------------------
# PyTorch's out= variants of these functional views have no derivative: called with an input
# that requires grad, they write out and give it a NotImplemented node (its backward fails),
# instead of refusing as other differentiable ops do (Note [NotImplemented nodes]).


for _name in ("alias_copy", "as_strided_copy", "detach_copy", "expand_copy", "permute_copy",
              "select_copy", "slice_copy", "squeeze_copy", "t_copy", "transpose_copy",
              "unfold_copy", "unsqueeze_copy", "view_copy", "view_as_real_copy", "slice_scatter"):
    out_without_derivative(_name, registry.FUNCTIONS[_name], EXACT)


# Note [Argument parser checks]: PyTorch's declarations of the views' in-place and copying
# variants (the views themselves: shape.py)
declare("unsqueeze_(Tensor input, int dim)", "transpose_(Tensor input, int dim0, int dim1)",
        "swapaxes_(Tensor input, int axis0, int axis1)",
        "swapdims_(Tensor input, int dim0, int dim1)",
        "unfold(Tensor input, int dimension, int size, int step)",
        Overloads("squeeze_", [], method_lines=["()", "(int dim)", "(tuple of ints dim)"],
                  fast=(0, 1)), function=False)
declare("transpose_copy(Tensor input, int dim0, int dim1)",
        "select_copy(Tensor input, int dim, SymInt index)",
        "slice_copy(Tensor input, int dim=0, SymInt? start=None, SymInt? end=None, "
        "SymInt step=1)",
        "unsqueeze_copy(Tensor input, int dim)",
        "unfold_copy(Tensor input, int dimension, int size, int step)",
        "permute_copy(Tensor input, int[] dims)",
        "expand_copy(Tensor input, SymInt[] size, *, bool implicit=False)",
        Overloads("squeeze_copy", ["(Tensor input, *, Tensor out = None)",
                                   "(Tensor input, int dim, *, Tensor out = None)",
                                   "(Tensor input, tuple of ints dim, *, Tensor out = None)"],
                  fast=(0, 1)), method=False)
declare("as_strided_copy(Tensor input, SymInt[] size, SymInt[] stride, "
        "SymInt? storage_offset=None)",
        "split_copy(Tensor input, SymInt split_size, int dim=0)",
        "split_with_sizes_copy(Tensor input, SymInt[] split_sizes, int dim=0)",
        "unbind_copy(Tensor input, int dim=0)", method=False)
declare("as_strided(Tensor input, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)",
        "as_strided_scatter(Tensor input, Tensor src, SymInt[] size, SymInt[] stride, "
        "SymInt? storage_offset=None)")
declare("narrow_copy(Tensor input, int dim, SymInt start, SymInt length)",
        "select_scatter(Tensor input, Tensor src, int dim, SymInt index)",
        "slice_scatter(Tensor input, Tensor src, int dim=0, SymInt? start=None, "
        "SymInt? end=None, SymInt step=1)",
        "diagonal_scatter(Tensor input, Tensor src, int offset=0, int dim1=0, int dim2=1)")
declare("detach_(Tensor input)", "view_as_complex_copy(Tensor input, *, Tensor? out=None)",
        method=False)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("slice_inverse(Tensor input, Tensor src, int dim=0, SymInt? start=None, "
        "SymInt? end=None, SymInt step=1)", function=False)
