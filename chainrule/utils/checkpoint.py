"""torch.utils.checkpoint for chainrule: activation checkpointing.

A checkpointed function keeps its inputs and drops what its ops save for backward; backward
runs the function again to get those values back. Two variants, as PyTorch's:

- reentrant (use_reentrant=True): a custom Function (CheckpointFunction) runs the function
  under no_grad, then in its backward re-runs it with grad and calls backward on the
  recomputed graph (a backward inside a backward, hence the name).
- non-reentrant (use_reentrant=False): the function runs with grad, under saved-tensor hooks
  whose pack keeps a placeholder in place of each saved tensor (Note [Checkpoint frames]).

Only the CPU's generator exists in chainrule, so device RNG states are always empty.
"""
import contextlib
import functools
import itertools
import threading
import warnings
import weakref
from enum import Enum

from ..autograd import engine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import (HOOKED, SavedHooked, SavedInput, current_hooks,
                              saved_tensors_hooks, unpack)

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy",
           "SelectiveCheckpointContext", "GraphExecGroup"]

_checkpoint_debug_enabled = None     # set_checkpoint_debug_enabled's override of `debug`
_enable_checkpoint_early_stop = None  # set_checkpoint_early_stop's override of `early_stop`


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not save what the original forward saved."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Context manager overriding every checkpoint's `debug` flag while it is active
    (None: each call's own flag)."""
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Context manager overriding `early_stop` of the checkpoints whose forward runs under
    it: whether recomputation stops once every needed tensor is back."""
    global _enable_checkpoint_early_stop
    prev = _enable_checkpoint_early_stop
    _enable_checkpoint_early_stop = enable
    try:
        yield
    finally:
        _enable_checkpoint_early_stop = prev


def noop_context_fn():
    """The default context_fn: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """The tuple with each tensor detached, keeping its requires_grad (a new leaf)."""
    from .._tensor import Tensor
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            leaf = x.detach()
            leaf.requires_grad = x.requires_grad
            x = leaf
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor among `inputs` requires grad (the reentrant checkpoint then has
    nothing to differentiate)."""
    from .._tensor import Tensor
    if not any(x.requires_grad for x in inputs if isinstance(x, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


class DefaultDeviceType:
    """The device type whose RNG states checkpoint saves when no argument is on a non-CPU
    device: the current accelerator's, 'cpu' without one (always, in chainrule)."""

    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        if not DefaultDeviceType._default_device_type:
            from .. import accelerator
            acc = accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = acc.type if acc else "cpu"
        return DefaultDeviceType._default_device_type


def _device_module(device_type):
    import chainrule
    return getattr(chainrule, device_type)


def get_device_states(*args):
    """(device ids, RNG states) of the non-CPU devices the tensor arguments live on: both
    empty in chainrule, whose tensors are all on the CPU."""
    from ..func._pytree import tree_flatten
    from .._tensor import Tensor
    ids = [x.get_device() for x in tree_flatten(args)[0]
           if isinstance(x, Tensor) and x.device.type not in ("cpu", "meta")]
    if not ids:
        return [], []
    module = _device_module(DefaultDeviceType.get_device_type())
    states = []
    for i in ids:
        with module.device(i):
            states.append(module.get_rng_state())
    return ids, states


def set_device_states(devices, states, *, device_type=None):
    """Restore the RNG `states` of `devices` (of `device_type`, by default
    DefaultDeviceType's); nothing to do for the meta device or empty lists."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    module = _device_module(device_type)
    for device, state in zip(devices, states):
        with module.device(device):
            module.set_rng_state(state)


class _RngAndAutocast:
    """What the forward ran under and the recomputation must run under again: the CPU
    generator's state (with preserve_rng_state) and CPU autocast's settings."""

    def __init__(self, preserve):
        import chainrule
        self.rng = chainrule.get_rng_state() if preserve else None
        self.autocast = {"enabled": chainrule.is_autocast_enabled("cpu"),
                         "dtype": chainrule.get_autocast_dtype("cpu"),
                         "cache_enabled": chainrule.is_autocast_cache_enabled()}

    @contextlib.contextmanager
    def restored(self):
        """Run the body with the forward's generator state (the caller's is kept and put
        back after) and under the forward's autocast settings."""
        import chainrule
        with chainrule.random.fork_rng(devices=[], enabled=self.rng is not None):
            if self.rng is not None:
                chainrule.set_rng_state(self.rng)
            with chainrule.amp.autocast("cpu", **self.autocast):
                yield


