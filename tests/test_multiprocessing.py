"""torch.multiprocessing against PyTorch: names, sharing strategies, spawn and its errors,
tensors in shared memory across fork, spawn and queues."""
import multiprocessing
import pickle
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch
import torch.multiprocessing

import chainrule
import chainrule.multiprocessing
import mp_workers
from helpers import same, same_error

LIBS = {"chainrule": chainrule, "torch": torch}


def both(prog):
    """prog(T, name) on both libraries; the results, compared as same() does."""
    from helpers import compare
    ours, theirs = prog(chainrule, "chainrule"), prog(torch, "torch")
    compare(ours, theirs)
    return ours


def test_names():
    assert chainrule.multiprocessing.__all__ == torch.multiprocessing.__all__
    for name in torch.multiprocessing.__all__:
        assert getattr(chainrule.multiprocessing, name) is getattr(multiprocessing, name, None) \
            or name in ("set_sharing_strategy", "get_sharing_strategy",
                        "get_all_sharing_strategies"), name
    for name in ("spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException", "SpawnContext", "ENV_VAR_PARALLEL_START"):
        assert hasattr(chainrule.multiprocessing, name)
    import inspect
    assert inspect.signature(chainrule.multiprocessing.spawn) == inspect.signature(
        torch.multiprocessing.spawn)
    assert inspect.signature(chainrule.multiprocessing.start_processes) == inspect.signature(
        torch.multiprocessing.start_processes)
    same(lambda T: (T.multiprocessing.get_start_method(allow_none=True) is None or True,
                    sorted(T.multiprocessing.get_all_start_methods()),
                    T.multiprocessing.cpu_count(), T.multiprocessing.ENV_VAR_PARALLEL_START,
                    T.multiprocessing.get_context("spawn").get_start_method()))


def test_sharing_strategies():
    def prog(T):
        mp = T.multiprocessing
        before = mp.get_sharing_strategy()
        mp.set_sharing_strategy("file_system")
        after = mp.get_sharing_strategy()
        mp.set_sharing_strategy(before)
        return before, after, sorted(mp.get_all_sharing_strategies())
    same(prog)
    same_error(lambda T: T.multiprocessing.set_sharing_strategy("nope"))


def test_spawn_runs_each_rank():
    def prog(T, name):
        out = T.zeros(3)
        out.share_memory_()
        result = T.multiprocessing.spawn(mp_workers.write_rank, args=(name, out), nprocs=2)
        return result, out, out.is_shared()
    both(prog)

    def no_join(T, name):
        out = T.zeros(2).share_memory_()
        ctx = T.multiprocessing.start_processes(mp_workers.write_rank, args=(name, out),
                                                nprocs=2, join=False, start_method="fork")
        pids = ctx.pids()
        while not ctx.join():
            pass
        return (type(ctx).__name__, isinstance(ctx, T.multiprocessing.ProcessContext), len(pids),
                ctx.join(), out)
    both(no_join)


