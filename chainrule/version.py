"""torch.version for chainrule: its own version, and no CUDA, ROCm or XPU build."""
from . import __version__  # noqa: F401

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"
