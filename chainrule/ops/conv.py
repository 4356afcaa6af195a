"""Convolution, folding and pooling rows.

Each fused backward (`convolution_backward`, `max_pool2d_with_indices_backward`,
`avg_pool2d_backward`, `_adaptive_avg_pool2d_backward`) is a row of its own with its own
derivatives, as in PyTorch's derivatives.yaml, so double backward keeps working.

Convolution (plain or transposed, any number of spatial dims) is im2col into channel-major
columns and one matmul per group; see Note [Window layout].
The public complex convolutions are PyTorch's composition of three real ones (Gauss's trick,
_complex_convolution): the same graph, and the same nan where an inf meets the trick's sums.
im2col/col2im (nn.functional.unfold/fold) are each other's adjoints. Average pooling is
separable: out = Mh @ x @ Mw^T with per-axis window matrices, whose transposes give the
gradient.
"""

import functools
import math
import operator
import threading

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import _dtype
from .._check import _check_value
from .._dims import wrap_dim
from ..autograd import grad_mode
from .aliasing import view_as_real
from .binding import Overloads, Signature, _not_tensor
from .nn_ops import _nonempty_grad, mul_scalar
from .padding import constant_pad_nd
from .pointwise import _zeros, _zeros_of
from .._tensor import Tensor
from .registry import FUNCTIONS, op, public
from .shape import _warn_once

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "convolution", "conv_tbc", "unfold", "fold", "max_pool1d",
           "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices",
           "functional_max_pool1d", "functional_max_pool2d", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "fractional_max_pool2d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_unpool1d", "max_unpool2d", "max_unpool3d"]


# ---- convolution --------------------------------------------------------------------------
# Note [Window layout]
# Every convolution is a matmul against im2col columns laid out channel-major: one row per
# (input channel, kernel tap), one column per window position of every image, so
# (g, C/g * prod(K), N * L) with the groups as the batch dim. The forward (_corr) is then one
# matmul per group whose (O, N * L) result takes one copy to become (N, O, *O), and the weight
# gradient (_weight_grad) is one matmul per group, (O/g, N * L) @ (N * L, C/g * prod(K)),
# already in the weight's layout (no per-image products to sum). _columns builds the
# columns: with unit strides as contiguous runs of the flattened input (Note [Flat
# windows]), otherwise as a copy of the strided window view (_conv_windows: (N, C, *K, *O),
# the kernel taps first). The input gradient (_input_grad) is kernel^T times the gradient,
# per-window columns that col2im adds back, one add per kernel tap (with unit strides, of
# whole runs; the correlation of the gradient with the flipped kernel measured slower: its
# columns are prod(K) times the gradient's size and its matmul has few rows). A transposed
# convolution is the adjoint of a plain one, so the same three serve it with the roles
# swapped: its forward is _input_grad, its input gradient _corr, its weight gradient
# _weight_grad with input and gradient exchanged.
#
# Note [Flat windows]
# With unit strides, each tap's columns are one contiguous run of the flattened padded input
# per plane. The first spatial dim is padded on both sides; every later dim i gets lo_i zeros
# in front and is laid out with a row length E_i >= S_i + max(lo_i, hi_i), so the zeros that
# end one row are the front padding of the next: a window that runs past the end of a row
# reads only zeros. Output position o then sits at the flat index sum(o_i * F_i) (F: the
# flat strides) and tap t reads that index plus sum(t_i * dl_i * F_i), the same offset for
# every position: the columns of tap t are the L = O_0 * F_0 values from there, and the
# E_i - O_i extra positions per row are computed and dropped (a gradient put on the grid
# is zero there: _on_grid; their windows reach into the next row). Copying runs of L values is
# about 3x faster than copying a window view row by row (runs of W values), and saves more
# than the extra positions cost the matmul (E_i - O_i = lo_i for the usual "same" padding).

def _conv_windows(xp, kernel, stride, dilation):
    """(N, C, *K, *O) windows of a padded (N, C, *S) array (Note [Window layout])."""
    d = len(kernel)
    span = tuple((k - 1) * dl + 1 for k, dl in zip(kernel, dilation))
    win = sliding_window_view(xp, span, axis=tuple(range(2, 2 + d)))
    positions = tuple(slice(None, None, s) for s in stride)
    win = win[(slice(None),) * 2 + positions + tuple(slice(None, None, dl) for dl in dilation)]
    return win.transpose((0, 1) + tuple(range(2 + d, 2 + 2 * d)) + tuple(range(2, 2 + d)))


def _positions(size, kernel, stride, dilation, lo, hi):
    """The output size of a correlation of `size` padded by lo/hi."""
    return tuple((s + a + b - dl * (k - 1) - 1) // st + 1
                 for s, a, b, k, st, dl in zip(size, lo, hi, kernel, stride, dilation))


class _Flat:
    """Note [Flat windows]'s layout of (C, N, plane) buffers for a unit-stride correlation of
    inputs of spatial `size` padded by lo/hi (all arguments tuples; made once per geometry
    by _flat: this Python arithmetic costs about as much as a small convolution)."""

    def __init__(self, size, kernel, dilation, lo, hi):
        self.size, self.kernel, self.dilation = size, kernel, dilation
        self.out = _positions(size, kernel, (1,) * len(size), dilation, lo, hi)
        self.grid = self.out[:1] + tuple(max(s + max(a, b), o) for s, a, b, o in zip(
            size[1:], lo[1:], hi[1:], self.out[1:]))
        ext = (size[0] + lo[0] + hi[0],) + self.grid[1:]
        self.flat = tuple(math.prod(ext[i + 1:]) for i in range(len(size)))
        self.plane = math.prod(ext) + sum(
            (k - 1) * dl * f for k, dl, f in zip(kernel[1:], dilation[1:], self.flat[1:]))
        self.start = sum(a * f for a, f in zip(lo, self.flat))
        self.length = self.out[0] * self.flat[0]
        self.offsets = [sum(t * dl * f for t, dl, f in zip(tap, dilation, self.flat))
                        for tap in np.ndindex(*kernel)]       # of each tap, row-major

    def interior(self, buf):
        """The (C, N, *size) view of a (contiguous) buffer's input values."""
        item, (cs, ns, _) = buf.itemsize, buf.strides
        return np.ndarray(buf.shape[:2] + self.size, buf.dtype, buf, self.start * item,
                          (cs, ns) + tuple(f * item for f in self.flat))

    def runs(self, buf):
        """The (C, *K, N, L) view of each tap's run of each plane of a (contiguous) buffer."""
        item, (cs, ns, _) = buf.itemsize, buf.strides
        return np.ndarray(buf.shape[:1] + self.kernel + (buf.shape[1], self.length), buf.dtype,
                          buf, 0, (cs,) + tuple(dl * f * item for dl, f in zip(
                              self.dilation, self.flat)) + (ns, item))


@functools.lru_cache(maxsize=128)
def _flat(size, kernel, dilation, lo, hi):
    return _Flat(size, kernel, dilation, lo, hi)


# Note [Workspaces]
# A CNN step frees and allocates the same large temporaries (columns, padded planes, matmul
# results) every step. glibc returns the freed top of its heap to the OS and the next step
# faults every page back in: run alone, the small CNN step took ~1,450 page faults and
# 2.7 ms of system time out of 7.3 ms. The kernels below therefore take their temporaries
# from a per-thread cache keyed by role and geometry, kept between calls; results are always
# fresh arrays. Only arrays up to _WORKSPACE_ENTRY bytes are kept, and the cache is emptied
# when it would pass _WORKSPACE_TOTAL, so a thread holds at most that much. (Raising glibc's
# trim and mmap thresholds with mallopt removes the faults too, but for the whole process:
# every later allocation of the user's program keeps its memory.)

_WORKSPACE_ENTRY, _WORKSPACE_TOTAL = 16 << 20, 64 << 20
_workspaces = threading.local()


def _workspace(key, shape, dtype):
    """A scratch array of `shape` for `key` (which must determine everything its caller relies
    on between calls, such as which elements stay zero), zeros when first made."""
    cache = getattr(_workspaces, "arrays", None)
    if cache is None:
        cache = _workspaces.arrays = {}
    key = (key, shape, dtype)
    found = cache.get(key)
    if found is not None:
        return found
    made = np.zeros(shape, dtype)
    if made.nbytes <= _WORKSPACE_ENTRY:
        if sum(a.nbytes for a in cache.values()) + made.nbytes > _WORKSPACE_TOTAL:
            cache.clear()
        cache[key] = made
    return made


def _columns(x, kernel, stride, dilation, lo, hi, groups, ones=False):
    """im2col of x padded by lo/hi zeros per spatial dim (Note [Window layout]): the
    (g, C/g * prod(K), N * L) columns (with `ones`, one more row of ones per group: a bias's),
    the grid each image's L positions unflatten to, and the output size; output position o
    is at index o of the grid."""
    n, c, d = x.shape[0], x.shape[1], len(kernel)
    if any(st != 1 for st in stride):
        windows = np.moveaxis(_conv_windows(_pad(x, lo, hi), kernel, stride, dilation), 0, 1 + d)
        grid = out = windows.shape[2 + d:]
    else:
        layout = _flat(x.shape[2:], tuple(kernel), tuple(dilation), tuple(lo), tuple(hi))
        # the padding is zeros from the start and never written (Note [Workspaces])
        buf = _workspace(("planes", layout), (c, n, layout.plane), x.dtype)
        layout.interior(buf)[...] = x.swapaxes(0, 1)
        windows, grid, out = layout.runs(buf), layout.grid, layout.out
    rows = c // groups * math.prod(kernel)
    cols = _workspace("columns", (groups, rows + ones, n * math.prod(grid)), x.dtype)
    # (C, *K, N, *grid) windows copied into the rows, both viewed per group
    split = (groups, c // groups) + tuple(kernel) + (n,) + tuple(grid)
    cols[:, :rows].reshape(split)[...] = windows.reshape(split)
    if ones:
        cols[:, rows] = 1
    return cols, grid, out


def _zero_past(a, out):
    """Zeros at the positions of a (..., *grid) array past `out`: Note [Flat windows]'s
    extra positions (and those past a transposed convolution's gradient), whose products
    with non-finite values (0 * inf, w * 0 for an infinite w) would otherwise reach the
    real ones as nan."""
    d = len(out)
    for i, o in enumerate(out):
        a[(Ellipsis, slice(o, None)) + (slice(None),) * (d - 1 - i)] = 0


def _on_grid(g, grid):
    """g (N, O, *O) as (O, N, *grid), zeros at the grid positions past g's (a workspace)."""
    res = _workspace(("grid", g.shape), (g.shape[1], g.shape[0]) + tuple(grid), g.dtype)
    res[(slice(None),) * 2 + tuple(slice(0, s) for s in g.shape[2:])] = g.swapaxes(0, 1)
    return res


def _col2im(cols, shape, kernel, stride, dilation, out):
    """The adjoint of the window view (_conv_windows): each window column, (N, C, *K, *O),
    added back onto zeros of `shape` (one vectorized slice-add per kernel tap, over all
    windows at once)."""
    n, c = shape[:2]
    cols = cols.reshape((n, c) + tuple(kernel) + tuple(out))
    res = np.zeros(shape, cols.dtype)
    lead = (slice(None),) * 2
    for tap in np.ndindex(*kernel):
        res[lead + tuple(slice(t * dl, t * dl + (o - 1) * s + 1, s)
                         for t, dl, o, s in zip(tap, dilation, out, stride))] += cols[lead + tap]
    return res


def _pad(x, lo, hi):
    """x with lo/hi zeros before/after each spatial dim."""
    if not any(lo) and not any(hi):
        return x
    res = np.zeros(x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi)),
                   x.dtype)
    res[(slice(None),) * 2 + tuple(slice(a, a + s) for a, s in zip(lo, x.shape[2:]))] = x
    return res


