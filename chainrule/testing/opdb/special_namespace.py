"""Op-database entries for torch.special: its own differentiable ops (ops/special.py: i0e,
i1e, erfcx, ndtri, log_ndtr, entr, xlog1py and zeta with their Scalar overloads), ndtr
(composed of erf), and its aliases of top-level ops, whose nodes must be the top-level ops'
(special.gammaln(x).grad_fn is LgammaBackward0).

The Bessel functions and orthogonal polynomials have no derivatives in PyTorch (their rows
record no node); tests/test_special_namespace.py compares their values. zeta's first input
has no derivative (not_implemented): only the second requires grad here, and the overload
whose only tensor is the first is compared without gradients (the test file checks its node
and error).
"""
import numpy as np

import chainrule.special  # noqa: F401  (lib.special on chainrule before the package loads it)

from . import OpInfo, Sample, noncontiguous, positive, randn


def _uniform(low, high):
    return lambda rng, *shape: np.asarray(rng.uniform(low, high, shape))


def _scaled(scale):
    return lambda rng, *shape: np.asarray(randn(rng, *shape) * scale)


def _unary(gen):
    """A (3, 4) tensor, a 0-d tensor and a non-contiguous one, drawn by gen(rng, *shape)."""
    return lambda rng: [Sample(gen(rng, 3, 4)), Sample(gen(rng)),
                        Sample(noncontiguous(gen(rng, 2, 3)), name="non-contiguous")]


def _fixed(*arrays, **kwargs):
    return lambda rng: [Sample(*arrays, **kwargs)]


def _pairs(first, second, grad=None):
    return lambda rng: [Sample(first(rng, 3, 4), second(rng, 3, 4), grad=grad),
                        Sample(first(rng, 4), second(rng, 3, 4), grad=grad, name="broadcast"),
                        Sample(noncontiguous(first(rng, 2, 3)), second(rng, 2, 3), grad=grad,
                               name="non-contiguous")]


def _alias(name, call, gen, ops, **kwargs):
    return OpInfo(f"special.{name}", call, _unary(gen), ops=ops, **kwargs)


