"""The one-dim indexing family (scatter, scatter_reduce, gather, index_*, masked_*, take,
take_along_dim, bincount) against PyTorch: values, dtypes, grad_fn names, in-place
variants, and the exact errors and warnings of bad input. Gradients of every op are also
checked on the op database's samples by test_ops.py."""
import warnings

import numpy as np
import pytest
import torch

import chainrule

from helpers import error_of, same, same_error, same_warnings

X = "T.arange(12.).reshape(3, 4)"
M = "T.tensor([True, False, True, False])"
R = "T.tensor([[1., 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])"
RI = "T.tensor([[0, 1, 0, 0], [0, 1, 1, 0]])"
RS = "T.tensor([[1., 20, 3, 4], [50, 6, 7, 8]])"

# Each program runs on both libraries: it either returns the same values (dtype, shape,
# grad_fn) or raises the same exception class and message.
PROGRAMS = f"""
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(1, T.tensor([[3, 1], [0, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(-1, T.tensor([[0, 1, 2, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]], dtype=T.int32), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), src=T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), 1)
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), True)
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), value=2.5)
{X}.scatter(1, T.tensor([[0, 1, 2, 3, 0]]), 2.0)
T.arange(12).reshape(3, 4).int().scatter(0, T.tensor([[0, 1, 2, 0]]), 1.5)
T.arange(6).reshape(2, 3).bool().scatter(0, T.tensor([[1, 0, 1]]), 2)
T.arange(6).reshape(2, 3).to(T.uint8).scatter(0, T.tensor([[1, 0, 1]]), -1)
T.arange(6).reshape(2, 3).float().scatter(0, T.tensor([[1, 0, 1]]), float('nan'))
T.arange(6).reshape(2, 3).cfloat().scatter(0, T.tensor([[1, 0, 1]]), 1j)
T.zeros(()).scatter(0, T.tensor(0), T.tensor(5.))
T.zeros(()).scatter(0, T.tensor([0]), T.tensor([5.]))
T.zeros(3).scatter(0, T.tensor([]).long(), T.tensor([5.]))
T.zeros(3, 4).scatter(0, T.zeros(0, 2).long(), T.tensor([[5.]]))
T.zeros(3, 4).scatter(0, T.zeros(0).long(), T.tensor([[5.]]))
T.ones(3, 4).scatter(0, T.tensor([[0, 0, 0, 0], [0, 0, 1, 1]]), T.ones(2, 4) * 3, reduce='multiply')
T.ones(3, 4).scatter(0, T.tensor([[0, 0, 0, 0], [0, 0, 1, 1]]), T.ones(2, 4) * 3, reduce='add')
T.ones(3, 4).scatter(0, T.tensor([[0, 0, 0, 0], [0, 0, 1, 1]]), 2.0, reduce='add')
T.ones(2, 3).scatter(0, T.tensor([[0, 1, 0]]), T.ones(1, 3).requires_grad_(), reduce='add').grad_fn
T.ones(2, 3).requires_grad_().scatter(0, T.tensor([[0, 1, 0]]), T.ones(1, 3), reduce='add').grad_fn
T.ones(3, 4).scatter(0, T.tensor([[0, 0, 0, 0], [0, 0, 1, 1]]), 2, reduce='multiply')
{X}.scatter(0, T.tensor([[0, 1, 3, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, -1, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(1, T.tensor([[0, 1, 4, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0., 1, 2, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]], dtype=T.int16), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([0, 1, 2, 0]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0, 1]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]] * 3), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), T.arange(8.).reshape(2, 4).double())
{X}.scatter(2, T.tensor([[0, 1, 2, 0]]), T.arange(8.).reshape(2, 4))
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), 1 + 2j)
{X}.scatter(0, T.tensor([[0, 1, 2, 0]]), T.tensor(2.))
{X}.double().scatter(0, T.tensor([[0, 1, 2, 0]]), T.tensor(2.))
{X}.scatter(0, T.tensor([[0, 1, 2, 0, 1]]), 2.0)
T.zeros(3).scatter(0, T.tensor([[0]]), T.tensor([[5.]]))
T.zeros(3, 4).scatter(1, T.tensor([[0], [1], [2], [0]]), 2.0)
T.zeros(3, 4).scatter(1, T.tensor([[0, 1, 2, 3]]), T.ones(1, 3))
T.zeros(3, 4).scatter(1, T.tensor([[0, 1]]), T.ones(2))
T.ones(3, 4).scatter(0, T.tensor([[0, 0]]), 2, reduce='mean')
T.ones(3, 4).scatter(0, T.tensor([[0, 0]]), T.ones(2, 4), reduce='mean')
T.zeros(3, 4).scatter(0, T.tensor([[0, 5]]), 1.0, reduce='foo')
T.zeros(3, 4).scatter(0, T.tensor([[0., 1]]), 1.0, reduce='foo')
T.zeros(3, 4, dtype=T.uint8).scatter(0, T.tensor([[0, 5]]), 300)
T.arange(6).reshape(2, 3).to(T.int8).scatter(0, T.tensor([[1, 0, 1]]), 200)
T.arange(6).reshape(2, 3).float().scatter(0, T.tensor([[1, 0, 1]]), 1e300)
T.zeros(3).scatter(0, T.tensor([0.]), T.zeros(2, dtype=T.int64))
T.zeros(3).scatter(0, T.tensor([[0]]), T.zeros(2, dtype=T.int64))
T.zeros(3).scatter(2, T.tensor([[0.]]), T.zeros(2, dtype=T.int64))
T.zeros(3, 4).scatter(-1, T.tensor([[0, 5]]), T.zeros(2, 3))
T.zeros(3, 4, 2).scatter(1, T.tensor([[[0, 5], [7, 6]]]), T.zeros(2, 3, 2))
T.zeros(3, 4).scatter_add(0, T.tensor([[0, 1, 2, 0], [2, 2, 2, 2]]), T.arange(8.).reshape(2, 4))
T.zeros(3, 4).long().scatter_add(1, T.tensor([[0, 1], [3, 3]]), T.arange(8).reshape(2, 4))
T.zeros(3, 4).scatter_add(1, T.tensor([[0, 4]]), T.ones(1, 2))
T.zeros(3, 4).scatter_add(1, T.tensor([[0, 1]]), T.ones(1, 1))
T.zeros(3, 4).scatter_add(1, T.tensor([[0, 1]]), T.ones(1, 2).double())
T.zeros(3, 4).scatter_add(1, T.tensor([0, 1]), T.ones(1, 2))
T.zeros(3, 4).scatter_add(1, T.tensor([[0, 1.]]), T.ones(1, 2))
T.zeros(3, 4).scatter_add(0, T.tensor([]), T.zeros(2))
{R}.scatter_reduce(0, {RI}, {RS}, 'max')
T.scatter_reduce(T.zeros(4), 0, T.tensor([1, 1, 3]), T.ones(3), reduce='amin', include_self=False)
{R}.scatter_reduce(0, {RI}, {RS}, 'add')
{R}.scatter_reduce(0, {RI}, {RS}.double(), 'sum')
{R}.scatter_reduce(0, {RI}.int(), {RS}, 'sum')
{R}.scatter_reduce(0, {RI}.float(), {RS}, 'sum')
{R}.scatter_reduce(0, {RI} + 2, {RS}, 'sum')
{R}.scatter_reduce(0, {RI}[0], {RS}, 'sum')
{R}.scatter_reduce(0, T.zeros(3, 4).long(), {RS}, 'sum')
T.zeros(3, 4).scatter_reduce(-1, T.tensor([[0, 1]]), T.zeros(2, 3, dtype=T.int64), 'foo')
T.zeros(3, 4).scatter_reduce(-1, T.tensor([[0, 5]]), T.zeros(2, 3), 'foo')
T.ones(1, 3).bool().scatter_reduce(0, T.tensor([[0, 0, 0]]), T.ones(1, 3).bool(), 'mean')
T.arange(12.).reshape(3, 4).gather(1, T.tensor([[0, 1], [3, 3]]))
T.arange(12.).reshape(3, 4).gather(0, T.tensor([[0, 1], [2, 2]]).int())
T.arange(12.).reshape(3, 4).t().gather(0, T.tensor([[0, 1], [2, 2]]))
T.tensor(5.).gather(0, T.tensor(0))
T.tensor(5.).gather(0, T.tensor([0, 0]))
T.zeros(3, 4).gather(0, T.tensor([[]]))
T.zeros(3, 4).gather(0, T.tensor([]))
T.zeros(3, 4).gather(1, T.tensor([[0, 4]]))
T.zeros(3, 4).gather(1, T.tensor([[0, -1]]))
T.zeros(3, 4).gather(1, T.tensor([0, 1]))
T.zeros(3, 4).gather(1, T.tensor([[0, 1]] * 4))
T.zeros(3, 4).gather(3, T.tensor([[0, 1]]))
T.zeros(3, 4).gather(0, T.tensor([[0, 5.]]))
{X}.index_select(0, T.tensor([0, 2, 2]))
{X}.index_select(1, T.tensor(2))
T.zeros(()).index_select(0, T.tensor([0]))
T.arange(5.).index_select(0, T.tensor(2))
T.zeros(2, 0, 3).index_select(1, T.tensor([0]))
T.zeros(2, 0, 3).index_select(0, T.tensor([5]))
T.zeros(0, 3).index_select(0, T.tensor([0]))
T.zeros(2, 3, 4).index_select(2, T.tensor([5]))
T.zeros(3, 4).index_select(0, T.tensor([0, 3]))
T.zeros(3, 4).index_select(1, T.tensor([0, 4]))
T.zeros(3, 4).index_select(1, T.tensor([0, -1]))
T.zeros(4).index_select(0, T.tensor([0, -1]))
T.zeros(()).index_select(0, T.tensor([0, 1]))
T.zeros(3, 4).index_select(1, T.tensor([0, 2.]))
T.zeros(3, 4).index_select(1, T.tensor([[0, 2]]))
T.zeros(3, 4).index_add(1, T.tensor([0, 2]), T.ones(3, 2), alpha=2)
T.zeros(3, 4).long().index_add(0, T.tensor([0, 2]), T.ones(2, 4).long(), alpha=2)
T.zeros(3, 4, 5).index_add(1, T.tensor([3, 0, 3]), T.arange(45.).reshape(3, 3, 5))
T.zeros(4).index_add(0, T.tensor([3, 0, 3]), T.arange(3.), alpha=-1)
T.zeros(3, 4).index_add(1, T.tensor([0, 4]), T.ones(3, 2))
T.zeros(3, 4).index_add(1, T.tensor([0, 7]), T.ones(3, 2), alpha=2)
T.zeros(3, 4, 5).index_add(1, T.tensor([0, 7]), T.ones(3, 2, 5))
T.zeros(3, 4, 5).index_add(2, T.tensor([0, 7], dtype=T.int32), T.ones(3, 4, 2))
T.zeros(0).index_add(0, T.tensor([0, 2]), T.ones(2))
T.zeros(3, 4).index_add(1, T.tensor([0, 2]), T.ones(3, 3))
T.zeros(3, 4).index_add(1, T.tensor([0, 2]), T.ones(4, 2))
T.zeros(3, 4).index_add(1, T.tensor([0, 2]), T.ones(3, 2).double())
T.zeros(3, 4).index_add(1, T.tensor([0, 2.]), T.ones(3, 2))
T.zeros(3, 4).index_add(1, T.tensor([[0, 2]]), T.ones(3, 2))
T.zeros(3, 4).index_add(1, T.tensor(2), T.ones(3))
T.zeros(4).index_add(0, T.tensor([2]), T.ones(()))
{X}.index_copy(1, T.tensor([0, 2]), T.arange(6.).reshape(3, 2))
{X}.index_copy(1, T.tensor(2), T.ones(3, 1))
T.zeros(()).index_copy(0, T.tensor([0]), T.tensor(5.))
T.zeros(3).index_copy(0, T.tensor(1), T.tensor(5.))
T.zeros(3).index_copy(0, T.tensor([]).long(), T.tensor([]))
T.index_copy(T.zeros(4), 0, T.tensor([3, 1]), T.ones(2))
{X}.index_copy(1, T.tensor([0, -1]), T.ones(3, 2))
{X}.index_copy(1, T.tensor([0, 4]), T.ones(3, 2))
{X}.index_copy(1, T.tensor([0, 2]), T.ones(3, 2).double())
{X}.index_copy(1, T.tensor([0, 2]), T.ones(3, 3))
{X}.index_copy(1, T.tensor([0, 2]), T.ones(2, 2))
{X}.index_copy(1, T.tensor([0, 2]), T.ones(3, 2, 1))
{X}.index_copy(1, T.tensor([0., 2]), T.ones(3, 2))
{X}.index_copy(1, T.tensor([0, 2], dtype=T.int32), T.ones(3, 2))
{X}.index_copy(1, T.tensor([[0, 2]]), T.ones(3, 2))
{X}.index_copy(1, T.tensor(2), T.ones(3))
T.zeros(2, 3, 4).index_copy(1, T.tensor([0, 1]), T.zeros(2, 2, 5))
T.zeros(2, 3, 4).index_copy(1, T.tensor([0, 1]), T.zeros(()))
T.zeros(2, 3, 4).index_copy(1, T.tensor([0]), T.zeros(()))
T.zeros(()).index_copy(0, T.tensor([0]), T.zeros(1, 1))
{X}.index_fill(1, T.tensor([0, 2, 2]), 2)
{X}.index_fill(1, T.tensor([0, -1]), 2.)
{X}.index_fill(1, T.tensor([0, 2, 2]), T.tensor(2.))
{X}.index_fill(-1, T.tensor(1), 2.)
T.tensor(3.).index_fill(0, T.tensor(0), 2.)
T.arange(4).index_fill(0, T.tensor([1]), 2.5)
T.arange(4).index_fill(0, T.tensor([1]), T.tensor(2.5))
T.index_fill(T.zeros(3), 0, T.tensor([0, 2]), 5.)
{X}.index_fill(1, T.tensor([0, 2, 2]), T.tensor([2.]))
{X}.index_fill(1, T.tensor([0, 4]), 2.)
{X}.index_fill(1, T.tensor([0, -5]), 2.)
{X}.index_fill(1, T.tensor([0., 1]), 2.)
{X}.index_fill(1, T.tensor([0, 1], dtype=T.int32), 2.)
{X}.index_fill(1, T.tensor([[0, 1]]), 2.)
{X}.index_fill(2, T.tensor(1), 2.)
T.tensor(3.).index_fill(0, T.tensor([1]), 2.)
T.arange(4).index_fill(0, T.tensor([1]), 1j)
T.arange(4).index_fill(0, T.tensor([1]), T.tensor(1j))
T.zeros(3, dtype=T.uint8).index_fill(0, T.tensor([5]), 300)
T.zeros(3).index_fill(2, T.tensor([[0]]), 1.)
{X}.masked_fill({M}, 2)
{X}.masked_fill({M}, T.tensor(2.))
{X}.masked_fill({M}, T.tensor(2, dtype=T.int64))
{X}.masked_fill(T.ones(2, 3, 4, dtype=T.bool), 2)
{X}.masked_fill(T.tensor([[True], [False], [True]]), 2.)
T.arange(4).masked_fill({M}, 2.5)
T.masked_fill(T.arange(4), {M}, 3.0)
T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), -255)
T.zeros(2, dtype=T.int64).masked_fill(T.tensor([True, False]), -2.7)
T.zeros(2, dtype=T.bool).masked_fill(T.tensor([True, False]), 2.5)
T.zeros(2, dtype=T.int32).masked_fill(T.tensor([True, False]), 1 + 0j)
T.zeros(2, dtype=T.float32).masked_fill(T.tensor([True, False]), -float('inf'))
{X}.masked_fill({M}, T.tensor([2.]))
{X}.masked_fill({M}, 1j)
{X}.masked_fill({M}.int(), 2)
{X}.masked_fill(T.tensor([True, False, True]), 2)
{X}.masked_fill_(T.ones(2, 3, 4, dtype=T.bool), 2)
{X}.masked_fill_(T.ones(3, dtype=T.bool), 2)
{X}.masked_fill_(T.ones(3, dtype=T.int64), 2)
{X}.masked_fill_(T.ones(4, dtype=T.bool), T.tensor([2.]))
T.zeros(3, dtype=T.uint8).masked_fill(T.tensor([True, True]), 300)
T.zeros(2, dtype=T.uint8).masked_fill(T.tensor([True, False]), -256)
T.zeros(2, dtype=T.int16).masked_fill(T.tensor([True, False]), 70000)
T.zeros(2, dtype=T.int64).masked_fill(T.tensor([True, False]), 2 ** 63)
T.zeros(2, dtype=T.int64).masked_fill(T.tensor([True, False]), float('inf'))
T.zeros(2, dtype=T.float16).masked_fill(T.tensor([True, False]), 70000.)
T.zeros(2, dtype=T.float32).masked_fill(T.tensor([True, False]), 3.4028235e38)
T.zeros(2, dtype=T.complex64).masked_fill(T.tensor([True, False]), 1e300j)
{X}.masked_select({M})
{X}.masked_select(T.ones(2, 3, 4, dtype=T.bool))
T.tensor(2.).masked_select(T.tensor([True, False]))
T.arange(4.).reshape(1, 4).masked_select(T.tensor([[True], [False], [True]]))
{X}.masked_select({M}.int())
{X}.masked_select(T.tensor([True, False, True]))
{X}.masked_scatter({M}, T.arange(6.))
{X}.masked_scatter(T.ones(2, 3, 4, dtype=T.bool), T.arange(24.))
{X}.masked_scatter_(T.ones(1, 4, dtype=T.bool), T.arange(24.))
T.arange(4).masked_scatter({M}, T.arange(24))
T.tensor(1.).masked_scatter(T.tensor(True), T.tensor(5.))
T.tensor([1., 2]).masked_scatter(T.tensor([False, False]), T.tensor([]))
{X}.masked_scatter({M}, T.arange(5.))
{X}.masked_scatter({M}, T.arange(6.).double())
{X}.masked_scatter({M}.int(), T.arange(6.))
{X}.masked_scatter_(T.ones(2, 4, dtype=T.bool), T.arange(24.))
{X}.masked_scatter_(T.ones(2, 3, 4, dtype=T.bool), T.arange(24).double())
{X}.masked_scatter(T.tensor([True, False, True]), T.arange(24.))
T.zeros(3).masked_scatter(T.tensor([1, 1]), T.zeros(3, dtype=T.int64))
T.zeros(3).masked_scatter(T.tensor([1, 1, 1]), T.zeros(3, dtype=T.int64))
{X}.take(T.tensor([[0, -1], [5, 5]]))
{X}.t().take(T.tensor([1, 3]))
T.tensor(3.).take(T.tensor([0, 0, -1]))
T.tensor([]).take(T.tensor([], dtype=T.long))
{X}.take(T.tensor([0, 12]))
{X}.take(T.tensor([0, -13]))
{X}.take(T.tensor([0, 1], dtype=T.int32))
T.tensor([]).take(T.tensor([0]))
T.take_along_dim({X}, T.tensor([[0], [1], [2]]), dim=1)
{X}.take_along_dim(T.tensor([[0, 1, 2, 0]]), -2)
{X}.take_along_dim(T.tensor([[0, 1, 5, -1, -4, -5, 7, 100]]), 1)
{X}.take_along_dim(T.tensor([0, 1, 11]))
{X}.take_along_dim(T.tensor([0, 1], dtype=T.int32))
T.take_along_dim(T.tensor(2.), T.tensor(0))
T.take_along_dim(T.zeros(2, 1, 3), T.zeros(1, 4, 1).long(), 1)
{X}.take_along_dim(T.tensor([0, 1, 12]))
{X}.take_along_dim(T.tensor([0, 1]), 1)
{X}.take_along_dim(T.tensor([[0., 1]]), 1)
{X}.take_along_dim(T.tensor([[0, 1]], dtype=T.int32), 1)
{X}.take_along_dim(T.tensor([[0, 1]]), 2)
T.take_along_dim({X}, T.tensor([[0, 1]]).expand(5, 2), dim=1)
T.take_along_dim(T.tensor(2.), T.tensor(0), 0)
T.take_along_dim({X}.t(), T.tensor([0, 5]))
T.take_along_dim(T.zeros(2, 0, 3), T.zeros(1, 4, 1).long(), 1)
T.bincount(T.tensor([0, 1, 1, 3]))
T.tensor([0, 1, 1, 3]).bincount(minlength=6)
T.bincount(T.tensor([0, 1, 1, 3]), weights=T.tensor([1., 2, 3, 4]))
T.bincount(T.tensor([0, 1, 1, 3]), weights=T.tensor([1, 2, 3, 4]))
T.bincount(T.tensor([0, 1, 1, 3]), weights=T.tensor([1, 2, 3, 4], dtype=T.float16))
T.bincount(T.tensor([0, 1], dtype=T.uint8), None, 4)
T.bincount(T.tensor([], dtype=T.long), minlength=3)
T.bincount(T.tensor([], dtype=T.long), weights=T.tensor([]))
T.bincount(T.tensor([0, 1, 1, 3]), minlength=-1)
T.bincount(T.tensor([0, 1, 1, 3]), weights=T.tensor([1., 2, 3]))
T.bincount(T.tensor([0, -1]))
T.bincount(T.tensor([[0, 1]]))
T.bincount(T.tensor(1))
T.bincount(T.tensor([0., 1]))
T.bincount(T.tensor([True, False]))
T.bincount(T.tensor([0, 1, 1, 3]), minlength=2.5)
T.bincount(T.tensor([0., -1]), minlength=-1)
"""

