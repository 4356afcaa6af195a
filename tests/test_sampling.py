"""Interpolation, grid sampling, affine grids and the CTC loss against PyTorch 2.13: values,
gradients to second order, node names, dtypes, modules, warnings and errors."""
import warnings

import numpy as np
import pytest

from helpers import same, same_error, same_warnings


def _graph(fn, depth=0):
    if fn is None:
        return None
    if depth == 4:
        return type(fn).__name__
    return (type(fn).__name__, [_graph(n, depth + 1) for n, _ in fn.next_functions])


def _z(T, *shape, dtype="float64"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


# ---- interpolate ----------------------------------------------------------------------------

INTERPOLATIONS = [
    ((2, 3, 7), dict(scale_factor=2.5, mode="nearest")),
    ((1, 2, 6, 5), dict(size=(4, 9), mode="nearest")),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 0.5, 1.5), mode="nearest")),
    ((2, 2, 9), dict(scale_factor=0.7, mode="nearest-exact")),
    ((1, 2, 6, 5), dict(size=(11, 3), mode="nearest-exact")),
    ((1, 1, 3, 4, 5), dict(scale_factor=1.7, mode="nearest-exact",
                           recompute_scale_factor=True)),
    ((2, 3, 7), dict(scale_factor=1.6, mode="linear")),
    ((2, 3, 7), dict(size=4, mode="linear", align_corners=True)),
    ((1, 2, 6, 5), dict(scale_factor=(1.5, 0.8), mode="bilinear")),
    ((1, 2, 6, 5), dict(size=(9, 2), mode="bilinear", align_corners=True)),
    ((1, 2, 6, 5), dict(scale_factor=1.3, mode="bicubic")),
    ((1, 2, 6, 5), dict(size=(3, 8), mode="bicubic", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.5, mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(size=(2, 5, 3), mode="trilinear", align_corners=True)),
    ((1, 2, 9, 8), dict(scale_factor=0.4, mode="bilinear", antialias=True)),
    ((1, 2, 9, 8), dict(size=(4, 11), mode="bicubic", antialias=True, align_corners=True)),
    ((1, 2, 9, 8), dict(scale_factor=0.5, mode="lanczos", antialias=True)),
    ((2, 3, 9), dict(scale_factor=0.5, mode="area")),
    ((1, 2, 9, 8), dict(size=(4, 3), mode="area")),
    ((1, 2, 6, 5, 4), dict(scale_factor=0.6, mode="area")),
    ((1, 2, 6, 5), dict(size=(6, 5), mode="bilinear")),
]


@pytest.mark.parametrize("i", range(len(INTERPOLATIONS)))
def test_interpolate_values_grads_graphs(i):
    shape, kw = INTERPOLATIONS[i]
    a = np.random.default_rng(i).standard_normal(shape)

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        y = T.nn.functional.interpolate(x, **kw)
        g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), x)
        # 1-D area pools in 2-D between unsqueeze and squeeze, whose gradient graph is the
        # shape family's business
        squeezed = kw["mode"] == "area" and len(shape) == 3
        return y, g, gg, _graph(y.grad_fn), None if squeezed else _graph(g.grad_fn)
    same(prog)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "nearest-exact"])
def test_interpolate_float32(mode, rng):
    a = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        y = T.nn.functional.interpolate(x, scale_factor=1.37, mode=mode)
        return y, T.autograd.grad(y.sum() + (y * y).sum(), x)
    same(prog, atol=1e-5, rtol=1e-5)


