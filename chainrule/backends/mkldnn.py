"""torch.backends.mkldnn: oneDNN is not used by chainrule (is_available() is False); its
flags keep PyTorch's defaults and validation."""
import sys
import warnings
from contextlib import contextmanager

from . import (ContextProp, PropModule, _FP32Precision, _allow_mutation, _get_fp32,
               _get_fp32_precision_getter, _set_fp32, _set_fp32_precision_setter)

__all__ = ["is_available", "is_acl_available", "verbose", "flags", "set_flags", "VERBOSE_OFF",
           "VERBOSE_ON", "VERBOSE_ON_CREATION"]

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


def is_available():
    """Whether chainrule uses MKL-DNN (oneDNN): no."""
    return False


def is_acl_available():
    return False


class verbose:
    """On-demand oneDNN verbose output; without oneDNN only VERBOSE_OFF works."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        if self.level == VERBOSE_OFF:
            return
        raise AssertionError("Failed to set MKLDNN into verbose mode. Please consider to disable "
                             "this verbose scope.")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


class _Flags:
    enabled = True
    deterministic = False
    allow_tf32 = None


def _bool_setter(name):
    def set(value):
        if not isinstance(value, bool):
            raise RuntimeError(f"set_{name}_mkldnn expects a bool, but got {type(value).__name__}")
        setattr(_Flags, name, value)
    return set


def _set_allow_tf32(value):
    warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The current "
                  "Torch version does not have Intel GPU Support.", UserWarning, stacklevel=3)


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    orig_flags = (_Flags.enabled, _Flags.deterministic, _Flags.allow_tf32,
                  _get_fp32("mkldnn", "all"))
    if _enabled is not None:
        _bool_setter("enabled")(_enabled)
    if _deterministic is not None:
        _bool_setter("deterministic")(_deterministic)
    if _allow_tf32 is not None:
        _set_allow_tf32(_allow_tf32)
    if _fp32_precision is not None:
        _set_fp32("mkldnn", "all", _fp32_precision)
    return orig_flags


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    with _allow_mutation():
        orig_flags = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


class MkldnnModule(PropModule):
    def is_available(self):
        return is_available()

    enabled = ContextProp(lambda: _Flags.enabled, _bool_setter("enabled"))
    deterministic = ContextProp(lambda: _Flags.deterministic, _bool_setter("deterministic"))
    allow_tf32 = ContextProp(lambda: _Flags.allow_tf32, _set_allow_tf32)
    matmul = _FP32Precision("mkldnn", "matmul")
    conv = _FP32Precision("mkldnn", "conv")
    rnn = _FP32Precision("mkldnn", "rnn")
    fp32_precision = ContextProp(_get_fp32_precision_getter("mkldnn", "all"),
                                 _set_fp32_precision_setter("generic", "all"))


sys.modules[__name__] = MkldnnModule(sys.modules[__name__], __name__)
