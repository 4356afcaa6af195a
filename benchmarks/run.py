"""Benchmarks: chainrule against PyTorch and hand-written NumPy, on the same machine, in one run.

    python benchmarks/run.py            # all benchmarks
    python benchmarks/run.py chain      # some of: chain, mlp, deep, import, graph, cnn, normal,
                                        # chain_mixed, mlp_ce, deep_axpy, cnn_small,
                                        # dynamic_net, dynamic_poly (benchmarks/workloads.py)
    python benchmarks/run.py --quick    # fewer repeats
    python benchmarks/run.py --default-threads   # one thread each, then default threads
    python benchmarks/run.py --wall     # the one-thread pass in wall time, not CPU time

Each benchmark runs the same program through chainrule and torch (written once against the
torch API, as `program(lib)`), and the same computation written by hand in NumPy where there
is one; the libraries alternate within each repeat (a load change hits all) and the median of
the repeats is printed with the ratios to PyTorch. Both libraries run on one thread (torch's
pool and, through threadpoolctl, NumPy's BLAS) unless --default-threads adds a second pass
at their default threads. The one-thread pass is timed in the process's CPU time (equal to
wall time on an idle machine, and not stretched by other processes' load; --wall for wall
time), the default-threads pass in wall time. Timings move by up to 25% between runs on a
shared 2-core machine: read the ratios as ranges.
"""
import argparse
import sys
import time

import numpy as np

from workloads import WORKLOADS, Threads, alternate, measure_workload


# ---- (a) per-op overhead: a chain of tiny elementwise ops, forward and backward -----------

CHAIN_OPS = 1000