def test_interpolate_dtypes(rng):
    a = rng.integers(0, 256, (1, 2, 5, 4)).astype(np.uint8)

    def prog(T):
        x = T.tensor(a)
        F = T.nn.functional
        return (F.interpolate(x, scale_factor=1.5), F.interpolate(x, size=(7, 3),
                                                                   mode="nearest-exact"),
                F.interpolate(x.half(), scale_factor=2, mode="bilinear"),
                F.interpolate(x.double()[:, :, 0], scale_factor=3, mode="linear"))
    same(prog, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("kw", [
    dict(mode="bilinear", scale_factor=1.5), dict(mode="bicubic", size=(5, 4)),
    dict(mode="bilinear", size=(13, 3), align_corners=True),
    dict(mode="bicubic", scale_factor=0.7, align_corners=True),
    dict(mode="bilinear", scale_factor=0.5, antialias=True),
    dict(mode="bicubic", size=(4, 11), antialias=True),
    dict(mode="lanczos", scale_factor=0.6, antialias=True)])
def test_interpolate_uint8_fixed_point(kw, rng):
    """uint8 images resize as PyTorch's (Pillow's) fixed-point kernels: bit for bit."""
    a = rng.integers(0, 256, (2, 3, 9, 8)).astype(np.uint8)
    same(lambda T: T.nn.functional.interpolate(T.tensor(a), **kw))


INTERPOLATE_ERRORS = [
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=(0, 8)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=(0, 8), mode="bilinear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 0, 4), size=(3, 8), mode="bilinear"),
    lambda F, T: F.interpolate(_z(T, 1, 0, 5, 4), size=(3, 8)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5), size=(0,), mode="linear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 2, 5, 4), size=(0, 1, 1), mode="trilinear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4, dtype="int64"), size=(3, 8)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, dtype="int64"), size=3),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4, dtype="int64"), size=3, mode="bilinear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, dtype="uint8"), size=3, mode="linear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4, dtype="float16"), size=3, mode="bilinear",
                               antialias=True),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4, dtype="bool"), size=3),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4, dtype="int64"), size=3, mode="area"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), scale_factor=0.0),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), scale_factor=-1.0),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=(3, 3.5)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=(3,)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), scale_factor=(3,)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, scale_factor=2),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4)),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, recompute_scale_factor=True),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, align_corners=True),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, mode="foo"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, mode="linear"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, mode="trilinear"),
    lambda F, T: F.interpolate(_z(T, 2, 5, 4), size=3, mode="bilinear"),
    lambda F, T: F.interpolate(_z(T, 2, 5, 4), size=3, antialias=True),
    lambda F, T: F.interpolate(_z(T, 5, 4), size=3),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, mode="lanczos"),
    lambda F, T: F.interpolate(_z(T, 1, 2, 5, 4), size=3, mode="lanczos", antialias=True,
                               align_corners=True),
    lambda F, T: F.interpolate(_z(T, 1, 2, 3, 5, 4), size=3, mode="bicubic"),
]


@pytest.mark.parametrize("i", range(len(INTERPOLATE_ERRORS)))
def test_interpolate_errors(i):
    same_error(lambda T: INTERPOLATE_ERRORS[i](T.nn.functional, T))


@pytest.mark.parametrize("name, kw", [
    ("upsample", dict(scale_factor=2, mode="bilinear")),
    ("upsample_nearest", dict(size=(3, 5))),
    ("upsample_bilinear", dict(scale_factor=1.5))])
