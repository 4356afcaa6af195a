"""nn.functional.scaled_dot_product_attention and multi_head_attention_forward, as PyTorch's
CPU build computes them: the CPU flash kernel when its constraints hold, otherwise the math
composition (whose grad_fn graph is PyTorch's); MHA's Python as in torch.nn.functional."""
import math
import warnings

import chainrule as _torch
from ..._dtype import bfloat16, bool as _bool, float16, float32, float64
from ...backends import cuda as _cuda
from ...ops import attention as _attention
from ...ops import nn_ops as _nn_ops
from ...ops.binding import Signature
from .. import functional as F
from .bias import CausalBias

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _validate(query, key, value, attn_mask):
    """PyTorch's validate_sdpa_input."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype.cpp} key.dtype: {key.dtype.cpp} and value.dtype: {value.dtype.cpp} "
            "instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if attn_mask is not None and attn_mask.dtype not in (_bool, float32, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {attn_mask.dtype.cpp} and  query.dtype: {query.dtype.cpp} "
            "instead.")


_MASK_SHAPES = ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x "
                "{KV_seq_len, 1}); 4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x "
                "{KV_seq_len, 1})")
_BROADCAST = (" instead. To broadcast dense inputs, try using unsqueeze and expand_to before "
              "passing them into the kernel.")
_SILENT = ""            # a failed check PyTorch does not explain


def _sizes(t):
    return "[" + ", ".join(map(str, t.shape)) + "]"


def _mask_check(query, key, mask):
    """PyTorch's check_attn_mask_shape (sizes read as it reads them: a 1-D mask raises)."""
    if mask is None:
        return None
    if mask.requires_grad:
        return _SILENT
    if mask.size(-2) not in (query.size(2), 1) or mask.size(-1) not in (key.size(2), 1):
        return _SILENT
    if mask.dim() == 2 or (mask.dim() == 4 and mask.size(0) in (1, query.size(0))
                           and mask.size(1) in (1, query.size(1))):
        return None
    return _MASK_SHAPES


def _heads_check(query, key, value, enable_gqa):
    """PyTorch's check_batch_size_and_num_heads_dense<supports GQA>."""
    q, k, v = query, key, value
    if not q.size(0) == k.size(0) == v.size(0):
        return ("For dense inputs, both fused kernels require query, key and value to have the "
                f"same batch_size. Query.sizes(): {_sizes(q)}, Key.sizes(): {_sizes(k)}, "
                f"Value.sizes(): {_sizes(v)}" + _BROADCAST)
    hq, hk, hv = q.size(-3), k.size(-3), v.size(-3)
    if enable_gqa:
        if hk != hv:
            return ("Both fused kernels require key and value to have the same num_heads and "
                    f"batch_size but got: Key sizes: {_sizes(k)}, Value sizes: {_sizes(v)}, "
                    f"Query sizes: {_sizes(q)} instead.")
        if hq % hk != 0:
            return ("The number of heads in key/value must divide number of heads in query."
                    "Got input Key "
                    f"sizes(): {hk}, Value sizes(): {hv}, Query sizes(): {hq} instead.")
        return None
    if not hq == hk == hv:
        return ("For dense input, both fused kernels require query, key and value to have the "
                f"same num_heads. Query.sizes(): {_sizes(q)}, Key sizes(): {_sizes(k)}, Value "
                f"sizes(): {_sizes(v)}" + _BROADCAST)
    return None


def _flash_refusal(query, key, value, mask, dropout_p, enable_gqa):
    """Why the CPU flash kernel cannot run (None if it can), PyTorch's use_flash_attention_cpp
    checks in order, each worded as its debug warning."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if not query.dim() == key.dim() == value.dim() == 4:
        return ("All fused kernels requires query, key and value to be 4 dimensional, but got "
                f"Query dim: {query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} "
                "instead.")
    why = (_heads_check(query, key, value, enable_gqa)
           or _mask_check(query, key, mask))
    if why is not None:
        return why
    if not query.size(-1) == key.size(-1) == value.size(-1):
        return ("Flash attention requires q,k,v to have the same last dimension. Got "
                f"Query.size(-1): {query.size(-1)}, Key.size(-1): {key.size(-1)}, "
                f"Value.size(-1): {value.size(-1)} instead.")
    if not all(t.stride(-1) == 1 for t in (query, key, value)):
        extra = "" if mask is None else (
            f", Attn_mask.stride(-1): {mask.stride(-1)} (GPU backends require attn_mask's last "
            "dimension to have stride 1 while the CPU does not).")
        return ("All fused kernels require the last dimension of the input to have stride 1. "
                f"Got Query.stride(-1): {query.stride(-1)}, Key.stride(-1): {key.stride(-1)}, "
                f"Value.stride(-1): {value.stride(-1)}{extra}")
    if query.dtype not in (float32, float64, bfloat16, float16):
        return ("Expected query, key and value to all be of dtype: {Float, Double, BFloat16, "
                f"Half}}. Got Query dtype: {query.dtype.cpp}, Key dtype: {key.dtype.cpp}, and "
                f"Value dtype: {value.dtype.cpp} instead.")
    return None


def _select_backend(query, key, value, mask, dropout_p, enable_gqa):
    """'flash' or 'math', as PyTorch's select_sdp_backend_cpp; with only the flash kernel
    enabled and refused, its warnings and error."""
    flash, math_ = _cuda.flash_sdp_enabled(), _cuda.math_sdp_enabled()
    if not flash and not math_:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    why = _flash_refusal(query, key, value, mask, dropout_p, enable_gqa) if flash else _SILENT
    if why is None:
        return "flash"
    if math_:
        return "math"
    warnings.warn("Flash attention kernel not used because:", stacklevel=3)
    if why:
        warnings.warn(why, stacklevel=3)
    raise RuntimeError("No available kernel.  Aborting execution.")


def _additive_mask(mask, dtype):
    """A boolean mask as PyTorch's convert_boolean_attn_mask: 0 where True, -inf elsewhere."""
    if mask is None or mask.dtype != _bool:
        return mask
    return _torch.zeros_like(mask, dtype=dtype).masked_fill_(mask.logical_not(), -math.inf)


