"""torch.utils for chainrule: hooks and data."""
import importlib

from . import hooks

__all__ = ["benchmark", "checkpoint", "data", "dlpack", "hooks"]


def __getattr__(name):
    # data imports the tensor and creation modules, and this package is first imported by
    # autograd.graph (for hooks) while chainrule itself is still loading: import it on use.
    if name in ("data", "benchmark", "checkpoint", "dlpack"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
