"""Shape ops: views, reshapes, transposes, expansion, repetition, joining and splitting,
basic indexing (`x[0, 1:, None]`), dtype conversion.

Rows marked `view=True` return tensors that share memory and the version counter with
their input, as PyTorch's views do; their forwards return NumPy views.
"""
import math
import operator
import sys
import warnings

import numpy as np

from .. import _dtype, _platform
from .._device import use as use_device
from .._tensor import (Size, Tensor, contiguous_format, is_in_format, make_tensor, memory_format,
                       memory_format_arg, preserve_format, suggest_memory_format,
                       to_memory_format)
from ..autograd.grad_mode import no_grad
from .._dims import sizes_str, wrap_dim, wrap_dims
from .binding import Overloads, Signature, _ints, declare, not_tensor_input
from .binding import _is_int as _parser_int
from .registry import PROMOTE, check_broadcast, op, out_cast, public

# out= dtype rule of cat and stack, in their words (Note [out=] in registry.py)
_CAT_OUT = out_cast("torch.cat(): input types can't be cast to the desired output type {got}",
                    TypeError)

_INT64_MAX = 9223372036854775807
_warned = set()


def _warn_once(message):
    """PyTorch's TORCH_WARN_ONCE (once per process, every time under set_warn_always),
    attributed to the user's line."""
    if message not in _warned or _platform._state.warn_always:
        _warned.add(message)
        frame, level = sys._getframe(1), 2
        while frame is not None and frame.f_globals.get("__name__", "").startswith("chainrule."):
            frame, level = frame.f_back, level + 1
        warnings.warn(message, UserWarning, stacklevel=level)


def _infer_shape(shape, numel):
    """Resolve one -1 in `shape` against `numel`, with PyTorch's errors (infer_size)."""
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {sizes_str(shape)}")
    if numel != known and not (infer is not None and known > 0 and numel % known == 0):
        raise RuntimeError(f"shape '{sizes_str(shape)}' is invalid for input of size {numel}")
    if infer is not None:
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {sizes_str(shape)} "
                               "because the unspecified dimension size -1 can be any value and is "
                               "ambiguous")
        shape[infer] = numel // known
    return tuple(shape)


def _shape_args(shape):
    """`f(2, 3)`, `f((2, 3))` and `f([2, 3])` all as (2, 3)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(operator.index(s) for s in shape[0])
    return tuple(operator.index(s) for s in shape)


def _required(args, fname, pname):
    if not args:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{pname}"')
    return _shape_args(args)


def _along(dim, index):
    """An index tuple that applies `index` along `dim` (a trailing Ellipsis keeps 0-d
    results NumPy views rather than scalars)."""
    return (slice(None),) * dim + (index, Ellipsis)


# ---- view, reshape ------------------------------------------------------------------------

def _view(a, shape):
    shape = _infer_shape(shape, a.size)
    out = a.view()
    try:
        out.shape = shape      # raises instead of copying when no view is possible
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return out


view_ = op("view", "ViewBackward0", "self, size", _view, view=True, function=False, method=False,
           self=lambda grad, self_shape: grad.reshape(self_shape))

# reshape's copying path: PyTorch clones, then views the clone (UnsafeViewBackward0).
_unsafe_view = op("_unsafe_view", "UnsafeViewBackward0", "self, size",
                  lambda a, shape: np.reshape(a, _infer_shape(shape, a.size)),
                  function=False, method=False,
                  self=lambda grad, self_shape: grad.reshape(self_shape))


_VIEW_SIZE = Signature("view(Tensor input, SymInt[] size)")
_VIEW = Overloads("view", [], method_lines=["(torch.dtype dtype)", "(tuple of ints size)"])


@public("view", function=False)
def view(self, *shape, dtype=None):
    """A view with a new shape (no copy), or of the same memory as another dtype."""
    if dtype is not None and not shape:
        if not isinstance(dtype, _dtype.dtype):
            _VIEW.check((), {"dtype": dtype}, method=True)
        shape = (dtype,)
    if not _plain_ints(shape):
        _varargs(_VIEW_SIZE, self, shape, _VIEW)
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        from .views import view_dtype
        return view_dtype(self, shape[0])
    return view_(self, _shape_args(shape))


# reshape of a non-contiguous tensor that can still be viewed
_reshape_alias = op("_reshape_alias", "ReshapeAliasBackward0", "self, size", _view, view=True,
                    function=False, method=False,
                    self=lambda grad, self_shape: grad.reshape(self_shape))


_RESHAPE = Signature("reshape(Tensor input, SymInt[] shape)")


@public("reshape")
def reshape(input, *shape):
    """A view with a new shape when possible, else a contiguous copy."""
    if not _plain_ints(shape):
        _varargs(_RESHAPE, input, shape)
    try:
        a = input._data
    except AttributeError:
        # torch.reshape(None, ...) (a bound declaration's check of the shape would cost
        # reshape a tenth)
        raise not_tensor_input("reshape", input) from None
    shape = _infer_shape(_shape_args(shape), a.size)
    if a.flags.c_contiguous:
        return view_(input, shape)
    try:
        a.view().shape = shape
    except AttributeError:
        return _unsafe_view(clone(input, memory_format=contiguous_format), shape)
    return _reshape_alias(input, shape)


_OTHER = "(Tensor input, Tensor other)"


@public("view_as", function=False)
def view_as(self, other):
    return view_(self, other._data.shape)


@public("reshape_as", function=False)
def reshape_as(self, other):
    return reshape(self, other._data.shape)


@public("flatten")
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a reshape; `input` itself when there is
    nothing to merge)."""
    shape = input._data.shape
    s, e = wrap_dim(start_dim, len(shape)), wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if not shape:
        return reshape(input, (1,))
    if s == e:
        return input
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


