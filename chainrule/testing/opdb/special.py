"""Op-database entries for the special functions (ops/special.py): lgamma, digamma, polygamma,
mvlgamma, erfinv, i0 and special_i1, igamma, igammac, sinc, logit, xlogy.

Samples stay away from poles (0 and the negative integers for the gamma family, +-1 for
erfinv, 0 and 1 for logit) and from the kinks of clamped forms, so finite differences are
meaningful; values at the poles and kinks are compared with PyTorch in entries with
gradcheck=False. igamma's and igammac's first input has no derivative in PyTorch: only their
second input requires grad here (tests/test_special_functions.py checks the error).
"""
import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _uniform(low, high):
    return lambda rng, *shape: np.asarray(rng.uniform(low, high, shape))


def _away_from_poles(rng, *shape):
    # positive values and negative non-integers at least 0.2 from an integer
    signs = rng.choice([-1.0, 1.0], shape)
    whole = rng.integers(0, 4, shape)
    return np.asarray(np.where(signs > 0, rng.uniform(0.3, 6.0, shape),
                               -(whole + rng.uniform(0.2, 0.8, shape))))


def _unary(gen):
    """A (3, 4) tensor, a 0-d tensor and a non-contiguous one, drawn by gen(rng, *shape)."""
    return lambda rng: [Sample(gen(rng, 3, 4)), Sample(gen(rng)),
                        Sample(noncontiguous(gen(rng, 2, 3)), name="non-contiguous")]


def _fixed(*arrays, **kwargs):
    return lambda rng: [Sample(*arrays, **kwargs)]


def _first_grad(f):
    """d f(x) / dx applied to v, with create_graph: its gradient runs the derivative's own
    rows (i0's derivative is special_i1, whose derivative calls i0)."""
    def grad(lib, x, v):
        with lib.enable_grad():     # gradcheck's finite differences run under no_grad
            return lib.autograd.grad(f(lib, x), x, v, create_graph=True)[0]
    return grad


def _polygamma_samples(rng):
    return [Sample(0, _away_from_poles(rng, 3, 4)), Sample(1, _away_from_poles(rng, 5)),
            Sample(2, positive(rng, 2, 3)), Sample(3, _away_from_poles(rng, 4)),
            Sample(5, np.asarray(_away_from_poles(rng))),
            Sample(2, noncontiguous(positive(rng, 2, 3)), name="non-contiguous")]


def _gamma_pairs(rng):
    # (a, x) with only x requiring grad; a ~ x, a << x, a >> x, broadcasting
    return [Sample(positive(rng, 3, 4, low=0.5, high=4.0), positive(rng, 3, 4, low=0.5, high=4.0),
                   grad=(1,)),
            Sample(positive(rng, 4, low=20, high=40), positive(rng, 3, 4, low=20, high=40),
                   grad=(1,), name="asymptotic a ~ x"),
            Sample(np.asarray(2.5), positive(rng, 5, low=0.1, high=8.0), grad=(1,),
                   name="0-d a"),
            Sample(noncontiguous(positive(rng, 2, 3)), positive(rng, 2, 3), grad=(1,),
                   name="non-contiguous")]


_POLES = np.array([0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 0.5, np.inf, -np.inf, np.nan, 1e-300,
                   171.5, 1e17, -1e6 - 0.5])
_UNIT = np.array([-1.0, 1.0, -0.0, 0.0, 0.5, -0.999999, 1.5, -2.0, np.nan, 1e-310])


