"""Spatial sampling: the upsample rows behind nn.functional.interpolate, grid sampling
(grid_sampler_2d/3d, affine_grid_generator) and the CTC loss.

Note [Separable interpolation]
Every interpolation mode PyTorch has (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear and the antialiased bilinear/bicubic/lanczos) is separable: each output is a
weighted sum over a few input positions per spatial axis, with weights that depend on that
axis only. So an upsample is one (out, in) weight matrix per axis, built with PyTorch's own
index and weight arithmetic (UpSample.h: area_pixel_compute_scale, the source index, the
cubic coefficients with A = -0.75, Pillow's antialias filters), applied along its axis with
one tensordot; its backward applies the transposes, and the backward's derivative is the
forward again (so double backward has PyTorch's UpsampleXBackwardBackward0 nodes). The
matrices are built from each output's taps as PyTorch's kernels compute them, including
taps of weight 0, so nan and inf spread as there (Note [Non-finite taps] in conv.py). Nearest
modes gather instead (exact for uint8); uint8 images take Note [uint8 interpolation].
"""
import math
import warnings

import numpy as np

from .._tensor import Tensor, make_tensor
from . import conv
from .binding import Signature
from .registry import FUNCTIONS, NOT_IMPLEMENTED, no_derivative, op, public

__all__ = ["grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator",
           "ctc_loss", "_ctc_loss"]


# ---- interpolation: per-axis index and weight arithmetic (UpSample.h) -----------------------

def _opmath(dtype):
    """The dtype PyTorch computes indices and weights in: double for double, else float."""
    return np.float64 if dtype == np.float64 else np.float32


def _scales_value(scale, in_size, out_size, t):
    """compute_scales_value: 1/scale when a scale was given, else in/out."""
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def _area_scale(in_size, out_size, align_corners, scale, t):
    """area_pixel_compute_scale."""
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    return _scales_value(scale, in_size, out_size, t)


def _source_index(scale, out_size, align_corners, cubic, t):
    """area_pixel_compute_source_index for every output position."""
    dst = np.arange(out_size).astype(t)
    if align_corners:
        return scale * dst
    src = scale * (dst + t(0.5)) - t(0.5)
    return src if cubic else np.maximum(src, t(0))


def _guard(real, in_size):
    """guard_index_and_lambda: the floor index (at most in - 1) and the fraction in [0, 1]."""
    index = np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), in_size - 1)
    frac = np.clip(real - index.astype(real.dtype), 0, 1).astype(real.dtype)
    return index, frac


def _nearest_index(in_size, out_size, scale, exact, t, backward=False):
    """Source indices of the nearest modes: the forward kernel's (scale in opmath, floorf),
    or nearest_idx / nearest_exact_idx as the backward kernels compute them."""
    if backward:
        if not exact and out_size == in_size:
            return np.arange(out_size)
        if not exact and out_size == 2 * in_size:
            return np.arange(out_size) >> 1
        s = _scales_value(scale, in_size, out_size, np.float32)
        dst = np.arange(out_size)
        real = ((dst + 0.5) * np.float64(s)).astype(np.float32) if exact else \
            dst.astype(np.float32) * s
        return np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    s = _area_scale(in_size, out_size, False, scale, t)
    if exact:
        real = np.maximum(s * (np.arange(out_size).astype(t) + t(0.5)) - t(0.5), t(0)) + 0.5
    else:
        real = s * np.arange(out_size).astype(t)
    return np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), in_size - 1)


def _cubic_coefficients(t):
    """get_cubic_upsample_coefficients (A = -0.75) for fractions t: (4, out)."""
    a = t.dtype.type(-0.75)

    def conv1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = t.dtype.type(1.0)
    return np.stack([conv2(t + one), conv1(t), conv1(one - t), conv2(one - t + one)])


def _aa_filter(kind):
    if kind == "bilinear":
        return 2, lambda x: np.maximum(0.0, 1.0 - np.abs(x))
    if kind == "bicubic":
        def cubic(x):
            a = -0.5
            x = np.abs(x)
            return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                            np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))
        return 4, cubic

    def lanczos(x):
        x = np.abs(x)
        with np.errstate(invalid="ignore", divide="ignore"):
            pix = np.pi * x
            value = np.where(x == 0, 1.0, np.sin(pix) / pix * np.sin(pix / 3) / (pix / 3))
        return np.where(x < 3, value, 0.0)
    return 6, lanczos


