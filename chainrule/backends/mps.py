"""torch.backends.mps: chainrule is not built with Metal."""
from functools import lru_cache as _lru_cache

__all__ = ["get_core_count", "get_name", "is_built", "is_available", "is_macos13_or_newer",
           "is_macos_or_newer"]


def is_built():
    return False


@_lru_cache
def is_available():
    return False


@_lru_cache
def is_macos_or_newer(major, minor):
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


@_lru_cache
def is_macos13_or_newer(minor=0):
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


@_lru_cache
def get_name():
    raise AttributeError("module 'torch._C' has no attribute '_mps_get_name'")


@_lru_cache
def get_core_count():
    raise AttributeError("module 'torch._C' has no attribute '_mps_get_core_count'")
