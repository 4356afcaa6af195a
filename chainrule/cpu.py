"""torch.cpu: the CPU seen through torch.cuda's interface, for device-agnostic code."""
import types
import warnings
from contextlib import AbstractContextManager
from functools import lru_cache
from types import MappingProxyType

from .amp import GradScaler as _GradScaler, autocast as _autocast

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
           "get_capabilities", "amp"]


@lru_cache(None)
def get_capabilities():
    """The instruction sets this CPU supports (as NumPy detected them) and its architecture."""
    import platform
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as f
    except ImportError:     # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as f
    names = {"SSE": "sse", "SSE2": "sse2", "SSE3": "sse3", "SSSE3": "ssse3", "SSE41": "sse4_1",
             "SSE42": "sse4_2", "AVX": "avx", "AVX2": "avx2", "AVX512F": "avx512_f",
             "AVX512CD": "avx512_cd", "AVX512DQ": "avx512_dq", "AVX512BW": "avx512_bw",
             "AVX512VL": "avx512_vl", "AVX512IFMA": "avx512_ifma", "AVX512VBMI": "avx512_vbmi",
             "AVX512VBMI2": "avx512_vbmi2", "AVX512BITALG": "avx512_bitalg",
             "AVX512VPOPCNTDQ": "avx512_vpopcntdq", "AVX512VNNI": "avx512_vnni",
             "AVX512BF16": "avx512_bf16", "AVX512FP16": "avx512_fp16", "FMA3": "fma3",
             "FMA4": "fma4", "F16C": "f16c", "BMI": "bmi", "BMI2": "bmi2", "POPCNT": "popcnt",
             "LZCNT": "lzcnt", "ASIMD": "neon", "ASIMDHP": "fp16_arith", "ASIMDDP": "dot",
             "ASIMDFHM": "fhm", "SVE": "sve"}
    caps = {name: bool(f[k]) for k, name in names.items() if k in f}
    caps["architecture"] = platform.machine()
    return MappingProxyType(caps)


def is_available():
    """True: the CPU is always there."""
    return True


def is_initialized():
    return True


def synchronize(device=None):
    """Wait for CPU work to finish (it already has)."""


def current_device():
    return "cpu"


def device_count():
    return 1


def set_device(device):
    """Ignored: there is one CPU device."""


class Stream:
    """A CPU stream (device-agnostic code only; work runs at once)."""

    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None):
    return _current_stream


class StreamContext(AbstractContextManager):
    """Select a CPU stream in a block (device-agnostic code only)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return
        self.prev_stream = _current_stream
        _current_stream = self.stream

    def __exit__(self, type, value, traceback):
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)


class _CpuAutocast(_autocast):
    """Deprecated: torch.amp.autocast('cpu', ...)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class _CpuGradScaler(_GradScaler):
    """Deprecated: torch.amp.GradScaler('cpu', ...)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


_CpuAutocast.__name__ = _CpuAutocast.__qualname__ = "autocast"
_CpuGradScaler.__name__ = _CpuGradScaler.__qualname__ = "GradScaler"
amp = types.SimpleNamespace(autocast=_CpuAutocast, GradScaler=_CpuGradScaler)