# scatter_reduce over every reduction and include_self, on a range of dtypes and edge values
_S2 = "T.tensor([[1, -20, 3, 4], [50, 6, -7, 8]])"
REDUCE_CASES = [    # (self, dim, index, src)
    (R, 0, RI, RS), (R, 1, RI, RS), ("T.arange(12).reshape(3, 4)", 1, RI, _S2),
    ("T.arange(12).reshape(3, 4).to(T.uint8)", 1, RI, RS + ".to(T.uint8)"),
    ("T.arange(12.).reshape(3, 4).half()", 1, RI, _S2 + ".half()"),
    ("T.tensor([[1, 0, 1]]).bool()", 0, "T.tensor([[0, 0, 0]])", "T.tensor([[1, 0, 0]]).bool()"),
    ("T.tensor([[1, 2, 3]]).cfloat()", 0, "T.tensor([[0, 0, 0]])", "T.tensor([[1j, 1, 2]])"),
    ("T.tensor([[float('nan'), 2, 3]])", 1, "T.tensor([[0, 0, 1]])",
     "T.tensor([[1., float('nan'), 5]])"),
    ("T.zeros(())", 0, "T.tensor(0)", "T.tensor(3.)"),
    ("T.zeros(4)", 0, "T.tensor([1, 1, 3])", "T.tensor([3., -2, 5, 9])"),
    ("T.zeros(4)", 0, "T.tensor([], dtype=T.long)", "T.tensor([3.])"),
]
REDUCE_PROGRAMS = [f"{x}.scatter_reduce({d}, {i}, {s}, '{r}', include_self={inc})"
                   for x, d, i, s in REDUCE_CASES for r in ("sum", "prod", "mean", "amax", "amin")
                   for inc in (True, False)]


