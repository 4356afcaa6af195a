"""torch.cuda as PyTorch's CPU-only build has it: CUDA is never available. Each function
behaves as it does there: queries answer (`is_available()` is False, `device_count()` 0,
memory counters 0), seeding and cache calls are silently ignored, and what needs a GPU raises
that build's exception with its message (most: AssertionError "Torch not compiled with CUDA
enabled"; some surface the missing `torch._C` bindings as AttributeError, as they do there).
"""
import collections
import contextlib
import warnings
from typing import Union

from .._device import device as _torch_device

__all__ = [
    "AcceleratorError", "CUDAGraph", "CudaError", "DeferredCudaCallError", "Device", "Event",
    "ExternalStream", "MemPool", "OutOfMemoryError", "Stream", "StreamContext", "amp",
    "caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_disabled",
    "caching_allocator_enable", "can_device_access_peer", "change_current_allocator",
    "check_error", "clock_rate", "cudaStatus", "cudart", "current_blas_handle", "current_device",
    "current_solver_handle", "current_stream", "default_generators", "default_stream", "device",
    "device_count", "device_memory_used", "device_of", "empty_cache", "get_allocator_backend",
    "get_arch_list", "get_device_capability", "get_device_name", "get_device_properties",
    "get_gencode_flags", "get_per_process_memory_fraction", "get_rng_state", "get_rng_state_all",
    "get_stream_from_external", "get_sync_debug_mode", "graph", "graph_pool_handle", "has_half",
    "has_magma", "host_memory_stats", "host_memory_stats_as_nested_dict", "init", "initial_seed",
    "ipc_collect", "is_available", "is_bf16_supported", "is_current_stream_capturing",
    "is_initialized", "is_tf32_supported", "list_gpu_processes", "manual_seed",
    "manual_seed_all", "max_memory_allocated", "max_memory_cached", "max_memory_reserved",
    "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved", "memory_snapshot",
    "memory_stats", "memory_stats_as_nested_dict", "memory_summary", "memory_usage", "nvtx",
    "power_draw", "reset_accumulated_host_memory_stats", "reset_accumulated_memory_stats",
    "reset_max_memory_allocated", "reset_max_memory_cached", "reset_peak_host_memory_stats",
    "reset_peak_memory_stats", "seed", "seed_all", "set_device",
    "set_per_process_memory_fraction", "set_rng_state", "set_rng_state_all", "set_stream",
    "set_sync_debug_mode", "stream", "synchronize", "temperature", "use_mem_pool", "utilization",
]

_NO_CUDA = "Torch not compiled with CUDA enabled"
_NO_NVML = "nvidia-ml-py does not seem to be installed or it can't be imported."

Device = Union[_torch_device, str, int, None]
has_half = True
has_magma = False
default_generators = ()


class AcceleratorError(RuntimeError):
    """An error reported by an accelerator runtime."""
    __module__ = "torch"


class OutOfMemoryError(RuntimeError):
    """Raised when a device runs out of memory."""
    __module__ = "torch"


class CudaError(RuntimeError):
    def __init__(self, code):
        raise AttributeError("'NoneType' object has no attribute 'cudaGetErrorString'")


class DeferredCudaCallError(Exception):
    pass


class cudaStatus:
    SUCCESS = 0
    ERROR_NOT_READY = 34


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NO_CUDA)


def _no_binding(name):
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def _dummy(name):
    raise RuntimeError(f"Tried to instantiate dummy base class {name}")


# ---- availability and devices -------------------------------------------------------------

def is_available():
    """Whether CUDA can be used: never, in chainrule."""
    return False


def is_initialized():
    return False


def init():
    _not_compiled()


def device_count():
    return 0


def current_device():
    _not_compiled()


def get_device_capability(device=None):
    _not_compiled()


def get_device_name(device=None):
    _not_compiled()


def get_device_properties(device=None):
    _not_compiled()


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def can_device_access_peer(device, peer_device):
    _not_compiled()


