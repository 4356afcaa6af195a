"""torch.fft: discrete Fourier transforms and their helpers, as PyTorch 2.13 has them.

Every transform is composed as ATen composes it (SpectralOps.cpp) from the three kernel
rows of ops/spectral.py (_fft_r2c, _fft_c2r, _fft_c2c) and the ops around them: dtype
promotion (`to`, ToCopyBackward0), cropping and zero padding to `n`/`s` (slice,
constant_pad_nd), and conjugation, so results carry PyTorch's nodes (`ifft` of a real tensor
is ConjBackward0 over FftR2CBackward0, `hfft2` FftC2RBackward0 over ConjBackward0 over
FftC2CBackward0). Its checks run in ATen's order, with its messages.
"""
import numbers

import numpy as np

from .. import _dtype
from .._dims import wrap_dim
from .._tensor import Tensor
from ..ops.padding import constant_pad_nd
from ..ops.pointwise import conj_physical as _conj_physical
from ..ops.registry import FUNCTIONS as _FUNCTIONS
from ..ops.spectral import NORM_BY_N, NORM_BY_ROOT_N, NORM_NONE, fft_c2c, fft_c2r, fft_r2c

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "Tensor"]


# ---- arguments --------------------------------------------------------------------------------

def _is_int(v):
    if isinstance(v, Tensor):
        return v.dim() == 0 and not v.is_floating_point() and not v.is_complex() \
            and v.dtype is not _dtype.bool
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _type_name(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _check_input(fname, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_type_name(input)}")


def _int_arg(fname, name, v, optional=True, position=None):
    if v is None and optional:
        return None
    if not _is_int(v):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{fname}(): argument '{name}'{where} must be int, not {_type_name(v)}")
    return int(v)


def _int_list(fname, name, v):
    """An optional int[] argument as PyTorch's parser reads it (an int is a list of one)."""
    if v is None:
        return None
    if _is_int(v):
        return [int(v)]
    if not isinstance(v, (tuple, list)) or (v and not _is_int(v[0])):
        raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not "
                        f"{_type_name(v)}")
    for i, x in enumerate(v):
        if not _is_int(x):
            raise TypeError(f"{fname}(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{_type_name(x)}\"")
    return [int(x) for x in v]


def _check_norm(fname, norm):
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"{fname}(): argument 'norm' must be str, not {_type_name(norm)}")


def _check_out(fname, out):
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"{fname}(): argument 'out' must be Tensor, not {_type_name(out)}")


def _parse(fname, input, n, dim, norm, out):
    """(n, dim) of a one-dimensional transform's call, type-checked."""
    _check_input(fname, input)
    n = _int_arg(fname, "n", n)
    dim = _int_arg(fname, "dim", dim, optional=False)
    _check_norm(fname, norm)
    _check_out(fname, out)
    return n, dim


def _parse_nd(fname, input, s, dim, norm, out):
    """(s, dim) of an n-dimensional transform's call, type-checked."""
    _check_input(fname, input)
    s = _int_list(fname, "s", s)
    dim = _int_list(fname, "dim", dim)
    _check_norm(fname, norm)
    _check_out(fname, out)
    return s, dim


# ---- ATen's helpers (SpectralOps.cpp) ---------------------------------------------------------

def _wrap(dim, ndim):
    """maybe_wrap_dim with wrap_scalar=False: a 0-d tensor has no dim to transform."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def _promote(x, require_complex):
    """promote_tensor_fft: integers become the default float dtype; only float and double
    (and their complex types) have kernels."""
    d = x.dtype
    if d.is_complex:
        return x
    if not d.is_floating_point:
        d = _dtype.get_default_dtype()
    if d is not _dtype.float32 and d is not _dtype.float64:
        raise RuntimeError(f"Unsupported dtype {d.legacy}")
    if require_complex:
        d = d.to_complex()
    return x if x.dtype is d else x.to(d)


def _norm(norm, forward):
    """norm_from_string: NumPy's mode names mean a direction-dependent normalization."""
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_BY_N
    if norm == "forward":
        return NORM_BY_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_BY_ROOT_N
    raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")


