"""Creation functions against PyTorch: range factories bit for bit (Note [Range kernels] in
_creation.py) over many ranges, dtypes and negative steps, and the out= semantics of the
factories (out's dtype, dtype mismatch, silent resize, arange's warning, requires-grad
refusals)."""
import warnings

import numpy as np
import pytest
import torch

import chainrule
from helpers import same, same_error, same_warnings


def raw(t):
    if isinstance(t, chainrule.Tensor):
        return str(t.dtype), tuple(t.shape), np.ascontiguousarray(t._data).tobytes()
    if t.dtype == torch.bfloat16:
        return str(t.dtype), tuple(t.shape), t.contiguous().view(torch.int16).numpy().tobytes()
    return str(t.dtype), tuple(t.shape), t.contiguous().numpy().tobytes()


def bits(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = prog(chainrule), prog(torch)
    assert raw(ours) == raw(theirs), (ours, theirs)


RNG = np.random.default_rng(7)
RANGES = [(float(RNG.uniform(-100, 100)), float(RNG.uniform(-100, 100)), int(RNG.integers(0, 3000)))
          for _ in range(40)] + [(-np.pi, np.pi, 2000), (0, 1, 1), (3, -7, 101), (-1, 1, 15),
                                 (5, 5, 10), (0, 1, 2), (2.5, -2.5, 33)]
LIN_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16"]


@pytest.mark.parametrize("dtype", LIN_DTYPES)
def test_linspace_bits(dtype):
    for a, b, n in RANGES:
        bits(lambda T: T.linspace(a, b, n, dtype=getattr(T, dtype)))
    bits(lambda T: T.linspace(-1, 1, 40))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])     # half: not yet exact
def test_arange_bits(dtype):
    for a, b, n in RANGES:
        n = max(n, 1)
        step = (b - a) / n if b != a else 1.0
        if dtype == "int64":
            bits(lambda T: T.arange(int(a), int(a) + 3 * n, 3, dtype=T.int64))
            bits(lambda T: T.arange(int(a), int(a) - 2 * n, -2, dtype=T.int64))
        else:
            bits(lambda T: T.arange(a, b, step, dtype=getattr(T, dtype)))
            bits(lambda T: T.arange(b, a, -step, dtype=getattr(T, dtype)))
    bits(lambda T: T.arange(0, 1, 0.1))
    bits(lambda T: T.arange(-3.7, 9.1, 0.3, dtype=T.float64))
    bits(lambda T: T.arange(10))
    bits(lambda T: T.arange(1.5, 20))
    bits(lambda T: T.arange(-9.3, 20, 1.6, dtype=T.int64))


def test_range_bits_and_warning():
    for a, b, n in RANGES[:20]:
        n = max(n, 1)
        step = abs(b - a) / n or 1.0
        lo, hi = min(a, b), max(a, b)
        bits(lambda T: T.range(lo, hi, step))
        bits(lambda T: T.range(lo, hi, step, dtype=T.float64))
    bits(lambda T: T.range(-4, 20, 3, dtype=T.int32))
    same_warnings(lambda T: T.range(0, 5))


def test_range_errors():
    for prog in [lambda T: T.arange(0, 5, -1), lambda T: T.arange(0, float("inf")),
                 lambda T: T.arange(0, 5, 0), lambda T: T.arange(0, 3, 0.5, dtype=T.int64),
                 lambda T: T.linspace(0, 1, -1), lambda T: T.arange(0, 1e30, 1e-10),
                 lambda T: T.arange(2**70), lambda T: T.arange(3, dtype=T.bool),
                 lambda T: T.linspace(0, 1, 3, dtype=T.bool)]:
        same_error(prog)


FACTORIES = {
    "zeros": lambda T, o, **k: T.zeros(2, 3, out=o, **k),
    "ones": lambda T, o, **k: T.ones(2, 3, out=o, **k),
    "full": lambda T, o, **k: T.full((2, 3), 1.5, out=o, **k),
    "arange": lambda T, o, **k: T.arange(0, 6, out=o, **k),
    "arange_float": lambda T, o, **k: T.arange(0, 3, 0.5, out=o, **k),
    "linspace": lambda T, o, **k: T.linspace(0, 1, 6, out=o, **k),
    "eye": lambda T, o, **k: T.eye(2, 3, out=o, **k),
    "randint": lambda T, o, **k: T.randint(0, 5, (2, 3), out=o, **k),
    "randperm": lambda T, o, **k: T.randperm(6, out=o, **k),
    "rand": lambda T, o, **k: T.rand(2, 3, out=o, **k),
    "randn": lambda T, o, **k: T.randn(2, 3, out=o, **k),
    "normal": lambda T, o, **k: T.normal(0.0, 1.0, (2, 3), out=o, **k),
}
OUTS = {"float32": lambda T: T.empty(2, 3), "float64": lambda T: T.empty(2, 3, dtype=T.float64),
        "int64": lambda T: T.empty(2, 3, dtype=T.int64), "empty": lambda T: T.empty(0),
        "five": lambda T: T.empty(5), "six": lambda T: T.empty(6),
        "transposed": lambda T: T.empty(3, 2).t()}


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_out(name):
    f = FACTORIES[name]
    for out_name, make in OUTS.items():
        def prog(T):
            T.manual_seed(3)
            out = make(T)
            try:
                r = f(T, out)
            except Exception as e:     # noqa: BLE001  (compared below)
                return type(e).__name__, str(e)
            return r is out, r, T.rand(2)
        ours, theirs = prog(chainrule), prog(torch)
        if isinstance(theirs[1], str):
            assert ours == theirs, (out_name, ours, theirs)
        else:
            assert ours[0] and theirs[0]
            assert raw(ours[1]) == raw(theirs[1]), (out_name, ours[1], theirs[1])
            assert raw(ours[2]) == raw(theirs[2])
    same_error(lambda T: f(T, T.empty(2, 3), dtype=T.float64))
    same_error(lambda T: f(T, T.empty(2, 3, requires_grad=True)))


def test_factory_out_warnings():
    same_warnings(lambda T: T.arange(6, out=T.empty(5)))
    for T in (chainrule, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            T.zeros(4, out=T.empty(7))
            T.linspace(0, 1, 4, out=T.empty(7))
    same_error(lambda T: T.empty(2, 3, out=T.empty(2, 3, requires_grad=True)))
    same_error(lambda T: T.empty(2, 3, out=T.empty(2, 3), dtype=T.int64))
    same(lambda T: T.empty(2, 3, out=T.empty(0)).shape)
