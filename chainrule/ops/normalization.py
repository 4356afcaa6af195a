"""Normalization layers' fused ops: native_layer_norm and native_batch_norm, each with a
backward row of its own whose derivatives are PyTorch's layer_norm_double_backward and
batchnorm_double_backward (FunctionsManual.cpp) written in Tensor ops, so double backward
works and records NativeLayerNormBackwardBackward0 / NativeBatchNormBackwardBackward0.

Each first-order formula calls its backward row for one output only (`output_mask`), so
the input, weight and bias gradients are each computed once; the masked outputs are empty.
"""
import numpy as np

from .._dims import wrap_dim
from ..autograd import grad_mode
from .._dtype import FROM_NP, OPMATH
from .._tensor import channels_last, channels_last_3d, contiguous_format, is_in_format
from .binding import Signature, declare
from .nn_ops import add_scalar, div_scalar, mul_scalar
from .registry import NOT_IMPLEMENTED, no_derivative, op, public
from .shape import _warn_once


def _float(a, kernel):
    """`a` as a float array to compute in (half goes through float32)."""
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{FROM_NP[a.dtype].legacy}\'')
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _is_mixed(x, *params):
    """PyTorch's CPU kernels take parameters of the input's dtype, or float32 ones for a
    half input: types are mixed when the first parameter given has another dtype."""
    first = next((p for p in params if p is not None), None)
    return first is not None and first.dtype != x.dtype


def _check_dtypes(x, *params):
    """Mixed types must be float32 parameters of a half input (check_mixed_data_type).
    Returns whether the types are mixed."""
    if not _is_mixed(x, *params):
        return False
    if any(p is not None and p.dtype != np.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if x.dtype != np.float16:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def _check_same_dtype(x, *params):
    """Types not mixed: the kernel reads every parameter as the input's dtype."""
    for p in params:
        if p is not None and p.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {FROM_NP[x.dtype].legacy} but found "
                               f"{FROM_NP[p.dtype].legacy}")


def _none(grads):
    # an input with an edge but no gradient (derivatives.yaml): the saved statistics
    # (non_differentiable / not_implemented) and layer_norm_backward's bias (`Tensor()`)
    return None


# ---- layer_norm -----------------------------------------------------------------------------

def _int_tuple(fn, normalized_shape):
    """normalized_shape as a tuple, with PyTorch's argument parser's TypeErrors."""
    prefix = f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of ints, "
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(prefix + f"not {type(normalized_shape).__name__}")
    for i, s in enumerate(normalized_shape):
        # the parser reads a bool after the first element as an int
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool) and not i:
            raise TypeError(prefix + f"but found element of type {type(s).__name__} at pos {i}")
    return tuple(int(s) for s in normalized_shape)


def _check_layer_norm(x, weight, bias, normalized_shape):
    """PyTorch's _check_layer_norm_inputs; returns the normalized dims' axes."""
    shape = _int_tuple("native_layer_norm", normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if x.ndim < len(shape) or x.shape[x.ndim - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{''.join(f', {s}' for s in shape)}], but got input of "
                           f"size{list(x.shape)}")
    return tuple(range(x.ndim - len(shape), x.ndim))


def _layer_norm(x, weight, bias, normalized_shape, eps):
    axes = _check_layer_norm(x, weight, bias, normalized_shape)
    mixed = _check_dtypes(x, weight, bias)     # before the kernel's dtype, as PyTorch's
    a = _float(x, "LayerNormKernelImpl")
    if not mixed:
        _check_same_dtype(x, weight, bias)
    mean = a.mean(axes, keepdims=True)
    out = a - mean
    # two passes (centre, then the variance of the centred values): stable for large means
    rstd = 1 / np.sqrt(np.mean(out * out, axes, keepdims=True) + eps)
    out *= rstd
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias
    return tuple(r.astype(x.dtype, copy=False) for r in (out, mean, rstd))


