"""Spectral ops: the three FFT kernels every torch.fft function, stft and istft are built on,
with PyTorch's derivative formulas, and stft/istft themselves.

    _fft_r2c(self, dim, normalization, onesided)   real -> complex (FftR2CBackward0)
    _fft_c2r(self, dim, normalization, last_dim_size)   complex -> real (FftC2RBackward0)
    _fft_c2c(self, dim, normalization, forward)   complex -> complex (FftC2CBackward0)

`normalization` is ATen's fft_norm_mode: 0 none, 1 divide by sqrt(n), 2 divide by n, where n
is the number of points transformed (the product of the signal sizes over `dim`).

The kernels are NumPy's pocketfft, run one axis at a time; the scale factor is applied once,
in the last pass, as MKL applies it. NumPy 2 has pocketfft loops for each precision, so
float32 data is transformed in float32 as PyTorch's kernels do (results within a few ulp of
PyTorch's MKL ones); NumPy 1 computes in float64, and the result is rounded to the input's
precision.
"""
import math

import numpy as np

from .. import _dtype
from .._dims import sizes_str, wrap_dim
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from .aliasing import unfold_backward, view_as_complex, view_as_real
from .binding import _not_tensor
from .padding import constant_pad_nd
from .pointwise import where
from .registry import FUNCTIONS, op, public

try:     # NumPy >= 2: pocketfft's gufuncs, one loop per precision
    from numpy.fft import _pocketfft_umath as _pfu
except ImportError:     # NumPy 1: numpy.fft, which computes in float64
    _pfu = None

__all__ = ["fft_r2c", "fft_c2r", "fft_c2c", "NORM_NONE", "NORM_BY_ROOT_N", "NORM_BY_N"]

NORM_NONE, NORM_BY_ROOT_N, NORM_BY_N = 0, 1, 2

_MKL_EMPTY = "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters"


# ---- kernels --------------------------------------------------------------------------------

def _pass(kind, a, axis, n, fct):
    """One unnormalized transform of `a` along `axis`, times fct. kind: 'fft'/'ifft'
    (complex, n points), 'rfft' (n real points -> n//2+1), 'irfft' (n//2+1 -> n real)."""
    real = a.real.dtype if a.dtype.kind == "c" else a.dtype
    if kind == "irfft":
        out_dtype, n_out = real, n
    else:
        out_dtype, n_out = np.result_type(real, np.complex64), n // 2 + 1 if kind == "rfft" else n
    shape = a.shape[:axis] + (n_out,) + a.shape[axis + 1:]
    if _pfu is not None:
        if kind == "rfft":
            ufunc = _pfu.rfft_n_even if n % 2 == 0 else _pfu.rfft_n_odd
        else:
            ufunc = getattr(_pfu, kind)
        return ufunc(a, real.type(fct), axes=[(axis,), (), (axis,)], out=np.empty(shape, out_dtype))
    # NumPy 1: norm="forward" leaves the inverse transforms unscaled
    f = getattr(np.fft, kind)
    out = f(a, n, axis, norm="forward" if kind in ("ifft", "irfft") else "backward")
    if fct != 1:
        out *= fct
    return out.astype(out_dtype, copy=False)


def _fct(n, normalization):
    """The scale factor of a transform of n points (computed in double, as ATen's)."""
    if normalization == NORM_NONE:
        return 1.0
    return 1.0 / math.sqrt(n) if normalization == NORM_BY_ROOT_N else 1.0 / n


def _dims(dim, ndim):
    return [wrap_dim(d, ndim) for d in ([dim] if isinstance(dim, int) else dim)]


def check_dtype(d, complex_input):
    """The kernels' dtype checks (ATen's, then MKL's), for a chainrule dtype `d`."""
    if complex_input and not d.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {d.legacy}")
    if not complex_input and not d.is_floating_point:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {d.legacy}")
    real = d.to_real()
    if real not in (_dtype.float32, _dtype.float64):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {real.legacy}")


