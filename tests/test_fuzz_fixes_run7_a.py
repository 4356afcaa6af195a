"""Regression tests for the mismatches the long fuzz run (run 7, group a) found."""
import numpy as np

from helpers import same, same_error


def _renorm_grad(T, a, dtype, p):
    x = T.tensor(a).to(getattr(T, dtype)).requires_grad_()
    y = x.renorm(p, 0, 1.0)
    (g,) = T.autograd.grad(y, x, T.ones_like(y))
    return y, g


def test_renorm_float32_backward_accumulates_in_float64():
    # the float32 3-norm of [1e38, 1] overflows; the backward's float64 one does not, so the
    # gradient of the small entry is 1e-38 (scaled up to be seen), not 0
    a = np.array([[1e38, 1.0], [1.0, 2.0]])
    same(lambda T: [t.double() * 1e38 for t in _renorm_grad(T, a, "float32", 3)])


def test_renorm_half_norm_in_float32():
    # the 2-norm of [60000, 60000] is past float16's range: computed in float32 it is finite
    a = np.array([[60000.0, 60000.0], [1.0, 2.0]])
    same(lambda T: _renorm_grad(T, a, "float16", 2), atol=1e-3, rtol=1e-3)


def test_cross_entropy_probabilities_weight_checked_before_log_softmax():
    # a complex input: PyTorch refuses the weight's shape before log_softmax refuses the dtype
    same_error(lambda T: T.nn.functional.cross_entropy(
        T.ones(3, 4, dtype=T.complex128), T.rand(3, 4, dtype=T.float64),
        T.ones(0, dtype=T.float64)))
    for shape in ((2, 2), (3,), (5,)):
        same_error(lambda T: T.nn.functional.cross_entropy(T.ones(3, 4), T.rand(3, 4),
                                                           T.ones(shape)))
    same_error(lambda T: T.nn.functional.cross_entropy(T.ones(2, 3, 4), T.rand(2, 3, 4),
                                                       T.ones(5), label_smoothing=0.1))


def test_cross_entropy_probabilities_of_a_0d_input():
    same_error(lambda T: T.nn.functional.cross_entropy(T.tensor(1.0), T.tensor(1.0)))
    same_error(lambda T: T.nn.functional.cross_entropy(T.tensor(1.0), T.tensor(1.0),
                                                       T.ones(1)))
