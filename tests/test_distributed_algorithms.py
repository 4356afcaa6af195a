"""chainrule.distributed's join (uneven inputs), DDP communication hooks, subgroup splitting
and shrinking, timeouts, debug levels and breakpoint: jobs of 1, 2 and 3 ranks started with
mpiexec run tests/dist_workers.py (DDP under Join against one process on the same batches,
every hook against the same averaging in NumPy, groups against their expected members and
sums), a 1-rank job on each library is compared with PyTorch's (gloo), and the names that
need no process group are compared in this process."""
import inspect
import os
import subprocess
import sys

import pytest
import torch.distributed.algorithms.ddp_comm_hooks  # noqa: F401  (torch loads it on import)

import chainrule
from helpers import compare, same, same_error
from test_distributed import WORKERS, _mpi_job, _results, _run, launcher, needs_mpi


# ---- without a process group ----------------------------------------------------------------

def test_debug_levels_as_pytorchs(monkeypatch):
    def levels(T):
        d = T.distributed
        before = d.get_debug_level()
        seen = [repr(before), str(d.DebugLevel.DETAIL), d.DebugLevel.INFO.value,
                d.DebugLevel.OFF.name, sorted(d.DebugLevel.__members__)]
        try:
            d.set_debug_level(d.DebugLevel.INFO)
            seen.append(repr(d.get_debug_level()))
            for value in ("detail", "OFF", "Info"):
                os.environ["TORCH_DISTRIBUTED_DEBUG"] = value
                d.set_debug_level_from_env()
                seen.append(repr(d.get_debug_level()))
            del os.environ["TORCH_DISTRIBUTED_DEBUG"]
            d.set_debug_level_from_env()
            seen.append(repr(d.get_debug_level()))
        finally:
            d.set_debug_level(before)
        return seen
    monkeypatch.delenv("TORCH_DISTRIBUTED_DEBUG", raising=False)
    same(levels)
    same_error(lambda T: T.distributed.set_debug_level("INFO"))
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "everything")
    same_error(lambda T: T.distributed.set_debug_level_from_env())


def test_debug_level_is_read_from_the_environment_at_import():
    prog = ("import chainrule.distributed as d, torch.distributed as t\n"
            "print(repr(d.get_debug_level()), repr(t.get_debug_level()))\n")
    env = dict(os.environ, TORCH_DISTRIBUTED_DEBUG="DETAIL")
    out = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["<DebugLevel.DETAIL:", "2>"] * 2, out


def test_names_constants_and_config():
    def prog(T):
        d = T.distributed
        return [d.GroupName("pg0"), isinstance(3, d.RankType), str(d.constants.default_pg_timeout),
                d.constants.default_pg_nccl_timeout, d.constants.default_pg_timeout ==
                d.default_pg_timeout, str(d.constants.timedelta(seconds=1)),
                d.config.compile_on_one_rank, d.config.use_torchcomms,
                d.distributed_c10d.SHRINK_DEFAULT, d.distributed_c10d.SHRINK_ABORT,
                inspect.signature(d.breakpoint).parameters["timeout_s"].default,
                list(inspect.signature(d.split_group).parameters),
                list(inspect.signature(d.shrink_group).parameters),
                list(inspect.signature(d.algorithms.Join).parameters)]
    same(prog)


def test_join_classes_before_any_process_group():
    def prog(T):
        algorithms = T.distributed.algorithms
        join = algorithms.join
        hook = algorithms.JoinHook()
        return [hook.main_hook(), hook.post_hook(True), algorithms.Join is join.Join,
                algorithms.JoinHook is join.JoinHook, algorithms.Joinable is join.Joinable,
                issubclass(join.Joinable, join.ABC), inspect.isabstract(join.Joinable),
                sorted(join.Joinable.__abstractmethods__),
                join.abstractmethod is __import__("abc").abstractmethod]
    same(prog)
    same_error(lambda T: T.distributed.algorithms.Joinable())
    same_error(lambda T: T.distributed.algorithms.Join([]))
    same_error(lambda T: T.distributed.algorithms.Join.notify_join_context(object()))


