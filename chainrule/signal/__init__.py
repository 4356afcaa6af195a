"""torch.signal: window functions (chainrule.signal.windows)."""
from . import windows

__all__ = ["windows"]
