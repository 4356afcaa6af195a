"""chainrule: PyTorch's autograd (tensors, a define-by-run graph, reverse-mode and
higher-order differentiation) in Python on NumPy. Use it as `import chainrule as torch`."""
from .torch_version import TorchVersion as _TorchVersion
# chainrule's own release, compared as PyTorch's is (`torch.__version__ < (3, 0)`)
__version__ = _TorchVersion("0.1.0")

# autograd first: its grad_mode and graph need nothing else, and Tensor needs them.
from . import autograd
from . import _dtype
from ._dtype import *  # noqa: F401,F403  (every dtype, finfo, iinfo, promote_types, ...)
from ._dtype import __all__ as _dtype_all
from ._device import device, get_default_device, set_default_device
from ._tensor import (Size, Tensor, channels_last, channels_last_3d, contiguous_format, jagged,
                      layout, legacy_contiguous_format, memory_format, preserve_format,
                      sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided)
from . import ops
from . import nn
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._tensor_str import set_printoptions, get_printoptions, printoptions
from . import _random as random
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                      seed, set_rng_state)
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                       no_grad, set_grad_enabled)
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                    set_anomaly_enabled)
from .ops.registry import FUNCTIONS as _FUNCTIONS
from . import optim
from . import serialization
from . import utils
from . import fft
save = serialization.save; load = serialization.load  # noqa: E702
from ._platform import (FatalError, StorageBase, are_deterministic_algorithms_enabled,
                        compiled_with_cxx11_abi, get_deterministic_debug_mode, get_device,
                        get_device_module, is_distributed, solve,
                        get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
                        init_num_threads, is_deterministic_algorithms_warn_only_enabled,
                        is_nonzero, is_same_size, is_signed, is_storage, is_warn_always_enabled,
                        set_default_tensor_type, set_deterministic_debug_mode,
                        set_float32_matmul_precision, set_flush_denormal,
                        set_num_interop_threads, set_num_threads, set_warn_always, typename,
                        use_deterministic_algorithms)

globals().update(_FUNCTIONS)

from math import e, inf, nan, pi  # noqa: E402
newaxis = None
has_lapack = True        # NumPy's linalg is LAPACK
has_spectral = True      # NumPy's fft
has_openmp = False       # chainrule's kernels use no OpenMP


def result_type(tensor1, tensor2):
    """The dtype PyTorch's type promotion gives for an op over the two operands."""
    return _dtype.result_type((tensor1, tensor2))


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_inference(input):
    """Whether `input` was made in inference mode."""
    if not isinstance(input, Tensor):
        raise TypeError("is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()


class _ClassPropertyDescriptor:
    def __init__(self, fget, fset=None):
        self.fget = fget

    def __get__(self, instance, owner=None):
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func):
    """A read-only property of the class (torch.classproperty)."""
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)


# Submodules and names loaded on first use, so `import chainrule` stays fast.
_LAZY_MODULES = {"cuda", "backends", "mps", "xpu", "mtia", "accelerator", "amp", "compiler",
                 "profiler", "cpu", "version", "__config__", "testing", "quasirandom", "signal",
                 "linalg", "library", "func"}
_LAZY_NAMES = {
    "vmap": ("func", "vmap"),
    "compile": ("compiler", "compile"),
    "autocast": ("amp", "autocast"), "GradScaler": ("amp", "GradScaler"),
    "Stream": ("_streams", "Stream"), "Event": ("_streams", "Event"),
    "UntypedStorage": ("_storage", "UntypedStorage"), "TypedStorage": ("_storage", "TypedStorage"),
    "AcceleratorError": ("cuda", "AcceleratorError"),
    "OutOfMemoryError": ("cuda", "OutOfMemoryError"),
    **{n: ("amp.autocast_mode", n) for n in (
        "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
        "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
        "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
        "is_autocast_ipu_enabled", "is_autocast_xla_enabled", "get_autocast_cpu_dtype",
        "get_autocast_gpu_dtype", "get_autocast_ipu_dtype", "get_autocast_xla_dtype",
        "set_autocast_cpu_enabled", "set_autocast_ipu_enabled", "set_autocast_xla_enabled",
        "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_ipu_dtype",
        "set_autocast_xla_dtype")},
}


