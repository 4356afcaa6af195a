"""torch.nn.attention.flex_attention: attention whose scores a user function modifies
(score_mod) and masks (mask_mod, carried by a BlockMask), as PyTorch's eager path computes it.

PyTorch's eager flex_attention runs a reference implementation that materializes the whole
score matrix and vmaps score_mod and mask_mod over (batch, head, q_idx, kv_idx); block sparsity
only speeds up its compiled kernels, so eager results depend on mask_mod alone. chainrule calls
each mod once, vectorised, with broadcastable index tensors (b as [B,1,1,1], h as [1,H,1,1],
q_idx as [1,1,Q,1], kv_idx as [1,1,1,KV]), which gives vmap's results for element-wise mods,
including a captured tensor indexed by the index tensors (`bias[q_idx - kv_idx]`). Everything
is written in chainrule's ops, so gradients reach query, key, value and the tensors score_mod
captures, to any order (PyTorch's CPU build refuses inputs that require grad; its GPU build
differentiates them)."""
import enum
import functools
import inspect
import itertools
import math
import operator
import typing
import warnings
from collections.abc import Callable as _Callable
from typing import Literal as _Literal, NamedTuple as _NamedTuple, NotRequired as _NotRequired
from typing import TypedDict as _TypedDict

import numpy as np

import chainrule as _torch
from ..._tensor import Tensor
from ...amp import autocast_mode as _autocast_mode
from ...ops import attention as _attention

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions",
           "create_block_mask", "create_mask", "or_masks", "and_masks", "noop_mask"]

# when True, flex_attention does not warn that it runs unfused (PyTorch's debugging switch,
# which there also skips compiling the mods)
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False

_WARNINGS_SHOWN = set()


def _warn_once(warning_id, message, category=UserWarning):
    """Warn `message` the first time `warning_id` is seen in this process."""
    if warning_id not in _WARNINGS_SHOWN:
        if not _torch.compiler.is_compiling():
            warnings.warn(message, category, stacklevel=2)
        _WARNINGS_SHOWN.add(warning_id)


_score_mod_signature = _Callable[[Tensor, Tensor, Tensor, Tensor, Tensor], Tensor]
_mask_mod_signature = _Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]
_Backend = _Literal["AUTO", "TRITON", "FLASH", "TRITON_DECODE"]


class FlexKernelOptions(_TypedDict, total=False):
    """Tuning options of PyTorch's fused (Triton / flash) kernels. chainrule has no fused
    kernel: the options are checked as PyTorch checks them and otherwise do not change the
    result, as on PyTorch's CPU path."""
    num_warps: _NotRequired[int]
    num_stages: _NotRequired[int]
    BLOCK_M: _NotRequired[int]
    BLOCK_N: _NotRequired[int]
    BLOCK_M1: _NotRequired[int]
    BLOCK_N1: _NotRequired[int]
    BLOCK_M2: _NotRequired[int]
    BLOCK_N2: _NotRequired[int]
    PRESCALE_QK: _NotRequired[bool]
    ROWS_GUARANTEED_SAFE: _NotRequired[bool]
    BLOCKS_ARE_CONTIGUOUS: _NotRequired[bool]
    WRITE_DQ: _NotRequired[bool]
    FORCE_USE_FLEX_ATTENTION: _NotRequired[bool]
    USE_TMA: _NotRequired[bool]
    kpack: _NotRequired[int]
    matrix_instr_nonkdim: _NotRequired[int]
    waves_per_eu: _NotRequired[int]
    BACKEND: _NotRequired[_Backend]


class AuxRequest(_NamedTuple):
    """Which auxiliary outputs flex_attention returns."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(_NamedTuple):
    """flex_attention's auxiliary outputs (None where not requested)."""
    lse: Tensor | None = None
    max_scores: Tensor | None = None


class _ModificationType(enum.Enum):
    """A score_mod takes the score first (5 arguments); a mask_mod does not (4)."""
    SCORE_MOD = 1
    MASK_MOD = 2
    UNKNOWN = 3


def _get_mod_type(fn):
    """Whether `fn` is a score_mod or a mask_mod, by its count of required positional
    parameters."""
    if hasattr(fn, "__code__"):
        required = fn.__code__.co_argcount - len(getattr(fn, "__defaults__", None) or ())
    else:
        required = sum(p.default is inspect.Parameter.empty
                       for p in inspect.signature(fn).parameters.values())
    if required not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {required}")
    return _ModificationType.SCORE_MOD if required == 5 else _ModificationType.MASK_MOD


def _identity(score, batch, head, token_q, token_kv):
    return score


def noop_mask(batch, head, token_q, token_kv):
    """Returns a noop mask_mod"""
    return batch.new_ones(size=(), dtype=_torch.bool, device=batch.device)


