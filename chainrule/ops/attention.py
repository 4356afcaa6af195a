"""Attention ops: `_safe_softmax` (the math path of scaled_dot_product_attention) and the CPU
flash-attention kernel PyTorch's CPU build picks when its constraints hold
(`_scaled_dot_product_flash_attention_for_cpu`, whose backward has no derivative)."""
import math

import numpy as np

from .nn_ops import _along, _softmax_array, _softmax_kernel, softmax_backward_data
from .binding import Signature
from .registry import NOT_IMPLEMENTED, no_derivative, op


def _safe_softmax_array(a, axis):
    # a row whose every score is -inf (fully masked) gives zeros instead of NaN
    return np.where(np.isneginf(a).all(axis, keepdims=True), 0, _softmax_array(a, axis))


_softmax_then_mask = _softmax_kernel("softmax", _safe_softmax_array)


def _safe_softmax(a, axis):
    """softmax's kernel (its dtype errors, half computed in float32), then the masking, whose
    isneginf refuses what softmax let through without a kernel: an empty complex input."""
    out = _softmax_then_mask(a, axis)
    if a.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return out


safe_softmax = op("_safe_softmax", "SafeSoftmaxBackward0", "self, dim",
                  _along(_safe_softmax), function=False, method=False,
                  self=lambda grad, result, dim: softmax_backward_data(grad, result, dim))
# Note [Argument parser checks]
safe_softmax = Signature("_safe_softmax(Tensor input, int dim, ScalarType? dtype=None)").bind(
    safe_softmax)


# ---- CPU flash attention --------------------------------------------------------------------

def _compute_dtype(a):
    # the kernel accumulates half and bfloat16 in float32, as PyTorch's (accum_t)
    return np.float32 if a.dtype.itemsize < 4 else a.dtype.type


def _bmm(a, b):
    """a @ b over equal batch dimensions, as one 3-D matmul (NumPy's 4-D matmul of a
    transposed operand misses BLAS and is hundreds of times slower)."""
    out = np.matmul(a.reshape(-1, *a.shape[-2:]), b.reshape(-1, *b.shape[-2:]))
    return out.reshape(*a.shape[:-1], b.shape[-1])


def _scores(q, k, mask, is_causal, scale):
    """Scaled scores with the causal (top-left) and additive/boolean masks, key heads repeated
    for grouped-query attention; the float dtype they are computed in."""
    dt = _compute_dtype(q)
    q, k = q.astype(dt, copy=False), k.astype(dt, copy=False)
    k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = _bmm(q, np.swapaxes(k, -1, -2))
    if is_causal:
        # the kernel masks before scaling (so a negative scale turns -inf into +inf: NaN rows,
        # as PyTorch's), the attention mask after
        scores = np.where(np.tri(*scores.shape[-2:], dtype=bool), scores, -np.inf)
    with np.errstate(invalid="ignore"):
        scores = scores * dt(s)
    if mask is not None:
        if mask.dtype == np.bool_:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = scores + mask.astype(dt)
    return scores, dt(s)


def _group_sum(g, heads):
    """Gradients of repeated key/value heads summed back onto each shared head."""
    b = g.shape[:-3]
    return g.reshape(*b, heads, g.shape[-3] // heads, *g.shape[-2:]).sum(-3)


def _flash_forward(q, k, v, mask, dropout_p, is_causal, scale):
    scores, _ = _scores(q, k, mask, is_causal, scale)
    m = scores.max(-1, keepdims=True)
    # a fully masked row (max -inf) gets zeros; a +inf score makes the row NaN, lse too
    m = np.where(np.isneginf(m), 0, m)
    e = np.exp(scores - m)
    total = e.sum(-1, keepdims=True)
    v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3).astype(scores.dtype, copy=False)
    with np.errstate(divide="ignore"):
        out = _bmm(e / np.where(total == 0, 1, total), v)
        lse = (m + np.log(total))[..., 0]
    # the output takes the query's memory layout, as PyTorch's kernel allocates it
    result = np.empty_like(q)
    result[...] = out
    return result, lse.astype(scores.dtype)


