"""torch.special's Bessel and Airy functions: airy_ai, bessel_j0/j1/y0/y1,
modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1, spherical_bessel_j0.

PyTorch has no derivatives for these: their results never require grad. Its CPU kernels are
Cephes' rational and Chebyshev approximations, run in the input's precision (float32 or
float64; float16 and bfloat16 are refused), with its compiler's fused multiply-adds in the
polynomial and Chebyshev recurrences. The kernels here take the same steps in the same
precision, with the C library's functions computed as in ops/special.py (`_libm`), so they
agree with PyTorch's to an ulp or two. Coefficients: Cephes (S. L. Moshier), as PyTorch
uses them.
"""
import numpy as np

from .pointwise import _not_for
from .registry import FLOAT, op
from .special import _I0_A, _I0_B, _I1_A, _I1_B, _blocked, _chbevl, _fma, _libm, _polevl

# ---- Cephes' coefficients -------------------------------------------------------------------

_AIRY_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
            1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
            1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AIRY_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
            1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
            1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AIRY_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01,
             -6.93158036036933542233e-01, -2.79779981545119124951e-01,
             -4.91900132609500318020e-02, -4.06265923594885404393e-03,
             -1.59276496239262096340e-04, -2.77649108155232920844e-06,
             -1.67787698489114633780e-08)
_AIRY_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
             9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
             4.40291641615211203805e-03, 7.54720348287414296618e-05,
             4.51850092970580378464e-07)
_AIRY_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
             9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
             5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
             8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AIRY_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
             5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
             4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
             4.91834570062930015649e-09)

# j0 and y0 share the asymptotic P and Q; so do j1 and y1
_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
          5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
          9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
          5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
          1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
          -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
          -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
          7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
          2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
          9.70862251047306323952e+15)
_J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
          1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
          3.18121955943204943306e+16, 1.71086294081043136091e+18)
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
          -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
          4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
          8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
          2.50596256172653059228e+17)
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
          5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
          1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
          5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
          9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
          3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
          2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
          9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
          3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
          3.68295732863852883286e+15)
_J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
          2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
          8.95222336184627338078e+16, 5.32278620332680085395e+18)
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
          -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
          1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
          6.87141087355300489866e+16, 3.97270608116560655612e+18)
_J0_ZEROS_SQ = (5.78318596294678452118e+00, 3.04712623436620863991e+01)   # squares of zeros
_J1_ZEROS_SQ = (1.46819706421238932572e+01, 4.92184563216946036703e+01)
_PIO4, _THPIO4 = 0.785398163397448309615660845819875721, 2.356194490192344928846982537459627163
_SQ2OPI = 0.797884560802865355879892119868763737       # sqrt(2 / pi)
_TWOOPI = 0.636619772367581343075535053490057448       # 2 / pi

_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)


# ---- Airy Ai --------------------------------------------------------------------------------

def _airy_ai(x):
    """Cephes' airy (Ai only): the asymptotic forms below -2.09 and from 2.09 (0 beyond
    103.892), the Maclaurin series between; nan at +-inf."""
    c = x.dtype.type
    out = np.full_like(x, np.nan)
    out[(x > c(103.892)) & (x < np.inf)] = 0
    neg = x < c(-2.09)
    xn = x[neg]
    root = _libm(np.sqrt, -xn)
    zeta = c(-2.0) * xn * root / c(3.0)
    z = c(1.0) / zeta
    z2 = z * z
    afn, afd = _polevl(_AIRY_AFN, z2), _polevl(_AIRY_AFD, z2)
    agn, agd = _polevl(_AIRY_AGN, z2), _polevl(_AIRY_AGD, z2)
    t = zeta + c(0.25) * c(np.pi)
    out[neg] = (c(5.64189583547756286948e-01) / _libm(np.sqrt, root)
                * _fma(_libm(np.sin, t), c(1.0) + z2 * afn / afd,
                       -(_libm(np.cos, t) * (z * agn / agd))))
    big = (x >= c(2.09)) & (x <= c(103.892))
    xb = x[big]
    zeta = c(2.0) * xb * _libm(np.sqrt, xb) / c(3.0)
    inv = c(1.0) / zeta
    an, ad = _polevl(_AIRY_AN, inv), _polevl(_AIRY_AD, inv)
    out[big] = (c(5.64189583547756286948e-01) * (an / ad)
                / (c(2.0) * _libm(np.sqrt, _libm(np.sqrt, xb)) * _libm(np.exp, zeta)))
    # |x| < 2.09 (and nan): the power series f - g, summed until a term is below epsilon
    mid = ~neg & ~(x >= c(2.09)) & ~(x > c(103.892)) & ~np.isinf(x)
    out[mid] = _airy_series(x[mid])
    return out


