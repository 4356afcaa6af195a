"""torch.nn.attention.flex_attention against PyTorch 2.13's eager (CPU) path: outputs and lse
for score_mods and mask_mods of every common kind (causal, sliding window, document, prefix,
ALiBi, relative bias, soft-capping, fully masked rows), GQA, dtypes, batch broadcasting and
layouts; BlockMask's layout and API; errors and warnings. Gradients, which PyTorch's CPU
build refuses, are compared with PyTorch's flex-attention autograd (its higher-order op called
directly, the captured tensors passed as its buffers) and checked to second order."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.attention.flex_attention  # noqa: F401  (torch loads it on import)
from torch._higher_order_ops.flex_attention import flex_attention as torch_flex_hop

import chainrule
from helpers import same, same_error, warnings_of


def _fa(T):
    return T.nn.attention.flex_attention


@pytest.fixture(autouse=True)
def _quiet():
    # each library warns once per process that eager flex_attention is unfused; PyTorch's
    # debugging switch runs the same eager reference without compiling the mods first (which
    # costs a second per new mod; test_compiled_eager_path_is_the_same runs that path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.attention.flex_attention._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True
        yield
        torch.nn.attention.flex_attention._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False


def _qkv(T, q_shape, kv_shape, v_dim=None, dtype="float32", seed=0):
    T.manual_seed(seed)
    dt = getattr(T, dtype)
    v_shape = kv_shape[:-1] + (v_dim or kv_shape[-1],)
    return T.randn(*q_shape, dtype=dt), T.randn(*kv_shape, dtype=dt), T.randn(*v_shape, dtype=dt)


# ---- score_mods and mask_mods, written once against the torch API ----------------------------

def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def sliding_window(b, h, q_idx, kv_idx):
    return (q_idx - kv_idx).abs() <= 3


def _mods(T):
    """Named (score_mod, mask_mod) makers; captured tensors are made from T's seed."""
    T.manual_seed(5)
    bias = T.randn(64)
    slopes = T.tensor([0.5, 0.25, 0.125, 0.0625])
    doc = T.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4])
    head_bias = T.randn(2, 4, 17, 17)

    def document(b, h, q_idx, kv_idx):
        return doc[q_idx] == doc[kv_idx]

    def prefix(b, h, q_idx, kv_idx):
        return kv_idx < 4

    def per_batch_length(b, h, q_idx, kv_idx):
        return kv_idx < 5 + 3 * b + h

    return {
        "none": (None, None),
        "causal": (None, causal),
        "sliding window": (None, _fa(T).and_masks(causal, sliding_window)),
        "document": (None, document),
        "prefix lm": (None, _fa(T).or_masks(prefix, causal)),
        "per batch and head": (None, per_batch_length),
        "alibi": (lambda s, b, h, q, kv: s + slopes[h] * (kv - q), causal),
        "relative bias": (lambda s, b, h, q, kv: s + bias[q - kv + 20], None),
        "soft cap": (lambda s, b, h, q, kv: 5 * T.tanh(s / 5), None),
        "full bias": (lambda s, b, h, q, kv: s + head_bias[b, h, q, kv], sliding_window),
        "where in score_mod": (lambda s, b, h, q, kv: T.where(q >= kv, s, -float("inf")), None),
        "masked rows": (None, lambda b, h, q, kv: (q % 3 != 1) & (kv <= q + 5)),
        "noop mask": (lambda s, b, h, q, kv: s * 2, _fa(T).noop_mask),
        # a 0-d float64 tensor promotes vmap's 0-d score: the lse is float64
        "0-d wider tensor": (lambda s, b, h, q, kv: s * T.tensor(0.5, dtype=T.float64), None),
        # indexing one index at a time: vmap's semantics, which a broadcast call cannot give
        "chained indexing": (lambda s, b, h, q, kv: s + head_bias[b][h][q][kv],
                             lambda b, h, q, kv: doc[q] + 1 >= doc[:17][kv]),
    }


MODS = list(_mods(torch))


def _run(T, mods, q_shape, kv_shape, v_dim=None, dtype="float32", block_size=4, B=None,
         H=None, **kw):
    fa = _fa(T)
    q, k, v = _qkv(T, q_shape, kv_shape, v_dim, dtype)
    score_mod, mask_mod = _mods(T)[mods]
    block_mask = None
    if mask_mod is not None:
        block_mask = fa.create_block_mask(mask_mod, B, H, q_shape[2], kv_shape[2],
                                          BLOCK_SIZE=block_size)
    out, aux = fa.flex_attention(q, k, v, score_mod, block_mask,
                                 return_aux=fa.AuxRequest(lse=True), **kw)
    return out, aux.lse, out.stride()