def _flash_backward(g, q, k, v, out, lse, mask, dropout_p, is_causal, scale, output_mask):
    scores, s = _scores(q, k, mask, is_causal, scale)
    dt = scores.dtype
    reps = q.shape[-3] // k.shape[-3]
    g = g.astype(dt, copy=False)
    lse = lse[..., None]
    p = np.where(np.isneginf(lse), 0, np.exp(scores - np.where(np.isneginf(lse), 0, lse)))
    if is_causal:     # the kernel fills the keys after the diagonal with 0, even for a NaN lse
        p = np.where(np.tri(*p.shape[-2:], dtype=bool), p, 0)
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    if output_mask[2]:
        dv = _group_sum(_bmm(np.swapaxes(p, -1, -2), g), v.shape[-3]).astype(v.dtype)
    if output_mask[0] or output_mask[1]:
        vr = np.repeat(v, reps, axis=-3).astype(dt, copy=False)
        dp = _bmm(g, np.swapaxes(vr, -1, -2))
        # the kernel's rowsum(g * out) is rowsum(p * dp) (out = p @ v): taken from dp, a row
        # whose softmax is one-hot (a huge score) cancels exactly, as in exact arithmetic,
        # where rounding residues of two summation orders times the huge query would remain;
        # a half out was rounded, and the kernel reads it
        d = (p * dp if dt == out.dtype else g * out.astype(dt)).sum(-1, keepdims=True)
        ds = p * (dp - d)
        if output_mask[0]:
            kr = np.repeat(k, reps, axis=-3).astype(dt, copy=False)
            dq = (_bmm(ds, kr) * s).astype(q.dtype)
        if output_mask[1]:
            dk = _bmm(np.swapaxes(ds, -1, -2), q.astype(dt, copy=False)) * s
            dk = _group_sum(dk, k.shape[-3]).astype(k.dtype)
    return dq, dk, dv


_FLASH_BW = "aten::_scaled_dot_product_flash_attention_for_cpu_backward"

flash_attention_for_cpu_backward = op(
    "_scaled_dot_product_flash_attention_for_cpu_backward", NOT_IMPLEMENTED,
    "grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask=None, "
    "scale=None, output_mask=(True, True, True)", _flash_backward,
    inputs=("grad_out", "query", "key", "value", "out", "logsumexp", "attn_mask"),
    returns=("grad_query", "grad_key", "grad_value"), function=False, method=False,
    grad_out=no_derivative(_FLASH_BW), query=no_derivative(_FLASH_BW),
    key=no_derivative(_FLASH_BW), value=no_derivative(_FLASH_BW),
    out=no_derivative(_FLASH_BW), logsumexp=None, attn_mask=None)


# Note [One flash backward per node]
# PyTorch computes the three gradients in one backward kernel; a row has one formula per
# input. The first of the node's formulas to run computes every gradient an input requiring
# grad needs (output_mask, chainrule's addition to PyTorch's signature, as
# native_layer_norm_backward's) and leaves them in `shared` for the others.
def _flash_grad(i):
    def formula(grads, shared, query, key, value, result0, result1, attn_mask, dropout_p,
                is_causal, scale):
        out = shared.get("flash")
        if out is None:
            mask = tuple(j == i or t.requires_grad for j, t in enumerate((query, key, value)))
            out = shared["flash"] = flash_attention_for_cpu_backward(
                grads[0], query, key, value, result0, result1, dropout_p, is_causal,
                attn_mask=attn_mask, scale=scale, output_mask=mask)
        return out[i]
    return formula


flash_attention_for_cpu = op(
    "_scaled_dot_product_flash_attention_for_cpu", "ScaledDotProductFlashAttentionForCpuBackward0",
    "query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None",
    _flash_forward, inputs=("query", "key", "value", "attn_mask"),
    returns=("output", "logsumexp"), differentiable_outputs=(0,), function=False,
    method=False, query=_flash_grad(0), key=_flash_grad(1), value=_flash_grad(2),
    attn_mask=None)
