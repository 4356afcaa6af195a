"""Creation functions against PyTorch: range factories bit for bit (Note [Range kernels] in
_creation.py) over many ranges, dtypes and negative steps (arange in every dtype, fractional
bounds in integer dtypes; range in half precision; linspace and logspace in real, integer
and complex dtypes, with their overflow checks and dtype inference), and the out= semantics
of the factories (out's dtype, dtype mismatch, silent resize, arange's warning,
requires-grad refusals)."""
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


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16", "bfloat16"])
def test_arange_bits(dtype):
    for a, b, n in RANGES:
        n = max(n, 1)
        step = (b - a) / n if b != a else 1.0
        if dtype == "float16":      # within half's range
            a, b, step = a / 2, b / 2, step / 2
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


@pytest.mark.parametrize("dtype", ["int32", "int16", "int8", "uint8", "int64"])
def test_arange_integer_dtypes_with_fractional_bounds(dtype):
    # the count from the bounds in double, the values from start and step truncated
    for a, b, n in RANGES:
        lo, hi = (0, 250) if dtype in ("uint8", "int8") else (min(a, b), max(a, b))
        step = abs(b - a) / max(n, 1) + (1.5 if dtype == "int64" else 0.5)
        bits(lambda T: T.arange(lo, hi, step, dtype=getattr(T, dtype)))
        bits(lambda T: T.arange(hi, lo, -step, dtype=getattr(T, dtype)))
    for args in [(0.5, 10.7, 1.3), (-2.5, 3.5), (1.9, 7, 2.5), (0.7, 5.2, 1.0), (0, 2 ** 40, 2 ** 30),
                 (-1.5, 2.5, 1.5)]:
        bits(lambda T: T.arange(*args, dtype=getattr(T, dtype)))
    if dtype != "int64":    # a step truncated to 0 repeats start
        bits(lambda T: T.arange(0, 10, 0.87, dtype=getattr(T, dtype)))
    for prog in [lambda T: T.arange(0, 10, 0.5, dtype=T.int64),
                 lambda T: T.arange(10, 0, 0.5, dtype=getattr(T, dtype)),
                 lambda T: T.arange(0, float("inf"), 1, dtype=getattr(T, dtype)),
                 lambda T: T.arange(0, 1e30, 1e-10, dtype=getattr(T, dtype)),
                 lambda T: T.arange(0, 10, 0, dtype=getattr(T, dtype))]:
        same_error(prog)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32"])
def test_range_in_the_accumulate_type(dtype):
    # the count ((end - start) / step + 1) and the values in float for half precision,
    # in int64 (of truncated bounds) for integers
    for a, b, n in RANGES[:25]:
        lo, hi = min(a, b), max(a, b)
        step = (hi - lo) / max(n, 1) or 1.0
        if dtype == "float16":
            lo, hi, step = lo / 2, hi / 2, step / 2
        if dtype in ("int64", "int32"):
            step = step + 1
        bits(lambda T: T.range(lo, hi, step, dtype=getattr(T, dtype)))
    bits(lambda T: T.range(0, 1000, 0.7, dtype=getattr(T, dtype)) if "float" in dtype
         else T.range(0.5, 10.7, 1.3, dtype=getattr(T, dtype)))


INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_linspace_integer_bounds(dtype):
    for args in [(0, 300, 10), (-5, 300, 7), (-300, 5, 7), (0, 255, 10), (-1, 5, 7),
                 (0, 1e10, 7), (0, 40000, 7), (0, 2 ** 40, 3), (1.5, 2.7, 4),
                 (float("nan"), 1, 3), (300, 0, 1)]:
        def prog(T):
            return T.linspace(*args, dtype=getattr(T, dtype))
        try:
            prog(torch)
        except RuntimeError:
            same_error(prog)
        else:
            bits(prog)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_linspace_bits(dtype):
    for a, b, n in RANGES:
        bits(lambda T: T.linspace(complex(a, b), complex(b, -a), n, dtype=getattr(T, dtype)))
        bits(lambda T: T.linspace(a, complex(b, 1), n, dtype=getattr(T, dtype)))
        bits(lambda T: T.linspace(a, b, n, dtype=getattr(T, dtype)))
    bits(lambda T: T.linspace(1j, 2 + 3j, 5))
    bits(lambda T: T.linspace(T.tensor(1j), 2, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"] + INT_DTYPES)
def test_logspace_bits(dtype):
    # the exponent in double from start and end in the dtype; the C library's pow
    for a, b, n in RANGES:
        a, b = (a / 30, b / 30) if "int" not in dtype else (round(a / 10), round(b / 10))
        for base in (10.0, 2.0, 2.718281828459045, 0.5, 3):
            bits(lambda T: T.logspace(a, b, n, base, dtype=getattr(T, dtype)))
    bits(lambda T: T.logspace(0, 3, 7, base=-2.0, dtype=getattr(T, dtype)))
    bits(lambda T: T.logspace(1.5, 2.5, 1, dtype=getattr(T, dtype)))
    bits(lambda T: T.logspace(0.5, 2.7, 4, dtype=getattr(T, dtype)))
    bits(lambda T: T.logspace(T.tensor(1.), T.tensor(2.), 5, dtype=getattr(T, dtype)))


def test_complex_logspace():
    # std::pow of complex<float> is the C library's cpow: within an ulp
    for a, b, n in RANGES[:20]:
        a, b = a / 50, b / 50
        same(lambda T: T.logspace(complex(a, b), complex(b, a), n), atol=1e-5, rtol=2e-6)
        same(lambda T: T.logspace(a, complex(b, 1), n, dtype=T.complex128), atol=1e-12,
             rtol=1e-13)
    same(lambda T: T.logspace(1, 2, 3, dtype=T.complex64), rtol=2e-7)
    same(lambda T: T.logspace(0, 3j, 5, base=2), rtol=2e-7)
    same(lambda T: T.logspace(2j, 3, 1, dtype=T.complex128))


def test_spaced_dtypes_and_errors():
    for name in ("linspace", "logspace"):
        same(lambda T: getattr(T, name)(True, 2, 3))
        same(lambda T: getattr(T, name)(1, 2, 3))
        same(lambda T: getattr(T, name)(1j, 2 + 3j, 3), rtol=2e-7)
        for prog in [lambda T: getattr(T, name)(1j, 2, 3, dtype=T.float64),
                     lambda T: getattr(T, name)(1j, 2, 3, dtype=T.int32),
                     lambda T: getattr(T, name)(1j, 2, 3, out=T.empty(3)),
                     lambda T: getattr(T, name)(1, 2, 3, dtype=T.bool),
                     lambda T: getattr(T, name)(0, 1e300, 5, dtype=T.float32),
                     lambda T: getattr(T, name)(0, 1e10, 5, dtype=T.float16),
                     lambda T: getattr(T, name)(-256, 5, 7, dtype=T.uint8),
                     lambda T: getattr(T, name)(T.tensor([1.]), 2, 5),
                     lambda T: getattr(T, name)(1, T.tensor([2.]), 5),
                     lambda T: getattr(T, name)(T.tensor([1.]), T.tensor(2.), 5)]:
            same_error(prog)
    bits(lambda T: T.logspace(0, 1e10, 5, dtype=T.bfloat16))
    bits(lambda T: T.logspace(0, 2 ** 40, 5, dtype=T.int64))
    bits(lambda T: T.logspace(1e300, 0, 1, dtype=T.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chainrule.logspace(float("inf"), 1, 3)
        chainrule.logspace(0, 3, 7, base=-2.0)


@pytest.mark.parametrize("call", [
    lambda T: T.zeros(size=(2, 3)), lambda T: T.ones(size=(1,)), lambda T: T.empty(size=(2,)).shape,
    lambda T: T.rand(size=[2]).shape, lambda T: T.randn(size=(2,)).shape,
    lambda T: T.ones(2).new_zeros(size=(3,)), lambda T: T.ones(2).new_ones(size=[4]),
    lambda T: T.ones(2).new_empty(size=()).shape])
def test_factories_take_size_as_keyword(call):
    same(call)


@pytest.mark.parametrize("call", [lambda T: T.zeros(2, size=(3,)), lambda T: T.zeros(),
                                  lambda T: T.ones(2).new_zeros()])
def test_factory_size_errors(call):
    same_error(call)
