"""The loop each DataLoader worker process runs, and get_worker_info, as
torch.utils.data._utils.worker. See dataloader.py's _MultiProcessingDataLoaderIter for the
protocol between the main process and its workers."""
import os
import queue
import random
from dataclasses import dataclass

import numpy as np

from . import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive (a worker whose
    parent died is re-parented, so its parent pid changes)."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Information about the current DataLoader worker process.

    Attributes:
        id: the worker's id (0 to num_workers - 1)
        num_workers: how many workers the iterator has
        seed: the seed this worker gave the default generator and `random`
        dataset: this worker's copy of the dataset
    """

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset). In the main
    process: None."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch."""
    seed: int = None


def _generate_state(base_seed, worker_id):
    """The four 32-bit words PyTorch seeds numpy.random with in worker `worker_id`: NumPy's
    SeedSequence hashing of (worker_id, base_seed), so numpy.random and `random` (seeded with
    base_seed + worker_id) do not collide."""
    INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
    INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
    XSHIFT = 16
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    hash_const_a = INIT_A

    def hash_(value):
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & MASK32
        hash_const_a = (hash_const_a * MULT_A) & MASK32
        value = (value * hash_const_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)
        result &= MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    pool = [hash_(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    hash_const_b = INIT_B
    state = []
    for value in pool:
        value = (value ^ hash_const_b) & MASK32
        hash_const_b = (hash_const_b * MULT_B) & MASK32
        value = (value * hash_const_b) & MASK32
        state.append((value ^ (value >> XSHIFT)) & MASK32)
    return state


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    """Seed the generators, run `init_fn`, then answer each (task index, batch index) read
    from `index_queue` with (task index, batch or ExceptionWrapper) on `data_queue`, until
    the final None."""
    import chainrule
    from ..dataloader import _DatasetKind

    try:
        seed = base_seed + worker_id
        random.seed(seed)
        chainrule.manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            # reported in place of the first batch this worker is asked for
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # Set when this worker's IterableDataset is exhausted: from then on (as after
        # done_event) only the final None is waited for.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))  # acknowledge
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:  # the final signal
                if not done_event.is_set() and not iteration_end:
                    raise AssertionError("Received final signal but neither done_event nor "
                                         "iteration_end is set")
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r  # free the batch before waiting for the next index
    except KeyboardInterrupt:
        pass  # the main process raises it too
    if done_event.is_set():
        # the main process reads no more: do not wait at exit for the queue's feeder thread
        data_queue.cancel_join_thread()
        data_queue.close()
