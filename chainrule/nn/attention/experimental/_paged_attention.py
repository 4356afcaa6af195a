"""Paged attention on flex_attention (PyTorch's experimental PagedAttention): the key/value
cache of a batch of sequences of different lengths is kept in fixed-size pages of one shared
cache, a page table maps each sequence's logical pages to physical ones, and block masks,
mask_mods and score_mods written for logical positions are converted to physical ones."""
import chainrule as _torch
from ..flex_attention import BlockMask, _identity, noop_mask

__all__ = ["PagedAttention"]


def _cdiv(x, multiple):
    return (x + multiple - 1) // multiple


class PagedAttention:
    """Page bookkeeping for `max_batch_size` sequences sharing `n_pages` pages of `page_size`
    tokens: page_table [batch, logical page] -> physical page (-1: none), capacity [batch]
    (tokens reserved), physical_to_logical [batch, physical page] -> logical page (-1), and
    empty_pages, the free physical pages (allocated from the end of the list)."""

    def __init__(self, n_pages, page_size, max_batch_size, device="cuda"):
        self.n_pages = n_pages
        self.page_size = page_size
        self.page_table = -_torch.ones((max_batch_size, n_pages), dtype=_torch.int64,
                                       device=device)
        self.capacity = _torch.zeros(max_batch_size, dtype=_torch.int64, device=device)
        self.empty_pages = list(range(n_pages - 1, -1, -1))
        self.physical_to_logical = -_torch.ones((max_batch_size, n_pages), dtype=_torch.int64,
                                                device=device)

    def reserve(self, batch_idx, seq_len):
        """Grow sequence `batch_idx`'s capacity (tensors of one element) to at least `seq_len`
        tokens, taking whole pages from the free list."""
        if seq_len <= self.capacity[batch_idx]:
            return
        needed = _cdiv(seq_len - self.capacity[batch_idx], self.page_size)
        if len(self.empty_pages) < needed:
            raise AssertionError(f"requested {needed.item()} pages but there are only "
                                 f"{len(self.empty_pages)} empty pages")
        first = self.capacity[batch_idx] // self.page_size
        last = first + needed
        pages = _torch.tensor(self.empty_pages[-needed:], device=needed.device)
        self.empty_pages = self.empty_pages[:-needed]
        self.page_table[batch_idx, first:last] = pages
        self.physical_to_logical[batch_idx, pages] = _torch.arange(first.item(), last.item(),
                                                                   device=needed.device)
        self.capacity[batch_idx] += needed * self.page_size

    def erase(self, batch_idx):
        """Free every page of sequence `batch_idx` (a tensor of one element)."""
        pages = self.page_table[batch_idx][self.page_table[batch_idx] != -1]
        self.capacity[batch_idx] = 0
        self.empty_pages += pages.tolist()
        self.physical_to_logical[batch_idx][:, pages] = -1
        self.page_table[batch_idx] = -1

    def assign(self, batch_idx, input_pos, k_val, v_val, k_cache, v_cache):
        """Write k_val / v_val (B, H, S, D) of sequences batch_idx (B) at their positions
        input_pos (B, S) into the caches (1, H, pages * page_size, D)."""
        if k_val.requires_grad:
            raise RuntimeError("val must not require gradient")
        B, H, S, K_D = k_val.shape
        V_D = v_val.shape[3]
        if B != batch_idx.shape[0]:
            raise RuntimeError(f"Expect val and batch_idx have the same batch size but got "
                               f"B={B} and B={batch_idx.shape[0]}.")
        if H != k_cache.shape[1]:
            raise RuntimeError(f"Expect val and cache has the same number of heads but got "
                               f"H={H} and H={k_cache.shape[1]}.")
        if S != input_pos.shape[1]:
            # (PyTorch's message names input_pos's first dimension)
            raise RuntimeError(f"Expect val and input_pos has the same length but got S={S} "
                               f"and S={input_pos.shape[0]}.")
        if K_D != k_cache.shape[3]:
            raise RuntimeError(f"Expect k_val and k_cache has the same hidden dim but got "
                               f"D={K_D} and D={k_cache.shape[3]}.")
        if V_D != v_cache.shape[3]:
            raise RuntimeError(f"Expect v_val and v_cache has the same hidden dim but got "
                               f"D={V_D} and D={v_cache.shape[3]}.")
        physical = _torch.gather(self.page_table[batch_idx], 1,
                                 (input_pos // self.page_size).to(_torch.int64))
        addr = (physical.to(_torch.int32) * self.page_size
                + input_pos % self.page_size).view(-1)
        k_cache[:, :, addr, :] = k_val.permute(1, 0, 2, 3).contiguous().view(1, H, B * S, K_D)
        v_cache[:, :, addr, :] = v_val.permute(1, 0, 2, 3).contiguous().view(1, H, B * S, V_D)

    def convert_logical_block_mask(self, block_mask, batch_idx=None, kv_len=None):
        """The block mask over physical pages of a block mask over logical positions (its KV
        block size must be page_size); batch_idx (B) says which sequences its batch rows are,
        kv_len (B) their true lengths."""
        B, H, ROWS, MAX_BLOCKS_IN_COL = block_mask.kv_indices.shape
        if block_mask.BLOCK_SIZE[1] != self.page_size:
            raise RuntimeError(f"Expect block_mask has the same column block size as page_size"
                               f"but got size={block_mask.BLOCK_SIZE[1]} and "
                               f"size={self.page_size}")
        device = block_mask.kv_num_blocks.device
        if batch_idx is None:
            batch_idx = _torch.arange(B, device=device)
        page_table = self.page_table[batch_idx]

        def physical(indices):
            # as many columns as pages: converted indices can be any page
            out = _torch.zeros((B, H, ROWS, self.n_pages), dtype=_torch.int32, device=device)
            out[:, :, :, :MAX_BLOCKS_IN_COL] = _torch.gather(
                page_table, 1, indices.view(B, -1).to(_torch.int64)
            ).view(indices.shape).to(_torch.int32)
            return out

        full_num, full_indices = None, None
        if block_mask.full_kv_num_blocks is not None:
            if block_mask.full_kv_indices is None:
                raise AssertionError("block_mask.full_kv_indices must not be None when "
                                     "full_kv_num_blocks is not None")
            full_num = block_mask.full_kv_num_blocks.clone()
            full_indices = physical(block_mask.full_kv_indices)
        return BlockMask.from_kv_blocks(
            block_mask.kv_num_blocks.clone(), physical(block_mask.kv_indices), full_num,
            full_indices, block_mask.BLOCK_SIZE, self.get_mask_mod(block_mask.mask_mod, kv_len),
            seq_lengths=(block_mask.seq_lengths[0], self.n_pages * self.page_size))

    def _logical(self, b, physical_kv_idx, kv_len):
        """The logical position of a physical one, and whether it holds a live token."""
        block = self.physical_to_logical[b, physical_kv_idx // self.page_size]
        logical = block * self.page_size + physical_kv_idx % self.page_size
        valid = (block >= 0) & (logical < kv_len[b] if kv_len is not None else True)
        return logical, valid & (logical >= 0)

    def get_mask_mod(self, mask_mod, kv_len=None):
        """A mask_mod over physical positions from one over logical positions (False where no
        live token is)."""
        mask_mod = noop_mask if mask_mod is None else mask_mod

        def new_mask_mod(b, h, q_idx, physical_kv_idx):
            logical, valid = self._logical(b, physical_kv_idx, kv_len)
            return _torch.where(valid, mask_mod(b, h, q_idx, logical), False)
        return new_mask_mod

    def get_score_mod(self, score_mod, kv_len=None):
        """A score_mod over physical positions from one over logical positions (-inf where no
        live token is)."""
        score_mod = _identity if score_mod is None else score_mod

        def new_score_mod(score, b, h, q_idx, physical_kv_idx):
            logical, valid = self._logical(b, physical_kv_idx, kv_len)
            return _torch.where(valid, score_mod(score, b, h, q_idx, logical), float("-inf"))
        return new_score_mod
