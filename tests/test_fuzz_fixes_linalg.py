"""Regression tests for the linear algebra ops the long fuzz run found differing from PyTorch
(issue 12), each on the fuzzer's input (or its smallest form) compared with PyTorch."""
import math

import numpy as np
import pytest

from helpers import same, same_error


def _F(T):
    return T.nn.functional


@pytest.mark.parametrize("shapes", [((), ()), ((), (2, 2)), ((2,), ()), ((), (2,), ())])
def test_linear_refuses_0d_arguments(shapes):
    same_error(lambda T: _F(T).linear(*(T.ones(s) for s in shapes)))


def test_rnn_with_0d_input_refuses_it_in_linear():
    same_error(lambda T: T.rnn_tanh(T.tensor(0.5), T.zeros(1, 2, 3), [T.ones(3, 4), T.ones(3, 3)],
                                    False, 1, 0.0, False, False, False))


# the bias picks the path: flattened addmm (ViewBackward0) for a bias with one dimension
# other than 1, matmul plus an in-place add (AddBackward0) otherwise
@pytest.mark.parametrize("input_shape", [(2,), (4, 3, 2), (0, 3, 2), "transposed"])
@pytest.mark.parametrize("bias_shape", [(), (5,), (1,), (1, 1), (1, 5), (5, 1), (3, 5),
                                        (4, 1, 5), (1, 1, 5)])
def test_linear_paths_by_bias(input_shape, bias_shape):
    def prog(T):
        x = (T.ones(4, 2, 3).transpose(1, 2) if input_shape == "transposed"
             else T.ones(input_shape)).requires_grad_()
        b = T.linspace(-1, 1, math.prod(bias_shape)).reshape(bias_shape).requires_grad_()
        w = T.linspace(-1, 2, 10).reshape(5, 2).requires_grad_()
        out = _F(T).linear(x, w, b)
        return out, T.autograd.grad(out.sum(), (x, w, b))
    try:
        same(prog)
    except RuntimeError:
        same_error(prog)


@pytest.mark.parametrize("shapes", [((), (0, 4), (0,)), ((), (3, 4), (3,)), ((1,), (0, 4), (0,))])
def test_addmv_size_mismatch_reads_self_size(shapes):
    same_error(lambda T: T.addmv(*(T.ones(s) for s in shapes)))


@pytest.mark.parametrize("beta", [0, 0.5, 1])
@pytest.mark.parametrize("shapes", [((1,), (0, 4), (4,)), ((), (3, 0), (0,)), ((3,), (3, 0), (0,))])
def test_addmv_of_an_empty_matrix_is_beta_self(shapes, beta):
    same(lambda T: T.addmv(*(T.full(s, 2.0) for s in shapes), beta=beta))


@pytest.mark.parametrize("dtype", ["bool", "int8", "float64"])
@pytest.mark.parametrize("beta", [0, 1, 0.5])
@pytest.mark.parametrize("n, k, m", [(0, 4, 5), (3, 0, 5), (3, 4, 0)])
def test_blas_shortcuts_before_the_dtype_kernel(dtype, beta, n, k, m):
    """An empty result is handed back and an empty contraction gives beta * self (with the
    in-place multiply's casting check) before the kernel refuses bool."""
    def ones(T, *shape):
        return T.ones(shape, dtype=getattr(T, dtype))

    progs = [lambda T: T.addmm(ones(T, n, 1), ones(T, n, k), ones(T, k, m), beta=beta),
             lambda T: T.baddbmm(ones(T, 2, n, m), ones(T, 2, n, k), ones(T, 2, k, m), beta=beta),
             lambda T: T.addbmm(ones(T, n, m), ones(T, 2, n, k), ones(T, 2, k, m), beta=beta),
             lambda T: T.addbmm(ones(T, n, m), ones(T, 0, n, k), ones(T, 0, k, m), beta=beta),
             lambda T: T.mm(ones(T, n, k), ones(T, k, m)),
             lambda T: T.mv(ones(T, n, k), ones(T, k))]
    for prog in progs:
        try:
            same(prog)
        except RuntimeError:
            same_error(prog)


