"""torch.backends.opt_einsum: chainrule's einsum does not use the opt_einsum package, so it
answers as PyTorch does where opt_einsum is not installed."""
import sys
from contextlib import contextmanager

from . import ContextProp, PropModule, _allow_mutation

__all__ = ["is_available", "get_opt_einsum", "flags", "set_flags", "enabled", "strategy"]

_state = {"enabled": False, "strategy": None}


def is_available():
    """Whether einsum uses opt_einsum to choose its contraction order: no."""
    return False


def get_opt_einsum():
    return None


def _set_enabled(_enabled):
    if _enabled:
        raise ValueError(
            f"opt_einsum is not available, so setting `enabled` to {_enabled} will not reap the "
            "benefits of calculating an optimal path for einsum. torch.einsum will fall back to "
            "contracting from left to right. To enable this optimal path calculation, please "
            "install opt-einsum.")
    _state["enabled"] = _enabled


def _set_strategy(_strategy):
    raise ValueError(
        f"opt_einsum is not available, so setting `strategy` to {_strategy} will not be "
        "meaningful. torch.einsum will bypass path calculation and simply contract from left to "
        "right. Please install opt_einsum or unset `strategy`.")


def set_flags(_enabled=None, _strategy=None):
    orig_flags = (_state["enabled"], None)
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return orig_flags


@contextmanager
def flags(enabled=None, strategy=None):
    with _allow_mutation():
        orig_flags = set_flags(enabled, strategy)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


class OptEinsumModule(PropModule):
    enabled = ContextProp(lambda: _state["enabled"], _set_enabled)
    strategy = None


sys.modules[__name__] = OptEinsumModule(sys.modules[__name__], __name__)
