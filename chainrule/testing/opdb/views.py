"""Op-database entries for views modified in place: as_strided, copy_, and in-place ops on
views of non-leaf tensors (CopySlices); index_put has its entries in advanced_indexing.py."""
from . import OpInfo, Sample, randn


def _inplace_on_view(lib, a, w):
    b = a * 1
    b[1:, ::2].mul_(w)
    b.unsqueeze(0)[0, 0].exp_()
    return b


def _setitem(lib, a, v):
    b = a * 1
    b[0] = v
    b[1:, 1] = 2.
    b[lib.tensor([2, 0])] = v * 3
    return b


OPS_DB = [
    OpInfo("as_strided", lambda lib, a: a.as_strided((2, 2), (1, 2), 1),
           lambda rng: [Sample(randn(rng, 2, 3))]),
    OpInfo("as_strided.overlapping", lambda lib, a: a.as_strided((3, 2), (1, 1)),
           lambda rng: [Sample(randn(rng, 4))], ops=("as_strided",)),
    OpInfo("copy_", lambda lib, a, s: (a * 1).copy_(s),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 3)), Sample(randn(rng, 3), randn(rng))],
           ops=("copy",)),
    OpInfo("inplace_on_view", _inplace_on_view, lambda rng: [Sample(randn(rng, 3, 4), randn(rng))],
           ops=("mul", "as_strided")),
    OpInfo("setitem", _setitem, lambda rng: [Sample(randn(rng, 3, 3), randn(rng, 3))],
           ops=("copy", "index_put")),
]
