"""Regression tests for the differences from PyTorch the long fuzz run found in convolutions,
pooling and sampling (issue 12): each compares chainrule with PyTorch on the input found."""
import pytest

from helpers import same, same_error


def _F(T):
    return T.nn.functional


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32"])
def test_avg_pool3d_has_no_half_kernel(dtype):
    same_error(lambda T: _F(T).avg_pool3d(T.ones(0, 1, 4, 5, 4, dtype=getattr(T, dtype)),
                                          (2, 3, 2), divisor_override=2))


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["bool", "int64", "int16", "complex64"])
def test_max_unpool_refuses_non_float_before_checking_indices(dims, dtype):
    shape = (1, 1) + (2,) * dims
    same_error(lambda T: getattr(_F(T), f"max_unpool{dims}d")(
        T.ones(shape, dtype=getattr(T, dtype)), T.full(shape, 11), 2))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_of_an_empty_batch(dims):
    shape = (0, 1) + (2,) * dims

    def prog(T):
        x = T.zeros(shape, requires_grad=True)
        y = getattr(_F(T), f"max_unpool{dims}d")(x, T.full(shape, 70), 2)
        empty = getattr(_F(T), f"max_unpool{dims}d")(T.zeros(shape, dtype=T.bool),
                                                     T.full(shape, 70), 2)
        return y, T.autograd.grad(y.sum(), x)[0], empty
    same(prog)
