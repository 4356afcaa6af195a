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
