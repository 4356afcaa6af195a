"""What the profiler records. While a collector is on, every op row runs through its hook
(registry.intercept, via _hooks) and every backward node through the engine's evaluate hook:
each call becomes an event with its wall time (perf_counter_ns), named as PyTorch names it
(`aten::add` for the row `add`, `autograd::engine::evaluate_function: AddBackward0` around
`AddBackward0` for a node). A running execution trace (_execution_trace) takes the same
hooks, outside the collector's so that its writing is not timed. When neither is on, no
hook is installed, so ops pay nothing."""
import functools
import os
import threading
import traceback
from time import perf_counter_ns

from ._events import EventList, FunctionEvent

__all__ = ["Collector", "active", "record_function", "set_trace"]

_active = [None]
_trace = [None]     # the execution trace writer while it records


def set_trace(writer):
    """Route ops and backward nodes to an execution trace writer too (None: stop)."""
    _trace[0] = writer
    _install()


def _install():
    from .. import _hooks
    from ..autograd import engine
    collector, trace = _active[0], _trace[0]
    if trace is None:
        op, node = (None, None) if collector is None else (collector.op_hook,
                                                            collector.node_hook)
    elif collector is None:
        op, node = trace.op_hook, trace.node_hook
    else:
        def op(call, row, inputs, params):
            return trace.op_hook(functools.partial(collector.op_hook, call), row, inputs,
                                 params)

        def node(evaluate, n, *args):
            return trace.node_hook(functools.partial(collector.node_hook, evaluate), n, *args)
    _hooks.set_profiler(op)
    engine.evaluate_hook = node
_CHAINRULE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def active():
    """The collector now recording, or None."""
    return _active[0]


class Collector:
    """Records events between enable() and disable()."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, use_device=None):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.use_device = use_device
        self.raw = []        # (name, start_ns, end_ns, extras) in the order calls finish
        self.t0 = None
        self._on = False     # between enable() and disable(), paused or not (toggle)

    def enable(self):
        if _active[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        if self.t0 is None:
            self.t0 = perf_counter_ns()
        self._on = True
        _active[0] = self
        _install()

    def disable(self):
        self._on = False
        if _active[0] is self:
            _active[0] = None
            _install()

    def clear(self):
        self.raw = []

    def toggle(self, enable, activities):
        """Pause or resume recording (CPU activity: the only kind chainrule records)."""
        from .profiler import ProfilerActivity
        if ProfilerActivity.CPU not in set(activities):
            return
        if not enable and _active[0] is self:
            _active[0] = None
            _install()
        elif enable and _active[0] is None and self._on:
            _active[0] = self
            _install()

    # ---- hooks ---------------------------------------------------------------------------

    def op_hook(self, call, row, inputs, params):
        start = perf_counter_ns()
        try:
            result = call(row, inputs, params)
        finally:
            end = perf_counter_ns()
        name = "aten::" + row.name.split(".")[0]
        extras = {}
        if self.record_shapes:
            extras["input_shapes"] = _shapes(row, inputs, params)
        if self.profile_memory:
            extras["cpu_memory_usage"] = _allocated(result)
        if self.with_stack:
            extras["stack"] = _stack()
        if self.with_flops:
            extras["flops"] = _flops(name, inputs, result)
        self.raw.append((name, start, end, extras))
        return result

    def node_hook(self, evaluate, node, *args):
        start = perf_counter_ns()
        try:
            return evaluate(node, *args)
        finally:
            end = perf_counter_ns()
            name = node.name()
            seq = getattr(node, "_seq", -1)
            outer = {"scope": 1, "sequence_nr": seq, "fwd_thread": threading.get_ident()}
            # the node's own event shares its interval; it is recorded after the outer one so
            # that the outer one is its parent
            self.raw.append(("autograd::engine::evaluate_function: " + name, start, end, outer))
            self.raw.append((name, start, end, {"sequence_nr": seq}))

    def annotation(self, name, start, end):
        self.raw.append((name, start, end, {"is_user_annotation": True}))

    # ---- results -------------------------------------------------------------------------

    def events(self):
        """The recorded events as an EventList with their parent/child tree built."""
        thread = threading.get_ident()
        # by start, the longer (enclosing) first; among equal intervals, the one recorded
        # first is the outer one
        order = sorted(range(len(self.raw)), key=lambda i: (self.raw[i][1], -self.raw[i][2], i))
        events = EventList(use_device=self.use_device, profile_memory=self.profile_memory,
                           with_flops=self.with_flops)
        for n, i in enumerate(order, 1):
            name, start, end, extras = self.raw[i]
            events.append(FunctionEvent(
                id=n, name=name, overload_name="", thread=thread, start_us=(start - self.t0) / 1000,
                end_us=(end - self.t0) / 1000, use_device=self.use_device,
                input_shapes=extras.get("input_shapes", [] if self.record_shapes else None) if
                not extras.get("is_user_annotation") else [],
                trace_name=name,
                stack=extras.get("stack", []), scope=extras.get("scope", 0),
                cpu_memory_usage=extras.get("cpu_memory_usage", 0),
                sequence_nr=extras.get("sequence_nr", -1), fwd_thread=extras.get("fwd_thread"),
                flops=extras.get("flops", 0), is_user_annotation=extras.get(
                    "is_user_annotation", False)))
        events._build_tree()
        if self.profile_memory:
            # an event's memory is what was allocated while it ran, its children's included
            for evt in events:
                if evt.cpu_parent is None:
                    _total_memory(evt)
        return events


def _total_memory(evt):
    evt.cpu_memory_usage += sum(_total_memory(c) for c in evt.cpu_children)
    return evt.cpu_memory_usage


def _shapes(row, inputs, params):
    from .._tensor import Tensor
    if row.list_input:
        shapes = [[]]       # PyTorch shows a TensorList as []
    else:
        shapes = [list(x.shape) if isinstance(x, Tensor) else [] for x in inputs]
    return shapes + [[] for _ in params]


def _allocated(result):
    """Bytes of new memory in an op's outputs (views allocate none)."""
    from .._tensor import Tensor
    outs = result if isinstance(result, tuple) else (result,)
    return sum(t._data.nbytes for t in outs
               if isinstance(t, Tensor) and t._data.flags.owndata)


