"""Neural-network ops: softmax, log_softmax, losses, activations, embedding, _trilinear
(under bilinear) and dropout.

Each fused backward (`_softmax_backward_data`, `nll_loss_backward`, `gelu_backward`, ...) is
a row of its own with its own derivatives, as in PyTorch's derivatives.yaml, so the
gradient is one numerically stable NumPy pass and double backward still works.
Reductions are the strings "none", "mean", "sum"; chainrule.nn.functional checks them.
"""
import math

import numpy as np

from .._creation import _arg_type, _dense_strides, _iter_perm, full_like, zeros_like
from .. import _dtype
from .._dtype import FROM_NP
from .._random import default_generator
from .._tensor import Tensor, make_tensor
from .._dims import wrap_dim, wrap_dims
from ..autograd import grad_mode
from .indexing import _accumulate, _index_select, index_select
from .binding import Overloads, Signature, declare
from .padding import _fill_value
from .pointwise import (_conj, _erf_erfc, _neg, _not_for, _opmath, _refuse_bool_sub, _zeros, mul,
                        threshold_backward, where)
from .registry import (EXACT, FUNCTIONS, NOT_IMPLEMENTED, PROMOTE, PROMOTE_FLOAT, SAME_DTYPE,
                       check_broadcast, no_derivative, not_implemented, op, out_cast,
                       out_without_derivative, public)


def _ones(t):
    return make_tensor(np.ones((), t._data.dtype))


def _reduce(a, reduction):
    if reduction == "mean":
        if not a.size:     # nan, without NumPy's "Mean of empty slice" warning
            return np.full((), np.nan, a.dtype)
        if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            return _add_reduce(a, None) / a.size    # np.mean's sum and division, unwrapped
        return a.mean()
    return _add_reduce(a, None) if reduction == "sum" else a


def _reduce_t(t, reduction):
    """The same reduction on a Tensor (in formulas)."""
    if reduction == "mean":
        return t.mean()
    return t.sum() if reduction == "sum" else t


def _float_arg(fn, name, v, position):
    """A `float` argument as PyTorch's argument parser takes it: a real Python number, a
    NumPy number or a 0-d tensor (a Python complex is refused), read as a float."""
    if (type(v) is not complex and isinstance(v, (int, float, np.number, np.bool_))
            or isinstance(v, Tensor) and v.dim() == 0):
        return float(v)
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be float, not "
                    f"{_arg_type(v)}")


def _bool_arg(fn, name, v, position, optional=False):
    """A `bool` argument as PyTorch's argument parser takes it: only a Python bool (or None
    for an optional one)."""
    if type(v) is bool or optional and v is None:
        return v
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be bool, not "
                    f"{_arg_type(v)}")


# ---- Tensor-Scalar arithmetic, as the C++ compositions (cross_entropy) record it ----------
# (for a half tensor, mul and div by a number compute in float32 with the number as it is;
# add and sub round the number to half first)

add_scalar = op("add.Scalar", "AddBackward1", "self, other", lambda a, other: a + other,
                promote=PROMOTE, promote_with=("other",), function=False, method=False,
                self=lambda grad: grad)

sub_scalar = op("sub.Scalar", "SubBackward1", "self, other", lambda a, other: a - other,
                promote=PROMOTE, promote_with=("other",), function=False, method=False,
                self=lambda grad: grad)

mul_scalar = op("mul.Scalar", "MulBackward1", "self, other", _opmath(lambda a, other: a * other),
                promote=PROMOTE, promote_with=("other",), function=False, method=False,
                self=lambda grad, other: mul_scalar(grad, _conj(other)))

div_scalar = op("div.Scalar", "DivBackward1", "self, other", _opmath(lambda a, other: a / other),
                promote=PROMOTE_FLOAT, promote_with=("other",), function=False, method=False,
                self=lambda grad, other: div_scalar(grad, _conj(other)))


# ---- softmax and log_softmax ----------------------------------------------------------------

def _along(f):
    """Apply f(array, axis) with a 0-d input treated as 1-d (dims 0 and -1 are valid)."""
    def forward(a, dim, *rest):
        axis = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return f(a.reshape(1), 0, *rest).reshape(())
        return f(a, axis, *rest)
    return forward


def _softmax_kernel(name, f):
    """The softmax kernels: float only (PyTorch names the last-dim or the general kernel in
    its error), half computed in float32 and rounded once."""
    def forward(a, axis):
        if not a.size:     # PyTorch runs no kernel (NumPy's max has no identity here)
            return np.empty_like(a)
        if a.dtype.kind not in "fV":
            kernel = f"{name}_lastdim_kernel_impl" if axis == a.ndim - 1 else f"{name}_kernel_impl"
            _not_for(a, a.dtype.kind, kernel)
        if a.dtype == np.float16:
            return f(a.astype(np.float32), axis).astype(np.float16)
        return f(a, axis)
    return forward


_max_reduce, _add_reduce = np.maximum.reduce, np.add.reduce     # (ndarray.max/sum wrap these)


def _softmax_array(a, axis):
    # (initial: empty axes)
    e = np.subtract(a, _max_reduce(a, axis, None, None, True, -np.inf))
    np.exp(e, out=e)
    e /= _add_reduce(e, axis, None, None, True)
    return e


def _log_softmax_array(a, axis):
    shifted = np.subtract(a, _max_reduce(a, axis, None, None, True, -np.inf))
    shifted -= np.log(_add_reduce(np.exp(shifted), axis, None, None, True))
    return shifted


_softmax = _softmax_kernel("softmax", _softmax_array)
_log_softmax = _softmax_kernel("log_softmax", _log_softmax_array)


def _softmax_bw(g, out, axis):
    return out * (g - _add_reduce(g * out, axis, None, None, True))


def _log_softmax_bw(g, out, axis):
    return g - np.exp(out) * _add_reduce(g, axis, None, None, True)


def _sum_dim(t, dim):
    return t.sum(dim, keepdim=True) if t.dim() > 0 else t


softmax_backward_data = op(
    "_softmax_backward_data", "SoftmaxBackwardDataBackward0", "grad_output, output, dim",
    lambda g, out, dim: _along(lambda g, axis, out: _softmax_bw(g, out.reshape(g.shape), axis))(
        g, dim, out),
    function=False, method=False,
    grad_output=lambda grad, output, dim: softmax_backward_data(grad, output, dim),
    output=lambda grad, grad_output, output, dim: (
        grad_output * grad - _sum_dim(output * grad_output, dim) * grad
        - grad_output * _sum_dim(output * grad, dim)))

log_softmax_backward_data = op(
    "_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", "grad_output, output, dim",
    lambda g, out, dim: _along(lambda g, axis, out: _log_softmax_bw(g, out.reshape(g.shape), axis))(
        g, dim, out),
    function=False, method=False,
    grad_output=lambda grad, output, dim: grad - _sum_dim(grad * output.exp(), dim),
    output=lambda grad, grad_output, output, dim: -grad * output.exp() * _sum_dim(grad_output, dim))

softmax = op("_softmax", "SoftmaxBackward0", "self, dim", _along(_softmax),
             function=False, method=False,
             self=lambda grad, result, dim: softmax_backward_data(grad, result, dim))

log_softmax = op("_log_softmax", "LogSoftmaxBackward0", "self, dim", _along(_log_softmax),
                 function=False, method=False,
                 self=lambda grad, result, dim: log_softmax_backward_data(grad, result, dim))


def _dim_arg(name, dim):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not "
                        f"{type(dim).__name__}")
    return dim


def _softmax_of(row, name):
    def method(input, dim, dtype=None):
        dim = _dim_arg(name, dim)
        return row(input if dtype is None else input.to(dtype), dim)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"torch.{name} / Tensor.{name}: {row.op.name} of the input converted to "
                      "`dtype` first.")
    return method


softmax_int = _softmax_of(softmax, "softmax")
log_softmax_int = _softmax_of(log_softmax, "log_softmax")
Tensor.softmax = softmax_int
Tensor.log_softmax = log_softmax_int


# out=: PyTorch's softmax.int_out has no derivative: an input that requires grad gives out a
# NotImplemented node (Note [NotImplemented nodes])
out_without_derivative("softmax", softmax_int, EXACT)
out_without_derivative("log_softmax", log_softmax_int, EXACT)


# ---- nll_loss ---------------------------------------------------------------------------------

def _nll_parts(x, target, weight, ignore_index):
    """(x as (N, C, ...), safe class indices, per-element weights or None for all ones,
    ignored mask or None for none ignored) with PyTorch's checks. The common case (no
    weight, nothing ignored) makes no weight or mask arrays."""
    if x.ndim == 1:
        x, target = x[None], target.reshape(1)
    n_classes = x.shape[1]
    # one reduction tells all targets are classes (negative int64 read as uint64 are huge)
    if (not target.size or _max_reduce(target.view(target.dtype.str.replace("i", "u")), None)
            < n_classes) \
            and not (0 <= ignore_index < n_classes and (target == ignore_index).any()):
        if weight is None:
            return x, target, None, None
        return x, target, weight.astype(x.dtype)[target], None
    ignored = target == ignore_index
    bad = ~ignored & ((target < 0) | (target >= x.shape[1]))
    if bad.any():
        raise IndexError(f"Target {target[bad].flat[0]} is out of bounds.")
    safe = np.where(ignored, 0, target)
    w = np.ones(x.shape[1], x.dtype) if weight is None else weight.astype(x.dtype)
    return x, safe, np.where(ignored, 0, w[safe]).astype(x.dtype), ignored


def _picked(xs, safe):
    """xs[n, safe[n], ...]: each element's entry of its class."""
    if xs.ndim == 2:
        return xs[np.arange(len(safe)), safe]
    return np.take_along_axis(xs, safe[:, None], 1)[:, 0]


def _nll(x, target, weight, reduction, ignore_index):
    _not_for(x, "biuc", "nll_loss_out_frame" if x.ndim <= 2 else "nll_loss2d_forward_out_frame")
    if weight is not None and weight.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {FROM_NP[x.dtype].legacy} but found "
                           f"{FROM_NP[weight.dtype].legacy}")
    xs, safe, wt, ignored = _nll_parts(x, target, weight, ignore_index)
    losses = -_picked(xs, safe) if wt is None else -wt * _picked(xs, safe)
    if ignored is not None:     # an ignored row adds nothing, whatever its value (-inf, NaN)
        losses = np.where(ignored, 0, losses)
    if reduction == "none":
        return losses.reshape(target.shape)
    total = _add_reduce(losses, None)
    if reduction == "sum":
        return total
    return total / (x.dtype.type(safe.size) if wt is None else wt.sum())


def _nll_backward(g, x, target, weight, reduction, ignore_index):
    if x.ndim == 4 and _dense_strides(x) and not x.flags.c_contiguous:
        # nll_loss2d's gradient is zeros_like(input), which keeps a dense input's strides,
        # and its kernel refuses them
        raise RuntimeError("grad_input must be contiguous")
    xs, safe, wt, ignored = _nll_parts(x, target, weight, ignore_index)
    g = np.asarray(g).reshape(safe.shape) if reduction == "none" else g
    if wt is None:
        scale = -g / x.dtype.type(safe.size) if reduction == "mean" else -g
    else:
        scale = -wt * g / wt.sum() if reduction == "mean" else -wt * g
    if ignored is not None:     # no gradient, even when all are ignored (0 / 0 above)
        scale = np.where(ignored, 0, scale)
    scale = np.broadcast_to(np.asarray(scale, x.dtype), safe.shape)
    out = np.zeros_like(xs)
    if xs.ndim == 2:
        out[np.arange(len(safe)), safe] = scale
    else:
        np.put_along_axis(out, safe[:, None], scale[:, None], 1)
    return out.reshape(x.shape)


def _nll_rows(name, node):
    # the two rows refer to each other through this closure
    bw = op(f"{name}_backward", f"{node}BackwardBackward0",
            "grad_output, self, target, weight, reduction, ignore_index", _nll_backward,
            function=False, method=False,
            grad_output=lambda grad, target, weight, reduction, ignore_index:
                forward(grad, target, weight, reduction, ignore_index),
            self=_zeros)
    forward = op(name, f"{node}Backward0", "self, target, weight, reduction, ignore_index", _nll,
                 function=False, method=False,
                 self=lambda grad, self, target, weight, reduction, ignore_index:
                     bw(grad, self, target, weight, reduction, ignore_index))
    return forward


nll_loss = _nll_rows("nll_loss", "NllLoss")
nll_loss2d = _nll_rows("nll_loss2d", "NllLoss2D")


# ---- pointwise losses ---------------------------------------------------------------------

def _mse_bw(g, x, t, reduction):
    d = 2 * (x - t)
    return d * g / d.size if reduction == "mean" else d * g


def _mse_dd(grad, x, reduction):
    """d mse_loss_backward / d self, applied to `grad` (already times grad_output)."""
    return grad * (2.0 / x.numel() if reduction == "mean" else 2.0)


mse_loss_backward = op(
    "mse_loss_backward", "MseLossBackwardBackward0", "grad_output, self, target, reduction",
    _mse_bw, function=False, method=False,
    grad_output=lambda grad, self, target, reduction: _reduce_t(
        2.0 * (self - target) * grad, reduction),
    self=lambda grad, grad_output, self, reduction: _mse_dd(grad * grad_output, self, reduction),
    target=lambda grad, grad_output, target, reduction: -_mse_dd(grad * grad_output, target,
                                                                 reduction))

def _mse(x, t, reduction):
    dtype = _loss_kernel_dtype(x, t, "mse_cpu", False)
    return _reduce(((x - t) ** 2).astype(dtype, copy=False), reduction)


mse_loss = op("mse_loss", "MseLossBackward0", "self, target, reduction", _mse,
              function=False, method=False,
              self=lambda grad, self, target, reduction: mse_loss_backward(grad, self, target,
                                                                           reduction),
              target=lambda grad, self, target, reduction: mse_loss_backward(grad, target, self,
                                                                             reduction))


def _huber_bw(g, x, t, reduction, delta, smooth_l1):
    """Gradient of huber (delta) or smooth_l1 (beta, which divides the quadratic part)."""
    if not smooth_l1 and x.dtype != t.dtype:
        raise RuntimeError(f"Found dtype {FROM_NP[t.dtype].legacy} but expected "
                           f"{FROM_NP[x.dtype].legacy}")
    d = x - t
    norm = 1 / d.size if reduction == "mean" else 1
    inner = d / delta if smooth_l1 else d
    slope = np.sign(d) if smooth_l1 else delta * np.sign(d)
    return np.where(np.abs(d) < delta, inner, slope) * g * norm


