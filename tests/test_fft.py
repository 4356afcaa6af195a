"""torch.fft, stft and istft against PyTorch: every transform's values, dtypes, graph (node
names all the way to the leaves), gradients and second derivatives over n/s, dim and norm;
dtype promotion and its errors (integers, bool, float16, bfloat16, complex32, float8);
argument and shape errors; out= (checks, casts, resizing, the refusal with requires-grad
tensors, ihfftn's swapped conj_physical_out); fftfreq/rfftfreq and the shifts; stft/istft
options, errors and once-per-process warnings; float32 accuracy; NumPy 1's fallback path."""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.ops import spectral

from helpers import same, same_error, warnings_of

T = chainrule

# Every transform, by attribute (the name reaches a test statically).
ONE_D = {
    "fft": lambda L: L.fft.fft, "ifft": lambda L: L.fft.ifft,
    "rfft": lambda L: L.fft.rfft, "irfft": lambda L: L.fft.irfft,
    "hfft": lambda L: L.fft.hfft, "ihfft": lambda L: L.fft.ihfft,
}
N_D = {
    "fft2": lambda L: L.fft.fft2, "ifft2": lambda L: L.fft.ifft2,
    "fftn": lambda L: L.fft.fftn, "ifftn": lambda L: L.fft.ifftn,
    "rfft2": lambda L: L.fft.rfft2, "irfft2": lambda L: L.fft.irfft2,
    "rfftn": lambda L: L.fft.rfftn, "irfftn": lambda L: L.fft.irfftn,
    "hfft2": lambda L: L.fft.hfft2, "ihfft2": lambda L: L.fft.ihfft2,
    "hfftn": lambda L: L.fft.hfftn, "ihfftn": lambda L: L.fft.ihfftn,
}
ALL = {**ONE_D, **N_D}
REAL_INPUT_ONLY = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}


def graph(t):
    """The graph behind t: (node, [next nodes]) depth first, AccumulateGrad included."""
    out, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nexts = [n for n, _ in node.next_functions]
        out.append((node.name(), [None if n is None else n.name() for n in nexts]))
        stack.extend(reversed(nexts))
    return out


def value(t):
    """t's values without its history (PyTorch's lazy conjugate resolved)."""
    return t.detach().resolve_conj()


def result(t):
    return value(t), t.requires_grad, graph(t)


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def same_or_error(prog, **tolerances):
    """`same` where PyTorch runs prog, `same_error` where it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prog(torch)
    except Exception:      # noqa: BLE001  (the error itself is compared)
        return same_error(prog)
    return same(prog, **tolerances)


def _hann(L, n, periodic=False):
    """A Hann window, float64: without its zero ends (positive everywhere), or periodic as
    torch.hann_window's (zero at its first sample)."""
    return L.tensor(np.hanning(n + 1)[:n] if periodic else np.hanning(n + 2)[1:-1])


def _grads(L, y, inputs, seed=1):
    """Gradients of a fixed real-valued function of y (its real and imaginary parts squared
    and weighted), and the gradient of their squared norm: second derivatives through the
    transforms' backward formulas."""
    w = L.tensor(np.random.default_rng(seed).standard_normal(tuple(y.shape) + (2,))
                 .astype(np.float64))
    parts = L.view_as_real(y * 1) if y.is_complex() else L.stack([y, y * 0.5], -1)
    loss = (parts * parts * w.to(parts.dtype)).sum()
    first = L.autograd.grad(loss, inputs, create_graph=True)
    second = L.autograd.grad(sum(((g * g.conj()).real if g.is_complex() else g * g).sum()
                                 for g in first), inputs, allow_unused=True)
    return [value(g) for g in first], [None if g is None else value(g) for g in second]


def _transform(name, kw, dtype, shape):
    def prog(L):
        x = L.tensor(_data(shape, dtype), requires_grad=np.dtype(dtype).kind in "fc")
        y = ALL[name](L)(x, **kw)
        if not x.requires_grad:
            return result(y)
        return result(y), _grads(L, y, [x])
    return prog


# ---- values, dtypes, graphs and gradients to second order ----------------------------------

ONE_D_KW = [{}, {"n": 3}, {"n": 9}, {"n": 8, "dim": 0}, {"n": 1}, {"dim": -2, "norm": "ortho"},
            {"norm": "forward"}, {"norm": "backward"}]
