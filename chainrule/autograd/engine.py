"""The backward engine: a worklist over the graph, never recursion.

Follows PyTorch's engine (torch/csrc/autograd/engine.cpp):
1. count, for every node reachable from the roots, how many edges lead into it;
2. with `inputs=`, mark which nodes must run to reach them (exec_info);
3. run ready nodes in the order of a ready queue that favours higher sequence numbers
   (AccumulateGrad has the highest), gathering gradients for nodes that are not ready yet in
   input buffers, and dropping every buffer as soon as its node has consumed it.

Note [Ready queue order]
PyTorch keeps ready nodes in a std::priority_queue. Several AccumulateGrad nodes that become
ready together tie on priority, and libstdc++'s heap then pops them in an order that is not
first-in-first-out (hooks on 6 stacked leaves fire 0, 2, 5, 4, 1, 3). ReadyQueue reproduces
libstdc++'s push_heap/pop_heap exactly, so hooks and accumulation run in PyTorch's order.
The queue rarely holds more than a few nodes, so doing this in Python costs little.

Note [No cyclic GC during backward]
The graph holds no reference cycles (see graph.py), so everything backward frees goes by
reference counting. Left on, the cyclic collector is triggered again and again by the
tensors backward allocates, and each full collection walks the whole live graph. Measured
on a 30,000-op chain of sin (a shared 2-core machine): plain backward 0.80 s with the
collector off, 1.12 s with it on (684 collections); create_graph=True 0.73 s against
1.80 s (5,672 collections). So it stays off while any backward runs, in any thread.
The collector's switch is process-wide and the user's own; the rules:
- one _GCPause object is shared by all running backwards: the first one in records
  whether the collector was on and turns it off (under a lock, so two threads cannot both
  see it on); each backward holds a reference, and reference counting is the counter;
- when the last reference goes, the _GCPause dies, and if the collector was on, the
  weakref callback turns it on again. The callback is operator.methodcaller("enable")
  on a weakref whose class attribute `enable` is gc.enable: C from end to end, so no
  bytecode runs between the last reference going and the collector coming back, and a
  KeyboardInterrupt from a signal handler cannot fall in between;
- run_backward drops its reference as the first statement of its `finally`, which nothing
  can interrupt before it runs. An interrupt inside _pause_gc itself, after the collector
  went off, leaves the _GCPause in _pause_gc's frame, which the exception's traceback
  keeps: the collector comes back when the exception is dropped (the end of the `except`
  block that handles it).
A user who switches the collector in one thread while a backward runs in another gets,
when the last backward ends, the state recorded when the first began.
"""
import gc
import itertools
import operator
import sys
import threading
import warnings
import weakref

import numpy as np

from .._dims import sizes_str
from .. import _errstate
from .._dtype import FROM_NP, tensor_type_name
from .._tensor import Tensor, make_tensor
from . import grad_mode
from .anomaly_mode import state as anomaly
from ..ops import registry
from .graph import (AccumulateGrad, CopyBackwards, GradientEdge, Node, _sequence, edge_of,
                    refresh_view_history)

__all__ = ["run_backward", "accumulate_grad"]

_state = grad_mode.state


class ReadyQueue:
    """libstdc++'s std::priority_queue over nodes, keyed by sequence number."""
    __slots__ = ("heap",)

    def __init__(self):
        self.heap = []

    def push(self, item):
        # std::push_heap: the new element goes last and sifts up.
        heap = self.heap
        heap.append(item)
        _push_heap(heap, len(heap) - 1, item)

    def pop(self):
        # std::pop_heap: move the last element out, walk the hole from the root down to a
        # leaf taking the larger child (the right one on ties), then sift the last element
        # up from there.
        heap = self.heap
        top = heap[0]
        last = heap.pop()
        n = len(heap)
        if n == 0:
            return top
        hole = 0
        child = 0
        while child < (n - 1) >> 1:
            child = 2 * (child + 1)
            if heap[child][0]._seq < heap[child - 1][0]._seq:
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if (n & 1) == 0 and child == (n - 2) >> 1:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        _push_heap(heap, hole, last)
        return top


