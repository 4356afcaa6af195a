"""torch.backends: what the backends are and their flags, answered for chainrule (NumPy on
the CPU). Flags PyTorch lets programs set (cudnn.deterministic, cuda.matmul.allow_tf32,
mkldnn.enabled, ...) are kept with PyTorch's defaults and setters, and have no effect on
chainrule's computations; availability answers say what chainrule really uses (no cuDNN,
oneDNN, NNPACK, OpenMP, MPS, ...). See each submodule."""
import sys
import types
from contextlib import contextmanager

__all__ = ["ContextProp", "PropModule", "disable_global_flags", "flags_frozen", "flags",
           "set_flags", "fp32_precision"]

__allow_nonbracketed_mutation_flag = True


def disable_global_flags():
    """Refuse assignments to backend flags from now on (flags() still works)."""
    global __allow_nonbracketed_mutation_flag
    __allow_nonbracketed_mutation_flag = False


def flags_frozen():
    return not __allow_nonbracketed_mutation_flag


@contextmanager
def __allow_nonbracketed_mutation():
    global __allow_nonbracketed_mutation_flag
    old = __allow_nonbracketed_mutation_flag
    __allow_nonbracketed_mutation_flag = True
    try:
        yield
    finally:
        __allow_nonbracketed_mutation_flag = old


_allow_mutation = __allow_nonbracketed_mutation   # for the submodules (no name mangling)


class ContextProp:
    """A module attribute read and written through functions (refused when frozen)."""

    def __init__(self, getter, setter):
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype):
        return self.getter()

    def __set__(self, obj, val):
        if not flags_frozen():
            self.setter(val)
        else:
            # named as PyTorch names the module (programs use chainrule as torch)
            name = "torch" + obj.__name__[len("chainrule"):]
            raise RuntimeError(f"not allowed to set {name} flags after "
                               "disable_global_flags; please use flags() context manager instead")


class PropModule(types.ModuleType):
    """A module whose class holds ContextProps, standing in for the real module."""

    def __init__(self, m, name):
        super().__init__(name)
        self.m = m

    def __getattr__(self, attr):
        return self.m.__getattribute__(attr)


# ---- fp32 precision (PyTorch 2.9+'s per backend and op setting) ---------------------------

_FP32 = {}          # (backend, op) -> precision; unset: inherited, finally "none"


def _get_fp32(backend, op):
    # an op's precision falls back to its backend's "all", then to the generic one
    for key in ((backend, op), (backend, "all"), ("generic", "all")):
        p = _FP32.get(key, "none")
        if p != "none":
            return p
    return "none"


def _set_fp32(backend, op, precision):
    if precision not in ("none", "ieee", "tf32", "bf16"):
        raise RuntimeError(f"Unknown precision: {precision}")
    if backend == "cuda" and precision == "bf16":
        raise RuntimeError("backend 'cuda' does not support precision 'bf16'")
    _FP32[(backend, op)] = precision


_FP32[("cuda", "conv")] = _FP32[("cuda", "rnn")] = "tf32"   # PyTorch's cuDNN defaults


class _FP32Precision:
    """`<backend>.<op>.fp32_precision`, e.g. torch.backends.cudnn.conv.fp32_precision."""

    def __init__(self, backend, op):
        self.backend = backend
        self.op = op

    def __setattr__(self, name, value):
        if name == "fp32_precision":
            _set_fp32(self.backend, self.op, value)
        elif name in ("backend", "op"):
            super().__setattr__(name, value)
        else:
            raise AttributeError("Unknown attribute " + name)

    def __getattr__(self, name):
        if name == "fp32_precision":
            return _get_fp32(self.backend, self.op)
        raise AttributeError("Unknown attribute " + name)


def _get_fp32_precision_getter(backend, op):
    return lambda: _get_fp32(backend, op)


def _set_fp32_precision_setter(backend, op):
    return lambda precision: _set_fp32(backend, op, precision)


def set_flags(_fp32_precision="none"):
    orig_flags = (_get_fp32("generic", "all"),)
    if _fp32_precision is not None:
        _set_fp32("generic", "all", _fp32_precision)
    return orig_flags


@contextmanager
def flags(fp32_precision="none"):
    with __allow_nonbracketed_mutation():
        orig_flags = set_flags(fp32_precision)
    try:
        yield
    finally:
        with __allow_nonbracketed_mutation():
            set_flags(*orig_flags)


class GenericModule(PropModule):
    fp32_precision = ContextProp(_get_fp32_precision_getter("generic", "all"),
                                 _set_fp32_precision_setter("generic", "all"))


sys.modules[__name__] = GenericModule(sys.modules[__name__], __name__)

from . import (cpu, cuda, cudnn, cusparselt, kleidiai, mha, miopen, mkl, mkldnn, mps,  # noqa
               nnpack, openmp, opt_einsum, quantized)