def _c2c(a, dim, normalization, forward):
    check_dtype(FROM_NP[a.dtype], True)
    dims = _dims(dim, a.ndim)
    if not dims:
        return a.copy()
    if a.size == 0:
        raise RuntimeError(_MKL_EMPTY)
    fct = _fct(math.prod(a.shape[d] for d in dims), normalization)
    kind = "fft" if forward else "ifft"
    for i, d in enumerate(dims):
        a = _pass(kind, a, d, a.shape[d], fct if i == len(dims) - 1 else 1)
    return a


def _r2c(a, dim, normalization, onesided):
    check_dtype(FROM_NP[a.dtype], False)
    dims = _dims(dim, a.ndim)
    if a.size == 0:
        raise RuntimeError(_MKL_EMPTY)
    last = dims[-1]
    n = a.shape[last]
    fct = _fct(math.prod(a.shape[d] for d in dims), normalization)
    out = _pass("rfft", a, last, n, fct if len(dims) == 1 else 1)
    for i, d in enumerate(dims[:-1]):
        out = _pass("fft", out, d, out.shape[d], fct if i == len(dims) - 2 else 1)
    if not onesided:
        out = _fill_conjugate_symmetry(out, dims, n)
    return out


def _fill_conjugate_symmetry(half, dims, n):
    """The full transform from its first n//2+1 entries along dims[-1]: X[k] = conj(X[-k])
    with every index taken modulo its dim's size (as ATen's _fft_fill_with_conjugate_symmetry)."""
    last = dims[-1]
    m = half.shape[last]
    if m == n:
        return half
    mirror = np.take(half, np.arange(n - m, 0, -1), axis=last)
    for d in dims[:-1]:
        size = half.shape[d]
        mirror = np.take(mirror, -np.arange(size) % size, axis=d)
    return np.concatenate([half, np.conj(mirror)], axis=last)


def _c2r(a, dim, normalization, last_dim_size):
    check_dtype(FROM_NP[a.dtype], True)
    dims = _dims(dim, a.ndim)
    last = dims[-1]
    half = last_dim_size // 2 + 1
    if a.shape[last] != half:
        raise RuntimeError(f"_fft_c2r: expected the last transformed dimension of "
                           f"{sizes_str(a.shape)} to have size {half} for last_dim_size="
                           f"{last_dim_size}")
    if a.size == 0:
        raise RuntimeError(_MKL_EMPTY)
    fct = _fct(math.prod(a.shape[d] for d in dims[:-1]) * last_dim_size, normalization)
    for d in dims[:-1]:
        a = _pass("ifft", a, d, a.shape[d], 1)
    return _pass("irfft", a, last, last_dim_size, fct)


# ---- rows and their formulas (FunctionsManual.cpp's fft_r2c_backward, fft_c2r_backward) ----

def _r2c_backward(grad, self_shape, dim, normalization, onesided):
    dims = _dims(dim, len(self_shape))
    if not onesided:
        return _fft_c2c(grad, dims, normalization, False).real
    # A onesided R2C is a C2C whose upper half is discarded: its backward is the real part
    # of the inverse C2C of the gradient zero-padded back to full length (PyTorch's
    # formula). That real part is the C2R of the same half with the entries C2R counts twice
    # (1 .. n - (n//2+1), which stand for their mirror images too) halved: one real
    # transform of n points instead of a complex one.
    # PyTorch's C2C multiplies nothing: the halving scales each part on its own, so an
    # infinite part does not make its partner inf * 0
    last = dims[-1]
    n = self_shape[last]
    halved = view_as_complex(view_as_real(grad) * 0.5)
    return _fft_c2r(_in_range(grad, last, n - grad.shape[last], halved), dims, normalization, n)


