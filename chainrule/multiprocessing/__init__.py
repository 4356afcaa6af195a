"""torch.multiprocessing: Python's multiprocessing, with tensors that cross process
boundaries through shared memory.

Every name of `multiprocessing` is here (Process, Queue, Pool, get_context,
set_start_method, ...), plus PyTorch's `spawn`/`start_processes` and sharing strategies.
Importing this module registers reductions with multiprocessing's ForkingPickler: a tensor
put on a queue, sent through a pipe or passed to a spawned process is moved into shared
memory (as `Tensor.share_memory_()` does) and the receiver maps the same memory, so writes
on either side are seen on the other. Processes started by fork see a shared tensor's
memory directly. Storages (`UntypedStorage`) still travel by value. Both strategies,
"file_descriptor" and "file_system", pass the memory by file descriptor."""
import multiprocessing
import sys

from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException,  # noqa: F401
                    ProcessRaisedException, SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

if sys.platform == "darwin" or sys.platform == "win32":
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Set the strategy for sharing CPU tensors (one of get_all_sharing_strategies())."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return _all_sharing_strategies


init_reductions()