@public("unflatten")
def unflatten(input, dim, sizes):
    """Split dim `dim` into `sizes` (a view)."""
    shape = input._data.shape
    d = wrap_dim(dim, len(shape))
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        raise RuntimeError("unflatten got an unexpected error:\n"
                           f"Dimension specified as {dim} but tensor has no dimensions")
    try:
        inferred = _infer_shape(sizes, shape[d])
    except RuntimeError as e:
        if "shape '[" in str(e):
            raise RuntimeError(f"unflatten: Provided sizes {sizes_str(sizes)} don't multiply up to "
                               f"the size of dim {d} ({shape[d]}) in the input tensor") from None
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
    return view_(input, shape[:d] + inferred + shape[d + 1:])


@public("ravel")
def ravel(input):
    return view_(contiguous(input), (-1,))


# ---- expand -------------------------------------------------------------------------------

def _expand(a, size):
    size = tuple(size)
    if len(size) < a.ndim:
        raise RuntimeError(
            f"expand({_dtype.tensor_type_name(_dtype.FROM_NP[a.dtype])}{{{sizes_str(a.shape)}}}, "
            f"size={sizes_str(size)}): the number of sizes provided ({len(size)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({a.ndim})")
    lead = len(size) - a.ndim
    target = list(size)
    for i in range(len(size) - 1, -1, -1):   # PyTorch checks from the last dim
        cur = a.shape[i - lead] if i >= lead else 1
        if target[i] == -1:
            # a 0-d tensor keeps its -1s: PyTorch checks no leading dims for it (numel refuses)
            if i < lead and a.ndim:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            if i >= lead:
                target[i] = cur
        elif cur != target[i] and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the "
                               f"existing size ({cur}) at non-singleton dimension {i}.  Target "
                               f"sizes: {sizes_str(size)}.  Tensor sizes: {sizes_str(a.shape)}")
    if any(n < 0 for n in target):
        raise RuntimeError("numel: integer multiplication overflow")
    # a writable view (np.broadcast_to's is read-only): PyTorch lets fill_ and zero_ write
    # through an expanded view; other in-place ops refuse it (inplace.py, Note [Overlap])
    strides = [0] * lead + [0 if n != t else st for n, t, st in zip(a.shape, target[lead:], a.strides)]
    if a.flags.c_contiguous:     # a view over a's own buffer: 8x cheaper than as_strided
        return np.ndarray(target, a.dtype, a, 0, strides)
    return np.lib.stride_tricks.as_strided(a, target, strides)


expand_ = op("expand", "ExpandBackward0", "self, size", _expand, view=True, function=False,
             method=False,
             self=lambda grad, self_shape: grad.sum_to_size(self_shape))


_EXPAND = Signature("expand(Tensor input, SymInt[] size, *, bool implicit=False)")


@public("expand", function=False)
def expand(self, *sizes):
    """A broadcast view with the given sizes (-1 keeps a dim)."""
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    if not _plain_ints(sizes):
        _varargs(_EXPAND, self, sizes)
    first = sizes[0]
    if type(first) is bool or not isinstance(first, (int, tuple, list)):
        # PyTorch's parser on a first size that is no int (a bool, a float, a tensor)
        from .._creation import _parse_size
        sizes = (_parse_size(sizes, "expand"),)
    return expand_(self, _shape_args(sizes))


@public("expand_as", function=False)
def expand_as(self, other):
    return expand_(self, other._data.shape)


_SUM_TO_SIZE = Signature("sum_to_size(Tensor input, SymInt[] size)")


@public("sum_to_size", function=False)
def sum_to_size(self, *size):
    """Sum the broadcast dims away to reach `size` (PyTorch's at::sum_to)."""
    if not (_plain_ints(size) or _one_int_tensor(size)):    # as the parser reads them
        _varargs(_SUM_TO_SIZE, self, size)
    size = _required(size, "sum_to_size", "size")
    if not size:        # at::sum_to sums fully to an empty shape, a 0-d tensor too (SumBackward0)
        return self.sum()
    shape = self._data.shape
    if shape == size:
        return self
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{sizes_str(size)}}} is not expandable to size "
                           f"{{{sizes_str(shape)}}}.")
    dims = [i for i in range(len(shape)) if i < lead or (size[i - lead] == 1 and shape[i] != 1)]
    out = self
    if dims:
        out = out.sum(dims, keepdim=True)
    if lead:
        out = out.reshape(size)
    return out


# ---- squeeze, unsqueeze -------------------------------------------------------------------

def _unsqueeze(a, dim):
    # np.expand_dims's reshape (a view, never a copy, with its strides) without its wrapper
    d = wrap_dim(dim, a.ndim + 1)
    return a.reshape(a.shape[:d] + (1,) + a.shape[d:])


unsqueeze = op("unsqueeze", "UnsqueezeBackward0", "self, dim", _unsqueeze, view=True,
               self=lambda grad, dim: grad.squeeze(dim))


def _squeeze_dims(a, dim):
    dims = wrap_dims(dim, a.ndim)
    return np.squeeze(a, tuple(d for d in dims if a.shape[d] == 1)).view()


_squeeze_dim_row = op("squeeze.dim", "SqueezeBackward1", "self, dim",
                      lambda a, dim: _squeeze_dims(a, (dim,)), view=True,
                      function=False, method=False,
                      self=lambda grad, self_shape: grad.reshape(self_shape))
_squeeze_dims_row = op("squeeze.dims", "SqueezeBackward2", "self, dim", _squeeze_dims, view=True,
                       function=False, method=False,
                       self=lambda grad, self_shape: grad.reshape(self_shape))
_squeeze_all_row = op("squeeze", "SqueezeBackward0", "self", lambda a: np.squeeze(a).view(),
                      view=True, function=False, method=False,
                      self=lambda grad, self_shape: grad.reshape(self_shape))


@public("squeeze")
def squeeze(input, dim=None):
    """Remove dims of size 1 (all, or those of `dim`, an int or a sequence)."""
    if dim is None:
        return _squeeze_all_row(input)
    if isinstance(dim, (tuple, list)):
        return _squeeze_dims_row(input, tuple(dim))
    return _squeeze_dim_row(input, dim)


