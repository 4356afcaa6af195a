"""Op-database entries for the recurrent functions (ops/recurrent.py): torch.rnn_tanh,
rnn_relu, gru and lstm in their flat-weights forms (plain and packed), the cell functions, and
the packing row (_pack_padded_sequence). The recurrent functions are composites of other rows
(Note [Recurrent graphs]), so these entries check values, gradients and graphs end to end;
the weights are inputs that require grad like the sequence."""
import numpy as np

from . import OpInfo, Sample, randn

_CELL_OPS = ("addmm", "unsafe_split.Tensor", "sigmoid", "tanh", "stack", "unbind.int")


def _weights(rng, gates, input_size, hidden, layers=1, directions=1, bias=True, proj=0):
    out = []
    real = proj or hidden
    for layer in range(layers):
        for _ in range(directions):
            size = input_size if layer == 0 else real * directions
            out += [randn(rng, gates * hidden, size), randn(rng, gates * hidden, real)]
            if bias:
                out += [randn(rng, gates * hidden), randn(rng, gates * hidden)]
            if proj:
                out.append(randn(rng, proj, hidden))
    return out


def _one_hidden(name, gates):
    def samples(rng):
        w1 = _weights(rng, gates, 3, 4)
        w2 = _weights(rng, gates, 3, 4, layers=2, directions=2, bias=False)
        return [Sample(randn(rng, 4, 2, 3), 0.5 * randn(rng, 1, 2, 4), *w1, True, 1, 0.0,
                       False, False, False, name="one layer"),
                Sample(randn(rng, 2, 3, 3), 0.5 * randn(rng, 4, 2, 4), *w2, False, 2, 0.0,
                       False, True, True, name="two layers, bidirectional, batch_first")]
    return samples


def _rnn_call(name):
    def call(lib, x, h, *rest):
        n = len(rest) - 6
        return getattr(lib, name)(x, h, list(rest[:n]), *rest[n:])
    return call


def _lstm_samples(rng):
    w1 = _weights(rng, 4, 3, 4, layers=2)
    w2 = _weights(rng, 4, 3, 5, directions=2, proj=2)
    return [Sample(randn(rng, 3, 2, 3), 0.5 * randn(rng, 2, 2, 4), 0.5 * randn(rng, 2, 2, 4),
                   *w1, True, 2, 0.0, False, False, False, name="two layers"),
            Sample(randn(rng, 2, 3, 3), 0.5 * randn(rng, 2, 2, 2), 0.5 * randn(rng, 2, 2, 5),
                   *w2, True, 1, 0.0, False, True, True,
                   name="bidirectional, projections, batch_first")]


def _lstm_call(lib, x, h, c, *rest):
    n = len(rest) - 6
    return lib.lstm(x, [h, c], list(rest[:n]), *rest[n:])


_BATCH_SIZES = np.array([3, 2, 2, 1])


def _packed_samples(gates):
    def samples(rng):
        return [Sample(randn(rng, 8, 3), 0.5 * randn(rng, 2, 3, 4),
                       *_weights(rng, gates, 3, 4, directions=2), name="bidirectional")]
    return samples


def _packed_call(name):
    def call(lib, data, h, *w):
        batch_sizes = lib.tensor(_BATCH_SIZES)
        if name == "lstm":
            return lib.lstm(data, batch_sizes, [h, h * 0.5], list(w), True, 1, 0.0, False, True)
        return getattr(lib, name)(data, batch_sizes, h, list(w), True, 1, 0.0, False, True)
    return call


def _cell_samples(gates):
    def samples(rng):
        w = _weights(rng, gates, 3, 4)
        return [Sample(randn(rng, 2, 3), 0.5 * randn(rng, 2, 4), *w),
                Sample(randn(rng, 2, 3), 0.5 * randn(rng, 2, 4), *w[:2], name="no bias")]
    return samples


def _lstm_cell_call(lib, x, h, *w):
    return lib.lstm_cell(x, [h, h * 0.5], *w)


def _pack_samples(rng):
    return [Sample(randn(rng, 4, 3, 2), np.array([4, 2, 1]), False, grad=(0,)),
            Sample(randn(rng, 3, 4, 2), np.array([4, 4, 2]), True, grad=(0,),
                   name="batch_first")]


OPS_DB = [
    OpInfo("rnn_tanh", _rnn_call("rnn_tanh"), _one_hidden("rnn_tanh", 1), ops=_CELL_OPS),
    OpInfo("rnn_relu", _rnn_call("rnn_relu"), _one_hidden("rnn_relu", 1),
           ops=("addmm", "relu", "stack")),
    OpInfo("gru", _rnn_call("gru"), _one_hidden("gru", 3), ops=_CELL_OPS),
    OpInfo("lstm", _lstm_call, _lstm_samples, ops=_CELL_OPS),
    OpInfo("rnn_tanh.packed", _packed_call("rnn_tanh"), _packed_samples(1), ops=("cat",)),
    OpInfo("gru.packed", _packed_call("gru"), _packed_samples(3), ops=("cat",)),
    OpInfo("lstm.packed", _packed_call("lstm"), _packed_samples(4), ops=("cat",)),
    OpInfo("rnn_tanh_cell", lambda lib, *a: lib.rnn_tanh_cell(*a), _cell_samples(1),
           ops=("addmm", "tanh")),
    OpInfo("rnn_relu_cell", lambda lib, *a: lib.rnn_relu_cell(*a), _cell_samples(1),
           ops=("addmm", "relu")),
    OpInfo("gru_cell", lambda lib, *a: lib.gru_cell(*a), _cell_samples(3), ops=_CELL_OPS),
    OpInfo("lstm_cell", _lstm_cell_call, _cell_samples(4), ops=_CELL_OPS),
    OpInfo("_pack_padded_sequence",
           lambda lib, *a: lib._pack_padded_sequence(*a), _pack_samples),
]