def _loss_kernel_dtype(x, t, kernel, into_input):
    """PyTorch's checks of an elementwise loss kernel, and its result dtype: it computes in
    the result type of input and target, floating only; into_input (huber_loss) writes into
    an output of the input's dtype, which the result type must cast to."""
    common = _dtype.promote_types(FROM_NP[x.dtype], FROM_NP[t.dtype])
    if into_input and not _dtype.can_cast(common, FROM_NP[x.dtype]):
        raise RuntimeError(f"result type {common.legacy} can't be cast to the desired output "
                           f"type {FROM_NP[x.dtype].legacy}")
    if common.np.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{common.legacy}'")
    return x.dtype if into_input else common.np


def _huber(x, t, reduction, delta, smooth_l1):
    dtype = _loss_kernel_dtype(x, t, "smooth_l1_cpu" if smooth_l1 else "huber_cpu",
                               not smooth_l1)
    d = np.abs(x - t)
    if smooth_l1:
        e = np.where(d < delta, 0.5 * d * d / delta, d - 0.5 * delta) if delta > 0 else d
    else:
        e = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(e.astype(dtype, copy=False), reduction)


def _huber_dd(grad, x, t, reduction, delta, smooth_l1):
    # second derivative: 1 (huber) or 1/beta (smooth_l1) inside |d| < delta, 0 outside
    inside = ((x - t).abs() < delta).to(grad.dtype)
    scale = (1 / delta if smooth_l1 else 1.0) / (x.numel() if reduction == "mean" else 1)
    return grad * inside * scale


def _huber_rows(name, node, smooth_l1):
    bw = op(f"{name}_backward", f"{node}BackwardBackward0",
            "grad_output, self, target, reduction, delta",
            lambda g, x, t, r, delta: _huber_bw(g, x, t, r, delta, smooth_l1),
            function=False, method=False,
            grad_output=lambda grad, self, target, reduction, delta: _reduce_t(
                bw(_ones(grad), self, target, "none", delta) * grad, reduction),
            self=lambda grad, grad_output, self, target, reduction, delta: _huber_dd(
                grad * grad_output, self, target, reduction, delta, smooth_l1),
            target=lambda grad, grad_output, self, target, reduction, delta: -_huber_dd(
                grad * grad_output, self, target, reduction, delta, smooth_l1))
    forward = op(name, f"{node}Backward0", "self, target, reduction, delta",
                 lambda x, t, r, delta: _huber(x, t, r, delta, smooth_l1),
                 function=False, method=False,
                 self=lambda grad, self, target, reduction, delta: bw(grad, self, target,
                                                                     reduction, delta),
                 # as PyTorch's: the backward with input and target swapped
                 target=lambda grad, self, target, reduction, delta: bw(grad, target, self,
                                                                       reduction, delta))
    return forward


huber_loss = _huber_rows("huber_loss", "HuberLoss", False)
smooth_l1_loss = _huber_rows("smooth_l1_loss", "SmoothL1Loss", True)


def _bce_weight(x, weight):
    return np.ones((), x.dtype) if weight is None else weight.astype(x.dtype)


def _bce_weight_fits(shape, w):
    """PyTorch's errors for a weight that does not broadcast to the input's shape."""
    if len(w) > len(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(shape, w))}")
    for k in range(1, len(w) + 1):
        if w[-k] not in (1, shape[-k]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {w[-k]} at {-k}! "
                               f"Mismatching argument at index 1 had torch.Size({list(w)}); but "
                               f"expected shape should be broadcastable to {list(shape)}")


def _bce(x, t, weight, reduction):
    if t.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {FROM_NP[t.dtype].legacy} but expected "
                           f"{FROM_NP[x.dtype].legacy}")
    if weight is not None and weight.ndim <= x.ndim:
        _bce_weight_fits(x.shape, weight.shape)     # (the weight's broadcast, before the dtype)
    _not_for(x, "biuc", "binary_cross_entropy")
    if weight is not None and weight.ndim > x.ndim:
        _bce_weight_fits(x.shape, weight.shape)     # (the loss's in-place mul_ by the weight)
    # PyTorch's kernel checks each element's input, then its target (nan is out of range)
    shape = np.broadcast_shapes(x.shape, t.shape)
    bad_x = np.broadcast_to(~((x >= 0) & (x <= 1)), shape)
    first = np.flatnonzero(bad_x | np.broadcast_to(~((t >= 0) & (t <= 1)), shape))
    if first.size:
        which = "input" if bad_x.flat[first[0]] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    if weight is not None:     # the loss is multiplied by the weight in place
        common = _dtype.promote_types(FROM_NP[x.dtype], FROM_NP[weight.dtype])
        if not _dtype.can_cast(common, FROM_NP[x.dtype]):
            raise _cast_error(FROM_NP[x.dtype].legacy, common.legacy)
    log_x, log_1mx = np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)
    return _reduce(-_bce_weight(x, weight) * (t * log_x + (1 - t) * log_1mx), reduction)


def _bce_bw(g, x, t, weight, reduction):
    gi = g * _bce_weight(x, weight) * (x - t) / np.maximum((1 - x) * x, 1e-12)
    return gi / x.size if reduction == "mean" else gi


def _weighted(t, weight, reduction, numel):
    if weight is not None:
        t = t * make_tensor(weight.astype(t._data.dtype))
    return div_scalar(t, numel) if reduction == "mean" else t


binary_cross_entropy_backward = op(
    "binary_cross_entropy_backward", "BinaryCrossEntropyBackwardBackward0",
    "grad_output, self, target, weight, reduction", _bce_bw, function=False, method=False,
    grad_output=lambda grad, self, target, weight, reduction: _reduce_t(_weighted(
        grad * (self - target) / ((1 - self) * self).clamp_min(1e-12), weight, "none", 1),
        reduction),
    self=lambda grad, grad_output, self, target, weight, reduction: _weighted(
        grad * grad_output * (self * self - 2 * self * target + target)
        / ((1 - self) * self).clamp_min(1e-12).pow(2), weight, reduction, self.numel()),
    target=lambda grad, grad_output, self, weight, reduction: _weighted(
        -grad * grad_output / ((1 - self) * self).clamp_min(1e-12), weight, reduction,
        self.numel()))

binary_cross_entropy = op(
    "binary_cross_entropy", "BinaryCrossEntropyBackward0", "self, target, weight, reduction",
    _bce, function=False, method=False,
    self=lambda grad, self, target, weight, reduction: binary_cross_entropy_backward(
        grad, self, target, weight, reduction),
    # -logit(input): infinite where the input is 0 or 1, unlike the loss's clamped logs
    target=lambda grad, self, weight, reduction: _weighted(
        -self.logit() * grad, weight, reduction, self.numel()))


# log_sigmoid: log_sigmoid_forward's buffer exp(-|x|) is reused by its backward

@_opmath
def _log_sigmoid(x):
    _not_for(x, "biuc", "log_sigmoid_cpu")
    z = np.exp(-np.abs(x))
    return np.minimum(x, 0) - np.log1p(z), z


def _log_sigmoid_bw(g, x, buffer):
    negative = x < 0
    return (negative - np.where(negative, 1, -1) * (buffer / (1 + buffer))) * g


log_sigmoid_backward = op(
    "log_sigmoid_backward", "LogSigmoidBackwardBackward0", "grad_output, self, buffer",
    _opmath(_log_sigmoid_bw), function=False, method=False,
    grad_output=lambda grad, self, buffer: log_sigmoid_backward(grad, self, buffer),
    self=lambda grad, grad_output, self: _log_sigmoid_double_backward(grad * grad_output, self),
    buffer=None)


def _log_sigmoid_double_backward(grad, input):
    z = input.sigmoid()
    return grad * (z - 1) * z


log_sigmoid_forward = op(
    "log_sigmoid_forward", "LogSigmoidBackward0", "self", _log_sigmoid,
    returns=("output", "buffer"), differentiable_outputs=(0,), function=False, method=False,
    self=lambda grads, self, result1: log_sigmoid_backward(grads[0], self, result1))


def log_sigmoid(input):
    """log(sigmoid(input)), computed stably."""
    return log_sigmoid_forward(input)[0]


def _bce_logits(x, t, weight, pos_weight, reduction):
    log_sig = _log_sigmoid(x)[0]
    if pos_weight is not None:     # in place in log_sigmoid(input), of the input's dtype
        log_sig = (log_sig * ((pos_weight - 1) * t + 1)).astype(x.dtype, copy=False)
    # in place in (1 - target), as PyTorch's: each step rounded to target's dtype
    loss = ((1 - t) * x).astype(t.dtype, copy=False)
    loss = (loss - log_sig).astype(t.dtype, copy=False)
    if weight is not None:
        loss = (loss * weight).astype(t.dtype, copy=False)
    return _reduce(loss, reduction)


def _into(out, dtype, shape):
    """PyTorch's errors of an in-place binary op writing into `out` with an operand of
    `dtype` and `shape`: the shape, then the dtype."""
    broadcast = np.broadcast_shapes(tuple(out.shape), shape)
    if broadcast != tuple(out.shape):
        raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast "
                           f"shape {list(broadcast)}")
    common = _dtype.promote_types(out.dtype, dtype)
    if not _dtype.can_cast(common, out.dtype):
        raise _cast_error(out.dtype.legacy, common.legacy)


def _bce_logits_grad_self(grad, self, target, weight, pos_weight, reduction):
    # PyTorch's composite formula, so double backward records its nodes; without a graph
    # to record it computes in place, in a tensor of the input's shape and dtype (or, with
    # pos_weight, of pos_weight * target's), refusing operands that broadcast beyond it and
    # rounding each step to its dtype
    inplace = not grad_mode.state.grad_enabled

    def into(out, other, step):
        if not inplace:
            return step(out, other)
        _into(out, other.dtype, tuple(other.shape))
        return step(out, other).to(out.dtype)
    if pos_weight is not None:
        t = make_tensor(pos_weight) * target
        gi = into(into(add_scalar(t, 1), target, Tensor.__sub__), self.sigmoid(),
                  Tensor.__mul__)
        gi = into(gi, t, Tensor.__sub__)
    else:
        gi = into(self.sigmoid(), target, Tensor.__sub__)
    gi = into(gi, grad, Tensor.__mul__)
    if inplace and weight is not None:
        _into(gi, FROM_NP[weight.dtype], weight.shape)
    return _weighted(gi, weight, reduction, self.numel())


def _bce_logits_grad_target(grad, self, target_shape, weight, pos_weight, reduction):
    # in place in a tensor of the input's shape (or -input * grad's, without pos_weight)
    if pos_weight is not None:
        pw = make_tensor(pos_weight)
        _into(self, pw.dtype, pos_weight.shape)
        gt = log_sigmoid(-self) - (log_sigmoid(self) * pw).to(self.dtype)
        _into(gt, grad.dtype, tuple(grad.shape))
        gt = (gt * grad).to(gt.dtype)
    else:
        gt = -self * grad
    if weight is not None:
        _into(gt, FROM_NP[weight.dtype], weight.shape)
    return _weighted(gt, weight, reduction, math.prod(target_shape))


_bce_with_logits = op(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
    "self, target, weight, pos_weight, reduction", _bce_logits, function=False, method=False,
    self=_bce_logits_grad_self, target=_bce_logits_grad_target)

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}     # at::Reduction; other values: none


# torch.binary_cross_entropy_with_logits defaults reduction to 0, as the losses below do
@public(method=False)
@Signature("binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, "
           "Tensor? pos_weight=None, int reduction=1)").bind
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """binary_cross_entropy of sigmoid(input), computed stably from the logits; weight
    scales each element, pos_weight the positive term of each class."""
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad:
            raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not "
                               f"differentiable with respect to argument '{name}'. This input "
                               "cannot have requires_grad True.")
    # PyTorch's composite takes log_sigmoid(input), then computes the loss in place in
    # (1 - target): of target's dtype and shape, which the other operands must cast and
    # broadcast into
    _not_for(input._data, "biuc", "log_sigmoid_cpu")
    arrays = [input._data, target._data] + [t._data for t in (weight, pos_weight)
                                            if t is not None]
    check_broadcast(arrays)
    if pos_weight is not None:
        # log_sigmoid(input).mul_((pos_weight - 1) * target + 1)
        _refuse_bool_sub(pos_weight._data, None)
        _into(input, _dtype.promote_types(pos_weight.dtype, target.dtype),
              np.broadcast_shapes(tuple(pos_weight.shape), tuple(target.shape)))
    if target._data.dtype == np.bool_:
        _refuse_bool_sub(True, target._data)     # the 1 becomes a bool tensor too
    common = _dtype.promote_types(target.dtype, input.dtype)
    if not _dtype.can_cast(common, target.dtype):
        raise RuntimeError(f"result type {common.legacy} can't be cast to the desired output "
                           f"type {target.dtype.legacy}")
    for other in (input, weight):
        shape = other is not None and np.broadcast_shapes(tuple(target.shape),
                                                          tuple(other.shape))
        if shape and shape != tuple(target.shape):
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
    if weight is not None:     # then .mul_(weight)
        _into(target, weight.dtype, tuple(weight.shape))
    return _bce_with_logits(input, target, None if weight is None else weight._data,
                            None if pos_weight is None else pos_weight._data,
                            _REDUCTIONS.get(reduction, "none"))



# ---- losses PyTorch composes from other ops (Loss.cpp), reduction as its enum ------------------
# Their torch.* functions default `reduction` to 0 (none): the binding cannot parse the schema's
# default `Mean`, so an unreduced loss comes back unless one is asked for.
# C++'s `tensor + double` is add.Scalar (AddBackward1), `double - tensor` fills a new tensor
# and subtracts (SubBackward0 with no edge for the number), `tensor.clamp_min_(0)` records
# ClampMinBackward0.

def _apply_loss_reduction(loss, reduction):
    if reduction == 1:
        return loss.mean()
    return loss.sum() if reduction == 2 else loss


def _number_minus(number, t):
    """`number - t` as ATen's operator-(Scalar, Tensor) records it."""
    return FUNCTIONS["sub"](full_like(t, number), t)


@public(method=False)
@Signature("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
           "int reduction=1)").bind
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """mean / sum / each of max(0, -target * (input1 - input2) + margin)."""
    margin = _float_arg("margin_ranking_loss", "margin", margin, 4)
    unclamped = add_scalar(-target * (input1 - input2), margin)
    return _apply_loss_reduction(unclamped.clamp_min(0), reduction)


_EPSILON = float(np.float32(1e-12))     # Loss.cpp's `constexpr float EPSILON`


@public(method=False)
@Signature("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
           "int reduction=1)").bind
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    margin = _float_arg("cosine_embedding_loss", "margin", margin, 4)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = add_scalar((input1 * input1).sum(dim), _EPSILON)
    mag_square2 = add_scalar((input2 * input2).sum(dim), _EPSILON)
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = zeros_like(cos)
    pos = _number_minus(1, cos)
    neg = sub_scalar(cos, margin).clamp_min(0)
    output = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _apply_loss_reduction(output, reduction)


