"""Regression tests for what the fourteenth and fifteenth long fuzz runs found (issue 12):
half BLAS ops adding beta * self in float32 and rounding once, binary_cross_entropy's dtype
check before the weight's in-place multiply, batch norm's running statistics in evaluation,
the gradient of zero to a complex power."""
import numpy as np
import pytest

from helpers import same, same_error


def _h(T, *shape, seed=0):
    rng = np.random.default_rng(seed + len(shape))
    return T.tensor((rng.standard_normal(shape) * 3).astype(np.float16))


@pytest.mark.parametrize("call", [
    lambda T: T.addmm(_h(T, 4, 5), _h(T, 4, 6), _h(T, 6, 5)),
    lambda T: T.addmm(_h(T, 4, 5), _h(T, 4, 6), _h(T, 6, 5), beta=0.7, alpha=1.3),
    lambda T: T.addmm(_h(T, 5), _h(T, 4, 6), _h(T, 6, 5)),
    lambda T: T.baddbmm(_h(T, 3, 4, 5), _h(T, 3, 4, 6), _h(T, 3, 6, 5)),
    lambda T: T.addbmm(_h(T, 4, 5), _h(T, 3, 4, 6), _h(T, 3, 6, 5)),
    lambda T: T.addmv(_h(T, 4), _h(T, 4, 6), _h(T, 6)),
    lambda T: T.nn.functional.linear(_h(T, 4, 6), _h(T, 5, 6), _h(T, 5)),
    lambda T: _h(T, 4, 5).addmm_(_h(T, 4, 6), _h(T, 6, 5))])
def test_half_blas_rounds_once(call):
    same(call)


@pytest.mark.parametrize("input_", [lambda T: T.tensor(True), lambda T: T.tensor(0.5)])
def test_binary_cross_entropy_dtype_before_a_weight_of_more_dims(input_):
    same_error(lambda T: T.nn.functional.binary_cross_entropy(
        input_(T), input_(T), weight=T.tensor([0.6, 0.5, 1.5, 0.], dtype=T.float16)
        if input_(T).dtype == T.bool else T.tensor([0.6, 0.5])))


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("shape", [(), (3, 1)])
def test_batch_norm_evaluation_refuses_running_stats_not_1d(layout, shape):
    def prog(T):
        x = T.ones(4, 3, 2, dtype=T.float64)
        if layout == "strided":
            x = x.transpose(0, 1).contiguous().transpose(0, 1)
        return T.native_batch_norm(x, T.ones(3, dtype=T.float64), None,
                                   T.zeros(shape, dtype=T.float64), T.ones(3, dtype=T.float64),
                                   False, 0.1, 1e-5)
    same_error(prog)


@pytest.mark.parametrize("z", [1 + 0j, 0.5 + 2j, -1 + 0j, 0j, 2j])
@pytest.mark.parametrize("name", ["float_power", "pow"])
def test_zero_to_a_complex_power_backward(name, z):
    # the exponent's gradient is zero where it is real and not negative (no >= on complex)
    def prog(T):
        e = T.tensor(z, dtype=T.complex64, requires_grad=True)
        r = getattr(T, name)(0, e)
        r.backward(T.ones_like(r))
        return r, e.grad
    same(prog)