def _aa_taps(kind, in_size, out_size, align_corners, scale, t):
    """_compute_weights_aa (Pillow's separable antialias): each output's normalized filter
    weights over the input positions within its support, as (rows, columns, weights)."""
    interp_size, filt = _aa_filter(kind)
    s = _area_scale(in_size, out_size, align_corners, scale, t)
    support = (interp_size * 0.5) * s if s >= 1.0 else interp_size * 0.5
    invscale = 1.0 / s if s >= 1.0 else 1.0
    center = s * (np.arange(out_size) + 0.5)
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)
    xmax = np.minimum((center + support + 0.5).astype(np.int64), in_size)
    j = np.arange(in_size)
    inside = (j >= xmin[:, None]) & (j < xmax[:, None])
    w = np.where(inside, filt((j - center[:, None] + 0.5) * invscale), 0.0).astype(t)
    total = w.sum(1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(t)
    rows, cols = np.nonzero(inside)
    return rows, cols, w[rows, cols]


def _aa_matrix(kind, in_size, out_size, align_corners, scale, t):
    return _taps_matrix(_aa_taps(kind, in_size, out_size, align_corners, scale, t),
                        (out_size, in_size), t)


def _taps_matrix(taps, shape, t):
    m = np.zeros(shape, t)
    np.add.at(m, taps[:2], taps[2])
    return m


def _resample_taps(kind, in_size, out_size, align_corners, scale, t, forward=True):
    """Each output's taps along one axis as PyTorch's kernel computes them: (rows, columns,
    weights); a tap may have weight 0 (Note [Separable interpolation])."""
    rows = np.arange(out_size)
    if kind in ("nearest", "nearest-exact"):
        index = _nearest_index(in_size, out_size, scale, kind == "nearest-exact", t, True)
        return rows, index, np.ones(out_size, t)
    if kind.startswith("aa-") and in_size == out_size and forward:
        return rows, rows, np.ones(out_size, t)      # PyTorch's forward skips the axis
    if kind.startswith("aa-"):
        return _aa_taps(kind[3:], in_size, out_size, align_corners, scale, t)
    s = _area_scale(in_size, out_size, align_corners, scale, t)
    if kind == "linear":
        index, frac = _guard(_source_index(s, out_size, align_corners, False, t), in_size)
        # the same size: each output is its input taken twice, with weights 1 and 0
        upper = index if in_size == out_size else index + (index < in_size - 1)
        if in_size == out_size:
            frac = np.zeros_like(frac)
        return (np.concatenate([rows, rows]), np.concatenate([index, upper]),
                np.concatenate([t(1) - frac, frac]))
    index, frac = _guard(_source_index(s, out_size, align_corners, True, t), in_size)
    coeffs = _cubic_coefficients(frac)
    return (np.tile(rows, 4), np.clip(index + np.arange(-1, 3)[:, None], 0, in_size - 1).ravel(),
            coeffs.ravel())


def _axis_map(kind, in_size, out_size, align_corners, scale, t, forward=True):
    """(the (out, in) weight matrix of one axis, its taps' (positive, negative, zero) masks:
    Note [Non-finite taps] in conv.py)."""
    rows, cols, w = _resample_taps(kind, in_size, out_size, align_corners, scale, t, forward)
    m = _taps_matrix((rows, cols, w), (out_size, in_size), t)
    masks = []
    for sign in (w > 0, w < 0, w == 0):
        mask = np.zeros((out_size, in_size), bool)
        mask[rows[sign], cols[sign]] = True
        masks.append(mask)
    return m, tuple(masks)


# ---- the upsample rows ----------------------------------------------------------------------

def _interpolate(x, kind, output_size, align_corners, scales):
    """x resampled to output_size along its last len(output_size) axes."""
    d = len(output_size)
    if kind in ("nearest", "nearest-exact"):
        t = _opmath(x.dtype)
        # 2-D outputs of at most 128 rows + columns take PyTorch's channels-last kernel,
        # whose indices are the backward kernels' (nearest_idx)
        small = d == 2 and sum(output_size) <= 128
        for axis, (n, o, s) in enumerate(zip(x.shape[-d:], output_size, scales), x.ndim - d):
            x = np.take(x, _nearest_index(n, o, s, kind == "nearest-exact", t, small),
                        axis=axis)
        return np.ascontiguousarray(x)
    if x.dtype == np.uint8:
        return _interpolate_uint8(x, kind, output_size, align_corners, scales)
    t = _opmath(x.dtype)        # reduced floats compute in float and round once
    y = x.astype(t, copy=False)
    for axis, (n, o, s) in enumerate(zip(x.shape[-d:], output_size, scales), x.ndim - d):
        m, taps = _axis_map(kind, n, o, align_corners, s, t)
        y = conv._along(m, y, axis, taps)
    return np.ascontiguousarray(y.astype(x.dtype, copy=False))


# Note [uint8 interpolation]
# PyTorch resizes uint8 images as Pillow does: per axis (width first, then height), weights
# computed in double, rescaled to int16 at the precision the largest weight allows, summed
# in integers with a rounding half, shifted back and saturated to 0..255 after each pass.

def _uint8_weights(kind, in_size, out_size, align_corners, scale):
    """(int64 (out, in) weight matrix, precision) of one axis, as
    _compute_index_ranges_int16_weights makes them."""
    s = _area_scale(in_size, out_size, align_corners, scale, np.float64)
    if kind.startswith("aa-"):
        m = _aa_matrix(kind[3:], in_size, out_size, align_corners, scale, np.float64)
        wt_max = m.max(initial=0.0)
    else:
        # _compute_indices_min_size_weights: taps past the border accumulate on it; the
        # largest weight is the largest running sum (PyTorch tracks it while accumulating)
        cubic = kind == "cubic"
        taps = 4 if cubic else 2
        filt = (lambda v: np.where(np.abs(v) < 1, ((-0.75 + 2) * np.abs(v) - (-0.75 + 3))
                                   * np.abs(v) ** 2 + 1,
                                   np.where(np.abs(v) < 2, (((-0.75 * np.abs(v) + 5 * 0.75)
                                                             * np.abs(v) - 8 * 0.75)
                                                            * np.abs(v) + 4 * 0.75), 0.0))
                ) if cubic else (lambda v: np.maximum(0.0, 1.0 - np.abs(v)))
        index, lam = _guard(_source_index(s, out_size, align_corners, cubic, np.float64),
                            in_size)
        support = taps // 2
        lowest = index - support + 1
        m = np.zeros((out_size, in_size))
        rows = np.arange(out_size)
        wt_max = 0.0
        for j in range(taps):
            target = np.clip(lowest + j, 0, in_size - 1)
            np.add.at(m, (rows, target), filt((j + 1 - support) - lam))
            wt_max = max(wt_max, m[rows, target].max(initial=0.0))
    precision = 0
    while precision < 22 and int(0.5 + wt_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    v = m * (1 << precision)
    return np.trunc(np.where(v < 0, v - 0.5, v + 0.5)).astype(np.int64), precision


def _interpolate_uint8(x, kind, output_size, align_corners, scales):
    """Note [uint8 interpolation]."""
    d = len(output_size)
    y = x
    for i in range(d - 1, -1, -1):          # the last dim first
        axis = x.ndim - d + i
        n, o = y.shape[axis], output_size[i]
        if n == o:
            continue
        w, precision = _uint8_weights(kind, n, o, align_corners, scales[i])
        acc = conv._along(w, y.astype(np.int64), axis) + (1 << (precision - 1))
        y = np.clip(acc >> precision, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(y)


def _interpolate_backward(g, kind, output_size, input_size, align_corners, scales):
    d = len(output_size)
    t = _opmath(g.dtype)
    y = g.astype(t, copy=False)
    for axis, (n, o, s) in enumerate(zip(input_size[-d:], output_size, scales), g.ndim - d):
        m, taps = _axis_map(kind, n, o, align_corners, s, t, forward=False)
        y = conv._along(m.T, y, axis, tuple(mask.T for mask in taps))
    return np.ascontiguousarray(y.astype(g.dtype, copy=False))


_UPSAMPLE = {}     # (mode, dims, antialias) -> the forward row


def _upsample_rows(name, node, kind, dims):
    """The forward row `name` (node `node`) and its backward row, each the other's
    derivative."""
    backward = op(
        name + "_backward", node.replace("Backward0", "BackwardBackward0"),
        "grad_output, output_size, input_size, align_corners, scales",
        lambda g, output_size, input_size, align_corners, scales: _interpolate_backward(
            g, kind, output_size, input_size, align_corners, scales),
        function=False, method=False,
        grad_output=lambda grad, output_size, align_corners, scales: forward(
            grad, output_size, align_corners, scales))
    forward = op(
        name, node, "self, output_size, align_corners, scales",
        lambda x, output_size, align_corners, scales: _interpolate(
            x, kind, output_size, align_corners, scales),
        function=False, method=False,
        self=lambda grad, self_shape, output_size, align_corners, scales: backward(
            grad, output_size, tuple(self_shape), align_corners, scales))
    return forward


for _mode, _kind, _dims, _aa, _name, _node in [
        ("nearest", "nearest", 1, False, "upsample_nearest1d", "UpsampleNearest1DBackward0"),
        ("nearest", "nearest", 2, False, "upsample_nearest2d", "UpsampleNearest2DBackward0"),
        ("nearest", "nearest", 3, False, "upsample_nearest3d", "UpsampleNearest3DBackward0"),
        ("nearest-exact", "nearest-exact", 1, False, "_upsample_nearest_exact1d",
         "UpsampleNearestExact1DBackward0"),
        ("nearest-exact", "nearest-exact", 2, False, "_upsample_nearest_exact2d",
         "UpsampleNearestExact2DBackward0"),
        ("nearest-exact", "nearest-exact", 3, False, "_upsample_nearest_exact3d",
         "UpsampleNearestExact3DBackward0"),
        ("linear", "linear", 1, False, "upsample_linear1d", "UpsampleLinear1DBackward0"),
        ("bilinear", "linear", 2, False, "upsample_bilinear2d", "UpsampleBilinear2DBackward0"),
        ("trilinear", "linear", 3, False, "upsample_trilinear3d",
         "UpsampleTrilinear3DBackward0"),
        ("bicubic", "cubic", 2, False, "upsample_bicubic2d", "UpsampleBicubic2DBackward0"),
        ("bilinear", "aa-bilinear", 2, True, "_upsample_bilinear2d_aa",
         "UpsampleBilinear2DAaBackward0"),
        ("bicubic", "aa-bicubic", 2, True, "_upsample_bicubic2d_aa",
         "UpsampleBicubic2DAaBackward0"),
        ("lanczos", "aa-lanczos", 2, True, "_upsample_lanczos2d_aa",
         "UpsampleLanczos2DAaBackward0")]:
    _UPSAMPLE[_mode, _dims, _aa] = (_name, _upsample_rows(_name, _node, _kind, _dims))


_AXIS_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _kernel_name(name, mode, dims, antialias, output_size):
    """The CPU kernel whose dtype dispatch refuses an input, as PyTorch names it (2-D
    outputs of at most 128 rows + columns go to its channels-last kernels)."""
    if antialias:
        return "compute_index_ranges_weights"
    if dims == 2 and mode in ("nearest", "nearest-exact", "bilinear") \
            and sum(output_size) <= 128:
        base = "upsample_nearest2d" if mode.startswith("nearest") else "upsample_bilinear2d"
        return base + "_channels_last"
    return {"nearest": "compute_indices_weights_nearest",
            "nearest-exact": "compute_indices_weights_nearest",
            "bicubic": "compute_indices_weights_cubic"}.get(mode,
                                                            "compute_indices_weights_linear")


def _supported(mode, antialias, a):
    if a.kind == "f" or a.isbuiltin == 2 and a.kind == "V" and a.name == "bfloat16":
        return not (antialias and a != np.float32 and a != np.float64)
    return a == np.uint8 and mode in ("nearest", "nearest-exact", "bilinear", "bicubic",
                                      "lanczos")


def _upsample_vec(input, mode, output_size, scales, align_corners, antialias):
    """An upsample row's .vec overload: the output size from the scale factors when no size
    is given, PyTorch's checks, then the row."""
    dims = input.dim() - 2
    name, row = _UPSAMPLE[mode, dims, antialias]
    shape = list(input.shape)
    if output_size is None:
        output_size = [int(float(n) * s) for n, s in zip(shape[2:], scales)]
        given = tuple(float(s) for s in scales)
    else:
        output_size = [int(o) for o in output_size]
        given = (None,) * dims
    if min(shape[2:]) <= 0 or min(output_size) <= 0:
        axes = _AXIS_NAMES[dims]
        joiner = " and " if dims == 1 else " "
        raise RuntimeError("Input and output sizes should be greater than 0, but got input ("
                           + ", ".join(f"{a}: {n}" for a, n in zip(axes, shape[2:])) + ")"
                           + joiner + "output ("
                           + ", ".join(f"{a}: {n}" for a, n in zip(axes, output_size)) + ")")
    if input.numel() == 0 and not all(shape[1:]):
        raise RuntimeError(f"Non-empty {dims + 2}D data tensor expected but got a tensor with "
                           f"sizes {shape}")
    if not _supported(mode, antialias, input._data.dtype):
        conv._no_kernel(_kernel_name(name, mode, dims, antialias, output_size), input)
    if mode in ("nearest", "nearest-exact"):
        return row(input, tuple(output_size), None, given)
    return row(input, tuple(output_size), bool(align_corners), given)


def _is_integer(x):
    return isinstance(x, int) or (isinstance(x, Tensor) and not x.is_floating_point()
                                  and x.dim() == 0)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """nn.functional.interpolate: resample (N, C, *spatial) input to a size or by a scale
    factor, with PyTorch's argument rules (Note [Separable interpolation])."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                                "or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = [int(x) for x in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i])
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    modes = {3: ("nearest", "nearest-exact", "linear"), 4: ("nearest", "nearest-exact",
                                                            "bilinear", "bicubic"),
             5: ("nearest", "nearest-exact", "trilinear")}
    if mode in ("nearest", "nearest-exact") and input.dim() in modes:
        return _upsample_vec(input, mode, output_size, scale_factors, None, False)
    if mode == "area" and input.dim() in modes:
        return (conv.adaptive_avg_pool1d, conv.adaptive_avg_pool2d,
                conv.adaptive_avg_pool3d)[dim - 1](input, output_size)
    if input.dim() in modes and mode in modes[input.dim()]:
        return _upsample_vec(input, mode, output_size, scale_factors, align_corners, antialias)
    if input.dim() == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return _upsample_vec(input, mode, output_size, scale_factors, align_corners, True)
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if input.dim() in (3, 4, 5) and mode in needs:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{needs[mode]}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear"
        f" | lanczos | area | nearest-exact (got {mode})")


# ---- grid sampling --------------------------------------------------------------------------
# Note [Grid sampling as taps]
# grid_sampler_2d/3d read each output point from a few input positions ("taps": 2 per spatial
# dim for bilinear, 4 for bicubic, 1 for nearest), weighting each tap by a product of 1-D
# weights of the unnormalized coordinate along each dim. With the taps' flat indices, validity
# masks, weights and the weights' first and second derivatives in hand, the forward is a
# gather, the input gradient a scatter (one bincount), the grid gradient the gathered values
# times the weights' derivatives, and the double backward (PyTorch's GridSampler2DBackward-
# Backward0) the same pieces with the directional derivatives of the weights: all vectorized
# over points and channels, a Python loop only over the (at most 16) tap combinations.

_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}


def _unnormalize(coord, size, align_corners):
    """grid_sampler_unnormalize, and its derivative."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _reflect(x, twice_low, twice_high, dims):
    """reflect_coordinates: the 3-D (scalar) kernel's fmod, or the 2-D (vectorized) kernel's
    subtraction of the whole spans (which differs for huge coordinates)."""
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    shifted = x - low
    sign = np.where(shifted < 0, -1.0, 1.0)
    a = np.abs(shifted)
    flips = np.floor(a / span)
    extra = np.fmod(a, span) if dims == 3 else a - flips * span
    even = np.fmod(flips, 2) == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _pad_coordinates(x, size, padding_mode, align_corners, dims, backward=False):
    """compute_coordinates (border: clip; reflection: reflect then clip), and the factor its
    derivative multiplies by. Clipping takes a nan to 0 in PyTorch's 2-D (vectorized) kernel
    (its min/max), to the last index in its 3-D (scalar) kernel (std::min/max), whose
    backward's clip (comparisons) leaves it nan."""
    mult = np.ones_like(x)
    if padding_mode == 1 or padding_mode == 2:
        if padding_mode == 2:
            x, mult = _reflect(x, 0, 2 * (size - 1), dims) if align_corners else \
                _reflect(x, -1, 2 * size - 1, dims)
        inside = (x > 0) & (x < size - 1)
        mult = np.where(inside, mult, 0.0)
        x = np.clip(x, 0, size - 1)
        if dims == 2 or not backward:
            x = np.where(np.isnan(x), 0 if dims == 2 else size - 1, x)
    return x, mult


def _cubic_weights(t):
    """The bicubic coefficients (A = -0.75) of fraction t and their first and second
    derivatives in t: three (4, ...) arrays."""
    a = -0.75
    xs = (t + 1, t, 1 - t, 2 - t)
    signs = (1, 1, -1, -1)
    w, dw, d2w = [], [], []
    for k, (x, s) in enumerate(zip(xs, signs)):
        if k in (0, 3):      # |x| in [1, 2]: a x^3 - 5a x^2 + 8a x - 4a
            w.append(((a * x - 5 * a) * x + 8 * a) * x - 4 * a)
            dw.append(s * ((3 * a * x - 10 * a) * x + 8 * a))
            d2w.append(6 * a * x - 10 * a)
        else:                # |x| in [0, 1]: (a + 2) x^3 - (a + 3) x^2 + 1
            w.append(((a + 2) * x - (a + 3)) * x * x + 1)
            dw.append(s * ((3 * (a + 2) * x - 2 * (a + 3)) * x))
            d2w.append(6 * (a + 2) * x - 2 * (a + 3))
    return np.stack(w), np.stack(dw), np.stack(d2w)


def _axis_taps(coord, size, mode, padding_mode, align_corners, dims, backward):
    """The taps of one spatial dim: a list of (index, valid, w, dw, d2w), derivatives taken
    with respect to the grid coordinate."""
    ix, unit = _unnormalize(coord, size, align_corners)
    if mode == 2:                                    # bicubic: pads each tap's coordinate
        base = np.floor(ix)
        w, dw, d2w = _cubic_weights(ix - base)
        taps = []
        for k in range(4):
            c = base - 1 + k
            if padding_mode != 0:
                c, _ = _pad_coordinates(c, size, padding_mode, align_corners, dims, backward)
            index = np.where(np.isfinite(c), c, -1).astype(np.int64)
            valid = (index >= 0) & (index < size)
            taps.append((index, valid, w[k], dw[k] * unit, d2w[k] * unit * unit))
        return taps
    ix, mult = _pad_coordinates(ix, size, padding_mode, align_corners, dims, backward)
    ix = ix.astype(np.float64)
    mult = mult * unit
    zero = np.zeros_like(ix)
    if mode == 1:                                    # nearest: round half to even
        index = np.where(np.isfinite(ix), np.rint(ix), -1).astype(np.int64)
        return [(index, (index >= 0) & (index < size), np.ones_like(ix), zero, zero)]
    base = np.floor(ix)
    frac = ix - base
    # a non-finite coordinate has neither tap inside (PyTorch's int cast lands far outside)
    index = np.where(np.isfinite(base), base, -2).astype(np.int64)
    return [(index + k, (index + k >= 0) & (index + k < size), w, s * mult, zero)
            for k, w, s in ((0, 1 - frac, -1.0), (1, frac, 1.0))]


def _combos(x_shape, grid, mode, padding_mode, align_corners, backward=False):
    """Every tap combination: (flat index into the spatial dims, valid mask, weight W, the
    (D, ...) first derivatives dW/dgrid and (D, D, ...) second derivatives)."""
    sizes = x_shape[2:]
    d = len(sizes)
    # PyTorch unnormalizes and pads a float32 grid's coordinates in float32: a huge coordinate
    # reflects to another place than in float64
    if grid.dtype != np.float32:
        grid = grid.astype(np.float64)
    # grid's last dim holds (x, y[, z]): the last spatial dim first
    per_axis = [_axis_taps(grid[..., d - 1 - i], n, mode, padding_mode, align_corners, d,
                           backward) for i, n in enumerate(sizes)]
    strides = [int(np.prod(sizes[i + 1:])) for i in range(d)]
    out = []
    for taps in np.ndindex(*[len(t) for t in per_axis]):
        chosen = [per_axis[i][k] for i, k in enumerate(taps)]
        flat = sum(c[0] * s for c, s in zip(chosen, strides))
        valid = np.logical_and.reduce([c[1] for c in chosen])
        ws = [c[2] for c in chosen]
        weight = np.prod(ws, axis=0)
        grads, hess = [], []
        for i in range(d):
            others = [ws[j] for j in range(d) if j != i]
            rest = np.prod(others, axis=0) if others else 1.0
            grads.append(chosen[i][3] * rest)
            row = []
            for j in range(d):
                if i == j:
                    row.append(chosen[i][4] * rest)
                else:
                    others = [ws[m] for m in range(d) if m not in (i, j)]
                    rest2 = np.prod(others, axis=0) if others else 1.0
                    row.append(chosen[i][3] * chosen[j][3] * rest2)
            hess.append(row)
        # PyTorch's grid gradient lists the dims as the grid does: (x, y[, z])
        grads, hess = grads[::-1], [row[::-1] for row in hess[::-1]]
        if d == 3:      # PyTorch's 3-D kernel skips a tap outside (its weight may be nan)
            weight = np.where(valid, weight, 0.0)
            grads = [np.where(valid, v, 0.0) for v in grads]
            hess = [[np.where(valid, v, 0.0) for v in row] for row in hess]
        out.append((np.where(valid, flat, 0), valid, weight, grads, hess))
    return out


def _gather(x, flat, valid):
    """x (N, C, *S) at flat spatial indices (N, *P), zero where not valid: (N, C, *P)."""
    n, c = x.shape[:2]
    points = flat.shape[1:]
    src = x.reshape(n, c, int(np.prod(x.shape[2:])))
    picked = np.take_along_axis(src, flat.reshape(n, 1, int(np.prod(points))), axis=2)
    picked = picked.reshape((n, c) + points)
    return np.where(valid[:, None], picked, 0)


def _scatter(values, flat, valid, x_shape):
    """The adjoint of _gather: values (N, C, *P) added into zeros of x_shape."""
    n, c = x_shape[:2]
    size = int(np.prod(x_shape[2:]))
    points = int(np.prod(flat.shape[1:]))
    values = np.where(valid[:, None], values, 0).reshape(n, c, points)
    index = (np.arange(n * c).reshape(n, c, 1) * size + flat.reshape(n, 1, points))
    out = np.bincount(index.ravel(), values.ravel(), n * c * size)
    return out.reshape(x_shape)


def _grid_sample(x, grid, mode, padding_mode, align_corners):
    t = x.dtype
    out = np.zeros(x.shape[:2] + grid.shape[1:-1], np.float64)
    if not out.size:        # any dtypes (_check_grid_sampler)
        return out.astype(t)
    for flat, valid, w, _, _ in _combos(x.shape, grid, mode, padding_mode, align_corners):
        out += w[:, None] * _gather(x, flat, valid)
    return out.astype(t)


def _grid_sample_backward(g_out, x, grid, mode, padding_mode, align_corners, output_mask):
    gi = np.zeros(x.shape, np.float64)
    ggrid = np.zeros(grid.shape, np.float64)
    for flat, valid, w, grads, _ in _combos(x.shape, grid, mode, padding_mode, align_corners,
                                            backward=True):
        if output_mask[0]:
            gi += _scatter(w[:, None] * g_out, flat, valid, x.shape)
        if output_mask[1] and mode != 1:      # nearest: PyTorch fills zeros (no 0 * inf)
            dot = (g_out * _gather(x, flat, valid)).sum(1)
            for i, dw in enumerate(grads):
                ggrid[..., i] += dot * dw
    return gi.astype(x.dtype), ggrid.astype(grid.dtype)


def _grid_sample_double_backward(g_out, x, grid, ggi, gggrid, mode, padding_mode,
                                 align_corners):
    """(d grad_output, d input, d grid) of <ggi, grad_input> + <gggrid, grad_grid>."""
    d_out = np.zeros(g_out.shape, np.float64)
    d_x = np.zeros(x.shape, np.float64)
    d_grid = np.zeros(grid.shape, np.float64)
    b = gggrid.astype(np.float64)
    for flat, valid, w, grads, hess in _combos(x.shape, grid, mode, padding_mode, align_corners):
        vx, va = _gather(x, flat, valid), _gather(ggi, flat, valid)
        directional = sum(dw * b[..., i] for i, dw in enumerate(grads))
        d_out += w[:, None] * va + directional[:, None] * vx
        d_x += _scatter(directional[:, None] * g_out, flat, valid, x.shape)
        dot_a, dot_x = (g_out * va).sum(1), (g_out * vx).sum(1)
        for i, dw in enumerate(grads):
            d_grid[..., i] += dot_a * dw + dot_x * sum(h * b[..., j]
                                                       for j, h in enumerate(hess[i]))
    return d_out.astype(g_out.dtype), d_x.astype(x.dtype), d_grid.astype(grid.dtype)


def _grid_rows(dims):
    name = f"grid_sampler_{dims}d"
    node = f"GridSampler{dims}D"
    params = "interpolation_mode, padding_mode, align_corners"
    double = op(
        f"_{name}_double_backward", f"{node}BackwardBackwardBackward0",
        "grad_output, input, grid, ggi, gggrid, " + params, _grid_sample_double_backward,
        returns=list, function=False, method=False,
        **{k: no_derivative(f"{name}_backward") for k in ("grad_output", "input", "grid", "ggi",
                                                           "gggrid")})

    def third(i):
        return lambda grads, grad_output, input, grid, interpolation_mode, padding_mode, \
            align_corners: double(grad_output, input, grid, grads[0], grads[1],
                                  interpolation_mode, padding_mode, align_corners)[i]
    backward = op(
        f"{name}_backward", f"{node}BackwardBackward0",
        "grad_output, input, grid, " + params + ", output_mask", _grid_sample_backward,
        returns=("grad_input", "grad_grid"), function=False, method=False,
        grad_output=third(0), input=third(1), grid=third(2))

    def first(i, mask):
        return lambda grad, input, grid, interpolation_mode, padding_mode, align_corners: \
            backward(grad, input, grid, interpolation_mode, padding_mode, align_corners,
                     mask)[i]
    return op(name, f"{node}Backward0", "input, grid, " + params, _grid_sample,
              function=False, method=False,
              input=first(0, (True, False)), grid=first(1, (False, True)))


_grid_sampler_2d_row = _grid_rows(2)
_grid_sampler_3d_row = _grid_rows(3)


def _check_grid_sampler(input, grid, interpolation_mode, dims):
    shape, gshape = list(input.shape), list(grid.shape)
    if not input.dim() or not grid.dim():
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if shape[0] != gshape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {shape} and grid with sizes {gshape}")
    if gshape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {gshape}")
    for i in range(2, input.dim()):
        if shape[i] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {shape} with dimension {i} "
                               "being empty")
    if input.dim() != dims + 2 or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected {dims + 2}D input and grid with same "
                           f"number of dimensions, but got input with sizes {shape} and grid "
                           f"with sizes {gshape}")
    if dims == 3 and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    # PyTorch's kernels and their dtype checks run for a non-empty output only, but for the
    # input's dtype in 3-D
    empty = not shape[0] * shape[1] * math.prod(gshape[1:-1])
    if input._data.dtype.kind not in "fV" and (dims == 3 or not empty):
        conv._no_kernel(f"grid_sampler_{dims}d_cpu_kernel_impl" if dims == 2
                        else "grid_sampler3d_cpu", input)
    if empty:
        return
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                           f"{grid.dtype.legacy}")


