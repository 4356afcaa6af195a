"""Custom autograd Functions: `class F(Function)` with static forward/backward, `F.apply`.

As in PyTorch, the `ctx` passed to forward is the backward node itself (`y.grad_fn`), an
instance of the generated class `FBackward`, so attributes stored on ctx are visible there.
Edges (`next_functions`) exist for tensor arguments only; backward returns one value per
argument, and must return None for the others.
"""
import functools
import inspect
import warnings

import numpy as np

from .._tensor import Tensor, make_tensor
from . import forward_ad, grad_mode
from .anomaly_mode import state as _anomaly
from .graph import (ERR_BACKWARD_TWICE, HOOKED, RELEASED, Node, SavedHooked, SavedInput,
                    SavedOutput, _sequence, current_hooks, edge_of, raw_saved, rebase_history,
                    unpack)

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]

_state = grad_mode.state


class FunctionCtx:
    """What forward and backward can use on `ctx`."""

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is None:
            if getattr(self, "_to_save", None) is not None and not self._packed:
                return tuple(self._to_save)
            raise RuntimeError(ERR_BACKWARD_TWICE)
        return tuple(None if s is None else unpack(s, self) for s in saved)

    saved_variables = saved_tensors

    @property
    def _raw_saved_tensors(self):
        """The saved tensors as SavedTensors (torch._C._autograd.SavedTensor), to register
        saved-tensor hooks on one of them."""
        saved = self._saved
        if saved is None:
            if self._packed:
                raise RuntimeError(ERR_BACKWARD_TWICE)
            return ()
        return tuple(raw_saved(saved, i) for i in range(len(saved)))


class BackwardCFunction(Node, FunctionCtx):
    """The node (and ctx) of one custom Function call. Unlike other nodes it is not
    callable: `node.apply(*grads)` runs the user's backward, as in PyTorch."""
    _forward_cls = None

    @property
    def __call__(self):
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    def __init__(self):
        self._seq = next(_sequence)
        self._hooks = None
        self._next = ()
        self._meta = ()
        self._saved = None
        self._packed = False
        self._to_save = None
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self._tensor_args = ()
        self.needs_input_grad = ()

    def name(self):
        return type(self).__name__

    def apply(self, *grads):
        """The user's backward (or vjp) on `grads`, unchecked."""
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                               "not allowed. You should only implement one of them.")
        user_fn = cls.vjp if cls.vjp is not Function.vjp else cls.backward
        return user_fn(self, *grads)

    def _apply(self, grads, create_graph):
        if self._materialize_grads:
            grads = [g if g is not None else _zeros(m) for g, m in zip(grads, self._meta)]
        result = self.apply(*grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._tensor_args)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n_args}, got {len(result)})")
        out = []
        for pos, (is_tensor, g) in enumerate(zip(self._tensor_args, result)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different "
                                       f"than None at position {pos + 1}, but the corresponding "
                                       "forward input was not a Variable")
                continue
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            out.append(g)
        return out

    def _release(self):
        saved = self._saved
        if saved:     # SavedTensors taken from ctx._raw_saved_tensors see them freed
            saved[:] = [None if s is None else RELEASED for s in saved]
        self._saved = None


def _zeros(meta):
    return make_tensor(np.zeros(meta[0], meta[1]))