def _grouped_weight(w, groups):
    """(O, C/g, *K) weights as (g, O/g, C/g * prod(K))."""
    return w.reshape(groups, w.shape[0] // groups, math.prod(w.shape[1:]))


def _corr(x, w, stride, lo, hi, dilation, groups, out=None, b=None):
    """Cross-correlation of x, padded by lo/hi, with (O, C/g, *K) weights, plus a bias b, as a
    contiguous (N, O, *O) array; `out` keeps only the first positions (a transposed
    convolution's gradient has more than fit its input)."""
    n, o = x.shape[0], w.shape[0]
    cols, grid, size = _columns(x, w.shape[2:], stride, dilation, lo, hi, groups, b is not None)
    wm = _grouped_weight(w, groups)
    if b is not None:       # a column of the weights against the row of ones: no pass to add
        wm = np.concatenate([wm, b.reshape(groups, -1, 1).astype(wm.dtype)], 2)
    res = _workspace("product", cols.shape[:1] + wm.shape[1:2] + cols.shape[2:],
                     np.result_type(wm, cols))
    np.matmul(wm, cols, out=res)
    keep = tuple(slice(0, s) for s in (out or size))
    return res.reshape((o, n) + grid)[(slice(None),) * 2 + keep].swapaxes(0, 1).copy()


def _input_grad(g, w, size, stride, padding, dilation, groups):
    """The adjoint of _corr in its input, for an input of spatial `size`, contiguous: kernel^T
    times the gradient gives each window's column, which col2im adds back, one add per tap
    (with unit strides, of whole runs: Note [Flat windows])."""
    n, o, d = g.shape[0], g.shape[1], len(size)
    c, kernel = w.shape[1] * groups, w.shape[2:]
    wt = _grouped_weight(w, groups).transpose(0, 2, 1)
    if all(s == 1 for s in stride):
        layout = _flat(tuple(size), kernel, tuple(dilation), tuple(padding), tuple(padding))
        gm = _on_grid(g, layout.grid).reshape(groups, o // groups, -1)
        cols = _workspace("product", gm.shape[:1] + wt.shape[1:2] + gm.shape[2:],
                          np.result_type(wt, gm))
        np.matmul(wt, gm, out=cols)
        if layout.grid != g.shape[2:] and not np.isfinite(w).all():
            _zero_past(cols.reshape(cols.shape[:2] + (n,) + layout.grid), g.shape[2:])
        cols = cols.reshape(c, -1, n, layout.length)
        buf = _workspace(("sums", layout), (c, n, layout.plane), cols.dtype)
        buf[...] = 0
        for tap, offset in enumerate(layout.offsets):
            buf[:, :, offset:offset + layout.length] += cols[:, tap]
        return layout.interior(buf).swapaxes(0, 1).copy()
    gm = np.ascontiguousarray(g.swapaxes(0, 1)).reshape(groups, o // groups, -1)
    cols = (wt @ gm).reshape((c,) + kernel + (n,) + g.shape[2:])
    padded = (n, c) + tuple(s + 2 * p for s, p in zip(size, padding))
    full = _col2im(np.moveaxis(cols, 1 + d, 0), padded, kernel, stride, dilation, g.shape[2:])
    return np.ascontiguousarray(
        full[(slice(None),) * 2 + tuple(slice(p, p + s) for p, s in zip(padding, size))])


def _weight_grad(x, g, kernel, stride, padding, dilation, groups):
    """The gradient of _corr(x, w) (padding on both sides) in w, for output gradient g (its
    positions may be the first of x's, as in a transposed convolution's)."""
    n, o = g.shape[:2]
    cols, grid, _ = _columns(x, kernel, stride, dilation, padding, padding, groups)
    if tuple(grid) != g.shape[2:] and not np.isfinite(x).all():
        _zero_past(cols.reshape(cols.shape[:2] + (n,) + tuple(grid)), g.shape[2:])
    gm = _on_grid(g, grid).reshape(groups, o // groups, -1)
    # cols @ gm^T, transposed after, is 10% faster in OpenBLAS than gm @ cols^T
    gw = (cols @ gm.transpose(0, 2, 1)).transpose(0, 2, 1)
    return gw.reshape((o, x.shape[1] // groups) + tuple(kernel))


def _transposed_size(size, w, stride, padding, dilation, output_padding):
    return tuple((i - 1) * s - 2 * p + dl * (k - 1) + op + 1 for i, k, s, p, dl, op in zip(
        size, w.shape[2:], stride, padding, dilation, output_padding))


def _empty_dtype(x, w):
    """The dtype of PyTorch's Empty backend: input * weight.flatten()[0] (a 0-d tensor), or
    input.flatten() * weight.flatten() for no input channels."""
    return _dtype.result_type([x, w.reshape(-1) if not x.shape[1] else w.reshape(-1)[:1]
                               .reshape(())])


def _empty_convolution(x, w, stride, padding, dilation, transposed, output_padding, groups):
    """PyTorch's result for an input with no elements (no batch or no channels): the output
    shape, except that a plain convolution of no input channels has no output channels."""
    if transposed:
        size = _transposed_size(x.shape[2:], w, stride, padding, dilation, output_padding)
        channels = w.shape[1] * groups
    else:
        size = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, s, p, d in zip(
            x.shape[2:], w.shape[2:], stride, padding, dilation))
        channels = w.shape[0] if x.shape[1] else 0
    return np.zeros((x.shape[0], channels) + size, _empty_dtype(x, w).np)


def _convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    if x.size == 0:
        return _empty_convolution(x, w, stride, padding, dilation, transposed, output_padding,
                                  groups)
    if not transposed:
        return _corr(x, w, stride, padding, padding, dilation, groups, b=b)
    size = _transposed_size(x.shape[2:], w, stride, padding, dilation, output_padding)
    out = _input_grad(x, w, size, stride, padding, dilation, groups)
    if b is not None:
        out += b.reshape((-1,) + (1,) * (x.ndim - 2))
    return out


def _convolution_backward(g, x, w, stride, padding, dilation, transposed, output_padding,
                          groups, output_mask):
    if x.size == 0:
        return np.zeros(x.shape, g.dtype), np.zeros(w.shape, g.dtype), np.zeros(
            w.shape[1] * groups if transposed else w.shape[0], g.dtype)
    if x.dtype.kind == "c":      # the adjoint of a complex bilinear map conjugates
        x, w = x.conj(), w.conj()
    kernel = w.shape[2:]
    if not output_mask[0]:
        gi = np.zeros(x.shape, g.dtype)
    elif transposed:
        gi = _corr(g, w, stride, padding, padding, dilation, groups, x.shape[2:])
    else:
        gi = _input_grad(g, w, x.shape[2:], stride, padding, dilation, groups)
    if not output_mask[1]:
        gw = np.zeros(w.shape, g.dtype)
    elif transposed:
        gw = _weight_grad(g, x, kernel, stride, padding, dilation, groups)
    else:
        gw = _weight_grad(x, g, kernel, stride, padding, dilation, groups)
    gb = _bias_sum(g) if output_mask[2] else np.zeros(g.shape[1], g.dtype)
    return gi, gw, gb


def _bias_sum(g):
    if g.dtype in (np.float32, np.float64):
        # a product with ones sums each plane in BLAS: 3x faster than NumPy's sum over the
        # axes (0, 2, ...)
        rows = g.reshape(g.shape[0] * g.shape[1], -1)
        return (rows @ np.ones(rows.shape[1], g.dtype)).reshape(g.shape[:2]).sum(0)
    return g.sum((0,) + tuple(range(2, g.ndim)))


_CONV = "stride, padding, dilation, transposed, output_padding, groups"

convolution_backward = op(
    "convolution_backward", "ConvolutionBackwardBackward0",
    "grad_output, input, weight, " + _CONV + ", output_mask",
    _convolution_backward, returns=("grad_input", "grad_weight", "grad_bias"),
    function=False, method=False,
    # the backward is bilinear: each gradient is the forward or backward of the other two
    grad_output=lambda grads, input, weight, stride, padding, dilation, transposed,
        output_padding, groups: (
        convolution_row(grads[0], weight, None, stride, padding, dilation, transposed,
                        output_padding, groups)
        + convolution_row(input, grads[1], None, stride, padding, dilation, transposed,
                          output_padding, groups)
        + grads[2].reshape((-1,) + (1,) * (input.dim() - 2))),
    input=lambda grads, grad_output, input, stride, padding, dilation, transposed,
        output_padding, groups: convolution_backward(
        grad_output, input, grads[1], stride, padding, dilation, transposed, output_padding,
        groups, (True, False, False))[0],
    weight=lambda grads, grad_output, weight, stride, padding, dilation, transposed,
        output_padding, groups: convolution_backward(
        grad_output, grads[0], weight, stride, padding, dilation, transposed, output_padding,
        groups, (False, True, False))[1])

convolution_row = op(
    "convolution", "ConvolutionBackward0", "input, weight, bias, " + _CONV, _convolution,
    function=False, method=False, optional=("bias",),
    input=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding,
        groups: convolution_backward(grad, input, weight, stride, padding, dilation, transposed,
                                     output_padding, groups, (True, False, False))[0],
    weight=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding,
        groups: convolution_backward(grad, input, weight, stride, padding, dilation, transposed,
                                     output_padding, groups, (False, True, False))[1],
    # PyTorch takes the bias gradient from convolution_backward too (its node, not a sum's)
    bias=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding,
        groups: convolution_backward(grad, input, weight, stride, padding, dilation, transposed,
                                     output_padding, groups, (False, False, True))[2])


def _arg_ints(v, n):
    """The argument parser's int list of size n: an int repeats, a sequence stays as given."""
    return tuple(int(i) for i in v) if isinstance(v, (tuple, list)) else (int(v),) * n


def _expand(v, name, dim):
    """PyTorch's expand_param_if_needed."""
    if len(v) == 1:
        return v * dim
    if len(v) != dim:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return v


def _same(input, weight, stride, dilation, groups):
    """PyTorch's convolution_same: the input (padded on the right where the total padding of
    a dim is odd) and the symmetric padding left for the convolution."""
    k = weight.dim()
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of "
                           f"size {list(input.shape)} instead")
    for name, v in (("stride", stride), ("dilation", dilation)):
        if len(v) not in (1, dim):
            raise RuntimeError(f"{name} cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, pad_nd = [], [0] * (2 * dim)
    for i in range(dim):
        total = dilation[0 if len(dilation) == 1 else i] * (weight.shape[i + 2] - 1)
        lo = int(total / 2)               # C++ division truncates
        left.append(lo)
        delta = total - 2 * lo
        if delta > 0:
            pad_nd[2 * (dim - 1 - i) + 1] = delta
        elif delta < 0:
            pad_nd[2 * (dim - 1 - i)] = delta
            left[i] = total - lo
    if any(pad_nd):
        _warn_once("Using padding='same' with even kernel lengths and odd dilation may require "
                   "a zero-padded copy of the input be created")
        input = constant_pad_nd(input, pad_nd, 0)
    return input, tuple(left)


_AXES = {1: ("height", "width"), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _checked_convolution(x, w, b, stride, padding, dilation, transposed, output_padding,
                         groups):
    """at::_convolution's checks (in its order, then its CPU kernels'), then the row."""
    dim = w.dim() - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand(stride, "stride", dim)
    padding = _expand(padding, "padding", dim)
    dilation = _expand(dilation, "dilation", dim)
    output_padding = _expand(output_padding, "output_padding", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    shape, wshape = list(x.shape), list(w.shape)
    if w.dim() != x.dim():
        raise RuntimeError(f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional "
                           f"weight {wshape}, but got {x.dim()}-dimensional input of size "
                           f"{shape} instead")
    if wshape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {wshape} instead")
    if wshape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{wshape}] instead")
    if transposed:
        if shape[1] != wshape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected "
                               f"input{shape} to have {wshape[0]} channels, but got {shape[1]} "
                               "channels instead")
        if b is not None and (b.dim() != 1 or b.shape[0] != wshape[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected bias to "
                               f"be 1-dimensional with {wshape[1] * groups} elements, but got "
                               f"bias of size {list(b.shape)} instead")
    else:
        if shape[1] != wshape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {wshape}, expected "
                               f"input{shape} to have {wshape[1] * groups} channels, but got "
                               f"{shape[1]} channels instead")
        if b is not None and (b.dim() != 1 or b.shape[0] != wshape[0]):
            raise RuntimeError(f"Given weight of size {wshape}, expected bias to be "
                               f"1-dimensional with {wshape[0]} elements, but got bias of size "
                               f"{list(b.shape)} instead")
        padded = [n + 2 * p for n, p in zip(shape[2:], padding)]
        kernel = [d * (k - 1) + 1 for d, k in zip(dilation, wshape[2:])]
        if any(p < k for p, k in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(map(str, padded))}). Kernel size: "
                               f"({' x '.join(map(str, kernel))}). Kernel size can't be "
                               "greater than actual input size")
    if x.numel() == 0:
        if shape[0] and shape[1]:
            if dim == 1:      # PyTorch's kernels see 1-D as 2-D from here on
                shape.insert(2, 1)
            raise RuntimeError("Only zero batch or zero channel inputs are supported, but got "
                               f"input shape: {shape}")
        if transposed:
            size = _transposed_size(shape[2:], w, stride, padding, dilation, output_padding)
            out = [shape[0], wshape[1] * groups, *size]
            for i, n in enumerate(out):
                if n < 0:
                    raise RuntimeError(f"invalid shape dimension {n} at index {i} of shape "
                                       f"{out}")
        _check_empty_dtypes(x, w, b)
    elif transposed:
        _check_transposed_kernel(x, w, b, stride, padding, dilation, output_padding, groups)
    else:
        _check_kernel(w, dilation)
    if x.numel() and _mkldnn(x, w, stride, dilation, groups):
        for what, t in (("weight", w), ("bias", b)):
            if t is not None and t.dtype is not x.dtype:
                raise RuntimeError(f"Input type ({_type_name(x)}) and {what} type "
                                   f"({_type_name(t)}) should be the same or input should be a "
                                   f"MKLDNN tensor and {what} is a dense tensor")
    elif x.numel():
        _check_conv_dtype(x, transposed, dim, any(d != 1 for d in dilation))
        # PyTorch does not promote here; NumPy would, silently
        if w.dtype is not x.dtype:
            raise RuntimeError(f"expected scalar type {x.dtype.legacy} but found "
                               f"{w.dtype.legacy}")
        if transposed and b is not None and b.dtype is not x.dtype:
            # 3-D checks the bias's dtype; 2-D adds the bias in place
            if dim == 3:
                raise RuntimeError(f"expected scalar type {x.dtype.legacy} but found "
                                   f"{b.dtype.legacy}")
            _check_add_(x.dtype, _dtype.promote_types(x.dtype, b.dtype))
    return convolution_row(x, w, b, stride, padding, dilation, transposed, output_padding,
                           groups)


def _check_add_(out, result):
    if not _dtype.can_cast(result, out):
        raise RuntimeError(f"result type {result.legacy} can't be cast to the desired output "
                           f"type {out.legacy}")


def _check_empty_dtypes(x, w, b):
    """PyTorch's Empty backend refuses no dtype, but indexes the weight and adds bias[0] in
    place."""
    if x.shape[1] and not w.numel() or b is not None and not b.numel():
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    if b is not None:
        out = _empty_dtype(x._data, w._data)
        _check_add_(out, _dtype.result_type([np.zeros((1,), out.np),
                                             b._data.reshape(-1)[:1].reshape(())]))


def _mkldnn(x, w, stride, dilation, groups):
    """Whether PyTorch's CPU convolution takes oneDNN (use_mkldnn), which checks dtypes with
    its own messages: bfloat16 always, float32 unless the input and kernel are small (the
    spatial dims as the 4-D view PyTorch takes: 1-D as (1, L), 3-D as (D, H))."""
    a = x._data.dtype
    if a.kind == "V":
        return True
    if a != np.float32:
        return False
    n, c = x.shape[:2]
    h, wd = ((1,) + tuple(x.shape[2:]))[-2:] if x.dim() == 3 else x.shape[2:4]
    kh, kw = ((1,) + tuple(w.shape[2:]))[-2:]
    from .._platform import get_num_threads
    return ((any(s != 1 for s in stride) or any(d != 1 for d in dilation) or n >= 16
             or kw != 1 or kh != 1 or get_num_threads() > 1)
            and (groups > 1 or kw > 3 and kh > 3 or n > 1 or n * c * h * wd > 20480))


def _check_conv_dtype(x, transposed, dim, dilated):
    """The dtypes PyTorch's CPU kernels refuse: bool, complex and uint16/32/64, and every
    integer but int64 for a transposed or dilated convolution."""
    a = x._data.dtype
    if transposed:
        if a.kind in "biuc" and a != np.int64:
            _no_kernel(f"slow_conv_transpose{max(dim, 2)}d_out_cpu", x)
    elif dilated:
        if a.kind in "biuc" and a != np.int64:
            _no_kernel("slow_conv_dilated<>", x)
    elif a.kind in "bc" or (a.kind == "u" and a != np.uint8):
        _no_kernel("compute_columns3d" if dim == 3 else "slow_conv2d_cpu", x)


def _check_kernel(w, dilation):
    """The checks of PyTorch's CPU kernels for a plain convolution (1-D viewed as 2-D)."""
    kernel = list(w.shape[2:])
    if len(kernel) == 1:
        kernel, dilation = [1] + kernel, (1,) + tuple(dilation)
    if 0 in kernel:
        if len(kernel) == 3:
            raise RuntimeError("kernel size should be greater than zero, but got: "
                               f"{' x '.join(map(str, kernel))} (TxHxW)")
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if 0 in dilation:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")


def _check_transposed_kernel(x, w, b, stride, padding, dilation, output_padding, groups):
    """slow_conv_transpose2d/3d's shape checks, on one group (1-D viewed as 2-D)."""
    size, kernel = list(x.shape[2:]), list(w.shape[2:])
    wshape = [w.shape[0] // groups, w.shape[1]] + kernel
    if len(kernel) == 1:
        size, kernel, wshape = [1] + size, [1] + kernel, wshape[:2] + [1] + kernel
        stride, padding = (1,) + stride, (0,) + padding
        dilation, output_padding = (1,) + dilation, (0,) + output_padding
    names = _AXES[len(kernel)]

    def values(label, vs, sep=" "):
        return sep.join(f"{label}_{n}: {v}" for n, v in zip(names, vs))
    three = len(kernel) == 3
    if not three and 0 in kernel:
        raise RuntimeError(f"kernel size should be greater than zero, but got "
                           f"{values('kernel', kernel)}")
    if 0 in dilation:
        raise RuntimeError("dilation should be greater than zero, but got "
                           f"{values('dilation', dilation, ', ')}")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           f"got {values('output_padding', output_padding)} "
                           f"{values('stride', stride)} {values('dilation', dilation)}")
    if 0 in wshape:
        if three:
            raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x "
                               "kernel_height x kernel_width) tensor expected for weight, but "
                               f"got: {wshape}")
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {wshape}")
    out = [(i - 1) * s - 2 * p + d * (k - 1) + 1 + op for i, k, s, p, d, op in zip(
        size, kernel, stride, padding, dilation, output_padding)]
    if min(out) < 1:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, out))}). Output size is too small")


