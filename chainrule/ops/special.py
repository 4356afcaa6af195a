"""Special functions: those of torch's top-level namespace (lgamma, digamma, polygamma,
mvlgamma, erfinv, i0, igamma, igammac, sinc, logit, xlogy, and erf/erfc's float64 kernels)
and torch.special's own rows (special_i1, i0e, i1e, erfcx, ndtri, log_ndtr, entr, xlog1py,
zeta; chainrule/special is the namespace). Bessel functions and orthogonal polynomials,
which PyTorch does not differentiate, are in special_bessel.py and special_polynomials.py.

PyTorch's CPU kernels for these are of two kinds, and the kernels here follow each:
- lgamma, erfinv, erf and erfc go to MKL's high-accuracy vector functions, within an ulp of
  the exact value; so these aim at the exact value (float32: the float64 value rounded once).
- the others are ATen's own scalar code (Math.h, from Cephes and SciPy), compiled with fused
  multiply-adds and calling the C library. These kernels run the same steps in the input's
  precision (float32 arithmetic for float32, with C++'s double literals where it has them),
  fuse where PyTorch's build fuses, and reproduce glibc's lgamma and log1p where an ulp of
  theirs is magnified (exp(a log x - x - lgamma(a)), log1p(s) - s); other C functions are
  computed in float64 and rounded once, as glibc's float functions nearly are. So results
  agree with PyTorch's to a few ulp even where its algorithm is inexact (float32 digamma
  near its root, polygamma's sums for negative x, igamma's asymptotic series).
float16 and bfloat16 compute in float32, rounding once or per step as PyTorch's kernels do.
Every kernel is vectorized: iterative algorithms run over the elements still converging.
"""
import decimal
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor, make_tensor
from ..autograd import grad_mode
from .binding import Signature, declare
from .pointwise import _conj, _not_for, where
from . import registry
from .registry import (FLOAT, NOT_IMPLEMENTED, PROMOTE, PROMOTE_FLOAT, check_broadcast,
                       no_derivative, not_implemented, op, public)

_F64 = np.float64
_PI = math.pi


# ---- precision helpers ----------------------------------------------------------------------

def _reduced(a):
    """float16 and bfloat16: PyTorch's kernels compute these in float32."""
    return a.dtype == np.float16 or a.dtype.name == "bfloat16"


def _in_float32(f):
    """`f` computed in float32 for float16/bfloat16 arrays and rounded once. The kernels see
    arrays of at least one dimension (NumPy turns 0-d results into scalars)."""
    def g(*args):
        arrays = [a for a in args if type(a) is np.ndarray]
        dt, shape = arrays[0].dtype, np.broadcast_shapes(*(a.shape for a in arrays))
        up = np.float32 if _reduced(arrays[0]) else None
        args = [np.atleast_1d(a if up is None else a.astype(up)) if type(a) is np.ndarray
                else a for a in args]
        return np.asarray(_blocked(f, args)).reshape(shape).astype(dt, copy=False)
    return g


_BLOCK = 1 << 14       # elements per block: a kernel's temporaries stay in the CPU's cache


def _blocked(f, args):
    """f(*args) for an elementwise kernel f, over its broadcast array arguments in blocks of
    _BLOCK elements: on large tensors 2-3 times faster than passes over all of memory. (So
    no kernel may let one element's value depend on the others'.)"""
    idx = [i for i, a in enumerate(args) if type(a) is np.ndarray]
    shape = np.broadcast_shapes(*(args[i].shape for i in idx))
    size = math.prod(shape)
    if size <= 2 * _BLOCK:
        return f(*args)
    flat = list(args)
    for i, a in zip(idx, np.broadcast_arrays(*(args[i] for i in idx))):
        flat[i] = a.reshape(-1)
    pieces = []
    for start in range(0, size, _BLOCK):
        part = list(flat)
        for i in idx:
            part[i] = flat[i][start:start + _BLOCK]
        pieces.append(np.asarray(f(*part)))
    return np.concatenate(pieces).reshape(shape)


def _libm(f, x):
    """f(x) in x's precision, rounded once: for float32 computed in float64 (glibc's float
    functions are correctly rounded in practice; NumPy's float32 SIMD kernels are not)."""
    if x.dtype == np.float32:
        return f(x.astype(_F64)).astype(np.float32)
    return f(x)


def _madd(fused, a, b, c):
    """a * b + c, fused or not (PyTorch's compiler fuses some of its kernels' products and
    not others: it depends on inlining)."""
    return _fma(a, b, c) if fused else a * b + c


def _fma(a, b, c):
    """a * b + c rounded once, as the fused multiply-add PyTorch's compiled kernels use (its
    AVX2/AVX512 builds contract `a * b + c`). float32: exact in float64. float64: Dekker's
    exact product, then a compensated sum."""
    if a.dtype == np.float32:
        return (a.astype(_F64) * b + c).astype(np.float32)
    return _fma64(*np.broadcast_arrays(a, b, c))


def _fma64(a, b, c):
    p = a * b
    ah = a * 134217729.0                      # 2^27 + 1 splits a double into two halves
    tmp = ah - a
    ah -= tmp
    al = a - ah
    bh = b * 134217729.0
    np.subtract(bh, b, out=tmp)
    bh -= tmp
    bl = b - bh
    e = ah * bh                               # a * b = p + e exactly
    e -= p
    np.multiply(ah, bl, out=tmp)
    e += tmp
    np.multiply(al, bh, out=tmp)
    e += tmp
    np.multiply(al, bl, out=tmp)
    e += tmp
    s = p + c                                 # p + c = s + (p - (s - v)) + (c - v)
    v = s - p
    np.subtract(s, v, out=tmp)
    np.subtract(p, tmp, out=tmp)
    np.subtract(c, v, out=v)
    tmp += v
    tmp += e
    s += tmp
    # the split overflows past 1e300 (and inf or nan operands give nan): unfused there
    return np.where(np.isnan(s), p + c, s)


# ---- erf and erfc in float64 ----------------------------------------------------------------
# erfinv's Newton steps and igamma's asymptotic series need erf/erfc to within an ulp (the
# steps amplify erf's error). Small |x|: Maclaurin series written as x + x*y, so only the
# small correction y carries rounding error. 0.5 <= |x| < 4: Taylor series about the nearest
# of the points k/16, whose erf values are computed once in decimal arithmetic. Beyond: the
# continued fraction for erfc (ops/pointwise.py).

_TAYLOR_STEP, _TAYLOR_END, _TAYLOR_TERMS = 1 / 16, 4.0, 16
_taylor_tables = None


def _decimal_erf(x0, ctx):
    """erf(x0) to ctx's precision: the Maclaurin series, exact in decimal arithmetic."""
    x = decimal.Decimal(x0)
    term, total, n, x2 = x, x, 0, x * x
    while True:
        n += 1
        term = ctx.multiply(term, -x2) / n
        piece = term / (2 * n + 1)
        total += piece
        if abs(piece) < decimal.Decimal(10) ** (-ctx.prec):
            break
    return total * 2 / ctx.sqrt(decimal.Decimal(_PI_DIGITS))


_PI_DIGITS = "3.14159265358979323846264338327950288419716939937510582097494459230781640629"


def _erf_taylor_tables():
    """erf and erfc at the nodes k/16, and the Taylor coefficients of erf about them
    (erf^(n+1)(x0) = 2/sqrt(pi) (-1)^n H_n(x0) exp(-x0^2), H the Hermite polynomials)."""
    global _taylor_tables
    if _taylor_tables is None:
        ctx = decimal.Context(prec=60)
        nodes = np.arange(0.5, _TAYLOR_END + _TAYLOR_STEP, _TAYLOR_STEP)
        with decimal.localcontext(ctx):
            erf = [_decimal_erf(x0, ctx) for x0 in nodes]
            erf0 = np.array([float(v) for v in erf])
            erfc0 = np.array([float(1 - v) for v in erf])
            scale = np.array([float(2 / ctx.sqrt(decimal.Decimal(_PI_DIGITS))
                                    * (-decimal.Decimal(x0) ** 2).exp()) for x0 in nodes])
        coef = np.empty((len(nodes), _TAYLOR_TERMS))
        h_prev, h = np.zeros_like(nodes), np.ones_like(nodes)     # H_{-1}, H_0
        factorial = 1.0
        for n in range(_TAYLOR_TERMS):
            factorial *= n + 1
            coef[:, n] = (-1) ** n * h * scale / factorial      # coefficient of d^(n+1)
            h_prev, h = h, 2 * nodes * h - 2 * n * h_prev
        _taylor_tables = nodes, erf0, erfc0, coef
    return _taylor_tables


def _erf_taylor(ax):
    """(erf(ax) - erf(x0), erf(x0), erfc(x0)) for 0.5 <= ax < 4, x0 the nearest node."""
    nodes, erf0, erfc0, coef = _erf_taylor_tables()
    k = np.rint((ax - 0.5) / _TAYLOR_STEP).astype(np.intp)
    h = ax - nodes[k]
    c = coef[k]
    delta = c[:, -1]
    for n in range(_TAYLOR_TERMS - 2, -1, -1):
        delta = delta * h + c[:, n]
    return delta * h, erf0[k], erfc0[k]


_ERF_SMALL = None


def _erf_small(x):
    """erf(x) for |x| < 0.5, as x + x*y."""
    global _ERF_SMALL
    if _ERF_SMALL is None:
        c0 = 2 / math.sqrt(math.pi)
        # erf(x)/x = c0 sum (-1)^n x^(2n) / (n! (2n+1)); y = erf(x)/x - 1 in powers of x^2
        _ERF_SMALL = [c0 * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(1, 14)]
        _ERF_SMALL.insert(0, 0.12837916709551257390)   # 2/sqrt(pi) - 1
    t = x * x
    y = _ERF_SMALL[-1]
    for c in reversed(_ERF_SMALL[:-1]):
        y = y * t + c
    return x + x * y


_CF_LEVELS = 22       # erfc's continued fraction reaches full double precision for x >= 4


def _erfc_fraction(x, scaled=False):
    """erfc(x) for x >= 4 by its continued fraction exp(-x^2)/sqrt(pi) / (x + (1/2)/(x +
    1/(x + (3/2)/(x + ...)))), with a fixed depth so that each element's value is its own;
    scaled: erfcx(x), without the exponential."""
    k = x.copy()
    for n in range(_CF_LEVELS, 0, -1):
        k = x + (n / 2) / k
    if scaled:
        return _ISPI / k
    # exp(-x^2) as exp(-h^2) exp((h-x)(h+x)), h = x with 27 low bits cleared so h*h is
    # exact: the rounding error of x*x would be scaled by x^2 in the exponential
    h = (x.view(np.uint64) & np.uint64(0xFFFFFFFFF8000000)).view(np.float64)
    return np.exp(-h * h) * np.exp((h - x) * (h + x)) / (math.sqrt(math.pi) * k)


def _erf64(x):
    """erf(x), float64, to within an ulp."""
    x = np.asarray(x, _F64)
    ax = np.abs(x)
    out = np.empty_like(x)
    small = ax < 0.5
    out[small] = _erf_small(x[small])
    mid = (ax >= 0.5) & (ax < _TAYLOR_END)
    delta, erf0, _ = _erf_taylor(ax[mid])
    out[mid] = np.copysign(erf0 + delta, x[mid])
    big = ax >= _TAYLOR_END
    out[big] = np.copysign(1 - _erfc_fraction(np.minimum(ax[big], 30.0)), x[big])
    out[np.isnan(x)] = np.nan
    return out


def _erfc64(x):
    """erfc(x), float64, to within a few ulp."""
    x = np.asarray(x, _F64)
    ax = np.abs(x)
    pos = np.empty_like(x)     # erfc(|x|)
    small = ax < 0.5
    pos[small] = 1 - _erf_small(ax[small])
    mid = (ax >= 0.5) & (ax < _TAYLOR_END)
    delta, _, erfc0 = _erf_taylor(ax[mid])
    pos[mid] = erfc0 - delta
    big = ax >= _TAYLOR_END
    pos[big] = _erfc_fraction(np.minimum(ax[big], 30.0))
    out = np.where(x < 0, 2 - pos, pos)
    out[np.isnan(x)] = np.nan
    return out