def chain_program(lib, x0):
    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for i in range(CHAIN_OPS // 2):
            y = y * 0.999
            y = y + 0.001
        y.sum().backward()
        return x.grad
    return run


def chain_numpy(x0):
    def run():
        y = x0
        for i in range(CHAIN_OPS // 2):
            y = y * np.float32(0.999)
            y = y + np.float32(0.001)
        s = y.sum()
        grad = np.ones_like(y)
        for i in range(CHAIN_OPS // 2):
            grad = grad          # add: identity
            grad = grad * np.float32(0.999)
        return grad, s
    return run


# ---- (c) a deep graph: 100,000 ops, where the cyclic GC and memory per node show ---------

DEEP_OPS = 100_000


def deep_program(lib, x0):
    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for _ in range(DEEP_OPS):
            y = y * 1.0
        y.sum().backward()
        return x.grad
    return run


_MEMORY_PROBE = """
import gc, sys
import numpy as np
lib = __import__(sys.argv[1])
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
x = lib.tensor(np.ones(4, np.float32), requires_grad=True)
y = x * 1.0
gc.collect()
before = rss()
for _ in range({n}):
    y = y * 1.0
print((rss() - before) / {n})
"""


def graph_bytes_per_op(module, n=DEEP_OPS):
    """Resident memory a live n-op graph adds, per op, measured in a fresh interpreter
    (RSS, so PyTorch's C++ nodes count too; a warm process would reuse freed pages)."""
    import subprocess
    out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE.format(n=n), module],
                         check=True, capture_output=True, text=True).stdout
    return float(out)


# ---- (b) MLP training step: 784-512-256-10, batch 128, MSE loss, SGD ----------------------

def _mlp_data():
    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.standard_normal((128, 10)).astype(np.float32)
    return params, x, y


def mlp_program(lib, params0, x0, y0, lr=0.01):
    params = [lib.tensor(p, requires_grad=True) for p in params0]
    x, y = lib.tensor(x0), lib.tensor(y0)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        out = h @ w3 + b3
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss
    return step


def mlp_numpy(params0, x, y, lr=np.float32(0.01)):
    params = [p.copy() for p in params0]

    def step():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        out = h2 @ w3 + b3
        diff = out - y
        loss = (diff ** 2).mean()
        g_out = diff * np.float32(2 / diff.size)
        g_w3 = h2.T @ g_out
        g_b3 = g_out.sum(0)
        g_h2 = g_out @ w3.T
        g_z2 = g_h2 * (z2 > 0)
        g_w2 = h1.T @ g_z2
        g_b2 = g_z2.sum(0)
        g_h1 = g_z2 @ w2.T
        g_z1 = g_h1 * (z1 > 0)
        g_w1 = x.T @ g_z1
        g_b1 = g_z1.sum(0)
        for p, g in zip(params, (g_w1, g_b1, g_w2, g_b2, g_w3, g_b3)):
            p -= lr * g
        return loss
    return step


# ---- (e) graph network: two seed-000 layers (linear, then per-edge weighted scatter_add) --

GRAPH_NODES, GRAPH_EDGES, GRAPH_FEATURES = 10_000, 200_000, 64


def _graph_data():
    rng = np.random.default_rng(0)
    f = GRAPH_FEATURES
    params = []
    for _ in range(2):
        params.append(rng.uniform(-f ** -0.5, f ** -0.5, (f, f)).astype(np.float32))
        params.append(rng.uniform(-f ** -0.5, f ** -0.5, (f,)).astype(np.float32))
        params.append(rng.uniform(0, 0.1, (GRAPH_EDGES,)).astype(np.float32))
    x = rng.standard_normal((GRAPH_NODES, GRAPH_FEATURES)).astype(np.float32)
    edges = rng.integers(0, GRAPH_NODES, (2, GRAPH_EDGES))
    return params, x, edges


def graph_program(lib, params0, x0, edges0):
    params = [lib.tensor(p, requires_grad=True) for p in params0]
    x, (src, dst) = lib.tensor(x0), lib.tensor(edges0)

    def layer(h, weight, bias, edge_weight):
        h = h @ weight.T + bias
        messages = h[src] * edge_weight.unsqueeze(-1)
        return lib.zeros_like(h).scatter_add(0, dst.unsqueeze(-1).expand_as(messages), messages)

    def run():
        w1, b1, e1, w2, b2, e2 = params
        out = layer(layer(x, w1, b1, e1).relu(), w2, b2, e2)
        (out ** 2).mean().backward()
        for p in params:
            p.grad = None
    return run


def graph_numpy(params, x, edges):
    src, dst = edges
    n, f = x.shape
    dst_flat = (dst[:, None] * f + np.arange(f)).reshape(-1)   # scatter_add's linear indices
    src_flat = (src[:, None] * f + np.arange(f)).reshape(-1)

    def scatter(values, flat):      # rows of `values` summed into the rows `flat` names
        summed = np.bincount(flat, weights=values.reshape(-1), minlength=n * f)
        return summed.reshape(n, f).astype(np.float32)

    def run():
        w1, b1, e1, w2, b2, e2 = params
        h1 = x @ w1.T + b1
        z1 = scatter(h1[src] * e1[:, None], dst_flat)
        a1 = np.maximum(z1, 0)
        h2 = a1 @ w2.T + b2
        out = scatter(h2[src] * e2[:, None], dst_flat)
        g_out = out * np.float32(2 / out.size)
        g_msg = g_out[dst]
        g_e2 = (g_msg * h2[src]).sum(1)
        g_h2 = scatter(g_msg * e2[:, None], src_flat)
        g_w2, g_b2 = g_h2.T @ a1, g_h2.sum(0)
        g_z1 = (g_h2 @ w2) * (z1 > 0)
        g_msg = g_z1[dst]
        g_e1 = (g_msg * h1[src]).sum(1)
        g_h1 = scatter(g_msg * e1[:, None], src_flat)
        g_w1, g_b1 = g_h1.T @ x, g_h1.sum(0)
        return g_w1, g_b1, g_e1, g_w2, g_b2, g_e2
    return run


# ---- (f) CNN training step: conv-relu-pool x2, linear; batch 64 of 1x28x28, SGD ----------

def _cnn_data():
    rng = np.random.default_rng(0)
    params = []
    for shape, fan_in in (((16, 1, 3, 3), 9), ((16,), 9), ((32, 16, 3, 3), 144), ((32,), 144),
                          ((10, 32 * 7 * 7), 32 * 7 * 7), ((10,), 32 * 7 * 7)):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    return params, x, y


def cnn_program(lib, params0, x0, y0, lr=0.01):
    F = lib.nn.functional
    params = [lib.tensor(p, requires_grad=True) for p in params0]
    x, y = lib.tensor(x0), lib.tensor(y0)

    def step():
        c1, b1, c2, b2, w, b = params
        h = F.max_pool2d(F.conv2d(x, c1, b1, padding=1).relu(), 2)
        h = F.max_pool2d(F.conv2d(h, c2, b2, padding=1).relu(), 2)
        loss = F.cross_entropy(F.linear(h.flatten(1), w, b), y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss
    return step


# ---- (d) import time: a fresh interpreter importing each library --------------------------

# ---- (g) distributions: Normal.rsample + log_prob over 10^6 draws, forward and backward ----

NORMAL_DRAWS = 10**6


def normal_program(lib):
    loc0 = np.linspace(-1, 1, NORMAL_DRAWS, dtype=np.float32)
    scale0 = np.linspace(0.5, 2, NORMAL_DRAWS, dtype=np.float32)

    def run():
        loc = lib.tensor(loc0, requires_grad=True)
        scale = lib.tensor(scale0, requires_grad=True)
        d = lib.distributions.Normal(loc, scale)
        d.log_prob(d.rsample()).sum().backward()
        return loc.grad, scale.grad
    return run


def normal_numpy():
    loc = np.linspace(-1, 1, NORMAL_DRAWS, dtype=np.float32)
    scale = np.linspace(0.5, 2, NORMAL_DRAWS, dtype=np.float32)
    rng = np.random.default_rng(0)

    def run():
        eps = rng.standard_normal(NORMAL_DRAWS, np.float32)
        x = loc + eps * scale
        z = (x - loc) / scale
        lp = (-0.5 * z * z - np.log(scale) - np.float32(0.5 * np.log(2 * np.pi))).sum()
        # d lp / d x = -z / scale; x depends on loc (1) and scale (eps)
        gx = -z / scale
        g_loc = gx + z / scale
        g_scale = gx * eps + z * z / scale - 1 / scale
        return lp, g_loc, g_scale
    return run


def import_time(module, repeats=5):
    import subprocess
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def _pair(lib_a, lib_b, program, *args):
    return {"chainrule": program(lib_a, *args), "torch": program(lib_b, *args)}


def measure(name, repeats, chainrule, torch, clock):
    """(description, chainrule s, torch s, numpy s or nan, unit, scale) rows of one name."""
    nan = float("nan")
    if name in WORKLOADS:
        return [measure_workload(name, repeats, chainrule, torch, clock)]
    if name == "chain":
        x0 = np.random.default_rng(0).standard_normal(16).astype(np.float32)
        fns = _pair(chainrule, torch, chain_program, x0)
        fns["numpy"] = chain_numpy(x0)
        med = alternate(fns, repeats, clock=clock)
        return [("chain: 1000 elementwise ops on 16 floats, fwd+bwd (per op)",
                 med["chainrule"], med["torch"], med["numpy"], "us", 1e6 / CHAIN_OPS)]
    if name == "mlp":
        params, x, y = _mlp_data()
        fns = _pair(chainrule, torch, mlp_program, params, x, y)
        fns["numpy"] = mlp_numpy(params, x, y)
        med = alternate(fns, repeats, clock=clock)
        return [("mlp: 784-512-256-10 step, batch 128 (per step)",
                 med["chainrule"], med["torch"], med["numpy"], "ms", 1e3)]
    if name == "deep":
        med = alternate(_pair(chainrule, torch, deep_program, np.ones(4, np.float32)),
                        max(3, repeats // 5), warmup=1, clock=clock)
        return [("deep: a 100,000-op chain, fwd+bwd (whole run)", med["chainrule"],
                 med["torch"], nan, "s ", 1),
                ("memory: resident bytes per live graph node (100,000-op chain)",
                 graph_bytes_per_op("chainrule"), graph_bytes_per_op("torch"), nan, "B ", 1)]
    if name == "graph":
        params, x, edges = _graph_data()
        fns = _pair(chainrule, torch, graph_program, params, x, edges)
        fns["numpy"] = graph_numpy(params, x, edges)
        med = alternate(fns, max(3, repeats // 3), clock=clock)
        return [("graph: 2 scatter_add layers, 10k nodes, 200k edges, 64 feats",
                 med["chainrule"], med["torch"], med["numpy"], "ms", 1e3)]
    if name == "cnn":
        params, x, y = _cnn_data()
        med = alternate(_pair(chainrule, torch, cnn_program, params, x, y), repeats,
                        clock=clock)
        return [("cnn: conv-pool x2 + linear step, batch 64 of 1x28x28", med["chainrule"],
                 med["torch"], nan, "ms", 1e3)]
    if name == "normal":
        fns = _pair(chainrule, torch, normal_program)
        fns["numpy"] = normal_numpy()
        med = alternate(fns, max(3, repeats // 3), clock=clock)
        return [("normal: Normal.rsample + log_prob, 10^6 draws, fwd+bwd", med["chainrule"],
                 med["torch"], med["numpy"], "ms", 1e3)]
    # name == "import" (main checked the names)
    return [("import: python -c 'import X' (best of 5, interpreter included)",
             import_time("chainrule"), import_time("torch"), import_time("numpy"), "s ", 1)]


NAMES = ["chain", "mlp", "deep", "graph", "cnn", "normal", "import", *WORKLOADS]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=NAMES, metavar="NAME",
                        help="some of: " + ", ".join(NAMES))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5 repeats (default 15)")
    parser.add_argument("--default-threads", action="store_true",
                        help="after the one-thread pass, a second at default threads")
    parser.add_argument("--wall", action="store_true",
                        help="time the one-thread pass in wall time, not process CPU time")
    args = parser.parse_args(argv)
    unknown = set(args.which) - set(NAMES)
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(sorted(unknown))}")
    repeats = 5 if args.quick else args.repeats
    import torch
    import chainrule
    threads = Threads(torch, wall=args.wall)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, torch {torch.__version__}, "
          f"chainrule {chainrule.__version__}, {repeats} repeats")
    passes = [threads.one] + ([threads.default] if args.default_threads else [])
    for set_threads in passes:
        print(f"\n{set_threads()}:")
        print(f"{'benchmark':<66} {'chainrule':>10} {'pytorch':>10} {'numpy':>10}  "
              f"{'chainrule/pytorch':>17} {'numpy/pytorch':>13}")
        for name in args.which:
            if name == "import" and set_threads is not passes[0]:
                continue        # a fresh interpreter: threads do not apply
            for description, ours, theirs, plain, unit, scale in measure(
                    name, repeats, chainrule, torch, threads.clock):
                print(f"{description:<66} {ours * scale:>8.2f}{unit} {theirs * scale:>8.2f}"
                      f"{unit} {plain * scale:>8.2f}{unit}  {ours / theirs:>17.2f} "
                      f"{plain / theirs:>13.2f}", flush=True)
    threads.default()


if __name__ == "__main__":
    main()