def _push_heap(heap, hole, item):
    """libstdc++'s __push_heap: move `item` up from `hole` while its parent is strictly
    smaller (so equal priorities keep their places)."""
    seq = item[0]._seq
    while hole > 0:
        parent = (hole - 1) >> 1
        if heap[parent][0]._seq < seq:
            heap[hole] = heap[parent]
            hole = parent
        else:
            break
    heap[hole] = item


class GraphRoot(Node):
    """Feeds the root gradients when backward starts from several tensors."""
    __slots__ = ("_grads",)

    def __init__(self, edges, grads):
        self._next = tuple(edges)
        self._seq = next(_sequence)
        self._meta = ()
        self._hooks = None
        self._grads = grads

    def name(self):
        return "torch::autograd::GraphRoot"

    def _apply(self, grads, create_graph):
        return list(self._grads)


class _ExecInfo:
    __slots__ = ("needed", "captures")

    def __init__(self):
        self.needed = False
        self.captures = None    # list of (input_nr, capture index)


class _GCPause:
    """Held by every running backward; see Note [No cyclic GC during backward]."""
    __slots__ = ("__weakref__",)


class _EnablingRef(weakref.ref):
    """A weakref to the _GCPause whose callback turns the collector on, in C only."""
    __slots__ = ()
    enable = gc.enable      # a builtin: read through an instance, it stays gc.enable


_enable = operator.methodcaller("enable")
_gc_lock = threading.Lock()
_gc_pause = weakref.ref(_GCPause())     # dead: no backward is running


def _pause_gc():
    """The shared _GCPause, the collector off while it lives."""
    global _gc_pause
    with _gc_lock:
        pause = _gc_pause()
        if pause is None:
            pause = _GCPause()
            _gc_pause = (_EnablingRef(pause, _enable) if gc.isenabled()
                         else weakref.ref(pause))
            gc.disable()
    return pause