OPS_DB = [
    OpInfo("lgamma", lambda lib, a: a.lgamma(), _unary(_away_from_poles)),
    OpInfo("digamma", lambda lib, a: lib.digamma(a), _unary(_away_from_poles)),
    OpInfo("polygamma", lambda lib, n, a: lib.polygamma(n, a), _polygamma_samples),
    OpInfo("polygamma.method", lambda lib, n, a: a.polygamma(n), _polygamma_samples,
           ops=("polygamma",)),
    OpInfo("mvlgamma", lambda lib, a, p: lib.mvlgamma(a, p),
           lambda rng: [Sample(positive(rng, 3, 4, low=1.6, high=5.0), 1),
                        Sample(positive(rng, 3, 4, low=1.6, high=5.0), 3),
                        Sample(np.asarray(positive(rng, low=2.7, high=5.0)), 5),
                        Sample(noncontiguous(positive(rng, 2, 3, low=1.6, high=5.0)), 2)]),
    OpInfo("erfinv", lambda lib, a: a.erfinv(), _unary(_uniform(-0.9, 0.9))),
    OpInfo("i0", lambda lib, a: lib.i0(a), _unary(lambda rng, *s: np.asarray(randn(rng, *s) * 3))),
    OpInfo("special_i1", _first_grad(lambda lib, a: lib.i0(a)),
           lambda rng: [Sample(randn(rng, 3, 4) * 3, randn(rng, 3, 4), grad=(0,)),
                        Sample(np.array([0.0, 1e-20, -0.5, 9.0, -12.0]), np.ones(5), grad=(0,),
                               name="tiny and large")],
           ops=("i0", "special_i1", "mul")),
    OpInfo("igamma", lambda lib, a, x: lib.igamma(a, x), _gamma_pairs),
    OpInfo("igammac", lambda lib, a, x: a.igammac(x), _gamma_pairs),
    OpInfo("sinc", lambda lib, a: lib.sinc(a),
           _unary(lambda rng, *s: np.asarray(rng.choice([-1.0, 1.0], s)
                                             * rng.uniform(0.1, 3.0, s)))),
    OpInfo("logit", lambda lib, a, **kw: a.logit(**kw),
           lambda rng: [Sample(_uniform(0.05, 0.95)(rng, 3, 4)),
                        Sample(np.asarray(rng.uniform(0.05, 0.95))),
                        Sample(np.array([0.02, 0.3, 0.6, 0.97]), eps=0.1, name="eps"),
                        Sample(noncontiguous(_uniform(0.05, 0.95)(rng, 2, 3)), eps=0.01)]),
    OpInfo("xlogy.Tensor", lambda lib, a, b: lib.xlogy(a, b),
           lambda rng: [Sample(randn(rng, 3, 4), positive(rng, 3, 4)),
                        Sample(randn(rng, 3, 4), positive(rng, 4), name="broadcast"),
                        Sample(np.array([0.0, 0.0, 1.5]), np.array([2.0, 0.5, 3.0]),
                               name="zero self"),
                        Sample(noncontiguous(randn(rng, 2, 3)), positive(rng, 2, 3))]),
    OpInfo("xlogy.Scalar_Self", lambda lib, b: lib.xlogy(2.5, b),
           _unary(lambda rng, *s: positive(rng, *s))),
    OpInfo("xlogy.Scalar_Other", lambda lib, a: a.xlogy(3.0), _unary(randn)),
    OpInfo("xlogy.Scalar_Other.small", lambda lib, a: lib.xlogy(a, 0.5), _unary(randn),
           ops=("xlogy.Scalar_Other",)),

    # ---- in-place variants on a non-leaf: the node replaces clone's ----
    OpInfo("lgamma_", lambda lib, a: a.clone().lgamma_(), _unary(_away_from_poles),
           ops=("lgamma", "clone")),
    OpInfo("digamma_", lambda lib, a: a.clone().digamma_(), _unary(_away_from_poles),
           ops=("digamma", "clone")),
    OpInfo("polygamma_", lambda lib, a: a.clone().polygamma_(2), _unary(positive),
           ops=("polygamma_", "clone")),
    OpInfo("mvlgamma_", lambda lib, a: a.clone().mvlgamma_(2),
           _unary(lambda rng, *s: positive(rng, *s, low=1.0, high=4.0)),
           ops=("mvlgamma", "clone")),
    OpInfo("erfinv_", lambda lib, a: a.clone().erfinv_(), _unary(_uniform(-0.9, 0.9)),
           ops=("erfinv", "clone")),
    OpInfo("i0_", lambda lib, a: lib.i0_(a.clone()), _unary(randn), ops=("i0", "clone")),
    OpInfo("igamma_", lambda lib, a, x: a.clone().igamma_(x),
           lambda rng: [Sample(positive(rng, 3), positive(rng, 3), grad=(1,))],
           ops=("igamma", "clone")),
    OpInfo("igammac_", lambda lib, a, x: a.clone().igammac_(x),
           lambda rng: [Sample(positive(rng, 3), positive(rng, 3), grad=(1,))],
           ops=("igammac", "clone")),
    OpInfo("sinc_", lambda lib, a: lib.sinc_(a.clone()), _unary(positive), ops=("sinc", "clone")),
    OpInfo("logit_", lambda lib, a: lib.logit_(a.clone(), 0.1), _unary(_uniform(0.15, 0.85)),
           ops=("logit", "clone")),
    OpInfo("xlogy_", lambda lib, a, b: a.clone().xlogy_(b),
           lambda rng: [Sample(randn(rng, 3), positive(rng, 3)), Sample(randn(rng, 3), 2.0)],
           ops=("xlogy.Tensor", "xlogy.Scalar_Other", "clone")),
    OpInfo("xlogy_.function", lambda lib, a, b: lib.xlogy_(a.clone(), b),
           lambda rng: [Sample(randn(rng, 3), positive(rng, 3))], ops=("xlogy.Tensor", "clone")),

    # ---- poles, edges and kinks, against PyTorch exactly (no finite differences) ----
    OpInfo("gamma.poles", lambda lib, a: lib.stack([a.lgamma(), a.digamma(), a.polygamma(1),
                                                    a.polygamma(2), a.polygamma(3)]),
           _fixed(_POLES), ops=("lgamma", "digamma", "polygamma", "stack"), gradcheck=False,
           compare_rtol=1e-12),
    OpInfo("erfinv.edges", lambda lib, a: a.erfinv(), _fixed(_UNIT), ops=("erfinv",),
           gradcheck=False, compare_rtol=1e-12),
    OpInfo("bessel.edges", _first_grad(lambda lib, a: lib.i0(a)),
           _fixed(np.array([0.0, -0.0, 2e-16, 8.0, -8.0, 700.0, 720.0, np.inf, -np.inf, np.nan]),
                  np.ones(10), grad=(0,)),
           ops=("i0", "special_i1", "mul"), gradcheck=False, compare_rtol=1e-12),
    OpInfo("sinc.zero", lambda lib, a: lib.sinc(a),
           _fixed(np.array([0.0, -0.0, 1.0, -2.0, 0.5, np.inf, np.nan, 1e-300])),
           ops=("sinc",), gradcheck=False),
    OpInfo("sinc.complex", lambda lib, a: a.sinc(),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j, 0j, 3 - 1j])), ops=("sinc",), gradcheck=False),
    OpInfo("logit.edges", lambda lib, a, **kw: lib.logit(a, **kw),
           lambda rng: [Sample(np.array([-0.5, 0.0, 1e-5, 0.5, 1.0, 1.5, np.nan])),
                        Sample(np.array([-0.5, 0.0, 0.05, 0.5, 0.96, 1.0, 1.5]), eps=0.1),
                        Sample(np.array([-0.5, 0.0, 0.5, 1.0, 1.5]), eps=-0.1),
                        Sample(np.array([0.2, 0.5, 0.7]), eps=0.6)],
           ops=("logit",), gradcheck=False),
    OpInfo("xlogy.edges", lambda lib, a, b: lib.xlogy(a, b),
           _fixed(np.array([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0, np.nan]),
                  np.array([0.0, -1.0, np.nan, 0.0, np.inf, -1.0, np.inf, 1.0])),
           ops=("xlogy.Tensor",), gradcheck=False),
    OpInfo("xlogy.Scalar_Other.edges", lambda lib, a: lib.stack([a.xlogy(0.0), a.xlogy(-1.0)]),
           _fixed(np.array([0.0, 1.0, -2.0])), ops=("xlogy.Scalar_Other", "stack"),
           gradcheck=False),
    OpInfo("igamma.edges", lambda lib, a, x: lib.stack([lib.igamma(a, x), lib.igammac(a, x)]),
           _fixed(np.array([0.0, 0.0, 1.0, -1.0, 1.0, np.inf, np.inf, 2.0, np.nan, 3.0, 100.0]),
                  np.array([0.0, 1.0, 0.0, 1.0, -1.0, 1.0, np.inf, np.inf, 1.0, np.nan, 99.0]),
                  grad=(1,)),
           ops=("igamma", "igammac", "stack"), gradcheck=False),
    # the reparameterized-gradient kernels of Gamma and Dirichlet samples; PyTorch has no
    # derivative for them (test_distributions.py checks the nodes): values over each branch
    OpInfo("_standard_gamma_grad", lambda lib, a, x: lib._standard_gamma_grad(a, x),
           lambda rng: [Sample(positive(rng, 4, 5, low=0.1, high=20.0),
                               positive(rng, 4, 5, low=0.01, high=30.0), grad=()),
                        Sample(np.array([10.0, 12.0, 30.0, 9.0]), np.array([9.5, 12.5, 5.0, 40.0]),
                               grad=(), name="Rice expansion"),
                        Sample(np.asarray(3.0), np.array([0.1, 0.5, 2.0, 7.0]), grad=(),
                               name="0-d alpha")],
           gradcheck=False),
    OpInfo("_dirichlet_grad", lambda lib, x, a, t: lib._dirichlet_grad(x, a, t),
           lambda rng: [Sample(_uniform(0.01, 0.99)(rng, 4, 5), positive(rng, 4, 5),
                               positive(rng, 4, 5) + 6.0, grad=()),
                        Sample(np.array([0.1, 0.95, 0.5, 0.4, 0.6]),
                               np.array([0.5, 2.0, 10.0, 40.0, 3.0]),
                               np.array([1.0, 2.2, 20.0, 40.5, 9.0]), grad=(),
                               name="each branch")],
           gradcheck=False),
]
