"""nn.init against PyTorch: every initializer's values after manual_seed (and with a seeded
generator) over shapes and arguments, what it returns, its warnings and its errors."""
import pytest

from helpers import same, same_error, same_warnings

SHAPES = [(3, 5), (4, 2, 3), (2, 3, 2, 2), (6,)]


def _seeded(init, shape, *args, generator=False, dtype="float32", **kwargs):
    def prog(T):
        T.manual_seed(0)
        t = T.empty(shape, dtype=getattr(T, dtype))
        if generator:
            kwargs["generator"] = T.Generator().manual_seed(7)
        out = getattr(T.nn.init, init)(t, *args, **kwargs)
        return out is t, t, T.randn(2)      # and the default stream continues alike
    return prog


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("init, args, kwargs", [
    ("uniform_", (), {}), ("uniform_", (-2.0, 0.5), {}), ("normal_", (), {}),
    ("normal_", (1.5, 0.1), {}), ("trunc_normal_", (), {}),
    ("trunc_normal_", (0.5, 2.0, -1.0, 1.5), {}), ("trunc_normal_", (), {"std": 0.02}),
])
def test_distribution_initializers(init, args, kwargs, shape):
    same(_seeded(init, shape, *args, **kwargs))
    same(_seeded(init, shape, *args, generator=True, **kwargs))
    same(_seeded(init, shape, *args, dtype="float64", **kwargs))


@pytest.mark.parametrize("shape", SHAPES[:3])
@pytest.mark.parametrize("init, args, kwargs", [
    ("xavier_uniform_", (), {}), ("xavier_uniform_", (2.0,), {}), ("xavier_normal_", (), {}),
    ("xavier_normal_", (), {"gain": 0.5}), ("kaiming_uniform_", (), {}),
    ("kaiming_uniform_", (), {"a": 5 ** 0.5}),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (), {}), ("kaiming_normal_", (0.1, "fan_out", "leaky_relu"), {}),
    ("kaiming_normal_", (), {"nonlinearity": "selu"}), ("orthogonal_", (), {}),
    ("orthogonal_", (), {"gain": 2.0}), ("sparse_", (0.5,), {}),
    ("sparse_", (0.3, 0.5), {}),
])
def test_fan_initializers(init, args, kwargs, shape):
    if init == "sparse_" and len(shape) != 2:
        same_error(_seeded(init, shape, *args, **kwargs))
        return
    atol = 1e-5 if init == "orthogonal_" else 1e-6     # LAPACK's QR, a few ulps apart
    same(_seeded(init, shape, *args, **kwargs), atol=atol)
    same(_seeded(init, shape, *args, generator=True, **kwargs), atol=atol)


def test_deterministic_initializers():
    def prog(T):
        out = []
        for shape in SHAPES:
            t = T.empty(shape)
            out += [T.nn.init.constant_(t, 0.3).clone(), T.nn.init.ones_(t).clone(),
                    T.nn.init.zeros_(t).clone()]
        out.append(T.nn.init.eye_(T.empty(3, 5)))
        out.append(T.nn.init.eye_(T.empty(4, 2)))
        for shape, groups in [((4, 2, 3), 1), ((6, 2, 3, 3), 2), ((2, 4, 1, 3, 3), 1),
                              ((3, 5, 3), 1), ((8, 2, 2, 2), 4)]:
            out.append(T.nn.init.dirac_(T.empty(shape), groups))
        return out
    same(prog)


def test_calculate_gain():
    def prog(T):
        g = T.nn.init.calculate_gain
        return [g(n) for n in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                               "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh",
                               "relu", "leaky_relu", "selu")] + [
            g("leaky_relu", 0.2), g("leaky_relu", 1), g("tanh", 3)]
    same(prog)
    same_error(lambda T: T.nn.init.calculate_gain("leaky_relu", "x"))
    same_error(lambda T: T.nn.init.calculate_gain("swish"))


def test_initializers_record_no_graph():
    def prog(T):
        w = T.nn.Parameter(T.ones(3, 4))
        T.manual_seed(1)
        for f in (T.nn.init.uniform_, T.nn.init.normal_, T.nn.init.xavier_normal_,
                  T.nn.init.kaiming_uniform_, T.nn.init.orthogonal_, T.nn.init.eye_):
            f(w)
        return w, w.grad_fn, w.requires_grad, w.is_leaf
    same(prog)


def test_errors():
    same_error(lambda T: T.nn.init.xavier_uniform_(T.empty(3)))
    same_error(lambda T: T.nn.init.kaiming_normal_(T.empty(3)))
    same_error(lambda T: T.nn.init.kaiming_normal_(T.empty(3, 4), mode="fan"))
    same_error(lambda T: T.nn.init.orthogonal_(T.empty(3)))
    same_error(lambda T: T.nn.init.eye_(T.empty(3)))
    same_error(lambda T: T.nn.init.dirac_(T.empty(3, 3)))
    same_error(lambda T: T.nn.init.dirac_(T.empty(3, 3, 3), 2))
    same_error(lambda T: T.nn.init.sparse_(T.empty(3, 3, 3), 0.5))
    same_warnings(lambda T: T.nn.init.kaiming_uniform_(T.empty(0, 4)))
    same_warnings(lambda T: T.nn.init.trunc_normal_(T.empty(5), mean=5.0, a=-1.0, b=1.0))


@pytest.mark.parametrize("old, args", [
    ("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()), ("dirac", ()),
    ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
    ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_aliases(old, args):
    def prog(T):
        T.manual_seed(0)
        t = T.empty((3, 3, 3) if old == "dirac" else (3, 3))
        return getattr(T.nn.init, old)(t, *args), t
    same(prog, atol=1e-5)
    same_warnings(prog)
