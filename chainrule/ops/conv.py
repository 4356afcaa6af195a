"""Convolution and pooling rows.

Each fused backward (`convolution_backward`, `max_pool2d_with_indices_backward`,
`avg_pool2d_backward`, `_adaptive_avg_pool2d_backward`) is a row of its own with its own
derivatives, as in PyTorch's derivatives.yaml, so double backward keeps working.

Convolution is im2col (a strided window view) and one batched matmul with the groups as the
batch dim; its input gradient is the adjoint: the gradient times the kernel gives per-window
columns, which col2im adds back onto the input (one slice-add per kernel tap, never a loop
over positions). Average pooling is separable: out = Mh @ x @ Mw^T with per-axis window
matrices, whose transposes give the gradient.
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .padding import constant_pad_nd
from .pointwise import _zeros
from .registry import op, public
from .shape import _warn_once

__all__ = ["conv1d", "conv2d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
           "max_pool2d_with_indices", "functional_max_pool1d", "functional_max_pool2d",
           "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d"]


# ---- convolution --------------------------------------------------------------------------

def _im2col(xp, kernel, stride, dilation, groups):
    """The windows of a padded (N, C, H, W) array as (N, g, C/g*kh*kw, OH*OW), and OH, OW
    (window positions last: the copy runs along input rows)."""
    n, c = xp.shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    win = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(2, 3))
    win = win[:, :, ::sh, ::sw, ::dh, ::dw]
    oh, ow = win.shape[2:4]
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, groups, c // groups * kh * kw, oh * ow)
    return cols, oh, ow


def _corr(xp, w, stride, dilation, groups):
    """Cross-correlation of a padded (N, C, H, W) array with (O, C/g, kh, kw) weights."""
    n = xp.shape[0]
    o, cg, kh, kw = w.shape
    cols, oh, ow = _im2col(xp, (kh, kw), stride, dilation, groups)
    out = w.reshape(groups, o // groups, cg * kh * kw) @ cols      # (N, g, O/g, OH*OW)
    return out.reshape(n, o, oh, ow)


def _as2d(x, w, stride, padding, dilation):
    """conv1d as conv2d over a height of 1."""
    if x.ndim == 3:
        return (x[:, :, None], w[:, :, None], (1,) + stride, (0,) + padding, (1,) + dilation)
    return x, w, stride, padding, dilation


def _pad(x, padding):
    (ph, pw) = padding
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x


def _convolution(x, w, b, stride, padding, dilation, groups):
    one_d = x.ndim == 3
    x, w, stride, padding, dilation = _as2d(x, w, stride, padding, dilation)
    out = _corr(_pad(x, padding), w, stride, dilation, groups)
    if b is not None:
        out += b[:, None, None]
    return out[:, :, 0] if one_d else out


def _col2im(cols, shape, kernel, stride, dilation, oh, ow):
    """The adjoint of _im2col: each window column added back onto the padded input (one
    vectorized slice-add per kernel tap, over all windows at once)."""
    n, c = shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros(shape, cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, i, j]
    return out


def _convolution_backward(g, x, w, stride, padding, dilation, groups, output_mask):
    one_d = x.ndim == 3
    x, w, stride, padding, dilation = _as2d(x, w, stride, padding, dilation)
    if one_d:
        g = g[:, :, None]
    n, o, oh, ow = g.shape
    gm = g.reshape(n, groups, o // groups, oh * ow)
    wm = w.reshape(groups, o // groups, -1)
    if output_mask[0]:
        (ph, pw), (h, wd) = padding, x.shape[2:]
        full = _col2im(wm.transpose(0, 2, 1) @ gm, (n, x.shape[1], h + 2 * ph, wd + 2 * pw),
                       w.shape[2:], stride, dilation, oh, ow)
        gi = full[:, :, ph:ph + h, pw:pw + wd]
    else:
        gi = np.zeros(x.shape, g.dtype)
    if output_mask[1]:
        cols, _, _ = _im2col(_pad(x, padding), w.shape[2:], stride, dilation, groups)
        gw = (gm @ cols.transpose(0, 1, 3, 2)).sum(0).reshape(w.shape)
    else:
        gw = np.zeros(w.shape, g.dtype)
    gb = g.sum((0, 2, 3)) if output_mask[2] else np.zeros(w.shape[0], g.dtype)
    if one_d:
        gi, gw = gi[:, :, 0], gw[:, :, 0]
    return np.ascontiguousarray(gi), gw, gb


def _bias_grad(g, dims):
    return g.sum((0,) + tuple(range(2, dims)))


convolution_backward = op(
    "convolution_backward", "ConvolutionBackwardBackward0",
    "grad_output, input, weight, stride, padding, dilation, groups, output_mask",
    _convolution_backward, returns=("grad_input", "grad_weight", "grad_bias"),
    function=False, method=False,
    # the backward is bilinear: each gradient is the forward or backward of the other two
    grad_output=lambda grads, input, weight, stride, padding, dilation, groups: (
        convolution(grads[0], weight, None, stride, padding, dilation, groups)
        + convolution(input, grads[1], None, stride, padding, dilation, groups)
        + grads[2].reshape((-1,) + (1,) * (input.dim() - 2))),
    input=lambda grads, grad_output, input, stride, padding, dilation, groups:
        convolution_backward(grad_output, input, grads[1], stride, padding, dilation, groups,
                             (True, False, False))[0],
    weight=lambda grads, grad_output, weight, stride, padding, dilation, groups:
        convolution_backward(grad_output, grads[0], weight, stride, padding, dilation, groups,
                             (False, True, False))[1])

convolution = op(
    "convolution", "ConvolutionBackward0",
    "input, weight, bias, stride, padding, dilation, groups", _convolution,
    function=False, method=False,
    input=lambda grad, input, weight, stride, padding, dilation, groups: convolution_backward(
        grad, input, weight, stride, padding, dilation, groups, (True, False, False))[0],
    weight=lambda grad, input, weight, stride, padding, dilation, groups: convolution_backward(
        grad, input, weight, stride, padding, dilation, groups, (False, True, False))[1],
    bias=lambda grad: _bias_grad(grad, grad.dim()))


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


def _checked_convolution(x, w, b, stride, padding, dilation, groups, dims):
    """at::convolution's checks (in its order), then the row."""
    dim = w.dim() - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand(stride, "stride", dim)
    padding = _expand(padding, "padding", dim)
    dilation = _expand(dilation, "dilation", dim)
    _expand((0,) * dims, "output_padding", dim)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
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
    if shape[1] != wshape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {wshape}, expected "
                           f"input{shape} to have {wshape[1] * groups} channels, but got "
                           f"{shape[1]} channels instead")
    if b is not None and (b.dim() != 1 or b.shape[0] != wshape[0]):
        raise RuntimeError(f"Given weight of size {wshape}, expected bias to be 1-dimensional "
                           f"with {wshape[0]} elements, but got bias of size {list(b.shape)} "
                           "instead")
    padded = [n + 2 * p for n, p in zip(shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, wshape[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be "
                           "greater than actual input size")
    if 0 in dilation:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    # PyTorch does not promote here; NumPy would, silently
    if w.dtype is not x.dtype:
        raise RuntimeError(f"expected scalar type {x.dtype.legacy} but found {w.dtype.legacy}")
    return convolution(x, w, b, stride, padding, dilation, groups)


def _conv(name, dims, input, weight, bias, stride, padding, dilation, groups):
    string = isinstance(padding, str)
    # only the int-padding overloads check the bias dtype (the string ones cast it)
    if not string and bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp}) and bias type "
                           f"({bias.dtype.cpp}) should be the same")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _arg_ints(stride, dims), _arg_ints(dilation, dims)
    if not string:
        padding = _arg_ints(padding, dims)
    elif padding == "same":
        input, padding = _same(input, weight, stride, dilation, groups)
    elif padding == "valid":
        padding = (0,)
    else:
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    out = _checked_convolution(input, weight, bias, stride, padding, dilation, groups, dims)
    return out.squeeze(0) if unbatched else out


