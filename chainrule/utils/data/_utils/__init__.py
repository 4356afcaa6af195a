"""Helpers of the DataLoader that run in worker processes (they must be importable at module
level for the "spawn" and "forkserver" start methods), as torch.utils.data._utils."""
import atexit
import multiprocessing.util  # noqa: F401  (registers its atexit hook before ours, see below)
import sys
import traceback

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the process on the other end of a queue is still alive."""

python_exit_status = False
"""Set when the interpreter starts shutting down: from then on iterators leave their workers
to multiprocessing's own exit hook (which terminates daemonic children) instead of joining
them, and worker deaths are no longer errors. atexit runs hooks in reverse order, so ours,
registered after multiprocessing.util's, runs first."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError shows repr() of its argument, which would turn a
    multi-line traceback into one escaped line."""

    __slots__ = ()

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, to re-raise in another process or thread."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception's class with PyTorch's "Caught X in DataLoader worker
        process N.\\nOriginal Traceback ..." message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # the class takes other arguments: PyTorch falls back to a RuntimeError
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # no frame -> exception -> traceback -> frame cycle: dropping the exception frees
            # the iterator (and stops its workers) at once, not at the next garbage collection
            del exception


from . import collate, fetch, signal_handling, worker  # noqa: E402