def _sliced_mask_mod_error(batch, head, token_q, token_kv):
    """The mask_mod of a sliced BlockMask: slicing cannot keep the original's."""
    raise RuntimeError(
        "Cannot use mask_mod from a sliced BlockMask. When you slice a BlockMask using [], the "
        "mask_mod attribute is reset. You must set it from the original BlockMask's mask_mod."
        "\n\nIncorrect usage:\n  base_mask = create_block_mask(my_mask_fn, ...)\n  sliced_mask "
        "= base_mask[:, :, block_idx]\n  sliced_mask.mask_mod = apply_offset(sliced_mask."
        "mask_mod, offset)  # WRONG!\n\nCorrect usage:\n  base_mask = create_block_mask("
        "my_mask_fn, ...)\n  sliced_mask = base_mask[:, :, block_idx]\n  sliced_mask.mask_mod "
        "= apply_offset(base_mask.mask_mod, offset)  # Use base_mask!")


_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30


# ---- evaluating the mods ---------------------------------------------------------------------

def _index_grid(B, H, Q, KV, device):
    """The batch, head, query and key/value indices as int64 tensors broadcastable to
    [B, H, Q, KV]: what each call of PyTorch's vmapped mod sees, all calls at once."""
    return tuple(_torch.arange(n, device=device).view([n if d == i else 1 for d in range(4)])
                 for i, n in enumerate((B, H, Q, KV)))


def _vmapped(mod, score, grid):
    """`mod` vmapped over every (batch, head, q, kv) position, as PyTorch evaluates it: for
    what the broadcast call cannot express (indexing a captured tensor one index at a time,
    `bias[q_idx][kv_idx]`, or a mod that fails on index tensors of several elements)."""
    prefix = () if score is None else (0,)
    for level in reversed(range(4)):        # kv innermost, batch outermost
        mod = _torch.vmap(mod, in_dims=prefix + tuple(0 if d == level else None
                                                      for d in range(4)))
    return mod(*(() if score is None else (score,)), *(i.flatten() for i in grid))


def _element_dtype(score_mod, score):
    """The dtype score_mod gives on one element, as vmap calls it: there the score is 0-d, so
    a captured 0-d tensor of a wider dtype promotes it (None if the call fails)."""
    try:
        index = _torch.zeros((), dtype=_torch.int64, device=score.device)
        return score_mod(score.new_zeros(()), index, index, index, index).dtype
    except Exception:      # noqa: BLE001  (the call on the whole grid decides)
        return None


def _evaluate(mod, score, grid, shape):
    """mod's value at every position of `shape` [B, H, Q, KV]: one call on the broadcastable
    index grid (score, when given, is the full score matrix), else PyTorch's vmap."""
    try:
        if score is None:
            value = mod(*grid)
        else:
            value = mod(score, *grid)
            dtype = _element_dtype(mod, score)
            if dtype is not None and dtype != value.dtype:
                value = mod(score.to(dtype), *grid)
        if isinstance(value, Tensor) and value.dim() <= 4:
            return value.expand(shape)
    except Exception:      # noqa: BLE001  (vmap runs it again, and raises what it raises)
        pass
    return _vmapped(mod, score, grid)


def _mask_of(mask_mod, grid, shape):
    return _evaluate(mask_mod, None, grid, shape)


def _scores_of(score_mod, score, grid):
    return _evaluate(score_mod, score, grid, score.shape)


# ---- the block-sparse layout -----------------------------------------------------------------

def _ordered_to_dense(num_blocks_in_row, col_indices, num_cols):
    """The 0/1 (int32) block matrix [..., rows, num_cols] a (count, column list) pair
    describes; only the first `count` columns of each row's list count."""
    listed = (_torch.arange(col_indices.shape[-1], dtype=_torch.int32,
                            device=col_indices.device) < num_blocks_in_row.unsqueeze(-1))
    # unlisted entries point at one extra column, cut off afterwards; negative indices count
    # from the end, so -1 (a page table's "no page") lands there too
    cols = _torch.where(listed, col_indices, num_cols).long()
    cols = _torch.where(cols < 0, cols + (num_cols + 1), cols)
    dense = col_indices.new_zeros(*col_indices.shape[:-1], num_cols + 1, dtype=_torch.int32)
    dense.scatter_(-1, cols, 1)
    return dense[..., :num_cols].contiguous()


def _dense_to_ordered(dense_mask):
    """(count, column list) of each row of a 0/1 block matrix: the listed columns first, in
    order, then the others."""
    dense_mask = dense_mask.to(dtype=_torch.int32)
    num_blocks_in_row = dense_mask.sum(dim=-1)
    col_indices = _torch.argsort(dense_mask, dim=-1, descending=True, stable=True)
    return (num_blocks_in_row.to(_torch.int32, memory_format=_torch.contiguous_format),
            col_indices.to(_torch.int32, memory_format=_torch.contiguous_format))


def _transpose_ordered(num_blocks_in_row, col_indices):
    """The same blocks listed by column (what the backward pass iterates over)."""
    dense = _ordered_to_dense(num_blocks_in_row, col_indices, col_indices.shape[-1])
    return _dense_to_ordered(dense.transpose(-2, -1))


