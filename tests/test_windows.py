"""Window functions against PyTorch: torch.bartlett/blackman/hamming/hann/kaiser_window (the C++
factories: arange, then in-place ops in the window's dtype) and torch.signal.windows (built
from linspace and pointwise ops): values, dtypes, requires_grad, nodes and errors.

Bit for bit wherever the window's steps are arithmetic (bartlett; every window in float16 and
bfloat16, whose rounding the arithmetic decides). Where a step is a transcendental function
(cos, sin, exp, sqrt, i0), chainrule's op of that name decides the last bit: float32 cos and
exp are NumPy's kernels, float64 i0 calls NumPy's exp where PyTorch's calls glibc's, and
PyTorch's float64 sqrt is not always correctly rounded (sqrt(128.) is 1 ulp below NumPy's),
so those windows are compared within a few ulp (of the cosine terms, for sums of cosines)."""
import numpy as np
import pytest
import torch

import chainrule
import chainrule.signal.windows
from helpers import same, same_error


def raw(t):
    if t.dtype in (torch.bfloat16, chainrule.bfloat16):
        t = t.float()
    a = t.detach().numpy()
    return str(t.dtype), a.shape, a


def ulps(a, b, floor=0.0):
    """The largest distance between two float arrays in units in the last place of the
    larger value (of `floor`, for values below it: sums of cosines that cancel are accurate
    to the ulps of their terms)."""
    if a.size == 0:
        return 0
    both_nan = np.isnan(a) & np.isnan(b)
    a, b = np.where(both_nan, 0, a), np.where(both_nan, 0, b)
    spacing = np.spacing(np.maximum(np.maximum(np.abs(a), np.abs(b)), floor).astype(a.dtype))
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)) / spacing))


def close(prog, max_ulps=0, floor=0.0):
    ours, theirs = prog(chainrule), prog(torch)
    (d1, s1, a), (d2, s2, b) = raw(ours), raw(theirs)
    assert (d1, s1) == (d2, s2)
    assert ours.requires_grad == theirs.requires_grad
    assert ulps(a, b, floor) <= max_ulps, (a, b)


