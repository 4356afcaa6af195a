"""Regression tests for the linear algebra ops the long fuzz run found differing from PyTorch
(issue 12), each on the fuzzer's input (or its smallest form) compared with PyTorch."""
import math

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
