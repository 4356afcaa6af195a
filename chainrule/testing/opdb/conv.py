"""Op-database entries for convolution and pooling (ops/conv.py), called through
torch.nn.functional on PyTorch and ops/conv.py's functions on chainrule. Backward rows are
reached by gradgradcheck of their forward; max-pool samples have distinct values (no ties)."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn


def _F(lib):
    if lib.__name__ == "torch":
        return lib.nn.functional
    from ...ops import conv
    return conv


def _entry(name, samples, ops):
    """An entry calling nn.functional.<name> (ops/conv.py's function on chainrule)."""
    return OpInfo(name, lambda lib, *a, **k: getattr(_F(lib), name)(*a, **k), samples, ops=ops)


def _distinct(rng, *shape):
    return rng.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) / 7


def _conv2d_samples(rng):
    return [Sample(randn(rng, 2, 2, 4, 5), randn(rng, 3, 2, 2, 3), randn(rng, 3)),
            Sample(randn(rng, 1, 4, 5, 4), randn(rng, 4, 2, 3, 2), None, stride=(2, 1),
                   padding=1, dilation=(1, 2), groups=2, name="strided grouped dilated"),
            Sample(randn(rng, 1, 3, 4, 4), randn(rng, 3, 1, 3, 3), randn(rng, 3), groups=3,
                   padding="same", name="depthwise same"),
            Sample(randn(rng, 2, 3, 3), randn(rng, 2, 2, 2, 2), None, stride=2, padding=1,
                   name="unbatched"),
            Sample(randn(rng, 1, 2, 4, 5), randn(rng, 3, 2, 2, 3), randn(rng, 3),
                   padding="same", dilation=(1, 2), name="same, uneven (constant_pad_nd first)"),
            Sample(randn(rng, 2, 4, 5), randn(rng, 3, 2, 4, 2), None, padding="same",
                   name="unbatched same, uneven in both dims"),
            Sample(randn(rng, 1, 2, 4, 5), randn(rng, 3, 2, 2, 3), None, padding="valid",
                   name="valid"),
            Sample(noncontiguous(randn(rng, 1, 2, 4, 4)), randn(rng, 2, 2, 3, 3), randn(rng, 2),
                   stride=3, name="non-contiguous")]


def _conv1d_samples(rng):
    return [Sample(randn(rng, 2, 2, 6), randn(rng, 3, 2, 3), randn(rng, 3), stride=2,
                   padding=1),
            Sample(randn(rng, 4, 5), randn(rng, 4, 2, 2), None, dilation=2, groups=2,
                   name="unbatched grouped dilated"),
            Sample(randn(rng, 2, 2, 6), randn(rng, 3, 2, 4), randn(rng, 3), padding="same",
                   name="same, uneven")]


def _conv3d_samples(rng):
    return [Sample(randn(rng, 2, 2, 3, 4, 3), randn(rng, 3, 2, 2, 2, 2), randn(rng, 3)),
            Sample(randn(rng, 1, 4, 4, 5, 3), randn(rng, 4, 2, 2, 3, 1), None,
                   stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2,
                   name="strided grouped dilated"),
            Sample(randn(rng, 2, 3, 3, 4), randn(rng, 2, 2, 2, 1, 2), randn(rng, 2),
                   padding="same", name="unbatched same")]


def _transpose_samples(dims):
    def samples(rng):
        s = (3, 4, 3)[:dims]
        k = (2, 3, 2)[:dims]
        return [Sample(randn(rng, 2, 2, *s), randn(rng, 2, 3, *k), randn(rng, 3)),
                Sample(randn(rng, 1, 4, *s), randn(rng, 4, 1, *k), None, stride=2,
                       padding=1, output_padding=1, groups=2, name="strided grouped padded"),
                Sample(randn(rng, 2, *s), randn(rng, 2, 2, *k), randn(rng, 2), stride=1,
                       output_padding=1, dilation=2, name="unbatched dilated output_padding"),
                Sample(noncontiguous(randn(rng, 1, 2, *s)), randn(rng, 2, 2, *k), None,
                       stride=(3, 2, 1)[:dims], name="non-contiguous")]
    return samples


def _convolution_samples(rng):
    return [Sample(randn(rng, 2, 2, 5), randn(rng, 3, 2, 2), randn(rng, 3), [2], [1], [1],
                   False, [0], 1, name="plain 1-d"),
            Sample(randn(rng, 1, 4, 3, 3), randn(rng, 4, 2, 2, 2), randn(rng, 4), [2, 1],
                   [0, 1], [1, 1], True, [1, 0], 2, name="transposed 2-d")]