def erf_forward(a, complement):
    """torch.erf (complement: torch.erfc) of a real array: the float64 value, rounded once
    to a's dtype (PyTorch's MKL kernels are within an ulp)."""
    _not_for(a, "c", "erfc_vml_cpu" if complement else "erf_vml_cpu")
    x = np.asarray(a, _F64)
    with np.errstate(all="ignore"):
        return (_erfc64(x) if complement else _erf64(x)).astype(a.dtype, copy=False)


# ---- lgamma -------------------------------------------------------------------------------
# PyTorch calls the C library's lgamma. In float64 this kernel reduces the argument to
# |t| <= 1/2 about 1 or 2, where lgamma's Taylor series (in zeta values) converges fast,
# by exact steps (x - k, x + k are exact in floating point); large x use Stirling's series,
# large negative x the reflection formula with the exact argument -x. float32 rounds the
# float64 result.

_EULER = 0.57721566490153286061
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
             -3617 / 122400)
_HALF_LOG_2PI_MINUS_HALF = 0.41893853320467274178
_LOG_PI = 1.1447298858494001741
_series_1 = _series_2 = None


def _lgamma_series():
    """Taylor coefficients of lgamma(1 + t) and lgamma(2 + t), constant term 0:
    lgamma(1 + t) = -g t + sum_k>=2 (-1)^k zeta(k) t^k / k, lgamma(2 + t) likewise with
    zeta(k) - 1 and 1 - g (g: Euler's constant)."""
    global _series_1, _series_2
    if _series_1 is None:
        k = np.arange(2, 60, dtype=_F64)
        zeta_minus_1 = _zeta(k, np.full_like(k, 2.0))
        sign = (-1.0) ** k
        _series_1 = np.concatenate([[-_EULER], sign * (1 + zeta_minus_1) / k])
        _series_2 = np.concatenate([[1 - _EULER], (sign * zeta_minus_1 / k)[:30]])
    return _series_1, _series_2


def _horner(coef, t):
    """sum_i coef[i] t^(i+1)."""
    p = np.full_like(t, coef[-1])
    for c in coef[-2::-1]:
        p = p * t + c
    return p * t


def _lgamma64(x):
    x = np.asarray(x, _F64)
    series_1, series_2 = _lgamma_series()
    out = np.full(x.shape, np.inf)          # poles (0, negative integers) and +-inf
    out[np.isnan(x)] = np.nan
    finite = np.isfinite(x)
    pole = finite & (x <= 0) & (x == np.floor(x))
    # |x| < 1/2: lgamma(x) = lgamma(1 + x) - log|x|
    m = finite & (np.abs(x) < 0.5) & ~pole
    out[m] = _horner(series_1, x[m]) - np.log(np.abs(x[m]))
    m = (x >= 0.5) & (x < 1.5)
    out[m] = _horner(series_1, x[m] - 1) + 0.0       # + 0.0: lgamma(1) is +0, not -0
    m = (x >= 1.5) & (x < 2.5)
    out[m] = _horner(series_2, x[m] - 2)
    # 2.5 <= x < 13: lgamma(x) = lgamma(x - n) + log((x-1)...(x-n)), x - n in [1.5, 2.5)
    m = (x >= 2.5) & (x < 13)
    xm = x[m]
    n = np.floor(xm - 1.5)
    t, prod = xm - n, np.ones_like(xm)
    for k in range(1, int(n.max(initial=0)) + 1):
        prod = np.where(k <= n, prod * (xm - k), prod)
    out[m] = _horner(series_2, t - 2) + np.log(prod)
    m = finite & (x >= 13)
    out[m] = _stirling(x[m])
    # -30 < x <= -1/2: lgamma(x) = lgamma(t) - log|x (x+1) ... (t-1)|, t = x + n in (-1/2, 1/2]
    m = (x <= -0.5) & (x > -30) & ~pole
    xm = x[m]
    n = np.floor(0.5 - xm)
    t, prod = xm + n, xm.copy()
    for k in range(1, int(n.max(initial=0)) + 1):
        prod = np.where(k <= n, prod * (xm + k), prod)
    out[m] = _horner(series_1, t) - np.log(np.abs(prod))
    _lgamma_near_zeros(x, out)
    # x <= -30: Gamma(x) Gamma(-x) = -pi / (x sin(pi x))
    m = finite & (x <= -30) & ~pole
    xm = x[m]
    s = np.sin(_PI * (xm - np.rint(xm)))
    out[m] = _LOG_PI - np.log(np.abs(xm * s)) - _stirling(-xm)
    return out


# lgamma's zeros in (-6, -2) (two in each unit interval), as double-double (hi, lo):
# near them any sum of O(1) terms loses the result's leading digits, so there lgamma is its
# Taylor series about the zero's double r_hi, whose coefficients psi^(k-1)(r_hi) / k! come
# from this module's digamma and Hurwitz zeta on first use. Further out the zeros hug the
# poles (within 1/n!).
_LGAMMA_ZEROS = ((-2.4570247382208006, -3.7075610815513266e-17),
                 (-2.7476826467274127, 9.055340329338315e-17),
                 (-3.14358088834998, -2.1818179852331714e-16),
                 (-3.955294284858598, -1.999428391746348e-17),
                 (-4.039361839740537, 2.1143995503980602e-16),
                 (-4.991544640560048, 1.5174411760571722e-16),
                 (-5.0082181683225935, -4.3926353491015815e-17),
                 (-5.998607480080875, -3.311862478893795e-16))
_ZERO_TERMS, _ZERO_REACH = 48, 0.4    # |x - zero| < 0.4 (distance from the zero to a pole)
_zero_series = None


def _lgamma_near_zeros(x, out):
    """Overwrite out where x is near one of _LGAMMA_ZEROS."""
    global _zero_series
    near = (x > -6) & (x < -2)
    if not near.any():
        return
    hi = np.array([z[0] for z in _LGAMMA_ZEROS])
    if _zero_series is None:
        # psi(r) = psi(1 - r) - pi / tan(pi r), with pi r reduced to [-pi/2, pi/2] (near a
        # pole the unreduced argument loses digits); psi^(k-1)(r) / k! = (-1)^k zeta(k, r) / k
        # for k >= 2 (no factorials to round)
        psi = _digamma_positive(1 - hi) - np.pi / np.tan(np.pi * (hi - np.rint(hi)))
        k = np.arange(2, _ZERO_TERMS + 1, dtype=_F64)
        with np.errstate(all="ignore"):
            tail = (-1.0) ** k / k * _zeta(k, hi[:, None])
        _zero_series = np.concatenate([psi[:, None], tail], axis=1)
    reach = _ZERO_REACH * np.abs(hi - np.rint(hi))
    for (r_hi, r_lo), coef, rho in zip(_LGAMMA_ZEROS, _zero_series, reach):
        m = near & (np.abs(x - r_hi) < rho)
        if m.any():
            # about r_hi (x - r_hi is exact), where lgamma is -psi(r) r_lo to within r_lo^2
            out[m] = -coef[0] * r_lo + _horner(coef, x[m] - r_hi)


def _stirling(x):
    """lgamma(x) for x >= 13."""
    z = 1 / x
    z2 = z * z
    s = _STIRLING[-1]
    for c in _STIRLING[-2::-1]:
        s = s * z2 + c
    return (x - 0.5) * (np.log(x) - 1) + (_HALF_LOG_2PI_MINUS_HALF + s * z)


def _lgamma(x):
    return _libm(_lgamma64, x)


# ---- Hurwitz zeta, digamma, trigamma, polygamma --------------------------------------------

_MACHEP = 1.11022302462515654042e-16
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_ZETA_BLOCK, _ZETA_ROWS = 4096, 256      # terms per row and rows per step, far below zero


def _zeta(x, q):
    """Hurwitz zeta(x, q) = sum_k>=0 (k + q)^-x, as PyTorch: Cephes' direct sum until
    q + k > 9, then Euler-Maclaurin, accumulated in float64 for every dtype, but with the
    first term q^-x in the inputs' precision (C++ picks powf for two floats). Returns float64.
    """
    first = np.float32 if np.result_type(x, q) == np.float32 else _F64
    x, q = np.broadcast_arrays(np.asarray(x, _F64), np.asarray(q, _F64))
    shape = x.shape
    x, q = x.ravel(), q.ravel()
    out = np.full(x.size, np.nan)
    q_int = (q <= 0) & (q == np.floor(q))
    out[q_int & ~(x < 1)] = np.inf      # x < 1 is nan first
    out[x == 1] = np.inf
    live = ~((x == 1) | (x < 1) | q_int | ((q <= 0) & (x != np.floor(x))))
    idx = np.flatnonzero(live)
    x, q = x[idx], q[idx]
    s = np.power(q, -x).astype(first).astype(_F64)
    a, b, i = q.copy(), np.zeros_like(q), np.zeros(q.shape, np.int64)
    # Far below zero the terms cannot meet the stopping test (they grow toward a = 0 and share
    # one sign): add them a block at a time, in the scalar loop's order (cumsum is sequential).
    # (PyTorch's loop, too, takes time in proportion to -q.)
    steps = np.arange(1, _ZETA_BLOCK + 1)
    while True:
        blk = np.flatnonzero(a + _ZETA_BLOCK <= 0)[:_ZETA_ROWS]
        if not blk.size:
            break
        terms = np.power(a[blk, None] + steps, -x[blk, None])
        s[blk] = np.cumsum(np.concatenate([s[blk, None], terms], axis=1), axis=1)[:, -1]
        b[blk], a[blk], i[blk] = terms[:, -1], a[blk] + _ZETA_BLOCK, i[blk] + _ZETA_BLOCK
    tails = []      # elements leaving the direct sum for Euler-Maclaurin: (idx, x, a, b, s)
    while idx.size:
        i += 1
        a += 1
        b = np.power(a, -x)
        s += b
        done = (-_MACHEP * s < b) & (b < _MACHEP * s)
        out[idx[done]] = s[done]
        more = ~done & ((i < 9) | (a <= 9))
        tail = ~done & ~more
        tails.append((idx[tail], x[tail], a[tail], b[tail], s[tail]))
        idx, x, a, b, s, i = idx[more], x[more], a[more], b[more], s[more], i[more]
    idx, x, w, b, s = (np.concatenate(parts) for parts in zip(*tails)) if tails else [
        np.empty(0)] * 5
    idx = idx.astype(np.intp)
    s = s + b * w / (x - 1)
    s = s - 0.5 * b
    a, k = np.ones_like(x), 0.0
    for coefficient in _ZETA_A:
        a = a * (x + k)
        b = b / w
        t = a * b / coefficient
        s = s + t
        done = np.abs(t / s) < _MACHEP
        out[idx[done]] = s[done]
        keep = ~done
        idx, x, w, a, b, s = idx[keep], x[keep], w[keep], a[keep], b[keep], s[keep]
        k += 1
        a = a * (x + k)
        b = b / w
        k += 1
    out[idx] = s
    return out.reshape(shape)


_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
              -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
              8.33333333333333333333e-2)


def _digamma(x):
    """PyTorch's calc_digamma, in x's precision."""
    dt = x.dtype.type
    refl = (x < 0) & (x != np.trunc(x))
    out = _digamma_positive(np.where(refl, 1 - x, x))
    # psi(x) = psi(1 - x) - pi / tan(pi x), with the fractional part of x (in double)
    r = np.fmod(x[refl].astype(_F64), 1.0)
    out[refl] -= (np.pi / np.tan(np.pi * r)).astype(dt)
    out[(x < 0) & ~refl] = np.nan          # negative integers and -inf
    zero = x == 0
    out[zero] = np.copysign(np.inf, -x[zero])
    return out


def _digamma_positive(x):
    x = np.where(x > 0, x, np.nan).astype(x.dtype)    # others are overwritten by the caller
    result = np.zeros_like(x)
    m = x < 10
    while m.any():
        result = np.where(m, result - 1 / x, result)
        x = np.where(m, x + 1, x)
        m = x < 10
    z = 1 / (x * x)
    poly = np.zeros_like(x)
    for c in _DIGAMMA_A:
        poly = poly * z + c
    y = np.where(x < 1e17, z * poly, 0)
    out = result + _libm(np.log, x) - (0.5 / x) - y
    ten = x == 10
    out[ten] = result[ten] + _PSI_10
    return out


