"""Regression tests for what the eleventh long fuzz run found (issue 12): a half op's tensor
operand of another dtype cast to float16 before float32 opmath (but a one-element second
operand of mul and div read unrounded), a complex32 convolution refusing autograd."""
import pytest

from helpers import same, same_error


@pytest.mark.parametrize("call", [
    lambda T, a, b: a / b, lambda T, a, b: a * b, lambda T, a, b: a + b,
    lambda T, a, b: T.atan2(a, b), lambda T, a, b: T.hypot(a, b.double() * 10),
    lambda T, a, b: a - b[:1], lambda T, a, b: T.remainder(a, T.tensor(1e-8))])
def test_half_with_a_wider_tensor_casts_it_to_half_first(call):
    # int64 -2**63 and 1e5 are -inf and inf in float16: inf / -inf is nan, 3 / inf is 0
    same(lambda T: call(T, T.tensor([1., float("inf"), 3., 7e4], dtype=T.float16),
                        T.tensor([2, -2 ** 63, 100000, 1])))


@pytest.mark.parametrize("other", [lambda T: T.tensor(2 ** 40), lambda T: T.tensor([2 ** 40]),
                                   lambda T: T.tensor(7e4), lambda T: T.tensor([-2 ** 63]),
                                   lambda T: T.tensor(1e-8, dtype=T.float64)])
@pytest.mark.parametrize("call", [
    lambda T, a, b: a / b, lambda T, a, b: a * b, lambda T, a, b: a // b,
    lambda T, a, b: T.div(a, b, rounding_mode="trunc"), lambda T, a, b: a.clone().div_(b)])
def test_half_mul_div_read_a_one_element_other_unrounded(call, other):
    # PyTorch's *_reduced_float kernels read it in float32: inf / 2**40 is inf, not nan
    same(lambda T: call(T, T.tensor([1., float("inf"), 3., 7e4, 1e-3], dtype=T.float16),
                        other(T)))


def test_half_with_a_python_number_keeps_it_at_opmath():
    same(lambda T: T.tensor([1000.], dtype=T.float16) * 1e-8)


@pytest.mark.parametrize("n", [0, 1])
def test_convolution_into_complex32_refuses_autograd(n):
    def prog(T):
        x = T.zeros(n, 2, 4, 5, dtype=T.float16, requires_grad=True)
        return T.nn.functional.conv2d(x, T.ones(3, 2, 2, 3, dtype=T.complex64,
                                                requires_grad=True))
    same_error(prog)


def test_convolution_into_complex32_without_grad_runs():
    def prog(T):
        with T.no_grad():
            return T.nn.functional.conv2d(T.zeros(0, 2, 4, 5, dtype=T.float16),
                                          T.ones(3, 2, 2, 3, dtype=T.complex64)).shape
    same(prog)
