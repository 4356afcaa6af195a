"""torch.linalg: the functions PyTorch's top-level names call (torch.det is linalg.det,
torch.inverse is linalg.inv, torch.qr is linalg.qr, ...), on the same op rows
(ops/decompositions.py, ops/linalg.py), and the composites PyTorch builds from them (norm,
matrix_norm, cond, matrix_rank, tensorinv, tensorsolve, vecdot, vander). out= follows each
function's own dtype rule and messages (Note [out=] in ops/registry.py)."""
import functools

from .._tensor import Tensor as _Tensor
from ..ops import decompositions as _d
from ..ops import linalg as _l
from ..ops.binding import Overloads as _Overloads, Signature as _Signature
from ..ops.decompositions import LinAlgError
from ..ops.reduction import VECTOR_NORM as _VECTOR_NORM, vector_norm as _vector_norm_row
from ..ops.registry import CAST as _CAST, EXACT as _EXACT, out_cast as _out_cast
from ..ops.registry import out_exact as _out_exact
from ..ops.registry import check_out_grad as _check_out_grad, check_out_kind as _check_out_kind
from ..ops.registry import out_variant as _out_variant, write_out as _write_out

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


def _castable(name, what="result"):
    return _out_cast(f"{name}: Expected {what} to be safely castable from {{expected}} dtype, "
                     f"but got {what} with dtype {{got}}")


def _public(f, rule, name, composite=False):
    """f with out= under `rule`; `name` is the op PyTorch's requires-grad refusal names.
    composite: PyTorch computes the result, checks out's dtype, then copies it in
    (resize_output, copy_), so inputs requiring grad are allowed and the copy is recorded."""
    public = f.__name__.lstrip("_").replace("linalg_", "")

    @functools.wraps(f)
    def g(*args, out=None, **kwargs):
        if out is None:
            return f(*args, **kwargs)
        if isinstance(rule, tuple):
            if not isinstance(out, (tuple, list)):
                raise TypeError(f"linalg_{public}(): argument 'out' must be tuple of Tensors, "
                                f"not {type(out).__name__}")
            for i, o in enumerate(out):
                if not isinstance(o, _Tensor):
                    raise TypeError(f"expected Tensor as element {i} in argument {position}, "
                                    f"but got {type(o).__name__}")
        _check_out_kind(f"linalg_{public}", out)
        result = f(*args, **kwargs)
        if not composite:
            _check_out_grad(name, result, out)
            return _write_out(f"linalg_{public}", result, out, rule, args + tuple(kwargs.values()))
        if result.dtype is not out.dtype:
            error = rule(result.dtype, out.dtype)
            if error is not None:
                raise error
        return _l._copy_out(name, result, out)
    g.__signature__ = _out_variant(f, rule, name).__signature__
    position = list(g.__signature__.parameters).index("out")
    g.__name__ = g.__qualname__ = public
    g.__module__ = __name__
    return g


def _matrix_norm_out(name):
    return _out_exact(f"{name} expected out tensor dtype {{expected}} but got: {{got}}")


def _cross(input, other, *, dim=-1):
    """Cross product of 3-vectors along dim (input and other broadcast)."""
    return _l.linalg_cross(input, other, dim)


def _matrix_power(A, n):
    """A raised to the integer power n (negative powers invert first)."""
    return _l._matrix_power(A, n)


def _diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: A.diagonal(offset, dim1, dim2), with the matrix dims last by
    default."""
    return A.diagonal(offset, dim1, dim2)


def _matmul(input, other):
    """torch.linalg.matmul: torch.matmul."""
    return _l._matmul_impl(input, other)


@_VECTOR_NORM.bind
def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: the ord-norm of x over dim (all of x by default)."""
    return _vector_norm_row(x, ord, dim, keepdim, dtype=dtype)


def _vander(x, N=None):
    """torch.linalg.vander: the powers x^0, ..., x^(N-1) of each element along a new last
    dim."""
    return _l.linalg_vander(x, N=N)


cholesky = _public(_d.linalg_cholesky, _EXACT, "linalg_cholesky_ex")
cholesky_ex = _public(_d.cholesky_ex, (_EXACT, _EXACT), "linalg_cholesky_ex")
cond = _public(_d.cond, _castable("linalg.cond"), "linalg_cond", True)
cross = _public(_cross, _EXACT, "linalg_cross")
det = _public(_d.det, _EXACT, "_linalg_det")
diagonal = _diagonal
eig = _public(_d.eig, (_EXACT, _EXACT), "linalg_eig")
eigh = _public(_d.eigh, (_EXACT, _EXACT), "_linalg_eigh")
eigvals = _public(_d.eigvals, _castable("torch.linalg.eigvals", "eigenvalues"),
                  "linalg_eigvals", True)
eigvalsh = _public(_d.eigvalsh, _EXACT, "_linalg_eigh")
householder_product = _public(_d.householder_product,
                              _castable("torch.linalg.householder_product"),
                              "linalg_householder_product")
