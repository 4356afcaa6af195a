"""Regression tests for the differences from PyTorch the fourth long fuzz run found in the
normalization, activation and attention entries (issue 12): each compares chainrule with
PyTorch on the input found (or one built like it)."""
import numpy as np
import pytest
import torch

import chainrule
from chainrule.ops.pointwise import tanh_backward
from helpers import error_of, same, same_error


def _half_tanh_backward(T):
    """tanh_backward on half operands (the double backward's grad_output formula too)."""
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((6, 7)).astype(np.float16), requires_grad=True)
    v = T.tensor(rng.standard_normal((6, 7)).astype(np.float16), requires_grad=True)
    gx, = T.autograd.grad(T.tanh(x), x, v, create_graph=True)
    w = T.tensor(rng.standard_normal((6, 7)).astype(np.float16))
    return gx, T.autograd.grad(gx, v, w)[0]


def test_tanh_backward_of_half_rounds_once():
    # PyTorch's kernel computes grad * (1 - y * y) of half operands in float32
    same(_half_tanh_backward, atol=0, rtol=0)


def _tanh_grad(x):
    def prog(T):
        t = T.tensor(x, requires_grad=True)
        return T.autograd.grad(T.tanh(t), t, T.ones_like(t))[0]
    return prog


def test_tanh_backward_of_float_takes_one_minus_y_squared_fused():
    # where 1 - y * y cancels (|y| near 1), PyTorch's fused multiply-add is what is seen;
    # the points are those whose float tanh the two libraries round alike
    x = np.linspace(2, 6, 2000, dtype=np.float32)
    x = x[chainrule.tanh(chainrule.tensor(x)).numpy() == torch.tanh(torch.tensor(x)).numpy()]
    assert x.size > 500
    same(_tanh_grad(x), atol=0, rtol=0)


@pytest.mark.parametrize("g_dtype, y_dtype", [("float64", "float32"), ("float32", "float64"),
                                              ("int64", "float32"), ("int32", "uint8")])
def test_tanh_backward_computes_in_the_common_dtype(g_dtype, y_dtype):
    rng = np.random.default_rng(0)
    g = rng.integers(-3, 4, 50) if g_dtype[0] == "i" else rng.standard_normal(50)
    y = rng.integers(0, 3, 50) if y_dtype[0] == "u" else np.tanh(rng.uniform(-6, 6, 50))
    g, y = g.astype(g_dtype), y.astype(y_dtype)
    theirs = error_of(lambda: torch.ops.aten.tanh_backward(torch.tensor(g), torch.tensor(y)))
    ours = error_of(lambda: tanh_backward(chainrule.tensor(g), chainrule.tensor(y)))
    if theirs is not None:
        assert (type(ours), str(ours)) == (type(theirs), str(theirs))
        return
    r, t = (tanh_backward(chainrule.tensor(g), chainrule.tensor(y)),
            torch.ops.aten.tanh_backward(torch.tensor(g), torch.tensor(y)))
    assert str(r.dtype) == str(t.dtype)
    # (a double 1 - y * y is rounded twice here, once in PyTorch's fused multiply-add)
    np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-10, atol=0)


@pytest.mark.parametrize("x_dtype, w_shape, w_dtype", [
    ("uint8", (0, 3, 1), "uint8"), ("float64", (0, 3, 1), "float32"),
    ("bool", (4, 3, 1), "bool")])
def test_prelu_kernel_checks_shapes_before_dtypes(x_dtype, w_shape, w_dtype):
    same_error(lambda T: T._prelu_kernel(T.zeros(2, 3, 2, dtype=getattr(T, x_dtype)),
                                         T.zeros(w_shape, dtype=getattr(T, w_dtype))))


def _one_hot_attention(T):
    # a huge query element makes that query row's softmax one-hot (grouped heads share k, v)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((1, 2, 2, 5))
    q[0, 0, 1, 4] = 1e38
    q, k, v = (T.tensor(a, requires_grad=True) for a in (
        q, rng.standard_normal((1, 1, 3, 5)), rng.standard_normal((1, 1, 3, 5))))
    out = T.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    return out, T.autograd.grad(out, (q, k, v), T.tensor(rng.standard_normal((1, 2, 2, 5))))