def _type_name(t):
    """How PyTorch's Tensor::toString names a CPU tensor's type (the types with a legacy
    Python class go by it)."""
    legacy = t.dtype.legacy
    if legacy in ("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"):
        return f"torch.{legacy}Tensor"
    return f"CPU{legacy}Type"


def _complex_convolution(x, w, b, stride, padding, dilation, transposed, output_padding,
                         groups):
    """conv(x, w, b) = a - b' + i (c - a - b') with a = conv(xr, wr, br), b' = conv(xi, wi)
    and c = conv(xr + xi, wr + wi, br + bi): three real convolutions, as PyTorch's."""
    for what, t in (("weight", w), ("bias", b)):
        if t is not None and t.dtype is not x.dtype:
            raise RuntimeError(f"Input type ({_type_name(x)}) and {what} type "
                               f"({_type_name(t)}) should be the same")

    def parts(t):
        r = view_as_real(t.resolve_conj())
        return r.select(-1, 0), r.select(-1, 1)
    (xr, xi), (wr, wi) = parts(x), parts(w)
    br, bi = parts(b) if b is not None else (None, None)
    args = (stride, padding, dilation, transposed, output_padding, groups)
    a = _checked_convolution(xr, wr, br, *args)
    b2 = _checked_convolution(xi, wi, None, *args)
    c = _checked_convolution(xr + xi, wr + wi, None if b is None else br + bi, *args)
    return a - b2 + mul_scalar(c - a - b2, 1j)


def _checker(text):
    """A check of values given in the declaration's order, as the binding that PyTorch's
    Python code passes them to (by position) checks them: the bound wrapper of a function
    that does nothing (its fast path is one generated type test per argument)."""
    return Signature(text).bind(lambda *args: None)


def _conv_overloads(name, dims):
    """convN's two declarations (an int list or a string padding), as PyTorch lists them."""
    ints = f"tuple of ints[{dims}]"
    head = f"(Tensor input, Tensor weight, Tensor bias = None, {ints} stride = 1, "
    tail = f", {ints} dilation = 1, int groups = 1)"
    return Overloads(name, [f"{head}{ints} padding = 0{tail}",
                            f'{head}str padding = "valid"{tail}'])


def _conv_transpose_signature(name, dims):
    ints = f"int[{dims}]"
    return Signature(f"{name}(Tensor input, Tensor weight, Tensor? bias=None, {ints} stride=1, "
                     f"{ints} padding=0, {ints} output_padding=0, int groups=1, "
                     f"{ints} dilation=1)")


def _conv(name, dims, input, weight, bias, stride, padding, dilation, groups):
    string = isinstance(padding, str)
    # only the int-padding overloads check the bias dtype (the string ones cast it)
    if not string and bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp}) and bias type "
                           f"({bias.dtype.cpp}) should be the same")
    input, unbatched = _batched(name, dims, input)
    stride, dilation = _arg_ints(stride, dims), _arg_ints(dilation, dims)
    if not string:
        padding = _arg_ints(padding, dims)
    elif padding == "same":
        input, padding = _same(input, weight, stride, dilation, groups)
    elif padding == "valid":
        padding = (0,)
    else:
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    conv = _complex_convolution if input.is_complex() else _checked_convolution
    out = conv(input, weight, bias, stride, padding, dilation, False, (0,) * dims, groups)
    return out.squeeze(0) if unbatched else out


def _batched(name, dims, input):
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    unbatched = input.dim() == dims + 1
    return (input.unsqueeze(0) if unbatched else input), unbatched


