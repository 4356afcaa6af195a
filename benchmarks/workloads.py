"""The hot-path workloads of issue 11, each written once as `program(lib)`, and the timing
helpers the benchmarks share (thread limits, alternating medians).

Imported by benchmarks/run.py (`python benchmarks/run.py chain_mixed mlp_ce ...`), by
benchmarks/op_table.py and benchmarks/profile_op.py.

- chain_mixed: 1,000 ops on 16 float32, `x * 1.0001`, `+ 0.5`, `tanh`, `- 0.5` repeated,
  forward + backward;
- mlp_ce: MLP 784-512-256-10 (nn.Linear, weights (out, in)), batch 128, F.cross_entropy,
  then `w -= 0.01 * w.grad` under no_grad;
- deep_axpy: a 100,000-op chain, `x = x + 1e-6 * x` 50,000 times (a mul and an add each),
  forward + backward;
- cnn_small: conv 1->8 3x3, relu, max-pool 2, conv 8->16 3x3, relu, max-pool 2, linear
  (16*7*7 -> 10: padding 1, whose step times match issue 11's), cross-entropy, SGD; batch 64
  of 1x28x28;
- dynamic_net: PyTorch's dynamic_net tutorial (first version): input Linear 1000->100,
  a middle Linear 100->100 applied `random.randint(0, 3)` times, output Linear 100->10,
  clamp(min=0) between, MSELoss(reduction='sum'), SGD lr 1e-4 momentum 0.9; batch 64;
  10 steps per timed run, depths from `random.Random(0)` reseeded per run for both libs;
- dynamic_poly: the tutorial's current version (tiny ops): y = a + b x + c x^2 + d x^3 and
  e x^4 (e x^5) added 0-2 times at random, on 2,000 points, loss sum of squares, SGD lr 1e-8
  momentum 0.9; 10 steps per timed run, seeded the same way.
"""
import gc
import random
import statistics
import time

import numpy as np

try:
    import threadpoolctl
except ImportError:     # a test extra: without it NumPy's BLAS keeps its default threads
    threadpoolctl = None


class Threads:
    """Switches both libraries between one thread and their defaults (recorded at creation):
    torch's intra-op pool and, through threadpoolctl, NumPy's BLAS and OpenMP pools.

    `clock` is the timer to use: on one thread the process's CPU time (what other
    processes' load does not stretch; on an idle machine it equals wall time, the one
    thread doing all the work), with default threads, or when `wall`, wall time."""

    def __init__(self, torch, wall=False):
        self.torch = torch
        self.default_torch = torch.get_num_threads()
        self.wall = wall
        self._limit = None
        self.clock = time.perf_counter

    def one(self):
        self.torch.set_num_threads(1)
        if threadpoolctl is not None and self._limit is None:
            self._limit = threadpoolctl.threadpool_limits(limits=1)
        self.clock = time.perf_counter if self.wall else time.process_time
        return ("one thread each" + ("" if threadpoolctl else
                                     " (torch only: threadpoolctl missing, BLAS at default)")
                + (", wall time" if self.wall else ", process CPU time"))

    def default(self):
        self.torch.set_num_threads(self.default_torch)
        if self._limit is not None:
            self._limit.restore_original_limits()
            self._limit = None
        self.clock = time.perf_counter
        return f"default threads (torch {self.default_torch}), wall time"