inv = _public(_d.inv, _EXACT, "linalg_inv_ex")
inv_ex = _public(_d.inv_ex, (_EXACT, _EXACT), "linalg_inv_ex")
ldl_factor = _public(_d.ldl_factor, (_EXACT, _EXACT), "linalg_ldl_factor_ex")
ldl_factor_ex = _public(_d.ldl_factor_ex, (_EXACT, _EXACT, _EXACT), "linalg_ldl_factor_ex")
ldl_solve = _public(_d.ldl_solve, _EXACT, "linalg_ldl_solve")
lstsq = _public(_d.lstsq, (_EXACT,) * 4, "linalg_lstsq")
lu = _public(_d.linalg_lu, (_EXACT, _EXACT, _EXACT), "linalg_lu")
lu_factor = _public(_d.lu_factor, (_EXACT, _EXACT), "linalg_lu_factor_ex")
lu_factor_ex = _public(_d.lu_factor_ex, (_EXACT, _EXACT, _EXACT), "linalg_lu_factor_ex")
lu_solve = _public(_d.lu_solve, _EXACT, "linalg_lu_solve")
matmul = _public(_matmul, _l._MATMUL_OUT, "matmul")
matrix_exp = _l.matrix_exp
matrix_norm = _public(_d.matrix_norm, _matrix_norm_out("linalg.matrix_norm"),
                      "linalg_matrix_norm", True)
matrix_power = _public(_Signature("linalg_matrix_power(Tensor input, int n)").bind(_matrix_power),
                       _EXACT, "matmul")
matrix_rank = _public(_d.matrix_rank, _CAST, "linalg_matrix_rank", True)
multi_dot = _public(_l.multi_dot, _out_exact("multi_dot(): expected out tensor to have dtype "
                                                 "{expected_cpp} but got {got_cpp}"),
                    "mm")
norm = _public(_d.norm, _matrix_norm_out("linalg.norm"), "linalg_norm", True)
pinv = _public(_d.pinv, _castable("linalg.pinv"), "linalg_pinv")
qr = _public(_d.qr, (_EXACT, _EXACT), "linalg_qr")
slogdet = _public(_d.slogdet, (_EXACT, _EXACT), "_linalg_slogdet")
solve = _public(_d.solve, _EXACT, "_linalg_solve_ex")
solve_ex = _public(_d.solve_ex, (_EXACT, _EXACT), "_linalg_solve_ex")
solve_triangular = _public(_d.solve_triangular,
                           _out_exact("expected scalar type {expected} but found {got}"),
                           "linalg_solve_triangular")
svd = _public(_d.svd, (_EXACT, _EXACT, _EXACT), "_linalg_svd")
svdvals = _public(_d.svdvals, _EXACT, "_linalg_svd")
tensorinv = _public(_d.tensorinv, _castable("tensorinv"), "linalg_tensorinv", True)
tensorsolve = _public(_d.tensorsolve, _castable("tensorsolve"), "linalg_tensorsolve",
                      True)
vander = _Signature("linalg_vander(Tensor x, *, SymInt? N=None)").bind(_vander)
vecdot = _public(_l.linalg_vecdot,
                 _out_exact("linalg.vecdot: Expected out of dtype{expected} but found {got}"),
                 "sum")
vector_norm = _public(_vector_norm, _EXACT, "linalg_vector_norm")

# Note [Argument parser checks]: PyTorch binds these by their own declarations (a non-Tensor
# A is its TypeError, naming linalg_<name>, not the op chainrule computes them with)
_TOLERANCES = ("(Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, "
               "Tensor out = None)",
               "(Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, "
               "Tensor out = None)",
               "(Tensor input, Tensor {0}, bool hermitian = False, *, Tensor out = None)",
               "(Tensor input, float {0}, bool hermitian = False, *, Tensor out = None)")
_NORM_DIMS = ("tuple of ints[1] dim = None, bool keepdim = False, *, torch.dtype dtype = None, "
              "Tensor out = None)")
for _sig in (*map(_Signature, (
                 "linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1)",
                 "linalg_eigvals(Tensor input)", "linalg_eigvalsh(Tensor input, str UPLO=\"L\")",
                 "linalg_svdvals(Tensor A, *, str? driver=None)",
                 "linalg_cholesky(Tensor input, *, bool upper=False)", "linalg_det(Tensor A)",
                 "linalg_eigh(Tensor input, str UPLO=\"L\")", "linalg_inv(Tensor A)",
                 "linalg_inv_ex(Tensor A, *, bool check_errors=False)",
                 "linalg_ldl_factor(Tensor input, *, bool hermitian=False)",
                 "linalg_lu(Tensor A, *, bool pivot=True)",
                 "linalg_lu_factor(Tensor A, *, bool pivot=True)",
                 "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)",
                 "linalg_qr(Tensor A, str mode=\"reduced\")", "linalg_slogdet(Tensor A)",
                 "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)")),
             _Overloads("linalg_matrix_rank", [t.format("tol") for t in _TOLERANCES],
                        fast=(0, 1)),
             _Overloads("linalg_pinv", [t.format("rcond") for t in _TOLERANCES], fast=(0, 1)),
             _Overloads("linalg_norm", [f"(Tensor input, Number ord = None, {_NORM_DIMS}",
                                        f"(Tensor input, str ord, {_NORM_DIMS}"], fast=(0,))):
    _name = _sig.name[len("linalg_"):]
    globals()[_name] = _sig.bind(globals()[_name])
del _sig, _name, _TOLERANCES, _NORM_DIMS