# ---- transposes ---------------------------------------------------------------------------

def _transpose(a, dim0, dim1):
    d0, d1 = wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim)
    return np.swapaxes(a, d0, d1) if a.ndim else a.view()


transpose = op("transpose.int", "TransposeBackward0", "input, dim0, dim1", _transpose, view=True,
               input=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))


@public("swapaxes")
def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


@public("swapdims")
def swapdims(input, dim0, dim1):
    return transpose(input, dim0, dim1)


def _permute(a, dims):
    n = a.ndim
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not "
                           "match the length of the desired ordering of dimensions i.e. input.dim() "
                           f"= {n} is not equal to len(dims) = {len(dims)}")
    axes = [wrap_dim(d, n) for d in dims]
    if len(set(axes)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return np.transpose(a, axes)


def _inverse_permutation(dims, n):
    inverse = [0] * n
    for i, d in enumerate(dims):
        inverse[wrap_dim(d, n)] = i
    return tuple(inverse)


permute_ = op("permute", "PermuteBackward0", "self, dims", _permute, view=True, function=False,
              method=False,
              self=lambda grad, dims: grad.permute(_inverse_permutation(dims, len(dims))))


@public("permute", method=False)
def permute(input, dims):
    return permute_(input, tuple(dims))


_PERMUTE = Signature("permute(Tensor input, int[] dims)")


@public("permute", function=False)
def _permute_method(self, *dims):
    if not _plain_ints(dims):
        _varargs(_PERMUTE, self, dims)
    return permute_(self, _required(dims, "permute", "dims"))


def _t(a):
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return a.T if a.ndim == 2 else a.view()


t = op("t", "TBackward0", "self", _t, view=True, self=lambda grad: grad.t())


def _numpy_T(self):
    n = self._data.ndim
    if n == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
    elif n != 2:
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                   "is deprecated and it will throw an error in a future release. Consider `x.mT` "
                   "to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, "
                   "-1))` to reverse the dimensions of a tensor.")
    return permute_(self, tuple(range(n - 1, -1, -1)))


def _mT(self):
    n = self._data.ndim
    if n == 0:
        _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the identity in "
                   "these cases.")
        return self
    if n < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return transpose(self, -2, -1)


def _adjoint(self, what, zero_warning):
    n = self._data.ndim
    if n == 0:
        _warn_once(zero_warning)
        return conj(self)
    if n < 2:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return conj(transpose(self, -2, -1))


def _mH(self):
    return _adjoint(self, "tensor.mH", "Tensor.mH is deprecated on 0-D tensors. Consider using "
                                       "x.conj().")


def _H(self):
    n = self._data.ndim
    if n == 0:
        _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
    elif n != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
    return conj(transpose(self, -2, -1)) if n else conj(self)


Tensor.T = property(_numpy_T)
Tensor.mT = property(_mT)
Tensor.mH = property(_mH)
Tensor.H = property(_H)


@public("adjoint")
def adjoint(input):
    """The conjugate transpose of the last two dims."""
    return _adjoint(input, "tensor.adjoint()", "adjoint() is deprecated on 0-D tensors. Consider "
                                               "using x.conj().")


