"""The backward graph: Node, AccumulateGrad, saved tensors.

Note [Edges]
A node's `next_functions` is a tuple with one `(node, input_nr)` pair per forward input:
the input's `grad_fn` and `output_nr`, its `AccumulateGrad` for a leaf that requires grad,
or `(None, 0)` for an input that needs no gradient (Python numbers included). Edges always
point from a node to nodes created before it (a lower sequence number), except
AccumulateGrad, whose sequence number is the maximum so the engine runs it as soon as
it is ready, as PyTorch does.

Note [Saved outputs]
A node keeps its inputs as the Tensors themselves (they never point back at the node), but
an output as its array, version counter and version: the output Tensor points at the node,
so holding it would make a reference cycle. Unpacking rebuilds a Tensor whose grad_fn is
the node, so formulas that read `result` are still differentiable.
"""
import itertools
import re
import sys
import weakref

from ..utils.hooks import RemovableHandle

__all__ = ["Node", "AccumulateGrad", "GradientEdge", "get_gradient_edge"]

_sequence = itertools.count()
MAX_SEQ = sys.maxsize


class Node:
    """A backward function in the graph (`grad_fn`). Calling it runs its backward."""
    __slots__ = ("_next", "_seq", "_meta", "_hooks", "__weakref__")
    # _next: tuple of (node, input_nr) edges, see Note [Edges]
    # _meta: per forward output, (shape, dtype) the gradient arriving there must match
    # _hooks: None, or a _NodeHooks holding the rarely used hook dicts

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return self._next

    @property
    def metadata(self):
        return self._node_hooks().metadata

    @property
    def _sequence_nr(self):
        return self._seq

    @property
    def _input_metadata(self):
        return self._meta

    def _node_hooks(self):
        h = self._hooks
        if h is None:
            h = self._hooks = _NodeHooks()
        return h

    def register_hook(self, fn):
        """Register `fn(grad_inputs, grad_outputs)`, run after this node; it may return
        replacement grad_inputs."""
        d = self._node_hooks().post
        handle = RemovableHandle(d)
        d[handle.id] = fn
        return handle

    def register_prehook(self, fn):
        """Register `fn(grad_outputs)`, run before this node; it may return replacement
        grad_outputs."""
        d = self._node_hooks().pre
        handle = RemovableHandle(d)
        d[handle.id] = fn
        return handle

    def _register_tensor_hook(self, output_nr, fn):
        d = self._node_hooks().tensor_pre
        handle = RemovableHandle(d)
        d[handle.id] = (output_nr, fn)
        return handle

    def __call__(self, *grads):
        """Run this node's backward on `grads` (one per forward output) and return the
        gradients for its inputs: a Tensor for one input, else a tuple."""
        from .grad_mode import state
        grads = list(grads)
        n = len(self._input_metadata)
        if len(grads) != n:
            raise TypeError(f"{self.name()} expects {n} gradient(s), got {len(grads)}")
        out = self._apply(grads, state.grad_enabled)
        if not out:
            return ()
        return out[0] if len(out) == 1 else tuple(out)

    def _apply(self, grads, create_graph):
        raise NotImplementedError

    # Nodes whose _apply takes `needed`, a tuple saying which next edges the running backward
    # needs (Note [Needed inputs] in engine.py).
    _takes_needed = False

    def _release(self):
        """Drop saved state after a backward without retain_graph."""

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class _NodeHooks:
    __slots__ = ("pre", "post", "tensor_pre", "retain", "metadata")

    def __init__(self):
        self.pre = {}
        self.post = {}
        self.tensor_pre = {}     # handle id -> (output_nr, fn)
        self.retain = {}         # output_nr -> weakref to the Tensor that retains grad
        self.metadata = {}


class AccumulateGrad(Node):
    """The node that writes a leaf's gradient into `.grad` (reached for leaves that
    require grad)."""
    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self._seq = MAX_SEQ
        self._next = ()
        self._meta = None
        self._hooks = None

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def _input_metadata(self):
        v = self.variable
        e = v._extra
        if e is not None:
            from .._tensor import _SAME
            if e.grad_dtype is not _SAME:     # Tensor.grad_dtype: that dtype, or None for any
                return ((v._data.shape, None if e.grad_dtype is None else e.grad_dtype.np),)
        return ((v._data.shape, v._data.dtype),)

    def _apply(self, grads, create_graph):
        from . import engine
        g = grads[0]
        grads[0] = None    # so the engine's buffer no longer counts as a holder of g
        engine.accumulate_grad(self.variable, g, create_graph)
        return ()


class CopyBackwards(Node):
    """The node of AccumulateGrad's copy of a first gradient that requires grad (under
    create_graph): PyTorch copies into a fresh tensor, so the first edge, for that
    tensor, is empty and the second leads to the gradient's history."""
    __slots__ = ()

    def __init__(self, src):
        self._seq = next(_sequence)
        self._next = ((None, 0), edge_of(src))
        self._meta = ((src._data.shape, src._data.dtype),)
        self._hooks = None

    def name(self):
        return "torch::autograd::CopyBackwards"

    def _apply(self, grads, create_graph):
        return [None, grads[0]]


