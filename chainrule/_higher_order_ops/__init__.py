"""torch._higher_order_ops: the operators torch.compile traces as units. chainrule runs them
eagerly, as PyTorch does outside compilation."""
from .foreach_map import foreach_map

__all__ = ["foreach_map"]
