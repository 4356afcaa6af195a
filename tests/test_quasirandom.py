"""torch.quasirandom.SobolEngine against PyTorch, bit for bit: direction numbers for all 21201
dimensions, draws (float32 and float64, first point and Gray-code order), draw_base2,
fast_forward (also past 2**k boundaries and with negative counts), reset, scrambling with and
without a seed (the generator's state after), out=, repr, and PyTorch's errors."""
import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.quasirandom
from chainrule.quasirandom import _direction_numbers
from helpers import same_error


def raw(x):
    if isinstance(x, (chainrule.Tensor, torch.Tensor)):
        a = x.detach().numpy()
        return "tensor", str(x.dtype), a.shape, a.tobytes()
    return x


def bits(prog):
    ours, theirs = prog(chainrule), prog(torch)
    assert [raw(x) for x in ours] == [raw(x) for x in theirs]


def test_direction_numbers_of_every_dimension():
    state = torch.zeros(21201, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(state, 21201)
    assert (_direction_numbers(21201) == state.numpy()).all()
    assert (_direction_numbers(7) == state.numpy()[:7]).all()


@pytest.mark.parametrize("dimension", [1, 2, 3, 10, 201, 1111])
@pytest.mark.parametrize("scramble", [False, True])
def test_draws(dimension, scramble):
    def prog(T):
        T.manual_seed(5)
        engine = T.quasirandom.SobolEngine(dimension, scramble=scramble,
                                           seed=None if dimension % 2 else 11)
        out = [engine.draw(), engine.draw(5), engine.draw(3, dtype=T.float64),
               engine.quasi.clone(), engine.num_generated]
        engine.fast_forward(1000)
        out += [engine.draw(2), engine.num_generated]
        engine.fast_forward(7)
        out += [engine.quasi.clone()]
        engine.reset()
        out += [engine.draw(4, dtype=T.float64)]
        engine.reset()
        engine.fast_forward(3)
        out += [engine.draw(2), engine.sobolstate, engine.shift, repr(engine)]
        engine.reset()
        out += [engine.draw_base2(3), engine.draw_base2(3), engine.draw(0)]
        out += [T.rand(3)]      # the default generator's state after scrambling
        return out
    bits(prog)


def test_long_runs():
    # Gray-code columns past 2**10 and 2**16 points, drawn in one call and in pieces
    def prog(T):
        engine = T.quasirandom.SobolEngine(6, scramble=True, seed=0)
        a = engine.draw(70000, dtype=T.float64)
        engine.reset()
        pieces = [engine.draw(1), engine.draw(1023), engine.draw(1), engine.draw(30000)]
        engine.fast_forward(2 ** 16 + 5)
        return [a, *pieces, engine.draw(3), engine.quasi]
    bits(prog)
    # fast_forward's counts of each column equal drawing the points one by one
    for start in [0, 1, 2, 5, 1023, 1024, 4097]:
        for n in [1, 2, 3, 63, 64, 65, 1000, 70001]:
            def ff(T):
                engine = T.quasirandom.SobolEngine(4)
                engine.fast_forward(start)
                engine.fast_forward(n)
                return [engine.quasi, engine.num_generated, engine.draw(2)]
            bits(ff)


def test_all_dimensions_and_scrambling():
    def prog(T):
        engine = T.quasirandom.SobolEngine(21201, scramble=True, seed=123)
        return [engine.sobolstate, engine.shift, engine.draw(3)]
    bits(prog)
    bits(lambda T: [T.quasirandom.SobolEngine(21201).draw(4, dtype=T.float64)])


def test_first_point_and_dtypes():
    def prog(T):
        engine = T.quasirandom.SobolEngine(3, scramble=True, seed=4)
        return [engine._first_point, engine.draw(1, dtype=T.float16),
                engine.reset().draw(1, dtype=T.int64), engine.draw(2, dtype=T.float64)]
    bits(prog)

    def default_float64(T):
        # the first point is divided in the default dtype when the engine is made
        T.set_default_dtype(T.float64)
        try:
            engine = T.quasirandom.SobolEngine(3, scramble=True, seed=4)
        finally:
            T.set_default_dtype(T.float32)
        return [engine._first_point, engine.draw(1), engine.draw(2)]
    bits(default_float64)

    def out(T):
        engine = T.quasirandom.SobolEngine(2)
        a, b = T.empty(1), T.empty(7, dtype=T.int64)
        r = engine.draw(3, out=a)
        s = engine.draw_base2(0, out=b)
        return [a, b, r is a, s is b]
    bits(out)

    def integers(T):
        engine = T.quasirandom.SobolEngine(np.int64(3))
        first = engine.reset().draw(1.0)
        engine.reset()
        return [first, engine.draw(np.int64(2)), engine.draw(T.tensor(3)), engine.num_generated,
                engine.fast_forward(T.tensor(2)).draw(2), engine.num_generated]
    bits(integers)
    bits(lambda T: [T.quasirandom.SobolEngine(3).draw(T.tensor(3))])

    def integers_after(T):
        engine = T.quasirandom.SobolEngine(3)
        engine.draw(2)
        return [engine.draw(T.tensor(3))]
    bits(integers)


def test_negative_counts():
    # PyTorch does not check: a negative fast_forward moves num_generated back, and its
    # kernel's rightmost_zero of a negative index is 0
    def prog(T):
        out = []
        for n in (0, -1, -5):
            engine = T.quasirandom.SobolEngine(2)
            engine.fast_forward(n)
            out += [engine.num_generated, engine.quasi, engine.draw(3), engine.draw(3)]
        engine = T.quasirandom.SobolEngine(2)
        engine.draw(4)
        engine.fast_forward(-2)
        out += [engine.num_generated, engine.draw(3)]
        return out
    bits(prog)


def test_errors():
    Q = "quasirandom"
    for prog in [lambda T: getattr(T, Q).SobolEngine(0),
                 lambda T: getattr(T, Q).SobolEngine(21202),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(3, dtype=T.float16),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(3, dtype=T.bfloat16),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(2, dtype=T.int64),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(3, dtype=T.complex64),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(0),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(-1),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(2.0),
                 lambda T: getattr(T, Q).SobolEngine(3).draw(T.tensor(3.0)),
                 lambda T: getattr(T, Q).SobolEngine(2).fast_forward(2.0),
                 lambda T: getattr(T, Q).SobolEngine(2).fast_forward(T.tensor([2])),
                 lambda T: getattr(T, Q).SobolEngine(2).draw_base2(-1),
                 lambda T: getattr(T, Q).SobolEngine(2).draw_base2(2).draw_base2(1),
                 lambda T: getattr(T, Q).SobolEngine(2.5),
                 lambda T: getattr(T, Q).SobolEngine(2, scramble=True, seed=2.5),
                 lambda T: getattr(T, Q).SobolEngine(2).draw(3, out=T.empty(1,
                                                                           requires_grad=True))]:
        same_error(prog)

    def float_count(T):
        engine = T.quasirandom.SobolEngine(2)
        engine.draw(1.0)
        engine.draw(2)
    same_error(float_count)

    def base2_after_three(T):
        engine = T.quasirandom.SobolEngine(2)
        engine.draw(3)
        engine.draw_base2(2)
    same_error(base2_after_three)

    def draw_after_error(T):
        engine = T.quasirandom.SobolEngine(2)
        engine.draw(2)
        try:
            engine.draw(-1)
        except RuntimeError:
            pass
        return [engine.num_generated, engine.draw(2)]
    bits(draw_after_error)


def test_class_attributes():
    ours, theirs = chainrule.quasirandom.SobolEngine, torch.quasirandom.SobolEngine
    assert (ours.MAXBIT, ours.MAXDIM) == (theirs.MAXBIT, theirs.MAXDIM)
    engine = chainrule.quasirandom.SobolEngine(4, scramble=True, seed=9)
    assert (engine.dimension, engine.scramble, engine.seed) == (4, True, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.draw(5)
