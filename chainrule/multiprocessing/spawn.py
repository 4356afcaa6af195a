"""spawn / start_processes: run `fn(i, *args)` in N processes and report the first failure as
PyTorch does: an exception in a child comes back as ProcessRaisedException carrying the
child's traceback; a child killed by a signal or exiting non-zero, as
ProcessExitedException. The others are then stopped (SIGTERM, then SIGKILL).

Each child writes its traceback to its own file (one message, one way: no queue to
deadlock on), and asks Linux to send it SIGINT when the parent dies."""
import ctypes
import ctypes.util
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "spawn", "SpawnContext", "start_processes"]

ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A child process failed; `error_index` is its rank, `error_pid` its pid."""
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child raised: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child exited with a non-zero code or was killed by a signal."""
    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code,
                            self.signal_name)


def _die_with_parent():
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(1, int(signal.SIGINT), 0, 0, 0)      # 1 is PR_SET_PDEATHSIG


def _child_main(fn, rank, args, error_file):
    _die_with_parent()
    try:
        fn(rank, *args)
    except KeyboardInterrupt:
        pass                     # the parent stopped us
    except Exception:
        import traceback
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


class ProcessContext:
    """The started processes; join() waits for them and raises the first failure."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: rank for rank, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _wait_all(self, seconds):
        deadline = time.monotonic() + seconds
        for p in self.processes:
            p.join(max(0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait up to `timeout` for a process to end. True once all ended cleanly, False
        while some still run; on a failure, stop the rest (after `grace_period`, SIGTERM,
        then SIGKILL) and raise the failure."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            rank = self.sentinels.pop(sentinel)
            self.processes[rank].join()
            if self.processes[rank].exitcode != 0:
                failed = rank
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _stop_others(self, grace_period):
        if grace_period is not None:
            self._wait_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        # a process stuck in native code may ignore SIGTERM
        self._wait_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting "
                            "via SIGKILL", p.pid)
                p.kill()
            p.join()

    def _failure(self, rank):
        pid = self.processes[rank].pid
        if os.access(self.error_files[rank], os.R_OK):
            with open(self.error_files[rank], "rb") as f:
                trace = pickle.load(f)
            return ProcessRaisedException(
                f"\n\n-- Process {rank:d} terminated with the following error:\n{trace}",
                rank, pid)
        code = self.processes[rank].exitcode
        if code >= 0:
            return ProcessExitedException(f"process {rank:d} terminated with exit code {code:d}",
                                          error_index=rank, error_pid=pid, exit_code=code)
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"<Unknown signal {-code}>"
        return ProcessExitedException(f"process {rank:d} terminated with signal {name}",
                                      error_index=rank, error_pid=pid, exit_code=code,
                                      signal_name=name)


class SpawnContext(ProcessContext):
    """ProcessContext's old name."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.",
                      stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running `fn(i, *args)` with `start_method`; join them (and
    return None) or return their ProcessContext. With start_method 'forkserver' and
    TORCH_MP_PARALLEL_START=1 they are started from a thread pool."""
    context = multiprocessing.get_context(start_method)

    def start(rank):
        # the error file must not exist until the child writes it
        with tempfile.NamedTemporaryFile(prefix="pytorch-errorfile-", suffix=".pickle",
                                         delete=False) as f:
            path = f.name
        os.unlink(path)
        process = context.Process(target=_child_main, args=(fn, rank, args, path),
                                  daemon=daemon)
        process.start()
        return process, path

    parallel = (start_method == "forkserver"
                and os.environ.get(ENV_VAR_PARALLEL_START, "0") == "1")
    if parallel:
        log.info("Starting processes in parallel.")
        with ThreadPoolExecutor(max_workers=nprocs) as pool:
            started = list(pool.map(start, range(nprocs)))
    else:
        started = [start(rank) for rank in range(nprocs)]
    ctx = ProcessContext([p for p, _ in started], [path for _, path in started])
    if not join:
        return ctx
    while not ctx.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """start_processes with the 'spawn' start method (another one only draws a warning)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t"
                      " torch.multiprocessing.start_processes(...)", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