def test_hook_modules():
    import torch.distributed.algorithms.ddp_comm_hooks as theirs
    ours = chainrule.distributed.algorithms.ddp_comm_hooks
    for name in ("default", "default_hooks", "debugging", "debugging_hooks"):
        assert getattr(ours, name).__name__.split(".")[-1] == \
            getattr(theirs, name).__name__.split(".")[-1]
    for name in ("allreduce_hook", "fp16_compress_hook", "bf16_compress_hook",
                 "fp16_compress_wrapper", "bf16_compress_wrapper"):
        mine = getattr(ours.default_hooks, name)
        assert list(inspect.signature(mine).parameters) == \
            list(inspect.signature(getattr(theirs.default_hooks, name)).parameters), name
    # the wrappers' hooks carry PyTorch's names (DDP looks at them)
    for wrap in ("fp16_compress_wrapper", "bf16_compress_wrapper"):
        got = getattr(ours.default_hooks, wrap)(ours.default_hooks.allreduce_hook).__name__
        want = getattr(theirs.default_hooks, wrap)(theirs.default_hooks.allreduce_hook).__name__
        assert got == want
    assert list(inspect.signature(ours.debugging_hooks.noop_hook).parameters) == \
        list(inspect.signature(theirs.debugging_hooks.noop_hook).parameters)


def test_grad_bucket_methods():
    import torch.distributed as theirs
    mine = chainrule.distributed.GradBucket
    public = sorted(n for n in dir(theirs.GradBucket) if not n.startswith("_"))
    assert public == ["buffer", "gradients", "index", "is_last", "parameters", "set_buffer"]
    assert all(callable(getattr(mine, n)) for n in public)
    # a bucket on its own: views of one flat buffer
    p = [chainrule.nn.Parameter(chainrule.zeros(2, 3)), chainrule.nn.Parameter(chainrule.zeros(4))]
    flat = chainrule.arange(10.0)
    b = mine(1, flat, p, [0, 6], True)
    assert (b.index(), b.is_last(), b.buffer() is flat, b.parameters() == p) == (1, True, True,
                                                                                  True)
    g = b.gradients()
    assert [tuple(x.shape) for x in g] == [(2, 3), (4,)] and g[1].tolist() == [6, 7, 8, 9]
    flat[6] = 60.0
    assert g[1][0].item() == 60.0      # a view, not a copy
    b.set_buffer(flat.half())
    assert b.buffer().dtype == chainrule.float16


# ---- jobs under mpiexec -------------------------------------------------------------------

@needs_mpi
def test_one_rank_job_matches_pytorch(tmp_path):
    """join, hooks (the GradBuckets they get, their errors), futures of works, profiler
    names, timeouts' checks on world size 1, against PyTorch on gloo."""
    code, out = _run([sys.executable, WORKERS, "single_algorithms", "torch",
                      str(tmp_path / "rdzv")])
    assert code == 0, out
    theirs = _results(out, 1)[0]
    ours = _mpi_job(1, "single_algorithms", "chainrule", str(tmp_path / "unused"))[0]
    compare(ours, theirs, atol=1e-5, rtol=1e-5)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_join_on_uneven_inputs_matches_one_process(ranks):
    results = _mpi_job(ranks, "join", "chainrule")
    # the generic Join: rank k counted the ranks still stepping at each of its 1 + k steps
    assert sorted(r["generic"] for r in results) == \
        sorted(sum(ranks - s for s in range(1 + k)) for k in range(ranks))


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_comm_hooks_match_numpy(ranks):
    results = _mpi_job(ranks, "hooks", "chainrule")
    layout = results[0]["layout"]
    # first backward: one bucket, parameters in order; then rebuilt in ready order
    assert layout[0] == [0, True, "torch.float32", 419,
                         [[16, 5], [16], [16, 16], [16], [3, 16], [3]]]
    assert [b[4] for b in layout[1:]] == [[[3], [3, 16], [16]], [[16, 16]], [[16], [16, 5]]]
    assert [b[:2] for b in layout[1:]] == [[0, False], [1, False], [2, True]]
    assert all(r["calls"] == [0, 0, 1, 2] for r in results)
    # the two-stage hook's first all-reduces: the same squared norms on every rank
    assert len(results[0]["norms"]) == 4 and all(r["norms"] == results[0]["norms"]
                                                 for r in results)
    if ranks == 2:      # one addition: float16 rounding once, as PyTorch's sum would
        assert all(r["fp16_exact"] for r in results)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_split_and_shrink_groups(ranks):
    results = _mpi_job(ranks, "groups", "chainrule")
    p = ranks
    by_rank = {}
    for r in results:
        g, me, total = r["split"]
        by_rank[g[me]] = r
    for k, r in by_rank.items():
        if k == p - 1:
            assert r["split"] == [[p - 1], 0, float(p)] and "shrunk" not in r
        else:
            assert r["split"] == [list(range(p - 1)), k, float(sum(range(1, p)))]
            assert r["shrunk"] == [p - 1, k, float(sum(range(1, p))), list(range(p - 1))]
            assert r["new_group"] == (0 if k == 0 else -1)
            if p > 2:
                assert r["sub"] == [k]
        assert r["none"] is True if k == 0 else r["none"] == float(sum(range(1, p)))