def _program(src):
    return eval("lambda T: " + src)     # noqa: S307  (test programs written above)


@pytest.mark.parametrize("src", PROGRAMS.strip().splitlines() + REDUCE_PROGRAMS)
def test_matches_pytorch(src):
    prog = _program(src)
    if error_of(lambda: prog(torch)) is None:
        same(prog)
    else:
        same_error(prog)


# ---- gradients: grad_fn names and values, beyond test_ops.py's samples -------------------

def _leaf(T, a):
    return T.tensor(a, dtype=T.float64, requires_grad=True)


def test_overloads_pick_pytorchs_nodes():
    def prog(T):
        x, s = _leaf(T, np.ones((3, 4))), _leaf(T, np.ones((1, 4)))
        v = _leaf(T, 2.0)
        i, m = T.tensor([[0, 1, 2, 0]]), T.tensor([True, False, True, False])
        outs = [x.scatter(0, i, s), x.scatter(0, i, 2.0), x.scatter(0, i, value=T.tensor(2.)),
                x.index_fill(1, i[0, :2], 2.0), x.index_fill(1, i[0, :2], v),
                x.index_fill(1, i[0, :2], T.tensor(2)), x.masked_fill(m, 2.0),
                x.masked_fill(m, v), x.masked_fill(m, T.tensor(2.)),
                x.index_copy(0, T.tensor([1]), s), x.masked_select(m), x.masked_scatter(m, x * 2),
                x.take(i), x.scatter_reduce(0, i, s, "amin"), x.gather(0, i),
                x.take_along_dim(i, 0), x.take_along_dim(i)]
        return [(o, o.grad_fn.next_functions) for o in outs]
    same(prog)


