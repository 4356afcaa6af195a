"""scaled_dot_product_attention, torch.nn.attention and MultiheadAttention against PyTorch
2.13's CPU build: the kernel PyTorch picks (the CPU flash kernel's node or the math
composition's graph), values, gradients, masks of each kind, GQA, dropout's random stream,
the backend flags and sdpa_kernel, the flash-attention registry, and errors."""
import logging

import pytest
import torch

import chainrule

from helpers import same, same_error, same_warnings


def _graph(fn, depth=0):
    if fn is None or depth == 10:
        return None if fn is None else fn.name()
    return (fn.name(), [_graph(n, depth + 1) for n, _ in fn.next_functions])


def _inputs(T, shapes, dtype=None, seed=0):
    T.manual_seed(seed)
    dtype = dtype or T.float64
    return [T.randn(*s, dtype=dtype).requires_grad_() for s in shapes]


def _sdpa(shapes, dtype=None, mask=None, **kw):
    """The output, its graph and the inputs' gradients of one SDPA call."""
    def prog(T):
        q, k, v = _inputs(T, shapes, dtype)
        m = None if mask is None else mask(T)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, m, **kw)
        out.backward(T.ones_like(out).cumsum(-1))
        grads = [q.grad, k.grad, v.grad]
        if m is not None and m.requires_grad:
            grads.append(m.grad)
        return out.detach(), _graph(out.grad_fn), grads
    return prog


def _bool_mask(*shape):
    def make(T):
        T.manual_seed(3)
        m = T.rand(*shape) > 0.3
        m[..., 0] = True
        return m
    return make


def _float_mask(*shape, requires_grad=False):
    def make(T):
        T.manual_seed(4)
        return T.randn(*shape, dtype=T.float64).requires_grad_(requires_grad)
    return make


Q4, K4, V4 = (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)
CASES = [
    # the CPU flash kernel: 4-D inputs of one head size, no dropout, masks it accepts
    ("flash", (Q4, K4, V4), {}),
    ("flash causal", (Q4, K4, V4), dict(is_causal=True)),
    ("flash scale", (Q4, K4, V4), dict(scale=0.3)),
    ("flash negative scale", (Q4, K4, V4), dict(scale=-0.4)),
    ("flash bool mask", (Q4, K4, V4), dict(mask=_bool_mask(4, 6))),
    ("flash float mask 4-D", (Q4, K4, V4), dict(mask=_float_mask(2, 1, 4, 6))),
    ("flash mask and causal", (Q4, K4, V4), dict(mask=_bool_mask(4, 6), is_causal=True)),
    ("flash gqa", ((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5)), dict(enable_gqa=True)),
    ("flash float32", (Q4, K4, V4), dict(dtype="float32")),
    # the math composition
    ("math value head size", (Q4, K4, (2, 3, 6, 7)), {}),
    ("math 3-D", ((3, 4, 5), (3, 6, 5), (3, 6, 5)), {}),
    ("math 2-D causal", ((4, 5), (6, 5), (6, 5)), dict(is_causal=True)),
    ("math 5-D", ((2, 2, 3, 4, 5), (2, 2, 3, 6, 5), (2, 2, 3, 6, 5)), {}),
    ("math causal", ((3, 4, 5), (3, 6, 5), (3, 6, 5)), dict(is_causal=True)),
    ("math bool mask", ((3, 4, 5), (3, 6, 5), (3, 6, 5)), dict(mask=_bool_mask(3, 4, 6))),
    ("math 1-D mask", ((3, 4, 5), (3, 6, 5), (3, 6, 5)), dict(mask=_bool_mask(6))),
    ("math float mask with grad", (Q4, K4, V4), dict(mask=_float_mask(4, 6, requires_grad=True))),
    ("math mask 3-D", (Q4, K4, V4), dict(mask=_float_mask(3, 4, 6))),
    ("math scale", ((3, 4, 5), (3, 6, 5), (3, 6, 5)), dict(scale=-0.7)),
    ("math gqa", ((2, 4, 3, 5), (2, 2, 6, 5), (2, 1, 6, 5)), dict(enable_gqa=True)),
    ("math batch broadcast", ((2, 3, 4, 5), (1, 3, 6, 5), (1, 3, 6, 5)), {}),
    ("math fully masked row", ((3, 4, 5), (3, 6, 5), (3, 6, 5)),
     dict(mask=lambda T: T.arange(6) < T.tensor([[0], [2], [6], [1]]))),
]


