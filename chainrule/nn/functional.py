"""torch.nn.functional: the fused rows of ops/nn_ops.py, and compositions where PyTorch
composes (cross_entropy, l1_loss, kl_div, normalize, cosine_similarity, linear)."""
import enum
import math
import warnings

import numpy as np

from .._creation import arange as _arange
from .._dims import sizes_str as _sizes_str
from .._dtype import bfloat16 as _bfloat16, float32 as _float32, int64 as _int64
from .._tensor import Tensor as _Tensor, make_tensor
from ..ops import nn_ops as _ops, registry as _registry
from ..ops import normalization as _norm
from ..autograd import no_grad as _no_grad
from ..ops.binding import Signature as _Signature
from ..ops.conv import _checker
from ..ops.linalg import linear as _linear, matmul as _matmul
from ..ops.registry import attach_not_implemented, check_broadcast
from ..ops.pointwise import relu as _relu, where as _where
from ..ops import padding as _padding
from ..ops.conv import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d,
                        conv1d, conv2d, functional_max_pool1d as max_pool1d,
                        functional_max_pool2d as max_pool2d, max_pool2d_with_indices)
from ..ops import conv as _conv
from ..ops.padding import *  # noqa: F401,F403  (pad)
from .attention._functional import (  # noqa: F401
    _canonical_mask, _in_projection, _in_projection_packed, _mha_shape_check, _none_or_dtype,
    multi_head_attention_forward, scaled_dot_product_attention)

__all__ = ["softmax", "log_softmax", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
           "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "relu", "leaky_relu", "elu", "gelu",
           "silu", "softplus", "sigmoid", "tanh", "one_hot", "normalize", "cosine_similarity",
           "linear", "conv1d", "conv2d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
           "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "layer_norm", "batch_norm", "embedding",
           "dropout", "bilinear", "relu_", "leaky_relu_", "elu_", "selu", "selu_", "celu",
           "celu_", "threshold", "threshold_", "rrelu", "rrelu_", "prelu", "hardshrink",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
           "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
           "dropout3d", "instance_norm", "rms_norm", "group_norm", "poisson_nll_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "logsigmoid", "embedding_bag", "max_pool3d",
           "max_pool3d_with_indices", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices"] + _padding.__all__
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]

def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(output, indices) of 1-D max pooling (return_indices is ignored, as in PyTorch)."""
    return _conv.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _reduction(reduction, size_average=None, reduce=None):
    """Validate `reduction` (PyTorch's _Reduction.get_enum, as a string); the deprecated
    size_average/reduce override it, as in PyTorch."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", stacklevel=3)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


_ENUM = {"none": 0, "mean": 1, "sum": 2}     # at::Reduction


def _array(t):
    return None if t is None else t._data