@public(method=False)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """Samples (N, C, H, W) input at the (N, H', W', 2) grid's normalized (x, y) points."""
    _check_grid_sampler(input, grid, interpolation_mode, 2)
    return _grid_sampler_2d_row(input, grid, interpolation_mode, padding_mode, align_corners)


@public(method=False)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """Samples (N, C, D, H, W) input at the (N, D', H', W', 3) grid's (x, y, z) points."""
    _check_grid_sampler(input, grid, interpolation_mode, 3)
    return _grid_sampler_3d_row(input, grid, interpolation_mode, padding_mode, align_corners)


@public(method=False)
@Signature("grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
           "bool align_corners)").bind
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """at::grid_sampler: grid_sampler_2d for 4-D input, grid_sampler_3d otherwise."""
    if input.dim() == 4:
        return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
    return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners)


_GRID_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners="
                 "False since 1.3.0. Please specify align_corners=True if the old behavior is "
                 "desired. See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """nn.functional.grid_sample: input sampled at the grid's normalized coordinates."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_GRID_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, ("bilinear", "nearest", "bicubic").index(mode),
                        ("zeros", "border", "reflection").index(padding_mode), align_corners)


# ---- affine_grid_generator ------------------------------------------------------------------

def _linspace_from_neg_one(num_steps, align_corners, dtype):
    if num_steps <= 1:
        return np.zeros(1, dtype)
    r = np.linspace(-1, 1, num_steps).astype(dtype)
    return r if align_corners else r * (num_steps - 1) / num_steps


