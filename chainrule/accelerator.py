"""torch.accelerator with no accelerator (a CPU-only build): `is_available()` is False,
`current_accelerator()` None, `device_count()` 0; what needs a device raises PyTorch's
"Cannot access accelerator device when none is available." RuntimeError."""
import types
import warnings

from ._device import NO_ACCELERATOR, device as _torch_device

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache",
           "get_device_capability", "get_memory_info", "is_available", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize", "memory", "graphs"]


def _none():
    raise RuntimeError(NO_ACCELERATOR)


def _index(device):
    """The device index PyTorch's accelerator functions take, with their errors."""
    if isinstance(device, str):
        device = _torch_device(device)
    if isinstance(device, _torch_device):
        raise RuntimeError("Accelerator expected")
    if device is None:
        raise ValueError("Expected a torch.device with a specified index or an integer, but "
                         "got:None")
    return device


def is_available():
    """Whether an accelerator can be used: never, in chainrule."""
    return False


def current_accelerator(check_available=False):
    """The accelerator PyTorch was built with: None."""
    return None


def device_count():
    return 0


def current_device_index():
    _none()


def current_device_idx():
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /):
    if _index(device) >= 0:
        _none()


def set_device_idx(device, /):
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    return set_device_index(device)


def current_stream(device=None, /):
    if device is not None:
        _index(device)
    _none()


def set_stream(stream):
    from ._streams import Stream
    if not isinstance(stream, Stream):
        raise TypeError("_accelerator_setStream(): incompatible function arguments. The "
                        "following argument types are supported:\n    1. (arg0: torch.Stream) "
                        f"-> None\n\nInvoked with: {stream!r}")
    _none()


def synchronize(device=None, /):
    _none()


def empty_cache():
    _none()


def empty_host_cache():
    _none()


def get_device_capability(device=None, /):
    _none()


def get_memory_info(device_index=None, /):
    _none()


def memory_allocated(device_index=None, /):
    _none()


def max_memory_allocated(device_index=None, /):
    _none()


def memory_reserved(device_index=None, /):
    _none()


def max_memory_reserved(device_index=None, /):
    _none()


def memory_stats(device_index=None, /):
    _none()


def reset_accumulated_memory_stats(device_index=None, /):
    _none()


def reset_peak_memory_stats(device_index=None, /):
    _none()


class device_index:
    """Context manager setting the accelerator's device index (a no-op for None)."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            _none()

    def __exit__(self, *exc_info):
        if self.idx is not None:
            _none()


class Graph:
    """An accelerator graph capture; needs an accelerator."""

    def __init__(self, keep_graph=False, *, pool=None, capture_error_mode="default"):
        _none()


# the submodules, as namespaces of the functions above
memory = types.SimpleNamespace(empty_cache=empty_cache, empty_host_cache=empty_host_cache, get_memory_info=get_memory_info, max_memory_allocated=max_memory_allocated, max_memory_reserved=max_memory_reserved, memory_allocated=memory_allocated, memory_reserved=memory_reserved, memory_stats=memory_stats, reset_accumulated_memory_stats=reset_accumulated_memory_stats, reset_peak_memory_stats=reset_peak_memory_stats)
graphs = types.SimpleNamespace(Graph=Graph)
