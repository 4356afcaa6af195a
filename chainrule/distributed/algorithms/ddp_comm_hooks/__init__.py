"""DistributedDataParallel's communication hooks (register with
DistributedDataParallel.register_comm_hook): default_hooks (all-reduce, fp16/bf16
compression and the wrappers) and debugging_hooks (a no-op, for headroom analysis)."""
from . import debugging_hooks, default_hooks  # noqa: F401
from . import debugging_hooks as debugging  # noqa: F401
from . import default_hooks as default  # noqa: F401