# ---- reentrant ----------------------------------------------------------------------------

_ERR_REENTRANT_GRAD = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward runs `run_function` without a graph; backward runs
    it again with one and backpropagates through that."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        from .._tensor import Tensor
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.state = _RngAndAutocast(preserve_rng_state)
        # tensors go through save_for_backward (version checks); the rest is kept as is
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        import chainrule
        from .._tensor import Tensor
        task = engine._task.current
        if task is not None and task[2] is not None:    # backward pruned by `inputs`
            raise RuntimeError(_ERR_REENTRANT_GRAD)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with ctx.state.restored():
            inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        chainrule.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


# ---- non-reentrant ------------------------------------------------------------------------
# Note [Checkpoint frames]
# Each non-reentrant checkpoint call makes a frame. The function's forward runs under pack
# hooks that return a fresh _Holder per saved tensor (the frame keeps a weak reference and
# the tensor's metadata, in save order); the tensor itself is dropped. The frame keeps the
# inputs as saved tensors, so an enclosing checkpoint packs them too (nesting: to get an
# inner checkpoint's inputs back, the outer one recomputes first).
# The first unpack within a backward (keyed by the engine's graph task, or a GraphExecGroup)
# re-runs the function once under recomputation hooks that count the saves and hand the n-th
# saved tensor to the n-th holder, for that backward. With early stop, the recomputation is
# cut short (by an exception) as soon as every holder is served. Each holder's value is
# handed out once per backward and then dropped, even with retain_graph=True; a second
# backward recomputes again. The counts and metadata are then compared with the forward's
# (determinism_check) and a mismatch raises CheckpointError.

class _Holder:
    __slots__ = ("values", "__weakref__")

    def __init__(self):
        self.values = {}      # backward key -> recomputed tensor, or _USED once unpacked


