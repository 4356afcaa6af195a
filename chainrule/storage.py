"""torch.storage: the storage classes (see chainrule/_storage.py)."""
from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
