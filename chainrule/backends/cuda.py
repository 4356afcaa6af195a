"""torch.backends.cuda: CUDA is absent; cuBLAS/cuFFT/SDPA flags keep PyTorch's defaults and
validation (they do not change chainrule's CPU computations)."""
import contextlib
import enum
import warnings

from . import _get_fp32, _set_fp32

__all__ = ["is_built", "cuBLASModule", "cuFFTPlanCache", "cuFFTPlanCacheManager",
           "preferred_linalg_library", "preferred_blas_library", "preferred_rocm_fa_library",
           "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp",
           "cudnn_sdp_enabled", "enable_cudnn_sdp", "allow_fp16_bf16_reduction_math_sdp",
           "fp16_bf16_reduction_math_sdp_allowed", "is_flash_attention_available",
           "is_ck_sdpa_available", "sdp_kernel", "SDPBackend", "cublas_workspace_size",
           "cublaslt_workspace_size", "blas_workspace_size", "matmul", "cufft_plan_cache",
           "SDPAParams", "can_use_flash_attention", "can_use_efficient_attention",
           "can_use_cudnn_attention"]


def is_built():
    """Whether chainrule was built with CUDA: no."""
    return False


class _Enum(enum.IntEnum):
    def __repr__(self):
        return f"<{type(self).__name__}.{self.name}: {self.value}>"

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"


_LinalgBackend = _Enum("_LinalgBackend", [("Default", 0), ("Cusolver", 1), ("Magma", 2)])
_BlasBackend = _Enum("_BlasBackend", [("Default", 0), ("Cublas", 1), ("Cublaslt", 2), ("Ck", 3)])
_ROCmFABackend = _Enum("_ROCmFABackend", [("Default", 0), ("AOTriton", 1), ("Ck", 2)])
SDPBackend = _Enum("SDPBackend", [("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1),
                                  ("EFFICIENT_ATTENTION", 2), ("CUDNN_ATTENTION", 3),
                                  ("OVERRIDEABLE", 4)])

_LinalgBackends = {"default": _LinalgBackend.Default, "cusolver": _LinalgBackend.Cusolver,
                   "magma": _LinalgBackend.Magma}
_BlasBackends = {"default": _BlasBackend.Default, "cublas": _BlasBackend.Cublas,
                 "hipblas": _BlasBackend.Cublas, "cublaslt": _BlasBackend.Cublaslt,
                 "hipblaslt": _BlasBackend.Cublaslt, "ck": _BlasBackend.Ck}
_ROCmFABackends = {"default": _ROCmFABackend.Default, "aotriton": _ROCmFABackend.AOTriton,
                   "ck": _ROCmFABackend.Ck}
_preferred = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas,
              "rocm_fa": _ROCmFABackend.Default}


def preferred_linalg_library(backend=None):
    """The preferred CUDA linear-algebra library (only 'default' can be chosen here)."""
    if backend is None:
        pass
    elif isinstance(backend, str):
        if backend not in _LinalgBackends:
            raise RuntimeError("Unknown input value. Choose from: default, cusolver, magma.")
        backend = _LinalgBackends[backend]
    elif not isinstance(backend, _LinalgBackend):
        raise RuntimeError("Unknown input value type.")
    if backend is _LinalgBackend.Cusolver:
        raise RuntimeError("Cannot set preferred backend to cuSOLVER if PyTorch has not been "
                           "compiled with cuSOLVER.")
    if backend is _LinalgBackend.Magma:
        raise RuntimeError("Cannot set preferred backend to MAGMA if PyTorch has not been "
                           "compiled with MAGMA.")
    if backend is not None:
        _preferred["linalg"] = backend
    return _preferred["linalg"]


def preferred_blas_library(backend=None):
    """The preferred CUDA BLAS library."""
    if backend is None:
        pass
    elif isinstance(backend, str):
        if backend not in _BlasBackends:
            raise RuntimeError("Unknown input value. Choose from: default, cublas, hipblas, "
                               "cublaslt, hipblaslt, ck.")
        backend = _BlasBackends[backend]
    elif not isinstance(backend, _BlasBackend):
        raise RuntimeError("Unknown input value type.")
    if backend is _BlasBackend.Cublaslt:
        raise RuntimeError("Cannot set preferred backend to cuBLASLt if PyTorch has not been "
                           "compiled with cuBLASLt.")
    if backend is not None:
        _preferred["blas"] = _BlasBackend.Cublas if backend is _BlasBackend.Default else backend
    return _preferred["blas"]


