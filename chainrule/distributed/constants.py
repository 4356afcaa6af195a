"""The process groups' default timeouts (torch.distributed.constants)."""
from datetime import timedelta

__all__ = ["default_pg_timeout", "default_pg_nccl_timeout"]

# how long init_process_group's rendezvous and a barrier wait for the other ranks
default_pg_timeout = timedelta(minutes=30)
# NCCL's own default; None where NCCL is not built in (always, in chainrule)
default_pg_nccl_timeout = None
