"""Views and in-place ops on them: where a view lies in its base, `as_strided`
(AsStridedBackward0), the CopySlices node, and PyTorch's checks before a view is modified.

Note [In-place on views]
A view shares memory with its base (`_base`, always the root tensor), so writing into the
view changes the base. When autograd records an in-place op on a view, PyTorch rebases the
base instead: the base's history becomes a CopySlices node wrapping the op's node. In
backward, CopySlices takes the base's gradient, hands the slice the view covers to the op's
node, and writes what that node returns for the view back into the slice; the other
gradients of the op's node pass through. The view's own history becomes
AsStridedBackward0 over the base's new history (PyTorch regenerates it lazily when
`grad_fn` is read; it is set eagerly here).

Where a view lies in its base is its geometry: shape, strides and offset in elements,
relative to the start of the NumPy array that owns the memory (the "storage"). Gradient
formulas map geometries to integer positions and move gradients with index ops, so they
stay chainrule Tensor code (double backward works). When the backward itself is recorded
(create_graph), CopySlices runs it as PyTorch does, so the graph has PyTorch's nodes: a
copy of the gradient, an as_strided slice of it cloned through the op's node, and the
result written back into the slice in place (a CopySlices of its own).
"""
import re

import numpy as np

from .._dims import sizes_str
from .._dtype import FROM_NP
from .._tensor import contiguous_format as _contiguous_format, make_tensor
from ..autograd import grad_mode
from ..autograd.graph import ERR_BACKWARD_TWICE, Node, _sequence, edge_of, rebase_history
from .registry import op, public

__all__ = ["as_strided", "geometry", "check_view_inplace", "rebase_view", "CopySlices",
           "DEFAULT", "NO_GRAD_MODE", "MULTI_OUTPUT_NODE", "IN_CUSTOM_FUNCTION"]

# PyTorch's CreationMeta: how a view was made, which decides whether it may be modified in
# place while autograd records. DEFAULT views keep no metadata (view_info is None).
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE = None, "no_grad", "multi_output"
IN_CUSTOM_FUNCTION = "in_custom_function"


# ---- geometry -----------------------------------------------------------------------------

def _storage(a):
    """The array owning `a`'s memory (through NumPy's as_strided, whose result's base is a
    holder object with the original array as its own base)."""
    while True:
        b = a.base
        if not isinstance(b, np.ndarray):
            b = getattr(b, "base", None)
            if not isinstance(b, np.ndarray):
                return a
        a = b


def _address(a):
    return a.__array_interface__["data"][0]


def storage_offset(a):
    """Offset of `a`'s first element in its storage, in elements."""
    return (_address(a) - _address(_storage(a))) // a.itemsize


