"""Per-op cost on tiny tensors, chainrule against PyTorch: forward without grad, forward with
recording, backward per node, and the ratio chainrule / PyTorch of forward + backward.

    python benchmarks/op_table.py [--dtype float32|float64] [--filter NAME] [--quick]
                                  [--threads 1|default] [--rounds 15] [-n 200] [--wall]

Inputs have 16 elements (16, 4x4, or 4x16 against 16 for broadcasting), float32 and float64
(both unless --dtype); every floating input requires grad. Each row is measured in this one
process, chainrule and PyTorch alternating (the order flips every round), and each column is
the median over the rounds of the time of a loop of N calls of the op (-n, default 200)
divided by N:

- no-grad fwd: N calls under `no_grad()` (for in-place rows, the only column);
- recording fwd: N calls with grad mode on; each result is dropped at once, so the figure
  includes creating and freeing the node;
- backward per node: a graph of N applications of the op is built (not timed), then one
  backward call over it is timed and divided by N. "chain" rows feed each result into the
  next application (through the first input of the result's shape and dtype: y = op(y, ...))
  and start backward from the last result with a gradient of ones; "fan" rows apply the op
  N times to the same inputs and run one `autograd.backward(results, ones)`, so each node's
  input gradients are also summed into the leaves' buffers. A row is "chain" when its result
  has its input's shape and dtype and N chained applications stay finite and away from
  subnormals (checked once with PyTorch), "fan" otherwise. Leaves' `.grad` are reset to None
  before each backward.

The ratio column is (recording fwd + backward per node) chainrule / PyTorch; for in-place
rows (no graph) it is the no-grad ratio. The cyclic GC stays on, as in a user program, and
is collected once before each row. One thread each by default (torch.set_num_threads and
threadpoolctl for NumPy's BLAS), timed in the process's CPU time (time.process_time: on one
thread it equals wall time on an idle machine, and other processes' load does not stretch
it; --wall for wall time); --threads default leaves both at their defaults, in wall time.
"""
import argparse
import gc
import math
import statistics
import sys
import time
import zlib
from dataclasses import dataclass

import numpy as np

from workloads import Threads


@dataclass
class Op:
    family: str
    name: str
    fn: object                  # fn(lib, *tensors) -> result
    inputs: tuple               # input specs, see _array
    kernel: object = None       # the bare NumPy forward, kernel(*arrays), for profile_op.py
    inplace: bool = False
    mode: object = None         # the input a chain feeds back into, None for a fan (measure_op)


def F(shape=(16,), low=-1.0, high=1.0):
    """A floating input (requires grad), uniform in [low, high)."""
    return ("float", shape, low, high)


def I(shape, high):
    """An int64 index input in [0, high)."""
    return ("int", shape, high)


def M(shape):
    """A bool mask input."""
    return ("bool", shape)


def _array(spec, dtype, rng):
    if spec[0] == "float":
        _, shape, low, high = spec
        return rng.uniform(low, high, shape).astype(dtype)
    if spec[0] == "int":
        return rng.integers(0, spec[2], spec[1])
    return rng.random(spec[1]) < 0.5


OPS = []


def op(family, name, fn, *inputs, kernel=None, inplace=False):
    OPS.append(Op(family, name, fn, inputs or (F(),), kernel, inplace))


def _f(lib):
    return lib.nn.functional


POS = F(low=0.5, high=2.0)
SQ = F((4, 4))
ROW = F((4, 16))

# pointwise unary
op("unary", "neg", lambda L, x: -x, kernel=np.negative)
op("unary", "abs", lambda L, x: x.abs(), kernel=np.abs)
op("unary", "exp", lambda L, x: x.exp(), kernel=np.exp)
op("unary", "log", lambda L, x: x.log(), POS, kernel=np.log)
op("unary", "sqrt", lambda L, x: x.sqrt(), POS, kernel=np.sqrt)
op("unary", "rsqrt", lambda L, x: x.rsqrt(), POS, kernel=lambda a: 1 / np.sqrt(a))
op("unary", "reciprocal", lambda L, x: x.reciprocal(), POS, kernel=np.reciprocal)
op("unary", "tanh", lambda L, x: x.tanh(), kernel=np.tanh)
op("unary", "sigmoid", lambda L, x: x.sigmoid(), kernel=lambda a: 1 / (1 + np.exp(-a)))
op("unary", "relu", lambda L, x: x.relu(), kernel=lambda a: np.maximum(a, 0))
op("unary", "sin", lambda L, x: x.sin(), kernel=np.sin)
op("unary", "cos", lambda L, x: x.cos(), kernel=np.cos)
op("unary", "log1p", lambda L, x: x.log1p(), POS, kernel=np.log1p)
op("unary", "expm1", lambda L, x: x.expm1(), kernel=np.expm1)
op("unary", "erf", lambda L, x: L.erf(x))
op("unary", "square", lambda L, x: x.square(), kernel=np.square)
op("unary", "clamp", lambda L, x: x.clamp(-0.5, 0.5), kernel=lambda a: np.clip(a, -0.5, 0.5))
op("unary", "F.gelu", lambda L, x: _f(L).gelu(x))
op("unary", "F.silu", lambda L, x: _f(L).silu(x))
op("unary", "F.softplus", lambda L, x: _f(L).softplus(x))
op("unary", "F.leaky_relu", lambda L, x: _f(L).leaky_relu(x, 0.01))
op("unary", "F.elu", lambda L, x: _f(L).elu(x))