def preferred_rocm_fa_library(backend=None):
    """The preferred ROCm flash-attention library."""
    choose = "Unknown input value. Choose from: default, aotriton, ck."
    if backend is None:
        pass
    elif isinstance(backend, str):
        if backend not in _ROCmFABackends:
            raise RuntimeError(choose)
        _preferred["rocm_fa"] = _ROCmFABackends[backend]
    elif isinstance(backend, _ROCmFABackend):
        _preferred["rocm_fa"] = backend
    else:
        raise ValueError(choose)
    return _preferred["rocm_fa"]


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True,
        "fp16_bf16_reduction": False}


def _sdp_setter(key):
    def set(enabled):
        if not isinstance(enabled, bool):
            # PyTorch's messages, as they are: set_sdp_use_math for all but cuDNN's, whose
            # format string keeps a stray %s
            if key == "cudnn":
                raise RuntimeError("set_sdp_use_cudnn expects a bool, but got %s"
                                   f"{type(enabled).__name__}")
            raise RuntimeError(f"set_sdp_use_math expects a bool, but got {type(enabled).__name__}")
        _sdp[key] = enabled
    return set


def flash_sdp_enabled():
    return _sdp["flash"]


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def math_sdp_enabled():
    return _sdp["math"]


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def fp16_bf16_reduction_math_sdp_allowed():
    return _sdp["fp16_bf16_reduction"]


enable_flash_sdp = _sdp_setter("flash")
enable_mem_efficient_sdp = _sdp_setter("mem_efficient")
enable_math_sdp = _sdp_setter("math")
enable_cudnn_sdp = _sdp_setter("cudnn")
allow_fp16_bf16_reduction_math_sdp = _sdp_setter("fp16_bf16_reduction")


def is_flash_attention_available():
    return False


def is_ck_sdpa_available():
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """Deprecated: enable only the given scaled-dot-product-attention kernels in the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
                  "new context manager, with updated signature.", FutureWarning, stacklevel=3)
    old = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient,
                cudnn=enable_cudnn)
    try:
        yield {}
    finally:
        _sdp.update(old)


class SDPAParams:
    """The inputs scaled_dot_product_attention's kernel checks read (read-only)."""

    __slots__ = ("_query", "_key", "_value", "_attn_mask", "_dropout", "_is_causal",
                 "_enable_gqa")

    def __init__(self, *args):
        from .._tensor import Tensor
        if (len(args) != 7 or not all(isinstance(t, Tensor) for t in args[:3])
                or not (args[3] is None or isinstance(args[3], Tensor))
                or not isinstance(args[4], (int, float)) or isinstance(args[4], bool)
                or not isinstance(args[5], bool) or not isinstance(args[6], bool)):
            raise TypeError("__init__(): incompatible constructor arguments. The following "
                            "argument types are supported:\n    1. torch._C._SDPAParams(arg0: "
                            "torch.Tensor, arg1: torch.Tensor, arg2: torch.Tensor, arg3: "
                            "torch.Tensor | None, arg4: typing.SupportsFloat | "
                            "typing.SupportsIndex, arg5: bool, arg6: bool)\n")
        (self._query, self._key, self._value, self._attn_mask, dropout, self._is_causal,
         self._enable_gqa) = args
        self._dropout = float(dropout)

    query = property(lambda self: self._query)
    key = property(lambda self: self._key)
    value = property(lambda self: self._value)
    attn_mask = property(lambda self: self._attn_mask)
    dropout = property(lambda self: self._dropout)
    is_causal = property(lambda self: self._is_causal)
    enable_gqa = property(lambda self: self._enable_gqa)



def can_use_flash_attention(params, debug=False):
    """Whether the CUDA flash-attention kernel could run these params: never on a CPU build."""
    return False


def can_use_efficient_attention(params, debug=False):
    """Whether the CUDA memory-efficient kernel could run these params: never on a CPU build."""
    return False


def can_use_cudnn_attention(params, debug=False):
    """Whether the cuDNN attention kernel could run these params: never on a CPU build."""
    return False


