"""torch.profiler.itt: Intel ITT ranges and marks for VTune.

chainrule has no ITT instrumentation (no VTune collector can see it), so `is_available()`
is False. The calls still take PyTorch's arguments (a str, bytes or None message; anything
else is PyTorch's TypeError) and return None, which is what PyTorch's own calls return
when no collector is attached: code that annotates with them runs unchanged."""
from contextlib import contextmanager

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]


def _check(fname, msg):
    if not (msg is None or isinstance(msg, (str, bytes))):
        raise TypeError(f"{fname}(): incompatible function arguments. The following argument "
                        f"types are supported:\n    1. (arg0: str) -> None\n\nInvoked with: "
                        f"{msg!r}")


def is_available():
    """Whether ITT annotations reach a collector: never, in chainrule."""
    return False


def range_push(msg):
    """Push a range named `msg` (nothing is recorded: no ITT)."""
    _check("rangePush", msg)


def range_pop():
    """Pop the innermost range (nothing is recorded: no ITT)."""


def mark(msg):
    """Mark an instant named `msg` (nothing is recorded: no ITT)."""
    _check("mark", msg)


@contextmanager
def range(msg, *args, **kwargs):
    """Context manager / decorator pushing the range `msg.format(*args, **kwargs)` for its
    scope."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
