"""chainrule._tensor_str must reproduce ``repr(torch_tensor)`` character for character."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from chainrule import _tensor_str as ts

nan, inf = math.nan, math.inf


@pytest.fixture(autouse=True)
def _default_options():
    yield
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def set_both(**opts):
    torch.set_printoptions(**opts)
    ts.set_printoptions(**opts)


def ours(t):
    """format_tensor for a torch tensor, with the facts taken from the tensor."""
    default = torch.get_default_dtype()
    default_complex = torch.complex128 if default == torch.float64 else torch.complex64
    if t.grad_fn is not None:
        suffixes = (f"grad_fn=<{type(t.grad_fn).__name__}>",)
    elif t.requires_grad:
        suffixes = ("requires_grad=True",)
    else:
        suffixes = ()
    return ts.format_tensor(t.detach().numpy(), dtype_name=str(t.dtype),
                            is_default_dtype=t.dtype in (default, default_complex),
                            suffixes=suffixes)


def with_grad(t, grad):
    """``t`` as a leaf requiring grad ('leaf') or as the output of a multiplication ('fn')."""
    if grad is None or not (t.dtype.is_floating_point or t.dtype.is_complex):
        return t
    t = t.requires_grad_()
    return t * 2 if grad == "fn" else t


def check(a, grad=None, **opts):
    set_both(**opts)
    t = with_grad(torch.from_numpy(np.array(a, copy=True)), grad)
    assert ours(t) == repr(t)


A = np.array
rng = np.random.default_rng(0)
CASES = [
    # 0-d
    A(3.5, np.float32), A(-0.0), A(7), A(True), A(1 + 2j), A(-0.0 - 0.0j, np.complex64), A(nan),
    A(1e20, np.float32), A(np.int8(-5)),
    # integers and bool
    A([1, -2, 300]), A([[1, -100], [3, 4]], np.int8), A([0, 255], np.uint8),
    A([np.iinfo(np.int64).min, np.iinfo(np.int64).max]), A([7], np.int16), A([1, 2], np.int32),
    A([True, False]), A([[True], [True]]),
    # floats: integer-valued, fixed, scientific, special values
    A([1.0, 2.0], np.float32), A([1.0, 2.0]), A([1.0, -2.0], np.float16), A([0.0, 0.0]),
    A([0.0, -0.0]), A([nan, inf, -inf]), A([nan, 1.5], np.float32), A([inf, 3.0]),
    A([3.7183, 0.1235], np.float32), A([9.99996, 99.99996]), A([0.99995, -0.99996]),
    A([1e-5, 1e8, 123456789.0]), A([123456789.0], np.float32), A([1e-10, 1.0]),
    A([1e300, 5e-324]), A([1e-300, -1e300, 1.0]), A([65504.0, -65504.0, 1e-7], np.float16),
    A([[1.5, -2.25], [1e-3, 4.0]]), A([0.5, nan, -0.0, 1e-4]),
    # complex
    A([1 + 2j, -3.5 - 0.25j], np.complex64), A([1e-8 + 1j, 2 - 1e9j]), A([nan + 1j, 0j, -0.0 - 2j]),
    # 1-D .. 4-D, long rows wrapping at linewidth 80
    np.linspace(-1, 1, 50), np.arange(40.0).reshape(2, 20) * 1.5, np.arange(24).reshape(2, 3, 4),
    np.ones((2, 3, 4, 5), np.float32), rng.standard_normal((3, 4)), rng.standard_normal((2, 2, 30)),
    (rng.standard_normal(30) * 1e6).astype(np.complex64),
    # empty
    np.zeros(0), np.zeros(0, np.float32), np.zeros((2, 0), np.int64), np.zeros((0, 3), np.float32),
    np.zeros((0, 0, 0), bool), np.zeros(0, np.complex64), np.zeros((1, 0, 2), np.float16),
    # summarized (> 1000 elements)
    np.arange(2000), np.arange(1001, dtype=np.float32) / 7, np.arange(10000.0).reshape(100, 100),
    np.arange(24000.0).reshape(20, 30, 40) - 5000, np.arange(6000).reshape(2, 3, 2, 500),
    (np.arange(1500) / 7).astype(np.complex128), rng.standard_normal((1000, 3)) * 1e-6,
]


@pytest.mark.parametrize("a", CASES, ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("grad", [None, "leaf", "fn"])
def test_matches_torch(a, grad):
    check(a, grad)


@pytest.mark.parametrize("a", CASES[::3], ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("opts", [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(sci_mode=True),
    dict(sci_mode=False), dict(profile="full"), dict(profile="short"), dict(linewidth=30),
    dict(linewidth=0), dict(threshold=5), dict(threshold=5, edgeitems=0), dict(edgeitems=0),
    dict(threshold=0), dict(edgeitems=1, linewidth=50),
], ids=repr)
def test_print_options(a, opts):
    check(a, "fn", **opts)


def test_default_dtype_float64():
    torch.set_default_dtype(torch.float64)
    for a in [np.zeros(0), np.zeros((0, 2), np.float32), np.zeros(0, np.complex128),
              A([1.0, 2.5]), A([1.0, 2.5], np.float32), A([1j]), A([1j], np.complex64)]:
        check(a)
        check(a, "leaf")


def test_suffixes_wrap():
    t = torch.arange(16.0, dtype=torch.float64).reshape(2, 8).requires_grad_() * 1.5
    assert ours(t) == repr(t)
    assert ts.format_tensor(np.arange(3.0), dtype_name="torch.float64", is_default_dtype=False,
                            suffixes=("requires_grad=True",)) == \
        "tensor([0., 1., 2.], dtype=torch.float64, requires_grad=True)"


def test_options_api():
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    with ts.printoptions(precision=2, sci_mode=True):
        assert ts.get_printoptions()["precision"] == 2
        assert ts.format_tensor(A([1.0, 2.0]), dtype_name="torch.float64",
                                is_default_dtype=True) == "tensor([1.00e+00, 2.00e+00])"
    assert ts.get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3, linewidth=80,
                                         sci_mode=None)
    ts.set_printoptions(profile="full")
    assert ts.get_printoptions()["threshold"] == inf


DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128,
          np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]
SPECIAL = [0.0, -0.0, nan, inf, -inf, 1e-5, 1e8, 123456789.0, 3.7183, 0.1235, 1e-10, 9.99996]


@st.composite
def floats64(draw, shape):
    """float64 data in one style: integer-valued, one magnitude, or anything."""
    style = draw(st.sampled_from(["int", "scaled", "wild"]))
    if style == "int":
        values = st.integers(-10**6, 10**6).map(float)
    elif style == "scaled":
        scale = 10.0 ** draw(st.integers(-12, 12))
        values = st.floats(-10, 10).map(lambda x: x * scale)
    else:
        values = st.floats()
    if draw(st.booleans()):
        values = values | st.sampled_from(SPECIAL)
    return draw(hnp.arrays(np.float64, shape, elements=values))


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    if dtype.kind in "iub":
        return draw(hnp.arrays(dtype, shape))
    a = draw(floats64(shape))
    if dtype.kind == "c":
        a = a.astype(np.complex128)
        a.imag = draw(floats64(shape))  # assigned, as 1j * inf would turn the real part into nan
    with np.errstate(over="ignore"):
        return a.astype(dtype)


options = st.fixed_dictionaries({}, optional=dict(
    precision=st.integers(0, 8), sci_mode=st.sampled_from([None, True, False]),
    linewidth=st.integers(0, 140), edgeitems=st.integers(0, 4),
    threshold=st.sampled_from([0, 10, 100, 1000, inf]),
    profile=st.sampled_from(["default", "short", "full"])))


@settings(max_examples=150, deadline=None)
@given(a=arrays(), grad=st.sampled_from([None, "leaf", "fn"]), opts=options)
def test_random_matches_torch(a, grad, opts):
    try:
        check(a, grad, **opts)
    finally:
        set_both(profile="default")