@pytest.mark.parametrize("mods", MODS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mods_match_pytorch(mods, dtype):
    tol = 1e-5 if dtype == "float32" else 1e-12
    same(lambda T: _run(T, mods, (2, 4, 17, 8), (2, 4, 17, 8), v_dim=6, dtype=dtype, B=2, H=4),
         atol=tol, rtol=tol)


CASES = [
    ("gqa", "causal", (2, 4, 9, 8), (2, 2, 11, 8), dict(enable_gqa=True)),
    ("gqa one kv head", "alibi", (1, 4, 9, 8), (1, 1, 9, 8), dict(enable_gqa=True)),
    ("scale", "relative bias", (1, 2, 9, 8), (1, 2, 11, 8), dict(scale=0.3)),
    ("negative scale", "none", (1, 2, 9, 8), (1, 2, 11, 8), dict(scale=-0.5)),
    ("blocks larger than lengths", "causal", (1, 2, 9, 8), (1, 2, 11, 8), dict(block_size=128)),
    ("uneven blocks", "sliding window", (1, 2, 13, 4), (1, 2, 10, 4),
     dict(block_size=(5, 3))),
    ("block mask of one batch and head", "document", (3, 2, 17, 4), (3, 2, 17, 4), {}),
    ("key batch broadcast", "per batch and head", (2, 4, 17, 8), (1, 4, 17, 8),
     dict(B=2, H=4)),
    ("key batch broadcast gqa", "causal", (3, 4, 6, 8), (1, 2, 6, 8),
     dict(B=3, enable_gqa=True)),
    ("one query", "none", (2, 2, 1, 8), (2, 2, 16, 8), {}),
    ("head dim one", "causal", (1, 1, 5, 1), (1, 1, 5, 1), {}),
]


@pytest.mark.parametrize("name, mods, q_shape, kv_shape, kw", CASES, ids=[c[0] for c in CASES])
def test_shapes_and_options_match_pytorch(name, mods, q_shape, kv_shape, kw):
    same(lambda T: _run(T, mods, q_shape, kv_shape, **kw), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mods", ["document", "relative bias"])
def test_compiled_eager_path_is_the_same(mods):
    torch.nn.attention.flex_attention._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False
    same(lambda T: _run(T, mods, (2, 4, 17, 8), (2, 4, 17, 8), B=2, H=4), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_computes_scores_in_float32(dtype):
    # output in the input's dtype, lse in float32
    def prog(T):
        out, lse, stride = _run(T, "alibi", (1, 4, 9, 8), (1, 4, 9, 8), dtype=dtype)
        return out.dtype, out.float(), lse, stride
    same(prog, atol=2e-2, rtol=2e-2)


def test_mixed_dtypes_compute_in_querys_precision():
    def prog(T):
        q, k, v = _qkv(T, (1, 2, 5, 4), (1, 2, 6, 4), dtype="float64")
        out = _fa(T).flex_attention(q.float(), k, v.half(), return_lse=True)
        return out
    same(prog, atol=1e-3, rtol=1e-3)


def test_output_follows_the_querys_layout():
    def prog(T):
        _, k, v = _qkv(T, (1,), (2, 3, 7, 4))
        layouts = [T.randn(2, 5, 3, 4).transpose(1, 2), T.randn(5, 3, 2, 4).permute(2, 1, 0, 3),
                   T.randn(2, 3, 4, 5).transpose(-1, -2), T.randn(3, 5, 4, 2).permute(3, 0, 1, 2)]
        outs = [_fa(T).flex_attention(x, k, v) for x in layouts]
        return [(o, o.stride(), o.is_contiguous()) for o in outs]
    same(prog, atol=1e-6, rtol=1e-6)


def test_fully_masked_rows_give_zeros_and_minus_infinite_lse():
    def prog(T):
        q, k, v = _qkv(T, (1, 2, 6, 4), (1, 2, 6, 4))
        bm = _fa(T).create_block_mask(lambda b, h, qi, ki: (qi != 2) & (ki <= qi), None, None,
                                      6, 6, BLOCK_SIZE=2)
        out, lse = _fa(T).flex_attention(q, k, v, block_mask=bm, return_lse=True)
        return out, lse
    ours, _ = same(prog)
    assert (ours[0][:, :, 2] == 0).all() and (ours[1][:, :, 2] == -float("inf")).all()


def test_eager_path_ignores_block_sparsity_and_uses_mask_mod():
    # PyTorch's reference computes every score and applies mask_mod alone: a BlockMask
    # skipping blocks but with the noop mask_mod changes nothing
    def prog(T):
        q, k, v = _qkv(T, (1, 1, 5, 4), (1, 1, 7, 4))
        bm = _fa(T).BlockMask.from_kv_blocks(T.tensor([[[1]]], dtype=T.int32),
                                             T.tensor([[[[0, 1]]]], dtype=T.int32),
                                             BLOCK_SIZE=4, seq_lengths=(5, 7))
        return _fa(T).flex_attention(q, k, v, block_mask=bm), _fa(T).flex_attention(q, k, v)
    ours, _ = same(prog)
    assert chainrule.equal(*ours)


def test_autocast_runs_in_bfloat16():
    def prog(T):
        q, k, v = _qkv(T, (1, 2, 5, 8), (1, 2, 5, 8))
        with T.autocast("cpu"):
            out, lse = _fa(T).flex_attention(q, k, v, return_lse=True)
        return out.float(), out.dtype, lse
    same(prog, atol=2e-2, rtol=2e-2)


def test_score_mod_indices_are_int64_index_tensors():
    def prog(T):
        seen = []     # (PyTorch's compiled path would refuse this side effect)

        def score_mod(s, b, h, q, kv):
            seen.append((b.dtype, h.dtype, q.dtype, kv.dtype, s.dtype))
            return s
        q, k, v = _qkv(T, (1, 1, 3, 4), (1, 1, 3, 4), dtype="float64")
        _fa(T).flex_attention(q, k, v, score_mod)
        return seen[-1]
    same(prog)


# ---- gradients ---------------------------------------------------------------------------------

GRAD_CASES = [
    ("plain", None, None, {}),
    ("causal gqa", None, causal, dict(enable_gqa=True, hq=4)),
    ("relative bias", "bias", sliding_window, {}),
    ("alibi slopes", "slopes", causal, dict(scale=0.4)),
    ("masked rows", "bias", lambda b, h, q, kv: (q != 1) & (kv <= q), {}),
    ("chained indexing (vmap)", "table", causal, {}),
]


def _grad_inputs(T, hq, buffer):
    q, k, v = _qkv(T, (2, hq, 6, 4), (2, 2, 7, 4), v_dim=3, dtype="float64")
    T.manual_seed(9)
    captured = T.randn(*{"bias": (20,), "slopes": (4,), "table": (6, 7)}.get(buffer, (1,)),
                       dtype=T.float64)
    return [t.requires_grad_() for t in (q, k, v, captured)]


def _score_fn(buffer, T):
    """The score_mod with its captured tensor as a trailing argument (how PyTorch's op takes
    captured tensors)."""
    if buffer == "bias":
        return lambda s, b, h, q, kv, c: s + c[q - kv + 10]
    if buffer == "slopes":
        return lambda s, b, h, q, kv, c: s * c[h] + (kv - q)
    if buffer == "table":
        # PyTorch's backward fails on c[q][kv] (index shapes): it gets the same table as c[q, kv]
        if T is torch:
            return lambda s, b, h, q, kv, c: s * c[q, kv]
        return lambda s, b, h, q, kv, c: s * c[q][kv]
    return None


@pytest.mark.parametrize("name, buffer, mask_mod, kw", GRAD_CASES,
                         ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_pytorchs_flex_attention_autograd(name, buffer, mask_mod, kw):
    kw = dict(kw)
    hq, scale, gqa = kw.pop("hq", 2), kw.pop("scale", None), kw.pop("enable_gqa", False)

    def grads(T, out, lse, inputs):
        T.manual_seed(11)
        loss = (out * T.randn(out.shape, dtype=out.dtype)).sum() + (lse * T.arange(6.0)).sum()
        return [out, lse, *T.autograd.grad(loss, inputs)]

    # chainrule: the public function, the tensor captured by a closure
    q, k, v, c = inputs = _grad_inputs(chainrule, hq, buffer)
    fn = _score_fn(buffer, chainrule)
    fa = _fa(chainrule)
    bm = None if mask_mod is None else fa.create_block_mask(mask_mod, None, None, 6, 7, None, 3)
    score_mod = None if fn is None else lambda s, b, h, qi, kv: fn(s, b, h, qi, kv, c)
    out, aux = fa.flex_attention(q, k, v, score_mod, bm, scale, gqa,
                                 return_aux=fa.AuxRequest(lse=True))
    ours = grads(chainrule, out, aux.lse, inputs[:3] if fn is None else inputs)

    # PyTorch: its flex-attention op with autograd, which the CPU front end does not allow
    q, k, v, c = inputs = _grad_inputs(torch, hq, buffer)
    fn = _score_fn(buffer, torch)
    tfa = _fa(torch)
    bm = (tfa._create_empty_block_mask(q, k) if mask_mod is None
          else tfa.create_block_mask(mask_mod, None, None, 6, 7, None, 3))
    buffers = () if fn is None else (c,)
    out, lse, _ = torch_flex_hop(q, k, v, fn or tfa._identity, bm.as_tuple(), scale or 0.5, {},
                                 buffers, ())
    theirs = grads(torch, out, lse * np.log(2), inputs[:3 + len(buffers)])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-10,
                                   rtol=1e-10)


@pytest.mark.parametrize("buffer", ["bias", "table"])
def test_gradients_to_second_order(buffer):
    fa = _fa(chainrule)
    q, k, v, captured = _grad_inputs(chainrule, 2, buffer)
    q, k, v = q[:1, :1, :2, :2], k[:1, :1, :3, :2], v[:1, :1, :3, :2]
    bm = fa.create_block_mask(causal, None, None, 2, 3, BLOCK_SIZE=2)
    fn = _score_fn(buffer, chainrule)

    def f(q, k, v, captured):
        out, aux = fa.flex_attention(q, k, v,
                                     lambda s, b, h, qi, kv: fn(s, b, h, qi, kv, captured),
                                     bm, return_aux=fa.AuxRequest(lse=True))
        return out, aux.lse
    inputs = tuple(x.detach().requires_grad_() for x in (q, k, v, captured))
    assert chainrule.autograd.gradcheck(f, inputs)
    assert chainrule.autograd.gradgradcheck(f, inputs)


def test_pytorchs_cpu_build_refuses_gradients_chainrule_computes_them():
    def prog(T):
        q, k, v = (x.requires_grad_() for x in _qkv(T, (1, 1, 3, 4), (1, 1, 3, 4)))
        return _fa(T).flex_attention(q, k, v)
    with pytest.raises(NotImplementedError, match="does not support backward on CPU"):
        prog(torch)
    out = prog(chainrule)
    assert out.requires_grad and out.grad_fn is not None


def test_backward_needs_the_q_blocks():
    def prog(T):
        q, k, v = (x.requires_grad_() for x in _qkv(T, (1, 1, 4, 4), (1, 1, 4, 4)))
        bm = _fa(T).BlockMask.from_kv_blocks(T.ones(1, 1, 2, dtype=T.int32),
                                             T.zeros(1, 1, 2, 2, dtype=T.int32), BLOCK_SIZE=2,
                                             compute_q_blocks=False)
        return torch_flex_hop(q, k, v, _fa(T)._identity, bm.as_tuple(), 0.5, {})
    theirs = pytest.raises(RuntimeError, prog, torch)
    q, k, v = (x.requires_grad_() for x in _qkv(chainrule, (1, 1, 4, 4), (1, 1, 4, 4)))
    bm = _fa(chainrule).BlockMask.from_kv_blocks(
        chainrule.ones(1, 1, 2, dtype=chainrule.int32),
        chainrule.zeros(1, 1, 2, 2, dtype=chainrule.int32), BLOCK_SIZE=2,
        compute_q_blocks=False)
    with pytest.raises(RuntimeError) as ours:
        _fa(chainrule).flex_attention(q, k, v, block_mask=bm)
    assert str(ours.value) == str(theirs.value)
    with chainrule.no_grad():
        _fa(chainrule).flex_attention(q, k, v, block_mask=bm)


# ---- BlockMask ---------------------------------------------------------------------------------

def _layout(bm):
    """What of a BlockMask both libraries can compare (not the mask_mod function)."""
    return (bm.as_tuple()[:-1], bm.as_tuple(flatten=False)[:-1], bm.shape, bm.seq_lengths,
            bm.BLOCK_SIZE, bm.to_dense(), bm.numel(), bm.sparsity(), str(bm), repr(bm),
            bm.to_string(grid_size=-1), bm.to_string(grid_size=2, limit=1),
            bm.to_string(grid_size=(3, 1), limit=10))


BLOCK_MASKS = [
    ("causal", lambda T: _fa(T).create_block_mask(causal, None, None, 13, 10, BLOCK_SIZE=3)),
    ("per batch and head", lambda T: _fa(T).create_block_mask(
        _mods(T)["per batch and head"][1], 2, 3, 9, 12, BLOCK_SIZE=(2, 4))),
    ("no full blocks", lambda T: _fa(T).create_block_mask(
        causal, 1, 2, 16, 16, BLOCK_SIZE=4, separate_full_blocks=False)),
    ("document", lambda T: _fa(T).create_block_mask(_mods(T)["document"][1], 1, 1, 17, 17,
                                                    BLOCK_SIZE=2)),
    ("default block size", lambda T: _fa(T).create_block_mask(sliding_window, 1, 1, 300, 200,
                                                              "cpu")),
    ("dq write order", lambda T: _fa(T).create_block_mask(
        causal, 2, 2, 12, 12, BLOCK_SIZE=4, compute_dq_write_order=True)),
    ("dq write order ascending", lambda T: _fa(T).create_block_mask(
        sliding_window, 1, 2, 12, 12, BLOCK_SIZE=2, compute_dq_write_order=True,
        dq_kv_order=False)),
    ("from kv blocks", lambda T: _fa(T).BlockMask.from_kv_blocks(
        T.tensor([[[2, 1, 0]]], dtype=T.int32), T.tensor([[[[2, 0, 1], [1, 2, 0], [0, 1, 2]]]],
                                                         dtype=T.int32),
        T.tensor([[[1, 0, 2]]], dtype=T.int32), T.tensor([[[[1, 0, 2], [0, 1, 2], [0, 2, 1]]]],
                                                         dtype=T.int32), BLOCK_SIZE=(2, 3))),
    ("from kv blocks 2-D, no q blocks", lambda T: _fa(T).BlockMask.from_kv_blocks(
        T.tensor([1, 2], dtype=T.int32), T.tensor([[1, 0], [0, 1]], dtype=T.int32),
        compute_q_blocks=False, seq_lengths=(200, 256))),
]


@pytest.mark.parametrize("name, make", BLOCK_MASKS, ids=[c[0] for c in BLOCK_MASKS])
def test_block_mask_layout_matches_pytorch(name, make):
    same(lambda T: _layout(make(T)))


@pytest.mark.parametrize("index", [0, -1, (1, 2), (slice(0, 2), slice(1, 3)),
                                   (-2, slice(None), "rows"), (slice(None), 0, "rows"), 5],
                         ids=str)
def test_block_mask_slicing_matches_pytorch(index):
    def prog(T):
        bm = _fa(T).create_block_mask(_mods(T)["per batch and head"][1], 2, 3, 9, 12,
                                      BLOCK_SIZE=(2, 4), compute_dq_write_order=True)
        idx = tuple(T.tensor([3, 1], dtype=T.int32) if i == "rows" else i
                    for i in index) if isinstance(index, tuple) else index
        sliced = bm[idx]
        # an empty slice has no sparsity (a division by zero in both)
        layout = _layout(sliced)[:-3] if sliced.numel() else sliced.as_tuple()[:-1]
        return layout, sliced.dq_write_order, sliced.dq_write_order_full
    same(prog)


def test_sliced_block_mask_mod_cannot_be_used():
    def prog(T):
        q, k, v = _qkv(T, (1, 1, 4, 4), (1, 1, 4, 4))
        bm = _fa(T).create_block_mask(causal, 2, 1, 4, 4, BLOCK_SIZE=2)[0]
        return _fa(T).flex_attention(q, k, v, block_mask=bm)
    same_error(prog)

    def call_it(T):
        bm = _fa(T).create_block_mask(causal, 2, 1, 4, 4, BLOCK_SIZE=2)[:1]
        return bm.mask_mod(*(T.tensor(0),) * 4)
    same_error(call_it)


@pytest.mark.parametrize("lengths", [(9, 12), (5, 7), (1, 1), (12, 3)], ids=str)
def test_block_mask_adjust_matches_pytorch(lengths):
    def prog(T):
        bm = _fa(T).create_block_mask(sliding_window, 1, 2, 12, 12, BLOCK_SIZE=(2, 4),
                                      compute_dq_write_order=True)
        adjusted = bm._adjust(*lengths)
        q, k, v = _qkv(T, (1, 2, lengths[0], 4), (1, 2, lengths[1], 4))
        out = _fa(T).flex_attention(q, k, v, block_mask=adjusted)
        return _layout(adjusted), adjusted.dq_write_order, out
    same(prog, atol=1e-6, rtol=1e-6)


def test_block_mask_to_device_and_attributes():
    def prog(T):
        bm = _fa(T).create_block_mask(causal, 1, 1, 8, 8, BLOCK_SIZE=4).to("cpu")
        fields = [getattr(bm, a) for a in _fa(T).BlockMask._TENSOR_ATTRS]
        return (_layout(bm), fields, bm.dq_kv_order_spt, bm.mask_mod is causal,
                _fa(T).BlockMask._CONTEXT_ATTRS, bm._dq_kv_order())
    same(prog)


def test_block_mask_construction_errors():
    def fa(T):
        return _fa(T).BlockMask
    same_error(lambda T: fa(T).from_kv_blocks(T.ones(2, dtype=T.int32),
                                              T.zeros(2, dtype=T.int32)))
    same_error(lambda T: fa(T).from_kv_blocks(T.ones(1, 2, dtype=T.int32),
                                              T.zeros(1, 2, 2, dtype=T.int32),
                                              T.ones(1, 2, dtype=T.int32)))
    same_error(lambda T: fa(T).from_kv_blocks(T.ones(1, 2, dtype=T.int32),
                                              T.zeros(1, 2, 2, dtype=T.int32), dq_kv_order=1))
    same_error(lambda T: fa(T)((4, 4), T.ones(1, 1, dtype=T.int32),
                               T.zeros(1, 1, 1, dtype=T.int32), None, None, None, None,
                               T.ones(1, 1), None))
    same_error(lambda T: fa(T)((4, 4), T.ones(1, 1, dtype=T.int32),
                               T.zeros(1, 1, 1, dtype=T.int32), None, None, None, None, None,
                               None, dq_write_order_full=T.ones(1)))
    same_error(lambda T: _fa(T).create_block_mask(causal, 1, 1, 4, 4, dq_kv_order=None))
    for T in (torch, chainrule):
        with pytest.raises(AssertionError, match="create-block_mask requires a mask_mod "
                           "function! Got <function test_block_mask_construction_errors"):
            _fa(T).create_block_mask(lambda s, b, h, q, k: s, 1, 1, 4, 4)


def test_block_mask_with_tensor_dq_kv_order():
    def prog(T):
        bm = _fa(T).BlockMask.from_kv_blocks(
            T.ones(1, 1, 2, dtype=T.int32), T.zeros(1, 1, 2, 2, dtype=T.int32), BLOCK_SIZE=2,
            dq_write_order=T.zeros(1, 1, 2, 2, dtype=T.int32),
            dq_kv_order=T.tensor([[[1, 0]]], dtype=T.int32))
        return bm._dq_kv_order(), bm.dq_kv_order_spt, bm.as_tuple()[:-1]
    same(prog)

    def tensor_order(T):
        return _fa(T).BlockMask.from_kv_blocks(T.ones(1, 1, 2, dtype=T.int32),
                                               T.zeros(1, 1, 2, 2, dtype=T.int32),
                                               dq_kv_order=T.tensor([[[1, 0]]]))
    same_error(lambda T: tensor_order(T)[0])
    same_error(lambda T: tensor_order(T)._adjust(2, 2))


# ---- masks -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mods", ["causal", "document", "per batch and head", "alibi",
                                  "where in score_mod", "noop mask"])
def test_create_mask_matches_pytorch(mods):
    def prog(T):
        score_mod, mask_mod = _mods(T)[mods]
        fn = mask_mod if score_mod is None else score_mod
        masks = [_fa(T).create_mask(fn, 2, 4, 17, 17), _fa(T).create_mask(fn, None, None, 5, 3)]
        return [(m, m.stride()) for m in masks]
    same(prog)


def test_mask_combinators_and_noop_mask():
    def prog(T):
        fa = _fa(T)
        b, h, q, kv = T.tensor(0), T.tensor(1), T.arange(4)[:, None], T.arange(5)
        empty_or, empty_and = fa.or_masks(), fa.and_masks()
        return (fa.noop_mask(b, h, q, kv), empty_or(b, h, q, kv), empty_and(b, h, q, kv),
                fa.or_masks(causal, sliding_window)(b, h, q, kv),
                fa.and_masks(causal, sliding_window)(b, h, q, kv),
                fa.or_masks(causal).__name__, fa.and_masks().__name__)
    same(prog)
    same_error(lambda T: _fa(T).or_masks(causal, 3))
    same_error(lambda T: _fa(T).and_masks("causal"))


def test_mod_type_detection():
    def prog(T):
        fa = _fa(T)
        kinds = [fa._get_mod_type(f).name for f in (
            causal, lambda s, b, h, q, kv: s, lambda b, h, q, kv, extra=1: q,
            fa._identity, fa.noop_mask)]
        return kinds
    same(prog)
    same_error(lambda T: _fa(T)._get_mod_type(lambda b, h: b))


def test_create_block_mask_compile_flag_warns(monkeypatch):
    # PyTorch compiles create_block_mask with inductor (seconds); as written it is the same
    monkeypatch.setattr(torch, "compile", lambda fn: fn)

    def prog(T):
        bm = _fa(T).create_block_mask(causal, 1, 1, 8, 8, BLOCK_SIZE=4, _compile=True)
        return bm
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        theirs = warnings_of(lambda: prog(torch))
        ours = warnings_of(lambda: prog(chainrule))
    assert ours == theirs != []
    same(lambda T: _layout(prog(T)))


# ---- errors and warnings -----------------------------------------------------------------------

ERRORS = [
    ("heads", lambda T, q, k, v: _fa(T).flex_attention(q, k[:, :1], v[:, :1])),
    ("gqa heads", lambda T, q, k, v: _fa(T).flex_attention(
        T.cat([q, q[:, :1]], 1), k, v, enable_gqa=True)),
    ("embed dim", lambda T, q, k, v: _fa(T).flex_attention(q, k[..., :3], v)),
    ("3-D", lambda T, q, k, v: _fa(T).flex_attention(q[0], k[0], v[0])),
    ("1-D", lambda T, q, k, v: _fa(T).flex_attention(q, k, v[0, 0, 0])),
    ("batch", lambda T, q, k, v: _fa(T).flex_attention(q, k[:1], v[:1])),
    ("batch of block mask", lambda T, q, k, v: _fa(T).flex_attention(
        q, k[:1], v[:1], block_mask=_fa(T).create_block_mask(causal, 1, 1, 5, 6, BLOCK_SIZE=2))),
    ("batches do not broadcast", lambda T, q, k, v: _fa(T).flex_attention(
        q[:1].expand(3, -1, -1, -1), k, v,
        block_mask=_fa(T).create_block_mask(causal, 3, 1, 5, 6, BLOCK_SIZE=2))),
    ("mask too short", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, block_mask=_fa(T).create_block_mask(causal, 1, 1, 4, 6))),
    ("mask too long", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, block_mask=_fa(T).create_block_mask(causal, 1, 1, 5, 7))),
    ("lse and aux", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, return_lse=True, return_aux=_fa(T).AuxRequest(lse=True))),
    ("max scores", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, return_aux=_fa(T).AuxRequest(max_scores=True))),
    ("flash max scores", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, return_aux=_fa(T).AuxRequest(max_scores=True),
        kernel_options={"BACKEND": "FLASH"})),
    ("backend", lambda T, q, k, v: _fa(T).flex_attention(q, k, v,
                                                         kernel_options={"BACKEND": "CUDA"})),
    ("backend and force", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, kernel_options={"BACKEND": "AUTO", "FORCE_USE_FLEX_ATTENTION": True})),
    ("internal option", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, kernel_options={"OUTPUT_LOGSUMEXP": True})),
    ("internal max option", lambda T, q, k, v: _fa(T).flex_attention(
        q, k, v, kernel_options={"OUTPUT_MAX": False})),
]