def geometry(a):
    """(shape, strides, storage offset) of array `a`, in elements."""
    return a.shape, tuple(s // a.itemsize for s in a.strides), storage_offset(a)


def _positions(shape, strides, offset):
    """The storage position of every element of a tensor of this geometry."""
    pos = np.full(shape, offset, np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        pos += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return pos


def _index(positions, lo):
    return make_tensor((positions - lo).reshape(-1))



# ---- as_strided ---------------------------------------------------------------------------

def _as_strided(a, size, stride, storage_offset, self_geometry):
    if storage_offset is None:
        storage_offset = self_geometry[2]
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {sizes_str(stride)}")
    # validated as PyTorch's setStorage does, before NumPy's as_strided can read out of bounds
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={sizes_str(size)} "
                           f"and strides={sizes_str(stride)}")
    flat = _elements(a)
    need = 0 if 0 in size else storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > flat.size:
        raise RuntimeError(f"setStorage: sizes {sizes_str(size)}, strides {sizes_str(stride)}, storage "
                           f"offset {storage_offset}, and itemsize {a.itemsize} requiring a "
                           f"storage size of {need * a.itemsize} are out of bounds for storage "
                           f"of size {flat.size * a.itemsize}")
    return np.lib.stride_tricks.as_strided(flat[storage_offset:], size,
                                           tuple(s * a.itemsize for s in stride))


def _elements(a):
    """a's storage as a flat array of a's dtype (the storage may hold another dtype: a view
    made by view_as_real, view_as_complex or set_)."""
    flat = _storage(a).reshape(-1, order="A")
    if flat.dtype != a.dtype:
        raw = flat.view(np.uint8)
        flat = raw[:raw.size - raw.size % a.itemsize].view(a.dtype)
    return flat


def _maybe_overlapping(sizes, strides):
    """PyTorch's conservative overlap test: over the dims of more than one element, by
    increasing stride, each stride must pass the furthest position the smaller ones reach."""
    reach = 0
    for n, s in sorted((p for p in zip(sizes, strides) if p[0] != 1), key=lambda p: p[1]):
        if s <= reach:
            return True
        reach += s * (n - 1)
    return False


def _as_strided_backward(grad, self_geometry, size, stride, storage_offset):
    """Gradient of as_strided for its input: the output's gradient is summed into storage
    positions, and the input reads its positions back (shared by several input elements,
    a position's gradient is split among them, as PyTorch does). Where PyTorch's overlap
    test passes, it sums with index_add_ and divides (complex arithmetic: an infinite part
    makes its partner nan); elsewhere it copies."""
    shape = self_geometry[0]
    # the output's broadcast dims are summed first, as PyTorch does
    expanded = [i for i, (n, s) in enumerate(zip(size, stride)) if s == 0 and n > 1]
    if expanded:
        grad = grad.sum(expanded)
        size = [n for i, n in enumerate(size) if i not in expanded]
        stride = [s for i, s in enumerate(stride) if i not in expanded]
    inp = _positions(*self_geometry)
    out = _positions(size, stride, self_geometry[2] if storage_offset is None else storage_offset)
    lo = min(inp.min(initial=0), out.min(initial=0))
    span = max(inp.max(initial=0), out.max(initial=0)) - lo + 1
    storage = make_tensor(np.zeros(span, grad._data.dtype))
    if _maybe_overlapping(size, stride):
        storage = storage.index_add(0, _index(out, lo), grad.reshape(-1))
    else:
        storage = storage.index_copy(0, _index(out, lo), grad.reshape(-1))
    result = storage[_index(inp, lo)]
    if _maybe_overlapping(shape, self_geometry[1]):
        counts = np.bincount((inp - lo).reshape(-1), minlength=span)
        result = result / make_tensor(counts[(inp - lo).reshape(-1)].astype(grad._data.dtype))
    return result.reshape(shape)


_as_strided_row = op(
    "as_strided", "AsStridedBackward0", "self, size, stride, storage_offset, self_geometry",
    _as_strided, view=True, function=False, method=False,
    self=lambda grad, self_geometry, size, stride, storage_offset: _as_strided_backward(
        grad, self_geometry, size, stride, storage_offset))


@public("as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s storage with the given sizes, strides and offset (in elements;
    the offset defaults to input's own)."""
    return _as_strided_row(input, tuple(size), tuple(stride), storage_offset,
                           geometry(input._data))


def _as_strided_record(base, view):
    """AsStridedBackward0 from `base`'s current history to `view` (the view's grad_fn); a
    view of another dtype than its base (view_as_real, view_as_complex) replays that op over
    the as_strided view of the base it was taken from, as PyTorch's view_fn does."""
    from .registry import _record
    a, b = view._data, base._data
    if a.dtype != b.dtype:
        return _replay_dtype_view(base, view)
    shape, strides, offset = geometry(a)
    fresh = _record(_as_strided_row.op, (base,), (shape, strides, offset, geometry(b)), (a,))[0]
    return fresh._grad_fn


def _is_complex(a):
    from .aliasing import _REAL_OF
    return a.dtype in _REAL_OF or a.dtype.kind == "W"     # W: complex32 (ml_dtypes)


def _restride(base, geom):
    """base itself when geom is its geometry, else its as_strided view (recorded)."""
    return base if geom == geometry(base._data) else as_strided(base, *geom)


def _replay_dtype_view(base, view):
    from .aliasing import view_as_complex, view_as_real
    shape, strides, offset = geometry(view._data)
    if _is_complex(view._data):
        # view_as_complex of the real view with one more dim of 2
        real = _restride(base, (shape + (2,), tuple(2 * s for s in strides) + (1,), 2 * offset))
        return view_as_complex(real)._grad_fn
    if shape and shape[-1] == 2 and strides[-1] == 1 and offset % 2 == 0 and not any(
            s % 2 for s in strides[:-1]):
        # view_as_real of a complex view of the base
        inner = _restride(base, (shape[:-1], tuple(s // 2 for s in strides[:-1]), offset // 2))
        return view_as_real(inner)._grad_fn
    return as_strided(view_as_real(base), shape, strides, offset)._grad_fn


# ---- view(dtype) --------------------------------------------------------------------------

def view_dtype(self, dtype):
    """`self`'s memory read as `dtype` (Tensor.view(dtype)). PyTorch's view.dtype is not
    differentiable and returns a tensor that shares memory and version counter but is not
    recorded as a view (no `_base`). With another element size the last dim must be
    contiguous and grows or shrinks by the size ratio, with PyTorch's checks."""
    a = self._data
    t = dtype.np
    old, new = a.itemsize, t.itemsize
    if old != new:
        what = f"to view {FROM_NP[a.dtype].legacy} as {dtype.legacy} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = self.stride()
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new > old:
            ratio = new // old
            if a.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                                   f"{a.shape[-1]}")
            offset = storage_offset(a)
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                   f"but got {offset}")
            for i, s in enumerate(strides[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, "
                                       f"but got {s}")
        if 0 in a.shape:
            shape = a.shape[:-1] + (a.shape[-1] * old // new,)
            return make_tensor(np.empty(shape, t), vc=self._vc)
    return make_tensor(a.view(t), vc=self._vc)


# ---- CopySlices ---------------------------------------------------------------------------

class CopySlices(Node):
    """The history of a base after an in-place op on one of its views; see Note [In-place
    on views]. Edges: the base's old history, then the op node's other edges."""
    __slots__ = ("fn", "view_index", "base_shape", "split", "strided",
                 "_real_part_for_real_inputs")

    def __init__(self, base, view, fn):
        # a complex base under a real view (or the reverse) is placed in real units: the
        # complex side is seen through view_as_real
        b, v = base._data, view._data
        self.split = _is_complex(b) != _is_complex(v)
        if self.split:
            from .aliasing import _view_as_real
            b = _view_as_real(b) if _is_complex(b) else b
            v = _view_as_real(v) if _is_complex(v) else v
        base_geometry, view_geometry = geometry(b), geometry(v)
        # for a graph of the backward: base's strides, the view's place relative to base
        self.strided = None if self.split or min(base_geometry[1] + view_geometry[1],
                                                 default=0) < 0 else (
            base_geometry[1], view_geometry[0], view_geometry[1],
            view_geometry[2] - base_geometry[2])
        base_pos = _positions(*base_geometry)
        lo = base_pos.min(initial=0)
        # storage position -> element of the base (flat, C order), to place the view in it
        where = np.zeros(base_pos.max(initial=0) - lo + 1, np.int64)
        where[(base_pos - lo).reshape(-1)] = np.arange(base_pos.size)
        self.view_index = where[_positions(*view_geometry) - lo]
        self.base_shape = b.shape
        self.fn = fn
        # its other edges are the op's: the op's rule for their gradients' real parts (kept
        # here, as the engine asks after the node ran and may have released fn)
        self._real_part_for_real_inputs = getattr(fn, "_real_part_for_real_inputs", False)
        self._seq = next(_sequence)
        self._hooks = None
        self._next = (edge_of(base),) + fn._next[1:]
        self._meta = ((base._data.shape, base._data.dtype),)

    def name(self):
        return "torch::autograd::CopySlices"

    def _apply(self, grads, create_graph):
        if self.fn is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        grad = grads[0]
        if grad is None:
            return [None] * len(self._fns)
        if create_graph and self.strided is not None:
            return self._apply_recorded(grad)
        complex_base = self.split and _is_complex(grad._data)
        if self.split:
            from .aliasing import view_as_complex, view_as_real
            if complex_base:
                grad = view_as_real(grad)
        flat = grad.reshape(-1)
        index = make_tensor(self.view_index.reshape(-1))
        grad_slice = flat[index].reshape(self.view_index.shape)
        if self.split and not complex_base:
            grad_slice = view_as_complex(grad_slice)
        res = self.fn._apply([grad_slice], create_graph)
        g = res[0]
        if g is not None:
            # the base's gradient, with the slice replaced by what the op's node returned
            if self.split and not complex_base:
                g = view_as_real(g)
            n = flat._data.size
            perm = np.arange(n, dtype=np.int64)
            perm[self.view_index.reshape(-1)] = n + np.arange(self.view_index.size)
            if g._data.dtype != grad._data.dtype:
                g = g.to(grad.dtype)
            from .shape import cat
            g = cat((flat, g.reshape(-1)))[make_tensor(perm)].reshape(self.base_shape)
            if complex_base:
                g = view_as_complex(g)
        return [g] + list(res[1:])

    def _apply_recorded(self, grad):
        """The backward as PyTorch runs it, so that a graph of it (create_graph) has
        PyTorch's nodes: the slice of a copy of grad goes through the op's node and is
        written back in place (a CopySlices of its own)."""
        base_strides, view_shape, view_strides, offset = self.strided
        result = grad.new_empty_strided(self.base_shape, base_strides)
        result.copy_(grad)
        grad_slice = result.as_strided(view_shape, view_strides, offset)
        res = self.fn._apply([grad_slice.clone(memory_format=_contiguous_format)], True)
        if res[0] is None:
            grad_slice.zero_()
        else:
            grad_slice.copy_(res[0])
        return [result] + list(res[1:])

    def _release(self):
        # drop the op's node, not its saved tensors: a tensor the op saved (its result) may
        # have the node itself as grad_fn in a graph built by create_graph, which then runs
        # it once more after this node
        self.fn = None


# ---- checks and rebasing ------------------------------------------------------------------

def view_meta(t):
    """The CreationMeta of view `t`."""
    e = t._extra
    return None if e is None else e.view_info


def check_view_inplace(view):
    """PyTorch's handle_view_on_rebase: views made in no_grad mode, or by a function
    returning several views, may not be modified in place while autograd records."""
    meta = view_meta(view)
    if meta is DEFAULT:
        return
    fn = view._grad_fn
    if fn is None:
        msg = ("A view was created in no_grad mode and is being modified inplace with grad mode "
               "enabled.")
    elif meta is NO_GRAD_MODE:
        msg = (f"Output {view._output_nr} of {_short(fn)} is a view of a view which was created "
               "in no_grad mode and is being modified inplace with grad mode enabled.")
    else:
        msg = f"Output {view._output_nr} of {_short(fn)} is a view and is being modified inplace."
    if meta is IN_CUSTOM_FUNCTION:
        msg += (" This view was created inside a custom Function (or because an input was "
                "returned as-is) and the autograd logic to handle view+inplace would override "
                "the custom backward associated with the custom Function, leading to incorrect "
                "gradients. This behavior is forbidden. You can fix this by cloning the output "
                "of the custom Function.")
    elif meta is MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    else:
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                "clarify your code by moving both the view and the inplace either both inside "
                "the no_grad block (if you don't want the inplace to be tracked) or both outside "
                "(if you want the inplace to be tracked).")
    raise RuntimeError(msg)


def _short(fn):
    return re.sub(r"Backward[0-9]*$", "", fn.name())


def creation_meta(base, multi_output):
    """The CreationMeta of a new view of `base` (a view of a view keeps a non-default meta
    of its base, as PyTorch's propagate_creation_meta)."""
    if not grad_mode.state.grad_enabled:
        return NO_GRAD_MODE
    if multi_output:
        return MULTI_OUTPUT_NODE
    return view_meta(base) if base._base is not None else DEFAULT


def rebase_view(view, fn):
    """After an in-place op on `view` recorded as node `fn`: the base's history becomes
    CopySlices over `fn`, the view's AsStridedBackward0 over it (Note [In-place on views])."""
    base = view._base
    copy_slices = CopySlices(base, view, fn)
    rebase_history(base, copy_slices, 0)
    rebase_history(view, _as_strided_record(base, view), 0)
    view._fn_version = view._vc[0]
