"""torch.linalg: the functions PyTorch's top-level names call (torch.det is linalg.det,
torch.inverse is linalg.inv, torch.qr is linalg.qr, ...), on the same op rows
(ops/decompositions.py, ops/linalg.py). Its full surface is a later issue."""
from ..ops.decompositions import (LinAlgError, cholesky_ex, det, householder_product, inv,
                                  inv_ex, lu_factor, lu_factor_ex, lu_solve, pinv, qr, slogdet,
                                  solve_triangular, svd, svdvals)
from ..ops.decompositions import linalg_cholesky as cholesky
from ..ops.linalg import linalg_cross as _cross_row, matrix_exp, multi_dot, _matrix_power
from ..ops.reduction import vector_norm

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "householder_product",
           "inv", "inv_ex", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp",
           "matrix_power", "multi_dot", "pinv", "qr", "slogdet", "solve_triangular", "svd",
           "svdvals", "vector_norm"]


def cross(input, other, *, dim=-1):
    """Cross product of 3-vectors along dim (input and other broadcast)."""
    return _cross_row(input, other, dim)


def matrix_power(A, n):
    """A raised to the integer power n (negative powers invert first)."""
    return _matrix_power(A, n)
