"""Op-database entries for the indexing family (repeated indices on purpose: their gradients
must accumulate)."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn

_IDX = np.array([0, 2, 2, 3])


def _scatter_index(rng, shape, dim, size):
    return rng.integers(0, size, shape)


OPS_DB = [
    OpInfo("index_select", lambda lib, x, i, dim: x.index_select(dim, i),
           lambda rng: [Sample(randn(rng, 4, 3), _IDX, 0), Sample(randn(rng, 3, 4), np.array([3, 0, 3]), 1),
                        Sample(noncontiguous(randn(rng, 4, 3)), _IDX, -2)]),
    OpInfo("index_add", lambda lib, x, i, s, **kw: x.index_add(0, i, s, **kw),
           lambda rng: [Sample(randn(rng, 5, 3), _IDX, randn(rng, 4, 3)),
                        Sample(randn(rng, 5, 3), _IDX, randn(rng, 4, 3), alpha=2.0),
                        Sample(randn(rng, 5), _IDX, randn(rng, 4))]),
    OpInfo("index_add.dim1", lambda lib, x, i, s: x.index_add(1, i, s),
           lambda rng: [Sample(randn(rng, 3, 5), _IDX, randn(rng, 3, 4))], ops=("index_add",)),
    OpInfo("scatter_add", lambda lib, x, i, s, dim: x.scatter_add(dim, i, s),
           lambda rng: [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), randn(rng, 5, 3), 0),
                        Sample(randn(rng, 3, 4), _scatter_index(rng, (2, 6), 1, 4), randn(rng, 2, 6), 1),
                        # an index smaller than src makes PyTorch's (and our) backward raise, so
                        # the index is as large as src and smaller than self
                        Sample(randn(rng, 4, 3), _scatter_index(rng, (2, 2), 0, 4), randn(rng, 2, 2), 0,
                               name="index smaller than self")]),
    OpInfo("gather", lambda lib, x, i, dim: x.gather(dim, i),
           lambda rng: [Sample(randn(rng, 4, 3), _scatter_index(rng, (5, 3), 0, 4), 0),
                        Sample(randn(rng, 3, 4), _scatter_index(rng, (2, 6), 1, 4), 1),
                        Sample(randn(rng, 4, 3), _scatter_index(rng, (2, 2), 0, 4), 0, name="index smaller")]),
    OpInfo("index", lambda lib, x, i: x[i],
           lambda rng: [Sample(randn(rng, 4, 3), _IDX), Sample(randn(rng, 4), np.array([[0, 1], [3, 3]])),
                        Sample(randn(rng, 4, 3), np.array([-1, 0])),
                        Sample(randn(rng, 4, 2), np.array([True, False, True, True]), name="bool mask")]),
]
