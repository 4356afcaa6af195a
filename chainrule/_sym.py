"""torch.sym_*: the symbolic-shape helpers, on the plain numbers eager code has (PyTorch's
SymInt/SymFloat/SymBool exist only under tracing, which chainrule does not do)."""
import builtins
import math

import numpy as np

__all__ = ["sym_float", "sym_int", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite",
           "sym_sum", "sym_fresh_size", "thread_safe_generator"]

_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


def _check(*values):
    for v in values:
        if not isinstance(v, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {type(v)}")


def sym_float(a):
    """float(a)."""
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def sym_int(a):
    """int(a), truncating."""
    return builtins.int(a)


def sym_max(a, b):
    """max(a, b); a float if either is."""
    _check(a, b)
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a, b):
    """min(a, b); a float if either is."""
    _check(a, b)
    if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_not(a):
    """not a."""
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def _sym_sqrt(a):
    """math.sqrt(a)."""
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


sym_sqrt = _sym_sqrt      # PyTorch makes it by a factory, under this name


def sym_ite(b, t, f):
    """t if b else f (b a bool, t and f of one type)."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    """sum(args); sym_sum([a, b]) and sym_sum(a, b) alike."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_fresh_size(expr):
    """expr as a Python number (a fresh size under tracing)."""
    import chainrule
    return chainrule.tensor(expr).item()


def thread_safe_generator():
    """The generator of the current DataLoader worker thread (worker_method="thread"), else
    None."""
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" and \
            getattr(info, "rng", None) is not None:
        return info.rng.torch_generator
    return None


for _f in (sym_float, sym_int, sym_max, sym_min, sym_not, sym_sqrt, sym_ite, sym_sum,
           sym_fresh_size, thread_safe_generator):
    _f.__module__ = "torch"
del _f
