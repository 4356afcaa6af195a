"""Regression tests for what the seventh long fuzz run found (issue 12): native_batch_norm
with an empty parameter, max_unpool2d with an empty integer output, rnn_relu (linear) with a
bool bias that is not contiguous."""
import numpy as np
import pytest

from helpers import same, same_error


def _strided(T, a):
    """Every other element of a doubled array, as the fuzzer's 'strided' layout."""
    return T.tensor(np.repeat(np.asarray(a), 2, axis=-1))[..., ::2]


def _transposed(T, a):
    return T.tensor(np.ascontiguousarray(np.swapaxes(np.asarray(a), -1, -2))).transpose(-1, -2)


_X = np.random.default_rng(0).standard_normal((4, 3, 2))


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("empty", ["weight", "bias", "both"])
def test_native_batch_norm_empty_parameter_contiguous(training, empty):
    # PyTorch's contiguous kernel reads an empty parameter's null data pointer as no parameter
    def prog(T):
        x = T.tensor(_X, requires_grad=True)
        p = T.tensor([0.5, 2.0, -1.0], dtype=T.float64)
        none = T.zeros(0, dtype=T.float64)
        w = none if empty in ("weight", "both") else p
        b = none if empty in ("bias", "both") else p
        rm, rv = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
        return T.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
    same(prog)


def test_native_batch_norm_empty_weight_fuzz_draw():
    def prog(T):
        x = T.tensor(_X, requires_grad=True)
        rm = T.tensor(np.array([4.81274492e-01, 2.46313203e+00, -1e38]))
        rv = T.tensor(np.array([0.91984123, 1.00958657, 0.83767399]))
        b = T.tensor(np.array([1e38, 1.15916578e-01, 1.38654846e-01]), requires_grad=True)
        return T.native_batch_norm(x, T.zeros(0, dtype=T.float64), b, rm, rv, False, 0.1, 1e-5)
    same(prog)


@pytest.mark.parametrize("layout", [_strided, _transposed])
@pytest.mark.parametrize("size", [0, 2])
def test_native_batch_norm_bad_parameter_strided(layout, size):
    # its element-wise path for strided operands broadcasts the parameter over channels
    same_error(lambda T: T.native_batch_norm(
        layout(T, _X), T.ones(size, dtype=T.float64), None, T.zeros(3, dtype=T.float64),
        T.ones(3, dtype=T.float64), False, 0.1, 1e-5))


@pytest.mark.parametrize("rv", [[], [1.0, 2.0], [1.0]])
@pytest.mark.parametrize("layout", [None, _strided])
def test_native_batch_norm_empty_input_strided_statistics(rv, layout):
    # evaluation of an empty input returns early on the dense kernel only: the element-wise
    # path for a strided running mean still broadcasts the statistics over the channels
    def prog(T):
        rm = np.array([1e38, 1e-40, np.nan])
        return T.native_batch_norm(T.zeros(0, 3, 2, 2, dtype=T.float64), None, None,
                                   T.tensor(rm) if layout is None else layout(T, rm),
                                   T.tensor(np.array(rv)), False, 0.1, 1e-5)
    if layout is None or len(rv) == 1:
        same(prog)
    else:
        same_error(prog)


def test_max_unpool2d_empty_integer_output():
    # an empty output runs no kernel, so no dtype is refused
    idx = np.arange(24).reshape(2, 3, 2, 2) % 4
    x = (np.arange(24).reshape(2, 3, 2, 2) % 5 - 2).astype(np.int16)
    same(lambda T: T.nn.functional.max_unpool2d(_strided(T, x), _strided(T, idx), 0))
    same(lambda T: T.nn.functional.max_unpool2d(T.tensor(x).bool(), T.tensor(idx), 0))
    same(lambda T: T.nn.functional.max_unpool3d(T.tensor(x[None]), T.tensor(idx[None]), 1, 1,
                                                1))
    same_error(lambda T: T.nn.functional.max_unpool2d(T.tensor(x), T.tensor(idx), 2))


_B = np.array([True, True, False, True])


@pytest.mark.parametrize("bias", ["contiguous", "strided", "row strided"])
def test_linear_3d_bool_bias(bias):
    # a 3-d contiguous input folds into addmm only with a contiguous bias (else matmul + add)
    def prog(T):
        x = T.tensor(_X.transpose(0, 2, 1).copy(), requires_grad=True)
        w = T.ones(4, 3, dtype=T.float64)
        b = {"contiguous": lambda: T.tensor(_B), "strided": lambda: _strided(T, _B),
             "row strided": lambda: _strided(T, _B[None])}[bias]()
        return T.nn.functional.linear(x, w, b)
    if bias == "contiguous":
        same_error(prog)
    else:
        same(prog)


def test_rnn_relu_strided_bool_bias_fuzz_draw():
    rng = np.random.default_rng(126)
    x, h = rng.standard_normal((4, 2, 3)), rng.standard_normal((1, 2, 4))
    w_ih, w_hh = rng.standard_normal((4, 3)), rng.standard_normal((4, 4))
    b_hh = rng.standard_normal(4)

    def prog(T):
        params = [T.tensor(w_ih, requires_grad=True), _strided(T, w_hh), _strided(T, _B),
                  _strided(T, b_hh)]
        out, hn = T.rnn_relu(T.tensor(x, requires_grad=True), _strided(T, h), params, True, 1,
                             0.0, False, False, False)
        return out, hn, T.autograd.grad(out.sum(), params[0])
    same(prog)
