"""Pooling layers: PyTorch's MaxPool, AvgPool and AdaptiveAvgPool modules (1-D and 2-D) over
the functions of ops/conv.py; MaxPool3d and AdaptiveMaxPool1d/2d over nn.functional's; the 3-D,
fractional, power-average and unpooling layers."""
from ...ops import conv as _F
from .. import functional as F
from .utils import _pair, _single, _triple
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "MaxPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d"]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over (N, C, L) or (C, L) input."""

    def forward(self, input):
        return _F.functional_max_pool1d(input, self.kernel_size, self.stride, self.padding,
                                        self.dilation, ceil_mode=self.ceil_mode,
                                        return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        return _F.functional_max_pool2d(input, self.kernel_size, self.stride, self.padding,
                                        self.dilation, ceil_mode=self.ceil_mode,
                                        return_indices=self.return_indices)


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling over (N, C, L) or (C, L) input."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return _F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling over (N, C, H, W) or (C, H, W) input."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return _F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """1-D adaptive average pooling over (N, C, L) or (C, L) input."""

    def forward(self, input):
        return _F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """2-D adaptive average pooling over (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        return _F.adaptive_avg_pool2d(input, self.output_size)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """1-D adaptive max pooling to output_size over (N, C, L) or (C, L) input."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """2-D adaptive max pooling to output_size (None keeps a size) over (N, C, H, W) or
    (C, H, W) input."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W) input."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """3-D adaptive average pooling over (N, C, D, H, W) or (C, D, H, W) input."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """3-D adaptive max pooling to output_size (None keeps a size)."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _FractionalMaxPoolNd(Module):
    def __init__(self, d, kernel_size, output_size, output_ratio, return_indices,
                 _random_samples):
        super().__init__()
        tuple_of = _pair if d == 2 else _triple
        self.kernel_size = tuple_of(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tuple_of(output_size) if output_size is not None else None
        self.output_ratio = tuple_of(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{d}d requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (windows at pseudo-random fractional strides)."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__(2, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (windows at pseudo-random fractional strides)."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(3, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return self._FUNCTION(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """1-D power-average pooling."""
    _FUNCTION = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling."""
    _FUNCTION = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """3-D power-average pooling."""
    _FUNCTION = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    def __init__(self, tuple_of, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = tuple_of(kernel_size)
        self.stride = tuple_of(stride if (stride is not None) else kernel_size)
        self.padding = tuple_of(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return self._FUNCTION(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: maxima put back at their indices, zeros elsewhere."""
    _FUNCTION = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__(_single, kernel_size, stride, padding)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d: maxima put back at their indices, zeros elsewhere."""
    _FUNCTION = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__(_pair, kernel_size, stride, padding)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d: maxima put back at their indices, zeros elsewhere."""
    _FUNCTION = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__(_triple, kernel_size, stride, padding)