# binary with a Python number
op("scalar", "add_scalar", lambda L, x: x + 0.5, kernel=lambda a: a + 0.5)
op("scalar", "radd_scalar", lambda L, x: 0.5 + x, kernel=lambda a: 0.5 + a)
op("scalar", "sub_scalar", lambda L, x: x - 0.5, kernel=lambda a: a - 0.5)
op("scalar", "rsub_scalar", lambda L, x: 1.0 - x, kernel=lambda a: 1.0 - a)
op("scalar", "mul_scalar", lambda L, x: x * 1.0001, kernel=lambda a: a * 1.0001)
op("scalar", "rmul_scalar", lambda L, x: 1.0001 * x, kernel=lambda a: 1.0001 * a)
op("scalar", "mul_int", lambda L, x: x * 2, kernel=lambda a: a * 2)
op("scalar", "div_scalar", lambda L, x: x / 1.0001, kernel=lambda a: a / 1.0001)
op("scalar", "rdiv_scalar", lambda L, x: 1.0 / x, POS, kernel=lambda a: 1.0 / a)
op("scalar", "pow_scalar", lambda L, x: x ** 2, kernel=lambda a: a ** 2)
op("scalar", "pow_half", lambda L, x: x ** 0.5, POS, kernel=lambda a: a ** 0.5)
op("scalar", "rpow_scalar", lambda L, x: 2.0 ** x, kernel=lambda a: 2.0 ** a)
op("scalar", "clamp_min", lambda L, x: x.clamp(min=0.0), kernel=lambda a: np.maximum(a, 0.0))

# binary with tensors of the same shape
NEAR1 = F(low=0.999, high=1.001)
op("binary", "add", lambda L, x, y: x + y, F(), F(), kernel=np.add)
op("binary", "sub", lambda L, x, y: x - y, F(), F(), kernel=np.subtract)
op("binary", "mul", lambda L, x, y: x * y, F(), NEAR1, kernel=np.multiply)
op("binary", "div", lambda L, x, y: x / y, F(), NEAR1, kernel=np.divide)
op("binary", "pow", lambda L, x, y: x ** y, POS, NEAR1, kernel=np.power)
op("binary", "maximum", lambda L, x, y: L.maximum(x, y), F(), F(), kernel=np.maximum)
op("binary", "minimum", lambda L, x, y: L.minimum(x, y), F(), F(), kernel=np.minimum)
op("binary", "atan2", lambda L, x, y: L.atan2(x, y), F(), POS, kernel=np.arctan2)
op("binary", "where", lambda L, m, x, y: L.where(m, x, y), M((16,)), F(), F(),
   kernel=np.where)
op("binary", "add_alpha", lambda L, x, y: L.add(x, y, alpha=0.5), F(), F(),
   kernel=lambda a, b: a + 0.5 * b)

# broadcasting
op("broadcast", "add_16_4x16", lambda L, x, y: x + y, F(), ROW, kernel=np.add)
op("broadcast", "mul_4x16_16", lambda L, x, y: x * y, ROW, NEAR1, kernel=np.multiply)
op("broadcast", "sub_4x1_1x16", lambda L, x, y: x - y, F((4, 1)), F((1, 16)),
   kernel=np.subtract)
op("broadcast", "div_4x16_4x1", lambda L, x, y: x / y, ROW, F((4, 1), 0.999, 1.001),
   kernel=np.divide)
op("broadcast", "add_4x16_0d", lambda L, x, y: x + y, ROW, F(()), kernel=np.add)

