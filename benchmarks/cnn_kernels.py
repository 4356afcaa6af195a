"""Where issue 11's CNN step goes: each NumPy kernel of chainrule against PyTorch's and a
hand-written NumPy reference, then the whole step for all three.

    python benchmarks/cnn_kernels.py [--rounds 5] [-n 30] [--threads 1|default]
                                     [--only kernels|step|alone] [--wall]

The workload is workloads.py's cnn_small (conv 1->8 3x3, relu, max-pool 2, conv 8->16 3x3,
relu, max-pool 2, linear, cross-entropy, SGD; batch 64 of 1x28x28 float32; its padding,
parameters and data are read from it). Kernel rows time chainrule's array kernels (the
functions its op rows call, without dispatch or autograd) against the matching aten op and
against the reference kernels the hand-written step below uses. Every figure is a median
over N calls, the three libraries alternating (workloads.alternate); each round repeats
that, and the figures printed are the median of the rounds' medians with their range
(min-max), since other processes share the machine. The step rows also report page faults
and system time per step (getrusage); the "alone" rows run each library's step in a process
of its own, as a training script would (in one process the libraries share glibc's heap,
which hides the faults). One thread each by default (torch.set_num_threads and
threadpoolctl for NumPy's BLAS), timed in process CPU time (workloads.Threads: other
processes' load stretches wall time); default threads are timed in wall time.
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from workloads import Threads, alternate, cnn_small_program

F32 = np.float32


# ---- the hand-written NumPy reference of the step ------------------------------------------
# Plain NumPy as one would write it by hand for this network (3x3 kernels, 2x2 pools): a
# zero-padded copy, im2col of a window view and one matmul per convolution, the forward's
# columns kept for the weight gradient, col2im as nine slice-adds, max-pool as the maximum of
# its four strided taps and its gradient through an equality mask per tap (ties take the
# gradient twice: fine for random data; a reduction over the window axes of a reshape is 60x
# slower).

def ref_conv(x, w, b, p):
    """(output, columns) of a 3x3 convolution with padding p; columns (C*9, N*OH*OW)."""
    if p:
        padded = np.zeros(x.shape[:2] + (x.shape[2] + 2 * p, x.shape[3] + 2 * p), x.dtype)
        padded[:, :, p:-p, p:-p] = x
        x = padded
    n, c, h, wd = x.shape
    cols = sliding_window_view(x, (3, 3), axis=(2, 3)).transpose(1, 4, 5, 0, 2, 3)
    cols = cols.reshape(c * 9, n * (h - 2) * (wd - 2))
    out = (w.reshape(len(w), -1) @ cols).reshape(len(w), n, h - 2, wd - 2)
    return out.transpose(1, 0, 2, 3) + b[:, None, None], cols


def ref_conv_weight_grad(g, cols):
    gm = g.transpose(1, 0, 2, 3).reshape(g.shape[1], -1)
    return (gm @ cols.T).reshape(g.shape[1], -1, 3, 3), gm.sum(1)


def ref_conv_input_grad(g, w, shape, p):
    o, c = w.shape[:2]
    n, _, oh, ow = g.shape
    dcols = (w.reshape(o, -1).T @ g.transpose(1, 0, 2, 3).reshape(o, -1))
    dcols = dcols.reshape(c, 3, 3, n, oh, ow)
    gi = np.zeros(shape[:2] + (shape[2] + 2 * p, shape[3] + 2 * p), g.dtype)
    for i in range(3):
        for j in range(3):
            gi[:, :, i:i + oh, j:j + ow] += dcols[:, i, j].transpose(1, 0, 2, 3)
    return gi[:, :, p:p + shape[2], p:p + shape[3]]


def ref_relu(z):
    return z * (z > 0)


def _pool_taps(x):
    h, w = x.shape[2] // 2 * 2, x.shape[3] // 2 * 2
    return [(i, j, x[:, :, i:h:2, j:w:2]) for i in (0, 1) for j in (0, 1)]


def ref_pool(x):
    (_, _, a), (_, _, b), (_, _, c), (_, _, d) = _pool_taps(x)
    return np.maximum(np.maximum(a, b), np.maximum(c, d))


def ref_pool_grad(g, x, out):
    gi = np.zeros_like(x)
    h, w = x.shape[2] // 2 * 2, x.shape[3] // 2 * 2
    for i, j, tap in _pool_taps(x):
        gi[:, :, i:h:2, j:w:2] = g * (tap == out)
    return gi


def workload(torch_step):
    """The convolutions' padding, the parameters (as NumPy arrays), x and y of a
    cnn_small_program(torch) step, read from its closure (so this file follows workloads.py)."""
    env = dict(zip(torch_step.__code__.co_freevars,
                   (cell.cell_contents for cell in torch_step.__closure__)))
    arrays = [p.detach().numpy().copy() for p in env["params"]]
    return env["conv1"].padding[0], arrays, env["x"].numpy(), env["y"].numpy()


def cnn_small_numpy(torch_step):
    """cnn_small's step by hand, from the same parameters and data."""
    p, params, x, y = workload(torch_step)
    rows = np.arange(len(x))

    def step():
        c1, b1, c2, b2, fw, fb = params
        z1, cols1 = ref_conv(x, c1, b1, p)
        a1 = ref_relu(z1)
        p1 = ref_pool(a1)
        z2, cols2 = ref_conv(p1, c2, b2, p)
        a2 = ref_relu(z2)
        p2 = ref_pool(a2)
        h = p2.reshape(len(x), -1)
        logits = h @ fw.T + fb
        e = np.exp(logits - logits.max(1, keepdims=True))
        prob = e / e.sum(1, keepdims=True)
        loss = -np.log(prob[rows, y]).mean()
        prob[rows, y] -= 1
        dlogits = prob / F32(len(x))
        g_fw, g_fb = dlogits.T @ h, dlogits.sum(0)
        dp2 = (dlogits @ fw).reshape(p2.shape)
        dz2 = ref_pool_grad(dp2, a2, p2) * (z2 > 0)
        g_c2, g_b2 = ref_conv_weight_grad(dz2, cols2)
        dp1 = ref_conv_input_grad(dz2, c2, p1.shape, p)
        dz1 = ref_pool_grad(dp1, a1, p1) * (z1 > 0)
        g_c1, g_b1 = ref_conv_weight_grad(dz1, cols1)
        for param, g in zip(params, (g_c1, g_b1, g_c2, g_b2, g_fw, g_fb)):
            param -= F32(0.01) * g
        return loss
    return step