def _adjust_num_blocks_and_indices(num_blocks, indices, new_num_rows, new_num_cols):
    """Crop a (count, column list) pair to the first rows and columns."""
    indices = indices[:, :, :new_num_rows, :new_num_cols]
    num_blocks = num_blocks[:, :, :new_num_rows]
    num_blocks = _torch.where(num_blocks < new_num_cols, num_blocks, new_num_cols)
    num_blocks = _torch.sum(indices < num_blocks[:, :, :, None], dim=-1).to(_torch.int32)
    return num_blocks, indices


def _broadcast_to_dim(x, dim):
    while x.dim() < dim:
        x = x.unsqueeze(0)
    return x


def _round_up_to_multiple(x, multiple):
    return (x + multiple - 1) // multiple * multiple


def _convert_mask_to_block_mask(mask, Q_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                KV_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                separate_full_blocks=False):
    """Which blocks of a boolean [B, H, Q, KV] mask have any (partial) or every (full)
    element set, as int8 [B, H, Q blocks, KV blocks]; lengths are padded to whole blocks."""
    if mask.dtype != _torch.bool:
        raise AssertionError(f"mask.dtype must be torch.bool, got {mask.dtype}")
    mask = _broadcast_to_dim(mask, 4)
    q_len, kv_len = mask.shape[-2:]
    padding = (0, _round_up_to_multiple(kv_len, KV_BLOCK_SIZE) - kv_len,
               0, _round_up_to_multiple(q_len, Q_BLOCK_SIZE) - q_len)
    mask = _torch.nn.functional.pad(mask, padding)
    B, H, Q, KV = mask.shape
    counts = mask.view(B, H, Q // Q_BLOCK_SIZE, Q_BLOCK_SIZE, KV // KV_BLOCK_SIZE,
                       KV_BLOCK_SIZE).sum(dim=[-3, -1])
    if separate_full_blocks:
        full = counts == Q_BLOCK_SIZE * KV_BLOCK_SIZE
        partial = (counts > 0) & ~full
        return partial.to(dtype=_torch.int8), full.to(dtype=_torch.int8)
    return (counts > 0).to(dtype=_torch.int8), None


def _create_sparse_block_from_block_mask(block_mask, mask_mod, seq_lengths,
                                         Q_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                                         KV_BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE):
    partial_blocks, full_blocks = block_mask
    kv_num_blocks, kv_indices = _dense_to_ordered(partial_blocks)
    full_kv_num_blocks, full_kv_indices = (
        (None, None) if full_blocks is None else _dense_to_ordered(full_blocks))
    return BlockMask.from_kv_blocks(kv_num_blocks, kv_indices, full_kv_num_blocks,
                                    full_kv_indices, BLOCK_SIZE=(Q_BLOCK_SIZE, KV_BLOCK_SIZE),
                                    mask_mod=mask_mod, seq_lengths=seq_lengths)


def _compute_dq_write_order_from_block_mask(block_mask, dq_kv_order=False):
    """For each block the backward visits (q_indices order), its rank among the KV blocks its
    query row block attends to: ascending KV order, or descending with dq_kv_order (the order
    PyTorch's deterministic flash backward accumulates dQ in)."""
    if block_mask.q_num_blocks is None or block_mask.q_indices is None:
        raise ValueError(
            "BlockMask must have q_num_blocks and q_indices to compute dq_write_order")
    pairs = [(block_mask.kv_num_blocks, block_mask.kv_indices)]
    if block_mask.full_kv_num_blocks is not None and block_mask.full_kv_indices is not None:
        pairs.append((block_mask.full_kv_num_blocks, block_mask.full_kv_indices))
    heads = [block_mask.kv_indices, block_mask.q_indices, block_mask.full_kv_indices,
             block_mask.full_q_indices]
    B, H = _torch.broadcast_shapes(*(t.shape[:2] for t in heads if t is not None))
    num_m = block_mask.kv_indices.shape[2]
    num_n = block_mask.q_indices.shape[2]
    dense = sum(_ordered_to_dense(n.expand(B, H, *n.shape[2:]), i.expand(B, H, *i.shape[2:]),
                                  num_n) for n, i in pairs)
    dense = dense.clamp(max=1)
    cumsum = dense.cumsum(dim=-1)
    rank = (cumsum - dense).to(_torch.int32)
    if dq_kv_order:
        rank = (cumsum[:, :, :, -1:] - 1 - rank).to(_torch.int32)
    device = block_mask.kv_indices.device

    def gather(q_indices):
        b, h, n, _ = _index_grid(B, H, q_indices.shape[2], 1, device)
        return rank[b, h, q_indices.long().clamp(0, num_m - 1), n].to(_torch.int32)

    full = None
    if (len(pairs) == 2 and block_mask.full_q_num_blocks is not None
            and block_mask.full_q_indices is not None):
        full = gather(block_mask.full_q_indices)
    return gather(block_mask.q_indices), full