# Note [Stale views]
# A view records the version of its base's counter when its grad_fn was set (_fn_version).
# If the base, or another view of it, is later modified in place, the counter moves on and
# the view's history is stale: as PyTorch does, it is regenerated on first use as
# AsStridedBackward0 over the base's current history (otherwise its gradient would flow into
# the pre-modification graph). Everything that reads a view's history goes through
# refresh_view_history: Tensor.grad_fn, edge_of, the op recorder and in-place dispatch.


def rebase_history(t, fn, output_nr):
    """Make output `output_nr` of `fn` the history of `t`, which was modified in place. As
    in PyTorch, a retains_grad hook moves to the new node; other tensor hooks stay with
    the old one (they see the gradient of the value from before the change)."""
    old = t._grad_fn
    if old is not None and t._extra is not None and t._extra.retains_grad:
        old._hooks.retain.pop(t._output_nr, None)
        fn._node_hooks().retain[output_nr] = weakref.ref(t)
    t._grad_fn = fn
    t._output_nr = output_nr
    t._requires_grad = True


def accumulator_of(t):
    """The AccumulateGrad node of leaf `t`, made on first use and then shared.

    The leaf holds it weakly and the node holds the leaf strongly, so there is no cycle
    and the node lives as long as some graph uses it."""
    ref = t._acc
    if ref is not None:
        node = ref()
        if node is not None:
            return node
    node = AccumulateGrad(t)
    t._acc = weakref.ref(node)
    return node


def refresh_view_history(t):
    """The grad_fn of view `t`, regenerated when its base was modified in place since it
    was set (Note [Stale views]); call only for views (`t._base is not None`)."""
    if t._fn_version != t._vc[0]:
        t._fn_version = t._vc[0]
        if t._grad_fn is not None:
            from ..ops.views import _as_strided_record
            rebase_history(t, _as_strided_record(t._base, t), 0)
    return t._grad_fn


def edge_of(t):
    """The (node, input_nr) edge through which gradient reaches Tensor `t`."""
    fn = t._grad_fn if t._base is None else refresh_view_history(t)
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (accumulator_of(t), 0)
    return (None, 0)


class GradientEdge(tuple):
    """(node, output_nr), as torch.autograd.graph.GradientEdge."""
    __slots__ = ()

    def __new__(cls, node, output_nr):
        return tuple.__new__(cls, (node, output_nr))

    node = property(lambda self: self[0])
    output_nr = property(lambda self: self[1])


def get_gradient_edge(tensor):
    """The GradientEdge through which gradient reaches `tensor`."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    return GradientEdge(*edge_of(tensor))


# ---- saved tensors ------------------------------------------------------------------------

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class SavedInput:
    """An input tensor saved for backward, with its version at save time and whether it
    was a leaf (a non-leaf that has since lost its grad_fn was detached in place)."""
    __slots__ = ("t", "version", "leaf")

    def __init__(self, t):
        self.t = t
        self.version = t._vc[0]
        self.leaf = t._grad_fn is None


class SavedOutput:
    """An output saved by its own node; see Note [Saved outputs]."""
    __slots__ = ("data", "vc", "version", "output_nr", "requires_grad")

    def __init__(self, t):
        self.data = t._data
        self.vc = t._vc
        self.version = t._vc[0]
        self.output_nr = t._output_nr
        self.requires_grad = t._requires_grad


def unpack_output(saved, node):
    from .._tensor import make_tensor
    if saved.vc[0] != saved.version:
        raise_modified(saved.data, saved.vc[0], saved.version, node, saved.output_nr)
    return make_tensor(saved.data, saved.requires_grad, node, saved.output_nr, saved.vc)


ERR_DETACHED = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def unpack_input(saved):
    """The saved input tensor, after PyTorch's checks: not detached in place, not modified
    in place since it was saved."""
    t = saved.t
    if t._grad_fn is None and not saved.leaf:
        raise RuntimeError(ERR_DETACHED)
    if t._vc[0] != saved.version:
        check_input_version(t, saved.version)
    return t


def check_input_version(t, version):
    if t._vc[0] != version:
        # PyTorch names the tensor's grad_fn as it is now: a stale view's is regenerated
        fn = t._grad_fn if t._base is None else refresh_view_history(t)
        raise_modified(t._data, t._vc[0], version, fn, t._output_nr)
    return t


def raise_modified(data, now, saved, fn, output_nr):
    from .._dims import sizes_str
    from .._dtype import FROM_NP, tensor_type_name
    from .anomaly_mode import state as anomaly
    what = f"[{tensor_type_name(FROM_NP[data.dtype])} {sizes_str(data.shape)}]"
    if fn is not None:
        what += f", which is output {output_nr} of {re.sub(r'Backward(0$)?', '', fn.name())},"
    if anomaly.enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {what} is at version {now}; expected version {saved} instead. {hint}")