def _no_binding(name):
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def cublas_workspace_size(size=None):
    _no_binding("_cuda_setCublasWorkspaceSize" if size is not None
                else "_cuda_getCublasWorkspaceSize")


def cublaslt_workspace_size(size=None):
    _no_binding("_cuda_setCublasLtWorkspaceSize" if size is not None
                else "_cuda_getCublasLtWorkspaceSize")


def blas_workspace_size(size=None):
    blas = preferred_blas_library()
    if blas is _BlasBackend.Ck:
        raise RuntimeError("CK backend does not use a workspace.")
    return cublas_workspace_size(size)


_cublas = {"allow_tf32": False, "fp16_reduction": (True, True), "bf16_reduction": (True, True),
           "fp16_accumulation": False}


class cuBLASModule:
    """torch.backends.cuda.matmul: cuBLAS flags (allow_tf32, reduced-precision reductions)."""

    @staticmethod
    def _parse_reduction_setting(value, attr_name):
        def _ensure_bool(obj, which):
            if isinstance(obj, bool):
                return obj
            raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(obj)!r}")
        if isinstance(value, bool):
            return value, True
        if isinstance(value, (list, tuple)):
            if not value:
                raise TypeError(f"{attr_name} expects at least one boolean argument")
            if len(value) > 2:
                raise TypeError(f"{attr_name} expects at most two boolean arguments")
            allow = _ensure_bool(value[0], "allow_reduced_precision")
            if len(value) == 1:
                return allow, True
            return allow, _ensure_bool(value[1], "allow_splitk")
        raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, but got "
                        f"{type(value)!r}")

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _cublas["allow_tf32"]
        if name == "allow_fp16_reduced_precision_reduction":
            return _cublas["fp16_reduction"][0]
        if name == "allow_fp16_reduced_precision_reduction_split_k":
            return _cublas["fp16_reduction"][1]
        if name == "allow_bf16_reduced_precision_reduction":
            return _cublas["bf16_reduction"][0]
        if name == "allow_bf16_reduced_precision_reduction_split_k":
            return _cublas["bf16_reduction"][1]
        if name == "allow_fp16_accumulation":
            return _cublas["fp16_accumulation"]
        if name == "fp32_precision":
            return _get_fp32("cuda", "matmul")
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError("set_allow_tf32_cublas expects a bool, but got "
                                   f"{type(value).__name__}")
            _cublas["allow_tf32"] = value
            # the legacy flag and the float32 matmul precision are one setting in PyTorch
            from .. import _platform
            _platform.set_matmul_precision_from_tf32(value)
            return None
        if name == "allow_fp16_reduced_precision_reduction":
            _cublas["fp16_reduction"] = self._parse_reduction_setting(value, name)
            return None
        if name == "allow_bf16_reduced_precision_reduction":
            _cublas["bf16_reduction"] = self._parse_reduction_setting(value, name)
            return None
        if name == "allow_fp16_accumulation":
            _cublas["fp16_accumulation"] = value
            return None
        if name == "fp32_precision":
            _set_fp32("cuda", "matmul", value)
            return None
        raise AttributeError("Unknown attribute " + name)


class cuFFTPlanCache:
    """A device's cuFFT plan cache (there is no CUDA device)."""

    def __init__(self, device_index):
        self.device_index = device_index

    size = property(lambda self: _not_compiled())
    max_size = property(lambda self: _not_compiled(), lambda self, v: _not_compiled())

    def clear(self):
        _not_compiled()


def _not_compiled():
    raise AssertionError("Torch not compiled with CUDA enabled")


class cuFFTPlanCacheManager:
    """Indexing gives a device's cuFFT plan cache; attributes use the current device's."""
    __initialized = False

    def __init__(self):
        self.caches = []
        self.__initialized = True

    def __getitem__(self, device):
        from ..cuda import _get_device_index
        index = _get_device_index(device)
        raise RuntimeError("cufft_plan_cache: expected 0 <= device index < 0, but got device "
                           f"with index {index}")

    def __getattr__(self, name):
        _not_compiled()

    def __setattr__(self, name, value):
        if self.__initialized:
            _not_compiled()
        super().__setattr__(name, value)


matmul = cuBLASModule()
cufft_plan_cache = cuFFTPlanCacheManager()
