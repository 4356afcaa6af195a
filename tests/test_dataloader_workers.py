"""DataLoader with worker processes, against torch.utils.data: the same batches in the same
order, the same worker seeds and draws inside workers, the same default-generator state
afterwards, PyTorch's errors for worker exceptions, deaths and timeouts, and clean shutdown.

Programs run on both libraries with "fork" workers (PyTorch's default here); "spawn" and
"forkserver" workers, which import the dataset by name, use data_workers_helpers.py and are
compared with PyTorch's fork results (the results do not depend on the start method)."""
import functools
import gc
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap
import traceback
import warnings

import pytest
import torch

import chainrule
from data_workers_helpers import Failing, Probe, Slow, WaitsForFlag, offset_by_worker
from helpers import compare, same, same_error, same_warnings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork start method")


def _epochs(loader, n=2):
    return [list(loader) for _ in range(n)]


def _probe_program(epochs=2, n=10, **kwargs):
    """Two epochs of a Probe loader, then a draw of the main process's default generator."""
    def prog(T):
        options = dict(kwargs)
        if "generator" in options:
            options["generator"] = T.Generator().manual_seed(options["generator"])
        T.manual_seed(5)
        loader = T.utils.data.DataLoader(Probe(T.__name__, n), **options)
        return _epochs(loader, epochs) + [T.rand(3)]
    return prog


@pytest.mark.parametrize("kwargs", [
    dict(batch_size=3, shuffle=True),
    dict(batch_size=3, shuffle=True, generator=7, drop_last=True),
    dict(batch_size=4, persistent_workers=True, shuffle=True),
    dict(batch_size=2, prefetch_factor=1, sampler=[9, 0, 8, 1, 7]),
    dict(batch_sampler=[[3, 1], [0], [2, 4, 5]]),
    dict(batch_size=None, shuffle=True),
    dict(batch_size=3, collate_fn=lambda batch: [b["index"] * 10 for b in batch]),
])
def test_workers_match_torch(kwargs):
    same(_probe_program(num_workers=2, **kwargs))


def test_one_worker_and_more_workers_than_batches():
    same(_probe_program(n=5, num_workers=1, batch_size=2, shuffle=True))
    same(_probe_program(epochs=1, n=3, num_workers=2, batch_size=2, prefetch_factor=3))


def test_worker_init_fn_and_worker_info():
    """worker_init_fn runs after seeding, with the worker id; get_worker_info() describes
    the worker and its own copy of the dataset (the main process's copy is unchanged)."""
    def prog(T):
        seen = []

        def init(worker_id):
            info = T.utils.data.get_worker_info()
            info.dataset.offset = 100 * (worker_id + 1) + int(T.randint(0, 10, ()))
        dataset = Probe(T.__name__, 6)
        loader = T.utils.data.DataLoader(dataset, batch_size=2, num_workers=2,
                                         worker_init_fn=init, generator=T.Generator())
        seen = list(loader)
        return seen, dataset.offset, T.utils.data.get_worker_info() is None
    same(prog)


def test_worker_info_is_frozen_and_has_torchs_fields():
    def prog(T):
        def fields(batch):
            info = T.utils.data.get_worker_info()
            try:
                info.id = 3
            except Exception as e:
                error = type(e).__name__
            return [info.id, info.num_workers, type(info.dataset).__name__, info.rng,
                    info.worker_method, type(info).__name__, error]
        loader = T.utils.data.DataLoader(range(2), batch_size=1, num_workers=1,
                                         collate_fn=fields)
        return list(loader)
    same(prog)