@public(method=False)
@Signature("hinge_embedding_loss(Tensor input, Tensor target, float margin=1., "
           "int reduction=1)").bind
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """input where target is 1, max(0, margin - input) where it is -1 (both elsewhere)."""
    margin = _float_arg("hinge_embedding_loss", "margin", margin, 3)
    zeros = zeros_like(input)
    margin_clamp = _number_minus(margin, input).clamp_min(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _apply_loss_reduction(output, reduction)


@public(method=False)
@Signature("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, "
           "float margin=1., float p=2., float eps=1e-06, bool swap=False, int reduction=1)").bind
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with pairwise p-norm
    distances (swap: the smaller of d(anchor, negative) and d(positive, negative))."""
    margin, p, eps = (_float_arg("triplet_margin_loss", name, v, position) for position, (name, v)
                      in enumerate((("margin", margin), ("p", p), ("eps", eps)), 4))
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    distance = FUNCTIONS["pairwise_distance"]
    dist_pos = distance(anchor, positive, p, eps)
    dist_neg = distance(anchor, negative, p, eps)
    if swap:
        dist_neg = FUNCTIONS["minimum"](dist_neg, distance(positive, negative, p, eps))
    output = (add_scalar(dist_pos, margin) - dist_neg).clamp_min(0)
    return _apply_loss_reduction(output, reduction)


@public(method=False)
@Signature("poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
           "int reduction)").bind
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Negative log likelihood of a Poisson distribution: exp(input) - target * input for
    log-rate input, input - target * log(input + eps) otherwise; `full` adds Stirling's
    term where target > 1."""
    _bool_arg("poisson_nll_loss", "log_input", log_input, 3)
    _bool_arg("poisson_nll_loss", "full", full, 4)
    eps = _float_arg("poisson_nll_loss", "eps", eps, 5)
    # (GCC evaluates an operator's right operand first: that one is recorded first)
    if log_input:
        product = target * input
        loss = input.exp() - product
    else:
        loss = input - target * add_scalar(input, eps).log()
    if full:
        stirling = target * target.log() - target + mul_scalar(
            mul_scalar(target, 2 * math.pi).log(), 0.5)
        loss.add_(stirling.masked_fill(target <= 1, 0))     # in place: loss keeps its dtype
    return _apply_loss_reduction(loss, reduction)


@public(method=False)
@Signature("kl_div(Tensor input, Tensor target, int reduction=1, *, bool log_target=False)").bind
def kl_div(input, target, reduction=0, *, log_target=False):
    """Pointwise KL divergence target * (log(target) - input) (exp(target) * (target - input)
    for log-space target)."""
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    # (right operands first, as GCC evaluates them)
    if log_target:
        difference = target - input
        output = target.exp() * difference
    else:
        product = target * input
        output = FUNCTIONS["xlogy"](target, target) - product
    return _apply_loss_reduction(output, reduction)

# ---- activations --------------------------------------------------------------------------

leaky_relu_backward = op(
    "leaky_relu_backward", "LeakyReluBackwardBackward0", "grad_output, self, negative_slope",
    lambda g, x, slope: np.where(x > 0, g, g * slope), function=False, method=False,
    grad_output=lambda grad, self, negative_slope: leaky_relu_backward(grad, self, negative_slope),
    self=_zeros)

def _leaky_relu(x, slope):
    _not_for(x, "biuc", "leaky_relu_cpu")
    return np.where(x > 0, x, x * slope)


leaky_relu = op("leaky_relu", "LeakyReluBackward0", "self, negative_slope", _leaky_relu,
                function=False, method=False,
                self=lambda grad, self, negative_slope: leaky_relu_backward(grad, self,
                                                                            negative_slope))

# leaky_relu_ (LeakyReluBackward1) reads its output: positive exactly where the input was
leaky_relu_inplace = op("leaky_relu_", "LeakyReluBackward1", "self, negative_slope=0.01",
                        _leaky_relu, function=False, method=False,
                        self=lambda grad, result, negative_slope: leaky_relu_backward(
                            grad, result, negative_slope))


def _elu_coefs(x, alpha, scale, input_scale):
    """PyTorch's elu kernels' coefficients, in the dtype they compute in (float for half):
    negcoef = alpha * scale, poscoef = scale, negiptcoef = input_scale."""
    t = np.float32 if x.dtype == np.float16 else x.dtype.type
    return t(alpha) * t(scale), t(scale), t(input_scale)


@_opmath
def _elu(x, alpha, scale, input_scale):
    _not_for(x, "biuc", "elu_cpu")
    negcoef, poscoef, negiptcoef = _elu_coefs(x, alpha, scale, input_scale)
    return np.where(x > 0, x * poscoef, np.expm1(np.minimum(x, 0) * negiptcoef) * negcoef)


def _elu_bw(g, x, alpha, scale, input_scale, is_result):
    _not_for(x, "biuc", "elu_backward_cpu")
    negcoef, poscoef, negiptcoef = _elu_coefs(x, alpha, scale, input_scale)
    wide = x.dtype == np.float16
    if wide:
        g, x = g.astype(np.float32), x.astype(np.float32)
    if is_result:     # x is the output: its derivative is input_scale * (output + negcoef)
        out = np.where(x <= 0, g * negiptcoef * (x + negcoef), g * poscoef)
    else:
        out = np.where(x <= 0, g * negiptcoef * negcoef * np.exp(np.minimum(x, 0) * negiptcoef),
                       g * poscoef)
    return out.astype(np.float16) if wide else out


def _elu_double_backward(grad, grad_output, self, alpha, scale, input_scale, is_result):
    # FunctionsManual's elu_double_backward
    negative = (self < 0).to(grad.dtype)
    if is_result:
        return grad * grad_output * input_scale * negative
    return elu_backward(grad * grad_output * input_scale, self, alpha, scale, input_scale,
                        is_result) * negative


elu_backward = op(
    "elu_backward", "EluBackwardBackward0",
    "grad_output, self, alpha, scale, input_scale, is_result=False", _elu_bw,
    function=False, method=False,
    grad_output=lambda grad, self, alpha, scale, input_scale, is_result: elu_backward(
        grad, self, alpha, scale, input_scale, is_result),
    self=_elu_double_backward)

elu = op("elu", "EluBackward0", "self, alpha, scale, input_scale", _elu,
         function=False, method=False,
         self=lambda grad, self, alpha, scale, input_scale: elu_backward(
             grad, self, alpha, scale, input_scale))

# elu_ (EluBackward1): its formula reads the output, which overwrote the input
elu_inplace = op("elu_", "EluBackward1", "self, alpha=1.0, scale=1.0, input_scale=1.0", _elu,
                 function=False, method=False,
                 self=lambda grad, result, alpha, scale, input_scale: elu_backward(
                     grad, result, alpha, scale, input_scale, True))

_SQRT_2_PI = math.sqrt(2 / math.pi)
_GELU_K = 0.044715


def _gelu(x, approximate):
    _not_for(x, "biuc", "GeluKernelImpl")
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + _GELU_K * x ** 3)))
    return (0.5 * x * (1 + _erf_erfc(x / math.sqrt(2), "erf")[0])).astype(x.dtype)


def _gelu_bw(g, x, approximate):
    if approximate == "tanh":
        t = np.tanh(_SQRT_2_PI * (x + _GELU_K * x ** 3))
        du = _SQRT_2_PI * (1 + 3 * _GELU_K * x * x)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)
    cdf = 0.5 * (1 + _erf_erfc(x / math.sqrt(2), "erf")[0])
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return (g * (cdf + x * pdf)).astype(x.dtype)


def _gelu_dd(grad, x, approximate):
    """d gelu_backward / d self, times `grad` (already times grad_output)."""
    if approximate == "tanh":
        t = (_SQRT_2_PI * (x + _GELU_K * x.pow(3))).tanh()
        du = _SQRT_2_PI * (1 + 3 * _GELU_K * x * x)
        d2u = 6 * _SQRT_2_PI * _GELU_K * x
        return grad * (1 - t * t) * (du + 0.5 * x * (d2u - 2 * t * du * du))
    pdf = (-0.5 * x * x).exp() / math.sqrt(2 * math.pi)
    return grad * pdf * (2 - x * x)


gelu_backward = op(
    "gelu_backward", "GeluBackwardBackward0", "grad_output, self, approximate", _gelu_bw,
    function=False, method=False,
    grad_output=lambda grad, self, approximate: gelu_backward(grad, self, approximate),
    self=lambda grad, grad_output, self, approximate: _gelu_dd(grad * grad_output, self,
                                                               approximate))

gelu = op("gelu", "GeluBackward0", "self, approximate", _gelu, function=False, method=False,
          self=lambda grad, self, approximate: gelu_backward(grad, self, approximate))


def _silu_grad(grad, self):
    # PyTorch's infinitely differentiable form, used when grad mode is on
    s = self.sigmoid()
    return grad * s * add_scalar(self * (1.0 - s), 1.0)


def _silu(x):
    _not_for(x, "biu", "silu_cpu")
    return x / (1 + np.exp(-x))


silu = op("silu", "SiluBackward0", "self", _silu, function=False, method=False,
          self=_silu_grad)


def _softplus_bw(g, x, beta, threshold):
    z = np.exp(np.minimum(x * beta, threshold))
    return np.where(x * beta > threshold, g, g * z / (z + 1))


softplus_backward = op(
    "softplus_backward", "SoftplusBackwardBackward0", "grad_output, self, beta, threshold",
    _softplus_bw, function=False, method=False,
    grad_output=lambda grad, self, beta, threshold: softplus_backward(grad, self, beta, threshold),
    self=lambda grad, grad_output, self, beta, threshold: where(
        self * beta > threshold, 0.0,
        grad * grad_output * beta * (self * beta).sigmoid() * (1 - (self * beta).sigmoid())))

def _softplus(x, beta, threshold):
    _not_for(x, "biuc", "softplus_cpu")
    return np.where(x * beta > threshold, x,
                    np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta)


softplus = op("softplus", "SoftplusBackward0", "self, beta, threshold", _softplus,
              function=False, method=False,
              self=lambda grad, self, beta, threshold: softplus_backward(grad, self, beta,
                                                                         threshold))


# ---- hardtanh (relu6), hardsigmoid, hardswish, mish, softshrink, glu --------------------------
# torch._C._nn's: their in-place variants record the same nodes (formulas reading `self` see
# its value before the write, Note [In-place ops])

def _checked(value, dtype):
    """A Scalar argument as c10's checked conversion to NumPy `dtype` reads it: a complex
    number with an imaginary part, or one out of the dtype's range, is PyTorch's overflow
    error."""
    return _fill_value(value, FROM_NP[np.dtype(dtype)])


def _hardtanh(x, min_val, max_val):
    if x.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    # the limits are read as int64 or double (an unsigned input refuses negative ones), then
    # converted to the input's dtype
    wide = np.int64 if x.dtype.kind in "iu" else np.float64
    min_val, max_val = (_checked(v, wide).item() for v in (min_val, max_val))
    if x.dtype.kind == "u" and min(min_val, max_val) < 0:
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return np.clip(x, _checked(min_val, x.dtype), _checked(max_val, x.dtype))


def _hardtanh_bw(g, x, min_val, max_val):
    return np.where((x <= min_val) | (x >= max_val), 0, g).astype(g.dtype)


hardtanh_backward = op(
    "hardtanh_backward", "HardtanhBackwardBackward0", "grad_output, self, min_val, max_val",
    _hardtanh_bw, function=False, method=False,
    grad_output=lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val,
                                                                       max_val),
    self=_zeros)

hardtanh = op("hardtanh", "HardtanhBackward0", "self, min_val=-1, max_val=1", _hardtanh,
              function=False, method=False,
              self=lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val,
                                                                          max_val))


@_opmath
def _hardsigmoid(x):
    _not_for(x, "biuc", "hardsigmoid_cpu")
    return np.minimum(np.maximum(x + 3, 0), 6) / x.dtype.type(6)


def _hardsigmoid_bw(g, x):
    _not_for(x, "biuc", "hardsigmoid_backward")
    # the kernel's one_sixth is the float 1.0f / 6.0f, whatever the dtype
    inside = (x > -3) & (x < 3)
    return np.where(inside, g * g.dtype.type(np.float32(1) / np.float32(6)), 0).astype(g.dtype)


hardsigmoid_backward = op(
    "hardsigmoid_backward", NOT_IMPLEMENTED, "grad_output, self", _hardsigmoid_bw,
    function=False, method=False, grad_output=no_derivative("aten::hardsigmoid_backward"),
    self=no_derivative("aten::hardsigmoid_backward"))

hardsigmoid = op("hardsigmoid", "HardsigmoidBackward0", "self", _hardsigmoid, function=False,
                 method=False, self=lambda grad, self: hardsigmoid_backward(grad, self))


@_opmath
def _hardswish(x):
    _not_for(x, "biuc", "hardswish_cpu")
    return x * np.minimum(np.maximum(x + 3, 0), 6) / x.dtype.type(6)


def _hardswish_bw(g, x):
    _not_for(x, "biuc", "hardswish_backward_cpu")
    t = x.dtype.type
    return np.where(x < -3, 0, np.where(x <= 3, g * (x / t(3) + t(0.5)), g)).astype(g.dtype)


hardswish_backward = op(
    "hardswish_backward", "HardswishBackwardBackward0", "grad_output, self", _hardswish_bw,
    function=False, method=False,
    grad_output=lambda grad, self: hardswish_backward(grad, self),
    self=lambda grad, grad_output, self: where((self > -3.0).logical_and(self < 3.0),
                                               grad * grad_output / 3.0,
                                               make_tensor(np.zeros((), self._data.dtype))))

hardswish = op("hardswish", "HardswishBackward0", "self", _hardswish, function=False,
               method=False, self=lambda grad, self: hardswish_backward(grad, self))


@_opmath
def _mish(x):
    _not_for(x, "biuc", "mish_cpu")
    with np.errstate(over="ignore"):
        return x * np.tanh(np.log1p(np.exp(x)))


def _mish_grad(grad, self):
    # PyTorch's infinitely_differentiable_mish_backward
    sigmoid = self.sigmoid()
    tanh_softplus = softplus(self, 1, 20).tanh()
    return grad * (tanh_softplus + self * sigmoid * _number_minus(
        1.0, tanh_softplus * tanh_softplus))


mish = op("mish", "MishBackward0", "self", _mish, function=False, method=False,
          self=_mish_grad)


