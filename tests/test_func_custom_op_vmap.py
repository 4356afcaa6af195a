"""torch.library custom operators' register_vmap rules under vmap, against PyTorch: the rule
runs (once per level, innermost first) with PyTorch's info and in_dims, its (output,
out_dims) is used, nested vmaps and grad compose, and PyTorch's errors for bad returns."""
import itertools

import numpy as np
import pytest

from helpers import LIBS, same, same_error

_ids = {lib: itertools.count() for lib in LIBS}
A = np.random.default_rng(2).standard_normal((3, 4))
B = np.random.default_rng(3).standard_normal((4, 3, 5))


def _name(lib):
    # a fresh operator name per program, the same in both libraries (see test_library.py)
    return f"crvmap::op{next(_ids[lib])}"


def _numpy_sin(lib, calls, out_dims=0):
    """An operator whose kernel reads arrays (so only its rule can batch it), and a rule
    recording what it was called with."""
    @lib.library.custom_op(_name(lib), mutates_args=())
    def op(x: lib.Tensor, scale: float = 1.0, *, shift: float = 0.0) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.numpy()) * scale + shift)

    @op.register_vmap
    def rule(info, in_dims, x, *args, **kwargs):
        calls.append((tuple(info), info.batch_size, info.randomness, in_dims, tuple(x.shape),
                      args, kwargs))
        out = op(x.movedim(in_dims[0], 0), *args, **kwargs)
        return (out, 0) if out_dims == 0 else (out.movedim(0, out_dims), out_dims)
    return op


def test_rule_runs_with_info_and_in_dims():
    def prog(T):
        calls = []
        op = _numpy_sin(T, calls)
        a = T.tensor(A)
        out = [T.vmap(op)(a), T.vmap(lambda x: op(x, 2.0))(a),
               T.vmap(lambda x: op(x=x, scale=3.0), randomness="same")(a),
               T.vmap(lambda x: op(x, shift=1.0))(a),
               T.vmap(lambda x: op(a[0]) + x)(a)]      # unbatched inside vmap: no rule
        # chainrule's batch dims lie first: the rule sees in_dims 0 where PyTorch's sees the
        # dim vmap was given (the same elements either way)
        seen = list(calls)
        return out, seen, T.vmap(op, in_dims=1)(a), len(calls) - len(seen)
    same(prog)


def test_nested_vmap_out_dims_and_unbatched_outputs():
    def prog(T):
        calls, calls2 = [], []
        op = _numpy_sin(T, calls)
        op2 = _numpy_sin(T, calls2, out_dims=-1)
        b = T.tensor(B)
        out = [T.vmap(T.vmap(op))(b),
               T.vmap(T.vmap(lambda x, y: op(x) * y, in_dims=(None, 0)))(b[:, 0], b[:, 1]),
               T.vmap(op2, out_dims=1)(b[0])]

        @T.library.custom_op(_name(T), mutates_args=())
        def pair(xs: list[T.Tensor], y: T.Tensor) -> tuple[T.Tensor, T.Tensor]:
            return xs[0] * y, xs[1] + y

        @pair.register_vmap
        def _(info, in_dims, xs, y):
            calls.append(("pair", in_dims, info.batch_size))
            n = info.batch_size
            xs = [x.movedim(d, 0) if d is not None else x.expand(n, *x.shape)
                  for x, d in zip(xs, in_dims[0])]
            return pair(xs, y.movedim(in_dims[1], 0) if in_dims[1] is not None else y), (0, None)
        a = T.tensor(A)
        out.append(T.vmap(pair, in_dims=([0, None], None))([a, a[0]], a[1]))
        out.append(T.vmap(lambda x: pair([x, x], x))(a))
        seen = list(calls)     # in_dims differ below (see test_rule_runs_with_info_and_in_dims)
        out.append(T.vmap(T.vmap(op, in_dims=1), in_dims=2)(b))
        return out, seen, calls2, len(calls) - len(seen)
    same(prog)


def test_rule_composes_with_grad():
    def prog(T):
        calls = []

        @T.library.custom_op(_name(T), mutates_args=())
        def square(x: T.Tensor) -> T.Tensor:
            return T.from_numpy(x.detach().numpy() ** 2)

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
        square.register_autograd(lambda ctx, g: 2 * g * ctx.saved_tensors[0],
                                 setup_context=setup_context)

        @square.register_vmap
        def _(info, in_dims, x):
            calls.append(in_dims)
            return square(x.movedim(in_dims[0], 0)), 0
        a = T.tensor(A, requires_grad=True)
        y = T.vmap(square)(a)
        (g,) = T.autograd.grad(y.sum(), a)
        return y, g, calls
    same(prog)


@pytest.mark.parametrize("returns", ["tensor", "structure", "rule_error"])
def test_errors_of_bad_rules(returns):
    def prog(T):
        @T.library.custom_op(_name(T), mutates_args=())
        def two(x: T.Tensor) -> tuple[T.Tensor, T.Tensor]:
            return x.sin(), x.cos()

        @two.register_vmap
        def _(info, in_dims, x):
            if returns == "tensor":
                return two(x)[0]
            if returns == "structure":
                return two(x)[0], (0, 0)
            raise ValueError("no rule for this")
        return T.vmap(two)(T.tensor(A))
    same_error(prog)
