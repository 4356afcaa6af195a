"""torch.autograd.profiler: the legacy profiler interface (profile, record_function), the
event classes, over chainrule's profiler (chainrule.profiler), KinetoStepTracker, and
emit_itt / emit_nvtx (chainrule has no ITT or NVTX instrumentation: emit_itt annotates
nothing, emit_nvtx fails as a build without CUDA does)."""
from collections import defaultdict
from warnings import warn

from ..profiler._collector import Collector, record_function
from ..profiler._events import (MEMORY_EVENT_NAME, OUT_OF_MEMORY_EVENT_NAME, DeviceType,
                                EventList, FunctionEvent, FunctionEventAvg)
from ..profiler.profiler import ProfilerActivity, kineto_available

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg",
           "DeviceType", "ProfilerActivity", "kineto_available", "MEMORY_EVENT_NAME",
           "OUT_OF_MEMORY_EVENT_NAME", "KinetoStepTracker", "emit_itt", "emit_nvtx"]


class profile:
    """Profile the block (context manager): ops, backward nodes, record_function blocks.
    After it, `function_events`, `key_averages()`, `table()`, `export_chrome_trace()`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda:
            raise AssertionError("Torch not compiled with CUDA enabled")
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.function_events = None
        self.entered = False
        self.custom_trace_id_callback = custom_trace_id_callback
        self.trace_id = ""
        self._collector = Collector(record_shapes, profile_memory, with_stack, with_flops)

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self.trace_id = self.create_trace_id()
        self._collector.enable()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._collector.disable()
        self.function_events = self._collector.events()
        return False

    def default_trace_id(self):
        """A random UUID as 32 uppercase hex digits."""
        import uuid
        return f"{uuid.uuid4().int:032X}"

    def create_trace_id(self):
        """The custom_trace_id_callback's id, else a default one."""
        if self.custom_trace_id_callback:
            return self.custom_trace_id_callback()
        return self.default_trace_id()

    def toggle_collection_dynamic(self, enabled, activities):
        """Stop (enabled=False) or resume recording CPU activity while profiling."""
        self._collector.toggle(enabled, activities)

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path, metadata=None, use_python_export=False):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finish()
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """Self CPU time of all events (microseconds)."""
        self._check_finish()
        return self.function_events.self_cpu_time_total


class emit_itt:
    """Context manager under which PyTorch emits an Intel ITT range per op for VTune.
    chainrule has no ITT instrumentation (see chainrule.profiler.itt): it annotates nothing
    and keeps PyTorch's reentrancy check."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False if self.enabled else None


class emit_nvtx:
    """Context manager emitting an NVTX range per op for nvprof: it needs CUDA, so entering
    it fails as PyTorch's build without CUDA fails (unless enabled=False)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        from .. import cuda
        cuda.synchronize()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        from .. import cuda
        cuda.synchronize()
        return False


def _kineto_step():
    """PyTorch tells its Kineto tracer that a step passed; chainrule has no Kineto."""


class KinetoStepTracker:
    """A global step count kept per requester ("ProfilerStep", "Optimizer", ...): the step
    is the largest count, so several requesters stepping together advance it once."""

    _current_step = 0
    _step_dict = defaultdict(int)

    @classmethod
    def init_step_count(cls, requester):
        """Start counting for `requester` at the current step."""
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        """Stop counting for `requester`; whether it was counted."""
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        """Count a step of `requester`; returns the (possibly advanced) global step."""
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            delta = new_step - cls._current_step
            if delta > 1:
                warn("Profiler step count has increased more than 1 - "
                     f"current_step = {cls._current_step} step dict =  {cls._step_dict}",
                     stacklevel=2)
            for _ in range(delta):
                _kineto_step()
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        """The latest step of any requester."""
        return cls._current_step