def _conv_tbc_samples(rng):
    return [Sample(randn(rng, 5, 2, 3), randn(rng, 3, 3, 4), randn(rng, 4)),
            Sample(randn(rng, 4, 3, 2), randn(rng, 2, 2, 3), randn(rng, 3), 1, name="pad 1"),
            Sample(randn(rng, 6, 1, 2), randn(rng, 3, 2, 2), randn(rng, 2), -1,
                   name="pad -1")]


def _unfold_samples(rng):
    return [Sample(randn(rng, 2, 2, 4, 5), 2),
            Sample(randn(rng, 2, 5, 4), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1),
                   name="unbatched"),
            Sample(noncontiguous(randn(rng, 1, 2, 4, 4)), 3, stride=2, padding=1,
                   name="non-contiguous")]


def _fold_samples(rng):
    return [Sample(randn(rng, 2, 8, 12), (4, 5), 2),
            Sample(randn(rng, 6, 9), (4, 5), (1, 3), dilation=(1, 2), padding=1,
                   stride=(2, 1), name="unbatched"),
            Sample(randn(rng, 1, 4, 4), 5, 2, stride=2, name="gaps (stride 2)")]


def _max_samples(rng):
    return [Sample(_distinct(rng, 1, 2, 5, 5), 2),
            Sample(_distinct(rng, 2, 5, 6), 3, stride=2, padding=1, ceil_mode=True,
                   name="unbatched ceil"),
            Sample(_distinct(rng, 1, 1, 6, 5), (2, 3), stride=(1, 2), dilation=(2, 1),
                   name="dilated")]


def _max1d_samples(rng):
    return [Sample(_distinct(rng, 2, 3, 7), 3, stride=2, padding=1),
            Sample(_distinct(rng, 3, 8), 2, dilation=3, ceil_mode=True, name="unbatched ceil")]


def _avg_samples(rng):
    return [Sample(randn(rng, 1, 2, 5, 5), 2),
            Sample(randn(rng, 2, 5, 6), 3, stride=2, padding=1, ceil_mode=True,
                   count_include_pad=False, name="unbatched ceil exclude pad"),
            Sample(randn(rng, 1, 1, 6, 5), (2, 3), stride=(1, 2), padding=(1, 0),
                   divisor_override=4, name="divisor_override")]


def _avg1d_samples(rng):
    return [Sample(randn(rng, 2, 3, 7), 3, stride=2, padding=1),
            Sample(randn(rng, 3, 8), 3, 2, 1, True, False, name="unbatched ceil exclude pad")]


def _adaptive_samples(rng):
    return [Sample(randn(rng, 1, 2, 5, 7), (3, 4)),
            Sample(randn(rng, 2, 4, 3), 5, name="unbatched upsampling"),
            Sample(randn(rng, 1, 2, 5, 4), (None, 3), name="None keeps a size")]


_CONV_OPS = ("convolution", "convolution_backward")


def _avg3d_samples(rng):
    return [Sample(randn(rng, 1, 2, 4, 5, 6), 2),
            Sample(randn(rng, 2, 5, 4, 6), 3, stride=2, padding=1, ceil_mode=True,
                   count_include_pad=False, name="unbatched ceil exclude pad"),
            Sample(randn(rng, 1, 1, 4, 5, 4), (2, 3, 2), stride=(1, 2, 1), padding=(1, 0, 1),
                   divisor_override=5, name="divisor_override")]


def _adaptive_max3d_samples(rng):
    return [Sample(_distinct(rng, 1, 2, 4, 5, 6), 3),
            Sample(_distinct(rng, 2, 5, 4, 3), (2, None, 4), return_indices=True,
                   name="unbatched, None keeps a size")]


def _unpool_samples(dims):
    def samples(rng):
        planes, size = (2, 3), (4,) * dims
        vol = int(np.prod(size))
        # distinct positions in each output volume, as a max pool's indices are
        idx = np.stack([rng.permutation(vol)[:2 ** dims] for _ in range(6)]).reshape(
            planes + (2,) * dims)
        return [Sample(randn(rng, *planes, *(2,) * dims), idx, 2)]
    return samples