ONE_D_CASES = [(name, kw, dtype) for name in ONE_D for kw in ONE_D_KW
               for dtype in ("float64", "complex128") if not (
                   name in REAL_INPUT_ONLY and dtype == "complex128")]


@pytest.mark.parametrize("name,kw,dtype", ONE_D_CASES, ids=str)
def test_one_dimensional(name, kw, dtype):
    same_or_error(_transform(name, kw, dtype, (4, 6)), atol=1e-10, rtol=1e-10)


ND_KW = [{}, {"s": (3, 5)}, {"s": (5, 8)}, {"dim": (0,)}, {"dim": (2, 0), "norm": "ortho"},
         {"s": (-1, 4), "dim": (0, -1)}, {"norm": "forward"}, {"s": [4]}, {"dim": 1},
         {"s": 7}]
ND_CASES = [(name, kw, dtype) for name in N_D for kw in ND_KW
            for dtype in ("float64", "complex128") if not (
                name in REAL_INPUT_ONLY and dtype == "complex128")]


@pytest.mark.parametrize("name,kw,dtype", ND_CASES, ids=str)
def test_n_dimensional(name, kw, dtype):
    same_or_error(_transform(name, kw, dtype, (3, 4, 6)), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("name", list(ALL))
def test_non_contiguous_and_batched(name):
    def prog(L):
        x = L.tensor(_data((6, 5, 4), "float64"), requires_grad=True)
        y = ALL[name](L)(x.transpose(0, 2)[:, 1:, ::2])
        return result(y), _grads(L, y, [x])
    same(prog, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "fft2"])
def test_no_dims_to_transform(name):
    # fftn over no dims still makes the input complex and records a C2C node
    def prog(L):
        x = L.tensor(_data((3, 4), "float64"), requires_grad=True)
        out = [result(ALL[name](L)(x, dim=[])), result(ALL[name](L)(x, s=[]))]
        if name != "fft2":
            out.append(result(ALL[name](L)(L.tensor(2.5))))
        return out
    same_or_error(prog)


def test_kernels_directly():
    def prog(L):
        x = L.tensor(_data((3, 4), "float64"), requires_grad=True)
        z = L.tensor(_data((3, 4), "complex128"), requires_grad=True)
        outs = [L._fft_r2c(x, [1, 0], 1, True), L._fft_r2c(x, [0], 2, False),
                L._fft_c2c(z, [0, 1], 0, False), L._fft_c2r(z, [1, 0], 2, 5),
                L._fft_c2r(z, [1], 0, 6)]
        return [result(y) for y in outs], [_grads(L, y, [x if y.grad_fn.name() ==
                                                         "FftR2CBackward0" else z])
                                            for y in outs]
    same(prog, atol=1e-10, rtol=1e-10)


def test_conjugate_of_the_gradient():
    # a complex input's gradient is the conjugate Wirtinger derivative, as PyTorch's
    def prog(L):
        z = L.tensor(_data((5,), "complex128"), requires_grad=True)
        y = L.fft.fft(z, norm="ortho")
        (y.abs() ** 2 * L.arange(5.)).sum().backward()
        return value(z.grad)
    same(prog, atol=1e-12, rtol=1e-12)


def test_round_trips():
    def prog(L):
        x = L.tensor(_data((4, 7), "float64"))
        return (value(L.fft.ifft(L.fft.fft(x))), value(L.fft.irfft(L.fft.rfft(x), n=7)),
                value(L.fft.ihfft(L.fft.hfft(L.fft.ihfft(x), n=7))),
                value(L.fft.irfftn(L.fft.rfftn(x), s=(4, 7))))
    ours, _ = same(prog, atol=1e-12, rtol=1e-12)
    x = _data((4, 7), "float64")
    np.testing.assert_allclose(ours[1].numpy(), x, atol=1e-12)


# ---- dtypes -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool", "float32", "complex64",
                                   "uint16"])
