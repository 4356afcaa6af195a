"""Op-database entries for spatial sampling (ops/sampling.py): the upsample rows behind
nn.functional.interpolate, grid sampling, affine_grid_generator and the CTC loss; called
through nn.functional on PyTorch and ops/sampling.py's functions on chainrule. Random grid
points land on a kink of the weights (a pixel boundary) with probability zero, so finite
differences agree with the analytic gradients."""
import numpy as np

from . import OpInfo, Sample, randn


def _F(lib):
    if lib.__name__ == "torch":
        return lib.nn.functional
    from ...ops import sampling
    return sampling


def _interp(name, ops, samples):
    return OpInfo(name, lambda lib, x, **k: _F(lib).interpolate(x, **k), samples,
                  ops=ops + (ops[0] + "_backward",))


def _rows(rng, shape, **kwargs):
    sizes = [dict(scale_factor=2), dict(scale_factor=0.6), dict(size=tuple(
        max(1, 2 * n // 3 + 1) for n in shape[2:]))]
    return [Sample(randn(rng, *shape), **kwargs, **s) for s in sizes]


def _aligned(rng, shape, mode):
    return (_rows(rng, shape, mode=mode, align_corners=False)
            + [Sample(randn(rng, *shape), mode=mode, align_corners=True, scale_factor=1.5,
                      name="align_corners")])


def _grid_points(rng, *shape):
    """Normalized coordinates in [-1.2, 1.2]: some outside the input, for the padding modes."""
    return rng.uniform(-1.2, 1.2, shape)


def _grid_samples(dims, modes):
    def samples(rng):
        out = []
        x_shape = (2, 2, 4, 3) if dims == 2 else (1, 2, 3, 4, 3)
        g_shape = (2, 3, 2, 2) if dims == 2 else (1, 2, 2, 2, 3)
        for mode in modes:
            for padding in ("zeros", "border", "reflection"):
                align = padding == "border"
                out.append(Sample(randn(rng, *x_shape), _grid_points(rng, *g_shape), mode=mode,
                                  padding_mode=padding, align_corners=align,
                                  name=f"{mode} {padding}{' aligned' if align else ''}"))
        return out
    return samples


def _grid_fn(lib, x, g, **k):
    return _F(lib).grid_sample(x, g, **k)


def _affine_samples(rng):
    return [Sample(randn(rng, 2, 2, 3), (2, 1, 3, 4), align_corners=False),
            Sample(randn(rng, 1, 3, 4), (1, 1, 2, 3, 2), align_corners=True, name="3-d")]


def _ctc_samples(rng):
    lp = np.log(rng.dirichlet(np.ones(5), (7, 2)))
    return [Sample(lp, np.array([[1, 2, 2], [3, 1, 0]]), (7, 5), (3, 2), grad=(0,)),
            Sample(lp, np.array([1, 2, 2, 3]), (6, 4), (3, 1), reduction="sum", blank=4,
                   grad=(0,), name="concatenated targets, blank 4"),
            Sample(lp, np.array([[1, 1], [3, 1]]), (2, 5), (2, 2), reduction="none",
                   zero_infinity=True, grad=(0,), name="zero_infinity")]


def _ctc(lib, lp, targets, il, tl, **k):
    return _F(lib).ctc_loss(lp, targets, il, tl, **k) if lib.__name__ == "torch" \
        else _F(lib).functional_ctc_loss(lp, targets, il, tl, **k)


OPS_DB = [
    _interp("interpolate.nearest1d", ("upsample_nearest1d",),
            lambda rng: _rows(rng, (2, 2, 5), mode="nearest")),
    _interp("interpolate.nearest2d", ("upsample_nearest2d",),
            lambda rng: _rows(rng, (1, 2, 4, 5), mode="nearest")),
    _interp("interpolate.nearest3d", ("upsample_nearest3d",),
            lambda rng: _rows(rng, (1, 1, 3, 2, 4), mode="nearest")),
    _interp("interpolate.nearest-exact1d", ("_upsample_nearest_exact1d",),
            lambda rng: _rows(rng, (2, 2, 5), mode="nearest-exact")),
    _interp("interpolate.nearest-exact2d", ("_upsample_nearest_exact2d",),
            lambda rng: _rows(rng, (1, 2, 4, 5), mode="nearest-exact")),
    _interp("interpolate.nearest-exact3d", ("_upsample_nearest_exact3d",),
            lambda rng: _rows(rng, (1, 1, 3, 2, 4), mode="nearest-exact")),
    _interp("interpolate.linear", ("upsample_linear1d",),
            lambda rng: _aligned(rng, (2, 2, 5), "linear")),
    _interp("interpolate.bilinear", ("upsample_bilinear2d",),
            lambda rng: _aligned(rng, (1, 2, 4, 5), "bilinear")),
    _interp("interpolate.bicubic", ("upsample_bicubic2d",),
            lambda rng: _aligned(rng, (1, 2, 4, 5), "bicubic")),
    _interp("interpolate.trilinear", ("upsample_trilinear3d",),
            lambda rng: _aligned(rng, (1, 1, 3, 2, 4), "trilinear")),
    _interp("interpolate.bilinear_aa", ("_upsample_bilinear2d_aa",),
            lambda rng: _rows(rng, (1, 2, 6, 5), mode="bilinear", antialias=True)),
    _interp("interpolate.bicubic_aa", ("_upsample_bicubic2d_aa",),
            lambda rng: _rows(rng, (1, 2, 6, 5), mode="bicubic", antialias=True,
                              align_corners=True)),
    _interp("interpolate.lanczos", ("_upsample_lanczos2d_aa",),
            lambda rng: _rows(rng, (1, 2, 6, 5), mode="lanczos", antialias=True)),
    OpInfo("interpolate.area3d", lambda lib, x, **k: _F(lib).interpolate(x, **k),
           lambda rng: [Sample(randn(rng, 1, 2, 4, 5, 3), mode="area", size=(2, 3, 2))],
           ops=("_adaptive_avg_pool3d", "_adaptive_avg_pool3d_backward")),
    OpInfo("grid_sample.2d", _grid_fn, _grid_samples(2, ("bilinear", "nearest", "bicubic")),
           ops=("grid_sampler_2d", "grid_sampler_2d_backward",
                "_grid_sampler_2d_double_backward"), atol=1e-4),
    OpInfo("grid_sample.3d", _grid_fn, _grid_samples(3, ("bilinear", "nearest")),
           ops=("grid_sampler_3d", "grid_sampler_3d_backward",
                "_grid_sampler_3d_double_backward"), atol=1e-4),
    OpInfo("affine_grid", lambda lib, theta, size, **k: _F(lib).affine_grid(theta, size, **k),
           _affine_samples, ops=("affine_grid_generator",)),
    # PyTorch's CTC gradient is the gradient through a log_softmax (Note [CTC]), not the
    # derivative of the nll in log_probs: compared with PyTorch, not with finite differences
    OpInfo("ctc_loss", _ctc, _ctc_samples, ops=("_ctc_loss", "_ctc_loss_backward"),
           gradcheck=False),
]
