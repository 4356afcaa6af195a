"""NumPy's floating-point warnings, switched off where chainrule computes.

Note [NumPy warnings]
PyTorch returns inf and nan silently; NumPy warns ("overflow encountered in multiply").
Every op forward, and every backward as a whole, runs with NumPy's error reporting off.
NumPy 2 keeps that setting in a context variable (so it is per thread and per asyncio task).
quietly(fn, ...) calls fn with the setting off and then sets back the value it found, in
this order: read the value; inside the `try`, set it off; in the `finally`, as its only
statement, set the old value back. Every step is one call into C, and CPython runs signal
handlers only between bytecodes (after a call returns, at a function's start, at a loop's
back edge), so a KeyboardInterrupt raised by a signal handler lands either before anything
changed or inside the `try`, and no bytecode of the `finally` can run a handler before the
value is back. (np.errstate, and a token kept for ContextVar.reset, have windows: an
interrupt just after the set, before the token is stored or the `try` entered, skips the
reset.) Setting the value back rather than resetting to a token also repairs whatever fn
left changed. ops.registry.dispatch and the engine call quietly only when the setting is
not already off, so an op inside a backward, or inside another op, pays one read.
"""
import numpy as np

__all__ = ["quietly"]

try:
    from numpy._core.umath import _extobj_contextvar as _var, _make_extobj
    QUIET = _make_extobj(all="ignore")
    get, _set = _var.get, _var.set

    def quietly(fn, *args):
        """fn(*args) with NumPy's warnings off; the caller's state untouched."""
        prev = get()    # Note [NumPy warnings]: keep this order
        try:
            _set(QUIET)
            return fn(*args)
        finally:
            _set(prev)
except ImportError:  # an older NumPy: the public, slower way (never `is QUIET`)
    QUIET = {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}
    get = np.geterr

    def _set(state):
        np.seterr(**state)

    def quietly(fn, *args):
        with np.errstate(all="ignore"):
            return fn(*args)
