"""Custom autograd Functions behind modules, as PyTorch's torch/nn/modules/_functions.py:
CrossMapLRN2d (its node is CrossMapLRN2dBackward)."""
import numpy as np

from ..._tensor import make_tensor
from ...autograd import Function


def _cross_map_scale(sq, size, alpha, k):
    """PyTorch's running window over channels (dim 1) of the squares: the first map sums the
    first pre_pad maps, each next one adds the map pre_pad - 1 ahead and, past pre_pad, drops
    the map pre_pad behind."""
    channels = sq.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    steps = np.zeros_like(sq)
    steps[:, 0] = sq[:, :min(pre_pad, channels)].sum(1)
    c = np.arange(1, channels)
    add = c[c < channels - pre_pad + 1]
    steps[:, add] += sq[:, add + pre_pad - 1]
    drop = c[c > pre_pad]
    steps[:, drop] -= sq[:, drop - pre_pad]
    return np.cumsum(steps, 1) * (alpha / size) + k


class CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        x = input.detach()._data
        ctx.scale = _cross_map_scale(x * x, size, alpha, k).astype(x.dtype)
        output = make_tensor(ctx.scale ** -beta * x)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        x, out, g, scale = input._data, output._data, grad_output._data, ctx.scale
        size = ctx.size
        # ratio = g * out / scale, padded so that channel c reads the window starting at c
        inverse_pre_pad = int(size - (size - 1) / 2)
        n, channels = x.shape[:2]
        padded = np.zeros((n, channels + size - 1) + x.shape[2:], x.dtype)
        padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * out / scale
        sums = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, 1)], 1)
        accum = sums[:, size:size + channels] - sums[:, :channels]
        grad = scale ** -ctx.beta * g - (2 * ctx.alpha * ctx.beta / size) * x * accum
        return make_tensor(grad.astype(x.dtype)), None, None, None, None
