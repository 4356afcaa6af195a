"""Window functions as torch.signal.windows computes them: a linspace of the sample
positions, then pointwise ops, so values, dtypes and requires_grad follow those ops."""
from collections.abc import Iterable
from math import pi, sqrt

from ... import _creation, _dtype
from ..._tensor import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _window_function_checks(function_name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: "
                         f"{layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _empty(M, dtype, layout, device, requires_grad):
    return _creation.empty((M,), dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def _ones(dtype, layout, device, requires_grad):
    return _creation.ones((1,), dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def _positions(start, end, M, dtype, layout, device, requires_grad):
    return _creation.linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout,
                              device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    """The exponential (Poisson) window exp(-|n - center| / tau)."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _positions(-center * constant, (-center + (M - 1)) * constant, M, dtype, layout,
                   device, requires_grad)
    return k.abs().neg().exp()


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The cosine (sine) window sin(pi (n + 0.5) / M)."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    start = 0.5
    constant = pi / (M + 1 if not sym and M > 1 else M)
    k = _positions(start * constant, (start + (M - 1)) * constant, M, dtype, layout, device,
                   requires_grad)
    return k.sin()


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    """The Gaussian window exp(-(n / (2 std))^2) about the centre."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * sqrt(2))
    k = _positions(start * constant, (start + (M - 1)) * constant, M, dtype, layout, device,
                   requires_grad)
    return (-k ** 2).exp()


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    """The Kaiser window I0(beta sqrt(1 - (n/N - 1)^2)) / I0(beta)."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    # beta as a tensor of the window's dtype, as PyTorch's (it avoids NaNs at the ends)
    beta = _creation.tensor(beta, dtype=dtype, device=device)
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = (start + (M - 1) * constant).minimum(beta)
    k = _positions(start, end, M, dtype, layout, device, requires_grad)
    return (beta * beta - k.pow(2)).sqrt().i0() / beta.i0()


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hamming window 0.54 - 0.46 cos(2 pi n / (M - 1))."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hann window 0.5 - 0.5 cos(2 pi n / (M - 1))."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Blackman window, general_cosine with a = [0.42, 0.5, 0.08]."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Bartlett (triangular) window 1 - |2n / (M - 1) - 1|."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = _positions(start, start + (M - 1) * constant, M, dtype, layout, device, requires_grad)
    return 1 - k.abs()


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    """The sum over i of (-1)^i a[i] cos(2 pi i n / (M - 1))."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    _window_function_checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(0, dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * pi / (M if not sym else M - 1)
    k = _positions(0, (M - 1) * constant, M, dtype, layout, device, requires_grad)
    a_i = _creation.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device,
                           dtype=dtype, requires_grad=requires_grad)
    i = _creation.arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device,
                         requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    """The generalized Hamming window alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
