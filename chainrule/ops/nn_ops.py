"""Neural-network ops: softmax, log_softmax, losses and activations.

Each fused backward (`_softmax_backward_data`, `nll_loss_backward`, `gelu_backward`, ...) is
a row of its own with its own derivatives, as in PyTorch's derivatives.yaml, so the
gradient is one numerically stable NumPy pass and double backward still works.
Reductions are the strings "none", "mean", "sum"; chainrule.nn.functional checks them.
"""
import math

import numpy as np

from .._tensor import make_tensor
from .._dims import wrap_dim
from .pointwise import _erf_erfc, _zeros, where
from .registry import op


def _ones(t):
    return make_tensor(np.ones((), t._data.dtype))


def _reduce(a, reduction):
    if reduction == "mean":
        return a.mean()
    return a.sum() if reduction == "sum" else a


def _reduce_t(t, reduction):
    """The same reduction on a Tensor (in formulas)."""
    if reduction == "mean":
        return t.mean()
    return t.sum() if reduction == "sum" else t


# ---- Tensor-Scalar arithmetic, as the C++ compositions (cross_entropy) record it ----------

add_scalar = op("add.Scalar", "AddBackward1", "self, other", lambda a, other: a + other,
                function=False, method=False, self=lambda grad: grad)

mul_scalar = op("mul.Scalar", "MulBackward1", "self, other", lambda a, other: a * other,
                function=False, method=False,
                self=lambda grad, other: mul_scalar(grad, other))

div_scalar = op("div.Scalar", "DivBackward1", "self, other", lambda a, other: a / other,
                function=False, method=False,
                self=lambda grad, other: div_scalar(grad, other))


# ---- softmax and log_softmax ----------------------------------------------------------------

def _along(f):
    """Apply f(array, axis) with a 0-d input treated as 1-d (dims 0 and -1 are valid)."""
    def forward(a, dim, *rest):
        axis = wrap_dim(dim, a.ndim)
        if a.ndim == 0:
            return f(a.reshape(1), 0, *rest).reshape(())
        return f(a, axis, *rest)
    return forward


def _softmax(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _log_softmax(a, axis):
    shifted = a - a.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def _softmax_bw(g, out, axis):
    return out * (g - (g * out).sum(axis, keepdims=True))


def _log_softmax_bw(g, out, axis):
    return g - np.exp(out) * g.sum(axis, keepdims=True)


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


# ---- nll_loss ---------------------------------------------------------------------------------

def _nll_parts(x, target, weight, ignore_index):
    """(x as (N, C, ...), safe class indices, per-element weights) with PyTorch's checks."""
    if x.ndim == 1:
        x, target = x[None], target.reshape(1)
    ignored = target == ignore_index
    bad = ~ignored & ((target < 0) | (target >= x.shape[1]))
    if bad.any():
        raise IndexError(f"Target {target[bad].flat[0]} is out of bounds.")
    safe = np.where(ignored, 0, target)
    w = np.ones(x.shape[1], x.dtype) if weight is None else weight.astype(x.dtype)
    return x, safe, np.where(ignored, 0, w[safe]).astype(x.dtype), ignored


def _nll(x, target, weight, reduction, ignore_index):
    xs, safe, wt, _ = _nll_parts(x, target, weight, ignore_index)
    losses = -wt * np.take_along_axis(xs, safe[:, None], 1)[:, 0]
    if reduction == "none":
        return losses.reshape(target.shape)
    total = losses.sum()
    return total / wt.sum() if reduction == "mean" else total


def _nll_backward(g, x, target, weight, reduction, ignore_index):
    xs, safe, wt, ignored = _nll_parts(x, target, weight, ignore_index)
    g = np.asarray(g).reshape(safe.shape) if reduction == "none" else g
    scale = -wt * g / wt.sum() if reduction == "mean" else -wt * g
    # ignored targets get no gradient, even when all are ignored (0 / 0 above)
    scale = np.where(ignored, 0, scale).astype(x.dtype)
    out = np.zeros_like(xs)
    np.put_along_axis(out, safe[:, None], np.broadcast_to(scale, safe.shape)[:, None], 1)
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

mse_loss = op("mse_loss", "MseLossBackward0", "self, target, reduction",
              lambda x, t, reduction: _reduce((x - t) ** 2, reduction), function=False,
              method=False,
              self=lambda grad, self, target, reduction: mse_loss_backward(grad, self, target,
                                                                           reduction),
              target=lambda grad, self, target, reduction: mse_loss_backward(grad, target, self,
                                                                             reduction))


def _huber_bw(g, x, t, reduction, delta, smooth_l1):
    """Gradient of huber (delta) or smooth_l1 (beta, which divides the quadratic part)."""
    d = x - t
    norm = 1 / d.size if reduction == "mean" else 1
    inner = d / delta if smooth_l1 else d
    slope = np.sign(d) if smooth_l1 else delta * np.sign(d)
    return np.where(np.abs(d) < delta, inner, slope) * g * norm


def _huber(x, t, reduction, delta, smooth_l1):
    d = np.abs(x - t)
    if smooth_l1:
        e = np.where(d < delta, 0.5 * d * d / delta, d - 0.5 * delta) if delta > 0 else d
    else:
        e = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce(e, reduction)


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
                 target=lambda grad, self, target, reduction, delta: -bw(grad, self, target,
                                                                        reduction, delta))
    return forward


