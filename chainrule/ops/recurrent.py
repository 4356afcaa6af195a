"""Recurrent networks: torch.rnn_tanh, rnn_relu, lstm and gru (the flat-weights functions
nn.RNN, nn.LSTM and nn.GRU call), their cells, and the packing ops of nn.utils.rnn.

Note [Recurrent graphs]
PyTorch's CPU implementation (aten/src/ATen/native/RNN.cpp) is composite: each layer projects
the inputs of all time steps with one linear (one matmul), then runs the cell once per step,
one linear per step for the hidden projection of all gates, with in-place gate activations on
unsafe_chunk's pieces; step outputs are stacked, directions concatenated, final hidden states
stacked. The functions below make the same calls in the same order with chainrule's ops, so
values, gradients (to any order) and the graph's nodes are PyTorch's: UnsafeSplitBackward0,
SigmoidBackward0, AddmmBackward0, StackBackward0, ... One exception: for float32 LSTMs without
projections PyTorch runs oneDNN's fused kernel, whose graph is one MkldnnRnnLayerBackward0 node
per layer and direction; chainrule builds the composite graph there too (same values to
float32 rounding, same gradients).
"""
import numpy as np

from .._creation import full
from .._dims import wrap_dim
from .._tensor import Tensor, make_tensor
from . import nn_ops
from .binding import Overloads, Signature
from .linalg import linear, matmul
from .pointwise import relu, tanh
from .registry import op, public
from .shape import _warn_once, cat, stack
from ..backends import mkldnn as _mkldnn

# the dtypes PyTorch's CPU LSTM hands to oneDNN (which has no projections)
_ONEDNN_DTYPES = (np.dtype(np.float32),)

__all__ = ["rnn_tanh", "rnn_relu", "lstm", "gru", "rnn_tanh_cell", "rnn_relu_cell",
           "lstm_cell", "gru_cell", "pad_sequence"]


class _Params:
    """One layer and direction's weights (CellParams): w_ih, w_hh, b_ih, b_hh, w_hr."""
    __slots__ = ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x):
        return linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        return linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h):
        return h if self.w_hr is None else matmul(h, self.w_hr.t())


def _gather_params(params, has_biases, has_projections=False):
    """PyTorch's gather_params: the flat weight list as one _Params per layer and direction."""
    n = (4 if has_biases else 2) + (1 if has_projections else 0)
    if len(params) % n:
        raise RuntimeError("got an incorrect number of RNN parameters")
    out = []
    for i in range(0, len(params), n):
        p = params[i:i + n]
        if has_biases:
            out.append(_Params(*p))
        else:
            out.append(_Params(p[0], p[1], None, None, p[2] if has_projections else None))
    return out


# ---- cells: one step, on PyTorch's ops in PyTorch's order -----------------------------------

def _simple_cell(nonlinearity):
    def cell(x, h, params, pre_computed=False):
        return nonlinearity(params.linear_hh(h).add_(x if pre_computed else params.linear_ih(x)))
    return cell


def _lstm_cell(x, hidden, params, pre_computed=False):
    hx, cx = hidden
    gates = params.linear_hh(hx).add_(x if pre_computed else params.linear_ih(x))
    ingate, forgetgate, cellgate, outgate = gates.unsafe_chunk(4, 1)
    ingate = ingate.sigmoid_()
    forgetgate = forgetgate.sigmoid_()
    cellgate = cellgate.tanh_()
    outgate = outgate.sigmoid_()
    cy = (forgetgate * cx).add_(ingate * cellgate)
    hy = outgate * cy.tanh()
    return params.matmul_hr(hy), cy


def _gru_cell(x, h, params, pre_computed=False):
    igates = (x if pre_computed else params.linear_ih(x)).unsafe_chunk(3, 1)
    hgates = params.linear_hh(h).unsafe_chunk(3, 1)
    reset_gate = hgates[0].add_(igates[0]).sigmoid_()
    input_gate = hgates[1].add_(igates[1]).sigmoid_()
    new_gate = igates[2].add(hgates[2].mul_(reset_gate)).tanh_()
    return (h - new_gate).mul_(input_gate).add_(new_gate)


_rnn_tanh_cell = _simple_cell(tanh)
_rnn_relu_cell = _simple_cell(relu)


# ---- hidden states: a tensor, or (h, c) for an LSTM -----------------------------------------