@public("movedim")
def movedim(input, source, destination):
    """Move dims `source` to positions `destination` (a permute)."""
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({sizes_str(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({sizes_str(dst)} dims)")
    n = input._data.ndim
    src_w = [wrap_dim(d, n) for d in src]
    dst_w = [wrap_dim(d, n) for d in dst]
    if len(set(src_w)) != len(src_w):
        raise RuntimeError(f"movedim: repeated dim in `source` ({sizes_str(src)})")
    if len(set(dst_w)) != len(dst_w):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({sizes_str(dst)})")
    if n == 0:
        return _alias(input)
    order = [-1] * n
    for s, d in zip(src_w, dst_w):
        order[d] = s
    rest_src = [d for d in range(n) if d not in src_w]
    rest_dst = [d for d in range(n) if d not in dst_w]
    for s, d in zip(rest_src, rest_dst):
        order[d] = s
    return permute_(input, tuple(order))


public("moveaxis")(movedim)


# ---- copies -------------------------------------------------------------------------------

def _clone(a, memory_format):
    # preserve_format (the default) keeps the layout, as NumPy's order "K" does
    return to_memory_format(a, memory_format)


clone = op("clone", "CloneBackward0", "self, *, memory_format=None", _clone, out=False,
           self=lambda grad: grad)


@public("contiguous", function=False)
def contiguous(self, memory_format=contiguous_format):
    """self when already laid out in `memory_format` (row-major by default), else a copy
    that is."""
    if is_in_format(self._data, memory_format_arg(memory_format, "contiguous")):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(self, memory_format=memory_format)


# x[...] and x[:, :]: a new tensor viewing all of self
_alias = op("alias", "AliasBackward0", "self", lambda a: a.view(), view=True, function=False,
            method=False, self=lambda grad: grad)


# ---- repeat, flip, roll -------------------------------------------------------------------

def _repeat(a, repeats):
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    shape = (1,) * (len(repeats) - a.ndim) + a.shape
    target = [s * r for s, r in zip(shape, repeats)]
    for s in target:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{sizes_str(target)}")
    return np.tile(a, repeats)


def _repeat_backward(grad, self_shape, repeats):
    """Sum the repeated copies back (PyTorch's repeat_backward): view grad as
    (repeat, size) pairs and sum the repeat dims, leading dims included."""
    if 0 in repeats:
        return make_tensor(np.zeros(self_shape, grad._data.dtype))
    lead = len(repeats) - len(self_shape)
    view_shape, sum_dims = [], []
    for i, r in enumerate(repeats):
        if i < lead or r != 1:
            sum_dims.append(len(view_shape))
            view_shape.append(r)
        if i >= lead:
            view_shape.append(self_shape[i - lead])
    if not sum_dims:
        return grad
    return grad.reshape(view_shape).sum(sum_dims)


repeat_ = op("repeat", "RepeatBackward0", "self, repeats", _repeat, function=False, method=False,
             self=_repeat_backward)


_REPEAT = Signature("repeat(Tensor input, SymInt[] repeats)")


def _plain_ints(values):
    """Whether a method's `*values` are Python ints (the usual view and reshape call), tested
    without a loop for up to three of them."""
    n = len(values)
    if n > 3:
        return _ints(values)
    return n and type(values[0]) is int and (n == 1 or type(values[1]) is int and (
        n == 2 or type(values[2]) is int))


def _one_int_tensor(values):
    """Whether a method's `*values` are one integer tensor of one element, which the parser
    reads as the one int of a variadic int list (x.sum_to_size(torch.tensor(3)))."""
    if len(values) != 1 or not isinstance(values[0], Tensor):
        return False
    a = values[0]._data
    return a.size == 1 and a.dtype.kind in "iu"


def _varargs(sig, self, values, overloads=None):
    """A method's `*values` as the parser reads them for its one int-list parameter `sig`
    (or one of `overloads`, view's): one value stands for itself, several starting with an
    int are the list, others are too many arguments."""
    if len(values) == 1:
        if type(values[0]) is not int and not _ints(values[0]):
            if overloads is None:
                sig.check(self, values[0], first=0)
            else:
                overloads.check(values, {}, method=True)
    elif values and not _ints(values):
        if _parser_int(values[0]):
            sig.check(self, values, first=0)
        elif overloads is None:
            raise TypeError(f"{sig.name}() takes 1 positional argument but {len(values)} "
                            "were given")
        else:
            overloads.check(values, {}, method=True)


@public("repeat", function=False)
def repeat(self, *repeats):
    """Tile self `repeats` times along each dim (leading new dims allowed)."""
    _varargs(_REPEAT, self, repeats)
    return repeat_(self, _required(repeats, "repeat", "repeats"))


@public("tile", method=False)
def tile(input, dims):
    """numpy.tile: repeat, with `dims` padded by leading ones."""
    dims = _shape_args((dims,)) if not isinstance(dims, int) else (dims,)
    return repeat_(input, (1,) * (input._data.ndim - len(dims)) + dims)


_TILE = Signature("tile(Tensor input, SymInt[] dims)")


@public("tile", function=False)
def _tile_method(self, *dims):
    _varargs(_TILE, self, dims)
    return tile(self, _shape_args(dims))


def _flip(a, dims):
    axes = wrap_dims(dims, a.ndim)
    return np.flip(a, axes).copy() if axes else a.copy()


flip_ = op("flip", "FlipBackward0", "self, dims", _flip, function=False, method=False,
           self=lambda grad, dims: grad.flip(dims))


@public("flip", method=False)
def flip(input, dims):
    return flip_(input, (dims,) if isinstance(dims, int) else tuple(dims))


_FLIP = Signature("flip(Tensor input, int[] dims)")


@public("flip", function=False)
def _flip_method(self, *dims):
    _varargs(_FLIP, self, dims)
    return flip_(self, _shape_args(dims))


@public("fliplr")
def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip_(input, (1,))


@public("flipud")
def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip_(input, (0,))


def _roll(a, shifts, dims):
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return np.roll(a, shifts[0])     # rolls the flattened tensor
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if not a.size:     # nothing to move: the dims are not checked
        return a.copy()
    if a.ndim == 0:     # PyTorch's roll wraps dims without a 0-d tensor's one dim
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return np.roll(a, shifts, [wrap_dim(d, a.ndim) for d in dims])


roll_ = op("roll", "RollBackward0", "self, shifts, dims", _roll, function=False, method=False,
           self=lambda grad, shifts, dims: roll_(grad, tuple(-s for s in shifts), dims))


@public("roll")
def roll(input, shifts, dims=None):
    """Shift elements circularly along `dims` (of the flattened tensor when None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    return roll_(input, shifts, dims)


# ---- select, slice, narrow ----------------------------------------------------------------

def _select(a, dim, index):
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, a.ndim)
    if not -a.shape[d] <= index < a.shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{sizes_str(a.shape)} at dimension {d}")
    return a[_along(d, index)]


def _select_backward(grad, input_sizes, dim, index):
    out = np.zeros(input_sizes, grad.dtype)
    out[_along(wrap_dim(dim, len(input_sizes)), index)] = grad
    return out


select = op("select.int", "SelectBackward0", "self, dim, index", _select, view=True,
            self=lambda grad, self_shape, dim, index: select_backward(grad, self_shape, dim, index))

select_backward = op("select_backward", "SelectBackwardBackward0",
                     "grad_output, input_sizes, dim, index", _select_backward,
                     function=False, method=False,
                     grad_output=lambda grad, dim, index: select(grad, dim, index))


def _slice(a, dim, start, end, step):
    if a.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, a.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    # Python's slice bounds (negatives wrap, then clamp) are at::slice's for step > 0
    return a[_along(dim, slice(start, end, step))]


def _slice_backward(grad, input_sizes, dim, start, end, step):
    out = np.zeros(input_sizes, grad.dtype)
    out[_along(wrap_dim(dim, len(input_sizes)), slice(start, end, step))] = grad
    return out


slice_ = op("slice.Tensor", "SliceBackward0", "self, dim=0, start=None, end=None, step=1", _slice,
            view=True, function=False, method=False,
            self=lambda grad, self_shape, dim, start, end, step: slice_backward(
                grad, self_shape, dim, start, end, step))

slice_backward = op("slice_backward", "SliceBackwardBackward0",
                    "grad_output, input_sizes, dim, start, end, step", _slice_backward,
                    function=False, method=False,
                    grad_output=lambda grad, dim, start, end, step: slice_(grad, dim, start, end, step))


@public("narrow")
def narrow(input, dim, start, length):
    """`length` elements of dim `dim` from `start` (a view)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = operator.index(start), operator.index(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = shape[wrap_dim(dim, len(shape))]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_(input, dim, start, start + length, 1)


# ---- split, chunk, unbind -----------------------------------------------------------------

def _pieces(a, dim, bounds):
    return tuple(a[_along(dim, slice(lo, hi))] for lo, hi in bounds)


def _split(a, split_size, dim):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {size}")
    n = max(-(-size // split_size), 1) if split_size else 1
    return _pieces(a, d, [(i * split_size, (i + 1) * split_size) for i in range(n)])


def _split_with_sizes(a, split_sizes, dim):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    size = a.shape[wrap_dim(dim, a.ndim)]
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={sizes_str(split_sizes)}")
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {dim}), but got "
                           f"split_sizes={sizes_str(split_sizes)}")
    ends = np.cumsum(split_sizes).tolist()
    return _pieces(a, wrap_dim(dim, a.ndim), zip([0] + ends[:-1], ends))


split_ = op("split.Tensor", "SplitBackward0", "self, split_size, dim=0", _split, returns=list,
            view=True, function=False, method=False,
            self=lambda grads, dim: cat(grads, dim))

split_with_sizes = op("split_with_sizes", "SplitWithSizesBackward0", "self, split_sizes, dim=0",
                      _split_with_sizes, returns=list, view=True,
                      self=lambda grads, dim: cat(grads, dim))


@public("split")
def split(tensor, split_size_or_sections, dim=0):
    """Pieces of `split_size` along `dim` (the last may be smaller), or of the given sizes."""
    # PyTorch's split is Python passing everything on by position to one of two bindings
    if type(dim) is not int or type(split_size_or_sections) is not int:
        if isinstance(split_size_or_sections, int):
            _SPLIT.check((tensor, split_size_or_sections, dim), {})
        else:
            _SPLIT_WITH_SIZES.check(tensor, split_size_or_sections, dim)
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, tuple(split_size_or_sections), dim)
    return split_(tensor, operator.index(split_size_or_sections), dim)


_SPLIT = Overloads("split", ["(Tensor input, int split_size, int dim = 0)",
                             "(Tensor input, tuple of ints split_size, int dim = 0)"])
_SPLIT_WITH_SIZES = Signature("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)")


@public("chunk")
def chunk(input, chunks, dim=0):
    """`chunks` pieces of equal size along `dim` (the last may be smaller; fewer when the
    dim is too short)."""
    shape = input._data.shape
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = shape[wrap_dim(dim, len(shape))]
    split_size = -(-size // chunks)
    if split_size == 0:
        # split would return one piece; keep the number of (empty) chunks
        return split_with_sizes(input, (0,) * chunks, dim)
    return split_(input, split_size, dim)


def _unbind(a, dim):
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    return tuple(a[_along(d, i)] for i in range(a.shape[d]))


unbind = op("unbind.int", "UnbindBackward0", "self, dim=0", _unbind, returns=list, view=True,
            self=lambda grads, dim: stack(grads, dim))


# ---- joining ------------------------------------------------------------------------------

def _skipped(shape):
    # legacy: 1-d empty tensors are ignored by cat whatever the other shapes
    return shape == (0,)


def _cat(arrays, dim):
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [a for a in arrays if not _skipped(a.shape)]
    if not kept:
        return np.empty((0,), arrays[0].dtype)
    ref = kept[0]
    d = wrap_dim(dim, ref.ndim)
    for i, a in enumerate(arrays):
        if _skipped(a.shape):
            continue
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} "
                               f"and {a.ndim}")
        for k in range(ref.ndim):
            if k != d and a.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected "
                                   f"size {ref.shape[k]} but got size {a.shape[k]} for tensor "
                                   f"number {i} in the list.")
    return np.concatenate(kept, axis=d)


def _cat_grads(grad, tensors_shape, dim):
    # one slice of grad per input (a loop over the list, not over elements)
    ref = next((s for s in tensors_shape if not _skipped(s)), None)
    d = wrap_dim(dim, len(ref)) if ref is not None else 0
    out, start = [], 0
    for shape in tensors_shape:
        if _skipped(shape):
            out.append(make_tensor(np.zeros((0,), grad._data.dtype)))
            continue
        out.append(narrow(grad, d, start, shape[d]))
        start += shape[d]
    return out


def _tensor_list(tensors):
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return tensors


cat_ = op("cat", "CatBackward0", "tensors, dim=0", _cat, promote=PROMOTE, list_input=True,
          function=False, method=False, tensors=_cat_grads)


@public("cat", method=False, out=_CAT_OUT)
def cat(tensors, dim=0):
    """Concatenate tensors along an existing dim."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return cat_(_tensor_list(tensors), dim)


public("concat", method=False, out=_CAT_OUT)(cat)
public("concatenate", method=False, out=_CAT_OUT)(cat)


def _stack(arrays, dim):
    axis = wrap_dim(dim, arrays[0].ndim + 1)     # (checked before the sizes, as PyTorch)
    for i, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{sizes_str(arrays[0].shape)} at entry 0 and {sizes_str(a.shape)} "
                               f"at entry {i}")
    return np.stack(arrays, axis=axis)


stack_ = op("stack", "StackBackward0", "tensors, dim=0", _stack, promote=PROMOTE, list_input=True,
            function=False, method=False,
            # PyTorch's stack_tensors_backward: one select per input (SelectBackward0 nodes)
            tensors=lambda grad, dim, tensors_shape: [
                select(grad, wrap_dim(dim, len(tensors_shape[0]) + 1), i)
                for i in range(len(tensors_shape))])


@public("stack", method=False, out=_CAT_OUT)
def stack(tensors, dim=0):
    """Join tensors of equal shape along a new dim."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return stack_(_tensor_list(tensors), dim)


# ---- indexing -----------------------------------------------------------------------------
# `x[idx]` and `x[idx] = v` as PyTorch's python_variable_indexing.cpp does them: ints, slices,
# None and Ellipsis (basic indexing) become views; tensors, sequences and bools are tensor
# indices, handed to the `index` / `index_put_` ops (advanced_indexing.py) on that view.

from .advanced_indexing import _index_put_inplace, index as _index, scalar_value  # noqa: E402

_MASK_DTYPES = (np.dtype(np.bool_), np.dtype(np.uint8))
# what PyTorch reads as a sequence, made into an index tensor
_SEQUENCES = (list, tuple, range, np.ndarray, str, bytes)


def _index_select(t, dim, index, real_dim):
    """x[..., index, ...]: applySelect, with the error naming the index's position."""
    shape = t._data.shape
    if index == 0 and dim == 0 and not shape:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = shape[dim] if dim < len(shape) else 0
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return select(t, dim, index)


def _index_slice(t, dim, s, optimize):
    """x[..., start:stop:step, ...]; inside a tuple a slice over the whole dim is skipped."""
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = 0 if s.start is None else operator.index(s.start)
    stop = _INT64_MAX if s.stop is None else operator.index(s.stop)
    shape = t._data.shape
    if optimize and shape and start == 0 and shape[dim] <= stop and step == 1:
        return t
    return slice_(t, dim, start, stop, step)


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _as_tuple(index):
    """PyTorch's wrapTuple: a tuple as is; a short list holding slices, None, Ellipsis,
    tensors or sequences as a tuple (deprecated); anything else as a 1-tuple."""
    if type(index) is tuple:
        return index
    if isinstance(index, (list, range, str)) and len(index) < 32 and any(
            isinstance(i, (slice, Tensor, list, tuple, str)) or i is None or i is Ellipsis
            for i in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                      "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                      "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                      "which will result either in an error or a different result",
                      UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _specified_dims(index):
    n = 0
    for i in index:
        if isinstance(i, Tensor):
            n += i._data.ndim if i._data.dtype in _MASK_DTYPES else 1
        elif not (i is None or i is Ellipsis or isinstance(i, bool)):
            n += 1
    return n


def _type_name(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _as_int(i):
    """An index that is no slice, None, Ellipsis, bool, tensor or sequence, as an int."""
    try:
        return operator.index(i)
    except TypeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                         f"Variables are valid indices (got {_type_name(i)})") from None


def _sequence_index(seq):
    """PyTorch's sequenceToVariable: a bool (or uint8) mask, or else an int64 tensor."""
    from .._creation import _infer_array
    a = _infer_array(seq)
    return make_tensor(a if a.dtype in _MASK_DTYPES else a.astype(np.int64))


def _bool_index(value):
    """PyTorch's boolToIndexingTensor: a bool indexes a new unit dim, True as 0:, False as
    empty."""
    return make_tensor(np.zeros(1 if value else 0, np.int64))


def _record(tensors, t, dim):
    """recordTensorIndex: `t` indexes from dim `dim` on; returns the next dim."""
    if not tensors:
        tensors.extend([None] * dim)
    tensors.append(t)
    return dim + (t._data.ndim if t._data.dtype in _MASK_DTYPES else 1)


def _apply_slicing(self, index):
    """PyTorch's applySlicing for a tuple index: the view its ints, slices, None and Ellipsis
    make, and the tensor indices left for that view (a list: one per dim from the first,
    None for dims they skip; empty when there are none)."""
    ndim = self._data.ndim
    specified = _specified_dims(index)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim, tensors = self, 0, []
    for real_dim, i in enumerate(index):
        if type(i) is slice:
            result = _index_slice(result, dim, i, True)
            dim += 1
            if tensors:
                tensors.append(None)
        elif type(i) is int:
            result = _index_select(result, dim, i, real_dim)
        elif i is None:
            result = unsqueeze(result, dim)
            dim += 1
            if tensors:
                tensors.append(None)
        elif i is Ellipsis:
            dim += ndim - specified
            if tensors:
                tensors.extend([None] * (ndim - specified))
        elif isinstance(i, bool):
            result = unsqueeze(result, dim)
            dim = _record(tensors, _bool_index(i), dim)
        elif isinstance(i, (Tensor,) + _SEQUENCES):
            t = i if isinstance(i, Tensor) else _sequence_index(i)
            a = t._data
            if a.ndim or a.dtype.kind not in "biu":
                dim = _record(tensors, t, dim)
            elif a.dtype in _MASK_DTYPES:       # a 0-d mask: as a bool
                result = unsqueeze(result, dim)
                dim = _record(tensors, _bool_index(a.item()), dim)
            else:                               # a 0-d integer: as an int
                result = _index_select(result, dim, int(a), real_dim)
        else:                                   # NumPy integers and other __index__ types
            result = _index_select(result, dim, _as_int(i), real_dim)
    if tensors:
        while tensors[-1] is None:
            tensors.pop()
    return result, tensors


@public("__getitem__", function=False)
def getitem(self, index):
    """`self[index]`: ints select, slices slice, None unsqueezes, Ellipsis skips dims (views,
    in PyTorch's order); then tensors, sequences and bools index what is left (the `index`
    op, a copy: IndexBackward0), masks over as many dims as they have."""
    if _is_int(index):
        return _index_select(self, 0, int(index), 0)
    if type(index) is slice:
        return _index_slice(self, 0, index, False)
    if type(index) is Tensor:
        a = index._data
        if a.ndim and a.dtype.kind in "iu" and a.dtype != np.uint8 and self._data.ndim:
            return _index(self, (index,))
    elif index is None:
        return unsqueeze(self, 0)
    elif index is Ellipsis:
        return _alias(self)
    elif isinstance(index, bool):
        result = unsqueeze(self, 0)
        return _index(result, (_bool_index(index),))
    result, tensors = _apply_slicing(self, _as_tuple(index))
    if tensors:
        return _index(result, tuple(tensors))
    return _alias(self) if result is self else result


def _copy(a, src, non_blocking):
    if type(src) is np.ndarray and src.shape == a.shape:
        return src.astype(a.dtype)      # (a copy: the common case, nothing to broadcast)
    src = np.asarray(src)
    check_broadcast((a, src))     # PyTorch's error when they cannot broadcast
    if src.ndim > a.ndim or any(n != m and m != 1 for n, m in zip(a.shape[::-1], src.shape[::-1])):
        return src    # does not fit into a: dispatch_inplace raises PyTorch's broadcast-shape error
    return np.broadcast_to(src, a.shape).astype(a.dtype)


def _copy_src_grad(grad, other_dtype):
    # cast back to src's dtype before the engine sums a broadcast src's gradient, as
    # PyTorch (a float16 gradient summed into a float32 src sums in float32)
    if other_dtype is None or grad.dtype == other_dtype:
        return grad
    if grad.is_complex() and not other_dtype.is_complex:
        grad = grad.real
    return grad.to(other_dtype)


# x.copy_(src): src is broadcast and cast to x's dtype (PyTorch's binding calls it `other`)
_copy_row = op("copy", "CopyBackwards", "self, other, non_blocking=False", _copy,
               numbers=True, function=False, method=False, inplace="copy_",
               self=lambda grad: make_tensor(np.zeros_like(grad._data)), other=_copy_src_grad)
# a hand-written node in PyTorch: its class is CopyBackwards, its name() qualified
_copy_row.op.node_cls.name = lambda self: "torch::autograd::CopyBackwards"


def _value_tensor(self, value):
    """setitem's value as a tensor: a tensor as it is, a Python number in self's dtype."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
    elif not isinstance(value, (float, complex)):
        raise TypeError(f"can't assign a {_type_name(value)} to a {self.type()}")
    return make_tensor(scalar_value(value, self._data.dtype))


def _copy_to(dst, src):
    """PyTorch's copy_to: copy_ when the shapes match, fill_ from a 0-d value, else copy_ of
    the value broadcast (its leading unit dims dropped first, as NumPy)."""
    to = dst._data.shape
    if src._data.shape == to:
        dst.copy_(src)
        return
    if src._data.ndim == 0:
        dst.fill_(src)
        return
    src = src.view(_strip_ones(src._data.shape))
    _check_expand(src, to)
    if src._data.shape != to:
        src = src.expand(to)
    dst.copy_(src)


def _strip_ones(shape):
    skip = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    return shape[skip:]


@public("__setitem__", function=False)
def setitem(self, index, value):
    """`self[index] = value`: the basic parts of index make a view (as getitem), and value is
    copied into it (copy_, or fill_ from a number or 0-d value, with broadcasting); tensor
    indices put value there with index_put_."""
    value = _value_tensor(self, value)
    if type(index) is Tensor:
        a = index._data
        if a.ndim and a.dtype.kind in "iu" and a.dtype != np.uint8 and self._data.ndim:
            _put(self, (index,), value)
            return
    if _is_int(index):
        _copy_to(_index_select(self, 0, int(index), 0), value)
    elif type(index) is slice:
        _copy_to(_index_slice(self, 0, index, True), value)
    elif index is Ellipsis:
        _copy_to(self, value)
    elif index is None or index is True:
        _copy_to(unsqueeze(self, 0), value)
    elif index is not False:
        target, tensors = _apply_slicing(self, _as_tuple(index))
        if not tensors:
            _copy_to(target, value)
            return
        _put(target, tensors, value)


def _put(target, tensors, value):
    """index_put_ of value, its leading unit dims dropped first (a view), as PyTorch's."""
    shape = value._data.shape
    if shape and shape[0] == 1:
        value = value.view(_strip_ones(shape))
    _index_put_inplace(target, tuple(tensors), value)


def _check_expand(value, to):
    """PyTorch's expand errors, for setitem's value."""
    shape = value._data.shape
    if len(shape) > len(to):
        raise RuntimeError(f"expand({value.type()}{{{sizes_str(shape)}}}, size={sizes_str(to)}): "
                           f"the number of sizes provided ({len(to)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(shape)})")
    for d in range(1, len(shape) + 1):
        if shape[-d] not in (to[-d], 1):
            raise RuntimeError(f"The expanded size of the tensor ({to[-d]}) must match the "
                               f"existing size ({shape[-d]}) at non-singleton dimension "
                               f"{len(to) - d}.  Target sizes: {sizes_str(to)}.  Tensor sizes: "
                               f"{sizes_str(shape)}")


# ---- dtype conversion ---------------------------------------------------------------------

def _to_copy_forward(a, dtype, self_dtype, memory_format=None):
    if a.dtype.kind == "c" and not dtype.is_complex:
        a = a.real
    with np.errstate(invalid="ignore"):   # nan/inf to int: a value, not a warning, as in PyTorch
        a = _dtype.cast(a, dtype.np)
    return a if memory_format is None else to_memory_format(a, memory_format)


def _to_copy_backward(grad, self_dtype):
    # a real input takes the real part of a complex gradient, silently (the engine casts
    # the rest back to the input's dtype)
    if grad._data.dtype.kind == "c" and not self_dtype.is_complex:
        return _to_copy(grad, self_dtype, grad.dtype)
    return grad


_to_copy = op("_to_copy", "ToCopyBackward0", "self, dtype, self_dtype, memory_format=None",
              _to_copy_forward, function=False, method=False, self=_to_copy_backward)


def _conj_forward(a):
    return np.conj(a)


_conj_row = op("conj", "ConjBackward0", "self", _conj_forward, function=False, method=False,
               self=lambda grad: grad.conj())


@public("conj")
def conj(input):
    """Complex conjugate; real tensors are returned as they are."""
    try:
        if not input.is_complex():     # (not _data: a vmap-batched tensor has none)
            return input
    except AttributeError:
        # (conj is hot: a bound declaration would cost it more than half again)
        raise not_tensor_input("conj", input) from None
    return _conj_row(input)


_TO_SIGNATURES = (("device", "dtype", "non_blocking", "copy"),
                  ("dtype", "non_blocking", "copy"),
                  ("tensor", "non_blocking", "copy"))
_TO_TYPES = {
    "device": lambda v: v is None or isinstance(v, str) or _is_int(v) or type(v).__name__ == "device",
    "dtype": lambda v: v is None or isinstance(v, _dtype.dtype),
    "tensor": lambda v: isinstance(v, Tensor),
    "non_blocking": lambda v: isinstance(v, bool),
    "copy": lambda v: isinstance(v, bool),
    "memory_format": lambda v: v is None or isinstance(v, memory_format),
}


def _to_args(args, kwargs):
    """Bind to()'s arguments to one of PyTorch's three overloads."""
    for names in _TO_SIGNATURES:
        if len(args) > len(names) or (names[0] != "device" and not args and names[0] not in kwargs):
            continue
        bound = dict(zip(names, args))
        if all(k not in bound and (k in names or k == "memory_format") for k in kwargs):
            bound.update(kwargs)
            if all(_TO_TYPES[k](v) for k, v in bound.items()):
                return bound
    got = [_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}" for k, v in kwargs.items()]
    got = ", ".join(got) + (", " if kwargs and not args else "")
    raise TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool "
        "copy = False, *, torch.memory_format memory_format = None)\n"
        " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
        "torch.memory_format memory_format = None)\n"
        " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format "
        "memory_format = None)\n")


def _arg_type(v):
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, _dtype.dtype):
        return "torch.dtype"
    return "torch.device" if type(v).__name__ == "device" else type(v).__name__