def run_backward(roots, grads, keep_graph, create_graph, inputs=None, allow_unused=False,
                 accumulate=True):
    """Backpropagate `grads` from `roots` (Tensors). With accumulate, gradients land in
    `.grad`; otherwise those of `inputs` (Tensors or GradientEdges) are returned
    (autograd.grad). Arguments are checked in PyTorch's order (python_engine.cpp)."""
    if _errstate.get() is not _errstate.QUIET:    # Note [NumPy warnings]: once per backward
        return _errstate.quietly(run_backward, roots, grads, keep_graph, create_graph, inputs,
                                 allow_unused, accumulate)
    if len(roots) != len(grads):
        raise RuntimeError(f"got {len(roots)} tensors and {len(grads)} gradients")
    root_edges = []
    for i, t in enumerate(roots):
        edge = edge_of(t)
        if edge[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        root_edges.append(edge)
    output_edges = None if inputs is None else [_input_edge(t, accumulate) for t in inputs]
    if accumulate and create_graph:
        _warn_create_graph()

    if len(root_edges) == 1:
        graph_root = root_edges[0][0]
        root_buffer = [None] * _num_inputs(graph_root)
        root_buffer[root_edges[0][1]] = grads[0]
    else:
        graph_root = GraphRoot(root_edges, grads)
        root_buffer = []
    captured = [None] * len(output_edges) if output_edges is not None else None

    pause = _pause_gc()     # Note [No cyclic GC during backward]
    prev_mode = _state.grad_enabled
    _state.grad_enabled = create_graph
    prev_task = _task.current
    try:
        dependencies = _compute_dependencies(graph_root)
        exec_info = None
        if inputs is not None:
            exec_info = _init_exec_info(graph_root, output_edges, accumulate)
        _task.current = (next(_task_ids), dependencies, exec_info)
        queue = ReadyQueue()
        heap = queue.heap
        not_ready = {}
        task = (graph_root, root_buffer)
        # Note [Plain nodes]: a node without hooks, in a backward without inputs=, anomaly
        # mode or the profiler, runs here directly, its outputs checked while routed.
        plain = exec_info is None and evaluate_hook is None and not anomaly.enabled
        # gradients meeting in a buffer may be summed in place (_add_in_place) unless their
        # sum is recorded, or carries tangents (forward AD over this backward)
        steal = not create_graph and registry.FORWARD_AD is None
        while task is not None:
            node, buffer = task
            task = None
            if plain and node._hooks is None and type(node) is not AccumulateGrad:
                outputs = node._apply(buffer, create_graph)
                if not keep_graph:
                    node._release()
                fns = node._fns
                if len(outputs) != len(fns):
                    raise RuntimeError(f"invalid number of gradients - expected {len(fns)}, "
                                       f"but got {len(outputs)}")
                checked = False
            elif evaluate_hook is None:
                outputs = _evaluate(node, buffer, exec_info, captured, keep_graph, create_graph)
                checked = True
            else:   # the profiler's (chainrule.profiler); one test per node otherwise
                outputs = evaluate_hook(_evaluate, node, buffer, exec_info, captured,
                                        keep_graph, create_graph)
                checked = True
            if outputs is not None:
                i = -1
                for nxt, nr, g in zip(node._fns, node._nrs, outputs):
                    i += 1
                    if nxt is None:
                        continue
                    if not checked and g is not None:     # validate_outputs, inline
                        meta = nxt._meta
                        shape, dtype = meta[nr] if meta is not None else nxt._input_metadata[0]
                        data = g._data
                        if data.shape != shape or (data.dtype is not dtype
                                                   and data.dtype != dtype):
                            g = _fit(node, i, g, shape, dtype)
                        del data    # a reference here would stop AccumulateGrad stealing g
                    left = dependencies[nxt] - 1
                    dependencies[nxt] = left
                    buf = not_ready.get(nxt)
                    if buf is None:
                        if exec_info is not None:
                            info = exec_info.get(nxt)
                            if info is None or not (info.needed or info.captures):
                                continue
                        meta = nxt._meta
                        buf = [None] * (1 if meta is None else len(meta))
                        buf[nr] = g
                        if left:
                            not_ready[nxt] = buf
                            continue
                    else:
                        if g is not None:
                            old = buf[nr]
                            if old is None:
                                buf[nr] = g
                            elif (not steal or sys.getrefcount(old) > 3 or type(old) is not Tensor
                                  or type(g) is not Tensor
                                  or not _add_in_place(old._data, g._data)):
                                buf[nr] = old + g
                            old = None
                        if left:
                            continue
                        del not_ready[nxt]
                    # Ready. The first ready node waits here rather than in the queue: if the
                    # queue is still empty when this node is done, pushing then popping it
                    # would give it back anyway (chains never touch the heap).
                    if task is None and not heap:
                        task = (nxt, buf)
                    else:
                        if task is not None:
                            queue.push(task)
                            task = None
                        queue.push((nxt, buf))
                # Drop this frame's references to the gradients just routed, so
                # AccumulateGrad can tell a gradient that nothing else holds.
                outputs = g = buf = None
            if task is None and heap:
                task = queue.pop()
    finally:
        del pause           # first: Note [No cyclic GC during backward]
        _state.grad_enabled = prev_mode
        _task.current = prev_task

    if accumulate:
        return None
    result = []
    for i, g in enumerate(captured):
        if g is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
        result.append(g)
    return result


def _add_in_place(data, more):
    """Add `more` into `data` when the buffer's gradient is its array's only holder (PyTorch's
    InputBuffer accumulates in place when it can steal the buffer); False if it cannot.
    The caller checked that nothing else holds the gradient Tensor. Gradients reaching one
    buffer slot were checked against one (shape, dtype), so no promotion or broadcast."""
    if (sys.getrefcount(data) > 3 or data.base is not None or data.dtype not in _PLAIN_DTYPES
            or not data.flags.writeable):
        return False
    np.add(data, more, out=data)
    return True


_PLAIN_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


class _Task(threading.local):
    current = None     # (id, dependencies, exec_info) of the backward this thread runs


_task = _Task()
_task_ids = itertools.count()


def current_graph_task_id():
    """The id of the backward running in this thread, -1 outside backward (PyTorch's
    torch._C._current_graph_task_id)."""
    task = _task.current
    return -1 if task is None else task[0]


def will_engine_execute_node(node):
    """Whether the running backward will execute `node` (PyTorch's
    torch._C._will_engine_execute_node)."""
    task = _task.current
    if task is None:
        raise RuntimeError("_get_should_execute_nodes should only be called during the "
                           "backward pass")
    _, dependencies, exec_info = task
    if node not in dependencies:
        return False
    if exec_info is None:
        return True
    info = exec_info.get(node)
    if info is None or not (info.needed or info.captures):
        return False
    if info.captures and all(n is None for n in node._fns):
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return True


_warned_create_graph = False


def _warn_create_graph():
    # PyTorch says it once per process (TORCH_WARN_ONCE).
    global _warned_create_graph
    if not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=4)