def _softshrink(x, lambd):
    _checked(lambd, np.float64)
    _not_for(x, "biuc", "softshrink_check")
    top = float(np.finfo(x.dtype).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{FROM_NP[x.dtype].legacy}, but found {lambd:g}")
    lambd_t = x.dtype.type(lambd)
    return np.where(x > lambd_t, x - lambd_t, np.where(x < -lambd_t, x + lambd_t, x * 0))


softshrink_backward = op(
    "softshrink_backward", "SoftshrinkBackwardBackward0", "grad_output, self, lambd",
    lambda g, x, lambd: np.where(_shrunk(x, lambd, "softshrink_backward_cpu"), 0, g).astype(
        g.dtype),
    function=False, method=False,
    grad_output=lambda grad, self, lambd: softshrink_backward(grad, self, lambd), self=_zeros)

softshrink = op("softshrink", "SoftshrinkBackward0", "self, lambd=0.5", _softshrink,
                function=False, method=False,
                self=lambda grad, self, lambd: softshrink_backward(grad, self, lambd))


def _halves(x, dim):
    n = x.shape[dim] // 2
    return np.split(x, [n], axis=dim)


def _glu(x, dim):
    _not_for(x, "biuc", "glu_cpu")
    a, b = _halves(x, dim)
    with np.errstate(over="ignore"):
        return a * (1 / (1 + np.exp(-b)))


def _glu_bw(g, x, dim):
    _not_for(x, "biuc", "glu_backward_cpu")
    a, b = _halves(x, dim)
    with np.errstate(over="ignore"):
        sig = 1 / (1 + np.exp(-b))
    return np.concatenate([sig * g, (1 - sig) * sig * a * g], axis=dim)


def _glu_dd_grad_output(grad, self, dim):
    # FunctionsManual's glu_double_backward_grad_output
    n = self.shape[dim] // 2
    sizes = list(self.shape)
    sizes[dim] = n
    tmp = grad * glu_backward(make_tensor(np.ones(sizes, self._data.dtype)), self, dim)
    return tmp.narrow(dim, 0, n) + tmp.narrow(dim, n, n)


def _glu_dd(grad, grad_output, self, dim):
    # FunctionsManual's glu_double_backward
    n = self.shape[dim] // 2
    first_half, second_half = self.narrow(dim, 0, n), self.narrow(dim, n, n)
    sig_second_half = second_half.sigmoid()
    one_sub_sig_second_half = _number_minus(1, sig_second_half)
    sig_one_sub_sig = sig_second_half * one_sub_sig_second_half
    ggi_first_half, ggi_second_half = grad.narrow(dim, 0, n), grad.narrow(dim, n, n)
    ggi_second_half_times_first_half = ggi_second_half * first_half
    gi_first_half = ggi_second_half * grad_output * sig_one_sub_sig
    second_order_sh = (sig_one_sub_sig * one_sub_sig_second_half
                       - sig_second_half * sig_one_sub_sig)
    second_order_sh = second_order_sh * ggi_second_half_times_first_half
    gi_second_half = second_order_sh * grad_output + ggi_first_half * grad_output * \
        sig_one_sub_sig
    return FUNCTIONS["cat"]([gi_first_half, gi_second_half], dim)


glu_backward = op(
    "glu_backward", "GluBackwardBackward0", "grad_output, self, dim", _glu_bw,
    function=False, method=False,
    grad_output=lambda grad, self, dim: _glu_dd_grad_output(grad, self, dim),
    self=_glu_dd)

_glu_row = op("glu", "GluBackward0", "self, dim", _glu, function=False, method=False,
              self=lambda grad, self, dim: glu_backward(grad, self, dim))


def glu(input, dim=-1):
    """a * sigmoid(b) of the halves of `dim`, with PyTorch's checks."""
    dim = wrap_dim(dim, input.dim())
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {n}")
    return _glu_row(input, dim)


# ---- soft margin, multi margin and multilabel margin losses -----------------------------------

def _soft_margin(x, t, reduction):
    _neg(x)     # its bool refusal
    # PyTorch computes in place in an output of the input's shape and dtype: -input, times
    # target, exp, log1p
    check_broadcast([x, t])
    shape = np.broadcast_shapes(x.shape, t.shape)
    if shape != x.shape:
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    common = _dtype.result_type([make_tensor(x), make_tensor(t)])
    if not _dtype.can_cast(common, FROM_NP[x.dtype]):
        raise _cast_error(FROM_NP[x.dtype].legacy, common.legacy)
    if x.dtype.kind not in "fc":
        raise _cast_error(FROM_NP[x.dtype].legacy)
    with np.errstate(over="ignore"):
        return _reduce(np.log1p(np.exp((-x * t).astype(x.dtype, copy=False))), reduction)


def _soft_margin_bw(g, x, t, reduction):
    norm = 1 / x.size if reduction == "mean" else 1
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.exp(_neg(t) * x)
        return (t * z * -norm / (1 + z) * g).astype(x.dtype)


def _soft_margin_dd_grad_output(grad, grad_output, self, target, reduction):
    # FunctionsManual's soft_margin_loss_double_backward_grad_output
    if reduction == "none":
        return soft_margin_loss_backward(grad, self, target, reduction)
    r = soft_margin_loss_backward(_ones(grad_output), self, target, reduction)
    return (r * grad).sum()


def _soft_margin_dd(grad, grad_output, self, target, reduction):
    # FunctionsManual's soft_margin_loss_double_backward, on grad * grad_output
    z = (self * -target).exp()
    zplus1 = add_scalar(z, 1)
    res = target * target * z / (zplus1 * zplus1) * (grad * grad_output)
    return div_scalar(res, self.numel()) if reduction == "mean" else res


soft_margin_loss_backward = op(
    "soft_margin_loss_backward", "SoftMarginLossBackwardBackward0",
    "grad_output, self, target, reduction", _soft_margin_bw, function=False, method=False,
    grad_output=_soft_margin_dd_grad_output, self=_soft_margin_dd, target=None)

soft_margin_loss = op(
    "soft_margin_loss", "SoftMarginLossBackward0", "self, target, reduction", _soft_margin,
    function=False, method=False, target=None,
    self=lambda grad, self, target, reduction: soft_margin_loss_backward(grad, self, target,
                                                                         reduction))


def _floating_kernel(input, kernel):
    """The margin losses' kernels are compiled for float and double only."""
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.legacy}\'')


def _frames(x):
    """x as (nframe, dim): a vector (or a number) is one frame."""
    return x.reshape(1 if x.ndim <= 1 else x.shape[0], -1)


def _multi_margin_z(x, target, p, margin, weight):
    """Each (frame, class) term of the multi margin loss before the 1/dim, and z > 0."""
    xs = _frames(x)
    t = target.reshape(-1)
    z = margin - np.take_along_axis(xs, t[:, None], 1) + xs
    on = z > 0
    on[np.arange(len(t)), t] = False
    w = 1 if weight is None else weight.astype(x.dtype)[t][:, None]
    return xs, t, z, on, w


def _empty_margin_loss(x, reduction):
    """An empty batch's loss: PyTorch returns before its kernel, a reduced one uninitialized
    (zero here)."""
    return np.zeros((0,) if reduction == "none" else (), x.dtype)


def _multi_margin(x, target, p, margin, weight, reduction):
    if not x.size:
        return _empty_margin_loss(x, reduction)
    xs, t, z, on, w = _multi_margin_z(x, target, p, margin, weight)
    h = np.where(on, z if p == 1 else z * z, 0) * w
    losses = (h.sum(1) / xs.shape[1]).astype(x.dtype)
    if reduction == "none":
        return losses.reshape(target.shape)
    return _reduce(losses, reduction)


def _multi_margin_bw(g, x, target, p, margin, weight, reduction):
    if not x.size:
        return np.zeros(x.shape, x.dtype)
    xs, t, z, on, w = _multi_margin_z(x, target, p, margin, weight)
    norm = 1 / (xs.size if reduction == "mean" else xs.shape[1])
    h = np.where(on, norm if p == 1 else 2 * norm * z, 0) * w
    h[np.arange(len(t)), t] = -h.sum(1)
    g = np.asarray(g).reshape(-1, 1) if reduction == "none" else g
    return (h * g).astype(x.dtype).reshape(x.shape)


multi_margin_loss_backward = op(
    "multi_margin_loss_backward", NOT_IMPLEMENTED,
    "grad_output, self, target, p, margin, weight, reduction", _multi_margin_bw,
    function=False, method=False,
    grad_output=no_derivative("aten::multi_margin_loss_backward"),
    self=no_derivative("aten::multi_margin_loss_backward"))

_multi_margin_row = op(
    "multi_margin_loss", "MultiMarginLossBackward0", "self, target, p, margin, weight, reduction",
    _multi_margin, function=False, method=False,
    self=lambda grad, self, target, p, margin, weight, reduction: multi_margin_loss_backward(
        grad, self, target, p, margin, weight, reduction))


def multi_margin_loss(input, target, p, margin, weight, reduction):
    """The multi-class hinge loss (reduction as a string), with PyTorch's checks."""
    nframe = 1 if input.dim() <= 1 else input.shape[0]
    if not (input.numel() > 0 and input.dim() <= 2 or input.dim() == 2 and input.shape[1]):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    dim = 1 if input.dim() == 0 else input.shape[-1]
    if weight is not None and (weight.dim() > 1 or weight.numel() != dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    if not input.numel():     # nothing else is checked
        return _multi_margin_row(input, target._data, p, margin, None, reduction)
    _floating_kernel(input, "multi_margin_loss_cpu_kernel")
    if target.dtype != _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.legacy}")
    t = target._data
    if t.size and (t.min() < 0 or t.max() >= dim):
        raise RuntimeError("target out of range")
    return _multi_margin_row(input, t, p, margin, None if weight is None else weight._data,
                             reduction)


def _multilabel_counts(xs, target):
    """How often each class is listed as a frame's target (up to its first -1)."""
    ts = target.reshape(xs.shape)
    listed = np.cumprod(ts >= 0, axis=1).astype(bool)
    counts = np.zeros(xs.shape, np.int64)
    rows = np.broadcast_to(np.arange(xs.shape[0])[:, None], ts.shape)
    np.add.at(counts, (rows[listed], ts[listed]), 1)
    return counts


