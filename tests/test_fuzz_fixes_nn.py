"""Regression tests for the differences from PyTorch the long fuzz run found in losses,
activations, embedding, dropout, bilinear and attention (issue 12): each compares chainrule
with PyTorch on the input found."""
import pytest

import torch

from helpers import error_of, same, same_error


def _F(T):
    return T.nn.functional


def same_outcome(prog, atol=1e-6):
    """PyTorch's error if it raises one, else its results."""
    return same_error(prog) if error_of(lambda: prog(torch)) else same(prog, atol=atol)


def test_pixel_unshuffle_hands_an_empty_input_back():
    same(lambda T: _F(T).pixel_unshuffle(T.zeros(0, 2, 4, 6, requires_grad=True), 2))


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("shape", [(3, 4), (0, 4), (3, 4, 5)])
def test_class_loss_of_a_0d_target(fn, shape):
    same_error(lambda T: getattr(_F(T), fn)(T.randn(shape), T.tensor(1)))


@pytest.mark.parametrize("shape, target, weight", [
    ((3, 4, 5), (3,), None), ((3, 4, 5, 2, 1), (3, 4, 2), None), ((3, 4, 5, 2), (3, 3), None),
    ((4,), (3,), None), ((3, 4), (3, 3), (3,)), ((3, 4, 5, 6), (3, 5, 5), (3,)),
    ((3, 4), (3,), (4, 1))])
def test_nll_loss_shape_checks_in_pytorchs_order(shape, target, weight):
    same_error(lambda T: _F(T).nll_loss(
        T.randn(shape), T.zeros(target, dtype=T.int64),
        None if weight is None else T.ones(weight)))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(0, 3, 2, 1, 2), (2, 3, 0, 1, 2)])
def test_nll_loss_of_empty_inputs_with_extra_dims(shape, reduction):
    target = shape[:1] + shape[2:]
    same(lambda T: _F(T).nll_loss(T.zeros(shape, dtype=T.float64, requires_grad=True),
                                  T.zeros(target, dtype=T.int64), reduction=reduction))


def test_nll_loss2d_takes_a_weight_of_any_shape_with_one_per_class():
    def prog(T):
        x = T.arange(48.).view(2, 4, 3, 2).sin().requires_grad_()
        return _F(T).nll_loss(x, T.arange(12).view(2, 3, 2) % 4, T.arange(1., 5.).view(4, 1))
    same(prog)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int8", "uint8", "int32"])
@pytest.mark.parametrize("call", [
    lambda T, x: _F(T).threshold(x, 1j, 0.5), lambda T, x: _F(T).threshold(x, 0.5, 1j),
    lambda T, x: _F(T).threshold(x, 1e40, 0.5), lambda T, x: _F(T).threshold(x, 0.5, 1000),
    lambda T, x: T.threshold_(x, 1j, -2.5), lambda T, x: _F(T).softshrink(x, 1j),
    lambda T, x: _F(T).hardshrink(x, 1j), lambda T, x: _F(T).hardshrink(x, 1e40),
    lambda T, x: _F(T).rrelu(x, 1.5 - 2j, 0.5), lambda T, x: _F(T).rrelu(x, 0.1, 1j),
    lambda T, x: _F(T).hardtanh(x, 0, 1e40), lambda T, x: _F(T).hardtanh(x, 0, 1000),
    lambda T, x: _F(T).hardtanh_(x, 2 ** 40, 0.5), lambda T, x: _F(T).hardtanh_(x, 0, 1j),
    lambda T, x: _F(T).hardtanh(x), lambda T, x: _F(T).hardtanh_(x, -1, 300)])
def test_scalar_arguments_convert_as_pytorchs_checked_cast(call, dtype):
    def prog(T):
        return call(T, T.tensor([[-1.5, 0.3, 2.0]]).to(getattr(T, dtype)))
    same_outcome(prog)