def _airy_series(x):
    """Ai(x) = c1 f(x) - c2 g(x), f and g summed until a term of f is below epsilon."""
    c = x.dtype.type
    eps = np.finfo(x.dtype).eps
    f, g = np.ones_like(x), x.copy()
    m, n, k = np.ones_like(x), x.copy(), np.ones_like(x)
    z = x * x * x
    live = np.ones(x.shape, bool)
    while live.any():
        mm, nn, kk = m[live], n[live], k[live]
        zz = z[live]
        mm = mm * zz
        kk = kk + c(1.0)
        mm = mm / kk
        nn = nn * zz
        kk = kk + c(1.0)
        nn = nn / kk
        mm = mm / kk
        f[live] += mm
        kk = kk + c(1.0)
        nn = nn / kk
        g[live] += nn
        m[live], n[live], k[live] = mm, nn, kk
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.abs(mm / f[live])
        live[live] = t > eps
    return _fma(np.full_like(f, c(0.355028053887817239260)), f,
                -(c(0.258819403792806798405) * g))


# ---- Bessel functions of the first and second kind ------------------------------------------

def _asymptotic(x, pp, pq, qp, qq, phase, first_kind, inverse_square):
    """Hankel's asymptotic form for x > 5, as Cephes writes it: (P cos(x - phase) -
    5/x Q sin(x - phase)) sqrt(2/(pi x)) for J, with sin and cos exchanged for Y."""
    c = x.dtype.type
    if inverse_square:            # j0 and y0 write 25 / x^2, j1 and y1 5/x * (5/x)
        w = c(25.0) / (x * x)
    else:
        w = c(5.0) / x * (c(5.0) / x)
    p = _polevl(pp, w) / _polevl(pq, w)
    q = c(5.0) / x * (_polevl(qp, w) / _polevl(qq, w))
    shifted = x - c(phase)
    s, co = _libm(np.sin, shifted), _libm(np.cos, shifted)
    main = _fma(p, co, -(q * s)) if first_kind else _fma(p, s, q * co)
    return main * c(_SQ2OPI) / _libm(np.sqrt, x)


def _j0(x):
    c = x.dtype.type
    x = np.abs(x)
    out = np.empty_like(x)
    small = x <= c(5.0)
    xs = x[small]
    x2 = xs * xs
    value = (x2 - c(_J0_ZEROS_SQ[0])) * (x2 - c(_J0_ZEROS_SQ[1])) * _polevl(_J0_RP, x2) \
        / _polevl(_J0_RQ, x2)
    out[small] = np.where(xs < c(0.00001), c(1.0) - xs * xs / c(4.0), value)
    out[~small] = _asymptotic(x[~small], _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PIO4, True, True)
    return out


def _j1(x):
    c = x.dtype.type
    ax = np.abs(x)
    out = np.empty_like(x)
    small = ax <= c(5.0)
    xs = ax[small]
    x2 = xs * xs
    out[small] = _polevl(_J1_RP, x2) / _polevl(_J1_RQ, x2) * xs * (x2 - c(_J1_ZEROS_SQ[0])) \
        * (x2 - c(_J1_ZEROS_SQ[1]))
    out[~small] = _asymptotic(ax[~small], _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _THPIO4, True, False)
    return np.where(x < 0, -out, out)


def _y0(x):
    c = x.dtype.type
    out = np.empty_like(x)
    small = x <= c(5.0)
    xs = x[small]
    x2 = xs * xs
    value = _fma(c(_TWOOPI) * _libm(np.log, xs), _j0(xs),
                 _polevl(_Y0_YP, x2) / _polevl(_Y0_YQ, x2))
    out[small] = np.where(xs == 0, -np.inf, np.where(xs < 0, np.nan, value))
    out[~small] = _asymptotic(x[~small], _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PIO4, False, True)
    return out


def _y1(x):
    c = x.dtype.type
    out = np.empty_like(x)
    small = x <= c(5.0)
    xs = x[small]
    x2 = xs * xs
    value = _fma(xs, _polevl(_Y1_YP, x2) / _polevl(_Y1_YQ, x2),
                 c(_TWOOPI) * _fma(_j1(xs), _libm(np.log, xs), -(c(1.0) / xs)))
    out[small] = np.where(xs == 0, -np.inf, np.where(xs < 0, np.nan, value))
    out[~small] = _asymptotic(x[~small], _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _THPIO4, False, False)
    return out


# ---- modified Bessel functions ------------------------------------------------------------

def _modified_i0(x):
    c = x.dtype.type
    a_tab, b_tab = _I0_A, _I0_B      # special.i0's tables (full length in float32 too)
    ax = np.abs(x)
    out = np.empty_like(x)
    small = ax <= c(8.0)
    xs, xb = ax[small], ax[~small]
    out[small] = _libm(np.exp, xs) * _chbevl(xs / c(2.0) - c(2.0), a_tab)
    out[~small] = _libm(np.exp, xb) * _chbevl(c(32.0) / xb - c(2.0), b_tab) / _libm(np.sqrt, xb)
    return out