def test_deprecated_upsample_functions(name, kw, rng):
    a = rng.standard_normal((1, 2, 3, 4))
    same_warnings(lambda T: getattr(T.nn.functional, name)(T.tensor(a), **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda T: getattr(T.nn.functional, name)(T.tensor(a), **kw))


@pytest.mark.parametrize("build", [
    lambda nn: nn.Upsample(scale_factor=2),
    lambda nn: nn.Upsample(size=(5, 3), mode="bilinear", align_corners=False),
    lambda nn: nn.Upsample(scale_factor=(1.5, 0.5), mode="bicubic"),
    lambda nn: nn.Upsample(scale_factor=1.5, mode="nearest", recompute_scale_factor=True),
    lambda nn: nn.UpsamplingNearest2d(scale_factor=3),
    lambda nn: nn.UpsamplingBilinear2d(size=(7, 2)),
])
def test_upsample_modules(build, rng):
    a = rng.standard_normal((1, 2, 4, 4))

    def prog(T):
        m = build(T.nn)
        x = T.tensor(a, requires_grad=True)
        y = m(x)
        return repr(m), y, T.autograd.grad(y.sum(), x), m.scale_factor, m.size, m.mode
    same(prog)


# ---- grid_sample, affine_grid ---------------------------------------------------------------

GRID_CASES = [(mode, pad, ac, dims) for dims in (2, 3)
              for mode in (("bilinear", "nearest", "bicubic") if dims == 2
                           else ("bilinear", "nearest"))
              for pad in ("zeros", "border", "reflection") for ac in (False, True)]


@pytest.mark.parametrize("mode, pad, ac, dims", GRID_CASES)
def test_grid_sample_to_second_order(mode, pad, ac, dims, rng):
    x_shape, g_shape = ((2, 3, 5, 4), (2, 3, 6, 2)) if dims == 2 else \
        ((2, 2, 3, 4, 5), (2, 2, 3, 2, 3))
    a, g = rng.standard_normal(x_shape), rng.uniform(-1.3, 1.3, g_shape)

    def prog(T):
        x, grid = T.tensor(a, requires_grad=True), T.tensor(g, requires_grad=True)
        y = T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac)
        gx, gg = T.autograd.grad((y * y).sum(), (x, grid), create_graph=True)
        second = T.autograd.grad((gx * gx).sum() + (gg * gg).sum(), (x, grid))
        return y, gx, gg, second, _graph(y.grad_fn), _graph(gx.grad_fn)
    same(prog, atol=1e-8, rtol=1e-7)


def test_grid_sample_float32_and_torch_level(rng):
    a, g = rng.standard_normal((1, 2, 5, 4)), rng.uniform(-1, 1, (1, 3, 3, 2))

    def prog(T):
        x = T.tensor(a, dtype=T.float32, requires_grad=True)
        grid = T.tensor(g, dtype=T.float32, requires_grad=True)
        y1 = T.grid_sampler(x, grid, 0, 1, False)
        y2 = T.grid_sampler_2d(x, grid, 2, 2, True)
        y3 = T.grid_sampler_3d(x[:, :, None], T.cat([grid, grid[..., :1]], -1)[:, None], 1, 0,
                               False)
        return y1, y2, y3, T.autograd.grad((y1 * y2).sum() + y3.sum(), (x, grid))
    same(prog, atol=1e-5, rtol=1e-5)


def test_grid_sample_warns_without_align_corners():
    same_warnings(lambda T: T.nn.functional.grid_sample(_z(T, 1, 1, 3, 3), _z(T, 1, 2, 2, 2)))