def _as_output(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(cat([h[i] for h in hiddens], 0) for i in range(2))
    return cat(list(hiddens), 0)


# ---- layers ---------------------------------------------------------------------------------

def _steps(cell, step_inputs, hidden, params):
    outputs = []
    for x in step_inputs:
        hidden = cell(x, hidden, params, True)
        outputs.append(_as_output(hidden))
    return outputs, hidden


def _full_layer(cell, input, hidden, params):
    outputs, hidden = _steps(cell, params.linear_ih(input).unbind(0), hidden, params)
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    return stack(outputs, 0), hidden


def _full_bidirectional_layer(cell, input, hidden, params):
    fw_outputs, fw_hidden = _steps(cell, params[0].linear_ih(input).unbind(0), hidden[0],
                                   params[0])
    if not fw_outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    fw_output = stack(fw_outputs, 0)
    rev_outputs, rev_hidden = _steps(cell, params[1].linear_ih(input).unbind(0)[::-1],
                                     hidden[1], params[1])
    rev_output = stack(rev_outputs[::-1], 0)
    return cat([fw_output, rev_output], fw_output.dim() - 1), (fw_hidden, rev_hidden)


def _packed_layer(cell, packed, hidden, params):
    data, batch_sizes = packed
    input_w = params.linear_ih(data)
    outputs, hiddens = [], []
    offset, last = 0, batch_sizes[0]
    for bs in batch_sizes:
        step = input_w.narrow(0, offset, bs)
        offset += bs
        dec = last - bs
        if dec > 0:
            hiddens.append(_slice(hidden, last - dec, last))
            hidden = _slice(hidden, 0, last - dec)
        last = bs
        hidden = cell(step, hidden, params, True)
        outputs.append(_as_output(hidden))
    hiddens.append(hidden)
    return (cat(outputs, 0), batch_sizes), _concat(hiddens[::-1])


def _reversed_packed_layer(cell, packed, input_hidden, params):
    data, batch_sizes = packed
    input_w = params.linear_ih(data)
    outputs = []
    offset, last = data.shape[0], batch_sizes[-1]
    hidden = _slice(input_hidden, 0, batch_sizes[-1])
    for bs in batch_sizes[::-1]:
        inc = bs - last
        if inc > 0:
            hidden = _concat([hidden, _slice(input_hidden, last, bs)])
        step = input_w.narrow(0, offset - bs, bs)
        offset -= bs
        last = bs
        hidden = cell(step, hidden, params, True)
        outputs.append(_as_output(hidden))
    return (cat(outputs[::-1], 0), batch_sizes), hidden


def _packed_bidirectional_layer(cell, packed, hidden, params):
    (fw, batch_sizes), fw_hidden = _packed_layer(cell, packed, hidden[0], params[0])
    (rev, _), rev_hidden = _reversed_packed_layer(cell, packed, hidden[1], params[1])
    return (cat([fw, rev], -1), batch_sizes), (fw_hidden, rev_hidden)


def _pairs(values):
    if len(values) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    return [(values[i], values[i + 1]) for i in range(0, len(values), 2)]


def _layer_stack(cell, input, hiddens, params, num_layers, dropout_p, train, bidirectional,
                 packed):
    """PyTorch's _rnn_impl / apply_layer_stack: the layers in turn, dropout between them."""
    if bidirectional:
        layer = _packed_bidirectional_layer if packed else _full_bidirectional_layer
        hiddens, params = _pairs(hiddens), _pairs(params)
    else:
        layer = _packed_layer if packed else _full_layer
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(params):
        raise RuntimeError("Expected more weights in stacked_rnn")
    finals = []
    for i in range(num_layers):
        input, final = layer(cell, input, hiddens[i], params[i])
        finals.extend(final if bidirectional else (final,))
        if dropout_p != 0 and train and i < num_layers - 1:
            if packed:
                input = (nn_ops.dropout(input[0], dropout_p, True), input[1])
            else:
                input = nn_ops.dropout(input, dropout_p, True)
    return input, finals


def _rnn_overloads(name, hx):
    """The two declarations of torch.rnn_tanh, rnn_relu, gru, lstm: packed data with its
    batch sizes, or a padded sequence (as PyTorch lists them)."""
    tail = ("tuple of Tensors params, bool has_biases, int num_layers, float dropout, "
            "bool train, bool bidirectional")
    return Overloads(name, [f"(Tensor data, Tensor batch_sizes, {hx}, {tail})",
                            f"(Tensor input, {hx}, {tail}, bool batch_first)"])


def _positional(overloads, args, kwargs):
    """`args` and `kwargs` (taken by one of `overloads`' declarations) all by position."""
    if not kwargs:
        return args
    sig = next(sig for sig, _ in overloads.forms[0] if sig.accepts(args, kwargs))
    return args + tuple(kwargs[n] for n in sig.names[len(args):])


def _one_hidden_rnn(name, cell):
    overloads = _rnn_overloads(name, "Tensor hx")

    def rnn(*args, **kwargs):
        args = _positional(overloads, args, kwargs)
        if len(args) == 9 and isinstance(args[2], (list, tuple)):
            input, hx, params, has_biases, num_layers, dropout, train, bidirectional, \
                batch_first = args
            if batch_first:
                input = input.transpose(0, 1)
            output, finals = _layer_stack(cell, input, list(hx.unbind(0)),
                                          _gather_params(params, has_biases), num_layers,
                                          dropout, train, bidirectional, False)
            if batch_first:
                output.transpose_(0, 1)
            return output, stack(finals, 0)
        if len(args) == 9:
            data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, \
                bidirectional = args
            (output, _), finals = _layer_stack(
                cell, (data, _batch_sizes(batch_sizes)), list(hx.unbind(0)),
                _gather_params(params, has_biases), num_layers, dropout, train,
                bidirectional, True)
            return output, stack(finals, 0)
    rnn.__name__ = rnn.__qualname__ = name
    rnn.__doc__ = (f"torch.{name}: a multi-layer {name[4:] if name != 'gru' else 'GRU'} RNN "
                   "over a sequence (or packed data and batch_sizes), PyTorch's flat-weights "
                   "form.")
    return overloads.bind(rnn)


def _batch_sizes(t):
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return [int(v) for v in t._data]


rnn_tanh = public("rnn_tanh", method=False)(_one_hidden_rnn("rnn_tanh", _rnn_tanh_cell))
rnn_relu = public("rnn_relu", method=False)(_one_hidden_rnn("rnn_relu", _rnn_relu_cell))
gru = public("gru", method=False)(_one_hidden_rnn("gru", _gru_cell))


_LSTM = _rnn_overloads("lstm", "tuple of Tensors hx")


@public("lstm", method=False)
@_LSTM.bind
def lstm(*args, **kwargs):
    """torch.lstm: a multi-layer LSTM over a sequence (or packed data and batch_sizes),
    PyTorch's flat-weights form; hx is [h_0, c_0]."""
    args = _positional(_LSTM, args, kwargs)
    packed = isinstance(args[1], Tensor)
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, \
            bidirectional = args
        input, batch_first = (data, _batch_sizes(batch_sizes)), False
    else:
        input, hx, params, has_biases, num_layers, dropout, train, bidirectional, \
            batch_first = args
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    if has_projections and not packed and _mkldnn._Flags.enabled and input.numel() \
            and input._data.dtype in _ONEDNN_DTYPES:
        _warn_once("LSTM with projections is not supported with oneDNN. Using default "
                   "implementation.")
    if batch_first:
        input = input.transpose(0, 1)
    hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    output, finals = _layer_stack(_lstm_cell, input, hiddens,
                                  _gather_params(params, has_biases, has_projections),
                                  num_layers, dropout, train, bidirectional, packed)
    if packed:
        output = output[0]
    elif batch_first:
        output = output.transpose(0, 1)
    return output, stack([h for h, _ in finals], 0), stack([c for _, c in finals], 0)


# ---- cells as functions ---------------------------------------------------------------------

def _check_cell_hidden(input, h, hidden_size, label):
    if input.shape[0] != h.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{label} "
                           f"batch size {h.shape[0]}")
    if h.shape[1] != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {h.shape[1]}, "
                           f"expected {hidden_size}")


