"""Transformer, TransformerEncoder/Decoder and their layers against PyTorch 2.13: seeded
initialisation (every parameter), outputs, gradients of every parameter and the input, the
graph's node names, masks of each kind, norm_first, activations given as strings, functions
or modules, batch_first both ways, dropout in training, the encoder's nested-tensor warnings
and padded output in inference, causal-mask detection, reprs, state_dict keys and errors."""
import pytest

import chainrule

from helpers import same, same_error, same_warnings


def _graph(fn, depth=0):
    if fn is None or depth == 12:
        return None if fn is None else fn.name()
    return (fn.name(), [_graph(n, depth + 1) for n, _ in fn.next_functions])


def _result(T, m, out, *inputs):
    """What a run returns for comparison: parameters, output, its graph, every gradient."""
    out.backward(T.ones_like(out).cumsum(-1))
    return [[(n, p.detach()) for n, p in m.named_parameters()], out.detach(),
            _graph(out.grad_fn), [x.grad for x in inputs],
            [(n, p.grad) for n, p in m.named_parameters()]]


def _x(T, *shape, seed=1):
    T.manual_seed(seed)
    return T.randn(*shape, dtype=T.float64, requires_grad=True)


def _activation(T, name):
    return {"relu": "relu", "gelu": "gelu", "F.gelu": T.nn.functional.gelu,
            "GELU": T.nn.GELU(), "ReLU": T.nn.ReLU(), "tanh": T.tanh}[name]


def _padding(T, N, S, kind="bool"):
    lengths = T.tensor([S, S - 2, S - 1][:N])
    pad = T.arange(S).unsqueeze(0) >= lengths.unsqueeze(1)
    return pad if kind == "bool" else pad.double() * -1e4


ENCODER_LAYERS = [
    (dict(), dict()),
    (dict(norm_first=True, activation="gelu"), dict()),
    (dict(batch_first=True, activation="F.gelu"), dict(mask="causal")),
    (dict(activation="GELU", norm_first=True), dict(padding="bool")),
    (dict(activation="tanh", batch_first=True), dict(padding="float")),
    (dict(bias=False), dict(mask="causal", is_causal=True)),
    (dict(layer_norm_eps=1e-3, dropout=0.2), dict(mask="bool")),
    (dict(dropout=0.3, batch_first=True), dict(mask="causal", padding="bool")),
]


@pytest.mark.parametrize("args, call", ENCODER_LAYERS,
                         ids=[str(i) for i in range(len(ENCODER_LAYERS))])
def test_encoder_layer(args, call):
    S, N, E = 5, 3, 8

    def prog(T):
        kw = dict(args)
        if "activation" in kw:
            kw["activation"] = _activation(T, kw["activation"])
        T.manual_seed(0)
        m = T.nn.TransformerEncoderLayer(E, 2, 16, dtype=T.float64, **kw)
        x = _x(T, *((N, S, E) if kw.get("batch_first") else (S, N, E)))
        masks = {}
        if call.get("mask") == "causal":
            masks["src_mask"] = T.nn.Transformer.generate_square_subsequent_mask(
                S, dtype=T.float64)
        elif call.get("mask") == "bool":
            masks["src_mask"] = T.ones(S, S, dtype=T.bool).triu(1)
        if "padding" in call:
            masks["src_key_padding_mask"] = _padding(T, N, S, call["padding"])
        if "is_causal" in call:
            masks["is_causal"] = call["is_causal"]
        T.manual_seed(7)
        out = m(x, **masks)
        return _result(T, m, out, x) + [m.activation_relu_or_gelu]
    same(prog, atol=1e-10, rtol=1e-10)


DECODER_LAYERS = [
    (dict(), dict()),
    (dict(norm_first=True, batch_first=True), dict(tgt_mask="causal")),
    (dict(activation="gelu"), dict(tgt_mask="causal", tgt_is_causal=True,
                                   memory_padding=True, tgt_padding=True)),
    (dict(dropout=0.25, activation="ReLU"), dict(memory_mask=True)),
]