def _in_range(g, dim, count, changed):
    """g with its entries 1 .. count along dim taken from `changed`, the others untouched
    (a product of all of g with a weight vector would make an infinite entry's zero part inf
    * 0, NaN, where PyTorch's formulas leave the entry alone)."""
    if count <= 0:
        return g
    mask = np.zeros(g.shape[dim], bool)
    mask[1:1 + count] = True
    return where(make_tensor(mask.reshape((-1,) + (1,) * (g.dim() - 1 - dim))), changed, g)


def _c2r_backward(grad, dim, normalization):
    # A C2R reads each stored frequency once but stands for it and its mirror image: the
    # gradient is the R2C of grad with the entries whose mirror lies outside the onesided
    # range (indices 1 .. n - (n//2+1)) counted twice.
    dims = _dims(dim, grad.dim())
    g = _fft_r2c(grad, dims, normalization, True)
    last = dims[-1]
    return _in_range(g, last, grad.shape[last] - g.shape[last], g * 2)     # PyTorch's mul_(2)


_fft_r2c = op("_fft_r2c", "FftR2CBackward0", "self, dim, normalization, onesided", _r2c,
              method=False, self=_r2c_backward)
_fft_c2r = op("_fft_c2r", "FftC2RBackward0", "self, dim, normalization, last_dim_size", _c2r,
              method=False, self=_c2r_backward)
_fft_c2c = op("_fft_c2c", "FftC2CBackward0", "self, dim, normalization, forward", _c2c,
              method=False,
              self=lambda grad, dim, normalization, forward: _fft_c2c(
                  grad, dim, normalization, not forward))

_r2c_out = FUNCTIONS["_fft_r2c"]
_c2r_out = FUNCTIONS["_fft_c2r"]
_c2c_out = FUNCTIONS["_fft_c2c"]


# The kernels for the callers (torch.fft, stft, istft). Tensors of the dtypes NumPy lacks
# (bfloat16, complex32, float8) are checked here: the op table would compute them widened.

def fft_r2c(x, dim, normalization, onesided, out=None):
    check_dtype(x.dtype, False)
    if out is None:
        return _fft_r2c(x, dim, normalization, onesided)
    return _r2c_out(x, dim, normalization, onesided, out=out)


def fft_c2r(x, dim, normalization, last_dim_size, out=None):
    check_dtype(x.dtype, True)
    if out is None:
        return _fft_c2r(x, dim, normalization, last_dim_size)
    return _c2r_out(x, dim, normalization, last_dim_size, out=out)


def fft_c2c(x, dim, normalization, forward, out=None):
    check_dtype(x.dtype, True)
    if out is None:
        return _fft_c2c(x, dim, normalization, forward)
    return _c2c_out(x, dim, normalization, forward, out=out)


# ---- stft and istft -------------------------------------------------------------------------
# As ATen writes them (SpectralOps.cpp), with torch.stft's centering padding (functional.py)
# in front: frames are an as_strided view of the signal, windowed, transformed along their
# last dim; istft inverts each frame and overlap-adds them (unfold_backward), dividing by
# the overlap-added squared window.

_WINDOW_WARNING = (
    "A window was not provided. A rectangular window will be applied,which is known to cause "
    "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
    "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_ISTFT_WINDOW_WARNING = (
    "A window was not provided. A rectangular window will be applied.Please provide the same "
    "window used by stft to make the inversion lossless.To suppress this warning and use a "
    "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
_RETURN_COMPLEX_WARNING = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an error.\n"
    "Note: you can still call torch.view_as_real on the complex output to recover the old "
    "return format.")
_LENGTH_WARNING = (
    "The length of signal is shorter than the length parameter. Result is being padded with "
    "zeros in the tail. Please check your center and hop_length settings.")

# Tensor::toString(): the legacy class name where one exists, else the backend type
_LEGACY_CLASSES = {"Float", "Double", "Half", "Char", "Short", "Int", "Long", "Byte"}


def _type_string(t):
    legacy = t.dtype.legacy
    return f"torch.{legacy}Tensor" if legacy in _LEGACY_CLASSES else f"CPU{legacy}Type"