def _base_grid(size, align_corners, dtype):
    """make_base_grid_4D/5D: (*spatial, D + 1) points (x, y[, z], 1)."""
    spatial = size[2:]
    d = len(spatial)
    base = np.ones(tuple(spatial) + (d + 1,), dtype)
    for i in range(d):                 # coordinate i runs along spatial dim d - 1 - i
        axis = d - 1 - i
        shape = [1] * d
        shape[axis] = spatial[axis]
        base[..., i] = _linspace_from_neg_one(spatial[axis], align_corners,
                                              dtype).reshape(shape)
    return base


def _affine_grid(theta, size, align_corners):
    n = size[0]
    points = int(np.prod(size[2:]))
    base = _base_grid(size, align_corners, theta.dtype if theta.dtype.kind == "f"
                      else np.float32).reshape(1, points, -1)
    grid = np.matmul(np.broadcast_to(base, (n,) + base.shape[1:]).astype(theta.dtype),
                     theta.transpose(0, 2, 1))
    return grid.reshape((n,) + tuple(size[2:]) + (len(size) - 2,))


def _affine_grid_backward(grad, size, align_corners):
    """affine_grid_generator_backward as ATen composes it: base^T bmm grad, transposed."""
    n = size[0]
    points = int(np.prod(size[2:]))
    d = len(size) - 2
    base = make_tensor(np.ascontiguousarray(np.broadcast_to(
        _base_grid(size, align_corners, grad._data.dtype).reshape(1, points, d + 1),
        (n, points, d + 1))))
    return base.transpose(1, 2).bmm(grad.view(n, points, d)).transpose(1, 2)


