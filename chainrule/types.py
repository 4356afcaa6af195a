"""torch.types: the type aliases PyTorch's signatures use, for annotations."""
import os
from typing import IO, Union

from ._device import device as _device

__all__ = ["Number", "Device", "FileLike", "Storage"]

Number = Union[int, float, bool]
_Number = Union[int, float, bool]
_size = Union["Size", list[int], tuple[int, ...]]  # noqa: F821 (annotations only)
Device = Union[_device, str, int, None]
FileLike = Union[str, "os.PathLike[str]", IO[bytes]]


class Storage:
    """The interface a storage offers (for annotations): device, dtype, size, element_size."""
    device: _device
    dtype: object

    def size(self) -> int:
        raise NotImplementedError

    def element_size(self) -> int:
        raise NotImplementedError
