"""DataLoader and its iterators (torch.utils.data.dataloader): loading in the main process,
or in real worker processes (fork, spawn or forkserver).

Random draws happen in PyTorch's order, so for the same seeds the batches, their order, the
workers' seeds and the default generator's state afterwards are PyTorch's: an iterator first
creates its sampler's iterator, then draws the workers' base seed from the loader's
generator (the default generator if None); the sampler draws when first advanced.

With workers, the main process hands out numbered tasks (task number, batch of indices)
round-robin, one index queue per worker, with at most prefetch_factor tasks per worker in
flight; workers answer (task number, batch or ExceptionWrapper) on one shared result queue.
Batches are returned in task order (or as they arrive, with in_order=False); a batch that
arrives early waits in the task table. An IterableDataset copy that runs out makes its
worker inactive, and its unanswered tasks are skipped. To stop, the main process sets a
shared event, sends each worker None and joins them, terminating any that linger. Workers
are daemonic, so at interpreter exit multiprocessing's own hook terminates them; a SIGCHLD
handler (_utils/signal_handling.py) turns a worker's death into an error at once. Tensors
cross the process boundary pickled, as NumPy arrays. The protocol, messages and
warnings are PyTorch's."""
import itertools
import math
import multiprocessing as python_multiprocessing
import os
import queue
import warnings
from pickle import PicklingError
from typing import Generic, TypeVar

from . import _utils
from ._utils import ExceptionWrapper
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _draw_seed

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

_T_co = TypeVar("_T_co", covariant=True)

# the historical home of these names, which programs still import from here
default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info


class _DatasetKind:
    """Map-style (indexable) or iterable dataset; each has its fetcher."""
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        fetcher = (_utils.fetch._MapDatasetFetcher if kind == _DatasetKind.Map
                   else _utils.fetch._IterableDatasetFetcher)
        return fetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an IterableDataset, whose keys mean nothing. Endless, so
    that workers, each iterating its own copy of the dataset, are never cut short."""

    def __iter__(self):
        return itertools.repeat(None)


def _checked_prefetch_factor(num_workers, timeout, prefetch_factor, persistent_workers):
    """Validate the worker options; the prefetch factor to use (2 by default with workers)."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0:
        if prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
    elif prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle, sampler, batch_sampler):
    """An IterableDataset orders itself: no sampler, and shuffle at most False (once the
    default)."""
    if shuffle not in {False, None}:
        raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                         f"but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                         f"but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                         f"option, but got batch_sampler={batch_sampler}")


