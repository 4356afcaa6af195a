"""torch.utils.dlpack: DLPack interchange (zero-copy, through NumPy's DLPack support)."""
from .._interop import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack"]