@pytest.mark.parametrize("call", [
    lambda T, x: T.native_dropout(x, 1j, False), lambda T, x: T.native_dropout(x, 0.5, 1),
    lambda T, x: T.dropout(x, 1j, False), lambda T, x: T.feature_alpha_dropout_(x, 0.5, None),
    lambda T, x: _F(T).margin_ranking_loss(x, x, x, 1.5 - 2j),
    lambda T, x: _F(T).cosine_embedding_loss(x, x, x[:, 0], 1j),
    lambda T, x: T.hinge_embedding_loss(x, x, 1j, 1),
    lambda T, x: T.triplet_margin_loss(x, x, x, 1.0, 2.0, 1j),
    lambda T, x: _F(T).poisson_nll_loss(x, x, eps=1j),
    lambda T, x: _F(T).poisson_nll_loss(x, x, 1)])
def test_number_arguments_are_parsed_as_pytorchs_binding_parses_them(call):
    same_error(lambda T: call(T, T.ones(3, 4, dtype=T.float64)))


def test_number_arguments_take_numpy_numbers():
    import numpy as np
    same(lambda T: (T.dropout(T.ones(3), np.True_, False),
                    T.hinge_embedding_loss(T.ones(3), T.ones(3), np.float32(0.5), 1)))


def _trilinear(T, shapes, dtypes, dims=([2], [0], [1], [1])):
    a, b, c = (T.ones(s, dtype=getattr(T, d)) for s, d in zip(shapes, dtypes))
    return T._trilinear(a, b, c, *dims)


@pytest.mark.parametrize("dtypes", [
    ("float64", "complex128", "float32"), ("int64", "bool", "float64"),
    ("bool", "bool", "float32"), ("float16", "float64", "float32"),
    ("complex64", "float64", "float16"), ("int8", "bool", "bool")])
def test_trilinear_adds_the_product_into_the_first_inputs_dtype(dtypes):
    same_outcome(lambda T: _trilinear(T, [(2, 3), (3, 4), (2, 4)], dtypes))


@pytest.mark.parametrize("shapes", [
    [(0, 3), (3, 4), (2, 4)], [(2, 3), (0, 4), (2, 4, 1)], [(2, 3), (3, 4), (2, 0)],
    [(1, 3), (3, 4), (2, 4)], [(2, 3), (3, 4), (2, 5)], [(2, 3), (3, 4), (2, 4, 1)]])
def test_trilinear_shapes(shapes):
    same_outcome(lambda T: _trilinear(T, shapes, ["int64", "float32", "float32"]))


@pytest.mark.parametrize("dims", [([5], [0], [1], [1]), ([2], [0], [1], [3]),
                                  ([2, 2], [0], [1], [1])])
def test_trilinear_dim_lists(dims):
    same_error(lambda T: _trilinear(T, [(2, 3), (3, 4), (2, 4)], ["float32"] * 3, dims))


@pytest.mark.parametrize("which", [1, 2, 3])
def test_bilinear_takes_one_dtype(which):
    def prog(T):
        args = [T.ones(5, 2), T.ones(5, 3), T.ones(4, 2, 3), T.ones(4)]
        args[which] = args[which].to(T.complex128)
        return _F(T).bilinear(*args)
    same_error(prog)


@pytest.mark.parametrize("weight", [(0, 3), (1, 0), (2, 3)])
@pytest.mark.parametrize("index", [-2 ** 63, 0, 1, 5])
def test_embedding_checks_indices_as_index_select(weight, index):
    same_outcome(lambda T: _F(T).embedding(T.tensor(index), T.ones(weight, dtype=T.float16)))


@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_embedding_bag_of_a_0d_weight(requires_grad, padding_idx):
    same_error(lambda T: T.embedding_bag(
        T.tensor(0.5, requires_grad=requires_grad), T.tensor([0, 1, 0]), T.tensor([0, 2]),
        False, 2, False, None, False, padding_idx))


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("offsets", [[0, 2], [0, 3], [0, 1, 2], [0, 0, 0]])
def test_embedding_bag_of_rows_of_no_columns(offsets, dtype):
    same_outcome(lambda T: T.embedding_bag(
        T.ones(5, 0, dtype=getattr(T, dtype)), T.tensor([0, 1, 0]), T.tensor(offsets), False, 0))