def __getattr__(name):
    import importlib
    if name in _LAZY_MODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name in _LAZY_NAMES:
        module, attr = _LAZY_NAMES[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
    elif name.endswith("Storage") and name[:-7] in _LEGACY_STORAGE_DTYPES:
        from ._storage import LEGACY_NAMES
        value = LEGACY_NAMES[name]
    elif name == "has_mkl":
        from .backends.mkl import is_available
        value = is_available()
    else:
        raise AttributeError(f"module 'chainrule' has no attribute '{name}'")
    globals()[name] = value
    return value


# Smaller namespaces (futures, multiprocessing, masked, ...), loaded on first use.
_LAZY_MODULES |= {"futures", "functional", "return_types", "special", "multiprocessing",
                  "masked", "storage", "types"}
_LAZY_MODULES |= {"hub", "distributions", "_dynamo"}
_LAZY_MODULES |= {"viz"}          # chainrule's own: the graph as DOT and as a page
_LAZY_MODULES |= {"distributed"}  # MPI (mpi4py) loads at init_process_group only
# PyTorch's private names real programs call: checks, logging, module-conversion switches,
# multi-tensor (_foreach_*) ops, foreach_map
_LAZY_MODULES |= {"_logging", "__future__", "_higher_order_ops"}
from ._check import (_check, _check_index, _check_is_size, _check_not_implemented,  # noqa
                     _check_tensor_all, _check_tensor_all_with, _check_type, _check_value,
                     _check_with)
from ._foreach import *  # noqa: F401,F403,E402  (its __all__: every torch._foreach_* name)
_LAZY_NAMES.update({n: ("_sym", n) for n in (
    "sym_float", "sym_int", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite", "sym_sum",
    "sym_fresh_size", "thread_safe_generator")})
_LAZY_NAMES.update({"Storage": ("_storage", "Storage"), "windows": ("signal", "windows"),
                    "to_dlpack": ("utils.dlpack", "to_dlpack"),
                    "Future": ("futures", "_CFuture"), "fork": ("futures", "fork"),
                    "wait": ("futures", "wait"), "cond": ("_higher_order", "cond"),
                    "while_loop": ("_higher_order", "while_loop"),
                    "lobpcg": ("_lobpcg", "lobpcg")})


_LEGACY_STORAGE_DTYPES = {"Double", "Float", "Half", "Long", "Int", "Short", "Char", "Byte",
                          "Bool", "ComplexFloat", "ComplexDouble", "BFloat16"}


__all__ = sorted(set(_FUNCTIONS) | set(_creation_all) | set(_dtype_all) | {
    "Tensor", "Size", "dtype", "device", "autograd", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "get_default_dtype",
    "set_default_dtype", "float32", "float64", "float16", "int8", "int16", "int32", "int64",
    "uint8", "bool", "complex64", "complex128", "result_type", "promote_types", "Generator",
    "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
    "set_rng_state", "get_default_device", "set_default_device", "layout", "memory_format",
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged",
    "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
    "legacy_contiguous_format", "pi", "e", "inf", "nan", "newaxis", "is_inference",
    "is_storage", "typename", "is_nonzero", "is_same_size", "is_signed",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "set_flush_denormal",
    "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
    "init_num_threads", "compiled_with_cxx11_abi", "get_device_module",
    "set_default_tensor_type", "compile", "autocast", "GradScaler", "Stream", "Event",
    "UntypedStorage", "TypedStorage", "classproperty"} | set(_LAZY_NAMES))


def __dir__():
    # the lazy names are there too, as they are in dir(torch)
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES) | {
        f"{d}Storage" for d in _LEGACY_STORAGE_DTYPES} | {"has_mkl"})
