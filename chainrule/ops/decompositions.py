"""Decompositions and solvers on NumPy's LAPACK: the rows behind torch.linalg (solve, eig,
eigh, lstsq, lu, ldl_factor, ...) and torch's top-level det, slogdet, inverse, cholesky, qr,
svd, lu, triangular_solve, ... (torch.det(x).grad_fn is LinalgDetBackward0), and the
composites PyTorch builds on them (matrix_norm, cond, matrix_rank, tensorinv, tensorsolve).

Every row works on batches (..., m, n). NumPy's gufuncs do most of the work; LU and LDL
(which NumPy does not expose) are LAPACK's unblocked algorithms looped over columns and
vectorized over the batch, picking pivots as getf2 and sytf2 do, so pivots and
LinAlgError's "diagonal element" index agree with PyTorch's. Derivatives follow PyTorch's
FunctionsManual (linalg_solve_backward, linalg_eig_backward, linalg_lstsq_backward, ...).
"""
import numpy as np

from .._dims import sizes_str, wrap_dim
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from .binding import Overloads, Signature, _not_tensor, declare
from .linalg import _broadcast_batch, _copy_out, _matmul_impl as _mm
from .registry import (EXACT, FUNCTIONS, NOT_IMPLEMENTED, no_derivative, not_implemented,
                       op, out_cast, public)
from .shape import _warn_once

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "pinv", "cholesky_ex", "qr",
           "svd", "svdvals", "lu_factor_ex", "lu_unpack", "lu_solve", "solve_triangular",
           "householder_product"]


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a decomposition or solve failed on ill-conditioned input."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _name(a):
    return FROM_NP[a.dtype].legacy


def _check_float(name, a):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(a)}")


def _no_half(a, kernel, empty_ok=False):
    """PyTorch's CPU LAPACK kernels take float, double and complex only (empty_ok: the op
    returns before its kernel when the input is empty)."""
    if empty_ok and a.size == 0:
        return
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(a)}'")


def _no_low_precision(name, a):
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V":
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {_name(a)}")


def _check_square(name, a, arg="A"):
    """name None: the message has no prefix (triangular_solve's)."""
    prefix = f"{name}: " if name else ""
    if a.ndim < 2:
        raise RuntimeError(f"{prefix}The input tensor {arg} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{prefix}{arg} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _batch_prefix(info, batched):
    """PyTorch's "(Batch element i): " for the first failing element of a batch."""
    flat = info.reshape(-1)
    i = int(np.flatnonzero(flat)[0])
    return (f"(Batch element {i}): " if batched else ""), int(flat[i])


def _check_errors(info, api, batched, kind):
    """at::_linalg_check_errors: raise LinAlgError for the first nonzero info."""
    if not np.any(info):
        return
    prefix, code = _batch_prefix(info, batched)
    if kind == "lu":
        raise LinAlgError(f"{api}: {prefix}The diagonal element {code} is zero, the inversion "
                          "could not be completed because the input matrix is singular.")
    if kind == "cholesky":
        raise LinAlgError(f"{api}: {prefix}The factorization could not be completed because the "
                          f"input is not positive-definite (the leading minor of order {code} is "
                          "not positive-definite).")
    if kind == "solve":
        raise LinAlgError(f"{api}: {prefix}The solver failed because the input matrix is "
                          "singular.")
    if kind == "lstsq":
        raise LinAlgError(f"{api}: {prefix}The least squares solution could not be computed "
                          "because the input matrix does not have full rank (error code: "
                          f"{code}).")
    if kind == "svd":
        raise LinAlgError(f"{api}: {prefix}The algorithm failed to converge because the input "
                          f"matrix is ill-conditioned or has too many repeated singular values "
                          f"(error code: {code}).")
    raise LinAlgError(f"{api}: {prefix}The algorithm failed to converge because the input matrix "
                      f"is ill-conditioned or has too many repeated eigenvalues (error code: "
                      f"{code}).")


# ---- LU with partial pivoting -------------------------------------------------------------

def _lu_factor(a):
    """LAPACK getrf's result for a batch: (LU, pivots (1-based int32), info (int32)).
    Pivot: the first entry of largest |re| + |im| in the column (izamax's measure)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = np.array(a, copy=True)
    batch = lu.shape[:-2]
    flat = lu.reshape((int(np.prod(batch)), m, n))      # (-1 is ambiguous when m is 0)
    piv = np.zeros((flat.shape[0], k), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    rows = np.arange(flat.shape[0])
    for j in range(k):
        col = flat[:, j:, j]
        size = np.abs(col.real) + np.abs(col.imag) if col.dtype.kind == "c" else np.abs(col)
        p = np.argmax(size, axis=1) + j
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r = rows[swap]
            top = flat[r, j].copy()
            flat[r, j] = flat[r, p[swap]]
            flat[r, p[swap]] = top
        pivot = flat[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        if j + 1 < m:
            scale = np.where(zero, 1, pivot)
            flat[:, j + 1:, j] /= scale[:, None]
            if j + 1 < n:
                flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return lu, piv.reshape(batch + (k,)), info.reshape(batch)


# ---- inverse ------------------------------------------------------------------------------

def _inv_ex(a, check_errors):
    name = "linalg.inv_ex" if check_errors else "linalg.inv"
    _check_square(name, a)
    _check_float(name, a)
    _no_low_precision(name, a)
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2], np.int32)
    try:
        # A itself factored, as PyTorch's getrf (the transpose pivots on other entries and
        # leaves rounding noise where PyTorch's exact zeros are), the result in LAPACK's
        # column-major layout, as PyTorch returns it (its reshapes are views)
        inverse = np.swapaxes(np.ascontiguousarray(np.swapaxes(np.linalg.inv(a), -1, -2)),
                              -1, -2)
        info = np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        # NumPy's LAPACK met an exact zero pivot; decide (and solve) with our getrf, whose
        # rounding may differ from PyTorch's MKL as NumPy's does
        lu, piv, info = _lu_factor(a)
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        with np.errstate(all="ignore"):
            inverse = _lu_solve(lu, piv, eye, True, False)
    if check_errors:
        _check_errors(info, "linalg.inv_ex", a.ndim > 2, "lu")
    return inverse, info


inv_ex = op("linalg_inv_ex", "LinalgInvExBackward0", "A, *, check_errors=False", _inv_ex,
            returns=("inverse", "info"), differentiable_outputs=(0,), function=False,
            method=False,
            A=lambda grads, result0: -_mm(result0.mH, _mm(grads[0], result0.mH)))


def inv(A):
    """torch.linalg.inv: inv_ex, then LinAlgError for a singular matrix."""
    inverse, info = inv_ex(A)
    _check_errors(info._data, "linalg.inv", A.dim() > 2, "lu")
    return inverse


@public("inverse", out=True, out_name="linalg_inv")
def inverse(input):
    """The inverse of a square matrix (batched); LinAlgError when singular."""
    return inv(input)



# ---- helpers in differentiable ops (the formulas below are chainrule code) -----------------

def _eye_like(a, n=None):
    n = a.shape[-1] if n is None else n
    return make_tensor(np.eye(n, dtype=a._data.dtype))


def _real(t):
    """The real part, as an op that stays complex-typed (z + conj z) / 2."""
    return (t + t.conj()) * 0.5 if t.is_complex() else t


def _diag(t):
    return t.diagonal(0, -2, -1)


def _diag_embed(t):
    return FUNCTIONS["diag_embed"](t, 0, -2, -1)


def _cat(ts, dim):
    return FUNCTIONS["cat"](ts, dim)


def _where(c, a, b):
    return FUNCTIONS["where"](c, a, b)


def _float(name, a):
    _check_float(name, a)


def _batch_matrices(a):
    return a.reshape((-1,) + a.shape[-2:])


# ---- triangular solves --------------------------------------------------------------------

def _trsm(a, b, upper, left=True, unit=False):
    """Solve op(A) X = B (left) or X A = B (right) with A triangular (only that triangle
    read), vectorized over the batch, as BLAS's trsm (no singularity check: a zero pivot
    gives inf/nan, as PyTorch)."""
    if not left:
        return np.swapaxes(_trsm(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper,
                                 True, unit), -1, -2)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dtype = np.result_type(a, b)
    a = np.broadcast_to(a, shape + a.shape[-2:])
    # row-major whatever b's layout (a right solve passes b transposed): the substitution
    # works on rows, which must be contiguous (4x faster at 256x256)
    x = np.array(np.broadcast_to(b, shape + b.shape[-2:]), dtype=dtype, order="C")
    with np.errstate(divide="ignore", invalid="ignore"):
        _trsm_into(a, x, upper, unit)
    return x


_TRSM_BLOCK = 16


def _trsm_into(a, x, upper, unit):
    """Overwrite x with A^-1 x, A triangular: the two diagonal blocks solved recursively and
    the off-diagonal block applied as one matrix product (BLAS-3, as blocked trsm), so the
    substitution loop runs over rows only inside blocks of _TRSM_BLOCK."""
    n = a.shape[-1]
    if n <= _TRSM_BLOCK:
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            if (upper and i < n - 1) or (not upper and i > 0):
                x[..., i:i + 1, :] -= a[..., i:i + 1, done] @ x[..., done, :]
            if not unit:
                x[..., i, :] /= a[..., i, i, None]
        return
    h = n // 2
    first, second = (slice(h, n), slice(0, h)) if upper else (slice(0, h), slice(h, n))
    _trsm_into(a[..., first, first], x[..., first, :], upper, unit)
    x[..., second, :] -= a[..., second, first] @ x[..., first, :]
    _trsm_into(a[..., second, second], x[..., second, :], upper, unit)


def _check_equation(name, a, b, left):
    """linalg's checks of B in A X = B (left) or X A = B: matrices matching A's size."""
    if b.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if a.shape[-2 if left else -1] != b.shape[-2 if left else -1]:
        raise _incompatible_shapes(name, a, b, left)


def _incompatible_shapes(name, a, b, left):
    return RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                        f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} and "
                        f"{b.shape[-2]}x{b.shape[-1]})")


def _solve_triangular(a, b, upper, left, unitriangular):
    name = "linalg.solve_triangular"
    _check_square(name, a)
    _check_equation(name, a, b, left)
    _broadcast_batch(b.shape[:-2], a.shape[:-2])
    _lapack_kernel(a, "triangular_solve_cpu")
    if a.dtype != b.dtype:      # PyTorch solves in A's dtype
        if b.dtype.kind == "c" and a.dtype.kind != "c":
            _warn_once("Casting complex values to real discards the imaginary part")
        b = b.real.astype(a.dtype) if a.dtype.kind != "c" else b.astype(a.dtype)
    return _trsm(a, b, upper, left, unitriangular)


def _solve_triangular_a(grad, self, result, upper, left, unitriangular):
    gb = solve_triangular(self.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
    ga = -_mm(gb, result.mH) if left else -_mm(result.mH, gb)
    return ga.triu(1 if unitriangular else 0) if upper else ga.tril(-1 if unitriangular else 0)


_solve_triangular_row = op(
    "linalg_solve_triangular", "LinalgSolveTriangularBackward0",
    "self, B, *, upper, left=True, unitriangular=False", _solve_triangular, function=False,
    method=False, self=_solve_triangular_a,
    B=lambda grad, self, upper, left, unitriangular: solve_triangular(
        self.mH, grad, upper=not upper, left=left, unitriangular=unitriangular))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular: X with A X = B (left) or X A = B, A triangular."""
    return _solve_triangular_row(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _triangular_solve(b, a, upper, transpose, unitriangular):
    for name, t in (("b", b), ("A", a)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: The input tensor {name} must have at "
                               "least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(b)} and A of type {_name(a)} instead.")
    _check_square(None, a)
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{a.shape[-2]} by {a.shape[-1]} but each b matrix is {b.shape[-2]} by "
                           f"{b.shape[-1]}")
    shape = _broadcast_batch(b.shape[:-2], a.shape[:-2])
    _lapack_kernel(a, "triangular_solve_cpu")
    op_a = np.swapaxes(a, -1, -2) if transpose else a
    x = _trsm(op_a, b, upper != transpose, True, unitriangular)
    return np.broadcast_to(x, shape + x.shape[-2:]).copy(), \
        np.broadcast_to(a, shape + a.shape[-2:]).copy()


def _triangular_solve_grads(grads, self, A, result0, upper, transpose, unitriangular, which):
    gx, gm = grads
    gb = triangular_solve_row(gx, A.conj(), upper=upper, transpose=not transpose,
                              unitriangular=unitriangular)[0]
    if which == "self":
        return gb
    ga = -_mm(result0.conj(), gb.mT) if transpose else -_mm(gb, result0.mH)
    ga = ga.triu(1 if unitriangular else 0) if upper else ga.tril(-1 if unitriangular else 0)
    return ga + gm


triangular_solve_row = op(
    "triangular_solve", "TriangularSolveBackward0",
    "self, A, upper=True, transpose=False, unitriangular=False", _triangular_solve,
    returns=("solution", "cloned_coefficient"), function=False, method=False,
    self=lambda grads, A, result0, upper, transpose, unitriangular: _triangular_solve_grads(
        grads, None, A, result0, upper, transpose, unitriangular, "self"),
    A=lambda grads, A, result0, upper, transpose, unitriangular: _triangular_solve_grads(
        grads, None, A, result0, upper, transpose, unitriangular, "A"))

_TRIANGULAR_SOLVE = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
    "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
    "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
    "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).")


@public("triangular_solve", out=(EXACT, EXACT))
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated: solves A X = input for triangular A; returns (solution, a copy of A)."""
    _warn_once(_TRIANGULAR_SOLVE)
    return triangular_solve_row(input, A, upper, transpose, unitriangular)


# ---- determinants -------------------------------------------------------------------------

def _det(a):
    _check_square("linalg.det", a)
    _float("linalg.det", a)
    _no_half(a, "lu_cpu", empty_ok=True)
    return np.asarray(np.linalg.det(a) if a.size else np.ones(a.shape[:-2], a.dtype))


def _det_backward(grad, A, result):
    """As PyTorch: grad itself for 1x1 matrices; first order, grad * conj(det) * A^{-H} (0
    where det is 0); with create_graph, grad times the adjugate from the SVD, which is
    differentiable everywhere: adj(A)^H = conj(det(U) det(Vh)) U diag(prod_{j != i} S_j) Vh."""
    from ..autograd import grad_mode
    if A.shape[-1] == 1:
        return grad.unsqueeze(-1).unsqueeze(-1)
    if not grad_mode.state.grad_enabled:
        d = (grad * result.conj()).unsqueeze(-1).unsqueeze(-1)
        inverse = np.where((result._data == 0)[..., None, None], 0, inv_ex(A)[0]._data)
        return d * make_tensor(np.swapaxes(inverse, -1, -2).conj())
    U, S, Vh = _svd_row(A, False, True)
    n = S.shape[-1]
    eye = make_tensor(np.eye(n, dtype=bool))
    others = _where(eye, 1.0, S.unsqueeze(-2).expand(*S.shape[:-1], n, n)).prod(-1)
    phase = (det(U) * det(Vh)).conj() if A.is_complex() else det(U) * det(Vh)
    scale = others.to(U.dtype) * (phase * grad).unsqueeze(-1)
    return _mm(U * scale.unsqueeze(-2), Vh)


det_row = op("linalg_det", "LinalgDetBackward0", "A", _det, function=False, method=False,
             A=_det_backward)


def det(A):
    """torch.linalg.det: the determinant (batched)."""
    return det_row(A)


@public("det", out=False)
def _det_public(input):
    """The determinant of a square matrix (batched)."""
    return det_row(input)


def _slogdet(a, name="linalg.slogdet"):
    _check_square(name, a)
    _float(name, a)
    _no_low_precision(name, a)
    if a.size == 0:
        return np.ones(a.shape[:-2], a.dtype), np.zeros(a.shape[:-2], a.real.dtype)
    sign, logabsdet = np.linalg.slogdet(a)
    return np.asarray(sign), np.asarray(logabsdet)


def _slogdet_backward(grads, A, result0):
    g_sign, g_log = grads
    g = g_log
    if A.is_complex():
        # d(logabsdet) + i d(arg): the phase part comes from the sign's gradient
        z = g_sign * result0.conj()
        g = g_log.to(A.dtype) - (z - z.conj()) * 0.5
    return g.unsqueeze(-1).unsqueeze(-1) * inv_ex(A)[0].mH


slogdet_row = op("linalg_slogdet", "LinalgSlogdetBackward0", "A", _slogdet,
                 returns=("sign", "logabsdet"), function=False, method=False,
                 A=_slogdet_backward)


def slogdet(A):
    """torch.linalg.slogdet: (sign, log|det|)."""
    return slogdet_row(A)


@public("slogdet", out=(True, True), out_name="linalg_slogdet")
def _slogdet_public(input):
    """(sign, log|det|) of a square matrix (batched)."""
    return _structseq_as("slogdet", slogdet_row(input))


def _structseq_as(name, result, fields=None):
    """`result` as the torch.return_types structseq `name` (fields: result's own by default)."""
    from .registry import return_types, _structseq
    rt = return_types.get(name)
    if rt is None:
        rt = return_types[name] = _structseq(name, fields or result._fields)
    return rt(*result)


@public("logdet", out=False)
def logdet(input):
    """log det of a square matrix: nan where the determinant is negative."""
    a = input._data
    _check_square("logdet", a)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"logdet: Expected a floating point or complex tensor as input. Got "
                           f"{_name(a)}")
    _no_low_precision("logdet", a)
    sign, logabsdet = slogdet_row(input)
    if input.is_complex():
        return sign.log() + logabsdet
    return _where(sign == -1.0, float("nan"), logabsdet)


# ---- pseudo-inverse -----------------------------------------------------------------------

def _pinv(a, atol, rtol, hermitian):
    if a.ndim < 2 or a.dtype.kind not in "fc" or a.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({FROM_NP[a.dtype].legacy}{{{sizes_str(a.shape)}}}): "
                           "expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types")
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    # get_atol_rtol: rtol defaults to eps * max(m, n), or to 0 where a positive atol is given
    real = a.real.dtype
    atol_ = np.float64(0) if atol is None else _tolerance("torch.linalg.pinv", atol, "atol")
    if rtol is not None:
        rtol_ = _tolerance("torch.linalg.pinv", rtol, "rtol")
    else:
        default = np.finfo(real).eps * max(m, n)
        rtol_ = np.float64(default) if atol is None else np.where(atol_ > 0, 0.0, default)
    if hermitian:
        # the eigendecomposition of the lower triangle; |eigenvalues| are the singular values
        w, u = np.linalg.eigh(a)
        s, top = np.abs(w), np.abs(w).max(-1, keepdims=True)
        vh = np.swapaxes(u, -1, -2).conj()
    else:
        u, s, vh = _np_svd(a, full_matrices=False)
        w, top = s, s[..., :1]
    cutoff = np.maximum(np.asarray(atol_)[..., None], np.asarray(rtol_)[..., None] * top)
    keep = s > cutoff
    with np.errstate(divide="ignore"):
        sinv = np.where(keep, 1 / np.where(keep, w, 1), 0).astype(real)
    return np.matmul(np.swapaxes(vh, -1, -2).conj() * sinv[..., None, :],
                     np.swapaxes(u, -1, -2).conj()).astype(a.dtype)


def _pinv_backward(grad, self, result):
    m, n = self.shape[-2:]
    p, ph, gh = result, result.mH, grad.mH
    if m <= n:
        k = _mm(gh, p)
        kph = _mm(k, ph)
        return (-_mm(p, k).mH + kph - _mm(_mm(self, p), kph)
                + _mm(_mm(ph, p), gh - _mm(k, self)))
    k = _mm(p, gh)
    phk = _mm(ph, k)
    return (-_mm(k, p).mH + _mm(_mm(gh - _mm(self, k), p), ph) + phk
            - _mm(_mm(phk, p), self))


pinv_row = op("linalg_pinv", "LinalgPinvBackward0", "self, atol=None, rtol=None, hermitian=False",
              _pinv, function=False, method=False, self=_pinv_backward)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """torch.linalg.pinv: the Moore-Penrose pseudo-inverse; singular values at or below
    max(atol, rtol * the largest) are dropped (`rcond`, NumPy's name, is rtol)."""
    if rcond is not None:
        atol, rtol = None, rcond
    return pinv_row(A, atol, rtol, hermitian)


@public("pinverse", out=False)
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse, singular values below rcond * the largest treated as zero."""
    return pinv_row(input, None, rcond, False)


# ---- Cholesky -----------------------------------------------------------------------------

def _cholesky_info(a):
    """LAPACK potrf's info for a batch: the order of the first leading minor that is not
    positive-definite (0: none), by an unblocked factorization looped over columns."""
    flat = _batch_matrices(a).astype(np.result_type(a, np.float32), copy=True)
    n = a.shape[-1]
    info = np.zeros(flat.shape[0], np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            d = flat[:, j, j].real - np.einsum("bk,bk->b", flat[:, j, :j], flat[:, j, :j].conj()).real
            bad = ~(d > 0) & (info == 0)
            info[bad] = j + 1
            d = np.sqrt(np.where(d > 0, d, 1))
            flat[:, j, j] = d
            if j + 1 < n:
                flat[:, j + 1:, j] = (flat[:, j + 1:, j] - np.einsum(
                    "bik,bk->bi", flat[:, j + 1:, :j], flat[:, j, :j].conj())) / d[:, None]
    return info.reshape(a.shape[:-2])


def _cholesky_lower(a):
    """(L, info): NumPy's Cholesky of the lower triangle (LAPACK's potrf, and NumPy's
    cholesky and _cholesky_info, read only that triangle and the diagonal)."""
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2], np.int32)
    try:
        return np.linalg.cholesky(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        info = _cholesky_info(a)
        out = np.full(a.shape, np.nan, a.dtype)
        ok = info == 0
        if ok.any():
            out[ok] = np.linalg.cholesky(a[ok])
        return out, info


def _cholesky_ex(a, upper, check_errors, name="linalg.cholesky_ex"):
    _check_square(name if check_errors else "linalg.cholesky", a)
    _float("linalg.cholesky", a)
    _no_half(a, "cholesky_cpu", empty_ok=True)
    L, info = _cholesky_lower(np.swapaxes(a, -1, -2).conj() if upper else a)
    if check_errors:
        _check_errors(info, name, a.ndim > 2, "cholesky")
    return (np.swapaxes(L, -1, -2).conj() if upper else L), info


def _cholesky_backward(gL, upper, L):
    if upper:
        L, gL = L.mH, gL.mH
    gA = _mm(L.mH, gL).tril()
    gA = (gA + gA.tril(-1).mH) * 0.5
    gA = solve_triangular(L.mH, gA, upper=True, left=True)
    return solve_triangular(L, gA, upper=False, left=False)


cholesky_ex_row = op("linalg_cholesky_ex", "LinalgCholeskyExBackward0",
                     "self, *, upper=False, check_errors=False", _cholesky_ex,
                     returns=("L", "info"), differentiable_outputs=(0,), function=False,
                     method=False,
                     self=lambda grads, upper, result0: _cholesky_backward(grads[0], upper, result0))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """torch.linalg.cholesky_ex: (L, info), info > 0 where A is not positive-definite."""
    return cholesky_ex_row(A, upper=upper, check_errors=check_errors)


def linalg_cholesky(A, *, upper=False):
    """torch.linalg.cholesky: L with A = L L^H; LinAlgError when not positive-definite."""
    L, info = cholesky_ex_row(A, upper=upper)
    _check_errors(info._data, "linalg.cholesky", A.dim() > 2, "cholesky")
    return L


def _cholesky_legacy(a, upper):
    if not a.size:      # PyTorch returns before any check
        return a.copy()
    _check_square("cholesky", a)
    _lapack_kernel(a, "cholesky_cpu", empty_ok=True)
    L, info = _cholesky_lower(np.swapaxes(a, -1, -2).conj() if upper else a)
    _check_errors(info, "cholesky", a.ndim > 2, "cholesky")
    return np.swapaxes(L, -1, -2).conj() if upper else L


_cholesky_row = op("cholesky", "CholeskyBackward0", "self, upper=False", _cholesky_legacy,
                   function=False, method=False,
                   self=lambda grad, upper, result: _cholesky_backward(grad, upper, result))

_CHOLESKY = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
    "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
    "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results for "
    "all valid (symmetric positive definite) inputs.")


@public("cholesky", out=True)
def cholesky(input, upper=False):
    """Deprecated: the Cholesky factor (lower, or upper with upper=True)."""
    _warn_once(_CHOLESKY)
    return _cholesky_row(input, upper)


def _cholesky_solve(b, L, upper):
    for name, t in (("b", b), ("A", L)):
        if t.ndim < 2:
            raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                               "instead" if name == "b" else
                               f"u should have at least 2 dimensions, but has {L.ndim} dimensions "
                               "instead")
    if b.dtype != L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(b)} and A of type {_name(L)} instead.")
    _check_square(None, L)
    if L.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{L.shape[-2]} by {L.shape[-1]} but each b matrix is {b.shape[-2]} by "
                           f"{b.shape[-1]}")
    _broadcast_batch(b.shape[:-2], L.shape[:-2])
    _lapack_kernel(L, "cholesky_solve_cpu")
    low = np.swapaxes(L, -1, -2).conj() if upper else L
    y = _trsm(low, b, False)
    return _trsm(np.swapaxes(low, -1, -2).conj(), y, True)


def _cholesky_solve_l(grad, self, input2, result, upper):
    gb = _cholesky_solve_row(grad, input2, upper)
    common = _mm(gb, result.mH)
    common = common + common.mH
    return -_mm(input2, common) if upper else -_mm(common, input2)


_cholesky_solve_row = op(
    "cholesky_solve", "CholeskySolveBackward0", "self, input2, upper=False", _cholesky_solve,
    out=out_cast("cholesky_solve: Expected result to be safely castable from {expected} dtype, "
                 "but got result with dtype {got}"),
    self=lambda grad, input2, upper: _cholesky_solve_row(grad, input2, upper),
    input2=_cholesky_solve_l)


def _cholesky_inverse(L, upper):
    if L.ndim < 2:
        raise RuntimeError(f"cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_square("cholesky_inverse", L)
    _lapack_kernel(L, "cholesky_inverse_out_cpu")
    # LAPACK's potri refuses a factor with an exactly zero diagonal element (the first one)
    zero = np.diagonal(L, axis1=-2, axis2=-1) == 0
    if zero.any():
        _check_errors(np.where(zero.any(-1), zero.argmax(-1) + 1, 0), "cholesky_inverse",
                      L.ndim > 2, "lu")
    eye = np.broadcast_to(np.eye(L.shape[-1], dtype=L.dtype), L.shape)
    return _cholesky_solve(eye, L, upper)


def _cholesky_inverse_backward(grad, self, upper, result):
    common = _mm(result, _mm(grad + grad.mH, result))
    return -_mm(self, common) if upper else -_mm(common, self)


_cholesky_inverse_row = op("cholesky_inverse", "CholeskyInverseBackward0", "self, upper=False",
                           _cholesky_inverse, self=_cholesky_inverse_backward)


# ---- QR -----------------------------------------------------------------------------------

def _qr(a, mode):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if a.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _float("linalg.qr", a)
    _no_half(a, "geqrf_cpu")
    m, n = a.shape[-2:]
    if a.size == 0:
        k = m if mode == "complete" else min(m, n)
        q = np.broadcast_to(np.eye(m, k, dtype=a.dtype), a.shape[:-2] + (m, k)).copy()
        return (q if mode != "r" else np.zeros(a.shape[:-2] + (0,), a.dtype)), \
            np.zeros(a.shape[:-2] + (k, n), a.dtype)
    q, r = np.linalg.qr(_no_negative_zeros(a), mode="complete" if mode == "complete"
                        else "reduced")
    if mode == "r":
        q = np.zeros((0,), a.dtype)
    return q, r


def _qr_backward(grads, mode, result0, result1):
    gQ, gR = grads
    Q, R = result0, result1
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    gA = _mm(gR, R.mH) - _mm(Q.mH, gQ)
    if m >= n:
        sym = gA.triu()
        sym = sym + sym.mH
        sym = sym - _diag_embed(_real(_diag(sym)) * 0.5)
        gA = _mm(Q, sym) + gQ
        return solve_triangular(R.mH, gA, upper=False, left=False)
    x = -gA
    skew = (x - x.mH).tril()
    if skew.is_complex():
        d = _diag(skew)
        skew = skew - _diag_embed((d - d.conj()) * 0.25)
    gA = solve_triangular(R[..., :m].mH, _mm(Q, skew), upper=False, left=False)
    zeros = make_tensor(np.zeros(tuple(R.shape[:-2]) + (m, n - m), gA._data.dtype))
    return _cat([gA, zeros], -1) + _mm(Q, gR)


qr_row = op("linalg_qr", "LinalgQrBackward0", "A, mode='reduced'", _qr, returns=("Q", "R"),
            function=False, method=False, A=_qr_backward)


def qr(A, mode="reduced"):
    """torch.linalg.qr: (Q, R) with A = Q R."""
    return qr_row(A, mode)


_QR = ("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
       "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
       "'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, "
       "'reduced' if some else 'complete')")


@public("qr")
def _qr_public(input, some=True, *, out=None):
    """Deprecated: (Q, R) with A = Q R (reduced unless some=False)."""
    _warn_once(_QR)
    result = _structseq_as("qr", qr_row(input, "reduced" if some else "complete"))
    return result if out is None else _write_outs("qr", "linalg_qr", result, out, input)


def _write_outs(name, op_name, result, out, input):
    """out= of a function whose messages name the linalg op it calls (the structseq is
    still <name>_out)."""
    from .registry import check_out_grad, check_out_kind, write_out
    check_out_kind(name, out)
    check_out_grad(op_name, result, out)
    return write_out(name, result, out, (EXACT,) * len(result), (input,), stacklevel=4)


def _no_negative_zeros(a):
    """a with -0.0 as +0.0: a Householder reflector's sign follows its pivot's (Fortran's
    SIGN), which NumPy's LAPACK reads from a zero's sign bit and PyTorch's MKL does not."""
    return a + np.zeros((), a.dtype)


def _geqrf(a):
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _lapack_kernel(a, "geqrf_cpu")
    m, n = a.shape[-2:]
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    flat = _batch_matrices(_no_negative_zeros(a))
    hs, taus = zip(*(np.linalg.qr(x, mode="raw") for x in flat))
    h = np.swapaxes(np.stack(hs), -1, -2).reshape(a.shape)
    return np.ascontiguousarray(h), np.stack(taus).reshape(a.shape[:-2] + (min(m, n),))


_geqrf_row = op("geqrf", "GeqrfBackward0", "self", _geqrf, returns=("a", "tau"),
                out=tuple(out_cast(f"torch.geqrf: Expected {n} to be safely castable from "
                                   f"{{expected}} dtype, but got {n} with dtype {{got}}")
                          for n in ("a", "tau")),
                self=not_implemented("geqrf"))


def _reflectors(h, tau, m, k):
    """The Householder vectors of geqrf's packed result: unit diagonal, zeros above."""
    v = np.tril(h[..., :, :k], -1)
    idx = np.arange(k)
    v[..., idx, idx] = 1
    return v


def _householder(a, tau):
    name = "torch.linalg.householder_product"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if a.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if a.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.ndim} and input.ndim is equal to {a.ndim}")
    if a.shape[:-2] != tau.shape[:-1]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {sizes_str(tau.shape[:-1])}")
    if a.dtype != tau.dtype:
        raise RuntimeError(f"{name}: tau dtype {_name(tau)} does not match input dtype "
                           f"{_name(a)}")
    _lapack_kernel(a, "orgqr_cpu")
    return _apply_q(a, tau, np.broadcast_to(np.eye(a.shape[-2], a.shape[-1], dtype=a.dtype),
                                            a.shape).copy(), True, False)


def _apply_q(h, tau, c, left, adjoint):
    """Q C, Q^H C, C Q or C Q^H for Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H (LAPACK's
    orm2r), looped over the k reflectors and vectorized over the batch."""
    k = tau.shape[-1]
    m = h.shape[-2]
    v = _reflectors(h, tau, m, k)
    c = np.array(c, dtype=np.result_type(c, h))
    # Q C applies H_k first; Q^H C applies H_1^H first
    order = range(k) if left == adjoint else range(k - 1, -1, -1)
    for i in order:
        vi = v[..., :, i]
        t = tau[..., i].conj() if adjoint else tau[..., i]
        if left:      # H C = C - t v (v^H C)
            c -= t[..., None, None] * vi[..., :, None] * np.einsum("...i,...ij->...j",
                                                                   vi.conj(), c)[..., None, :]
        else:         # C H = C - t (C v) v^H
            c -= t[..., None, None] * np.einsum("...ij,...j->...i", c, vi)[..., :, None] * \
                vi.conj()[..., None, :]
    return c


def _householder_composite(h, tau, c, left, adjoint):
    """_apply_q in differentiable ops (the formulas of householder_product and ormqr)."""
    m, k = h.shape[-2], tau.shape[-1]
    mask = make_tensor(np.tril(np.ones((m, k), bool), -1))
    eye = make_tensor(np.eye(m, k, dtype=h._data.dtype))
    v = _where(mask, h[..., :, :k], eye)
    order = range(k) if left == adjoint else range(k - 1, -1, -1)
    for i in order:
        vi = v[..., :, i]
        t = tau[..., i].conj() if adjoint else tau[..., i]
        if left:
            c = c - t[..., None, None] * vi.unsqueeze(-1) * _mm(vi.conj().unsqueeze(-2), c)
        else:
            c = c - t[..., None, None] * _mm(c, vi.unsqueeze(-1)) * vi.conj().unsqueeze(-2)
    return c


def _vjp(fn, inputs, grad, which):
    """The gradient of `fn(*inputs)` for input `which`, by running fn's composite on fresh
    leaves (first order: these nodes have no closed-form formula here)."""
    from ..autograd import enable_grad, grad as autograd_grad
    with enable_grad():
        leaves = [x.detach().requires_grad_(True) if x is not None else None for x in inputs]
        out = fn(*leaves)
        g, = autograd_grad(out, leaves[which], grad, allow_unused=True)
    return g if g is not None else leaves[which].detach() * 0


def _householder_grad(which):
    def formula(grad, self, tau):
        eye = make_tensor(np.broadcast_to(np.eye(self.shape[-2], self.shape[-1],
                                                 dtype=self._data.dtype), tuple(self.shape)))
        return _vjp(lambda h, t: _householder_composite(h, t, eye, True, False), (self, tau),
                    grad, which)
    return formula


householder_row = op("linalg_householder_product", "LinalgHouseholderProductBackward0",
                     "self, tau", _householder, function=False, method=False,
                     self=_householder_grad(0), tau=_householder_grad(1))


def householder_product(A, tau):
    """torch.linalg.householder_product: the first n columns of H_1 ... H_k."""
    return householder_row(A, tau)


@public("orgqr", out=True, out_name="linalg_householder_product")
def orgqr(input, tau):
    """Q (m x n) from geqrf's Householder reflectors."""
    return householder_row(input, tau)


def _ormqr(a, tau, c, left, transpose):
    name = "torch.ormqr"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if a.shape[-2] != c.shape[side]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    if tau.ndim != a.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {a.ndim}")
    if c.ndim != a.ndim:
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {c.ndim} and input.ndim is equal "
                           f"to {a.ndim}")
    for what, batch in (("tau", tau.shape[:-1]), ("other", c.shape[:-2])):
        if batch != a.shape[:-2]:
            raise RuntimeError(f"{name}: Expected batch dimensions of {what} to be equal to "
                               f"input.shape[:-2], but got {list(batch)}")
    for what, t in (("tau", tau), ("other", c)):
        if t.dtype != a.dtype:      # (no space after the first "dtype": PyTorch's text)
            raise RuntimeError(f"{name}: Expected input and {what} to have the same dtype, but "
                               f"input has dtype{_name(a)} and {what} has dtype {_name(t)}")
    _lapack_kernel(a, "ormqr_cpu")
    return _apply_q(a, tau, c, left, transpose)


def _ormqr_grad(which):
    def formula(grad, self, input2, input3, left, transpose):
        return _vjp(lambda h, t, c: _householder_composite(h, t, c, left, transpose),
                    (self, input2, input3), grad, which)
    return formula


_ormqr_row = op("ormqr", "OrmqrBackward0", "self, input2, input3, left=True, transpose=False",
                _ormqr, self=_ormqr_grad(0), input2=_ormqr_grad(1), input3=_ormqr_grad(2))


# ---- SVD ----------------------------------------------------------------------------------

def _np_svd(a, **kwargs):
    """np.linalg.svd as PyTorch's LAPACK answers: a matrix with a NaN is refused with its
    LinAlgError, one with an infinity (and no NaN) gets NaN singular values (and finite
    singular vectors: here the SVD of zeros)."""
    nan = np.isnan(a).any((-2, -1))
    if nan.any():
        prefix, _ = _batch_prefix(nan, a.ndim > 2)
        raise LinAlgError(f"linalg.svd: {prefix}The algorithm failed to converge because the "
                          "input matrix contained non-finite values.")
    inf = np.isinf(a).any((-2, -1))
    if not inf.any():
        return np.linalg.svd(a, **kwargs)
    out = np.linalg.svd(np.where(inf[..., None, None], 0, a), **kwargs)
    if not isinstance(out, tuple):
        return np.where(inf[..., None], np.nan, out)
    u, s, vh = out
    return u, np.where(inf[..., None], np.nan, s), vh


def _svd(a, full_matrices, compute_uv):
    if a.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _float("linalg.svd", a)
    _no_half(a, "linalg_svd_cpu", empty_ok=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    real = a.real.dtype
    if a.size == 0:
        s = np.zeros(a.shape[:-2] + (k,), real)
        if not compute_uv:
            return np.zeros((0,), a.dtype), s, np.zeros((0,), a.dtype)
        um, vn = (m, n) if full_matrices else (k, k)
        return (np.broadcast_to(np.eye(m, um, dtype=a.dtype), a.shape[:-2] + (m, um)).copy(), s,
                np.broadcast_to(np.eye(vn, n, dtype=a.dtype), a.shape[:-2] + (vn, n)).copy())
    if not compute_uv:
        return np.zeros((0,), a.dtype), _np_svd(a, compute_uv=False), np.zeros((0,), a.dtype)
    u, s, vh = _np_svd(a, full_matrices=full_matrices)
    return u, s, vh


def _svd_backward(grads, full_matrices, compute_uv, result0, result1, result2):
    gU, gS, gVh = grads
    if not compute_uv:
        raise RuntimeError("linalg.svd: the singular values alone are not differentiable; "
                           "compute the singular vectors as well (compute_uv=True)")
    U, S, Vh = result0, result1, result2
    k = S.shape[-1]
    if full_matrices:
        U, Vh, gU, gVh = U[..., :k], Vh[..., :k, :], gU[..., :k], gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    used_u = bool(np.any(gU._data))
    used_v = bool(np.any(gVh._data))
    if not used_u and not used_v:
        return _mm(U, gS.unsqueeze(-1).to(U.dtype) * Vh) if m >= n else \
            _mm(U * gS.unsqueeze(-2).to(U.dtype), Vh)
    skew = (lambda x: x - x.mH)
    UhgU = skew(_mm(U.mH, gU))
    VhgV = skew(_mm(Vh, gVh.mH))
    if U.is_complex():
        im = (_diag(UhgU)._data + _diag(VhgV)._data).imag
        if not np.allclose(im, 0, rtol=1e-2, atol=1e-2):
            raise RuntimeError("svd_backward: The singular vectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified loss "
                               "function depends on this phase term, making it ill-defined.")
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _diag_embed(S * 0 + 1)
    Sc = S.to(U.dtype)
    gA = (UhgU * Sc.unsqueeze(-2) + Sc.unsqueeze(-1) * VhgV) / E.to(U.dtype)
    gA = gA + _diag_embed(gS.to(U.dtype))
    if U.is_complex():
        gA = gA + _diag_embed(_diag(UhgU) / (2 * Sc))
    if m > n:
        gA = _mm(U, gA)
        gUSinv = gU / Sc.unsqueeze(-2)
        gA = gA + gUSinv - _mm(U, _mm(U.mH, gUSinv))
        return _mm(gA, Vh)
    if m < n:
        gA = _mm(gA, Vh)
        SinvgVh = gVh / Sc.unsqueeze(-1)
        gA = gA + SinvgVh - _mm(_mm(SinvgVh, Vh.mH), Vh)
        return _mm(U, gA)
    return _mm(U, _mm(gA, Vh))


_svd_row = op("_linalg_svd", "LinalgSvdBackward0", "A, full_matrices=False, compute_uv=True",
              _svd, returns=("U", "S", "Vh"), function=False, method=False, A=_svd_backward)


def _no_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


def svd(A, full_matrices=True, *, driver=None):
    """torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh."""
    _no_driver(driver)
    return _structseq_as("linalg_svd", _svd_row(A, full_matrices, True))


def _may_need_derivative(t):
    """PyTorch's _may_require_fw_or_bw_grad: `t` requires grad under grad mode or carries a
    forward-mode tangent (then singular and eigenvalues are computed with their vectors,
    which their derivatives need)."""
    from ..autograd import forward_ad, grad_mode
    from . import registry
    return (t.requires_grad and grad_mode.state.grad_enabled
            or registry.FORWARD_AD is not None and forward_ad.get_tangent(t) is not None)


def svdvals(A, *, driver=None):
    """torch.linalg.svdvals: the singular values, descending."""
    _no_driver(driver)
    return _svd_row(A, False, _may_need_derivative(A))[1]


_NUCLEAR_NORM = ("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
                 "will be removed in a future PyTorch release. Please use "
                 "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")


@public("nuclear_norm", method=False)
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """The sum of the singular values of each matrix over `dim` (default the last two);
    deprecated for linalg.matrix_norm(A, 'nuc'), whose graph it builds. out= as
    matrix_norm's: its dtype must be the result's, then the result is copied in."""
    if isinstance(dim, bool):           # the nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    _warn_once(_NUCLEAR_NORM)
    if out is not None:
        result = nuclear_norm(input, dim, keepdim)
        if out.dtype is not result.dtype:
            raise RuntimeError(f"linalg.matrix_norm expected out tensor dtype "
                               f"{result.dtype.legacy} but got: {out.dtype.legacy}")
        return _copy_out("nuclear_norm", result, out, resize_output=False)
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype.legacy}")
    _no_low_precision("linalg.matrix_norm", input._data)
    dims = (-2, -1) if dim is None else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dims))
    d0, d1 = (d % input.dim() for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, "
                           f"{dims[1]})")
    permutation = [d for d in range(input.dim()) if d not in (d0, d1)] + [d0, d1]
    result = svdvals(input.permute(permutation)).sum(-1, keepdim)
    if keepdim:
        result = result.unsqueeze(-1).permute(list(np.argsort(permutation)))
    return result


@public("svd")
def _svd_public(input, some=True, compute_uv=True, *, out=None):
    """(U, S, V) with input = U diag(S) V^H; V, not V^H. compute_uv=False: zero U and V."""
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.dim()} dimensions instead")
    if out is not None:
        result = _svd_public(input, some, compute_uv)
        if isinstance(out, (tuple, list)) and len(out) == 3 and all(
                isinstance(o, Tensor) for o in out):
            # PyTorch resizes U, then V (to Vh's shape, written transposed), then S
            import warnings
            from .registry import _OUT_RESIZED
            from .. import autograd
            U, S, V = result
            for o, shape, want in ((out[0], U.shape, U.shape), (out[2], V.mT.shape, V.shape),
                                   (out[1], S.shape, S.shape)):
                if tuple(o.shape) != tuple(want) and o.numel() and not (
                        o.requires_grad and autograd.grad_mode.state.grad_enabled):
                    warnings.warn(_OUT_RESIZED.format(sizes_str(o.shape), sizes_str(shape)),
                                  UserWarning, stacklevel=3)
                    o._data = np.empty(0, o._data.dtype)
        return _write_outs("svd", "_linalg_svd", result, out, input)
    if compute_uv:
        U, S, Vh = _svd_row(input, not some, True)
        return _structseq_as("svd", (U, S, Vh.mH), ("U", "S", "V"))
    S = svdvals(input)
    m, n = input.shape[-2:]
    batch = tuple(input.shape[:-2])
    dt = input._data.dtype
    return _structseq_as("svd", (make_tensor(np.zeros(batch + (m, m), dt)), S,
                                 make_tensor(np.zeros(batch + (n, n), dt))), ("U", "S", "V"))


# ---- LU -----------------------------------------------------------------------------------

def _lu_factor_ex(a, pivot, check_errors):
    name = "torch.lu_factor"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _lapack_kernel(a, "lu_cpu", empty_ok=True)
    if not a.size:      # nothing to factor: no kernel runs (integer dtypes pass)
        k = min(a.shape[-2:])
        return a.copy(), np.zeros(a.shape[:-2] + (k,), np.int32), np.zeros(a.shape[:-2],
                                                                            np.int32)
    lu, piv, info = _lu_factor(a)
    return lu, piv, info


def _lu_factor_backward(grads, pivot, result0, result1):
    LU, piv = result0, result1
    m, n = LU.shape[-2:]
    k = min(m, n)
    P, L, U = lu_unpack(LU.detach(), piv)
    L_, U_ = lu_unpack(LU, piv)[1:]
    grad = grads[0]
    return _lu_backward(grad[..., :, :k], grad[..., :k, :], P, L_, U_, pivot)


def _lu_backward(L_grad, U_grad, P, L, U, pivot):
    """linalg_lu_backward: A = P L U."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        gA = _mm(L.mH, L_grad).tril(-1) + _mm(U_grad, U.mH).triu()
        gA = solve_triangular(U.mH, gA, upper=False, left=False)
        gA = solve_triangular(L.mH, gA, upper=True, left=True, unitriangular=True)
    elif m < n:
        U1 = U[..., :, :k]
        gA = _mm(L.mH, L_grad) - _mm(U_grad.triu(), U.mH)
        gA = solve_triangular(U1.mH, gA.tril(-1), upper=False, left=False)
        gA = _cat([gA + U_grad[..., :, :k].triu(), U_grad[..., :, k:]], -1)
        gA = solve_triangular(L.mH, gA, upper=True, left=True, unitriangular=True)
    else:
        L1 = L[..., :k, :]
        gA = _mm(U_grad, U.mH) - _mm(L.mH, L_grad.tril(-1))
        gA = solve_triangular(L1.mH, gA.triu(), upper=True, left=True, unitriangular=True)
        gA = _cat([gA + L_grad[..., :k, :].tril(-1), L_grad[..., k:, :]], -2)
        gA = solve_triangular(U.mH, gA, upper=False, left=False)
    return _mm(P.to(gA.dtype), gA) if pivot else gA


lu_factor_ex_row = op("linalg_lu_factor_ex", "LinalgLuFactorExBackward0",
                      "A, *, pivot=True, check_errors=False", _lu_factor_ex,
                      returns=("LU", "pivots", "info"), differentiable_outputs=(0,),
                      function=False, method=False, A=_lu_factor_backward)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """torch.linalg.lu_factor_ex: (LU, pivots, info) as LAPACK's getrf."""
    return lu_factor_ex_row(A, pivot=pivot, check_errors=check_errors)


def lu_factor(A, *, pivot=True):
    """torch.linalg.lu_factor: (LU, pivots)."""
    LU, piv, info = lu_factor_ex_row(A, pivot=pivot)
    if np.any(info._data):
        prefix, code = _batch_prefix(info._data, A.dim() > 2)
        raise LinAlgError(f"torch.linalg.lu_factor: {prefix}U[{code},{code}] is zero and using it "
                          "on lu_solve would result in a division by zero. If you still want to "
                          "perform the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _structseq_as("linalg_lu_factor", (LU, piv), ("LU", "pivots"))


_LU = ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
       "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
       "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
       "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
       "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


_LU_WITH_INFO = Signature("_lu_with_info(Tensor input, bool pivot=True, bool check_errors=True)")


@public("lu", method=False)
def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated: (LU, pivots), and infos with get_infos=True."""
    if not isinstance(A, Tensor):
        # PyTorch's Python lu passes A on to _lu_with_info, whose parser refuses it
        raise _not_tensor("_lu_with_info", "input", 1, A)
    return _lu(A, pivot, get_infos, out)


def _lu(A, pivot=True, get_infos=False, out=None):
    if type(pivot) is not bool:
        # PyTorch's Python lu passes pivot on by keyword
        _LU_WITH_INFO.check_keywords({"pivot": pivot})
    _warn_once(_LU)
    LU, piv, info = lu_factor_ex_row(A, pivot=pivot)
    result = (_structseq_as("_lu_with_info", (LU, piv, info), ("LU", "pivots", "infos"))
              if get_infos else (LU, piv))
    if out is None:
        return result
    # torch.lu's out=: each out resized (silently) and copied into, as PyTorch's Python does
    for r, o in zip(result, out):
        if tuple(o.shape) != tuple(r.shape):
            if o.requires_grad:
                raise RuntimeError("cannot resize variables that require grad")
            o._data = np.empty(tuple(r.shape), o._data.dtype)
        o.copy_(r)
    return out


@public("lu", function=False)
def _lu_method(self, pivot=True, get_infos=False):
    return _lu(self, pivot, get_infos)


def _perm_from_pivots(piv, m):
    """The permutation LAPACK's sequential row swaps apply to 0..m-1."""
    batch = piv.shape[:-1]
    # no -1 in the reshape: an empty piv leaves it ambiguous
    flat = piv.reshape(int(np.prod(batch)), piv.shape[-1]).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    rows = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        j = flat[:, i]
        a, b = perm[rows, i].copy(), perm[rows, j].copy()
        perm[rows, i], perm[rows, j] = b, a
    return perm.reshape(batch + (m,))


def _lu_unpack(lu, piv, unpack_data, unpack_pivots):
    if lu.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(lu.shape)} instead")
    if piv.dtype != np.int32:
        raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           f"torch.int32 dtype.\nNote: this function is intended to be used with "
                           f"the output produced by torch.linalg.lu_factor")
    m, n = lu.shape[-2:]
    k = min(m, n)
    if unpack_data:
        L = np.tril(lu[..., :, :k], -1)
        idx = np.arange(k)
        L[..., idx, idx] = 1
        U = np.triu(lu[..., :k, :])
    else:
        L = U = np.zeros((0,), lu.dtype)
    if unpack_pivots:
        perm = _perm_from_pivots(piv, m)
        P = np.zeros(perm.shape + (m,), lu.dtype)
        np.put_along_axis(P, perm[..., None, :], 1, axis=-2)
    else:
        P = np.zeros((0,), lu.dtype)
    return P, L, U


def _lu_unpack_backward(grads, LU_data_shape):
    _, gL, gU = grads
    m, n = LU_data_shape[-2:]
    k = min(m, n)
    if m == n:
        return gL.tril(-1) + gU.triu()
    if m < n:
        u = gU.triu()
        return _cat([u[..., :, :k] + gL.tril(-1), u[..., :, k:]], -1)
    low = gL.tril(-1)
    return _cat([low[..., :k, :] + gU.triu(), low[..., k:, :]], -2)


lu_unpack_row = op("lu_unpack", "LuUnpackBackward0",
                   "LU_data, LU_pivots, unpack_data=True, unpack_pivots=True", _lu_unpack,
                   returns=("P", "L", "U"), differentiable_outputs=(1, 2), method=False,
                   out=(True, True, True), LU_data=_lu_unpack_backward, LU_pivots=None)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu_factor's packed result."""
    return lu_unpack_row(LU_data, LU_pivots, unpack_data, unpack_pivots)


def _lu_solve(lu, piv, b, left, adjoint):
    name = "linalg.lu_solve"
    _check_float("torch.linalg.lu_solve", lu)
    if lu.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {_name(lu)} and B of type {_name(b)} instead")
    if lu.ndim < 2 or b.ndim < 2:
        raise RuntimeError(f"torch.linalg.lu_solve: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list((lu if lu.ndim < 2 else b).shape)} instead")
    _check_square("torch.linalg.lu_solve", lu)
    rows = b.shape[-2] if left else b.shape[-1]
    if rows != lu.shape[-1]:
        raise _incompatible_shapes(name, lu, b, left)
    if piv.dtype != np.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    if piv.ndim == 0 or piv.shape[-1] != lu.shape[-1]:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension "
                           "of the matrix")
    _broadcast_batch(b.shape[:-2], lu.shape[:-2])
    _no_half(lu, "linalg.lu_solve_cpu", empty_ok=True)
    P, L, U = _lu_unpack(lu, piv, True, True)
    shape = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    if not left:
        bh = np.swapaxes(b, -1, -2).conj()
        # X A^H = B <=> A X^H = B^H;  X A = B <=> A^H X^H = B^H
        xh = _lu_solve(lu, piv, bh, True, not adjoint)
        return np.swapaxes(xh, -1, -2).conj()
    if adjoint:        # A^H X = B, A^H = U^H L^H P^T
        y = _trsm(np.swapaxes(U, -1, -2).conj(), b, False)
        y = _trsm(np.swapaxes(L, -1, -2).conj(), y, True, unit=True)
        x = np.matmul(P, y)
    else:              # A X = B, A = P L U
        y = np.matmul(np.swapaxes(P, -1, -2), b)
        y = _trsm(L, y, False, unit=True)
        x = _trsm(U, y, True)
    return np.broadcast_to(x, shape + x.shape[-2:]).copy() if x.shape[:-2] != shape else x


def _lu_solve_lu(grad, LU, pivots, result, left, adjoint):
    """The gradient for the packed factors: gA (the gradient for A = P L U, through B's
    gradient gB) pulled back to L (strictly lower) and U (upper)."""
    P, L, U = lu_unpack(LU, pivots)
    P = P.detach().to(grad.dtype)
    X = result
    gB = lu_solve_row(LU, pivots, grad, left=left, adjoint=not adjoint)
    if left:
        gA = -_mm(X, gB.mH) if adjoint else -_mm(gB, X.mH)
    else:
        gA = -_mm(gB.mH, X) if adjoint else -_mm(X.mH, gB)
    PgA = _mm(P.mT, gA)
    return _mm(PgA, U.mH).tril(-1) + _mm(L.mH, PgA).triu()


lu_solve_row = op("linalg_lu_solve", "LinalgLuSolveBackward0",
                  "LU, pivots, B, *, left=True, adjoint=False", _lu_solve, function=False,
                  method=False, LU=_lu_solve_lu, pivots=None,
                  B=lambda grad, LU, pivots, left, adjoint: lu_solve_row(
                      LU, pivots, grad, left=left, adjoint=not adjoint))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """torch.linalg.lu_solve: X with A X = B from lu_factor's (LU, pivots)."""
    return lu_solve_row(LU, pivots, B, left=left, adjoint=adjoint)


_LU_SOLVE = ("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed "
             "in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
             "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
             "torch.linalg.lu_solve(LU, pivots, B)")


@public("lu_solve", out=True, out_name="linalg_lu_solve")
def _lu_solve_public(input, LU_data, LU_pivots):
    """Deprecated: X with A X = input from lu's (LU, pivots)."""
    _warn_once(_LU_SOLVE)
    return lu_solve_row(LU_data, LU_pivots, input)


# ---- linalg.solve, solve_ex ---------------------------------------------------------------

def _is_vector_rhs(a_shape, b_shape):
    """linalg_solve_is_vector_rhs: B is a (batch of) vector(s) when it is 1-D or has A's
    shape without its last dimension (NumPy's rule)."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1
                                 and tuple(b_shape) == tuple(a_shape[:-1]))


def _lapack_kernel(a, kernel, empty_ok=False):
    """The "<kernel>" not implemented error of LAPACK kernels for non-LAPACK dtypes (empty_ok:
    as _no_half's)."""
    if empty_ok and a.size == 0:
        return
    if a.dtype.kind not in "fc" or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(a)}'")


def _solve_ex(a, b, left, check_errors):
    name = "linalg.solve"
    _float(name, a)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(a)} and B of type {_name(b)} instead")
    vector = _is_vector_rhs(a.shape, b.shape)
    b2 = b[..., None] if vector else b
    _check_square(name, a)
    _check_equation(name, a, b2, left)
    batch = _broadcast_batch(b2.shape[:-2], a.shape[:-2])
    if not left and vector:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")
    _lapack_kernel(a, "lu_cpu", empty_ok=True)
    a_b = np.broadcast_to(a, batch + a.shape[-2:])
    b_b = np.broadcast_to(b2, batch + b2.shape[-2:])
    info = np.zeros(a.shape[:-2], np.int32)
    try:
        if not b_b.size:        # (NumPy's solve refuses float16 even then)
            x = np.zeros(b_b.shape, np.result_type(a, b2))
        elif left:
            x = np.linalg.solve(a_b, b_b)
        else:           # X A = B <=> A^T X^T = B^T
            x = np.swapaxes(np.linalg.solve(np.swapaxes(a_b, -1, -2),
                                            np.swapaxes(b_b, -1, -2)), -1, -2)
    except np.linalg.LinAlgError:
        # an exact zero pivot: getrf's info and what getrs makes of it (infs, nans)
        lu, piv, info = _lu_factor(a)
        with np.errstate(all="ignore"):
            x = _lu_solve(lu, piv, b2, left, False)
    if check_errors:
        _check_errors(info, "torch.linalg.solve_ex", a.ndim > 2, "solve")
    return (x[..., 0] if vector else x), info


def _solve_backward(grads, A, result0, left, which):
    """linalg_solve_backward: gB = A^{-H} gX (gX A^{-H} for left=False), gA = -gB X^H
    (-X^H gB)."""
    vector = _is_vector_rhs(tuple(A.shape), tuple(result0.shape))
    gX = grads[0].unsqueeze(-1) if vector else grads[0]
    gB = solve_ex_row(A.mH, gX, left=left)[0]
    if which == "B":
        return gB.squeeze(-1) if vector else gB
    X = result0.unsqueeze(-1) if vector else result0
    # the minus on gB, not on the n x n product: the same values, a pass less over gA
    return _mm(-gB, X.mH) if left else _mm(X.mH, -gB)


solve_ex_row = op("_linalg_solve_ex", "LinalgSolveExBackward0",
                  "A, B, *, left=True, check_errors=False", _solve_ex,
                  returns=("result", "info"), differentiable_outputs=(0,), function=False,
                  method=False,
                  A=lambda grads, A, result0, left: _solve_backward(grads, A, result0, left, "A"),
                  B=lambda grads, A, result0, left: _solve_backward(grads, A, result0, left, "B"))


def solve_ex(A, B, *, left=True, check_errors=False):
    """torch.linalg.solve_ex: (result, info) for A X = B (X A = B with left=False)."""
    return _structseq_as("linalg_solve_ex",
                         solve_ex_row(A, B, left=left, check_errors=check_errors))


def solve(A, B, *, left=True):
    """torch.linalg.solve: X with A X = B (X A = B with left=False); B may be a (batch of)
    vector(s); LinAlgError when A is singular."""
    result, info = solve_ex_row(A, B, left=left)
    _check_errors(info._data, "torch.linalg.solve", A.dim() > 2, "solve")
    return result


# ---- eigendecompositions: linalg.eig, eigvals, eigh, eigvalsh ------------------------------

def _eig_input(name, a, stacklevel):
    _check_square(name, a)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {_name(a)}")
    if a.dtype == np.float16:
        # PyTorch allocates the complex32 result before its kernel refuses Half
        from .._dtype import warn_complex32
        warn_complex32(stacklevel)
    _no_half(a, "linalg_eig_out_cpu")
    return np.result_type(a.dtype, np.complex64)


def _eig(a):
    ctype = _eig_input("linalg.eig", a, 8)
    if a.size == 0:
        return np.zeros(a.shape[:-1], ctype), np.zeros(a.shape, ctype)
    if not np.isfinite(a).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = np.linalg.eig(a)
    return w.astype(ctype), v.astype(ctype)


def _eig_backward(grads, grads_defined, L, V, hermitian, real_input):
    """linalg_eig_backward (eig and eigh): gA = V^{-H} (diag(gL) + (V^H gV projected) / E) V^H,
    E_ij = conj(L_j - L_i); for eigh V^{-H} = V and the projection is the skew part."""
    gL, gV = grads
    eye = make_tensor(np.eye(L.shape[-1], dtype=bool))
    if not grads_defined[1]:
        if hermitian:
            return _mm(V * gL.unsqueeze(-2).to(V.dtype), V.mH)
        gA = solve_ex_row(V.mH, gL.unsqueeze(-1) * V.mH)[0]
        return FUNCTIONS["real"](gA) if real_input else gA
    VhgV = _mm(V.mH, gV)
    diag = _diag(VhgV)
    if V.is_complex() and not np.allclose(diag._data.imag, 0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(f"{'linalg_eigh_backward' if hermitian else 'linalg_eig_backward'}: "
                           "The eigenvectors in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends on "
                           "this quantity, so it is ill-defined.")
    if hermitian:
        VhgV = (VhgV - VhgV.mH) * 0.5
    else:
        VhgV = VhgV - _mm(V.mH, V * _real(diag).unsqueeze(-2))
    Lc = L.conj().to(V.dtype)
    E = _where(eye, 1.0, Lc.unsqueeze(-2) - Lc.unsqueeze(-1))
    gA = VhgV / E
    if grads_defined[0]:
        gA = _where(eye, _diag_embed(gL.to(V.dtype)), gA)
    if hermitian:
        return _mm(V, _mm(gA, V.mH))
    gA = solve_ex_row(V.mH, _mm(gA, V.mH))[0]
    return FUNCTIONS["real"](gA) if real_input else gA


eig_row = op("linalg_eig", "LinalgEigBackward0", "self", _eig,
             returns=("eigenvalues", "eigenvectors"), function=False, method=False,
             self=lambda grads, grads_defined, self, result0, result1: _eig_backward(
                 grads, grads_defined, result0, result1, False, not self.is_complex()))


def eig(A):
    """torch.linalg.eig: complex (eigenvalues, eigenvectors), the vectors of unit norm."""
    return _structseq_as("linalg_eig", eig_row(A))


def eigvals(A):
    """torch.linalg.eigvals: the complex eigenvalues; through eig when A requires grad (its
    gradient needs the vectors), as PyTorch does."""
    if _may_need_derivative(A):
        return eig_row(A)[0]
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.eigvals: The input tensor A must have at least 2 dimensions.")
    ctype = _eig_input("linalg.eigvals", a, 5)
    if a.size == 0 or not np.isfinite(a).all():
        return make_tensor(np.full(a.shape[:-1], np.nan if a.size else 0, ctype))
    return make_tensor(np.linalg.eigvals(a).astype(ctype))


def _eigh(a, UPLO, compute_v):
    _check_square("linalg.eigh", a)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _lapack_kernel(a, "linalg_eigh_cpu", empty_ok=True)
    if a.size == 0:
        w, v = np.zeros(a.shape[:-1], a.real.dtype), a.copy()
    elif compute_v:
        w, v = np.linalg.eigh(a, UPLO.upper())
    else:
        w, v = np.linalg.eigvalsh(a, UPLO.upper()), None
    return w, (v if compute_v else np.zeros((0,), a.dtype))


eigh_row = op("_linalg_eigh", "LinalgEighBackward0", "A, UPLO='L', compute_v=True", _eigh,
              returns=("eigenvalues", "eigenvectors"), function=False, method=False,
              A=lambda grads, grads_defined, result0, result1: _eig_backward(
                  grads, grads_defined, result0, result1, True, False))


def eigh(A, UPLO="L"):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of a Hermitian matrix, read
    from its lower (UPLO='L') or upper triangle."""
    return _structseq_as("linalg_eigh", eigh_row(A, UPLO, True))


def eigvalsh(A, UPLO="L"):
    """torch.linalg.eigvalsh: the eigenvalues of a Hermitian matrix (the vectors are computed
    too when A requires grad: the gradient needs them)."""
    return eigh_row(A, UPLO, _may_need_derivative(A))[0]


# ---- least squares: linalg.lstsq ----------------------------------------------------------

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq(a, b, rcond, driver):
    name = "torch.linalg.lstsq"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_name(a)} and other's dtype {_name(b)}")
    diff = a.ndim - b.ndim
    if not 0 <= diff <= 1:
        raise RuntimeError(f"{name}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    b2 = b[..., None] if diff else b
    batch = _broadcast_batch(a.shape[:-2], b2.shape[:-2])
    if a.shape[-2] != b2.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size("
                           f"{-1 if diff else -2})")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    if a.dtype.kind not in "fc" or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    m, n = a.shape[-2:]
    k = b2.shape[-1]
    real = a.real.dtype
    if rcond is None:
        rcond = np.finfo(real).eps * max(m, n)
    nan = np.isnan(a).any((-2, -1))
    if nan.any():
        # MKL's argument check refuses NaNs, and PyTorch reports it as its own bug
        prefix, _ = _batch_prefix(nan, a.ndim > 2)
        raise RuntimeError("false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/"
                           "native/BatchLinearAlgebra.cpp\":1613, please report a bug to PyTorch. "
                           f"{name}: {prefix}Argument {5 if driver == 'gels' else 4} has illegal "
                           "value. Most certainly there is a bug in the implementation calling "
                           "the backend library.")
    if a.size == 0 or b2.size == 0:
        s = np.zeros(a.shape[:-2] + (min(m, n),), real)
        x = np.zeros(batch + (n, k), a.dtype)
    else:
        u, s, vh = _np_svd(a, full_matrices=False)
    if driver == "gels" and a.size:
        # gels factors A (m >= n) or A^H (m < n) by QR and fails on an exact zero in R
        r = np.linalg.qr(a if m >= n else np.swapaxes(a, -1, -2).conj(), mode="r")
        d = np.diagonal(r, 0, -2, -1) == 0
        info = np.where(d.any(-1), d.argmax(-1) + 1, 0).astype(np.int32)
        _check_errors(info, name, a.ndim > 2, "lstsq")
    if a.size and b2.size:
        # every driver's answer on a matrix of well-defined rank: the minimum-norm solution,
        # singular values at or below rcond * the largest dropped
        keep = s > rcond * s[..., :1]
        with np.errstate(divide="ignore"):
            sinv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(real)
        uhb = np.matmul(np.swapaxes(u, -1, -2).conj(), b2)
        x = np.matmul(np.swapaxes(vh, -1, -2).conj(), sinv[..., None] * uhb)
        x = np.broadcast_to(x, batch + (n, k)).astype(a.dtype)
    rank = (np.zeros((0,), np.int64) if driver == "gels" else
            (s > rcond * s[..., :1]).sum(-1).astype(np.int64) if a.size else
            np.zeros(a.shape[:-2], np.int64))
    residuals = np.zeros((0,), real)
    if m > n and driver != "gelsy" and (driver == "gels" or np.all(rank == n)):
        r = np.matmul(a, x) - b2
        residuals = (r.real ** 2 + r.imag ** 2 if r.dtype.kind == "c" else r ** 2).sum(-2)
        if driver == "gels" and a.size == 0:
            residuals = residuals * 0      # gels never runs on an empty A: its rows stay 0
    values = s.astype(real) if driver in ("gelsd", "gelss") else np.zeros((0,), real)
    return (x[..., 0] if diff else x), residuals.astype(real), rank, values


def _lstsq_backward(grads, grads_defined, self, b, result0, which):
    """linalg_lstsq_backward: the solution's gradient through pinv(A) (pinvA^H gX for B,
    pinv_backward of gX B^H for A); the residuals' ||A X - B||^2 add 2 (A X - B) X^H and
    -2 (A X - B) (X is optimal, so its own variation does not count)."""
    gX, gR = grads[:2]
    vector = self.dim() - b.dim() == 1
    B = b.unsqueeze(-1) if vector else b
    g = None
    if grads_defined[0]:
        gXm = gX.unsqueeze(-1) if vector else gX
        pinvA = pinv_row(self, None, None, False)
        g = (_pinv_backward(_mm(gXm, B.mH), self, pinvA) if which == "self"
             else _mm(pinvA.mH, gXm))
    if grads_defined[1] and gR.numel():
        X = result0.unsqueeze(-1) if vector else result0
        R = (_mm(self, X) - B) * gR.unsqueeze(-2).to(self.dtype)
        gr = _mm(R, X.mH) * 2 if which == "self" else R * -2
        g = gr if g is None else g + gr
    if g is None:
        return None
    return g.squeeze(-1) if which == "b" and vector else g


lstsq_row = op("linalg_lstsq", "LinalgLstsqBackward0", "self, b, rcond=None, *, driver=None",
               _lstsq, returns=("solution", "residuals", "rank", "singular_values"),
               differentiable_outputs=(0, 1), function=False, method=False,
               self=lambda grads, grads_defined, self, b, result0: _lstsq_backward(
                   grads, grads_defined, self, b, result0, "self"),
               b=lambda grads, grads_defined, self, b, result0: _lstsq_backward(
                   grads, grads_defined, self, b, result0, "b"))


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: (solution, residuals, rank, singular_values) as PyTorch fills them
    on the CPU for the driver (gelsy by default)."""
    return _structseq_as("linalg_lstsq", lstsq_row(A, B, rcond, driver=driver))


# ---- linalg.lu ----------------------------------------------------------------------------

def _linalg_lu(a, pivot):
    if a.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    _lapack_kernel(a, "lu_cpu", empty_ok=True)
    m, n = a.shape[-2:]
    if a.size == 0:
        k = min(m, n)
        return (np.broadcast_to(np.eye(m, dtype=a.dtype), a.shape[:-2] + (m, m)).copy(),
                np.zeros(a.shape[:-2] + (m, k), a.dtype), np.zeros(a.shape[:-2] + (k, n), a.dtype))
    lu, piv, _ = _lu_factor(a)
    return _lu_unpack(lu, piv, True, True)


linalg_lu_row = op("linalg_lu", "LinalgLuBackward0", "A, *, pivot=True", _linalg_lu,
                   returns=("P", "L", "U"), differentiable_outputs=(1, 2), function=False,
                   method=False,
                   A=lambda grads, pivot, result0, result1, result2: _lu_backward(
                       grads[1], grads[2], result0, result1, result2, pivot))


def linalg_lu(A, *, pivot=True):
    """torch.linalg.lu: (P, L, U) with A = P L U."""
    return _structseq_as("linalg_lu", linalg_lu_row(A, pivot=pivot))


# ---- norms, condition number, rank: PyTorch's composites (LinearAlgebra.cpp) ---------------

def _linalg_norm_dtype(dtype, input_dtype, name):
    """at::detail::check_linalg_norm_dtype."""
    if dtype is None:
        return
    from .. import _dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype.legacy}")
    if dtype.is_complex != input_dtype.is_complex:
        kind = "complex" if input_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got "
                           f"{dtype.legacy}")
    if _dtype.promote_types(input_dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({input_dtype.legacy}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({dtype.legacy})")


def _matrix_norm_dims(A, dim, dtype, low_precision):
    """_linalg_matrix_norm_checks: the two wrapped dims, with PyTorch's errors."""
    name = "linalg.matrix_norm"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    a = A._data
    _check_float(name, a)
    if not low_precision:
        _no_low_precision(name, a)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dims))
    dims = [wrap_dim(d, A.dim()) for d in dims]
    if dims[0] == dims[1]:
        raise RuntimeError(f"{name}: dims must be different. Got ({dims[0]}, {dims[1]})")
    _linalg_norm_dtype(dtype, A.dtype, name)
    return dims


def _backshift(A, d0, d1):
    """create_dim_backshift_permutation: d0, d1 moved last."""
    return [d for d in range(A.dim()) if d not in (d0, d1)] + [d0, d1]


def _unshift(result, permutation):
    return result.unsqueeze(-1).permute(list(np.argsort(permutation)))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """torch.linalg.matrix_norm: 'fro', 'nuc', 2, -2 (largest / smallest singular value),
    1, -1, inf, -inf (max / min absolute column / row sum), composed as PyTorch does."""
    from ..ops.reduction import vector_norm
    if not isinstance(A, Tensor):
        # the parser's error (both of PyTorch's declarations take a lone input)
        raise _not_tensor("linalg_matrix_norm", "input", 1, A)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        d0, d1 = _matrix_norm_dims(A, dim, dtype, ord != "nuc")
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
        A_ = A if dtype is None else A.to(dtype)
        permutation = _backshift(A_, d0, d1)
        result = svdvals(A_.permute(permutation)).sum(-1, keepdim)
        return _unshift(result, permutation) if keepdim else result
    if isinstance(ord, complex):
        raise RuntimeError("linalg.matrix_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    if abs(ord) not in (1, 2, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {_scalar_str(ord)} not supported.")
    d0, d1 = _matrix_norm_dims(A, dim, dtype, abs(ord) != 2)
    if A.numel() == 0 and ord > 0:
        # an empty matrix's largest anything is 0
        shape = [1 if i in (d0, d1) else s for i, s in enumerate(A.shape)] if keepdim else \
            [s for i, s in enumerate(A.shape) if i not in (d0, d1)]
        return make_tensor(np.zeros(shape, (dtype.np if dtype else A._data.dtype).type(0)
                                    .real.dtype))

    def max_min(t, d):
        return t.amax(d, keepdim) if ord > 0 else t.amin(d, keepdim)
    if abs(ord) == 2:
        permutation = _backshift(A, d0, d1)
        A_ = A if dtype is None else A.to(dtype)
        result = max_min(svdvals(A_.permute(permutation)), -1)
        return _unshift(result, permutation) if keepdim else result
    if ord in (float("inf"), -float("inf")):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    return max_min(vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype), d1)


def _scalar_str(x):
    """A Scalar as PyTorch's messages print it (3, 2.5, inf)."""
    return str(int(x)) if float(x).is_integer() else str(x)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm (1-D, or dim of length 1) or a matrix norm (2-D, or
    dim of length 2); ord=None is the 2-norm of the flattened input."""
    from ..ops.reduction import vector_norm
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{dims}")
    if dims is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.dim()}D.")
    if isinstance(ord, str) or (ord is not None and (
            (dims is not None and len(dims) == 2) or (dims is None and A.dim() == 2))):
        return matrix_norm(A, ord, (0, 1) if dims is None else dims, keepdim, dtype=dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


_COND_ORDS = (1, -1, 2, -2, float("inf"), -float("inf"), "fro", "nuc")


def cond(A, p=None):
    """torch.linalg.cond: the condition number in the norm p (2 by default: the ratio of the
    extreme singular values; else norm(A) * norm(A^-1), inf where A is singular)."""
    ord = 2 if p is None else p
    if not isinstance(ord, str) and A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if ord not in _COND_ORDS:
        shown = ord if isinstance(ord, str) else _scalar_str(ord) if float(ord).is_integer() \
            else str(float(ord))
        raise RuntimeError(f"linalg.cond got an invalid norm type: {shown}")
    if isinstance(ord, str) or abs(ord) != 2:
        # std::to_string of the Scalar: an int as it is, a double with 6 decimals
        label = ord if isinstance(ord, str) else str(ord) if not isinstance(ord, float) else (
            "inf" if ord == float("inf") else "-inf" if ord == -float("inf") else f"{ord:.6f}")
        _check_square(f"linalg.cond(ord={label})", A._data)
    if A.numel() == 0:
        return make_tensor(np.zeros(tuple(A.shape[:-2]), A._data.real.dtype))
    if not isinstance(ord, str) and abs(ord) == 2:
        S = svdvals(A)
        s_max, s_min = S.narrow(-1, 0, 1), S.narrow(-1, -1, 1)
        return (s_min / s_max if ord == -2 else s_max / s_min).squeeze(-1)
    if ord == "nuc":
        # nuc(A^-1) is the sum of 1 / S (inf for a singular A)
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    info = info.unsqueeze(-1).unsqueeze(-1)
    inverse.masked_fill_(info > 0, float("inf"))
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    return result.nan_to_num_(float("inf"), float("inf"), -float("inf"))


def _tolerance(name, value, arg):
    """atol / rtol given as a number or a real tensor, as float64 (get_atol_rtol)."""
    if isinstance(value, Tensor):
        if value.is_complex():
            raise RuntimeError(f"{name}: {arg} tensor of complex type is not supported. Got "
                               f"{value.dtype.legacy}")
        return value._data.astype(np.float64)
    return np.float64(value)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """torch.linalg.matrix_rank: how many singular values (absolute eigenvalues with
    hermitian=True) exceed max(atol, rtol * the largest); `tol` is the legacy atol."""
    a = A._data
    if a.dtype.kind not in "fc" or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    name = "torch.linalg.matrix_rank"
    atol_ = np.float64(0) if atol is None else _tolerance(name, atol, "atol")
    if rtol is not None:
        rtol_ = _tolerance(name, rtol, "rtol")
    else:
        default = np.finfo(a.real.dtype).eps * max(a.shape[-2:])
        rtol_ = np.float64(default) if atol is None else np.where(atol_ > 0, 0.0, default)
    if a.size == 0:
        return make_tensor(np.zeros(a.shape[:-2], np.int64))
    if hermitian:
        S = np.abs(np.linalg.eigvalsh(a))
        top = S.max(-1, keepdims=True)
    else:
        S = _np_svd(a, compute_uv=False)
        top = S[..., :1]
    tolerance = np.maximum(np.asarray(atol_)[..., None], np.asarray(rtol_)[..., None] * top)
    rank = np.asarray((S > tolerance).sum(-1), dtype=np.int64)
    if rank.shape != a.shape[:-2] and np.prod(a.shape[:-2]) > 0:
        # PyTorch sums into a result shaped by A's batch, resized when tolerances broadcast it
        import warnings
        from .registry import _OUT_RESIZED
        warnings.warn(_OUT_RESIZED.format(sizes_str(a.shape[:-2]), sizes_str(rank.shape)),
                      UserWarning, stacklevel=3)
    return make_tensor(rank)


def tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a prod(shape[:ind]) square matrix,
    shaped shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = list(A.shape[ind:]), list(A.shape[:ind])
    n_end, n_start = int(np.prod(end)), int(np.prod(start))
    if n_end != n_start:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {n_end} != {n_start}")
    result, info = inv_ex(A.reshape(n_end, n_end))
    _check_errors(info._data, "inv", False, "lu")
    return result.reshape(end + start)


def tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B, by one matrix solve
    (dims are moved last first)."""
    ndim = A.dim()
    if dims is not None:
        dims = list(dims)
        A = A.movedim(dims, list(range(ndim - len(dims), ndim)))
    shape = list(A.shape[B.dim():])
    n, other = int(np.prod(shape)), B.numel()
    if n != other:
        raise RuntimeError("Expected self to satisfy the requirement "
                           "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but "
                           f"got {n} != {other}")
    return solve(A.reshape(n, n), B.flatten()).reshape(shape)


# ---- LDL: linalg.ldl_factor, ldl_factor_ex, ldl_solve -------------------------------------
# Note [LDL]
# LAPACK's sytf2 / hetf2 (lower), the Bunch-Kaufman factorization P A P^T = L D L^H with 1x1
# and 2x2 diagonal blocks. Each matrix of a batch advances by its own block size, so the
# loop keeps one column pointer per matrix and every step gathers each matrix's column;
# the trailing matrix is kept whole (Hermitian or symmetric), so LAPACK's interchanges of
# its lower triangle are a swap of two rows and columns.

_BK_ALPHA = (1 + np.sqrt(17.0)) / 8


def _cabs1(z):
    """LAPACK's |re| + |im| (izamax's measure); |x| for real x."""
    return np.abs(z.real) + np.abs(z.imag) if z.dtype.kind == "c" else np.abs(z)


def _sym_update(S, rows, lower, herm):
    """Write `lower` (m, n, n: its lower triangle, LAPACK's) into S[rows] and mirror it."""
    tri = np.tril(lower)
    upper = np.swapaxes(np.tril(lower, -1), -1, -2)
    S[rows] = tri + (upper.conj() if herm else upper)