def alternate(fns, repeats, warmup=2, collect=True, clock=time.perf_counter):
    """Median seconds of each callable in `fns` ({label: fn}); every repeat runs all of them,
    in an order rotated each repeat, so a load change on the machine hits all alike."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    labels = list(fns)
    times = {label: [] for label in labels}
    for r in range(repeats):
        k = r % len(labels)
        for label in labels[k:] + labels[:k]:
            if collect:
                gc.collect()
            t0 = clock()
            fns[label]()
            times[label].append(clock() - t0)
    return {label: statistics.median(t) for label, t in times.items()}


# ---- (a) the mixed 1,000-op chain -------------------------------------------------------

CHAIN_MIXED_OPS = 1000


def chain_mixed_program(lib):
    x0 = np.random.default_rng(0).standard_normal(16).astype(np.float32)

    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for _ in range(CHAIN_MIXED_OPS // 4):
            y = y * 1.0001
            y = y + 0.5
            y = y.tanh()
            y = y - 0.5
        y.sum().backward()
        return x.grad
    return run


def chain_mixed_numpy():
    x0 = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    c = np.float32(1.0001)

    def run():
        y = x0
        tanhs = []
        for _ in range(CHAIN_MIXED_OPS // 4):
            y = np.tanh(y * c + np.float32(0.5))
            tanhs.append(y)
            y = y - np.float32(0.5)
        grad = np.ones_like(y)
        for t in reversed(tanhs):
            grad = grad * (1 - t * t) * c
        return grad
    return run


# ---- (b) MLP 784-512-256-10, cross-entropy, SGD by hand ------------------------------------

MLP_SIZES = (784, 512, 256, 10)


def _mlp_ce_data():
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((128, MLP_SIZES[0])).astype(np.float32)
    labels = rng.integers(0, MLP_SIZES[-1], 128)
    return weights, x, labels


def _copy_into(lib, module_params, arrays):
    with lib.no_grad():
        for p, a in zip(module_params, arrays):
            p.copy_(lib.tensor(a))


def mlp_ce_program(lib):
    weights, x0, labels0 = _mlp_ce_data()
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    params = list(model.parameters())
    _copy_into(lib, params, weights)
    x, labels = lib.tensor(x0), lib.tensor(labels0)

    def step():
        loss = F.cross_entropy(model(x), labels)
        loss.backward()
        with lib.no_grad():
            for w in params:
                w -= 0.01 * w.grad
                w.grad = None
        return loss
    return step


def mlp_ce_numpy():
    weights, x, labels = _mlp_ce_data()
    params = [w.copy() for w in weights]
    rows = np.arange(len(labels))
    lr = np.float32(0.01)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        z3 = h2 @ w3.T + b3
        shifted = z3 - z3.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        loss = -logp[rows, labels].mean()
        g3 = np.exp(logp)
        g3[rows, labels] -= 1
        g3 *= np.float32(1 / len(labels))
        g_z2 = (g3 @ w3) * (z2 > 0)
        g_z1 = (g_z2 @ w2) * (z1 > 0)
        grads = (g_z1.T @ x, g_z1.sum(0), g_z2.T @ h1, g_z2.sum(0), g3.T @ h2, g3.sum(0))
        for p, g in zip(params, grads):
            p -= lr * g
        return loss
    return step


# ---- (c) the 100,000-op chain x = x + 1e-6 * x ---------------------------------------------

DEEP_AXPY_OPS = 100_000


def deep_axpy_program(lib):
    x0 = np.ones(16, np.float32)

    def run():
        x = lib.tensor(x0, requires_grad=True)
        y = x
        for _ in range(DEEP_AXPY_OPS // 2):
            y = y + 1e-6 * y
        y.sum().backward()
        return x.grad
    return run


def deep_axpy_numpy():
    x0 = np.ones(16, np.float32)
    c = np.float32(1e-6)

    def run():
        y = x0
        for _ in range(DEEP_AXPY_OPS // 2):
            y = y + c * y
        grad = np.ones_like(y)
        for _ in range(DEEP_AXPY_OPS // 2):
            grad = grad + c * grad
        return grad
    return run


# ---- (d) the small CNN of issue 11 ---------------------------------------------------------

def cnn_small_program(lib):
    rng = np.random.default_rng(0)
    nn, F = lib.nn, lib.nn.functional
    conv1, conv2 = nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)
    fc = nn.Linear(16 * 7 * 7, 10)
    params = [p for m in (conv1, conv2, fc) for p in m.parameters()]
    _copy_into(lib, params, [rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)
                             for p in params])
    x = lib.tensor(rng.standard_normal((64, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 64))

    def step():
        h = F.max_pool2d(F.relu(conv1(x)), 2)
        h = F.max_pool2d(F.relu(conv2(h)), 2)
        loss = F.cross_entropy(fc(h.flatten(1)), y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None
        return loss
    return step


# ---- (e) dynamic_net: random depth, layers reused ------------------------------------------

DYNAMIC_STEPS = 10


def dynamic_net_program(lib):
    rng = np.random.default_rng(0)
    nn = lib.nn
    d_in, hidden, d_out = 1000, 100, 10
    layers = [nn.Linear(d_in, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, d_out)]
    params = [p for layer in layers for p in layer.parameters()]
    _copy_into(lib, params, [rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)
                             for p in params])
    x = lib.tensor(rng.standard_normal((64, d_in)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((64, d_out)).astype(np.float32))
    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = lib.optim.SGD(params, lr=1e-4, momentum=0.9)
    first, middle, last = layers

    def run():
        depths = random.Random(0)
        for _ in range(DYNAMIC_STEPS):
            h = first(x).clamp(min=0)
            for _ in range(depths.randint(0, 3)):
                h = middle(h).clamp(min=0)
            loss = loss_fn(last(h), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss
    return run


def dynamic_poly_program(lib):
    x = lib.linspace(-3.141592653589793, 3.141592653589793, 2000)
    y = lib.sin(x)
    coefficients = [lib.tensor(v, requires_grad=True) for v in (0.1, -0.2, 0.3, -0.1, 0.05)]
    a, b, c, d, e = coefficients
    optimizer = lib.optim.SGD(coefficients, lr=1e-8, momentum=0.9)

    def run():
        powers = random.Random(0)
        for _ in range(DYNAMIC_STEPS):
            y_pred = a + b * x + c * x ** 2 + d * x ** 3
            for exp in range(4, powers.randint(4, 6)):
                y_pred = y_pred + e * x ** exp
            loss = (y_pred - y).pow(2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss
    return run


# name: (description, program(lib), numpy program or None, unit, scale, repeats factor)
WORKLOADS = {
    "chain_mixed": ("chain_mixed: 1000 ops x*1.0001,+0.5,tanh,-0.5 on 16 f32 (per op)",
                    chain_mixed_program, chain_mixed_numpy, "us", 1e6 / CHAIN_MIXED_OPS, 1),
    "mlp_ce": ("mlp_ce: 784-512-256-10 nn.Linear, CE, w -= 0.01*w.grad (step)",
               mlp_ce_program, mlp_ce_numpy, "ms", 1e3, 1),
    "deep_axpy": ("deep_axpy: 100,000-op chain x = x + 1e-6*x, fwd+bwd (run)",
                  deep_axpy_program, deep_axpy_numpy, "s ", 1, 5),
    "cnn_small": ("cnn_small: conv 1-8-16 3x3, pool, linear, CE, SGD, b64 (step)",
                  cnn_small_program, None, "ms", 1e3, 1),
    "dynamic_net": ("dynamic_net: Linear 1000-100-10, 0-3 reuses, 10 steps (per step)",
                    dynamic_net_program, None, "ms", 1e3 / DYNAMIC_STEPS, 1),
    "dynamic_poly": ("dynamic_poly: polynomial, 2000 pts, 10 steps (per step)",
                     dynamic_poly_program, None, "ms", 1e3 / DYNAMIC_STEPS, 1),
}


def measure_workload(name, repeats, chainrule, torch, clock=time.perf_counter):
    """(description, chainrule s, torch s, numpy s or nan, unit, scale) for one workload."""
    description, program, numpy_program, unit, scale, slow = WORKLOADS[name]
    fns = {"chainrule": program(chainrule), "torch": program(torch)}
    if numpy_program is not None:
        fns["numpy"] = numpy_program()
    med = alternate(fns, max(3, repeats // slow), warmup=1 if slow > 1 else 2, clock=clock)
    return (description, med["chainrule"], med["torch"], med.get("numpy", float("nan")),
            unit, scale)
