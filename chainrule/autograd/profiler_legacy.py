"""torch.autograd.profiler_legacy: the legacy (pre-Kineto) autograd profiler and its types.

chainrule has one profiler; the legacy `profile` records through it, with the legacy
arguments. ProfilerState and ProfilerConfig are PyTorch's legacy profiler settings; a
ProfilerEvent is what PyTorch's legacy C++ profiler hands back, which, as in PyTorch,
cannot be made from Python (chainrule's profiler reports FunctionEvents).
"""
import warnings

from ..profiler._events import (MEMORY_EVENT_NAME, DeviceType, EventList,  # noqa: F401
                                FunctionEvent, _Enum)
from .profiler import profile as _profile

__all__ = ["profile"]

ProfilerState = _Enum("ProfilerState", [
    ("Disabled", 0), ("CPU", 1), ("CUDA", 2), ("NVTX", 3), ("ITT", 4), ("PRIVATEUSE1", 5),
    ("KINETO", 6), ("KINETO_GPU_FALLBACK", 7), ("KINETO_PRIVATEUSE1_FALLBACK", 8),
    ("KINETO_PRIVATEUSE1", 9)])
ProfilerState.__module__ = "torch._C._profiler"


class ProfilerConfig:
    """The settings of a legacy profiler run (torch._C._profiler.ProfilerConfig)."""
    __module__ = "torch._C._profiler"

    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops,
                 with_modules, experimental_config=None, trace_id=""):
        self._state = ProfilerState(state)
        self._settings = (report_input_shapes, profile_memory, with_stack, with_flops,
                          with_modules, experimental_config, trace_id)


class ProfilerEvent:
    """An event of PyTorch's legacy C++ profiler (torch._C._autograd.ProfilerEvent)."""
    __module__ = "torch._C._autograd"

    def __init__(self, *args, **kwargs):
        raise TypeError("torch._C._autograd.ProfilerEvent: No constructor defined!")


class profile(_profile):
    """DEPRECATED: use torch.profiler instead. Records as chainrule.autograd.profiler.profile
    does; CUDA profiling is disabled with PyTorch's warning (no CUDA)."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False):
        if enabled and use_cuda:
            warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
        super().__init__(enabled, record_shapes=record_shapes, with_flops=with_flops,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_modules=with_modules)
        if enabled:
            self.use_cuda = False
            self.with_modules = with_modules
            self.profiler_kind = ProfilerState.CPU

    def config(self):
        return ProfilerConfig(self.profiler_kind, self.record_shapes, self.profile_memory,
                              self.with_stack, self.with_flops, self.with_modules)
