"""torch.backends.nnpack: NNPACK is not used by chainrule; the enabled flag is kept."""
from contextlib import contextmanager

from . import _allow_mutation

__all__ = ["is_available", "flags", "set_flags"]

_state = [True]


def is_available():
    return False


def set_flags(_enabled):
    """Set whether NNPACK is enabled globally; returns the previous flags."""
    if not isinstance(_enabled, bool):
        raise RuntimeError("set_enabled_NNPACK expects a bool, but got "
                           f"{type(_enabled).__name__}")
    orig_flags = (_state[0],)
    _state[0] = _enabled
    return orig_flags


@contextmanager
def flags(enabled=False):
    with _allow_mutation():
        orig_flags = set_flags(enabled)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(orig_flags[0])