def _trigamma(x):
    """PyTorch's trigamma, in x's precision."""
    pi = x.dtype.type(_PI)
    sign = np.where(x < 0.5, -1, 1).astype(x.dtype)
    s = _libm(np.sin, pi * x)
    result = np.where(x < 0.5, -((pi * pi) / (s * s)), 0).astype(x.dtype)
    x = np.where(x < 0.5, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    dt = x.dtype.type
    series = _fma(-ixx, _fma(-ixx, np.full_like(x, dt(1 / 42)), dt(1 / 30)), dt(1 / 6))
    result = result + _fma(ixx, series, 1 + 1 / (2 * x)) / x
    return sign * result


# PyTorch's scalar kernels (polygamma's n!, the incomplete gamma helpers) call the C
# library's lgamma and log1p. For x >= 8 glibc's lgamma is fdlibm's Stirling sum, reproduced
# here (double and float versions), so those kernels see glibc's values where an ulp matters
# most (exp(a log x - x - lgamma(a)) for large a magnifies it).
_GLIBC_W = (4.18938533204672725052e-01, 8.33333333333329678849e-02, -2.77777777728775536470e-03,
            7.93650558643019558500e-04, -5.95187557450339963135e-04, 8.36339918996282139126e-04,
            -1.63092934096575273989e-03)
_GLIBC_WF = (4.1893854737e-01, 8.3333335817e-02, -2.7777778450e-03, 7.9365057172e-04,
             -5.9518753551e-04, 8.3633989561e-04, -1.6309292987e-03)


_GLIBC_S = (-7.72156649015328655494e-02, 2.14982415960608852501e-01, 3.25778796408930981787e-01,
            1.46350472652464452805e-01, 2.66422703033638609560e-02, 1.84028451407337715652e-03,
            3.19475326584100867617e-05)
_GLIBC_R = (1.39200533467621045958e+00, 7.21935547567138069525e-01, 1.71933865632803078993e-01,
            1.86459191715652901344e-02, 7.77942496381893596434e-04, 7.32668430744625636189e-06)
_GLIBC_SF = (-7.7215664089e-02, 2.1498242021e-01, 3.2577878237e-01, 1.4635047317e-01,
             2.6642270386e-02, 1.8402845599e-03, 3.1947532989e-05)
_GLIBC_RF = (1.3920053244e+00, 7.2193557024e-01, 1.7193385959e-01, 1.8645919859e-02,
             7.7794247773e-04, 7.3266842264e-06)


def _glibc_lgamma(x):
    """lgamma(x) in x's precision: glibc's value for 2 <= x < 2^58 (fdlibm's rational
    approximation on [2, 8), its Stirling sum above), _lgamma's elsewhere."""
    out = _lgamma(x)
    f = x.dtype.type
    single = f is np.float32
    m = (x >= 2) & (x < 8)
    xm = x[m]
    i = np.floor(xm)
    y = xm - i
    p = np.full_like(y, (_GLIBC_SF if single else _GLIBC_S)[-1])
    for c in (_GLIBC_SF if single else _GLIBC_S)[-2::-1]:
        p = f(c) + y * p
    q = np.full_like(y, (_GLIBC_RF if single else _GLIBC_R)[-1])
    for c in (_GLIBC_RF if single else _GLIBC_R)[-2::-1]:
        q = f(c) + y * q
    r = f(0.5) * y + y * p / (1 + y * q)
    z = np.ones_like(y)                   # lgamma(y + i) = lgamma(y + 2) + log((y+2)...(y+i-1))
    for k in range(7, 2, -1):
        z = np.where(i >= k, z * (y + f(k - 1)), z)
    out[m] = np.where(i >= 3, r + _libm(np.log, z), r)
    m = (x >= 8) & (x < 2.0 ** 58)
    xm = x[m]
    w = [f(c) for c in (_GLIBC_WF if single else _GLIBC_W)]
    t = _libm(np.log, xm)
    z = 1 / xm
    y = z * z
    out[m] = (xm - f(0.5)) * (t - 1) + (w[0] + z * (w[1] + y * (w[2] + y * (w[3] + y * (
        w[4] + y * (w[5] + y * w[6]))))))
    return out


def _factorial(n, dt):
    """n! as PyTorch's polygamma computes it: exp(lgamma(n + 1)) in dt's precision, through
    the C library (below 8, glibc's lgamma is log((m-1)!); Python's math.log and math.exp are
    the C library's)."""
    f = np.float32 if dt == np.float32 else _F64
    if n + 1 < 8:
        lg = f(math.log(math.factorial(n)))
    elif n > 400:                       # lgamma > 2000: the exponential overflows
        return f(np.inf)
    else:
        lg = _glibc_lgamma(np.array([n + 1], f))[0]
    try:
        return f(math.exp(lg))
    except OverflowError:
        return f(np.inf)


_LOG1P_LP = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
             2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
             1.479819860511658591e-01)
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10


def _log1p64(x):
    """glibc's log1p (fdlibm's algorithm, as its x86-64 FMA build rounds it), float64:
    the incomplete gamma kernels subtract its argument from it, which magnifies an ulp."""
    x = np.asarray(x, _F64)
    out = np.log1p(x)            # the special cases: x <= -1, tiny, huge, inf, nan
    hx = (x.view(np.int64) >> 32).astype(np.int32)
    ax = hx & 0x7fffffff
    core = (ax >= 0x3e200000) & (x > -1) & (x < np.inf)
    tiny = (ax < 0x3e200000) & (ax >= 0x3c900000)           # 2^-54 <= |x| < 2^-29
    out[tiny] = x[tiny] - x[tiny] * x[tiny] * 0.5
    # k = 0: -0.2929 < x < 0.41422, f = x exactly
    direct = core & (hx < 0x3FDA827A) & ((hx > 0) | (hx <= np.int32(-1076707645)))
    f = x[direct]
    out[direct] = _log1p_core(f, np.zeros_like(f), np.zeros_like(f), np.zeros(f.shape, bool))
    # otherwise 1 + x = 2^k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2), c the rounding of 1 + x
    scaled = core & ~direct
    xs = x[scaled]
    below = xs < 2.0 ** 53            # above, 1 + x is x
    u = np.where(below, 1.0 + xs, xs)
    hu = (u.view(np.int64) >> 32).astype(np.int32)
    k = (hu >> 20) - 1023
    c = np.where(below, np.where(k > 0, 1.0 - (u - xs), xs - (u - 1.0)) / u, 0.0)
    hu &= 0x000fffff
    low = hu < 0x6a09e
    exponent = np.where(low, 0x3ff00000, 0x3fe00000).astype(np.int64) << 32
    u = ((u.view(np.int64) & 0xFFFFFFFF) | (hu.astype(np.int64) << 32) | exponent).view(_F64)
    k = np.where(low, k, k + 1).astype(_F64)
    small = np.where(low, hu, (0x00100000 - hu) >> 2) == 0      # |f| < 2^-20 or so
    out[scaled] = _log1p_core(u - 1.0, k, c, small)
    return out


_LOG1PF_LP = (6.6666668653e-01, 4.0000000596e-01, 2.8571429849e-01, 2.2222198546e-01,
              1.8183572590e-01, 1.5313838422e-01, 1.4798198640e-01)


def _log1p32(x):
    """glibc's log1pf (fdlibm's float algorithm), float32."""
    f32 = np.float32
    x = np.asarray(x)       # (a NumPy scalar takes no masked assignment)
    out = np.array(np.log1p(x.astype(_F64)), f32)      # x <= -1, huge, inf, nan
    hx = x.view(np.int32)
    ax = hx & 0x7fffffff
    core = (ax >= 0x31000000) & (x > -1) & (x < np.inf)
    tiny = (ax < 0x31000000) & (ax >= 0x24800000)
    out[tiny] = x[tiny] - x[tiny] * x[tiny] * f32(0.5)
    direct = core & (hx < 0x3ed413d7) & ((hx > 0) | (hx <= np.int32(-1097468385)))
    f = x[direct]
    out[direct] = _log1pf_core(f, np.zeros_like(f), np.zeros_like(f), np.zeros(f.shape, bool))
    scaled = core & ~direct
    xs = x[scaled]
    below = xs < f32(2.0 ** 53)
    u = np.where(below, f32(1) + xs, xs)
    hu = u.view(np.int32)
    k = (hu >> 23) - 127
    c = np.where(below, np.where(k > 0, f32(1) - (u - xs), xs - (u - f32(1))) / u, f32(0))
    hu = hu & 0x007fffff
    low = hu < 0x3504f7
    u = (hu | np.where(low, 0x3f800000, 0x3f000000)).astype(np.int32).view(f32)
    k = np.where(low, k, k + 1).astype(f32)
    small = np.where(low, hu, (0x00800000 - hu) >> 2) == 0
    out[scaled] = _log1pf_core(u - f32(1), k, c, small)
    return out


def _log1pf_core(f, k, c, small):
    f32 = np.float32
    ln2_hi, ln2_lo = f32(6.9313812256e-01), f32(9.0580006145e-06)
    hfsq = f32(0.5) * f * f
    s = f / (f32(2) + f)
    z = s * s
    r = f32(_LOG1PF_LP[-1])
    for lp in _LOG1PF_LP[-2::-1]:
        r = f32(lp) + z * r
    r = z * r
    klo = k * ln2_lo + c
    out = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                   k * ln2_hi - ((hfsq - (s * (hfsq + r) + klo)) - f))
    r = hfsq * (f32(1) - f32(0.66666666666666666) * f)
    short = np.where(k == 0, f - r, k * ln2_hi - ((r - klo) - f))
    short = np.where(f == 0, np.where(k == 0, f32(0), k * ln2_hi + (c + k * ln2_lo)), short)
    return np.where(small, short, out)


def _log1p(x):
    """The C library's log1p, in x's precision."""
    return _log1p64(x) if x.dtype == _F64 else _log1p32(x)


def _log1p_core(f, k, c, small):
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    z2 = z * z
    z4 = z2 * z2
    lp = _LOG1P_LP
    r = _fma(z2 * z4, _fma(z, lp[6], lp[5]), _fma(z4, _fma(z, lp[4], lp[3]), _fma(
        z, lp[0], z2 * _fma(z, lp[2], lp[1]))))
    klo = k * _LN2_LO + c
    out = np.where(k == 0, f - (hfsq - s * (hfsq + r)),
                   k * _LN2_HI - ((hfsq - (s * (hfsq + r) + klo)) - f))
    # fdlibm's shorter series for tiny f
    r = hfsq * (1.0 - 0.66666666666666666 * f)
    short = np.where(k == 0, f - r, k * _LN2_HI - ((r - klo) - f))
    short = np.where(f == 0, np.where(k == 0, 0.0, k * _LN2_HI + (c + k * _LN2_LO)), short)
    return np.where(small, short, out)


def _polygamma(x, n):
    if n == 0:
        return _digamma(x)
    if n == 1:
        return _trigamma(x)
    # (-1)^(n+1) n! zeta(n + 1, x), n! as exp(lgamma(n + 1)) in x's precision (as PyTorch)
    with np.errstate(over="ignore"):
        factorial = _factorial(n, x.dtype)
        z = _zeta(x.dtype.type(n + 1), x).astype(x.dtype)
    return (factorial if n % 2 else -factorial) * z


# ---- erfinv -------------------------------------------------------------------------------
# PyTorch computes erfinv with MKL's vdErfInv/vsErfInv (high-accuracy mode, within an ulp of
# the exact value), so this kernel aims at the exact value too: a rational first guess, then
# Halley steps on erf(x) = y for |y| <= 1/2 and on erfc(x) = 1 - |y| (exact) above, whose
# residuals the erf/erfc above compute to within an ulp. float32 rounds the float64 result.

_ERFINV_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_D = (3.543889200, 1.637067800)
_TWO_OVER_SQRT_PI = 1.1283791670955126