def _gqa(query, key, value, enable_gqa):
    """Key and value heads repeated to query's (PyTorch's
    pre_process_group_query_attention_input)."""
    if not enable_gqa:
        return key, value
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    if hq % hk != 0 or hq % hv != 0:
        # PyTorch's message, cut short as it is
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if hq == hk == hv:
        return key, value
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """PyTorch's _scaled_dot_product_attention_math, op for op."""
    origin = query.dtype
    if origin in (float16, bfloat16):
        # intermediates kept in float32
        query, key, value = query.to(float32), key.to(float32), value.to(float32)
    negative = scale is not None and scale < 0.0
    if scale is None:
        # C++'s 1 / sqrt(0) is inf
        softmax_scale = 1.0 / math.sqrt(query.size(-1)) if query.size(-1) else math.inf
    else:
        softmax_scale = abs(scale)
    factor = math.sqrt(softmax_scale)
    query = _nn_ops.mul_scalar(query, 0.0 - factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
        L, S = query.size(-2), key.size(-2)
        attn_mask = _additive_mask(_torch.ones(L, S, dtype=_bool).tril(), query.dtype)
    key, value = _gqa(query, key, value, enable_gqa)
    attn = _torch.matmul(query, _nn_ops.mul_scalar(key.transpose(-2, -1), factor))
    if attn_mask is not None:
        attn.add_(attn_mask)
    attn = _attention.safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = _nn_ops.dropout(attn, dropout_p, True)
    return _torch.matmul(attn, value).to(origin)


# Note [Argument parser checks]
@Signature("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
           "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, "
           "float? scale=None, bool enable_gqa=False)").bind
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False):
    """Attention softmax(q k^T * scale + mask) v, with PyTorch's CPU choice of kernel: the
    flash kernel (ScaledDotProductFlashAttentionForCpuBackward0) or the math composition."""
    if isinstance(attn_mask, CausalBias):
        # a causal bias chooses its own call (PyTorch's CausalBias.__torch_function__)
        return attn_mask._dispatch(query, key, value, attn_mask, dropout_p, is_causal,
                                   scale=scale, enable_gqa=enable_gqa)
    _validate(query, key, value, attn_mask)
    out_shape = tuple(query.shape[:-1]) + (value.size(-1),)
    if value.numel() == 0 or query.size(-2) == 0:
        # nothing to attend to or no query: zeros still connected to every input, as
        # PyTorch's (other empty inputs take the kernels, and their shape checks)
        total = query.sum() + key.sum() + value.sum()
        return _torch.zeros(out_shape, dtype=query.dtype) + _nn_ops.mul_scalar(total, 0)
    backend = _select_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    attn_mask = _additive_mask(attn_mask, query.dtype)
    if backend == "flash":
        return _attention.flash_attention_for_cpu(query, key, value, float(dropout_p),
                                                  is_causal, attn_mask=attn_mask,
                                                  scale=scale)[0]
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


# ---- multi-head attention -------------------------------------------------------------------

def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by one packed (3E, E) weight; self- and encoder-decoder attention
    project once and split, as PyTorch's."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv_proj = F.linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
        kv_proj = kv_proj.contiguous()
        return F.linear(q, w_q, b_q), kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v projected by separate weights, with PyTorch's shape checks."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                           ("value", w_v, (Eq, Ev))):
        if w.shape != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and b.shape != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {b.shape}")
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched, with PyTorch's shape errors."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and attn_mask.shape != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask made additive (-inf where True), PyTorch's deprecation warning when the
    two masks' types differ."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        mask = _torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, _torch.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _check_key_padding_mask(key_padding_mask, src_len, bsz):
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")


def _prep_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    """attn_mask as 3-D (1 or bsz*num_heads, L, S), with PyTorch's shape errors."""
    if attn_mask.dim() == 2:
        if attn_mask.shape != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _static(t, name, bsz, num_heads, head_dim):
    if t.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention (query, key, value in (L, N, E) or unbatched (L, E)): the in- and
    out-projections around attention, as PyTorch's; (output, weights or None)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the is_causal hint alone tells SDPA
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            # the merged mask is no longer causal
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight,
                                 b_q, b_k, b_v)
    if attn_mask is not None:
        attn_mask = _prep_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads into the batch dimension, batch first
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        k = _static(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        v = _static(static_v, "static_v", bsz, num_heads, head_dim)

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = _torch.cat([k, _torch.zeros(zero_attn_shape, dtype=k.dtype)], dim=1)
        v = _torch.cat([v, _torch.zeros(zero_attn_shape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        _, _, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _torch.bmm(q_scaled, k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        attn_output = _torch.bmm(weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    # SDPA takes (N, num_heads, L, S) masks
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = F.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
