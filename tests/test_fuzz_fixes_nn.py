"""Regression tests for the differences from PyTorch the long fuzz run found in losses,
activations, embedding, dropout, bilinear and attention (issue 12): each compares chainrule
with PyTorch on the input found."""
import pytest

from helpers import same, same_error


def _F(T):
    return T.nn.functional


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
