"""The backward graph: Node, AccumulateGrad, saved tensors.

Note [Edges]
A node's `next_functions` is a tuple with one `(node, input_nr)` pair per forward input:
the input's `grad_fn` and `output_nr`, its `AccumulateGrad` for a leaf that requires grad,
or `(None, 0)` for an input that needs no gradient (Python numbers included). Edges always
point from a node to nodes created before it (a lower sequence number), except
AccumulateGrad, whose sequence number is the maximum so the engine runs it as soon as
it is ready, as PyTorch does.
A node keeps them as two tuples, `_fns` (the nodes) and `_nrs` (the input numbers): a pair
per edge would be one more object for the cyclic collector to track, and a tuple of ints is
not tracked at all (all-zero ones are shared). Graphs of tiny ops are mostly such objects,
and the collector's full passes walk all of them (Note [Objects per node]).

Note [Saved outputs]
A node keeps its inputs as the Tensors themselves (they never point back at the node), but
an output as its array, version counter and version: the output Tensor points at the node,
so holding it would make a reference cycle. Unpacking rebuilds a Tensor whose grad_fn is
the node, so formulas that read `result` are still differentiable.
"""
import collections
import contextlib
import functools
import itertools
import re
import sys
import threading
import weakref

from .. import _tensor
from ..utils.hooks import RemovableHandle

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "Node",
           "GradientEdge", "get_gradient_edge", "increment_version",
           "region_activation_memory_budget", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]

_sequence = itertools.count()
MAX_SEQ = sys.maxsize
_ZERO_NRS = tuple((0,) * n for n in range(9))   # shared input numbers of common edges


class Node:
    """A backward function in the graph (`grad_fn`). Calling it runs its backward."""
    __slots__ = ("_fns", "_nrs", "_seq", "_meta", "_hooks", "__weakref__")
    # _fns, _nrs: the edges' nodes and input numbers, see Note [Edges]
    # _meta: per forward output, (shape, dtype) the gradient arriving there must match
    # _hooks: None, or a _NodeHooks holding the rarely used hook dicts

    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return tuple(zip(self._fns, self._nrs))

    def _set_next(self, edges):
        edges = tuple(edges)
        self._fns = tuple([e[0] for e in edges])
        nrs = tuple([e[1] for e in edges])
        self._nrs = _ZERO_NRS[len(nrs)] if len(nrs) < len(_ZERO_NRS) and not any(nrs) else nrs

    # the edges as (node, input_nr) pairs; hot paths read _fns and _nrs instead
    _next = property(next_functions.fget, _set_next)

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
        self._fns = self._nrs = ()
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


# (node, output_nr, ownership_token), as torch.autograd.graph.GradientEdge (a NamedTuple;
# chainrule's nodes keep their graph alive, so the token stays None)
GradientEdge = collections.namedtuple("GradientEdge", ["node", "output_nr", "ownership_token"],
                                      defaults=(None,))
GradientEdge.__doc__ = "A given gradient edge of the autograd graph: (node, output_nr)."