def _conv_transpose(name, dims, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    input, unbatched = _batched(name, dims, input)
    conv = _complex_convolution if input.is_complex() else _checked_convolution
    out = conv(input, weight, bias, _arg_ints(stride, dims), _arg_ints(padding, dims),
               _arg_ints(dilation, dims), True, _arg_ints(output_padding, dims), groups)
    return out.squeeze(0) if unbatched else out


@public(method=False)
@_conv_overloads("conv1d", 1).bind
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of (N, C, L) or (C, L) input."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
@_conv_overloads("conv2d", 2).bind
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of (N, C, H, W) or (C, H, W) input."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
@_conv_overloads("conv3d", 3).bind
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation) of (N, C, D, H, W) or (C, D, H, W) input."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
@_conv_transpose_signature("conv_transpose1d", 1).bind
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-D transposed convolution of (N, C, L) or (C, L) input."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@public(method=False)
@_conv_transpose_signature("conv_transpose2d", 2).bind
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-D transposed convolution of (N, C, H, W) or (C, H, W) input."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@public(method=False)
@_conv_transpose_signature("conv_transpose3d", 3).bind
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3-D transposed convolution of (N, C, D, H, W) or (C, D, H, W) input."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@public(method=False)
@Signature("convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
           "int[] dilation, bool transposed, int[] output_padding, int groups)").bind
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """at::convolution: a plain or transposed convolution of batched input, any spatial
    dims."""
    return _checked_convolution(input, weight, bias, _arg_ints(stride, 1),
                                _arg_ints(padding, 1), _arg_ints(dilation, 1), bool(transposed),
                                _arg_ints(output_padding, 1), groups)


# ---- conv_tbc: time, batch, channels ------------------------------------------------------
# PyTorch's conv_tbc is one addmm per kernel tap over the time steps that tap reaches, and its
# backward (conv_tbc_backward) is composite: in-place addmm_ on narrowed views of zeros, so a
# gradient taken with create_graph is a chain of CopySlices nodes. The formulas below make the
# same calls, so the graphs agree.

def _tbc_taps(ilen, kw, pad):
    """(k, input start, output start, length) of each kernel tap that reaches the output."""
    olen = ilen - kw + 1 + 2 * pad
    taps = []
    for k in range(kw):
        i, o = max(0, k - pad), max(0, pad - k)
        t = min(ilen + pad - k, olen) - o
        if t > 0:
            taps.append((k, i, o, t))
    return taps


def _conv_tbc(x, w, b, pad):
    ilen, n, cin = x.shape
    kw, _, cout = w.shape
    out = np.empty((ilen - kw + 1 + 2 * pad, n, cout), x.dtype)
    out[...] = b
    for k, i, o, t in _tbc_taps(ilen, kw, pad):
        out[o:o + t] += x[i:i + t] @ w[k]
    return out


def _tbc_input_grad(grad, weight, pad, self_shape):
    ilen, n, cin = self_shape
    cout = weight.shape[2]
    d_input = _zeros_of(grad, self_shape)
    for k, i, o, t in _tbc_taps(ilen, weight.shape[0], pad):
        d_input.narrow(0, i, t).view(t * n, cin).addmm_(
            grad.narrow(0, o, t).view(t * n, cout), weight[k].t())
    return d_input


def _tbc_weight_grad(grad, self, weight_shape, pad):
    ilen, n, cin = self.shape
    cout = weight_shape[2]
    d_weight = _zeros_of(grad, weight_shape)
    for k, i, o, t in _tbc_taps(ilen, weight_shape[0], pad):
        d_weight[k].addmm_(self.narrow(0, i, t).view(t * n, cin).t(),
                           grad.narrow(0, o, t).view(t * n, cout))
    return d_weight


def _tbc_bias_grad(grad, bias_shape):
    d_bias = _zeros_of(grad, bias_shape)
    return d_bias.copy_(grad.sum(0).sum(0))


conv_tbc_row = op(
    "conv_tbc", "ConvTbcBackward0", "self, weight, bias, pad", _conv_tbc,
    function=False, method=False,
    self=lambda grad, weight, pad, self_shape: _tbc_input_grad(grad, weight, pad, self_shape),
    weight=lambda grad, self, weight_shape, pad: _tbc_weight_grad(grad, self, weight_shape, pad),
    bias=lambda grad, bias_shape: _tbc_bias_grad(grad, bias_shape))


@public(method=False)
@Signature("conv_tbc(Tensor input, Tensor weight, Tensor bias, int pad=0)").bind
def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of (time, batch, channels) input with (kernel, in, out) weights."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    olen = input.shape[0] - weight.shape[0] + 1 + 2 * pad
    if olen < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {olen}: "
                           f"[{olen}, {input.shape[1]}, {weight.shape[2]}]")
    # PyTorch checks the dtypes in its product of each kernel tap that reaches the output,
    # after viewing the tap's input rows as a matrix (which a transposed layout refuses)
    taps = _tbc_taps(input.shape[0], weight.shape[0], pad)
    for _, i, _, t in taps:
        input.narrow(0, i, t).view(t * input.shape[1], input.shape[2])
    if taps and weight.dtype is not input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{input.dtype.legacy} and {weight.dtype.legacy}")
    if taps and input._data.dtype.kind == "b":
        _no_kernel("addmm_impl_cpu_", input)
    return conv_tbc_row(input, weight, bias, pad)       # the bias is copied in: any dtype


# ---- im2col / col2im: nn.functional.unfold and fold ----------------------------------------

def _int_list(fname, arg, position, v, n):
    """An int[n] argument as PyTorch's argument parser reads it (an int repeats)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),) * n
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be tuple of "
                        f"ints, not {type(v).__name__}")
    for i, e in enumerate(v):
        # the parser refuses a bool first element; later ones are read as ints
        if not isinstance(e, (int, np.integer)) or i == 0 and isinstance(e, (bool, np.bool_)):
            if i == 0:
                raise TypeError(f"{fname}(): argument '{arg}' (position {position}) must be "
                                f"tuple of ints, but found element of type {type(e).__name__} "
                                "at pos 0")
            raise TypeError(f"{fname}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(e).__name__}\"")
    return tuple(int(e) for e in v)


def _pair(v):
    """nn.modules.utils._pair: an iterable as a tuple, anything else twice."""
    return tuple(v) if isinstance(v, (tuple, list, str)) else (v, v)


def _im2col_array(x, kernel, dilation, padding, stride):
    batched = x if x.ndim == 4 else x[None]
    win = _conv_windows(_pad(batched, padding, padding), kernel, stride, dilation)
    n, c, kh, kw, oh, ow = win.shape         # sizes spelled out: the batch may be empty
    cols = win.reshape(n, c * kh * kw, oh * ow)
    return cols if x.ndim == 4 else cols[0]


def _blocks(size, kernel, dilation, padding, stride):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _col2im_array(cols, output_size, kernel, dilation, padding, stride):
    batched = cols if cols.ndim == 3 else cols[None]
    n, ck = batched.shape[:2]
    c = ck // (kernel[0] * kernel[1])
    padded = (n, c) + tuple(s + 2 * p for s, p in zip(output_size, padding))
    blocks = _blocks(output_size, kernel, dilation, padding, stride)
    full = _col2im(batched, padded, kernel, stride, dilation, blocks)
    out = np.ascontiguousarray(full[:, :, padding[0]:padding[0] + output_size[0],
                                    padding[1]:padding[1] + output_size[1]])
    return out if cols.ndim == 3 else out[0]


_IM2COL = "kernel_size, dilation, padding, stride"

col2im_row = op(
    "col2im", "Col2ImBackward0", "self, output_size, " + _IM2COL, _col2im_array,
    function=False, method=False,
    self=lambda grad, kernel_size, dilation, padding, stride: im2col_row(
        grad, kernel_size, dilation, padding, stride))

im2col_row = op(
    "im2col", "Im2ColBackward0", "self, " + _IM2COL, _im2col_array,
    function=False, method=False,
    self=lambda grad, self_shape, kernel_size, dilation, padding, stride: col2im_row(
        grad, tuple(self_shape[-2:]), kernel_size, dilation, padding, stride))


def _sizes(fname, args, first):
    """The int[2] arguments (name, value) of im2col/col2im, with the parser's and then the
    kernel's size errors."""
    values = [_int_list(fname, name, i + first, v, 2) for i, (name, v) in enumerate(args)]
    for (name, _), v in zip(args, values):
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
    return values


def _check_fold_params(kernel, dilation, padding, stride, stride_first):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    stride_error = ("stride should be greater than zero, but got stride_height: "
                    f"{sh} stride_width: {sw}")
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kh} kernel_width: {kw}")
    if stride_first and (sh <= 0 or sw <= 0):
        raise RuntimeError(stride_error)
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{dh} dilation_width: {dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} "
                           f"pad_width: {pw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(stride_error)


def _fold_kernel_dtype(name, x):
    if x._data.dtype.kind in "iu":
        _no_kernel(name, x)