def _multilabel_pairs(xs, counts):
    """Blocks of frames (bounding the (frames, C, C) temporaries) with, per frame, each
    (target j, non-target d) hinge 1 - x[j] + x[d] where positive, weighted by j's count."""
    c = xs.shape[1]
    step = max(1, (1 << 22) // max(1, c * c))
    for start in range(0, xs.shape[0], step):
        block, n = xs[start:start + step], counts[start:start + step]
        z = 1 - block[:, :, None] + block[:, None, :]
        on = (z > 0) & (n > 0)[:, :, None] & (n == 0)[:, None, :]
        yield slice(start, start + step), n[:, :, None] * np.where(on, z, 0), n[:, :, None] * on


def _multilabel(x, target, reduction):
    if not x.size:
        return _empty_margin_loss(x, reduction)
    xs = _frames(x)
    losses = np.zeros(xs.shape[0], xs.dtype)
    for rows, hinges, _ in _multilabel_pairs(xs, _multilabel_counts(xs, target)):
        losses[rows] = hinges.sum((1, 2)) / xs.shape[1]
    if reduction == "none":
        return losses.reshape(() if x.ndim <= 1 else x.shape[:1])
    return _reduce(losses, reduction)


def _multilabel_bw(g, x, target, reduction):
    if not x.size:
        return np.zeros(x.shape, x.dtype)
    xs = _frames(x)
    norm = 1 / (xs.size if reduction == "mean" else xs.shape[1])
    grad = np.zeros(xs.shape, np.float64)
    for rows, _, pairs in _multilabel_pairs(xs, _multilabel_counts(xs, target)):
        grad[rows] = (pairs.sum(1) - pairs.sum(2)) * norm
    g = np.asarray(g).reshape(-1, 1) if reduction == "none" else g
    return (grad * g).astype(x.dtype).reshape(x.shape)


multilabel_margin_loss_backward = op(
    "multilabel_margin_loss_backward", NOT_IMPLEMENTED, "grad_output, self, target, reduction",
    _multilabel_bw, function=False, method=False,
    grad_output=no_derivative("aten::multilabel_margin_loss_backward"),
    self=no_derivative("aten::multilabel_margin_loss_backward"))

_multilabel_row = op(
    "multilabel_margin_loss", "MultilabelMarginLossBackward0", "self, target, reduction",
    _multilabel, function=False, method=False,
    self=lambda grad, self, target, reduction: multilabel_margin_loss_backward(
        grad, self, target, reduction))


def multilabel_margin_loss(input, target, reduction):
    """The multi-label hinge loss (reduction as a string), with PyTorch's checks."""
    if not (input.numel() > 0 and input.dim() <= 2 or input.dim() == 2 and input.shape[1]):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    if input.dim() <= 1:
        dim = 1 if input.dim() == 0 else input.shape[0]
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        ok = target.dim() == 2 and tuple(target.shape) == tuple(input.shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if not input.numel():     # nothing else is checked
        return _multilabel_row(input, target._data, reduction)
    t = target._data     # its values checked first, whatever its dtype
    if t.size and (t.min() < -1 or t.max() >= max(input.shape[-1:] or (1,))):
        raise RuntimeError("argument #2 'target' is out of range")
    _floating_kernel(input, "multilabel_margin_loss_forward_out_frame")
    if target.dtype != _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.legacy}")
    return _multilabel_row(input, t, reduction)


# ---- activations torch has at the top level ---------------------------------------------------

def _inplace(fn, input, *params):
    """Run the in-place row of public function `fn` on `input` (torch.celu_ and the like,
    which PyTorch has as functions, not Tensor methods)."""
    from .inplace import dispatch_inplace
    return dispatch_inplace(fn.op, (input,), params)


def _celu(x, alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(x, alpha, 1.0, 1.0 / alpha)


def _celu_grad(grad, self_or_result, alpha, is_result):
    # derivatives.yaml takes 1.0 / alpha.toFloat(): alpha rounded to float first
    return elu_backward(grad, self_or_result, alpha, 1.0, 1.0 / float(np.float32(alpha)),
                        is_result)


celu = op("celu", "CeluBackward0", "self, alpha=1.0", _celu, method=False, out=False,
          self=lambda grad, self, alpha: _celu_grad(grad, self, alpha, False))
_celu_inplace = op("celu_", "CeluBackward1", "self, alpha=1.0", _celu, function=False,
                   method=False,
                   self=lambda grad, result, alpha: _celu_grad(grad, result, alpha, True))


@public("celu_", method=False)
def celu_(input, alpha=1.0):
    """In-place celu."""
    return _inplace(_celu_inplace, input, alpha)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


@public(method=False)
@Signature("selu(Tensor input)").bind
def selu(input):
    """selu: elu with PyTorch's SELU constants (its node is EluBackward0)."""
    return elu(input, SELU_ALPHA, SELU_SCALE, 1.0)


@public(method=False)
@Signature("selu_(Tensor input)").bind   # (bound here: F.selu_ is this function)
def selu_(input):
    """In-place selu (EluBackward1)."""
    return _inplace(elu_inplace, input, SELU_ALPHA, SELU_SCALE, 1.0)


def _at_most(x, threshold):
    """x <= threshold, the bound in the kernel's dtype (float for half, truncated for
    integers), with PyTorch's dtype error."""
    _not_for(x, "bc", "threshold_cpu")
    if x.dtype == np.float16:
        return x.astype(np.float32) <= _checked(threshold, np.float32)
    return x <= _checked(threshold, x.dtype)


def _threshold(x, threshold, value):
    return np.where(_at_most(x, threshold), _checked(value, x.dtype), x)


# its backward is relu's threshold_backward (pointwise.py); its out= writes into an expanded
# out too (the last write wins)
_THRESHOLD_OUT = out_cast("result type {expected} can't be cast to the desired output type "
                          "{got}")
_THRESHOLD_OUT.overlap_ok = True
threshold = op("threshold", "ThresholdBackward0", "self, threshold, value", _threshold,
               method=False, out=_THRESHOLD_OUT,
               self=lambda grad, self, threshold: threshold_backward(grad, self, threshold))
_threshold_inplace = op("threshold_", "ThresholdBackward1", "self, threshold, value", _threshold,
                        function=False, method=False,
                        self=lambda grad, self, threshold: threshold_backward(grad, self,
                                                                              threshold))


@public("threshold_", method=False)
def threshold_(input, threshold, value):
    """In-place threshold."""
    return _inplace(_threshold_inplace, input, threshold, value)


def _shrunk(x, lambd, kernel):
    """Where |x| <= lambd (the bound in x's dtype), with PyTorch's dtype error."""
    _not_for(x, "biuc", kernel)
    lambd = _checked(lambd, x.dtype)
    return (x >= -lambd) & (x <= lambd)


hardshrink_backward = op(
    "hardshrink_backward", "HardshrinkBackwardBackward0", "grad_out, self, lambd",
    lambda g, x, lambd: np.where(_shrunk(x, lambd, "hardshrink_backward_cpu"), 0, g).astype(
        g.dtype),
    function=False, method=False,
    grad_out=lambda grad, self, lambd: hardshrink_backward(grad, self, lambd), self=_zeros)

hardshrink = op("hardshrink", "HardshrinkBackward0", "self, lambd=0.5",
                lambda x, lambd: np.where(_shrunk(x, lambd, "hardshrink_cpu"), 0, x).astype(
                    x.dtype),
                out=SAME_DTYPE,
                self=lambda grad, self, lambd: hardshrink_backward(grad, self, lambd))


# prelu: weight reshaped to broadcast over the channel dim, then _prelu_kernel; the kernel's
# weight gradient has the input's shape (the engine sums it to the weight's)

def _prelu_kernel_bw(g, x, w):
    positive = x > 0
    return np.where(positive, g, w * g), np.where(positive, 0, x * g).astype(g.dtype)


def _prelu_double_backward(grads, grads_defined, grad_output, self, weight, want):
    # derivatives.yaml's, which tells apart the outputs that received no gradient
    g_input, g_weight = (g if given else None for g, given in zip(grads, grads_defined))
    nonneg = self >= 0
    if want == "grad_output":
        if g_input is None:
            return where(nonneg, make_tensor(np.zeros((), grad_output._data.dtype)),
                         g_weight * self)
        if g_weight is None:
            return where(nonneg, g_input, g_input * weight)
        return where(nonneg, g_input, g_input * weight + g_weight * self)
    if want == "self":
        if g_weight is None:
            return _zeros(self)
        return where(nonneg, make_tensor(np.zeros((), self._data.dtype)), grad_output * g_weight)
    if g_input is None:
        return _zeros(self)
    return where(nonneg, make_tensor(np.zeros((), weight._data.dtype)), grad_output * g_input)


_prelu_kernel_backward = op(
    "_prelu_kernel_backward", "PreluKernelBackwardBackward0", "grad_output, self, weight",
    _prelu_kernel_bw, returns=list, method=False,
    grad_output=lambda grads, grads_defined, grad_output, self, weight: _prelu_double_backward(
        grads, grads_defined, grad_output, self, weight, "grad_output"),
    self=lambda grads, grads_defined, grad_output, self, weight: _prelu_double_backward(
        grads, grads_defined, grad_output, self, weight, "self"),
    weight=lambda grads, grads_defined, grad_output, self, weight: _prelu_double_backward(
        grads, grads_defined, grad_output, self, weight, "weight"))


def _prelu_forward(x, w):
    check_broadcast((x, w))     # TensorIterator's shapes, then its dtypes, then the kernel's
    if w.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {FROM_NP[w.dtype].legacy} but expected "
                           f"{FROM_NP[x.dtype].legacy}")
    _not_for(x, "biuc", "prelu_cpu")
    return np.where(x > 0, x, w * x)


_prelu_kernel = op(
    "_prelu_kernel", "PreluKernelBackward0", "self, weight", _prelu_forward, method=False,
    out=False,
    self=lambda grad, self, weight: _prelu_kernel_backward(grad, self, weight)[0],
    weight=lambda grad, self, weight: _prelu_kernel_backward(grad, self, weight)[1])


@public("prelu")
def prelu(input, weight):
    """PReLU: max(0, x) + weight * min(0, x), one weight per channel (dim 1) or one in all."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.legacy} and "
                           f"{weight.dtype.legacy}")
    ndim = input.dim()
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if ndim != weight.dim():
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _prelu_kernel(input, weight)


declare("prelu(Tensor input, Tensor weight)")


# rrelu: rrelu_with_noise, whose training forward draws each non-positive element's slope
# from the generator (uniform_real_distribution<double>(lower, upper), one random64 each, in
# the input's memory order) and records it in `noise`, the gradient's factor

def _rrelu(x, noise, lower, upper, training, generator):
    if not training:
        # leaky_relu with the slope (lower + upper) / 2, computed in double
        return _leaky_relu(x, (float(lower) + float(upper)) / 2)
    _not_for(x, "biucf" if x.dtype == np.float16 else "biuc", "rrelu_with_noise_out_cpu")
    t = x.dtype.type
    lower, upper = float(t(lower)), float(t(upper))
    flat = x.reshape(-1)
    negative = flat <= 0
    u = (generator or default_generator)._unit(int(np.count_nonzero(negative)), True)
    slopes = np.ones(flat.shape, noise.dtype)
    slopes[negative] = (u * (upper - lower) + lower).astype(t)
    noise[...] = slopes.reshape(noise.shape)
    out = flat.copy()
    out[negative] = flat[negative] * slopes[negative].astype(t)
    return out.reshape(x.shape)


def _rrelu_bw(g, x, noise, lower, upper, training, self_is_result):
    if training:
        return (noise * g).astype(g.dtype)
    slope = (float(lower) + float(upper)) / 2
    return np.where(x > 0, g, g * slope)


rrelu_with_noise_backward = op(
    "rrelu_with_noise_backward", "RreluWithNoiseBackwardBackward0",
    "grad_output, self, noise, lower, upper, training, self_is_result", _rrelu_bw,
    function=False, method=False,
    grad_output=lambda grad, self, noise, lower, upper, training: rrelu_with_noise_backward(
        grad, self, noise, lower, upper, training, False),
    self=_zeros, noise=None)

rrelu_with_noise = op(
    "rrelu_with_noise", "RreluWithNoiseBackward0",
    "self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None",
    _rrelu, function=False, method=False,
    self=lambda grad, self, noise, lower, upper, training: rrelu_with_noise_backward(
        grad, self, noise, lower, upper, training, False),
    noise=None)
_rrelu_with_noise_inplace = op(
    "rrelu_with_noise_", "RreluWithNoiseBackward1",
    "self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None",
    _rrelu, function=False, method=False,
    self=lambda grad, result, noise, lower, upper, training: rrelu_with_noise_backward(
        grad, result, noise, lower, upper, training, True),
    noise=None)


def _rrelu_noise(input, lower, upper):
    for name, bound in (("lower", lower), ("upper", upper)):
        if not math.isfinite(_checked(bound, np.float64)):
            raise RuntimeError(f"rrelu: {name} bound must be finite, got {float(bound)}")
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    a = input._data
    # the slopes, in a dtype that stays put: an ml_dtypes input computes in float32
    return make_tensor(np.empty(a.shape, np.float32 if a.dtype.isbuiltin == 2 else a.dtype))


@public(method=False)
@Signature("rrelu(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
           "bool training=False, Generator? generator=None)").bind
def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """Randomized leaky ReLU: in training each negative element gets a slope drawn from
    U(lower, upper); in evaluation the slope is (lower + upper) / 2."""
    return rrelu_with_noise(input, _rrelu_noise(input, lower, upper), lower, upper, training,
                            generator)


@public(method=False)
@Signature("rrelu_(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
           "bool training=False, Generator? generator=None)").bind
def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """In-place rrelu."""
    from .inplace import dispatch_inplace
    return dispatch_inplace(_rrelu_with_noise_inplace.op,
                            (input, _rrelu_noise(input, lower, upper)),
                            (lower, upper, training, generator))


# ---- pixel and channel shuffles -------------------------------------------------------------

def _int_arg(fn, name, v, position=2):
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(v).__name__}")
    return int(v)


def _pixel_shuffle(a, r):
    r = _int_arg("pixel_shuffle", "upscale_factor", r)
    if a.ndim < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {a.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = a.shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    lead = a.shape[:-3]
    n = len(lead)
    x = a.reshape(lead + (c // (r * r), r, r, h, w))
    x = x.transpose(tuple(range(n + 1)) + (n + 3, n + 1, n + 4, n + 2))
    return np.ascontiguousarray(x).reshape(lead + (c // (r * r), h * r, w * r))


def _pixel_unshuffle(a, r):
    r = _int_arg("pixel_unshuffle", "downscale_factor", r)
    if a.ndim < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {a.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = a.shape[-3:]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    if not a.size:
        return a.copy()     # PyTorch hands an empty input back in its own shape
    lead = a.shape[:-3]
    n = len(lead)
    x = a.reshape(lead + (c, h // r, r, w // r, r))
    x = x.transpose(tuple(range(n + 1)) + (n + 2, n + 4, n + 1, n + 3))
    return np.ascontiguousarray(x).reshape(lead + (c * r * r, h // r, w // r))


pixel_shuffle = op(
    "pixel_shuffle", "PixelShuffleBackward0", "self, upscale_factor", _pixel_shuffle,
    method=False, out=False,
    self=lambda grad, upscale_factor: pixel_unshuffle(grad, upscale_factor))

pixel_unshuffle = op(
    "pixel_unshuffle", "PixelUnshuffleBackward0", "self, downscale_factor", _pixel_unshuffle,
    method=False, out=False,
    self=lambda grad, downscale_factor: pixel_shuffle(grad, downscale_factor))


def _channel_shuffle(a, groups):
    groups = _int_arg("channel_shuffle", "groups", groups)
    if a.ndim <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(a.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c = a.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = a.reshape((n, groups, c // groups) + a.shape[2:]).swapaxes(1, 2)
    return np.ascontiguousarray(x).reshape(a.shape)


channel_shuffle = op(
    "channel_shuffle", "ChannelShuffleBackward0", "self, groups", _channel_shuffle,
    method=False, out=False,
    self=lambda grad, groups: channel_shuffle(grad, grad.shape[1] // groups))


native_channel_shuffle = op(
    "native_channel_shuffle", NOT_IMPLEMENTED, "self, groups", _channel_shuffle,
    method=False, out=False, self=no_derivative("aten::native_channel_shuffle"))

# ---- embedding ----------------------------------------------------------------------------

def _embedding_indices(indices, num_weights=None):
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"torch.{FROM_NP[indices.dtype].legacy}Tensor instead (while "
                           "checking arguments for embedding)")
    if num_weights is not None and indices.size and (indices.min() < 0
                                                      or indices.max() >= num_weights):
        raise IndexError("index out of range in self")
    return indices


def _embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    # weight.index_select(0, indices.reshape(-1)), with its checks (an empty weight's too)
    rows = _index_select(weight, 0, make_tensor(_embedding_indices(indices).reshape(-1)))
    return rows.reshape(indices.shape + weight.shape[1:])


def _embedding_bw(g, indices, num_weights, padding_idx, scale_grad_by_freq):
    idx = indices.reshape(-1)
    rows = g.reshape(idx.size, -1)
    if scale_grad_by_freq:
        rows = rows * (1.0 / np.bincount(idx, minlength=num_weights)[idx]).astype(g.dtype)[:, None]
    if padding_idx >= 0:
        keep = idx != padding_idx
        idx, rows = idx[keep], rows[keep]
    out = np.zeros((num_weights, rows.shape[1]), g.dtype)
    # one linear index per destination element (see indexing.py, Note [Scatter kernels])
    linear = (idx[:, None] * rows.shape[1] + np.arange(rows.shape[1])).reshape(-1)
    return _accumulate(out, linear, rows.reshape(-1))


def _embedding_double_backward(grad, indices, padding_idx):
    # PyTorch's embedding_dense_double_backward; like it, ignores scale_grad_by_freq
    rows = index_select(grad, 0, indices.reshape(-1))
    if padding_idx >= 0:
        rows = where((indices == padding_idx).reshape(-1, 1), 0.0, rows)
    return rows.view(tuple(indices.shape) + (-1,))


embedding_dense_backward = op(
    "embedding_dense_backward", "EmbeddingDenseBackwardBackward0",
    "grad_output, indices, num_weights, padding_idx, scale_grad_by_freq", _embedding_bw,
    function=False, method=False,
    grad_output=lambda grad, indices, padding_idx: _embedding_double_backward(
        grad, indices, padding_idx),
    indices=None)

_embedding_row = op(
    "embedding", "EmbeddingBackward0",
    "weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False", _embedding,
    method=False, out=False,
    weight=lambda grad, indices, weight_shape, padding_idx, scale_grad_by_freq:
        embedding_dense_backward(grad, indices, weight_shape[0], padding_idx,
                                 scale_grad_by_freq),
    indices=None)


def _recording_num_weights(*inputs):
    """The node of embedding and embedding_bag saves weight.size(0) before the forward checks
    the weight's rank: a 0-d weight fails there when its call is recorded."""
    weight = inputs[0]
    if weight.dim() == 0 and grad_mode.state.grad_enabled and any(
            t is not None and t.requires_grad for t in inputs):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")


@public(method=False)
@Signature("embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
           "bool scale_grad_by_freq=False, bool sparse=False)").bind
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by indices."""
    _recording_num_weights(weight)
    return _embedding_row(weight, indices, padding_idx, scale_grad_by_freq, sparse)


@public(method=False)
@Signature("embedding_renorm_(Tensor input, Tensor indices, float max_norm, "
           "float norm_type)").bind
def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescale in place the rows of `input` that `indices` names to norm at most max_norm."""
    max_norm, norm_type = float(max_norm), float(norm_type)   # the parser's floats
    w = input._data
    rows = np.unique(_embedding_indices(indices._data, w.shape[0]))
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1).astype(np.float64)
    big = norms > max_norm
    rows = rows[big]
    w[rows] *= (max_norm / (norms[big] + 1e-7)).astype(w.dtype)[:, None]
    input._vc[0] += 1
    return input