def test_flash_attention_of_a_one_hot_row_has_no_rounding_residue():
    # the one-hot row adds exactly 0 to the key gradient, as in PyTorch's here (elsewhere its
    # rowsum(g * out) and its gemm's dp differ by rounding: a residue times the huge query)
    same(_one_hot_attention, atol=1e-7, rtol=1e-7)


def _inf_score_row(T):
    # row 2 of the causal attention scores -inf, +inf, +inf: its softmax (so its logsumexp)
    # is NaN, and the key the row cannot see keeps a finite value gradient
    q = T.tensor([[[[0.3, 1.7], [-0.7, 0.3], [-0.05, -float("inf")], [0.5, 1.4]]]],
                 dtype=T.float64, requires_grad=True)
    k = T.tensor([[[[0.27, 0.78], [1.6, -0.47], [0.08, -0.39], [0.9, -0.86]]]],
                 dtype=T.float64, requires_grad=True)
    v = T.tensor([[[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6], [0.7, 0.8]]]], dtype=T.float64,
                 requires_grad=True)
    out = T.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7)
    return out, T.autograd.grad(out, (q, k, v), T.ones_like(out))


def test_flash_attention_of_an_infinite_score_row():
    same(_inf_score_row)


def _unpool_into_nothing(T, dims, index, args):
    """max_unpool into an output of no element (kernel 0, or padding eating the size)."""
    shape = (2, 3) + (2,) * dims
    x = T.ones(shape, dtype=T.float64, requires_grad=True)
    fn = getattr(T.nn.functional, f"max_unpool{dims}d")
    return fn(x, T.full(shape, index, dtype=T.int64), *args), x


@pytest.mark.parametrize("dims, args", [(2, (0,)), (2, (1, 1, 1)), (3, (1, 1, 1))])
@pytest.mark.parametrize("index", [0, 11, -1])
def test_max_unpool_into_an_empty_output_reads_no_index(dims, args, index):
    same(lambda T: _unpool_into_nothing(T, dims, index, args)[0])
    # the backward's gather still refuses the index

    def backward(T):
        y, x = _unpool_into_nothing(T, dims, index, args)
        return T.autograd.grad(y.sum(), x)
    same_error(backward)


def test_poisson_nll_loss_stirling_term_of_a_half_target():
    # 0.5 * log(2 pi target): a half tensor times a number computes in float32 (the number
    # not rounded to half); the draw's reduced float64 loss showed it
    t = np.array([[0.6387, 2.35, 2.107, 0.7183], [2.744, 3.484, 2.576, 1.41]], np.float16)
    same(lambda T: T.poisson_nll_loss(T.tensor(t * 0.7, dtype=T.float64), T.tensor(t), False,
                                      True, 1e-8, 0), atol=0, rtol=0)


def test_half_tensor_over_a_number_in_the_c_compositions():
    # gradient's div.Scalar by the spacing: PyTorch computes half / number in float32
    x = np.random.default_rng(0).standard_normal((4, 50)).astype(np.float16)
    same(lambda T: T.gradient(T.tensor(x), spacing=0.3, dim=1, edge_order=2), atol=0, rtol=0)


def test_poisson_nll_loss_adds_stirling_in_place():
    # loss += stirling term: a half loss stays half with a float32 term (an int32 target)
    def prog(T):
        x = T.tensor([[1.8, 1.3, 0.36], [0.0, 0.66, -0.66]], dtype=T.float16,
                     requires_grad=True)
        out = T.poisson_nll_loss(x, T.tensor([[70, 1, 2], [3, 0, 5]], dtype=T.int32),
                                 True, True, 1e-8, 0)
        return out, T.autograd.grad(out.sum(), x)
    same(prog, atol=1e-3, rtol=1e-3)