class BlockMask:
    """A block-sparse attention mask: per (batch, head, query block row), how many key/value
    blocks are computed and which (kv_num_blocks, kv_indices), optionally split into partial
    blocks and full blocks (full_kv_*) that need no mask_mod, with the same listed by column for
    the backward pass (q_*), the block size (Q, KV), the sequence lengths and the mask_mod
    that gives the elements inside partial blocks."""

    seq_lengths: tuple[int, int]
    kv_num_blocks: Tensor
    kv_indices: Tensor
    full_kv_num_blocks: Tensor | None
    full_kv_indices: Tensor | None
    q_num_blocks: Tensor | None
    q_indices: Tensor | None
    full_q_num_blocks: Tensor | None
    full_q_indices: Tensor | None
    dq_write_order: Tensor | None
    dq_write_order_full: Tensor | None
    dq_kv_order: Tensor | None
    dq_kv_order_spt: bool | None
    BLOCK_SIZE: tuple[int, int]
    mask_mod: _mask_mod_signature

    _TENSOR_ATTRS = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                     "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices",
                     "dq_write_order", "dq_write_order_full", "dq_kv_order"]
    _CONTEXT_ATTRS = ["seq_lengths", "BLOCK_SIZE", "mask_mod", "dq_kv_order_spt"]

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
                 BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod=noop_mask, *, dq_write_order=None, dq_write_order_full=None,
                 dq_kv_order=None, dq_kv_order_spt=None):
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if kv_num_blocks is None:
            raise AssertionError("kv_num_blocks must be provided")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        if (full_q_num_blocks is None) != (full_q_indices is None):
            raise AssertionError(
                "full_q_num_blocks and full_q_indices must be both provided or omitted")
        if dq_write_order_full is not None and dq_write_order is None:
            raise ValueError("dq_write_order_full requires dq_write_order")
        self.seq_lengths = seq_lengths
        self.kv_num_blocks = kv_num_blocks
        self.kv_indices = kv_indices
        self.full_kv_num_blocks = full_kv_num_blocks
        self.full_kv_indices = full_kv_indices
        self.q_num_blocks = q_num_blocks
        self.q_indices = q_indices
        self.full_q_num_blocks = full_q_num_blocks
        self.full_q_indices = full_q_indices
        self.dq_write_order = dq_write_order
        self.dq_write_order_full = dq_write_order_full
        self.dq_kv_order = dq_kv_order
        self.dq_kv_order_spt = dq_kv_order_spt
        self.BLOCK_SIZE = BLOCK_SIZE
        self.mask_mod = mask_mod

    def _dq_kv_order(self):
        return self.dq_kv_order if self.dq_kv_order is not None else self.dq_kv_order_spt

    @staticmethod
    def _slice_dq_kv_order(dq_kv_order, index):
        return None if dq_kv_order is None else dq_kv_order[index[:2] + (slice(None),)]

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None,
                       full_kv_indices=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod=None, seq_lengths=None, compute_q_blocks=True, *,
                       dq_write_order=None, dq_write_order_full=None, dq_kv_order=None):
        """A BlockMask from its KV-side block lists; the Q-side lists are derived from them
        (compute_q_blocks), the lengths default to whole blocks."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        q_num_blocks = q_indices = full_q_num_blocks = full_q_indices = None
        if compute_q_blocks:
            q_num_blocks, q_indices = _transpose_ordered(kv_num_blocks, kv_indices)
            if full_kv_num_blocks is not None:
                full_q_num_blocks, full_q_indices = _transpose_ordered(full_kv_num_blocks,
                                                                       full_kv_indices)
        if isinstance(BLOCK_SIZE, int):
            BLOCK_SIZE = (BLOCK_SIZE, BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * BLOCK_SIZE[0],
                           kv_indices.shape[-1] * BLOCK_SIZE[1])
        if dq_kv_order is not None and not isinstance(dq_kv_order, (bool, Tensor)):
            raise ValueError("dq_kv_order must be a bool, Tensor, or None")
        return cls(seq_lengths=seq_lengths, kv_num_blocks=kv_num_blocks, kv_indices=kv_indices,
                   full_kv_num_blocks=full_kv_num_blocks, full_kv_indices=full_kv_indices,
                   q_num_blocks=q_num_blocks, q_indices=q_indices,
                   full_q_num_blocks=full_q_num_blocks, full_q_indices=full_q_indices,
                   BLOCK_SIZE=BLOCK_SIZE, mask_mod=noop_mask if mask_mod is None else mask_mod,
                   dq_write_order=dq_write_order, dq_write_order_full=dq_write_order_full,
                   dq_kv_order=dq_kv_order if isinstance(dq_kv_order, Tensor) else None,
                   dq_kv_order_spt=dq_kv_order if isinstance(dq_kv_order, bool) else None)

    def as_tuple(self, flatten=True):
        """The attributes as a tuple (what the attention kernels take); with flatten, the
        sequence lengths and block sizes as separate ints."""
        lengths = tuple(self.seq_lengths) if flatten else (self.seq_lengths,)
        block = tuple(self.BLOCK_SIZE) if flatten else (self.BLOCK_SIZE,)
        return (*lengths, *(getattr(self, a) for a in self._TENSOR_ATTRS),
                self.dq_kv_order_spt, *block, self.mask_mod)

    @property
    def shape(self):
        return tuple(self.kv_indices.shape[:-2]) + tuple(self.seq_lengths)

    def __str__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n"
                f"{self.to_string().strip()}\n)")

    def __getitem__(self, index):
        """The mask of the given batch / head / query-block-row positions (an int keeps its
        dimension); its mask_mod cannot be used (slicing cannot adjust it)."""
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Slicing BlockMask with tensor dq_kv_order is not supported yet. Construct a "
                "new BlockMask with matching precomputed dq_write_order metadata.")
        index = index if isinstance(index, tuple) else (index,)
        index = (*index, slice(None), slice(None), slice(None))[:3]
        index = tuple(i if not isinstance(i, int) else
                      slice(i + n, i + n + 1) if -n <= i < 0 else slice(i, i + 1)
                      for i, n in zip(index, self.kv_num_blocks.shape[:3], strict=True))
        full = self.full_kv_num_blocks is not None
        sliced = BlockMask.from_kv_blocks(
            self.kv_num_blocks[index], self.kv_indices[index],
            self.full_kv_num_blocks[index] if full else None,
            self.full_kv_indices[index] if full else None, BLOCK_SIZE=self.BLOCK_SIZE,
            mask_mod=_sliced_mask_mod_error, seq_lengths=self.seq_lengths,
            compute_q_blocks=self.q_indices is not None)
        return self._with_dq_order(sliced, self._slice_dq_kv_order(self.dq_kv_order, index))

    def _with_dq_order(self, new, dq_kv_order):
        """`new` (derived from self) with self's dQ ordering, its write order recomputed."""
        new.dq_kv_order = dq_kv_order
        new.dq_kv_order_spt = self.dq_kv_order_spt
        if self.dq_write_order is not None and new.dq_kv_order is None:
            new.dq_write_order, new.dq_write_order_full = (
                _compute_dq_write_order_from_block_mask(new, dq_kv_order=new.dq_kv_order_spt))
        return new

    def __repr__(self):
        def shape_or_none(x):
            return None if x is None else x.shape

        mask_mod = getattr(self.mask_mod, "__name__", self.mask_mod)
        fields = "".join(f"    {a}={shape_or_none(getattr(self, a))},\n"
                         for a in self._TENSOR_ATTRS[:8])
        return (f"BlockMask(\n{fields}    BLOCK_SIZE={self.BLOCK_SIZE},\n"
                f"    shape={self.shape},\n    sparsity={self.sparsity():.2f}%,\n"
                f"    mask_mod={mask_mod}\n)")

    def _adjust(self, new_q_len, new_kv_len):
        """This mask cropped (or its last blocks' lengths changed) to new sequence lengths:
        its upper-left corner."""
        if self.dq_kv_order is not None:
            raise NotImplementedError(
                "Adjusting BlockMask with tensor dq_kv_order is not supported yet. Construct a "
                "new BlockMask with matching precomputed dq_write_order metadata.")
        rows = (new_q_len + self.BLOCK_SIZE[0] - 1) // self.BLOCK_SIZE[0]
        cols = (new_kv_len + self.BLOCK_SIZE[1] - 1) // self.BLOCK_SIZE[1]
        kv = _adjust_num_blocks_and_indices(self.kv_num_blocks, self.kv_indices, rows, cols)
        full = (None, None)
        if self.full_kv_num_blocks is not None:
            full = _adjust_num_blocks_and_indices(self.full_kv_num_blocks,
                                                  self.full_kv_indices, rows, cols)
        adjusted = self.from_kv_blocks(*kv, *full, BLOCK_SIZE=self.BLOCK_SIZE,
                                       mask_mod=self.mask_mod,
                                       seq_lengths=(new_q_len, new_kv_len),
                                       compute_q_blocks=self.q_indices is not None)
        return self._with_dq_order(adjusted, self.dq_kv_order)

    def numel(self):
        """Returns the number of elements (not accounting for sparsity) in the mask."""
        return functools.reduce(operator.mul, self.shape, 1)

    def sparsity(self):
        """Computes the percentage of blocks that are sparse (i.e. not computed)"""
        computed = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            computed += self.full_kv_num_blocks.sum()
        size = computed.item() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - size / self.numel())

    def to_dense(self):
        """Returns a dense block that is equivalent to the block mask."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    def to_string(self, grid_size=(20, 20), limit=4):
        """The block layout drawn in characters ('█' all computed, '░' partly, ' ' none), at
        most grid_size cells per (batch, head) (-1: one per block), for the first `limit`
        (batch, head) pairs."""
        dense = self.to_dense().numpy()
        *batch_dims, rows, cols = dense.shape
        if isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        elif grid_size == -1:
            max_rows, max_cols = rows, cols
        else:
            max_rows, max_cols = grid_size
        row_step = max(1, -(-rows // max_rows))
        col_step = max(1, -(-cols // max_cols))
        row_starts, col_starts = range(0, rows, row_step), range(0, cols, col_step)
        counts = _cell_sums(np.ones((rows, cols)), row_starts, col_starts)
        pictures = []
        for n, batch_idx in enumerate(itertools.product(*map(range, batch_dims))):
            if n == limit:
                pictures += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                             "You can also index (BlockMask[batch, head]) to choose a specific "
                             "batch or head"]
                break
            share = _cell_sums(dense[batch_idx], row_starts, col_starts) / counts
            chars = [["█" if s == 1 else " " if s == 0 else "░" for s in line]
                     for line in share.tolist()]
            pictures.append(f"{batch_idx}\n" + "".join("".join(c * 2 for c in line) + "\n"
                                                      for line in chars))
        return "\n".join(pictures)

    def to(self, device):
        """A BlockMask with every tensor moved to `device`."""
        moved = {a: None if getattr(self, a) is None else getattr(self, a).to(device)
                 for a in self._TENSOR_ATTRS}
        return BlockMask(seq_lengths=self.seq_lengths, **moved, BLOCK_SIZE=self.BLOCK_SIZE,
                         mask_mod=self.mask_mod, dq_kv_order_spt=self.dq_kv_order_spt)


def _cell_sums(a, row_starts, col_starts):
    """Sums of a 2-D array over the grid cells starting at the given rows and columns."""
    return np.add.reduceat(np.add.reduceat(a.astype(np.float64), list(row_starts), axis=0),
                           list(col_starts), axis=1)


# ---- masks -----------------------------------------------------------------------------------

def or_masks(*mask_mods):
    """Returns a mask_mod that's the union of provided mask_mods"""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=_torch.bool)
        for mask_mod in mask_mods:
            result = result | mask_mod(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods):
    """Returns a mask_mod that's the intersection of provided mask_mods"""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=_torch.bool)
        for mask_mod in mask_mods:
            result = result & mask_mod(b, h, q_idx, kv_idx)
        return result
    return and_mask