# ---- embedding_bag ----------------------------------------------------------------------------
# _embedding_bag returns (output, offset2bag, bag_size, max_indices) as PyTorch's CPU kernels
# fill them: offset2bag (each index's bag) is left empty where the float sum kernel does not
# need it; bag_size (indices per bag, padding left out) is zero in sum mode; max_indices is
# the argmax row per bag and column in max mode, else bag_size.

_SUM, _MEAN, _MAX = range(3)


def _bag_fast_path(weight, per_sample_weights, padding_idx):
    """PyTorch's is_fast_path: the float/half sum kernel, which reads the offsets directly,
    for rows (and per-sample weights) of unit stride."""
    return (weight.dtype in (np.float32, np.float16) or weight.dtype.isbuiltin == 2) and \
        padding_idx < 0 and weight.ndim == 2 and _unit_stride(weight, 1) and (
            per_sample_weights is None or _unit_stride(per_sample_weights, 0))


def _unit_stride(a, dim):
    """Whether PyTorch's stride of `a` along `dim` is 1 (NumPy's of an empty array are 0)."""
    return a.strides[dim] == a.itemsize or not a.size


def _offset2bag(offsets, n):
    """Each of the n indices' bag: make_offset2bag's index_add of ones and cumsum."""
    marks = np.zeros(n + 1, offsets.dtype)
    np.add.at(marks, offsets, 1)
    marks[0] -= 1
    return np.cumsum(marks)[:n].astype(offsets.dtype)


def _check_bag_arguments(weight, indices, offsets, mode, per_sample_weights,
                         include_last_offset):
    for name, t in (("indices", indices), ("offsets", offsets)):
        if t.dtype not in (np.int64, np.int32):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                               "following scalar types: Long, Int; but got "
                               f"torch.{FROM_NP[t.dtype].legacy}Tensor instead (while checking "
                               "arguments for embedding_bag)")
    if weight.dtype.kind not in "fV":
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"torch.{FROM_NP[weight.dtype].legacy}Tensor instead (while checking "
                           "arguments for embedding_bag)")
    if offsets.size:
        if offsets[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{offsets[0]}\n[ torch.{FROM_NP[offsets.dtype].legacy}Tensor{{}} ]")
        if offsets[-1] > indices.shape[0]:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                               f"{indices.shape[0]} but got offsets[-1] of {offsets[-1]}")
    if per_sample_weights is not None:
        if mode != _SUM:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with "
                               "mode='sum'")
        if per_sample_weights.dtype != weight.dtype:
            raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type "
                               "as tensor for argument #1 'per_sample_weights'; but type "
                               f"torch.{FROM_NP[weight.dtype].legacy}Tensor does not equal "
                               f"torch.{FROM_NP[per_sample_weights.dtype].legacy}Tensor (while "
                               "checking arguments for embedding_bag)")
        for test in ("dim() == 1", "numel() == indices.numel()"):
            ok = per_sample_weights.ndim == 1 if test[0] == "d" else \
                per_sample_weights.size == indices.size
            if not ok:
                raise RuntimeError(f"Expected per_sample_weights.value().{test} to be true, but "
                                   "got false.  (Could this error message be improved?  If so, "
                                   "please report an enhancement request to PyTorch.)")
    if include_last_offset and offsets.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")


def _embedding_bag_forward(weight, per_sample_weights, indices, offsets, scale_grad_by_freq,
                           mode, sparse, include_last_offset, padding_idx, requires_grad=True):
    idx, off = indices._data, offsets._data
    if weight.ndim != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                           f"{weight.ndim}")
    if off.ndim != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension "
                           f"{off.ndim}")
    if idx.ndim != 1:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.shape[0]} "
                           f"but got offsets[-1] of {off[-1] if off.size else 0}")
    _check_bag_arguments(weight, idx, off, mode, per_sample_weights, include_last_offset)
    if mode not in (_SUM, _MEAN, _MAX):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    vocab, n = weight.shape[0], idx.shape[0]
    num_bags = off.shape[0] - (1 if include_last_offset else 0)
    fast = mode != _MAX and _bag_fast_path(weight, per_sample_weights, padding_idx)
    bags = _offset2bag(off[:num_bags], n)
    if vocab and not weight.size and mode != _MAX and _bag_fast_path(
            weight, None, -1 if per_sample_weights is not None else padding_idx) and \
            np.count_nonzero(np.diff(np.append(off[:num_bags], n))) > 1:
        # the float/half kernel fails on rows of no columns after its first nonempty bag
        raise RuntimeError("Expected i < index_size to be true, but got false.  (Could this "
                           "error message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")
    bad = (idx < 0) | (idx >= vocab)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if fast:     # fbgemm's message
            raise RuntimeError(f"Index {i} of input takes value {idx[i]} which is not in the "
                               f"valid range [0, {vocab})")
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found "
                           f"idx to be {idx[i]}")
    keep = idx != padding_idx
    if fast and include_last_offset and num_bags:
        keep &= np.arange(n) < off[-1]     # the kernel stops at the last offset
    # bag sizes from the offsets (the last bag runs to the end), less the padding indices
    sizes = np.diff(np.append(off[:num_bags], n)).astype(idx.dtype)
    sizes -= np.bincount(bags[idx == padding_idx], minlength=num_bags)[:num_bags].astype(
        idx.dtype)
    out = np.zeros((num_bags, weight.shape[1]), weight.dtype)
    rows = weight[idx[keep]]
    bag_of = bags[keep]
    if mode == _MAX:
        max_indices = np.zeros((num_bags, weight.shape[1]), idx.dtype)
        if rows.shape[0]:
            # the first maximum of each bag and column (a NaN counts only where it comes first)
            starts = np.flatnonzero(np.r_[True, bag_of[1:] != bag_of[:-1]])
            firsts = rows[starts]
            best = np.where(firsts != firsts, firsts, np.fmax.reduceat(rows, starts, axis=0))
            segment = np.repeat(np.arange(starts.size), np.diff(np.append(starts, len(rows))))
            hit = (rows == best[segment]) | ((rows != rows) & (best[segment] != best[segment]))
            position = np.where(hit, np.arange(len(rows))[:, None], len(rows))
            first = np.minimum.reduceat(position, starts, axis=0)
            out[bag_of[starts]] = best
            max_indices[bag_of[starts]] = idx[keep][first]
        return out, bags, sizes, max_indices
    wide = np.float32 if weight.dtype == np.float16 else weight.dtype
    if per_sample_weights is not None:
        rows = rows.astype(wide) * per_sample_weights[keep].astype(wide)[:, None]
    acc = np.zeros(out.shape, wide)
    _accumulate(acc, (bag_of[:, None] * out.shape[1] + np.arange(out.shape[1])).reshape(-1),
                rows.astype(wide).reshape(-1))
    if mode == _MEAN:
        acc /= np.maximum(sizes, 1).astype(wide)[:, None]
        return acc.astype(weight.dtype), bags, sizes, sizes.copy()
    # without gradients the sum kernel's bag_size keeps the offsets' length
    zeros = np.zeros(num_bags if requires_grad else off.shape[0], idx.dtype)
    return (acc.astype(weight.dtype), np.empty(0, idx.dtype) if fast else bags, zeros,
            zeros.copy())


def _bag_offset2bag(indices, offsets, offset2bag):
    # _embedding_bag_backward: an offset2bag left empty is made from all the offsets
    o2b = offset2bag._data
    if indices._data.size and not o2b.size:
        return _offset2bag(offsets._data, indices._data.shape[0])
    return o2b


def _embedding_bag_dense_backward(grad, per_sample_weights, indices, offsets, offset2bag,
                                  bag_size, maximum_indices, num_weights, scale_grad_by_freq,
                                  mode, sparse, padding_idx):
    out = np.zeros((num_weights, grad.shape[1]), grad.dtype)
    d = grad.shape[1]
    if mode == _MAX:
        nonempty = bag_size._data != 0
        linear = maximum_indices._data[nonempty] * d + np.arange(d)
        return _accumulate(out, linear.reshape(-1), grad[nonempty].reshape(-1))
    idx = indices._data
    bags = _bag_offset2bag(indices, offsets, offset2bag)
    scale = np.ones(idx.shape, np.float64)
    if per_sample_weights is not None:
        scale = per_sample_weights.astype(np.float64)
    if scale_grad_by_freq:
        # PyTorch's kernel divides the i-th group of equal (sorted) indices by the count of
        # the i-th sorted index, not of the group's own
        order = np.argsort(idx, kind="stable")
        ordered = idx[order]
        group = np.cumsum(np.r_[False, ordered[1:] != ordered[:-1]])
        counts = np.bincount(idx, minlength=num_weights)
        divisor = np.empty(idx.shape, np.float64)
        divisor[order] = counts[ordered[group]]
        scale = scale / divisor
    if mode == _MEAN:
        sizes = bag_size._data[bags]
        scale = np.where(sizes != 0, scale / np.where(sizes != 0, sizes, 1), scale)
    # (indices past the last offset, read by no bag, count for none)
    keep = (idx != padding_idx) & (bags < grad.shape[0])
    rows = grad[bags[keep]] * scale[keep].astype(grad.dtype)[:, None]
    linear = idx[keep][:, None] * d + np.arange(d)
    return _accumulate(out, linear.reshape(-1), rows.reshape(-1))


_embedding_bag_backward = op(
    "_embedding_bag_backward", "EmbeddingBagBackwardBackward0",
    "grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights, "
    "scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx=-1",
    _embedding_bag_dense_backward, inputs=("grad", "per_sample_weights"),
    optional=("per_sample_weights",), function=False,
    method=False, grad=not_implemented("_embedding_bag_backward"),
    per_sample_weights=not_implemented("_embedding_bag_backward"))


def _bag_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx):
    if mode != _SUM:
        raise RuntimeError("embedding_bag_backward: per_sample_weights only supported for "
                           "mode='sum'")
    idx = indices._data
    bags = np.minimum(_bag_offset2bag(indices, offsets, offset2bag), len(grad) - 1)
    out = np.einsum("ij,ij->i", grad[bags], weight[idx])
    return np.where(idx == padding_idx, 0, out).astype(grad.dtype)


_embedding_bag_per_sample_weights_backward = op(
    "_embedding_bag_per_sample_weights_backward", NOT_IMPLEMENTED,
    "grad, weight, indices, offsets, offset2bag, mode, padding_idx=-1", _bag_weights_backward,
    function=False, method=False,
    grad=no_derivative("aten::_embedding_bag_per_sample_weights_backward"),
    weight=no_derivative("aten::_embedding_bag_per_sample_weights_backward"))


def _bag_weight_grad(grads, indices, offsets, result1, result2, result3, weight_shape,
                     scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx):
    if sparse:
        raise NotImplementedError("embedding_bag(sparse=True): chainrule has no sparse "
                                  "gradients")
    return _embedding_bag_backward(grads[0], indices, offsets, result1, result2, result3,
                                   weight_shape[0], scale_grad_by_freq, mode, sparse,
                                   per_sample_weights, padding_idx)


_embedding_bag = op(
    "_embedding_bag", "EmbeddingBagBackward0",
    "weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, "
    "per_sample_weights=None, include_last_offset=False, padding_idx=-1",
    _embedding_bag_forward, inputs=("weight", "per_sample_weights"), returns=list,
    differentiable_outputs=(0,), method=False, out=False, weight=_bag_weight_grad,
    per_sample_weights=lambda grads, weight, indices, offsets, result1, mode, padding_idx:
        _embedding_bag_per_sample_weights_backward(grads[0], weight, indices, offsets,
                                                   result1, mode, padding_idx))


_embedding_bag_forward_only_row = op(
    "_embedding_bag_forward_only", "EmbeddingBagForwardOnly",
    "weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, "
    "per_sample_weights=None, include_last_offset=False, padding_idx=-1",
    lambda *args: _embedding_bag_forward(*args, requires_grad=False),
    inputs=("weight", "per_sample_weights"), returns=list, function=False, method=False,
    weight=None, per_sample_weights=None)


@public(method=False)
def _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                                sparse=False, per_sample_weights=None,
                                include_last_offset=False, padding_idx=-1):
    """_embedding_bag without the bookkeeping its backward needs; it has no derivative."""
    if grad_mode.state.grad_enabled and (weight.requires_grad or (
            per_sample_weights is not None and per_sample_weights.requires_grad)):
        # PyTorch's placeholder node cannot take the integer outputs
        raise RuntimeError(f"Autograd not support dtype: {indices.dtype.legacy}")
    return _embedding_bag_forward_only_row(weight, indices, offsets, scale_grad_by_freq, mode,
                                           sparse, per_sample_weights, include_last_offset,
                                           padding_idx)


@public(method=False)
@Overloads("embedding_bag", [
    "(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, "
    "bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx)",
    "(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq = False, "
    "int mode = 0, bool sparse = False, Tensor per_sample_weights = None, "
    "bool include_last_offset = False)"], method_lines=[], fast=(1,)).bind
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows (bag i: indices[offsets[i]:
    offsets[i + 1]]): (output, offset2bag, bag_size, max_indices)."""
    needs_grad = weight.requires_grad or (per_sample_weights is not None
                                          and per_sample_weights.requires_grad)
    _recording_num_weights(weight, per_sample_weights)
    if weight.dim() == 0 and padding_idx is not None:     # read to wrap padding_idx
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if padding_idx is None:
        padding_idx = -1
    else:
        n = weight.shape[0]
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} "
                               f"through {n - 1}, but got {padding_idx}")
        padding_idx = padding_idx % n
    if indices.dtype != offsets.dtype:
        # promoteIndicesAndOffsets: Int indices with Long offsets are read as Long
        common = _dtype.promote_types(indices.dtype, offsets.dtype)
        indices, offsets = indices.to(common), offsets.to(common)
    row = _embedding_bag if needs_grad else _embedding_bag_forward_only_row
    return tuple(row(weight, indices.contiguous(), offsets.contiguous(), scale_grad_by_freq,
                     mode, sparse, per_sample_weights, include_last_offset, padding_idx))


# ---- max pooling over windows of any number of dims: max_pool3d, adaptive_max_pool1d/2d -------
# Each window is given per spatial dim as (out, taps) input positions and a mask of those that
# are in the input (and the window); the maximum is PyTorch's CPU kernels': the first maximum
# in window order, a NaN wherever one is (the last), and the first position when all are -inf.

def _window_max(x, positions, masks):
    """(values, indices) of the windows: indices flat over the input's pooled dims."""
    nd = len(positions)
    sizes = x.shape[-nd:]
    lead = x.shape[:-nd]
    low = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
    taps = []
    for combo in np.ndindex(*[p.shape[1] for p in positions]):
        index, flat, inside = [], 0, True
        for d, k in enumerate(combo):
            shape = [1] * nd
            shape[d] = -1
            pos = np.clip(positions[d][:, k], 0, sizes[d] - 1).reshape(shape)
            index.append(pos)
            flat = flat + pos * strides[d]
            inside = inside & masks[d][:, k].reshape(shape)
        taps.append((x[(Ellipsis,) + tuple(index)], flat, inside))
    out_shape = lead + tuple(p.shape[0] for p in positions)
    values = np.full(out_shape, low, x.dtype)
    for tap, _, inside in taps:
        np.maximum(values, np.where(inside, tap, low), out=values)   # NaN propagates
    # a window wholly in the padding keeps PyTorch's start index: its first position that is
    # not negative in each dim (which may lie past the input)
    indices = np.zeros(out_shape, np.int64)
    for d, pos in enumerate(positions):
        shape = [1] * nd
        shape[d] = -1
        first = (pos[np.arange(len(pos)), np.argmax(pos >= 0, axis=1)] if pos.size
                 else np.zeros(len(pos), np.int64))     # no windows, or windows of no taps
        indices = indices + first.reshape(shape) * strides[d]
    for tap, flat, inside in reversed(taps):
        indices = np.where((tap == values) & inside, flat, indices)
    if x.dtype.kind in "fV" and np.isnan(values).any():
        for tap, flat, inside in taps:
            indices = np.where(np.isnan(tap) & inside, flat, indices)
    if x.dtype.kind == "f" and not values.all():
        # a maximum of 0.0 and -0.0 is the first one, as PyTorch's (NumPy's pick varies)
        planes = x.reshape(-1, int(np.prod(sizes)))
        first = np.take_along_axis(planes, np.minimum(indices.reshape(len(planes), -1),
                                                      planes.shape[1] - 1), 1)
        values = np.where(values == 0, first.reshape(values.shape), values)
    return values, indices


