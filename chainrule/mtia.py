"""torch.mtia as PyTorch's build without MTIA has it: never available; what needs the device
raises "Cannot execute ...() without MTIA backend." or the "not compiled" AssertionError."""
import types

from ._device import _MTIA as _NOT_COMPILED, device as _torch_device
from ._streams import Event, Stream

__all__ = ["DeferredMtiaCallError", "Event", "MTIAGraph", "Stream", "StreamContext",
           "attach_out_of_memory_observer", "current_device", "current_stream",
           "default_generators", "default_stream", "device", "device_count", "empty_cache",
           "get_device_capability", "get_device_properties", "get_rng_state",
           "get_rng_state_all", "graph", "graph_pool_handle", "init", "initial_seed",
           "is_available", "is_bf16_supported", "is_fbcode", "is_initialized", "is_prod",
           "manual_seed", "manual_seed_all", "max_memory_allocated", "memory_allocated",
           "memory_stats", "record_memory_history", "reset_peak_memory_stats", "seed",
           "seed_all", "set_device", "set_rng_state", "set_rng_state_all", "set_stream",
           "snapshot", "stream", "synchronize", "memory"]

default_generators = ()


class DeferredMtiaCallError(Exception):
    pass


def _no_backend(what):
    raise RuntimeError(f"Cannot execute {what}() without MTIA backend.")


def _not_compiled():
    raise AssertionError(_NOT_COMPILED)


def _index(device):
    """torch._utils._get_device_index(device) as MTIA calls it (None: the current device)."""
    if isinstance(device, str):
        device = _torch_device(device)
    if isinstance(device, _torch_device):
        if device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        device = device.index
    if device is None:
        _no_backend("getCurrentDevice")
    return device


def is_available():
    return False


def is_initialized():
    return False


def is_fbcode():
    return False


def is_prod():
    return False


def is_bf16_supported(including_emulation=True):
    return True


def device_count():
    return 0


def init():
    _not_compiled()


def initial_seed():
    _not_compiled()


def get_rng_state(device="mtia"):
    _not_compiled()


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="mtia"):
    _no_backend("getCurrentDevice")


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def current_device():
    _no_backend("getCurrentDevice")


def current_stream(device=None):
    _index(device)
    _not_compiled()


def default_stream(device=None):
    _index(device)
    _not_compiled()


def synchronize(device=None):
    _index(device)
    _no_backend("maybeExchangeDevice")


def get_device_capability(device=None):
    _index(device)
    _no_backend("getDeviceCapability")


def get_device_properties(device=None):
    _index(device)
    _no_backend("getDeviceProperties")


def set_device(device):
    if _index(device) >= 0:
        _no_backend("setCurrentDevice")


def empty_cache():
    _no_backend("emptyCache")


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_stats(device=None):
    return {}


def reset_peak_memory_stats(device=None):
    return None


def record_memory_history(enabled="all", stacks="python", max_entries=0):
    return None


def snapshot():
    _no_backend("memorySnapshot")


def attach_out_of_memory_observer(observer):
    _no_backend("attachOutOfMemoryObserver")


class device:
    """Context manager selecting an MTIA device (a no-op for a negative index)."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            _no_backend("maybeExchangeDevice")

    def __exit__(self, type, value, traceback):
        return False


class StreamContext:
    def __init__(self, stream):
        self.stream = stream
        _no_backend("getCurrentDevice")


def stream(stream):
    return StreamContext(stream)


def set_stream(stream):
    if stream is None:
        return
    _not_compiled()


class MTIAGraph:
    def __init__(self, keep_graph=False):
        _no_backend("mtiagraphCreate")


class graph:
    def __init__(self, mtia_graph, pool=None, stream=None):
        _no_backend("getCurrentDevice")


def graph_pool_handle():
    _no_backend("graphPoolHandle")


# the memory submodule, as a namespace of the functions above
memory = types.SimpleNamespace(is_initialized=is_initialized,
                               max_memory_allocated=max_memory_allocated,
                               memory_allocated=memory_allocated, memory_stats=memory_stats,
                               reset_peak_memory_stats=reset_peak_memory_stats)