def _cell_signature(name, hx="Tensor hx"):
    return Signature(f"{name}(Tensor input, {hx}, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, "
                     "Tensor? b_hh=None)")


def _simple_cell_function(name, cell):
    def function(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        hidden_size = w_hh.shape[1]
        for wname, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
            if w.shape[0] != hidden_size:
                raise RuntimeError(f"{wname} first dim must be 1 * hidden_size = {hidden_size}"
                                   f", but got {w.shape[0]}")
        if input.shape[1] != w_ih.shape[1]:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {w_ih.shape[1]}")
        _check_cell_hidden(input, hx, hidden_size, 0)
        return cell(input, hx, _Params(w_ih, w_hh, b_ih, b_hh))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}: one step of an Elman RNN cell."
    return _cell_signature(name).bind(function)


rnn_tanh_cell = public("rnn_tanh_cell", method=False)(
    _simple_cell_function("rnn_tanh_cell", _rnn_tanh_cell))
rnn_relu_cell = public("rnn_relu_cell", method=False)(
    _simple_cell_function("rnn_relu_cell", _rnn_relu_cell))


@public("lstm_cell", method=False)
@_cell_signature("lstm_cell", "Tensor[] hx").bind
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: one LSTM step; hx is [h, c]; returns (h', c')."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = w_hh.shape[1]
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{w_ih.shape[1]}")
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.shape[0] != 4 * hidden_size:
            raise RuntimeError(f"{name} first dim must be 4 * hidden_size = {4 * hidden_size}"
                               f", but got {w.shape[0]}")
    _check_cell_hidden(input, hx[0], hidden_size, 0)
    _check_cell_hidden(input, hx[1], hidden_size, 1)
    return _lstm_cell(input, (hx[0], hx[1]), _Params(w_ih, w_hh, b_ih, b_hh))