def _read_size(dim, ndim):
    """PyTorch's size(dim) errors: a 0-d tensor has no size to read."""
    if not ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    wrap_dim(dim, ndim)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """nn.functional.unfold (im2col): the sliding blocks of (N, C, H, W) or (C, H, W) input
    as columns (N, C * prod(kernel_size), L)."""
    if not isinstance(input, Tensor):   # the parser's first check
        raise _not_tensor("im2col", "input", 1, input)
    kernel, dilation, padding, stride = _sizes("im2col", (
        ("kernel_size", _pair(kernel_size)), ("dilation", _pair(dilation)),
        ("padding", _pair(padding)), ("stride", _pair(stride))), 2)
    shape = list(input.shape)
    ndim = len(shape)
    # PyTorch's autograd saves the last two sizes (for col2im) before im2col checks anything
    if input.requires_grad and grad_mode.state.grad_enabled:
        for d in (-1, -2):
            _read_size(d, ndim)
    _check_fold_params(kernel, dilation, padding, stride, False)
    for i in (1, 2):     # PyTorch reads these sizes before testing the dims
        _read_size(i, ndim)
    if not ((ndim == 3 and shape[0] and shape[1] and shape[2])
            or (ndim == 4 and shape[1] and shape[2] and shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {shape}")
    blocks = _blocks(shape[-2:], kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({shape[-2]}, {shape[-1]}), "
                           f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, "
                           f"{dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated "
                           f"shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}),"
                           " but its components must be at least one.")
    _fold_kernel_dtype("im2col_out_cpu", input)
    return im2col_row(input, kernel, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """nn.functional.fold (col2im): columns (N, C * prod(kernel_size), L) summed back into
    (N, C, *output_size), the adjoint of unfold."""
    if not isinstance(input, Tensor):   # the parser's first check
        raise _not_tensor("col2im", "input", 1, input)
    size, kernel, dilation, padding, stride = _sizes("col2im", (
        ("output_size", _pair(output_size)), ("kernel_size", _pair(kernel_size)),
        ("dilation", _pair(dilation)), ("padding", _pair(padding)), ("stride", _pair(stride))),
        2)
    _check_fold_params(kernel, dilation, padding, stride, True)
    shape = list(input.shape)
    ndim = len(shape)
    if not ((ndim == 2 and shape[0] and shape[1]) or (ndim == 3 and shape[1] and shape[2])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{shape}")
    planes, length = shape[-2:]
    if planes % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({kernel[0]}, {kernel[1]}).")
    # div_rtn: division rounding toward negative infinity, as Python's //
    blocks = _blocks(size, kernel, dilation, padding, stride)
    described = (f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                 f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}"
                 f", {padding[1]}), stride=({stride[0]}, {stride[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(described + "expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(described + "calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), which is too small (non-positive)")
    if min(size) < 1:
        raise RuntimeError("Expected output spatial size to be positive, but got: "
                           f"output_size=({size[0]}, {size[1]}).")
    _fold_kernel_dtype("col2im_out_cpu", input)
    return col2im_row(input, size, kernel, dilation, padding, stride)


# ---- pooling ------------------------------------------------------------------------------

def _pool_declaration(name, dims, rest=", int[{n}] dilation=1, bool ceil_mode=False"):
    """A pooling binding's declaration: stride's default [] lets it take None too."""
    return (f"{name}(Tensor input, int[{dims}] kernel_size, int[{dims}]? stride=None, "
            f"int[{dims}] padding=0" + rest.format(n=dims) + ")")


_AVG_REST = ", bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None"
_MAX_POOL2D_WITH_INDICES = _checker(_pool_declaration("max_pool2d_with_indices", 2))


def _no_kernel(name, x):
    raise NotImplementedError(f"\"{name}\" not implemented for '{x.dtype.legacy}'")


def _out_size(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling_output_shape."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_params(name, kernel_size, stride, padding, dilation):
    """(kernel, stride, padding, dilation) as (H, W) pairs, with the meta function's errors."""
    kernel = _arg_ints(kernel_size, 2)
    if len(kernel) not in (1, 2):
        raise RuntimeError(f"{name}: kernel_size must either be a single int, or a tuple of two "
                           "ints")
    stride = () if stride is None else _arg_ints(stride, 2)
    if len(stride) > 2:
        raise RuntimeError(f"{name}: stride must either be omitted, a single int, or a tuple of "
                           "two ints")
    padding = _arg_ints(padding, 2)
    if len(padding) not in (1, 2):
        raise RuntimeError(f"{name}: padding must either be a single int, or a tuple of two ints")
    dilation = _arg_ints(dilation, 2)
    if len(dilation) not in (1, 2):
        raise RuntimeError(f"{name}: dilation must be either a single int, or a tuple of two "
                           "ints")
    kernel = (kernel[0], kernel[-1])
    return (kernel, (stride[0], stride[-1]) if stride else kernel, (padding[0], padding[-1]),
            (dilation[0], dilation[-1]))


def _pool_shape(x, kernel, stride, padding, dilation, ceil_mode):
    """The output (H, W), after PyTorch's pooling_output_shape and pool2d_shape_check."""
    out = []
    for n, k, s, p, d in zip(x.shape[-2:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > int(((k - 1) * d + 1) / 2):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(_out_size(n, k, s, p, d, ceil_mode))
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    shape = list(x.shape)
    if x.dim() not in (3, 4) or 0 in shape[-3:]:     # the batch dim alone may be empty
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if out[0] < 1 or out[1] < 1:
        c, h, w = shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}). Output size is too small")
    return tuple(out)


def _max_pool(x, kernel, stride, padding, dilation, out):
    """(values, flat indices into each H*W plane), with PyTorch's choices: the first maximum
    among the window's positions inside the input (the first of them when all equal the
    lowest value), and the last NaN when there is one. One vectorized pass per kernel tap,
    each over the strided (oh, ow) view of that tap in every window."""
    h, w = x.shape[-2:]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = kernel, stride, padding, dilation, out
    # ceil_mode windows may run past the padding: pad those too
    eh = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - h - 2 * ph)
    ew = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - w - 2 * pw)
    if (x.dtype.kind in "fiu" and (sh, sw) == (kh, kw) and kh * kw < 128
            and not (ph or pw or eh or ew) and dh == dw == 1):
        return _tiled_max_pool(x, kernel, out)
    xp = x
    if ph or pw or eh or ew:
        low = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
        lead = ((0, 0),) * (x.ndim - 2)
        xp = np.pad(x, lead + ((ph, ph + eh), (pw, pw + ew)), constant_values=low)
    rows = np.arange(oh)[:, None] * sh - ph + np.arange(kh) * dh      # (oh, kh) input rows
    cols = np.arange(ow)[:, None] * sw - pw + np.arange(kw) * dw      # (ow, kw) input cols
    row_in, col_in = (rows >= 0) & (rows < h), (cols >= 0) & (cols < w)
    taps = [(xp[..., i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw],
             rows[:, i, None] * w + cols[:, j],
             None if row_in[:, i].all() and col_in[:, j].all()
             else row_in[:, i, None] & col_in[:, j])
            for i in range(kh) for j in range(kw)]
    values = taps[0][0].copy()
    for tap, _, _ in taps[1:]:
        np.maximum(values, tap, out=values)        # propagates NaN
    # the first maximum inside the input: earlier taps override later ones (the last tap
    # needs no test when every window has a position inside the input: its maximum is there)
    indices = np.empty(values.shape, np.int64)
    if (row_in.any(1)[:, None] & col_in.any(1)).all():
        indices[...] = taps[-1][1]
        tested = taps[:-1]
    else:
        # a window wholly in the padding (dilation) keeps PyTorch's start: its first row and
        # column that are not negative
        first_row = rows[np.arange(oh), np.argmax(rows >= 0, axis=1)]
        first_col = cols[np.arange(ow), np.argmax(cols >= 0, axis=1)]
        indices[...] = first_row[:, None] * w + first_col
        tested = taps
    for tap, index, inside in reversed(tested):
        hit = tap == values
        if inside is not None:
            hit &= inside
        indices = np.where(hit, index, indices)
    if x.dtype.kind in "fV" and np.isnan(values).any():
        for tap, index, _ in taps:
            indices = np.where(np.isnan(tap), index, indices)
    if x.dtype.kind == "f" and not values.all():
        # a maximum of 0.0 and -0.0 is the first one, as PyTorch's (NumPy's pick varies)
        planes = x.reshape(-1, h * w)
        first = np.take_along_axis(planes, np.minimum(indices.reshape(len(planes), -1),
                                                      h * w - 1), 1)
        values = np.where(values == 0, first.reshape(values.shape), values)
    return values, indices


def _tiled_max_pool(x, kernel, out):
    """_max_pool for windows that tile the input (stride = kernel, no padding or dilation):
    every window lies inside the input, so the first maximum is found by arithmetic on a
    small per-window tap number (np.where and masked copies mispredict branches on random
    data), and the flat index is the window's start plus that tap's offset."""
    (kh, kw), (oh, ow), w = kernel, out, x.shape[-1]
    taps = [x[..., i:i + (oh - 1) * kh + 1:kh, j:j + (ow - 1) * kw + 1:kw]
            for i in range(kh) for j in range(kw)]
    values = taps[0].copy()
    for tap in taps[1:]:
        np.maximum(values, tap, out=values)        # propagates NaN
    local = np.full(values.shape, len(taps) - 1, np.int8)

    def take_where(hit, k):             # local = k where hit, branchless
        np.add(local, np.subtract(k, local, dtype=np.int8) * hit, out=local)
    for k in range(len(taps) - 2, -1, -1):      # the first maximum wins
        take_where(taps[k] == values, k)
    nan = x.dtype.kind == "f" and np.isnan(values).any()
    if nan:
        for k, tap in enumerate(taps):           # the last NaN wins
            take_where(np.isnan(tap), k)
    offsets = np.array([i * w + j for i in range(kh) for j in range(kw)], np.int64)
    indices = np.take(offsets, local)
    indices += np.arange(oh)[:, None] * (kh * w) + np.arange(ow) * kw
    if x.dtype.kind == "f" and not values.all():
        # np.maximum may pick either of 0.0 and -0.0; PyTorch keeps the first, which only
        # differs when the input has a -0.0
        u = x.view(f"u{x.itemsize}")
        if (u == np.array(-0.0, x.dtype).view(u.dtype)).any():
            planes = x.reshape(-1, x.shape[-2] * w)
            first = np.take_along_axis(planes, indices.reshape(len(planes), -1), 1)
            values = np.where(values == 0, first.reshape(values.shape), values)
    return values, indices


def _max_pool_backward(g, x, indices, kernel, stride, padding, dilation):
    h, w = x.shape[-2:]
    planes, outs = math.prod(x.shape[:-2]), indices.shape[-2] * indices.shape[-1]
    # a window wholly in the padding points past its plane (PyTorch's start index): PyTorch
    # writes there, into the next plane; past the last plane the gradient is dropped
    flat = (indices.reshape(planes, outs) + np.arange(planes)[:, None] * (h * w)).ravel()
    if (all(s > (k - 1) * d for k, s, d in zip(kernel, stride, dilation))
            and not (any(padding) and indices.size and indices.max() >= h * w)):
        # disjoint windows: no input position takes two gradients, an assignment suffices
        # (twice as fast as put_along_axis, which builds an index per axis)
        gi = np.zeros(x.shape, x.dtype)
        gi.reshape(-1)[flat] = g.reshape(-1)
        return gi
    gi = np.bincount(flat, g.ravel(), planes * h * w)[:planes * h * w]
    return gi.astype(x.dtype).reshape(x.shape)


def _max_pool_double_backward(grad, indices):
    """Gathers grad (shaped like the input) at the argmax indices."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).reshape(indices.shape)


max_pool2d_with_indices_backward = op(
    "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0",
    "grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode",
    lambda g, x, indices, k, s, p, d, ceil_mode: _max_pool_backward(g, x, indices, k, s, p, d),
    function=False, method=False,
    grad_output=lambda grad, indices: _max_pool_double_backward(grad, indices),
    self=_zeros, indices=None)

max_pool2d_with_indices_row = op(
    "max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0",
    "self, kernel_size, stride, padding, dilation, ceil_mode, out_size",
    lambda x, k, s, p, d, ceil_mode, out: _max_pool(x, k, s, p, d, out),
    returns=("output", "indices"), differentiable_outputs=(0,), function=False, method=False,
    self=lambda grads, self, kernel_size, stride, padding, dilation, ceil_mode, result1:
        max_pool2d_with_indices_backward(grads[0], self, result1, kernel_size, stride, padding,
                                         dilation, ceil_mode))


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """nn.functional.max_pool2d_with_indices: (output, indices), indices flat in each input
    plane (return_indices is accepted and ignored, as in PyTorch)."""
    _MAX_POOL2D_WITH_INDICES(input, kernel_size, stride, padding, dilation, ceil_mode)
    params = _pool_params("max_pool2d", kernel_size, stride, padding, dilation)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = _pool_shape(input, *params, ceil_mode)
    if input._data.dtype.kind in "bc":
        _no_kernel("max_pool2d", input)
    return tuple(max_pool2d_with_indices_row(input, *params, ceil_mode, out))


@public(method=False)
@Signature(_pool_declaration("max_pool2d", 2)).bind
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) input."""
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def functional_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
                          ceil_mode=False, return_indices=False):
    """nn.functional.max_pool2d: the output, or (output, indices) with return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _avg_windows(size, k, s, p, out, count_include_pad):
    """Along one axis: the (out, size) 0/1 matrix of each window's members, and each
    window's share of the divisor (PyTorch's rules; the divisor is their product)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    count = end - start
    start, end = np.maximum(start, 0), np.minimum(end, size)
    if not count_include_pad:
        count = end - start
    i = np.arange(size)
    return (i >= start[:, None]) & (i < end[:, None]), count


def _windows(x, kernel_size, stride, padding, ceil_mode, count_include_pad):
    return [_avg_windows(n, k, s, p, _out_size(n, k, s, p, 1, ceil_mode), count_include_pad)
            for n, k, s, p in zip(x.shape[-2:], kernel_size, stride, padding)]


def _avg_matrices(x, *args):
    """(Mh, Mw) with avg_pool2d(x) = Mh @ x @ Mw^T."""
    (mh, ch), (mw, cw) = _windows(x, *args[:-1])
    divisor_override, t = args[-1], x.dtype
    if divisor_override:
        return (mh / t.type(divisor_override)).astype(t), mw.astype(t)
    return (mh / ch[:, None]).astype(t), (mw / cw[:, None]).astype(t)


def _trunc_div(total, divisor):
    """C++'s integer division (toward zero), without abs (which overflows at the minimum)."""
    return (total - np.fmod(total, divisor)) // divisor


def _avg_pool(x, *args):
    if x.dtype.kind in "fV":
        mh, mw = _avg_matrices(x, *args)
        return _along(mw, _along(mh, x, -2), -1)
    # int64: the window sums, divided as C++ divides integers (toward zero)
    (mh, ch), (mw, cw) = _windows(x, *args[:-1])
    total = mh.astype(x.dtype) @ x @ mw.T.astype(x.dtype)
    divisor = args[-1] or ch[:, None] * cw
    return _trunc_div(total, divisor)


def _avg_pool_backward(g, x, *args):
    mh, mw = _avg_matrices(x, *args)
    return _along(mw.T, _along(mh.T, g, -2), -1)


_AVG = "kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override"
_avg_args = _AVG.split(", ")

avg_pool2d_backward = op(
    "avg_pool2d_backward", "AvgPool2DBackwardBackward0", "grad_output, self, " + _AVG,
    _avg_pool_backward, function=False, method=False,
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: avg_pool2d_row(grad, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override),
    self=_zeros)

avg_pool2d_row = op(
    "avg_pool2d", "AvgPool2DBackward0", "self, " + _AVG, _avg_pool,
    function=False, method=False,
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: avg_pool2d_backward(grad, self, kernel_size, stride, padding,
                                              ceil_mode, count_include_pad, divisor_override))


@Signature(_pool_declaration("avg_pool2d", 2, _AVG_REST)).bind
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling of (N, C, H, W) or (C, H, W) input."""
    kernel, stride, padding, _ = _pool_params("avg_pool2d", kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.dim() < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got -3)")
    _pool_shape(input, kernel, stride, padding, (1, 1), ceil_mode)
    if input._data.dtype.kind not in "fV" and input._data.dtype != np.int64:
        _no_kernel("avg_pool2d", input)
    return avg_pool2d_row(input, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)


def _adaptive_matrix(size, out, dtype):
    o = np.arange(out)
    start, end = o * size // out, -(-(o + 1) * size // out)
    i = np.arange(size)
    m = ((i >= start[:, None]) & (i < end[:, None])).astype(dtype)
    return (m / (end - start)[:, None]).astype(dtype)


def _adaptive_matrices(x, output_size):
    return (_adaptive_matrix(n, o, x.dtype) for n, o in zip(x.shape[-2:], output_size))


def _adaptive_backward(g, x):
    mh, mw = _adaptive_matrices(x, g.shape[-2:])
    return _along(mw.T, _along(mh.T, g, -2), -1)


adaptive_avg_pool2d_backward = op(
    "_adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", "grad_output, self",
    _adaptive_backward, function=False, method=False,
    grad_output=lambda grad, grad_output: adaptive_avg_pool2d_row(
        grad, tuple(grad_output.shape[-2:])),
    self=_zeros)


def _adaptive(x, output_size):
    mh, mw = _adaptive_matrices(x, output_size)
    return _along(mw, _along(mh, x, -2), -1)


adaptive_avg_pool2d_row = op(
    "_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", "self, output_size", _adaptive,
    function=False, method=False,
    self=lambda grad, self: adaptive_avg_pool2d_backward(
        _nonempty_grad("adaptive_avg_pool2d_backward", grad), self))


def _adaptive_avg_pool2d(input, size):
    """at::adaptive_avg_pool2d on an int list `size`."""
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{size[0]}, {size[1]}}}")
    if size == (1, 1):
        # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    shape = list(input.shape)
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape}")
    for i in (-2, -1):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {shape} with "
                               f"dimension {i + len(shape)} being empty")
    # PyTorch's kernel runs (and refuses the dtype) only for a non-empty output
    if input._data.dtype.kind not in "fV" and input.numel() and all(size):
        _no_kernel("adaptive_avg_pool2d", input)
    return adaptive_avg_pool2d_row(input, size)


def _with_default(output_size, input):
    """nn.functional's adaptive pools: the output size with None entries from the input's
    (its size read first, as theirs)."""
    from ..nn.modules.utils import _list_with_default
    return _list_with_default(output_size, input.size())


_ADAPTIVE_AVG_POOL2D = _checker("adaptive_avg_pool2d(Tensor input, int[2] output_size)")


def adaptive_avg_pool2d(input, output_size):
    """nn.functional.adaptive_avg_pool2d: to `output_size` (an int, or a pair whose None
    entries keep the input's size)."""
    output_size = _with_default(output_size, input)
    _ADAPTIVE_AVG_POOL2D(input, output_size)
    return _adaptive_avg_pool2d(input, _arg_ints(output_size, 2))


# Note [Non-finite taps]
# A matrix applied along an axis mixes every input of the axis into every output (0 * nan and
# 0 * inf are nan), where PyTorch's kernels multiply each output's taps only: a nan or inf
# reaches just the outputs whose windows hold it. _along applies the matrix to the finite
# values and puts the non-finite ones back by IEEE's rules over the taps: a nan, or an inf
# met by a zero weight (a tap PyTorch computes with weight 0), gives nan, infs of both signs
# give nan, else the infs' sign. `taps` says which entries are taps: (positive, negative,
# zero-weight) masks; by default the nonzero entries.

def _tensordot(m, x, axis):
    if axis == x.ndim - 1:
        return x @ m.T
    if axis == x.ndim - 2:
        return m @ x
    return np.moveaxis(np.tensordot(m, x, axes=([1], [axis])), 0, axis)


def _along(m, x, axis, taps=None):
    """The matrix m applied along one axis of x (m's columns index that axis): Note
    [Non-finite taps]."""
    axis %= x.ndim
    if x.dtype.kind not in "fV":
        return _tensordot(m, x, axis)
    finite = np.isfinite(x)
    if finite.all():
        return _tensordot(m, x, axis)
    y = _tensordot(m, np.where(finite, x, 0), axis)
    pos, neg, zero = taps if taps is not None else (m > 0, m < 0, None)

    def hits(mask, where):
        return _tensordot(mask.astype(np.float32), where.astype(np.float32), axis) > 0
    nan, up, down = np.isnan(x), x == np.inf, x == -np.inf
    to_nan = hits(pos | neg if zero is None else pos | neg | zero, nan)
    if zero is not None:
        to_nan |= hits(zero, up | down)
    to_up, to_down = hits(pos, up) | hits(neg, down), hits(pos, down) | hits(neg, up)
    t = y.dtype.type
    y = np.where(to_up, t(np.inf), np.where(to_down, t(-np.inf), y))
    return np.where(to_nan | to_up & to_down, t(np.nan), y)


def _adaptive3d(x, output_size):
    for axis, (n, o) in enumerate(zip(x.shape[-3:], output_size), x.ndim - 3):
        x = _along(_adaptive_matrix(n, o, x.dtype), x, axis)
    return np.ascontiguousarray(x)


def _adaptive3d_backward(g, x):
    for axis, (n, o) in enumerate(zip(x.shape[-3:], g.shape[-3:]), g.ndim - 3):
        g = _along(_adaptive_matrix(n, o, g.dtype).T, g, axis)
    return np.ascontiguousarray(g)


adaptive_avg_pool3d_backward = op(
    "_adaptive_avg_pool3d_backward", "AdaptiveAvgPool3DBackwardBackward0", "grad_output, self",
    _adaptive3d_backward, function=False, method=False,
    grad_output=lambda grad, grad_output: adaptive_avg_pool3d_row(
        grad, tuple(grad_output.shape[-3:])),
    self=_zeros)

adaptive_avg_pool3d_row = op(
    "_adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0", "self, output_size", _adaptive3d,
    function=False, method=False,
    self=lambda grad, self: adaptive_avg_pool3d_backward(
        _nonempty_grad("adaptive_avg_pool3d_backward", grad), self))


_ADAPTIVE_AVG_POOL3D = _checker("adaptive_avg_pool3d(Tensor input, int[3] output_size)")
_ADAPTIVE_MAX_POOL3D = _checker("adaptive_max_pool3d(Tensor input, int[3] output_size)")


def adaptive_avg_pool3d(input, output_size):
    """nn.functional.adaptive_avg_pool3d: (N, C, D, H, W) or (C, D, H, W) input averaged to
    `output_size` (an int, or a triple whose None entries keep the input's size)."""
    output_size = _with_default(output_size, input)
    _ADAPTIVE_AVG_POOL3D(input, output_size)
    size = _arg_ints(output_size, 3)
    if len(size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if min(size) < 0:
        # sic: PyTorch's message lacks the last space
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{size[0]}, {size[1]},{size[2]}}}")
    if size == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)
    shape = list(input.shape)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape}")
    for i in range(1, input.dim()):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {shape} with "
                               f"dimension {i} being empty")
    if input._data.dtype.kind not in "fV":
        _no_kernel("adaptive_avg_pool3d_cpu", input)
    return adaptive_avg_pool3d_row(input, size)


