"""DistributedSampler, as torch.utils.data.distributed: each rank's share of a dataset. The
number of replicas and the rank default to the default process group's
(chainrule.distributed)."""
import math
from typing import TypeVar

from ... import _random, distributed as dist
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class DistributedSampler(Sampler[_T_co]):
    """The share of the dataset's indices that replica `rank` of `num_replicas` loads:
    every num_replicas-th index of a (seed + epoch)-seeded permutation (or of 0..n-1),
    padded by wrapping around, or cut with drop_last, to a multiple of num_replicas. Call
    set_epoch at the start of each epoch to get a new order."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the largest evenly divisible length
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas)
                                         / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = _random.Generator().manual_seed(self.seed + self.epoch)
            indices = g.randperm(len(self.dataset)).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match "
                                 f"total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not "
                                 f"match num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch, which (with the seed) decides the shuffled order."""
        self.epoch = epoch