_USED = object()


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once it has what it needs (early stop)."""


_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


def _metadata(x):
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS = {"default": _metadata, "none": lambda x: None}


class _Frame:
    def __init__(self, recompute, early_stop, metadata_fn, on_error):
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.on_error = on_error          # debug mode's error report, or None
        self.inputs = []                  # saved entries for tensors, other arguments as is
        self.holders = []                 # weak references, in save order
        self.metadata = []                # metadata_fn of each saved tensor, in save order
        self.counts = {}                  # backward key -> tensors saved by its recomputation
        self.recomputed = set()           # backward keys whose recomputation has run
        self.forward_done = False
        self.ignore_mismatch = False      # a backward ran inside the forward without early stop

    def save_inputs(self, args):
        from .._tensor import Tensor
        hooks = current_hooks() if HOOKED else None
        self.inputs = [a if not isinstance(a, Tensor) else
                       SavedInput(a) if hooks is None else SavedHooked(a, hooks, False)
                       for a in args]

    def get_inputs(self):
        return [unpack(a, None) if isinstance(a, (SavedInput, SavedHooked)) else a
                for a in self.inputs]

    def check(self, key):
        if self.ignore_mismatch:
            return
        n = self.counts.get(key, 0)
        if n != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {n}.\n{_DEBUG_TIP}")
        report = ""
        for i, (ref, saved) in enumerate(zip(self.holders, self.metadata)):
            holder = ref()
            if holder is None:
                continue
            now = self.metadata_fn(holder.values[key])
            if now != saved:
                report += (f"tensor at position {i}:\nsaved metadata: {saved}\n"
                           f"recomputed metadata: {now}\n")
        if report:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{report}.\n{_DEBUG_TIP}")


class _Recomputation(saved_tensors_hooks):
    """The hooks a recomputation runs under: each saved tensor goes to the holder at its
    position, for backward `key`; the recomputed graph keeps it as is."""

    def __init__(self, frame, key):
        def pack(x):
            x = x.detach() if x.requires_grad else x
            i = frame.counts.get(key, 0)
            frame.counts[key] = i + 1
            if i >= len(frame.holders):
                if not frame.forward_done:
                    # a backward inside the forward, without early stop: the frame is still
                    # growing, so the counts cannot be compared
                    frame.ignore_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      f"pass.\n{_DEBUG_TIP}")
            holder = frame.holders[i]()
            if holder is not None:    # else a backward inside the forward freed it already
                holder.values[key] = x
            if frame.early_stop and i + 1 == len(frame.holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)


_exec_group = threading.local()
_fresh_keys = itertools.count()


def _backward_key():
    group = getattr(_exec_group, "current", None)
    if group is not None:
        return group
    task = engine.current_graph_task_id()
    # outside backward (grad_fn._saved_*), every unpack is a backward of its own
    return task if task != -1 else ("unpack", next(_fresh_keys))


class _Forward(saved_tensors_hooks):
    """The hooks the checkpointed forward runs under (Note [Checkpoint frames])."""

    def __init__(self, frame):
        def pack(x):
            holder = _Holder()
            frame.holders.append(weakref.ref(holder))
            with no_grad():
                frame.metadata.append(frame.metadata_fn(x))
            return holder

        def unpack_(holder):
            key = _backward_key()
            if key not in frame.recomputed:
                args = frame.get_inputs()
                try:
                    with _Recomputation(frame, key), enable_grad():
                        frame.recompute(*args)
                except _StopRecomputation:
                    pass
                frame.recomputed.add(key)
                frame.check(key)
            value = holder.values.get(key, _USED)
            if value is _USED:
                extra = ""
                if getattr(_exec_group, "current", None) is not None:
                    extra = ("Performing two backward calls that overlap (i.e. require the same "
                             "saved activation in order to compute gradients) is not allowed "
                             "while under the torch.utils.checkpoint.GraphExecGroup context. ")
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    f"already unpacked once. {extra}If you are calling ctx.saved_tensors in "
                    "backward, make sure to do so only once. Otherwise please open an issue "
                    "with details on your use case.")
            holder.values[key] = _USED
            return value

        if frame.on_error is None:
            super().__init__(pack, unpack_)
            return

        def reporting_unpack(holder):
            try:
                return unpack_(holder)
            except CheckpointError as e:
                frame.on_error(e)
                raise

        super().__init__(pack, reporting_unpack)


_ERR_SUPPRESSED = ("torch.utils.checkpoint: the forward context provided by context_fn "
                   "suppressed an exception raised during the checkpointed forward. This is not "
                   "supported because checkpoint cannot return a value for a failed forward.")


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug,
                                  early_stop, args, kwargs):
    on_error = None
    if _checkpoint_debug_enabled if _checkpoint_debug_enabled is not None else debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        context_fn, on_error = _debug_context()
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    state = _RngAndAutocast(preserve)

    def recompute(*inputs):
        with state.restored(), recompute_context:
            function(*inputs, **kwargs)

    if not is_grad_enabled():
        return function(*args, **kwargs)
    if _enable_checkpoint_early_stop is not None:
        early_stop = _enable_checkpoint_early_stop
    frame = _Frame(recompute, early_stop, _DETERMINISM_CHECKS[determinism_check], on_error)
    frame.save_inputs(args)
    finished = False
    with _Forward(frame), forward_context:
        out = function(*args, **kwargs)
        finished = True
    if not finished:
        raise RuntimeError(_ERR_SUPPRESSED)
    frame.forward_done = True
    return out


_DEBUG_TEMPLATE = """ \
An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.
Scroll all the way down for guidance on how to navigate these logs.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+
(Scroll up to correlate stack traces with each operation listed below. This
 helps identify their source in the code.)

IMPORTANT: Differences in "detach" calls between the original forward and the
           recomputation are expected. They are introduced by the checkpointing
           mechanism and can be ignored.

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}

