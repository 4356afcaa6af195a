"""Regression tests for the fuzz run 5 mismatches of group a (issue 12): each compares
chainrule with PyTorch on the drawn input."""
import numpy as np
import pytest

from helpers import same, same_error


# Note [Argument parser checks]: a bool is no int to PyTorch's parser
@pytest.mark.parametrize("prog", [
    lambda T: T.as_strided_copy(T.ones(2, 3), (2, 2), (1, 2), True),
    lambda T: T.as_strided(T.ones(2, 3), (2, 2), (1, 2), True),
    lambda T: T.ones(2, 3).as_strided((2, 2), (1, 2), True),
    lambda T: T.as_strided_scatter(T.ones(3, 4), T.ones(2, 2), (2, 2), (1, 2), True),
    lambda T: T.ones(3, 4).as_strided_scatter(T.ones(2, 2), (2, 2), (1, 2), storage_offset=True),
    lambda T: T.combinations(T.ones(4), True),
    lambda T: T.combinations(T.ones(4), 2, 1),
    lambda T: T.split_copy(T.ones(3, 4), 2, True),
    lambda T: T.split_with_sizes_copy(T.ones(3, 4), [1, 0, 3], True),
    lambda T: T.unbind_copy(T.ones(3, 2), True),
    lambda T: T.unbind_copy(T.ones(3, 2), dim=True),
    lambda T: T.matrix_power(T.zeros(3, 3, dtype=T.uint8), True),
    lambda T: T.zeros(3, 3).matrix_power(True),
    lambda T: T.linalg.matrix_power(T.zeros(3, 3), True),
])
def test_bool_for_int_is_refused(prog):
    same_error(prog)


def test_int_arguments_still_taken():
    same(lambda T: (T.as_strided_copy(T.arange(6.), (2, 2), (1, 2), 1),
                    T.combinations(T.arange(4.), 3),
                    T.split_copy(T.arange(12).reshape(3, 4), 2, -1),
                    T.unbind_copy(T.arange(6).reshape(3, 2), -1),
                    T.linalg.matrix_power(T.eye(3) * 2, 2)))


def _where_grad(T, swap, method):
    c = T.tensor([True, True, False])
    x = T.tensor([-1.11202076, -0.37760501, 2.04277161], dtype=T.float64, requires_grad=True)
    if method:
        y = x.where(c, 1j)
    else:
        y = T.where(c, 1j, x) if swap else T.where(c, x, 1j)
    g, = T.autograd.grad(y, x, T.tensor([1 + 2j, 3 + 1j, 1j]))
    return y, y.grad_fn.next_functions[1 if swap else 0][0], g


@pytest.mark.parametrize("swap, method", [(False, False), (True, False), (False, True)])
def test_where_number_casts_the_tensor_first(swap, method):
    # the copy to complex takes the complex gradient's real part for the real input
    same(lambda T: _where_grad(T, swap, method))


def test_where_number_of_same_kind_records_no_copy():
    same(lambda T: T.where(T.tensor([True, False]), T.ones(2, requires_grad=True), 2.5)
         .grad_fn.next_functions[0][0])


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3, 4, dtype=T.float64).clamp_min_(1j),
    lambda T: T.ones(3, dtype=T.int64).clamp_max_(1j),
    lambda T: T.ones(3, dtype=T.bool).clamp_min_(1j),
    lambda T: T.ones(3).clamp_(0.5, 1j),
    lambda T: T.ones(3, dtype=T.int64).clamp_(1j),
])
def test_clamp_inplace_complex_bound(prog):
    same_error(prog)


def test_clamp_inplace_reads_a_real_complex_bound_as_double():
    same(lambda T: T.tensor([0.0, 1.0, 2.0]).clamp_(1 + 0j))


@pytest.mark.parametrize("prog", [
    # the shapes broadcast before the kernel refuses bool
    lambda T: T.cross(T.zeros(0, 3, dtype=T.bool), T.ones(4, 3, dtype=T.bool), dim=-1),
    lambda T: T.cross(T.zeros(2, 3), T.ones(4, 3, dtype=T.float64), dim=-1),
    lambda T: T.linalg.cross(T.zeros(1, 3, dtype=T.bool), T.ones(2, 3, dtype=T.bool)),
    # tau's batch dimensions are checked before the dtype kernel
    lambda T: T.orgqr(T.ones(2, 3, 3, dtype=T.int16), T.zeros(0, 2, dtype=T.int16)),
    lambda T: T.linalg.householder_product(T.ones(2, 2, 3, 3), T.zeros(2, 3, 2)),
])
def test_check_order(prog):
    same_error(prog)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_reciprocal_complex_zero_and_subnormal(dtype):
    # PyTorch's complex division: 1 / 0j is inf+nanj (NumPy's reciprocal: nan+nanj)
    same(lambda T: T.tensor([1e-40 + 0j, complex(-0.0, 0.0), 0j, 2 + 0j, 1e-20 + 0j,
                             1e-310 + 0j, 1e-40j], dtype=getattr(T, dtype)).reciprocal())


_INF = float("inf")


def test_cumprod_complex_infinity_starts_from_one():
    # the running product starts at 1: (1+infj) * 1 is nan+infj
    same(lambda T: [T.tensor([[complex(1, _INF), complex(1, _INF), 2 + 0j],
                              [complex(_INF, 0), 2j, 1 + 0j]]).cumprod(d) for d in (0, 1)])


def test_vander_complex_infinity():
    same(lambda T: T.vander(T.tensor([2.04091912 + 0j, complex(1, _INF), 0.41809885 + 0j,
                                      -0.56776961 + 0j])))


@pytest.mark.parametrize("prog", [
    lambda T: T.vander(T.ones(3), True),
    lambda T: T.vander(T.ones(3), 2, 1),
    lambda T: T.vander(T.ones(3), N=2.0),
    lambda T: T.linalg.vander(T.ones(3), N=True),
])
def test_vander_arguments(prog):
    same_error(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_rounds_as_a_fused_multiply_add(dtype):
    # equal products cancel to the rounding error of one of them, as PyTorch's kernel
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3))
    b = a * (1 + 1e-3 * rng.standard_normal((6, 3)))
    same(lambda T: (T.linalg.cross(T.tensor(a, dtype=getattr(T, dtype)),
                                   T.tensor(b, dtype=getattr(T, dtype))),
                    T.cross(T.tensor([-_INF, -1e38, 1e38]), T.tensor([-_INF, -1e38, 1e38]),
                            dim=0)), atol=0, rtol=0)
