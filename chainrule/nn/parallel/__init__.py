"""torch.nn.parallel: DistributedDataParallel over chainrule.distributed (MPI), and
DataParallel, which on a CPU-only build runs its module directly."""
from . import data_parallel, distributed  # noqa: F401
from .data_parallel import DataParallel, data_parallel  # noqa: F401,F811
from .distributed import DistributedDataParallel, DistributedDataParallelCPU  # noqa: F401

__all__ = ["DataParallel", "DistributedDataParallel", "DistributedDataParallelCPU",
           "data_parallel"]
