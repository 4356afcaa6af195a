"""Op-database entries for the spectral ops (ops/spectral.py): every torch.fft transform,
fftshift/ifftshift, stft and istft, over the three kernel rows _fft_r2c, _fft_c2r and
_fft_c2c.

Transforms give complex results, and tests/test_ops.py compares gradients (and gradcheck
differentiates) real outputs only: each entry returns view_as_real of a complex result, and
complex inputs are built from two real ones (view_as_complex of their stack), so the
derivatives are checked through the real and imaginary parts. PyTorch's ifft and ihfft of
real input return a lazily conjugated tensor, which view_as_real refuses: those entries view
a product with 1 instead (MulBackward0 over ConjBackward0, on both libraries).
"""
from . import OpInfo, Sample, noncontiguous, positive, randn


def _complex(lib, re, im):
    return lib.view_as_complex(lib.stack([re, im], -1))


def _real(lib, z):
    return lib.view_as_real(z)


def _real_of_conj(lib, z):
    return lib.view_as_real(z * 1)


def _r2c(name, view=_real):
    """An entry for a transform of real input with a complex result."""
    return lambda lib, a, **kw: view(lib, getattr(lib.fft, name)(a, **kw))


def _c2c(name, view=_real):
    """An entry for a transform of complex input (given as real and imaginary parts)."""
    return lambda lib, a, b, **kw: view(lib, getattr(lib.fft, name)(_complex(lib, a, b), **kw))


def _c2r(name):
    return lambda lib, a, b, **kw: getattr(lib.fft, name)(_complex(lib, a, b), **kw)


def _real_samples(rng):
    return [Sample(randn(rng, 3, 5)),
            Sample(randn(rng, 3, 5), n=7, name="n padded"),
            Sample(randn(rng, 4, 3), n=2, dim=0, norm="ortho", name="n cropped, dim 0, ortho"),
            Sample(randn(rng, 6), norm="forward", name="1-d, forward"),
            Sample(noncontiguous(randn(rng, 3, 4)), norm="backward", name="non-contiguous")]


def _complex_samples(rng):
    return [Sample(randn(rng, 3, 5), randn(rng, 3, 5)),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), n=6, norm="ortho", name="n padded, ortho"),
            Sample(randn(rng, 4, 3), randn(rng, 4, 3), n=3, dim=0, norm="forward",
                   name="n cropped, dim 0, forward")]


def _half_samples(rng):
    # Hermitian halves: the default length, odd and even n, another dim
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
            Sample(randn(rng, 2, 4), randn(rng, 2, 4), n=7, norm="ortho", name="n odd, ortho"),
            Sample(randn(rng, 3, 2), randn(rng, 3, 2), n=4, dim=0, norm="forward",
                   name="n even, dim 0, forward")]


def _nd_real_samples(rng):
    return [Sample(randn(rng, 3, 4)),
            Sample(randn(rng, 2, 3, 4), s=(2, 5), name="s crops and pads"),
            Sample(randn(rng, 3, 4, 2), dim=(0, 2), norm="ortho", name="dim (0, 2), ortho"),
            Sample(randn(rng, 3, 4), s=(5,), dim=(0,), norm="forward", name="one dim"),
            Sample(noncontiguous(randn(rng, 3, 4)), name="non-contiguous")]


def _nd_complex_samples(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
            Sample(randn(rng, 2, 3, 4), randn(rng, 2, 3, 4), s=(4, 3), dim=(2, 0),
                   norm="ortho", name="s, dims reversed, ortho"),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), s=(-1, 6), norm="forward",
                   name="s -1, forward")]


def _nd_half_samples(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
            Sample(randn(rng, 2, 3, 3), randn(rng, 2, 3, 3), s=(3, 5), norm="ortho",
                   name="s odd last, ortho"),
            Sample(randn(rng, 3, 4, 2), randn(rng, 3, 4, 2), dim=(2, 0), norm="forward",
                   name="dims reversed, forward"),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), s=(6,), dim=(0,), name="one dim")]


def _stft(lib, x, w, **kw):
    return lib.view_as_real(lib.stft(x, 8, window=w, return_complex=True, **kw))


def _stft_samples(rng):
    return [Sample(randn(rng, 20), positive(rng, 8)),
            Sample(randn(rng, 2, 20), positive(rng, 8), hop_length=3, pad_mode="constant",
                   name="batch, hop 3, constant"),
            Sample(randn(rng, 20), positive(rng, 8), center=False, normalized=True,
                   onesided=False, name="not centred, normalized, two-sided"),
            Sample(randn(rng, 2, 20), positive(rng, 6), win_length=6, center=False,
                   align_to_window=True, name="short window aligned")]


def _stft_complex(lib, re, im, w, **kw):
    return lib.view_as_real(lib.stft(_complex(lib, re, im), 8, window=w, **kw))