GRID_ERRORS = [
    lambda F, T: T.grid_sampler(_z(T, 1, 2, 5, 4), _z(T, 1, 3, 4, 2, dtype="float32"), 0, 0,
                                False),
    lambda F, T: T.grid_sampler(_z(T, 1, 2, 5, 4), _z(T, 1, 3, 4, 1), 0, 0, False),
    lambda F, T: T.grid_sampler(_z(T, 1, 2, 0, 4), _z(T, 1, 3, 4, 2), 0, 0, False),
    lambda F, T: T.grid_sampler(_z(T, 1, 2, 5, 4), _z(T, 2, 3, 4, 2), 0, 0, False),
    lambda F, T: T.grid_sampler(_z(T, 2, 5, 4), _z(T, 3, 4, 2), 0, 0, False),
    lambda F, T: T.grid_sampler(_z(T, 1, 1, 2, 5, 4), _z(T, 1, 1, 3, 4, 3), 2, 0, False),
    lambda F, T: T.grid_sampler(_z(T, 1, 2, 5, 4), _z(T, 3, 4, 2), 0, 0, False),
    lambda F, T: T.grid_sampler_3d(_z(T, 1, 2, 5, 4), _z(T, 1, 3, 4, 2), 0, 0, False),
    lambda F, T: T.grid_sampler_2d(_z(T, 1, 2, 5, 4, dtype="int64"),
                                   _z(T, 1, 3, 4, 2, dtype="int64"), 0, 0, False),
    lambda F, T: F.grid_sample(_z(T, 1, 2, 5, 4), _z(T, 1, 3, 4, 2), mode="foo"),
    lambda F, T: F.grid_sample(_z(T, 1, 2, 5, 4), _z(T, 1, 3, 4, 2), padding_mode="foo"),
    lambda F, T: T.affine_grid_generator(_z(T, 1, 2, 3), [1, 2, 4], False),
    lambda F, T: T.affine_grid_generator(_z(T, 1, 3, 3), [1, 2, 4, 5], False),
    lambda F, T: T.affine_grid_generator(_z(T, 2, 2, 3), [1, 2, 4, 5], False),
    lambda F, T: F.affine_grid(_z(T, 1, 2, 3), [1, 2, 4], False),
    lambda F, T: F.affine_grid(_z(T, 1, 2, 3, dtype="int64"), [1, 2, 4, 5], False),
    lambda F, T: F.affine_grid(_z(T, 1, 2, 4), [1, 2, 4, 5], False),
    lambda F, T: F.affine_grid(_z(T, 1, 2, 3), [1, 2, 4, 5, 6], False),
    lambda F, T: F.affine_grid(_z(T, 1, 2, 3), [1, 2, 0, 5], False),
]


@pytest.mark.parametrize("i", range(len(GRID_ERRORS)))
def test_grid_errors(i):
    same_error(lambda T: GRID_ERRORS[i](T.nn.functional, T))


def test_grid_sample_empty(rng):
    def prog(T):
        return (T.grid_sampler_2d(_z(T, 0, 2, 5, 4), _z(T, 0, 3, 4, 2), 0, 0, False),
                T.grid_sampler_2d(_z(T, 1, 2, 5, 4), _z(T, 1, 0, 4, 2), 0, 0, False),
                T.grid_sampler_2d(_z(T, 1, 0, 5, 4), _z(T, 1, 3, 4, 2), 0, 0, False))
    same(prog)


@pytest.mark.parametrize("size, ac", [((2, 1, 3, 4), False), ((2, 1, 3, 4), True),
                                      ((1, 2, 2, 3, 4), False), ((1, 1, 1, 5), True)])
def test_affine_grid(size, ac, rng):
    a = rng.standard_normal((size[0], len(size) - 2, len(size) - 1))

    def prog(T):
        theta = T.tensor(a, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = T.nn.functional.affine_grid(theta, size, align_corners=ac)
        g, = T.autograd.grad((grid * grid).sum(), theta, create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), theta)
        return grid, g, gg, _graph(grid.grad_fn), _graph(g.grad_fn), \
            T.affine_grid_generator(theta.detach().long(), size, ac)
    same(prog)


def test_affine_grid_warnings():
    same_warnings(lambda T: T.nn.functional.affine_grid(_z(T, 1, 2, 3), [1, 1, 2, 2]))
    same_warnings(lambda T: T.nn.functional.affine_grid(_z(T, 1, 2, 3), [1, 1, 1, 2], True))


# ---- CTC loss -------------------------------------------------------------------------------

def _log_probs(rng, t, b, c):
    return np.log(rng.dirichlet(np.ones(c), (t, b)))


CTC_CASES = [
    (np.array([[1, 2, 1], [3, 1, 0]]), [6, 5], [3, 2], {}),
    (np.array([[1, 1, 1], [3, 3, 0]]), [6, 5], [3, 2], dict(reduction="none")),
    (np.array([1, 2, 1, 3, 1]), [6, 5], [3, 2], dict(reduction="sum")),
    (np.array([[1, 2, 4], [3, 1, 0]]), [6, 2], [3, 2], dict(reduction="none",
                                                           zero_infinity=True)),
    (np.array([[1, 2, 4], [3, 1, 0]]), [6, 2], [3, 2], dict(reduction="none")),
    (np.array([[1, 2, 3], [3, 1, 0]]), [6, 0], [0, 0], dict(reduction="none", blank=4)),
]