def _resize(x, dims, sizes):
    """resize_fft_input: x cropped (slice) or zero-padded (one constant_pad_nd) to `sizes`
    along `dims`."""
    pad = None
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have < n:
            if pad is None:
                pad = [0] * (2 * x.dim())
            pad[2 * (x.dim() - 1 - d) + 1] = n - have
        elif have > n:
            x = x.narrow(d, 0, n)
    return x if pad is None else constant_pad_nd(x, pad)


def _check_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _legacy(t):
    return t.dtype.legacy


def _complex_out(fname, out):
    if out is not None and not out.is_complex():
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_legacy(out)}")


def _real_out(fname, out):
    if out is not None and not out.is_floating_point():
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got "
                           f"{_legacy(out)}")


def _c2c_maybe_out(fname, out, x, dims, normalization, forward):
    _complex_out(fname, out)
    return fft_c2c(x, dims, normalization, forward, out)


def _c2r_maybe_out(fname, out, x, dims, normalization, last_dim_size):
    _real_out(fname, out)
    return fft_c2r(x, dims, normalization, last_dim_size, out)


def _r2c_maybe_out(fname, out, x, dims, normalization, onesided):
    _complex_out(fname, out)
    return fft_r2c(x, dims, normalization, onesided, out)


# ---- one-dimensional transforms ---------------------------------------------------------------

def _fft_r2c(fname, out, input, n, dim, norm, forward, onesided):
    if input.is_complex():
        raise RuntimeError(f"{fname} expects a real input tensor, but got {_legacy(input)}")
    _complex_out(fname, out)
    x = _promote(input, False)
    d = _wrap(dim, x.dim())
    points = x.shape[d] if n is None else n
    _check_points(points)
    if n is not None:
        x = _resize(x, (d,), (n,))
    normalization = _norm(norm, forward)
    if forward:
        return fft_r2c(x, [d], normalization, onesided, out)
    # the inverse of a real signal is the conjugate of its forward transform
    ret = fft_r2c(x, [d], normalization, onesided)
    return ret.conj() if out is None else _conj_physical_out(ret, out)


