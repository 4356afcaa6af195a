"""torch.special's orthogonal polynomials: chebyshev_polynomial_t/u/v/w, their shifted forms,
hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p.

Each takes x and a degree n (tensors or one Python number, broadcast) and has no derivative
in PyTorch. The kernels follow PyTorch's CPU code case for case: n is converted to int64
as C++ converts it (NaN, infinities and values out of range become INT64_MIN, so 0 comes
back), the closed forms at the ends of the interval, the trigonometric form PyTorch uses
for large n inside it, and otherwise the three-term recurrence in x's precision with its
fused multiply-add, stopped early once the value is NaN. The recurrence runs over the
elements still iterating, so its cost is the largest degree among them.

One known difference: for NaN x and n >= 2, PyTorch's U, W, shifted U and W, Laguerre and
Legendre kernels return an uninitialised value (whatever the register held); these return
NaN.
"""
import numpy as np

from .pointwise import _not_for
from .registry import PROMOTE_FLOAT, op
from .special import _blocked, _fma, _libm

_INT64_MIN = np.iinfo(np.int64).min


def _degree(n):
    """static_cast<int64_t>(n) on x86: truncation, INT64_MIN where the value has none."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
        return np.where(ok, np.trunc(np.where(ok, n, 0)), _INT64_MIN).astype(np.int64)


def _recurrence(n, p, q, step, state, guard=True):
    """q after the steps j = 1 .. n-1 of `step(j, p, q, state) -> next q` (n >= 2 for every
    element), stopping early where q is NaN when `guard`; state: per-element arrays the
    step reads, kept aligned with the elements still running."""
    out = q.copy()
    idx = np.arange(q.size)
    j = 1
    while idx.size:
        p, q = q, step(j, p, q, state)
        j += 1
        done = j >= n
        if guard:
            done |= np.isnan(q)
        if done.any():
            out[idx[done]] = q[done]
            keep = ~done
            idx, p, q, n = idx[keep], p[keep], q[keep], n[keep]
            state = {k: v[keep] for k, v in state.items()}
    return out


def _chebyshev_step(j, p, q, state):
    return _fma(state["twice"], q, -p)


def _chebyshev(x, n, kind, shifted):
    """The four Chebyshev kinds (t, u, v, w) of y = x, or y = 2x - 1 when shifted."""
    c = x.dtype.type
    y = x + x - c(1.0) if shifted else x
    nf = n.astype(x.dtype)            # the int64 degree where C++ mixes it with T
    n1, n21 = (n + 1).astype(x.dtype), (n + n + 1).astype(x.dtype)
    even = n % 2 == 0
    out = np.zeros_like(x)            # n < 0
    todo = n >= 0
    # the ends of the interval: y = 1 and y = -1 (x = 1 and x = 0 when shifted)
    upper = todo & ((x == c(1.0)) if shifted else (np.abs(x) == c(1.0)) & (x > 0))
    lower = todo & ((x == c(0.0)) if shifted else (np.abs(x) == c(1.0)) & ~(x > 0))
    ends = {"t": (1.0, np.where(even, 1.0, -1.0)),
            "u": (n1, np.where(even, n1, -n1)),
            "v": (1.0, np.where(even, n21, -n21)),
            "w": (n21, np.where(even, 1.0, -1.0))}[kind]
    out[upper] = np.broadcast_to(ends[0], x.shape)[upper]
    out[lower] = ends[1][lower]
    todo &= ~(upper | lower)
    # inside the interval, high degrees: PyTorch's trigonometric forms
    limit = 4 if (shifted and kind == "w") else 6 if (kind == "t" or shifted) else 8
    trig = todo & (n > limit) & (np.abs(y) < c(1.0))
    out[trig] = _trigonometric(y[trig], nf[trig], n1[trig], n21[trig], even[trig], x[trig],
                               kind, shifted)
    todo &= ~trig
    first = {"t": y, "u": y + y, "v": y + y - c(1.0), "w": y + y + c(1.0)}[kind]
    out[todo & (n == 0)] = 1
    out[todo & (n == 1)] = first[todo & (n == 1)]
    loop = todo & (n >= 2)
    nan = loop & np.isnan(x)
    out[nan] = np.nan
    loop &= ~nan
    out[loop] = _recurrence(n[loop], np.ones(loop.sum(), x.dtype), first[loop],
                            _chebyshev_step, {"twice": (y + y)[loop]})
    return out


def _acos(y):
    """acos as the C library rounds it (n acos(y) magnifies an ulp of difference): float64
    through the 80-bit long double where NumPy has one (NumPy's own float64 arccos is off
    by an ulp for one argument in ten), float32 as glibc's acosf (fdlibm's), step for step.
    |y| < 1 here."""
    if y.dtype == np.float64:
        return np.arccos(y.astype(np.longdouble)).astype(np.float64)
    f = np.float32
    out = np.empty_like(y)
    small = np.abs(y) < f(0.5)
    ys = y[small]
    tiny = np.abs(ys) <= f(2.0 ** -26)
    out[small] = np.where(tiny, _PIO2_HI + _PIO2_LO,
                          _PIO2_HI - (ys - (_PIO2_LO - ys * _acosf_ratio(ys * ys))))
    neg = y <= f(-0.5)
    z = (f(1) + y[neg]) * f(0.5)
    s = np.sqrt(z)
    out[neg] = _PI_F - f(2) * (s + (_acosf_ratio(z) * s - _PIO2_LO))
    pos = y >= f(0.5)
    z = (f(1) - y[pos]) * f(0.5)
    s = np.sqrt(z)
    high = (s.view(np.int32) & np.int32(-4096)).view(f)       # s with its low 12 bits cleared
    correction = (z - high * high) / (s + high)
    out[pos] = f(2) * (high + (_acosf_ratio(z) * s + correction))
    return out


# fdlibm's acosf: pi/2 as hi + lo, and the rational approximation of (asin(sqrt(z)) -
# sqrt(z)) / sqrt(z)^3
_PI_F, _PIO2_HI, _PIO2_LO = np.float32(3.1415925026), np.float32(1.5707962513), \
    np.float32(7.5497894159e-08)
_ACOSF_P = tuple(np.float32(c) for c in (3.4793309169e-05, 7.9153501429e-04, -4.0055535734e-02,
                                          2.0121252537e-01, -3.2556581497e-01, 1.6666667163e-01))
_ACOSF_Q = tuple(np.float32(c) for c in (7.7038154006e-02, -6.8828397989e-01, 2.0209457874e+00,
                                          -2.4033949375e+00, 1.0))


def _acosf_ratio(z):
    p = np.full_like(z, _ACOSF_P[0])
    for c in _ACOSF_P[1:]:
        p = c + z * p
    q = np.full_like(z, _ACOSF_Q[0])
    for c in _ACOSF_Q[1:]:
        q = c + z * q
    return z * p / q


def _trigonometric(y, nf, n1, n21, even, x, kind, shifted):
    """PyTorch's closed forms in theta = acos(y), with its fallbacks where the denominator's
    sine or cosine rounds to 0 or 1."""
    c = y.dtype.type
    theta = _acos(y)
    if kind == "t":
        return _libm(np.cos, nf * theta)
    if kind == "u":
        s = _libm(np.sin, theta)
        return np.where(s != 0, _libm(np.sin, n1 * theta) / s,
                        n1 * _libm(np.cos, n1 * theta) / y)
    half = theta / c(2.0)
    angle = (nf + c(0.5)) * theta
    if kind == "v":
        return np.where(_libm(np.sin, half) != c(1.0),
                        _libm(np.cos, angle) / _libm(np.cos, half), np.where(even, n21, -n21))
    # w: the value at the end where the cosine rounds to 1 (x = 0 when shifted)
    end = np.where(even, c(1.0), c(-1.0))
    if not shifted:
        end = np.where(x > 0, n21, end)
    return np.where(_libm(np.cos, half) != c(1.0), _libm(np.sin, angle) / _libm(np.sin, half),
                    end)


def _hermite(x, n, physicists):
    """H_n (physicists') or He_n (probabilists'); NaN above degree 512 (float64) or 128
    (float32), as PyTorch."""
    c = x.dtype.type
    out = np.zeros_like(x)
    first = x + x if physicists else x
    out[n == 0] = 1
    out[n == 1] = first[n == 1]
    limit = 512 if x.dtype == np.float64 else 128
    out[n > limit] = np.nan
    loop = (n >= 2) & (n <= limit)
    if physicists:
        def step(j, p, q, state):     # k = 2j
            return _fma(state["twice"], q, -(c(2 * j) * p))
    else:
        def step(j, p, q, state):
            return _fma(state["x"], q, -(c(j) * p))
    out[loop] = _recurrence(n[loop], np.ones(loop.sum(), x.dtype), first[loop], step,
                            {"twice": (x + x)[loop], "x": x[loop]}, guard=False)
    return out


def _laguerre_step(j, p, q, state):
    c = q.dtype.type
    return _fma(c(2 * j) + state["one_minus_x"], q, -(c(j) * p)) / c(j + 1)


def _legendre_step(j, p, q, state):
    c = q.dtype.type
    return _fma(c(2 * j + 1) * state["x"], q, -(c(j) * p)) / c(j + 1)


def _laguerre(x, n):
    c = x.dtype.type
    out = np.zeros_like(x)
    todo = n >= 0
    out[todo & (np.abs(x) == 0)] = 1
    todo &= np.abs(x) != 0
    one_minus_x = c(1.0) - x
    out[todo & (n == 0)] = 1
    out[todo & (n == 1)] = one_minus_x[todo & (n == 1)]
    loop = todo & (n >= 2)
    out[loop & np.isnan(x)] = np.nan
    loop &= ~np.isnan(x)
    out[loop] = _recurrence(n[loop], np.ones(loop.sum(), x.dtype), one_minus_x[loop],
                            _laguerre_step, {"one_minus_x": one_minus_x[loop]})
    return out


def _legendre(x, n):
    c = x.dtype.type
    out = np.zeros_like(x)
    todo = n >= 0
    end = todo & (np.abs(x) == c(1.0))
    out[end] = np.where((x > 0) | (n % 2 == 0), 1.0, -1.0)[end]
    todo &= ~end
    out[todo & (n == 0)] = 1
    out[todo & (n == 1)] = x[todo & (n == 1)]
    loop = todo & (n >= 2)
    out[loop & np.isnan(x)] = np.nan
    loop &= ~np.isnan(x)
    out[loop] = _recurrence(n[loop], np.ones(loop.sum(), x.dtype), x[loop], _legendre_step,
                            {"x": x[loop]})
    return out


def _forward(kernel, name):
    """A forward over (x, n) of the computed dtype: PyTorch's errors for the dtypes its
    kernel lacks, n converted to int64, the kernel over the broadcast pair."""
    def forward(x, n):
        dt = (x if type(x) is np.ndarray else n).dtype
        _not_for(np.empty(0, dt), "c", name)
        if dt == np.float16:
            raise NotImplementedError(f"\"{name}\" not implemented for 'Half'")
        x, n = np.broadcast_arrays(np.asarray(x, dt), np.asarray(n, dt))
        shape = x.shape
        with np.errstate(all="ignore"):
            out = _blocked(kernel, [x.ravel(), _degree(n.ravel().astype(np.float64))])
        return out.reshape(shape)
    return forward


_KERNELS = {
    "chebyshev_polynomial_t": lambda x, n: _chebyshev(x, n, "t", False),
    "chebyshev_polynomial_u": lambda x, n: _chebyshev(x, n, "u", False),
    "chebyshev_polynomial_v": lambda x, n: _chebyshev(x, n, "v", False),
    "chebyshev_polynomial_w": lambda x, n: _chebyshev(x, n, "w", False),
    "shifted_chebyshev_polynomial_t": lambda x, n: _chebyshev(x, n, "t", True),
    "shifted_chebyshev_polynomial_u": lambda x, n: _chebyshev(x, n, "u", True),
    "shifted_chebyshev_polynomial_v": lambda x, n: _chebyshev(x, n, "v", True),
    "shifted_chebyshev_polynomial_w": lambda x, n: _chebyshev(x, n, "w", True),
    "hermite_polynomial_h": lambda x, n: _hermite(x, n, True),
    "hermite_polynomial_he": lambda x, n: _hermite(x, n, False),
    "laguerre_polynomial_l": _laguerre,
    "legendre_polynomial_p": _legendre,
}

# name -> (Tensor-Tensor row, Number-x row, Tensor-Scalar row): PyTorch's three overloads,
# one kernel (a number is a wrapped scalar: it takes part in type promotion as a weak one).
# No derivatives: the rows record no node.
ROWS = {}
for _name, _kernel in _KERNELS.items():
    _f = _forward(_kernel, f"{_name}_cpu")
    ROWS[_name] = (
        op(f"special_{_name}", None, "x, n", _f, promote=PROMOTE_FLOAT, function=False,
           method=False, x=None, n=None),
        op(f"special_{_name}.x_scalar", None, "n, x", lambda n, x, _f=_f: _f(x, n),
           promote=PROMOTE_FLOAT, promote_with=("x",), function=False, method=False, n=None),
        op(f"special_{_name}.n_scalar", None, "x, n", _f, promote=PROMOTE_FLOAT,
           promote_with=("n",), function=False, method=False, x=None))