@pytest.mark.parametrize("fn", ["multi_margin_loss", "multilabel_margin_loss"])
@pytest.mark.parametrize("dtype", ["float16", "float64", "int64", "bool"])
def test_margin_losses_of_an_empty_batch_check_nothing(fn, dtype):
    # the reduced loss of an empty batch is uninitialized memory in PyTorch: not compared
    def prog(T):
        x = T.ones(0, 5, dtype=getattr(T, dtype))
        target = T.ones((0,) if fn == "multi_margin_loss" else (0, 5), dtype=T.float16)
        return getattr(_F(T), fn)(x, target, reduction="none")
    same(prog)


@pytest.mark.parametrize("fn", ["multi_margin_loss", "multilabel_margin_loss"])
def test_margin_losses_check_the_input_dtype_before_the_targets(fn):
    same_error(lambda T: getattr(_F(T), fn)(
        T.ones(2, 5, dtype=T.float16),
        T.ones((2,) if fn == "multi_margin_loss" else (2, 5), dtype=T.float32)))


@pytest.mark.parametrize("dtypes", [("float64", "complex128"), ("float16", "complex64"),
                                    ("float32", "float64"), ("float16", "int64"),
                                    ("int64", "float16"), ("complex64", "float64")])
def test_soft_margin_loss_computes_in_the_inputs_dtype(dtypes):
    same_outcome(lambda T: _F(T).soft_margin_loss(
        T.tensor([0.5, -1.0, 2.0]).to(getattr(T, dtypes[0])),
        T.tensor([1.0, -1.0, 1.0]).to(getattr(T, dtypes[1])), reduction="none"))