def _stack():
    """The Python stack outside chainrule, innermost first, as 'file(line): function'."""
    frames = traceback.extract_stack()[:-3]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)
            if not os.path.abspath(f.filename).startswith(_CHAINRULE_DIR)]


def _flops(name, inputs, result):
    """PyTorch's flop counts for the ops it counts (matrix products, elementwise add/mul)."""
    from .._tensor import Tensor
    shapes = [x.shape for x in inputs if isinstance(x, Tensor)]
    if name == "aten::mm" and len(shapes) == 2:
        (m, k), (_, n) = shapes
        return 2 * m * k * n
    if name == "aten::addmm" and len(shapes) == 3:
        (m, k), (_, n) = shapes[1], shapes[2]
        return 2 * m * k * n
    if name == "aten::bmm" and len(shapes) == 2:
        (b, m, k), (_, _, n) = shapes
        return 2 * b * m * k * n
    if name in ("aten::add", "aten::mul") and isinstance(result, Tensor):
        return result._data.size
    return 0


class record_function:
    """Label a block (context manager) or a function (decorator) in the profile; free when
    no profiler is recording."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise RuntimeError(
                "profiler::_record_function_enter_new() Expected a value of type 'str' for "
                f"argument 'name' but instead found type '{type(name).__name__}'.\nPosition: 0\n"
                f"Value: {name}\nDeclaration: profiler::_record_function_enter_new(str name, str? "
                "args=None) -> __torch__.torch.classes.profiler._RecordFunction\nCast error "
                f"details: Unable to cast Python instance of type {type(name)} to C++ type '?' "
                "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)")
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._start = None
        self._trace = None

    def __enter__(self):
        trace = _trace[0]
        if trace is not None:
            self._trace = (trace, trace.user_enter(self.name, self.args))
        self._start = perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        collector = _active[0]
        if collector is not None and self._start is not None and self.run_callbacks_on_exit:
            collector.annotation(self.name, self._start, perf_counter_ns())
        if self._trace is not None:
            trace, ctx = self._trace
            self._trace = None
            trace.user_exit(ctx)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return func(*args, **kwargs)
        return wrapped
