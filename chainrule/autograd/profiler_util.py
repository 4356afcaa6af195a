"""torch.autograd.profiler_util: the profiler's events and their reports (chainrule keeps
them in chainrule.profiler._events, shared by both profilers)."""
from ..profiler._events import (MEMORY_EVENT_NAME, OUT_OF_MEMORY_EVENT_NAME, DeviceType,  # noqa
                                EventList, FormattedTimesMixin, FunctionEvent,
                                FunctionEventAvg, Interval, Kernel)

__all__ = ["DeviceType", "EventList", "FormattedTimesMixin", "FunctionEvent",
           "FunctionEventAvg", "Interval", "Kernel", "MEMORY_EVENT_NAME",
           "OUT_OF_MEMORY_EVENT_NAME"]