class DataLoader(Generic[_T_co]):
    """Iterate over `dataset` in batches, in the main process (num_workers=0) or in
    `num_workers` worker processes, with PyTorch's arguments, errors and random draws.

    pin_memory and pin_memory_device are accepted as PyTorch's CPU build accepts them: with
    no accelerator, iterating warns that pinned memory won't be used.
    """

    __initialized = False  # from the end of __init__ on, the sampling setup is frozen
    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        prefetch_factor = _checked_prefetch_factor(num_workers, timeout, prefetch_factor,
                                                   persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context  # validated by the setter
        self.in_order = in_order

        # the dataset's constraints are checked first: no sampler makes up for them
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            self._dataset_kind = _DatasetKind.Map
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False  # the batch sampler decides both
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            # batches are collated; single samples (no auto-batching) only converted
            collate_fn = (_utils.collate.default_collate if self._auto_collation
                          else _utils.collate.default_convert)
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None  # len(dataset) once len(loader) was asked
        self._iterator = None  # the one iterator of persistent workers
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if not self.num_workers:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        context = multiprocessing_context
        if context is not None:
            if not self.num_workers > 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 f"loading (num_workers > 0), but got num_workers="
                                 f"{self.num_workers}")
            if isinstance(context, str):  # a start method's name
                methods = python_multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = python_multiprocessing.get_context(context)
            if not isinstance(context, python_multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in self._FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        # persistent workers live as long as the loader: its one iterator is reset each epoch
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the fetchers get keys from: the batch sampler, or without auto-batching the
        sampler itself."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind != _DatasetKind.Iterable:
            return len(self._index_sampler)
        # the dataset's own length, trusted to account for its sharding across workers;
        # iterators warn when more is yielded
        samples = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return samples
        if self.drop_last:
            return samples // self.batch_size
        return math.ceil(samples / self.batch_size)

    def check_worker_number_rationality(self):
        """Warn, as PyTorch, when num_workers exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        uses_cpuset = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if uses_cpuset else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            advice = ("DataLoader is not able to compute a suggested max number of worker in "
                      "current system.")
        else:
            note = "" if uses_cpuset else " (`cpuset` is not taken into account)"
            advice = (f"Our suggested max number of worker in current system is {cpus}{note}, "
                      "which is smaller than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in "
                      f"total. {advice} Please be aware that excessive worker creation might "
                      "get DataLoader running slow or even freeze, lower the worker number to "
                      "avoid potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    """One pass over a DataLoader: what both iterators share."""

    # the loader's settings a pass works with, copied (as PyTorch names them on iterators)
    _SETTINGS = ("dataset", "_dataset_kind", "_IterableDataset_len_called", "_auto_collation",
                 "drop_last", "_index_sampler", "num_workers", "timeout", "collate_fn",
                 "persistent_workers")

    def __init__(self, loader):
        for setting in self._SETTINGS:
            setattr(self, "_" + setting.lstrip("_"), getattr(loader, setting))
        if loader.pin_memory:
            if loader.pin_memory_device:
                warnings.warn("pin_memory_device is deprecated, the current accelerator will "
                              "be used as the device,ignore pin_memory_device="
                              f"'{loader.pin_memory_device}'.", stacklevel=2)
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=2)
        # the sampler's iterator comes before the base seed (a sampler drawing in __iter__
        # draws first), as in PyTorch
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _draw_seed(loader.generator)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        """Start a new pass (a persistent workers' iterator is reused across epochs); the
        dataset's length may have been asked since."""
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration at the end of the pass

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if (self._dataset_kind == _DatasetKind.Iterable and reported is not None
                and self._num_yielded > reported):
            message = (f"Length of IterableDataset {self._dataset} was reported to be "
                       f"{reported}(when accessing len(dataloader)), but {self._num_yielded} "
                       "samples have been fetched. ")
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not "
                            "properly configuring the IterableDataset replica at each worker. "
                            "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                            "data.IterableDataset for examples.")
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        # (PyTorch's message, with its unformatted "{}" and the class name as a second arg)
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Fetches each batch in the main process, when asked for it."""

    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        if self._num_workers != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires num_workers == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        # both calls end the pass with StopIteration
        return self._dataset_fetcher.fetch(self._next_index())


# Each live multi-process iterator's queues, event, index queues and workers, by id. The
# shutdown needs them, and an iterator caught in a reference cycle (say, with the frames of
# an exception raised from it) is freed by the garbage collector, which runs weak-reference
# callbacks before __del__: the queues' own finalizers would stop their feeder threads first,
# and the None telling each worker to exit would never leave. Held here, they outlive it.
_shutdown_resources = {}


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates over the loader's dataset with worker processes (see the module docstring
    for the protocol)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or python_multiprocessing
        self._worker_init_fn = loader.worker_init_fn
        self._owner_pid = os.getpid()  # a forked copy of this object must not shut down
        self._worker_result_queue = context.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = context.Event()
        self._index_queues = []
        self._workers = []
        self._active = [True] * self._num_workers  # (read by a shutdown before _reset)
        _shutdown_resources[id(self)] = (self._worker_result_queue, self._workers_done_event,
                                         self._index_queues, self._workers)
        for worker_id in range(self._num_workers):
            self._start_worker(context, worker_id)
        self._data_queue = self._worker_result_queue
        _utils.signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        _utils.signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _start_worker(self, context, worker_id):
        tasks = context.Queue()
        tasks.cancel_join_thread()  # never block this process's exit on undelivered tasks
        process = context.Process(
            target=_utils.worker._worker_loop,
            args=(self._dataset_kind, self._dataset, tasks, self._worker_result_queue,
                  self._workers_done_event, self._auto_collation, self._collate_fn,
                  self._drop_last, self._base_seed, self._worker_init_fn, worker_id,
                  self._num_workers),
            daemon=True)
        try:
            process.start()
        except (TypeError, AttributeError, PicklingError):
            # stacklevel 3: the warning points where PyTorch's does, at _get_iterator
            warnings.warn("Got pickle error when attempting to start a worker Process. This "
                          "might be because the worker Process arguments are not picklable. "
                          "Python 3.14+ changed the multiprocessing start method in non-Mac "
                          "POSIX platforms to 'forkserver', which requires the worker Process "
                          "arguments to be picklable. You can also try "
                          "multiprocessing.set_start_method('fork').", stacklevel=3)
            raise
        # listed once started, so that a shutdown never joins a worker that never ran
        self._index_queues.append(tasks)
        self._workers.append(process)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._next_task = 0  # number of the next task to send
        self._next_result = 0  # number of the next task whose batch __next__ returns
        # task number -> (worker,) while in flight, (worker, data) once arrived out of turn
        self._tasks = {}
        self._in_flight = 0
        # whether each worker still takes tasks (an IterableDataset copy may run out)
        self._active = [True] * self._num_workers
        self._load = [0] * self._num_workers  # tasks given to each worker, not yet returned
        self._rotation = itertools.cycle(range(self._num_workers))
        if not first_iter:
            self._resume_workers()
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _resume_workers(self):
        """Persistent workers: start them on a new epoch and wait until each has answered
        (results of an abandoned epoch still in flight are dropped)."""
        for tasks in self._index_queues:
            tasks.put(_utils.worker._ResumeIteration())
        waiting = self._num_workers
        while waiting > 0:
            tag, payload = self._get_data()
            if not isinstance(tag, _utils.worker._ResumeIteration):
                continue
            if payload is not None:
                raise AssertionError("Expected return_data to be None when resuming iteration")
            waiting -= 1

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        """(True, message) from the result queue, or (False, None) after `timeout` seconds;
        raises if a worker died (noticed at the timeout, or at once by the SIGCHLD
        handler, whose error interrupts the wait)."""
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            dead = [(i, w) for i, w in enumerate(self._workers)
                    if self._active[i] and not w.is_alive()]
            for i, _ in dead:
                self._mark_worker_as_unavailable(i)
            if dead:
                pids = ", ".join(str(w.pid) for _, w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                   "unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        """The next message of the result queue, waiting at most the loader's timeout (if
        set) or else for as long as the workers live."""
        if self._timeout > 0:
            got, message = self._try_get_data(self._timeout)
            if not got:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return message
        got = False
        while not got:
            got, message = self._try_get_data()
        return message

    def _skip_to_awaited_task(self):
        """Advance _next_result past tasks that bring nothing (already returned out of
        order, or sent to a worker that has since run out); False when no task is left."""
        while self._next_result < self._next_task:
            entry = self._tasks.get(self._next_result)
            if entry is not None:
                if len(entry) == 2 or self._active[entry[0]]:
                    return True
                del self._tasks[self._next_result]
            self._next_result += 1
        return False

    def _hand_out(self, task, data):
        worker = self._tasks.pop(task)[0]
        return self._process_data(data, worker)

    def _next_data(self):
        while True:
            # (in the loop: the wait below can make more workers inactive)
            if not self._skip_to_awaited_task():
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            awaited = self._next_result
            if len(self._tasks[awaited]) == 2:  # its batch came earlier, out of turn
                self._next_result += 1
                return self._hand_out(awaited, self._tasks[awaited][1])
            if self._shutdown or self._in_flight <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks "
                                     "when fetching next data")
            task, data = self._get_data()
            self._in_flight -= 1
            if (self._dataset_kind == _DatasetKind.Iterable
                    and isinstance(data, _utils.worker._IterableDatasetStopIteration)):
                # that worker's copy of the dataset is exhausted
                if self._persistent_workers:
                    self._active[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if task == awaited:
                self._next_result += 1
                return self._hand_out(task, data)
            if not self._in_order:
                return self._hand_out(task, data)
            self._tasks[task] += (data,)  # kept until its turn

    def _pick_worker(self, max_tasks):
        """The next active worker in the rotation that may take a task, or None. In order,
        any active worker may; out of order, only one below its share of max_tasks."""
        for _ in range(self._num_workers):
            worker = next(self._rotation)
            if not self._active[worker]:
                continue
            if self._in_order or self._load[worker] < max_tasks // sum(self._active):
                return worker
        return None

    def _try_put_index(self):
        """Send the sampler's next key as a new task, if there is one and a worker for it."""
        max_tasks = self._prefetch_factor * self._num_workers
        if self._in_flight >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        worker = self._pick_worker(max_tasks)
        if worker is None:
            return
        self._index_queues[worker].put((self._next_task, index))
        self._tasks[self._next_task] = (worker,)
        self._load[worker] += 1
        self._in_flight += 1
        self._next_task += 1

    def _process_data(self, data, worker_idx):
        """A received batch: its worker's slot is refilled; a worker's error is raised."""
        self._load[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        """Tell one worker that no more tasks come (it exits at once, or at shutdown);
        joining waits for _shutdown_workers so that late errors are still seen."""
        if not (self._active[worker_id] or self._persistent_workers or shutdown):
            raise AssertionError("Worker status inconsistent when marking worker as "
                                 "unavailable")
        self._index_queues[worker_id].put(None)
        self._active[worker_id] = False
        if self._workers_done_event.is_set() != shutdown:
            raise AssertionError("_workers_done_event state does not match shutdown flag")

    def _shutdown_workers(self):
        """Stop the workers and release the queues (once; see the module docstring)."""
        # Nothing to do at interpreter exit (multiprocessing's hook terminates the daemonic
        # workers), twice, for a half-built iterator, or in a forked child, where this
        # object is a copy whose workers are not its children.
        if (_utils.python_exit_status is not False or getattr(self, "_shutdown", True)
                or os.getpid() != self._owner_pid):
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                # persistent workers wait for a new epoch, so they need the None too
                if self._persistent_workers or self._active[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for process in self._workers:
                process.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for tasks in self._index_queues:
                tasks.cancel_join_thread()
                tasks.close()
        finally:
            # unregistered before the stragglers are killed, so that their deaths are no
            # error
            if self._worker_pids_set:
                _utils.signal_handling._remove_worker_pids(id(self))
                self._worker_pids_set = False
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()
            _shutdown_resources.pop(id(self), None)

    def __del__(self):
        self._shutdown_workers()