+------------------------------------------------------------------------------+
 ERROR: Detected non-determinism while running activation checkpointing

 You are seeing this error because you passed `debug=True` to checkpoint and
 tensors to be saved during the original forward and differ between those saved
 during recomputation. This can happen if different operators were ran in the
 original forward and in the recomputation.

 To identify where the mismatch may be coming from, you can do the following:

 1) Compare the operators ran during original forward and recomputation to
    see where they differ. These operators are printed above in the order they
    were executed.

 2) Review the stack trace for each operator to locate its invocation source.
    Each operator's stack trace is printed in their execution order.

 Note that the logs can be quite long. Here's how they are structured:
 (Tip: you can Ctrl-f for these headers)

 1. Stack traces of the operators that ran in the original forward
 2. Stack traces of the operators that ran during recomputation
 3. Log of operators in the original forward and recomputation
 4. Error message                                             <--- You are here
--------------------------------------------------------------------------------
"""


class _OpLog:
    """Logs the ops run under it, as `aten.<op>`, each with the Python stack that called
    it. PyTorch logs aten calls (with their arguments) through a dispatch mode; chainrule
    logs its op rows at the registry's dispatchers, so its lines are shorter."""

    def __init__(self):
        self.logs = None
        self.stacks = None

    @contextlib.contextmanager
    def recording(self):
        import traceback
        from ..ops import registry
        self.logs, self.stacks = [], []

        def hook(call, row, inputs, params):
            self.logs.append(f"aten.{row.name}")
            self.stacks.append(traceback.extract_stack()[:-1])
            return call(row, inputs, params)

        # wrap each dispatcher as it is now, so autocast's and the profiler's hooks (see
        # chainrule._hooks) keep running inside, and put the same ones back after
        installed = [(ns, key, ns[key]) for ns, key, _ in registry._GENERATED]
        for ns, key, current in installed:
            ns[key] = functools.partial(hook, current)
        try:
            yield
        finally:
            for ns, key, current in installed:
                ns[key] = current

    def report(self, label):
        out = ""
        for i, (log, stack) in enumerate(zip(self.logs, self.stacks)):
            out += f"{log}   ({i + 1} of {len(self.logs)} in {label})\n\n"
            for frame in reversed(stack):
                out += f"{frame.filename}:{frame.lineno}:{frame.name}\n"
            out += "\n\n"
        return out


def _debug_context():
    """debug=True's context_fn (logging ops in the forward and the recomputation) and the
    error report built from those logs."""
    forward, recompute = _OpLog(), _OpLog()

    def on_error(error):
        raise CheckpointError(_DEBUG_TEMPLATE.format(
            forward_traces=forward.report("original"),
            recompute_traces=recompute.report("recompute"),
            forward_ops="\n".join(forward.logs), recompute_ops="\n".join(recompute.logs))
        ) from error

    return (lambda: (forward.recording(), recompute.recording())), on_error


# ---- public entry points ------------------------------------------------------------------

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run `function(*args, **kwargs)` without keeping what its ops save for backward;
    backward recomputes it. `preserve_rng_state` (a keyword, default True) makes the
    recomputation draw the same random numbers as the forward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` (an nn.Sequential or a list of callables) one after the other on
    `input`, checkpointing each of the first `segments - 1` chunks; the last chunk runs
    normally (its output needs a graph)."""
    from .. import nn
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, nn.Sequential):
        functions = list(functions.children())

    def chunk(start, stop):
        def run(x):
            for f in functions[start:stop]:
                x = f(x)
            return x
        return run

    size = len(functions) // segments
    stop = 0
    for start in range(0, size * (segments - 1), size):
        stop = start + size
        input = checkpoint(chunk(start, stop), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return chunk(stop, len(functions))(input)


class GraphExecGroup:
    """Context manager: the non-reentrant checkpoints that backward calls under it reach are
    recomputed at most once in all, so those backward calls must need disjoint saved
    tensors."""

    def __enter__(self):
        current = getattr(_exec_group, "current", None)
        if current is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{current}")
        _exec_group.current = self
        return self

    def __exit__(self, *args):
        _exec_group.current = None


class CheckpointPolicy(Enum):
    """What selective checkpointing does with an op's output: save it, recompute it, or
    offload it to the CPU (MUST_ cannot be overridden, PREFER_ can)."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """What a selective-checkpoint policy function receives about the op it decides on."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output
