"""Noticing dead DataLoader workers at once, as torch.utils.data._utils.signal_handling (whose
C++ half, DataLoader.cpp, is written here in Python).

Each multi-process iterator registers its workers' pids. A SIGCHLD handler in the main
process then looks (with waitid's WNOWAIT, so multiprocessing can still reap the child) for
a registered worker that exited with an error or was killed, and raises PyTorch's error in
the main thread; the iterator turns it into "DataLoader worker (pid(s) ...) exited
unexpectedly". Without it a dead worker would only be noticed at the next
MP_STATUS_CHECK_INTERVAL timeout.
"""
import os
import signal
import threading

from . import IS_WINDOWS

_worker_pids = {}  # id(iterator) -> set of its workers' pids

_SIGCHLD_handler_set = False
"""Whether the SIGCHLD handler is installed (one serves every DataLoader of the process)."""


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each "
                           "_BaseDataLoaderIter.")
    _worker_pids[key] = set(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError(f"Cannot find worker information for _BaseDataLoaderIter with id {key}")


def _error_if_any_worker_fails():
    """Raise PyTorch's RuntimeError if a registered worker exited with a non-zero code or
    was killed by a signal."""
    from . import python_exit_status
    if python_exit_status:  # multiprocessing is terminating the daemonic workers on purpose
        return
    for pids in list(_worker_pids.values()):
        for pid in list(pids):
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except OSError:  # not our child (any more)
                continue
            if info is None:
                continue
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                pids.clear()  # report each failure once
                raise RuntimeError(
                    f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                    f"{info.si_status}. Details are lost due to multiprocessing. Rerunning "
                    "with num_workers=0 may give better error trace.")
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                message = (f"DataLoader worker (pid {pid}) is killed by signal: "
                           f"{signal.strsignal(info.si_status)}. ")
                if info.si_status == signal.SIGBUS:
                    message += ("It is possible that dataloader's workers are out of shared "
                                "memory. Please try to raise your shared memory limit.")
                pids.clear()
                raise RuntimeError(message)


def _set_SIGCHLD_handler():
    """Install the handler once per process (only the main thread may set handlers)."""
    global _SIGCHLD_handler_set
    if IS_WINDOWS or _SIGCHLD_handler_set:
        return
    if threading.current_thread() is not threading.main_thread():
        return
    previous_handler = signal.getsignal(signal.SIGCHLD)
    if not callable(previous_handler):
        previous_handler = None  # SIG_DFL / SIG_IGN: nothing to chain to

    def handler(signum, frame):
        _error_if_any_worker_fails()
        if previous_handler is not None:
            previous_handler(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