@public("to", function=False)
def to(self, *args, **kwargs):
    """Convert dtype (`to(torch.float64)`, `to(other)`, `to('cpu', torch.float64)`); returns
    self when nothing changes, unless copy=True."""
    bound = _to_args(args, kwargs)
    copy = bound.get("copy", False)
    if bound.get("device") is not None:
        # PyTorch's CPU-build error for other devices; 'cpu:0' is not the tensor's device
        # ('cpu'), so PyTorch copies
        copy = use_device(bound["device"]).index is not None or copy
    dtype = bound["tensor"].dtype if "tensor" in bound else bound.get("dtype")
    if dtype is None:
        dtype = self.dtype
    fmt = bound.get("memory_format")
    if fmt is preserve_format:
        fmt = None
    # PyTorch returns self when the strides suggest the requested format, contiguous or not
    if dtype.np == self._data.dtype and not copy and (
            fmt is None or suggest_memory_format(self._data) is fmt):
        return self
    if self._data.dtype.kind == "c" and not dtype.is_complex:
        _warn_once("Casting complex values to real discards the imaginary part")
    if dtype.category < _dtype.float32.category:
        with no_grad():            # integer and bool results are not differentiable
            return _to_copy(self, dtype, self.dtype, fmt)
    return _to_copy(self, dtype, self.dtype, fmt)


