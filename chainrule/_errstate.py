"""NumPy's floating-point warnings, switched off where chainrule computes.

Note [NumPy warnings]
PyTorch returns inf and nan silently; NumPy warns ("overflow encountered in multiply").
Every op forward runs with NumPy's error reporting off. NumPy 2 keeps that setting in a
context variable, which costs about 0.3 us to set and reset (np.errstate costs about
1.5 us), so ops.registry.dispatch sets it only when it is not already off, and the engine
sets it once for a whole backward: formulas then pay one context-variable read.
"""
import numpy as np

__all__ = ["quiet", "enter", "leave"]

try:
    from numpy._core.umath import _extobj_contextvar as _var, _make_extobj
    QUIET = _make_extobj(all="ignore")
    get = _var.get

    def enter():
        """Switch NumPy's warnings off; returns a token for leave()."""
        return _var.set(QUIET)

    def leave(token):
        _var.reset(token)
except ImportError:  # an older NumPy: the public, slower way
    QUIET = object()

    def get():
        return None

    def enter():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def leave(token):
        token.__exit__(None, None, None)


class quiet:
    """Context manager: NumPy's floating-point warnings off inside."""
    __slots__ = ("token",)

    def __enter__(self):
        self.token = enter() if get() is not QUIET else None

    def __exit__(self, *exc):
        if self.token is not None:
            leave(self.token)