@public(method=False)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of (N, C, H, W) or (C, H, W) input."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@public(method=False)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of (N, C, L) or (C, L) input."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


# ---- pooling ------------------------------------------------------------------------------

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
    # needs no test: every window's maximum is at one of its positions inside the input)
    indices = np.empty(values.shape, np.int64)
    indices[...] = taps[-1][1]
    for tap, index, inside in reversed(taps[:-1]):
        hit = tap == values
        if inside is not None:
            hit &= inside
        indices = np.where(hit, index, indices)
    if x.dtype.kind in "fV" and np.isnan(values).any():
        for tap, index, _ in taps:
            indices = np.where(np.isnan(tap), index, indices)
    return values, indices


def _max_pool_backward(g, x, indices, kernel, stride, dilation):
    h, w = x.shape[-2:]
    planes, outs = int(np.prod(x.shape[:-2])), indices.shape[-2] * indices.shape[-1]
    if all(s > (k - 1) * d for k, s, d in zip(kernel, stride, dilation)):
        # disjoint windows: no input position takes two gradients, a scatter suffices
        gi = np.zeros((planes, h * w), x.dtype)
        np.put_along_axis(gi, indices.reshape(planes, outs), g.reshape(planes, outs), 1)
        return gi.reshape(x.shape)
    flat = (indices.reshape(planes, outs) + np.arange(planes)[:, None] * (h * w)).ravel()
    gi = np.bincount(flat, g.ravel(), planes * h * w)
    return gi.astype(x.dtype).reshape(x.shape)


