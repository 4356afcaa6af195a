"""chainrule.distributed, DistributedDataParallel and the launcher: jobs of 1, 2 and 3 ranks
started with mpiexec run tests/dist_workers.py (every collective and ReduceOp against NumPy
for every dtype, DDP against one process on the whole batch, a failing rank), and a 1-rank job
on each library is compared with PyTorch's (gloo) answers. Every job has a timeout."""
import importlib.util
import json
import os
import pathlib
import signal
import subprocess
import sys
import warnings

import pytest
import torch
import torch.distributed

import chainrule
import chainrule.distributed
from chainrule.distributed import run as launcher
from helpers import compare, same, same_error, same_warnings

HERE = pathlib.Path(__file__).resolve().parent
WORKERS = str(HERE / "dist_workers.py")
TIMEOUT = 60

needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None,
    reason="MPI is missing: pip install 'chainrule[distributed]' (mpi4py and mpich)")


def _run(cmd, timeout=TIMEOUT):
    """(exit status, output) of a job; a job still running after `timeout` s is killed
    with its process group and the test fails."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=HERE, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{' '.join(cmd)} still running after {timeout} s:\n{out}")
    return proc.returncode, out


def _results(out, ranks):
    """The RESULT line of every rank."""
    lines = [line for line in out.splitlines() if "RESULT " in line]
    # ranks print concurrently, so lines may run together
    found = "\n".join(lines).replace("}RESULT", "}\nRESULT").split("\n")
    assert len(found) == ranks, out
    return [json.loads(line.split("RESULT ", 1)[1]) for line in found]


def _mpi_job(ranks, *args):
    code, out = _run([launcher.find_mpiexec(), "-n", str(ranks), sys.executable, WORKERS,
                      *args])
    assert code == 0, out
    return _results(out, ranks)


# ---- without MPI --------------------------------------------------------------------------

def test_import_does_not_load_mpi_and_init_without_it_says_what_to_install():
    prog = ("import sys, chainrule, chainrule.distributed as d, chainrule.nn.parallel\n"
            "assert 'mpi4py' not in sys.modules\n"
            "sys.modules['mpi4py'] = None\n"       # as if it were not installed
            "assert d.is_available() and not d.is_mpi_available()\n"
            "assert not d.is_gloo_available() and not d.is_backend_available('mpi')\n"
            "try:\n    d.init_process_group()\n"
            "except RuntimeError as e:\n    print(e)\n")
    code, out = _run([sys.executable, "-c", prog])
    assert code == 0, out
    assert out.strip() == ("chainrule.distributed runs on MPI through mpi4py, which is not "
                           "installed: pip install 'chainrule[distributed]' (mpi4py and mpich)")


def test_before_init_process_group_errors_are_pytorchs():
    D = "distributed"
    calls = [lambda d, T: d.get_rank(), lambda d, T: d.get_world_size(),
             lambda d, T: d.barrier(), lambda d, T: d.all_reduce(T.ones(2)),
             lambda d, T: d.broadcast(T.ones(2), 0), lambda d, T: d.reduce(T.ones(2), 0),
             lambda d, T: d.all_gather([T.ones(1)], T.ones(1)),
             lambda d, T: d.all_gather_single(T.ones(2), T.ones(1)),
             lambda d, T: d.reduce_scatter_single(T.ones(1), T.ones(2)),
             lambda d, T: d.gather(T.ones(1), [T.ones(1)], 0),
             lambda d, T: d.scatter(T.ones(1), [T.ones(1)], 0),
             lambda d, T: d.send(T.ones(1), 1), lambda d, T: d.recv(T.ones(1), 1),
             lambda d, T: d.isend(T.ones(1), 1), lambda d, T: d.irecv(T.ones(1), 1),
             lambda d, T: d.all_gather_object([None], 1),
             lambda d, T: d.broadcast_object_list([1], 0), lambda d, T: d.new_group(),
             lambda d, T: d.get_backend(), lambda d, T: d.destroy_process_group(),
             lambda d, T: T.nn.parallel.DistributedDataParallel(T.nn.Linear(2, 2)),
             lambda d, T: T.utils.data.distributed.DistributedSampler(range(3))]
    for call in calls:
        same_error(lambda T: call(getattr(T, D), T))
    same(lambda T: [T.distributed.is_available(), T.distributed.is_initialized(),
                    T.distributed.group.WORLD, T.distributed.GroupMember.NON_GROUP_MEMBER,
                    repr(T.distributed.ReduceOp.PRODUCT), T.distributed.Backend("GLOO"),
                    T.distributed.Backend.NCCL, T.distributed.Backend.UCC,
                    T.distributed.Backend.XCCL, T.distributed.Backend.UNDEFINED,
                    T.distributed.is_nccl_available(), T.distributed.is_ucc_available(),
                    T.distributed.is_xccl_available()])
    if "LOCAL_RANK" not in os.environ and "MPI_LOCALRANKID" not in os.environ:
        same(lambda T: T.distributed.get_node_local_rank(fallback_rank=3))
        same_error(lambda T: T.distributed.get_node_local_rank())


def test_reduce_op_and_default_backends():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)      # checked below
        same(lambda T: [repr(T.distributed.reduce_op.MAX), repr(T.distributed.reduce_op.SUM),
                        [T.distributed.get_default_backend_for_device(d)
                         for d in ("cpu", "cuda", "xpu", T.device("cpu"))]])
    same_warnings(lambda T: T.distributed.reduce_op.PRODUCT)
    same_error(lambda T: T.distributed.get_default_backend_for_device("meta"))


def test_data_parallel_runs_the_module_on_a_cpu_only_build():
    def prog(T):
        T.manual_seed(0)
        inner = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU())
        dp = T.nn.DataParallel(inner, device_ids=None)
        x = T.randn(4, 3, requires_grad=True)
        y = dp(x)
        y.sum().backward()
        return [y, x.grad, list(dp.state_dict()), dp.device_ids, dp.module is inner,
                isinstance(dp, T.nn.Module), T.nn.parallel.DataParallel is T.nn.DataParallel]
    same(prog)
    same_error(lambda T: T.nn.parallel.data_parallel(T.nn.Linear(2, 2), T.ones(1, 2)))


def test_launcher_command_line():
    try:
        exe = launcher.find_mpiexec()
    except RuntimeError as e:
        assert str(e).startswith("mpiexec not found"), e
        return
    assert launcher.command(["-n", "4", "train.py", "--lr", "0.1"]) == [
        exe, "-n", "4", sys.executable, "train.py", "--lr", "0.1"]
    assert launcher.command(["--nproc-per-node", "2", "-m", "pkg.train"]) == [
        exe, "-n", "2", sys.executable, "-m", "pkg.train"]


# ---- jobs under mpiexec -------------------------------------------------------------------

@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_every_collective_and_reduce_op_on_every_dtype(ranks):
    results = _mpi_job(ranks, "collectives", "chainrule")
    assert all(r["checked"] > 400 for r in results), results


@needs_mpi
def test_the_launcher_starts_a_job():
    code, out = _run([sys.executable, "-m", "chainrule.distributed.run", "-n", "2", WORKERS,
                      "hello", "chainrule"])
    assert code == 0, out
    assert sorted(_results(out, 2), key=lambda r: r["rank"]) == [
        {"rank": k, "world_size": 2, "sum": 2.0} for k in range(2)]


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_ddp_matches_one_process_on_the_whole_batch(ranks):
    assert _mpi_job(ranks, "ddp", "chainrule") == [{"ranks": ranks}] * ranks


@needs_mpi
def test_one_rank_job_matches_pytorch(tmp_path):
    """The same program on chainrule (under mpiexec) and on PyTorch (gloo, a file
    rendezvous): errors, warnings, DDP's attributes, state_dict keys, gradients."""
    code, out = _run([sys.executable, WORKERS, "single", "torch", str(tmp_path / "rdzv")])
    assert code == 0, out
    theirs = _results(out, 1)[0]
    ours = _mpi_job(1, "single", "chainrule", str(tmp_path / "unused"))[0]
    compare(ours, theirs, atol=1e-6, rtol=1e-5)


