"""Regression tests for the differences from PyTorch the fourth long fuzz run found in the
pointwise, reduction and statistics entries (issue 12): each compares chainrule with PyTorch
on the input found (or one built like it)."""
import numpy as np
import pytest

from helpers import same, same_error

_COMPLEX_LOGS = [complex(-np.inf, 0), complex(-1e38, 0), -0.0, 1e-40, complex(np.inf, np.inf),
                 complex(-np.inf, -np.inf), complex(1, np.inf), 3 - 5j, -2, 0.62847375]


@pytest.mark.parametrize("name", ["log2", "log10"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_log2_log10_divide_both_parts_by_the_base_log(name, dtype):
    # log(z) / ln(base) part by part (NumPy multiplies by 1 / ln(base)): an infinite real
    # part's imaginary part is compared exactly
    same(lambda T: getattr(T, name)(T.tensor(_COMPLEX_LOGS, dtype=getattr(T, dtype))),
         atol=0, rtol=0)


@pytest.mark.parametrize("base", [-1, -2, 300, -300, 2 ** 63])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_pow_of_an_int_base_wraps_it_to_the_exponents_dtype(base, dtype):
    # PyTorch casts the base to the integer exponent's dtype (wrapping): -1 ** uint8 is 255 ** e
    same(lambda T: base ** T.tensor([0, 1, 2, 3, 254, 255], dtype=T.int64).to(getattr(T, dtype)))


@pytest.mark.parametrize("row", [[1, 0, np.inf, 0, 2], [1, 0, np.inf, 1, 0], [0, np.inf, 0],
                                 [1, 0, 2, 0, np.inf], [1, 0, np.inf, -1, 0, 3]])
def test_cumprod_backward_at_the_first_zero_reaches_the_second(row):
    # the first zero's gradient sums grad times the products after it up to the second zero
    # included: an infinity between them makes it inf * 0 = nan, one after it does not count
    def prog(T):
        x = T.tensor([row, row[::-1]], dtype=T.float64, requires_grad=True)
        return T.autograd.grad(x.cumprod(-1), x, T.ones(2, len(row), dtype=T.float64))
    same(prog)


_MODE_COLUMN = [1, 2, 0, 2, 1, 0, 0, 1, 0, 2, 2, 2, 1, 2, 2, 0, 2, 2, 0, 0, 1, 2, 1, 1, np.nan,
                0, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 0, 0, 0, 1]


def test_mode_replays_std_sort_with_nan_past_16_elements():
    # NaN is unordered by std::sort's `<`: 0 occurs most, but PyTorch's sorted column splits
    # its run, so the mode is 1
    same(lambda T: T.mode(T.tensor(_MODE_COLUMN, dtype=T.float64), 0))


def _mode_rows(T):
    rng = np.random.default_rng(0)
    rows = []
    for n in (17, 23, 40, 64, 100, 300):
        a = rng.integers(0, 4, (6, n)).astype(np.float64)
        a[np.arange(6), rng.integers(0, n, 6)] = np.nan
        a[0, rng.random(n) < 0.3] = np.nan
        rows.append(T.mode(T.tensor(a), -1))
    return rows


def test_mode_of_rows_holding_nan():
    same(_mode_rows, atol=0, rtol=0)


@pytest.mark.parametrize("dtype, exponent", [
    ("int8", 2 ** 40), ("uint8", 256), ("int16", 70000), ("uint8", 2 ** 63), ("bool", 2 ** 63),
    ("int64", 2 ** 64 - 1), ("float16", 2 ** 40), ("float16", 65520.0), ("float16", -2 ** 63)])
@pytest.mark.parametrize("size", [0, 2])
def test_pow_converts_the_exponent_to_the_tensors_dtype(dtype, exponent, size):
    # checked (even for an empty tensor); an integer tensor's exponent as int64 first
    same_error(lambda T: T.ones(size, dtype=getattr(T, dtype)) ** exponent)


def test_pow_of_complex_half_is_not_implemented():
    same_error(lambda T: T.ones(2, dtype=T.float16) ** (2 + 0j))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("factor", [
    [[-0.0, 0, 0], [1, 0, 0], [2, 3, 1]], [[1.0, 0, 0], [1, 2, 0], [2, 3, 0]],
    [[[1.0, 0], [0, 1]], [[1, 0], [2, 0]]], [[[0.0, 0], [0, 0]]]])
def test_cholesky_inverse_refuses_a_zero_diagonal_element(factor, upper):
    # LAPACK's potri: the first exactly zero diagonal element (of the first such batch element)
    same_error(lambda T: T.cholesky_inverse(T.tensor(factor, dtype=T.float64).mT if upper
                                            else T.tensor(factor, dtype=T.float64), upper=upper))


def test_cholesky_inverse_of_a_tiny_diagonal_element_computes():
    same(lambda T: (T.cholesky_inverse(T.tensor([[1.0, 0], [2, 1e-320]], dtype=T.float64)),
                    T.cholesky_inverse(T.zeros(2, 0, 0))))