# reductions
op("reduce", "sum", lambda L, x: x.sum(), kernel=np.sum)
op("reduce", "sum_dim", lambda L, x: x.sum(1), SQ, kernel=lambda a: a.sum(1))
op("reduce", "mean", lambda L, x: x.mean(), kernel=np.mean)
op("reduce", "mean_dim_keepdim", lambda L, x: x.mean(1, keepdim=True), SQ,
   kernel=lambda a: a.mean(1, keepdims=True))
op("reduce", "amax_dim", lambda L, x: x.amax(1), SQ, kernel=lambda a: a.max(1))
op("reduce", "max", lambda L, x: x.max(), kernel=np.max)
op("reduce", "var", lambda L, x: x.var(), kernel=lambda a: a.var(ddof=1))
op("reduce", "std_dim", lambda L, x: x.std(1), SQ, kernel=lambda a: a.std(1, ddof=1))
op("reduce", "logsumexp_dim", lambda L, x: x.logsumexp(1), SQ)
op("reduce", "norm", lambda L, x: x.norm(), kernel=np.linalg.norm)

# matmul
op("matmul", "matmul", lambda L, a, b: a @ b, SQ, SQ, kernel=np.matmul)
op("matmul", "mm", lambda L, a, b: a.mm(b), SQ, SQ, kernel=np.matmul)
op("matmul", "mv", lambda L, a, v: a.mv(v), SQ, F((4,)), kernel=np.matmul)
op("matmul", "bmm", lambda L, a, b: a.bmm(b), F((4, 2, 2)), F((4, 2, 2)), kernel=np.matmul)
op("matmul", "dot", lambda L, a, b: a.dot(b), F(), F(), kernel=np.dot)
op("matmul", "F.linear", lambda L, x, w, b: _f(L).linear(x, w, b), SQ, SQ, F((4,)),
   kernel=lambda x, w, b: x @ w.T + b)

# views
op("view", "view", lambda L, x: x.view(4, 4), kernel=lambda a: a.reshape(4, 4))
op("view", "reshape", lambda L, x: x.reshape(2, 8), kernel=lambda a: a.reshape(2, 8))
op("view", "t", lambda L, x: x.t(), SQ, kernel=np.transpose)
op("view", "transpose", lambda L, x: x.transpose(0, 1), SQ, kernel=np.transpose)
op("view", "permute", lambda L, x: x.permute(1, 0), SQ, kernel=np.transpose)
op("view", "unsqueeze", lambda L, x: x.unsqueeze(0), kernel=lambda a: a[None])
op("view", "squeeze", lambda L, x: x.squeeze(1), F((16, 1)), kernel=lambda a: a[:, 0])
op("view", "flatten", lambda L, x: x.flatten(), SQ, kernel=np.ravel)
op("view", "expand", lambda L, x: x.expand(4, 16),
   kernel=lambda a: np.broadcast_to(a, (4, 16)))
op("view", "contiguous_t", lambda L, x: x.t().contiguous(), SQ,
   kernel=lambda a: np.ascontiguousarray(a.T))
op("view", "clone", lambda L, x: x.clone(), kernel=np.copy)
op("view", "cat", lambda L, x, y: L.cat([x, y]), F((8,)), F((8,)),
   kernel=lambda a, b: np.concatenate([a, b]))
op("view", "stack", lambda L, x, y: L.stack([x, y]), F((8,)), F((8,)),
   kernel=lambda a, b: np.stack([a, b]))

# indexing
op("index", "getitem_int", lambda L, x: x[3], kernel=lambda a: a[3])
op("index", "getitem_slice", lambda L, x: x[2:10], kernel=lambda a: a[2:10])
op("index", "getitem_2d_slice", lambda L, x: x[1:3, ::2], SQ, kernel=lambda a: a[1:3, ::2])
op("index", "getitem_row", lambda L, x: x[1], SQ, kernel=lambda a: a[1])
op("index", "getitem_tensor", lambda L, x, i: x[i], F(), I((8,), 16), kernel=lambda a, i: a[i])
op("index", "getitem_mask", lambda L, x, m: x[m], F(), M((16,)), kernel=lambda a, m: a[m])
op("index", "index_select", lambda L, x, i: x.index_select(0, i), SQ, I((3,), 4),
   kernel=lambda a, i: a[i])
op("index", "gather", lambda L, x, i: x.gather(1, i), SQ, I((4, 2), 4),
   kernel=lambda a, i: np.take_along_axis(a, i, 1))

