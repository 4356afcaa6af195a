"""Data-parallel training on MPI: weak scaling, all-reduce bandwidth, and a model of larger jobs.

    python benchmarks/distributed.py                 # 1- and 2-rank jobs, then the model
    python benchmarks/distributed.py --repeats 11 --sizes-mb 1 10 100

It starts `mpiexec -n 1` and `mpiexec -n 2` jobs of this script (through
chainrule.distributed.run's mpiexec), one BLAS thread per rank, and prints:

- weak scaling: the time of one DistributedDataParallel training step with a fixed batch per
  rank (the MLP of benchmarks/run.py, batch 128 per rank; the graph network of run.py, one
  10,000-node graph per rank) on 1 and 2 ranks, and the parallel efficiency t(1) / t(2);
- all-reduce: chainrule.distributed.all_reduce on a float32 tensor against mpi4py's
  Allreduce on the same NumPy array (in place, MPI.SUM), 1 MB to 100 MB, as bus bandwidth
  2 (p - 1) / p x bytes / time, and chainrule's overhead over the raw call;
- a model of the step time at 8, 64 and 512 ranks: the measured compute time plus a ring
  all-reduce, 2 (p - 1) (alpha + bytes / (p beta)), for two assumed networks.

Needs MPI: pip install "chainrule[distributed]".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def _median_time(fn, repeats, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


# ---- the worker: runs inside an mpiexec job ------------------------------------------------

def _mlp_step(torch, dist):
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    torch.manual_seed(dist.get_rank())
    x, y = torch.randn(128, 784), torch.randn(128, 10)

    def step():
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
    return step, sum(p.numel() * 4 for p in model.parameters())


def _graph_step(torch, dist):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import _graph_data
    nn = torch.nn
    params0, x0, edges0 = _graph_data()
    rng = np.random.default_rng(dist.get_rank())     # each rank its own graph, same size
    x0 = rng.standard_normal(x0.shape).astype(np.float32)
    edges0 = rng.integers(0, x0.shape[0], edges0.shape)

    class Graph(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.ParameterList([nn.Parameter(torch.tensor(p)) for p in params0])

        def forward(self, x, src, dst):
            def layer(h, weight, bias, edge_weight):
                h = h @ weight.T + bias
                messages = h[src] * edge_weight.unsqueeze(-1)
                index = dst.unsqueeze(-1).expand_as(messages)
                return torch.zeros_like(h).scatter_add(0, index, messages)
            w1, b1, e1, w2, b2, e2 = self.p
            return layer(layer(x, w1, b1, e1).relu(), w2, b2, e2)
    model = nn.parallel.DistributedDataParallel(Graph())
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, (src, dst) = torch.tensor(x0), torch.tensor(edges0)

    def step():
        opt.zero_grad()
        (model(x, src, dst) ** 2).mean().backward()
        opt.step()
    return step, sum(p.numel() * 4 for p in model.parameters())


def _allreduce(torch, dist, sizes_mb, repeats):
    """Per size: (chainrule's seconds, mpi4py's seconds), alternating the two."""
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rows = []
    for mb in sizes_mb:
        n = int(mb * 2 ** 20) // 4
        t = torch.ones(n)
        raw = np.ones(n, np.float32)
        ours, theirs = [], []
        for i in range(repeats + 2):
            comm.Barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            t1 = time.perf_counter()
            comm.Barrier()
            t2 = time.perf_counter()
            comm.Allreduce(MPI.IN_PLACE, raw, MPI.SUM)
            t3 = time.perf_counter()
            if i >= 2:
                ours.append(t1 - t0)
                theirs.append(t3 - t2)
        rows.append((mb, statistics.median(ours), statistics.median(theirs)))
    # latency: a 4-byte all-reduce
    small, raw = torch.ones(1), np.ones(1, np.float32)
    ours = _median_time(lambda: dist.all_reduce(small), 200)
    theirs = _median_time(lambda: comm.Allreduce(MPI.IN_PLACE, raw, MPI.SUM), 200)
    return rows, ours, theirs


def worker(args):
    import chainrule as torch
    import chainrule.distributed as dist
    dist.init_process_group()
    out = {"ranks": dist.get_world_size()}
    for name, make in (("mlp", _mlp_step), ("graph", _graph_step)):
        if name not in args.only:
            continue
        step, grad_bytes = make(torch, dist)
        dist.barrier()
        out[name] = (_median_time(step, args.repeats if name == "mlp" else args.graph_repeats),
                     grad_bytes)
    if dist.get_world_size() > 1 and "allreduce" in args.only:
        out["allreduce"] = _allreduce(torch, dist, args.sizes_mb, args.repeats)
    times = [None] * dist.get_world_size()
    dist.all_gather_object(times, out)
    if dist.get_rank() == 0:
        # the slowest rank sets the pace of a synchronous step
        for name in ("mlp", "graph"):
            if name in out:
                out[name] = (max(t[name][0] for t in times), out[name][1])
        print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()


# ---- the driver: starts the jobs and reports ----------------------------------------------

NETWORKS = [  # name, latency alpha (s), bandwidth beta (bytes/s) per link
    ("10 Gb/s Ethernet, TCP", 25e-6, 1.1e9),
    ("100 Gb/s InfiniBand", 2e-6, 11e9),
]


def _job(ranks, argv):
    from chainrule.distributed.run import find_mpiexec
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([find_mpiexec(), "-n", str(ranks), sys.executable,
                           os.path.abspath(__file__), "--worker", *argv],
                          capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode:
        raise SystemExit(done.stdout + done.stderr)
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[7:])


def _ms(s):
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--repeats", type=int, default=11)
    p.add_argument("--graph-repeats", type=int, default=5)
    p.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 10, 100])
    p.add_argument("--only", nargs="+", default=["mlp", "graph", "allreduce"],
                   help="some of: mlp graph allreduce")
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)
    argv = [a for a in (argv if argv is not None else sys.argv[1:])]
    one, two = _job(1, argv), _job(2, argv)
    print("weak scaling (fixed batch per rank), time per DDP training step, slowest rank:")
    print("| step | gradient bytes | 1 rank | 2 ranks | efficiency t(1)/t(2) |")
    print("|---|---|---|---|---|")
    for name in ("mlp", "graph"):
        if name in one:
            t1, t2 = one[name][0], two[name][0]
            print(f"| {name} | {one[name][1] / 2 ** 20:.2f} MB | {_ms(t1)} | {_ms(t2)} | "
                  f"{t1 / t2:.0%} |")
    if "allreduce" in two:
        rows, small_ours, small_raw = two["allreduce"]
        print("\nall-reduce on 2 ranks (float32, in place, SUM), bus bandwidth "
              "2(p-1)/p x bytes / time:")
        print("| size | chainrule all_reduce | mpi4py Allreduce | chainrule overhead |")
        print("|---|---|---|---|")
        for mb, ours, raw in rows:
            b = 2 * (two["ranks"] - 1) / two["ranks"] * mb * 2 ** 20
            print(f"| {mb:g} MB | {_ms(ours)} ({b / ours / 1e9:.2f} GB/s) | {_ms(raw)} "
                  f"({b / raw / 1e9:.2f} GB/s) | {ours / raw - 1:+.1%} |")
        print(f"| 4 B | {small_ours * 1e6:.1f} µs | {small_raw * 1e6:.1f} µs | "
              f"{(small_ours - small_raw) * 1e6:+.1f} µs per call |")
    print("\nmodel: step(p) = compute + ring all-reduce of the gradients, "
          "2(p-1) alpha + 2(p-1)/p x bytes / beta (no overlap: an upper bound)")
    for name in ("mlp", "graph"):
        if name not in one:
            continue
        compute, grad_bytes = one[name]
        print(f"\n{name}: compute {_ms(compute)} per step (1 rank), gradients "
              f"{grad_bytes / 2 ** 20:.2f} MB")
        print("| network | 8 ranks | 64 ranks | 512 ranks |")
        print("|---|---|---|---|")
        for net, alpha, beta in NETWORKS:
            cells = []
            for ranks in (8, 64, 512):
                comm = 2 * (ranks - 1) * alpha + 2 * (ranks - 1) / ranks * grad_bytes / beta
                step = compute + comm
                cells.append(f"{_ms(step)} ({compute / step:.0%})")
            print(f"| {net} (alpha {alpha * 1e6:g} µs, beta {beta / 1e9:g} GB/s) | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
