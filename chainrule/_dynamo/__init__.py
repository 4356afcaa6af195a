"""torch._dynamo, as far as programs beside torch.compile call it: chainrule's compile runs
the original code (backend="eager"), so there are no compiled frames, caches or graph
counters; `reset()` has nothing to clear and `utils.counters` stays empty, as PyTorch's
would after eager-only runs."""
from ..compiler import (OptimizedModule, allow_in_graph, assume_constant_result, disable,
                        is_compiling, list_backends, reset)
from . import utils

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "disable",
           "is_compiling", "list_backends", "reset", "utils"]