def _erfinv64(y):
    y = np.asarray(y, _F64)
    ay = np.abs(y)
    out = np.full_like(y, np.nan)
    out[ay == 1] = np.copysign(np.inf, y[ay == 1])
    tiny = ay < 1e-9                          # erfinv(y) = sqrt(pi)/2 y (1 + pi y^2/12 + ...)
    out[tiny] = y[tiny] * (math.sqrt(math.pi) / 2)
    low = (ay >= 1e-9) & (ay <= 0.5)
    yl = y[low]
    z = yl * yl
    x = yl * _poly(_ERFINV_A, z) / (_poly(_ERFINV_B, z) * z + 1)
    for _ in range(3):
        step = (_erf64(x) - yl) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = x - step / (1 + x * step)
    out[low] = x
    high = (ay > 0.5) & (ay < 1)
    q = 1 - ay[high]                          # exact
    z = np.sqrt(-np.log(q / 2))
    x = _poly(_ERFINV_C, z) / (_poly(_ERFINV_D, z) * z + 1)
    for _ in range(3):
        step = (_erfc64(x) - q) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = x + step / (1 - x * step)
    out[high] = np.copysign(x, y[high])
    return out


def _poly(coefficients, z):
    """c0 + c1 z + c2 z^2 + ..."""
    p = coefficients[-1]
    for c in coefficients[-2::-1]:
        p = p * z + c
    return p


def _erfinv(y):
    return _libm(_erfinv64, y)


# ---- modified Bessel functions i0, i1 (Cephes' Chebyshev expansions) ----------------------

_I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
         1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
         9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
         -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
         1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
         -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
         1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
         -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
         1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1)
_I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
         3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
         -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
         -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
         2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
         8.04490411014108831608e-1)
_I1_A = (2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
         -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
         3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
         -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-9,
         9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
         -8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
         4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
         -1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
         2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
         -1.76416518357834055153e-1, 2.52587186443633654823e-1)
_I1_B = (7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
         -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
         -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
         4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
         -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
         3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
         -3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
         -3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
         7.78576235018280120474e-1)
# float32 uses the tails of i1's tables (the leading terms are below its precision)
_I1_A_FLOAT, _I1_B_FLOAT = _I1_A[12:], _I1_B[18:]


def _chbevl(x, coefficients):
    """Cephes' Chebyshev series sum c_i T_i(x/2), in x's precision, its recurrence
    b0 = x b1 - b2 + c fused as PyTorch's compiler fuses it (x * b1 - b2 in one rounding)."""
    coefficients = [x.dtype.type(c) for c in coefficients]
    b0, b1, b2 = np.full_like(x, coefficients[0]), np.zeros_like(x), np.zeros_like(x)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = _fma(x, b1, -b2) + c
    return 0.5 * (b0 - b2)


def _i0(x):
    """PyTorch's calc_i0, in x's precision."""
    ax = np.abs(x)
    small = ax <= 8
    out = np.empty_like(x)
    xs, xb = ax[small], ax[~small]
    out[small] = _libm(np.exp, xs) * _chbevl(xs / 2 - 2, _I0_A)
    with np.errstate(over="ignore", invalid="ignore"):
        out[~small] = _libm(np.exp, xb) * _chbevl(32 / xb - 2, _I0_B) / np.sqrt(xb)
    return out


def _i1(x):
    """PyTorch's calc_i1, in x's precision."""
    single = x.dtype == np.float32
    ax = np.abs(x)
    small = ax <= 8
    out = np.empty_like(x)
    xs, xb = ax[small], ax[~small]
    out[small] = _libm(np.exp, xs) * xs * _chbevl(xs / 2 - 2, _I1_A_FLOAT if single else _I1_A)
    with np.errstate(over="ignore", invalid="ignore"):
        out[~small] = (_libm(np.exp, xb) * _chbevl(32 / xb - 2, _I1_B_FLOAT if single else _I1_B)
                       / np.sqrt(xb))
    return np.where(x < 0, -out, out)


# ---- regularized incomplete gamma functions ------------------------------------------------
# PyTorch's calc_igamma / calc_igammac (from SciPy and Cephes), branch for branch, in the
# inputs' precision (with the float64 steps PyTorch's float version takes from C++'s double
# literals). Each iterative helper runs over the elements still converging.

_LANCZOS_G = 6.024680040776729583740234375
_LANCZOS_NUM = (0.006061842346248907, 0.5098416655656676, 19.519927882476175,
                449.9445569063168, 6955.999602515376, 75999.29304014542, 601859.6171681099,
                3481712.154980646, 14605578.087685067, 43338889.32467614, 86363131.2881386,
                103794043.11634454, 56906521.913471565)
_LANCZOS_DENOM = (1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730., 105258076.,
                  150917976., 120543840., 39916800., 0.)
_IGAM_MAXITER = 2000


def _machep(dt):
    return 1.11022302462515654042e-16 if dt == _F64 else 5.9604644775390625e-8


def _lanczos_sum_expg_scaled(a):
    """SciPy's ratevl of Boost's Lanczos sum: a polynomial ratio, in 1/a when |a| > 1."""
    num = [a.dtype.type(c) for c in _LANCZOS_NUM]
    den = [a.dtype.type(c) for c in _LANCZOS_DENOM]
    big = np.abs(a) > 1
    y = np.where(big, 1 / a, a)
    p = np.where(big, num[-1], num[0])
    q = np.where(big, den[-1], den[0])
    for i in range(1, len(num)):
        p = _fma(p, y, np.where(big, num[-1 - i], num[i]))
        q = _fma(q, y, np.where(big, den[-1 - i], den[i]))
    return p / q


def _igam_fac(a, x):
    """x^a exp(-x) / Gamma(a), by Lanczos' approximation when a and x are close."""
    dt = a.dtype.type
    out = np.empty_like(a)
    far = np.abs(a - x).astype(_F64) > 0.4 * np.abs(a).astype(_F64)
    af, xf = a[far], x[far]
    ax = _fma(af, _libm(np.log, xf), -xf) - _glibc_lgamma(af)
    maxlog = 7.09782712893383996843e2 if dt is _F64 else 88.72283905206835
    with np.errstate(over="ignore", under="ignore"):
        out[far] = np.where(ax < -maxlog, 0, _libm(np.exp, ax))
        an, xn = a[~far], x[~far]
        fac = an + dt(_LANCZOS_G) - dt(0.5)
        res = np.sqrt(fac / dt(2.718281828459045)) / _lanczos_sum_expg_scaled(an)
        near = (an < 200) & (xn < 200)
        near_factor = _libm(np.exp, an - xn) * _libm(lambda t: np.power(t, an.astype(_F64)),
                                                     xn / fac)
        numfac = (xn - an - dt(_LANCZOS_G) + dt(0.5)) / fac
        log_term = _log1p(numfac) - numfac
        rest = xn.astype(_F64) * (0.5 - _LANCZOS_G) / fac.astype(_F64)
        # float: a * log_term is a float product, added in double (C++'s 0.5 literal)
        expo = _fma(an, log_term, rest) if dt is _F64 else (an * log_term).astype(
            _F64) + rest
        far_factor = (res.astype(_F64) * np.exp(expo)).astype(dt)
    out[~far] = np.where(near, res * near_factor, far_factor)
    return out


def _iterate(state, step, max_iter):
    """Run `step` over the elements still converging. state: dict of equal-length arrays;
    step(state, i) updates it in place and returns the mask of elements that converged at
    iteration i. Returns the final state in the original order. Converged elements are
    recorded at once but dropped from the arrays only once they are an eighth of them, or
    after 16 more steps (compressing at every step costs more; running them long drifts into
    subnormal numbers, which are slow)."""
    n = len(next(iter(state.values())))
    final = {k: v.copy() for k, v in state.items()}
    idx = np.arange(n)
    pending = np.ones(n, bool)
    stale_since = None
    for i in range(max_iter):
        if not idx.size:
            break
        done = step(state, i) & pending
        if done.any():
            for k, v in state.items():
                final[k][idx[done]] = v[done]
            pending &= ~done
            stale_since = i if stale_since is None else stale_since
        if stale_since is not None and (pending.sum() * 8 < pending.size * 7
                                        or i - stale_since >= 16):
            idx = idx[pending]
            state = {k: v[pending] for k, v in state.items()}
            pending = pending[pending]
            stale_since = None
    for k, v in state.items():
        final[k][idx[pending]] = v[pending]
    return final


def _igam_series(a, x):
    """P(a, x) by DLMF 8.11.4."""
    dt = a.dtype.type
    machep = dt(_machep(dt))
    ax = _igam_fac(a, x)

    def step(s, _):
        s["r"] += 1
        s["c"] *= s["x"] / s["r"]
        s["ans"] += s["c"]
        return s["c"] <= machep * s["ans"]

    s = _iterate({"x": x, "r": a.copy(), "c": np.ones_like(a), "ans": np.ones_like(a)}, step,
                 _IGAM_MAXITER)
    return np.where(ax == 0, 0, s["ans"] * ax / a)


def _igamc_series(a, x, fused):
    """Q(a, x) by DLMF 8.7.3, avoiding cancellation for small x."""
    dt = a.dtype.type
    machep = dt(_machep(dt))

    def step(s, i):
        n = dt(i + 1)
        s["fac"] *= -s["x"] / n
        term = s["fac"] / (s["a"] + n)
        s["sum"] += term
        return np.abs(term) <= machep * np.abs(s["sum"])

    s = _iterate({"a": a, "x": x, "fac": np.ones_like(a), "sum": np.zeros_like(a)}, step,
                 _IGAM_MAXITER - 1)
    logx = _libm(np.log, x)
    term = -_libm(np.expm1, _madd(fused, a, logx, -_glibc_lgamma(1 + a)))
    return _madd(fused, -_libm(np.exp, _madd(fused, a, logx, -_glibc_lgamma(a))), s["sum"], term)


def _igamc_continued_fraction(a, x, fused):
    """Q(a, x) by DLMF 8.9.2."""
    dt = a.dtype.type
    machep = dt(_machep(dt))
    big, biginv = (4.503599627370496e15, 2.22044604925031308085e-16) if dt is _F64 else (
        16777216., 5.9604644775390625e-8)
    ax = _igam_fac(a, x)
    y = 1 - a
    z = x + y + 1
    s = {"y": y, "z": z, "c": np.zeros_like(a), "pkm2": np.ones_like(a), "qkm2": x.copy(),
         "pkm1": x + 1, "qkm1": z * x}
    s["ans"] = s["pkm1"] / s["qkm1"]

    def step(s, _):
        s["c"] += 1
        s["y"] += 1
        s["z"] += 2
        yc = s["y"] * s["c"]
        pk = _madd(fused, s["pkm1"], s["z"], -(s["pkm2"] * yc))
        qk = _madd(fused, s["qkm1"], s["z"], -(s["qkm2"] * yc))
        nonzero = qk != 0
        with np.errstate(invalid="ignore", divide="ignore"):
            r = pk / qk
            t = np.where(nonzero, np.abs((s["ans"] - r) / r), 1)
        s["ans"] = np.where(nonzero, r, s["ans"])
        s["pkm2"], s["pkm1"], s["qkm2"], s["qkm1"] = s["pkm1"], pk, s["qkm1"], qk
        rescale = np.abs(pk) > big
        for k in ("pkm2", "pkm1", "qkm2", "qkm1"):
            s[k] = np.where(rescale, s[k] * dt(biginv), s[k])
        return t <= machep

    s = _iterate(s, step, _IGAM_MAXITER)
    return np.where(ax == 0, 0, s["ans"] * ax)


_temme_d = None