def _get_device_index(device, optional=False):
    """torch.cuda._utils._get_device_index, with its errors."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _torch_device(device)
    if isinstance(device, _torch_device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        idx = device.index
    elif isinstance(device, globals()["device"]):
        return device.idx
    else:
        idx = None
    if idx is None and not optional:
        raise ValueError("Expected a torch.device with a specified index or an integer, but "
                         f"got:{device}")
    return idx


def _exchange_device(idx):
    if idx < 0:
        return -1
    raise RuntimeError("PyTorch was compiled without CUDA support")


def set_device(device):
    """Select the current CUDA device (a no-op for a negative index)."""
    if _get_device_index(device) >= 0:
        _no_binding("_cuda_setDevice")


class device:
    """Context manager that selects a CUDA device (a no-op for a negative index)."""

    def __init__(self, device):
        self.idx = _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _exchange_device(self.idx)

    def __exit__(self, type, value, traceback):
        self.idx = _exchange_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager selecting the device of tensor `obj` (a no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def synchronize(device=None):
    _not_compiled()


def ipc_collect():
    _not_compiled()


def cudart():
    _not_compiled()


def current_blas_handle():
    _not_compiled()


def current_solver_handle():
    _not_compiled()


def get_sync_debug_mode():
    _not_compiled()


def set_sync_debug_mode(debug_mode):
    _not_compiled()


def check_error(res):
    raise AttributeError("'NoneType' object has no attribute 'cudaError'")


def _nvml(device=None):
    raise ModuleNotFoundError(_NO_NVML)


clock_rate = device_memory_used = memory_usage = power_draw = temperature = utilization = _nvml


def list_gpu_processes(device=None):
    return "pynvml module not found, please install nvidia-ml-py"


# ---- random numbers: seeding is queued for CUDA's lazy init, which never happens ----------

def manual_seed(seed):
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def initial_seed():
    _not_compiled()


def get_rng_state(device="cuda"):
    _not_compiled()


def get_rng_state_all():
    return []


def set_rng_state(new_state, device="cuda"):
    new_state.clone()     # PyTorch clones the state before queueing the call


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


# ---- memory: the allocator has nothing to report ------------------------------------------

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


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return 0


def max_memory_cached(device=None):
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def memory_stats(device=None):
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None):
    return {}


def host_memory_stats():
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict():
    return {}


def memory_summary(device=None, abbreviated=False):
    raise KeyError("allocated_bytes.all.current")


def memory_snapshot(mempool_id=None, include_traces=True):
    _no_binding("_cuda_memorySnapshot")


def mem_get_info(device=None):
    _not_compiled()


def get_per_process_memory_fraction(device=None):
    _not_compiled()


def set_per_process_memory_fraction(fraction, device=None):
    _not_compiled()


def reset_peak_memory_stats(device=None):
    _no_binding("_cuda_resetPeakMemoryStats")


def reset_accumulated_memory_stats(device=None):
    _no_binding("_cuda_resetAccumulatedMemoryStats")


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_peak_host_memory_stats():
    _no_binding("_cuda_resetPeakHostMemoryStats")


def reset_accumulated_host_memory_stats():
    _no_binding("_cuda_resetAccumulatedHostMemoryStats")


def caching_allocator_alloc(size, device=None, stream=None):
    _not_compiled()


def caching_allocator_delete(mem_ptr):
    _no_binding("_cuda_cudaCachingAllocator_raw_delete")


@contextlib.contextmanager
def caching_allocator_disabled():
    _no_binding("_cuda_cudaCachingAllocator_is_enabled")
    yield


def caching_allocator_enable(value=True):
    pass


def get_allocator_backend():
    _no_binding("_cuda_getAllocatorBackend")


def change_current_allocator(allocator):
    _no_binding("_cuda_changeCurrentAllocator")


class MemPool:
    def __init__(self, *args, **kwargs):
        _dummy("MemPool")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    _not_compiled()
    yield


# ---- streams, events and graphs: none without a GPU --------------------------------------

class Stream:
    """A CUDA stream; needs CUDA."""

    def __new__(cls, device=None, priority=0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class ExternalStream(Stream):
    def __new__(cls, stream_ptr, device=None, **kwargs):
        raise TypeError("'<' not supported between instances of 'NoneType' and 'int'")


class Event:
    """A CUDA event; needs CUDA."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        _dummy("Event")


class StreamContext:
    """Context manager selecting a stream; a no-op for None (the only stream there is)."""

    def __init__(self, stream):
        self.stream = stream
        self.idx = -1

    def __enter__(self):
        return None

    def __exit__(self, type, value, traceback):
        return None


def stream(stream):
    """Context manager selecting `stream` (a no-op for None)."""
    return StreamContext(stream)


def set_stream(stream):
    if stream is None:
        return
    _no_binding("_cuda_setStream")


def current_stream(device=None):
    _not_compiled()


def default_stream(device=None):
    _not_compiled()


def get_stream_from_external(data_ptr, device=None):
    _not_compiled()


class CUDAGraph:
    def __new__(cls, keep_graph=False):
        _dummy("CUDAGraph")


class graph:
    """Context manager capturing a CUDA graph; needs CUDA."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global",
                 enable_annotations=False, check_input_liveness=False):
        Stream()


def graph_pool_handle():
    _dummy("_graph_pool_handle")


def is_current_stream_capturing():
    _dummy("_cuda_isCurrentStreamCapturing")


# ---- legacy tensor and storage types ------------------------------------------------------

def _legacy_tensor_type(name):
    def __new__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA "
                        "enabled.")
    return type(name, (), {"__new__": __new__, "__module__": "torch.cuda"})


def _legacy_storage_type(name):
    def __new__(cls, *args, **kwargs):
        from .._storage import _warn_typed_storage
        _warn_typed_storage(stacklevel=3)
        _not_compiled()
    return type(name, (), {"__new__": __new__, "__module__": "torch.cuda"})


for _n in ("BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long", "Short"):
    globals()[f"{_n}Tensor"] = _legacy_tensor_type(f"{_n}Tensor")
    __all__.append(f"{_n}Tensor")
for _n in ("BFloat16", "Bool", "Byte", "Char", "ComplexDouble", "ComplexFloat", "Double",
           "Float", "Half", "Int", "Long", "Short"):
    globals()[f"{_n}Storage"] = _legacy_storage_type(f"{_n}Storage")
    __all__.append(f"{_n}Storage")
del _n

from . import amp, memory, nvtx, random, streams, graphs  # noqa: E402  (they read the above)