def _fractional_samples(dims):
    def samples(rng):
        x = _distinct(rng, *((2, 2) + (7, 6, 5)[:dims]))
        s = rng.uniform(0, 1, (2, 2, dims))
        # (input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
        return [Sample(x, 2, (4, 3, 3)[:dims], None, False, s, grad=(0,)),
                Sample(x[0], (2, 3, 2)[:dims], None, (0.6, 0.5, 0.6)[:dims], True, s[:1],
                       grad=(0,), name="unbatched ratio")]
    return samples

OPS_DB = [
    _entry("avg_pool3d", _avg3d_samples, ("avg_pool3d", "avg_pool3d_backward")),
    _entry("adaptive_max_pool3d", _adaptive_max3d_samples,
           ("adaptive_max_pool3d", "adaptive_max_pool3d_backward")),
    _entry("max_unpool2d", _unpool_samples(2), ("max_unpool2d",)),
    _entry("max_unpool3d", _unpool_samples(3), ("max_unpool3d",)),
    _entry("fractional_max_pool2d", _fractional_samples(2),
           ("fractional_max_pool2d", "fractional_max_pool2d_backward")),
    _entry("fractional_max_pool3d", _fractional_samples(3),
           ("fractional_max_pool3d", "fractional_max_pool3d_backward")),
    _entry("conv3d", _conv3d_samples, _CONV_OPS),
    _entry("conv_transpose1d", _transpose_samples(1), _CONV_OPS),
    _entry("conv_transpose2d", _transpose_samples(2), _CONV_OPS),
    _entry("conv_transpose3d", _transpose_samples(3), _CONV_OPS),
    OpInfo("convolution", lambda lib, *a: lib.convolution(*a), _convolution_samples,
           ops=_CONV_OPS),
    OpInfo("conv_tbc", lambda lib, *a: lib.conv_tbc(*a), _conv_tbc_samples),
    _entry("unfold", _unfold_samples, ("im2col", "col2im")),
    _entry("fold", _fold_samples, ("col2im", "im2col")),
    OpInfo("conv2d", lambda lib, *a, **k: _F(lib).conv2d(*a, **k), _conv2d_samples,
           ops=("convolution", "convolution_backward")),
    OpInfo("conv1d", lambda lib, *a, **k: _F(lib).conv1d(*a, **k), _conv1d_samples,
           ops=("convolution", "convolution_backward")),
    OpInfo("max_pool2d", lambda lib, *a, **k: _F(lib).max_pool2d(*a, **k), _max_samples,
           ops=("max_pool2d_with_indices", "max_pool2d_with_indices_backward")),
    OpInfo("max_pool2d_with_indices", lambda lib, *a, **k: _F(lib).max_pool2d_with_indices(*a, **k),
           lambda rng: [Sample(_distinct(rng, 1, 2, 5, 5), 3, 2, 1)],
           ops=("max_pool2d_with_indices", "max_pool2d_with_indices_backward")),
    OpInfo("max_pool1d", lambda lib, *a, **k: _F(lib).max_pool1d(*a, **k), _max1d_samples,
           ops=("max_pool2d_with_indices", "max_pool2d_with_indices_backward", "unsqueeze",
                "squeeze.dim")),
    OpInfo("max_pool1d_with_indices", lambda lib, *a, **k: lib.max_pool1d_with_indices(*a, **k),
           _max1d_samples, ops=("max_pool2d_with_indices", "max_pool2d_with_indices_backward")),
    OpInfo("avg_pool1d", lambda lib, *a, **k: _F(lib).avg_pool1d(*a, **k), _avg1d_samples,
           ops=("avg_pool2d", "avg_pool2d_backward")),
    OpInfo("adaptive_avg_pool1d", lambda lib, *a, **k: _F(lib).adaptive_avg_pool1d(*a, **k),
           lambda rng: [Sample(randn(rng, 2, 3, 7), 3), Sample(randn(rng, 3, 4), 6),
                        Sample(randn(rng, 2, 3, 5), 1, name="to 1 (a mean)")],
           ops=("_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")),
    OpInfo("avg_pool2d", lambda lib, *a, **k: _F(lib).avg_pool2d(*a, **k), _avg_samples,
           ops=("avg_pool2d", "avg_pool2d_backward")),
    OpInfo("adaptive_avg_pool2d", lambda lib, *a, **k: _F(lib).adaptive_avg_pool2d(*a, **k),
           _adaptive_samples, ops=("_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward")),
]
