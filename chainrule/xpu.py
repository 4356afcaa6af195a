"""torch.xpu as PyTorch's build without XPU has it: never available; what needs the device
raises that build's error (mostly AssertionError "Torch not compiled with XPU enabled")."""
import collections
import contextlib
import types

from ._device import device as _torch_device

__all__ = ["Event", "MemPool", "Stream", "StreamContext", "XPUGraph", "can_device_access_peer",
           "change_current_allocator", "clock_rate", "current_device", "current_stream",
           "default_generators", "device", "device_count", "device_memory_used", "device_of",
           "empty_cache", "get_arch_list", "get_device_capability", "get_device_name",
           "get_device_properties", "get_gencode_flags", "get_per_process_memory_fraction",
           "get_rng_state", "get_rng_state_all", "get_stream_from_external", "graph",
           "graph_pool_handle", "init", "initial_seed", "is_available", "is_bf16_supported",
           "is_current_stream_capturing", "is_initialized", "is_tf32_supported", "manual_seed",
           "manual_seed_all", "max_memory_allocated", "max_memory_reserved", "mem_get_info",
           "memory_allocated", "memory_reserved", "memory_snapshot", "memory_stats",
           "memory_stats_as_nested_dict", "memory_usage", "power_draw",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "seed", "seed_all",
           "set_device", "set_per_process_memory_fraction", "set_rng_state",
           "set_rng_state_all", "set_stream", "stream", "synchronize", "temperature",
           "use_mem_pool", "utilization", "memory", "random", "streams", "graphs"]

_NO_XPU = "Torch not compiled with XPU enabled"
default_generators = ()


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NO_XPU)


def _dummy(name):
    raise RuntimeError(f"Tried to instantiate dummy base class {name}")


def _no_binding(name):
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def _pyzes(device=None):
    raise ImportError("pyzes is required; install it with 'pip install pyzes'.")


clock_rate = device_memory_used = memory_usage = power_draw = temperature = utilization = _pyzes


def is_available():
    return False


def is_initialized():
    return False


def device_count():
    return 0


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def init():
    _not_compiled()


def current_device():
    _not_compiled()


def get_device_capability(device=None):
    _not_compiled()


def get_device_name(device=None):
    _not_compiled()


def get_device_properties(device=None):
    _not_compiled()


def synchronize(device=None):
    _not_compiled()


def can_device_access_peer(device, peer):
    _not_compiled()


def set_device(device):
    _not_compiled()


def current_stream(device=None):
    _not_compiled()


def get_stream_from_external(data_ptr, device=None):
    _not_compiled()


def mem_get_info(device=None):
    _not_compiled()


def get_per_process_memory_fraction(device=None):
    _not_compiled()


def set_per_process_memory_fraction(fraction, device=None):
    _not_compiled()


def initial_seed():
    _not_compiled()


def get_rng_state(device="xpu"):
    _not_compiled()


def get_rng_state_all():
    return []


def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def set_rng_state(new_state, device="xpu"):
    new_state.clone()


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None):
    return {}


def memory_snapshot(mempool_id=None):
    return []


def reset_peak_memory_stats(device=None):
    _no_binding("_xpu_resetPeakMemoryStats")


def reset_accumulated_memory_stats(device=None):
    _no_binding("_xpu_resetAccumulatedMemoryStats")


def change_current_allocator(allocator):
    _no_binding("_xpu_changeCurrentAllocator")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    _not_compiled()
    yield


class device:
    """Context manager selecting an XPU device; entering it needs XPU."""

    def __init__(self, device):
        if isinstance(device, str):
            device = _torch_device(device)
        if isinstance(device, _torch_device) and device.type != "xpu":
            raise ValueError(f"Expected a xpu device, but got: {device}")
        self.idx = device.index if isinstance(device, _torch_device) else device
        self.prev_idx = -1

    def __enter__(self):
        raise NotImplementedError("PyTorch was compiled without XPU support")

    def __exit__(self, type, value, traceback):
        return False


class device_of(device):
    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_xpu else -1)


class Stream:
    def __new__(cls, device=None, priority=0, **kwargs):
        _dummy("Stream")


class Event:
    def __new__(cls, enable_timing=False):
        _dummy("Event")


class MemPool:
    def __new__(cls, allocator=None, use_on_oom=False):
        _dummy("MemPool")


class XPUGraph:
    def __new__(cls, keep_graph=False):
        _dummy("XPUGraph")


class StreamContext:
    """Selects a stream; a no-op for None."""

    def __init__(self, stream):
        self.stream = stream
        self.idx = -1

    def __enter__(self):
        return None

    def __exit__(self, type, value, traceback):
        return None


def stream(stream):
    return StreamContext(stream)


def set_stream(stream):
    if stream is None:
        return
    _no_binding("_xpu_setStream")


class graph:
    def __init__(self, xpu_graph, pool=None, stream=None):
        _dummy("Stream")


def graph_pool_handle():
    _dummy("_xpu_graph_pool_handle")


def is_current_stream_capturing():
    _dummy("_xpu_isCurrentStreamCapturing")


# the submodules, as namespaces of the functions above
memory = types.SimpleNamespace(MemPool=MemPool, change_current_allocator=change_current_allocator, empty_cache=empty_cache, get_per_process_memory_fraction=get_per_process_memory_fraction, is_initialized=is_initialized, max_memory_allocated=max_memory_allocated, max_memory_reserved=max_memory_reserved, mem_get_info=mem_get_info, memory_allocated=memory_allocated, memory_reserved=memory_reserved, memory_snapshot=memory_snapshot, memory_stats=memory_stats, memory_stats_as_nested_dict=memory_stats_as_nested_dict, reset_accumulated_memory_stats=reset_accumulated_memory_stats, reset_peak_memory_stats=reset_peak_memory_stats, set_per_process_memory_fraction=set_per_process_memory_fraction, use_mem_pool=use_mem_pool)
random = types.SimpleNamespace(current_device=current_device, device_count=device_count, get_rng_state=get_rng_state, get_rng_state_all=get_rng_state_all, initial_seed=initial_seed, is_initialized=is_initialized, manual_seed=manual_seed, manual_seed_all=manual_seed_all, seed=seed, seed_all=seed_all, set_rng_state=set_rng_state, set_rng_state_all=set_rng_state_all)
streams = types.SimpleNamespace(Event=Event, Stream=Stream)
graphs = types.SimpleNamespace(XPUGraph=XPUGraph, graph=graph, graph_pool_handle=graph_pool_handle,
                               is_current_stream_capturing=is_current_stream_capturing)