def _input_edge(t, accumulate):
    """The edge whose gradient autograd.grad returns for input `t` (or backward
    accumulates for it); (None, 0) when nothing in the graph leads there yet."""
    if isinstance(t, GradientEdge):
        return (t.node, t.output_nr)
    if not isinstance(t, Tensor):
        raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                           f"{type(t).__name__}")
    if not t._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    fn = t._grad_fn if t._base is None else refresh_view_history(t)
    if fn is not None:
        if accumulate:
            t.retain_grad()   # PyTorch keeps this side effect
        return (fn, t._output_nr)
    ref = t._acc
    return (ref() if ref is not None else None, 0)


def _num_inputs(node):
    meta = node._meta
    return 1 if meta is None else len(meta)   # AccumulateGrad: one input


def _compute_dependencies(root):
    deps = {root: 0}
    stack = [root]
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        for nxt in node._fns:
            if nxt is None:
                continue
            n = deps.get(nxt)
            if n is None:
                deps[nxt] = 1
                push(nxt)
            else:
                deps[nxt] = n + 1
    return deps


def _init_exec_info(root, output_edges, accumulate):
    """Mark the nodes that lie on a path from the root to one of the output edges."""
    info = {}
    for i, (fn, nr) in enumerate(output_edges):
        if fn is None:
            continue
        e = info.get(fn)
        if e is None:
            e = info[fn] = _ExecInfo()
        if accumulate:
            e.needed = True
        else:
            if e.captures is None:
                e.captures = []
            e.captures.append((nr, i))
    # Iterative DFS: a node is needed if any child is needed or captured.
    seen = set()
    stack = [(root, iter(root._fns))]
    seen.add(root)
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(nxt._fns)))
                break
        else:
            stack.pop()
            e = info.get(node)
            # a captured node runs too when something below it is wanted
            if e is None or not e.needed:
                for nxt in node._fns:
                    ce = info.get(nxt) if nxt is not None else None
                    if ce is not None and (ce.needed or ce.captures):
                        if e is None:
                            e = info[node] = _ExecInfo()
                        e.needed = True
                        break
    return info


# The profiler's hook around each node's evaluation: hook(_evaluate, node, *args); None
# when no profiler is recording.
evaluate_hook = None


# Note [Needed inputs]
# With inputs= (autograd.grad, backward(inputs=...)) only some of a node's inputs lead to a
# requested gradient. As PyTorch's should_compute_output, a table op's node then runs only
# the formulas of those inputs: the others' gradients are not wanted, and their formulas may
# not even exist (igamma's first input raises "not implemented").

def _needed_edges(node, exec_info):
    out = []
    for fn in node._fns:
        info = None if fn is None else exec_info.get(fn)
        out.append(info is not None and (info.needed or bool(info.captures)))
    return out


