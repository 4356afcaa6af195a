"""torch.mps as PyTorch's builds without Metal have it: MPS is never available; what needs
the backend raises PyTorch's "Cannot execute ...() without MPS backend." RuntimeError."""
import contextlib

__all__ = ["compile_shader", "current_allocated_memory", "device_count",
           "driver_allocated_memory", "empty_cache", "get_rng_state", "is_available",
           "load_metallib", "manual_seed", "recommended_max_memory", "seed",
           "set_per_process_memory_fraction", "set_rng_state", "synchronize", "Event",
           "profiler", "event"]


def _no_backend(what):
    raise RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available():
    return False


def device_count():
    return 0


def synchronize():
    _no_backend("deviceSynchronize")


def empty_cache():
    _no_backend("emptyCache")


def current_allocated_memory():
    _no_backend("getCurrentAllocatedMemory")


def driver_allocated_memory():
    _no_backend("getDriverAllocatedMemory")


def recommended_max_memory():
    _no_backend("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 2:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~2")
    _no_backend("setMemoryFraction")


def manual_seed(seed):
    """Ignored without MPS (torch.manual_seed calls it)."""


def seed():
    _no_backend("getDefaultGenerator")


def get_rng_state(device="mps"):
    _no_backend("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    new_state.clone()
    _no_backend("getDefaultGenerator")


def compile_shader(source):
    raise RuntimeError("MPS is not available")


def load_metallib(source):
    import os
    if not isinstance(source, (bytes, bytearray, str, os.PathLike)):
        raise TypeError(f"expected bytes or path, got {type(source).__name__}")
    raise RuntimeError("MPS is not available")


class Event:
    """An MPS event; needs the MPS backend."""

    def __init__(self, enable_timing=False):
        _no_backend("acquireEvent")


class _Namespace:
    def __init__(self, name, **members):
        self.__name__ = name
        self.__dict__.update(members)


def _no_binding(name):
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def _profiler_start(mode="interval", wait_until_completed=False):
    _no_backend("profilerStartTrace")


def _profiler_stop():
    _no_backend("profilerStopTrace")


@contextlib.contextmanager
def _profile(mode="interval", wait_until_completed=False):
    try:
        _profiler_start(mode, wait_until_completed)
        yield
    finally:
        _profiler_stop()


@contextlib.contextmanager
def _metal_capture(fname):
    try:
        _no_binding("_mps_startCapture")
        yield
    finally:
        _no_binding("_mps_stopCapture")


profiler = _Namespace(
    "torch.mps.profiler", start=_profiler_start, stop=_profiler_stop, profile=_profile,
    is_capturing_metal=lambda: _no_binding("_mps_isCapturing"),
    is_metal_capture_enabled=lambda: _no_binding("_mps_isCaptureEnabled"),
    metal_capture=_metal_capture)
event = _Namespace("torch.mps.event", Event=Event)