@pytest.mark.parametrize("name, call", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_pytorch(name, call):
    same_error(lambda T: call(T, *_qkv(T, (2, 2, 5, 4), (2, 2, 6, 4))))


def test_kernel_options_are_accepted():
    def prog(T):
        q, k, v = _qkv(T, (1, 2, 5, 4), (1, 2, 6, 4))
        options = _fa(T).FlexKernelOptions(BLOCK_M=16, PRESCALE_QK=True, BACKEND="TRITON")
        return _fa(T).flex_attention(q, k, v, kernel_options=options)
    same(prog)


def test_warnings_match_pytorch():
    def prog(T):
        _fa(T)._WARNINGS_SHOWN.clear()
        _fa(T)._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False
        q, k, v = _qkv(T, (1, 1, 3, 4), (1, 1, 3, 4))
        for _ in range(2):     # each is given once per process
            _fa(T).flex_attention(q, k, v, return_lse=True)
        _fa(T)._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True
        try:
            _fa(T)._WARNINGS_SHOWN.clear()
            _fa(T).flex_attention(q, k, v)
        finally:
            _fa(T)._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False
    with warnings.catch_warnings():
        theirs = warnings_of(lambda: prog(torch))
        ours = warnings_of(lambda: prog(chainrule))
    assert [w[0] for w in theirs] == ["FutureWarning", "UserWarning"]
    assert ours == theirs


def test_public_types():
    def prog(T):
        fa = _fa(T)
        return (sorted(fa.__all__), sorted(fa.FlexKernelOptions.__annotations__),
                fa.AuxRequest(), fa.AuxRequest(lse=True)._fields, fa.AuxOutput()._fields,
                fa.AuxOutput(lse=None).max_scores, str(fa._score_mod_signature),
                str(fa._mask_mod_signature), fa._DEFAULT_SPARSE_BLOCK_SIZE,
                fa._LARGE_SPARSE_BLOCK_SIZE, [m.name for m in fa._ModificationType])
    ours, theirs = same(prog)
    assert str(ours[2]) == str(theirs[2])


# ---- paged attention (torch.nn.attention.experimental) -----------------------------------------

def _paged(T):
    import importlib
    return importlib.import_module(T.__name__ + ".nn.attention.experimental._paged_attention")


def _pages(T):
    """A PagedAttention of 8 pages of 4 tokens for 3 sequences after reserving and erasing."""
    pa = _paged(T).PagedAttention(8, 4, 3, device="cpu")
    for batch, length in ((0, 9), (1, 5), (2, 3), (2, 2)):
        pa.reserve(T.tensor([batch]), T.tensor([length]))
    pa.erase(T.tensor([1]))
    pa.reserve(T.tensor([1]), T.tensor([7]))
    return pa


def test_paged_attention_bookkeeping_matches_pytorch():
    def prog(T):
        pa = _pages(T)
        return pa.page_table, pa.capacity, pa.physical_to_logical, pa.empty_pages, pa.n_pages
    same(prog)


def test_paged_attention_matches_attention_on_the_logical_cache():
    def prog(T):
        pa = _pages(T)
        fa = _fa(T)
        T.manual_seed(0)
        B, H, S, D = 3, 2, 7, 4
        k, v, q = T.randn(B, H, S, D), T.randn(B, H, S, D), T.randn(B, H, 3, D)
        k_cache, v_cache = T.zeros(1, H, 32, D), T.zeros(1, H, 32, D)
        pa.assign(T.arange(B), T.arange(S).expand(B, S), k, v, k_cache, v_cache)
        kv_len = T.tensor([7, 6, 3])

        def window(b, h, q_idx, kv_idx):
            return kv_idx <= q_idx + 4

        def distance(s, b, h, q_idx, kv_idx):
            return s - (q_idx - kv_idx).abs()
        logical = fa.create_block_mask(window, B, H, 3, S, BLOCK_SIZE=(1, 4))
        physical = pa.convert_logical_block_mask(logical, kv_len=kv_len)
        out = fa.flex_attention(q, k_cache, v_cache, pa.get_score_mod(distance, kv_len),
                                physical)
        # the same attention on the logical keys and values, lengths masked
        length_mask = fa.and_masks(window, lambda b, h, q_idx, kv_idx: kv_idx < kv_len[b])
        reference = fa.flex_attention(q, k, v, distance,
                                      fa.create_block_mask(length_mask, B, H, 3, S,
                                                           BLOCK_SIZE=(1, 4)))
        none = pa.get_mask_mod(None)(T.tensor(0), T.tensor(0), T.tensor(0), T.arange(32))
        scores = pa.get_score_mod(None)(T.zeros(32), T.tensor(2), T.tensor(0), T.tensor(0),
                                        T.arange(32))
        return (k_cache, v_cache, _layout(physical)[:2], physical.mask_mod(
            T.arange(3)[:, None], T.tensor(0), T.tensor(0), T.arange(32)), out, reference,
            none, scores)
    ours, _ = same(prog, atol=1e-6, rtol=1e-6)
    np.testing.assert_allclose(ours[4].numpy(), ours[5].numpy(), atol=1e-6)


PAGED_ERRORS = [
    ("too many pages", lambda T, pa, x: pa.reserve(T.tensor([0]), T.tensor([40]))),
    ("grad", lambda T, pa, x: pa.assign(T.arange(3), T.zeros(3, 5, dtype=T.int64),
                                        x.requires_grad_(), x, T.zeros(1, 2, 32, 4),
                                        T.zeros(1, 2, 32, 4))),
    ("batch", lambda T, pa, x: pa.assign(T.arange(2), T.zeros(3, 5, dtype=T.int64), x, x,
                                         T.zeros(1, 2, 32, 4), T.zeros(1, 2, 32, 4))),
    ("heads", lambda T, pa, x: pa.assign(T.arange(3), T.zeros(3, 5, dtype=T.int64), x, x,
                                         T.zeros(1, 1, 32, 4), T.zeros(1, 2, 32, 4))),
    ("length", lambda T, pa, x: pa.assign(T.arange(3), T.zeros(3, 4, dtype=T.int64), x, x,
                                          T.zeros(1, 2, 32, 4), T.zeros(1, 2, 32, 4))),
    ("key dim", lambda T, pa, x: pa.assign(T.arange(3), T.zeros(3, 5, dtype=T.int64), x, x,
                                           T.zeros(1, 2, 32, 3), T.zeros(1, 2, 32, 4))),
    ("value dim", lambda T, pa, x: pa.assign(T.arange(3), T.zeros(3, 5, dtype=T.int64), x, x,
                                             T.zeros(1, 2, 32, 4), T.zeros(1, 2, 32, 5))),
    ("block size", lambda T, pa, x: pa.convert_logical_block_mask(
        _fa(T).create_block_mask(causal, 3, 1, 4, 8, BLOCK_SIZE=2))),
]


@pytest.mark.parametrize("name, call", PAGED_ERRORS, ids=[c[0] for c in PAGED_ERRORS])
def test_paged_attention_errors_match_pytorch(name, call):
    same_error(lambda T: call(T, _pages(T), T.zeros(3, 2, 5, 4)))
