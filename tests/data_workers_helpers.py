"""Datasets and worker_init_fns for test_dataloader_workers.py that "spawn" and "forkserver"
workers import by name. Each names the library it runs on and imports it when used, so that
a chainrule worker does not import torch."""
import importlib
import os
import random
import signal
import time

import numpy as np


class Probe:
    """Map-style: sample i reports i, which worker loaded it with which seed, and draws of
    that worker's default generator, `random` and numpy.random."""

    def __init__(self, lib, n=10, offset=0):
        self.lib, self.n, self.offset = lib, n, offset

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        T = importlib.import_module(self.lib)
        info = T.utils.data.get_worker_info()
        return {"index": i + self.offset, "worker": info.id, "workers": info.num_workers,
                "seed": info.seed, "rand": T.rand(2), "random": random.random(),
                "numpy": np.random.rand()}


def offset_by_worker(lib, worker_id):
    """worker_init_fn (with functools.partial): configure this worker's copy of the
    dataset."""
    info = importlib.import_module(lib).utils.data.get_worker_info()
    info.dataset.offset = 100 * (worker_id + 1)


class Failing:
    """Map-style: index `bad` raises `error`; index `die` ends the worker process."""

    def __init__(self, n=6, bad=None, error=ValueError("bad index"), die=None, how="exit"):
        self.n, self.bad, self.error, self.die, self.how = n, bad, error, die, how

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise self.error
        if i == self.die:
            time.sleep(0.2)  # let the main process wait for this batch
            if self.how == "exit":
                os._exit(3)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Slow:
    """Map-style: each sample takes `delay` seconds (the first `slow_first` of them only)."""

    def __init__(self, n=4, delay=0.3, slow_first=None):
        self.n, self.delay, self.slow_first = n, delay, slow_first

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.slow_first is None or i < self.slow_first:
            time.sleep(self.delay)
        return i


class WaitsForFlag:
    """Map-style: sample 0 is only returned once the file `flag` exists."""

    def __init__(self, flag, n=6):
        self.flag, self.n = flag, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        deadline = time.monotonic() + 10
        while i == 0 and not os.path.exists(self.flag) and time.monotonic() < deadline:
            time.sleep(0.005)
        return i
