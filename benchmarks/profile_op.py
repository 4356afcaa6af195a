"""Where one op's time goes, in chainrule and PyTorch, on the tiny inputs of op_table.py.

    python benchmarks/profile_op.py OP [--dtype float32|float64] [--threads 1|default]
                                       [--rounds 15] [-n 200] [--top 15] [--wall]
    python benchmarks/profile_op.py --list

OP is a row name of benchmarks/op_table.py (mul, mul_scalar, add_scalar, tanh, matmul, ...).
Printed per library, in us per call (medians of alternating rounds, measured as in
op_table.py, process CPU time on one thread unless --wall):
- kernel: the bare NumPy forward on the same arrays (where the row names one);
- no-grad fwd: the op under no_grad; minus the kernel, the dispatch (argument handling,
  promotion, the result Tensor);
- recording fwd: the op with grad mode on; minus no-grad, the recording (node, edges,
  saved tensors, and freeing them with the result);
- backward per node: one backward over N applications, divided by N (chain or fan, as in
  op_table.py);
- total per call: recording fwd + backward per node.
Then chainrule's cProfile, top entries by tottime, over repeated graphs of N applications
built and run backward (the forward and backward of the op). Only public chainrule API is
used, so this survives changes to the internals; cProfile's own cost inflates small
functions, so read its figures as shares, not times.
"""
import argparse
import cProfile
import pstats
import statistics
import sys
import zlib

import numpy as np

from op_table import OPS, build, make_inputs, measure_op
from workloads import Threads


def kernel_time(spec, arrays, rounds, n, clock):
    """Median seconds per call of the row's bare NumPy forward, or None."""
    if spec.kernel is None:
        return None
    calls = range(n)
    times = []
    for _ in range(rounds):
        t0 = clock()
        for _ in calls:
            spec.kernel(*arrays)
        times.append((clock() - t0) / n)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("op", nargs="?")
    parser.add_argument("--list", action="store_true", help="print the op names")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--threads", choices=["1", "default"], default="1")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("-n", type=int, default=200, help="calls per timed loop")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--wall", action="store_true",
                        help="on one thread, time in wall time, not process CPU time")
    parser.add_argument("--graphs", type=int, default=50, help="graphs run under cProfile")
    args = parser.parse_args(argv)
    names = {spec.name: spec for spec in OPS}
    if args.list or args.op is None:
        print(" ".join(names))
        return 0
    if args.op not in names:
        return f"unknown op {args.op!r}; one of: {' '.join(names)}"
    spec = names[args.op]
    import torch
    import chainrule
    threads = Threads(torch, wall=args.wall)
    described = threads.one() if args.threads == "1" else threads.default()
    dtype = np.dtype(args.dtype)
    print(f"{spec.name} ({spec.family}), {args.dtype}, {described}; medians of {args.rounds} "
          f"rounds of {args.n} calls; us per call")
    med = measure_op(spec, dtype, (chainrule, torch), args.rounds, args.n, threads.clock)
    tensors, arrays = make_inputs(chainrule, spec, dtype, zlib.crc32(spec.name.encode()))
    kernel = kernel_time(spec, [a.copy() for a in arrays], args.rounds, args.n,
                         threads.clock)
    mode = "-" if spec.inplace else ("chain" if spec.mode is not None else "fan")
    print(f"graph for backward: {mode}\n")
    print(f"{'':28}{'chainrule':>10}{'torch':>10}{'ratio':>8}")

    def line(label, ours, theirs):
        if ours != ours or theirs != theirs:        # nan: no graph for in-place rows
            return
        print(f"{label:<28}{ours * 1e6:>10.2f}{theirs * 1e6:>10.2f}{ours / theirs:>8.2f}")

    ours, theirs = med["chainrule"], med["torch"]
    if kernel is not None:
        print(f"{'kernel (bare NumPy fwd)':<28}{kernel * 1e6:>10.2f}")
        print(f"{'  dispatch = no-grad - kernel':<28}{(ours[0] - kernel) * 1e6:>10.2f}")
    line("no-grad fwd", ours[0], theirs[0])
    line("recording fwd", ours[1], theirs[1])
    line("  recording = rec - no-grad", ours[1] - ours[0], theirs[1] - theirs[0])
    line("backward per node", ours[2], theirs[2])
    line("total per call (rec + bwd)", ours[1] + ours[2], theirs[1] + theirs[2])

    profiler = cProfile.Profile()
    if spec.inplace:
        with chainrule.no_grad():
            profiler.enable()
            for _ in range(args.graphs * args.n):
                spec.fn(chainrule, *tensors)
            profiler.disable()
        what = f"{args.graphs * args.n} calls under no_grad"
    else:
        profiler.enable()
        for _ in range(args.graphs):
            for t in tensors:
                t.grad = None
            chainrule.autograd.backward(*build(chainrule, spec, tensors, args.n, spec.mode))
        profiler.disable()
        what = (f"{args.graphs} graphs of {args.n} applications, built and run backward "
                f"(ones_like for the root gradients included)")
    threads.default()
    print(f"\nchainrule cProfile, {what}; top {args.top} by tottime:")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.strip_dirs().sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