def _default_device(device):
    return device if device is not None else (_torch.accelerator.current_accelerator()
                                              or "cpu")


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The dense [B, H, Q_LEN, KV_LEN] mask of a mask_mod (its values), or of a score_mod
    (False where it gives -inf); B and H default to 1."""
    device = _default_device(device)
    B = 1 if B is None else B
    H = 1 if H is None else H
    shape = (B, H, Q_LEN, KV_LEN)
    grid = _index_grid(*shape, device)
    if _get_mod_type(mod_fn) == _ModificationType.SCORE_MOD:
        scores = _scores_of(mod_fn, _torch.zeros(*shape, device=device), grid)
        return _torch.where(_torch.isneginf(scores), False, True)
    return _mask_of(mod_fn, grid, shape)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks=True, compute_dq_write_order=False,
                      dq_kv_order=True):
    """The BlockMask of a mask_mod over [B, H, Q_LEN, KV_LEN] (B and H default to 1, a
    mask shared by every batch / head) in blocks of BLOCK_SIZE (an int or (Q, KV)), full
    blocks listed apart unless separate_full_blocks is False."""
    device = _default_device(device)
    if _get_mod_type(mask_mod) != _ModificationType.MASK_MOD:
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    B = 1 if B is None else B
    H = 1 if H is None else H
    q_block, kv_block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    if _compile:
        # chainrule's torch.compile runs the function as written: this is that call
        warnings.warn(
            "_compile flag on create_block_mask was originally added to work around a "
            "torch.compile limitation. That limitation has since been addressed. So, to compile "
            "create_block_mask, we suggest doing torch.compile(create_block_mask). This still "
            "works for now, but will be removed in the future.", DeprecationWarning,
            stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    blocks = _convert_mask_to_block_mask(mask, Q_BLOCK_SIZE=q_block, KV_BLOCK_SIZE=kv_block,
                                         separate_full_blocks=separate_full_blocks)
    block_mask = _create_sparse_block_from_block_mask(blocks, mask_mod, (Q_LEN, KV_LEN),
                                                      q_block, kv_block)
    if compute_dq_write_order:
        block_mask.dq_write_order, block_mask.dq_write_order_full = (
            _compute_dq_write_order_from_block_mask(block_mask, dq_kv_order=dq_kv_order))
        block_mask.dq_kv_order = None
        block_mask.dq_kv_order_spt = dq_kv_order
    return block_mask


def _create_empty_block_mask(query, key):
    """The BlockMask flex_attention uses when given none: one block covering everything."""
    return BlockMask.from_kv_blocks(
        kv_num_blocks=_torch.ones([1, 1, 1], dtype=_torch.int32, device=query.device),
        kv_indices=_torch.zeros([1, 1, 1, 1], dtype=_torch.int32, device=query.device),
        BLOCK_SIZE=_LARGE_SPARSE_BLOCK_SIZE, seq_lengths=(1, 1))


# ---- flex_attention --------------------------------------------------------------------------

def _apply_kernel_options(query, key, value, return_lse, kernel_options, return_aux=None):
    """kernel_options checked and completed as PyTorch does (the internal OUTPUT_* keys
    included); CPU inputs cannot return max scores."""
    options = {} if kernel_options is None else dict(kernel_options)
    if "BACKEND" in options and options.get("FORCE_USE_FLEX_ATTENTION", False):
        raise RuntimeError(
            "BACKEND cannot be combined with legacy FORCE_USE_FLEX_ATTENTION. BACKEND "
            "supersedes the legacy knob; please drop FORCE_USE_FLEX_ATTENTION and only specify "
            "the desired BACKEND.")
    backends = typing.get_args(_Backend)
    if "BACKEND" in options and options["BACKEND"] not in backends:
        raise ValueError(f"Invalid BACKEND value '{options['BACKEND']}'. "
                         f"Must be one of {backends}")
    for name, default in (("BACKEND", "AUTO"), ("PRESCALE_QK", False),
                          ("ROWS_GUARANTEED_SAFE", False), ("BLOCKS_ARE_CONTIGUOUS", False),
                          ("WRITE_DQ", True)):
        options.setdefault(name, default)
    output_lse, output_max = return_lse, False
    if return_aux is not None:
        output_lse, output_max = return_aux.lse, return_aux.max_scores
    if "OUTPUT_LOGSUMEXP" in options:
        raise AssertionError("OUTPUT_LOGSUMEXP must not be in kernel_options")
    # chainrule's tensors are on the CPU, where PyTorch writes the lse only when asked for
    options["OUTPUT_LOGSUMEXP"] = bool(output_lse)
    if "OUTPUT_MAX" in options:
        raise AssertionError("OUTPUT_MAX must not be in kernel_options")
    if options["BACKEND"] == "FLASH" and output_max:
        raise NotImplementedError(
            "Returning max scores is not supported with BACKEND='FLASH'. Use "
            "return_aux=AuxRequest(lse=True) or omit max_scores.")
    options["OUTPUT_MAX"] = output_max
    if output_max:
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    return options


def _validate_embed_dim(query, key, value):
    if query.size(-1) != key.size(-1):
        raise ValueError(f"Expect query and key/value to have the same embedding dimension "
                         f"but got E={query.size(-1)} and E={key.size(-1)}.")


def _validate_sdpa_input(query, key, value):
    """PyTorch's Python SDPA input check as flex_attention calls it (any dtypes)."""
    if query.device != key.device or query.device != value.device:
        raise ValueError(
            f"Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device}, key.device: {key.device}, and value.device: "
            f"{value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")