def _layer_norm_bw(g, x, mean, rstd, weight, bias, normalized_shape, output_mask):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    batch = tuple(range(axes[0]))
    empty = np.empty(0, x.dtype)
    dx = dw = db = empty
    if output_mask[0] or output_mask[1]:
        xhat = (x - mean) * rstd
    if output_mask[0]:
        # PyTorch's kernel: dx = rstd * gw + b * x + c, from the sums of gw * x and of gw
        gw = g * weight if weight is not None else g
        n = x.size // max(mean.size, 1)
        ds = (gw * x).sum(axes, keepdims=True)
        db_ = gw.sum(axes, keepdims=True)
        b = (db_ * mean - ds) * rstd ** 3 / n
        dx = rstd * gw + b * x + (-b * mean - db_ * rstd / n)
    if output_mask[1]:
        dw = (g * xhat).sum(batch)
    if output_mask[2]:
        db = g.sum(batch)
    return dx, dw, db


def _ln_double_backward(want, grads, input, weight, grad_out, mean, rstd, normalized_shape,
                        output_mask):
    """layer_norm_double_backward: the gradient for `want` ("input", "weight" or
    "grad_out") given the gradients `grads` of native_layer_norm_backward's outputs."""
    axis = input.dim() - len(normalized_shape)
    M = int(np.prod(input.shape[:axis]))
    N = int(np.prod(input.shape[axis:]))
    x = input.reshape(M, N)
    gO = grad_out.reshape(M, N) if grad_out is not None else None
    gamma = weight.reshape(1, N) if weight is not None else None
    ggI = grads[0].reshape(M, N) if output_mask[0] else None
    ggG = grads[1].reshape(1, N) if output_mask[1] else None
    ggB = grads[2].reshape(1, N) if output_mask[2] else None
    xmu = x - mean.reshape(M, 1)
    s1 = rstd.reshape(M, 1)           # (sigma^2 + eps)^(-1/2)
    s2 = s1.pow(2)
    s3 = s1.pow(3)

    def first_backward(g, gam):
        # the first backward's grad_input, for incoming gradient g and weight gam
        h0 = s1 / N if gam is None else gam * s1 / N
        return h0 * (N * g - g.sum(1, True) - xmu * s2 * (g * xmu).sum(1, True))

    if want == "input":
        gI = None
        xmu3 = xmu * s3
        if ggI is not None:
            gxhat = gO * gamma if gamma is not None else gO
            gxhat_mu_sum = (gxhat * xmu).sum(1, True)
            gxhat_sum = gxhat.sum(1, True)
            ggI_sum = ggI.sum(1, True)
            ggI_mu_sum = (ggI * xmu).sum(1, True)
            all_sub = (ggI_sum * gxhat_sum / N - (ggI * gxhat).sum(1, True)
                       + s2 * gxhat_mu_sum * ggI_mu_sum * (3.0 / N))
            gI = (xmu3 * all_sub / N + ggI_mu_sum * s3 / N * (gxhat_sum / N - gxhat)
                  + gxhat_mu_sum * s3 / N * (ggI_sum / N - ggI))
        if ggG is not None:
            term = (gO * ggG * s1 + (s1 * gO * ggG).sum(1, True) / -N
                    + xmu3 * (gO * ggG * xmu).sum(1, True) / -N)
            gI = term if gI is None else gI + term
        return None if gI is None else gI.reshape_as(input)
    if want == "weight":
        if ggI is None:
            return None
        return (gO * first_backward(ggI, None)).sum(0).reshape_as(weight)
    ggO = None
    if ggI is not None:
        ggO = first_backward(ggI, gamma)
    if ggG is not None:
        term = ggG * xmu * s1
        ggO = term if ggO is None else ggO + term
    if ggB is not None:
        ggO = ggB if ggO is None else ggO + ggB
    return None if ggO is None else ggO.expand(M, N).reshape_as(input)


native_layer_norm_backward = op(
    "native_layer_norm_backward", "NativeLayerNormBackwardBackward0",
    "grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask", _layer_norm_bw,
    inputs=("grad_out", "input", "mean", "rstd", "weight", "bias"), returns=list,
    optional=("weight", "bias"), function=False, method=False,
    grad_out=lambda grads, input, weight, mean, rstd, normalized_shape, output_mask:
        _ln_double_backward("grad_out", grads, input, weight, None, mean, rstd,
                            normalized_shape, output_mask),
    input=lambda grads, grad_out, input, weight, mean, rstd, normalized_shape, output_mask:
        _ln_double_backward("input", grads, input, weight, grad_out, mean, rstd,
                            normalized_shape, output_mask),
    mean=_none, rstd=_none,
    weight=lambda grads, grad_out, input, weight, mean, rstd, normalized_shape, output_mask:
        _ln_double_backward("weight", grads, input, weight, grad_out, mean, rstd,
                            normalized_shape, output_mask),
    bias=_none)


def _ln_grad(i):
    mask = tuple(j == i for j in range(3))
    return lambda grads, input, normalized_shape, result1, result2, weight, bias: \
        native_layer_norm_backward(grads[0], input, normalized_shape, result1, result2, weight,
                                   bias, mask)[i]


native_layer_norm = op(
    "native_layer_norm", "NativeLayerNormBackward0",
    "input, normalized_shape, weight, bias, eps", _layer_norm,
    inputs=("input", "weight", "bias"), optional=("weight", "bias"), returns=list,
    differentiable_outputs=(0,), method=False, input=_ln_grad(0), weight=_ln_grad(1),
    bias=_ln_grad(2))


@public(method=False)
@Signature("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
           "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True)").bind
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return native_layer_norm(input, _int_tuple("layer_norm", normalized_shape), weight, bias,
                             float(eps))[0]


# ---- batch_norm -----------------------------------------------------------------------------

def _channels(x):
    """(reduced axes, broadcast shape of a per-channel vector) for input x."""
    return (0,) + tuple(range(2, x.ndim)), (1, -1) + (1,) * (x.ndim - 2)


def _channel_count_of_1d():
    raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def _check_channel_sizes(channels, *params):
    """The element-wise path broadcasts each 1-d parameter over the channels."""
    for t in params:
        if t is not None and t.size not in (1, channels):
            raise RuntimeError(f"The size of tensor a ({channels}) must match the size of "
                               f"tensor b ({t.size}) at non-singleton dimension 1")


