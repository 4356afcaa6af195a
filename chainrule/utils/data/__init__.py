"""torch.utils.data for chainrule: datasets, samplers, collation and the DataLoader, with
worker processes, in PyTorch's module layout (dataset, sampler, distributed, dataloader,
_utils.collate / worker / fetch) so that programs importing submodules run unchanged.

PyTorch's DataPipes (IterDataPipe, MapDataPipe, DFIterDataPipe, DataChunk,
functional_datapipe and the datapipe decorators) are not provided: torchdata deprecated them
in 0.8 and deleted them in 0.9, and PyTorch keeps them only as legacy code.
"""
from .dataloader import DataLoader, _DatasetKind, default_collate, default_convert, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
