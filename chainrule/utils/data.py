"""torch.utils.data for chainrule: datasets, samplers, DataLoader and random_split.

Only single-process loading (num_workers=0). Shuffles and splits draw the same random numbers
as PyTorch, so for the same seeds they give the same order as torch.utils.data.
"""
import collections.abc
import copy
import itertools
import math
import warnings

import numpy as np

from .. import _random
from .._creation import as_tensor, randperm, tensor
from .._tensor import Tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "DataLoader", "default_collate"]

_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


class Dataset:
    """A map-style dataset: subclasses define `__getitem__` (and usually `__len__`)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Samples are tuples of the tensors indexed along their first dimension."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of `dataset` at `indices`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=_random.default_generator):
    """Split `dataset` into non-overlapping Subsets of the given lengths (or fractions),
    with the same permutation as torch.utils.data.random_split for the same generator state."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(subset_lengths)):  # round-robin the remainder
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


class Sampler:
    """Base class of index samplers: subclasses define `__iter__`."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _draw_seed(generator):
    """`torch.empty((), dtype=torch.int64).random_(generator=...)`: random64() mod 2**63."""
    gen = _random.default_generator if generator is None else generator
    return int(gen._random64(1)[0]) % 2**63


class RandomSampler(Sampler):
    """A random permutation of the indices (without replacement), drawn as torch draws it:
    `randperm(n, generator=generator)`, or without a generator from a fresh Generator seeded
    by one draw of the default generator."""

    def __init__(self, data_source, generator=None):
        self.data_source = data_source
        self.generator = generator
        if len(data_source) <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={len(data_source)}")

    def __iter__(self):
        generator = self.generator
        if generator is None:
            generator = _random.Generator().manual_seed(_draw_seed(None))
        n = len(self.data_source)
        yield from randperm(n, generator=generator).tolist()
        # torch draws a second permutation (for the num_samples % n tail) on exhaustion
        randperm(n, generator=generator)

    def __len__(self):
        return len(self.data_source)


class BatchSampler(Sampler):
    """Group the indices of `sampler` into lists of `batch_size`."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while batch := list(itertools.islice(it, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def default_collate(batch):
    """Merge a list of samples into a batch as torch's default_collate does: tensors and
    NumPy arrays are stacked, numbers become tensors, strings stay a list, and mappings and
    sequences are collated per key / position."""
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        from .. import stack
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        from .. import float64
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            return elem_type(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return collated  # torch returns a list for tuples, for backwards compatibility
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                clone[:] = collated
                return clone
            return elem_type(collated)
        except TypeError:
            return collated
    raise TypeError(_COLLATE_ERROR.format(elem_type))


class DataLoader:
    """Iterate over `dataset` in batches (single process).

    With `shuffle=True` the order equals torch.utils.data.DataLoader's for the same generator
    (or default-generator) state: like torch, each new iterator first draws one base seed
    from `generator` (the default generator if None), then the sampler draws its permutation.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, drop_last=False, generator=None):
        if num_workers != 0:
            raise ValueError("chainrule's DataLoader loads in the main process only "
                             "(num_workers=0)")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequentialSampler(dataset)
        if batch_sampler is None:  # batch_size=None (no auto-batching) is not supported
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = 0
        self.collate_fn = default_collate if collate_fn is None else collate_fn

    def __iter__(self):
        # torch's iterator draws its worker base seed when created, before the sampler draws
        _draw_seed(self.generator)
        return self._batches(iter(self.batch_sampler))

    def _batches(self, indices):
        dataset, collate = self.dataset, self.collate_fn
        getitems = getattr(dataset, "__getitems__", None)
        for index in indices:
            yield collate(getitems(index) if callable(getitems) else [dataset[i] for i in index])

    def __len__(self):
        return len(self.batch_sampler)
