"""torch.nn: the functional API (nn.Module is not part of chainrule yet)."""
from . import functional  # noqa: F401