def _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    if x.ndim == 0:     # PyTorch's kernel sizes a list of ndim - 1 reduced dims
        raise RuntimeError("SmallVector unable to grow. Requested capacity (18446744073709551615) "
                           "is larger than maximum value for size type (4294967295)")
    if x.ndim == 1 and training:     # training reads the channel count first
        _channel_count_of_1d()
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be "
                         "None")
    dense = any(is_in_format(x, f) for f in (contiguous_format, channels_last, channels_last_3d))
    if training and not dense and x.dtype.kind in "biu" and not _is_mixed(
            x, weight, bias, running_mean, running_var):
        # the statistics of a strided input come from mean(), which refuses integers first
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {FROM_NP[x.dtype].legacy}")
    a = _float(x, "batch_norm")
    mixed = _check_dtypes(x, weight, bias, running_mean, running_var)
    stats = np.float32 if mixed else x.dtype     # a half input's with float parameters
    # PyTorch's CPU kernel for dense operands, else its element-wise path
    fast = dense and all(t is None or t.flags.c_contiguous
                         for t in (weight, bias, running_mean, running_var))
    if not training and not x.size:     # evaluation of nothing reads no channel count
        if not fast and x.ndim > 1:     # but the element-wise path broadcasts its parameters
            _check_channel_sizes(x.shape[1], running_mean, running_var, weight, bias)
        return x.copy(), np.empty(0, stats), np.empty(0, stats)
    if x.ndim == 1:
        _channel_count_of_1d()
    if training and not x.size:
        raise RuntimeError(f"input tensor must have at least one element, but got input_sizes = "
                           f"{list(x.shape)}")
    if not mixed:     # training reads the running statistics first, evaluation last
        _check_same_dtype(x, *((running_mean, running_var, weight, bias) if training else
                               (weight, bias, running_mean, running_var)))
    axes, shape = _channels(a)
    for t in (running_mean, running_var):   # the kernels' 1-d views of them
        if t is not None and t.ndim != 1:
            if training or fast:
                raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t.ndim}")
            raise RuntimeError('t.defined() && t.dim() == 1 INTERNAL ASSERT FAILED at "/__w/'
                               'pytorch/pytorch/aten/src/ATen/native/Normalization.cpp":162, '
                               'please report a bug to PyTorch. ')
    if training:
        # two passes (the mean, then squared deviations from it): stable for large means
        n = a.size // max(a.shape[1], 1)
        mean = a.mean(axes)
        centred = a - mean.reshape(shape)
        var_sum = np.sum(centred * centred, axes)
        invstd = 1 / np.sqrt(var_sum / n + eps)
        # running stats are updated in place, without a version bump (as in PyTorch), with
        # the unbiased variance
        if running_mean is not None:
            running_mean[...] = momentum * mean.astype(np.float64) \
                + (1 - momentum) * running_mean.astype(np.float64)
        if running_var is not None:
            running_var[...] = momentum * (var_sum.astype(np.float64) / (n - 1)) \
                + (1 - momentum) * running_var.astype(np.float64)
        save_mean, save_invstd = mean, invstd
    else:
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
        save_mean = save_invstd = np.empty(0, a.dtype)
    if fast:
        # out = x * alpha + beta per channel, as PyTorch's CPU kernel computes it; it reads
        # an empty parameter's null data pointer as no parameter
        alpha = invstd if weight is None or not weight.size else invstd * weight
        beta = -mean * alpha if bias is None or not bias.size else bias - mean * alpha
        out = a * alpha.reshape(shape) + beta.reshape(shape)
    else:     # its element-wise path for strided operands: ((x - mean) * invstd) * w + b
        if any(t is not None and np.ndim(t) != 1 for t in (mean, invstd, weight, bias)):
            raise RuntimeError('t.defined() && t.dim() == 1 INTERNAL ASSERT FAILED at "/__w/'
                               'pytorch/pytorch/aten/src/ATen/native/Normalization.cpp":162, '
                               'please report a bug to PyTorch. ')
        _check_channel_sizes(a.shape[1], mean, invstd, weight, bias)
        out = (a - mean.reshape(shape)) * invstd.reshape(shape)
        if weight is not None:
            out *= weight.reshape(shape)
        if bias is not None:
            out += bias.reshape(shape)
    return (out.astype(x.dtype, copy=False), save_mean.astype(stats, copy=False),
            save_invstd.astype(stats, copy=False))


def _batch_norm_bw(g, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
                   output_mask):
    axes, shape = _channels(x)
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
    empty = np.empty(0, x.dtype)
    dx = dw = db = empty
    gsum = g.sum(axes)
    if output_mask[0] or output_mask[1]:
        centred = x - mean.reshape(shape)
        dotp = np.sum(g * centred, axes)
    if output_mask[0]:
        scale = invstd if weight is None else invstd * weight
        if train:
            n = x.size // max(gsum.size, 1)
            k = dotp * invstd * invstd / n
            dx = (g - centred * k.reshape(shape) - (gsum / n).reshape(shape)) \
                * scale.reshape(shape)
        else:
            dx = g * scale.reshape(shape)
    if output_mask[1]:
        dw = dotp * invstd
    if output_mask[2]:
        db = gsum
    return dx, dw, db


def _bn_double_backward(want, grads, input, weight, grad_out, running_mean, running_var,
                        save_mean, save_invstd, train, eps, output_mask):
    """batchnorm_double_backward: the gradient for `want` ("input", "weight" or
    "grad_out") given the gradients `grads` of native_batch_norm_backward's outputs."""
    axes, shape = _channels(input)
    M = input.numel() // input.shape[1]
    gamma = weight.reshape(shape) if weight is not None else None
    ggI = grads[0] if output_mask[0] else None
    ggG = grads[1].reshape(shape) if output_mask[1] else None
    ggB = grads[2].reshape(shape) if output_mask[2] else None
    if train:
        mu, s1 = save_mean.reshape(shape), save_invstd.reshape(shape)
    else:
        mu = running_mean.reshape(shape)
        s1 = (running_var + eps).pow(-0.5).reshape(shape)
    xmu = input - mu
    s2 = s1.pow(2)

    def sum_c(t):
        return t.sum(axes, keepdim=True)

    def first_backward(g, gam):
        h0 = s1 / M if gam is None else gam * s1 / M
        return h0 * (M * g - sum_c(g) - xmu * s2 * sum_c(g * xmu))

    if want == "input":
        gI = None
        if ggI is not None and train:
            s3 = s1.pow(3)
            xmu3 = xmu * s3
            gOinmu_sum = sum_c(grad_out * xmu)
            gO_sum = sum_c(grad_out)
            ggI_sum = sum_c(ggI)
            ggIinmu_sum = sum_c(ggI * xmu)
            all_sub = (ggI_sum * gO_sum / M - sum_c(grad_out * ggI)
                       + s2 * gOinmu_sum * ggIinmu_sum * (3.0 / M))
            gI = (xmu3 * all_sub / M + ggIinmu_sum * s3 / M * (gO_sum / M - grad_out)
                  + gOinmu_sum * s3 / M * (ggI_sum / M - ggI))
            if gamma is not None:
                gI = gamma * gI
        if ggG is not None:
            if train:
                term = ggG * (grad_out * s1 + s1 * sum_c(grad_out) / -M
                              + xmu * s1.pow(3) * sum_c(grad_out * xmu) / -M)
            else:
                term = ggG * s1 * grad_out
            gI = term if gI is None else gI + term
        return gI
    if want == "weight":
        if ggI is None:
            return None
        if train:
            return (ggI * first_backward(grad_out, None)).sum(axes)
        return (ggI * grad_out * s1).sum(axes)
    ggO = None
    if ggI is not None:
        if train:
            ggO = first_backward(ggI, gamma)
        else:
            ggO = ggI * s1 if gamma is None else ggI * s1 * gamma
    if ggG is not None:
        term = ggG * xmu * s1
        ggO = term if ggO is None else ggO + term
    if ggB is not None:
        ggO = ggB.expand_as(input) if ggO is None else ggO + ggB
    return ggO


def _bn_formula(want):
    def formula(grads, grad_out, input, weight, running_mean, running_var, save_mean,
                save_invstd, train, eps, output_mask):
        return _bn_double_backward(want, grads, input, weight, grad_out, running_mean,
                                   running_var, save_mean, save_invstd, train, eps, output_mask)
    return formula


native_batch_norm_backward = op(
    "native_batch_norm_backward", "NativeBatchNormBackwardBackward0",
    "grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, "
    "output_mask", _batch_norm_bw,
    inputs=("grad_out", "input", "weight", "running_mean", "running_var", "save_mean",
            "save_invstd"),
    optional=("weight", "running_mean", "running_var", "save_mean", "save_invstd"),
    returns=list, function=False, method=False,
    grad_out=_bn_formula("grad_out"), input=_bn_formula("input"), weight=_bn_formula("weight"),
    running_mean=None, running_var=None, save_mean=_none, save_invstd=_none)


def _bn_grad(i):
    mask = tuple(j == i for j in range(3))
    return lambda grads, input, weight, running_mean, running_var, result1, result2, \
        training, eps: native_batch_norm_backward(grads[0], input, weight, running_mean,
                                                  running_var, result1, result2, training, eps,
                                                  mask)[i]


native_batch_norm = op(
    "native_batch_norm", "NativeBatchNormBackward0",
    "input, weight, bias, running_mean, running_var, training, momentum, eps", _batch_norm,
    optional=("weight", "bias", "running_mean", "running_var"), returns=list,
    differentiable_outputs=(0,), method=False,
    input=_bn_grad(0), weight=_bn_grad(1), bias=_bn_grad(2), running_mean=None,
    running_var=None)


