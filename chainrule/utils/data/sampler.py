"""Index samplers, as torch.utils.data.sampler. The random ones draw exactly what PyTorch's
draw from the same generator state, so they yield the same indices."""
import itertools
import math
from typing import Generic, TypeVar

import numpy as np

from ... import _random
from ..._creation import as_tensor, from_numpy
from ..._dtype import float64

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)

def _generator(generator):
    return _random.default_generator if generator is None else generator


def _draw_seed(generator):
    """`torch.empty((), dtype=torch.int64).random_(generator=generator).item()`: one
    random64() of the generator (the default one if None), modulo 2**63."""
    return int(_generator(generator)._random64(1)[0]) % 2**63


class Sampler(Generic[_T_co]):
    """Base class of index samplers: subclasses define `__iter__` (and `__len__` if they
    can; there is deliberately no default, so that len() raises TypeError)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Random indices: permutations without replacement (num_samples > len cycles through
    fresh ones), or with replacement uniform draws in blocks of 32. Without a generator,
    each iteration seeds a fresh Generator from one draw of the default generator."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        # the dataset's size may change after construction
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is None:
            generator = _random.Generator().manual_seed(_draw_seed(None))
        else:
            generator = self.generator
        if self.replacement:
            if n == 0:  # (Generator.randint raises this as a ValueError; PyTorch's is a RuntimeError)
                raise RuntimeError("random_ expects 'from' to be less than 'to', but got "
                                   "from=0 >= to=0")
            for _ in range(self.num_samples // 32):
                yield from generator.randint(0, n, (32,)).tolist()
            yield from generator.randint(0, n, (self.num_samples % 32,)).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from generator.randperm(n).tolist()
            yield from generator.randperm(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (without replacement)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _generator(self.generator).randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


def _multinomial(p, num_samples, replacement, generator):
    """`torch.multinomial(p, num_samples, replacement, generator=generator).tolist()` for a
    1-D float64 array `p`."""
    from ..._creation import multinomial
    return multinomial(from_numpy(p), num_samples, replacement, generator=generator).tolist()


class WeightedRandomSampler(Sampler[int]):
    """Indices 0..len(weights)-1 drawn with probabilities proportional to `weights` (with
    or without replacement), as torch.multinomial draws them."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _multinomial(self.weights.numpy(), self.num_samples, self.replacement,
                                self.generator)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Group the indices of `sampler` into lists of `batch_size` (the last one shorter
    unless `drop_last`)."""

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
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            yield from map(list, zip(*[sampler_iter] * self.batch_size))
        else:
            while batch := list(itertools.islice(sampler_iter, self.batch_size)):
                yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
