"""Recurrent layers and nn.utils.rnn against PyTorch 2.13: seeded modules (parameters bit for
bit), outputs, final states, gradients and graphs (Note [Recurrent graphs]), dropout between
layers, unbatched, batch_first and PackedSequence input, state_dict keys, reprs, the
flat-weights functions, packing utilities, and PyTorch's errors."""
import warnings

import numpy as np
import pytest
import torch

import chainrule

from helpers import same, same_error, same_warnings


def _graph(fn, depth=0):
    """Node names to depth 8 (deep enough to cover a few time steps)."""
    if fn is None:
        return None
    if depth == 8:
        return type(fn).__name__
    return (type(fn).__name__, [_graph(n, depth + 1) for n, _ in fn.next_functions])


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


MODULES = [
    (lambda nn: nn.RNN(3, 4), (5, 2, 3)),
    (lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu", bidirectional=True, batch_first=True),
     (2, 5, 3)),
    (lambda nn: nn.RNN(3, 4, 1, "relu", False), (4, 3)),
    (lambda nn: nn.GRU(3, 4, 2, bidirectional=True), (5, 2, 3)),
    (lambda nn: nn.GRU(3, 4, batch_first=True, bias=False), (2, 5, 3)),
    (lambda nn: nn.GRU(3, 4), (6, 3)),
    (lambda nn: nn.LSTM(3, 4, 2, bidirectional=True), (5, 2, 3)),
    (lambda nn: nn.LSTM(3, 5, 2, proj_size=2, batch_first=True), (2, 4, 3)),
    (lambda nn: nn.LSTM(3, 5, proj_size=3, bidirectional=True, bias=False), (4, 3)),
    (lambda nn: nn.LSTM(3, 4, 3, dropout=0.5), (5, 2, 3)),
    (lambda nn: nn.GRU(3, 4, 3, dropout=0.3, batch_first=True), (2, 5, 3)),
    (lambda nn: nn.RNN(3, 4, 2, dropout=0.4, bidirectional=True), (5, 2, 3)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("i", range(len(MODULES)))
def test_modules_match_pytorch(i, dtype):
    build, shape = MODULES[i]
    a = np.random.default_rng(i).standard_normal(shape)

    def prog(T):
        T.manual_seed(i)
        m = build(T.nn).to(getattr(T, dtype))
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        out, hidden = m(x)
        hs = hidden if isinstance(hidden, tuple) else (hidden,)
        loss = (out * out).sum() + sum((h * h).sum() for h in hs)
        grads = T.autograd.grad(loss, [x] + list(m.parameters()))
        # oneDNN runs PyTorch's float32 LSTM as one fused node: compare graphs elsewhere
        fused = dtype == "float32" and isinstance(m, T.nn.LSTM) and m.proj_size == 0
        graphs = None if fused else (_graph(out.grad_fn), [_graph(h.grad_fn) for h in hs])
        if fused:
            out, hidden = out.detach(), tuple(h.detach() for h in hs)
        return ([p.detach() for p in m.parameters()], out, hidden, grads, graphs,
                list(m.state_dict()), m._flat_weights_names, repr(m),
                [[tuple(p.shape) for p in w] for w in m.all_weights])
    tol = 1e-5 if dtype == "float32" else 1e-7
    ours, theirs = same(prog, atol=tol, rtol=tol * 10)
    for o, t in zip(ours[0], theirs[0]):    # seeded parameters: PyTorch's, bit for bit
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_initial_states_and_double_backward(cls, rng):
    a = rng.standard_normal((4, 2, 3))
    h = rng.standard_normal((2, 2, 4)) * 0.5

    def prog(T):
        T.manual_seed(3)
        m = getattr(T.nn, cls)(3, 4, num_layers=2, dtype=T.float64)
        x = T.tensor(a, requires_grad=True)
        h0 = T.tensor(h, requires_grad=True)
        hx = (h0, h0 * 2) if cls == "LSTM" else h0
        out, _ = m(x, hx)
        g = T.autograd.grad((out * out).sum(), (x, h0), create_graph=True)
        gg = T.autograd.grad(sum((t * t).sum() for t in g), (x, h0))
        return out, g[0].detach(), g[1].detach(), gg
    same(prog)


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells(cls, batched, rng):
    a = rng.standard_normal((3, 3) if batched else (3,))
    h = rng.standard_normal((3, 4) if batched else (4,))

    def prog(T):
        T.manual_seed(1)
        m = getattr(T.nn, cls)(3, 4, dtype=T.float64)
        x = T.tensor(a, requires_grad=True)
        hx = T.tensor(h, requires_grad=True)
        out0 = m(x)
        out = m(x, (hx, hx * 0.5) if cls == "LSTMCell" else hx)
        first = out[0] if isinstance(out, tuple) else out
        grads = T.autograd.grad((first * first).sum(), [x, hx] + list(m.parameters()))
        return (out0, out, grads, _graph(first.grad_fn), repr(m), list(m.state_dict()),
                [p.detach() for p in m.parameters()])
    same(prog)


def test_rnn_cell_options():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.RNNCell(3, 4, bias=False, nonlinearity="relu")
        x = T.arange(6.).reshape(2, 3) / 7
        return m(x), repr(m), list(m.state_dict()), m.bias_ih
    same(prog)


def test_packed_sequences_through_modules(rng):
    seqs = [rng.standard_normal((n, 3)) for n in (4, 2, 3, 3)]
    builds = [lambda nn: nn.LSTM(3, 4, 2, bidirectional=True),
              lambda nn: nn.GRU(3, 4, batch_first=True),
              lambda nn: nn.RNN(3, 4, bidirectional=True, nonlinearity="relu"),
              lambda nn: nn.LSTM(3, 5, proj_size=2)]
    for build in builds:
        def prog(T):
            T.manual_seed(0)
            m = build(T.nn).double()
            xs = [T.tensor(s, requires_grad=True) for s in seqs]
            packed = T.nn.utils.rnn.pack_sequence(xs, enforce_sorted=False)
            out, h = m(packed)
            padded, lengths = T.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
            hs = h if isinstance(h, tuple) else (h,)
            loss = (padded * padded).sum() + sum((t * t).sum() for t in hs)
            grads = T.autograd.grad(loss, xs + list(m.parameters()))
            return (type(out).__name__, out.data, out.batch_sizes, out.sorted_indices,
                    out.unsorted_indices, padded, lengths, h, grads, _graph(out.data.grad_fn))
        same(prog)


def test_packed_with_initial_state(rng):
    a = rng.standard_normal((4, 3, 3))
    h = rng.standard_normal((1, 3, 4))

    def prog(T):
        T.manual_seed(0)
        m = T.nn.GRU(3, 4, dtype=T.float64)
        x, h0 = T.tensor(a, requires_grad=True), T.tensor(h, requires_grad=True)
        packed = T.nn.utils.rnn.pack_padded_sequence(x, T.tensor([2, 4, 3]),
                                                     enforce_sorted=False)
        out, hn = m(packed, h0)
        return out.data, hn, T.autograd.grad(hn.sum() + out.data.sum(), (x, h0))
    same(prog)


# ---- the flat-weights functions ------------------------------------------------------------

def _w(T, gates, inp, hid, rng_seed=0, bias=True):
    g = np.random.default_rng(rng_seed)
    ws = [g.standard_normal((gates * hid, inp)), g.standard_normal((gates * hid, hid))]
    if bias:
        ws += [g.standard_normal(gates * hid), g.standard_normal(gates * hid)]
    return [T.tensor(w, requires_grad=True) for w in ws]


@pytest.mark.parametrize("name, gates", [("rnn_tanh", 1), ("rnn_relu", 1), ("gru", 3)])
def test_functional_forms(name, gates, rng):
    a = rng.standard_normal((4, 2, 3)) * 0.5

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        h0 = T.zeros(1, 2, 4, dtype=T.float64)
        w = _w(T, gates, 3, 4)
        out, hn = getattr(T, name)(x, h0, w, True, 1, 0.0, False, False, False)
        out2, hn2 = getattr(T, name)(x.transpose(0, 1), h0, w[:2], False, 1, 0.0, False, False,
                                     True)
        return out, hn, out2, hn2, T.autograd.grad(out.sum() + out2.sum(), [x] + w)
    same(prog)


def test_lstm_functional_form(rng):
    a = rng.standard_normal((4, 2, 3)) * 0.5

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        h0 = T.zeros(1, 2, 4, dtype=T.float64)
        w = _w(T, 4, 3, 4)
        out, hn, cn = T.lstm(x, [h0, h0 + 0.5], w, True, 1, 0.0, False, False, False)
        c1 = T.lstm_cell(x[0], [h0[0], h0[0]], *w)
        return out, hn, cn, c1, T.autograd.grad(out.sum() + cn.sum(), [x] + w)
    same(prog)


def test_public_names():
    for T in (torch, chainrule):
        functions = (T.rnn_tanh, T.rnn_relu, T.lstm, T.gru, T.rnn_tanh_cell, T.rnn_relu_cell,
                     T.lstm_cell, T.gru_cell, T._pack_padded_sequence, T._pad_packed_sequence)
        assert all(callable(f) for f in functions)
        modules = (T.nn.RNNBase, T.nn.RNN, T.nn.LSTM, T.nn.GRU, T.nn.RNNCellBase, T.nn.RNNCell,
                   T.nn.LSTMCell, T.nn.GRUCell)
        assert all(issubclass(m, T.nn.Module) for m in modules)
        R = T.nn.utils.rnn
        assert all(callable(f) for f in (
            R.PackedSequence, R.invert_permutation, R.pack_padded_sequence,
            R.pad_packed_sequence, R.pad_sequence, R.unpad_sequence, R.pack_sequence,
            R.unpack_sequence))
    for name in torch.nn.utils.rnn.__all__:
        assert hasattr(chainrule.nn.utils.rnn, name), name
    for name in torch.nn.modules.rnn.__all__:
        assert hasattr(chainrule.nn, name), name


# ---- errors ---------------------------------------------------------------------------------

def _x(T, *shape, dtype="float64"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


FUNCTION_ERRORS = [
    lambda T: T.rnn_tanh(_x(T, 5, 2, 3), _x(T, 1, 2, 4), _w(T, 1, 3, 4)[:3], True, 1, 0.0,
                         True, False, False),
    lambda T: T.rnn_tanh(_x(T, 5, 2, 3), _x(T, 1, 2, 4), _w(T, 1, 3, 4), True, 2, 0.0, True,
                         False, False),
    lambda T: T.rnn_tanh(_x(T, 5, 2, 3), _x(T, 1, 2, 4), _w(T, 1, 3, 4), True, 1, 0.0, True,
                         True, False),
    lambda T: T.rnn_tanh(_x(T, 0, 2, 3), _x(T, 1, 2, 4), _w(T, 1, 3, 4), True, 1, 0.0, True,
                         False, False),
    lambda T: T.lstm(_x(T, 5, 2, 3), [_x(T, 1, 2, 4)], _w(T, 4, 3, 4), True, 1, 0.0, True,
                     False, False),
    lambda T: T.lstm(_x(T, 5, 2, 3), [_x(T, 2, 4), _x(T, 1, 2, 4)], _w(T, 4, 3, 4), True, 1,
                     0.0, True, False, False),
    lambda T: T.lstm(_x(T, 5, 2, 3), [_x(T, 1, 2, 4), _x(T, 2, 4)], _w(T, 4, 3, 4), True, 1,
                     0.0, True, False, False),
    lambda T: T.rnn_tanh_cell(_x(T, 2, 2), _x(T, 2, 4), *_w(T, 1, 3, 4)),
    lambda T: T.rnn_tanh_cell(_x(T, 1, 3), _x(T, 2, 4), *_w(T, 1, 3, 4)),
    lambda T: T.rnn_tanh_cell(_x(T, 2, 3), _x(T, 2, 2), *_w(T, 1, 3, 4)),
    lambda T: T.rnn_relu_cell(_x(T, 2, 3), _x(T, 2, 4), _w(T, 1, 3, 4)[0][:2],
                              *_w(T, 1, 3, 4)[1:]),
    lambda T: T.gru_cell(_x(T, 2, 3), _x(T, 2, 4), *_w(T, 1, 3, 4)),
    lambda T: T.gru_cell(_x(T, 2, 3), _x(T, 1, 4), *_w(T, 3, 3, 4)),
    lambda T: T.lstm_cell(_x(T, 2, 3), [_x(T, 2, 4)], *_w(T, 4, 3, 4)),
    lambda T: T.lstm_cell(_x(T, 2, 3), [_x(T, 2, 4), _x(T, 2, 4)], *_w(T, 1, 3, 4)),
    lambda T: T.lstm_cell(_x(T, 2, 3), [_x(T, 2, 4), _x(T, 2, 3)], *_w(T, 4, 3, 4)),
    lambda T: T.lstm_cell(_x(T, 2, 2), [_x(T, 2, 4), _x(T, 2, 4)], *_w(T, 4, 3, 4)),
]


@pytest.mark.parametrize("i", range(len(FUNCTION_ERRORS)))
def test_function_errors(i):
    same_error(FUNCTION_ERRORS[i])


CONSTRUCTOR_ERRORS = [
    lambda nn: nn.RNN(3, 4, dropout=1.5),
    lambda nn: nn.RNN(3, 4, dropout=True),
    lambda nn: nn.LSTM(3, 4, bias=1),
    lambda nn: nn.LSTM(3, 4, batch_first=None),
    lambda nn: nn.GRU(3.0, 4),
    lambda nn: nn.GRU(0, 4),
    lambda nn: nn.GRU(3, "4"),
    lambda nn: nn.GRU(3, 0),
    lambda nn: nn.LSTM(3, 4, 0),
    lambda nn: nn.LSTM(3, 4, proj_size=-1),
    lambda nn: nn.LSTM(3, 4, proj_size=4),
    lambda nn: nn.GRU(3, 4, proj_size=2),
    lambda nn: nn.RNN(3, 4, proj_size=2),
    lambda nn: nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda nn: nn.RNNBase("FOO", 3, 4),
]


@pytest.mark.parametrize("i", range(len(CONSTRUCTOR_ERRORS)))
def test_constructor_errors(i):
    same_error(lambda T: CONSTRUCTOR_ERRORS[i](T.nn))


def test_lstm_projections_warn_once_as_pytorch():
    """PyTorch's float32 LSTM goes to oneDNN, which has no projections: it warns once per
    process and runs the composite path."""
    from chainrule.ops import shape as shape_ops
    message = "LSTM with projections is not supported with oneDNN. Using default implementation."
    shape_ops._warned.discard(message)
    run = lambda T: T.nn.LSTM(3, 5, proj_size=2)(T.zeros(2, 1, 3))   # noqa: E731
    ours = [(w.category.__name__, str(w.message)) for w in _caught(lambda: run(chainrule))]
    assert ours == [("UserWarning", message)]
    assert _caught(lambda: run(chainrule)) == []
    theirs = [str(w.message).split(" (Triggered")[0] for w in _caught(lambda: run(torch))]
    assert theirs in ([], [message])


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return caught


def test_dropout_with_one_layer_warns():
    same_warnings(lambda T: T.nn.GRU(3, 4, dropout=0.2))


FORWARD_ERRORS = [
    lambda T, nn: nn.RNN(3, 4)(_x(T, 5, 2, 3, dtype="float32").double()),
    lambda T, nn: nn.RNN(3, 4)(_x(T, 5, 2, 2, dtype="float32")),
    lambda T, nn: nn.GRU(3, 4)(_x(T, 5, 2, 3, 1, dtype="float32")),
    lambda T, nn: nn.LSTM(3, 4)(_x(T, 5, dtype="float32")),
    lambda T, nn: nn.RNN(3, 4)(_x(T, 5, 2, 3, dtype="float32"), _x(T, 1, 3, 4, dtype="float32")),
    lambda T, nn: nn.RNN(3, 4)(_x(T, 5, 2, 3, dtype="float32"), _x(T, 2, 4, dtype="float32")),
    lambda T, nn: nn.GRU(3, 4)(_x(T, 5, 3, dtype="float32"), _x(T, 1, 2, 4, dtype="float32")),
    lambda T, nn: nn.LSTM(3, 4)(_x(T, 5, 2, 3, dtype="float32"),
                                (_x(T, 1, 2, 4, dtype="float32"), _x(T, 2, 4, dtype="float32"))),
    lambda T, nn: nn.LSTM(3, 4)(_x(T, 5, 3, dtype="float32"),
                                (_x(T, 1, 2, 4, dtype="float32"), _x(T, 2, 4, dtype="float32"))),
    lambda T, nn: nn.LSTM(3, 4)(_x(T, 5, 2, 3, dtype="float32"),
                                (_x(T, 1, 2, 4, dtype="float32"), _x(T, 1, 2, 3, dtype="float32"))),
    lambda T, nn: nn.LSTM(3, 5, proj_size=2)(_x(T, 5, 2, 3, dtype="float32"),
                                             (_x(T, 1, 2, 5, dtype="float32"),
                                              _x(T, 1, 2, 5, dtype="float32"))),
    lambda T, nn: nn.RNNCell(3, 4)(_x(T, 2, 3, 1, dtype="float32")),
    lambda T, nn: nn.RNNCell(3, 4)(_x(T, 2, 3, dtype="float32"), _x(T, 1, 2, 4, dtype="float32")),
    lambda T, nn: nn.GRUCell(3, 4)(_x(T, 2, 3, 1, dtype="float32")),
    lambda T, nn: nn.LSTMCell(3, 4)(_x(T, 2, 3, 1, dtype="float32")),
    lambda T, nn: nn.LSTMCell(3, 4)(_x(T, 2, 3, dtype="float32"),
                                    (_x(T, 2, 4, dtype="float32"),
                                     _x(T, 1, 2, 4, dtype="float32"))),
]


@pytest.mark.parametrize("i", range(len(FORWARD_ERRORS)))
def test_forward_errors(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda T: FORWARD_ERRORS[i](T, T.nn))


# ---- nn.utils.rnn ---------------------------------------------------------------------------

def test_pad_and_pack_utilities(rng):
    arrays = [rng.standard_normal((n, 2)) for n in (3, 2, 4)]

    def prog(T):
        R = T.nn.utils.rnn
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        padded = R.pad_sequence(xs)
        left = R.pad_sequence(xs, batch_first=True, padding_value=-1.0, padding_side="left")
        packed = R.pack_sequence(xs, enforce_sorted=False)
        unpacked, lengths = R.pad_packed_sequence(packed, batch_first=True, padding_value=9.0,
                                                  total_length=6)
        pieces = R.unpack_sequence(packed)
        unpadded = R.unpad_sequence(padded.clone(), T.tensor([3, 2, 4]))
        grads = T.autograd.grad((padded * padded).sum() + (left * 3).sum()
                                + (unpacked * unpacked).sum() + sum(p.sum() for p in pieces),
                                xs)
        return (padded, left, packed.data, packed.batch_sizes, packed.sorted_indices,
                packed.unsorted_indices, unpacked, lengths, pieces, unpadded, grads,
                _graph(padded.grad_fn), _graph(packed.data.grad_fn), _graph(unpacked.grad_fn),
                repr(R.pack_sequence([x.detach() for x in xs], enforce_sorted=False)))
    same(prog)


def test_pack_padded_sequence_batch_first_and_double_backward(rng):
    a = rng.standard_normal((3, 4, 2))

    def prog(T):
        R = T.nn.utils.rnn
        x = T.tensor(a, requires_grad=True)
        packed = R.pack_padded_sequence(x, [4, 3, 1], batch_first=True)
        g, = T.autograd.grad((packed.data * packed.data * packed.data).sum(), x,
                            create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), x)
        return packed.data, packed.batch_sizes, g, gg, _graph(g.grad_fn)
    same(prog)


def test_packed_sequence_type():
    def prog(T):
        R = T.nn.utils.rnn
        data, sizes = T.arange(6.).reshape(3, 2), T.tensor([2, 1])
        p = R.PackedSequence(data, sizes)
        q = R.PackedSequence((data, sizes))
        r = R.PackedSequence(data, sizes, T.tensor([1, 0]))
        return (p, q.data, r.unsorted_indices, p.double().data, p.long().data, p.to(T.int32).data,
                p.is_cuda, isinstance(p, tuple), type(p).__name__, p._fields,
                R.invert_permutation(T.tensor([2, 0, 3, 1])), R.invert_permutation(None))
    same(prog)


PACK_ERRORS = [
    lambda R, T: T._pack_padded_sequence(_x(T, 4, 3, 2), T.tensor([4., 2, 1]), False),
    lambda R, T: R.pack_padded_sequence(_x(T, 4, 3, 2), [4, 2]),
    lambda R, T: R.pack_padded_sequence(_x(T, 4, 3, 2), [4, 2, 0]),
    lambda R, T: R.pack_padded_sequence(_x(T, 4, 3, 2), [2, 4, 1]),
    lambda R, T: R.pack_padded_sequence(_x(T, 0, 3, 2), [0, 0, 0]),
    lambda R, T: R.pack_padded_sequence(_x(T, 4, 3, 2), [4, 2, 1], batch_first=True),
    lambda R, T: T._pack_padded_sequence(_x(T, 4, 3, 2), T.tensor([[4, 2, 1]]), False),
    lambda R, T: T._pack_padded_sequence(_x(T, 4, 3, 2), T.tensor([4, 2, 1]).int(), False),
    lambda R, T: R.pad_sequence([]),
    lambda R, T: R.pad_sequence([_x(T, 2), _x(T, 3)], padding_side="middle"),
    lambda R, T: R.pad_sequence(5),
    lambda R, T: R.pad_packed_sequence(R.pack_sequence([_x(T, 3, 2), _x(T, 2, 2)]),
                                       total_length=2),
    lambda R, T: R.PackedSequence(_x(T, 3)),
]


@pytest.mark.parametrize("i", range(len(PACK_ERRORS)))
def test_pack_errors(i):
    same_error(lambda T: PACK_ERRORS[i](T.nn.utils.rnn, T))


def test_lstm_trains_like_pytorch(rng):
    """A few Adam steps of an LSTM tagger on packed sequences give PyTorch's parameters."""
    seqs = [rng.standard_normal((n, 3)) for n in (5, 3, 4)]
    targets = [rng.standard_normal((n, 2)) for n in (5, 3, 4)]

    def prog(T):
        T.manual_seed(5)
        lstm, head = T.nn.LSTM(3, 6, batch_first=True), T.nn.Linear(6, 2)
        params = list(lstm.parameters()) + list(head.parameters())
        opt = T.optim.Adam(params, lr=0.01)
        R = T.nn.utils.rnn
        xs = [T.tensor(s, dtype=T.float32) for s in seqs]
        ys = R.pad_sequence([T.tensor(t, dtype=T.float32) for t in targets], batch_first=True)
        for _ in range(3):
            opt.zero_grad()
            out, _ = lstm(R.pack_sequence(xs, enforce_sorted=False))
            padded, _ = R.pad_packed_sequence(out, batch_first=True)
            loss = ((head(padded) - ys) ** 2).mean()
            loss.backward()
            opt.step()
        return loss, [p.detach() for p in params]
    same(prog, atol=1e-5, rtol=1e-4)


def test_copies_and_weight_assignment():
    """deepcopy keeps _flat_weights tied to the copy's parameters; assigning a parameter
    updates _flat_weights (RNNBase.__setattr__), as in PyTorch."""
    import copy

    def prog(T):
        T.manual_seed(0)
        m = T.nn.LSTM(3, 4, 2)
        c = copy.deepcopy(m)
        m.weight_ih_l0 = T.nn.Parameter(T.zeros(16, 3))
        x = T.ones(2, 1, 3)
        return (c._flat_weights[0] is c.weight_ih_l0, m._flat_weights[0] is m.weight_ih_l0,
                c(x)[0].detach(), m(x)[0].detach(), repr(copy.deepcopy(T.nn.Upsample(size=3))))
    same(prog)