def _softmax_dim(name, ndim, stacklevel=3):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _method_of(input, name):
    """nn.functional calls `name` as the input's method: other objects have none."""
    if not isinstance(input, _Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute '{name}'")


# the Tensor methods softmax and log_softmax (self not counted) nn.functional calls
_SOFTMAX = _checker("softmax(int dim, ScalarType? dtype=None)")
_LOG_SOFTMAX = _checker("log_softmax(int dim, ScalarType? dtype=None)")


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    _method_of(input, "softmax")
    _SOFTMAX(dim)
    return _ops.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    _method_of(input, "log_softmax")
    _LOG_SOFTMAX(dim)
    return _ops.log_softmax(input if dtype is None else input.to(dtype), dim)


def relu(input, inplace=False):
    return input.relu_() if inplace else _relu(input)


@_Signature("relu_(Tensor input)").bind
def relu_(input):
    return input.relu_()


# PyTorch's are Python functions calling the method: a non-Tensor is an AttributeError
def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def _number(v):
    """A Scalar argument as the parser reads it: a 0-d Tensor's value."""
    return v.item() if isinstance(v, _Tensor) else v


_LEAKY_RELU = _checker("leaky_relu(Tensor input, Scalar negative_slope=0.01)")
_ELU = _checker("elu(Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)")
_CELU = _checker("celu(Tensor input, Scalar alpha=1.0)")
_SELU = _checker("selu(Tensor input)")
_THRESHOLD = _checker("threshold(Tensor input, Scalar threshold, Scalar value)")


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _LEAKY_RELU(input, negative_slope)
    negative_slope = _number(negative_slope)
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _ops.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _ops._inplace(_ops.leaky_relu_inplace, input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    _ELU(input, alpha)
    alpha = _number(alpha)
    return elu_(input, alpha) if inplace else _ops.elu(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    return _ops._inplace(_ops.elu_inplace, input, alpha, 1.0, 1.0)


def selu(input, inplace=False):
    _SELU(input)
    return _ops.selu_(input) if inplace else _ops.selu(input)


def celu(input, alpha=1.0, inplace=False):
    _CELU(input, alpha)
    alpha = _number(alpha)
    return _ops.celu_(input, alpha) if inplace else _ops.celu(input, alpha)


def threshold(input, threshold, value, inplace=False):
    _THRESHOLD(input, threshold, value)
    threshold, value = _number(threshold), _number(value)
    if inplace:
        return _ops.threshold_(input, threshold, value)
    return _ops.threshold(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if inplace:
        return _ops.rrelu_(input, lower, upper, training)
    return _ops.rrelu(input, lower, upper, training)


logsigmoid = _Signature("log_sigmoid(Tensor input)").bind(_ops.log_sigmoid)
selu_ = _ops.selu_
celu_ = _ops.celu_
threshold_ = _ops.threshold_
rrelu_ = _ops.rrelu_
prelu = _Signature("prelu(Tensor input, Tensor weight)").bind(_ops.prelu)
hardshrink = _Signature("hardshrink(Tensor input, Scalar lambd=0.5)").bind(_ops.hardshrink)
pixel_shuffle = _ops.pixel_shuffle
pixel_unshuffle = _ops.pixel_unshuffle
channel_shuffle = _ops.channel_shuffle
native_channel_shuffle = _ops.native_channel_shuffle


@_Signature("gelu(Tensor input, *, str approximate='none')").bind
def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _ops.gelu(input, approximate)


def silu(input, inplace=False):
    return _ops._inplace(_ops.silu, input) if inplace else _ops.silu(input)


@_Signature("softplus(Tensor input, Scalar beta=1, Scalar threshold=20)").bind
def softplus(input, beta=1.0, threshold=20.0):
    return _ops.softplus(input, _number(beta), _number(threshold))


# ---- losses -------------------------------------------------------------------------------

def _check_target(target):
    if target.dtype not in (_int64,) and target._data.dtype != np.uint8:
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.legacy}")


# the bindings nn.functional's losses pass their arguments to (by position), for their checks
_NLL_LOSS_ND = _checker("nll_loss_nd(Tensor input, Tensor target, Tensor? weight=None, "
                          "int reduction=1, int ignore_index=-100)")
_CROSS_ENTROPY_LOSS = _checker("cross_entropy_loss(Tensor input, Tensor target, "
                                 "Tensor? weight=None, int reduction=1, int ignore_index=-100, "
                                 "float label_smoothing=0.0)")
_SMOOTH_L1_LOSS = _checker("smooth_l1_loss(Tensor input, Tensor target, int reduction=1, "
                             "float beta=1.0)")
_HUBER_LOSS = _checker("huber_loss(Tensor input, Tensor target, int reduction=1, "
                         "float delta=1.0)")
_SOFT_MARGIN_LOSS = _checker("soft_margin_loss(Tensor input, Tensor target, int reduction=1)")
_MULTI_MARGIN_LOSS = _checker("multi_margin_loss(Tensor input, Tensor target, Scalar p=1, "
                                "Scalar margin=1, Tensor? weight=None, int reduction=1)")
_MULTILABEL_MARGIN_LOSS = _checker("multilabel_margin_loss(Tensor input, Tensor target, "
                                     "int reduction=1)")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    _NLL_LOSS_ND(input, target, weight, _ENUM[reduction], ignore_index)
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    # PyTorch reads a 0-d target's batch size as 0
    batch = target.shape[0] if target.dim() else 0
    if input.dim() != 1 and input.shape[0] != batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({batch}).")
    n = input.shape[0]
    if input.dim() not in (1, 2, 4):     # PyTorch folds the extra dims into a 4-d call
        if tuple(target.shape[1:]) != tuple(input.shape[2:]):
            raise RuntimeError(f"Expected target size {[n] + list(input.shape[2:])}, got "
                               f"{list(target.shape)}")
        # an empty tensor is viewed with zero-sized spatial dims
        c = input.shape[1]
        folded = input.contiguous().view(n, c, 1, -1) if input.numel() else input.view(n, c, 0, 0)
        targets = target.contiguous().view(n, 1, -1) if target.numel() else target.view(n, 0, 0)
        out = nll_loss(folded, targets, weight, ignore_index=ignore_index, reduction=reduction)
        return out.view(tuple(target.shape)) if reduction == "none" else out
    _check_nll_shapes(input, target, weight)
    w = None if weight is None else _array(weight).reshape(-1)     # nll_loss2d's may be n-d
    if _registry.VMAP is not None:     # a batched vmap runs: targets may differ per element
        from ..func import _batched
        out = _batched.nll_loss(input, target, w, reduction, ignore_index)
        if out is not None:
            return out
    _check_target(target)
    if input.dim() <= 2:
        return _ops.nll_loss(input, target._data, w, reduction, ignore_index)
    # nll_loss2d's kernel (after its input's dtype check) reads only Long
    if target.dtype != _int64 and target.numel() and input.is_floating_point():
        raise RuntimeError("expected scalar type Long but found Byte")
    return _ops.nll_loss2d(input, target._data, w, reduction, ignore_index)


def _check_nll_shapes(input, target, weight):
    """PyTorch's checks of nll_loss's (1-d or 2-d input) and nll_loss2d's shapes, in order."""
    n_classes = input.shape[0] if input.dim() == 1 else input.shape[1]
    if input.dim() == 4:
        if target.dim() != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.dim()}")
        if weight is not None and weight.numel() != n_classes:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if (input.shape[0], *input.shape[2:]) != tuple(target.shape):
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
        return
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if _registry.VMAP is None:     # (a batched vmap takes its own path with the targets)
        _check_target(target)
    if input.dim() == 1 and target.dim() == 1 and target.shape[0] != 1:
        raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")
    if input.dim() == 2 and target.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight.shape)}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    reduction = _reduction(reduction, size_average, reduce)
    _CROSS_ENTROPY_LOSS(input, target, weight, _ENUM[reduction], ignore_index,
                              label_smoothing)
    label_smoothing = float(label_smoothing)
    probabilities = tuple(target.shape) == tuple(input.shape)
    if probabilities and not target.is_floating_point():
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype.legacy}")
    class_dim = 0 if input.dim() == 1 else 1
    if probabilities and input.dim() == 0:     # its class dim 1, checked before the weight
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    # checked before log_softmax refuses the input's dtype
    if probabilities and weight is not None and tuple(weight.shape) != (input.shape[class_dim],):
        raise RuntimeError("cross_entropy: weight tensor should be defined either for all "
                           f"{input.shape[class_dim]} classes or no classes but got weight "
                           f"tensor of shape: {_sizes_str(weight.shape)}")
    logp = _ops.log_softmax(input, class_dim)
    if probabilities:
        n_classes = input.shape[class_dim]
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        if weight is not None:
            shape = [1] * input.dim()
            shape[class_dim] = n_classes
            logp = logp * weight.view(shape)
        if reduction == "mean":
            if input.numel() == 0:     # PyTorch's graph: the sum filled with NaN, negated
                return -(logp * target).sum().fill_(math.nan)
            return _ops.div_scalar(-(logp * target).sum(), input.numel() // n_classes)
        return -(logp * target).sum() if reduction == "sum" else -(logp * target).sum(class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    n_classes = input.shape[class_dim]
    if _registry.VMAP is not None:     # a batched vmap runs: targets may differ per element
        from ..func import _batched
        smooth = _batched.label_smoothing_loss(logp, target, _array(weight), reduction,
                                               ignore_index)
        if smooth is not None:
            return (_ops.mul_scalar(nll, 1 - label_smoothing)
                    + _ops.mul_scalar(smooth, label_smoothing / n_classes))
    ignore = make_tensor(target._data == ignore_index)
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        smooth = -(logp * weight.view(shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = _where(ignore, 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            w = weight._data[np.where(target._data == ignore_index, 0, target._data)]
            smooth = smooth.sum() / make_tensor(np.where(ignore._data, 0, w).sum())
        else:
            smooth = smooth.sum() / make_tensor(np.asarray((~ignore._data).sum()))
    elif reduction == "sum":
        smooth = smooth.sum()
    return (_ops.mul_scalar(nll, 1 - label_smoothing)
            + _ops.mul_scalar(smooth, label_smoothing / n_classes))


def _broadcast(input, target):
    """PyTorch's warning for mismatched sizes, then torch.broadcast_tensors."""
    if tuple(target.shape) == tuple(input.shape):
        return input, target
    warnings.warn(f"Using a target size ({_size(target)}) that is different to the input "
                  f"size ({_size(input)}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.", stacklevel=3)
    check_broadcast([input._data, target._data])
    shape = np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in (input, target))


def _size(t):
    return f"torch.Size({list(t.shape)})"


def _weighted_loss(loss, input_size, weight, reduction, mean_over_weight=True):
    """PyTorch 2.13's element-weighted pointwise losses: loss * weight reduced, the mean
    divided by the weights' sum (huber's by the count); the weights have the input's size
    (before broadcasting)."""
    if weight.size() != input_size:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_over_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _legacy_reduction(reduction, size_average, reduce):
    """_Reduction.legacy_get_string where the legacy arguments are given."""
    if size_average is None and reduce is None:
        return reduction
    return _reduction(reduction, size_average, reduce)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input_size = input.size()
    input, target = _broadcast(input, target)
    if weight is not None:
        reduction = _legacy_reduction(reduction, size_average, reduce)
        return _weighted_loss((input - target).pow(2), input_size, weight, reduction)
    return _ops.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    input_size = input.size()
    input, target = _broadcast(input, target)
    if weight is not None:
        reduction = _legacy_reduction(reduction, size_average, reduce)
        return _weighted_loss((input - target).abs(), input_size, weight, reduction)
    loss = (input - target).abs()
    reduction = _reduction(reduction, size_average, reduce)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    input, target = _broadcast(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    _SMOOTH_L1_LOSS(input, target, _ENUM[reduction], beta)
    return _ops.smooth_l1_loss(input, target, reduction, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    input_size = input.size()
    input, target = _broadcast(input, target)
    if weight is not None:
        return _weighted_loss(_ops.huber_loss(input, target, "none", delta), input_size,
                              weight, reduction, mean_over_weight=False)
    reduction = _reduction(reduction)
    _HUBER_LOSS(input, target, _ENUM[reduction], delta)
    return _ops.huber_loss(input, target, reduction, float(delta))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_size(target)}) that is different to the input "
                         f"size ({_size(input)}) is deprecated. Please ensure they have the same "
                         "size.")
    return _ops.binary_cross_entropy(input, target, _array(weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_size(target)}) must be the same as input size "
                         f"({_size(input)})")
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                                 _ENUM[reduction])


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        enum = _ENUM[_reduction(reduction, size_average, reduce)]
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _ENUM["sum" if reduction == "batchmean" else _reduction(reduction)]
    reduced = _ops.kl_div(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _ops.poisson_nll_loss(input, target, log_input, full, eps, _ENUM[reduction])


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    enum = _ENUM[_reduction(reduction, size_average, reduce)]
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _ops.margin_ranking_loss(input1, input2, target, margin, enum)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    return _ops.hinge_embedding_loss(input, target, margin,
                                     _ENUM[_reduction(reduction, size_average, reduce)])


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    return _ops.cosine_embedding_loss(input1, input2, target, margin,
                                      _ENUM[_reduction(reduction, size_average, reduce)])


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    enum = _ENUM[_reduction(reduction, size_average, reduce)]
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _ops.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, enum)


# ---- the rest -----------------------------------------------------------------------------

@_Signature("one_hot(Tensor input, int num_classes=-1)").bind
def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._data
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return make_tensor((a[..., None] == np.arange(num_classes)).astype(np.int64))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else _FUNCTIONS["div"](input, denom, out=out)


# the very functions torch.cosine_similarity and torch.pairwise_distance, as in PyTorch
from ..ops.linalg import cosine_similarity, pairwise_distance  # noqa: E402


# ---- normalization, embedding, dropout, bilinear --------------------------------------------

bilinear = _ops.bilinear
linear = _Signature("linear(Tensor input, Tensor weight, Tensor? bias=None)").bind(_linear)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def _verify_batch_size(size):
    size_prods = size[0]
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {size!r}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _norm.batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                            eps, True)