affine_grid_generator_row = op(
    "affine_grid_generator", "AffineGridGeneratorBackward0", "theta, size, align_corners",
    _affine_grid, function=False, method=False,
    theta=lambda grad, size, align_corners: _affine_grid_backward(grad, size, align_corners))


@public(method=False)
def affine_grid_generator(theta, size, align_corners):
    """The (N, *spatial, D) grid of the affine maps theta (N, D, D + 1) over size's spatial
    dims in normalized coordinates."""
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    n, d = size[0], len(size) - 2
    points = int(np.prod(size[2:]))
    if theta.dim() != 3 or theta.shape[0] != n or theta.shape[2] != d + 1:
        if theta.dim() == 3 and theta.shape[0] != n:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{n}, {d + 1}] but got: [{theta.shape[0]}, {theta.shape[2]}].")
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {d + 1}] but got: {list(theta.shape[:1])}.")
    if theta.shape[1] != d:
        raise RuntimeError(f"shape '{list((n,) + size[2:] + (d,))}' is invalid for input of "
                           f"size {n * points * theta.shape[1]}")
    return affine_grid_generator_row(theta, size, align_corners)


def affine_grid(theta, size, align_corners=None):
    """nn.functional.affine_grid: the sampling grid of a batch of affine matrices."""
    if align_corners is None:
        warnings.warn(_GRID_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


# ---- CTC loss -------------------------------------------------------------------------------
# Note [CTC]
# PyTorch's CPU kernels (LossCTC.cpp), vectorized over the batch and the extended target
# positions s (target labels interleaved with blanks); the recursion over time is inherent.
# Each step is PyTorch's three-term log-sum-exp with its max trick. The gradient is PyTorch's:
# exp(log_prob) - exp(log(sum of alpha*beta over the positions of that label) + nll - log_prob)
# times the incoming gradient, which is the gradient through a log_softmax that produced
# log_probs (not the plain derivative of the nll), and zero for a loss that is infinite when
# zero_infinity is set. The backward is not differentiable, as in PyTorch.

_NEGINF = -np.inf


def _extended_targets(targets, target_lengths, blank, concatenated):
    """(B, 2*max+1) labels of the extended targets (blank, l1, blank, l2, ..., blank), and
    whether position s may skip from s-2 (a label differing from the one two back)."""
    b = len(target_lengths)
    longest = max(target_lengths) if b else 0
    labels = np.full((b, 2 * longest + 1), blank, np.int64)
    offsets = np.concatenate([[0], np.cumsum(target_lengths)[:-1]]) if concatenated else None
    for i, n in enumerate(target_lengths):     # one slice per sequence, not per element
        row = targets[offsets[i]:offsets[i] + n] if concatenated else targets[i, :n]
        labels[i, 1:2 * n:2] = row
    skip = np.zeros(labels.shape, bool)
    skip[:, 2:] = labels[:, 2:] != labels[:, :-2]
    return labels, skip


def _lse3(a, b, c):
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(m == _NEGINF, 0, m)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m)) + m


