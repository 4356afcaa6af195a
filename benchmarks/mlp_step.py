"""The MLP training step of issue 11: chainrule against PyTorch and hand-written NumPy, one
thread each, with the time of each piece of the step.

    python benchmarks/mlp_step.py [--repeats 31] [--wall] [linear] [matmul]

784-512-256-10, batch 128, float32, in two variants:
- linear: nn.Linear layers (weights (out, in), F.linear), F.cross_entropy, then
  `p -= 0.01 * p.grad` under no_grad;
- matmul: benchmarks/run.py's step (weights (in, out), `x @ w + b`, MSE, the same update).

Each repeat runs the step of every library in turn (a load change hits all) and the fastest
repeat is reported (the machine is shared: medians move with the load of others); the pieces
(forward with the loss, backward, update) are timed within the same steps. Everything runs on
one thread, timed in process CPU time (other processes' load on a shared machine stretches
wall time); --wall for the wall clock.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

SIZES = (784, 512, 256, 10)
BATCH = 128
LR = 0.01


def _data():
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    y = rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32)
    return weights, x, labels, y


def linear_pieces(T, weights, x0, labels0):
    """(forward, backward, update) of the nn.Linear variant; each piece feeds the next."""
    layers = []
    for i in range(0, len(weights), 2):
        layer = T.nn.Linear(weights[i].shape[1], weights[i].shape[0])
        with T.no_grad():
            layer.weight.copy_(T.tensor(weights[i]))
            layer.bias.copy_(T.tensor(weights[i + 1]))
        layers += [layer, T.nn.ReLU()]
    model = T.nn.Sequential(*layers[:-1])
    params = list(model.parameters())
    x, labels = T.tensor(x0), T.tensor(labels0)
    F = T.nn.functional
    state = {}

    def forward():
        state["loss"] = F.cross_entropy(model(x), labels)

    def backward():
        state.pop("loss").backward()

    def update():
        with T.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
    return forward, backward, update


def matmul_pieces(T, weights, x0, y0):
    """The same for benchmarks/run.py's variant (weights (in, out), MSE)."""
    params = [T.tensor(w.T.copy() if w.ndim == 2 else w, requires_grad=True) for w in weights]
    x, y = T.tensor(x0), T.tensor(y0)
    state = {}

    def forward():
        w1, b1, w2, b2, w3, b3 = params
        h = (x @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        state["loss"] = ((h @ w3 + b3 - y) ** 2).mean()

    def backward():
        state.pop("loss").backward()

    def update():
        with T.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
    return forward, backward, update


def _numpy_linear(weights, x, labels):
    params = [w.copy() for w in weights]
    lr = np.float32(LR)
    state = {}

    def forward():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1.T + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T + b2
        h2 = np.maximum(z2, 0)
        z3 = h2 @ w3.T + b3
        shifted = z3 - z3.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        loss = -logp[np.arange(len(labels)), labels].mean()
        state.update(z1=z1, h1=h1, z2=z2, h2=h2, logp=logp, loss=loss)

    def backward():
        s = state
        _, _, w2, _, w3, _ = params
        g3 = np.exp(s["logp"])
        g3[np.arange(len(labels)), labels] -= 1
        g3 *= np.float32(1 / len(labels))
        g_h2 = g3 @ w3
        g_z2 = g_h2 * (s["z2"] > 0)
        g_h1 = g_z2 @ w2
        g_z1 = g_h1 * (s["z1"] > 0)
        s["grads"] = (g_z1.T @ x, g_z1.sum(0), g_z2.T @ s["h1"], g_z2.sum(0),
                      g3.T @ s["h2"], g3.sum(0))

    def update():
        for p, g in zip(params, state.pop("grads")):
            p -= lr * g
    return forward, backward, update


def _numpy_matmul(weights, x, y):
    params = [w.T.copy() if w.ndim == 2 else w.copy() for w in weights]
    lr = np.float32(LR)
    state = {}

    def forward():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        diff = h2 @ w3 + b3 - y
        state.update(z1=z1, h1=h1, z2=z2, h2=h2, diff=diff, loss=(diff ** 2).mean())

    def backward():
        s = state
        _, _, w2, _, w3, _ = params
        g_out = s["diff"] * np.float32(2 / s["diff"].size)
        g_z2 = (g_out @ w3.T) * (s["z2"] > 0)
        g_z1 = (g_z2 @ w2.T) * (s["z1"] > 0)
        s["grads"] = (x.T @ g_z1, g_z1.sum(0), s["h1"].T @ g_z2, g_z2.sum(0),
                      s["h2"].T @ g_out, g_out.sum(0))

    def update():
        for p, g in zip(params, state.pop("grads")):
            p -= lr * g
    return forward, backward, update


def _measure(variants, repeats, clock):
    """Fastest seconds per piece and per whole step, the libraries alternating."""
    times = {name: [[], [], [], []] for name in variants}
    for pieces in variants.values():      # warm up
        for _ in range(3):
            for piece in pieces:
                piece()
    for _ in range(repeats):
        for name, pieces in variants.items():
            start = clock()
            for i, piece in enumerate(pieces):
                t0 = clock()
                piece()
                times[name][i].append(clock() - t0)
            times[name][3].append(clock() - start)
    return {name: [min(t) for t in ts] for name, ts in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--wall", action="store_true", help="wall time, not process CPU time")
    parser.add_argument("variants", nargs="*", default=["linear", "matmul"])
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    import torch
    import chainrule
    torch.set_num_threads(1)
    weights, x, labels, y = _data()
    for variant in args.variants:
        if variant == "linear":
            libs = {lib.__name__: linear_pieces(lib, weights, x, labels)
                    for lib in (chainrule, torch)}
            libs["numpy"] = _numpy_linear(weights, x, labels)
        else:
            libs = {lib.__name__: matmul_pieces(lib, weights, x, y)
                    for lib in (chainrule, torch)}
            libs["numpy"] = _numpy_matmul(weights, x, y)
        best = _measure(libs, args.repeats, clock)
        print(f"{variant}: fastest, in ms   forward  backward   update     step   "
              "/ torch  / numpy")
        for name, m in best.items():
            print(f"  {name:10s} {m[0] * 1e3:17.3f} {m[1] * 1e3:9.3f} {m[2] * 1e3:8.3f} "
                  f"{m[3] * 1e3:8.3f} {m[3] / best['torch'][3]:8.2f} "
                  f"{m[3] / best['numpy'][3]:7.2f}")


if __name__ == "__main__":
    main()
