"""Regression tests for differences from PyTorch the fifth long fuzz run found (issue 12,
run 5 part b): each compares chainrule with PyTorch on the input found (or one built like it)."""
import pytest

from helpers import same, same_error


@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("kernel", [0, 2])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_unfold_reads_sizes_first(shape, kernel, requires_grad):
    # with a differentiable input, PyTorch's autograd reads the last two sizes (saved for the
    # backward's col2im) before im2col checks its arguments
    same_error(lambda T: T.nn.functional.unfold(
        T.zeros(shape, dtype=T.float64, requires_grad=requires_grad), kernel))


@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64"])
@pytest.mark.parametrize("correction", [-1, 0, 0.5])
def test_moments_of_nothing_are_nan(dtype, correction):
    # PyTorch's variance of no elements is NaN, whatever the correction (n - c > 0 or not)
    def prog(T):
        x = T.zeros((0, 3), dtype=getattr(T, dtype))
        return (x.std(0, correction=correction), x.var(None, correction=correction),
                *T.var_mean(x, 0, correction=correction), *T.std_mean(x, correction=correction))
    same(prog)
