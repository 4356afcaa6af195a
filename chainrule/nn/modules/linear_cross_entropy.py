"""linear_cross_entropy's options (LinearCrossEntropyOptions, PyTorch's
linear_cross_entropy_options.py) and its chunked path. PyTorch's chunked custom ops compute
the loss (and, reduced, the gradients) chunk by chunk to bound memory; chainrule computes the
same values in one pass through the reference composition, and records PyTorch's nodes: the
reduced op precomputes the gradients in forward and its backward scales them (once, unless
allow_retain_graph), the unreduced op recomputes them in backward."""
import dataclasses
from typing import Literal, NamedTuple

from ... import _dtype
from ...autograd import Function, enable_grad
from ...autograd import grad as _grad

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


_AUTO_DEFAULTS = {
    ("cuda", _dtype.bfloat16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", _dtype.float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", _dtype.bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", _dtype.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How linear_cross_entropy chunks the batch and accumulates (chainrule keeps the
    resolved values; its results do not depend on them)."""
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                   and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        supported = {_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64}
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                "pick automatically.")

    @staticmethod
    def _ceil_div(a, b):
        return -(-a // b)

    @staticmethod
    def _resolve_auto_acc_dtype(dtype, device):
        if device is None or dtype not in (_dtype.float16, _dtype.bfloat16):
            return None
        return _dtype.float32 if device.type == "cpu" else None

    def _compute_batch_chunk_size(self, num_batches, in_features, num_classes, method=None):
        method = str(method if method is not None else self.chunking_method)
        if method.startswith("aspect_ratio"):
            factor = int(method.split(":", 1)[1]) if ":" in method else 1
            inc_factor = self._ceil_div(num_classes, in_features)
            target = self._ceil_div(num_batches, inc_factor)
            chunk_size = 1 << (target - 1).bit_length()    # the next power of 2 >= target
            return min(chunk_size // factor, num_batches)
        raise AssertionError(f"unhandled chunking_method: {method!r}")

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """These options with 'auto' resolved for a problem of this size and dtype."""
        acc_policy = self.acc_policy
        chunking_method = self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None
        if acc_policy == "auto" or chunking_method == "auto":
            ap, cm = (_AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK)
                      if device is not None else _AUTO_FALLBACK)
            if acc_policy == "auto":
                acc_policy = ap
            if chunking_method == "auto":
                chunking_method = cm
        if self.batch_chunk_size is None:
            batch_chunk_size = num_batches
        else:
            batch_chunk_size = min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(num_batches, in_features,
                                                              num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{chunking_method}') give different chunk sizes "
                    f"({self.batch_chunk_size} vs {batch_chunk_size}); pass only one.")
        if self.acc_dtype is None:
            auto_acc = (self._resolve_auto_acc_dtype(dtype, device)
                        if self.acc_policy == "auto" else None)
            acc_dtype = auto_acc if auto_acc is not None else dtype
        else:
            acc_dtype = self.acc_dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, batch_chunk_size),
                                   acc_dtype=acc_dtype)


LinearCrossEntropyOptions.__module__ = "torch.nn.modules.linear_cross_entropy_options"


def _loss_and_grads(input, linear_weight, target, linear_bias, weight, reduction,
                    ignore_index, needs, grad_output=None):
    """The reference loss of detached copies and, where `needs` says, the gradients of
    (loss * grad_output).sum() for input, linear_weight and linear_bias."""
    from .. import functional as F
    with enable_grad():
        leaves = [None if t is None else t.detach().requires_grad_(need)
                  for t, need in zip((input, linear_weight, linear_bias), needs)]
        logits = F.linear(leaves[0], leaves[1], leaves[2])
        loss = F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                               ignore_index=ignore_index)
        wanted = [t for t, need in zip(leaves, needs) if need]
        grads = iter(_grad(loss, wanted, grad_output) if wanted else ())
    return loss.detach(), [next(grads) if need else None for need in needs]


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):
    """PyTorch's torch_nn::_linear_cross_entropy_batch_chunked (mean or sum)."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, reduction,
                ignore_index, allow_retain_graph):
        needs = (ctx.needs_input_grad[0], ctx.needs_input_grad[1],
                 linear_bias is not None and ctx.needs_input_grad[3])
        loss, ctx._grads = _loss_and_grads(input, linear_weight, target, linear_bias, weight,
                                           reduction, ignore_index, needs)
        ctx.allow_retain_graph = allow_retain_graph
        ctx._consumed = False
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.allow_retain_graph:
            # the precomputed gradients are scaled in place: one backward only
            if ctx._consumed:
                raise RuntimeError("linear_cross_entropy chunked backward called twice; "
                                   "retain_graph=True / double backward are not supported.")
            ctx._consumed = True
        gi, gw, gb = (None if g is None else g * grad_output if ctx.allow_retain_graph
                      else g.mul_(grad_output) for g in ctx._grads)
        return gi, gw, None, gb, None, None, None, None


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(
        Function):
    """PyTorch's torch_nn::_linear_cross_entropy_batch_chunked_no_reduction."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, ignore_index):
        ctx.save_for_backward(input.detach(), linear_weight.detach(), target,
                              None if linear_bias is None else linear_bias.detach(),
                              None if weight is None else weight.detach())
        ctx._ignore_index = ignore_index
        return _loss_and_grads(input, linear_weight, target, linear_bias, weight, "none",
                               ignore_index, (False, False, False))[0]

    @staticmethod
    def backward(ctx, grad_output):
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        wanted = (needs[0], needs[1], linear_bias is not None and needs[3])
        grads = _loss_and_grads(input, linear_weight, target, linear_bias, weight, "none",
                                ctx._ignore_index, wanted, grad_output)[1]
        return grads[0], grads[1], None, grads[2], None, None


_REDUCED = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default
_UNREDUCED = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
             options):
    """PyTorch's chunked path (options given): its nodes, the reference's values."""
    if reduction == "none":
        return _UNREDUCED.apply(input, linear_weight, target, linear_bias, weight, ignore_index)
    return _REDUCED.apply(input, linear_weight, target, linear_bias, weight, reduction,
                          ignore_index, options.allow_retain_graph)