# ---- 1-D pooling: the 2-D ops over a height of 1 (unsqueeze(-2), pool, squeeze(-2)) ------

def _check_dim_range(name, x):
    if x.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.dim()}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {name})")


def _one_int(name, arg, v):
    """PyTorch's check1d: the single int of a 1-D pooling argument."""
    v = _arg_ints(v, 1)
    if len(v) != 1:
        raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got {len(v)})")
    return v[0]


@public(method=False)
@Signature(_pool_declaration("max_pool1d_with_indices", 1)).bind
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """(output, indices) of 1-D max pooling of (N, C, L) or (C, L) input."""
    if stride is None or not _arg_ints(stride, 1):
        stride = kernel_size
    _check_dim_range("max_pool1d", input)
    k, s, p, d = (_one_int("max_pool1d", n, v) for n, v in (
        ("kernel_size", kernel_size), ("stride", stride), ("padding", padding),
        ("dilation", dilation)))
    out, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d),
                                           ceil_mode)
    return out.squeeze(-2), indices.squeeze(-2)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's max_pool1d checks: (kernel, stride, padding, dilation) ints."""
    shape = list(input.shape)
    if input.dim() not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{shape}")
    kernel, padding, dilation = (_arg_ints(v, 1) for v in (kernel_size, padding, dilation))
    stride = () if stride is None else _arg_ints(stride, 1)
    if len(kernel) != 1:
        raise RuntimeError("max_pool1d() kernel_size must be an int, list of ints or tuple of "
                           f"ints of size 1 but got size {len(kernel)}")
    if len(stride) > 1:
        raise RuntimeError("max_pool1d() stride must be None, an int, list of ints, or tuple of "
                           f"ints of size 1 but got size {len(stride)}")
    if len(padding) != 1:
        raise RuntimeError("max_pool1d() padding must be an int, list of ints, or tuple of ints "
                           f"of size 1 but got size {len(padding)}")
    if len(dilation) != 1:
        raise RuntimeError("max_pool1d() dilation must be an int, list of ints or tuple of ints "
                           f"of size 1 but got size {len(dilation)}")
    (k,), (p,), (d,) = kernel, padding, dilation
    s = stride[0] if stride else k
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = _out_size(shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    return k, s, p, d


@public(method=False)
@Signature(_pool_declaration("max_pool1d", 1)).bind
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling of (N, C, L) or (C, L) input."""
    k, s, p, d = _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if input._data.dtype.kind not in "fV":
        _no_kernel("max_pool1d_impl", input)
    return max_pool1d_with_indices(input, k, s, p, d, ceil_mode)[0]


def functional_max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,
                          ceil_mode=False, return_indices=False):
    """nn.functional.max_pool1d: the output, or (output, indices) with return_indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


@public(method=False)
@Signature(_pool_declaration("avg_pool1d", 1,
                            ", bool ceil_mode=False, bool count_include_pad=True")).bind
def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling of (N, C, L) or (C, L) input."""
    if stride is None or not _arg_ints(stride, 1):
        stride = kernel_size
    _check_dim_range("avg_pool1d", input)
    k, s, p = (_one_int("avg_pool1d", n, v) for n, v in (
        ("kernel_size", kernel_size), ("stride", stride), ("padding", padding)))
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode,
                      count_include_pad).squeeze(-2)


@public(method=False)
@Signature("adaptive_avg_pool1d(Tensor input, int[1] output_size)").bind
def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling of (N, C, L) or (C, L) input to `output_size`."""
    _check_dim_range("adaptive_avg_pool1d", input)
    size = _one_int("adaptive_avg_pool1d", "output_size", output_size)
    return _adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


# ---- avg_pool3d: separable, as avg_pool2d ---------------------------------------------------

def _avg3_parts(x_shape, kernel, stride, padding, ceil_mode, count_include_pad):
    return [_avg_windows(n, k, s, p, _out_size(n, k, s, p, 1, ceil_mode), count_include_pad)
            for n, k, s, p in zip(x_shape[-3:], kernel, stride, padding)]


def _avg3_matrices(x_shape, dtype, kernel, stride, padding, ceil_mode, count_include_pad,
                   divisor_override):
    parts = _avg3_parts(x_shape, kernel, stride, padding, ceil_mode, count_include_pad)
    if divisor_override:
        ms = [m.astype(dtype) for m, _ in parts]
        ms[0] = (parts[0][0] / dtype.type(divisor_override)).astype(dtype)
        return ms
    return [(m / c[:, None]).astype(dtype) for m, c in parts]


def _avg_pool3d(x, *args):
    if x.dtype.kind in "fV":
        y = x
        for axis, m in enumerate(_avg3_matrices(x.shape, x.dtype, *args), x.ndim - 3):
            y = _along(m, y, axis)
        return np.ascontiguousarray(y)
    # int64: the window sums, divided as C++ divides integers (toward zero)
    parts = _avg3_parts(x.shape, *args[:-1])
    total = x
    for axis, (m, _) in enumerate(parts, x.ndim - 3):
        total = _along(m.astype(x.dtype), total, axis)
    divisor = args[-1] or (parts[0][1][:, None, None] * parts[1][1][:, None] * parts[2][1])
    return _trunc_div(total, divisor)


def _avg_pool3d_backward(g, x, *args):
    y = g
    for axis, m in enumerate(_avg3_matrices(x.shape, g.dtype, *args), g.ndim - 3):
        y = _along(m.T, y, axis)
    return np.ascontiguousarray(y)


avg_pool3d_backward = op(
    "avg_pool3d_backward", "AvgPool3DBackwardBackward0", "grad_output, self, " + _AVG,
    _avg_pool3d_backward, function=False, method=False,
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: avg_pool3d_row(grad, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override),
    self=_zeros)

avg_pool3d_row = op(
    "avg_pool3d", "AvgPool3DBackward0", "self, " + _AVG, _avg_pool3d,
    function=False, method=False,
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: avg_pool3d_backward(grad, self, kernel_size, stride, padding,
                                              ceil_mode, count_include_pad, divisor_override))


def _triple_arg(name, what, v, allow_empty=False):
    """A 3-d pooling argument: one int, or three (PyTorch's meta-function errors)."""
    v = () if v is None else _arg_ints(v, 1)
    if allow_empty and not v:
        return None
    if len(v) not in (1, 3):
        raise RuntimeError(f"{name}: {what}")
    return (v[0],) * 3 if len(v) == 1 else tuple(v)


def _pool3d_check(name, input, kernel, stride, padding, dilation, out, check_input_size):
    """pool3d_shape_check."""
    (kt, kh, kw), (dt, dh, dw), (pt, ph, pw), (lt, lh, lw) = kernel, stride, padding, dilation
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {dt} dH: {dh} "
                           f"dW: {dw}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {lt} "
                           f"dilationH: {lh} dilationW: {lw}")
    shape = list(input.shape)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}: Expected 4D or 5D tensor for input, but got: {shape}")
    for i, n in enumerate(shape):
        if not (input.dim() == 5 and i == 0) and n <= 0:
            raise RuntimeError(f"{name}: Expected input's non-batch dimensions to have positive "
                               f"length, but input has a shape of {shape} and non-batch "
                               f"dimension {n} has length zero!")
    it, ih, iw = shape[-3:]
    if check_input_size and (it < kt or ih < kh or iw < kw):
        raise RuntimeError(f"input image (T: {it} H: {ih} W: {iw}) smaller than kernel size "
                           f"(kT: {kt} kH: {kh} kW: {kw})")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if min(out) < 1:
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _pooling_output_shape(size, k, p, s, d, ceil_mode):
    """pooling_output_shape with its own checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > int(((k - 1) * d + 1) / 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={p}, kernel_size={k} and dilation={d}")
    return _out_size(size, k, s, p, d, ceil_mode)


@Signature(_pool_declaration("avg_pool3d", 3, _AVG_REST)).bind
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W) input."""
    kernel = _triple_arg("avg_pool3d", "kernel_size must be a single int, or a tuple of three "
                         "ints", kernel_size)
    stride = _triple_arg("avg_pool3d", "stride must be omitted, a single int, or a tuple of "
                         "three ints", stride, allow_empty=True) or kernel
    padding = _triple_arg("avg_pool3d", "padding must be a single int, or a tuple of three "
                          "ints", padding)
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = [_pooling_output_shape(n, k, p, s, 1, ceil_mode)
           for n, k, p, s in zip(input.shape[-3:], kernel, padding, stride)]
    _pool3d_check("avg_pool3d()", input, kernel, stride, padding, (1, 1, 1), out, True)
    # PyTorch's CPU kernel has no float16 or bfloat16 version (2-d pooling has)
    if input._data.dtype not in (np.float32, np.float64, np.int64):
        _no_kernel("avg_pool3d_out_frame", input)
    return avg_pool3d_row(input, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)