@pytest.mark.parametrize("name, shapes, kw", CASES, ids=[c[0] for c in CASES])
def test_sdpa_matches_pytorch(name, shapes, kw):
    kw = dict(kw)
    dtype = kw.pop("dtype", None)
    mask = kw.pop("mask", None)
    tol = 1e-5 if dtype else 1e-10

    def prog(T):
        return _sdpa(shapes, dtype and getattr(T, dtype), mask, **kw)(T)
    same(prog, atol=tol, rtol=tol)


def test_sdpa_fully_masked_rows_are_zero_in_both_kernels():
    def prog(T):
        q, k, v = _inputs(T, (Q4, K4, V4))
        m = T.ones(4, 6, dtype=T.bool)
        m[1] = False
        flash = T.nn.functional.scaled_dot_product_attention(q, k, v, m)
        math_ = T.nn.functional.scaled_dot_product_attention(q, k, v[..., :4], m)
        (flash.sum() + math_.sum()).backward()
        return flash[:, :, 1], math_[:, :, 1], q.grad[:, :, 1]
    same(prog)


def test_sdpa_reduced_precision():
    def prog(T):
        q, k, v = _inputs(T, (Q4, K4, (2, 3, 6, 3)))
        half = T.nn.functional.scaled_dot_product_attention(
            q.detach().half(), k.detach().half(), v.detach().half()[..., :5])
        q16 = q.detach().bfloat16().requires_grad_()
        bf = T.nn.functional.scaled_dot_product_attention(q16, k.detach().bfloat16(),
                                                          v.detach().bfloat16())
        bf.float().sum().backward()
        return half, bf.detach().float(), _graph(bf.grad_fn), q16.grad.float()
    same(prog, atol=1e-2, rtol=1e-2)


def test_sdpa_dropout_uses_pytorchs_random_stream():
    def prog(T):
        q, k, v = _inputs(T, ((3, 4, 5), (3, 6, 5), (3, 6, 5)))
        T.manual_seed(7)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
        out.sum().backward()
        return out, _graph(out.grad_fn), q.grad, T.rand(2)
    same(prog, atol=1e-12, rtol=1e-12)


def test_sdpa_dropout_one_and_four_d_dropout_takes_math():
    def prog(T):
        q, k, v = _inputs(T, (Q4, K4, V4))
        T.manual_seed(1)
        a = T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1)
        b = T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
        return a, b, _graph(b.grad_fn)
    same(prog, atol=1e-12, rtol=1e-12)


def test_flash_saved_values_and_no_double_backward():
    def prog(T):
        q, k, v = _inputs(T, (Q4, K4, V4))
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
        fn = out.grad_fn
        saved = [fn._saved_query, fn._saved_output, fn._saved_logsumexp, fn._saved_dropout_p,
                 fn._saved_is_causal, fn._saved_scale, fn._saved_attn_mask]
        gq, = T.autograd.grad(out.sum(), q, create_graph=True)
        try:
            gq.sum().backward()
        except RuntimeError as e:
            saved.append(str(e))
        return saved, gq.grad_fn.name(), gq.requires_grad
    same(prog)


def test_sdpa_no_grad_and_math_double_backward():
    def prog(T):
        q, k, v = _inputs(T, ((3, 4, 5), (3, 6, 5), (3, 6, 5)))
        with T.no_grad():
            plain = T.nn.functional.scaled_dot_product_attention(q, k, v)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        gq, = T.autograd.grad((out * out).sum(), q, create_graph=True)
        gq.sum().backward()
        return plain, gq, k.grad, v.grad, _graph(gq.grad_fn)
    same(prog)


def test_safe_softmax_op():
    def prog(T):
        x = T.tensor([[1.0, -float("inf"), 2.0], [-float("inf")] * 3],
                     dtype=T.float64, requires_grad=True)
        y = T._safe_softmax(x, -1) if T is torch else chainrule.ops.attention.safe_softmax(x, -1)
        y.backward(T.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=T.float64))
        return y, x.grad
    same(prog)