@needs_mpi
def test_a_failing_rank_ends_the_job_with_its_error():
    code, out = _run([launcher.find_mpiexec(), "-n", "2", sys.executable, WORKERS, "fault",
                      "chainrule"], timeout=30)
    assert code != 0, out
    assert "[rank1]: ValueError: rank 1 failed on purpose" in out, out
    assert "RESULT" not in out


@needs_mpi
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                    reason="the digits examples need scikit-learn")
def test_ddp_digits_example_matches_pytorch_on_two_ranks():
    """examples/ddp_digits.py under the launcher prints the same losses and accuracies on
    chainrule (MPI) as on PyTorch (gloo)."""
    script = str(HERE.parent / "examples" / "ddp_digits.py")
    outs = []
    for extra in ([], ["--torch", "--port", str(29500 + os.getpid() % 1000)]):
        code, out = _run([sys.executable, "-m", "chainrule.distributed.run", "-n", "2",
                          script, "--epochs", "2", *extra])
        # PyTorch's gloo sometimes aborts while tearing down, after the run has printed all
        # of its results ("terminate called without an active exception"): that is PyTorch's
        # process, not what is compared
        torch_teardown_abort = (extra and "final test accuracy" in out
                                and "terminate called without an active exception" in out)
        assert code == 0 or torch_teardown_abort, out
        outs.append([line.split("  ", 1)[1] for line in out.splitlines()
                     if line.startswith("epoch")])
    assert len(outs[0]) == 2 and outs[0] == outs[1], outs