@needs_mpi
def test_timeouts_end_the_waits_of_the_ranks_on_time():
    results = sorted(_mpi_job(2, "timeouts", "chainrule"), key=lambda r: "init" not in r)
    first, late = results
    assert first == {
        "init": "Timed out after 1 seconds waiting for clients. 1/2 clients joined.",
        "barrier": ["DistBackendError", "[Rank 0]: barrier timed out after 300 ms: some rank "
                    "of the group did not reach it"],
        "monitored": ["RuntimeError",
                      "[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 300 ms"],
        "monitored_ok": None, "work": ["DistBackendError", "Work timed out after 300 ms"],
        "work_value": [2.0, 2.0]}
    assert late == {
        "barrier": None,
        "monitored": ["RuntimeError", "[Rank 1]: Rank 0 failed to pass monitoredBarrier in "
                      "300 ms"], "monitored_ok": None, "work_value": [2.0, 2.0]}


@needs_mpi
def test_breakpoint_stops_one_rank_and_holds_the_others():
    proc = subprocess.run([launcher.find_mpiexec(), "-n", "2", sys.executable, WORKERS,
                           "pdb_stop", "chainrule"], input="c\n", capture_output=True,
                          text=True, timeout=60, cwd=os.path.dirname(WORKERS))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # skip=1: the first call passes; the second stops rank 0 once
    assert out.count("!!! ATTENTION !!!") == 1, out
    assert "Type 'up' to get to the frame that called dist.breakpoint(rank=0)" in out
    assert _results(out, 2) == [{"passes": 2}] * 2


def test_powersgd_state_and_named_hooks():
    def prog(T):
        hooks = T.distributed.algorithms.ddp_comm_hooks
        P = hooks.powerSGD_hook
        state = P.PowerSGDState(None, matrix_approximation_rank=2, random_seed=3)
        return [list(P.PowerSGDState.__slots__), state.compression_stats(), state.iter,
                state.start_powerSGD_iter, state.rng.randint(1000), sorted(state.__getstate__()),
                hooks.powerSGD is P, hooks.quantization is hooks.quantization_hooks,
                P.logger.name.rsplit(".", 1)[1], list(hooks.DDPCommHookType.__members__),
                list(inspect.signature(hooks.register_ddp_comm_hook).parameters),
                list(inspect.signature(P.batched_powerSGD_hook).parameters),
                list(inspect.signature(
                    hooks.quantization_hooks.quantization_perchannel_hook).parameters),
                list(inspect.signature(
                    hooks.quantization_hooks.quantization_pertensor_hook).parameters)]
    same(prog)
    same_error(lambda T: T.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.PowerSGDState(
        None, start_powerSGD_iter=1))


@needs_mpi
def test_powersgd_and_named_hooks_match_pytorch_on_two_ranks(tmp_path):
    """PowerSGD (rank 1, 2 batched, 3 by QR) and register_ddp_comm_hook by name, trained on
    both libraries under mpiexec (PyTorch on gloo): the same parameters on each rank."""
    code, out = _run([launcher.find_mpiexec(), "-n", "2", sys.executable, WORKERS, "powersgd",
                      "torch", str(tmp_path / "rdzv")])
    assert code == 0, out
    theirs = sorted(_results(out, 2), key=lambda r: r["rank"])
    ours = sorted(_mpi_job(2, "powersgd", "chainrule", str(tmp_path / "unused")),
                  key=lambda r: r["rank"])
    compare(ours, theirs, atol=1e-5, rtol=1e-4)


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_hooks_pytorch_cannot_run_on_the_cpu(ranks):
    assert _mpi_job(ranks, "hooks_beyond_pytorch_cpu", "chainrule") == [{"ranks": ranks}] * ranks