def _validate_device(query, key, value):
    # PyTorch's CPU kernels have no backward; chainrule differentiates the composition, so
    # only the device kinds PyTorch knows are checked
    if query.device.type not in {"cuda", "cpu", "xpu", "hpu", "mps"}:
        raise ValueError("FlexAttention is only supported on CUDA, CPU, HPU, or MPS devices. "
                         f"Found input tensors on {query.device.type} device.")


def _check_lengths(query, key, block_mask):
    if block_mask.BLOCK_SIZE == (_LARGE_SPARSE_BLOCK_SIZE, _LARGE_SPARSE_BLOCK_SIZE):
        return      # the default mask fits any length
    q_len, kv_len = query.size(-2), key.size(-2)
    mask_q, mask_kv = block_mask.shape[-2:]
    made = (f"block_mask was created for block_mask.shape={block_mask.shape} but got "
            f"q_len={q_len} and kv_len={kv_len}. As the block mask was created for a ")
    if q_len > mask_q or kv_len > mask_kv:
        raise ValueError(made + "smaller length than you're using it for, you likely need to "
                         "create a new block mask.")
    if q_len < mask_q or kv_len < mask_kv:
        raise ValueError(
            made + "larger length than you're using it for, you can either 1. create a new "
            "block mask with the correct length, or 2. 'adjust' the existing block mask to the "
            "correct length by calling block_mask._adjust(q_len, kv_len). This essentially "
            "'crops' the block mask to the upper left corner, which does not work for all "
            "mask_mods!")


