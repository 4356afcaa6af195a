"""Regression tests for what the twelfth and thirteenth long fuzz runs found (issue 12):
max/min over an empty dim of a complex tensor, cov's zeroed norm factor, einsum's integer
intermediate under autograd, batch norm's running statistics that are not 1-d."""
import numpy as np
import pytest

from helpers import same, same_error


@pytest.mark.parametrize("call", [lambda x: x.max(0), lambda x: x.min(0),
                                  lambda x: x.max(1), lambda x: x.max()])
def test_max_min_check_the_empty_dim_before_complex(call):
    same_error(lambda T: call(T.zeros(0, 4, dtype=T.complex64)))


def test_max_of_a_0d_complex_refuses_complex():
    same_error(lambda T: T.tensor(1j).max(0))


def test_cov_zeroes_a_negative_infinite_norm_factor():
    # a float32 weight of 1e38 squares to inf: the norm factor is -inf, zeroed (not * 0: nan)
    def prog(T):
        x = T.tensor(np.arange(15.).reshape(3, 5) % 4 - 1.5)
        w = T.tensor(np.array([1.9, 0.9, 1.5, 1.5, 1e38], dtype=np.float32))
        return T.cov(x, aweights=w), T.cov(x.float(), aweights=w)
    same(prog)


def test_cov_with_too_large_a_correction_keeps_its_graph():
    def prog(T):
        w = T.tensor([1., 2., 3., 4., 5.], dtype=T.float64, requires_grad=True)
        return T.cov(T.arange(15.).reshape(3, 5).double(), correction=100, aweights=w)
    same(prog)


@pytest.mark.parametrize("n", [0, 2])
def test_einsum_intermediate_of_an_integer_operand_under_autograd(n):
    def prog(T):
        a = T.ones(n, 3, dtype=T.float64, requires_grad=True)
        return T.einsum("ij,jk,kl->il", a, T.ones(3, 4, dtype=T.int16),
                        T.ones(4, 2, dtype=T.float16))
    same_error(prog)


def test_einsum_of_those_operands_without_grad_runs():
    same(lambda T: T.einsum("ij,jk,kl->il", T.ones(0, 3, dtype=T.float64),
                            T.ones(3, 4, dtype=T.int16), T.ones(4, 2, dtype=T.float16)))


@pytest.mark.parametrize("shapes", [((), (3,)), ((3,), (3, 1)), ((1, 3), (3,))])
def test_batch_norm_training_refuses_running_stats_not_1d(shapes):
    # the kernel's 1-d accessors of the running statistics (NumPy's broadcast error leaked)
    def prog(T):
        rm, rv = (T.zeros(s, dtype=T.float64) for s in shapes)
        return T.native_batch_norm(T.ones(4, 3, dtype=T.float64), T.ones(3, dtype=T.float64),
                                   T.zeros(3, dtype=T.float64), rm, rv, True, 0.1, 1e-5)
    same_error(prog)
