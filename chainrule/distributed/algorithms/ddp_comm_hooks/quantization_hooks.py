"""Communication hooks that send gradients as 8-bit integers (uint8, affine: x ~ scale *
(q - zero_point)), by all-gather: each rank picks its scale and zero point from its own
gradients' range (as PyTorch's MinMaxObserver does), the ranks exchange them, then their
quantized gradients, and every rank dequantizes all of them and averages.

These follow PyTorch's hooks as they run on NCCL; on its CPU backends PyTorch's own fail (they
index all_gather's future value as NCCL returns it)."""
import numpy as np

from .... import distributed as dist
from ...._tensor import make_tensor

__all__ = ["quantization_pertensor_hook", "quantization_perchannel_hook"]

_QMAX = 255
_EPS = np.finfo(np.float32).eps


def _qparams(rows):
    """Scale and zero point of each row of a 2-D float32 array: its range widened to hold 0,
    spread over 0..255."""
    low = np.minimum(rows.min(axis=1), 0).astype(np.float32)
    high = np.maximum(rows.max(axis=1), 0).astype(np.float32)
    scale = np.maximum((high - low) / np.float32(_QMAX), _EPS).astype(np.float32)
    zero = np.clip(-np.round(low / scale), 0, _QMAX)
    return scale, zero.astype(np.float32)


def _quantize(rows, scale, zero):
    return np.clip(np.round(rows / scale[:, None]) + zero[:, None], 0, _QMAX).astype(np.uint8)


def _exchange_and_average(group, rows, length):
    """All-gather every rank's quantization parameters, then its quantized rows; a future of
    the average of every rank's dequantized rows, flattened and cut to `length`."""
    size = group.size()
    scale, zero = _qparams(rows)
    params = make_tensor(np.stack([scale, zero]))
    gathered = [make_tensor(np.zeros_like(params._data)) for _ in range(size)]
    fut = dist.all_gather(gathered, params, group=group, async_op=True).get_future()

    def quantize_and_gather(fut):
        mine = make_tensor(_quantize(rows, scale, zero))
        everyone = [make_tensor(np.zeros_like(mine._data)) for _ in range(size)]
        return dist.all_gather(everyone, mine, group=group, async_op=True).get_future().wait()

    def dequantize_and_average(fut):
        total = np.zeros(rows.shape, np.float32)
        for q, p in zip(fut.value(), gathered):
            s, z = p._data
            total += s[:, None] * (q._data.astype(np.float32) - z[:, None])
        return make_tensor(total.reshape(-1)[:length] / np.float32(size))
    return fut.then(quantize_and_gather).then(dequantize_and_average)


def _group(process_group):
    return process_group if process_group is not None else dist.group.WORLD


def quantization_pertensor_hook(process_group, bucket):
    """The bucket as uint8 with one scale and zero point per rank (all-gather, which is much
    slower than all-reduce); a future of the averaged float32 gradients."""
    flat = np.asarray(bucket.buffer()._data, np.float32)
    return _exchange_and_average(_group(process_group), flat[None], flat.size)


def quantization_perchannel_hook(process_group, bucket, bucket_size=512):
    """The bucket cut into rows of bucket_size numbers (zero-padded, always by at least one
    number, as PyTorch pads), each row quantized with its own scale and zero point: finer for
    large buckets."""
    flat = np.asarray(bucket.buffer()._data, np.float32)
    pad = bucket_size - flat.size % bucket_size
    rows = np.concatenate([flat, np.zeros(pad, np.float32)]).reshape(-1, bucket_size)
    return _exchange_and_average(_group(process_group), rows, flat.size)