def test_take_along_dim_records_expand_and_view():
    def prog(T):
        x = _leaf(T, np.arange(12.).reshape(3, 4))
        a = T.take_along_dim(x, T.tensor([[0, 1]]), dim=1)
        b = T.take_along_dim(x, T.tensor([[0, 5]]))
        (a.sum() + b.sum() * 2).backward()
        return a.grad_fn.next_functions[0][0], b.grad_fn.next_functions[0][0], x.grad
    same(prog)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_at_ties_and_zeros(reduce, include_self):
    """amax/amin split the gradient evenly among tied values (self included), prod's
    gradient is the product of the others even next to zeros: PyTorch's choices."""
    def prog(T):
        x = _leaf(T, [[1., 2, 0, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
        s = _leaf(T, [[1., 20, 0, 4], [5, 0, 7, 1], [9, 20, 0, 4]])
        i = T.tensor([[0, 1, 0, 0], [0, 1, 1, 0], [2, 1, 0, 0]])
        y = x.scatter_reduce(0, i, s, reduce, include_self=include_self)
        y.backward(T.arange(12.).double().reshape(3, 4) + 1)
        return y, x.grad, s.grad
    same(prog)


def test_scatter_reduce_prod_double_backward_with_repeated_zeros_raises():
    def prog(T):
        x = _leaf(T, [1.0, 2.0])
        s = _leaf(T, [0.0, 0.0, 3.0])
        y = x.scatter_reduce(0, T.tensor([0, 0, 1]), s, "prod")
        g, = T.autograd.grad(y.sum(), s, create_graph=True)
        g.sum().backward()
    assert "Double backward is unsupported" in str(same_error(prog))


def test_scatter_reduce_prod_double_backward_with_single_zeros():
    def prog(T):
        x = _leaf(T, [1.5, 2.0])
        s = _leaf(T, [0.0, 2.5, 3.0])
        y = x.scatter_reduce(0, T.tensor([0, 0, 1]), s, "prod")
        gx, gs = T.autograd.grad((y * y).sum(), (x, s), create_graph=True)
        (gx.sum() + gs.sum()).backward()
        return gx, gs, x.grad, s.grad
    same(prog)


def test_scatter_reduce_max_has_no_backward():
    """PyTorch's forward takes 'max' (as 'amax'); its backward refuses it."""
    def prog(T):
        src = T.tensor([3.0, 0.5], dtype=T.float64)
        y = _leaf(T, [1.0, 2.0]).scatter_reduce(0, T.tensor([0, 0]), src, "max")
        y.sum().backward()
    same_error(prog)


@pytest.mark.parametrize("call", [
    "x.scatter(0, T.tensor([[0, 1, 0]]), s, reduce='add')",
    "x.scatter(0, T.tensor([[0, 1, 0]]), 2.0, reduce='multiply')",
    "T.bincount(T.tensor([0, 2, 2]), s[0])",
])
def test_not_implemented_nodes(call):
    """scatter's legacy reduce= and bincount's weights have no derivative: PyTorch records a
    NotImplemented node, which raises when backward reaches it."""
    def node(T):
        x, s = _leaf(T, np.ones((2, 3))), _leaf(T, np.ones((1, 3)))
        y = eval(call)      # noqa: S307
        only_src = T.ones(2, 3, dtype=T.float64).scatter(0, T.tensor([[0, 1, 0]]), s, reduce="add")
        return y, y.grad_fn.next_functions, only_src.grad_fn.next_functions

    def backward(T):
        node(T)[0].sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # reduce= with a src tensor warns once per process
        same(node)
        same_error(backward)


# ---- in-place variants -------------------------------------------------------------------

def test_inplace_variants_bump_the_version_and_chain_their_nodes():
    def prog(T):
        x = _leaf(T, np.arange(12.).reshape(3, 4))
        s = _leaf(T, np.arange(8.).reshape(2, 4))
        v = _leaf(T, 3.0)
        y = x * 2
        start = y._version
        nodes = []
        for step in (lambda: y.masked_fill_(T.tensor([True, False, True, False]), 0.5),
                     lambda: y.masked_fill_(T.tensor([False, True, False, False]), v),
                     lambda: y.index_fill_(1, T.tensor([1]), v),
                     lambda: y.index_fill_(0, T.tensor([0, 0]), -1.0),
                     lambda: y.index_copy_(0, T.tensor([2]), s[:1]),
                     lambda: y.scatter_(0, T.tensor([[0, 1, 2, 0]]), 7.0),
                     lambda: y.scatter_(0, T.tensor([[0, 1, 2, 0]]), s[:1]),
                     lambda: y.masked_scatter_(T.tensor([True, False, True, False]), s),
                     lambda: y.scatter_add_(1, T.tensor([[0], [1], [1]]), s[:1, :1].expand(3, 1)),
                     lambda: y.index_add_(0, T.tensor([0, 0]), s),
                     lambda: y.scatter_reduce_(0, T.tensor([[0, 1, 2, 0]]), s[1:], "amax",
                                               include_self=False)):
            assert step() is y
            nodes.append(y.grad_fn)
        (y * T.arange(12.).double().reshape(3, 4)).sum().backward()
        return nodes, y._version - start, y, x.grad, s.grad, v.grad
    same(prog)


def test_inplace_on_a_view_rebases_its_base():
    def prog(T):
        x = _leaf(T, np.arange(12.).reshape(3, 4))
        y = x.clone()
        row = y[1]
        row.index_fill_(0, T.tensor([0, 3]), 2.0)
        row.masked_scatter_(T.tensor([False, True, True, False]), x[0])
        y.sum().backward()
        return y, row.grad_fn, y.grad_fn, x.grad
    same(prog)


@pytest.mark.parametrize("call", [
    "x.masked_fill_(T.tensor([True, False]), 1.0)",
    "x[0].scatter_(0, T.tensor([1]), 0.5)",
    "x.index_copy_(0, T.tensor([0]), T.ones(1, dtype=T.float64))",
])
def test_inplace_on_leaves_that_require_grad_raises(call):
    def prog(T):
        x = _leaf(T, [1.0, 2.0])
        return eval(call)   # noqa: S307
    same_error(prog)


def test_saved_result_modified_in_place_raises():
    def prog(T):
        y = _leaf(T, np.ones((3, 4))) * 2
        y.scatter_reduce_(0, T.tensor([[0, 1, 2, 0]]), T.ones(1, 4, dtype=T.float64), "amax")
        y.mul_(2)
        y.sum().backward()
    same_error(prog)


# ---- warnings -------------------------------------------------------------------------------

def test_masked_scatter_warns_for_uint8_masks_before_refusing_them():
    def prog(T):
        error = error_of(lambda: T.zeros(3).masked_scatter(T.tensor([1, 1, 1], dtype=T.uint8),
                                                           T.zeros(3)))
        return str(error)
    same_warnings(prog)
    same(prog)


def test_bincount_warns_for_complex_weights():
    # PyTorch warns once per process (TORCH_WARN_ONCE): another test in this worker may have
    # used its one warning already, so chainrule's is compared with PyTorch's known text
    from helpers import warnings_of
    prog = lambda T: T.bincount(T.tensor([0, 1, 1]), T.tensor([1j, 2, 3 + 1j]))  # noqa: E731
    ours = warnings_of(lambda: prog(chainrule))
    assert ours == [("UserWarning", "Casting complex values to real discards the imaginary part")]
    theirs = warnings_of(lambda: prog(torch))
    assert not theirs or theirs == ours


# ---- a graph network's aggregation, at size ---------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_scatter_add_and_index_add_at_size_match_pytorch(dtype):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 500, 20_000)
    src = (rng.standard_normal((20_000, 16)) * 100).astype(dtype)

    def prog(T):
        i, s = T.tensor(idx), T.tensor(src)
        a = T.zeros(500, 16, dtype=s.dtype).index_add_(0, i, s)
        b = T.zeros(500, 16, dtype=s.dtype).scatter_add_(0, i[:, None].expand(-1, 16), s)
        c = T.zeros(500, 16, dtype=s.dtype).scatter_reduce(0, i[:, None].expand(-1, 16), s, "amax",
                                                           include_self=False)
        d = T.bincount(i, s[:, 0].double() if s.dtype.is_floating_point else None)
        return a, b, c, d
    same(prog, atol=1e-3, rtol=1e-5)