def get_gradient_edge(tensor):
    """The GradientEdge through which gradient reaches `tensor`."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    return GradientEdge(*edge_of(tensor))


def increment_version(tensor):
    """Bump the version counter of `tensor` (or of each tensor of an iterable), as an
    in-place change autograd did not see would; inference tensors have none."""
    from .._tensor import Tensor
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if t._extra is None or not t._extra.inference:
            t._vc[0] += 1


# ---- saved tensors ------------------------------------------------------------------------

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


RELEASED = object()    # what a saved tensor becomes once backward has freed it


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


class SavedViewOutput(SavedOutput):
    """The output of an in-place op on a view: unpacked with the view's grad_fn at save
    time (AsStridedBackward0 over the base's CopySlices) while that node lives, else with
    the op's own node, as PyTorch's SavedVariable (is_inplace_on_view) does."""
    __slots__ = ("view_fn",)


def unpack_output(saved, node):
    if saved.vc[0] != saved.version:
        raise_modified(saved.data, saved.vc[0], saved.version, node, saved.output_nr)
    if type(saved) is SavedViewOutput:
        fn = saved.view_fn()
        if fn is not None:
            return _tensor.make_tensor(saved.data, saved.requires_grad, fn, 0, saved.vc)
    return _tensor.make_tensor(saved.data, saved.requires_grad, node, saved.output_nr,
                               saved.vc)


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


# ---- saved-tensor hooks -------------------------------------------------------------------
# Note [Saved-tensor hooks]
# Under saved_tensors_hooks(pack, unpack) a node saves `pack(tensor)` instead of the tensor
# (SavedHooked); reading the value (backward, grad_fn._saved_*, ctx.saved_tensors) calls
# `unpack` and rebuilds a tensor with the saved autograd metadata: the node for an output,
# the grad_fn for a non-leaf input, the leaf's own AccumulateGrad for a leaf. As in
# PyTorch, no version check is made then (the hooks hide the tensor), and the pair of hooks
# in force is thread-local. Every tensor a node keeps is packed, once per save, in
# PyTorch's order (tensor arguments by name, index and mask tensors included, then outputs);
# Python numbers and shapes are not. Saving checks one module-level list, `HOOKED`, which is
# empty while no thread has hooks, so the path without hooks costs one test per node.

class _HooksState(threading.local):
    stack = ()             # (pack, unpack) pairs, innermost last
    disabled = None        # disable_saved_tensors_hooks's error message


_hooks_state = _HooksState()
HOOKED = []                # one entry per pushed pair, over all threads


def current_hooks():
    """The innermost (pack, unpack) pair of this thread, or None; check HOOKED first."""
    stack = _hooks_state.stack
    return stack[-1] if stack else None


def _push_hooks(pack_hook, unpack_hook):
    st = _hooks_state
    if st.disabled is not None:
        raise RuntimeError(st.disabled)
    st.stack = st.stack + ((pack_hook, unpack_hook),)
    HOOKED.append(None)


def _pop_hooks():
    st = _hooks_state
    st.stack = st.stack[:-1]
    HOOKED.pop()


ERR_PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")


class SavedHooked:
    """A tensor saved through a pack hook: the packed object, the unpack hook and the
    autograd metadata to rebuild the tensor with (see Note [Saved-tensor hooks]). `arg` is
    what pack sees: the tensor itself when saved, its detached data for register_hooks."""
    __slots__ = ("packed", "unpack", "grad_fn", "output_nr", "requires_grad", "acc",
                 "is_output")

    def __init__(self, t, hooks, is_output, arg=None):
        self.is_output = is_output = is_output and t._requires_grad
        self.output_nr = t._output_nr
        self.requires_grad = t._requires_grad
        self.grad_fn = None if is_output else t._grad_fn
        self.acc = (weakref.ref(accumulator_of(t)) if self.grad_fn is None and t._requires_grad
                    and not is_output else None)
        self.unpack = hooks[1]
        if arg is None:
            arg = t
        # pack runs without grad mode and may not modify what it is given (PyTorch's checks)
        from .grad_mode import state
        version = arg._vc[0]
        prev = state.grad_enabled
        state.grad_enabled = False
        try:
            self.packed = hooks[0](arg)
        finally:
            state.grad_enabled = prev
        if arg._vc[0] != version:
            raise RuntimeError(ERR_PACK_INPLACE)


def unpack_hooked(saved, node):
    """The tensor a SavedHooked stands for: unpack's result with the saved metadata.
    `node` is the node that saved it (None when read through SavedTensor.unpack())."""
    from .._tensor import Tensor, make_tensor
    data = saved.unpack(saved.packed)
    if not isinstance(data, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(data).__name__}")
    grad_fn = saved.grad_fn
    if saved.is_output:
        if node is None:
            raise RuntimeError(ERR_DETACHED)
        grad_fn = node
    if grad_fn is not None:
        return make_tensor(data._data, True, grad_fn, saved.output_nr)
    if saved.requires_grad:
        t = make_tensor(data._data, True)
        t._acc = saved.acc        # gradients reach the saved leaf itself
        return t
    return data if not data._requires_grad else make_tensor(data._data)


def unpack(saved, node):
    """Any saved tensor entry (SavedInput, SavedOutput, SavedHooked) as a tensor."""
    kind = type(saved)
    if kind is SavedInput:
        return unpack_input(saved)
    if kind is SavedOutput or kind is SavedViewOutput:
        return unpack_output(saved, node)
    return unpack_hooked(saved, node)


class saved_tensors_hooks:
    """Context manager under which every tensor a node saves for backward is stored as
    `pack_hook(tensor)`, and read back as `unpack_hook(packed)`; the innermost pair wins."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _pop_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (a copy into pinned memory with pin_memory where
    the device module is available) and moved back to their device on unpack. chainrule's
    tensors are on the CPU already, so they are kept as they are, as PyTorch keeps CPU
    tensors."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        import chainrule
        device_module = getattr(chainrule, device_type, chainrule.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = chainrule.empty(tensor.size(), dtype=tensor.dtype, layout=tensor.layout,
                                     pin_memory=is_pinnable)
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager under which setting saved-tensor hooks raises RuntimeError with
    `error_message` (entering it while hooks are set raises it too)."""
    st = _hooks_state
    prev = st.disabled
    try:
        st.disabled = error_message
        if st.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        st.disabled = prev


# ---- multi-grad hooks, mutation of saved tensors, compiler and stream settings ----------

class _MultiHandle(RemovableHandle):
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def _get_grad_fn_or_grad_acc(t):
    if isinstance(t, GradientEdge):
        return t.node
    if t.requires_grad and t.grad_fn is None:
        return accumulator_of(t)
    return t.grad_fn


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register `fn` on several tensors: with mode "all", called once per backward with the
    gradients of all of them that the backward computes (None for the others); with mode
    "any", called with the first of their gradients computed."""
    from . import engine
    supported_modes = ("all", "any")
    lock = threading.Lock()
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "all":
        count = {}
        buffer = {}
        nb_calls = None
        grad_fns = list(map(_get_grad_fn_or_grad_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal nb_calls
                task = engine.current_graph_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                count[task] = count.get(task, 0)
                buffer[task] = buffer.get(task, [None] * len_tensors)
                with lock:
                    curr_count, count[task] = count[task], count[task] + 1
                    if curr_count == 0:
                        # the tensors this backward reaches, counted on its first call
                        nb_calls = sum(map(engine.will_engine_execute_node, grad_fns))
                buffer[task][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[task])
                    del count[task]
                    del buffer[task]
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook = collections.defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = engine.current_graph_task_id()
            if task == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            with lock:
                prev, ran_hook[task] = ran_hook[task], True
            if not prev:
                fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


# Note [Allow mutation on tensors saved for backward]
# As PyTorch: under allow_mutation_on_saved_tensors, saved tensors are packed as handles to
# the original tensor, keyed by (id, data pointer, version); an in-place op on a tensor whose
# (data pointer, version) was saved first clones the original (PyTorch intercepts the op
# with a dispatch mode; chainrule's in-place ops call ops.inplace.MUTATION_HOOK, checked
# once per in-place op), and backward unpacks the clone.
_allow_mutation_on_saved_tensors_enabled = False


def _get_tid(tensor):
    return (id(tensor), tensor.data_ptr(), tensor._version)


def _get_sid(tensor):
    return (tensor.data_ptr(), tensor._version)


class _Handle:
    pass


class _swap_with_cloned(saved_tensors_hooks):
    def __init__(self, ctx):
        def pack_hook(tensor):
            tid = _get_tid(tensor)
            ctx.sid_to_tid[_get_sid(tensor)].add(tid)     # aliasing information
            # the same tensor (of the same version) can be saved several times
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle):
            error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                         "contextin which the graph was originally recorded.")
            if not _allow_mutation_on_saved_tensors_enabled:
                raise AssertionError(error_msg)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(error_msg)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


class _AllowMutationOnSavedContext:
    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = collections.defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def _clone_before_mutate(self, t):
        """Clone the saved originals that `t` aliases, before an in-place op writes it."""
        for tid in self.sid_to_tid.get(_get_sid(t), ()):
            handle = self.tid_to_weakhandle.get(tid)
            # a tensor saved and then freed by backward before the write has no handle
            if handle is None or handle in self.cloned:
                continue
            self.cloned[handle] = self.original[handle].clone()
            del self.original[handle]


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place: they
    are cloned before the change, and backward uses the clone. Forward and backward must
    both run under it. Yields the context's state, cleared on exit."""
    global _allow_mutation_on_saved_tensors_enabled
    from ..ops import inplace
    ctx = _AllowMutationOnSavedContext()
    prev_hook = inplace.MUTATION_HOOK
    with _swap_with_cloned(ctx):
        inplace.MUTATION_HOOK = ctx._clone_before_mutate
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:
            inplace.MUTATION_HOOK = prev_hook
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False


def region_activation_memory_budget(budget):
    """The activation memory budget of a region of a compiled forward (torch.compile's
    partitioner): chainrule runs compiled code eagerly, where PyTorch refuses it."""
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError("torch.autograd.graph.region_activation_memory_budget: expects a "
                        f"float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError("torch.autograd.graph.region_activation_memory_budget: must be in "
                         f"[0, 1], got {budget}")
    raise RuntimeError("torch.autograd.graph.region_activation_memory_budget can only be used "
                       "inside a torch.compile region; it has no effect in eager mode.")


def _check_bool(enabled):
    if type(enabled) is not bool:
        raise RuntimeError(f"enabled must be a bool, but got {type(enabled).__name__}")


_stream_settings = {"warn_on_accumulate_grad_stream_mismatch": True,
                    "override_stale_capture_stream": False}


def set_warn_on_accumulate_grad_stream_mismatch(enabled):
    """Whether to warn when AccumulateGrad's stream differs from the gradient producer's;
    chainrule's CPU tensors have one stream, so the setting is only kept."""
    _check_bool(enabled)
    _stream_settings["warn_on_accumulate_grad_stream_mismatch"] = enabled


def set_override_stale_capture_stream(enabled):
    """What to do with a stale stream during CUDA graph capture; kept only (no CUDA)."""
    _check_bool(enabled)
    _stream_settings["override_stale_capture_stream"] = enabled


# ---- SavedTensor: grad_fn._raw_saved_* ----------------------------------------------------

ERR_REGISTER_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"
ERR_REGISTER_TWICE = ("Calling register_hooks on a saved tensor whose hooks have already been "
                      "set. Hint: only one pair of hooks is allowed at a time.")
ERR_REGISTER_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward.")


class SavedTensor:
    """One value a node saved (torch._C._autograd.SavedTensor): `grad_fn._raw_saved_self`,
    `ctx._raw_saved_tensors[i]`. register_hooks packs it now and unpacks it on use."""
    __slots__ = ("_holder", "_key")

    def __init__(self, *args):
        if len(args) != 3 or args[0] is not _TOKEN:
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        # holder[key]: the saved entry, None when nothing was saved, RELEASED once freed
        _, self._holder, self._key = args

    def _entry(self):
        return self._holder[self._key]

    def register_hooks(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked "
                f"with: {self!r}, {pack_hook!r}, {unpack_hook!r}")
        from .._tensor import Tensor, make_tensor
        entry = self._entry()
        if entry is None:
            raise RuntimeError(ERR_REGISTER_NONE)
        kind = type(entry)
        if kind is SavedHooked:
            raise RuntimeError(ERR_REGISTER_TWICE)
        if entry is RELEASED:
            raise RuntimeError(ERR_REGISTER_FREED)
        if kind is SavedInput or isinstance(entry, Tensor):    # a tensor taken as a param too
            t = entry.t if kind is SavedInput else entry
            arg = t.detach()
        elif kind is SavedOutput or kind is SavedViewOutput:
            t = make_tensor(entry.data, entry.requires_grad, None, entry.output_nr, entry.vc)
            arg = make_tensor(entry.data, False, None, 0, entry.vc)
        else:        # a Python number an op took for a tensor (PyTorch's wrapped number)
            t = arg = _wrapped(entry)
        self._holder[self._key] = SavedHooked(t, (pack_hook, unpack_hook),
                                              kind is SavedOutput or kind is SavedViewOutput, arg)

    @property
    def data(self):
        """The packed object, or the saved tensor's data when it has no hooks."""
        from .._tensor import Tensor, make_tensor
        entry = self._entry()
        kind = type(entry)
        if kind is SavedHooked:
            return entry.packed
        if kind is SavedInput:
            return entry.t
        if isinstance(entry, Tensor):
            return entry
        if kind is SavedOutput or kind is SavedViewOutput:
            return make_tensor(entry.data, False, None, 0, entry.vc)
        return None if entry is None or entry is RELEASED else _wrapped(entry)

    @property
    def unpack_hook(self):
        entry = self._entry()
        return entry.unpack if type(entry) is SavedHooked else None

    def unpack(self):
        from .._tensor import Tensor
        entry = self._entry()
        if entry is None or isinstance(entry, Tensor):
            return entry
        if entry is RELEASED:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if isinstance(entry, SavedOutput) and entry.requires_grad:
            raise RuntimeError(ERR_DETACHED)     # PyTorch finds no node to attach it to
        return unpack(entry, None)

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


SavedTensor.__module__ = "torch._C._autograd"


def _wrapped(number):
    import numpy as np
    from .._tensor import make_tensor
    return make_tensor(np.asarray(number))


_TOKEN = object()


def raw_saved(holder, key):
    """The SavedTensor for holder[key] (a node's saved dict, a ctx's saved list)."""
    return SavedTensor(_TOKEN, holder, key)


from ._inspect import memory_report  # noqa: E402,F401  (needs the names above)