def test_addbmm_without_batches_checks_no_dtypes():
    same(lambda T: T.addbmm(T.tensor(float("nan"), dtype=T.float64),
                            T.ones(0, 3, 4, dtype=T.float16), T.ones(0, 4, 5, dtype=T.float16),
                            beta=0))


@pytest.mark.parametrize("k", [0, 4])
def test_baddbmm_refuses_bool_before_mixed_batches(k):
    def prog(T):
        return T.baddbmm(T.ones(2, 3, 5, dtype=T.bool), T.ones(2, 3, k, dtype=T.bool),
                         T.ones(2, k, 5, dtype=T.float64))
    try:
        same(prog)
    except NotImplementedError:
        same_error(prog)


@pytest.mark.parametrize("name, weights", [("aweights", [1.0, float("nan"), -1.0, 1.0, 1.0]),
                                           ("aweights", [1.0, float("nan"), 2.0, 1.0, 1.0]),
                                           ("fweights", [1, 0, -1, 1, 1])])
def test_cov_refuses_negative_and_nan_weights(name, weights):
    def prog(T):
        w = T.tensor(weights, dtype=T.float64 if name == "aweights" else T.int64)
        return T.cov(T.ones(3, 5, dtype=T.float64), **{name: w})
    same_error(prog)


@pytest.mark.parametrize("dtype", ["float16", "int64", "float64"])
@pytest.mark.parametrize("b_shape, a_shape", [((0, 2), (3, 3)), ((3, 2), (0, 0)), ((4, 3, 2), (2, 3, 3))])
def test_triangular_solves_check_shapes_before_the_kernel(dtype, b_shape, a_shape):
    def ones(T, shape):
        return T.ones(shape, dtype=getattr(T, dtype))
    same_error(lambda T: T.triangular_solve(ones(T, b_shape), ones(T, a_shape)))
    same_error(lambda T: T.linalg.solve_triangular(ones(T, a_shape), ones(T, b_shape), upper=True))
    same_error(lambda T: T.linalg.solve_triangular(ones(T, a_shape), ones(T, b_shape).mT,
                                                   upper=True, left=False))
    same_error(lambda T: T.cholesky_solve(ones(T, b_shape), ones(T, a_shape)))


def test_solve_triangular_refuses_a_vector_b():
    same_error(lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3), upper=True))


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_cholesky_solve_has_no_integer_kernel(dtype):
    same_error(lambda T: T.cholesky_solve(T.ones(3, 2, dtype=getattr(T, dtype)),
                                          T.eye(3, dtype=getattr(T, dtype))))


@pytest.mark.parametrize("a, tau, other, left", [
    ((4, 3), (3,), (2, 4), True), ((4, 3), (3,), (4, 2), False), ((0, 3), (3,), (0, 4), True),
    ((4, 3), (4,), (4, 2), True), ((4, 3), (), (4, 2), True), ((2, 4, 3), (3,), (2, 4, 2), True),
    ((2, 4, 3), (3, 3), (4, 2), True), ((2, 4, 3), (3, 3), (2, 4, 2), True),
    ((2, 4, 3), (2, 3), (3, 4, 2), True)])
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_ormqr_checks_in_pytorchs_order(a, tau, other, left, dtype):
    def prog(T):
        d = getattr(T, dtype)
        return T.ormqr(T.ones(a, dtype=d), T.ones(tau, dtype=d), T.ones(other, dtype=d),
                       left=left)
    same_error(prog)


def test_ormqr_dtype_messages():
    same_error(lambda T: T.ormqr(T.ones(4, 3), T.ones(3, dtype=T.float64), T.ones(4, 2)))
    same_error(lambda T: T.ormqr(T.ones(4, 3), T.ones(3), T.ones(4, 2, dtype=T.float64)))