# ---- adaptive_max_pool3d --------------------------------------------------------------------

def _adaptive_bounds(size, out):
    o = np.arange(out)
    return o * size // out, -(-(o + 1) * size // out)


def _adaptive_max3d(x, output_size):
    """(values, flat indices in each D*H*W volume): the first maximum of each adaptive
    window, a NaN when there is one (PyTorch's `val > max || isnan(val)`, scanning in order,
    so the last NaN)."""
    sizes = x.shape[-3:]
    bounds = [_adaptive_bounds(n, o) for n, o in zip(sizes, output_size)]
    kmax = [int((e - s).max()) if len(s) else 0 for s, e in bounds]
    lead = x.shape[:-3]
    values = np.full(lead + tuple(output_size), -np.inf if x.dtype.kind == "f" else 0, x.dtype)
    indices = np.zeros(lead + tuple(output_size), np.int64)
    first = np.ones(lead + tuple(output_size), bool)
    for tap in np.ndindex(*kmax):        # window offsets, in PyTorch's scan order
        pos = [s + t for (s, _), t in zip(bounds, tap)]
        inside = [p < e for p, (_, e) in zip(pos, bounds)]
        pos = [np.minimum(p, n - 1) for p, n in zip(pos, sizes)]
        ok = inside[0][:, None, None] & inside[1][:, None] & inside[2]
        v = x[..., pos[0][:, None, None], pos[1][:, None], pos[2]]
        flat = (pos[0][:, None, None] * sizes[1] + pos[1][:, None]) * sizes[2] + pos[2]
        take = ok & (first | (v > values) | np.isnan(v))
        values = np.where(take, v, values)
        indices = np.where(take, flat, indices)
        first = first & ~ok
    return values, indices


def _adaptive_max3d_backward(g, x, indices):
    planes = int(np.prod(x.shape[:-3]))
    vol = int(np.prod(x.shape[-3:]))
    outs = int(np.prod(indices.shape[-3:]))
    flat = (indices.reshape(planes, outs) + np.arange(planes)[:, None] * vol).ravel()
    return np.bincount(flat, g.ravel(), planes * vol).astype(x.dtype).reshape(x.shape)


def _gather_volume(grad, indices):
    """grad (shaped like the input) at the argmax indices: the max pools' double backward."""
    flat = grad.flatten(-3)
    return flat.gather(-1, indices.flatten(-3)).reshape(indices.shape)


adaptive_max_pool3d_backward = op(
    "adaptive_max_pool3d_backward", "AdaptiveMaxPool3DBackwardBackward0",
    "grad_output, self, indices", _adaptive_max3d_backward, function=False, method=False,
    grad_output=lambda grad, indices: _gather_volume(grad, indices),
    self=_zeros, indices=None)

adaptive_max_pool3d_row = op(
    "adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0", "self, output_size", _adaptive_max3d,
    returns=("output", "indices"), differentiable_outputs=(0,), function=False, method=False,
    self=lambda grads, self, result1: adaptive_max_pool3d_backward(
        _nonempty_grad("adaptive_max_pool3d_backward", grads[0]), self, result1))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """(output, indices) of 3-D adaptive max pooling (return_indices ignored, as PyTorch)."""
    output_size = _with_default(output_size, input)
    _ADAPTIVE_MAX_POOL3D(input, output_size)
    size = _arg_ints(output_size, 3)
    shape = list(input.shape)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {shape}")
    for i in range(1, input.dim()):
        if shape[i] <= 0:
            raise RuntimeError("adaptive_max_pool3d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {shape} with "
                               f"dimension {i} being empty")
    if len(size) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{shape[:-3] + list(size)}")
    if input._data.dtype.kind not in "fV":
        _no_kernel("adaptive_max_pool3d_cpu", input)
    return tuple(adaptive_max_pool3d_row(input, size))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """nn.functional.adaptive_max_pool3d: the output, or (output, indices)."""
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


# ---- max_unpool -----------------------------------------------------------------------------

def _max_unpool(x, indices, output_size):
    lead = x.shape[:-len(output_size)]
    planes = int(np.prod(lead))
    vol = int(np.prod(output_size))
    out = np.zeros((planes, vol), x.dtype)
    if out.size:     # an empty output reads no index
        np.put_along_axis(out, indices.reshape(planes, -1), x.reshape(planes, -1), 1)
    return out.reshape(lead + tuple(output_size))


def _unpool_row(dims):
    def formula(grad, indices):
        flat = grad.flatten(-dims)
        return flat.gather(-1, indices.flatten(-dims)).reshape(indices.shape)
    return op(f"max_unpool{dims}d", f"MaxUnpool{dims}DBackward0",
              "self, indices, output_size", _max_unpool, function=False, method=False,
              self=formula, indices=None)


max_unpool2d_row = _unpool_row(2)
max_unpool3d_row = _unpool_row(3)