def _verify_spatial_size(size):
    size_prods = 1
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{size!r}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _norm.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                               momentum, eps, True)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _norm.rms_norm(input, normalized_shape, weight, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.size()[2:]))
    return _norm.group_norm(input, num_groups, weight, bias, eps, True)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        with _no_grad():
            _ops.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    out = _ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
    if sparse:
        raise NotImplementedError("embedding(sparse=True): chainrule has no sparse gradients")
    return out


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    if weight.dtype == _int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = _arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        with _no_grad():
            _ops.embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return _ops.embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse,
                              per_sample_weights, include_last_offset, padding_idx)[0]


_MAX_POOL3D_WITH_INDICES = _checker(
    "max_pool3d_with_indices(Tensor input, int[3] kernel_size, int[3]? stride=None, "
    "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False)")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(output, indices) of 3-D max pooling (return_indices is ignored, as in PyTorch)."""
    input.is_cuda      # noqa: B018  (read first by PyTorch's: an AttributeError for others)
    _MAX_POOL3D_WITH_INDICES(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops.max_pool3d_indices(input, kernel_size, () if stride is None else stride,
                                   padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _ops.max_pool3d(input, kernel_size, () if stride is None else stride, padding,
                           dilation, ceil_mode)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _ops.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = _ops.adaptive_max_pool1d(input, output_size)
    return out if return_indices else out[0]


_ADAPTIVE_MAX_POOL2D = _checker("adaptive_max_pool2d(Tensor input, int[2] output_size)")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    size = _list_with_default(output_size, input.size())
    _ADAPTIVE_MAX_POOL2D(input, size)
    size = _ops._int_list(size)
    return tuple(_ops.adaptive_max_pool2d(input, size * 2 if len(size) == 1 else size))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _ops.dropout_(input, p, training) if inplace else _ops.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    if inplace:
        return _ops.alpha_dropout_(input, p, training)
    return _ops.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    if inplace:
        return _ops.feature_alpha_dropout_(input, p, training)
    return _ops.feature_alpha_dropout(input, p, training)


def _feature_dropout(input, p, training, inplace):
    if inplace:
        return _ops.feature_dropout_(input, p, training)
    return _ops.feature_dropout(input, p, training)


def _unbatched_feature_dropout(input, p, training, inplace, batched):
    """feature_dropout of `input`, given a batch dim of 1 first when it has none."""
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _unbatched_feature_dropout(input, p, training, inplace, inp_dim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _unbatched_feature_dropout(input, p, training, inplace, inp_dim == 5)


# ---- convolution, folding (ops/conv.py) ---------------------------------------------------
from ..ops.conv import (conv3d, conv_tbc, conv_transpose1d, conv_transpose2d,  # noqa: E402
                        conv_transpose3d, fold, unfold)

__all__ += ["pairwise_distance"]
__all__ += ["conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "fold", "unfold"]


# ---- interpolation, grid sampling, CTC (ops/sampling.py) ------------------------------------
from ..ops.conv import adaptive_avg_pool3d  # noqa: E402
from ..ops.sampling import (affine_grid, functional_ctc_loss as ctc_loss,  # noqa: E402
                            grid_sample, interpolate, upsample, upsample_bilinear,
                            upsample_nearest)

__all__ += ["adaptive_avg_pool3d", "affine_grid", "ctc_loss", "grid_sample", "interpolate",
            "upsample", "upsample_bilinear", "upsample_nearest"]


# ---- 3-D, fractional, power-average pooling and unpooling (ops/conv.py) ---------------------
from ..ops.conv import (adaptive_max_pool3d, adaptive_max_pool3d_with_indices,  # noqa: E402
                        avg_pool3d, fractional_max_pool2d, fractional_max_pool2d_with_indices,
                        fractional_max_pool3d, fractional_max_pool3d_with_indices, lp_pool1d,
                        lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d, max_unpool3d)

__all__ += ["adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool3d",
            "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
            "fractional_max_pool3d", "fractional_max_pool3d_with_indices", "lp_pool1d",
            "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]


# ---- hardtanh, relu6, hardsigmoid, hardswish, mish, softshrink, glu (rows of ops/nn_ops.py);
# softsign, tanhshrink, softmin, gumbel_softmax composed as PyTorch composes them --------------
from .._creation import empty_like as _empty_like, ones_like as _ones_like  # noqa: E402
from .._creation import zeros_like as _zeros_like  # noqa: E402
from .._tensor import legacy_contiguous_format as _legacy_contiguous  # noqa: E402
from ..autograd import grad_mode as _grad_mode  # noqa: E402
from ..ops.linalg import pdist  # noqa: E402,F401
from ..ops.registry import FUNCTIONS as _FUNCTIONS  # noqa: E402


_HARDTANH = _checker("hardtanh(Tensor input, Scalar min_val=-1, Scalar max_val=1)")
_RELU6 = _checker("relu6(Tensor input)")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    _HARDTANH(input, min_val, max_val)
    if inplace:
        return _ops._inplace(_ops.hardtanh, input, min_val, max_val)
    return _ops.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _ops._inplace(_ops.hardtanh, input, min_val, max_val)


def relu6(input, inplace=False):
    # at::relu6 is hardtanh(0, 6) (HardtanhBackward0)
    _RELU6(input)
    return hardtanh(input, 0, 6, inplace)


def _unary(row):
    def f(input, inplace=False):
        return _ops._inplace(row, input) if inplace else row(input)
    f.__name__ = f.__qualname__ = row.__name__
    return f


hardsigmoid = _unary(_ops.hardsigmoid)
hardswish = _unary(_ops.hardswish)
mish = _unary(_ops.mish)


@_Signature("softshrink(Tensor input, Scalar lambd=0.5)").bind
def softshrink(input, lambd=0.5):
    return _ops.softshrink(input, _number(lambd))


_GLU = _checker("glu(Tensor input, int dim=-1)")


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    _GLU(input, dim)
    return _ops.glu(input, dim)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_empty_like(logits, memory_format=_legacy_contiguous).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    # straight through: the one-hot of the argmax, with y_soft's gradient
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _zeros_like(logits, memory_format=_legacy_contiguous).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input "
                         f"(got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# ---- soft margin, multi margin, multilabel, gaussian NLL and triplet-with-distance losses -----

def _no_grad_target(fn, target):
    if _grad_mode.state.grad_enabled and target.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument "
                           "'target'. This input cannot have requires_grad True.")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    _SOFT_MARGIN_LOSS(input, target, _ENUM[reduction])
    _no_grad_target("soft_margin_loss", target)
    return _ops.soft_margin_loss(input, target, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _MULTI_MARGIN_LOSS(input, target, p, margin, weight, _ENUM[reduction])
    return _ops.multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(reduction, size_average, reduce)
    _MULTILABEL_MARGIN_LOSS(input, target, _ENUM[reduction])
    return _ops.multilabel_margin_loss(input, target, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _ones_like(input)
    elif _FUNCTIONS["any"](var < 0):     # torch.any: its TypeError for a number
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        # one dimension short (homoscedastic), or one mismatched dimension of size 1
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(
                y for x, y in zip(input.size(), var.size(), strict=True) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a_dim}D, positive "
                           f"{p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _FUNCTIONS["minimum"](dist_neg, distance_function(positive, negative))
    loss = _FUNCTIONS["clamp_min"](margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return loss.sum()
    return loss.mean() if reduction == "mean" else loss


def assert_int_or_pair(arg, arg_name, message):
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

__all__ += ["hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "mish", "softshrink",
            "glu", "softsign", "tanhshrink", "softmin", "gumbel_softmax", "local_response_norm",
            "pdist", "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
            "multilabel_soft_margin_loss", "gaussian_nll_loss",
            "triplet_margin_with_distance_loss"]

from . import grad  # noqa: E402,F401  (torch.nn.functional.grad is torch.nn.grad)
from .modules.utils import _list_with_default  # noqa: E402  (the layers' helper)


# ---- linear_cross_entropy: cross_entropy of linear's logits (the chunked path when options
# are given: nn/modules/linear_cross_entropy.py) --------------------------------------------

def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    from .modules.linear_cross_entropy import _chunked
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = input.shape[:-1]
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = linear_weight.shape[1:-1]
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(out_features) > 0 and len(num_batches) == 0:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    # cross_entropy takes a target of the logits' shape for probabilities
    if target.shape == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    chunkable = (not out_features and reduction in {"mean", "sum", "none"}
                 and label_smoothing == 0.0 and target.dtype == _int64)
    if options is not None and not chunkable:
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features "
            f"== (). Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={tuple(out_features)}, tracing=False, "
            "linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    if options is not None and chunkable:
        has_batches = input.dim() == 2
        if not has_batches:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        options = options._adjust(num_batches=input.shape[0], in_features=in_features,
                                  num_classes=num_classes, dtype=input.dtype,
                                  device=input.device)
        result = _chunked(input, linear_weight, target, linear_bias, weight, reduction,
                          ignore_index, options)
        return result if has_batches else result.squeeze(0)
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


__all__ += ["linear_cross_entropy"]


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Matmuls of groups: 3-d operands batch them, `offs` cuts a 2-d operand."""
    return _FUNCTIONS["_grouped_mm"](mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)