def _converter(name, d):
    # memory_format is keyword-only in PyTorch's declaration: a positional argument is refused
    # (by the count, whatever its value); taking *args costs nothing on the common call
    too_many = Signature(f"{name}(Tensor input, *, MemoryFormat? memory_format=None)").too_many

    def convert(self, *args, memory_format=None):
        if args:
            too_many(len(args), skip=1)
        if memory_format is None:
            return to(self, d)
        return to(self, d, memory_format=memory_format_arg(memory_format, name))
    convert.__name__ = convert.__qualname__ = name
    return convert


for _n, _d in (("float", _dtype.float32), ("double", _dtype.float64), ("half", _dtype.float16),
               ("long", _dtype.int64), ("int", _dtype.int32), ("short", _dtype.int16),
               ("char", _dtype.int8), ("byte", _dtype.uint8), ("bool", _dtype.bool),
               ("cfloat", _dtype.complex64), ("cdouble", _dtype.complex128),
               ("bfloat16", _dtype.bfloat16), ("chalf", _dtype.complex32)):
    public(_n, function=False)(_converter(_n, _d))


@public("type_as", function=False)
def type_as(self, other):
    return to(self, other.dtype)


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
declare("chunk(Tensor input, int chunks, int dim=0)", "unbind(Tensor input, int dim=0)",
        "unsqueeze(Tensor input, int dim)", "transpose(Tensor input, int dim0, int dim1)",
        "swapaxes(Tensor input, int axis0, int axis1)",
        "swapdims(Tensor input, int dim0, int dim1)",
        "flatten(Tensor input, int start_dim=0, int end_dim=-1)",
        "unflatten(Tensor input, int dim, SymInt[] sizes)",
        "select(Tensor input, int dim, SymInt index)",
        "roll(Tensor input, SymInt[1] shifts, int[1] dims=[])",
        Overloads("squeeze", ["(Tensor input)", "(Tensor input, int dim)",
                              "(Tensor input, tuple of ints dim)"], fast=(0, 1)),
        Overloads("narrow", ["(Tensor input, int dim, Tensor start, int length)",
                             "(Tensor input, int dim, int start, int length)"], fast=(1,)),
        *(Overloads(name, ["(Tensor input, int source, int destination)",
                           "(Tensor input, tuple of ints source, tuple of ints destination)"])
          for name in ("movedim", "moveaxis")))
declare("flip(Tensor input, int[] dims)", "tile(Tensor input, SymInt[] dims)",
        "permute(Tensor input, int[] dims)", "cat(Tensor[] tensors, int dim=0)",
        "stack(Tensor[] tensors, int dim=0)", method=False)
declare(*(f"{name}{_OTHER}" for name in ("view_as", "reshape_as", "expand_as")),
        function=False)
declare("split_with_sizes(Tensor input, SymInt[] split_sizes, int dim=0)")
declare("ravel(Tensor input)", "adjoint(Tensor input)", "fliplr(Tensor input)",
        "flipud(Tensor input)", method=False)
