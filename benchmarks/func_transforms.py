"""torch.func transforms: chainrule against torch.func and a Python loop, one thread each.

    python benchmarks/func_transforms.py                # all three
    python benchmarks/func_transforms.py --repeats 31 per_sample

- per_sample: per-sample gradients of a small MLP (32 -> 64 -> tanh -> 10, mse_loss, batch
  64) by `vmap(grad(loss), in_dims=(None, 0, 0))`, against a Python loop of 64 backward
  passes (grad of each sample's loss) in the same library;
- hessian: `func.hessian` of sum(tanh(W x)) at 200 dims (float64), against the loop of 200
  backward passes through the gradient's graph (one Hessian row each);
- jvp: forward mode (`func.jvp`) through a chain of 1,000 ops (sin, on 16 floats) against
  reverse mode (`func.vjp` and its backward pass) through the same chain, per op.

Candidates are timed in turn within each repeat (so a load change hits all of them) and the
fastest repeat of each is reported, in the process's CPU time (time.process_time: on a
shared machine the time a process waits for a core would otherwise swamp sub-millisecond
figures; --clock wall for wall-clock time). NumPy's BLAS and PyTorch use one thread.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def _per_sample(T):
    F = T.func
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(32, 64), T.nn.Tanh(), T.nn.Linear(64, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = T.randn(64, 32), T.randn(64, 10)

    def loss(p, xi, yi):
        return T.nn.functional.mse_loss(F.functional_call(model, p, (xi,)), yi)
    batched = F.vmap(F.grad(loss), in_dims=(None, 0, 0))

    def loop():
        grads = [F.grad(loss)(params, x[i], y[i]) for i in range(64)]
        return {k: T.stack([g[k] for g in grads]) for k in params}
    return {"vmap(grad)": lambda: batched(params, x, y), "loop": loop}


def _hessian(T):
    rng = np.random.default_rng(0)
    W, x = T.tensor(rng.standard_normal((200, 200)) / 14), T.tensor(rng.standard_normal(200))

    def f(v):
        return (W @ v).tanh().sum()

    def loop():
        v = x.detach().requires_grad_()
        (g,) = T.autograd.grad(f(v), v, create_graph=True)
        eye = T.eye(200, dtype=g.dtype)
        return T.stack([T.autograd.grad(g, v, eye[i], retain_graph=True)[0]
                        for i in range(200)])
    return {"func.hessian": lambda: T.func.hessian(f)(x), "loop": loop}


def _jvp(T):
    x, t = T.randn(16), T.randn(16)

    def chain(v):
        for _ in range(1000):
            v = v.sin()
        return v

    def reverse():
        out, vjp_fn = T.func.vjp(chain, x)
        return vjp_fn(t)
    return {"jvp": lambda: T.func.jvp(chain, (x,), (t,)), "vjp": reverse}


BENCHMARKS = {"per_sample": _per_sample, "hessian": _hessian, "jvp": _jvp}


def _measure(cases, repeats, number, clock):
    best = {name: float("inf") for name in cases}
    for fn in cases.values():
        fn()                                   # warm-up
    for _ in range(repeats):
        for name, fn in cases.items():
            t0 = clock()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (clock() - t0) / number)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", help=f"any of {', '.join(BENCHMARKS)} (default: all)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="process CPU time (default) or wall-clock time")
    args = parser.parse_args()
    import torch

    import chainrule
    torch.set_num_threads(1)
    for name in args.which or BENCHMARKS:
        if name not in BENCHMARKS:
            parser.error(f"unknown benchmark {name!r}")
        cases = {}
        for lib_name, lib in (("chainrule", chainrule), ("torch", torch)):
            for case, fn in BENCHMARKS[name](lib).items():
                cases[f"{lib_name} {case}"] = fn
        number = 1 if name != "per_sample" else 5
        best = _measure(cases, args.repeats, number,
                        time.process_time if args.clock == "cpu" else time.perf_counter)
        print(f"{name}:")
        for case, seconds in best.items():
            print(f"  {case:<28} {seconds * 1e3:9.3f} ms")
        if name == "jvp":
            for lib_name in ("chainrule", "torch"):
                fwd, rev = best[f"{lib_name} jvp"], best[f"{lib_name} vjp"]
                print(f"  {lib_name}: per op {fwd * 1e3:.2f} us forward, {rev * 1e3:.2f} us "
                      f"reverse, forward / reverse {fwd / rev:.2f}")
        else:
            first = next(iter(BENCHMARKS[name](chainrule)))
            ours, theirs = best[f"chainrule {first}"], best[f"torch {first}"]
            print(f"  chainrule / torch.func {ours / theirs:.2f}; chainrule loop / "
                  f"chainrule {first} {best['chainrule loop'] / ours:.1f}x")


if __name__ == "__main__":
    main()