# softmax and losses
op("softmax", "softmax", lambda L, x: x.softmax(1), SQ)
op("softmax", "log_softmax", lambda L, x: x.log_softmax(1), SQ)
op("softmax", "F.cross_entropy", lambda L, x, t: _f(L).cross_entropy(x, t), SQ, I((4,), 4))
op("softmax", "F.nll_loss", lambda L, x, t: _f(L).nll_loss(x, t), SQ, I((4,), 4))
op("softmax", "F.mse_loss", lambda L, x, y: _f(L).mse_loss(x, y), F(), F(),
   kernel=lambda a, b: ((a - b) ** 2).mean())

# in-place updates under no_grad (the optimizer's path)
op("inplace", "add_", lambda L, x, y: x.add_(y), F(), F(), inplace=True,
   kernel=lambda a, b: np.add(a, b, out=a))
op("inplace", "add_scalar_", lambda L, x: x.add_(1e-3), inplace=True,
   kernel=lambda a: np.add(a, 1e-3, out=a))
op("inplace", "mul_", lambda L, x: x.mul_(1.0), inplace=True,
   kernel=lambda a: np.multiply(a, 1.0, out=a))
op("inplace", "sub_alpha_", lambda L, x, g: x.sub_(g, alpha=0.01), F(), F(), inplace=True,
   kernel=lambda a, b: np.subtract(a, 0.01 * b, out=a))
op("inplace", "isub_sgd", lambda L, x, g: x.__isub__(0.01 * g), F(), F(), inplace=True,
   kernel=lambda a, b: np.subtract(a, 0.01 * b, out=a))
op("inplace", "copy_", lambda L, x, y: x.copy_(y), F(), F(), inplace=True,
   kernel=lambda a, b: np.copyto(a, b))
op("inplace", "zero_", lambda L, x: x.zero_(), inplace=True, kernel=lambda a: a.fill(0))
op("inplace", "clamp_", lambda L, x: x.clamp_(-1, 1), inplace=True,
   kernel=lambda a: np.clip(a, -1, 1, out=a))
op("inplace", "setitem_slice", lambda L, x, y: x.__setitem__(slice(0, 8), y), F(), F((8,)),
   inplace=True, kernel=lambda a, b: a.__setitem__(slice(0, 8), b))


# ---- measurement ---------------------------------------------------------------------------

def make_inputs(lib, spec, dtype, seed):
    """The op's input tensors (floating ones require grad) and their NumPy arrays."""
    rng = np.random.default_rng(seed)
    arrays = [_array(s, dtype, rng) for s in spec.inputs]
    tensors = [lib.tensor(a, requires_grad=s[0] == "float")
               for a, s in zip(arrays, spec.inputs)]
    return tensors, arrays


def _tame(a):
    a = np.abs(np.asarray(a, dtype=np.float64))
    return bool(np.all(np.isfinite(a)) and np.all((a == 0) | ((a > 1e-30) & (a < 1e30))))


def chain_arg(spec, lib, tensors, n):
    """The input a chain of n applications feeds back into, or None for a fan."""
    with lib.no_grad():
        out = spec.fn(lib, *tensors)
        k = next((i for i, (t, s) in enumerate(zip(tensors, spec.inputs))
                  if s[0] == "float" and t.shape == out.shape and t.dtype == out.dtype), None)
        if k is None:
            return None
        args = list(tensors)
        for _ in range(n):
            if not _tame(out.detach().numpy()):
                return None
            args[k] = out
            out = spec.fn(lib, *args)
    return k if _tame(out.detach().numpy()) else None


def _leaves(tensors):
    return [t for t in tensors if t.requires_grad]


def build(lib, spec, tensors, n, k):
    """The roots of a graph of n applications of the op (a chain through input k, or a fan
    when k is None) and their gradients of ones, for `autograd.backward`."""
    if k is None:
        roots = [spec.fn(lib, *tensors) for _ in range(n)]
    else:
        args = list(tensors)
        for _ in range(n):
            args[k] = spec.fn(lib, *args)
        roots = [args[k]]
    return roots, [lib.ones_like(r) for r in roots]


def measure_once(lib, spec, tensors, n, k, clock):
    """Seconds per call: (no-grad forward, recording forward, backward per node)."""
    fn = spec.fn
    calls = range(n)
    with lib.no_grad():
        t0 = clock()
        for _ in calls:
            fn(lib, *tensors)
        no_grad = (clock() - t0) / n
    if spec.inplace:
        return no_grad, math.nan, math.nan
    t0 = clock()
    for _ in calls:
        fn(lib, *tensors)
    recording = (clock() - t0) / n
    for t in _leaves(tensors):
        t.grad = None
    roots, grads = build(lib, spec, tensors, n, k)
    t0 = clock()
    lib.autograd.backward(roots, grads)
    backward = (clock() - t0) / n
    return no_grad, recording, backward