@pytest.mark.parametrize("ld, piv, b, dtypes", [
    ((3, 3), (3,), (3,), ("float64", "int32", "int64")), ((3, 3), (3,), (), "float64 int32"),
    ((3, 4), (3,), (3, 2), ("float64", "int32", "int64")), ((3, 3), (2,), (2, 2), "float64 int32"),
    ((3, 3), (3,), (3, 2), "float64 float64"), ((3, 3), (3,), (3, 2), "float16 int32"),
    ((3, 3), (3,), (2, 2), "int64 int32"), ((2, 3, 3), (2, 3), (4, 3, 2), "float64 int32")])
def test_ldl_solve_checks_in_pytorchs_order(ld, piv, b, dtypes):
    dtypes = dtypes.split() if isinstance(dtypes, str) else dtypes
    b_dtype = dtypes[2] if len(dtypes) == 3 else dtypes[0]

    def prog(T):
        return T.linalg.ldl_solve(T.ones(ld, dtype=getattr(T, dtypes[0])),
                                  T.ones(piv, dtype=getattr(T, dtypes[1])),
                                  T.ones(b, dtype=getattr(T, b_dtype)))
    same_error(prog)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
def test_lu_unpack_of_empty_factors(shape):
    same(lambda T: T.lu_unpack(*T.linalg.lu_factor(T.ones(shape, dtype=T.float16))))


@pytest.mark.parametrize("dtype", ["uint8", "bool", "float16"])
def test_lu_factor_of_an_empty_integer_batch(dtype):
    same(lambda T: T.lu_unpack(*T.linalg.lu_factor(T.ones(0, 4, 3, dtype=getattr(T, dtype)))))
    same_error(lambda T: T.lu_solve(T.ones(0, 4, 1), *T.linalg.lu_factor(
        T.ones(0, 4, 4, dtype=getattr(T, dtype)))))


@pytest.mark.parametrize("lu, b, dtypes, piv", [
    ((4, 3), (4, 3), ("float64", "int64"), None), ((4, 3), (4, 3), ("int64", "int64"), None),
    ((3,), (3, 3), ("float64", "int64"), None), ((3, 3), (3, 3), ("float64",) * 2, (2,)),
    ((3, 3), (3, 3), ("float64",) * 2, "int64"), ((2, 3, 3), (4, 3, 3), ("float64",) * 2, None)])
def test_linalg_lu_solve_checks_in_pytorchs_order(lu, b, dtypes, piv):
    def prog(T):
        pivots = T.ones(piv if isinstance(piv, tuple) else lu[:-1],
                        dtype=T.int64 if piv == "int64" else T.int32)
        return T.linalg.lu_solve(T.ones(lu, dtype=getattr(T, dtypes[0])), pivots,
                                 T.ones(b, dtype=getattr(T, dtypes[1])))
    same_error(prog)


@pytest.mark.parametrize("value", [-0.0, 0.0, 3.0])
@pytest.mark.parametrize("create_graph", [False, True])
def test_det_gradient_of_a_1x1_matrix_is_the_upstream_gradient(value, create_graph):
    def prog(T):
        a = T.tensor([[[value]], [[0.5]]], dtype=T.float64, requires_grad=True)
        return T.autograd.grad(T.linalg.det(a), a, T.tensor([0.189, -1.3], dtype=T.float64),
                               create_graph=create_graph)[0].detach()
    same(prog, atol=0, rtol=0)