def _istft_samples(rng):
    # onesided frames (5 frequencies of n_fft 8) or two-sided ones (8); positive windows,
    # so the overlap-added envelope never vanishes
    return [Sample(randn(rng, 5, 6), randn(rng, 5, 6), positive(rng, 8)),
            Sample(randn(rng, 2, 5, 5), randn(rng, 2, 5, 5), positive(rng, 6), hop_length=3,
                   win_length=6, length=13, name="batch, short window, length"),
            Sample(randn(rng, 8, 4), randn(rng, 8, 4), positive(rng, 8), center=False,
                   normalized=True, return_complex=True, name="two-sided complex, normalized")]


def _istft(lib, re, im, w, **kw):
    out = lib.istft(_complex(lib, re, im), 8, window=w, **kw)
    return lib.view_as_real(out) if out.is_complex() else out


def _shift_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 5), dim=1),
            Sample(randn(rng, 2, 3, 5), dim=(0, -1))]


OPS_DB = [
    OpInfo("fft.fft", _r2c("fft"), _real_samples, ops=("_fft_r2c",)),
    OpInfo("fft.fft.complex", _c2c("fft"), _complex_samples, ops=("_fft_c2c",)),
    OpInfo("fft.ifft", _r2c("ifft", _real_of_conj), _real_samples, ops=("_fft_r2c", "conj")),
    OpInfo("fft.ifft.complex", _c2c("ifft"), _complex_samples, ops=("_fft_c2c",)),
    OpInfo("fft.rfft", _r2c("rfft"), _real_samples, ops=("_fft_r2c",)),
    OpInfo("fft.irfft", _c2r("irfft"), _half_samples, ops=("_fft_c2r",)),
    OpInfo("fft.irfft.real", lambda lib, a, **kw: lib.fft.irfft(a, **kw), _real_samples,
           ops=("_fft_c2r", "_to_copy")),
    OpInfo("fft.hfft", _c2r("hfft"), _half_samples, ops=("_fft_c2r", "conj")),
    OpInfo("fft.ihfft", _r2c("ihfft", _real_of_conj), _real_samples, ops=("_fft_r2c", "conj")),
    OpInfo("fft.fft2", _r2c("fft2"), _nd_real_samples, ops=("_fft_c2c", "_to_copy")),
    OpInfo("fft.ifft2.complex", _c2c("ifft2"), _nd_complex_samples, ops=("_fft_c2c",)),
    OpInfo("fft.fftn.complex", _c2c("fftn"), _nd_complex_samples, ops=("_fft_c2c",)),
    OpInfo("fft.ifftn", _r2c("ifftn"), _nd_real_samples, ops=("_fft_c2c", "_to_copy")),
    OpInfo("fft.rfft2", _r2c("rfft2"), _nd_real_samples, ops=("_fft_r2c",)),
    OpInfo("fft.rfftn", _r2c("rfftn"), _nd_real_samples, ops=("_fft_r2c",)),
    OpInfo("fft.irfft2", _c2r("irfft2"), _nd_half_samples, ops=("_fft_c2r",)),
    OpInfo("fft.irfftn", _c2r("irfftn"), _nd_half_samples, ops=("_fft_c2r",)),
    OpInfo("fft.hfft2", _c2r("hfft2"), _nd_half_samples, ops=("_fft_c2r", "_fft_c2c", "conj")),
    OpInfo("fft.hfftn", _c2r("hfftn"), _nd_half_samples, ops=("_fft_c2r", "_fft_c2c", "conj")),
    # over one dim ihfftn's result is a lazy conjugate in PyTorch, over more it is not
    OpInfo("fft.ihfft2", _r2c("ihfft2"),
           lambda rng: [s for s in _nd_real_samples(rng) if s.name != "one dim"],
           ops=("_fft_r2c", "conj_physical", "_fft_c2c")),
    OpInfo("fft.ihfftn.one_dim", _r2c("ihfftn", _real_of_conj),
           lambda rng: [Sample(randn(rng, 3, 4), dim=(0,), norm="ortho")],
           ops=("_fft_r2c", "conj")),
    OpInfo("fft.ihfftn", _r2c("ihfftn"),
           lambda rng: [Sample(randn(rng, 2, 3, 4)), Sample(randn(rng, 3, 4), s=(4, 5))],
           ops=("_fft_r2c", "conj_physical", "_fft_c2c")),
    OpInfo("fft.fftshift", lambda lib, a, **kw: lib.fft.fftshift(a, **kw), _shift_samples,
           ops=("roll",)),
    OpInfo("fft.ifftshift", lambda lib, a, **kw: lib.fft.ifftshift(a, **kw), _shift_samples,
           ops=("roll",)),
    OpInfo("stft", _stft, _stft_samples, ops=("_fft_r2c", "as_strided")),
    OpInfo("stft.complex", _stft_complex,
           lambda rng: [Sample(randn(rng, 2, 20), randn(rng, 2, 20), positive(rng, 8),
                               hop_length=4)],
           ops=("_fft_c2c", "as_strided")),
    OpInfo("istft", _istft, _istft_samples, ops=("_fft_c2r", "_fft_c2c", "unfold_backward")),
]