def measure_op(spec, dtype, libs, rounds, n, clock=time.perf_counter, warmup=2):
    """{lib name: (no-grad, recording, backward) medians} for one op; libs alternate, the
    order flipping every round."""
    names = [lib.__name__ for lib in libs]
    seed = zlib.crc32(spec.name.encode())
    inputs = {lib.__name__: make_inputs(lib, spec, dtype, seed)[0] for lib in libs}
    if not spec.inplace:
        torch_like = libs[-1]
        spec.mode = k = chain_arg(spec, torch_like, inputs[torch_like.__name__], n)
    else:
        k = None
    samples = {name: [] for name in names}
    gc.collect()
    for r in range(warmup + rounds):
        order = list(zip(names, libs))
        if r % 2:
            order.reverse()
        for name, lib in order:
            got = measure_once(lib, spec, inputs[name], n, k, clock)
            if r >= warmup:
                samples[name].append(got)
    return {name: tuple(statistics.median(col) for col in zip(*s)) for name, s in
            samples.items()}


def _us(seconds):
    return "-" if math.isnan(seconds) else f"{seconds * 1e6:.2f}"


def _row_ratio(ours, theirs, inplace):
    if inplace:
        return ours[0] / theirs[0]
    return (ours[1] + ours[2]) / (theirs[1] + theirs[2])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=["float32", "float64"], action="append")
    parser.add_argument("--filter", action="append", default=[],
                        help="only ops whose name or family contains this (repeatable)")
    parser.add_argument("--threads", choices=["1", "default"], default="1")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("-n", type=int, default=200, help="calls per timed loop")
    parser.add_argument("--quick", action="store_true", help="5 rounds of 100 calls")
    parser.add_argument("--wall", action="store_true",
                        help="on one thread, time in wall time, not process CPU time")
    args = parser.parse_args(argv)
    rounds, n = (5, 100) if args.quick else (args.rounds, args.n)
    import torch
    import chainrule
    threads = Threads(torch, wall=args.wall)
    described = threads.one() if args.threads == "1" else threads.default()
    ops = [s for s in OPS if not args.filter
           or any(f in s.name or f == s.family for f in args.filter)]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, torch {torch.__version__}"
          f", chainrule {chainrule.__version__}; {described}; medians of {rounds} rounds of "
          f"{n} calls; times in us per call")
    ratios = []
    for dtype in args.dtype or ["float32", "float64"]:
        print(f"\n{dtype:<22}{'':5} {'no-grad fwd':>15} {'recording fwd':>15} "
              f"{'backward/node':>15} {'cr/torch':>16}")
        print(f"{'op':<22}{'mode':>5} {'cr':>7} {'torch':>7} {'cr':>7} {'torch':>7} "
              f"{'cr':>7} {'torch':>7} {'fwd':>7} {'f+b':>8}")
        family = None
        for spec in ops:
            if spec.family != family:
                family = spec.family
                print(f"-- {family}")
            try:
                med = measure_op(spec, np.dtype(dtype), (chainrule, torch), rounds, n,
                                 threads.clock)
            except Exception as e:      # report and go on: one missing op hides no others
                print(f"{spec.name:<22} error: {type(e).__name__}: {str(e)[:60]}")
                continue
            ours, theirs = med["chainrule"], med["torch"]
            ratio = _row_ratio(ours, theirs, spec.inplace)
            ratios.append((ratio, dtype, spec.name))
            mode = "-" if spec.inplace else ("chain" if spec.mode is not None else "fan")
            print(f"{spec.name:<22}{mode:>5} {_us(ours[0]):>7} {_us(theirs[0]):>7} "
                  f"{_us(ours[1]):>7} {_us(theirs[1]):>7} {_us(ours[2]):>7} "
                  f"{_us(theirs[2]):>7} {ours[0] / theirs[0]:>7.2f} {ratio:>8.2f}",
                  flush=True)
    threads.default()
    if ratios:
        geo = math.exp(statistics.mean(math.log(r) for r, _, _ in ratios))
        print(f"\n{len(ratios)} rows; geometric mean of f+b ratios {geo:.2f}; "
              f"rows at or below 1.0: {sum(r <= 1 for r, _, _ in ratios)}")
        print("worst 10 by f+b ratio: " + ", ".join(
            f"{name} ({dtype[5:]}) {r:.2f}" for r, dtype, name in sorted(ratios)[::-1][:10]))


if __name__ == "__main__":
    main()