@public("gru_cell", method=False)
@_cell_signature("gru_cell").bind
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.gru_cell: one GRU step."""
    hidden_size = w_hh.shape[1]
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{w_ih.shape[1]}")
    _check_cell_hidden(input, hx, hidden_size, 0)
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.shape[0] != 3 * hidden_size:
            raise RuntimeError(f"{name} first dim must be 3 * hidden_size = {3 * hidden_size}"
                               f", but got {w.shape[0]}")
    return _gru_cell(input, hx, _Params(w_ih, w_hh, b_ih, b_hh))


# ---- packing (nn.utils.rnn's native ops) ----------------------------------------------------
# PyTorch's packing ops are composite apart from _pack_padded_sequence's forward: padding is a
# full tensor with one copy_ per sequence (or per run of equal batch sizes), so gradients
# reach the sequences through CopySlices nodes, here as there.

def _check_lengths(t):
    a = t._data
    if a.ndim != 1 or a.dtype != np.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{a.ndim}D cpu {t.dtype.legacy} tensor")
    return a


def _pack(x, lengths, batch_first):
    x = x.swapaxes(0, 1) if batch_first else x
    # time-major: step t holds the first batch_sizes[t] sequences (lengths are sorted)
    mask = np.arange(x.shape[0])[:, None] < np.asarray(lengths)[None, :]
    return x[mask], mask.sum(1)[:lengths[0]].astype(np.int64)


def _pack_backward(grad, input_shape, batch_sizes, batch_first):
    """_pack_padded_sequence_backward: each step's rows copied into zeros."""
    shape = list(input_shape)
    if batch_first:
        shape[0], shape[1] = shape[1], shape[0]
    grad_input = make_tensor(np.zeros(shape, grad._data.dtype))
    offset = 0
    for i, bs in enumerate(batch_sizes._data.tolist()):
        grad_input[i][:bs].copy_(grad[offset:offset + bs])
        offset += bs
    return grad_input.transpose(0, 1) if batch_first else grad_input


pack_padded_sequence_row = op(
    "_pack_padded_sequence", "PackPaddedSequenceBackward0", "input, lengths, batch_first",
    _pack, returns=list, differentiable_outputs=(0,), function=False, method=False,
    input=lambda grads, input_shape, result1, batch_first: _pack_backward(
        grads[0], input_shape, result1, batch_first))


@public("_pack_padded_sequence", method=False)
@Signature("_pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first)").bind
def _pack_padded_sequence(input, lengths, batch_first):
    """(data, batch_sizes) of a padded batch whose lengths are sorted in decreasing order."""
    if batch_first:
        wrap_dim(1, input.ndim)     # PyTorch transposes dims 0 and 1 before any check
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    a = _check_lengths(lengths)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    batch = input.shape[0] if batch_first else input.shape[wrap_dim(1, input.ndim)]
    if a.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{a.shape[0]} (batch_size={batch})")
    if a[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if (a[1:] > a[:-1]).any():     # (np.diff overflows on int64 extremes)
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if a[0] > np.iinfo(np.int64).max // 8:     # the bytes of PyTorch's batch_sizes (int64)
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{a[0]}]")
    return tuple(pack_padded_sequence_row(input, tuple(a.tolist()), batch_first))


@public("_pad_packed_sequence", method=False)
def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """(padded, lengths) of packed data: one copy_ per run of equal batch sizes."""
    sizes = _check_lengths(batch_sizes).tolist()
    max_batch, steps = sizes[0], len(sizes)
    if total_length > 0:
        if total_length < steps:
            raise RuntimeError(f"Expected total_length to be at least the length of the "
                               f"longest sequence in input, but got total_length="
                               f"{total_length} and max sequence length being {steps}")
        steps = total_length
    trailing = tuple(data.shape[1:])
    output = full((steps, max_batch) + trailing, padding_value, dtype=data.dtype)
    lengths = np.empty(max_batch, np.int64)
    offset, prev_size, prev_i = 0, max_batch, 0
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if size != prev_size:
            n = prev_size * (i - prev_i)
            run = data[offset:offset + n].view((i - prev_i, prev_size) + trailing)
            output[prev_i:i, :prev_size].copy_(run)
            offset += n
            prev_i = i
            lengths[size:prev_size] = i
        prev_size = size
    if batch_first:
        output = output.transpose(0, 1)
    return output, make_tensor(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """at::pad_sequence: the sequences padded to the longest, one copy_ each."""
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    max_len = max(s.shape[0] for s in sequences)
    n = len(sequences)
    shape = ((n, max_len) if batch_first else (max_len, n)) + tuple(first.shape[1:])
    out = full(shape, padding_value, dtype=first.dtype)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out