def _ctc_forward(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    t_max, b, _ = log_probs.shape
    labels, skip = _extended_targets(targets, target_lengths, blank, targets.ndim == 1)
    s_max = labels.shape[1]
    lengths = np.asarray(target_lengths)
    in_range = np.arange(s_max) < (2 * lengths[:, None] + 1)
    lp = log_probs.transpose(1, 0, 2)                                 # (B, T, C)
    emit = np.take_along_axis(lp, np.broadcast_to(labels[:, None], (b, t_max, s_max)), 2)
    log_alpha = np.full((b, t_max, s_max), _NEGINF, log_probs.dtype)
    if t_max:
        first = np.full((b, s_max), _NEGINF, log_probs.dtype)
        first[:, 0] = emit[:, 0, 0]
        has_label = lengths > 0
        if s_max > 1:
            first[has_label, 1] = emit[has_label, 0, 1]
        log_alpha[:, 0] = first
    neg = np.full((b, s_max), _NEGINF, log_probs.dtype)
    for t in range(1, t_max):
        prev = log_alpha[:, t - 1]
        one = np.concatenate([neg[:, :1], prev[:, :-1]], 1)
        two = np.where(skip, np.concatenate([neg[:, :2], prev[:, :-2]], 1), _NEGINF)
        log_alpha[:, t] = np.where(in_range, _lse3(prev, one, two) + emit[:, t], _NEGINF)
    nll = np.empty(b, log_probs.dtype)
    for i, (n_in, n_tg) in enumerate(zip(input_lengths, target_lengths)):
        if n_in == 0:
            nll[i] = -(0.0 if n_tg == 0 else _NEGINF)
        elif n_tg == 0:
            nll[i] = -log_alpha[i, n_in - 1, 0]
        else:
            l1, l2 = log_alpha[i, n_in - 1, 2 * n_tg], log_alpha[i, n_in - 1, 2 * n_tg - 1]
            m = max(l1, l2)
            m = 0 if m == _NEGINF else m
            nll[i] = -(np.log(np.exp(l1 - m) + np.exp(l2 - m)) + m)
    return nll, log_alpha


def _ctc_backward(grad, log_probs, targets, input_lengths, target_lengths, nll, log_alpha,
                  blank, zero_infinity):
    t_max, b, c = log_probs.shape
    labels, skip = _extended_targets(targets, target_lengths, blank, targets.ndim == 1)
    s_max = labels.shape[1]
    lengths = np.asarray(target_lengths)
    in_len = np.asarray(input_lengths)
    last_s = 2 * lengths
    in_range = np.arange(s_max) <= last_s[:, None]
    lp = log_probs.transpose(1, 0, 2)
    emit = np.take_along_axis(lp, np.broadcast_to(labels[:, None], (b, t_max, s_max)), 2)
    log_beta = np.full((b, t_max, s_max), _NEGINF, log_probs.dtype)
    # two-back skips, seen from s: allowed when label(s + 2) differs from label(s)
    skip_fwd = np.zeros(labels.shape, bool)
    skip_fwd[:, :-2] = skip[:, 2:]
    neg = np.full((b, s_max), _NEGINF, log_probs.dtype)
    rows = np.arange(b)
    for t in range(t_max - 1, -1, -1):
        start = in_len - 1 == t                      # the sequences whose last step is t
        following = log_beta[:, t + 1] if t + 1 < t_max else neg
        one = np.where(np.arange(s_max) < last_s[:, None],
                       np.concatenate([following[:, 1:], neg[:, :1]], 1), _NEGINF)
        two = np.where(skip_fwd & (np.arange(s_max) < last_s[:, None] - 1),
                       np.concatenate([following[:, 2:], neg[:, :2]], 1), _NEGINF)
        step = np.where(in_range & (t < in_len - 1)[:, None],
                        _lse3(following, one, two) + emit[:, t], _NEGINF)
        init = np.full((b, s_max), _NEGINF, log_probs.dtype)
        init[rows, last_s] = emit[rows, t, last_s]
        has_label = lengths > 0
        init[rows[has_label], last_s[has_label] - 1] = emit[rows[has_label], t,
                                                            last_s[has_label] - 1]
        log_beta[:, t] = np.where(start[:, None], init, step)
    with np.errstate(invalid="ignore", over="ignore"):
        ab = np.where(in_range[:, None], log_alpha + log_beta, _NEGINF)   # (B, T, S)
        # log of the sum of exp(ab) over the positions s of each label
        flat = (rows[:, None, None] * t_max + np.arange(t_max)[None, :, None]) * c \
            + labels[:, None, :]
        top = np.full(b * t_max * c, _NEGINF, log_probs.dtype)
        np.maximum.at(top, flat.ravel(), ab.ravel())
        top = top.reshape(b, t_max, c)
        shift = np.where(top == _NEGINF, 0, top)
        sums = np.bincount(flat.ravel(), np.exp(ab - np.take_along_axis(
            shift, np.broadcast_to(labels[:, None], ab.shape), 2)).ravel(), b * t_max * c)
        lcab = np.log(sums.reshape(b, t_max, c)) + shift
        g = (np.exp(lp) - np.exp(lcab + nll[:, None, None] - lp)) * grad[:, None, None]
    g = np.where(np.arange(t_max)[None, :, None] < in_len[:, None, None], g, 0)
    if zero_infinity:
        g = np.where(np.isinf(nll)[:, None, None], 0, g)
    return np.ascontiguousarray(g.transpose(1, 0, 2)).astype(log_probs.dtype)


_ctc_loss_backward = op(
    "_ctc_loss_backward", NOT_IMPLEMENTED,
    "grad, log_probs, neg_log_likelihood, targets, input_lengths, target_lengths, log_alpha, "
    "blank, zero_infinity",
    lambda g, lp, nll, targets, il, tl, alpha, blank, zi: _ctc_backward(
        g, lp, targets, il, tl, nll, alpha, blank, zi),
    function=False, method=False,
    **{k: no_derivative("aten::_ctc_loss_backward") for k in ("grad", "log_probs",
                                                              "neg_log_likelihood")})

_ctc_loss_row = op(
    "_ctc_loss", "CtcLossBackward0",
    "log_probs, targets, input_lengths, target_lengths, blank, zero_infinity",
    _ctc_forward, returns=list, differentiable_outputs=(0,), function=False, method=False,
    log_probs=lambda grads, log_probs, targets, input_lengths, target_lengths, blank,
    zero_infinity, result0, result1: _ctc_loss_backward(
        grads[0], log_probs, result0, targets, input_lengths, target_lengths, result1._data,
        blank, zero_infinity))


_CTC = " (while checking arguments for ctc_loss_allocate_outputs)"


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank):
    """ctc_loss_allocate_outputs' checks, in its order."""
    if targets._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #2 'targets' to have scalar type Int; "
                           f"but got {targets.type()} instead" + _CTC)
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-"
                           "dimensional tensor for argument #1 'log_probs'" + _CTC)
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           "tensor for argument #2 'targets'" + _CTC)
    batch, labels = log_probs.shape[1], log_probs.shape[2]
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in target_lengths:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                               f"{n}" + _CTC)
    if targets.dim() == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got "
                               f"size {targets.shape[0]} for argument #2 'targets'" + _CTC)
    else:
        if targets.shape[0] != batch:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got "
                               f"size {targets.shape[0]} for argument #2 'targets'" + _CTC)
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                               f"but got size {targets.shape[1]} for argument #2 'targets'"
                               + _CTC)
    for n in input_lengths:
        if n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{n}" + _CTC)
        if n > log_probs.shape[0]:
            raise RuntimeError(f"Expected input_lengths to have value at most "
                               f"{log_probs.shape[0]}, but got value {n}" + _CTC)
    if log_probs._data.dtype.kind != "f" or log_probs._data.dtype == np.float16:
        conv._no_kernel("ctc_loss_cpu", log_probs)


