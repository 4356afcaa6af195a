"""torch.linalg and torch.fft, forward + backward: chainrule against PyTorch, one thread each.

    python benchmarks/linalg_fft.py [--repeats 7] [--wall] [names...]

- solve / cholesky / svd: batched (32 matrices) 64x64 and 256x256 float64, the loss a sum of
  the outputs (svd: of the singular values and |U|, |V|, gauge-invariant), then backward;
- rfft: 2^20 float64 points, the loss sum(|rfft(x)|^2), then backward.

The libraries are timed in turn within each repeat (a load change hits both) and the fastest
repeat of each is reported, with the ratio chainrule / PyTorch. Both run on one thread, timed
in process CPU time (other processes' load on a shared machine stretches wall time); --wall
for the wall clock.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _spd(rng, batch, n):
    a = rng.standard_normal((batch, n, n))
    return a @ a.transpose(0, 2, 1) + n * np.eye(n)


def _workloads(n):
    rng = np.random.default_rng(0)
    a, spd, b = rng.standard_normal((32, n, n)), _spd(rng, 32, n), rng.standard_normal((32, n, 4))

    def solve(T):
        A, B = T.tensor(a, requires_grad=True), T.tensor(b)
        return lambda: T.linalg.solve(A, B).sum().backward()

    def cholesky(T):
        A = T.tensor(spd, requires_grad=True)
        return lambda: T.linalg.cholesky(A).sum().backward()

    def svd(T):
        A = T.tensor(a, requires_grad=True)

        def step():
            U, S, Vh = T.linalg.svd(A, full_matrices=False)
            (S.sum() + (U * U).sum() + (Vh * Vh).sum()).backward()
        return step
    return {f"solve {n}": solve, f"cholesky {n}": cholesky, f"svd {n}": svd}


def _rfft(T):
    x = T.tensor(np.random.default_rng(1).standard_normal(2 ** 20), requires_grad=True)
    return lambda: T.fft.rfft(x).abs().pow(2).sum().backward()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--wall", action="store_true", help="wall time, not process CPU time")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    import torch
    import chainrule
    torch.set_num_threads(1)
    cases = {**_workloads(64), **_workloads(256), "rfft 2^20": _rfft}
    for name, make in cases.items():
        if args.names and not any(name.startswith(n) for n in args.names):
            continue
        steps = {lib.__name__: make(lib) for lib in (chainrule, torch)}
        best = {k: float("inf") for k in steps}
        for _ in range(args.repeats):
            for k, step in steps.items():
                t0 = clock()
                step()
                best[k] = min(best[k], clock() - t0)
        print(f"{name:14s} chainrule {best['chainrule'] * 1e3:8.2f} ms   torch "
              f"{best['torch'] * 1e3:8.2f} ms   ratio {best['chainrule'] / best['torch']:.2f}")


if __name__ == "__main__":
    main()