__all__ += ["grouped_mm"]


# ---- scaled_mm (torch._scaled_mm_v2): float8 matmul with tensor-wise or row-wise scales -----

class _ScalingType(enum.Enum):
    TensorWise = 0
    RowWise = 1
    BlockWise1x16 = 2
    BlockWise1x32 = 3
    BlockWise1x128 = 4
    BlockWise128x128 = 5


class _SwizzleType(enum.Enum):
    NO_SWIZZLE = 0
    SWIZZLE_32_4_4 = 1


_ScalingType.__module__ = _SwizzleType.__module__ = "torch.nn.functional"
ScalingType, SwizzleType = _ScalingType, _SwizzleType


def _one_or_list(value):
    return value if isinstance(value, list) else [value]


def _sizes(t):
    return list(t.shape)


def _check_row_scale(name, scale, rows, cols):
    scale.size(1)     # PyTorch reads dim 1 first (an IndexError for fewer dims)
    if name == "scale_a" and _sizes(scale) != [rows, cols]:
        raise ValueError(f"scale_a must have shape [{rows}, {cols}], got [{_sizes(scale)}]")
    if name == "scale_b" and scale.numel() != cols:
        raise ValueError(f"scale_b must have {cols} {scale.dtype.legacy} elements, got "
                         f"{scale.numel()}")
    if scale.stride(1) != 1:
        raise ValueError(f"expected {name}.stride(1) to be 1, but got {scale.stride(1)}")


