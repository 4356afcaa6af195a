"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpack batches of
sequences of different lengths (their native ops are in ops/recurrent.py)."""
from collections import namedtuple
from collections.abc import Iterable as _Iterable

from ... import _creation
from ..._dtype import float16, float32, float64, int8, int16, int32, int64, uint8
from ..._tensor import Tensor
from ...ops import recurrent as _ops

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
PackedSequence_.__module__ = "torch.nn.utils.rnn"


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Packed data of a batch of variable-length sequences, with its batch size per time step
    and the permutation that sorted the batch by length. Made by pack_padded_sequence and
    pack_sequence; the recurrent modules take and return it."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, lambda t: t.pin_memory()),
                          _bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """The data converted as Tensor.to converts it; the indices follow its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = _bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = _bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    def half(self):
        return self.to(dtype=float16)

    def long(self):
        return self.to(dtype=int64)

    def int(self):
        return self.to(dtype=int32)

    def short(self):
        return self.to(dtype=int16)

    def char(self):
        return self.to(dtype=int8)

    def byte(self):
        return self.to(dtype=uint8)

    @property
    def is_cuda(self):
        """True if the data is on a CUDA device."""
        return self.data.is_cuda

    def is_pinned(self):
        """True if the data is in pinned memory."""
        return self.data.is_pinned()


PackedSequence.__module__ = "torch.nn.utils.rnn"


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of a permutation (None for None)."""
    if permutation is None:
        return None
    output = _creation.empty_like(permutation)
    output.scatter_(0, permutation, _creation.arange(0, permutation.numel()))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch of sequences of the given lengths (sorted in decreasing order
    unless enforce_sorted is False)."""
    if not isinstance(lengths, Tensor):
        lengths = _creation.as_tensor(lengths, dtype=int64)
    else:
        lengths = lengths.to(dtype=int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _ops._pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """(padded batch, lengths) of a PackedSequence: pack_padded_sequence's inverse."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _ops._pad_packed_sequence(
        sequence.data, sequence.batch_sizes, batch_first, padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), \
            lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Pads a list of variable-length tensors to the longest (on the left or right)."""
    if not isinstance(sequences, _Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    return _ops.pad_sequence(tuple(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences in a padded batch, each cut to its length."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _creation.arange(max_length)
    for seq, length in zip(padded_sequences, lengths):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of variable-length tensors."""
    lengths = _creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences in a PackedSequence."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


def bind(optional, fn):
    """fn(optional), or None when it is None."""
    if optional is None:
        return None
    return fn(optional)