SDPA_ERRORS = [
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k.float(), v),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q[0, 0, 0], k, v),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.ones(4, 6, dtype=T.int64)),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.ones(4, 6, dtype=T.float16)),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.ones(6, dtype=T.bool)),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.ones(4, 6, dtype=T.bool), is_causal=True, dropout_p=0.1),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=1.5),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k[:, :2], v[:, :2]),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k[:, :2], v[:, :2], enable_gqa=True),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k[..., :4], v[..., :4]),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=T.ones(4, 7, dtype=T.bool)),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=1),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(
        q[0, 0], k[0, 0], v[0, 0], enable_gqa=True),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, None, 0.0, False,
                                                                    None, False),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, scale="x"),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p="x"),
    lambda T, q, k, v: T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=1),
]


@pytest.mark.parametrize("i", range(len(SDPA_ERRORS)))
def test_sdpa_errors(i):
    same_error(lambda T: SDPA_ERRORS[i](T, *_inputs(T, (Q4, K4, V4))))


# ---- backend flags and sdpa_kernel ----------------------------------------------------------

@pytest.mark.parametrize("backends", [
    "FLASH_ATTENTION", "MATH", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE",
    ["MATH", "FLASH_ATTENTION"], [], ["ERROR"]])
def test_sdpa_kernel_selects_as_pytorch(backends):
    def prog(T):
        A = T.nn.attention
        chosen = ([getattr(A.SDPBackend, b) for b in backends] if isinstance(backends, list)
                  else getattr(A.SDPBackend, backends))
        results = []
        q, k, v = _inputs(T, (Q4, K4, V4))
        with A.sdpa_kernel(chosen) as ctx:
            results.append(ctx)
            cuda = T.backends.cuda
            results.append([cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(),
                            cuda.mem_efficient_sdp_enabled(), cuda.cudnn_sdp_enabled()])
            for args in ((q, k, v), (q, k, v[..., :3]), (q[0], k[0], v[0])):
                try:
                    out = T.nn.functional.scaled_dot_product_attention(*args)
                    results.append((out.detach(), out.grad_fn.name()))
                except RuntimeError as e:
                    results.append(str(e))
        results.append(T.backends.cuda.flash_sdp_enabled())
        return results
    same(prog, atol=1e-10, rtol=1e-10)


def test_sdpa_kernel_priority_and_errors():
    def prog(T):
        A = T.nn.attention
        B = A.SDPBackend
        results = []
        with A.sdpa_kernel([B.MATH, B.FLASH_ATTENTION, B.MATH], set_priority=True):
            results.append(A._cur_sdpa_kernel_backends(with_priority=True))
        results.append(A._cur_sdpa_kernel_backends(with_priority=True))
        try:
            with A.sdpa_kernel((B.MATH,)):
                pass
        except AssertionError as e:
            results.append(str(e))
        T.backends.cuda.enable_flash_sdp(False)
        results.append(T.nn.functional.scaled_dot_product_attention(
            *_inputs(T, (Q4, K4, V4))).grad_fn.name())
        T.backends.cuda.enable_flash_sdp(True)
        results.append([(b.name, int(b)) for b in B.__members__.values()])
        results.append([repr(B.MATH), str(B.FLASH_ATTENTION), B.__name__,
                        B.__module__.split(".", 1)[1]])
        return [[str(b) for b in r] if isinstance(r, list) else r for r in results]
    same(prog)