def _decoder_masks(T, call, L, S, N):
    masks = {}
    if call.get("tgt_mask") == "causal":
        masks["tgt_mask"] = T.nn.Transformer.generate_square_subsequent_mask(L, dtype=T.float64)
    if call.get("memory_mask"):
        masks["memory_mask"] = T.zeros(L, S, dtype=T.float64)
        masks["memory_mask"][0, 1] = -float("inf")
    if call.get("memory_padding"):
        masks["memory_key_padding_mask"] = _padding(T, N, S)
    if call.get("tgt_padding"):
        masks["tgt_key_padding_mask"] = _padding(T, N, L)
    if "tgt_is_causal" in call:
        masks["tgt_is_causal"] = call["tgt_is_causal"]
    return masks


@pytest.mark.parametrize("args, call", DECODER_LAYERS,
                         ids=[str(i) for i in range(len(DECODER_LAYERS))])
def test_decoder_layer(args, call):
    L, S, N, E = 4, 5, 3, 8

    def prog(T):
        kw = dict(args)
        if "activation" in kw:
            kw["activation"] = _activation(T, kw["activation"])
        T.manual_seed(0)
        m = T.nn.TransformerDecoderLayer(E, 2, 12, dtype=T.float64, **kw)
        bf = kw.get("batch_first")
        tgt = _x(T, *((N, L, E) if bf else (L, N, E)))
        memory = _x(T, *((N, S, E) if bf else (S, N, E)), seed=2)
        masks = _decoder_masks(T, call, L, S, N)
        T.manual_seed(7)
        out = m(tgt, memory, **masks)
        return _result(T, m, out, tgt, memory)
    same(prog, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer(batch_first, norm_first):
    S, L, N, E = 5, 4, 2, 8

    def prog(T):
        T.manual_seed(0)
        m = T.nn.Transformer(E, 2, 2, 2, 16, dropout=0.1, batch_first=batch_first,
                             norm_first=norm_first, dtype=T.float64)
        src = _x(T, *((N, S, E) if batch_first else (S, N, E)))
        tgt = _x(T, *((N, L, E) if batch_first else (L, N, E)), seed=2)
        T.manual_seed(3)
        out = m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(L, dtype=T.float64),
                src_key_padding_mask=_padding(T, N, S),
                memory_key_padding_mask=_padding(T, N, S))
        return _result(T, m, out, src, tgt) + [list(m.state_dict()), m.d_model, m.nhead]
    same(prog, atol=1e-9, rtol=1e-9)


def test_transformer_unbatched_and_custom_parts():
    def prog(T):
        T.manual_seed(0)
        enc = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(6, 3, 10, dropout=0.0),
                                      2, enable_nested_tensor=False)
        dec = T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(6, 3, 10, dropout=0.0), 1,
                                      norm=T.nn.LayerNorm(6))
        m = T.nn.Transformer(6, 3, custom_encoder=enc, custom_decoder=dec)
        src, tgt = T.randn(5, 6), T.randn(3, 6)
        out = m(src, tgt, src_mask=T.nn.Transformer.generate_square_subsequent_mask(5))
        return out, repr(m), [n for n, _ in m.named_parameters()]
    same(prog, atol=1e-6, rtol=1e-6)


def test_generate_square_subsequent_mask():
    same(lambda T: (T.nn.Transformer.generate_square_subsequent_mask(4),
                    T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float64),
                    T.nn.Transformer.generate_square_subsequent_mask(1, device="cpu")))


