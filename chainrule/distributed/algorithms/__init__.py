"""torch.distributed.algorithms: the Join context manager for uneven inputs and
DistributedDataParallel's communication hooks."""
from . import ddp_comm_hooks, join  # noqa: F401
from .join import Join, JoinHook, Joinable  # noqa: F401