def test_tensors_cross_the_process_boundary():
    """Samples are pickled as NumPy arrays: dtypes, shapes, 0-d tensors, a leaf's
    requires_grad, numpy arrays and Python numbers arrive as in PyTorch."""
    def prog(T):
        def sample(i):
            return {"f": T.arange(6.).reshape(2, 3).t() * i, "i": T.tensor(i),
                    "h": T.ones(2, dtype=T.float16), "b": T.tensor([True, False]),
                    "leaf": T.ones(2, requires_grad=True), "np": (i, 2.5, "s")}

        unbatched = T.utils.data.DataLoader([sample(i) for i in range(3)], batch_size=None,
                                            num_workers=2)
        batched = T.utils.data.DataLoader([{k: v for k, v in sample(i).items() if k != "leaf"}
                                           for i in range(4)], batch_size=2, num_workers=2)
        return list(unbatched), list(batched)
    same(prog)


def test_collating_tensors_that_require_grad_fails_in_workers_as_in_torch():
    def prog(T):
        data = [T.ones(2, requires_grad=True) for _ in range(2)]
        return list(T.utils.data.DataLoader(data, batch_size=2, num_workers=1))
    _same_worker_error(prog)


def test_worker_batches_take_the_first_samples_dtype():
    """Workers stack into a tensor of the first sample's dtype (PyTorch's shared-memory
    out=), the main process promotes."""
    def prog(T):
        data = [T.ones(2), T.ones(2, dtype=T.float64)]
        return (list(T.utils.data.DataLoader(data, batch_size=2, num_workers=1)),
                list(T.utils.data.DataLoader(data, batch_size=2)))
    same(prog)
    ours = _same_worker_error(lambda T: list(T.utils.data.DataLoader(
        [T.tensor([1]), T.tensor([1.5])], batch_size=2, num_workers=1)))
    assert type(ours) is TypeError


def test_in_order_false_yields_batches_as_they_come(tmp_path):
    """Worker 0 cannot finish batch 0 before the main process received a batch: with
    in_order=False the other worker's batch 1 comes first; every batch still comes once."""
    def prog(T):
        flag = tmp_path / T.__name__
        loader = T.utils.data.DataLoader(WaitsForFlag(str(flag)), batch_size=1, num_workers=2,
                                         in_order=False)
        it = iter(loader)
        first = int(next(it))
        flag.touch()
        return [first] + sorted(int(b) for b in it)
    ours, _ = same(prog)
    assert ours == [1, 0, 2, 3, 4, 5]


# ---- IterableDataset: every worker iterates its own copy ----------------------------------

