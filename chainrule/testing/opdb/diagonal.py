"""Op-database entries for triangles and diagonals: tril/triu (batched, offsets past the
matrix, in place), diagonal (a view: offsets, dim pairs, in-place ops through it),
diagonal_backward, diag_embed, diag, diagflat, trace and fill_diagonal_."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn


def _grad_of(lib, fn, wrt, weight):
    """d<fn(wrt), weight>/d wrt with create_graph: the backward's own graph."""
    with lib.enable_grad():
        return lib.autograd.grad(fn(wrt), wrt, weight, create_graph=True)[0]


def _tri_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 4, 3), 1), Sample(randn(rng, 3, 4), -2),
            Sample(randn(rng, 2, 3, 3), -1, name="batched"),
            Sample(randn(rng, 3, 4), 7, name="offset past"),
            Sample(randn(rng, 3, 4), -5, name="offset before"),
            Sample(noncontiguous(randn(rng, 3, 5)), 1, name="non-contiguous"),
            Sample(np.zeros((0, 3)), name="empty")]


def _tri_inplace(name):
    def fn(lib, a, *args):
        b = a * 1
        getattr(b, name + "_")(*args)
        return b
    return fn


def _tri_inplace_samples(rng):
    return [s for s in _tri_samples(rng) if s.args[0].size]


def _diagonal_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), -2),
            Sample(randn(rng, 3, 4), 5, name="offset past"),
            Sample(randn(rng, 2, 3, 4), 1, -1, 0, name="dims -1, 0"),
            Sample(randn(rng, 2, 3, 4), offset=-1, dim1=2, dim2=1, name="dims 2, 1"),
            Sample(noncontiguous(randn(rng, 4, 3)), 1, name="non-contiguous")]


def _inplace_through_diagonal(lib, a, w):
    b = a.clone()
    d = b.diagonal(1)
    d.mul_(w)
    b.diagonal(0, 0, 1)[1:].exp_()
    return b, d


def _diag_embed_samples(rng):
    return [Sample(randn(rng, 3)), Sample(randn(rng, 2, 3), 1), Sample(randn(rng, 2, 3), -2, 0, 2),
            Sample(randn(rng, 2, 3), 0, -1, 0, name="dims -1, 0"),
            Sample(noncontiguous(randn(rng, 3, 2)), 1, name="non-contiguous")]


def _diag_samples(rng):
    return [Sample(randn(rng, 3)), Sample(randn(rng, 3), 2), Sample(randn(rng, 3), -1),
            Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), -5),
            Sample(noncontiguous(randn(rng, 4, 3)), -1, name="non-contiguous")]


def _fill_diagonal(lib, a, value, wrap=False):
    b = a * 1
    b.fill_diagonal_(value, wrap=wrap)
    return b


OPS_DB = [
    OpInfo("tril", lambda lib, a, *args: a.tril(*args), _tri_samples),
    OpInfo("triu", lambda lib, a, *args: lib.triu(a, *args), _tri_samples),
    OpInfo("tril_", _tri_inplace("tril"), _tri_inplace_samples, ops=("tril", "mul")),
    OpInfo("triu_", _tri_inplace("triu"), _tri_inplace_samples, ops=("triu", "mul")),
    OpInfo("diagonal", lambda lib, a, *args, **kw: a.diagonal(*args, **kw), _diagonal_samples),
    OpInfo("diagonal.function", lambda lib, a, *args, **kw: lib.diagonal(a, *args, **kw),
           _diagonal_samples, ops=("diagonal",)),
    OpInfo("diagonal.inplace", _inplace_through_diagonal,
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3)),
                        Sample(randn(rng, 3, 3), randn(rng))],
           ops=("diagonal", "mul", "exp", "as_strided", "clone")),
    OpInfo("diagonal_backward",
           lambda lib, a, w: _grad_of(lib, lambda a: a.diagonal(1, 0, -1), a, w),
           lambda rng: [Sample(randn(rng, 3, 2, 4), randn(rng, 2, 3))]),
    OpInfo("diagonal_copy", lambda lib, a, *args, **kw: lib.diagonal_copy(a, *args, **kw),
           _diagonal_samples),
    OpInfo("diag_embed", lambda lib, a, *args: lib.diag_embed(a, *args), _diag_embed_samples),
    OpInfo("diag", lambda lib, a, *args: lib.diag(a, *args), _diag_samples,
           ops=("diag_embed", "diagonal_copy")),
    OpInfo("diagflat", lambda lib, a, *args: lib.diagflat(a, *args),
           lambda rng: [Sample(randn(rng, 2, 2)), Sample(randn(rng, 3), -1), Sample(randn(rng), 1),
                        Sample(noncontiguous(randn(rng, 2, 3)), 1, name="non-contiguous")],
           ops=("diag_embed", "view", "clone")),
    OpInfo("trace", lambda lib, a: a.trace(),
           lambda rng: [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 5)),
                        Sample(randn(rng, 5, 2)), Sample(randn(rng, 3, 1)),
                        Sample(noncontiguous(randn(rng, 3, 4))),
                        Sample(np.zeros((0, 2)), name="empty")]),
    OpInfo("fill_diagonal_", _fill_diagonal,
           lambda rng: [Sample(randn(rng, 3, 4), 2.0), Sample(randn(rng, 4, 3), -1.0),
                        Sample(randn(rng, 3, 3, 3), 0.5), Sample(randn(rng, 7, 3), 2.0, True),
                        Sample(randn(rng, 12, 2), 2.0, wrap=True, name="wraps twice")],
           ops=("fill_.Scalar", "mul")),
]