def _temme_coefficients():
    """d[k][n], k, n < 25: the coefficients of Temme's uniform asymptotic expansion of the
    incomplete gamma functions (DLMF 8.12.12), computed once in 60-digit decimal arithmetic:
    alpha from the reversion of eta(lambda) = sqrt(2 (lambda - log(1 + lambda))) (DLMF
    8.12.13), g the Stirling coefficients of Gamma (DLMF 5.11.3)."""
    global _temme_d
    if _temme_d is not None:
        return _temme_d
    K = N = 25
    M = N + 2 * K
    D = decimal.Decimal
    with decimal.localcontext(decimal.Context(prec=60)):
        terms = M + 3
        # eta(l) / l = sqrt(u), u = 2 (l - log(1 + l)) / l^2 = sum_k 2 (-1)^k l^k / (k + 2)
        u = [D(2 * (-1) ** k) / (k + 2) for k in range(terms)]
        root = [D(1)]
        for k in range(1, terms):
            root.append((u[k] - sum(root[j] * root[k - j] for j in range(1, k))) / 2)
        # Lagrange: alpha_n = [l^(n-1)] (l / eta)^n / n, with l / eta = 1 / sqrt(u)
        inv = [D(1)]
        for k in range(1, terms):
            inv.append(-sum(root[j] * inv[k - j] for j in range(1, k + 1)))
        alpha, power = [D(0), D(1)], inv[:]
        for n in range(2, terms):
            power = [sum(power[j] * inv[k - j] for j in range(k + 1)) for k in range(terms)]
            alpha.append(power[n - 1] / n)
        # Stirling: Gamma*(a) = exp(sum_m B_2m / (2m (2m-1) a^(2m-1))) = sum_k g_k a^-k
        bernoulli = _bernoulli(2 * K + 2)
        log_series = [D(0)] * (K + 1)
        for m in range(1, K // 2 + 2):
            if 2 * m - 1 <= K:
                b = bernoulli[2 * m]
                log_series[2 * m - 1] = D(b.numerator) / D(b.denominator) / (2 * m * (2 * m - 1))
        g = [D(1)] + [D(0)] * K        # exp of a series without constant term
        for k in range(1, K + 1):
            g[k] = sum(j * log_series[j] * g[k - j] for j in range(1, k + 1)) / k
        d = [[D(-1) / 3] + [(n + 2) * alpha[n + 2] for n in range(1, M)]]
        for k in range(1, K):
            d.append([(-1) ** k * g[k] * d[0][n] + (n + 2) * d[k - 1][n + 2]
                      for n in range(M - 2 * k)])
        _temme_d = np.array([[float(v) for v in row[:N]] for row in d])
    return _temme_d


def _bernoulli(n):
    """Bernoulli numbers B_0 .. B_n (B_1 = -1/2), exact."""
    from fractions import Fraction
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


def _igam_asymptotic(a, x, lower):
    """P (lower) or Q by Temme's uniform expansion (DLMF 8.12.3/8.12.4), for large a ~ x."""
    dt = a.dtype.type
    machep = dt(_machep(dt))
    d = _temme_coefficients().astype(a.dtype)
    sgn = -1 if lower else 1
    lam = x / a
    sigma = (x - a) / a
    with np.errstate(invalid="ignore"):
        root = np.sqrt(-2 * (_log1p(sigma) - sigma))
    eta = np.where(lam > 1, root, np.where(lam < 1, -root, 0)).astype(a.dtype)
    # res = 0.5 erfc(...) (float: erfcf, then the double 0.5)
    res = 0.5 * _libm(_erfc64, sgn * eta * np.sqrt(a / 2)).astype(_F64)
    etapow = np.ones((len(a), 25), a.dtype)
    for n in range(1, 25):
        etapow[:, n] = eta * etapow[:, n - 1]
    total = np.zeros_like(a)
    afac = np.ones_like(a)
    absold = np.full_like(a, np.inf)
    live = np.ones(len(a), bool)
    for k in range(25):
        ck = np.full_like(a, d[k, 0])
        open_ = live.copy()
        for n in range(1, 25):
            term = d[k, n] * etapow[:, n]
            ck = np.where(open_, ck + term, ck)
            open_ &= ~(np.abs(term) < machep * np.abs(ck))
            if not open_.any():
                break
        term = ck * afac
        absterm = np.abs(term)
        live &= ~(absterm > absold)
        total = np.where(live, total + term, total)
        live &= ~(absterm < machep * np.abs(total))
        absold = absterm
        afac = afac / a
        if not live.any():
            break
    # PyTorch's float pi here, in both precisions
    root_2pi_a = np.sqrt(dt(2 * np.float32(np.pi)) * a).astype(_F64)
    res = res + sgn * np.exp(-0.5 * a.astype(_F64) * eta * eta) * total / root_2pi_a
    return res.astype(a.dtype)


def _igamma_kernel(a, x, upper):
    """Regularized lower (upper=False) or upper incomplete gamma of arrays of one float
    dtype, broadcast against each other."""
    a, x = np.broadcast_arrays(a, x)
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    inf = np.isinf
    out = np.full(a.shape, np.nan, a.dtype)
    # the boundary cases, in PyTorch's order; nan stays nan below
    todo = ~((x < 0) | (a < 0))
    m = todo & (a == 0)
    out[m & (x > 0)] = 1 - upper
    todo &= ~m
    m = todo & (x == 0)
    out[m] = upper
    todo &= ~m
    m = todo & inf(a)
    out[m & ~inf(x)] = upper
    todo &= ~m
    m = todo & inf(x)
    out[m] = 1 - upper
    todo &= ~(m | np.isnan(a) | np.isnan(x))
    idx = np.flatnonzero(todo)
    a, x = a[idx], x[idx]
    absxma_a = np.abs(x - a) / a
    asymptotic = ((a > 20) & (a < 200) & (absxma_a < 0.3)) | (
        (a > 200) & (absxma_a < 4.5 / np.sqrt(a)))
    res = np.empty_like(a)
    res[asymptotic] = _igam_asymptotic(a[asymptotic], x[asymptotic], not upper)
    x64 = x.astype(_F64)
    if upper:
        with np.errstate(divide="ignore"):
            p_series = np.where(x64 > 1.1, x < a, np.where(
                x64 <= 0.5, -0.4 / _libm(np.log, x).astype(_F64) < a, x64 * 1.1 < a))
        cf = (x64 > 1.1) & ~p_series
        q_series = ~p_series & ~cf
    else:
        # P = 1 - Q above the mean (Q by its continued fraction or, for x <= 1.1, series)
        q_of = (x > 1) & (x > a)
        cf = q_of & (x64 > 1.1)
        q_series = q_of & ~cf
        p_series = ~q_of
    # PyTorch's build fuses the multiply-adds of Q's helpers when they are compiled into
    # igammac, not when inlined into igamma (found by comparing with it)
    m = p_series & ~asymptotic
    v = _igam_series(a[m], x[m])
    res[m] = 1 - v if upper else v
    m = cf & ~asymptotic
    v = _igamc_continued_fraction(a[m], x[m], fused=upper)
    res[m] = v if upper else 1 - v
    m = q_series & ~asymptotic
    v = _igamc_series(a[m], x[m], fused=upper)
    res[m] = v if upper else 1 - v
    out[idx] = res
    return out.reshape(shape)


# ---- sinc, logit, xlogy, mvlgamma kernels --------------------------------------------------

def _sinc(a):
    """sin(pi a) / (pi a), 1 at 0; pi and the product in a's precision (so float32's
    sinc(1) is 2.78e-8, as PyTorch's)."""
    if a.dtype.kind == "c":
        product = a * a.dtype.type(np.pi)
        out = np.sin(product) / product
    else:
        product = a * a.dtype.type(np.pi)
        out = _libm(np.sin, product) / product
    return np.where(a == 0, 1, out).astype(a.dtype)


def _logit(a, eps):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0. float16 and bfloat16
    round each step, as PyTorch's kernel does there."""
    dt = a.dtype.type
    if eps is not None and eps >= 0:
        lo = dt(eps)
        hi = dt(1) - lo
        a = np.where(a < lo, lo, np.where(a > hi, hi, a))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = a / (dt(1) - a)
        out = _libm(np.log, ratio) if a.dtype == np.float32 else np.log(ratio)
    return np.where(a == 1, dt(np.inf), out).astype(a.dtype)


def _xlogy(x, y):
    """x * log(y), 0 where x is 0 (unless y is nan)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * _libm(np.log, np.asarray(y))
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, out)).astype(out.dtype)


def _mvlgamma_args(p, dt):
    """The half-integer offsets -(p-1)/2 ... 0 that mvlgamma adds to its input."""
    return (-p * 0.5 + 0.5 + 0.5 * np.arange(p)).astype(dt)


def _mvlgamma_check(is_bool, p):
    if is_bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


def _mvlgamma(a, p):
    _mvlgamma_check(a.dtype == np.bool_, p)
    _not_for(a, "c", "arange_cpu")
    if a.dtype.kind in "iu":
        a = a.astype(_dtype.get_default_dtype().np)
    terms = _lgamma_forward(a[..., None] + _mvlgamma_args(p, a.dtype))
    total = terms.sum(-1, dtype=np.float32 if _reduced(a) else None).astype(a.dtype)
    return (total + a.dtype.type(p * (p - 1) * math.log(math.pi) * 0.25)).astype(a.dtype)


# ---- torch.special's own kernels: i0e, i1e, erfcx, ndtri, log_ndtr, entr, xlog1py --------

def _i0e(x):
    """PyTorch's calc_i0e: i0's Chebyshev series without the exponential (the full tables in
    float32 too)."""
    ax = np.abs(x)
    small = ax <= 8
    out = np.empty_like(x)
    xs, xb = ax[small], ax[~small]
    out[small] = _chbevl(xs / 2 - 2, _I0_A)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[~small] = _chbevl(32 / xb - 2, _I0_B) / np.sqrt(xb)
    return out


def _i1e(x):
    """PyTorch's calc_i1e (float32 with the shortened tables, as i1)."""
    single = x.dtype == np.float32
    ax = np.abs(x)
    small = ax <= 8
    out = np.empty_like(x)
    xs, xb = ax[small], ax[~small]
    out[small] = _chbevl(xs / 2 - 2, _I1_A_FLOAT if single else _I1_A) * xs
    with np.errstate(divide="ignore", invalid="ignore"):
        out[~small] = _chbevl(32 / xb - 2, _I1_B_FLOAT if single else _I1_B) / np.sqrt(xb)
    return np.where(x < 0, -out, out)


# erfcx(x) = exp(x^2) erfc(x). PyTorch's kernel (Steven G. Johnson's Faddeeva package) maps
# 0 <= x <= 50 to y = 400 / (4 + x) and sums a degree-6 Chebyshev polynomial on one of 100
# subintervals of y, accurate to about an ulp; beyond 50 a continued fraction, and for x < 0
# 2 exp(x^2) - erfcx(-x). Here the middle range is erfcx itself, to about an ulp (erfc times
# exp(x^2) with x^2 split exactly below 4, the continued fraction for erfc above), evaluated
# where PyTorch's polynomial effectively is: at x' = 400 / y - 4 for its rounded y (to first
# order in x' - x for float64; float32 rounds y in float and then evaluates in float64, as
# its table's double coefficients do). The other branches take PyTorch's steps.

_ISPI = 0.56418958354775628694807945156            # 1 / sqrt(pi)


def _exp(x):
    """exp as the C library rounds it, nearly always (float64 through the 80-bit long double
    where NumPy has one: NumPy's own exp is off by an ulp for one argument in twenty)."""
    if x.dtype == _F64:
        return np.exp(x.astype(np.longdouble)).astype(_F64)
    return _libm(np.exp, x)


def _erfcx_exact(x):
    """erfcx(x) for 0 <= x <= 50, float64, to about an ulp."""
    out = np.empty_like(x)
    low = x < 4
    xl = x[low]
    hi = xl * xl
    lo = _fma(xl, xl, -hi)                 # x^2 = hi + lo exactly
    wide = np.longdouble
    out[low] = (_erfc64(xl).astype(wide) * np.exp(hi.astype(wide)) * (1 + lo.astype(wide))
                ).astype(_F64)
    out[~low] = _erfc_fraction(x[~low], scaled=True)
    return out


def _erfcx_table(x):
    """PyTorch's erfcx_y100(400 / (4 + x)) for 0 <= x <= 50, in x's precision."""
    if x.dtype == np.float32:
        y = np.float32(400) / (np.float32(4) + x)
        return _erfcx_exact(400 / y.astype(_F64) - 4).astype(np.float32)
    value = _erfcx_exact(x)
    y = 400 / (4 + x)
    q = 400 / y
    shift = (q - 4 - x) + _fma(-q, y, np.full_like(y, 400.0)) / y     # x' - x
    return value + (2 * x * value - 2 * _ISPI) * shift


def _erfcx(x):
    out = x.copy()                         # nan stays nan
    x64 = x.astype(_F64)                   # C++ compares with double literals
    mid = (x >= 0) & (x <= 50)
    out[mid] = _erfcx_table(x[mid])
    big = x > 50
    xb = x[big]
    x2 = (xb * xb).astype(_F64)            # x * x in x's precision, the rest in double
    tail = _ISPI * _fma(x2, x2 + 4.5, np.full_like(x2, 2.0)) / (
        xb.astype(_F64) * _fma(x2, x2 + 5, np.full_like(x2, 3.75)))
    out[big] = np.where(xb > 5e7, x.dtype.type(_ISPI) / xb, tail.astype(x.dtype))
    neg = x < 0
    xn = x[neg]
    twice = x.dtype.type(2) * _exp(xn * xn)
    reflected = twice - _erfcx_table(-np.maximum(xn, -6.1))
    out[neg] = np.where(x64[neg] < -26.7, np.inf, np.where(x64[neg] < -6.1, twice, reflected))
    return out


def _log_ndtr(x):
    """PyTorch's calc_log_ndtr: log(erfcx(-t) / 2) - t^2 below -1, log1p(-erfc(t) / 2)
    above, t = x / sqrt(2) in x's precision."""
    t = x * x.dtype.type(0.70710678118654752440)
    out = np.empty_like(x)
    low = x < -1
    tl = t[low]
    out[low] = _fma(-tl, tl, _libm(np.log, _erfcx(-tl) / 2))
    th = t[~low]
    out[~low] = _log1p(-_libm(_erfc64, th) / 2)
    return out


# Cephes' ndtri: rational approximations in y - 1/2 near the middle, and in 1/sqrt(-2 log y)
# in the tails
_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)
_EXP_MINUS_2 = 0.13533528323661269189


