"""Op-database entries for the indexing family (repeated indices on purpose: their gradients
must accumulate; ops that overwrite get indices distinct per destination instead, since
there only one of the repeated values reaches the output)."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn

_IDX = np.array([0, 2, 2, 3])
_M = np.array([True, False, True, False])


def _scatter_index(rng, shape, dim, size):
    return rng.integers(0, size, shape)


def _distinct_index(rng, shape, dim, size):
    """An index for scatter along `dim` whose entries differ along dim (each destination
    written once)."""
    keys = rng.random(shape[:dim] + (size,) + shape[dim + 1:])
    return np.argsort(keys, axis=dim).take(np.arange(shape[dim]), axis=dim)


def _mask(rng, *shape):
    return np.asarray(rng.random(shape) > 0.5)


def _index_select(rng):
    return [Sample(randn(rng, 4, 3), _IDX, 0), Sample(randn(rng, 3, 4), np.array([3, 0, 3]), 1),
            Sample(noncontiguous(randn(rng, 4, 3)), _IDX, -2),
            Sample(randn(rng, 2, 3, 4), np.array([1, 0, 1]), 1, name="3-d, dim 1"),
            Sample(randn(rng), np.array([0]), 0, name="0-d")]


def _index_add(rng):
    return [Sample(randn(rng, 5, 3), _IDX, randn(rng, 4, 3)),
            Sample(randn(rng, 5, 3), _IDX, randn(rng, 4, 3), alpha=2.0),
            Sample(randn(rng, 5), _IDX, randn(rng, 4)),
            Sample(noncontiguous(randn(rng, 5, 3)), _IDX, noncontiguous(randn(rng, 4, 3)),
                   name="non-contiguous"),
            Sample(randn(rng), np.array([0]), randn(rng), name="0-d")]


def _index_copy(rng):
    return [Sample(randn(rng, 5, 3), np.array([4, 0, 2]), randn(rng, 3, 3), 0),
            Sample(randn(rng, 3, 4), np.array([1, 3]), randn(rng, 3, 2), -1, name="dim -1"),
            Sample(noncontiguous(randn(rng, 4, 3)), np.array([2, 1]),
                   noncontiguous(randn(rng, 2, 3)), 0, name="non-contiguous"),
            Sample(randn(rng, 4), np.array([2]), randn(rng), 0, name="0-d source"),
            Sample(randn(rng), np.array([0]), randn(rng), 0, name="0-d")]


def _index_fill(value):
    """Samples with `value(rng)` as the fill value: a number, or a 0-d array (a tensor)."""
    def samples(rng):
        return [Sample(randn(rng, 4, 3), _IDX, 0, value(rng)),
                Sample(randn(rng, 3, 4), np.array([3, 0, 3]), 1, value(rng), name="dim 1"),
                Sample(noncontiguous(randn(rng, 3, 4)), np.array(2), -1, value(rng),
                       name="0-d index, non-contiguous, dim -1"),
                Sample(randn(rng), np.array([0]), 0, value(rng), name="0-d")]
    return samples


def _index_fill_negative(rng):
    # a negative index counts from the end; a tensor value's gradient would reject it, as
    # PyTorch's (index_select of the unique indices) does
    return [Sample(randn(rng, 3, 4), np.array([-1, 0, 3]), 1, -1.5)]


def _masked_fill(value):
    def samples(rng):
        return [Sample(randn(rng, 3, 4), _M, value(rng), name="broadcast mask"),
                Sample(randn(rng, 4), _mask(rng, 2, 3, 4), value(rng), name="mask broadcasts self"),
                Sample(noncontiguous(randn(rng, 3, 4)), _mask(rng, 3, 4), value(rng),
                       name="non-contiguous"),
                Sample(randn(rng), np.array(True), value(rng), name="0-d")]
    return samples


def _masked_select(rng):
    return [Sample(randn(rng, 3, 4), _mask(rng, 3, 4)),
            Sample(randn(rng, 3, 4), _M, name="broadcast mask"),
            Sample(randn(rng, 1, 4), _mask(rng, 3, 1), name="broadcast both"),
            Sample(noncontiguous(randn(rng, 3, 4)), _mask(rng, 3, 4), name="non-contiguous"),
            Sample(randn(rng), np.array(True), name="0-d")]


def _masked_scatter(rng):
    return [Sample(randn(rng, 3, 4), _mask(rng, 3, 4), randn(rng, 3, 4)),
            Sample(randn(rng, 3, 4), _M, randn(rng, 7), name="broadcast mask, spare source"),
            Sample(randn(rng, 4), _mask(rng, 2, 4), randn(rng, 2, 4), name="mask broadcasts self"),
            Sample(noncontiguous(randn(rng, 3, 4)), _mask(rng, 3, 4),
                   noncontiguous(randn(rng, 4, 3)), name="non-contiguous"),
            Sample(randn(rng), np.array(True), randn(rng), name="0-d")]


def _scatter_add(rng):
    return [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), randn(rng, 5, 3), 0),
            Sample(randn(rng, 3, 4), _scatter_index(rng, (2, 6), 1, 4), randn(rng, 2, 6), -1),
            # an index smaller than src makes PyTorch's (and our) backward raise, so the index
            # is as large as src and smaller than self
            Sample(randn(rng, 4, 3), _scatter_index(rng, (2, 2), 0, 4), randn(rng, 2, 2), 0,
                   name="index smaller than self"),
            Sample(randn(rng), np.array(0), randn(rng), 0, name="0-d")]


def _scatter_src(rng):
    return [Sample(randn(rng, 4, 3), _distinct_index(rng, (3, 3), 0, 4), randn(rng, 3, 3), 0),
            Sample(randn(rng, 3, 5), _distinct_index(rng, (3, 2), 1, 5), randn(rng, 3, 2), -1,
                   name="dim -1"),
            Sample(noncontiguous(randn(rng, 4, 3)), _distinct_index(rng, (2, 3), 0, 4),
                   noncontiguous(randn(rng, 2, 3)), 0, name="non-contiguous"),
            # src's gradient has index's shape, so only self requires grad here
            Sample(randn(rng, 4, 3), _distinct_index(rng, (2, 2), 0, 4), randn(rng, 3, 3), 0,
                   grad=(0,), name="src larger than index"),
            Sample(randn(rng), np.array(0), randn(rng), 0, name="0-d")]


def _scatter_value(rng):
    return [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), 0, 2.5),
            Sample(noncontiguous(randn(rng, 3, 4)), _scatter_index(rng, (3, 2), 1, 4), -1, -1,
                   name="non-contiguous, dim -1"),
            Sample(randn(rng), np.array(0), 0, 1.0, name="0-d")]


def _scatter_legacy_reduce(rng):
    # no derivative in PyTorch (NotImplemented nodes): values only
    return [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), s, r, grad=())
            for s in (randn(rng, 5, 3), 1.5) for r in ("add", "multiply")]


def _scatter_reduce(reduce):
    def samples(rng):
        return [
            Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), randn(rng, 5, 3), 0,
                   reduce, include_self=True),
            Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), randn(rng, 5, 3), 0,
                   reduce, include_self=False),
            Sample(randn(rng, 3, 4), _scatter_index(rng, (3, 6), 1, 4), randn(rng, 3, 6), -1,
                   reduce, include_self=False, name="dim -1, exclude self"),
            Sample(noncontiguous(randn(rng, 3, 4)), _scatter_index(rng, (2, 4), 0, 3),
                   noncontiguous(randn(rng, 2, 4)), 0, reduce, name="non-contiguous"),
            Sample(randn(rng), np.array(0), randn(rng), 0, reduce, name="0-d"),
            Sample(randn(rng, 4, 3), _scatter_index(rng, (2, 2), 0, 4), randn(rng, 2, 2), 0,
                   reduce, include_self=False, grad=(0,), name="index smaller than src"),
        ]
    return samples


def _prod_single_zeros(rng):
    """One zero per destination (in self or src): differentiable twice."""
    self = np.array([[1.5, 0.0, -2.0], [3.0, 0.5, 4.0]])
    src = np.array([[0.0, 2.0, 1.5], [1.0, -1.0, 2.5], [3.0, 0.7, 0.0]])
    index = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 0]])
    return [Sample(self, index, src, include_self=inc) for inc in (True, False)]


def _scatter_reduce_edges(rng):
    """amax/amin ties (the gradient split evenly, as PyTorch does) and prod with repeated
    zeros: kinks, compared with PyTorch only."""
    self = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 4.0]])
    src = np.array([[1.0, 5.0, 0.0], [1.0, 5.0, 0.0], [3.0, 0.0, 0.0]])
    index = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]])
    return [Sample(self, index, src, reduce, include_self=inc, name=f"{reduce} {inc}")
            for reduce in ("amax", "amin", "prod", "mean", "sum") for inc in (True, False)]


def _gather(rng):
    return [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), 0),
            Sample(randn(rng, 3, 4), _scatter_index(rng, (2, 6), 1, 4), -1),
            Sample(randn(rng, 4, 3), _scatter_index(rng, (2, 2), 0, 4), 0, name="index smaller"),
            Sample(noncontiguous(randn(rng, 4, 3)), _scatter_index(rng, (3, 3), 1, 3), 1,
                   name="non-contiguous"),
            Sample(randn(rng), np.array(0), 0, name="0-d")]


def _take(rng):
    return [Sample(randn(rng, 3, 4), np.array([0, -1, 5, 5])),
            Sample(randn(rng, 3, 4), np.array([[1, 11], [-12, 1]]), name="2-d index"),
            Sample(noncontiguous(randn(rng, 3, 4)), np.array([1, 4, 4]), name="non-contiguous"),
            Sample(randn(rng), np.array([0, -1, 0]), name="0-d self"),
            Sample(randn(rng, 4), np.array(2), name="0-d index")]


def _take_along_dim(rng):
    return [Sample(randn(rng, 3, 4), _scatter_index(rng, (3, 2), 1, 4), 1),
            Sample(randn(rng, 3, 4), _scatter_index(rng, (2, 1), 0, 3), -2, name="broadcast index"),
            Sample(randn(rng, 3, 1), _scatter_index(rng, (1, 2), 1, 1), 1, name="broadcast self"),
            Sample(randn(rng, 3, 4), np.array([[1, 5, -1]]), 1, name="index wraps"),
            Sample(randn(rng, 3, 4), np.array([0, 11, 5, 5]), name="no dim")]


def _bincount(rng):
    # weights have no derivative in PyTorch (a NotImplemented node): values only
    return [Sample(np.array([0, 1, 1, 3, 1]), randn(rng, 5), grad=()),
            Sample(np.array([2, 0]), randn(rng, 2).astype(np.float32), minlength=5, grad=())]


def _index(rng):
    return [Sample(randn(rng, 4, 3), _IDX), Sample(randn(rng, 4), np.array([[0, 1], [3, 3]])),
            Sample(randn(rng, 4, 3), np.array([-1, 0])),
            Sample(randn(rng, 4, 2), np.array([True, False, True, True]), name="bool mask")]


def _reduce(lib, x, i, s, dim, r, **kw):
    return x.scatter_reduce(dim, i, s, r, **kw)


def _reduce_dim0(lib, x, i, s, r="prod", **kw):
    return x.scatter_reduce(0, i, s, r, **kw)


OPS_DB = [
    OpInfo("index_select", lambda lib, x, i, dim: x.index_select(dim, i), _index_select),
    OpInfo("index_add", lambda lib, x, i, s, **kw: x.index_add(0, i, s, **kw), _index_add),
    OpInfo("index_add.dim1", lambda lib, x, i, s: x.index_add(1, i, s),
           lambda rng: [Sample(randn(rng, 3, 5), _IDX, randn(rng, 3, 4)),
                        Sample(randn(rng, 2, 5, 3), _IDX, randn(rng, 2, 4, 3), name="3-d")],
           ops=("index_add",)),
    OpInfo("index_copy", lambda lib, x, i, s, dim: x.index_copy(dim, i, s), _index_copy),
    OpInfo("index_fill.int_Scalar", lambda lib, x, i, dim, v: x.index_fill(dim, i, v),
           _index_fill(lambda rng: float(rng.standard_normal()))),
    OpInfo("index_fill.negative", lambda lib, x, i, dim, v: x.index_fill(dim, i, v),
           _index_fill_negative, ops=("index_fill.int_Scalar",)),
    OpInfo("index_fill.int_Tensor", lambda lib, x, i, dim, v: x.index_fill(dim, i, v),
           _index_fill(randn)),
    OpInfo("masked_fill.Scalar", lambda lib, x, m, v: x.masked_fill(m, v),
           _masked_fill(lambda rng: float(rng.standard_normal()))),
    OpInfo("masked_fill.Tensor", lambda lib, x, m, v: x.masked_fill(m, v), _masked_fill(randn)),
    OpInfo("masked_select", lambda lib, x, m: x.masked_select(m), _masked_select),
    OpInfo("masked_scatter", lambda lib, x, m, s: x.masked_scatter(m, s), _masked_scatter),
    OpInfo("scatter_add", lambda lib, x, i, s, dim: x.scatter_add(dim, i, s), _scatter_add),
    OpInfo("scatter.src", lambda lib, x, i, s, dim: x.scatter(dim, i, s), _scatter_src),
    OpInfo("scatter.value", lambda lib, x, i, dim, v: x.scatter(dim, i, v), _scatter_value),
    OpInfo("scatter.reduce", lambda lib, x, i, s, r: x.scatter(0, i, s, reduce=r),
           _scatter_legacy_reduce, ops=("scatter.reduce", "scatter.value_reduce"),
           gradcheck=False),
    *[OpInfo(f"scatter_reduce.{r}", _reduce, _scatter_reduce(r), ops=("scatter_reduce.two",))
      for r in ("sum", "mean", "amax", "amin")],
    OpInfo("scatter_reduce.prod", _reduce, _scatter_reduce("prod"), ops=("scatter_reduce.two",),
           atol=1e-4),
    OpInfo("scatter_reduce.prod_single_zeros", _reduce_dim0, _prod_single_zeros,
           ops=("scatter_reduce.two",)),
    OpInfo("scatter_reduce.ties_and_zeros", _reduce_dim0, _scatter_reduce_edges,
           ops=("scatter_reduce.two",), gradcheck=False),
    OpInfo("gather", lambda lib, x, i, dim: x.gather(dim, i), _gather),
    OpInfo("take", lambda lib, x, i: x.take(i), _take),
    OpInfo("take_along_dim", lambda lib, x, i, *dim: lib.take_along_dim(x, i, *dim),
           _take_along_dim, ops=("gather", "expand", "view")),
    OpInfo("bincount", lambda lib, i, w, **kw: lib.bincount(i, w, **kw), _bincount,
           gradcheck=False),
    OpInfo("index", lambda lib, x, i: x[i], _index),
]