huber_loss = _huber_rows("huber_loss", "HuberLoss", False)
smooth_l1_loss = _huber_rows("smooth_l1_loss", "SmoothL1Loss", True)


def _bce_weight(x, weight):
    return np.ones((), x.dtype) if weight is None else weight.astype(x.dtype)


def _bce(x, t, weight, reduction):
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
    target=lambda grad, self, weight, reduction: _weighted(
        grad * ((1 - self).log() - self.log()).clamp_min(-100), weight, reduction, self.numel()))


def _bce_logits(x, t, weight, pos_weight, reduction):
    log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * t + 1)
    loss = (1 - t) * x - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_logits_grad_self(grad, self, target, weight, pos_weight, reduction):
    # PyTorch's composite formula, so double backward records its nodes
    g = grad.expand_as(self)
    if pos_weight is not None:
        t = make_tensor(pos_weight.astype(self._data.dtype)) * target
        gi = ((add_scalar(t, 1) - target) * self.sigmoid() - t) * g
    else:
        gi = (self.sigmoid() - target) * g
    return _weighted(gi, weight, reduction, self.numel())


def _bce_logits_grad_target(grad, self, weight, pos_weight, reduction):
    if pos_weight is not None:
        pw = make_tensor(pos_weight.astype(self._data.dtype))
        gt = ((1 - self.sigmoid()).log() - pw * self.sigmoid().log()) * grad
    else:
        gt = self * -grad
    return _weighted(gt, weight, reduction, self.numel())


binary_cross_entropy_with_logits = op(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
    "self, target, weight, pos_weight, reduction", _bce_logits, function=False, method=False,
    self=_bce_logits_grad_self, target=_bce_logits_grad_target)


# ---- activations --------------------------------------------------------------------------

leaky_relu_backward = op(
    "leaky_relu_backward", "LeakyReluBackwardBackward0", "grad_output, self, negative_slope",
    lambda g, x, slope: np.where(x > 0, g, g * slope), function=False, method=False,
    grad_output=lambda grad, self, negative_slope: leaky_relu_backward(grad, self, negative_slope),
    self=_zeros)

leaky_relu = op("leaky_relu", "LeakyReluBackward0", "self, negative_slope",
                lambda x, slope: np.where(x > 0, x, x * slope), function=False, method=False,
                self=lambda grad, self, negative_slope: leaky_relu_backward(grad, self,
                                                                            negative_slope))


def _elu_bw(g, x, alpha, scale, input_scale):
    return np.where(x <= 0, g * input_scale * alpha * scale * np.exp(x * input_scale), g * scale)


elu_backward = op(
    "elu_backward", "EluBackwardBackward0", "grad_output, self, alpha, scale, input_scale",
    _elu_bw, function=False, method=False,
    grad_output=lambda grad, self, alpha, scale, input_scale: elu_backward(
        grad, self, alpha, scale, input_scale),
    self=lambda grad, grad_output, self, alpha, scale, input_scale: where(
        self <= 0, grad * grad_output * (input_scale * input_scale * alpha * scale)
        * (self * input_scale).exp(), 0.0))

elu = op("elu", "EluBackward0", "self, alpha, scale, input_scale",
         lambda x, alpha, scale, input_scale: np.where(
             x > 0, x * scale, np.expm1(np.minimum(x, 0) * input_scale) * alpha * scale),
         function=False, method=False,
         self=lambda grad, self, alpha, scale, input_scale: elu_backward(
             grad, self, alpha, scale, input_scale))

_SQRT_2_PI = math.sqrt(2 / math.pi)
_GELU_K = 0.044715


def _gelu(x, approximate):
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


silu = op("silu", "SiluBackward0", "self",
          lambda x: x / (1 + np.exp(-x)), function=False, method=False, self=_silu_grad)


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

softplus = op("softplus", "SoftplusBackward0", "self, beta, threshold",
              lambda x, beta, threshold: np.where(
                  x * beta > threshold, x,
                  np.log1p(np.exp(np.minimum(x * beta, threshold))) / beta),
              function=False, method=False,
              self=lambda grad, self, beta, threshold: softplus_backward(grad, self, beta,
                                                                         threshold))