def _fft_c2r(fname, out, input, n, dim, norm, forward):
    _real_out(fname, out)
    x = _promote(input, True)
    d = _wrap(dim, x.dim())
    points = 2 * (x.shape[d] - 1) if n is None else n
    _check_points(points)
    if n is not None:
        x = _resize(x, (d,), (n // 2 + 1,))
    normalization = _norm(norm, forward)
    if forward:
        x = x.conj()     # hfft: the C2R of the conjugate
    return fft_c2r(x, [d], normalization, points, out)


def _fft_c2c(fname, out, input, n, dim, norm, forward):
    d = _wrap(dim, input.dim())
    points = input.shape[d] if n is None else n
    _check_points(points)
    x = input if n is None else _resize(input, (d,), (n,))
    return _c2c_maybe_out(fname, out, x, [d], _norm(norm, forward), forward)


def _conj_physical_out(x, out):
    return _conj_physical_with_out(x, out=out)


_conj_physical_with_out = _FUNCTIONS["conj_physical"]


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform of input along dim (n points: input
    cropped or zero-padded); real input gives the complex result."""
    n, dim = _parse("fft_fft", input, n, dim, norm, out)
    if input.is_complex():
        return _fft_c2c("fft", out, input, n, dim, norm, True)
    return _fft_r2c("fft", out, input, n, dim, norm, True, False)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional inverse discrete Fourier transform of input along dim."""
    n, dim = _parse("fft_ifft", input, n, dim, norm, out)
    if input.is_complex():
        return _fft_c2c("ifft", out, input, n, dim, norm, False)
    return _fft_r2c("ifft", out, input, n, dim, norm, False, False)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of real input, its n//2 + 1 non-negative frequencies."""
    n, dim = _parse("fft_rfft", input, n, dim, norm, out)
    return _fft_r2c("rfft", out, input, n, dim, norm, True, True)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: n real points (default 2 * (input.size(dim) - 1)) from the
    non-negative frequencies of a Hermitian signal."""
    n, dim = _parse("fft_irfft", input, n, dim, norm, out)
    return _fft_c2r("irfft", out, input, n, dim, norm, False)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: n real
    points (default 2 * (input.size(dim) - 1))."""
    n, dim = _parse("fft_hfft", input, n, dim, norm, out)
    return _fft_c2r("hfft", out, input, n, dim, norm, True)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of hfft: the n//2 + 1 non-negative frequencies of the inverse transform
    of real input."""
    n, dim = _parse("fft_ihfft", input, n, dim, norm, out)
    return _fft_r2c("ihfft", out, input, n, dim, norm, False, True)


# ---- n-dimensional transforms -----------------------------------------------------------------

def _shape_and_dims(input, s, dim):
    """canonicalize_fft_shape_and_dim_args: the signal sizes and the wrapped dims."""
    ndim = input.dim()
    sizes = input.shape
    if dim is not None:
        dims = [_wrap(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for n, d in zip(s, dims)]
    elif dim is None:
        dims, shape = list(range(ndim)), list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        _check_points(n)
    return shape, dims


def _c2r_shape_and_dims(fname, input, s, dim):
    """canonicalize_fft_c2r_shape_and_dim_args: also the length of the real output along the
    last dim (default 2 * (size - 1)), the complex input cropped to its half."""
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    if s is None or s[-1] == -1:
        last = 2 * (input.shape[dims[-1]] - 1)
    else:
        last = shape[-1]
    _check_points(last)
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _fftn(fname, input, s, dim, norm, out, forward):
    shape, dims = _shape_and_dims(input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    # ATen names "fftn" in the out= checks of every complex-to-complex n-d transform
    return _c2c_maybe_out("fftn", out, x, dims, _norm(norm, forward), forward)


def _rfftn(input, s, dim, norm, out):
    if input.is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {_legacy(input)}")
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resize(_promote(input, False), dims, shape)
    return _r2c_maybe_out("rfftn", out, x, dims, _norm(norm, True), True)


def _irfftn(input, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("irfftn", input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    return _c2r_maybe_out("irfftn", out, x, dims, _norm(norm, False), last)


def _hfftn(input, s, dim, norm, out):
    shape, dims, last = _c2r_shape_and_dims("hfftn", input, s, dim)
    x = _resize(_promote(input, True), dims, shape)
    normalization = _norm(norm, True)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], normalization, True)
    return _c2r_maybe_out("hfftn", out, x.conj(), dims[-1:], normalization, last)


def _ihfftn(input, s, dim, norm, out):
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = _resize(_promote(input, False), dims, shape)
    normalization = _norm(norm, False)
    tmp = fft_r2c(x, dims[-1:], normalization, True)
    if len(dims) == 1:
        if out is None:
            return tmp.conj()
        # PyTorch 2.13 passes conj_physical_out its arguments swapped here: out's conjugate
        # is written into the transform (resized, with the usual warning, when their shapes
        # differ) and out comes back as it was.
        _conj_physical_out(out, tmp)
        return out
    return _c2c_maybe_out("ihfftn", out, _conj_physical(tmp), dims[:-1], normalization, False)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional discrete Fourier transform over dim (default: the last len(s) dims,
    or all), each cropped or zero-padded to s."""
    s, dim = _parse_nd("fft_fftn", input, s, dim, norm, out)
    return _fftn("fftn", input, s, dim, norm, out, True)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse discrete Fourier transform."""
    s, dim = _parse_nd("fft_ifftn", input, s, dim, norm, out)
    return _fftn("ifftn", input, s, dim, norm, out, False)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional discrete Fourier transform (fftn over the last two dims)."""
    s, dim = _parse_nd("fft_fft2", input, s, dim, norm, out)
    return _fftn("fft2", input, s, dim, norm, out, True)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional inverse discrete Fourier transform."""
    s, dim = _parse_nd("fft_ifft2", input, s, dim, norm, out)
    return _fftn("ifft2", input, s, dim, norm, out, False)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional Fourier transform of real input; the last dim keeps its
    non-negative frequencies."""
    s, dim = _parse_nd("fft_rfftn", input, s, dim, norm, out)
    return _rfftn(input, s, dim, norm, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of rfftn (real output; its last dim 2 * (size - 1) unless s says)."""
    s, dim = _parse_nd("fft_irfftn", input, s, dim, norm, out)
    return _irfftn(input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfftn over the last two dims."""
    s, dim = _parse_nd("fft_rfft2", input, s, dim, norm, out)
    return _rfftn(input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfftn over the last two dims."""
    s, dim = _parse_nd("fft_irfft2", input, s, dim, norm, out)
    return _irfftn(input, s, dim, norm, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a Hermitian-symmetric signal given by its half along
    the last dim (real output)."""
    s, dim = _parse_nd("fft_hfftn", input, s, dim, norm, out)
    return _hfftn(input, s, dim, norm, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of hfftn: the non-negative frequencies (along the last dim) of the
    inverse transform of real input."""
    s, dim = _parse_nd("fft_ihfftn", input, s, dim, norm, out)
    return _ihfftn(input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfftn over the last two dims."""
    s, dim = _parse_nd("fft_hfft2", input, s, dim, norm, out)
    return _hfftn(input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfftn over the last two dims."""
    s, dim = _parse_nd("fft_ihfft2", input, s, dim, norm, out)
    return _ihfftn(input, s, dim, norm, out)


# ---- frequencies and shifts -------------------------------------------------------------------

def _freq_args(fname, n, d):
    n = _int_arg(fname, "n", n, optional=False, position=1)
    if isinstance(d, Tensor) and d.dim() == 0:
        d = d.item()
    if not isinstance(d, numbers.Real) or isinstance(d, bool):
        raise TypeError(f"{fname}(): argument 'd' (position 2) must be float, not "
                        f"{_type_name(d)}")
    # 1 / (n * d) in double: inf when n * d is 0, as in C++
    with np.errstate(divide="ignore"):
        return n, float(np.float64(1.0) / np.float64(n * float(d)))


def _scalar(scale, result):
    """The C++ Scalar 1 / (n * d) as mul_ reads it: rounded to the tensor's dtype first."""
    from .. import tensor
    return tensor(scale, dtype=result.dtype).item()


def _freq_tensor(name, n, out, dtype, layout, device):
    """The tensor fftfreq/rfftfreq fill: out, or a new one of n elements."""
    from .. import empty
    if out is None:
        out = empty(n, dtype=dtype, layout=layout, device=device)
    if not (out.is_floating_point() or out.is_complex()):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return out


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform with sample spacing d:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)."""
    from .. import arange
    n, scale = _freq_args("fft_fftfreq", n, d)
    result = _freq_tensor("fftfreq", n, out, dtype, layout, device)
    arange(n, out=result)
    arange(-(n // 2), 0, out=result.narrow(0, (n + 1) // 2, n // 2))
    result.mul_(_scalar(scale, result))
    return result.requires_grad_() if requires_grad and out is None else result


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's output for n points with sample spacing d:
    [0, 1, ..., n // 2] / (n * d)."""
    from .. import arange
    n, scale = _freq_args("fft_rfftfreq", n, d)
    size = int(n / 2) + 1      # C++ division: rfftfreq(-1) has one element
    result = _freq_tensor("rfftfreq", size, out, dtype, layout, device)
    arange(size, out=result)
    result.mul_(_scalar(scale, result))
    return result.requires_grad_() if requires_grad and out is None else result


def _shift_dims(fname, input, dim):
    _check_input(fname, input)
    dim = _int_list(fname, "dim", dim)
    if dim is None:
        return list(range(input.dim()))
    return [_wrap(d, input.dim()) for d in dim]


def fftshift(input, dim=None):
    """input rolled so that the zero frequency is in the middle of each dim in dim (default
    all): fftfreq's order becomes increasing."""
    from .. import roll
    dims = _shift_dims("fft_fftshift", input, dim)
    return roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    from .. import roll
    dims = _shift_dims("fft_ifftshift", input, dim)
    return roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)