@public(method=False)
@Signature("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
           "Tensor? running_var, bool training, float momentum, float eps, "
           "bool cudnn_enabled)").bind
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """at::batch_norm: PyTorch's size checks, then native_batch_norm."""
    num_features = input.shape[1] if input.dim() > 1 else 0     # PyTorch's count for 0-d, 1-d
    if input.numel() == 0:
        # PyTorch keeps the gradient chain with a clone instead of normalizing nothing
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        return out + bias[0] if bias is not None else out
    for name, t, needed in (("running_mean", running_mean, True),
                            ("running_var", running_var, True), ("weight", weight, False),
                            ("bias", bias, False)):
        if t is not None:
            if t.numel() != num_features:
                raise RuntimeError(f"{name} should contain {num_features} elements not "
                                   f"{t.numel()}")
        elif needed and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    # the parser reads a 0-d Tensor given for a float as its value
    return native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             float(momentum), float(eps))[0]


# ---- group_norm -----------------------------------------------------------------------------

def _check_group_norm(x_shape, weight, bias, C, group):
    """PyTorch's check_group_norm_inputs (its bias message shows the weight's shape)."""
    if group <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {group}")
    if C % group:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(x_shape)} and num_groups={group}")
    w_shape = [0] if weight is None else list(weight.shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.size != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {w_shape} and input "
                               f"of shape {list(x_shape)}")


def _group_norm(x, weight, bias, N, C, HxW, group, eps):
    _check_group_norm(x.shape, weight, bias, C, group)
    if not x.flags.c_contiguous:
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if x.size != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    mixed = _check_dtypes(x, weight, bias)     # before the kernel's dtype, as PyTorch's
    a = _float(x, "GroupNormKernelImpl")
    if not mixed:
        _check_same_dtype(x, weight, bias)
    D = C // group
    rows = a.reshape(N, group, D * HxW)
    if rows.shape[-1]:
        mean = rows.mean(-1)
        centred = rows - mean[..., None]
        var = np.mean(centred * centred, -1)
    else:     # empty groups: mean 0, variance and rstd NaN, as the CPU kernel's
        mean, var = np.zeros((N, group), a.dtype), np.full((N, group), np.nan, a.dtype)
    rstd = 1 / np.sqrt(np.where(var < 0, 0, var) + eps)     # std::max keeps a NaN
    planes = a.reshape(N, group, D, HxW)
    if weight is None and bias is None:
        out = (planes - mean[..., None, None]) * rstd[..., None, None]
    else:
        # per channel: y = scale * x + shift, as the CPU kernel computes it
        scale = rstd[..., None] * (1 if weight is None else weight.reshape(group, D))
        shift = -scale * mean[..., None] + (0 if bias is None else bias.reshape(group, D))
        out = planes * scale[..., None] + shift[..., None]
    stats = np.float32 if (weight is not None or bias is not None) and x.dtype == np.float16 \
        and (weight if weight is not None else bias).dtype == np.float32 else x.dtype
    return (out.reshape(x.shape).astype(x.dtype, copy=False), mean.astype(stats, copy=False),
            rstd.astype(stats, copy=False))