def test_binary_cross_entropy_target_gradient_is_minus_logit():
    def prog(T):
        x = T.tensor([0.25, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        t = T.tensor([0.5, 1.0, 0.0], dtype=T.float64, requires_grad=True)
        return T.autograd.grad(_F(T).binary_cross_entropy(x, t, reduction="sum"), [x, t])
    same(prog)


@pytest.mark.parametrize("shapes", [((), (3, 4)), ((4,), (3, 4)), ((3, 4), (4,))])
@pytest.mark.parametrize("weight", [None, (3, 4)])
@pytest.mark.parametrize("pos_weight", [None, (4,)])
@pytest.mark.parametrize("reduction", [0, 1])
@pytest.mark.parametrize("which", [0, 1])
def test_binary_cross_entropy_with_logits_in_place_shapes(shapes, weight, pos_weight,
                                                          reduction, which):
    def prog(T):
        x = T.full(shapes[0], -0.2, dtype=T.float64, requires_grad=True)
        t = T.full(shapes[1], 0.3, dtype=T.float64, requires_grad=True)
        w, pw = (None if s is None else T.full(s, v, dtype=T.float64)
                 for s, v in ((weight, 1.5), (pos_weight, 2.5)))
        out = T.binary_cross_entropy_with_logits(x, t, w, pw, reduction)
        return out, T.autograd.grad(out, [x, t][which], T.ones_like(out))
    same_outcome(prog)


@pytest.mark.parametrize("dtype", ["complex128", "bool"])
def test_binary_cross_entropy_with_logits_pos_weight_dtype(dtype):
    same_error(lambda T: _F(T).binary_cross_entropy_with_logits(
        T.ones(3, 4, dtype=T.float64), T.ones(3, 4, dtype=T.float64),
        pos_weight=T.ones(4, dtype=getattr(T, dtype))))


def _safe_softmax(T, x, dim):
    return (T._safe_softmax if T.__name__ == "torch" else T.ops.attention.safe_softmax)(x, dim)


@pytest.mark.parametrize("dtype", ["int32", "bool", "complex128", "float16"])
@pytest.mark.parametrize("shape, dim", [((3, 4), 1), ((3, 4), 0), ((0, 4), 1)])
def test_safe_softmax_dtypes(dtype, shape, dim):
    same_outcome(lambda T: _safe_softmax(
        T, T.arange(12.).reshape(3, 4)[:shape[0]].to(getattr(T, dtype)), dim))


@pytest.mark.parametrize("shapes", [
    [(0, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)], [(0, 4, 5), (2, 6, 5), (2, 6, 5)],
    [(0, 3, 4, 5), (1, 3, 6, 5), (1, 3, 6, 5)], [(2, 0, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)],
    [(2, 0, 4, 5), (2, 1, 6, 5), (2, 1, 6, 5)], [(2, 3, 0, 5), (2, 3, 6, 5), (2, 3, 6, 5)],
    [(2, 3, 4, 5), (1, 3, 6, 5), (0, 3, 6, 5)]])
def test_scaled_dot_product_attention_of_empty_inputs(shapes):
    def prog(T):
        q, k, v = (T.ones(s, dtype=T.float64, requires_grad=True) for s in shapes)
        out = _F(T).scaled_dot_product_attention(q, k, v)
        return out, out.grad_fn.name()
    same_outcome(prog)


def test_float_arguments_are_read_as_floats():
    same(lambda T: T.margin_ranking_loss(T.tensor([-1, -2, 0], dtype=T.int8),
                                         T.tensor([-1, 0, -1], dtype=T.int8),
                                         T.tensor([1, -1, 1], dtype=T.int8), 2 ** 40, 2))


def test_weight_norm_of_a_half_g_takes_the_fused_kernel():
    same_error(lambda T: T._weight_norm(T.ones(3, 4, dtype=T.float64),
                                        T.ones(3, 1, dtype=T.float16), 0))


@pytest.mark.parametrize("shapes", [((4,), (), ()), ((), (4,), ()), ((2, 4), (4,), (2,))])
def test_cosine_embedding_loss_checks_both_inputs(shapes):
    same_error(lambda T: T.cosine_embedding_loss(*(T.ones(s) for s in shapes), 0.0, 0))


def test_trilinear_sums_in_a_batched_matmul_of_one_dtype():
    def prog(T):
        a = T.ones(2, 3, requires_grad=True)
        b, c = (T.ones(s, dtype=T.float64, requires_grad=True) for s in ((3, 4), (2, 4)))
        out = T._trilinear(a, b, c, [2], [0], [1], [1])
        return T.autograd.grad(out, [a, b, c], T.ones_like(out))
    same_error(prog)


def test_bilinear_sums_as_pytorch_orders_it():
    inf, nan = float("inf"), float("nan")

    def prog(T):
        x1 = T.tensor([[1.3, nan], [0.2, 0.5], [-0.1, -1e38]], dtype=T.float64,
                      requires_grad=True)
        x2 = T.tensor([[0.7, 0.2, -0.3], [inf, 0.1, -0.1], [1.5, 1.4, -2.0]],
                      dtype=T.float64, requires_grad=True)
        w = T.arange(24.).view(4, 2, 3).sin().double().requires_grad_()
        out = _F(T).bilinear(x1, x2, w)
        return out, T.autograd.grad(out, [x1, x2, w], T.ones_like(out))
    same(prog)


def test_embedding_bag_strided_weights_skip_the_fast_kernel():
    same(lambda T: T.embedding_bag(T.ones(6, 6)[:, ::2], T.tensor([1, 2, 4, 5]),
                                   T.tensor([0, 2]), False, 0))


def test_soft_margin_loss_gradient_negates_a_bool_target():
    def prog(T):
        x = T.tensor([0.5, -1.0], requires_grad=True)
        return T.autograd.grad(_F(T).soft_margin_loss(x, T.tensor([True, False])), x)
    same_error(prog)


@pytest.mark.parametrize("dtype", ["complex64", "float16", "int64"])
def test_multilabel_margin_loss_checks_target_values_first(dtype):
    same_error(lambda T: _F(T).multilabel_margin_loss(
        T.ones(1, 5, dtype=getattr(T, dtype)), T.tensor([[1, 10, 0, -1, 2]]).float()))


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (2, 0, 4, 5)])
def test_nll_loss2d_reads_only_long_targets(shape):
    same_error(lambda T: _F(T).nll_loss(T.zeros(shape),
                                        T.ones(shape[:1] + shape[2:], dtype=T.uint8)))


