"""torch.profiler: time what a program runs, op by op. chainrule records its own ops
(`aten::<op>`), backward nodes (`autograd::engine::evaluate_function: <Node>`) and
record_function blocks, and reports them as PyTorch does (key_averages().table(),
export_chrome_trace, tensorboard_trace_handler); ExecutionTraceObserver writes PyTorch's
JSON execution trace of the same events. Off, it costs nothing. `itt` has no ITT
instrumentation behind it (see chainrule/profiler/itt.py)."""
import os

from ..optim.optimizer import register_optimizer_step_post_hook
from . import itt  # noqa: F401
from ._collector import record_function
from ._events import DeviceType
from .profiler import (ExecutionTraceObserver, ProfilerAction, ProfilerActivity,  # noqa: F401
                       RecordScope, is_fbcode, kineto_available, profile, schedule,
                       supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
           "record_function", "ExecutionTraceObserver"]


def __getattr__(name):
    # KinetoStepTracker is autograd.profiler's, which imports this package's modules: taken
    # on first use, so that either of the two can be imported first
    if name == "KinetoStepTracker":
        from ..autograd.profiler import KinetoStepTracker
        return KinetoStepTracker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"KinetoStepTracker"})


def _optimizer_post_hook(optimizer, args, kwargs):
    """Counts optimizer steps as profiler steps (registered with KINETO_USE_DAEMON set)."""
    from ..autograd.profiler import KinetoStepTracker
    KinetoStepTracker.increment_step("Optimizer")


if os.environ.get("KINETO_USE_DAEMON", ""):
    _ = register_optimizer_step_post_hook(_optimizer_post_hook)