def _gn_backward(want, grads, grads_defined, X, mean, rstd, gamma, N, C, HxW, group, eps):
    """infinitely_differentiable_native_group_norm_backward (FunctionsManual.cpp): the
    gradient for `want` ("input", "weight" or "bias") in Tensor ops (C++'s Tensor * double
    is mul.Scalar: MulBackward1)."""
    dY, dmean, drstd = (g if given else None for g, given in zip(grads, grads_defined))
    if X._data.dtype == np.float16:
        # PyTorch's kernel computes a half backward in float (rstd cubed overflows half);
        # the engine casts the gradients back
        X, mean, rstd, gamma, dY, dmean, drstd = (
            None if t is None else t.float() for t in (X, mean, rstd, gamma, dY, dmean, drstd))
    G = group
    D = C // G
    s = 1.0 / (D * HxW)
    X_t = X.reshape(N, G, D, HxW)
    mean_t = mean.reshape(N, G, 1, 1)
    rstd_t = rstd.reshape(N, G, 1, 1)
    ds = db = dY_t = None
    if dY is not None:
        dY_t = dY.reshape(N, G, D, HxW)
        ds = (dY_t * X_t).sum(3).unsqueeze_(-1)
        db = dY_t.sum(3).unsqueeze_(-1)
    if want == "input":
        gamma_t = None if gamma is None else gamma.reshape(1, G, D, 1)
        rstd_cube = rstd_t * rstd_t * rstd_t
        dvar = None if drstd is None else mul_scalar(rstd_cube, -0.5) * drstd.view(N, G, 1, 1)
        stats = dmean is not None and drstd is not None
        if dY is not None:
            a = rstd_t if gamma_t is None else rstd_t * gamma_t
            b = (ds.sum(2) if gamma_t is None else (ds * gamma_t).sum(2)).unsqueeze_(-2)
            c = (db.sum(2) if gamma_t is None else (db * gamma_t).sum(2)).unsqueeze_(-2)
            b = mul_scalar((c * mean_t - b) * rstd_cube, s)
            c = -b * mean_t - mul_scalar(c * rstd_t, s)
            dX = a * dY_t + b * X_t + c
            if stats:
                dX = dX + _var_mean_backward(dvar, dmean.view(N, G, 1, 1), X_t)
            return dX.reshape_as(X)
        if stats:
            return _var_mean_backward(dvar, dmean.view(N, G, 1, 1), X_t).reshape_as(X)
        return None
    if dY is None:
        return None
    if want == "weight":
        return ((ds - db * mean_t) * rstd_t).sum(0).reshape_as(gamma)
    if gamma is None:
        # PyTorch fails here: under create_graph it reshapes to the absent weight's shape
        # [0]; its kernel, without, reads the absent weight
        if grad_mode.state.grad_enabled:
            raise RuntimeError(f"shape '[0]' is invalid for input of size {C}")
        raise RuntimeError("tensor does not have a device")
    return db.sum(0).reshape_as(gamma)


def _var_mean_backward(gvar, gmean, X):
    # var_mean_backward over dims (2, 3), correction 0, keepdim
    n = X.shape[2] * X.shape[3]
    gself = mul_scalar(gvar, 2.0 / n) * (X - X.mean((2, 3), keepdim=True))
    return gself + div_scalar(gmean.expand(X.shape), n)


def _gn_formula(want):
    def formula(grads, grads_defined, input, weight, result1, result2, N, C, HxW, group, eps):
        return _gn_backward(want, grads, grads_defined, input, result1, result2, weight, N, C,
                            HxW, group, eps)
    return formula


native_group_norm = op(
    "native_group_norm", "NativeGroupNormBackward0",
    "input, weight, bias, N, C, HxW, group, eps", _group_norm, optional=("weight", "bias"),
    returns=list, method=False,
    out=False, input=_gn_formula("input"), weight=_gn_formula("weight"),
    bias=_gn_formula("bias"))
# Note [Argument parser checks]
declare("native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, "
        "SymInt HxW, int group, float eps)", method=False)


def _size(input, dim):
    """input.size(dim), with PyTorch's IndexError."""
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return input.shape[wrap_dim(dim, input.dim())]


@public(method=False)
@Signature("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
           "float eps=1e-05, bool cudnn_enabled=True)").bind
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Normalizes each of num_groups groups of channels of each sample, then scales and
    shifts per channel."""
    N, C = _size(input, 0), _size(input, 1)
    _check_group_norm(input.shape, None if weight is None else weight._data,
                      None if bias is None else bias._data, C, num_groups)
    HxW = int(np.prod(input.shape[2:]))
    return native_group_norm(input.contiguous(), None if weight is None else weight.contiguous(),
                             None if bias is None else bias.contiguous(), N, C, HxW, num_groups,
                             float(eps))[0]


# ---- instance_norm --------------------------------------------------------------------------

@public(method=False)
@Signature("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
           "Tensor? running_var, bool use_input_stats, float momentum, float eps, "
           "bool cudnn_enabled)").bind
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """batch_norm over the input seen as one sample of N * C channels; the running statistics
    are the mean over the batch of those batch_norm updated."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    b, c = _size(input, 0), _size(input, 1)
    shape = (1, b * c) + tuple(input.shape[2:])

    def repeated(t):
        return None if t is None else t.repeat(b)
    mean_, var_ = repeated(running_mean), repeated(running_var)
    out = batch_norm(input.contiguous().view(shape), repeated(weight), repeated(bias), mean_,
                     var_, use_input_stats, momentum, eps, cudnn_enabled)
    from ..autograd import no_grad
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(b, c).mean(0, False))
        if running_var is not None:
            running_var.copy_(var_.view(b, c).mean(0, False))
    return out.view(input.shape)