def _evaluate(node, buffer, exec_info, captured, keep_graph, create_graph):
    """Run one node; returns the gradients for its next edges, or None to stop there."""
    if exec_info is not None:
        info = exec_info.get(node)
        if info is None:
            return None
        inputs = buffer
        if not info.needed:
            inputs = _call_tensor_pre_hooks(node, buffer)
        if info.captures:
            for input_nr, index in info.captures:
                captured[index] = inputs[input_nr]
        if not info.needed:
            return None

    hooks = node._hooks
    if hooks is None and type(node) is not AccumulateGrad:
        inputs = buffer     # no tensor hooks can be registered here
    else:
        inputs = _call_tensor_pre_hooks(node, buffer)
    if hooks is not None and hooks.pre:
        for hook in tuple(hooks.pre.values()):
            r = hook(tuple(inputs))
            if r is not None:
                inputs = _hook_values(hook, inputs, r)
    # Post hooks see the incoming gradients; _apply may take them out of the list
    # (AccumulateGrad does, see Note [Stealing the first gradient]).
    grad_outputs = tuple(inputs) if hooks is not None and hooks.post else None
    try:
        if exec_info is not None and node._takes_needed:
            outputs = node._apply(inputs, create_graph, _needed_edges(node, exec_info))
        else:
            outputs = node._apply(inputs, create_graph)
    except Exception:
        if anomaly.enabled:
            _report_anomaly(node)
        raise
    if not keep_graph:
        node._release()
    outputs = validate_outputs(node, outputs)
    if grad_outputs is not None:
        for hook in tuple(hooks.post.values()):
            r = hook(tuple(outputs), grad_outputs)
            if r is not None:
                outputs = _hook_values(hook, outputs, r)
    if anomaly.enabled and anomaly.check_nan:
        for i, g in enumerate(outputs):
            if g is not None and np.isnan(g._data).any():
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return outputs


def _hook_values(hook, old, new):
    """A node hook's replacement gradients, checked as PyTorch checks them."""
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(new)}, but expected {len(old)})")
    for o, n in zip(old, new):
        if n is not None:
            _hook_value(hook, o, n)
    return list(new)


def _hook_value(hook, old, new):
    """Check a gradient a hook returned in place of `old` (None: the hook dropped it)."""
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{tensor_type_name(old.dtype)} got {tensor_type_name(new.dtype)})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return new


def _hook_name(hook):
    return getattr(hook, "__name__", "<unknown>")


def _call_tensor_pre_hooks(node, inputs):
    if isinstance(node, AccumulateGrad):
        extra = node.variable._extra
        if extra is None or not extra.hooks or inputs[0] is None:
            return inputs
        inputs = list(inputs)
        for hook in tuple(extra.hooks.values()):
            r = hook(inputs[0])
            if r is not None:
                inputs[0] = _hook_value(hook, inputs[0], r)
        return inputs
    hooks = node._hooks
    if hooks is None or not (hooks.tensor_pre or hooks.retain):
        return inputs
    inputs = list(inputs)
    for nr, hook in tuple(hooks.tensor_pre.values()):
        if inputs[nr] is not None:
            r = hook(inputs[nr])
            if r is not None:
                inputs[nr] = _hook_value(hook, inputs[nr], r)
    # retains_grad hooks always run last, and see what the other hooks returned
    for nr, ref in tuple(hooks.retain.items()):
        t = ref()
        g = inputs[nr]
        if t is None or g is None:
            continue
        t._grad = g.clone() if t._grad is None else t._grad + g
    return inputs


def validate_outputs(node, grads):
    """Check and fix up the gradients a node returned: sum broadcast dims away, cast to the
    input's dtype, and reject what cannot fit (PyTorch's validate_outputs). `grads` is the
    node's fresh list, fixed in place."""
    fns = node._fns
    if len(grads) != len(fns):
        raise RuntimeError(f"invalid number of gradients - expected {len(fns)}, but got {len(grads)}")
    i = 0
    for fn, nr, g in zip(fns, node._nrs, grads):
        if fn is not None and g is not None:
            meta = fn._meta      # None for AccumulateGrad, whose metadata is its variable's
            shape, dtype = meta[nr] if meta is not None else fn._input_metadata[0]
            data = g._data
            if data.shape != shape or (data.dtype is not dtype and data.dtype != dtype):
                grads[i] = _fit(node, i, g, shape, dtype)
        i += 1
    return grads