def _check_unpool(input, indices, output_size, dims):
    names = {2: "(height, width)", 3: "(depth, height, width)"}
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype.legacy}")
    if len(output_size) != dims:
        raise RuntimeError(f"There should be exactly {('two', 'three')[dims - 2]} elements "
                           f"{names[dims]} in output_size, but got {len(output_size)} elements.")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to max_unpooling{dims}d should be a {dims + 1}d or "
                           f"{dims + 2}d Tensor, but got a tensor with {input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError(f"max_unpooling{dims}d_forward_out_cpu(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {i} being empty.")
    vol = int(np.prod(output_size))
    if input._data.dtype.kind not in "fV" and input.numel() and vol:     # (an empty output
        _no_kernel(f"max_unpool{dims}d", input)                         # runs no kernel)
    a = indices._data
    bad = (a < 0) | (a >= vol)
    if vol and bad.any():     # an empty output reads no index
        raise RuntimeError(f"Found an invalid max index: {a[bad].flat[0]} (output volumes are "
                           f"of size {'x'.join(map(str, output_size))})")


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """nn.functional._unpool_output_size."""
    input_size = input.size()
    default_size = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d]
                    - 2 * padding[d] for d in range(len(kernel_size))]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or "
                             f"{len(kernel_size) + 2} elements, but it has a length of "
                             f"'{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f'{min_size} and {max_size})')
        ret = output_size
    for d in range(len(kernel_size)):       # torch._check_value, as nn.functional's
        _check_value(ret[d] >= 0, lambda: "max_unpooling: output_size must contain non-negative "
                     f"spatial dimensions, but got output_size[{d}]={ret[d]}")
    return ret


def _unpool_args(dims, kernel_size, stride, padding):
    """kernel_size, stride, padding as nn.functional's _single / _pair / _triple read them
    (a sequence as it is, anything else repeated): the binding checks the arithmetic's
    results."""
    from ..nn.modules.utils import _ntuple
    kernel = _ntuple(dims)(kernel_size)
    return kernel, (kernel if stride is None else _ntuple(dims)(stride)), \
        _ntuple(dims)(padding)


_MAX_UNPOOL2D = _checker("max_unpool2d(Tensor input, Tensor indices, int[2] output_size)")
_MAX_UNPOOL3D = _checker("max_unpool3d(Tensor input, Tensor indices, int[3] output_size, "
                         "int[3] stride, int[3] padding)")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """nn.functional.max_unpool1d: max_pool1d's values put back at their indices."""
    kernel, stride, padding = _unpool_args(1, kernel_size, stride, padding)
    size = list(_unpool_output_size(input, kernel, stride, padding, output_size)) + [1]
    return max_unpool2d_functional(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1)


def max_unpool2d_functional(input, indices, output_size):
    """torch._C._nn.max_unpool2d."""
    _MAX_UNPOOL2D(input, indices, output_size)
    size = tuple(_arg_ints(output_size, 1))
    _check_unpool(input, indices, size, 2)
    return max_unpool2d_row(input, indices, size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """nn.functional.max_unpool2d: max_pool2d's values put back at their indices."""
    kernel, stride, padding = _unpool_args(2, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    return max_unpool2d_functional(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """nn.functional.max_unpool3d: max_pool3d's values put back at their indices."""
    kernel, stride, padding = _unpool_args(3, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    _MAX_UNPOOL3D(input, indices, size, stride, padding)
    size, stride = tuple(_arg_ints(size, 1)), _arg_ints(stride, 1)
    if min(stride) <= 0:
        raise RuntimeError(f"strides should be greater than zero, but got stride: "
                           f"{list(stride)}")
    _check_unpool(input, indices, size, 3)
    return max_unpool3d_row(input, indices, size)


# ---- fractional_max_pool2d/3d ---------------------------------------------------------------

def _intervals(samples, input_size, output_size, pool_size, t):
    """generate_intervals for every plane: (planes, output_size) window starts."""
    seq = np.empty(samples.shape + (output_size,), np.int64)
    if output_size > 1:
        alpha = t(input_size - pool_size) / t(output_size - 1)
        i = np.arange(output_size - 1).astype(t)
        s = samples.astype(t)[..., None]
        seq[..., :-1] = ((i + s) * alpha).astype(np.int64) - (s * alpha).astype(np.int64)
    if output_size > 0:
        seq[..., -1] = input_size - pool_size
    return seq


def _fractional_max(x, kernel, output_size, samples):
    """(values, flat indices): the first maximum of each pseudo-random window (a NaN wins)."""
    d = len(kernel)
    sizes = x.shape[-d:]
    lead = x.shape[:-d]
    t = x.dtype.type if x.dtype.kind == "f" else np.float32
    # samples (N, C, d): in 2-D, [.., 0] drives W and [.., 1] H; in 3-D, [.., i] dim i
    order = (1, 0) if d == 2 else (0, 1, 2)
    starts = [_intervals(samples[..., order[i]], n, o, k, t)
              for i, (n, o, k) in enumerate(zip(sizes, output_size, kernel))]
    shape = lead + tuple(output_size)

    def flat_index(tap):
        pos = []
        for i, (st, k) in enumerate(zip(starts, tap)):
            view = [1] * d
            view[i] = output_size[i]
            pos.append((st + k).reshape(lead + tuple(view)))
        flat = pos[0]
        for i in range(1, d):
            flat = flat * sizes[i] + pos[i]
        return np.broadcast_to(flat, shape)
    # a window of -infs (or none, kernel <= 0) gives -inf at the window's start
    values = np.full(shape, -np.inf, x.dtype)
    indices = np.array(flat_index((0,) * d))
    flat_x = x.reshape(lead + (int(np.prod(sizes)),))     # (-1 is ambiguous when empty)
    for tap in np.ndindex(*(max(k, 0) for k in kernel)):
        flat = flat_index(tap)
        v = np.take_along_axis(flat_x, flat.reshape(lead + (int(np.prod(output_size)),)),
                               -1).reshape(shape)
        take = (v > values) | np.isnan(v)
        values = np.where(take, v, values)
        indices = np.where(take, flat, indices)
    return values, indices


_FRACTIONAL_ASSERT = {
    2: 'index >= 0 && index < static_cast<int64_t>(inputW) * inputH INTERNAL ASSERT FAILED at '
       '"/__w/pytorch/pytorch/aten/src/ATen/native/FractionalMaxPool2d.cpp":240, please report '
       'a bug to PyTorch. ',
    3: 'index >= 0 && index < inputT * inputH * inputW INTERNAL ASSERT FAILED at '
       '"/__w/pytorch/pytorch/aten/src/ATen/native/FractionalMaxPool3d.cpp":280, please report '
       'a bug to PyTorch. '}


def _fractional_rows(d):
    node = f"FractionalMaxPool{d}D"

    def back(g, x, indices):
        planes = int(np.prod(x.shape[:-d]))
        vol = int(np.prod(x.shape[-d:]))
        outs = int(np.prod(indices.shape[-d:]))
        if indices.size and (indices.min() < 0 or indices.max() >= vol):
            # a kernel <= 0 puts the last windows past the input (PyTorch accepts it)
            raise RuntimeError(_FRACTIONAL_ASSERT[d])
        flat = (indices.reshape(planes, outs) + np.arange(planes)[:, None] * vol).ravel()
        return np.bincount(flat, g.ravel(), planes * vol).astype(x.dtype).reshape(x.shape)

    def gather(grad, indices):
        flat = grad.flatten(-d)
        return flat.gather(-1, indices.flatten(-d)).reshape(indices.shape)
    backward = op(f"fractional_max_pool{d}d_backward", f"{node}BackwardBackward0",
                  "grad_output, self, indices", back, function=False, method=False,
                  grad_output=lambda grad, indices: gather(grad, indices), self=_zeros,
                  indices=None)
    return op(f"fractional_max_pool{d}d", f"{node}Backward0",
              "self, kernel_size, output_size, random_samples",
              _fractional_max, returns=("output", "indices"), differentiable_outputs=(0,),
              function=False, method=False,
              self=lambda grads, self, result1: backward(grads[0], self, result1))


fractional_max_pool2d_row = _fractional_rows(2)
fractional_max_pool3d_row = _fractional_rows(3)


_FRACTIONAL = {d: _checker(f"fractional_max_pool{d}d(Tensor input, int[{d}] kernel_size, "
                           f"int[{d}] output_size, Tensor random_samples)") for d in (2, 3)}


def _fractional(d, input, kernel_size, output_size, output_ratio, samples):
    name = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if d == 2 and len(output_ratio) > 2:      # a float has no len(), as in PyTorch
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * d
        output_size = [int(input.size(-d + i) * ratio[i]) for i in range(d)]
    if samples is None:
        from .._creation import rand
        n_batch = 1 if input.dim() == d + 1 else input.size(0)
        samples = rand(n_batch, input.size(-d - 1), d, dtype=input.dtype)
    _FRACTIONAL[d](input, kernel_size, output_size, samples)
    kernel, size = _arg_ints(kernel_size, d), _arg_ints(output_size, d)
    if input.dim() not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    prefix = f"{name}(): " if d == 2 else f"{name}_out(): "
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{prefix}Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    batch = 1 if input.dim() == d + 1 else input.shape[0]
    labels = ("time", "height", "width")[3 - d:]
    checks = list(zip(labels, kernel, size, input.shape[-d:]))
    # PyTorch's 3-D checks take the width before the height
    for label, k, o, n in checks if d == 2 else [checks[i] for i in (0, 2, 1)]:
        # PyTorch's 2-D check allows a last window ending at the border, its 3-D check not
        if o + k - 1 > n or d == 3 and o + k - 1 == n:
            raise RuntimeError(f"{prefix}pool {label} {k} too large relative to input {label} "
                               f"{n}")
    shape = list(input.shape[:-d]) + list(size)
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {shape}")
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-d - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != d:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {d}; got "
                           f"{samples.shape[2]}.")
    if input._data.dtype.kind not in "fV" and input.numel():
        _no_kernel(f"{name}_out_frame", input)
    s = samples._data[:batch] if input.dim() == d + 2 else samples._data[0]
    row = fractional_max_pool2d_row if d == 2 else fractional_max_pool3d_row
    return tuple(row(input, kernel, size, s))


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """(output, indices) of 2-D fractional max pooling."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """(output, indices) of 3-D fractional max pooling."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """nn.functional.fractional_max_pool2d: the output, or (output, indices)."""
    out = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """nn.functional.fractional_max_pool3d: the output, or (output, indices)."""
    out = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


# ---- lp_pool: nn.functional's composition -------------------------------------------------

def _lp_pool(d, input, norm_type, kernel_size, stride, ceil_mode):
    from .pointwise import relu, sign
    from ..nn.modules.utils import _pair, _triple
    # the window's size as nn.functional reads it, in Python: the argument itself (1-d), or
    # the product of its pair / triple (unpacked before pooling, multiplied after)
    sizes = (kernel_size,)
    if d == 2:
        kw, kh = _pair(kernel_size)
        sizes = kw, kh
    elif d == 3:
        kd, kw, kh = _triple(kernel_size)
        sizes = kd, kw, kh
    pools = {1: (max_pool1d, avg_pool1d), 2: (max_pool2d, avg_pool2d),
             3: (lambda *a: FUNCTIONS["max_pool3d"](*a), avg_pool3d)}[d]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return pools[0](input.abs(), kernel_size, stride or (), 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -pools[0](-input.abs(), kernel_size, stride or (), 0, 1, ceil_mode)
    if stride is not None:
        out = pools[1](input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = pools[1](input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (sign(out) * relu(out.abs())).mul(functools.reduce(operator.mul, sizes)).pow(
        1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """nn.functional.lp_pool1d: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """nn.functional.lp_pool2d: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """nn.functional.lp_pool3d: (sum over each window of x^p)^(1/p)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)