class FunctionMeta(type):
    """Gives each Function subclass its node class, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls,
                                                                       "__module__": "torch.autograd.function"})
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class for custom differentiable operations; see the module docstring."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        uses_setup = "setup_context" in _overrides(cls)
        if uses_setup:
            # setup_context sees every argument, defaults included, positionally
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        if _anomaly.enabled:
            import traceback
            ctx._node_hooks().metadata["traceback_"] = traceback.format_stack()[:-1]
        is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._tensor_args = is_tensor
        ctx.needs_input_grad = tuple(t and a._requires_grad for t, a in zip(is_tensor, args))
        records = _state.grad_enabled and any(ctx.needs_input_grad)
        if records:
            # edges first, as PyTorch: a forward that modifies an input must not change them
            ctx._next = tuple(edge_of(a) for a in args if isinstance(a, Tensor))
        prev = _state.grad_enabled
        _state.grad_enabled = False
        try:
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _state.grad_enabled = prev
        result = _wrap_outputs(ctx, args, outputs, records)
        if forward_ad._current_level >= 0:
            from .forward_derivatives import function_jvp
            function_jvp(cls, ctx, args, result)
        return result


def _overrides(cls):
    names = set()
    for klass in cls.__mro__:
        if klass is Function:
            break
        names.update(vars(klass))
    return names


def _wrap_outputs(ctx, args, outputs, records):
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    dirty = {id(t) for t in ctx._dirty}
    for t in ctx._dirty:
        t._vc[0] += 1      # the forward modified it in place
    if dirty:
        returned = {id(o) for o in outs if isinstance(o, Tensor)}
        if not dirty <= returned:
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
    non_diff = {id(t) for t in ctx._non_differentiable}
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    if records:
        for t in ctx._dirty:
            if t._grad_fn is None and t._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
    wrapped = []
    meta = []
    n_differentiable = sum(isinstance(o, Tensor) and id(o) not in non_diff
                           and o._data.dtype.kind in "fcVW" for o in outs)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            wrapped.append(o)
            meta.append(((), None))
            continue
        if id(o) in dirty:
            t = o
        elif id(o) in input_ids:
            # An input returned unchanged comes back as a view of it, with its own history.
            t = make_tensor(o._data, False, None, 0, o._vc)
            t._base = o if o._base is None else o._base
            t._fn_version = t._vc[0]
        else:
            t = o
        if records and id(o) not in non_diff and t._data.dtype.kind in "fcVW":
            if id(o) in dirty and t._base is not None:
                _rebase_dirty_view(t, ctx, len(outs))
            else:
                rebase_history(t, ctx, i)
                if t._base is not None:
                    # a view may not be modified in place later: the custom backward would
                    # be bypassed (PyTorch's CreationMeta::IN_CUSTOM_FUNCTION)
                    from ..ops.views import IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE
                    t._extra_state().view_info = (
                        MULTI_OUTPUT_NODE if n_differentiable > 1 else IN_CUSTOM_FUNCTION)
        elif id(o) in non_diff:
            t._requires_grad = False
        meta.append((t._data.shape, t._data.dtype))
        wrapped.append(t)
    ctx._meta = tuple(meta)
    to_save = ctx._to_save
    if to_save is not None:
        out_ids = {id(o): w for o, w in zip(outs, wrapped) if isinstance(o, Tensor)}
        # saved-tensor hooks pack what a recorded node saves (Note [Saved-tensor hooks])
        hooks = current_hooks() if HOOKED and records else None
        packed = []
        for t in to_save:
            if t is None:
                packed.append(None)
            elif id(t) in out_ids and records and out_ids[id(t)]._grad_fn is ctx:
                w = out_ids[id(t)]
                packed.append(SavedOutput(w) if hooks is None else SavedHooked(w, hooks, True))
            else:
                packed.append(SavedInput(t) if hooks is None else SavedHooked(t, hooks, False))
        ctx._saved = packed
        ctx._to_save = None
    ctx._packed = True
    return wrapped[0] if single else tuple(wrapped)


ERR_DIRTY_VIEW_MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")


def _rebase_dirty_view(view, ctx, n_outputs):
    """A view the forward modified in place: its base's history becomes CopySlices over
    ctx, as for a built-in in-place op on a view (ops/views.py, Note [In-place on views])."""
    from ..ops.views import check_view_inplace, rebase_view
    if n_outputs > 1:
        raise RuntimeError(ERR_DIRTY_VIEW_MULTIPLE_OUTPUTS)
    check_view_inplace(view)
    rebase_view(view, ctx)


def once_differentiable(fn):
    """Mark a backward as not differentiable: it runs under no_grad, and differentiating
    through it again raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _state.grad_enabled
        _state.grad_enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _state.grad_enabled = prev
        if not prev:
            return outputs
        requires_grad = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err_inputs = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
        wrapped = tuple(_delayed_error(o, err_inputs) if isinstance(o, Tensor) else o
                        for o in outs)
        return wrapped[0] if single else wrapped
    return wrapper