def _pool_windows(size, k, s, p, d, out):
    positions = np.arange(out)[:, None] * s - p + np.arange(k) * d
    return positions, (positions >= 0) & (positions < size)


def _adaptive_windows(size, out):
    start = (np.arange(out) * size) // out
    end = -((-(np.arange(out) + 1) * size) // out)
    positions = start[:, None] + np.arange(int((end - start).max()) if out else 0)
    return positions, positions < end[:, None]


def _scatter_max_grad(g, x, indices, nd):
    """The gradient of max pooling: g added at the argmax of each window."""
    planes = int(np.prod(x.shape[:-nd]))
    plane = int(np.prod(x.shape[-nd:]))
    outs = int(np.prod(indices.shape[-nd:]))
    flat = (indices.reshape(planes, outs) + np.arange(planes)[:, None] * plane).ravel()
    # an index past its plane (a window wholly in the padding) lands in the next plane, as in
    # PyTorch; past the last plane it is dropped
    gi = np.bincount(flat, g.ravel(), planes * plane)[:planes * plane]
    return gi.astype(x.dtype).reshape(x.shape)


def _max_pool_double_backward(grad, indices, nd):
    # FunctionsManual's max_pool_double_backward: grad gathered at the argmax indices
    if not indices.numel():
        return make_tensor(np.zeros(indices.shape, grad._data.dtype))
    size = tuple(indices.shape[:indices.dim() - nd]) + (-1,)
    return grad.contiguous().view(size).gather(-1, indices.view(size)).view(indices.shape)


max_pool3d_with_indices_backward = op(
    "max_pool3d_with_indices_backward", "MaxPool3DWithIndicesBackwardBackward0",
    "grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices",
    lambda g, x, indices, *params: _scatter_max_grad(g, x, indices, 3),
    inputs=("grad_output", "self", "indices"), function=False, method=False,
    grad_output=lambda grad, indices: _max_pool_double_backward(grad, indices, 3),
    self=_zeros, indices=None)


def _pool3d_args(kernel_size, stride, padding, dilation):
    """(kernel, stride, padding, dilation) as triples, with max_pool3d's errors."""
    def triple(v, what, allow_empty=False):
        v = () if v is None else _int_list(v)
        if len(v) not in ((0, 1, 3) if allow_empty else (1, 3)):
            raise RuntimeError(_POOL3D_ARG_ERRORS[what])
        return v * 3 if len(v) == 1 else v
    kernel = triple(kernel_size, "kernel_size")
    return (kernel, triple(stride, "stride", True) or kernel, triple(padding, "padding"),
            triple(dilation, "dilation"))


_POOL3D_ARG_ERRORS = {
    "kernel_size": "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
    "stride": "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints",
    "padding": "max_pool3d: padding must either be a single int, or a tuple of three ints",
    "dilation": "max_pool3d: dilation must be either a single int, or a tuple of three ints"}


def _int_list(v):
    """An int-list argument its binding took (an int, or a one-element integer Tensor, the
    parser repeats), as ints."""
    return tuple(int(i) for i in v) if isinstance(v, (tuple, list)) else (int(v),)


def _max_pool3d_forward(x, kernel, stride, padding, dilation, ceil_mode):
    if x.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    from .conv import _out_size
    sizes = x.shape[-3:]
    out = []
    for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(_out_size(n, k, s, p, d, ceil_mode))
    (kt, kh, kw), (st, sh, sw), (pt, ph, pw), (dt, dh, dw) = kernel, stride, padding, dilation
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} "
                           f"dW: {sw}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dt} "
                           f"dilationH: {dh} dilationW: {dw}")
    for i in range(x.ndim):
        if (x.ndim == 4 or i) and x.shape[i] <= 0:
            raise RuntimeError("max_pool3d_with_indices_out_cpu_template(): Expected input's "
                               "non-batch dimensions to have positive length, but input has a "
                               f"shape of {list(x.shape)} and non-batch dimension {x.shape[i]} "
                               "has length zero!")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if min(out) < 1:
        c = x.shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{sizes[0]}x{sizes[1]}x{sizes[2]}). "
                           f"Calculated output size: ({c}x{out[0]}x{out[1]}x{out[2]}). Output "
                           "size is too small")
    if x.dtype.kind in "bc":     # the kernel's, after the shape checks
        raise NotImplementedError(f"\"max_pool3d\" not implemented for "
                                  f"'{FROM_NP[x.dtype].legacy}'")
    windows = [_pool_windows(n, k, s, p, d, o)
               for n, k, s, p, d, o in zip(sizes, kernel, stride, padding, dilation, out)]
    return _window_max(x, [w[0] for w in windows], [w[1] for w in windows])


max_pool3d_with_indices = op(
    "max_pool3d_with_indices", "MaxPool3DWithIndicesBackward0",
    "self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False",
    _max_pool3d_forward, returns=("output", "indices"), differentiable_outputs=(0,),
    function=False, method=False,
    self=lambda grads, self, kernel_size, stride, padding, dilation, ceil_mode, result1:
        max_pool3d_with_indices_backward(grads[0], self, kernel_size, stride, padding,
                                         dilation, ceil_mode, result1))


def max_pool3d_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(output, indices) of 3-D max pooling of (N, C, D, H, W) or (C, D, H, W) input, the
    indices flat over each D*H*W volume."""
    return tuple(max_pool3d_with_indices(input, *_pool3d_args(kernel_size, stride, padding,
                                                               dilation), ceil_mode))


@public(method=False)
@Signature("max_pool3d(Tensor input, int[3] kernel_size, int[3]? stride=None, int[3] padding=0, "
           "int[3] dilation=1, bool ceil_mode=False)").bind
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling of (N, C, D, H, W) or (C, D, H, W) input."""
    return max_pool3d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _nonempty_grad(name, grad):
    """The check of PyTorch's adaptive pooling backwards."""
    shape = list(grad.shape)
    for i in range(1, len(shape)):
        if not shape[i]:
            raise RuntimeError(f"{name}(): Expected grad_output to have non-zero size for "
                               f"non-batch dimensions, but grad_output has sizes {shape} with "
                               f"dimension {i} being empty")
    return grad


adaptive_max_pool2d_backward = op(
    "adaptive_max_pool2d_backward", "AdaptiveMaxPool2DBackwardBackward0",
    "grad_output, self, indices", lambda g, x, indices: _scatter_max_grad(g, x, indices, 2),
    function=False, method=False,
    grad_output=lambda grad, indices: _max_pool_double_backward(grad, indices, 2),
    self=_zeros, indices=None)


def _adaptive_max_pool2d_forward(x, output_size):
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(x.shape)}")
    for i in range(1, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(x.shape)} with "
                               f"dimension {i} being empty")
    for o in output_size:
        if o < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: "
                               f"{list(x.shape[:-2]) + list(output_size)}")
    if x.dtype.kind in "biuc":
        raise NotImplementedError(f"\"adaptive_max_pool2d\" not implemented for "
                                  f"'{FROM_NP[x.dtype].legacy}'")
    windows = [_adaptive_windows(n, o) for n, o in zip(x.shape[-2:], output_size)]
    return _window_max(x, [w[0] for w in windows], [w[1] for w in windows])


adaptive_max_pool2d = op(
    "adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", "self, output_size",
    _adaptive_max_pool2d_forward, returns=("out", "indices"), differentiable_outputs=(0,),
    function=False, method=False,
    self=lambda grads, self, result1: adaptive_max_pool2d_backward(
        _nonempty_grad("adaptive_max_pool2d_backward", grads[0]), self, result1))


@public(method=False)
@Signature("adaptive_max_pool1d(Tensor input, int[1] output_size)").bind
def adaptive_max_pool1d(input, output_size):
    """(output, indices) of 1-D adaptive max pooling of (N, C, L) or (C, L) input: the 2-D
    op over a height of 1."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "adaptive_max_pool1d)")
    size = _int_list(output_size)
    if len(size) != 1:
        raise RuntimeError("adaptive_max_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(size)})")
    for i in range(1, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError("adaptive_max_pool1d(): Expected input to have non-zero size for "
                               "non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {i} being empty")
    output, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size[0]))
    return output.squeeze(-2), indices.squeeze(-2)

# ---- bilinear -----------------------------------------------------------------------------

def _contract(sa, a, sb, b, keep, sizes):
    """np.einsum(f"{sa},{sb}->{keep}", a, b) as one batched matmul (NumPy's einsum runs
    an unblocked loop for contractions)."""
    ra = [c for c in sa if c not in sb]
    rb = [c for c in sb if c not in sa]
    # a letter only one side has that the result drops is summed out first
    if any(c not in keep for c in ra):
        a = a.sum(tuple(i for i, c in enumerate(sa) if c in ra and c not in keep))
        sa, ra = "".join(c for c in sa if c in sb or c in keep), [c for c in ra if c in keep]
    if any(c not in keep for c in rb):
        b = b.sum(tuple(i for i, c in enumerate(sb) if c in rb and c not in keep))
        sb, rb = "".join(c for c in sb if c in sa or c in keep), [c for c in rb if c in keep]
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]

    def size(letters):
        return math.prod(sizes[c] for c in letters)
    # without batch letters, a 2-d product: NumPy's 3-d matmul skips BLAS
    lead = (size(batch),) if batch else ()
    a = a.transpose([sa.index(c) for c in batch + ra + summed]).reshape(
        lead + (size(ra), size(summed)))
    b = b.transpose([sb.index(c) for c in batch + summed + rb]).reshape(
        lead + (size(summed), size(rb)))
    order = batch + ra + rb
    out = np.matmul(a, b).reshape([sizes[c] for c in order])
    return out.transpose([order.index(c) for c in keep])


def _trilinear_forward(a1, a2, a3, expand1, expand2, expand3, sumdim, unroll_dim):
    """Each input unsqueezed at its expand dims to a common rank, multiplied, and summed
    over sumdim (unroll_dim only picks PyTorch's loop order), into zeros of the first
    input's dtype."""
    total = a1.ndim + len(expand1)
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"unroll_dim must be in [0,{total - 1}]")
    expands = [wrap_dims(e, total) for e in (expand1, expand2, expand3)]
    sumdim = wrap_dims(sumdim, total)
    arrays = (a1, a2, a3)
    for a, e in zip(arrays[1:], expands[1:]):
        if a.ndim + len(e) < total:     # its sizes are read up to the common rank
            wrap_dim(a.ndim + len(e), a.ndim + len(e))
    if not all(a.size for a in arrays):
        # nothing is added to the zeros: their size is the last unexpanded input's
        shapes = [np.expand_dims(a, e).shape for a, e in zip(arrays, expands)]
        size = [next(s[i] for s, e in zip(shapes[::-1], expands[::-1]) if i not in e)
                if any(i not in e for e in expands) else 1
                for i in range(total) if i not in sumdim]
        return np.zeros(size, a1.dtype)
    if any(a.ndim + len(e) > total for a, e in zip(arrays[1:], expands[1:])):
        raise RuntimeError("number of dimensions must match")
    full = [np.expand_dims(a, e) for a, e in zip(arrays, expands)]
    # each product of two is a batched matmul where it sums dims (the unrolled one is summed
    # by the loop around them), which takes one dtype, else a promoting mul
    summed = [d for d in sumdim if d != unroll_dim]
    pair = _dtype.result_type([make_tensor(a) for a in arrays[:2]])
    for left, right, sums in ((a1.dtype, a2.dtype, any(d in expands[2] for d in summed)),
                              (pair.np, a3.dtype, any(d not in expands[2] for d in summed))):
        if sums and left != right:
            raise RuntimeError(f"expected scalar type {FROM_NP[left].legacy} but found "
                               f"{FROM_NP[right].legacy}")
        if sums and left == np.bool_:
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    check_broadcast(full)
    # the product is computed in the inputs' result type, then added into the zeros
    common = _dtype.result_type([make_tensor(a) for a in arrays])
    if not _dtype.can_cast(common, FROM_NP[a1.dtype]):
        raise _cast_error(FROM_NP[a1.dtype].legacy, common.legacy)
    arrays = [a.astype(common.np, copy=False) for a in arrays]
    letters = "abcdefghijklmnopqrstuvwxyz"[:total]

    def spec(skip):
        return "".join(c for i, c in enumerate(letters) if i not in skip)
    specs, out = [spec(e) for e in expands], spec(sumdim)
    shape = np.broadcast_shapes(*(f.shape for f in full))
    sizes = dict(zip(letters, shape))
    # a size-1 dim broadcast against a longer one
    arrays = [np.broadcast_to(a, [sizes[c] for c in sp]) for a, sp in zip(arrays, specs)]
    # the first two, then the third, and the unrolled dim summed last, as PyTorch's loop
    # does (the order tells inf from nan)
    last = letters[unroll_dim] if unroll_dim in sumdim else ""
    keep = "".join(c for c in letters
                   if c in specs[0] + specs[1] and c in specs[2] + out + last)
    pair = _contract(specs[0], arrays[0], specs[1], arrays[1], keep, sizes)
    final = "".join(c for c in letters if c in out + last)
    result = _contract(keep, pair, specs[2], arrays[2], final, sizes)
    if last:
        result = result.sum(final.index(last))
    # contiguous, as PyTorch's result is
    return np.ascontiguousarray(result.astype(a1.dtype, copy=False))