def test_sdpa_params_and_fused_checks():
    def prog(T):
        A = T.nn.attention
        q, k, v = _inputs(T, (Q4, K4, V4))
        p = A.SDPAParams(q, k, v, None, 0.1, True, False)
        values = [p.query is q, p.key is k, p.value is v, p.attn_mask, p.dropout, p.is_causal,
                  p.enable_gqa, A.can_use_flash_attention(p), A.can_use_efficient_attention(p),
                  A.can_use_flash_attention(p, True), A.can_use_efficient_attention(p, debug=True),
                  T.backends.cuda.can_use_cudnn_attention(p, True), type(p).__name__,
                  T.backends.cuda.SDPAParams is A.SDPAParams,
                  A.can_use_flash_attention is T.backends.cuda.can_use_flash_attention]
        try:
            p.dropout = 0.5
        except AttributeError:
            values.append("read-only")
        try:
            A.SDPAParams(q, k, v, None, 0.0, False)
        except TypeError as e:
            values.append(str(e).split("\n")[0])
        A.WARN_FOR_UNFUSED_KERNELS = True
        try:
            A._raise_kernel_warnings(p)
        finally:
            A.WARN_FOR_UNFUSED_KERNELS = False
        return values
    same(prog)
    same_warnings(lambda T: (setattr(T.nn.attention, "WARN_FOR_UNFUSED_KERNELS", True),
                             T.nn.attention._raise_kernel_warnings(T.nn.attention.SDPAParams(
                                 *_inputs(T, (Q4, K4, V4)), None, 0.0, False, False)),
                             setattr(T.nn.attention, "WARN_FOR_UNFUSED_KERNELS", False)))


def test_flash_attention_registry(caplog):
    def prog(T):
        A = T.nn.attention
        results = [A.list_flash_attention_impls(), A.current_flash_attention_impl(),
                   A.WARN_FOR_UNFUSED_KERNELS]
        for impl in ("FA3", "FA4", "nope"):
            try:
                A.activate_flash_attention_impl(impl)
            except (ImportError, ValueError) as e:
                results.append((type(e).__name__, str(e)))

        class Handle:
            removed = 0

            def remove(self):
                Handle.removed += 1
        A.register_flash_attention_impl("Mine", register_fn=Handle)
        A.activate_flash_attention_impl("Mine")
        results += [A.current_flash_attention_impl(), A.list_flash_attention_impls()]
        A.restore_flash_attention_impl()
        results += [A.current_flash_attention_impl(), Handle.removed]
        with caplog.at_level(logging.WARNING):
            caplog.clear()
            A.restore_flash_attention_impl()
            results.append([r.getMessage() for r in caplog.records])
        A._registry._FLASH_ATTENTION_IMPLS.pop("Mine") if T is torch else \
            A._FLASH_ATTENTION_IMPLS.pop("Mine")
        return results
    same(prog)


def test_attention_names():
    import chainrule.nn.attention as ours
    import torch.nn.attention as theirs
    assert ours.__all__ == theirs.__all__
    assert ours.SDPBackend is chainrule.backends.cuda.SDPBackend


# ---- MultiheadAttention ---------------------------------------------------------------------

def _mha_graph(out):
    return _graph(out.grad_fn)


MHA = [
    (dict(embed_dim=8, num_heads=2), {}),
    (dict(embed_dim=8, num_heads=2, batch_first=True), {}),
    (dict(embed_dim=8, num_heads=4, bias=False, add_bias_kv=True, add_zero_attn=True), {}),
    (dict(embed_dim=8, num_heads=2, kdim=5, vdim=3), {}),
    (dict(embed_dim=8, num_heads=2), dict(need_weights=False)),
    (dict(embed_dim=8, num_heads=2), dict(average_attn_weights=False)),
    (dict(embed_dim=8, num_heads=2, batch_first=True), dict(key_padding_mask="bool")),
    (dict(embed_dim=8, num_heads=2), dict(key_padding_mask="float", need_weights=False)),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal", is_causal=True,
                                          need_weights=False)),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="causal", is_causal=True)),
    (dict(embed_dim=8, num_heads=2), dict(attn_mask="bool3d", key_padding_mask="bool")),
    (dict(embed_dim=8, num_heads=2, dropout=0.3), {}),
    (dict(embed_dim=8, num_heads=2, dropout=0.3), dict(need_weights=False)),
    (dict(embed_dim=8, num_heads=2, add_bias_kv=True), dict(key_padding_mask="bool",
                                                             attn_mask="causal")),
]