def _polevl(coefficients, y):
    """Horner's rule in y's precision, each step fused (as PyTorch's build compiles it)."""
    t = y.dtype.type
    r = np.full_like(y, t(coefficients[0]))
    for c in coefficients[1:]:
        r = _fma(r, y, np.full_like(y, t(c)))
    return r


def _ndtri(y0):
    """PyTorch's calc_ndtri (Cephes), in y0's precision."""
    c = y0.dtype.type
    out = np.full_like(y0, np.nan)
    out[y0 == 0] = -np.inf
    out[y0 == 1] = np.inf
    live = (y0 > 0) & (y0 < 1)
    y = y0[live]
    upper = y > c(1) - c(_EXP_MINUS_2)
    y = np.where(upper, c(1) - y, y)
    res = np.empty_like(y)
    middle = y > c(_EXP_MINUS_2)
    ym = y[middle] - c(0.5)
    y2 = ym * ym
    res[middle] = _fma(ym, y2 * _polevl(_NDTRI_P0, y2) / _polevl(_NDTRI_Q0, y2), ym) \
        * c(2.50662827463100050242)
    # the tails call C's double log and sqrt (::log, ::sqrt), rounding to y0's precision
    # only where the kernel stores a value
    yt = y[~middle].astype(_F64)
    x = np.sqrt(-2.0 * np.log(yt)).astype(y0.dtype)
    x64 = x.astype(_F64)
    x0 = (x64 - np.log(x64) / x64).astype(y0.dtype)
    z = c(1) / x
    near = x < c(8.0)
    x1 = np.where(near, z * _polevl(_NDTRI_P1, z) / _polevl(_NDTRI_Q1, z),
                  z * _polevl(_NDTRI_P2, z) / _polevl(_NDTRI_Q2, z))
    tail = x0 - x1
    res[~middle] = np.where(upper[~middle], tail, -tail)
    out[live] = res
    return out


def _entr(x):
    """-x log(x); 0 at 0, -inf below, nan stays (float16 and bfloat16: c10 rounds the log
    to the type, then the product)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -x * (np.log(x) if _reduced(x) else _libm(np.log, x))
    return np.where(x > 0, value, np.where(x == 0, 0, np.where(np.isnan(x), x, -np.inf))
                    ).astype(x.dtype)


def _xlog1py(x, y):
    """x * log1p(y), 0 where x is 0 (unless y is nan); log1p as the C library's (float16 and
    bfloat16: c10 rounds log1p to the type, then the product)."""
    if _reduced(x):
        lg = _log1p32(y.astype(np.float32)).astype(x.dtype)
    else:
        lg = _log1p(y)
    with np.errstate(invalid="ignore", over="ignore"):
        out = x * lg
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, out)).astype(x.dtype)


# ---- forwards: dtype checks, then the kernels ----------------------------------------------

def _real_kernel(kernel, name):
    """A forward for a real floating kernel: PyTorch's error for complex inputs, float16 and
    bfloat16 computed in float32."""
    compute = _in_float32(kernel)

    def forward(a, *params):
        _not_for(a, "c", name)
        with np.errstate(all="ignore"):
            return compute(a, *params)
    return forward


_lgamma_forward = _real_kernel(_lgamma, "lgamma_vml_cpu")


def _polygamma_forward(a, n):
    _not_for(a, "c", "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma")
    with np.errstate(all="ignore"):
        if n >= 2 and _reduced(a):
            # float16/bfloat16: zeta (accumulated in float) comes back rounded to a's dtype
            up = a.astype(np.float32)
            z = _zeta(np.float32(n + 1), up).astype(np.float32).astype(a.dtype)
            factor = _factorial(n, np.float32)
            return ((factor if n % 2 else -factor) * z.astype(np.float32)).astype(a.dtype)
        return _in_float32(_polygamma)(a, n)


def _not_for_promoted(dt, kinds, kernel):
    """pointwise._not_for on a binary op's result dtype `dt`, complex32 included: complex64
    and float16 tensors promote to it (an ml_dtypes dtype of its own kind) without passing
    special_dtypes' table, which registry consults only for inputs of such dtypes."""
    if "c" in kinds and _dtype.FROM_NP[dt].is_complex:
        kinds += dt.kind
    _not_for(np.empty(0, dt), kinds, kernel)


def _igamma_forward(name, upper):
    compute = _in_float32(lambda a, x: _igamma_kernel(a, x, upper))

    def forward(a, x):
        _not_for_promoted(a.dtype, "biuc", name)
        with np.errstate(all="ignore"):
            return compute(a, x)
    return forward


def _logit_forward(a, eps):
    _not_for(a, "c", "logit_cpu")
    return _logit(a, eps)


def _xlogy_forward(x, y):
    """Arrays or numbers, already of their result dtype (numbers: as arrays of it)."""
    dt = (x if type(x) is np.ndarray else y).dtype
    _not_for_promoted(dt, "c", "xlogy_cpu")
    x, y = (np.asarray(v, dt) for v in (x, y))
    if _reduced(x):                 # c10's log of a Half is a Half: each step rounds
        return _xlogy(x, y)
    return _in_float32(_xlogy)(x, y)


def _reduced_kernel(kernel, name):
    """A forward for a kernel that computes float16 and bfloat16 in their own type, rounding
    after each step as c10's Half and BFloat16 arithmetic does."""
    def forward(a):
        _not_for(a, "c", name)
        with np.errstate(all="ignore"):
            return _blocked(kernel, [np.atleast_1d(a)]).reshape(a.shape)
    return forward


def _float_kernel(kernel, name):
    """A forward for a kernel PyTorch compiles for float32 and float64 only: its error for
    complex and float16 inputs (bfloat16 is refused by special_dtypes' table)."""
    compute = _in_float32(kernel)

    def forward(*arrays):
        dt = next(a for a in arrays if type(a) is np.ndarray).dtype
        _not_for_promoted(dt, "c", name)
        if dt == np.float16:
            raise NotImplementedError(f"\"{name}\" not implemented for 'Half'")
        arrays = [np.asarray(a, dt) for a in arrays]      # a Python number of a Scalar overload
        with np.errstate(all="ignore"):
            return compute(*arrays)
    return forward


def _xlog1py_forward(x, y):
    """As _xlogy_forward."""
    dt = (x if type(x) is np.ndarray else y).dtype
    _not_for_promoted(dt, "c", "xlog1py_cpu")
    x, y = np.broadcast_arrays(*(np.asarray(v, dt) for v in (x, y)))
    with np.errstate(all="ignore"):
        return _in_float32(_xlog1py)(x, y) if not _reduced(x) else _xlog1py(x, y)


def _zeta_kernel(x, q):
    """Hurwitz zeta in the inputs' precision (accumulated in float64, as PyTorch's)."""
    return _zeta(x, q).astype(x.dtype)


# ---- derivative formulas (derivatives.yaml) -----------------------------------------------

def _float_formula(self, name):
    """PyTorch writes some formulas for float32 and float64 only (its kernel's error)."""
    if self._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{_dtype.FROM_NP[self._data.dtype].legacy}'")


def _i1_backward(grad, self, result):
    # i1'(x) = i0(x) - i1(x) / x, and 1/2 at 0 (where the formula divides 0 by 0)
    _float_formula(self, "i1_backward")
    eps = float(np.finfo(self._data.dtype).eps)
    not_tiny = self.abs() > eps
    safe_self = where(not_tiny, self, eps)
    gradx = safe_self.i0() - result * safe_self.reciprocal()
    return grad * where(not_tiny, gradx, 0.5)


def _sinc_backward(grad, self):
    self_pi = self * math.pi
    self_squared_pi = self * self * math.pi
    # (the quotient first, as PyTorch's formula: grad times a huge numerator overflows)
    out = grad * (_conj((self_pi * self_pi.cos()) - self_pi.sin()) / _conj(self_squared_pi))
    return where(self_squared_pi == 0.0, 0.0, out)


def _logit_backward(grad, self, eps):
    if grad_mode.state.grad_enabled:
        # infinitely_differentiable_logit_backward
        if eps is not None:
            inside = (self >= eps).logical_and(self <= 1.0 - eps)
            return where(inside, grad / (self * (1.0 - self)), 0.0)
        inside = (self >= 0.0).logical_and(self <= 1.0)
        return where(inside, grad / (self * (1.0 - self)), math.nan)
    # logit_backward's kernel (no graph to build): a negative eps is no eps there
    g, x = grad._data, self._data
    with np.errstate(divide="ignore", invalid="ignore"):
        # at the ends the kernel's quotient is an infinity of the gradient's sign (x = -0.0
        # included), not the sign of IEEE's division by a signed zero
        out = np.where((x == 0) | (x == 1), g * np.inf, g / (x * (1 - x)))
        if eps is None or eps < 0:
            out = np.where((x < 0) | (x > 1), np.nan, out)
        else:
            out = np.where((x < eps) | (x > 1 - eps), 0, out)
    return make_tensor(out.astype(g.dtype, copy=False))


def _mvlgamma_backward(grad, self, p):
    args = make_tensor(_mvlgamma_args(p, self._data.dtype))
    return grad * args.add(self.unsqueeze(-1)).digamma_().sum(-1)


def _igamma_other(sign):
    # d/dx P(a, x) = x^(a-1) exp(-x) / Gamma(a)
    def formula(grad, self, other):
        density = ((self - 1) * other.log() - other - self.lgamma()).exp()
        return grad * density if sign > 0 else -grad * density
    return formula


def _xlogy_self(grad, self, other):
    return xlogy(grad, other).masked_fill((self == 0.0).logical_and(other <= 0.0), 0.0)


def _xlogy_scalar_other_self(grad, self, other):
    out = xlogy(grad, other)
    return out if other > 0 else out.masked_fill(self == 0.0, 0.0)


def _i1e_backward(grad, self, result):
    # i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), and 1/2 at 0
    _float_formula(self, "i1e_backward")
    eps = float(np.finfo(self._data.dtype).eps)
    not_tiny = self.abs() > eps
    safe_self = where(not_tiny, self, eps)
    gradx = special_i0e(safe_self) - result * (safe_self.sgn() + safe_self.reciprocal())
    return grad * where(not_tiny, gradx, 0.5)


def _xlog1py_self(grad, self, other):
    return special_xlog1py(grad, other).masked_fill((self == 0.0).logical_and(other <= -1.0),
                                                    0.0)


def _xlog1py_other_scalar_self(grad, self, other):
    out = _xlog1py_other_scalar(grad, other)
    return out if other > -1 else out.masked_fill(self == 0.0, 0.0)


# ---- the rows -----------------------------------------------------------------------------

lgamma = op("lgamma", "LgammaBackward0", "self", _lgamma_forward, promote=FLOAT,
            inplace="lgamma_", self=lambda grad, self: grad * self.digamma())

digamma = op("digamma", "DigammaBackward0", "self", _real_kernel(_digamma, "digamma"),
             promote=FLOAT, inplace="digamma_",
             self=lambda grad, self: grad * polygamma(1, self))

