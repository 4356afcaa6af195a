"""torch.profiler: time what a program runs, op by op. chainrule records its own ops
(`aten::<op>`), backward nodes (`autograd::engine::evaluate_function: <Node>`) and
record_function blocks, and reports them as PyTorch does (key_averages().table(),
export_chrome_trace, tensorboard_trace_handler). Off, it costs nothing."""
from ._collector import record_function
from ._events import DeviceType
from .profiler import (ProfilerAction, ProfilerActivity, is_fbcode, kineto_available, profile,
                       schedule, supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
           "record_function", "is_fbcode"]
