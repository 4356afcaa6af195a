"""Op-database entries for the decompositions and solvers behind torch's top-level det,
slogdet, logdet, inverse, pinverse, cholesky*, qr, svd, lu*, triangular_solve, geqrf, orgqr,
ormqr and the low-rank SVD/PCA. Decompositions with a sign or phase freedom (svd, and qr of
complex input) are compared through quantities that do not depend on it: reconstructions,
projections U U^H, singular values."""
import numpy as np

import chainrule.linalg  # noqa: F401  (lib.linalg for chainrule until the package exports it)

from . import OpInfo, Sample, noncontiguous, randn


def _wc(rng, *shape):
    """A well-conditioned square (batch of) matrix."""
    return randn(rng, *shape) + 3 * np.eye(shape[-1])


def _spd(rng, *shape):
    a = randn(rng, *shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _complex(rng, *shape):
    return randn(rng, *shape) + 1j * randn(rng, *shape)


def _hpd(rng, n):
    a = _complex(rng, n, n)
    return a @ a.conj().T + n * np.eye(n)


def _chol(rng, *shape):
    return np.linalg.cholesky(_spd(rng, *shape))


def _square(rng):
    return [Sample(_wc(rng, 3, 3)), Sample(_wc(rng, 2, 3, 3), name="batched"),
            Sample(noncontiguous(_wc(rng, 3, 3)), name="non-contiguous"),
            Sample(randn(rng, 1, 1) + 2, name="1x1")]


def _rect(rng):
    return [Sample(randn(rng, 4, 3)), Sample(randn(rng, 3, 5), name="wide"),
            Sample(randn(rng, 2, 4, 3), name="batched"), Sample(randn(rng, 3, 3), name="square")]


def _svd_invariants(lib, a, **kw):
    U, S, V = lib.svd(a, **kw)
    k = S.shape[-1]
    return S, (U[..., :k] * S.unsqueeze(-2)) @ V[..., :k].mH, U[..., :k] @ U[..., :k].mH, \
        V[..., :k] @ V[..., :k].mH


def _abs2(t):
    """|t|^2, a real function of a complex output that is smooth where |t| has a kink: at
    an exact zero of the output (a sparse input gives them), |t|'s gradient is the sign of
    the rounding noise each LAPACK leaves there, which PyTorch does not promise."""
    return (t * t.conj()).real


def _qr_invariants(lib, a, **kw):
    Q, R = lib.qr(a, **kw)
    return Q, R, Q @ R


def _eig_invariants(lib, a):
    """linalg.eig's outputs through gauge-invariant real quantities, as PyTorch's OpInfo
    (eigenvectors are defined up to a phase each: |V|^2 is not)."""
    L, V = lib.linalg.eig(a)
    return L.real, L.imag, _abs2(V)


def _hermitian(a):
    """gradcheck_wrapper_hermitian_input: the factorization reads one triangle, so the input
    is made Hermitian where gradcheck's perturbations see it."""
    return a + a.mH


def _lstsq(lib, a, b, **kw):
    r = lib.linalg.lstsq(a, b, **kw)
    return (r.solution, r.residuals) if kw.get("driver") in ("gels", "gelsd", "gelss") \
        else r.solution


def _lowrank(fn):
    def call(lib, a):
        lib.manual_seed(0)
        U, S, V = fn(lib, a)
        return S, (U * S.unsqueeze(-2)) @ V.mT
    return call


OPS_DB = [
    OpInfo("det", lambda lib, a: lib.det(a), _square, ops=("linalg_det",)),
    OpInfo("det.method", lambda lib, a: a.det(),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 2, 2), name="batched")],
           ops=("linalg_det",)),
    OpInfo("det.complex", lambda lib, a: _abs2(lib.det(a)),
           lambda rng: [Sample(_complex(rng, 3, 3))], ops=("linalg_det", "mul", "conj"), gradcheck=False),
    OpInfo("slogdet", lambda lib, a: lib.slogdet(a), _square, ops=("linalg_slogdet",)),
    OpInfo("slogdet.complex", lambda lib, a: tuple(_abs2(t) for t in lib.slogdet(a)),
           lambda rng: [Sample(_complex(rng, 3, 3))], ops=("linalg_slogdet", "mul", "conj"),
           gradcheck=False),
    OpInfo("logdet", lambda lib, a: lib.logdet(a),
           lambda rng: [Sample(_spd(rng, 3, 3)), Sample(_spd(rng, 2, 3, 3), name="batched")],
           ops=("linalg_slogdet", "where.self", "eq")),
    OpInfo("logdet.negative", lambda lib, a: lib.logdet(a),
           lambda rng: [Sample(-_spd(rng, 3, 3), name="negative determinant: nan")],
           ops=("linalg_slogdet", "where.self", "eq"), gradcheck=False),
    OpInfo("inverse", lambda lib, a: lib.inverse(a), _square, ops=("linalg_inv_ex",)),
    OpInfo("inverse.complex", lambda lib, a: _abs2(a.inverse()),
           lambda rng: [Sample(_complex(rng, 3, 3))], ops=("linalg_inv_ex", "mul", "conj"),
           gradcheck=False),
    OpInfo("pinverse", lambda lib, a, **kw: lib.pinverse(a, **kw),
           lambda rng: [*_rect(rng), Sample(randn(rng, 4, 3), rcond=0.1, name="rcond")],
           ops=("linalg_pinv",)),
    # as PyTorch's own tests: the factors read one triangle, so the inputs are made
    # Hermitian / triangular inside the function, where gradcheck's perturbations see it
    OpInfo("cholesky", lambda lib, a, **kw: lib.cholesky(a @ a.mT + 3 * lib.eye(a.shape[-1],
                                                                               dtype=a.dtype), **kw),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), upper=True)],
           ops=("cholesky", "mm", "bmm", "transpose.int", "add", "mul", "view", "expand",
                "_unsafe_view")),
    OpInfo("linalg.cholesky", lambda lib, a, **kw: lib.linalg.cholesky(
        a @ a.mT + 3 * lib.eye(a.shape[-1], dtype=a.dtype), **kw),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), upper=True)],
           ops=("linalg_cholesky_ex", "mm", "bmm", "transpose.int", "add", "mul", "view",
                "expand", "_unsafe_view")),
    OpInfo("cholesky.complex", lambda lib, a: _abs2(a.cholesky()),
           lambda rng: [Sample(_hpd(rng, 3))], ops=("cholesky", "mul", "conj"), gradcheck=False),
    OpInfo("cholesky_solve", lambda lib, b, l, upper=False: lib.cholesky_solve(
        b, l.triu() if upper else l.tril(), upper=upper),
           lambda rng: [Sample(randn(rng, 3, 2), _chol(rng, 3, 3)),
                        Sample(randn(rng, 2, 3, 1), _chol(rng, 3, 3), name="broadcast"),
                        Sample(randn(rng, 3, 2), _chol(rng, 3, 3).T.copy(), upper=True)],
           ops=("cholesky_solve", "tril", "triu")),
    OpInfo("cholesky_inverse", lambda lib, l, upper=False: lib.cholesky_inverse(
        l.triu() if upper else l.tril(), upper=upper),
           lambda rng: [Sample(_chol(rng, 3, 3)), Sample(_chol(rng, 3, 3).T.copy(), upper=True),
                        Sample(_chol(rng, 2, 3, 3), name="batched")],
           ops=("cholesky_inverse", "tril", "triu")),
    OpInfo("qr", _qr_invariants,
           lambda rng: [*_rect(rng), Sample(randn(rng, 3, 5), some=False, name="complete wide")],
           ops=("linalg_qr", "mm", "bmm", "view", "_unsafe_view", "expand", "clone")),
    OpInfo("svd", _svd_invariants,
           lambda rng: [*_rect(rng), Sample(randn(rng, 4, 3), some=False, name="some=False")],
           ops=("_linalg_svd", "transpose.int", "mul", "mm", "bmm", "slice.Tensor", "view",
                "_unsafe_view", "expand", "clone", "t"), check_node=False),
    OpInfo("svd.values", lambda lib, a: lib.svd(a, compute_uv=False)[1], _rect,
           ops=("_linalg_svd",)),
    OpInfo("svd.complex", lambda lib, a: tuple(_abs2(t) for t in _svd_invariants(lib, a)),
           lambda rng: [Sample(_complex(rng, 4, 3))], ops=("_linalg_svd",), gradcheck=False,
           check_node=False),
    OpInfo("triangular_solve", lambda lib, b, a, upper=True, **kw: lib.triangular_solve(
        b, a.triu() if upper else a.tril(), upper=upper, **kw),
           lambda rng: [Sample(randn(rng, 3, 2), _wc(rng, 3, 3)),
                        Sample(randn(rng, 3, 2), _wc(rng, 3, 3), upper=False, transpose=True),
                        Sample(randn(rng, 2, 3, 2), _wc(rng, 3, 3), unitriangular=True,
                               name="broadcast, unitriangular")],
           ops=("triangular_solve", "tril", "triu")),
    OpInfo("solve_triangular", lambda lib, a, b, upper, **kw: lib.linalg.solve_triangular(
        a.triu() if upper else a.tril(), b, upper=upper, **kw),
           lambda rng: [Sample(_wc(rng, 3, 3), randn(rng, 3, 2), upper=True),
                        Sample(_wc(rng, 3, 3), randn(rng, 2, 3), upper=False, left=False),
                        Sample(_wc(rng, 3, 3), randn(rng, 3, 2), upper=False, unitriangular=True)],
           ops=("linalg_solve_triangular", "tril", "triu")),
    OpInfo("lu", lambda lib, a: lib.lu(a), _rect, ops=("linalg_lu_factor_ex",)),
    OpInfo("lu.method", lambda lib, a: a.lu(get_infos=True),
           lambda rng: [Sample(_wc(rng, 3, 3))], ops=("linalg_lu_factor_ex",)),
    OpInfo("lu_unpack", lambda lib, a: lib.lu_unpack(*lib.linalg.lu_factor(a)), _rect,
           ops=("lu_unpack", "linalg_lu_factor_ex")),
    OpInfo("lu_solve", lambda lib, b, a: lib.lu_solve(b, *lib.linalg.lu_factor(a)),
           lambda rng: [Sample(randn(rng, 3, 2), _wc(rng, 3, 3)),
                        Sample(randn(rng, 2, 3, 1), _wc(rng, 2, 3, 3), name="batched")],
           ops=("linalg_lu_solve", "linalg_lu_factor_ex")),
    OpInfo("linalg.lu_solve", lambda lib, b, a, **kw: lib.linalg.lu_solve(
        *lib.linalg.lu_factor(a), b, **kw),
           lambda rng: [Sample(randn(rng, 3, 2), _wc(rng, 3, 3), adjoint=True),
                        Sample(randn(rng, 2, 3), _wc(rng, 3, 3), left=False),
                        Sample(randn(rng, 2, 3), _wc(rng, 3, 3), left=False, adjoint=True)],
           ops=("linalg_lu_solve", "linalg_lu_factor_ex")),
    OpInfo("geqrf", lambda lib, a: tuple(t.detach() for t in lib.geqrf(a)), _rect,
           ops=("geqrf",), gradcheck=False),
    OpInfo("orgqr", lambda lib, a, tau: lib.orgqr(a, tau),
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 3) * 0.5),
                        Sample(randn(rng, 2, 3, 3), randn(rng, 2, 2) * 0.5, name="batched")],
           ops=("linalg_householder_product",), gradgradcheck=False),
    OpInfo("ormqr", lambda lib, a, tau, c, **kw: lib.ormqr(a, tau, c, **kw),
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 3) * 0.5, randn(rng, 4, 2)),
                        Sample(randn(rng, 4, 3), randn(rng, 3) * 0.5, randn(rng, 2, 4),
                               left=False, transpose=True)],
           ops=("ormqr",), gradgradcheck=False),
    OpInfo("linalg.solve", lambda lib, a, b, **kw: lib.linalg.solve(a, b, **kw),
           lambda rng: [Sample(_wc(rng, 3, 3), randn(rng, 3, 2)),
                        Sample(_wc(rng, 2, 3, 3), randn(rng, 3), name="vector rhs, broadcast"),
                        Sample(_wc(rng, 2, 3, 3), randn(rng, 2, 3), name="batched vector rhs"),
                        Sample(_wc(rng, 3, 3), randn(rng, 2, 3, 2), name="broadcast A"),
                        Sample(_wc(rng, 2, 3, 3), randn(rng, 2, 4, 3), left=False),
                        Sample(noncontiguous(_wc(rng, 3, 3)), randn(rng, 3, 1),
                               name="non-contiguous")],
           ops=("_linalg_solve_ex",)),
    OpInfo("linalg.solve_ex", lambda lib, a, b: lib.linalg.solve_ex(a, b),
           lambda rng: [Sample(_wc(rng, 2, 3, 3), randn(rng, 2, 3, 2))],
           ops=("_linalg_solve_ex",)),
    OpInfo("linalg.solve.complex", lambda lib, a, b: _abs2(lib.linalg.solve(a, b)),
           lambda rng: [Sample(_wc(rng, 3, 3) + 1j * randn(rng, 3, 3), _complex(rng, 3, 2))],
           ops=("_linalg_solve_ex",), gradcheck=False),
    OpInfo("linalg.eig", _eig_invariants,
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), name="batched"),
                        Sample(np.diag([1., 2, 3]) + 0.1 * randn(rng, 3, 3), name="real")],
           ops=("linalg_eig",), check_node=False, atol=1e-4),
    OpInfo("linalg.eig.complex", _eig_invariants, lambda rng: [Sample(_complex(rng, 3, 3))],
           ops=("linalg_eig",), check_node=False, gradcheck=False),
    OpInfo("linalg.eigvals", lambda lib, a: (lambda w: (w.real, w.imag))(lib.linalg.eigvals(a)),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), name="batched")],
           ops=("linalg_eig",), check_node=False, atol=1e-4),
    OpInfo("linalg.eigh", lambda lib, a, **kw: (lambda r: (r[0], _abs2(r[1])))(
        lib.linalg.eigh(_hermitian(a), **kw)),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), UPLO="U")],
           ops=("_linalg_eigh", "add", "transpose.int"), check_node=False),
    OpInfo("linalg.eigh.complex", lambda lib, a: (lambda r: (r[0], _abs2(r[1])))(
        lib.linalg.eigh(a)), lambda rng: [Sample(_hpd(rng, 3))],
           ops=("_linalg_eigh",), check_node=False, gradcheck=False),
    OpInfo("linalg.eigvalsh", lambda lib, a, **kw: lib.linalg.eigvalsh(_hermitian(a), **kw),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3), UPLO="U")],
           ops=("_linalg_eigh", "add", "transpose.int")),
    OpInfo("linalg.lstsq", _lstsq,
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 4, 2)),
                        Sample(randn(rng, 4, 3), randn(rng, 4, 2), driver="gelsd",
                               name="gelsd: residuals"),
                        Sample(randn(rng, 2, 4, 3), randn(rng, 2, 4), driver="gels",
                               name="gels, vector rhs"),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 2), driver="gelss", name="wide")],
           ops=("linalg_lstsq",)),
    OpInfo("linalg.lstsq.complex", lambda lib, a, b: _abs2(lib.linalg.lstsq(a, b).solution),
           lambda rng: [Sample(_complex(rng, 4, 3), _complex(rng, 4, 2))],
           ops=("linalg_lstsq",), gradcheck=False),
    OpInfo("linalg.lu", lambda lib, a: tuple(lib.linalg.lu(a)),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 4, 3), name="tall"),
                        Sample(randn(rng, 3, 5), name="wide")],
           ops=("linalg_lu",)),
    # no derivative in PyTorch (its NotImplemented node is tested in test_linalg_complete.py)
    OpInfo("linalg.ldl_factor", lambda lib, a, **kw: tuple(lib.linalg.ldl_factor_ex(a, **kw)),
           lambda rng: [Sample(randn(rng, 4, 4), grad=()),
                        Sample(randn(rng, 3, 5, 5), grad=(), name="batched"),
                        Sample(_complex(rng, 4, 4), grad=(), hermitian=True, name="hermitian"),
                        Sample(_complex(rng, 4, 4), grad=(), name="complex symmetric")],
           ops=("linalg_ldl_factor_ex",), gradcheck=False),
    OpInfo("linalg.ldl_solve", lambda lib, a, b, **kw: lib.linalg.ldl_solve(
        *lib.linalg.ldl_factor(a, **kw), b, **kw),
           lambda rng: [Sample(randn(rng, 4, 4), randn(rng, 4, 2), grad=()),
                        Sample(randn(rng, 3, 5, 5), randn(rng, 5, 1), grad=(), name="broadcast"),
                        Sample(_complex(rng, 4, 4), _complex(rng, 4, 2), grad=(),
                               hermitian=True)],
           ops=("linalg_ldl_solve", "linalg_ldl_factor_ex"), gradcheck=False),
    OpInfo("svd_lowrank", _lowrank(lambda lib, a: lib.svd_lowrank(a, q=3)),
           lambda rng: [Sample(randn(rng, 6, 4)), Sample(randn(rng, 4, 6), name="wide")],
           ops=("_linalg_svd", "linalg_qr", "mm"), check_node=False),
    OpInfo("pca_lowrank", _lowrank(lambda lib, a: lib.pca_lowrank(a, q=2)),
           lambda rng: [Sample(randn(rng, 6, 4))],
           ops=("_linalg_svd", "linalg_qr", "mm"), check_node=False),
]