@pytest.mark.parametrize("fn", ["vdot", "dot", "inner"])
def test_complex_dot_with_an_infinity_is_a_plain_sum_of_products(fn):
    a = [0.34558419 + 0.90535587j, 0.82161814 + 0.44637457j, 0.33043708 - 0.53695324j]
    b = [0.3645724 - 0.73645409j, complex("nan+0j"), -float("inf") + 0j]
    # (complex128: PyTorch's complex64 vdot takes another path, nan where complex128 has inf)
    def c128(T, values):
        return T.tensor(values, dtype=T.complex128)
    same(lambda T: getattr(T, fn)(c128(T, a), c128(T, b[:1] + b[2:] + [1j])))
    same(lambda T: getattr(T, fn)(c128(T, a), c128(T, [1 + 1j, 2j, complex(-float("inf"), 0)])))


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float64"])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (1, 3.0), (1, 0), (0, 0), (2.0, 3.0)])
def test_addr_is_the_kernels_expression(dtype, beta, alpha):
    """(alpha * vec1) * vec2 + beta * self: a complex self times beta 1 turns -inf+0j into
    -inf+nanj, and a zero alpha still meets infinities."""
    def prog(T):
        d = getattr(T, dtype)
        c = T.tensor([[-float("inf"), 1.0], [0.5, 2.0]], dtype=d)
        v1 = T.tensor([float("inf"), 2.0], dtype=d)
        v2 = T.tensor([1.0, -0.0], dtype=d)
        return T.addr(c, v1, v2, beta=beta, alpha=alpha), c.clone().addr_(v1, v2, alpha=alpha)
    same(prog)


@pytest.mark.parametrize("beta, alpha", [(1000, 1), (1, 1000)])
def test_addr_integer_scalar_overflow(beta, alpha):
    same_error(lambda T: T.addr(T.ones(3, 4, dtype=T.int8), T.ones(3, dtype=T.int8),
                                T.ones(4, dtype=T.int8), beta=beta, alpha=alpha))


_SPECIAL_ROWS = [[float("inf"), -0.13, 0.64, 0.10], [-0.53, float("nan"), 1.30, 0.94],
                 [-0.70, -1.26, -0.0, 1e-40]]


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
def test_distance_kernels_with_nan_inf_and_zero_distances(p):
    """The kernels' expressions: cdist's inf-norm passes NaNs over (std::max), pdist's keeps
    them; backward uses their sign (NaN for NaN), 0 for p = 0 whatever the input, 0 where
    the distance is 0."""
    def prog(T):
        x = T.tensor(_SPECIAL_ROWS, dtype=T.float64, requires_grad=True)
        y = T.tensor([_SPECIAL_ROWS[0], [0.3, -0.3, 0.4, 1.0]], dtype=T.float64,
                     requires_grad=True)
        c, d = T.cdist(x, y, p=p), T.pdist(x, p=p)
        grads = T.autograd.grad((c, d), (x, y), (T.linspace(-1, 1, 6, dtype=T.float64)
                                                  .reshape(3, 2),
                                                  T.tensor([0.5, -2.0, 1.5], dtype=T.float64)))
        return c, d, grads
    same(prog)