@pytest.mark.parametrize("i", range(len(CTC_CASES)))
def test_ctc_loss(i, rng):
    targets, il, tl, kw = CTC_CASES[i]
    lp = _log_probs(rng, 6, 2, 5)

    def prog(T):
        x = T.tensor(lp, requires_grad=True)
        tensors = T.nn.functional.ctc_loss(x, T.tensor(targets), T.tensor(il), T.tensor(tl),
                                           **kw)
        lists = T.nn.functional.ctc_loss(x, T.tensor(targets), il, tl, **kw)
        grad, = T.autograd.grad(tensors.sum() + (lists * lists).sum(), x)
        nll, _ = T._ctc_loss(x.detach(), T.tensor(targets), il, tl, kw.get("blank", 0))
        return tensors, lists, grad, nll, _graph(tensors.grad_fn)
    same(prog)


def test_ctc_unbatched_float32_and_module(rng):
    lp = _log_probs(rng, 7, 1, 4)[:, 0].astype(np.float32)

    def prog(T):
        x = T.tensor(lp, requires_grad=True)
        loss = T.nn.CTCLoss(blank=3, reduction="none")
        y = loss(x, T.tensor([1, 2, 2]), T.tensor(7), T.tensor(3))
        y2 = T.ctc_loss(x[:, None], T.tensor([[1, 2]]), [7], [2], 3, 1, False)
        return repr(loss), y, y2, T.autograd.grad(y.sum() + y2, x), _graph(y.grad_fn)
    same(prog, atol=1e-5, rtol=1e-5)


def test_ctc_double_backward_is_not_implemented(rng):
    lp = _log_probs(rng, 5, 2, 4)

    def prog(T):
        x = T.tensor(lp, requires_grad=True)
        loss = T.nn.functional.ctc_loss(x, T.tensor([[1, 2], [2, 3]]), [5, 4], [2, 2])
        g, = T.autograd.grad(loss, x, create_graph=True)
        return g.grad_fn.name(), T.autograd.grad(g.sum(), x)
    same_error(prog)


def _lp(T, *shape, dtype="float32"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


CTC_ERRORS = [
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), T.tensor([6., 5]),
                            T.tensor([2, 2])),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), T.tensor([6, 5]),
                            T.tensor([2., 2])),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [2, 2], blank=4),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [2, 2], blank=-1),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [7, 5], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [-1, 5], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [3, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [-1, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]]), [6, 5], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([1, 2, 3]), [6, 5], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[[1, 2]]] * 2), [6, 5], [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1, 2]] * 2), [6, 5], [2, 2],
                            reduction="foo"),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4, dtype="int64"), T.tensor([[1, 2]] * 2), [6, 5],
                            [2, 2]),
    lambda F, T: F.ctc_loss(_lp(T, 6, 2, 4)[0], T.tensor([[1, 2]] * 2), [6, 5], [2, 2]),
    lambda F, T: T._ctc_loss(_lp(T, 6, 2, 4), T.tensor([[1., 2]] * 2), [6, 5], [2, 2]),
    lambda F, T: T._ctc_loss(_lp(T, 6, 2, 4)[0], T.tensor([[1, 2]] * 2), [6, 5], [2, 2]),
]


@pytest.mark.parametrize("i", range(len(CTC_ERRORS)))
def test_ctc_errors(i):
    same_error(lambda T: CTC_ERRORS[i](T.nn.functional, T))


def test_deprecated_spellings_values(rng):
    a = rng.standard_normal((1, 2, 3, 4))

    def prog(T):
        F = T.nn.functional
        x = T.tensor(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return (F.upsample(x, scale_factor=2), F.upsample_nearest(x, size=(5, 5)),
                    F.upsample_bilinear(x, scale_factor=1.5))
    same(prog)