def _modified_i1(x):
    c = x.dtype.type
    a_tab, b_tab = _I1_A, _I1_B      # special.i1's (full length in float32 too)
    ax = np.abs(x)
    out = np.empty_like(x)
    small = ax <= c(8.0)
    xs, xb = ax[small], ax[~small]
    out[small] = _chbevl(xs / c(2.0) - c(2.0), a_tab) * xs * _libm(np.exp, xs)
    out[~small] = _libm(np.exp, xb) * _chbevl(c(32.0) / xb - c(2.0), b_tab) / _libm(np.sqrt, xb)
    return np.where(x < 0, -out, out)


def _modified_k(x, order, scaled):
    """K0 or K1 (times exp(x) when scaled): Cephes' Chebyshev series in x^2 - 2 on (0, 2]
    with the I function's logarithmic term, in 8/x - 2 beyond."""
    c = x.dtype.type
    a_tab, b_tab = (_K0_A, _K0_B) if order == 0 else (_K1_A, _K1_B)
    out = np.full_like(x, np.nan)
    out[x == 0] = np.inf
    small = (x > 0) & (x <= c(2.0))
    xs = x[small]
    series = _chbevl(_fma(xs, xs, np.full_like(xs, c(-2.0))), a_tab)
    if order == 0 and not scaled and x.dtype == np.float32:
        # C++'s double literal: log(0.5 * x) and the difference in double, then rounded
        value = _fma(-np.log(0.5 * xs.astype(np.float64)), _modified_i0(xs).astype(np.float64),
                     series.astype(np.float64)).astype(x.dtype)
    elif order == 0:
        value = _fma(-_libm(np.log, c(0.5) * xs), _modified_i0(xs), series)
    else:
        value = _fma(_libm(np.log, c(0.5) * xs), _modified_i1(xs), series / xs)
    out[small] = value * _libm(np.exp, xs) if scaled else value
    big = x > c(2.0)
    xb = x[big]
    series = _chbevl(c(8.0) / xb - c(2.0), b_tab)
    out[big] = series / _libm(np.sqrt, xb) if scaled else \
        _libm(np.exp, -xb) * series / _libm(np.sqrt, xb)
    return out


# ---- spherical Bessel j0 --------------------------------------------------------------------

def _spherical_j0(x):
    """sin(x) / x, by its Maclaurin polynomial for |x| < 1/2 (coefficients +-1/(2k+1)!
    rounded as C++ folds T(1) / T((2k+1)!)), 0 at +-inf."""
    c = x.dtype.type
    out = np.zeros_like(x)
    small = np.abs(x) < c(0.5)
    xs = x[small]
    x2 = xs * xs
    poly = np.full_like(xs, c(1.0) / c(6227020800.0))
    for k, sign in ((39916800.0, -1.0), (362880.0, 1.0), (5040.0, -1.0), (120.0, 1.0),
                    (6.0, -1.0)):
        poly = _fma(x2, poly, np.full_like(xs, c(sign) / c(k)))
    out[small] = _fma(x2, poly, np.full_like(xs, c(1.0)))
    rest = ~small & ~np.isinf(x)
    out[rest] = _libm(np.sin, x[rest]) / x[rest]
    return out


# ---- forwards and rows ----------------------------------------------------------------------

def _forward(kernel, name):
    """A forward for a float32/float64 kernel: PyTorch's error for the dtypes its kernel
    lacks (bfloat16 and the other reduced types are refused by special_dtypes' table)."""
    def forward(a):
        _not_for(a, "c", name)
        if a.dtype == np.float16:
            raise NotImplementedError(f"\"{name}\" not implemented for 'Half'")
        with np.errstate(all="ignore"):
            return _blocked(kernel, [np.atleast_1d(a)]).reshape(a.shape)
    return forward


def _row(name, kernel, argument="self"):
    # no derivative in PyTorch: a row without formulas records no node. `argument`: the
    # name PyTorch's argument errors give the input ('self' reads as 'input')
    return op(f"special_{name}", None, argument, _forward(kernel, f"{name}_cpu"),
              promote=FLOAT, function=False, method=False, **{argument: None})


special_airy_ai = _row("airy_ai", _airy_ai, "x")
special_bessel_j0 = _row("bessel_j0", _j0)
special_bessel_j1 = _row("bessel_j1", _j1)
special_bessel_y0 = _row("bessel_y0", _y0)
special_bessel_y1 = _row("bessel_y1", _y1)
special_modified_bessel_i0 = _row("modified_bessel_i0", _modified_i0)
special_modified_bessel_i1 = _row("modified_bessel_i1", _modified_i1)
special_modified_bessel_k0 = _row("modified_bessel_k0", lambda x: _modified_k(x, 0, False))
special_modified_bessel_k1 = _row("modified_bessel_k1", lambda x: _modified_k(x, 1, False))
special_scaled_modified_bessel_k0 = _row("scaled_modified_bessel_k0",
                                         lambda x: _modified_k(x, 0, True), "x")
special_scaled_modified_bessel_k1 = _row("scaled_modified_bessel_k1",
                                         lambda x: _modified_k(x, 1, True), "x")
special_spherical_bessel_j0 = _row("spherical_bessel_j0", _spherical_j0, "x")