def _stream(T, n=7, shard=False, length=None):
    T.manual_seed(0)  # the workers' seeds come from the default generator

    class Stream(T.utils.data.IterableDataset):
        def __init__(self):
            self.start, self.end = 0, n

        def __iter__(self):
            start, end = self.start, self.end
            info = T.utils.data.get_worker_info()
            if shard and info is not None:  # PyTorch's documented sharding recipe
                per_worker = -(-(end - start) // info.num_workers)
                start = start + info.id * per_worker
                end = min(start + per_worker, end)
            return iter([{"v": i, "r": T.rand(1)} for i in range(start, end)])

        def __len__(self):
            return n if length is None else length

        def __repr__(self):
            return "Stream"
    return Stream()


@pytest.mark.parametrize("kwargs", [dict(batch_size=2), dict(batch_size=2, drop_last=True),
                                    dict(batch_size=None), dict(batch_size=3,
                                                                persistent_workers=True)])
@pytest.mark.parametrize("shard", [False, True])
def test_iterable_dataset_with_workers(kwargs, shard):
    def prog(T):
        loader = T.utils.data.DataLoader(_stream(T, shard=shard), num_workers=2, **kwargs)
        return _epochs(loader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unsharded copies yield more than len(dataset)
        same(prog)


def test_iterable_dataset_sharded_by_worker_init_fn():
    def prog(T):
        def init(worker_id):
            dataset = T.utils.data.get_worker_info().dataset
            per_worker = -(-(dataset.end - dataset.start) // 3)
            dataset.start = dataset.start + worker_id * per_worker
            dataset.end = min(dataset.start + per_worker, dataset.end)
        loader = T.utils.data.DataLoader(_stream(T, n=8), batch_size=2, num_workers=3,
                                         worker_init_fn=init)
        return list(loader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 3 workers on a 2-CPU machine
        same(prog)


def test_iterable_dataset_longer_than_its_len_warns_with_workers():
    def prog(T):
        loader = T.utils.data.DataLoader(_stream(T, n=3, length=2), batch_size=None,
                                         num_workers=2)
        len(loader)
        list(loader)
    assert len(same_warnings(prog)) == 4


# ---- errors -------------------------------------------------------------------------------

def _error_of(prog, T):
    try:
        prog(T)
    except Exception as e:  # noqa: BLE001  (compared below)
        # PyTorch's ExceptionWrapper.reraise keeps the exception in a local of a frame of
        # its own traceback: a cycle that would keep the iterator, and its workers, until a
        # garbage collection (which then waits for them for seconds, see dataloader.py)
        traceback.clear_frames(e.__traceback__)
        return e
    raise AssertionError(f"{T.__name__} raised nothing")


def _same_worker_error(prog):
    """The worker's exception re-raised in the main process with PyTorch's class and
    "Caught X in DataLoader worker process N.\\nOriginal Traceback (most recent call
    last):" message, ending with the original exception's line."""
    ours, theirs = _error_of(prog, chainrule), _error_of(prog, torch)
    assert type(ours) is type(theirs), (ours, theirs)
    ours_lines, theirs_lines = str(ours).splitlines(), str(theirs).splitlines()
    assert ours_lines[:2] == theirs_lines[:2]
    assert theirs_lines[1] == "Original Traceback (most recent call last):"
    assert ours_lines[-1] == theirs_lines[-1]
    return ours


@pytest.mark.parametrize("error", [ValueError("bad index"), KeyError("key"),
                                   IndexError("index 4 is out of bounds"),
                                   UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid")])
def test_worker_exception_is_reraised_like_torch(error):
    def prog(T):
        return list(T.utils.data.DataLoader(Failing(bad=3, error=error), batch_size=1,
                                            num_workers=2))
    ours = _same_worker_error(prog)
    assert str(ours).startswith("Caught") and "worker process 1." in str(ours).splitlines()[0]


def test_exception_in_worker_init_fn_is_reported_at_its_first_batch():
    """As in PyTorch, the failed worker reports the init error for its first batch, and
    fails its later batches (its fetcher was never made)."""
    def prog(T):
        def init(worker_id):
            if worker_id == 1:
                raise ZeroDivisionError("init failed")
        it = iter(T.utils.data.DataLoader(range(6), batch_size=1, num_workers=2,
                                          worker_init_fn=init))
        outcomes = []
        for _ in range(4):
            try:
                outcomes.append(next(it))
            except Exception as e:  # noqa: BLE001
                lines = str(e).splitlines()
                outcomes.append((type(e).__name__, lines[0], lines[-1]))
                traceback.clear_frames(e.__traceback__)
        return outcomes
    same(prog)


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_dead_worker_is_reported_like_torch(how):
    """A worker that dies: PyTorch's "DataLoader worker (pid(s) N) exited unexpectedly",
    caused by the SIGCHLD handler's report of the exit code or the signal."""
    def prog(T):
        return list(T.utils.data.DataLoader(Failing(die=3, how=how), batch_size=1,
                                            num_workers=2))

    def normalized(e):
        return (type(e), re.sub(r"(pid(\(s\))? )\d+", r"\1N", str(e)),
                re.sub(r"(pid )\d+", r"\1N", str(e.__cause__)))
    ours, theirs = _error_of(prog, chainrule), _error_of(prog, torch)
    assert normalized(ours) == normalized(theirs)
    assert normalized(ours)[1] == "DataLoader worker (pid(s) N) exited unexpectedly"


def test_timeout_like_torch():
    same_error(lambda T: list(T.utils.data.DataLoader(Slow(2, 0.3), num_workers=1, timeout=0.05)))


# ---- start methods ------------------------------------------------------------------------

@pytest.mark.parametrize("context", ["spawn", "forkserver"])
def test_spawn_and_forkserver_workers_match_torch(context):
    def prog(T, context=None):
        T.manual_seed(5)
        loader = T.utils.data.DataLoader(
            Probe(T.__name__, 6), batch_size=2, shuffle=True, num_workers=2,
            multiprocessing_context=context,
            worker_init_fn=functools.partial(offset_by_worker, T.__name__))
        return list(loader) + [T.rand(3)]
    theirs = prog(torch)  # fork: the start method changes nothing
    ours = prog(chainrule, multiprocessing.get_context(context) if context == "spawn"
                else context)
    compare(ours, theirs)
    assert sorted(i for batch in ours[:-1] for i in batch["index"].tolist()) == \
        [100, 101, 102, 103, 204, 205]


def test_unpicklable_arguments_with_spawn_warn_and_raise_like_torch():
    def prog(T):
        return list(T.utils.data.DataLoader(range(2), num_workers=1, collate_fn=lambda b: b,
                                            multiprocessing_context="spawn"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(prog)
    same_warnings(lambda T: _error_of(prog, T))


# ---- shutdown -----------------------------------------------------------------------------

def _gone(pids):
    """None of the processes exists any more (not even as a zombie)."""
    return not any(os.path.exists(f"/proc/{pid}") for pid in pids)


def test_workers_stop_when_exhausted_abandoned_or_collected():
    dataset = chainrule.utils.data.TensorDataset(chainrule.arange(40.))
    D = chainrule.utils.data

    it = iter(D.DataLoader(dataset, batch_size=2, num_workers=2))
    pids = [w.pid for w in it._workers]
    assert len(list(it)) == 20 and _gone(pids)  # shut down at StopIteration

    for batch in D.DataLoader(dataset, batch_size=2, num_workers=2):
        break  # abandoned early: no hang, the iterator's collection stops the workers
    gc.collect()
    assert not multiprocessing.active_children()

    it = iter(D.DataLoader(dataset, batch_size=2, num_workers=2))
    next(it)
    pids = [w.pid for w in it._workers]
    del it
    assert _gone(pids)


def test_persistent_workers_survive_epochs_and_abandoned_epochs():
    def prog(T):
        loader = T.utils.data.DataLoader(Probe(T.__name__, 10), batch_size=2, num_workers=2,
                                         persistent_workers=True, shuffle=True)
        T.manual_seed(1)
        first = list(loader)
        abandoned = next(iter(loader))  # the rest of this epoch is dropped at the next one
        return first, abandoned, list(loader), T.rand(2)
    same(prog)
    loader = chainrule.utils.data.DataLoader(range(6), batch_size=2, num_workers=2,
                                             persistent_workers=True)
    list(loader)
    pids = [w.pid for w in loader._iterator._workers]
    list(loader)
    assert [w.pid for w in loader._iterator._workers] == pids
    assert all(w.is_alive() for w in loader._iterator._workers)
    del loader
    gc.collect()
    assert _gone(pids)


def test_interpreter_exit_with_live_workers():
    """Live iterators (persistent or abandoned mid-epoch, one in a slow __getitem__) do not
    delay or disturb the interpreter's exit, and leave no process behind."""
    script = textwrap.dedent("""
        import time
        import chainrule
        from data_workers_helpers import Slow
        D = chainrule.utils.data
        persistent = D.DataLoader(range(8), batch_size=2, num_workers=2, persistent_workers=True)
        list(persistent)
        abandoned = iter(D.DataLoader(range(8), batch_size=2, num_workers=2))
        next(abandoned)
        slow = iter(D.DataLoader(Slow(4, 30.0), num_workers=1))
        time.sleep(0.1)
        pids = [w.pid for it in (persistent._iterator, abandoned, slow) for w in it._workers]
        print(" ".join(map(str, pids)))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=20, env=env, cwd=os.path.dirname(__file__))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert _gone(int(p) for p in done.stdout.split())
