"""Padding modules over F.pad: constant (and zero), reflection, replication, circular."""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d",
           "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    """A padding of 2 * `n` sizes (an int for all of them) in F.pad's `mode`."""
    n = 1
    mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self.n)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        if input.dim() not in (self.n + 1, self.n + 2):
            raise ValueError(f"expected {self.n + 1}D or {self.n + 2}D input (got "
                             f"{input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    n = 1


class CircularPad2d(_CircularPadNd):
    n = 2


class CircularPad3d(_CircularPadNd):
    n = 3


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    n = 1


class ConstantPad2d(_ConstantPadNd):
    n = 2


class ConstantPad3d(_ConstantPadNd):
    n = 3


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    n = 1


class ReflectionPad2d(_ReflectionPadNd):
    n = 2


class ReflectionPad3d(_ReflectionPadNd):
    n = 3


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    n = 1


class ReplicationPad2d(_ReplicationPadNd):
    n = 2


class ReplicationPad3d(_ReplicationPadNd):
    n = 3


class _ZeroPad:
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass
