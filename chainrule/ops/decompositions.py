"""Decompositions and solvers on NumPy's LAPACK: the rows behind torch's top-level det,
slogdet, inverse, cholesky, qr, svd, lu, triangular_solve, ... and the torch.linalg functions
they call (torch.det(x).grad_fn is LinalgDetBackward0), so chainrule.linalg exposes the
same rows.

Every row works on batches (..., m, n). NumPy's gufuncs do most of the work; LU (which
NumPy does not expose) is a partial-pivoting elimination looped over columns and
vectorized over the batch, picking pivots as LAPACK's getf2 does, so torch.lu's pivots
and LinAlgError's "diagonal element" index agree with PyTorch's.
"""
import numpy as np

from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from .linalg import _matmul_impl
from .registry import FUNCTIONS, op, public

__all__ = ["LinAlgError", "inv", "inv_ex"]


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a decomposition or solve failed on ill-conditioned input."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _name(a):
    return FROM_NP[a.dtype].legacy


def _check_float(name, a):
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_name(a)}")


def _check_square(name, a, arg="A"):
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
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
    flat = lu.reshape((-1, m, n))
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
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2], np.int32)
    try:
        inverse = np.linalg.inv(a)
        info = np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        _, _, info = _lu_factor(a)
        with np.errstate(all="ignore"):
            eye = np.eye(a.shape[-1], dtype=a.dtype)
            inverse = np.stack([np.linalg.inv(x) if i == 0 else np.full_like(x, np.nan)
                                for x, i in zip(a.reshape((-1,) + a.shape[-2:]),
                                                info.reshape(-1))]).reshape(a.shape) + 0 * eye
    if check_errors:
        _check_errors(info, "linalg.inv_ex", a.ndim > 2, "lu")
    return inverse, info


inv_ex = op("linalg_inv_ex", "LinalgInvExBackward0", "A, *, check_errors=False", _inv_ex,
            returns=("inverse", "info"), differentiable_outputs=(0,), function=False,
            method=False,
            A=lambda grads, result0: -_matmul_impl(result0.mH, _matmul_impl(grads[0], result0.mH)))


def inv(A):
    """torch.linalg.inv: inv_ex, then LinAlgError for a singular matrix."""
    inverse, info = inv_ex(A)
    _check_errors(info._data, "linalg.inv", A.dim() > 2, "lu")
    return inverse


@public("inverse", out=True, out_name="linalg_inv")
def inverse(input):
    """The inverse of a square matrix (batched); LinAlgError when singular."""
    return inv(input)