def _lengths(name, v):
    """An int list argument, or a 1-D integral tensor of them (the Tensor overload)."""
    if isinstance(v, Tensor):
        if v._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(n) for n in v._data.ravel())
    return tuple(int(n) for n in v)


@public(method=False)
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """(neg_log_likelihood, log_alpha) of the CTC loss of (T, N, C) log_probs."""
    input_lengths = _lengths("input_lengths", input_lengths)
    target_lengths = _lengths("target_lengths", target_lengths)
    _check_ctc(log_probs, targets, input_lengths, target_lengths, blank)
    return tuple(_ctc_loss_row(log_probs, targets._data, input_lengths, target_lengths, blank,
                               zero_infinity))


@public(method=False)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """at::ctc_loss: the Connectionist Temporal Classification loss (reduction 0 none, 1 mean
    over target lengths then batch, 2 sum), as ATen composes it."""
    input_lengths = _lengths("input_lengths", input_lengths)
    target_lengths = _lengths("target_lengths", target_lengths)
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    res = _ctc_loss(lp, targets.long(), input_lengths, target_lengths, blank, zero_infinity)[0]
    if zero_infinity:
        res = FUNCTIONS["where"](res == float("inf"), make_tensor(np.zeros((), res._data.dtype)),
                                 res)
    if reduction == 1:
        lengths = make_tensor(np.asarray(target_lengths, res._data.dtype)).clamp_min(1)
        return (res / lengths).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def functional_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
                        reduction="mean", zero_infinity=False):
    """nn.functional.ctc_loss: torch.ctc_loss with the reduction named."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated, please use reduction='mean' "
                      "instead.", stacklevel=2)
        reduction = "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    _REDUCTIONS[reduction], zero_infinity)


def _deprecated_upsample(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """nn.functional.upsample: deprecated interpolate."""
    _deprecated_upsample("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """nn.functional.upsample_nearest: deprecated interpolate(mode='nearest')."""
    _deprecated_upsample("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """nn.functional.upsample_bilinear: deprecated interpolate(mode='bilinear',
    align_corners=True)."""
    _deprecated_upsample("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