def test_binary_cross_entropy_with_logits_takes_log_sigmoid_first():
    same_error(lambda T: T.binary_cross_entropy_with_logits(
        T.ones(0, 4, dtype=T.complex128), T.ones(3, 4, dtype=T.float64), None, None, 0))


@pytest.mark.parametrize("fn", ["F", "torch"])
def test_embedding_of_a_0d_weight_requiring_grad(fn):
    def prog(T):
        w, i = T.tensor(0.5, requires_grad=True), T.tensor([0])
        return _F(T).embedding(i, w) if fn == "F" else T.embedding(w, i)
    same_error(prog)


@pytest.mark.parametrize("value", [-2.0, -0.5, -1e-300])
def test_negative_floats_do_not_convert_to_unsigned(value):
    same_error(lambda T: _F(T).threshold(T.tensor([1, 2], dtype=T.uint8), 0.05, value))


@pytest.mark.parametrize("args", [(2, 0), (2, 1, 3), (7,), (2, 1, 1, 0)])
def test_max_pool3d_checks_shapes_before_the_dtype(args):
    same_error(lambda T: _F(T).max_pool3d(T.ones(1, 4, 5, 6, dtype=T.complex64), *args))


def test_threshold_of_unsigned_input_wraps_a_negative_integer_threshold():
    same(lambda T: (_F(T).threshold(T.tensor([1, 2, 3], dtype=T.uint8), -1, 7),
                    _F(T).threshold(T.tensor([1, 2, 3], dtype=T.uint8), -2, 7)))
    same_error(lambda T: T.threshold_(T.tensor([1, 2, 3], dtype=T.uint8), -1, -2.0))


@pytest.mark.parametrize("bounds", [(0.1, float("inf")), (float("-inf"), 0.3),
                                    (float("nan"), 0.3), (0.1, float("nan"))])
def test_rrelu_bounds_must_be_finite(bounds):
    same_error(lambda T: _F(T).rrelu(T.ones(3), *bounds))


def test_trilinear_reads_a_smaller_inputs_sizes_up_to_the_common_rank():
    same_error(lambda T: T._trilinear(T.ones(2, 3), T.tensor(0.5), T.ones(2, 4),
                                      [2], [0], [1], [1]))


def test_nll_loss2d_checks_the_inputs_dtype_before_the_targets():
    same_error(lambda T: _F(T).nll_loss(T.zeros(2, 3, 1, 2, dtype=T.uint8),
                                        T.zeros(2, 1, 2, dtype=T.uint8)))


@pytest.mark.parametrize("create_graph", [False, True])
def test_weight_norm_backward_of_an_infinite_g(create_graph):
    def prog(T):
        v = T.tensor([[-0.9, -0.1, 0.1], [0.1, -0.5, 0.6], [0.9, 0.3, -0.8]],
                     dtype=T.float64, requires_grad=True)
        g = T.tensor([[-1e38, float("inf"), 1e38]], dtype=T.float64, requires_grad=True)
        gw = T.tensor([[0.3, -0.2, 0.5]] * 3, dtype=T.float64)
        return T.autograd.grad(T._weight_norm(v, g, 1), [v, g], gw, create_graph=create_graph)
    same(prog)


@pytest.mark.parametrize("dtypes", [("float16", "float16"), ("float16", "float64"),
                                    ("float32", "float16")])
@pytest.mark.parametrize("dim", [0, 1])
def test_weight_norm_takes_the_fused_kernel_for_every_float_dtype(dtypes, dim):
    def prog(T):
        v = T.arange(6.).view(2, 3).sin().to(getattr(T, dtypes[0])).requires_grad_()
        g = T.ones((2, 1) if dim == 0 else (1, 3), dtype=getattr(T, dtypes[1]))
        return T._weight_norm(v, g.requires_grad_(), dim)
    same_outcome(prog, atol=1e-3)     # half: within one unit in the last place