def _opt(v):
    """writeOpt: an optional value as ATen prints it (bools as 0/1)."""
    return "None" if v is None else int(v) if isinstance(v, bool) else v


def _window_str(window):
    return "None" if window is None else f"{_type_string(window)}{{{sizes_str(window.shape)}}}"


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _type_of(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _describe(v):
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of [{', '.join(_describe(x) for x in v)}]"
    return _type_of(v)


# the parameters of _VF.stft as its argument parser checks them
_STFT_PARAMS = (("Tensor", False), ("int", False), ("int", True), ("int", True),
                ("Tensor", True), ("bool", False), ("bool", True), ("bool", True), ("bool", True))
_STFT_OVERLOADS = (
    " * (Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window = "
    "None, bool center = True, str pad_mode = \"reflect\", bool normalized = False, bool "
    "onesided = None, bool return_complex = None, bool align_to_window = None)\n"
    " * (Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window = "
    "None, bool normalized = False, bool onesided = None, bool return_complex = None, bool "
    "align_to_window = None)\n")


def _fits(v, kind, optional):
    if v is None:
        return optional
    if kind == "Tensor":
        return isinstance(v, Tensor)
    if kind == "int":
        return _is_int(v)
    return isinstance(v, (bool, np.bool_))


def _check_stft_args(args):
    """PyTorch's argument-parser TypeError for _VF.stft (its mismatch marks every argument
    from the first that does not fit)."""
    bad = next((i for i, (v, (kind, optional)) in enumerate(zip(args, _STFT_PARAMS))
                if not _fits(v, kind, optional)), None)
    if bad is None:
        return
    got = ", ".join(_type_of(v) for v in args)
    # marked as PyTorch marks them: every argument after n_fft, and any before that misfits
    marked = ", ".join(_describe(v) if i < min(bad, 2) else f"!{_describe(v)}!"
                       for i, v in enumerate(args))
    raise TypeError(f"stft() received an invalid combination of arguments - got ({got}), but "
                    f"expected one of:\n{_STFT_OVERLOADS}      didn't match because some of the "
                    f"arguments have invalid types: ({marked})\n")


def _warn_once(message):
    from .shape import _warn_once
    _warn_once(message)


@public("stft")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: the FFT of each frame of n_fft samples (hop_length
    apart, windowed) of a 1-D signal or a batch of them; (B?, N, T) complex, or (B?, N, T, 2)
    real with return_complex=False."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        from ..nn.functional import pad
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        p = int(n_fft // 2)
        input = pad(input.view(extended), [p, p], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    _check_stft_args((input, n_fft, hop_length, win_length, window, normalized, onesided,
                      return_complex, align_to_window))
    if window is None:
        _warn_once(_WINDOW_WARNING)
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    complex_out = return_complex
    if complex_out is None:
        complex_out = input.is_complex() or (window is not None and window.is_complex())
    if not complex_out:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will "
                "further require that return_complex=True in a future PyTorch release.")
        _warn_once(_RETURN_COMPLEX_WARNING)

    def fail(message):
        raise RuntimeError(
            f"stft({_type_string(input)}{sizes_str(input.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_str(window)}, "
            f"normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) "
            f": {message}")

    d = input.dtype
    if not (d.is_floating_point or d.is_complex):
        fail("expected a tensor of floating point or complex values")
    if not 1 <= input.dim() <= 2:
        fail("expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    batch, length = x.shape
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window "
             f"with size {sizes_str(window.shape)}")
    window_ = window
    left = (n_fft - win) // 2
    if win < n_fft:     # the window, centred in n_fft samples
        from .. import zeros
        window_ = zeros(n_fft, dtype=(window if window is not None else input).dtype)
        if window is not None:
            window_.narrow(0, left, win).copy_(window)
        else:
            window_.narrow(0, left, win).fill_(1)
    if align_to_window:
        # frames start where their window does: the signal padded by the window's offset
        x = constant_pad_nd(x, [left, left])
        n_frames = 1 + (length - win) // hop
    else:
        n_frames = 1 + (length - n_fft) // hop
    frames = x.as_strided((batch, n_frames, n_fft),
                          (x.stride(0), hop * x.stride(1), x.stride(1)))
    if window_ is not None:
        frames = frames.mul(window_)
    complex_fft = frames.is_complex()
    sided = not complex_fft if onesided is None else onesided
    normalization = NORM_BY_ROOT_N if normalized else NORM_NONE
    if complex_fft:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(frames, [frames.dim() - 1], normalization, True)
    else:
        out = fft_r2c(frames, [frames.dim() - 1], normalization, sided)
    out.transpose_(1, 2)
    if input.dim() == 1:
        out.squeeze_(0)
    return out if complex_out else view_as_real(out)


def _istft_int(name, position, v, optional=True):
    if (v is None and optional) or _is_int(v):
        return v
    where = f" (position {position})" if position else ""
    raise TypeError(f"istft(): argument '{name}'{where} must be int, not {_type_of(v)}")


@public("istft")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: the signal whose windowed frames overlap-add (divided by the
    overlap-added squared window) to give each frame's inverse transform."""
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{_type_of(input)}")
    _istft_int("n_fft", 2, n_fft, optional=False)
    _istft_int("hop_length", 0, hop_length)
    _istft_int("win_length", 0, win_length)
    if window is not None and not isinstance(window, Tensor):
        # (torch.istft passes window on by keyword: no position)
        raise _not_tensor("istft", "window", None, window)
    _istft_int("length", 0, length)
    if window is None:
        _warn_once(_ISTFT_WINDOW_WARNING)
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")

    def fail(message, sep=": "):
        raise RuntimeError(
            f"istft({_type_string(input)}{sizes_str(input.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_str(window)}, "
            f"center={int(center)}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"length={_opt(length)}, return_complex={int(return_complex)}) {sep}{message}")

    x = view_as_real(input)
    ndim = x.dim()
    n_frames = x.shape[wrap_dim(-2, ndim)]
    fft_size = x.shape[wrap_dim(-3, ndim)]
    expected_len = n_fft + hop * (n_frames - 1)
    if x.numel() == 0:
        fail("input tensor cannot be empty.")
    if ndim not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {ndim}")
    sided = fft_size != n_fft if onesided is None else onesided
    if sided and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match "
             f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    if window is None:
        from .. import ones
        window_ = ones(win, dtype=x.dtype)
    else:
        window_ = window
    if win != n_fft:
        left = (n_fft - win) // 2
        window_ = constant_pad_nd(window_, [left, n_fft - win - left])
    if ndim == 3:
        x = x.unsqueeze(0)
    frames = view_as_complex(x.transpose(1, 2))      # (channel, n_frames, fft_size)
    normalization = NORM_BY_ROOT_N if normalized else NORM_BY_N
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c(frames, [frames.dim() - 1], normalization, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = fft_c2r(frames, [frames.dim() - 1], normalization, n_fft)
    y = unfold_backward(frames * window_.view(1, 1, n_fft), [frames.shape[0], expected_len], 1,
                        n_fft, hop)
    envelope = unfold_backward(window_.pow(2).expand(1, n_frames, n_fft), [1, expected_len], 1,
                               n_fft, hop)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else expected_len
    # at::slice, clamped to the signal (a SliceBackward0 even when it takes everything)
    stop = min(end if end >= 0 else expected_len + end, expected_len)
    y = y.narrow(1, start, max(stop - start, 0))
    envelope = envelope.narrow(1, start, max(stop - start, 0))
    if bool(envelope.abs().min() < 1e-11):
        fail("window overlap add min: 1\n[ CPUBoolType{} ]", sep="")
    y = y / envelope
    if ndim == 3:
        y = y.squeeze(0)
    if end > expected_len:
        _warn_once(_LENGTH_WARNING)
        y = constant_pad_nd(y, [0, end - expected_len])
    return y
