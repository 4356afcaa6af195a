"""torch.backends.cudnn: cuDNN is absent (no CUDA); its flags keep PyTorch's defaults and
validation so programs that set them for reproducibility run unchanged."""
import sys
from contextlib import contextmanager

from . import (ContextProp, PropModule, _FP32Precision, _allow_mutation,
               _get_fp32_precision_getter, _set_fp32_precision_setter, _get_fp32, _set_fp32)

__all__ = ["version", "is_available", "is_acceptable", "flags", "set_flags",
           "CUDNN_TENSOR_DTYPES"]


def _tensor_dtypes():
    from .. import _dtype
    return {_dtype.float16, _dtype.float32, _dtype.float64}


class _Flags:
    enabled = True
    benchmark = False
    deterministic = False
    allow_tf32 = True
    depthwise_kernel = "auto"


def _bool_setter(name, cname):
    def set(value):
        if not isinstance(value, bool):
            raise RuntimeError(f"set_{cname} expects a bool, but got {type(value).__name__}")
        setattr(_Flags, name, value)
    return set


def _set_depthwise_kernel(value):
    if value not in ("auto", "cudnn", "native"):
        raise RuntimeError(f"Unknown cuDNN depthwise kernel mode: {value}. Expected one of: auto, "
                           "cudnn, native")
    _Flags.depthwise_kernel = value


def version():
    """The cuDNN version: None, as chainrule has no cuDNN."""
    return None


def is_available():
    return False


def is_acceptable(tensor):
    """Whether cuDNN could run on `tensor`: never (it would have to be a CUDA tensor)."""
    if not _Flags.enabled:
        return False
    if tensor.device.type != "cuda":
        return False
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None):
    orig_flags = (_Flags.enabled, _Flags.benchmark, None, _Flags.deterministic,
                  _Flags.allow_tf32, _get_fp32("cuda", "all"), _Flags.depthwise_kernel)
    if _enabled is not None:
        _bool_setter("enabled", "enabled_cudnn")(_enabled)
    if _benchmark is not None:
        _bool_setter("benchmark", "benchmark_cudnn")(_benchmark)
    if _deterministic is not None:
        _bool_setter("deterministic", "deterministic_cudnn")(_deterministic)
    if _allow_tf32 is not None:
        _bool_setter("allow_tf32", "allow_tf32_cublas")(_allow_tf32)
    if _fp32_precision is not None:
        _set_fp32("cuda", "all", _fp32_precision)
    if _depthwise_kernel is not None:
        _set_depthwise_kernel(_depthwise_kernel)
    return orig_flags


@contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    with _allow_mutation():
        orig_flags = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                               fp32_precision, depthwise_kernel)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


class CudnnModule(PropModule):
    enabled = ContextProp(lambda: _Flags.enabled, _bool_setter("enabled", "enabled_cudnn"))
    deterministic = ContextProp(lambda: _Flags.deterministic,
                                _bool_setter("deterministic", "deterministic_cudnn"))
    benchmark = ContextProp(lambda: _Flags.benchmark, _bool_setter("benchmark", "benchmark_cudnn"))
    benchmark_limit = None
    allow_tf32 = ContextProp(lambda: _Flags.allow_tf32,
                             _bool_setter("allow_tf32", "allow_tf32_cublas"))
    conv = _FP32Precision("cuda", "conv")
    rnn = _FP32Precision("cuda", "rnn")
    fp32_precision = ContextProp(_get_fp32_precision_getter("cuda", "all"),
                                 _set_fp32_precision_setter("cuda", "all"))
    depthwise_kernel = ContextProp(lambda: _Flags.depthwise_kernel, _set_depthwise_kernel)

    @property
    def CUDNN_TENSOR_DTYPES(self):
        return _tensor_dtypes()


sys.modules[__name__] = CudnnModule(sys.modules[__name__], __name__)