def _raised(T, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:     # noqa: BLE001
        return e
    return None


def test_spawn_errors():
    def raising(T, name):
        e = _raised(T, T.multiprocessing.spawn, mp_workers.raise_in, args=(name, 1), nprocs=2)
        lines = e.msg.strip().splitlines()
        return (type(e).__name__, isinstance(e, T.multiprocessing.ProcessRaisedException), type(e).__mro__[1].__name__, e.error_index, lines[0],
                lines[1], lines[-1], isinstance(e.error_pid, int))
    both(raising)

    def exiting(T, name):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            # start_method is deprecated: PyTorch warns and spawns anyway
            e = _raised(T, T.multiprocessing.spawn, mp_workers.exit_with, args=(name, 3),
                        nprocs=1, start_method="fork")
        back = pickle.loads(pickle.dumps(e))
        return (type(e).__name__, isinstance(e, T.multiprocessing.ProcessExitedException), str(e), e.error_index, e.exit_code, e.signal_name,
                type(back).__name__, back.exit_code,
                [(x.category.__name__, str(x.message)) for x in w])
    both(exiting)

    def context_warns(T, name):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.multiprocessing.SpawnContext([], [])
        return [(x.category.__name__, str(x.message)) for x in w]
    both(context_warns)


def test_share_memory_across_fork_and_spawn():
    def prog(T, name):
        results = []
        for method in ("fork", "spawn"):
            ctx = T.multiprocessing.get_context(method)
            x = T.zeros(3)
            x.share_memory_()
            p = ctx.Process(target=mp_workers.add_one, args=(x,))
            p.start()
            p.join()
            # not shared: the child's change stays in the child
            y = T.zeros(3)
            p = ctx.Process(target=mp_workers.add_one, args=(y,))
            p.start()
            p.join()
            results.append((method, x, y, x.is_shared(), y.is_shared(), p.exitcode))
        return results
    both(prog)


def test_tensors_through_queues_share_memory():
    def prog(T, name):
        ctx = T.multiprocessing.get_context("spawn")
        inbox, outbox = ctx.Queue(), ctx.Queue()
        base = T.arange(6.).reshape(2, 3)
        view = base[:, 1:]
        p = ctx.Process(target=mp_workers.echo_modified, args=(name, inbox, outbox))
        p.start()
        inbox.put(view)
        new, child_shared, child_type, child_rg = outbox.get(timeout=60)
        inbox.put("received")
        p.join()
        # the sender's storage was moved into shared memory: the child's write shows here,
        # in the view and in its base
        return (base, view, base.is_shared(), view.is_shared(), new, new.is_shared(),
                child_shared, child_type, child_rg)
    both(prog)

    def parameter(T, name):
        ctx = T.multiprocessing.get_context("spawn")
        inbox, outbox = ctx.Queue(), ctx.Queue()
        w = T.nn.Parameter(T.ones(2))
        p = ctx.Process(target=mp_workers.echo_modified, args=(name, inbox, outbox))
        p.start()
        inbox.put(w)
        _, shared, kind, rg = outbox.get(timeout=60)
        inbox.put("received")
        p.join()
        return w.detach(), shared, kind, rg
    both(parameter)


def test_pool_map():
    def prog(T, name):
        with T.multiprocessing.get_context("spawn").Pool(2) as pool:
            return pool.map(mp_workers.square, [T.tensor([1., 2.]), T.tensor([3.])])
    both(prog)


def test_reduction_errors_and_numpy_aliasing():
    def nonleaf(T):
        y = T.ones(3, requires_grad=True) * 2
        return ForkingPickler.dumps(y)
    same_error(nonleaf)

    def from_numpy(T):
        a = np.zeros(4, np.float32)
        t = T.from_numpy(a)
        t.share_memory_()
        t[0] = 5       # PyTorch moves the storage: the NumPy array keeps the old memory
        e = T.zeros(0).share_memory_()
        s = T.UntypedStorage(8).share_memory_()
        return float(a[0]), t, t.is_shared(), e.is_shared(), s.is_shared()
    same(from_numpy)

    def views(T):
        b = T.zeros(4)
        v = b[1:]
        v.share_memory_()
        v[0] = 7
        st = b.untyped_storage()
        return b, b.is_shared(), v.is_shared(), st.is_shared(), b.data_ptr() == st.data_ptr()
    same(views)

    def module(T):
        m = T.nn.Linear(2, 2)
        m.share_memory()
        return [p.is_shared() for p in m.parameters()]
    same(module)


def test_hogwild_module():
    def prog(T, name):
        T.manual_seed(0)
        model = T.nn.Linear(2, 1)
        model.share_memory()
        before = [p.detach().clone() for p in model.parameters()]
        procs = [T.multiprocessing.get_context(m).Process(target=mp_workers.train_hogwild,
                                                          args=(model, 2))
                 for m in ("fork", "spawn")]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        return [p.detach() - b for p, b in zip(model.parameters(), before)]
    both(prog)