def _math_attention(query, key, value, score_mod, mask_mod, scale):
    """PyTorch's eager reference: scores in float64 for float64 queries and float32
    otherwise, score_mod and mask_mod on every score, a safe softmax (fully masked rows give
    zeros and an lse of -inf), the product with value in query's dtype."""
    groups = query.size(1) // key.size(1)
    if groups > 1:
        key = key.repeat_interleave(groups, dim=1)
        value = value.repeat_interleave(groups, dim=1)
    Bq, Bkv = query.size(0), key.size(0)
    if not (Bq == Bkv or (Bq > 1 and Bkv == 1)):
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={Bq} and Bkv={Bkv}")
    key = key.expand(Bq, *key.shape[1:])
    value = value.expand(Bq, *value.shape[1:])
    working = _torch.float64 if query.dtype == _torch.float64 else _torch.float32
    scores = (query.to(working) @ key.to(working).transpose(-2, -1)) * scale
    grid = _index_grid(*scores.shape, scores.device)
    scores = _torch.where(_mask_of(mask_mod, grid, scores.shape),
                          _scores_of(score_mod, scores.to(working), grid),
                          _torch.tensor(-math.inf, dtype=working, device=scores.device))
    lse = scores.logsumexp(dim=-1)
    lse = _torch.where(_torch.all(scores == -math.inf, dim=-1), -math.inf, lse)
    probs = _attention.safe_softmax(scores, -1)
    return probs.to(query.dtype) @ value.to(query.dtype), lse