@pytest.mark.parametrize("name", list(ALL))
def test_dtype_promotion(name, dtype):
    def prog(L):
        x = L.tensor(np.abs(_data((4, 6), "float64")) * 3).to(getattr(L, dtype))
        return value(ALL[name](L)(x))
    if name in REAL_INPUT_ONLY and dtype == "complex64":
        same_error(lambda L: ALL[name](L)(L.ones(4, 6, dtype=L.complex64)))
    else:
        same(prog, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", ["fft", "irfft", "fftn", "rfft2"])
def test_default_dtype_float64(name):
    def prog(L):
        L.set_default_dtype(L.float64)
        try:
            return value(ALL[name](L)(L.arange(12).view(3, 4)))
        finally:
            L.set_default_dtype(L.float32)
    same(prog, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex32", "float8_e5m2"])
@pytest.mark.parametrize("name", list(ALL))
def test_dtypes_without_kernels(name, dtype):
    def prog(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # complex32's "experimental" warning
            x = L.ones(4, 4, dtype=getattr(L, dtype))
        return ALL[name](L)(x)
    same_error(prog)


# ---- errors -------------------------------------------------------------------------------

ERRORS = {
    "n 0": lambda L, x, z: L.fft.fft(x, n=0),
    "n -3": lambda L, x, z: L.fft.rfft(x, n=-3),
    "irfft n 0 by default": lambda L, x, z: L.fft.irfft(z[:, :1]),
    "dim out of range": lambda L, x, z: L.fft.fft(x, dim=2),
    "0-d": lambda L, x, z: L.fft.fft(L.tensor(1.0)),
    "0-d ihfft": lambda L, x, z: L.fft.ihfft(L.tensor(1.0)),
    "empty signal": lambda L, x, z: L.fft.fft(L.empty(4, 0)),
    "empty batch": lambda L, x, z: L.fft.fft(L.empty(0, 4)),
    "empty batch rfft": lambda L, x, z: L.fft.rfft(L.empty(0, 4)),
    "empty batch irfft": lambda L, x, z: L.fft.irfft(L.empty(0, 3, dtype=L.complex64)),
    "empty nd": lambda L, x, z: L.fft.rfft2(L.empty(2, 0, 4)),
    "bad norm": lambda L, x, z: L.fft.fft(x, norm="bad"),
    "bad norm nd": lambda L, x, z: L.fft.hfftn(z, norm="Ortho"),
    "norm not str": lambda L, x, z: L.fft.fft(x, norm=3),
    "n float": lambda L, x, z: L.fft.fft(x, n=3.5),
    "n bool": lambda L, x, z: L.fft.ifft(x, n=True),
    "dim tuple": lambda L, x, z: L.fft.fft(x, dim=(0,)),
    "dim None": lambda L, x, z: L.fft.fft(x, dim=None),
    "input list": lambda L, x, z: L.fft.fft([1.0, 2.0]),
    "input list nd": lambda L, x, z: L.fft.rfftn([1.0, 2.0]),
    "s float": lambda L, x, z: L.fft.fftn(x, s=2.5),
    "s tuple of floats": lambda L, x, z: L.fft.fftn(x, s=(2.5, 3)),
    "s with None": lambda L, x, z: L.fft.fftn(x, s=[3, None]),
    "dim str": lambda L, x, z: L.fft.fftn(x, dim="a"),
    "s too long": lambda L, x, z: L.fft.fftn(x, s=(2, 3, 4)),
    "s and dim lengths": lambda L, x, z: L.fft.fftn(x, s=(2, 3), dim=(0,)),
    "dims repeated": lambda L, x, z: L.fft.fftn(x, dim=(0, -2)),
    "s 0": lambda L, x, z: L.fft.ifftn(x, s=(0, 3)),
    "s -2": lambda L, x, z: L.fft.fftn(x, s=(-2, 3)),
    "fft2 of 1-d": lambda L, x, z: L.fft.fft2(x[0]),
    "fftn dim out of range": lambda L, x, z: L.fft.fftn(x, dim=3),
    "0-d with dim": lambda L, x, z: L.fft.fftn(L.tensor(1.0), dim=0),
    "rfftn no axis": lambda L, x, z: L.fft.rfftn(L.tensor(1.0)),
    "irfftn no axis": lambda L, x, z: L.fft.irfftn(x, dim=[]),
    "hfftn no axis": lambda L, x, z: L.fft.hfftn(x, dim=[]),
    "ihfftn no axis": lambda L, x, z: L.fft.ihfftn(x, s=[]),
    "irfftn last size 1": lambda L, x, z: L.fft.irfftn(z[:, :1]),
    "rfft of complex": lambda L, x, z: L.fft.rfft(z),
    "ihfft of complex": lambda L, x, z: L.fft.ihfft(z),
    "rfftn of complex": lambda L, x, z: L.fft.rfftn(z),
    "rfft2 of complex": lambda L, x, z: L.fft.rfft2(z),
    "ihfftn of complex": lambda L, x, z: L.fft.ihfftn(z),
    "ihfft2 of complex": lambda L, x, z: L.fft.ihfft2(z),
    "half before dim": lambda L, x, z: L.fft.irfft(x.half(), dim=7),
    "dim before half": lambda L, x, z: L.fft.rfftn(x.half(), dim=[7]),
    "norm before kernel": lambda L, x, z: L.fft.fft(z.to(L.complex32), norm="bad"),
    "kernel c2c of real": lambda L, x, z: L._fft_c2c(x, [1], 0, True),
    "kernel c2r of real": lambda L, x, z: L._fft_c2r(x, [1], 0, 8),
    "kernel r2c of complex": lambda L, x, z: L._fft_r2c(z, [1], 0, True),
    "kernel r2c of int": lambda L, x, z: L._fft_r2c(x.int(), [1], 0, True),
    "kernel r2c of half": lambda L, x, z: L._fft_r2c(x.half(), [1], 0, True),
}


@pytest.mark.parametrize("prog", ERRORS.values(), ids=ERRORS.keys())
def test_errors(prog):
    def call(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return prog(L, L.tensor(_data((4, 6), "float64")),
                        L.tensor(_data((4, 6), "complex128")))
    same_error(call)


def test_namespace():
    assert chainrule.fft.__all__ == torch.fft.__all__
    assert chainrule.fft.Tensor is chainrule.Tensor
    assert chainrule.functional.stft is chainrule.stft
    assert chainrule.functional.istft is chainrule.istft
    assert {"stft", "istft"} <= set(chainrule.functional.__all__)
    for name in dir(torch.fft):
        if not name.startswith("_") and callable(getattr(torch.fft, name)):
            assert callable(getattr(chainrule.fft, name)), name


# ---- out= ---------------------------------------------------------------------------------

OUT_DTYPES = ["float64", "complex64", "complex128", "int64", "float16"]
OUT_CASES = [(name, dtype, out_dtype) for name in ALL
             for dtype in ("float64", "complex128") for out_dtype in OUT_DTYPES
             if not (name in REAL_INPUT_ONLY and dtype == "complex128")] + [
    (name, "float32", out_dtype) for name in ("fft", "ifft", "irfft", "hfftn", "ihfft2")
    for out_dtype in ("float32", "complex64", "complex128")]


def _with_out(name, dtype, out_dtype, shape, requires_grad=False, **kw):
    def prog(L):
        x = L.tensor(_data((4, 6), dtype), requires_grad=requires_grad)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ref = ALL[name](L)(x.detach(), **kw)
            out = L.empty(ref.shape if shape is None else shape,
                          dtype=getattr(L, out_dtype))
            version = out._version
            r = ALL[name](L)(x, out=out, **kw)
        return (r is out, value(out), out.requires_grad, out._version > version,
                [str(w.message).split(" (Triggered")[0] for w in caught])
    return prog


@pytest.mark.parametrize("name,dtype,out_dtype", OUT_CASES, ids=str)
def test_out(name, dtype, out_dtype):
    for shape in (None, (0,), (2, 2)):
        same_or_error(_with_out(name, dtype, out_dtype, shape), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", list(ALL))
def test_out_refuses_requires_grad(name):
    if name in ("ifft", "ihfft"):
        return      # their out= is conj_physical's: see the next test
    same_error(_with_out(name, "float64", "complex128" if name in (
        "fft", "rfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "ihfft2",
        "ihfftn") else "float64", None, requires_grad=True))


@pytest.mark.parametrize("name", ["ifft", "ihfft"])
def test_out_of_a_conjugated_transform_records_not_implemented(name):
    # ATen writes conj_physical's out=, which has no derivative: a NotImplemented node
    def prog(L):
        x = L.tensor(_data((4, 6), "float64"), requires_grad=True)
        out = L.empty(0, dtype=L.complex128)
        r = ALL[name](L)(x, out=out)
        return value(r), r.requires_grad, r.grad_fn.name()
    same(prog)


def test_out_under_no_grad_and_requires_grad_out():
    def prog(L):
        x = L.tensor(_data((4, 6), "complex128"), requires_grad=True)
        with L.no_grad():
            r = L.fft.fft(x, out=L.empty(0, dtype=L.complex128))
        return value(r), r.requires_grad
    same(prog)
    same_error(lambda L: L.fft.fft(L.tensor(_data((4, 6), "complex128")),
                                   out=L.empty(0, dtype=L.complex128, requires_grad=True)))


@pytest.mark.parametrize("out_dtype", ["complex128", "complex64", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (0,), (3,)])
def test_ihfftn_over_one_dim_swaps_conj_physical_out(out_dtype, shape):
    # PyTorch 2.13 writes out's conjugate into the transform and returns out unchanged
    def prog(L):
        out = L.ones(shape, dtype=getattr(L, out_dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = L.fft.ihfftn(L.tensor(_data((4, 6), "float64")), dim=[1], out=out)
        return r is out, value(out), [str(w.message).split(" (Triggered")[0] for w in caught]
    if out_dtype == "complex128":
        same(prog)
    else:
        same_error(prog)


def test_out_errors():
    x = lambda L: L.tensor(_data((4, 6), "float64"))   # noqa: E731
    same_error(lambda L: L.fft.fft(x(L), out=[L.empty(0)]))
    same_error(lambda L: L.fft.rfftn(x(L), out=(L.empty(0),)))
    # which check comes first
    same_error(lambda L: L.fft.fft(x(L), norm="x", out=L.empty(0)))
    same_error(lambda L: L.fft.fftn(x(L), norm="x", out=L.empty(0)))
    same_error(lambda L: L.fft.rfft(x(L).to(L.complex128), out=L.empty(0)))
    same_error(lambda L: L.fft.irfft(x(L), dim=5, out=L.empty(0, dtype=L.long)))
    same_error(lambda L: L.fft.irfft(x(L).half(), out=L.empty(0, dtype=L.long)))


# ---- fftfreq, rfftfreq, fftshift, ifftshift -----------------------------------------------

FREQ = {"fftfreq": lambda L: L.fft.fftfreq, "rfftfreq": lambda L: L.fft.rfftfreq}


@pytest.mark.parametrize("dtype", [None, "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(FREQ))
def test_frequencies(name, dtype):
    def prog(L):
        kw = {} if dtype is None else {"dtype": getattr(L, dtype)}
        # NumPy has no bfloat16: compared as float32, which holds each value exactly
        return [(str(f.dtype), f.float()) for f in (
            FREQ[name](L)(n, d, **kw) for n in (0, 1, 2, 5, 6, 7, 300, 1001)
            for d in (1.0, 0.1, 0.3, 2, 0))]
    same(prog, atol=0, rtol=0)


def test_frequency_options_and_errors():
    for name in FREQ:
        f = FREQ[name]
        same(lambda L: f(L)(5, requires_grad=True))
        same(lambda L: f(L)(np.int64(5), np.float32(0.3)))
        same(lambda L: f(L)(5, L.tensor(0.5)))
        same(lambda L: (lambda o: (f(L)(5, 0.5, out=o), o))(L.empty(0, dtype=L.float64)))
        same(lambda L: f(L)(-1) if f(L) is L.fft.rfftfreq else None)
        same_error(lambda L: L.fft.fftfreq(-1))
        same_error(lambda L: f(L)(5, dtype=L.int32, requires_grad=True))
        same_error(lambda L: f(L)(5, dtype=L.complex64))
        same_error(lambda L: f(L)(5.0))
        same_error(lambda L: f(L)(5, "a"))
        same_error(lambda L: f(L)(5, 0.5, out=L.empty(5, dtype=L.int64)))
        same_error(lambda L: f(L)(5, 0.5, out=L.empty(5, dtype=L.complex64)))

    def resized(L):
        out = L.empty(3, dtype=L.float64)
        ws = warnings_of(lambda: L.fft.fftfreq(5, 0.5, out=out))
        return value(out), ws
    same(resized)


SHIFTS = {"fftshift": lambda L: L.fft.fftshift, "ifftshift": lambda L: L.fft.ifftshift}


@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": (0, 1)}, {"dim": (-1,)},
                                {"dim": (0, 0)}], ids=str)
@pytest.mark.parametrize("name", list(SHIFTS))
def test_shifts(name, kw):
    def prog(L):
        x = L.tensor(_data((4, 5), "float64"), requires_grad=True)
        y = SHIFTS[name](L)(x, **kw)
        (y * L.arange(20.).view(4, 5)).sum().backward()
        return result(y), value(x.grad), value(SHIFTS[name](L)(L.fft.fftfreq(6)))
    same(prog)


@pytest.mark.parametrize("name", list(SHIFTS))
def test_shift_errors(name):
    same_error(lambda L: SHIFTS[name](L)(L.ones(4, 5), dim=3))
    same_error(lambda L: SHIFTS[name](L)(L.ones(4, 5), dim=2.0))
    same_error(lambda L: SHIFTS[name](L)(L.tensor(1.0)))
    same_error(lambda L: SHIFTS[name](L)(L.tensor(1.0), dim=0))
    same_error(lambda L: SHIFTS[name](L)(L.ones(4, 5), dim=[]))


# ---- stft and istft -----------------------------------------------------------------------

STFT_KW = [
    {"return_complex": True}, {"return_complex": False}, {"hop_length": 3, "return_complex": True},
    {"win_length": 10, "return_complex": True}, {"center": False, "return_complex": True},
    {"pad_mode": "constant", "return_complex": True},
    {"pad_mode": "circular", "return_complex": True},
    {"pad_mode": "replicate", "return_complex": True},
    {"normalized": True, "return_complex": True}, {"onesided": False, "return_complex": True},
    {"center": False, "align_to_window": True, "win_length": 10, "return_complex": True},
    {"center": False, "align_to_window": False, "return_complex": True},
]


def _stft_case(kw, shape, dtype, window):
    def prog(L):
        x = L.tensor(_data(shape, dtype), requires_grad=True)
        w = None
        if window:
            n = kw.get("win_length", 16)
            w = _hann(L, n).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = L.stft(x, 16, window=w, **kw)
        inputs = [x] if w is None else [x, w]
        return result(y), _grads(L, y, inputs)
    return prog


@pytest.mark.parametrize("window", [True, False])
@pytest.mark.parametrize("shape,dtype", [((2, 40), "float64"), ((40,), "float64"),
                                         ((2, 40), "complex128")], ids=str)
@pytest.mark.parametrize("kw", STFT_KW, ids=str)
def test_stft(kw, shape, dtype, window):
    same_or_error(_stft_case(kw, shape, dtype, window), atol=1e-9, rtol=1e-9)


def test_stft_method_and_float32():
    def prog(L):
        x = L.tensor(_data((2, 50), "float32"))
        w = _hann(L, 16).float()
        return (value(x.stft(16, window=w, return_complex=True)),
                value(x.stft(16, 4, 12, w[:12], False, "constant", True, True, True)))
    same(prog, atol=1e-5, rtol=1e-4)


def _stft_call(L, **kw):
    x = kw.pop("x", None)
    x = L.tensor(_data((2, 40), "float64")) if x is None else x(L)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return L.stft(x, kw.pop("n_fft", 16), **kw)


STFT_ERRORS = {
    "return_complex required": {},
    "int input": {"x": lambda L: L.arange(40), "return_complex": True},
    "bool input": {"x": lambda L: L.ones(40, dtype=L.bool), "return_complex": True,
                   "center": False},
    "3-d": {"x": lambda L: L.ones(1, 2, 40), "return_complex": True},
    "0-d": {"x": lambda L: L.tensor(1.0), "return_complex": True, "center": False},
    "n_fft too big": {"n_fft": 100, "win_length": 5, "return_complex": True, "center": False,
                      "onesided": True, "normalized": True},
    "n_fft 0": {"n_fft": 0, "return_complex": True, "center": False},
    "hop 0": {"hop_length": 0, "return_complex": True},
    "win too big": {"win_length": 20, "return_complex": True},
    "window size": {"win_length": 10, "window": lambda L: L.ones(16, dtype=L.float64),
                    "return_complex": True},
    "window 2-d": {"window": lambda L: L.ones(4, 4), "return_complex": True},
    "complex onesided": {"x": lambda L: L.ones(2, 40, dtype=L.complex128), "onesided": True},
    "complex window, real out": {"window": lambda L: L.ones(16, dtype=L.complex128),
                                 "return_complex": False, "onesided": True},
    "half": {"x": lambda L: L.ones(2, 40, dtype=L.float16), "return_complex": True},
    "bfloat16": {"x": lambda L: L.ones(2, 40, dtype=L.bfloat16), "return_complex": True,
                 "center": False},
    "pad mode": {"pad_mode": "foo", "return_complex": True},
    "reflect too short": {"x": lambda L: L.ones(5, dtype=L.float64), "return_complex": True},
    "align with center": {"align_to_window": True, "return_complex": True},
    "align out of bounds": {"align_to_window": True, "win_length": 9, "hop_length": 1,
                            "center": False, "return_complex": True},
    "empty": {"x": lambda L: L.ones(2, 0, dtype=L.float64), "return_complex": True,
              "center": False},
    "empty batch": {"x": lambda L: L.ones(0, 40, dtype=L.float64), "return_complex": True,
                    "center": False},
    "n_fft float": {"n_fft": 16.0, "return_complex": True},
    "hop float": {"hop_length": 4.0, "return_complex": True},
    "onesided int": {"onesided": 1, "return_complex": True},
    "normalized None": {"normalized": None, "return_complex": True},
    "window list": {"window": lambda L: [1.0] * 16, "return_complex": True},
}


@pytest.mark.parametrize("kw", STFT_ERRORS.values(), ids=STFT_ERRORS.keys())
def test_stft_errors(kw):
    def prog(L):
        args = {k: v(L) if callable(v) and k == "window" else v for k, v in kw.items()}
        return _stft_call(L, **args)
    same_error(prog)


def _istft_case(stft_kw, istft_kw, shape, dtype):
    def prog(L):
        x = L.tensor(_data(shape, dtype))
        w = _hann(L, stft_kw.get("win_length", 16)).requires_grad_()
        z = L.stft(x, 16, window=w.detach(), return_complex=True, **stft_kw).requires_grad_()
        shared = {k: v for k, v in stft_kw.items()
                  if k in ("hop_length", "win_length", "normalized", "center")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = L.istft(z, 16, window=w, **shared, **istft_kw)
        return result(y), _grads(L, y, [z, w])
    return prog


ISTFT_STFT_KW = [{}, {"hop_length": 3}, {"win_length": 10}, {"normalized": True},
                 {"onesided": False}, {"center": False, "hop_length": 2}]
ISTFT_KW = [{}, {"length": 30}, {"length": 45}, {"length": 80}, {"return_complex": True},
            {"onesided": False}]


@pytest.mark.parametrize("istft_kw", ISTFT_KW, ids=str)
@pytest.mark.parametrize("stft_kw", ISTFT_STFT_KW, ids=str)
@pytest.mark.parametrize("shape,dtype", [((2, 40), "float64"), ((40,), "complex128")],
                         ids=str)
def test_istft(stft_kw, istft_kw, shape, dtype):
    same_or_error(_istft_case(stft_kw, istft_kw, shape, dtype), atol=1e-9, rtol=1e-9)


def test_istft_method_without_window():
    def prog(L):
        z = L.stft(L.tensor(_data((2, 40), "float64")), 16, return_complex=True,
                   window=L.ones(16, dtype=L.float64))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return value(z.istft(16)), value(z.istft(16, 4, 16, None, True, False, None, 38))
    same(prog, atol=1e-12, rtol=1e-12)


def _spectrum(L, shape=(2, 9, 11)):
    return L.tensor(_data(shape, "complex128"))


ISTFT_ERRORS = {
    "real input": lambda L: L.istft(L.ones(2, 9, 11, 2, dtype=L.float64), 16),
    "empty": lambda L: L.istft(_spectrum(L)[:, :, :0], 16),
    "1-d": lambda L: L.istft(_spectrum(L)[0, 0], 16),
    "4-d": lambda L: L.istft(_spectrum(L)[None], 16),
    "onesided size": lambda L: L.istft(_spectrum(L), 20, window=L.ones(20)),
    "two-sided size": lambda L: L.istft(_spectrum(L), 16, onesided=False),
    "onesided of two-sided": lambda L: L.istft(_spectrum(L, (2, 16, 11)), 16, onesided=True),
    "hop too big": lambda L: L.istft(_spectrum(L), 16, hop_length=17),
    "hop 0": lambda L: L.istft(_spectrum(L), 16, hop_length=0),
    "win too big": lambda L: L.istft(_spectrum(L), 16, win_length=17),
    "window shape": lambda L: L.istft(_spectrum(L), 16, win_length=10, window=L.ones(16)),
    "NOLA": lambda L: L.istft(_spectrum(L), 16, hop_length=16,
                              window=_hann(L, 16, periodic=True)),
    "zero window": lambda L: L.istft(_spectrum(L), 16, window=L.zeros(16, dtype=L.float64)),
    "not centred": lambda L: L.istft(_spectrum(L), 16, center=False,
                                     window=_hann(L, 16, periodic=True)),
    "onesided complex": lambda L: L.istft(_spectrum(L), 16, return_complex=True),
    "complex window": lambda L: L.istft(_spectrum(L), 16,
                                        window=L.ones(16, dtype=L.complex128)),
    "complex32": lambda L: L.istft(_spectrum(L).to(L.complex32), 16,
                                   window=L.ones(16, dtype=L.float16)),
    "n_fft float": lambda L: L.istft(_spectrum(L), 16.0),
    "input list": lambda L: L.istft([1.0], 16),
}


@pytest.mark.parametrize("prog", ISTFT_ERRORS.values(), ids=ISTFT_ERRORS.keys())
def test_istft_errors(prog):
    def call(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return prog(L)
    same_error(call)


def _first_warnings(lib, code):
    """The warnings (class, text) a fresh process emits running `code` twice on `lib`."""
    script = (f"import warnings, json\nimport {lib} as T\n"
              "x = T.ones(2, 40, dtype=T.float64)\nout = []\nfor _ in range(2):\n"
              "    with warnings.catch_warnings(record=True) as w:\n"
              "        warnings.simplefilter('always')\n"
              "        try:\n"
              f"            {code}\n"
              "        except RuntimeError as e:\n"
              "            out.append(str(e))\n"
              "    out.append([(x.category.__name__, str(x.message).split(' (Triggered')[0])"
              " for x in w])\nprint(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("code", [
    "T.stft(x, 16)",      # the window warning, then the error
    "T.stft(x, 16, return_complex=False)",
    "T.istft(T.stft(x, 16, window=T.ones(16), return_complex=True), 16)",
    "T.istft(T.stft(x, 16, window=T.ones(16), return_complex=True), 16, window=T.ones(16), "
    "length=60)",
])
def test_stft_warnings_once_per_process(code):
    theirs = _first_warnings("torch", code)
    assert theirs[0]
    assert _first_warnings("chainrule", code) == theirs


# ---- accuracy -----------------------------------------------------------------------------

ACCURACY = [("fft", (64, 1000), "complex64", {}), ("fft", (64, 1024), "float32", {}),
            ("ifft", (64, 1000), "complex64", {"norm": "ortho"}),
            ("rfft", (64, 4096), "float32", {}), ("rfft", (64, 97), "float32", {}),
            ("irfft", (64, 513), "complex64", {"norm": "forward"}),
            ("hfft", (64, 300), "complex64", {}), ("ihfft", (64, 1000), "float32", {}),
            ("fft2", (64, 32, 30), "complex64", {}), ("rfftn", (16, 32, 30), "float32", {}),
            ("irfftn", (16, 32, 17), "complex64", {"norm": "ortho"})]


@pytest.mark.parametrize("name,shape,dtype,kw", ACCURACY, ids=str)
def test_float32_accuracy(name, shape, dtype, kw):
    # PyTorch's MKL kernels and pocketfft's float32 loops round differently; both stay within
    # a few units in the last place of the largest output
    x = _data(shape, dtype)
    ours = ALL[name](chainrule)(chainrule.from_numpy(x), **kw)
    theirs = ALL[name](torch)(torch.from_numpy(x), **kw).resolve_conj()
    assert str(ours.dtype) == str(theirs.dtype)
    ulp = np.spacing(np.abs(theirs.numpy()).max())
    assert np.abs(ours.numpy() - theirs.numpy()).max() <= 4 * ulp


def test_float64_accuracy():
    x = _data((16, 1000), "complex128")
    for name in ("fft", "irfft", "hfft", "fft2", "irfftn"):
        ours = ALL[name](chainrule)(chainrule.from_numpy(x)).numpy()
        theirs = ALL[name](torch)(torch.from_numpy(x)).numpy()
        # (a C2R of non-Hermitian data sums terms much larger than its result)
        assert np.abs(ours - theirs).max() <= 1e-13 * np.abs(theirs).max(), name


def test_numpy_1_fallback(monkeypatch):
    # without NumPy 2's pocketfft loops the kernels go through numpy.fft in float64
    monkeypatch.setattr(spectral, "_pfu", None)
    for name, shape, dtype, kw in ACCURACY[:8] + [("fftn", (3, 4, 5), "complex128", {}),
                                                 ("irfftn", (3, 4, 5), "complex128",
                                                  {"norm": "ortho"})]:
        x = _data(shape, dtype)
        ours = ALL[name](chainrule)(chainrule.from_numpy(x), **kw)
        theirs = ALL[name](torch)(torch.from_numpy(x), **kw).resolve_conj()
        assert str(ours.dtype) == str(theirs.dtype), name
        ulp = np.spacing(np.abs(theirs.numpy()).max())
        assert np.abs(ours.numpy() - theirs.numpy()).max() <= 16 * ulp, name