LENGTHS = list(range(0, 34)) + [100, 255, 256, 1000, 1001, 4096]
NATIVE = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", NATIVE)
def test_native_reduced_bits(name, dtype):
    for n in LENGTHS:
        for periodic in (True, False):
            close(lambda T: getattr(T, name)(n, periodic, dtype=getattr(T, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bartlett_bits(dtype):
    for n in LENGTHS:
        for periodic in (True, False):
            close(lambda T: T.bartlett_window(n, periodic, dtype=getattr(T, dtype)))
    close(lambda T: T.bartlett_window(7))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["blackman_window", "hamming_window", "hann_window"])
def test_cosine_windows(name, dtype):
    # cos decides the last bit (module docstring)
    for n in LENGTHS:
        for periodic in (True, False):
            close(lambda T: getattr(T, name)(n, periodic, dtype=getattr(T, dtype)), 2, 0.5)
    close(lambda T: T.hann_window(5, dtype=getattr(T, dtype)), 1, 0.5)


def test_hamming_and_kaiser_parameters():
    for alpha, beta in [(0.5, 0.5), (0.54, 0.46), (3.0, -2.0), (0.0, 1.0)]:
        close(lambda T: T.hamming_window(33, False, alpha, beta), 2, 0.5)
        close(lambda T: T.hamming_window(32, True, alpha), 2, 0.5)
        close(lambda T: T.hamming_window(32, True, alpha, beta, dtype=T.float16))
        close(lambda T: T.hamming_window(32, periodic=True, alpha=alpha, beta=beta), 2, 0.5)
    for beta in [0.0, 0.5, 3.0, 12.0, 40.0]:
        for n in [2, 3, 10, 101, 1000]:
            for periodic in (True, False):
                close(lambda T: T.kaiser_window(n, periodic, beta), 4)
                close(lambda T: T.kaiser_window(n, periodic, beta, dtype=T.float64), 4)
                close(lambda T: T.kaiser_window(n, periodic, beta, dtype=T.float16))
                close(lambda T: T.kaiser_window(n, periodic, beta, dtype=T.bfloat16))
    # beta large enough for I0 to overflow float: inf / inf
    close(lambda T: T.kaiser_window(5, False, 100.0))
    close(lambda T: T.kaiser_window(6, True, float("nan")))


def test_native_options_and_nodes():
    for name in NATIVE:
        same(lambda T: getattr(T, name)(6, requires_grad=True))
        same(lambda T: getattr(T, name)(0, dtype=T.float64, requires_grad=True))
        same(lambda T: getattr(T, name)(1, False, requires_grad=True))
        same(lambda T: getattr(T, name)(4, layout=T.strided, device="cpu"))
        same(lambda T: getattr(T, name)(np.int64(4)))
        same(lambda T: getattr(T, name)(T.tensor(4)))
    chainrule.set_default_dtype(chainrule.float64)
    torch.set_default_dtype(torch.float64)
    try:
        same(lambda T: T.hann_window(8))
        same_error(lambda T: T.hann_window(8, layout=T.sparse_coo))
        same_error(lambda T: T.hamming_window(8, layout=T.sparse_coo))
    finally:
        chainrule.set_default_dtype(chainrule.float32)
        torch.set_default_dtype(torch.float32)


def test_native_errors():
    for name in NATIVE:
        for prog in [lambda T: getattr(T, name)(-1),
                     lambda T: getattr(T, name)(5, dtype=T.int64),
                     lambda T: getattr(T, name)(0, dtype=T.bool),
                     lambda T: getattr(T, name)(-1, dtype=T.int32),
                     lambda T: getattr(T, name)(5, dtype=T.uint16, layout=T.strided),
                     lambda T: getattr(T, name)(5, dtype=T.int8, pin_memory=False),
                     lambda T: getattr(T, name)(5, dtype=T.complex64),
                     lambda T: getattr(T, name)(5, dtype=T.float8_e4m3fn),
                     lambda T: getattr(T, name)(5, layout=T.sparse_coo),
                     lambda T: getattr(T, name)(5, layout=T.sparse_coo, dtype=T.int64),
                     lambda T: getattr(T, name)(5.0),
                     lambda T: getattr(T, name)(True),
                     lambda T: getattr(T, name)(),
                     lambda T: getattr(T, name)(5, 1),
                     lambda T: getattr(T, name)(5, periodic=None),
                     lambda T: getattr(T, name)(5, device="cuda")]:
            same_error(prog)
    for prog in [lambda T: T.hamming_window(5, alpha=0.5),
                 lambda T: T.hamming_window(5, False, beta=2),
                 lambda T: T.hamming_window(5, False, "1"),
                 lambda T: T.kaiser_window(5, beta=3.0),
                 lambda T: T.kaiser_window(5, False, 1 + 2j),
                 lambda T: T.hann_window(5, False, 0.5),
                 lambda T: T.hann_window(5, dtype=T.float64, periodic=None),
                 lambda T: T.hann_window(5.0, dtype=T.float64),
                 lambda T: T.hann_window(5, out=T.empty(5))]:
        same_error(prog)


SIGNAL = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
          "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
# the ops whose last bit decides each window's (module docstring), float32 and float64
# (NumPy 2.4's float64 exp differs from PyTorch's in the last bit for some inputs, and its
# float32 one by up to 2 ulps; kaiser's i0 adds its own)
SIGNAL_ULPS = {"bartlett": (0, 0), "exponential": (2, 1), "gaussian": (2, 1),
               "kaiser": (17, 16), "cosine": (1, 1)}


def _args(name):
    return {"general_cosine": {"a": [0.3, 0.2, 0.5]}}.get(name, {})


@pytest.mark.parametrize("name", SIGNAL)
def test_signal_windows(name):
    for dtype, tolerance in zip(("float32", "float64"), SIGNAL_ULPS.get(name, (4, 2))):
        for n in list(range(0, 20)) + [64, 255, 1001]:
            for sym in (True, False):
                close(lambda T: getattr(T.signal.windows, name)(
                    n, sym=sym, dtype=getattr(T, dtype), **_args(name)), tolerance,
                    0.5 if name not in SIGNAL_ULPS else 0.0)
    same(lambda T: getattr(T.signal.windows, name)(9, requires_grad=True, **_args(name)),
         atol=1e-5, rtol=1e-5)
    same(lambda T: getattr(T.signal.windows, name)(1, requires_grad=True, **_args(name)))
    same(lambda T: getattr(T.signal.windows, name)(0, dtype=T.float64, **_args(name)))


def test_signal_window_parameters():
    W = "signal"
    for center, tau in [(None, 1.0), (2.0, 0.5), (-3.0, 3.0)]:
        close(lambda T: getattr(T, W).windows.exponential(11, center=center, tau=tau,
                                                          sym=center is None), 2)
    for std in [0.3, 1.0, 7.0]:
        close(lambda T: T.signal.windows.gaussian(12, std=std, sym=False, dtype=T.float64), 1)
    for beta in [0.0, 2.0, 12.0]:
        close(lambda T: T.signal.windows.kaiser(12, beta=beta, sym=False), 16)
    close(lambda T: T.signal.windows.general_hamming(10, alpha=0.3, dtype=T.float64), 2, 0.5)
    close(lambda T: T.signal.windows.general_cosine(10, a=(1.0,), dtype=T.float64), 2, 0.5)
    close(lambda T: T.signal.windows.general_cosine(10, a=T.tensor([0.5, 0.5]).tolist()), 2,
          0.5)
    # gradients flow to the coefficients' tensor and the positions (leaves inside)
    same(lambda T: T.signal.windows.hann(6, requires_grad=True).grad_fn.next_functions,
         atol=1e-5)


def test_signal_window_errors():
    for name in SIGNAL:
        for prog in [lambda T: getattr(T.signal.windows, name)(-1, **_args(name)),
                     lambda T: getattr(T.signal.windows, name)(5, dtype=T.float16,
                                                               **_args(name)),
                     lambda T: getattr(T.signal.windows, name)(5, dtype=T.int64, **_args(name)),
                     lambda T: getattr(T.signal.windows, name)(5, layout=T.sparse_coo,
                                                               **_args(name))]:
            same_error(prog)
    for prog in [lambda T: T.signal.windows.exponential(5, tau=0),
                 lambda T: T.signal.windows.exponential(5, center=1.0),
                 lambda T: T.signal.windows.gaussian(5, std=-1.0),
                 lambda T: T.signal.windows.kaiser(5, beta=-1.0),
                 lambda T: T.signal.windows.general_cosine(5, a=[]),
                 lambda T: T.signal.windows.general_cosine(5, a=3),
                 lambda T: T.signal.windows.general_cosine(5)]:
        same_error(prog)


def test_signal_namespace():
    assert chainrule.signal.windows.__all__ == torch.signal.windows.__all__
    import chainrule.signal.windows.windows as ours
    import torch.signal.windows.windows as theirs
    assert ours.__all__ == theirs.__all__


def test_window_names():
    # every window by name, on both libraries
    for T in (chainrule, torch):
        windows = [T.bartlett_window(4), T.blackman_window(4), T.hamming_window(4),
                   T.hann_window(4), T.kaiser_window(4), T.signal.windows.bartlett(4),
                   T.signal.windows.blackman(4), T.signal.windows.cosine(4),
                   T.signal.windows.exponential(4), T.signal.windows.gaussian(4),
                   T.signal.windows.general_cosine(4, a=[1.0]),
                   T.signal.windows.general_hamming(4), T.signal.windows.hamming(4),
                   T.signal.windows.hann(4), T.signal.windows.kaiser(4),
                   T.signal.windows.nuttall(4)]
        assert [tuple(w.shape) for w in windows] == [(4,)] * 16