_polygamma_row = op("polygamma", "PolygammaBackward0", "n, self", _polygamma_forward,
                    inputs=("self",), promote=FLOAT, function=False, method=False,
                    self=lambda grad, n, self: grad * polygamma(n + 1, self))

# polygamma_ has its own derivatives.yaml entry (self first), hence its own node
_polygamma_inplace_row = op("polygamma_", "PolygammaBackward1", "self, n", _polygamma_forward,
                            promote=FLOAT, function=False, method=False,
                            self=lambda grad, self, n: grad * polygamma(n + 1, self))

_mvlgamma_row = op("mvlgamma", "MvlgammaBackward0", "self, p", _mvlgamma, function=False,
                   method=False, self=_mvlgamma_backward)

erfinv = op("erfinv", "ErfinvBackward0", "self", _real_kernel(_erfinv, "erfinv_vml_cpu"),
            promote=FLOAT, inplace="erfinv_",
            self=lambda grad, self: 0.5 * math.sqrt(math.pi) * self.erfinv().pow(2).exp() * grad)

i0 = op("i0", "I0Backward0", "self", _real_kernel(_i0, "i0_vml_cpu"), promote=FLOAT,
        inplace="i0_", self=lambda grad, self: grad * special_i1(self))

# torch.special.i1; torch has no top-level i1 (another module exposes torch.special)
special_i1 = op("special_i1", "SpecialI1Backward0", "self", _real_kernel(_i1, "i1_cpu"),
                promote=FLOAT, function=False, method=False, self=_i1_backward)

igamma = op("igamma", "IgammaBackward0", "self, other", _igamma_forward("igamma_cpu", False),
            promote=PROMOTE, inplace="igamma_", self=not_implemented("igamma: input"),
            other=_igamma_other(1))

igammac = op("igammac", "IgammacBackward0", "self, other",
             _igamma_forward("igammac_cpu", True), promote=PROMOTE, inplace="igammac_",
             self=not_implemented("igammac: input"), other=_igamma_other(-1))

sinc = op("sinc", "SincBackward0", "self", _in_float32(_sinc), promote=FLOAT, inplace="sinc_",
          self=_sinc_backward)

_logit_row = op("logit", "LogitBackward0", "self, eps=None", _logit_forward, promote=FLOAT,
                function=False, method=False, self=_logit_backward)

_xlogy_tensor = op("xlogy.Tensor", "XlogyBackward0", "self, other", _xlogy_forward,
                   promote=PROMOTE_FLOAT, function=False, method=False, self=_xlogy_self,
                   other=lambda grad, self, other: grad * self / other)

# the number is a parameter; the tensor comes first in the row (its forward gets it first)
_xlogy_scalar_self = op("xlogy.Scalar_Self", "XlogyBackward1", "other, self",
                        lambda y, x: _xlogy_forward(x, y), promote=PROMOTE_FLOAT,
                        promote_with=("self",), function=False, method=False,
                        other=lambda grad, self, other: grad * self / other)

_xlogy_scalar_other = op("xlogy.Scalar_Other", "XlogyBackward2", "self, other",
                         _xlogy_forward, promote=PROMOTE_FLOAT, promote_with=("other",),
                         function=False, method=False, self=_xlogy_scalar_other_self)


# ---- torch.special's rows (its namespace, chainrule/special, calls them) ----

special_i0e = op("special_i0e", "SpecialI0EBackward0", "self", _real_kernel(_i0e, "i0e_cpu"),
                 promote=FLOAT, function=False, method=False,
                 self=lambda grad, self, result: grad * (special_i1e(self) - self.sgn() * result))

special_i1e = op("special_i1e", "SpecialI1EBackward0", "self", _real_kernel(_i1e, "i1e_cpu"),
                 promote=FLOAT, function=False, method=False, self=_i1e_backward)

special_erfcx = op("special_erfcx", "SpecialErfcxBackward0", "self",
                   _float_kernel(_erfcx, "erfcx_cpu"), promote=FLOAT, function=False,
                   method=False,
                   self=lambda grad, self, result: (2.0 * self * result - 2.0 / math.sqrt(math.pi))
                   * grad)

special_ndtri = op("special_ndtri", "SpecialNdtriBackward0", "self",
                   _float_kernel(_ndtri, "ndtri_cpu"), promote=FLOAT, function=False,
                   method=False,
                   self=lambda grad, result: grad * math.sqrt(2 * math.pi)
                   * (result.square() / 2).exp())

special_log_ndtr = op("special_log_ndtr", "SpecialLogNdtrBackward0", "self",
                      _float_kernel(_log_ndtr, "log_ndtr_cpu"), promote=FLOAT, function=False,
                      method=False,
                      self=lambda grad, self, result: grad / math.sqrt(2 * math.pi)
                      * (result + self.pow(2) / 2).neg().exp())

special_entr = op("special_entr", "SpecialEntrBackward0", "self",
                  _reduced_kernel(_entr, "entr_cpu"), promote=FLOAT, function=False,
                  method=False,
                  self=lambda grad, self: grad * (-(1 + self.log())))

special_xlog1py = op("special_xlog1py", "SpecialXlog1PyBackward0", "self, other",
                     _xlog1py_forward, promote=PROMOTE_FLOAT, function=False, method=False,
                     self=_xlog1py_self, other=lambda grad, self, other: grad * self / (other + 1))

# a Scalar overload's number is a parameter; the tensor comes first in the row
_xlog1py_self_scalar = op("special_xlog1py.self_scalar", "SpecialXlog1PyBackward1",
                          "other, self", lambda y, x: _xlog1py_forward(x, y),
                          promote=PROMOTE_FLOAT, promote_with=("self",), function=False,
                          method=False,
                          other=lambda grad, self, other: grad * self / (other + 1))

_xlog1py_other_scalar = op("special_xlog1py.other_scalar", "SpecialXlog1PyBackward2",
                           "self, other", _xlog1py_forward, promote=PROMOTE_FLOAT,
                           promote_with=("other",), function=False, method=False,
                           self=_xlog1py_other_scalar_self)

_zeta_forward = _float_kernel(_zeta_kernel, "zeta_cpu")

special_zeta = op("special_zeta", "SpecialZetaBackward0", "self, other", _zeta_forward,
                  promote=PROMOTE_FLOAT, function=False, method=False,
                  self=not_implemented("zeta"),
                  other=lambda grad, self, other: grad * -self * special_zeta(self + 1.0, other))

_zeta_self_scalar = op("special_zeta.self_scalar", "SpecialZetaBackward1", "other, self",
                       lambda q, x: _zeta_forward(x, q), promote=PROMOTE_FLOAT,
                       promote_with=("self",), function=False, method=False,
                       other=lambda grad, self, other: grad * -self
                       * _zeta_self_scalar(other, self + 1.0))

_zeta_other_scalar = op("special_zeta.other_scalar", "SpecialZetaBackward2", "self, other",
                        _zeta_forward, promote=PROMOTE_FLOAT, promote_with=("other",),
                        function=False, method=False, self=not_implemented("zeta"))


# ---- public functions that pick a row or check arguments first ----------------------------

def _check_int(value, fn, name, position):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")


def _check_n(n, fn):
    _check_int(n, fn, "n", 1)
    _nonnegative_n(n)


