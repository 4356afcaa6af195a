"""The special functions (lgamma, digamma, polygamma, mvlgamma, erfinv, i0, special_i1, igamma,
igammac, sinc, logit, xlogy) against PyTorch: values over wide ranges in float64 and float32
to within a few ulp, special values (poles, infinities, NaN, zeros), dtypes of integer, bool
and float16 inputs, in-place variants, the Scalar overloads of xlogy, gradients where the op
database cannot go (poles, kinks, both grad modes of logit) and errors."""
import math

import numpy as np
import pytest
import torch

import chainrule
from chainrule.ops.special import special_i1

from helpers import same, same_error

T = chainrule


def _i1(lib, x):
    return torch.special.i1(x) if lib is torch else special_i1(x)


# ---- accuracy over wide ranges ------------------------------------------------------------

def ulps(ours, theirs):
    """Distance in units in the last place (0 where both are the same nan or inf)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    bits = np.int64 if ours.dtype == np.float64 else np.int32
    a, b = ours.view(bits).astype(np.int64), theirs.view(bits).astype(np.int64)
    # map the sign-magnitude bit patterns onto a line, so -0.0 and 0.0 are neighbours
    magnitude = np.int64(0x7FFFFFFFFFFFFFFF if bits is np.int64 else 0x7FFFFFFF)
    a = np.where(a < 0, -(a & magnitude), a)
    b = np.where(b < 0, -(b & magnitude), b)
    same_value = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    return np.where(same_value, 0, np.abs(a - b))


def _draw(rng, spec, n):
    kind, lo, hi = spec
    if kind == "uniform":
        return rng.uniform(lo, hi, n)
    sign = -1.0 if kind == "-log" else 1.0
    return sign * np.exp(rng.uniform(lo, hi, n))


# (name, fn(lib, x), [input specs], dtype, 99th-percentile bound, worst-case bound) in ulp.
# The worst cases sit where the function crosses zero (digamma, lgamma of negative x) or
# where PyTorch's own algorithm cancels (polygamma of negative x, float32 trigamma): an ulp
# of difference in a C-library call there becomes many.
ACCURACY = [
    ("lgamma", lambda L, x: L.lgamma(x), [("uniform", 0, 30), ("log", -40, 40),
                                          ("uniform", -30, -6), ("-log", 3.5, 30)],
     "float64", 1, 4),
    ("lgamma", lambda L, x: L.lgamma(x), [("uniform", -30, 30), ("log", -40, 40),
                                          ("-log", -5, 30)], "float32", 1, 2),
    ("digamma", lambda L, x: L.digamma(x), [("uniform", 0, 30), ("log", -40, 40)],
     "float64", 1, 2),
    ("digamma", lambda L, x: L.digamma(x), [("uniform", 0, 30), ("log", -30, 30)],
     "float32", 1, 32),
    ("trigamma", lambda L, x: L.polygamma(1, x), [("uniform", -20, 20), ("log", -40, 40)],
     "float64", 1, 2),
    ("trigamma", lambda L, x: L.polygamma(1, x), [("uniform", -20, 20), ("log", -30, 30)],
     "float32", 1, 16),
    ("polygamma(2)", lambda L, x: L.polygamma(2, x), [("uniform", 0, 30), ("log", -30, 30)],
     "float64", 1, 4),
    ("polygamma(3)", lambda L, x: L.polygamma(3, x), [("uniform", -20, 20), ("log", -30, 30)],
     "float64", 2, 16),
    ("polygamma(7)", lambda L, x: L.polygamma(7, x), [("uniform", 0, 30), ("log", -20, 20)],
     "float64", 2, 6),
    ("polygamma(2)", lambda L, x: L.polygamma(2, x), [("uniform", -20, 20), ("log", -20, 20)],
     "float32", 1, 4),
    ("polygamma(12)", lambda L, x: L.polygamma(12, x), [("uniform", -5, 20), ("log", -5, 5)],
     "float32", 1, 4),
    ("erfinv", lambda L, x: L.erfinv(x), [("uniform", -1, 1), ("log", -36, 0),
                                          ("log", -700, -1)], "float64", 1, 1),
    ("erfinv", lambda L, x: L.erfinv(x), [("uniform", -1, 1), ("log", -16, 0)], "float32",
     1, 1),
    ("i0", lambda L, x: L.i0(x), [("uniform", -20, 20), ("uniform", -700, 700),
                                  ("log", -300, 6.5)], "float64", 1, 4),
    ("i0", lambda L, x: L.i0(x), [("uniform", -20, 20), ("uniform", -88, 88)], "float32", 1, 2),
    ("i1", _i1, [("uniform", -20, 20), ("uniform", -700, 700), ("log", -300, 6.5)], "float64",
     1, 4),
    ("i1", _i1, [("uniform", -20, 20), ("uniform", -88, 88)], "float32", 1, 3),
    ("sinc", lambda L, x: L.sinc(x), [("uniform", -10, 10), ("log", -40, 40)], "float64",
     1, 2),
    ("sinc", lambda L, x: L.sinc(x), [("uniform", -10, 10), ("log", -20, 20)], "float32",
     1, 2),
    ("logit", lambda L, x: L.logit(x), [("uniform", 0, 1), ("log", -700, 0)], "float64", 1, 2),
    ("logit", lambda L, x: L.logit(x, 1e-3), [("uniform", 0, 1)], "float32", 1, 2),
]


@pytest.mark.parametrize("name, fn, specs, dtype, p99, worst", ACCURACY,
                         ids=[f"{c[0]}-{c[3]}" for c in ACCURACY])
def test_accuracy_against_pytorch(name, fn, specs, dtype, p99, worst):
    rng = np.random.default_rng(7)
    x = np.concatenate([_draw(rng, spec, 4000) for spec in specs]).astype(dtype)
    with np.errstate(over="ignore"):
        ours = fn(T, T.tensor(x)).numpy()
    theirs = fn(torch, torch.tensor(x)).numpy()
    assert ours.dtype == theirs.dtype
    u = ulps(ours, theirs)
    assert np.percentile(u, 99) <= p99, (name, np.percentile(u, 99))
    assert u.max() <= worst, (name, x[np.argmax(u)], ours[np.argmax(u)], theirs[np.argmax(u)])


def test_lgamma_near_its_negative_zeros():
    # lgamma crosses zero twice in each of (-3, -2), (-4, -3), ...: near the zeros any sum
    # of O(1) terms has an unbounded relative error, so there the kernel sums a Taylor series
    # about the zero. PyTorch's (MKL's) own error there reaches ~150 ulp.
    rng = np.random.default_rng(11)
    x = rng.uniform(-6, -2, 20000)
    ours, theirs = T.lgamma(T.tensor(x)).numpy(), torch.lgamma(torch.tensor(x)).numpy()
    assert np.all(np.abs(ours - theirs) <= 5e-16 * np.maximum(1, np.abs(theirs)))
    assert np.percentile(ulps(ours, theirs), 99) <= 6
    mpmath = pytest.importorskip("mpmath")
    x = x[:2000]
    with mpmath.workprec(120):
        exact = np.array([float(mpmath.log(abs(mpmath.gamma(mpmath.mpf(v))))) for v in x])
    assert ulps(ours[:2000], exact).max() <= 16


@pytest.mark.parametrize("dtype, upper", [(d, u) for d in ("float64", "float32")
                                          for u in (False, True)])
def test_incomplete_gamma_accuracy(dtype, upper):
    rng = np.random.default_rng(3)
    n = 3000
    a_near = np.exp(rng.uniform(3, 11, n))
    pairs = [
        (rng.uniform(0, 3, n), rng.uniform(0, 3, n)),                     # series, fraction
        (np.exp(rng.uniform(-5, 7, n)), np.exp(rng.uniform(-5, 7, n))),   # wide
        (a_near, a_near * rng.uniform(0.7, 1.3, n)),                      # Temme's expansion
        (a_near, a_near + np.sqrt(a_near) * rng.uniform(-6, 6, n)),
    ]
    a = np.concatenate([p[0] for p in pairs]).astype(dtype)
    x = np.concatenate([p[1] for p in pairs]).astype(dtype)
    name = "igammac" if upper else "igamma"
    ours = getattr(T, name)(T.tensor(a), T.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(x)).numpy()
    u = ulps(ours, theirs)
    assert np.percentile(u, 99) <= (2 if dtype == "float64" else 5)
    assert u.max() <= (16 if dtype == "float64" else 80), (a[np.argmax(u)], x[np.argmax(u)])


@pytest.mark.parametrize("n", [0, 1, 2, 5, 20, 170, 171, 300])
def test_polygamma_orders(n):
    # n! is exp(lgamma(n + 1)) in PyTorch: inf from n = 171 in float64, n = 34 in float32
    # (not at negative half-integers: there PyTorch's sum cancels to its last bits)
    x = np.array([0.25, 1.5, 3.0, 10.5, 100.0, 1e4, -2.25, -0.75])
    for dtype in ("float64", "float32"):
        ours = T.polygamma(n, T.tensor(x, dtype=getattr(T, dtype))).numpy()
        theirs = torch.polygamma(n, torch.tensor(x, dtype=getattr(torch, dtype))).numpy()
        assert ulps(ours, theirs).max() <= 8, (dtype, ours, theirs)


def test_polygamma_far_below_zero():
    # PyTorch sums (q + k)^-(n+1) term by term up to q + k > 9; so do we, in blocks
    x = np.array([-1000.5, -4321.3, -25.75, -77777.5])
    for n in (2, 3, 6):
        ours = T.polygamma(n, T.tensor(x)).numpy()
        theirs = torch.polygamma(n, torch.tensor(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9)


def test_mvlgamma_accuracy():
    rng = np.random.default_rng(5)
    for p in (1, 2, 5, 10):
        x = rng.uniform((p - 1) / 2 + 0.01, 50, 3000)
        for dtype in ("float64", "float32"):
            ours = T.mvlgamma(T.tensor(x, dtype=getattr(T, dtype)), p).numpy()
            theirs = torch.mvlgamma(torch.tensor(x, dtype=getattr(torch, dtype)), p).numpy()
            assert np.percentile(ulps(ours, theirs), 99) <= 2
            np.testing.assert_allclose(ours, theirs, rtol=1e-13 if dtype == "float64" else 1e-5,
                                       atol=1e-13)


def test_xlogy_accuracy():
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.standard_normal(5000), np.zeros(100)])
    y = np.concatenate([np.exp(rng.uniform(-700, 700, 5000)), rng.uniform(-1, 1, 100)])
    for dtype in ("float64", "float32"):
        with np.errstate(over="ignore"):
            ours = T.xlogy(T.tensor(x, dtype=getattr(T, dtype)),
                           T.tensor(y, dtype=getattr(T, dtype)))
        theirs = torch.xlogy(torch.tensor(x, dtype=getattr(torch, dtype)),
                             torch.tensor(y, dtype=getattr(torch, dtype)))
        assert ulps(ours.numpy(), theirs.numpy()).max() <= 1


# ---- special values -----------------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -2.5, 0.5, 1.5, math.inf, -math.inf, math.nan,
           1e-300, -1e-300, 5e-324, 1e300, -1e300, 171.5, 1e17, -1e17, -1e6 - 0.5, 3.4e38,
           1e-45, 88.7, 700.0, 720.0, -700.0]

UNARY = {
    "lgamma": lambda L, x: L.lgamma(x),
    "digamma": lambda L, x: x.digamma(),
    "polygamma1": lambda L, x: L.polygamma(1, x),
    "polygamma2": lambda L, x: x.polygamma(2),
    "polygamma3": lambda L, x: L.polygamma(3, x),
    "erfinv": lambda L, x: L.erfinv(x),
    "i0": lambda L, x: x.i0(),
    "i1": _i1,
    "sinc": lambda L, x: L.sinc(x),
    "logit": lambda L, x: x.logit(),
    "logit_eps": lambda L, x: L.logit(x, eps=0.25),
    "mvlgamma": lambda L, x: L.mvlgamma(x, 2),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(UNARY))
def test_special_values(name, dtype):
    values = np.array(SPECIAL + [0.999999, -0.999999, 1 - 2.0 ** -53, 0.25, 0.75])
    fn = UNARY[name]

    def prog(L):
        return fn(L, L.tensor(values, dtype=getattr(L, dtype)))
    ours, theirs = same(prog, atol=0, rtol=1e-12 if dtype == "float64" else 4e-7)
    o, t = ours.numpy(), theirs.numpy()
    np.testing.assert_array_equal(np.isnan(o), np.isnan(t))
    np.testing.assert_array_equal(np.isinf(o), np.isinf(t))
    np.testing.assert_array_equal(np.signbit(o[o == 0]), np.signbit(t[o == 0]))   # -0.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_incomplete_gamma_boundaries(dtype):
    a = [0.0, 0.0, 0.0, 1.0, -1.0, 1.0, math.inf, math.inf, 2.0, math.nan, 3.0, math.nan, 1.0,
         1e-30, 1e30, 30.0, 250.0, 1e-5]
    x = [0.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, math.inf, math.inf, 0.0, math.nan, math.inf,
         1e-30, 1.0, 1e30, 30.0, 250.0, 1e5]

    def prog(L):
        d = getattr(L, dtype)
        A, X = L.tensor(a, dtype=d), L.tensor(x, dtype=d)
        return L.igamma(A, X), L.igammac(A, X), A.igamma(X), A.igammac(X)
    same(prog, atol=0, rtol=1e-12 if dtype == "float64" else 4e-7)


def test_xlogy_special_values():
    x = [0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.0, math.nan, 0.0, math.inf, -0.0]
    y = [0.0, -1.0, math.nan, math.inf, 0.0, math.inf, -1.0, 1.0, 1.0, 0.0, 5.0]
    same(lambda L: L.xlogy(L.tensor(x), L.tensor(y)), atol=0, rtol=0)
    same(lambda L: [L.xlogy(L.tensor(x), v) for v in (0.0, -1.0, math.nan, math.inf, 2)],
         atol=0, rtol=0)
    same(lambda L: [L.xlogy(v, L.tensor(y)) for v in (0.0, -1.0, math.nan, 2, True)],
         atol=0, rtol=0)


def test_sinc_float32_uses_float32_pi():
    # sin(pi_f * 1) / (pi_f * 1) is 2.78e-8 in float32, not 0
    same(lambda L: L.sinc(L.tensor([1.0, 2.0, -3.0, 1e10])), atol=0, rtol=0)
    same(lambda L: L.sinc(L.tensor([1, 2, 0])), atol=0, rtol=0)


def test_sinc_complex():
    z = [1 + 1j, 0j, 0.5 - 2j, -3 + 0.25j]
    same(lambda L: L.sinc(L.tensor(z)), atol=0, rtol=1e-6)
    same(lambda L: L.sinc(L.tensor(z, dtype=L.complex128)), atol=0, rtol=1e-13)

    def grad(L):
        x = L.tensor(z, dtype=L.complex128, requires_grad=True)
        y = L.sinc(x)
        return L.autograd.grad(y, x, L.ones_like(y) * (0.5 - 2j))[0]
    same(grad, atol=0, rtol=1e-13)


def test_logit_eps_clamps():
    x = [-0.5, 0.0, 0.05, 0.1, 0.5, 0.9, 0.95, 1.0, 1.5, math.nan]
    # one float32 ulp: NumPy 2.4's float32 log differs from PyTorch's in the last bit
    same(lambda L: [L.logit(L.tensor(x), eps) for eps in (None, 0.1, 0.0, -0.1, 0.6, 0.5, 1)],
         atol=0, rtol=1.2e-7)


# ---- dtypes -------------------------------------------------------------------------------

@pytest.mark.parametrize("values", [[1, 2, 3, -1, 0], [True, False]], ids=["int", "bool"])
@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma2", "erfinv", "i0", "i1",
                                  "sinc", "logit"])
def test_integer_and_bool_inputs_give_the_default_float(name, values):
    same(lambda L: UNARY[name](L, L.tensor(values)), atol=0, rtol=1e-6)


def test_integer_inputs_under_float64_default():
    prev = T.get_default_dtype()
    try:
        T.set_default_dtype(T.float64)
        torch.set_default_dtype(torch.float64)
        same(lambda L: [L.lgamma(L.tensor([3, 4])), L.mvlgamma(L.tensor([3, 4]), 2),
                        L.xlogy(L.tensor([1, 2]), 3), L.xlogy(2, L.tensor([1, 2])),
                        L.xlogy(L.tensor([1, 2]), L.tensor([3, 4]))], atol=0, rtol=1e-15)
    finally:
        T.set_default_dtype(prev)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", list(UNARY))
def test_float16(name):
    values = [0.3, 2.5, -1.5, 7.7, 100.0, 0.01, 0.999, -0.5, 0.0]
    same(lambda L: UNARY[name](L, L.tensor(values, dtype=L.float16)), atol=0, rtol=0)


def test_binary_dtypes():
    def prog(L):
        half, double = L.float16, L.float64
        return [L.igamma(L.tensor([1.0, 2.5], dtype=half), L.tensor([0.5, 3.0], dtype=half)),
                L.igammac(L.tensor([1.0, 2.5]), L.tensor([0.5, 3.0], dtype=double)),
                L.igamma(L.tensor([1, 2]), L.tensor([0.5, 3.0])),
                L.igamma(L.tensor([1.0, 2.0], dtype=half), L.tensor(2.0, dtype=double)),
                L.xlogy(L.tensor([0.3, 0.5, 0.0], dtype=half),
                        L.tensor([0.3, 7.5, 0.0], dtype=half)),
                L.xlogy(L.tensor([1, 2]), L.tensor([1, 2])),
                L.xlogy(L.tensor([True, False]), L.tensor([2, 0])),
                L.xlogy(L.tensor([1, 2]), L.tensor(2.5)),
                L.xlogy(L.tensor([1, 2]), 2.5), L.xlogy(2.5, L.tensor([1, 2])),
                L.xlogy(True, L.tensor([2, 3])),
                L.mvlgamma(L.tensor([3, 4]), 2), L.mvlgamma(L.tensor([2.3, 5.5], dtype=half), 3)]
    same(prog, atol=0, rtol=1e-6)


def test_out_variants():
    def prog(L):
        x = L.tensor([0.3, 0.6, 2.5])
        outs = [L.empty(3), L.empty(3, dtype=L.float64), L.empty(0), L.empty(3), L.empty(3)]
        return [L.polygamma(2, x, out=outs[0]), L.xlogy(x, 2, out=outs[1]),
                L.logit(x / 3, 0.2, out=outs[2]), L.mvlgamma(x + 2, 2, out=outs[3]),
                L.igamma(x, x, out=outs[4]), outs]
    same(prog)
    same_error(lambda L: L.mvlgamma(L.tensor([2.5]), 1, out=L.empty(1, dtype=L.int32)))
    same_error(lambda L: L.xlogy(L.tensor([2.5], requires_grad=True), 2, out=L.empty(1)))


def test_empty_and_shapes():
    def prog(L):
        e = L.tensor([])
        m = L.tensor([[0.3, 0.6], [1.5, 2.5]]).t()
        return [L.lgamma(e), L.polygamma(3, e), L.mvlgamma(e, 3), L.igamma(e, e), L.xlogy(e, 2),
                L.mvlgamma(L.ones(2, 0, 3) * 3, 2), L.digamma(m), L.i0(L.tensor(0.5)),
                L.igamma(L.tensor([[1.0], [2.0]]), L.tensor([0.5, 1.5, 2.5]))]
    same(prog, atol=0, rtol=1e-15)


# ---- in-place variants --------------------------------------------------------------------

def test_inplace_variants():
    def prog(L):
        x = L.tensor([0.3, 0.6, 0.9], dtype=L.float64)
        outs = [x.clone().lgamma_(), x.clone().digamma_(), x.clone().polygamma_(2),
                (x + 2).mvlgamma_(3), x.clone().erfinv_(), x.clone().i0_(), L.i0_(x.clone()),
                x.clone().igamma_(x), x.clone().igammac_(x + 1), x.clone().sinc_(),
                L.sinc_(x.clone()), x.clone().logit_(), x.clone().logit_(0.4), L.logit_(x.clone()),
                L.logit_(x.clone(), eps=0.35), x.clone().xlogy_(x), x.clone().xlogy_(2),
                L.xlogy_(x.clone(), x + 1), L.xlogy_(x.clone(), 3.5)]
        y = x.clone()
        assert y.lgamma_() is y
        return outs
    same(prog, atol=0, rtol=1e-15)


def test_inplace_version_and_grad_fn():
    def prog(L):
        x = L.tensor([0.3, 0.6], requires_grad=True)
        y = x * 1
        v = y._version
        y.polygamma_(1)
        z = x * 1
        z.xlogy_(2.0)
        return y._version - v, y.grad_fn, y.grad_fn.next_functions[0][0], z.grad_fn
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda L: L.tensor([1, 2]).lgamma_(),
    lambda L: L.tensor([1, 2]).polygamma_(1),
    lambda L: L.tensor([1, 2]).erfinv_(),
    lambda L: L.tensor([1, 2]).mvlgamma_(1),
    lambda L: L.tensor([1, 2]).mvlgamma_(0),
    lambda L: L.tensor([True]).mvlgamma_(0),
    lambda L: L.tensor([1, 2]).xlogy_(2),
    lambda L: L.tensor([1, 2]).logit_(),
    lambda L: L.tensor([1.0]).xlogy_(L.tensor([1j])),
    lambda L: L.tensor([1, 2]).igamma_(L.tensor([1.0, 2.0])),
    lambda L: L.tensor([1.0, 2.0]).igammac_(L.tensor([1.0, 2.0, 3.0])),
    lambda L: L.tensor([1.0]).mvlgamma_(1.5),
    lambda L: L.tensor([1.0]).polygamma_(-1),
    lambda L: L.tensor([1.0]).polygamma_(1.5),
], ids=["lgamma_", "polygamma_", "erfinv_", "mvlgamma_", "mvlgamma_-p0", "mvlgamma_-bool",
        "xlogy_", "logit_", "xlogy_-complex", "igamma_-int", "igammac_-shape",
        "mvlgamma_-p-float", "polygamma_-negative", "polygamma_-n-float"])
def test_inplace_errors(prog):
    same_error(prog)


def test_inplace_upcasts_the_other_operand():
    same(lambda L: L.tensor([1.0, 2.0], dtype=L.float64).igamma_(L.tensor([1.0, 2.0])),
         atol=0, rtol=1e-15)


# ---- xlogy's overloads --------------------------------------------------------------------

def test_xlogy_overloads_and_nodes():
    def prog(L):
        x = L.tensor([0.0, 0.5, 2.0], requires_grad=True)
        a, b, c = L.xlogy(x, x + 1), L.xlogy(2, x), L.xlogy(x, 3)
        d = x.xlogy(L.tensor(2.0))
        return (a, b, c, d, b.grad_fn._saved_self, c.grad_fn._saved_other,
                [n for n, _ in b.grad_fn.next_functions], L.xlogy(other=x, input=x))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda L: L.xlogy(2, 3),
    lambda L: L.xlogy(L.tensor([1.0]), None),
    lambda L: L.xlogy(L.tensor([1.0]), "a"),
    lambda L: L.xlogy("a", L.tensor([1.0])),
    lambda L: L.tensor([1.0]).xlogy("a"),
    lambda L: L.tensor([1.0]).xlogy_(None),
    lambda L: L.xlogy_(L.tensor([1.0]), None),
    lambda L: L.xlogy_(2.0, L.tensor([1.0])),
    lambda L: L.xlogy(L.tensor([2.0]), 1j),
    lambda L: L.xlogy(L.tensor([1 + 1j]), L.tensor([1.0])),
    lambda L: L.xlogy(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0, 3.0])),
], ids=["numbers", "none", "str", "str-self", "method-str", "inplace-none",
        "inplace-function-none", "inplace-function-number", "complex-number",
        "complex-tensor", "shapes"])
def test_xlogy_errors(prog):
    same_error(prog)


# ---- gradients beyond the op database ----------------------------------------------------

def test_gradients_at_poles_and_edges():
    def prog(L):
        x = L.tensor([0.0, -1.0, -2.5, 1.0, 1e-300, math.inf, math.nan], dtype=L.float64,
                     requires_grad=True)
        outs = [L.lgamma(x), L.digamma(x), L.polygamma(2, x), L.sinc(x), L.i0(x)]
        return [L.autograd.grad(o.sum(), x, retain_graph=True)[0] for o in outs]
    same(prog, atol=0, rtol=1e-12)


def test_i0_second_derivative_at_zero():
    # special_i1's derivative is 1/2 at (and near) 0, where i0(x) - i1(x)/x is 0/0
    def prog(L):
        x = L.tensor([0.0, 1e-17, -1e-17, 1e-8, 3.0], dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(L.i0(x).sum(), x, create_graph=True)
        gg, = L.autograd.grad(g.sum(), x)
        return g, gg
    same(prog, atol=0, rtol=1e-13)


def test_sinc_second_derivative_at_zero():
    def prog(L):
        x = L.tensor([0.0, 0.5, -1.0], dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(L.sinc(x).sum(), x, create_graph=True)
        return g, L.autograd.grad(g.sum(), x)[0]
    same(prog, atol=0, rtol=1e-13)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("eps", [None, 0.1, 0.0, -0.1, 0.6])
def test_logit_gradient_in_both_grad_modes(eps, create_graph):
    # with create_graph PyTorch builds the gradient from ops (where(...)); without, it runs
    # logit_backward's kernel: they differ at NaN and for a negative eps
    def prog(L):
        x = L.tensor([-0.5, 0.0, 1e-5, 0.05, 0.5, 0.95, 1.0, 1.5, math.nan], dtype=L.float64,
                     requires_grad=True)
        g, = L.autograd.grad(L.logit(x, eps).sum(), x, create_graph=create_graph)
        return g
    same(prog, atol=0, rtol=1e-15)


def test_logit_double_backward_graph():
    def prog(L):
        x = L.tensor([0.3, 0.7], requires_grad=True)
        g, = L.autograd.grad(L.logit(x, 0.1).sum(), x, create_graph=True)
        return g, [n for n, _ in g.grad_fn.next_functions], L.autograd.grad(g.sum(), x)[0]
    same(prog)


def test_mvlgamma_gradient_and_saved_values():
    def prog(L):
        x = L.tensor([[2.5, 3.0], [4.0, 7.5]], dtype=L.float64, requires_grad=True)
        y = L.mvlgamma(x, 4)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        return y, g, L.autograd.grad(g.sum(), x)[0], y.grad_fn._saved_p, y.grad_fn._saved_self
    same(prog, atol=0, rtol=1e-13)


def test_polygamma_saved_values_and_high_order():
    def prog(L):
        x = L.tensor([0.7, 2.0, 9.5], dtype=L.float64, requires_grad=True)
        y = L.polygamma(10, x)
        z = x.clone().polygamma_(3)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        return (y, g, L.autograd.grad(g.sum(), x)[0], y.grad_fn._saved_n, z.grad_fn,
                z.grad_fn._saved_n)
    same(prog, atol=0, rtol=1e-12)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_gradient(name):
    def prog(L):
        a = L.tensor([0.5, 2.0, 30.0], dtype=L.float64)
        x = L.tensor([1.5, 0.5, 29.0], dtype=L.float64, requires_grad=True)
        y = getattr(L, name)(a, x)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        return y, g, L.autograd.grad(g.sum(), x)[0]
    same(prog, atol=0, rtol=1e-13)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_input_has_no_derivative(name):
    def prog(L):
        a = L.tensor([1.0, 2.0], requires_grad=True)
        y = getattr(L, name)(a, L.tensor([1.0, 2.0]))
        assert type(y.grad_fn).__name__ == ("IgammaBackward0" if name == "igamma"
                                            else "IgammacBackward0")
        y.sum().backward()
    same_error(prog)


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda L: L.polygamma(-1, L.tensor([1.0])),
    lambda L: L.tensor([1.0]).polygamma(-2),
    lambda L: L.polygamma(1.5, L.tensor([1.0])),
    lambda L: L.polygamma(L.tensor([1.0]), 1),
    lambda L: L.tensor([1.0]).polygamma(True),
    lambda L: L.polygamma(1, 2.0),
    lambda L: L.mvlgamma(L.tensor([True]), 1),
    lambda L: L.mvlgamma(L.tensor([True]), 0),
    lambda L: L.mvlgamma(L.tensor([3.0]), 0),
    lambda L: L.mvlgamma(L.tensor([3.0]), 1.5),
    lambda L: L.tensor([3.0]).mvlgamma(1.5),
    lambda L: L.mvlgamma(L.tensor([3.0j]), 1),
    lambda L: L.lgamma(2.0),
    lambda L: L.logit(L.tensor([0.3]), "a"),
    lambda L: L.tensor([0.3]).logit("a"),
    lambda L: L.logit_(L.tensor([0.3]), "a"),
    lambda L: L.igamma(L.tensor([1.0]), 2.0),
    lambda L: L.igamma(2.0, L.tensor([1.0])),
    lambda L: L.igamma(L.tensor([1, 2]), L.tensor([1, 2])),
    lambda L: L.igammac(L.tensor([True]), L.tensor([False])),
    lambda L: L.igamma(L.tensor([1j]), L.tensor([1j])),
    lambda L: L.igamma(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0, 3.0])),
] + [(lambda name: lambda L: UNARY[name](L, L.tensor([1 + 1j])))(name)
     for name in ("lgamma", "digamma", "polygamma1", "polygamma2", "erfinv", "i0", "i1",
                  "logit")],
    ids=["polygamma-negative", "method-negative", "n-float", "n-tensor", "n-bool",
         "input-number", "mvlgamma-bool", "mvlgamma-bool-p0", "mvlgamma-p0", "mvlgamma-p-float",
         "mvlgamma-method-p-float", "mvlgamma-complex", "lgamma-number", "logit-eps-str",
         "logit-method-eps-str", "logit_-eps-str", "igamma-number", "igamma-number-self",
         "igamma-int", "igammac-bool", "igamma-complex", "igamma-shapes",
         "lgamma-complex", "digamma-complex", "trigamma-complex", "polygamma-complex",
         "erfinv-complex", "i0-complex", "i1-complex", "logit-complex"])
def test_errors(prog):
    same_error(prog)


def test_keyword_arguments():
    def prog(L):
        x = L.tensor([0.3, 0.6])
        return [L.polygamma(n=2, input=x), x.polygamma(n=1), L.mvlgamma(input=x + 2, p=2),
                x.mvlgamma(p=1), L.logit(input=x, eps=0.4), x.logit(eps=0.2),
                L.igamma(input=x, other=x), L.xlogy(input=x, other=x)]
    same(prog, atol=0, rtol=1e-6)