_trilinear = op(
    "_trilinear", "TrilinearBackward0",
    "i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1", _trilinear_forward,
    method=False,
    i1=lambda grad, i2, i3, expand1, expand2, expand3, sumdim:
        _trilinear(grad, i2, i3, sumdim, expand2, expand3, expand1),
    i2=lambda grad, i1, i3, expand1, expand2, expand3, sumdim:
        _trilinear(i1, grad, i3, expand1, sumdim, expand3, expand2),
    i3=lambda grad, i1, i2, expand1, expand2, expand3, sumdim:
        _trilinear(i1, i2, grad, expand1, expand2, sumdim, expand3))


@public(method=False)
@Signature("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None)").bind
def bilinear(input1, input2, weight, bias=None):
    """at::bilinear: _trilinear on the inputs flattened to 2-d, plus bias."""
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [] if bias is None else [("bias", bias)])
    if len({t.dtype for _, t in named}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {t.dtype.cpp}" for name, t in named))
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} "
                           f"and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    for n, t, d in ((1, input1, 1), (2, input2, 2)):
        if t.shape[-1] != weight.shape[d]:
            raise RuntimeError(f"bilinear(): input{n} size does not match weight size: got "
                               f"{t.shape[-1]} but expected {weight.shape[d]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    out = _trilinear(input1.reshape(-1, input1.shape[-1]), weight,
                     input2.reshape(-1, input2.shape[-1]), [1, 3], [0], [1, 2], [2, 3])
    out = out.reshape(tuple(input1.shape[:-1]) + (weight.shape[0],))
    return out if bias is None else out + bias


# ---- dropout ------------------------------------------------------------------------------

def _memory_order(a):
    """Axes of `a` from outermost to innermost in memory: the layout empty_like(a) gets in
    PyTorch, and so the order bernoulli_ fills it (infer_dense_strides)."""
    return _iter_perm(a.shape, a.strides) or list(range(a.ndim))


def _bernoulli_noise(input, p, feature):
    """bernoulli_(1 - p) over empty_like(input) (filled in its memory order) or, for feature
    dropout, over input.new_empty((N, C, 1, ...)), in the dtype the noise is divided in
    (float for half)."""
    a = input._data
    dtype = a.dtype
    if dtype.kind == "c":
        _not_for(a, "c", "bernoulli_scalar_cpu_")
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    if feature:
        shape = a.shape[:2] + (1,) * (a.ndim - 2)
        return default_generator.bernoulli(1 - p, shape, work)
    order = _memory_order(a)
    noise = default_generator.bernoulli(1 - p, [a.shape[d] for d in order], work)
    return noise.transpose(np.argsort(order))


_ALPHA = 1.7580993408473766     # the SELU activation's negative saturation, over its scale


def _cast_error(got, result="Float"):
    return RuntimeError(f"result type {result} can't be cast to the desired output type {got}")


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):
    """PyTorch's CPU _dropout_impl: input times a bernoulli_(1 - p) noise divided by 1 - p
    or, for alpha dropout, scaled and shifted to keep SELU's mean and variance; drawn from
    the default generator exactly as PyTorch draws it."""
    fn = ("feature_" if feature else "") + ("alpha_" if alpha else "") + "dropout" + (
        "_" if inplace else "")
    p = _float_arg(fn, "p", p, 2)
    _bool_arg(fn, "train", train, 3)
    if not 0 <= p <= 1:     # nan too
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = make_tensor(np.zeros((), input._data.dtype))
        return input.mul_(zero) if inplace else mul(input, zero)
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    dtype = input._data.dtype
    noise = _bernoulli_noise(input, p, feature)
    if dtype.kind in "biu":
        # the draws happen first, then the float arithmetic on the integer noise fails
        raise _cast_error("Long" if alpha and dtype.kind == "b" else FROM_NP[dtype].legacy)
    b = None
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        # b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p); noise.mul_(a): each op
        # rounds to the dtype; half multiplies by the float scalar, adds the half one
        t = noise.dtype.type
        b = ((noise - 1).astype(dtype) * t(_ALPHA * a)).astype(dtype)
        b = (b + t(dtype.type(_ALPHA * a * p))).astype(dtype)
        noise = noise * t(a)
    else:
        noise /= noise.dtype.type(1 - p)
    noise = make_tensor(noise.astype(dtype, copy=False))
    out = input.mul_(noise) if inplace else mul(input, noise)
    return out if b is None else out.add_(make_tensor(b))


@public(method=False)
@Signature("dropout(Tensor input, float p, bool train)").bind
def dropout(input, p, train):
    """Zeroes each element with probability p in training, scaling the rest by 1 / (1 - p)."""
    return _dropout_impl(input, p, train, False)


@public(method=False)
@Signature("dropout_(Tensor input, float p, bool train)").bind
def dropout_(input, p, train):
    """In-place dropout."""
    return _dropout_impl(input, p, train, True)


@public(method=False)
@Signature("feature_dropout(Tensor input, float p, bool train)").bind
def feature_dropout(input, p, train):
    """Dropout of whole channels (dim 1) of (N, C, ...) input."""
    return _dropout_impl(input, p, train, False, feature=True)


@public(method=False)
@Signature("feature_dropout_(Tensor input, float p, bool train)").bind
def feature_dropout_(input, p, train):
    """In-place feature_dropout."""
    return _dropout_impl(input, p, train, True, feature=True)


@public(method=False)
@Signature("alpha_dropout(Tensor input, float p, bool train)").bind
def alpha_dropout(input, p, train):
    """Dropout for SELU networks: dropped elements take SELU's saturation value, and the
    result is scaled and shifted to keep the input's mean and variance."""
    return _dropout_impl(input, p, train, False, alpha=True)


@public(method=False)
@Signature("alpha_dropout_(Tensor input, float p, bool train)").bind
def alpha_dropout_(input, p, train):
    """In-place alpha_dropout."""
    return _dropout_impl(input, p, train, True, alpha=True)


@public(method=False)
@Signature("feature_alpha_dropout(Tensor input, float p, bool train)").bind
def feature_alpha_dropout(input, p, train):
    """alpha_dropout of whole channels (dim 1) of (N, C, ...) input."""
    return _dropout_impl(input, p, train, False, feature=True, alpha=True)


@public(method=False)
@Signature("feature_alpha_dropout_(Tensor input, float p, bool train)").bind
def feature_alpha_dropout_(input, p, train):
    """In-place feature_alpha_dropout."""
    return _dropout_impl(input, p, train, True, feature=True, alpha=True)


# native_dropout: (output, bool mask); its backward multiplies by the mask and the scale

def _native_dropout(x, p, train):
    _float_arg("native_dropout", "p", p, 2)
    _bool_arg("native_dropout", "train", train, 3, optional=True)
    if x.size == 0:
        return x, np.empty(x.shape, x.dtype)
    if train is not None and not train:
        return x.copy(), np.ones(x.shape, np.bool_)
    p1m = 1.0 - p
    if not 0 <= p1m <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p1m}")
    order = _memory_order(x)
    mask = default_generator.bernoulli(p1m, [x.shape[d] for d in order], np.bool_)
    mask = mask.transpose(np.argsort(order))
    scale = 0.0 if p1m == 0 else 1.0 / p1m
    # input.mul(mask).mul_(scale): C++'s mul_ takes the scale in the tensor's dtype
    with np.errstate(invalid="ignore"):
        out = (x * mask).astype(x.dtype) * (x.dtype.type(scale) if x.dtype.kind in "fc"
                                             else scale)
    if x.dtype.kind in "biu":
        raise _cast_error(FROM_NP[x.dtype].legacy)
    return out.astype(x.dtype), mask


def _native_dropout_scale(p, train):
    # derivatives.yaml's: 1 when train is None too, though the forward then drops and scales
    return 1.0 if train is None or not train else 0.0 if p == 1 else 1.0 / (1.0 - p)


native_dropout = op(
    "native_dropout", "NativeDropoutBackward0", "input, p, train", _native_dropout,
    returns=list, differentiable_outputs=(0,), method=False, out=False,
    # infinitely_differentiable_native_dropout_backward
    input=lambda grads, result1, p, train: grads[0] * (
        result1.to(grads[0].dtype) * _native_dropout_scale(p, train)))


# ---- weight normalization: _weight_norm_interface (fused for dim 0 or the last), _weight_norm --

def _norms_except(v, dim):
    """The 2-norms of v over every dim but `dim` (0 or the last), keeping v's rank."""
    axes = tuple(d for d in range(v.ndim) if d != dim)
    return np.sqrt((v * v).sum(axes, keepdims=True))


def _weight_norm_fused(v, g, dim):
    _not_for(v, "biuc", "weight_norm_kernel")
    if g.dtype != v.dtype:
        raise RuntimeError(f"expected scalar type {FROM_NP[v.dtype].legacy} but found "
                           f"{FROM_NP[g.dtype].legacy}")
    norms = _norms_except(v, dim).astype(np.float32 if v.dtype == np.float16 else v.dtype)
    # half computes in float and rounds once
    return (v * (g / norms)).astype(v.dtype, copy=False), norms


def _weight_norm_differentiable_backward(grad_w, v, g, norms, dim, which):
    # FunctionsManual's weight_norm_differentiable_backward (dim is 0 or the last)
    norms = norms.to(g.dtype)
    bcast_size = [1] * v.dim()
    bcast_size[dim] = v.shape[dim]
    rows = (v.shape[0], -1) if dim == 0 else (-1, v.shape[dim])
    per_dim_sums = (grad_w * v).view(rows).sum(1 if dim == 0 else 0).view(bcast_size)
    if which == "g":
        return per_dim_sums / norms
    if not grad_mode.state.grad_enabled:
        # the fused kernel PyTorch runs when no graph is recorded distributes the product
        # (an infinite g gives nan where the two terms' infinities cancel)
        a = g / norms
        return a * grad_w - a * per_dim_sums / (norms * norms) * v
    return (g / norms) * (grad_w - v * (per_dim_sums / (norms * norms)))


_weight_norm_interface = op(
    "_weight_norm_interface", "WeightNormInterfaceBackward0", "v, g, dim=0", _weight_norm_fused,
    returns=list, differentiable_outputs=(0,), method=False, out=False,
    v=lambda grads, v, g, dim, result1: _weight_norm_differentiable_backward(
        grads[0].contiguous(), v, g, result1, dim, "v"),
    g=lambda grads, v, g, dim, result1: _weight_norm_differentiable_backward(
        grads[0].contiguous(), v, g, result1, dim, "g"))


@public("_weight_norm", method=False)
@Signature("_weight_norm(Tensor v, Tensor g, int dim=0)").bind
def _weight_norm(v, g, dim=0):
    """v * (g / ||v||) with the norm over every dim but `dim`: the fused row for dim 0 or the
    last, the composition otherwise, as PyTorch chooses."""
    v, g = v.contiguous(), g.contiguous()
    if dim == 0 or dim == v.dim() - 1:
        return _weight_norm_interface(v, g, dim)[0]
    return v * (g / FUNCTIONS["norm_except_dim"](v, 2, dim))


# ---- _grouped_mm (nn.functional.grouped_mm): one matmul per group, groups given by the
# leading dim of 3-d operands or by `offs` (the cumulative ends of the groups) along a 2-d
# operand's row, contraction or column dim ------------------------------------------------

def _group_bounds(offs):
    ends = offs.astype(np.int64)
    return zip(range(len(ends)), np.concatenate([[0], ends[:-1]]), ends)


def _grouped_mm_forward(a, b, offs):
    if offs is None:
        return np.matmul(a, b)
    if a.ndim == 2 and b.ndim == 3:       # rows of a in groups, one matrix of b each
        out = np.zeros((a.shape[0], b.shape[-1]), a.dtype)
        for g, s, e in _group_bounds(offs):
            out[s:e] = a[s:e] @ b[g]
    elif a.ndim == 2:                      # the contraction dim in groups: one output each
        out = np.zeros((len(offs), a.shape[0], b.shape[1]), a.dtype)
        for g, s, e in _group_bounds(offs):
            out[g] = a[:, s:e] @ b[s:e]
    else:                                  # columns of b in groups, one matrix of a each
        out = np.zeros((a.shape[1], b.shape[1]), a.dtype)
        for g, s, e in _group_bounds(offs):
            out[:, s:e] = a[g] @ b[:, s:e]
    return out


_grouped_mm_row = op(
    "_grouped_mm", "GroupedMmBackward0", "self, mat2, offs", _opmath(_grouped_mm_forward),
    function=False, method=False,
    # each group's gradients are grouped matmuls of the same grouping (transposed operands)
    self=lambda grad, mat2, offs: _grouped_mm_checked(grad, mat2.transpose(-2, -1), offs),
    mat2=lambda grad, self, offs: _grouped_mm_checked(self.transpose(-2, -1), grad, offs))


def _check_grouped_strides(mat):
    """PyTorch's check_valid_strides_and_return_transposed: row- or column-major in the last
    two dims, the other stride a multiple of 16 bytes."""
    strides, sizes = mat.stride(), mat.shape
    alignment = 16 // mat._data.itemsize
    if strides[-2] == 1 and strides[-1] >= max(1, sizes[-2]):
        lead = strides[-1]
    elif strides[-1] == 1 and strides[-2] >= max(1, sizes[-1]):
        lead = strides[-2]
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {list(strides)} for strides and "
                           f"{list(sizes)} for sizes")
    if lead % alignment:
        raise RuntimeError("strides should be multiple of 16 bytes")


def _grouped_mm_checked(mat_a, mat_b, offs):
    _check_grouped_strides(mat_a)
    _check_grouped_strides(mat_b)
    return _grouped_mm_row(mat_a, mat_b, offs)


@public("_grouped_mm", method=False)
def _grouped_mm(mat_a, mat_b, offs=None, bias=None, out_dtype=None):
    """PyTorch's _grouped_mm with its checks (float32, bfloat16 or float16 operands)."""
    for name, mat in (("mat_a", mat_a), ("mat_b", mat_b)):
        if mat.dtype not in (_dtype.float32, _dtype.bfloat16, _dtype.float16):
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                               f"{mat.dtype.legacy}")
    for name, mat in (("mat_a", mat_a), ("mat_b", mat_b)):
        if mat.dim() not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    a_is_2d, b_is_2d = mat_a.dim() == 2, mat_b.dim() == 2
    if (not a_is_2d or not b_is_2d) and mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _check_grouped_strides(mat_a)
    _check_grouped_strides(mat_b)
    if (offs is not None) != (a_is_2d or b_is_2d):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if "
                           "both matrices are 3d")
    if offs is not None:
        if offs.dim() != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype != _dtype.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if not a_is_2d and not b_is_2d and mat_a.shape[0] != mat_b.shape[0]:
        raise RuntimeError("batched dimension has to match")
    if offs is not None and (a_is_2d != b_is_2d) and offs.shape[0] != (
            mat_b.shape[0] if a_is_2d else mat_a.shape[0]):
        raise RuntimeError("matrix batch sizes have to match")
    return _grouped_mm_row(mat_a, mat_b, None if offs is None else offs._data)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("hardshrink(Tensor input, Scalar lambd=0.5)", function=False)
