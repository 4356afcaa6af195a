"""Convolution and pooling rows.

Each fused backward (`convolution_backward`, `max_pool2d_with_indices_backward`,
`avg_pool2d_backward`, `_adaptive_avg_pool2d_backward`) is a row of its own with its own
derivatives, as in PyTorch's derivatives.yaml, so double backward keeps working.

Convolution is im2col (a strided window view) and one batched matmul with the groups as the
batch dim; its input gradient is the same correlation on the stride-dilated gradient with the
flipped, transposed kernel. Average pooling is separable: out = Mh @ x @ Mw^T with per-axis
window matrices, whose transposes give the gradient.
"""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .registry import op, public

__all__ = ["conv1d", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
           "adaptive_avg_pool2d"]


# ---- convolution --------------------------------------------------------------------------

def _im2col(xp, kernel, stride, dilation, groups):
    """The windows of a padded (N, C, H, W) array as (g, N*OH*OW, C/g*kh*kw), and OH, OW."""
    n, c = xp.shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    win = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(2, 3))
    win = win[:, :, ::sh, ::sw, ::dh, ::dw]
    oh, ow = win.shape[2:4]
    cols = win.reshape(n, groups, c // groups, oh, ow, kh, kw).transpose(1, 0, 3, 4, 2, 5, 6)
    return cols.reshape(groups, n * oh * ow, c // groups * kh * kw), oh, ow


def _corr(xp, w, stride, dilation, groups):
    """Cross-correlation of a padded (N, C, H, W) array with (O, C/g, kh, kw) weights."""
    n = xp.shape[0]
    o, cg, kh, kw = w.shape
    cols, oh, ow = _im2col(xp, (kh, kw), stride, dilation, groups)
    out = cols @ w.reshape(groups, o // groups, cg * kh * kw).transpose(0, 2, 1)
    out = out.reshape(groups, n, oh, ow, o // groups).transpose(1, 0, 4, 2, 3)
    return np.ascontiguousarray(out.reshape(n, o, oh, ow))


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


def _dilate(g, stride):
    """Zeros between the gradient's entries: the output positions in input spacing."""
    sh, sw = stride
    if sh == sw == 1:
        return g
    n, c, oh, ow = g.shape
    z = np.zeros((n, c, (oh - 1) * sh + 1, (ow - 1) * sw + 1), g.dtype)
    z[:, :, ::sh, ::sw] = g
    return z


def _convolution_backward(g, x, w, stride, padding, dilation, groups, output_mask):
    one_d = x.ndim == 3
    x, w, stride, padding, dilation = _as2d(x, w, stride, padding, dilation)
    if one_d:
        g = g[:, :, None]
    gi = gw = None
    if output_mask[0]:
        o, cg, kh, kw = w.shape
        # flip the kernel and swap its in/out channels within each group
        wt = w.reshape(groups, o // groups, cg, kh, kw).transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]
        wt = wt.reshape(groups * cg, o // groups, kh, kw)
        eh, ew = (kh - 1) * dilation[0], (kw - 1) * dilation[1]
        z = np.pad(_dilate(g, stride), ((0, 0), (0, 0), (eh, eh), (ew, ew)))
        full = _corr(z, wt, (1, 1), dilation, groups)
        hp, wp = x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1]
        # padded-input positions past the last window get no gradient
        full = np.pad(full, ((0, 0), (0, 0), (0, hp - full.shape[2]), (0, wp - full.shape[3])))
        gi = full[:, :, padding[0]:hp - padding[0], padding[1]:wp - padding[1]]
    else:
        gi = np.zeros(x.shape, g.dtype)
    if output_mask[1]:
        n, o, oh, ow = g.shape
        cols, _, _ = _im2col(_pad(x, padding), w.shape[2:], stride, dilation, groups)
        gm = g.reshape(n, groups, o // groups, oh * ow).transpose(1, 2, 0, 3)
        gw = (gm.reshape(groups, o // groups, n * oh * ow) @ cols).reshape(w.shape)
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


def _tuple(v, n, name):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return tuple(int(i) for i in v)


def _check_conv(x, w, b, padding, groups):
    shape, dims = list(x.shape), x.dim() - 2
    if w.dim() != dims + 2:
        raise RuntimeError(f"Expected {dims + 2}-dimensional weight for {dims + 2}-dimensional "
                           f"input {shape}, but got {w.dim()}-dimensional weight of size "
                           f"{list(w.shape)}")
    wshape = list(w.shape)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{wshape}] instead")
    if x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {wshape}, expected "
                           f"input{shape} to have {w.shape[1] * groups} channels, but got "
                           f"{x.shape[1]} channels instead")
    if b is not None and (b.dim() != 1 or b.shape[0] != w.shape[0]):
        raise RuntimeError(f"Given weight of size {wshape}, expected bias to be 1-dimensional "
                           f"with {w.shape[0]} elements, but got bias of size {list(b.shape)} "
                           "instead")
    padded = [x.shape[2 + i] + 2 * padding[i] for i in range(dims)]
    if any(p < k for p, k in zip(padded, w.shape[2:])):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, w.shape[2:]))}). Kernel size can't be "
                           "greater than actual input size")


def _conv(name, dims, input, weight, bias, stride, padding, dilation, groups):
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    # PyTorch does not promote here; NumPy would, silently
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                           f"{weight.dtype.legacy}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.cpp}) and bias type "
                           f"({bias.dtype.cpp}) should be the same")
    stride = _tuple(stride, dims, "stride")
    dilation = _tuple(dilation, dims, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * dims
        elif padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        elif any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        else:
            total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            if any(t % 2 for t in total):
                raise NotImplementedError("chainrule supports padding='same' only where the "
                                          "padding is symmetric (odd kernel or even dilation)")
            padding = tuple(t // 2 for t in total)
    padding = _tuple(padding, dims, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check_conv(input, weight, bias, padding, groups)
    out = convolution(input, weight, bias, stride, padding, dilation, groups)
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

def _out_size(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling_output_shape."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(x, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _tuple(kernel_size, 2, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else \
        _tuple(stride, 2, "stride")
    padding, dilation = _tuple(padding, 2, "padding"), _tuple(dilation, 2, "dilation")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    for p, k, d in zip(padding, kernel, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    h, w = x.shape[-2:]
    oh, ow = (_out_size(n, k, s, p, d, ceil_mode)
              for n, k, s, p, d in zip((h, w), kernel, stride, padding, dilation))
    if oh < 1 or ow < 1:
        c = x.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")
    return kernel, stride, padding, dilation, (oh, ow)


def _max_pool(x, kernel, stride, padding, dilation, out):
    """(values, flat indices into each H*W plane); the first maximum wins."""
    h, w = x.shape[-2:]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow) = kernel, stride, padding, dilation, out
    # ceil_mode windows may run past the padding: pad those with -inf too
    eh = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - h - 2 * ph)
    ew = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - w - 2 * pw)
    lead = ((0, 0),) * (x.ndim - 2)
    xp = np.pad(x, lead + ((ph, ph + eh), (pw, pw + ew)), constant_values=-np.inf)
    win = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(-2, -1))
    win = win[..., :oh * sh:sh, :ow * sw:sw, ::dh, ::dw].reshape(x.shape[:-2] + (oh, ow, -1))
    arg = win.argmax(-1)
    values = np.take_along_axis(win, arg[..., None], -1)[..., 0]
    rows = np.arange(oh)[:, None] * sh - ph + (arg // kw) * dh
    cols = np.arange(ow) * sw - pw + (arg % kw) * dw
    return values, (rows * w + cols).astype(np.int64)


def _max_pool_backward(g, x, indices):
    h, w = x.shape[-2:]
    planes = int(np.prod(x.shape[:-2]))
    flat = (indices.reshape(planes, -1) + np.arange(planes)[:, None] * (h * w)).ravel()
    gi = np.bincount(flat, g.ravel(), planes * h * w)
    return gi.astype(x.dtype).reshape(x.shape)


def _max_pool_double_backward(grad, indices):
    """Gathers grad (shaped like the input) at the argmax indices."""
    flat = grad.flatten(-2)
    return flat.gather(-1, indices.flatten(-2)).reshape(indices.shape)


max_pool2d_with_indices_backward = op(
    "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0",
    "grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode",
    lambda g, x, indices, *_: _max_pool_backward(g, x, indices), function=False, method=False,
    grad_output=lambda grad, indices: _max_pool_double_backward(grad, indices),
    self=lambda grad: grad * 0, indices=None)

max_pool2d_with_indices_row = op(
    "max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0",
    "self, kernel_size, stride, padding, dilation, ceil_mode, out_size",
    lambda x, k, s, p, d, ceil_mode, out: _max_pool(x, k, s, p, d, out),
    returns=("output", "indices"), differentiable_outputs=(0,), function=False, method=False,
    self=lambda grads, self, kernel_size, stride, padding, dilation, ceil_mode, result1:
        max_pool2d_with_indices_backward(grads[0], self, result1, kernel_size, stride, padding,
                                         dilation, ceil_mode))


def _check_pool_input(x):
    if x.dim() not in (3, 4) or 0 in x.shape[-3:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False):
    """(output, indices) of 2-D max pooling, indices flat in each input plane."""
    _check_pool_input(input)
    args = _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool2d_with_indices_row(input, *args[:4], ceil_mode, args[4])


@public(method=False)
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) input."""
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _avg_matrix(size, k, s, p, out, count_include_pad, divisor_override, dtype):
    """(out, size): row o averages window o along one axis (PyTorch's divisor rules)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    count = end - start
    start, end = np.maximum(start, 0), np.minimum(end, size)
    if not count_include_pad:
        count = end - start
    i = np.arange(size)
    m = ((i >= start[:, None]) & (i < end[:, None])).astype(dtype)
    return m if divisor_override else (m / count[:, None]).astype(dtype)


def _avg_matrices(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override):
    mh, mw = (_avg_matrix(n, k, s, p, _out_size(n, k, s, p, 1, ceil_mode), count_include_pad,
                          divisor_override, x.dtype)
              for n, k, s, p in zip(x.shape[-2:], kernel_size, stride, padding))
    return (mh / x.dtype.type(divisor_override) if divisor_override else mh), mw


def _avg_pool(x, *args):
    mh, mw = _avg_matrices(x, *args)
    return mh @ x @ mw.T


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
    self=lambda grad: grad * 0)

avg_pool2d_row = op(
    "avg_pool2d", "AvgPool2DBackward0", "self, " + _AVG, _avg_pool,
    function=False, method=False,
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override: avg_pool2d_backward(grad, self, kernel_size, stride, padding,
                                              ceil_mode, count_include_pad, divisor_override))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling of (N, C, H, W) or (C, H, W) input."""
    if input.dim() < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got -3)")
    _check_pool_input(input)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, _ = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode)
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
    self=lambda grad: grad * 0)


def _adaptive(x, output_size):
    mh, mw = _adaptive_matrices(x, output_size)
    return mh @ x @ mw.T


adaptive_avg_pool2d_row = op(
    "_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", "self, output_size", _adaptive,
    function=False, method=False,
    self=lambda grad, self: adaptive_avg_pool2d_backward(grad, self))


def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling to `output_size` (an int, or a pair; None keeps a size)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    size = tuple(n if o is None else int(o) for n, o in zip(input.shape[-2:], size))
    if size == (1, 1):
        # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return adaptive_avg_pool2d_row(input, size)