def test_trilinear_checks_unroll_dim_first():
    same_error(lambda T: T._trilinear(T.tensor(2.0), T.ones(2, 4), T.ones(2, 4),
                                      [2], [0], [1], [1]))


def test_soft_margin_loss_writes_into_the_inputs_shape():
    same_error(lambda T: _F(T).soft_margin_loss(T.tensor(0.5), T.ones(3, 4)))


def test_binary_cross_entropy_multiplies_by_the_weight_in_place():
    same_error(lambda T: _F(T).binary_cross_entropy(
        T.full((2, 4), 0.5, dtype=T.float64), T.full((2, 4), 0.5, dtype=T.float64),
        T.ones(4, dtype=T.complex128)))


@pytest.mark.parametrize("input, target", [((0, 4), ()), ((4,), (3,)), ((3, 4), (3, 2))])
def test_nll_loss_checks_the_target_dtype_before_its_size(input, target):
    same_error(lambda T: _F(T).nll_loss(T.zeros(input), T.zeros(target, dtype=T.complex64)))


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_nll_loss2d_backward_refuses_a_dense_non_contiguous_input(reduction):
    def prog(T):
        b = T.arange(24.).view(2, 2, 3, 2).double().requires_grad_()
        out = _F(T).nll_loss(b.transpose(1, 2), T.zeros(2, 2, 2, dtype=T.int64),
                             reduction=reduction)
        return T.autograd.grad(out.sum(), b)
    same_error(prog)


@pytest.mark.parametrize("limits", [(-0.5, 2.0), (-1.5, 2.0)])
def test_hardtanh_of_unsigned_input_reads_its_limits_as_integers(limits):
    same_outcome(lambda T: _F(T).hardtanh(T.tensor([[0, 4, 1], [1, 0, 0]], dtype=T.uint8),
                                          *limits))


def test_binary_cross_entropy_with_logits_multiplies_by_its_weight_in_place():
    same_error(lambda T: T.binary_cross_entropy_with_logits(
        T.ones(3, 4, dtype=T.float64), T.ones(3, 4, dtype=T.float64),
        T.ones(3, 4, dtype=T.complex64), None, 0))


def test_binary_cross_entropy_with_logits_of_half_logits_and_pos_weight():
    def prog(T):
        x = T.tensor([[0.7314, -0.5015, 0.8794, -1.072], [0.0541, 0.2727, -0.9824, -1.107]],
                     dtype=T.float16, requires_grad=True)
        t = T.tensor([[0.51, 0.95, 0.14, 0.94], [0.54, 0.02, 0.75, 0.53]],
                     dtype=T.float64, requires_grad=True)
        out = _F(T).binary_cross_entropy_with_logits(
            x, t, pos_weight=T.tensor([0.92, 0.82, 1.45, 1.70], dtype=T.float64),
            reduction="none")
        return out, T.autograd.grad(out, [x, t], T.ones_like(out))
    same(prog, atol=1e-7, rtol=1e-7)


def test_bilinear_of_bools_reaches_the_batched_matmul():
    same_error(lambda T: _F(T).bilinear(T.ones(5, 2, dtype=T.bool), T.ones(5, 3, dtype=T.bool),
                                        T.ones(4, 2, 3, dtype=T.bool)))


def test_binary_cross_entropy_with_logits_input_gradient_rounds_in_place():
    nan, inf = float("nan"), float("inf")

    def prog(T):
        x = T.tensor([[nan, 0.82, -inf, -1.3], [0.9, 0.44, -0.53, 0.58]], dtype=T.float64,
                     requires_grad=True)
        t = T.tensor([[0.33, 0.79, 0.30, 0.45], [0.13, 0.40, 0.20, 0.26]], dtype=T.float16,
                     requires_grad=True)
        out = T.binary_cross_entropy_with_logits(
            x, t, None, T.tensor([-32768, 2, -1, 1], dtype=T.int16), 1)
        return out, T.autograd.grad(out, [x, t])
    same(prog, atol=1e-7, rtol=1e-7)