def scaled_mm(mat_a, mat_b, scale_a, scale_recipe_a, scale_b, scale_recipe_b, swizzle_a=None,
              swizzle_b=None, bias=None, output_dtype=_bfloat16, contraction_dim=(),
              use_fast_accum=False):
    """(mat_a * scale_a) @ (mat_b * scale_b) (+ bias) of float8 matrices, in output_dtype
    (mat_a's when None): tensor-wise (one scale each) or row-wise (a scale per row of mat_a
    and per column of mat_b) scaling, as PyTorch's CPU kernel; swizzles, contraction_dim and
    use_fast_accum change nothing on the CPU."""
    scale_a, scale_b = _one_or_list(scale_a)[0], _one_or_list(scale_b)[0]
    recipe_a, recipe_b = _one_or_list(scale_recipe_a)[0], _one_or_list(scale_recipe_b)[0]
    for name, mat in (("mat_a", mat_a), ("mat_b", mat_b)):
        if mat.dim() != 2:
            raise ValueError(f"{name} must be a matrix")
    (m, k), (k2, n) = mat_a.shape, mat_b.shape
    if k != k2:
        raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({m}x{k} and {k2}x{n})")
    float8 = all(t.dtype.is_floating_point and t.dtype.itemsize == 1 for t in (mat_a, mat_b))
    float_scales = scale_a.dtype == _float32 and scale_b.dtype == _float32
    recipes = (recipe_a, recipe_b)
    if float8 and float_scales and recipes == (_ScalingType.RowWise, _ScalingType.RowWise):
        _check_row_scale("scale_a", scale_a, m, 1)
        _check_row_scale("scale_b", scale_b, 1, n)
    elif not (float8 and float_scales and recipes == (_ScalingType.TensorWise,) * 2
              and scale_a.numel() == 1 and scale_b.numel() == 1):
        def described(name, t):
            return f"{name}.size()={_sizes(t)}, {name}.stride()={list(t.stride())}"
        raise ValueError(
            "Invalid scaling configuration.\n- For TensorWise scaling, a and b should be "
            "float8, scales should be float and singletons.\n- For RowWise scaling, a and b "
            "should be float8, scales should be float, scale_a should be "
            f"({m}, 1) and scale_b should be (1, {n}), and both should be contiguous.\nGot "
            f"mat_a.dtype()={mat_a.dtype.legacy}, scale_a.dtype()={scale_a.dtype.legacy}, "
            f"{described('scale_a', scale_a)}, mat_b.dtype()={mat_b.dtype.legacy}, "
            f"scale_b.dtype()={scale_b.dtype.legacy}, scale_b.size()={_sizes(scale_b)} and "
            f"scale_b.stride()={list(scale_b.stride())}")
    a, b = (np.asarray(t._data, np.float32) for t in (mat_a, mat_b))
    out = (a @ b) * scale_a._data.reshape(-1, 1)[:m] * scale_b._data.reshape(1, -1)
    if bias is not None:
        out = out + np.asarray(bias._data, np.float32)
    result = make_tensor(out.astype(np.float32)).to(
        mat_a.dtype if output_dtype is None else output_dtype)
    attach_not_implemented("_scaled_mm_v2", (result,),
                           [t for t in (mat_a, mat_b, scale_a, scale_b, bias) if t is not None])
    return result


__all__ += ["scaled_mm", "ScalingType", "SwizzleType"]