def test_cdist_refuses_a_non_float_x2_before_half_and_p():
    same_error(lambda T: T.cdist(T.ones(3, 4, dtype=T.float16), T.ones(2, 4, dtype=T.int8)))
    same_error(lambda T: T.cdist(T.ones(3, 4), T.ones(2, 4, dtype=T.int8), p=-1.0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matrix_exp_of_a_matrix_with_an_infinite_norm_is_nan(dtype):
    def prog(T):
        a = T.tensor([[[0.189, -float("inf"), -0.413], [-2.44, 1.8, 1.14], [-0.325, 1e38, 0.28]],
                      [[0.1, 0.2, 0.0], [0.0, 0.3, 0.1], [0.2, 0.0, 0.1]]],
                     dtype=getattr(T, dtype))
        return T.matrix_exp(a)
    same(prog, atol=1e-5, rtol=1e-5)


def test_householder_signs_at_a_negative_zero_pivot():
    """The fuzzer's inputs: -0.0 pivots give MKL's (PyTorch's) reflector signs."""
    a = [[-0.0, -0.16290995, -0.48211931, 0.59884621, 0.03972211],
         [-0.29245675, -0.78190846, -0.25719224, 0.00814218, -0.27560291],
         [-0.0, 1.0, -2.71116248, -1.88901325, -0.17477209]]
    b = [[-0.0, 0.213643, 0.21732193], [2.11783876, -1.11202076, -0.37760501],
         [2.04277161, 0.646703, 0.66306337], [-0.51400637, 1.0, 0.16746474]]
    same(lambda T: T.geqrf(T.tensor(a, dtype=T.float64)))
    same(lambda T: T.linalg.qr(T.tensor(b, dtype=T.float64)))
    same(lambda T: T.linalg.qr(T.tensor(b, dtype=T.float64), mode="complete"))


def test_einsum_diagonal_gradient_is_zero_off_the_diagonal():
    def prog(T):
        a = T.tensor([[[float("inf"), 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, float("inf")]]],
                     requires_grad=True)
        b = T.tensor([[0.4, 1.0], [-0.1, 1.3]], requires_grad=True)
        return T.autograd.grad(T.einsum("iij,kk->ij", a, b), (a, b), T.ones(2, 2))
    same(prog)


def test_einsum_sums_an_operands_own_labels_in_its_dtype():
    def prog(T):
        a = T.linspace(-1, 1, 18, dtype=T.float64).reshape(3, 3, 2).requires_grad_()
        b = T.tensor([[0.4116, 1.043], [-0.1285, 1.366]], dtype=T.float16)
        out = T.einsum("iij,kk->ij", a, b)
        # (values only: einsum is one node here, PyTorch's decomposition several)
        return out.detach(), T.autograd.grad(out.sum(), a)
    same(prog, atol=0, rtol=1e-12)


def test_einsum_contracts_left_to_right():
    a = [[0.18905338, -float("inf"), 0.0], [-2.44146738, 1.79970738, float("nan")]]
    b = [[-0.3254, 0.7738, 0.2812, -0.5538], [0.9776, -0.3106, -0.3288, -0.7921],
         [0.4550, 0.1890, 0.0, 1.0]]
    c = [[1.0, 0.0], [0.0, 2.0], [-1.0, 0.5], [0.0, 0.0]]
    same(lambda T: T.einsum("ij,jk,kl->il", T.tensor(a, dtype=T.float64),
                            T.tensor(b, dtype=T.float64), T.tensor(c, dtype=T.float64)))


@pytest.mark.parametrize("k", [0, 1, 2])
def test_einsum_chain_gradients_follow_the_contraction_order(k):
    a = [[0.18905338, -float("inf"), 0.0], [-2.44146738, 1.79970738, 0.5]]
    b = [[-0.3254, 0.7738, 0.2812, -0.5538], [0.9776, -0.3106, -0.3288, -0.7921],
         [0.4550, 0.1890, 0.0, 1.0]]
    c = [[1.0, 0.0], [0.0, 2.0], [-1.0, 0.5], [0.0, 0.0]]

    def prog(T):
        ops = [T.tensor(x, dtype=T.float64, requires_grad=i == k) for i, x in enumerate((a, b, c))]
        out = T.einsum("ij,jk,kl->il", *ops)
        return T.autograd.grad(out, ops[k], T.tensor([[1.0, -2.0], [0.5, 3.0]],
                                                     dtype=T.float64))
    same(prog)


# ---- decompositions at an abs kink ----------------------------------------------------------
# The fuzz entries inverse.complex, svd.complex and linalg.eig differentiate .abs() of their
# outputs; on these draws an output entry is zero (or 1e-40) exactly, and abs's derivative there
# is the sign of what LAPACK computes. inverse factors A itself, as PyTorch's getrf: its exact
# zeros are PyTorch's. For svd and eig the entry is rounding noise whose sign NumPy's LAPACK and
# PyTorch's MKL choose differently (justified differences): compared are the values and the
# gradients of the same outputs through a loss without the kink.

_INVERSE_DRAWS = [
    [[2.040919065475464, -2.5556650161743164, -1.0],
     [-0.5677695870399475, 9.99994610111476e-41, 0.0],
     [-2.019986152648926, -1.0, -0.8652130961418152]],
    [[0.1257302165031433, -0.13210485875606537, 0.6404226422309875],
     [0.10490011423826218, -0.5356693863868713, 0.3615950644016266],
     [-0.0, 0.0, -0.7037352323532104]]]
_SVD_DRAW = [[-0.0, 0.8216181435011584, 0.33043707618338714],
             [-1.303157231604361, 0.9053558666731177, 0.4463745723640113],
             [-0.5369532353602852, 0.5811181041963531, 0.36457239618607573],
             [0.294132496655526, 0.02842224131579679, 0.5467129866124469]]
_EIG_DRAW = [[0.8361557496764475, 1e-40, 1e-40],
             [0.08414588934539999, 2.0128715657474068, 0.10783424407392982],
             [-1.0, 0.02105718123752806, 3.028403814525037]]


def _upstream(T, shape, seed, dtype):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


# (not the first in float64: PyTorch's MKL returns -1.1e-16 for its [0, 0], also for A[1, 1] = 0)
@pytest.mark.parametrize("draw, dtype", [(_INVERSE_DRAWS[0], "float32"),
                                         (_INVERSE_DRAWS[1], "float32"),
                                         (_INVERSE_DRAWS[1], "float64")])
def test_inverse_abs_gradient_where_the_inverse_has_exact_zeros(draw, dtype):
    """inverse(A)[0, 0] is -1.3e-40 (A[1, 1] = 1e-40), inverse(A)[2, :2] is 0: PyTorch's
    getrf on A gives 0 for both, factoring A^T gave -1.3e-40 and 2e-16 of noise, whose sign
    .abs() took as its derivative."""
    def prog(T):
        a = T.tensor(draw, dtype=getattr(T, dtype), requires_grad=True)
        inv = a.inverse()
        return (inv == 0), T.autograd.grad(inv.abs(), a, _upstream(T, (3, 3), 7, a.dtype))
    same(prog, atol=1e-4, rtol=1e-4)


def test_svd_of_a_draw_with_negative_zero():
    """The reconstruction's [0, 0] (A[0, 0] = -0.0) is 1.5e-16 here, -9.7e-17 in PyTorch."""
    def prog(T):
        leaf = T.tensor(np.array(_SVD_DRAW).T.copy(), requires_grad=True)
        U, S, V = T.svd(leaf.mT)
        outs = (S, (U * S) @ V.mT, U @ U.mT, V @ V.mT)
        ups = [_upstream(T, tuple(o.shape), 3 + k, T.float64) for k, o in enumerate(outs)]
        return outs[0], outs[1], T.autograd.grad(outs, leaf, ups)
    same(prog, atol=1e-12, rtol=1e-10)


def test_eig_of_a_draw_with_tiny_entries():
    """The eigenvectors' first entries for eigenvalues 3.03 and 2.01 are about 1e-40, which
    LAPACK computes to 1e-16 absolute: chainrule's V[0, 1] is -5.1e-17, PyTorch's 0.0 (and
    the exact one positive, so neither's .abs() gradient is exact there)."""
    def prog(T):
        a = T.tensor(_EIG_DRAW, dtype=T.float64, requires_grad=True)
        L, V = T.linalg.eig(a)
        outs = (L.real, L.imag, (V * V.conj()).real)
        ups = [_upstream(T, tuple(o.shape), 33532076 + k, T.float64) for k, o in enumerate(outs)]
        return L, V.abs(), T.autograd.grad(outs, a, ups)
    same(prog, atol=1e-12, rtol=1e-10)
