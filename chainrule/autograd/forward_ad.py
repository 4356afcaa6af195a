"""chainrule.autograd.forward_ad: forward-mode AD with dual tensors, as PyTorch's.

Inside `dual_level()`, `make_dual(x, t)` gives a tensor carrying the tangent `t`; every op
computes its output's tangent beside its value (forward_derivatives.py), and
`unpack_dual(y)` reads it back. One level exists at a time, as in PyTorch.

Tangents live in one dict of the level, keyed by the tensor's id (a weak reference drops
an entry when its tensor dies), not on the tensor: exiting the level drops the dict, so
tangents vanish with it, and tensors carry no forward-AD state at all.
"""
import weakref
from typing import NamedTuple

from .._tensor import Tensor
from .grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1
_tangents = {}      # id(tensor) -> (weak reference to it, its tangent), for the live level
# node -> {output_nr: tangent}: see Note [Tangents of saved tensors] in forward_derivatives.py
_node_tangents = weakref.WeakKeyDictionary()


def enter_dual_level():
    """Enter a new forward grad level; returns its index. Only one level may exist."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    from ..ops import registry
    from . import forward_derivatives
    _current_level = 0
    _tangents.clear()
    registry.FORWARD_AD = forward_derivatives.dispatch
    return _current_level


def exit_dual_level(*, level=None):
    """Exit the forward grad level, deleting every tangent of it."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    from ..ops import registry
    registry.FORWARD_AD = None
    _tangents.clear()
    _node_tangents.clear()
    _current_level = level - 1


def get_tangent(t):
    """The tangent of tensor `t` at the live level, or None. A view without one of its own
    gets a view of its base's, made when first asked for, as PyTorch's views do (the view
    may predate its base's tangent)."""
    entry = _tangents.get(id(t))
    if entry is not None:
        return entry[1]
    base = t._base
    if base is None:
        return None
    entry = _tangents.get(id(base))
    if entry is None or entry[1] is None or entry[1]._data.dtype != base._data.dtype \
            or entry[1].stride() != base.stride():
        return None     # a tangent not laid out as its primal: no view of it maps
    return view_tangent(t, entry[1])


def view_tangent(view, base_tangent):
    """Give `view` the view of its base's tangent (laid out as the base) that it is of its
    base, through a dtype view for a view of another dtype (view_as_complex)."""
    from ..ops import registry
    base = view._base
    offset = base.storage_offset()
    hook, registry.FORWARD_AD = registry.FORWARD_AD, None
    try:
        if view._data.dtype != base._data.dtype:
            offset = offset * base._data.itemsize // view._data.itemsize
            base_tangent = base_tangent.view(view.dtype)
        offset = base_tangent.storage_offset() + view.storage_offset() - offset
        tangent = base_tangent.as_strided(view.shape, view.stride(), offset)
    finally:
        registry.FORWARD_AD = hook
    set_tangent(view, tangent)
    return tangent


def set_tangent(t, tangent):
    """Make `tangent` the tangent of `t` at the live level; None marks `t` as having none
    even where its base has one (unpack_dual's primal)."""
    key = id(t)
    store = _tangents
    store[key] = (weakref.ref(t, lambda _, key=key: store.pop(key, None)), tangent)
    if tangent is not None and t._grad_fn is not None:
        tangents = _node_tangents.get(t._grad_fn)
        if tangents is None:
            tangents = _node_tangents[t._grad_fn] = {}
        tangents[t._output_nr] = tangent


def make_dual(tensor, tangent, *, level=None):
    """A tensor aliasing `tensor` (a view of it) that carries `tangent` as its forward
    gradient; backward differentiable like a view."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if get_tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    check_tangent_size(tensor, tangent)
    from ..ops import registry
    hook, registry.FORWARD_AD = registry.FORWARD_AD, None
    try:
        dual = tensor.view(tensor.shape)
        if tangent.stride() != tensor.stride() and tensor.numel() > 1:
            # PyTorch keeps the tangent as-is only when it is laid out as the primal
            tangent = tensor.new_empty_strided(tensor.shape, tensor.stride(),
                                               dtype=tangent.dtype).copy_(tangent)
    finally:
        registry.FORWARD_AD = hook
    set_tangent(dual, tangent)
    return dual


def check_tangent_size(tensor, tangent):
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by `unpack_dual`: the primal and the tangent of a dual tensor."""
    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor, *, level=None):
    """`(primal, tangent)` of `tensor`: the primal a view of it without tangent (inside a
    level), the tangent as stored (None when it has none)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if level != _current_level:
        raise RuntimeError("Invalid level given to _fw_primal")
    tangent = get_tangent(tensor)
    from ..ops import registry
    hook, registry.FORWARD_AD = registry.FORWARD_AD, None
    try:
        primal = tensor.view(tensor.shape)
    finally:
        registry.FORWARD_AD = hook
    set_tangent(primal, None)
    return UnpackedDualTensor(primal, tangent)


class dual_level(_DecoratorContextManager):
    """Context manager for forward AD: enters a level on entry and exits it (dropping its
    tangents) on exit. Only a single level is supported, as in PyTorch."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
