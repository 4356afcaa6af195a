"""torch.nn.attention.bias: causal attention biases for scaled_dot_product_attention. A
CausalBias is a Tensor subclass (like PyTorch's, an uninitialised float tensor of shape
(variant, seq_len_q, seq_len_kv)) that SDPA hands its call to: upper-left causal attention is
SDPA's is_causal; lower-right, which PyTorch's CPU build has no fused kernel for, runs SDPA
on the materialized mask."""
import enum
from warnings import warn

from ..._creation import ones
from ..._dtype import bool as _bool
from ..._tensor import Tensor
from ...ops.diagonal import tril
from . import SDPAParams, _raise_kernel_warnings

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    """Where the causal mask's diagonal starts: the top-left or the bottom-right corner."""
    UPPER_LEFT = enum.auto()
    LOWER_RIGHT = enum.auto()


def _validate_sdpa_input(query, key, value):
    """PyTorch's Python check of the lower-right path (ValueError, its own wording)."""
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise ValueError("Expected query, key, and value to have the same dtype, but got "
                         f"query.dtype: {query.dtype}, key.dtype: {key.dtype}, and value.dtype: "
                         f"{value.dtype} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError("Expected query, key, and value to all be  at least 2 dimensional, but "
                         f"got query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: "
                         f"{value.dim()} instead.")


class CausalBias(Tensor):
    """A causal mask of seq_len_q x seq_len_kv that is never materialized unless needed."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warn("Lower right causal bias will produce NaNs in the output when seq_len_q > "
                 "seq_len_kv!", stacklevel=2)

    def _upper_left(self, device):
        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=_bool))

    def _lower_right(self, device):
        return tril(ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=_bool),
                    diagonal=self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None):
        """The boolean mask (True where attention is allowed)."""
        if device is None:
            device = "cpu"
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        return None

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None,
                  enable_gqa=False):
        """scaled_dot_product_attention with this bias as its mask."""
        from .. import functional as F
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if (attn_mask.seq_len_q == attn_mask.seq_len_kv
                or attn_mask.variant == CausalVariant.UPPER_LEFT):
            return F.scaled_dot_product_attention(query, key, value, attn_mask=None,
                                                  dropout_p=dropout_p, is_causal=True,
                                                  scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            _validate_sdpa_input(query, key, value)
            # the fused kernels that take a lower-right mask are CUDA kernels: the CPU build
            # says why it cannot use them and materializes the mask
            _raise_kernel_warnings(
                SDPAParams(query, key, value, None, dropout_p, is_causal, enable_gqa))
            return F.scaled_dot_product_attention(
                query, key, value, attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p, is_causal=False, scale=scale, enable_gqa=enable_gqa)
        raise ValueError("CausalBias.variant must be a CausalVariant type, but found: "
                         f"{attn_mask.variant}")

    def __repr__(self):
        return self._materialize().__repr__()


def causal_upper_left(*size):
    """A causal bias whose diagonal starts at the top-left corner (SDPA's is_causal)."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size):
    """A causal bias whose diagonal ends at the bottom-right corner (for decoding with a
    key/value cache longer than the queries)."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