def test_encoder_detects_causal_masks():
    """A mask equal to the subsequent mask is passed on as is_causal (the same values)."""
    def prog(T):
        T.manual_seed(0)
        layer = T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, dtype=T.float64)
        m = T.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        x = _x(T, 5, 2, 4)
        causal = T.nn.Transformer.generate_square_subsequent_mask(5, dtype=T.float64)
        seen = []
        m.layers[0].register_forward_pre_hook(
            lambda mod, args, kwargs: seen.append(kwargs["is_causal"]), with_kwargs=True)
        a = m(x, mask=causal)
        b = m(x, mask=T.zeros(5, 5, dtype=T.float64))
        c = m(x, mask=causal, is_causal=False)
        return a, b, c, seen
    same(prog, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("kind", ["left aligned", "not left aligned", "training", "grad",
                                  "no mask check"])
def test_encoder_inference_padding(kind):
    """In inference PyTorch runs the encoder on a nested tensor of the unpadded rows and pads
    its output with zeros (before the final norm)."""
    def prog(T):
        T.manual_seed(0)
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        m = T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(8),
                                    mask_check=kind != "no mask check")
        x = T.randn(3, 5, 8)
        pad = _padding(T, 3, 5)
        if kind == "not left aligned":
            pad = pad.flip(1)
        if kind != "training":
            m.eval()
        if kind == "grad":
            return m(x, src_key_padding_mask=pad).detach()
        with T.no_grad():
            return m(x, src_key_padding_mask=pad)
    same(prog, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.TransformerEncoderLayer(8, 2),
    lambda T: T.nn.TransformerEncoderLayer(8, 2, batch_first=True, norm_first=True),
    lambda T: T.nn.TransformerEncoderLayer(8, 2, batch_first=True, bias=False),
    lambda T: T.nn.TransformerEncoderLayer(8, 2, batch_first=True, activation=T.tanh),
    lambda T: T.nn.TransformerEncoderLayer(8, 1, batch_first=True),
    lambda T: T.nn.Linear(8, 8),
])
def test_encoder_nested_tensor_warnings(make):
    def prog(T):
        T.manual_seed(0)
        m = T.nn.TransformerEncoder(make(T), 1)
        return m.use_nested_tensor
    same_warnings(prog)
    same(lambda T: (prog(T), T.nn.TransformerEncoder(
        make(T), 1, enable_nested_tensor=False).use_nested_tensor))


def test_no_warning_when_nested_tensors_apply():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, batch_first=True), 3)
        return m.use_nested_tensor, m.enable_nested_tensor, m.mask_check, m.num_layers
    assert not any("nested" in str(w) for w in __import__("helpers").warnings_of(
        lambda: prog(chainrule)))
    same(prog)


def test_reprs_and_state_dict():
    def prog(T):
        T.manual_seed(0)
        enc = T.nn.TransformerEncoderLayer(8, 2, 16, norm_first=True)
        dec = T.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True, bias=False)
        return (repr(enc), repr(dec), list(enc.state_dict()), list(dec.state_dict()),
                [(n, p) for n, p in dec.named_parameters()])
    same(prog)


ERRORS = [
    lambda T: T.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda T: T.nn.TransformerDecoderLayer(8, 2, activation="swish"),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(T.randn(5, 2, 8), T.randn(4, 3, 8)),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(T.randn(2, 5, 8),
                                                                  T.randn(3, 4, 8)),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(T.randn(5, 2, 8), T.randn(4, 2, 6)),
    lambda T: T.nn.TransformerEncoderLayer(8, 3),
    lambda T: T.nn.TransformerEncoderLayer(8, 2)(T.randn(5, 2, 8),
                                                 src_key_padding_mask=T.zeros(2, 5).long()),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    same_error(ERRORS[i])


def test_mask_type_mismatch_warns():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.TransformerEncoderLayer(8, 2, 16)
        return m(T.randn(5, 2, 8), src_mask=T.zeros(5, 5),
                 src_key_padding_mask=T.zeros(2, 5, dtype=T.bool))
    same_warnings(prog)


def test_deepcopy_keeps_state():
    def prog(T):
        import copy
        T.manual_seed(0)
        m = T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation="gelu").eval()
        d = T.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0).eval()
        a = T.nn.MultiheadAttention(4, 2, kdim=3, vdim=3).eval()
        x, k = T.randn(3, 2, 4), T.randn(5, 2, 3)
        outs = []
        for clone in (copy.deepcopy,):
            outs += [clone(m)(x), clone(d)(x, x), clone(a)(x, k, k)[0],
                     clone(a)._qkv_same_embed_dim]
        return outs
    same(prog, atol=1e-6, rtol=1e-6)