# ---- rms_norm -------------------------------------------------------------------------------

def _check_rms_norm(input, normalized_shape, weight):
    shape = _int_tuple("rms_norm", normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    n = len(shape)
    if input.dim() < n:
        raise ValueError(f"Input tensor must have at least {n} dimensions, but got "
                         f"{input.dim()}")
    if tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of "
                           f"size{list(input.shape)}")
    return shape


@public(method=False)
@Signature("rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
           "float? eps=None)").bind
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x**2) + eps) over the trailing normalized_shape dims, times weight; in
    PyTorch's CPU composition (half computed in float; eps defaults to the computing type's
    machine epsilon, and is added in the computing type)."""
    eps = None if eps is None else float(eps)    # the parser's float of a 0-d Tensor
    shape = _check_rms_norm(input, normalized_shape, weight)
    if weight is not None and weight.dtype != input.dtype:
        _warn_once(f"Mismatch dtype between input and weight: input dtype = "
                   f"{input.dtype.cpp}, weight dtype = {weight.dtype.cpp}, Cannot dispatch to "
                   "fused implementation.")
    dtype = input._data.dtype
    if dtype.kind not in "fcV":
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype.legacy}'")
    opmath = FROM_NP[OPMATH.get(dtype, np.dtype(np.float32) if dtype == np.float16 else dtype)]
    if eps is None:
        eps = float(np.finfo(np.float64 if opmath.itemsize // (2 if opmath.is_complex else 1)
                             == 8 else np.float32).eps)
    upcast = input.to(opmath)
    dims = [input.dim() - i - 1 for i in range(len(shape))]
    rsqrt = add_scalar(upcast.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    result = upcast.mul(rsqrt)
    if weight is not None:
        result = result.mul(weight)
    return result.contiguous().type_as(input)


# ---- batch_norm_update_stats: the batch statistics, updating the running ones ----------------

def _update_stats(x, running_mean, running_var, momentum):
    if x.dtype.kind not in "fV":
        raise NotImplementedError("\"batch_norm_update_stats_cpu\" not implemented for "
                                  f"'{FROM_NP[x.dtype].legacy}'")
    mixed = _check_dtypes(x, running_mean, running_var)
    if not mixed:
        _check_same_dtype(x, running_mean, running_var)
    if x.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    if not x.size:
        raise RuntimeError("input tensor must have at least one element, but got input_sizes = "
                           f"{list(x.shape)}")
    a = x.astype(np.float32) if x.dtype == np.float16 else x
    axes, shape = _channels(a)
    n = a.size // max(a.shape[1], 1)
    mean = a.mean(axes)
    centred = a - mean.reshape(shape)
    var_sum = np.sum(centred * centred, axes)
    with np.errstate(divide="ignore", invalid="ignore"):
        if running_mean is not None:
            running_mean[...] = momentum * mean + (1 - momentum) * running_mean
        if running_var is not None:
            running_var[...] = momentum * var_sum / (n - 1) + (1 - momentum) * running_var
    stats = np.float32 if mixed else x.dtype     # a half input's with float statistics
    return mean.astype(stats), (var_sum / n).astype(stats)


batch_norm_update_stats = op(
    "batch_norm_update_stats", NOT_IMPLEMENTED, "input, running_mean, running_var, momentum",
    _update_stats, optional=("running_mean", "running_var"), returns=list, method=False,
    out=False, input=no_derivative("aten::batch_norm_update_stats"), running_mean=None,
    running_var=None)
