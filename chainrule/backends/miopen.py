"""torch.backends.miopen: AMD MIOpen (absent); the `immediate` flag is kept."""
import sys
from contextlib import contextmanager

from . import ContextProp, PropModule, _allow_mutation

_immediate = [False]


def _get():
    return _immediate[0]


def _set(value):
    _immediate[0] = value


def set_flags(_immediate_value=None):
    orig_flags = (_get(),)
    if _immediate_value is not None:
        _set(_immediate_value)
    return orig_flags


@contextmanager
def flags(immediate=False):
    with _allow_mutation():
        orig_flags = set_flags(immediate)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


class MiopenModule(PropModule):
    immediate = ContextProp(_get, _set)


sys.modules[__name__] = MiopenModule(sys.modules[__name__], __name__)