def _fit(node, i, g, shape, dtype):
    """The gradient `g` summed and cast to (shape, dtype), or PyTorch's error."""
    data = g._data
    if data.shape != shape:
        if not _expandable(shape, data.shape):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                               f"{i} - got {sizes_str(data.shape)} but expected shape compatible "
                               f"with {sizes_str(shape)}")
        g = g.sum_to_size(shape)
    if dtype is not None and g._data.dtype != dtype:    # None: a leaf's grad_dtype is None
        if g._data.dtype.kind == "c" and dtype.kind != "c":
            if not getattr(node, "_real_part_for_real_inputs", False):
                raise RuntimeError(_COMPLEX_GRAD_FOR_REAL)
            g = g.real      # PyTorch's handle_r_to_c in the formulas of promoting ops
        if g._data.dtype != dtype:
            g = g.to(_dtype_of(dtype))
    return g


_COMPLEX_GRAD_FOR_REAL = (
    "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to "
    "be true, but got false.  (Could this error message be improved?  If so, please report an "
    "enhancement request to PyTorch.)")


def _expandable(shape, to):
    """Whether `shape` broadcasts to `to` (so a gradient of shape `to` can be summed to it)."""
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True



def _dtype_of(np_dtype):
    return FROM_NP[np_dtype]


def _private_base(g, base):
    """Whether nothing but g (its array, and the tensor g is a view of) reaches `base`."""
    # holders of base: g's array, accumulate_grad's local, this parameter, getrefcount's
    # argument, and the array of the tensor g is a view of when that is base itself
    holders = 4
    b = g._base
    if b is not None:
        if sys.getrefcount(b) > 3:          # g._base, `b`, the argument
            return False
        if b._data is base:
            holders += 1
        elif b._data.base is not base or sys.getrefcount(b._data) > 2:
            return False
        else:
            holders += 1
    return base.base is None and sys.getrefcount(base) <= holders


def accumulate_grad(variable, g, create_graph):
    """AccumulateGrad's work: store the first gradient, add later ones (in place unless the
    graph of the gradient itself is being recorded)."""
    if g is None:
        return
    old = variable._grad
    if old is None:
        if create_graph:
            # PyTorch copies into a fresh tensor here, recorded as CopyBackwards.
            if g._requires_grad:
                variable._grad = make_tensor(g._data.copy(), True, CopyBackwards(g))
            else:
                variable._grad = make_tensor(g._data.copy())
        else:
            # Note [Stealing the first gradient]
            # A gradient fresh from a formula is held only by AccumulateGrad._apply's local,
            # this function's argument and getrefcount's own: 3 references. Then it is stored
            # as .grad without a copy (PyTorch's use_count check). Anything else holding it
            # (the user's `gradient`, another buffer fed by a pass-through formula, another
            # tensor on the same array, an array view) means a copy, so later in-place
            # accumulation never writes into memory someone else sees.
            data = g._data
            base = data.base
            if (sys.getrefcount(g) <= 3 and sys.getrefcount(data) <= 3 and base is None
                    and data.flags.writeable and not g._requires_grad):
                variable._grad = g
            elif (base is not None and sys.getrefcount(g) <= 3 and sys.getrefcount(data) <= 3
                    and data.flags.c_contiguous and data.flags.writeable
                    and not g._requires_grad and _private_base(g, base)):
                variable._grad = make_tensor(data)
            else:
                variable._grad = make_tensor(data.copy())
    elif create_graph or old._requires_grad and _state.grad_enabled:
        variable._grad = old + g
    else:
        data = old._data
        if data.flags.writeable:
            np.add(data, g._data, out=data)
            old._vc[0] += 1
        else:
            variable._grad = old + g
    extra = variable._extra
    if extra is not None and extra.post_acc_hooks:
        for hook in tuple(extra.post_acc_hooks.values()):
            hook(variable)




def _report_anomaly(node):
    trace = node._hooks.metadata.get("traceback_") if node._hooks is not None else None
    msg = f"Error detected in {node.name()}. "
    if trace:
        msg += "Traceback of forward call that caused the error:\n" + "".join(trace)
    else:
        msg += ("No forward pass information available. Enable detect anomaly during forward "
                "pass for more information.")
    warnings.warn(msg, UserWarning, stacklevel=2)