def _max_pool_double_backward(grad, indices):
    """Gathers grad (shaped like the input) at the argmax indices."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).reshape(indices.shape)


max_pool2d_with_indices_backward = op(
    "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0",
    "grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode",
    lambda g, x, indices, k, s, p, d, ceil_mode: _max_pool_backward(g, x, indices, k, s, d),
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
    params = _pool_params("max_pool2d", kernel_size, stride, padding, dilation)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = _pool_shape(input, *params, ceil_mode)
    if input._data.dtype.kind in "bc":
        _no_kernel("max_pool2d", input)
    return tuple(max_pool2d_with_indices_row(input, *params, ceil_mode, out))


@public(method=False)
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) input."""
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def functional_max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
                          ceil_mode=False, return_indices=False):
    """nn.functional.max_pool2d: the output, or (output, indices) with return_indices."""
    out = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return out if return_indices else out[0]


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


def _avg_pool(x, *args):
    if x.dtype.kind in "fV":
        mh, mw = _avg_matrices(x, *args)
        return mh @ x @ mw.T
    # int64: the window sums, divided as C++ divides integers (toward zero)
    (mh, ch), (mw, cw) = _windows(x, *args[:-1])
    total = mh.astype(x.dtype) @ x @ mw.T.astype(x.dtype)
    divisor = args[-1] or ch[:, None] * cw
    return np.sign(total) * (np.abs(total) // divisor)


def _avg_pool_backward(g, x, *args):
    mh, mw = _avg_matrices(x, *args)
    return mh.T @ g @ mw


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
    return mh.T @ g @ mw


adaptive_avg_pool2d_backward = op(
    "_adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", "grad_output, self",
    _adaptive_backward, function=False, method=False,
    grad_output=lambda grad, grad_output: adaptive_avg_pool2d_row(
        grad, tuple(grad_output.shape[-2:])),
    self=_zeros)


def _adaptive(x, output_size):
    mh, mw = _adaptive_matrices(x, output_size)
    return mh @ x @ mw.T


adaptive_avg_pool2d_row = op(
    "_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", "self, output_size", _adaptive,
    function=False, method=False,
    self=lambda grad, self: adaptive_avg_pool2d_backward(grad, self))


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
    if input._data.dtype.kind not in "fV":
        _no_kernel("adaptive_avg_pool2d", input)
    return adaptive_avg_pool2d_row(input, size)


def adaptive_avg_pool2d(input, output_size):
    """nn.functional.adaptive_avg_pool2d: to `output_size` (an int, or a pair whose None
    entries keep the input's size)."""
    if isinstance(output_size, (tuple, list)):
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        output_size = [n if o is None else o
                       for o, n in zip(output_size, input.shape[-len(output_size):])]
    return _adaptive_avg_pool2d(input, _arg_ints(output_size, 2))


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
def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling of (N, C, L) or (C, L) input to `output_size`."""
    _check_dim_range("adaptive_avg_pool1d", input)
    size = _one_int("adaptive_avg_pool1d", "output_size", output_size)
    return _adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)