def _nonnegative_n(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


_POLYGAMMA = Signature("polygamma(int n, Tensor input)")


@public("polygamma", method=False, out=True)
def polygamma(n, input):
    """The n-th derivative of the digamma function (n = 0: digamma itself)."""
    _POLYGAMMA.check(n, input)      # the parser's type checks, before n's value
    _nonnegative_n(n)
    return _polygamma_row(int(n), input)


@public("polygamma", function=False)
def _polygamma_method(self, n):
    _check_n(n, "polygamma")
    return _polygamma_row(int(n), self)


@public("polygamma_", function=False)
def polygamma_(self, n):
    from .inplace import dispatch_inplace
    _check_n(n, "polygamma_")
    return dispatch_inplace(_polygamma_inplace_row.op, (self,), (int(n),))


def _mvlgamma_function(input, p):
    _check_int(p, "mvlgamma", "p", 2)
    return _mvlgamma_row(input, int(p))


@public("mvlgamma", method=False)
def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p."""
    if out is None or not isinstance(input, Tensor):
        return _mvlgamma_function(input, p)
    # PyTorch's message names the input's dtype where others name the result's
    rule = registry.out_cast(f"mvlgamma: result type {input.dtype.legacy} can't be cast to "
                             "the desired output type {expected}")
    return registry.out_variant(_mvlgamma_function, rule, "mvlgamma")(input, p, out=out)


@public("mvlgamma", function=False)
def _mvlgamma_method(self, p):
    _check_int(p, "mvlgamma", "p", 1)
    return _mvlgamma_row(self, int(p))


@public("mvlgamma_", function=False)
def mvlgamma_(self, p):
    from .inplace import dispatch_inplace
    _check_int(p, "mvlgamma_", "p", 1)
    _mvlgamma_check(self.dtype is _dtype.bool, p)
    if self.dtype.category < 2:
        # PyTorch names the types the other way round here
        raise RuntimeError(f"mvlgamma: result type {self.dtype.legacy} can't be cast to the "
                           f"desired output type {_dtype.get_default_dtype().legacy}")
    return dispatch_inplace(_mvlgamma_row.op, (self,), (int(p),))


_NUMBER = (bool, int, float, complex, np.number, np.bool_)


def _xlogy_row(input, other):
    """The overload for these operands, or None."""
    if isinstance(input, Tensor):
        if isinstance(other, Tensor):
            return _xlogy_tensor
        if isinstance(other, _NUMBER):
            return _xlogy_scalar_other
    elif isinstance(input, _NUMBER) and isinstance(other, Tensor):
        return _xlogy_scalar_self
    return None


def _xlogy_type_error(fn, args, overloads):
    """PyTorch's argument-parser error; overloads: (signature, names of its operands) each,
    with "didn't match" lines when the operands' types are shown."""
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    lines = []
    for signature, marks in overloads:
        lines.append(f" * ({signature})")
        if marks:
            shown = ", ".join(n if isinstance(a, Tensor if t == "Tensor" else _NUMBER)
                              else f"!{n}!" for a, t, n in zip(args, marks, got.split(", ")))
            lines.append("      didn't match because some of the arguments have invalid types: "
                         f"({shown})")
    return TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:\n" + "\n".join(lines) + "\n")


_XLOGY_FUNCTION = (("Tensor input, Tensor other, *, Tensor out = None", ()),
                   ("Number self, Tensor other, *, Tensor out = None", ()),
                   ("Tensor input, Number other, *, Tensor out = None", ()))
_XLOGY_METHOD = (("Tensor other", ("Tensor",)), ("Number other", ("Number",)))
_XLOGY_INPLACE_FUNCTION = (("Tensor input, Tensor other", ("Tensor", "Tensor")),
                           ("Tensor input, Number other", ("Tensor", "Number")))


@public("xlogy", method=False, out=True)
def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is nan)."""
    row = _xlogy_row(input, other)
    if row is None:
        raise _xlogy_type_error("xlogy", (input, other), _XLOGY_FUNCTION)
    if row is _xlogy_scalar_self:
        return row(other, input)
    return row(input, other)


@public("xlogy", function=False)
def _xlogy_method(self, other):
    row = _xlogy_row(self, other)
    if row is None:
        raise _xlogy_type_error("xlogy", (other,), _XLOGY_METHOD)
    return row(self, other)


@public("xlogy_", function=False)
def xlogy_(self, other):
    from .inplace import dispatch_inplace
    row = _xlogy_row(self, other)
    if row is None:
        raise _xlogy_type_error("xlogy_", (other,), _XLOGY_METHOD)
    if row is _xlogy_tensor:
        return dispatch_inplace(row.op, (self, other), ())
    return dispatch_inplace(row.op, (self,), (other,))


# torch's top-level in-place variants
@public("xlogy_", method=False)
def _xlogy_inplace_function(input, other):
    """xlogy, in place."""
    if _xlogy_row(input, other) is None or not isinstance(input, Tensor):
        raise _xlogy_type_error("xlogy_", (input, other), _XLOGY_INPLACE_FUNCTION)
    return xlogy_(input, other)


@public("i0_", method=False)
def i0_(input):
    """i0, in place."""
    return input.i0_()


@public("sinc_", method=False)
def sinc_(input):
    """sinc, in place."""
    return input.sinc_()


def _check_eps(eps, fn, position):
    if eps is not None and (isinstance(eps, (bool, np.bool_)) or not isinstance(
            eps, (int, float, np.integer, np.floating))):
        raise TypeError(f"{fn}(): argument 'eps' (position {position}) must be float, not "
                        f"{type(eps).__name__}")


@public("logit", method=False, out=True)
def logit(input, eps=None):
    """log(input / (1 - input)), input first clamped to [eps, 1 - eps] if eps is given."""
    _check_eps(eps, "logit", 2)
    return _logit_row(input, eps)


@public("logit", function=False)
def _logit_method(self, eps=None):
    _check_eps(eps, "logit", 1)
    return _logit_row(self, eps)


@public("logit_", function=False)
def _logit_method_(self, eps=None):
    from .inplace import dispatch_inplace
    _check_eps(eps, "logit_", 1)
    return dispatch_inplace(_logit_row.op, (self,), (eps,))


@public("logit_", method=False)
def logit_(input, eps=None):
    """logit, in place."""
    _check_eps(eps, "logit_", 2)
    return _logit_method_(input, eps)


# last: the Bessel functions' module reads this module's helpers
from . import special_bessel  # noqa: E402,F401
from . import special_polynomials  # noqa: E402,F401


def _register_kernel_names():
    """The kernels PyTorch's CPU build lacks for the reduced and limited dtypes (Note
    [Reduced and limited dtypes] in special_dtypes.py), for these rows: none of them for the
    float8 types or complex32, some not for bfloat16, igamma not for uint16/32/64 (which the
    other rows compute in float)."""
    from . import special_bessel, special_polynomials, special_dtypes
    table = {"lgamma": "lgamma_vml_cpu", "digamma": "digamma", "erfinv": "erfinv_vml_cpu",
             "i0": "i0_vml_cpu", "special_i1": "i1_cpu", "sinc": "sinc_cpu",
             "logit": "logit_cpu", "special_i0e": "i0e_cpu", "special_i1e": "i1e_cpu",
             "special_entr": "entr_cpu"}
    kernels = {row: ((name, "fgec"),) for row, name in table.items()}
    for row in ("xlogy.Tensor", "xlogy.Scalar_Self", "xlogy.Scalar_Other"):
        kernels[row] = (("xlogy_cpu", "fgec"),)
    for row in ("special_xlog1py", "special_xlog1py.self_scalar", "special_xlog1py.other_scalar"):
        kernels[row] = (("xlog1py_cpu", "fgec"),)
    kernels["igamma"] = (("igamma_cpu", "ufgec"),)
    kernels["igammac"] = (("igammac_cpu", "ufgec"),)
    polygamma = (lambda n: "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma", "fgec")
    kernels["polygamma"] = kernels["polygamma_"] = (polygamma,)
    kernels["mvlgamma"] = (("add_stub", "ufge"), ("arange_cpu", "c"))
    # float32 and float64 only
    float_only = ["special_erfcx", "special_ndtri", "special_log_ndtr", "special_zeta",
                  "special_zeta.self_scalar", "special_zeta.other_scalar"]
    float_only += [name for name in registry.OPS if name.startswith("special_") and (
        registry.OPS[name].forward.__module__ in (special_bessel.__name__,
                                                  special_polynomials.__name__))]
    for row in float_only:
        kernels[row] = ((row.split(".")[0][len("special_"):] + "_cpu", "fgecb"),)
    special_dtypes._KERNELS.update(kernels)
    # bfloat16 reaches these forwards unwidened: they round per step as PyTorch's kernels
    # (or widen to float32 themselves)
    special_dtypes._NATIVE_ROWS = special_dtypes._NATIVE_ROWS | {
        "special_entr", "special_xlog1py", "special_xlog1py.self_scalar",
        "special_xlog1py.other_scalar", "xlogy.Tensor", "xlogy.Scalar_Self",
        "xlogy.Scalar_Other", "logit", "mvlgamma"}


_register_kernel_names()


# ---- reparameterized gradients of Gamma and Dirichlet samples (ATen's Distributions.h) -----

_F32_08, _F32_09, _F32_11 = (float(np.float32(v)) for v in (0.8, 0.9, 1.1))
_GAMMA_GRAD_UV = np.array((
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07)))
_DIRICHLET_GRAD_C = np.array((
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06)))))


def _same_float_dtypes(kernel, first, *others):
    """These kernels take float32/float64 of one dtype (TensorIterator's common-dtype check,
    which comes first after its shape check)."""
    check_broadcast((first,) + others)
    for a in others:
        if a.dtype != first.dtype:
            raise RuntimeError(f"Found dtype {_dtype.FROM_NP[a.dtype].legacy} but expected "
                               f"{_dtype.FROM_NP[first.dtype].legacy}")
    if first.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_dtype.FROM_NP[first.dtype].legacy}'")


def _gamma_grad(alpha, x):
    """standard_gamma_grad_one in double: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha), by a
    Taylor series for small x, Rice's saddle point expansion for large alpha, else a
    bivariate rational approximation."""
    # Taylor series in x
    numer, denom = np.ones_like(x), alpha
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1 = series1 + numer / denom
        series2 = series2 + numer / (denom * denom)
    pow_x_alpha = np.power(x, alpha)
    pdf = np.power(x, alpha - 1) * np.exp(-x)
    cdf_alpha = (np.log(x) - _digamma_one(alpha)) * (pow_x_alpha * series1) - pow_x_alpha * series2
    taylor = -cdf_alpha / pdf
    taylor[np.isnan(taylor)] = 0
    # Rice saddle point, near the mode and away from it
    near = ((1 + 24 * alpha * (1 + 12 * alpha))
            * (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
               + alpha * (107 + 3600 * x)) / (1244160 * (alpha * alpha) * (alpha * alpha)))
    denom = np.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
    term23 = np.where(x < alpha, term2 - term3, term2 + term3)
    term1 = (np.log(x / alpha) * term23
             - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * (x * term1) / denom
    # rational approximation in u = log(x / alpha), v = log(alpha)
    u, v = np.log(x / alpha), np.log(alpha)
    c = [_GAMMA_GRAD_UV[0, i] + u * (_GAMMA_GRAD_UV[1, i] + u * _GAMMA_GRAD_UV[2, i])
         for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    mid = (_F32_09 * alpha <= x) & (x <= _F32_11 * alpha)
    return np.select([x < _F32_08, (alpha > 8) & mid, alpha > 8],
                     [taylor, near, far], np.exp(p / q))


def _standard_gamma_grad_forward(alpha, x):
    _same_float_dtypes("_standard_gamma_grad_cpu", alpha, x)
    dt = alpha.dtype
    alpha, x = np.broadcast_arrays(alpha.astype(_F64), x.astype(_F64))
    with np.errstate(all="ignore"):     # (at least 1-d: NumPy's 0-d arithmetic gives scalars)
        return _gamma_grad(np.atleast_1d(alpha), np.atleast_1d(x)).reshape(x.shape).astype(dt)


def _digamma_one(x):
    """digamma_one<scalar_t, double> of x, the distributions' digamma (not calc_digamma):
    +inf at 0 and at the negative integers (-inf among them), the reflection's -pi / tan(pi x)
    in x's precision for other negatives; the recurrence steps in x's precision, the sum in
    double, the result rounded to x's precision."""
    shape, x = x.shape, np.atleast_1d(x)     # NumPy's operations on 0-d arrays give scalars
    pi = x.dtype.type(np.pi)
    pole = (x == 0) | ((x < 0) & (x == np.floor(x)))
    reflect = (x < 0) & ~pole
    summand = np.zeros(x.shape)
    summand[reflect] = -pi / _libm(np.tan, pi * x[reflect])
    x = np.where(reflect, 1 - x, np.where(pole, 10, x)).astype(x.dtype)
    result = np.zeros(x.shape)
    small = x < 10
    while small.any():
        result = np.where(small, result - (1 / x), result)
        x = np.where(small, x + 1, x)
        small = x < 10
    z = 1.0 / (x * x).astype(_F64)
    poly = np.zeros_like(z)
    for c in _DIGAMMA_A:
        poly = poly * z + c
    y = np.where(x < np.float32(1e17), z * poly, 0)
    out = result + _libm(np.log, x) - (0.5 / x) - y
    out[x == 10] = result[x == 10] + _PSI_10
    out = out + summand
    out[pole] = np.inf
    return out.astype(x.dtype).reshape(shape)


def _beta_grad_alpha_small(x, alpha, beta):
    """d/dalpha of a Beta(alpha, beta) sample near 0 (Taylor series, in x's precision)."""
    factor = _digamma_one(alpha) - _digamma_one(alpha + beta) - _libm(np.log, x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * _libm(lambda a: np.power(a, -beta.astype(_F64)), 1 - x) * series
    result[np.isnan(result)] = 0
    return result


def _beta_grad_beta_small(x, alpha, beta):
    """d/dbeta of a Beta(alpha, beta) sample near 0 (Taylor series, in x's precision)."""
    factor = _digamma_one(alpha + beta) - _digamma_one(beta)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -_libm(lambda a: np.power(a, (1 - beta).astype(_F64)), 1 - x) * series
    result[np.isnan(result)] = 0
    return result


def _beta_grad_alpha_mid(x, alpha, beta):
    """d/dalpha of a Beta sample for large alpha and beta (Rice saddle point, in double)."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    at_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = np.power(beta * np.log(beta / (total * (1 - x)))
                     + alpha * np.log(alpha / (total * x)), -1.5)
    term1234 = term1 + term2 * (term3 + np.where(x < mean, term4, -term4))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), at_mean,
                    stirling * prefactor * term1234)


def _dirichlet_grad_forward(x, alpha, total):
    """dirichlet_grad_one: -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)."""
    _same_float_dtypes("_dirichlet_grad_cpu", x, alpha, total)
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    # at least 1-d: NumPy's arithmetic on 0-d arrays gives scalars
    x, alpha, total = np.broadcast_arrays(*np.atleast_1d(x, alpha, total))
    with np.errstate(all="ignore"):
        beta = total - alpha
        boundary = total * x * (1 - x)
        x_, alpha_, total_ = x.astype(_F64), alpha.astype(_F64), total.astype(_F64)
        beta_ = total_ - alpha_
        small_alpha = _beta_grad_alpha_small(x, alpha, beta)
        small_beta = -_beta_grad_beta_small(1 - x, beta, alpha)
        mid = _beta_grad_alpha_mid(x_, alpha_, beta_)
        # an analytic approximation with a rational correction
        u = np.log(x_)
        a = np.log(alpha_) - u
        b = np.log(total_) - a
        p, q = np.zeros_like(x_), np.zeros_like(x_)
        for i, pow_u in enumerate((1, u, u * u)):
            for j, pow_a in enumerate((1, a, a * a)):
                ua = pow_u * pow_a
                cp, cq = _DIRICHLET_GRAD_C[0, i, j], _DIRICHLET_GRAD_C[1, i, j]
                p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
                q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
        digammas = _digamma_one(total) - _digamma_one(alpha)
        approx = x_ * digammas / beta_
        out = np.select([(x <= 0.5) & (boundary < 2.5), (x >= 0.5) & (boundary < 0.75),
                         (alpha > 6) & (beta > 6)], [small_alpha, small_beta, mid], p / q * approx)
        return out.astype(x.dtype).reshape(shape)


_standard_gamma_grad = op(
    "_standard_gamma_grad", "StandardGammaGradBackward0", "self, output",
    _standard_gamma_grad_forward, method=False, out=False,
    self=not_implemented("_standard_gamma_grad"), output=None)
_dirichlet_grad = op(
    "_dirichlet_grad", NOT_IMPLEMENTED, "x, alpha, total", _dirichlet_grad_forward,
    method=False, out=False, x=no_derivative("aten::_dirichlet_grad"),
    alpha=no_derivative("aten::_dirichlet_grad"), total=no_derivative("aten::_dirichlet_grad"))


# Note [Argument parser checks]: PyTorch's declarations of the functions above
declare("i0_(Tensor input)", "sinc_(Tensor input)", method=False)