# ---- per-kernel rows ------------------------------------------------------------------------

def kernel_rows(torch, p):
    """[(name, {label: fn})] for every array kernel of the step, convolutions padded by p."""
    from chainrule.ops.conv import (_convolution, _convolution_backward, _max_pool,
                                    _max_pool_backward)
    from chainrule.ops.pointwise import _relu, _threshold_backward
    aten = torch.ops.aten
    rng = np.random.default_rng(0)
    one, zero, pad = (1, 1), (0, 0), (p, p)

    def arrays(*shapes):
        return [rng.standard_normal(s).astype(F32) for s in shapes]
    rows, sizes, side = [], [], 28
    for label, (cin, cout) in (("conv1", (1, 8)), ("conv2", (8, 16))):
        xs, ws, out = (64, cin, side, side), (cout, cin, 3, 3), side + 2 * p - 2
        x, w, b = arrays(xs, ws, ws[:1])
        g = rng.standard_normal((64, cout, out, out)).astype(F32)
        tx, tw, tb, tg = map(torch.from_numpy, (x, w, b, g))
        cols = ref_conv(x, w, b, p)[1]
        rows.append((f"{label} forward {cin}->{cout}, {side}x{side}", {
            "chainrule": lambda x=x, w=w, b=b: _convolution(x, w, b, one, pad, one, False,
                                                            zero, 1),
            "torch": lambda tx=tx, tw=tw, tb=tb: aten.convolution(tx, tw, tb, one, pad, one,
                                                                  False, zero, 1),
            "numpy": lambda x=x, w=w, b=b: ref_conv(x, w, b, p)}))
        masks = [("weight+bias gradient", (False, True, True),
                  lambda g=g, cols=cols: ref_conv_weight_grad(g, cols))]
        if label == "conv2":
            masks.append(("input gradient", (True, False, False),
                          lambda g=g, w=w, x=x: ref_conv_input_grad(g, w, x.shape, p)))
        for what, mask, ref in masks:
            rows.append((f"{label} {what}", {
                "chainrule": lambda g=g, x=x, w=w, mask=mask: _convolution_backward(
                    g, x, w, one, pad, one, False, zero, 1, mask),
                "torch": lambda tg=tg, tx=tx, tw=tw, mask=mask: aten.convolution_backward(
                    tg, tx, tw, [tw.shape[0]], one, pad, one, False, zero, 1, mask),
                "numpy": ref}))
        sizes.append((64, cout, out, out))
        side = out // 2
    for label, shape in zip("12", sizes):
        z, gz = arrays(shape, shape)
        a = _relu(z)
        tz, tgz, ta = map(torch.from_numpy, (z, gz, a))
        rows.append((f"relu{label} forward {shape}", {
            "chainrule": lambda z=z: _relu(z), "torch": lambda tz=tz: torch.relu(tz),
            "numpy": lambda z=z: ref_relu(z)}))
        rows.append((f"relu{label} backward", {
            "chainrule": lambda gz=gz, a=a: _threshold_backward(gz, a, 0),
            "torch": lambda tgz=tgz, ta=ta: aten.threshold_backward(tgz, ta, 0),
            "numpy": lambda gz=gz, z=z: gz * (z > 0)}))
        out = (shape[2] // 2, shape[3] // 2)
        values, indices = _max_pool(a, (2, 2), (2, 2), zero, one, out)
        gp = rng.standard_normal(values.shape).astype(F32)
        tgp, (tv, ti) = torch.from_numpy(gp), aten.max_pool2d_with_indices(ta, [2, 2])
        rows.append((f"max_pool{label} forward", {
            "chainrule": lambda a=a, out=out: _max_pool(a, (2, 2), (2, 2), zero, one, out),
            "torch": lambda ta=ta: aten.max_pool2d_with_indices(ta, [2, 2]),
            "numpy": lambda a=a: ref_pool(a)}))
        rows.append((f"max_pool{label} backward", {
            "chainrule": lambda gp=gp, a=a, indices=indices: _max_pool_backward(
                gp, a, indices, (2, 2), (2, 2), zero, one),
            "torch": lambda tgp=tgp, ta=ta, ti=ti: aten.max_pool2d_with_indices_backward(
                tgp, ta, [2, 2], [2, 2], [0, 0], [1, 1], False, ti),
            "numpy": lambda gp=gp, a=a, values=values: ref_pool_grad(gp, a, values)}))
    return rows


def rounds(fns, n_rounds, repeats, clock):
    """{label: (median, low, high)} of the rounds' medians (seconds)."""
    per = {label: [] for label in fns}
    for _ in range(n_rounds):
        for label, t in alternate(fns, repeats, collect=False, clock=clock).items():
            per[label].append(t)
    return {label: (statistics.median(t), min(t), max(t)) for label, t in per.items()}


def _fmt(stat, scale, digits=0):
    med, low, high = (v * scale for v in stat)
    return f"{med:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def faults(fn, steps=20):
    """(minor page faults, system ms) per call."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(steps):
        fn()
    after = resource.getrusage(resource.RUSAGE_SELF)
    return ((after.ru_minflt - before.ru_minflt) / steps,
            (after.ru_stime - before.ru_stime) / steps * 1e3)


def programs(torch, chainrule):
    return {"chainrule": lambda: cnn_small_program(chainrule),
            "torch": lambda: cnn_small_program(torch),
            "numpy": lambda: cnn_small_numpy(cnn_small_program(torch))}


def alone(label, threads, steps):
    """One library's step in this process only (what a training script sees: the libraries
    sharing a process also share glibc's heap, which hides the page faults): a line of
    'cpu_ms wall_ms faults sys_ms' per step, medians over `steps` after 5 warm-up steps."""
    import torch
    import chainrule
    t = Threads(torch)
    t.one() if threads == "1" else t.default()
    fn = programs(torch, chainrule)[label]()
    for _ in range(5):
        fn()
    cpu, wall = [], []
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(steps):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(statistics.median(cpu) * 1e3, statistics.median(wall) * 1e3,
          (after.ru_minflt - before.ru_minflt) / steps,
          (after.ru_stime - before.ru_stime) / steps * 1e3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-n", type=int, default=30, help="calls per round (default 30)")
    parser.add_argument("--threads", choices=("1", "default"), default="1")
    parser.add_argument("--only", choices=("kernels", "step", "alone"))
    parser.add_argument("--wall", action="store_true",
                        help="one thread: wall time instead of process CPU time")
    parser.add_argument("--alone-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.alone_child:
        return alone(args.alone_child, args.threads, args.n)
    import torch
    import chainrule
    threads = Threads(torch, wall=args.wall)
    print(threads.one() if args.threads == "1" else threads.default(),
          f"| numpy {np.__version__}, torch {torch.__version__}, python {sys.version.split()[0]}")
    print(f"median of {args.rounds} rounds of {args.n} calls each (range over the rounds)")
    if args.only in (None, "kernels"):
        print(f"\n{'kernel (us)':34} {'chainrule':>18} {'torch':>18} {'numpy ref':>18}"
              f" {'cr/torch':>8}")
        for name, fns in kernel_rows(torch, workload(cnn_small_program(torch))[0]):
            stats = rounds(fns, args.rounds, args.n, threads.clock)
            print(f"{name:34} {_fmt(stats['chainrule'], 1e6):>18} "
                  f"{_fmt(stats['torch'], 1e6):>18} {_fmt(stats['numpy'], 1e6):>18} "
                  f"{stats['chainrule'][0] / stats['torch'][0]:8.2f}")
    if args.only in (None, "step"):
        fns = {label: make() for label, make in programs(torch, chainrule).items()}
        losses = {label: fn().item() for label, fn in fns.items()}
        stats = rounds(fns, args.rounds, args.n, threads.clock)
        print(f"\n{'step (ms)':12} {'median (range)':>18} {'/ torch':>8} {'/ numpy':>8} "
              f"{'faults':>7} {'sys ms':>7}  first loss")
        for label, stat in stats.items():
            flt, sys_ms = faults(fns[label])
            print(f"{label:12} {_fmt(stat, 1e3, 2):>18} "
                  f"{stat[0] / stats['torch'][0]:8.2f} {stat[0] / stats['numpy'][0]:8.2f} "
                  f"{flt:7.0f} {sys_ms:7.2f}  {losses[label]:.6f}")
    if args.only in (None, "alone"):
        print(f"\nstep alone in a process, {args.rounds} processes each, alternating "
              f"(median over {args.n} steps per process; range over the processes)")
        print(f"{'step (ms)':12} {'cpu':>18} {'wall':>18} {'faults':>7} {'sys ms':>7}")
        runs = {label: [] for label in ("chainrule", "torch", "numpy")}
        for _ in range(args.rounds):
            for label in runs:
                out = subprocess.run([sys.executable, __file__, "--alone-child", label,
                                      "--threads", args.threads, "-n", str(args.n)],
                                     check=True, capture_output=True, text=True).stdout
                runs[label].append([float(v) for v in out.split()[-4:]])
        for label, values in runs.items():
            cols = list(zip(*values))
            cpu, wall = [(statistics.median(c), min(c), max(c)) for c in cols[:2]]
            print(f"{label:12} {_fmt(cpu, 1, 2):>18} {_fmt(wall, 1, 2):>18} "
                  f"{statistics.median(cols[2]):7.0f} {statistics.median(cols[3]):7.2f}")


if __name__ == "__main__":
    main()