class DelayedError(Node):
    """Raises its message if gradient ever flows through it."""
    __slots__ = ("msg",)

    def _apply(self, grads, create_graph):
        raise RuntimeError(self.msg)


def _delayed_error(t, inputs):
    node = DelayedError()
    node._seq = next(_sequence)
    node._hooks = None
    node.msg = "trying to differentiate twice a function that was marked with @once_differentiable"
    node._next = tuple(edge_of(a) for a in inputs)
    node._meta = ((t._data.shape, t._data.dtype),)
    return make_tensor(t._data, True, node, 0)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


# ---- NestedIOFunction: PyTorch's legacy class, kept as PyTorch keeps it ---------------------

def _iter_filter(condition, condition_msg):
    """A generator over the objects of a nested list/tuple/dict that satisfy `condition`."""
    def _iter(obj):
        if condition(obj):
            yield obj
        elif obj is None:
            return
        elif isinstance(obj, (list, tuple)):
            for o in obj:
                yield from _iter(o)
        elif isinstance(obj, dict):
            for o in obj.values():
                yield from _iter(o)
        else:
            from .._platform import typename
            raise ValueError("Auto nesting doesn't know how to process an input object of type "
                             f"{typename(obj)}. Accepted types: {condition_msg}, or lists/tuples "
                             "of them")
    return _iter


_iter_tensors = _iter_filter(lambda x: isinstance(x, Tensor), "Tensors")
_iter_None_tensors = _iter_filter(lambda o: o is None or isinstance(o, Tensor),
                                  "Tensors or None")


def _map_tensor_data(obj):
    if isinstance(obj, Tensor):
        return obj.data
    if isinstance(obj, (list, tuple)):
        mapped = (_map_tensor_data(x) for x in obj)
        return type(obj)(*mapped) if hasattr(obj, "_fields") else type(obj)(mapped)
    if isinstance(obj, dict):
        return {k: _map_tensor_data(v) for k, v in obj.items()}
    return obj


def _unflatten(input, proto):
    """The flat sequence `input` in the nested list/tuple structure of `proto`."""
    def helper(input, proto):
        if not isinstance(proto, (list, tuple)):
            return input[0], input[1:]
        res = []
        for e in proto:
            if e is None:
                res.append(e)
            else:
                r, input = helper(input, e)
                res.append(r)
        return type(proto)(res), input
    return helper(input, proto)[0]


class NestedIOFunction(Function):
    """PyTorch's legacy Function over nested inputs and outputs, kept for backward
    compatibility only: like PyTorch's (whose Function lost `_do_forward`), calling an
    instance fails; use Function."""

    def _do_forward(self, *input):
        self._nested_input = input
        flat_input = tuple(_iter_tensors(input))
        flat_output = super()._do_forward(*flat_input)
        return _unflatten(flat_output, self._nested_output)

    def _do_backward(self, gradients, retain_variables):
        self.retain_variables = retain_variables
        result = super()._do_backward(gradients, retain_variables)
        if not retain_variables:
            del self._nested_output
            del self._to_save_nested
        return result

    def backward(self, *gradients):
        """Shared backward utility: backward_extended on the nested gradients."""
        nested_gradients = _unflatten(gradients, self._nested_output)
        result = self.backward_extended(*nested_gradients)
        return tuple(_iter_None_tensors(result))

    __call__ = _do_forward

    def forward(self, *args):
        """Shared forward utility: forward_extended on the nested inputs' data."""
        nested_tensors = _map_tensor_data(self._nested_input)
        result = self.forward_extended(*nested_tensors)
        del self._nested_input
        self._nested_output = result
        return tuple(_iter_tensors(result))

    def save_for_backward(self, *args):
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        return _unflatten(self.to_save, self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))

    def forward_extended(self, *input):
        """User defined forward."""
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        """User defined backward."""
        raise NotImplementedError