def _ldl_factor(a, hermitian):
    n = a.shape[-1]
    flat = _batch_matrices(a)
    herm = hermitian and a.dtype.kind == "c"
    # the matrix LAPACK sees: the lower triangle, mirrored (diagonal real if Hermitian)
    S = np.array(flat, copy=True)
    _sym_update(S, slice(None), S, herm)
    if herm:
        idx = np.arange(n)
        S[:, idx, idx] = S[:, idx, idx].real
    count = S.shape[0]
    LD = np.zeros_like(S)
    piv = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    k = np.zeros(count, np.int64)
    ar = np.arange(n)
    while np.any(k < n):
        b = np.flatnonzero(k < n)
        kb = k[b]
        diag = S[b, kb, kb]
        absakk = np.abs(diag.real) if herm else _cabs1(diag)
        col = _cabs1(S[b, :, kb])
        below = ar[None, :] > kb[:, None]
        col = np.where(below, col, -1.0)
        imax = col.argmax(-1)
        colmax = np.maximum(col.max(-1), 0.0)
        zero = (np.maximum(absakk, colmax) == 0) | np.isnan(absakk)
        info[b[zero & (info[b] == 0)]] = (kb[zero & (info[b] == 0)] + 1).astype(np.int32)
        # rowmax: the largest off-diagonal of row imax in the trailing matrix
        row = _cabs1(S[b, imax, :])
        row = np.where((ar[None, :] >= kb[:, None]) & (ar[None, :] != imax[:, None]), row, -1.0)
        rowmax = np.maximum(row.max(-1), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            keep = (absakk >= _BK_ALPHA * colmax) | zero | \
                (absakk >= _BK_ALPHA * colmax * (colmax / rowmax))
        dmax = S[b, imax, imax]
        one_at_imax = ~keep & ((np.abs(dmax.real) if herm else _cabs1(dmax)) >=
                               _BK_ALPHA * rowmax)
        kp = np.where(keep, kb, imax)
        step = np.where(keep | one_at_imax, 1, 2)
        kk = kb + step - 1
        swap = kp != kk
        if swap.any():
            s_, i_, j_ = b[swap], kk[swap], kp[swap]
            S[s_, i_, :], S[s_, j_, :] = S[s_, j_, :].copy(), S[s_, i_, :].copy()
            S[s_, :, i_], S[s_, :, j_] = S[s_, :, j_].copy(), S[s_, :, i_].copy()
        trail = (ar[None, :] > kb[:, None])
        one = (step == 1) & ~zero
        if zero.any():
            z, kz = b[zero], kb[zero]
            LD[z, :, kz] = np.where(ar[None, :] >= kz[:, None], S[z, :, kz], 0)
        if one.any():
            o, ko, t = b[one], kb[one], trail[one]
            d = S[o, ko, ko]
            r1 = 1 / (d.real if herm else d)
            x = np.where(t, S[o, :, ko], 0)
            temp = -r1[:, None] * (x.conj() if herm else x)
            lower = S[o] + x[:, :, None] * temp[:, None, :]
            if herm:
                lower[:, ar, ar] = lower[:, ar, ar].real
            _sym_update(S, o, lower, herm)
            LD[o, ko, ko] = d.real if herm else d
            LD[o, :, ko] += x * r1[:, None]
        two = step == 2
        if two.any():
            w, kw = b[two], kb[two]
            rest = ar[None, :] > kw[:, None] + 1
            c0 = np.where(rest, S[w, :, kw], 0)
            c1 = np.where(rest, S[w, :, kw + 1], 0)
            a21 = S[w, kw + 1, kw]
            if herm:
                dd = np.abs(a21)
                d11, d22 = S[w, kw + 1, kw + 1].real / dd, S[w, kw, kw].real / dd
                tt = 1 / (d11 * d22 - 1)
                d21 = a21 / dd
                dd = tt / dd
                wk = dd[:, None] * (d11[:, None] * c0 - d21[:, None] * c1)
                wkp1 = dd[:, None] * (d22[:, None] * c1 - d21.conj()[:, None] * c0)
                lower = S[w] - c0[:, :, None] * wk.conj()[:, None, :] \
                    - c1[:, :, None] * wkp1.conj()[:, None, :]
                lower[:, ar, ar] = lower[:, ar, ar].real
            else:
                d11, d22 = S[w, kw + 1, kw + 1] / a21, S[w, kw, kw] / a21
                tt = 1 / (d11 * d22 - 1)
                d21 = tt / a21
                wk = d21[:, None] * (d11[:, None] * c0 - c1)
                wkp1 = d21[:, None] * (d22[:, None] * c1 - c0)
                lower = S[w] - c0[:, :, None] * wk[:, None, :] - c1[:, :, None] * wkp1[:, None, :]
            _sym_update(S, w, lower, herm)
            LD[w, kw, kw] = S[w, kw, kw]
            LD[w, kw + 1, kw] = a21
            LD[w, kw + 1, kw + 1] = S[w, kw + 1, kw + 1]
            LD[w, :, kw] += wk
            LD[w, :, kw + 1] += wkp1
        piv[b, kb] = np.where(step == 1, kp + 1, -(kp + 1))
        second = b[step == 2]
        piv[second, kb[step == 2] + 1] = -(kp[step == 2] + 1)
        k[b] = kb + step
    return LD.reshape(a.shape), piv.reshape(a.shape[:-1]), info.reshape(a.shape[:-2])


def _ldl_solve(ld, piv, b, hermitian):
    """LAPACK's sytrs / hetrs (lower): L D X = P B by blocks, then L^H X = X and the swaps
    back, one block pointer per matrix (Note [LDL])."""
    n, nrhs = ld.shape[-1], b.shape[-1]
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    herm = hermitian and ld.dtype.kind == "c"
    L = np.broadcast_to(ld, batch + (n, n)).reshape(-1, n, n)
    P = np.broadcast_to(piv, batch + (n,)).reshape(-1, n).astype(np.int64)
    X = np.array(np.broadcast_to(b, batch + (n, nrhs)), dtype=ld.dtype).reshape(-1, n, nrhs)
    ar = np.arange(n)
    conj = np.conj if herm else (lambda z: z)

    def swap(rows, i, j):
        X[rows, i], X[rows, j] = X[rows, j].copy(), X[rows, i].copy()

    k = np.zeros(X.shape[0], np.int64)
    while np.any(k < n):
        at = np.flatnonzero(k < n)
        kb = k[at]
        p = P[at, kb]
        one = p > 0
        o, ko = at[one], kb[one]
        swap(o, ko, p[one] - 1)
        col = np.where(ar[None, :] > ko[:, None], L[o, :, ko], 0)
        X[o] -= col[:, :, None] * X[o, ko][:, None, :]
        d = L[o, ko, ko]
        X[o, ko] *= (1 / (d.real if herm else d))[:, None]
        t, kt = at[~one], kb[~one]
        swap(t, kt + 1, -p[~one] - 1)
        rest = ar[None, :] > kt[:, None] + 1
        c0, c1 = np.where(rest, L[t, :, kt], 0), np.where(rest, L[t, :, kt + 1], 0)
        X[t] -= c0[:, :, None] * X[t, kt][:, None, :]
        X[t] -= c1[:, :, None] * X[t, kt + 1][:, None, :]
        a21 = L[t, kt + 1, kt]
        akm1, ak = L[t, kt, kt] / conj(a21), L[t, kt + 1, kt + 1] / a21
        denom = (akm1 * ak - 1)[:, None]
        bkm1, bk = X[t, kt] / conj(a21)[:, None], X[t, kt + 1] / a21[:, None]
        X[t, kt] = (ak[:, None] * bkm1 - bk) / denom
        X[t, kt + 1] = (akm1[:, None] * bk - bkm1) / denom
        k[at] = kb + np.where(one, 1, 2)
    k = np.full(X.shape[0], n - 1, np.int64)
    while np.any(k >= 0):
        at = np.flatnonzero(k >= 0)
        kb = k[at]
        p = P[at, kb]
        one = p > 0
        below = ar[None, :] > kb[:, None]
        col = conj(np.where(below, L[at, :, kb], 0))
        X[at, kb] -= np.einsum("bi,bij->bj", col, X[at])
        two = ~one
        t, kt = at[two], kb[two]
        prev = conj(np.where(below[two], L[t, :, kt - 1], 0))
        X[t, kt - 1] -= np.einsum("bi,bij->bj", prev, X[t])
        swap(at, kb, np.where(one, p, -p) - 1)
        k[at] = kb - np.where(one, 1, 2)
    return X.reshape(batch + (n, nrhs))


def _ldl_factor_ex(a, hermitian, check_errors, name="torch.linalg.ldl_factor_ex"):
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_square("torch.linalg.ldl_factor_ex", a)
    _float("torch.linalg.ldl_factor_ex", a)
    _lapack_kernel(a, "ldl_factor_kernel_cpu", empty_ok=True)
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-1], np.int32), np.zeros(a.shape[:-2], np.int32)
    LD, piv, info = _ldl_factor(a, hermitian)
    if check_errors and np.any(info):
        # sic: PyTorch's check knows no error code of sytrf and fails an internal assert
        code = int(info.reshape(-1)[np.flatnonzero(info)[0]])
        raise RuntimeError("false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/"
                           "native/BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. "
                           f"{name}: Unknown error code: {code}.")
    return LD, piv, info


ldl_factor_ex_row = op("linalg_ldl_factor_ex", NOT_IMPLEMENTED,
                       "self, *, hermitian=False, check_errors=False", _ldl_factor_ex,
                       returns=("LD", "pivots", "info"), differentiable_outputs=(0,),
                       function=False, method=False,
                       self=no_derivative("aten::linalg_ldl_factor_ex"))


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """torch.linalg.ldl_factor_ex: (LD, pivots, info), LAPACK's Bunch-Kaufman factorization of
    the lower triangle of a symmetric (or, with hermitian=True, Hermitian) matrix."""
    return _structseq_as("linalg_ldl_factor_ex",
                         ldl_factor_ex_row(A, hermitian=hermitian, check_errors=check_errors))


def ldl_factor(A, *, hermitian=False):
    """torch.linalg.ldl_factor: (LD, pivots); an exactly singular D fails as PyTorch's does."""
    LD, piv, info = ldl_factor_ex_row(A, hermitian=hermitian)
    if np.any(info._data):
        _ldl_factor_ex(A._data, hermitian, True, "torch.linalg.ldl_factor")
    return _structseq_as("linalg_ldl_factor", (LD, piv), ("LD", "pivots"))


def _ldl_solve_checks(ld, piv, b, hermitian):
    name = "torch.linalg.ldl_solve"
    _check_square(name, ld)
    _check_float(name, ld)
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(b)} and A of type {_name(ld)} instead.")
    if b.ndim < 2:      # the size check reads b.size(-2)
        raise IndexError("Dimension specified as -2 but tensor has no dimensions" if not b.ndim
                         else "Dimension out of range (expected to be in range of [-1, 0], but "
                         "got -2)")
    if b.shape[-2] != ld.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is "
                           f"{ld.shape[-2]} by {ld.shape[-1]} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(piv.shape)} instead")
    if piv.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_name(piv)}")
    shape = _broadcast_batch(b.shape[:-2], ld.shape[:-2])
    if not b.size:
        return np.zeros(shape + b.shape[-2:], b.dtype)
    _no_half(ld, "ldl_solve_kernel_cpu")
    return _ldl_solve(ld, piv, b, hermitian)


ldl_solve_row = op("linalg_ldl_solve", NOT_IMPLEMENTED, "LD, pivots, B, *, hermitian=False",
                   _ldl_solve_checks, function=False, method=False,
                   LD=no_derivative("aten::linalg_ldl_solve"), pivots=None,
                   B=no_derivative("aten::linalg_ldl_solve"))


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """torch.linalg.ldl_solve: X with A X = B from ldl_factor's (LD, pivots)."""
    return ldl_solve_row(LD, pivots, B, hermitian=hermitian)


# ---- functions PyTorch removed: the name stays, the call raises ---------------------------

_REMOVED = {
    "lstsq": (
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
        "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
        "arguments and does not return the QR decomposition in the returned tuple (although it "
        "returns other information about the problem).\n\nTo get the QR decomposition consider "
        "using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals "
        "of the solution in the last m - n columns of the returned value whenever m > n. In "
        "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named "
        "tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:"
        "A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution", True),
    "matrix_rank": (
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'.", False),
    "symeig": (
        "This function was deprecated since version 1.9 and is now removed. The default "
        "behavior has changed from using the upper triangular portion of the matrix by default "
        "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should "
        "be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = "
        "torch.linalg.eigh(A, UPLO='U' if upper else 'L')", True),
    "eig": (
        "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
        "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
        "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
        "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)", True),
}


def _removed(name):
    message, method = _REMOVED[name]

    def deco(f):
        # PyTorch's Python function binds its arguments before it raises: torch.lstsq(x) is
        # Python's TypeError for the missing argument, under the function's name
        f.__qualname__ = name

        def function(*args, **kwargs):
            f(*args, **kwargs)
            raise RuntimeError(message)
        function.__name__ = function.__qualname__ = name
        function.__signature__ = __import__("inspect").signature(f)
        function.__doc__ = "Removed from PyTorch: raises its error pointing to torch.linalg."
        return public(name, method=method)(function)
    return deco


@_removed("lstsq")
def _lstsq(input, A, *, out=None): ...


@_removed("matrix_rank")
def _matrix_rank(input, tol=None, symmetric=False, *, out=None): ...


@_removed("symeig")
def _symeig(input, eigenvectors=False, upper=True, *, out=None): ...


@_removed("eig")
def _eig(input, eigenvectors=False): ...


# ---- randomized low-rank SVD and PCA (torch._lowrank, Halko et al. 2009) -------------------

def _approximate_basis(A, q, niter, M=None):
    """An orthonormal basis of A's range from a random projection (torch.randn, so the same
    seed draws the same matrix as PyTorch), refined by niter power iterations."""
    from .._creation import randn
    dtype = A.dtype if A.is_complex() or A.is_floating_point() else FROM_NP[np.dtype(np.float32)]
    R = randn(A.shape[-1], q, dtype=dtype)
    X = _mm(A, R)
    if M is not None:
        X = X - _mm(M, R)
    Q = qr_row(X, "reduced")[0]
    for _ in range(niter):
        X = _mm(A.mH, Q)
        if M is not None:
            X = X - _mm(M.mH, Q)
        Q = qr_row(X, "reduced")[0]
        X = _mm(A, Q)
        if M is not None:
            X = X - _mm(M, Q)
        Q = qr_row(X, "reduced")[0]
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, 2 if niter is None else niter, M)
    B = _mm(Q.mH, A)
    if M is not None:
        B = B - _mm(Q.mH, M)
    U, S, Vh = _svd_row(B, False, True)
    V = Vh.mH
    U = _mm(Q, U)
    if m < n:
        U, V = V, U
    return U, S, V


@public("svd_lowrank", method=False)
def svd_lowrank(A, q=6, niter=2, M=None):
    """Randomized rank-q SVD (U, S, V) of A (or of A - M)."""
    return _svd_lowrank(A, q, niter, M)


@public("pca_lowrank", method=False)
def pca_lowrank(A, q=None, center=True, niter=2):
    """Randomized PCA: (U, S, V) of the column-centered A, rank q (default min(6, m, n))."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter)


# Note [Argument parser checks]: PyTorch's declarations of the functions above
declare("logdet(Tensor input)", "det(Tensor input)", "inverse(Tensor input, *, Tensor? out=None)",
        "slogdet(Tensor input)",
        Overloads("nuclear_norm", ["(Tensor input, tuple of ints dim, bool keepdim = False, *, "
                                   "Tensor out = None)",
                                   "(Tensor input, bool keepdim = False, *, Tensor out = None)"],
                  fast=(0, 1)), method=False)
declare("svd(Tensor input, bool some=True, bool compute_uv=True)",
        "pinverse(Tensor input, float rcond=1e-15)", "qr(Tensor input, bool some=True)",
        "cholesky(Tensor input, bool upper=False)",
        "cholesky_inverse(Tensor input, bool upper=False)")


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("triangular_solve(Tensor input, Tensor A, bool upper=True, bool transpose=False, "
        "bool unitriangular=False)", "lu_solve(Tensor input, Tensor LU_data, Tensor LU_pivots)",
        "orgqr(Tensor input, Tensor input2)",
        "ormqr(Tensor input, Tensor input2, Tensor input3, bool left=True, bool transpose=False)",
        function=False)
