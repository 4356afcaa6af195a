"""sort, argsort, msort, topk, nonzero, argwhere, unique, searchsorted and bucketize beyond
the op database: PyTorch's order of equal elements (Note [Tie order] in ops/sorting.py),
return types, index dtypes, unique's derivative-less grad_fn, warnings and errors, each run
on chainrule and PyTorch and compared."""
import numpy as np
import pytest
import torch

import chainrule
from helpers import same, same_error, warnings_of

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "uint8"]


def tied(seed, shape, dtype, nans=False):
    """Few distinct values (many ties), and NaNs when asked."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, rng.integers(2, 6), shape).astype(dtype)
    if nans:
        a[rng.random(shape) < 0.15] = np.nan
    return a


def graph(fn, depth=3):
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return (fn.name(), tuple(graph(f, depth - 1) for f, _ in fn.next_functions))


# ---- sort, argsort, msort -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("n", [5, 16, 17, 40, 300])
def test_sort_orders_ties_as_pytorch(dtype, n):
    a = tied(n, (3, 4, n), dtype, nans=dtype.startswith("float"))

    def prog(T):
        x = T.tensor(a)
        out = [tuple(T.sort(x, dim=d, descending=desc, **kw)) for d in (-1, 1)
               for desc in (False, True) for kw in ({}, {"stable": True}, {"stable": False})]
        return out + [T.argsort(x, descending=True), x.argsort(dim=1, stable=True), T.msort(x)]
    same(prog)


def test_sort_without_ties_large():
    a = np.random.default_rng(0).standard_normal((3, 5000))
    same(lambda T: tuple(T.tensor(a).sort(descending=True)))


def test_sort_stride_zero_dim_keeps_index_order():
    same(lambda T: tuple(T.tensor([2.0, 1.0]).reshape(2, 1).expand(2, 30).sort()))


def test_return_types():
    def prog(T):
        x = T.tensor([[3., 1., 2.], [0., 5., 5.]], requires_grad=True)
        out = []
        for r in (x.sort(), T.sort(x, stable=True), x.topk(2), T.topk(x, 1, 0)):
            values, indices = r
            out.append((type(r).__name__, type(r).__module__, repr(r), len(r), r.values, r.indices,
                        r[0], indices.dtype, isinstance(r, tuple)))
        return out
    same(prog)


def test_sort_and_topk_gradients():
    a = tied(1, (3, 40), "float64")

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        outs = [x.sort().values, T.sort(x, 0, True)[0], x.sort(stable=True).values, T.msort(x),
                x.topk(7).values, T.topk(x, 30, largest=False, sorted=False).values,
                x.topk(2, 0).values, T.sort(x[0, 0])[0]]
        w = T.tensor(np.linspace(-1, 1, 40), requires_grad=True)
        loss = sum((o * w[:o.shape[-1]]).sum() if o.dim() else o * 3 for o in outs)
        g, = T.autograd.grad(loss, x, create_graph=True)
        gw, = T.autograd.grad((g * g).sum(), w)
        return outs, [graph(o.grad_fn) for o in outs], g, gw
    same(prog)


def test_gradients_of_0d():
    def prog(T):
        x = T.tensor(2., requires_grad=True)
        w = T.tensor(3., requires_grad=True)
        out = []
        for o in (x.sort().values, T.sort(x, stable=True)[0], x.topk(1).values, x.topk(0).values):
            g, = T.autograd.grad(o, x, w, create_graph=True)
            out.append((o, g, graph(g.grad_fn)))
        return out
    same(prog)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n, ks", [(4, (1, 2, 4)), (20, (1, 3, 10, 19, 20)), (70, (2, 7, 35, 69)),
                                   (300, (5, 40, 150, 299))])
def test_topk_orders_ties_as_pytorch(dtype, n, ks):
    # k * 64 > n: std::nth_element and std::sort, replayed
    a = tied(n, (3, 2, n), dtype, nans=dtype.startswith("float"))

    def prog(T):
        x = T.tensor(a)
        return [tuple(x.topk(k, largest=largest, sorted=s)) for k in ks
                for largest in (True, False) for s in (True, False)] + [tuple(T.topk(x, 2, 1))]
    same(prog)


def test_topk_partial_sort_path():
    # k * 64 <= n: std::partial_sort; its ties are not replayed, so distinct values here
    a = np.random.default_rng(0).permutation(2 * 700).reshape(2, 700) * 0.5
    a[0, 3] = np.nan

    def prog(T):
        x = T.tensor(a)
        return [tuple(x.topk(k, largest=largest, sorted=s)) for k in (1, 5, 10)
                for largest in (True, False) for s in (True, False)]
    same(prog)


def test_topk_edge_shapes():
    def prog(T):
        return (tuple(T.topk(T.tensor(2.), 1)), tuple(T.topk(T.tensor(2.), 0)),
                tuple(T.topk(T.zeros(2, 0), 0)), tuple(T.zeros(0, 4).topk(2)),
                tuple(T.sort(T.tensor(3., requires_grad=True))), tuple(T.sort(T.zeros(0, 3), 0)))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.sort(T.tensor([1j])),
    lambda T: T.argsort(T.tensor([1j])),
    lambda T: T.topk(T.tensor([1j]), 1),
    lambda T: T.topk(T.tensor([True, False]), 1),
    lambda T: T.topk(T.ones(2, 3), 4),
    lambda T: T.topk(T.ones(2, 3), -1),
    lambda T: T.topk(T.tensor(1.), 2),
    lambda T: T.topk(T.ones(3), 1.5),
    lambda T: T.ones(2, 3).topk(1, 2),
    lambda T: T.sort(T.ones(2, 3), 2),
    lambda T: T.sort(T.tensor(2.), 1),
], ids=["sort complex", "argsort complex", "topk complex", "topk bool", "k > n", "k < 0",
        "0-d k=2", "float k", "topk dim", "sort dim", "0-d dim"])
def test_sort_errors(prog):
    same_error(prog)


# ---- nonzero, argwhere --------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    [[0., 1.5, 0.], [2., 0., float("nan")]], [True, False, True], [0j, 1j, 0j], [0, 3, 0, -1],
    3.0, 0.0, np.zeros((0, 3)), np.zeros((2, 3, 2)),
], ids=["float", "bool", "complex", "int", "0-d", "0-d zero", "empty", "all zero"])
def test_nonzero(data):
    def prog(T):
        x = T.tensor(np.asarray(data), requires_grad=False)
        return (x.nonzero(), T.nonzero(x), T.nonzero(x, as_tuple=True), x.nonzero(as_tuple=True),
                T.argwhere(x), x.argwhere())
    same(prog)


def test_nonzero_of_tensor_requiring_grad_has_no_grad():
    same(lambda T: T.tensor([[0., 2.], [3., 0.]], requires_grad=True).nonzero(as_tuple=True))


# ---- unique -------------------------------------------------------------------------------

def _unique_calls(T, x, dims=(None,)):
    return [T.unique(x, sorted=s, return_inverse=i, return_counts=c, dim=d)
            for s in (True, False) for i in (False, True) for c in (False, True) for d in dims]


@pytest.mark.parametrize("data", [
    [3, 1, 2, 3, 1, 5], [[2., float("nan"), -0.], [0., float("nan"), 2.]], [-0., 0.], [0., -0.],
    [True, False, True], np.array([3, -1, 3], np.int8), np.array([1., 1.], np.float16), 7,
    np.zeros(0),
], ids=["int", "nan", "-0 first", "0 first", "bool", "int8", "float16", "0-d", "empty"])
def test_unique(data):
    same(lambda T: _unique_calls(T, T.tensor(np.asarray(data))))


@pytest.mark.parametrize("data", [
    [[1, 2], [0, 0], [1, 2], [0, 1]],
    [[[1, 0], [1, 0]], [[0, 1], [1, 0]], [[1, 0], [1, 0]]],
    [[True, False], [False, False], [True, False]],
    [[0.], [-0.], [2.]], [3, 1, 3], np.zeros(0),
], ids=["rows", "3-d", "bool", "signed zeros", "1-d", "empty"])
def test_unique_dim(data):
    a = np.asarray(data)
    same(lambda T: _unique_calls(T, T.tensor(a), dims=range(-a.ndim, a.ndim)))


def test_unique_dim_of_empty_dim():
    same(lambda T: [_unique_calls(T, T.zeros(shape), dims=(d,))
                    for shape, d in (((0, 2), 0), ((2, 0), -1), ((3, 0, 2), 1))])


def test_unique_values_have_a_grad_fn_without_derivative():
    def prog(T):
        x = T.tensor([[2., 1.], [2., 0.]], requires_grad=True)
        out = [T.unique(x), x.unique(return_inverse=True)[0], x.unique(dim=0),
               T.unique(x, dim=1, return_counts=True)[0]]
        return out, [graph(o.grad_fn) for o in out]
    same(prog)
    for dim in (None, 0):
        same_error(lambda T: T.tensor([2., 1.], requires_grad=True).unique(dim=dim).sum()
                   .backward())


@pytest.mark.parametrize("prog", [
    lambda T: T.unique(T.tensor([1j, 1j])),
    lambda T: T.unique(T.tensor([[1j]]), dim=0),
    lambda T: T.unique(T.tensor(3), dim=0),
    lambda T: T.unique(T.tensor(3), dim=-1),
    lambda T: T.unique(T.ones(2, 3), dim=2),
    lambda T: T.unique(T.zeros(2, 0), dim=0),
    lambda T: T.unique(T.zeros(0, 0), dim=0),
], ids=["complex", "complex dim", "0-d dim", "0-d dim -1", "dim out of range", "zero-size dim",
        "two zero-size dims"])
def test_unique_errors(prog):
    same_error(prog)


# ---- searchsorted, bucketize --------------------------------------------------------------

SEQ = [1., 3., 3., 5., 7.]
VALUES = [[3., 6., 9.], [0., 1., float("nan")]]


@pytest.mark.parametrize("kw", [{}, {"right": True}, {"side": "right"}, {"side": "left"},
                                {"out_int32": True}, {"side": "right", "right": True}])
def test_searchsorted_1d(kw):
    def prog(T):
        s = T.tensor(SEQ)
        return (T.searchsorted(s, T.tensor(VALUES), **kw), T.searchsorted(s, 3, **kw),
                T.searchsorted(s, 4.5, **kw), T.searchsorted(s, T.tensor(3.), **kw),
                T.searchsorted(s, T.tensor(VALUES)[0, 0], **kw),
                T.bucketize(T.tensor(VALUES), s, **{k: v for k, v in kw.items() if k != "side"}))
    same(prog)


def test_searchsorted_nd_and_sorter():
    def prog(T):
        seq = T.arange(12.).reshape(2, 2, 3)
        values = T.tensor([[[0.5, 2.], [4., 9.]], [[8., 6.], [100., -1.]]])
        unsorted = T.tensor([[3., 1., 2.], [0., 5., -1.]])
        order = T.tensor([[1, 2, 0], [2, 0, 1]])
        return (T.searchsorted(seq, values), T.searchsorted(seq, values, right=True),
                T.searchsorted(unsorted, T.tensor([[1.5, 3.], [1., -2.]]), sorter=order),
                T.searchsorted(T.tensor([5., 1., 3.]), T.tensor([2., 4., 9.]),
                               sorter=T.tensor([1, 2, 0]), side="right"),
                T.searchsorted(T.zeros(2, 0), T.tensor([[1.], [2.]])),
                T.searchsorted(T.tensor([1., 2.]), T.zeros(0, 3)))
    same(prog)


def test_searchsorted_nans_in_the_sequence():
    # PyTorch's binary search on `not (mid >= v)` lands past a NaN, unlike NumPy's
    def prog(T):
        s = T.tensor([1., 2., float("nan")])
        v = T.tensor([float("nan"), 3., 1., 2.5])
        return T.searchsorted(s, v), T.searchsorted(s, v, right=True)
    same(prog)


def test_searchsorted_dtypes():
    def prog(T):
        ints = T.tensor([1, 3, 5])
        return (T.searchsorted(ints, T.tensor([2.5, 3.])), T.searchsorted(ints, 2.5),
                T.searchsorted(T.tensor([1.5, 2.5]), 2), T.searchsorted(ints, T.tensor([True])),
                T.searchsorted(T.tensor([1., 3.], dtype=T.float64),
                               T.tensor([2.], dtype=T.float32)),
                T.searchsorted(T.tensor([1, 3], dtype=T.uint8), T.tensor([2], dtype=T.int8)),
                T.searchsorted(T.tensor([1., 3.], dtype=T.float16), T.tensor([2.])),
                T.searchsorted(T.tensor([1., 3.], requires_grad=True),
                               T.tensor([2.], requires_grad=True)))
    same(prog)


def test_searchsorted_non_contiguous_warns_once():
    def prog(T):
        seq = T.tensor([[1., 4.], [2., 5.], [3., 6.]]).t()
        values = T.tensor([[2., 9.], [4.5, 0.]]).t()
        return T.searchsorted(seq, values), T.searchsorted(seq, values)
    # both warn only once per process (each warning once, whichever call comes first)
    assert warnings_of(lambda: prog(chainrule)) == warnings_of(lambda: prog(torch))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.searchsorted(T.tensor([1., 2.]), T.tensor([1.]), side="middle"),
    lambda T: T.searchsorted(T.tensor([1., 2.]), T.tensor([1.]), side="left", right=True),
    lambda T: T.searchsorted(T.tensor([5., 1.]), T.tensor([1.]), sorter=T.tensor([1])),
    lambda T: T.searchsorted(T.tensor([5., 1.]), T.tensor([1.]), sorter=T.tensor([1., 0.])),
    lambda T: T.searchsorted(T.tensor([5., 1.]), T.tensor([1.]),
                             sorter=T.tensor([1, 0], dtype=T.int32)),
    lambda T: T.searchsorted(T.tensor([5., 1.]), T.tensor([1.]), sorter=T.tensor([1, 2])),
    lambda T: T.searchsorted(T.tensor([5., 1.]), T.tensor([1.]), sorter=T.tensor([-1, 0])),
    lambda T: T.searchsorted(T.zeros(2, 3), 1.),
    lambda T: T.searchsorted(T.zeros(2, 3), T.tensor(1.)),
    lambda T: T.searchsorted(T.tensor(1.), T.tensor([2.])),
    lambda T: T.searchsorted(T.zeros(2, 3), T.zeros(1, 3)),
    lambda T: T.searchsorted(T.zeros(2, 3), T.zeros(2)),
    lambda T: T.searchsorted(T.tensor([True]), T.tensor([False])),
    lambda T: T.searchsorted(T.tensor([1j]), T.tensor([1j])),
    lambda T: T.searchsorted(T.tensor([1.]), 1j),
    lambda T: T.bucketize(T.tensor([1.]), T.zeros(2, 2)),
], ids=["side", "side vs right", "sorter size", "sorter float", "sorter int32", "sorter > n",
        "sorter < 0", "scalar for n-d", "0-d for n-d", "0-d sequence", "leading dims",
        "ndim", "bool", "complex", "complex scalar", "bucketize 2-d"])
def test_searchsorted_errors(prog):
    same_error(prog)


# ---- isin ---------------------------------------------------------------------------------

def test_isin():
    def prog(T):
        a = T.tensor([[1, 2], [3, 4]])
        return (T.isin(a, T.tensor([1, 4])), T.isin(a, T.tensor([[1, 4]]), invert=True,
                                                   assume_unique=True),
                T.isin(T.tensor([1, 2], dtype=T.uint8), T.tensor([1.5, 2.0])),
                T.isin(T.tensor([1.0, 2.0], dtype=T.float16), 1), T.isin(2, a),
                T.isin(T.tensor([1.0, float("nan")]), T.tensor([float("nan")])),
                T.isin(T.tensor([1.0, 2.0], requires_grad=True), T.tensor([1.0])),
                T.isin(a, T.tensor([2]), out=T.empty(0, dtype=T.bool)))
    same(prog)
    for call in (lambda T: T.isin(T.tensor([1, 2]), T.tensor([True])),
                 lambda T: T.isin(T.tensor([1.0, 2.0]), T.tensor([1 + 0j])),
                 lambda T: T.isin(T.tensor([1, 2]), T.tensor([1]), out=T.empty(0))):
        same_error(call)