OPS_DB = [
    OpInfo("special_i0e", lambda lib, a: lib.special.i0e(a), _unary(_scaled(5))),
    OpInfo("special_i1e", lambda lib, a: lib.special.i1e(a), _unary(_scaled(5))),
    OpInfo("special_i1", lambda lib, a: lib.special.i1(a), _unary(_scaled(5))),
    OpInfo("special_erfcx", lambda lib, a: lib.special.erfcx(a), _unary(_scaled(3))),
    OpInfo("special_ndtri", lambda lib, a: lib.special.ndtri(a), _unary(_uniform(0.02, 0.98))),
    OpInfo("special_log_ndtr", lambda lib, a: lib.special.log_ndtr(a), _unary(_scaled(4))),
    OpInfo("special_entr", lambda lib, a: lib.special.entr(a),
           _unary(lambda rng, *s: positive(rng, *s, low=0.1, high=3.0))),
    OpInfo("special_xlog1py", lambda lib, a, b: lib.special.xlog1py(a, b),
           _pairs(randn, lambda rng, *s: positive(rng, *s, low=-0.6, high=3.0))),
    OpInfo("special_xlog1py.self_scalar", lambda lib, b: lib.special.xlog1py(2.5, b),
           _unary(lambda rng, *s: positive(rng, *s, low=-0.6, high=3.0))),
    OpInfo("special_xlog1py.other_scalar", lambda lib, a: lib.special.xlog1py(a, 0.5),
           _unary(randn)),
    OpInfo("special_xlog1py.other_scalar.negative", lambda lib, a: lib.special.xlog1py(a, -0.5),
           _unary(randn), ops=("special_xlog1py.other_scalar",)),
    # zeta(x, q): x > 1; only q is differentiable
    OpInfo("special_zeta", lambda lib, x, q: lib.special.zeta(x, q),
           _pairs(lambda rng, *s: positive(rng, *s, low=1.5, high=5.0),
                  lambda rng, *s: positive(rng, *s, low=0.3, high=4.0), grad=(1,))),
    OpInfo("special_zeta.self_scalar", lambda lib, q: lib.special.zeta(3.0, q),
           _unary(lambda rng, *s: positive(rng, *s, low=0.3, high=4.0))),
    OpInfo("special_zeta.other_scalar", lambda lib, x: lib.special.zeta(x, 2.0),
           lambda rng: [Sample(positive(rng, 3, 4, low=1.5, high=5.0), grad=())],
           gradcheck=False),
    OpInfo("special.ndtr", lambda lib, a: lib.special.ndtr(a), _unary(_scaled(3)),
           ops=("mul.Scalar", "add.Scalar", "erf")),

    # ---- aliases: the top-level rows, under torch.special's names ----
    _alias("gammaln", lambda lib, a: lib.special.gammaln(a),
           lambda rng, *s: positive(rng, *s, low=0.3, high=6.0), ("lgamma",)),
    _alias("digamma", lambda lib, a: lib.special.digamma(a),
           lambda rng, *s: positive(rng, *s, low=0.3, high=6.0), ("digamma",)),
    _alias("psi", lambda lib, a: lib.special.psi(a),
           lambda rng, *s: positive(rng, *s, low=0.3, high=6.0), ("digamma",)),
    _alias("polygamma", lambda lib, a: lib.special.polygamma(2, a),
           lambda rng, *s: positive(rng, *s, low=0.3, high=6.0), ("polygamma",)),
    _alias("multigammaln", lambda lib, a: lib.special.multigammaln(a, 3),
           lambda rng, *s: positive(rng, *s, low=1.6, high=5.0), ("mvlgamma",)),
    _alias("erf", lambda lib, a: lib.special.erf(a), randn, ("erf",)),
    _alias("erfc", lambda lib, a: lib.special.erfc(a), randn, ("erfc",)),
    _alias("erfinv", lambda lib, a: lib.special.erfinv(a), _uniform(-0.9, 0.9), ("erfinv",)),
    _alias("expm1", lambda lib, a: lib.special.expm1(a), randn, ("expm1",)),
    _alias("exp2", lambda lib, a: lib.special.exp2(a), randn, ("exp2",)),
    _alias("log1p", lambda lib, a: lib.special.log1p(a), positive, ("log1p",)),
    _alias("expit", lambda lib, a: lib.special.expit(a), randn, ("sigmoid",)),
    _alias("i0", lambda lib, a: lib.special.i0(a), _scaled(3), ("i0",)),
    _alias("sinc", lambda lib, a: lib.special.sinc(a), positive, ("sinc",)),
    _alias("logit", lambda lib, a: lib.special.logit(a, 0.05), _uniform(0.1, 0.9), ("logit",)),
    _alias("round", lambda lib, a: lib.special.round(a), randn, ("round.decimals",)),
    _alias("round.decimals", lambda lib, a: lib.special.round(a, decimals=2), randn,
           ("round.decimals",)),
    _alias("softmax", lambda lib, a: lib.special.softmax(a, -1), randn, ("_softmax",)),
    _alias("log_softmax", lambda lib, a: lib.special.log_softmax(a, 0), randn,
           ("_log_softmax",)),
    _alias("logsumexp", lambda lib, a: lib.special.logsumexp(a, -1), randn, ("logsumexp",)),
    OpInfo("special.xlogy", lambda lib, a, b: lib.special.xlogy(a, b),
           _pairs(randn, positive), ops=("xlogy.Tensor",)),
    OpInfo("special.gammainc", lambda lib, a, x: lib.special.gammainc(a, x),
           _pairs(positive, positive, grad=(1,)), ops=("igamma",)),
    OpInfo("special.gammaincc", lambda lib, a, x: lib.special.gammaincc(a, x),
           _pairs(positive, positive, grad=(1,)), ops=("igammac",)),

    # ---- edges and special values, against PyTorch (no finite differences) ----
    OpInfo("special.bessel_e.edges", lambda lib, a: lib.stack([lib.special.i0e(a),
                                                             lib.special.i1e(a)]),
           _fixed(np.array([0.0, -0.0, 1e-20, -1e-20, 8.0, -8.0, 700.0, -750.0])),
           ops=("special_i0e", "special_i1e", "stack"), gradcheck=False, compare_rtol=1e-12),
    OpInfo("special_erfcx.edges", lambda lib, a: lib.special.erfcx(a),
           _fixed(np.array([0.0, -0.0, 1e-10, 49.0, 51.0, 1e8, -6.0, -6.2, -26.0, -27.0, 300.0])),
           ops=("special_erfcx",), gradcheck=False, compare_rtol=1e-12),
    OpInfo("special_ndtri.edges", lambda lib, a: lib.special.ndtri(a),
           _fixed(np.array([1e-300, 1e-20, 0.5, 0.13533528323661269189, 0.9, 1 - 1e-16])),
           ops=("special_ndtri",), gradcheck=False, compare_rtol=1e-12),
    OpInfo("special_log_ndtr.edges", lambda lib, a: lib.special.log_ndtr(a),
           _fixed(np.array([-60.0, -40.0, -1.0, -0.999, 0.0, 5.0, 30.0])),
           ops=("special_log_ndtr",), gradcheck=False, compare_rtol=1e-12),
    OpInfo("special_entr.edges", lambda lib, a: lib.special.entr(a),
           _fixed(np.array([1e-300, 1.0, 1e300, 0.5])),
           ops=("special_entr",), gradcheck=False, compare_rtol=1e-12),
    OpInfo("special_xlog1py.edges", lambda lib, a, b: lib.special.xlog1py(a, b),
           _fixed(np.array([0.0, 0.0, 0.0, 1.0, 2.0, -1.0, 0.0, 1.0]),
                  np.array([-1.0, -2.0, np.inf, -1.0, np.inf, -0.5, 3.0, 1e-20])),
           ops=("special_xlog1py",), gradcheck=False),
    OpInfo("special_xlog1py.other_scalar.edges",
           lambda lib, a: lib.stack([lib.special.xlog1py(a, -1.0), lib.special.xlog1py(a, -2.0)]),
           _fixed(np.array([0.0, 1.0, -2.0])), ops=("special_xlog1py.other_scalar", "stack"),
           gradcheck=False),
]