def _mha_masks(T, kw, L, S, N, H):
    kw = dict(kw)
    T.manual_seed(11)
    if kw.get("key_padding_mask") == "bool":
        m = T.rand(N, S) > 0.6
        m[:, 0] = False
        kw["key_padding_mask"] = m
    elif kw.get("key_padding_mask") == "float":
        kw["key_padding_mask"] = T.randn(N, S, dtype=T.float64)
    if kw.get("attn_mask") == "causal":
        kw["attn_mask"] = T.nn.Transformer.generate_square_subsequent_mask(L, dtype=T.float64)
    elif kw.get("attn_mask") == "bool3d":
        kw["attn_mask"] = T.rand(N * H, L, S) > 0.7
    return kw


@pytest.mark.parametrize("args, kw", MHA, ids=[str(i) for i in range(len(MHA))])
def test_multihead_attention_matches_pytorch(args, kw):
    L = S = 5
    N = 3

    def prog(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(**args, dtype=T.float64)
        E = args["embed_dim"]
        kdim, vdim = args.get("kdim", E), args.get("vdim", E)
        shape = (lambda n, s, e: (n, s, e)) if args.get("batch_first") else (
            lambda n, s, e: (s, n, e))
        x = T.randn(*shape(N, L, E), dtype=T.float64, requires_grad=True)
        if "kdim" in args:
            k = T.randn(*shape(N, S, kdim), dtype=T.float64)
            v = T.randn(*shape(N, S, vdim), dtype=T.float64)
        else:
            k = v = x
        masks = _mha_masks(T, kw, L, S, N, args["num_heads"])
        T.manual_seed(5)
        out, w = m(x, k, v, **masks)
        (out.sum() + (w.sum() if w is not None else 0)).backward()
        return ([(n, p.detach()) for n, p in m.named_parameters()], out, w,
                _mha_graph(out), x.grad, [(n, p.grad) for n, p in m.named_parameters()],
                list(m.state_dict()), repr(m), m._qkv_same_embed_dim)
    same(prog, atol=1e-10, rtol=1e-10)


def test_multihead_attention_unbatched_eval_and_functional():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(6, 3, dtype=T.float64).eval()
        x = T.randn(4, 6, dtype=T.float64)
        kpm = T.tensor([False, False, True, False])
        with T.no_grad():
            a = m(x, x, x, key_padding_mask=kpm)
            b = m(x.unsqueeze(1), x.unsqueeze(1), x.unsqueeze(1), need_weights=False)
        c = T.nn.functional.multi_head_attention_forward(
            x, x, x, 6, 3, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
            m.out_proj.weight, m.out_proj.bias, training=False,
            attn_mask=T.zeros(3, 4, 4, dtype=T.float64))
        q_w, k_w, v_w = m.in_proj_weight.chunk(3)
        d = T.nn.functional.multi_head_attention_forward(
            x, x, x, 6, 3, None, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight,
            m.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=q_w,
            k_proj_weight=k_w, v_proj_weight=v_w, need_weights=False)
        return a, b, c, d
    same(prog, atol=1e-10, rtol=1e-10)


def test_multihead_attention_init_and_attributes():
    def prog(T):
        T.manual_seed(2)
        m = T.nn.MultiheadAttention(6, 2, kdim=4, vdim=3, bias=False, add_bias_kv=True)
        n = T.nn.MultiheadAttention(6, 3, batch_first=True, dropout=0.1)
        return ([(k, v) for k, v in m.state_dict().items()], list(n.state_dict()), repr(m),
                repr(n), m.head_dim, n.dropout, n.batch_first, m.in_proj_weight,
                type(n.out_proj).__name__, repr(n.out_proj), m.bias_k.shape,
                n.in_proj_bias.detach(), n.out_proj.bias.detach())
    same(prog)


def test_multihead_attention_import_paths():
    # PyTorch defines MultiheadAttention in nn.modules.activation and its out_proj class in
    # nn.modules.linear; programs import them from there.
    def prog(T):
        from importlib import import_module
        act = import_module(T.__name__ + ".nn.modules.activation")
        lin = import_module(T.__name__ + ".nn.modules.linear")
        m = act.MultiheadAttention(4, 2)
        return (act.MultiheadAttention is T.nn.MultiheadAttention,
                "MultiheadAttention" in act.__all__, type(m.out_proj).__module__.split(".", 1)[1],
                isinstance(m.out_proj, lin.NonDynamicallyQuantizableLinear),
                issubclass(lin.NonDynamicallyQuantizableLinear, lin.Linear),
                repr(lin.NonDynamicallyQuantizableLinear(3, 2)))
    same(prog)
    from chainrule.nn.modules.activation import MultiheadAttention  # noqa: F401
    from chainrule.nn.modules.linear import NonDynamicallyQuantizableLinear  # noqa: F401


MHA_ERRORS = [
    lambda T, m, x: T.nn.MultiheadAttention(7, 2),
    lambda T, m, x: T.nn.MultiheadAttention(0, 2),
    lambda T, m, x: T.nn.MultiheadAttention(6, 0),
    lambda T, m, x: m(x, x, x, is_causal=True),
    lambda T, m, x: m(x[0, 0], x[0, 0], x[0, 0]),
    lambda T, m, x: m(x, x[0], x[0]),
    lambda T, m, x: m(x, x, x, key_padding_mask=T.zeros(3, dtype=T.bool)),
    lambda T, m, x: m(x, x, x, key_padding_mask=T.zeros(3, 4, dtype=T.int64)),
    lambda T, m, x: m(x, x, x, attn_mask=T.zeros(4, 5)),
    lambda T, m, x: m(x, x, x, attn_mask=T.zeros(3, 4, 4)),
    lambda T, m, x: m(x, x, x, attn_mask=T.zeros(1, 1, 4, 4)),
    lambda T, m, x: m(x, x, x, key_padding_mask=T.zeros(2, 4, dtype=T.bool)),
    lambda T, m, x: m(x[..., :4], x[..., :4], x[..., :4]),
    lambda T, m, x: m(x, x, x[:3]),
]


@pytest.mark.parametrize("i", range(len(MHA_ERRORS)))
def test_multihead_attention_errors(i):
    def prog(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(6, 2)
        return MHA_ERRORS[i](T, m, T.randn(4, 3, 6))
    same_error(prog)


def test_multihead_attention_mask_type_warning():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(6, 2)
        x = T.randn(4, 3, 6)
        return m(x, x, x, key_padding_mask=T.zeros(3, 4, dtype=T.bool),
                 attn_mask=T.zeros(4, 4))
    same_warnings(prog)


# ---- nn.attention.bias ----------------------------------------------------------------------

@pytest.mark.parametrize("make, lq, lkv", [
    ("causal_upper_left", 4, 6), ("causal_lower_right", 4, 6), ("causal_lower_right", 5, 5),
    ("causal_upper_left", 6, 4)])
def test_causal_bias(make, lq, lkv):
    def prog(T):
        import importlib
        bias = importlib.import_module(f"{T.__name__}.nn.attention.bias")
        b = getattr(bias, make)(lq, lkv)
        q, k, v = _inputs(T, ((2, 3, lq, 5), (2, 3, lkv, 5), (2, 3, lkv, 5)))
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, b)
        out.sum().backward()
        return (out, _graph(out.grad_fn), q.grad, k.grad, b._materialize(), repr(b), b.shape,
                int(b.variant), b.variant.name, b.seq_len_q, b.seq_len_kv,
                isinstance(b, T.Tensor), [v.name for v in bias.CausalVariant])
    same(prog, atol=1e-10, rtol=1e-10)


def test_causal_bias_errors_and_warnings():
    def bias(T):
        import importlib
        return importlib.import_module(f"{T.__name__}.nn.attention.bias")
    same_warnings(lambda T: bias(T).causal_lower_right(6, 4))
    same_error(lambda T: bias(T).causal_upper_left(1, 2, 3))
    same_error(lambda T: bias(T).causal_lower_right(4))
    same_error(lambda T: bias(T).CausalBias(1, 2, 3))
    same_error(lambda T: T.nn.functional.scaled_dot_product_attention(
        *_inputs(T, (Q4, K4, V4)), bias(T).causal_lower_right(4, 6), is_causal=True))
    same_error(lambda T: T.nn.functional.scaled_dot_product_attention(
        *_inputs(T, (Q4, K4, V4))[:2], _inputs(T, (V4,), T.float32)[0],
        bias(T).causal_lower_right(4, 6)))

    def warn_unfused(T):
        A = T.nn.attention
        A.WARN_FOR_UNFUSED_KERNELS = True
        try:
            T.nn.functional.scaled_dot_product_attention(*_inputs(T, (Q4, K4, V4)),
                                                         bias(T).causal_lower_right(4, 6))
        finally:
            A.WARN_FOR_UNFUSED_KERNELS = False
    same_warnings(warn_unfused)


def test_multihead_attention_inference_fast_path_values():
    """In inference PyTorch's batch-first self-attention takes its fused fast path
    (_native_multi_head_attention); chainrule's composite path gives the same values."""
    def prog(T):
        T.manual_seed(0)
        m = T.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = T.randn(3, 5, 8)
        pad = T.arange(5).unsqueeze(0) >= T.tensor([5, 3, 4]).unsqueeze(1)
        causal = T.ones(5, 5, dtype=T.bool).triu(1)
        with T.no_grad():
            return [m(x, x, x), m(x, x, x, key_padding_mask=pad),
                    m(x, x, x, need_weights=False, key_padding_mask=pad),
                    m(x, x, x, attn_mask=causal, average_attn_weights=False),
                    m.merge_masks(causal, pad, x), m.merge_masks(None, pad, x),
                    m.merge_masks(T.zeros(6, 5, 5), None, x)]
    same(prog, atol=1e-6, rtol=1e-6)


def _mha_args(T, **kw):
    T.manual_seed(0)
    m = T.nn.MultiheadAttention(6, 2, dtype=T.float64)
    x = T.randn(4, 3, 6, dtype=T.float64)
    args = dict(query=x, key=x, value=x, embed_dim_to_check=6, num_heads=2,
                in_proj_weight=m.in_proj_weight, in_proj_bias=m.in_proj_bias, bias_k=None,
                bias_v=None, add_zero_attn=False, dropout_p=0.0,
                out_proj_weight=m.out_proj.weight, out_proj_bias=m.out_proj.bias)
    args.update(kw)
    return args


def test_multi_head_attention_forward_static_kv():
    def prog(T):
        T.manual_seed(1)
        static = T.randn(6, 5, 3, dtype=T.float64, requires_grad=True)
        out, w = T.nn.functional.multi_head_attention_forward(
            **_mha_args(T, static_k=static, static_v=static * 2, add_zero_attn=True))
        out.sum().backward()
        return out, w, static.grad, _graph(out.grad_fn)
    same(prog, atol=1e-10, rtol=1e-10)


MHA_F_ERRORS = [
    lambda T: _mha_args(T, bias_k=T.zeros(1, 1, 6, dtype=T.float64)),
    lambda T: _mha_args(T, bias_v=T.zeros(1, 1, 6, dtype=T.float64)),
    lambda T: _mha_args(T, bias_k=T.zeros(1, 1, 6, dtype=T.float64),
                        bias_v=T.zeros(1, 1, 6, dtype=T.float64), static_k=T.zeros(6, 4, 3)),
    lambda T: _mha_args(T, static_k=T.zeros(5, 4, 3, dtype=T.float64)),
    lambda T: _mha_args(T, static_v=T.zeros(6, 4, 2, dtype=T.float64)),
    lambda T: _mha_args(T, in_proj_weight=None),
    lambda T: _mha_args(T, use_separate_proj_weight=True),
    lambda T: _mha_args(T, embed_dim_to_check=5),
    lambda T: _mha_args(T, use_separate_proj_weight=True, q_proj_weight=T.zeros(6, 6),
                        k_proj_weight=T.zeros(6, 5), v_proj_weight=T.zeros(6, 6)),
    lambda T: _mha_args(T, key_padding_mask=T.zeros(3, 4), attn_mask=T.zeros(4, 4),
                        is_causal=True, need_weights=False, query=T.zeros(4, 3, 6)),
]


@pytest.mark.parametrize("i", range(len(MHA_F_ERRORS)))
def test_multi_head_attention_forward_errors(i):
    same_error(lambda T: T.nn.functional.multi_head_attention_forward(**MHA_F_ERRORS[i](T)))


# only the flash kernel enabled: PyTorch warns why it cannot run, then raises
FLASH_ONLY = [
    lambda T, q, k, v: ((q, k, v), {}),
    lambda T, q, k, v: ((q, k, v, None, 0.1), {}),
    lambda T, q, k, v: ((q[0], k[0], v[0]), {}),
    lambda T, q, k, v: ((q[:1], k, v), {}),
    lambda T, q, k, v: ((q, k, v[:, :1]), dict(enable_gqa=True)),
    lambda T, q, k, v: ((q[:, :3], k, v), dict(enable_gqa=True)),
    lambda T, q, k, v: ((q[:, :2], k, v, T.ones(3, 6).requires_grad_()), {}),
    lambda T, q, k, v: ((q[:, :2], k, v, T.ones(2, 3, 6)), {}),
    lambda T, q, k, v: ((q[:, :2], k, v, T.ones(3, 7)), {}),
    lambda T, q, k, v: ((q[:, :2], k, v[..., :3]), {}),
    lambda T, q, k, v: ((q[:, :2].transpose(-1, -2).contiguous().transpose(-1, -2), k, v), {}),
    lambda T, q, k, v: ((q[:, :2].transpose(-1, -2).contiguous().transpose(-1, -2), k, v,
                         T.ones(6, 3).t()), {}),
    lambda T, q, k, v: (((q[:, :2] * 10).long(), (k * 10).long(), (v * 10).long()), {}),
    # accepted: a strided mask, an empty query
    lambda T, q, k, v: ((q[:, :2], k, v, T.ones(6, 3).t()), {}),
    lambda T, q, k, v: ((q[:, :2, :0], k, v), {}),
]


@pytest.mark.parametrize("i", range(len(FLASH_ONLY)))
def test_flash_only_warnings_and_errors(i):
    from helpers import error_of, warnings_of

    def prog(T):
        T.manual_seed(0)
        args, kw = FLASH_ONLY[i](T, T.randn(2, 4, 3, 5), T.randn(2, 2, 6, 5),
                                 T.randn(2, 2, 6, 5))
        A = T.nn.attention
        result = []
        with A.sdpa_kernel(A.SDPBackend.FLASH_ATTENTION):
            caught = warnings_of(lambda: result.append(error_of(
                lambda: result.append(T.nn.functional.scaled_dot_product_attention(*args,
                                                                                   **kw)))))
        error = result[-1]
        return caught, None if error is None else (type(error).__name__, str(error)), \
            result[0] if error is None else None
    same(prog)


@pytest.mark.parametrize("shapes", [
    ((2, 2, 3, 5), (2, 2, 0, 5), (2, 2, 0, 4)), ((2, 2, 0, 5), (2, 2, 6, 5), (2, 2, 6, 4)),
    ((2, 0, 3, 5), (2, 0, 6, 5), (2, 0, 6, 4)), ((2, 2, 3, 5), (2, 2, 6, 5), (2, 2, 6, 0)),
    ((2, 2, 3, 5), (2, 2, 6, 5), (2, 2, 0, 4)), ((0, 5), (6, 5), (6, 4)),
    ((2, 2, 3, 0), (2, 2, 6, 0), (2, 2, 6, 4))])
def test_sdpa_empty_inputs(shapes):
    def prog(T):
        q, k, v = _inputs(T, shapes)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v)
        out.sum().backward()
        return out, _graph(out.grad_fn), q.grad, k.grad, v.grad, out.stride()
    same(prog)


def test_flash_causal_mask_precedes_scaling():
    """PyTorch's CPU flash kernel masks causally before scaling, so a negative scale turns the
    masked scores into +inf (NaN rows), while the math path and a plain mask do not."""
    def prog(T):
        q, k, v = _inputs(T, ((1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 2)))
        sdpa = T.nn.functional.scaled_dot_product_attention
        mask = T.ones(3, 4, dtype=T.bool).tril()
        return [sdpa(q, k, v, is_causal=True, scale=-0.3),
                sdpa(q, k, v[..., :1], is_causal=True, scale=-0.3),
                sdpa(q, k, v, mask, scale=-0.3), sdpa(q, k, v, is_causal=True, scale=0.3)]
    same(prog)