def _like_query_layout(out, query):
    """`out` laid out in memory in query's dimension order, the last dimension innermost
    (PyTorch's eager output follows the query's strides)."""
    strides = query.stride()
    # innermost first; of equal strides the later dimension is inner
    fill = sorted(range(out.dim()), key=lambda d: (strides[d], -d))
    fill.remove(out.dim() - 1)
    order = [*reversed(fill), out.dim() - 1]      # outermost first
    if order == list(range(out.dim())):
        return out
    inverse = sorted(range(out.dim()), key=order.__getitem__)
    return out.permute(order).contiguous().permute(inverse)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    """Attention softmax(score_mod(q k^T * scale)) v over the scores block_mask's mask_mod
    keeps; query (B, Hq, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev), Hq a multiple of
    Hkv with enable_gqa. Returns the output (B, Hq, L, Ev), with the logsumexp of the scores
    (B, Hq, L) when asked for (return_aux=AuxRequest(lse=True), or the deprecated
    return_lse)."""
    _validate_sdpa_input(query, key, value)
    _validate_embed_dim(query, key, value)
    _validate_device(query, key, value)
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if not enable_gqa and query.size(-3) != key.size(-3):
        raise ValueError(f"Expect query and key/value to have the same number of heads but got "
                         f"Hq={query.size(-3)} and Hkv={key.size(-3)}. Try setting "
                         f"enable_gqa=True for GQA.")
    if enable_gqa and query.size(1) % key.size(1) != 0:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA "
                         f"but got Hq={query.size(1)} and Hkv={key.size(1)}.")
    if query.size(0) != key.size(0):
        if block_mask is None:
            raise ValueError(f"Expect query and key/value to have the same batch size, or "
                             f"non-none block_mask, but got block_mask=None, "
                             f"Bq={query.size(0)}, and Bkv={key.size(0)}.")
        if block_mask.kv_num_blocks.size(0) != query.size(0):
            raise ValueError(f"Expect query and key/value to have the same batch size, or "
                             f"block_mask and query to have the same batch size, but got "
                             f"Bq={query.size(0)}, Bkv={key.size(0)}, "
                             f"B_block_mask={block_mask.kv_num_blocks.size(0)}.")
    score_mod = _identity if score_mod is None else score_mod
    block_mask = _create_empty_block_mask(query, key) if block_mask is None else block_mask
    if getattr(block_mask, "mask_mod", None) is _sliced_mask_mod_error:
        raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")
    _check_lengths(query, key, block_mask)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    if query.device != block_mask.kv_num_blocks.device:
        raise RuntimeError(f"Expect q/k/v and block_mask to be on the same device but got "
                           f"{query.device} and {block_mask.kv_num_blocks.device}.")
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is "
                         "deprecated, please use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        _warn_once("deprecated_return_lse", "return_lse is deprecated and will be removed in "
                   "v2.10. Please use return_aux=AuxRequest(lse=True) instead.",
                   category=FutureWarning)
    _apply_kernel_options(query, key, value, return_lse, kernel_options, return_aux)
    if not _FLEX_ATTENTION_DISABLE_COMPILE_DEBUG:
        # true of chainrule too: the whole score matrix is materialized
        _warn_once(
            "flex_attention_performance",
            "flex_attention called without torch.compile() - this will use an unfused "
            "implementation that materializes the full scores matrix instead of generating a "
            "fused kernel.\n\nSOLUTION: Use torch.compile(flex_attention)(...)\n\nIf you want "
            "to debug your score_mod/mask_mod, you can set:\ntorch.nn.attention.flex_attention."
            "_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True\n\nThis will allow you to use print "
            "statements or breakpoints. Note: This doesn't work with the backwards pass and may "
            "produce incorrect results.")
    if (block_mask.q_indices is None and _torch.is_grad_enabled()
            and (query.requires_grad or key.requires_grad or value.requires_grad)):
        raise RuntimeError(
            "BlockMask q_indices is None. Backward pass requires q_indices to be computed. "
            "Please create the BlockMask with compute_q_blocks=True")
    if _torch.is_autocast_enabled("cpu"):
        # PyTorch's CPU autocast casts q, k, v to the fast dtype, then runs without autocast
        fast = _torch.get_autocast_dtype("cpu")
        query, key, value = (_autocast_mode._cast(x, "cpu", fast) for x in (query, key, value))
        with _torch.autocast("cpu", enabled=False):
            out, lse = _math_attention(query, key, value, score_mod, block_mask.mask_mod, scale)
    else:
        out, lse = _math_attention(query, key, value, score_mod, block_mask.mask_mod, scale)
    out = _like_query_layout(out, query)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    # PyTorch's kernels give the lse in base 2 and it is converted back: the same rounding
    lse = (lse / math.log(2)) * math.log(2) if want_lse and lse.numel() > 0 else None
    if return_aux is not None:
        return out, AuxOutput(lse=lse, max_scores=None)
    return (out, lse) if return_lse else out
