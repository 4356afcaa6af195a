"""PyTorch's alias names and less-used spellings (absolute for abs, divide for div, fix for
trunc, concat for cat, ...): each called as a function, a method and in place where PyTorch
has that form, compared with PyTorch on the same inputs."""
import numpy as np
import pytest

from helpers import same, same_error

A = np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.0]])
B = np.array([[0.5, 1.5, -2.0], [2.5, -0.25, 1.0]])


def _pair(T, requires_grad=False):
    return T.tensor(A, requires_grad=requires_grad), T.tensor(B)


CALLS = {
    "absolute": lambda T, x, y: (T.absolute(x), x.absolute(), x.clone().absolute_()),
    "arcsin": lambda T, x, y: (T.arcsin(x / 4), (x / 4).arcsin()),
    "arctan2_": lambda T, x, y: (x.clone().arctan2_(y),),
    "divide": lambda T, x, y: (T.divide(x, y), x.divide(y), x.clone().divide_(y),
                               T.divide(x, y, rounding_mode="floor"),
                               x.divide(y, rounding_mode="trunc"),
                               x.clone().divide_(y, rounding_mode="floor")),
    "true_divide": lambda T, x, y: (T.true_divide(x, y), x.true_divide(y),
                                    x.clone().true_divide_(y)),
    "fix": lambda T, x, y: (T.fix(x), x.fix(), x.clone().fix_()),
    "logical_or": lambda T, x, y: (T.logical_or(x > 0, y > 0), (x > 0).logical_or(y),
                                   (x > 0).logical_or_(y > 0)),
    "pow_": lambda T, x, y: (x.abs().pow_(y), x.clone().pow_(2)),
    "sgn_": lambda T, x, y: (x.clone().sgn_(),),
    "sub_": lambda T, x, y: (x.clone().sub_(y), x.clone().sub_(y, alpha=2), x.clone().sub_(3)),
    "sum_to_size": lambda T, x, y: (x.sum_to_size(1, 3), x.sum_to_size((2, 1)),
                                    x.sum_to_size(2, 3)),
    "concat": lambda T, x, y: (T.concat([x, y]), T.concat((x, y), dim=1),
                               T.concat([x, y], out=T.empty(0, dtype=T.float64))),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_alias_values(name):
    same(lambda T: CALLS[name](T, *_pair(T)))


GRAD_CALLS = {
    "absolute": lambda T, x, y: (T.absolute(x), x.absolute()),
    "arcsin": lambda T, x, y: (T.arcsin(x / 4), (x / 4).arcsin()),
    "divide": lambda T, x, y: (T.divide(x, y), x.divide(y), T.divide(x, y, rounding_mode="floor")),
    "true_divide": lambda T, x, y: (T.true_divide(x, y), x.true_divide(y)),
    "fix": lambda T, x, y: (T.fix(x), x.fix()),
    "sum_to_size": lambda T, x, y: (x.sum_to_size(1, 3), x.sum_to_size((2, 1))),
    "concat": lambda T, x, y: (T.concat([x, y]), T.concat((x, y), dim=1)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CALLS))
def test_alias_gradients_and_nodes(name):
    def prog(T):
        x, y = _pair(T, requires_grad=True)
        outs = GRAD_CALLS[name](T, x, y)
        sum((o * o).sum() for o in outs).backward()
        return [o.grad_fn.name() for o in outs], x.grad
    same(prog)


@pytest.mark.parametrize("size", [(3, 3), (1, 1, 3), (2, 2)])
def test_sum_to_size_refuses_sizes_it_cannot_reach(size):
    same_error(lambda T: T.ones(2, 3).sum_to_size(*size))


def test_alias_errors():
    same_error(lambda T: T.concat([T.ones(2, requires_grad=True)], out=T.empty(0)))


def test_logspace():
    def prog(T):
        return (T.logspace(0, 2, 5), T.logspace(-1, 1, 4, base=2.0), T.logspace(0, 3, 4,
                                                                                dtype=T.float64),
                T.logspace(1, 2, 1), T.logspace(0, 1, 0))
    same(prog)


def test_embedding_renorm_():
    w = np.random.default_rng(0).standard_normal((5, 3)) * 2

    def prog(T):
        weight = T.tensor(w)
        r = T.embedding_renorm_(weight, T.tensor([0, 2, 2]), 1.0, 2.0)
        return r is weight, weight
    same(prog)
