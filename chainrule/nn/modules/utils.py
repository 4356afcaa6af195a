"""torch.nn.modules.utils: the argument helpers layers share (an int or a tuple of n ints,
F.pad's reversed padding, adaptive pooling's defaults) and
consume_prefix_in_state_dict_if_present."""
import collections.abc
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """(1, 2) -> (2, 2, 1, 1): F.pad's order, last dim first."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """An adaptive pooling's output size with each None taken from the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip `prefix` from the state dict's keys (and its metadata's) in place, as for a
    model saved wrapped in DataParallel ('module.')."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    if hasattr(state_dict, "_metadata"):
        for key in list(state_dict._metadata.keys()):
            # the root's metadata key is the empty string, which the loop leaves alone
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                state_dict._metadata[key[len(prefix):]] = state_dict._metadata.pop(key)
