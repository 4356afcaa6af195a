"""Op-database entries for sort and topk (their values and indices, and gradients that go
back to the selected indices), and unique's non-differentiable outputs.

A sort or topk is smooth only away from ties: there a finite difference reorders the tied
elements. Samples with distinct values are gradchecked; ties (and NaNs) get entries with
gradcheck=False that compare with PyTorch exactly, indices included (see Note [Tie order]
in ops/sorting.py).
"""
import math

import numpy as np

from . import OpInfo, Sample, noncontiguous, randn


def _distinct(rng, *shape):
    n = math.prod(shape)
    return (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape) - n / 2


def _ties(rng, *shape, levels=3):
    return rng.integers(0, levels, shape).astype(np.float64)


def _sort_samples(rng):
    return [Sample(_distinct(rng, 3, 5)), Sample(_distinct(rng, 3, 5), 0),
            Sample(_distinct(rng, 2, 3, 4), -2, True), Sample(randn(rng), 0),
            Sample(randn(rng, 4), descending=True),
            Sample(noncontiguous(_distinct(rng, 4, 3)), 1, True, name="non-contiguous"),
            Sample(np.zeros((0, 3)), 0, name="empty")]


def _sort_stable_samples(rng):
    return [Sample(_distinct(rng, 3, 5), stable=True), Sample(_distinct(rng, 3, 5), stable=False),
            Sample(_distinct(rng, 2, 3, 4), dim=0, descending=True, stable=True),
            Sample(noncontiguous(_distinct(rng, 4, 3)), stable=None, dim=0)]


def _sort_ties(rng):
    nan = float("nan")
    nans = _ties(rng, 3, 20)
    nans[rng.random(nans.shape) < 0.2] = nan
    return [Sample(_ties(rng, 4, 6), name="short rows"),
            Sample(_ties(rng, 3, 40), 1, True, name="introsort, descending"),
            Sample(_ties(rng, 40, 3), 0, name="introsort along dim 0"),
            Sample(nans, -1, True, name="nans, descending"), Sample(nans, name="nans"),
            Sample(_ties(rng, 2, 50), stable=True, descending=True, name="stable")]


def _topk_samples(rng):
    return [Sample(_distinct(rng, 3, 5), 2), Sample(_distinct(rng, 3, 5), 3, 0),
            Sample(_distinct(rng, 2, 3, 6), 4, -1, False),
            Sample(_distinct(rng, 4, 7), 5, sorted=False),
            Sample(_distinct(rng, 3, 130), 2, name="partial sort"), Sample(randn(rng), 1),
            Sample(noncontiguous(_distinct(rng, 5, 3)), 3, 0, name="non-contiguous"),
            Sample(_distinct(rng, 3, 4), 0, name="k=0"),
            Sample(_distinct(rng, 3, 4), 4, name="k=n")]


def _topk_ties(rng):
    nan = float("nan")
    nans = _ties(rng, 3, 30)
    nans[rng.random(nans.shape) < 0.2] = nan
    return [Sample(_ties(rng, 3, 8), 3, name="ties"),
            Sample(_ties(rng, 3, 40), 20, -1, False, name="ties, smallest"),
            Sample(_ties(rng, 3, 40), 25, sorted=False, name="ties, unsorted"),
            Sample(_ties(rng, 40, 3, levels=5), 30, 0, name="ties along dim 0"),
            Sample(nans, 10, name="nans"), Sample(nans, 10, largest=False, name="nans, smallest")]


# unique's values have a grad_fn whose backward raises (tests/test_sorting.py checks it);
# here the inputs do not require grad
def _unique_samples(rng):
    nan = float("nan")
    return [Sample(_ties(rng, 3, 4), grad=()),
            Sample(_ties(rng, 3, 4), return_inverse=True, grad=()),
            Sample(_ties(rng, 5), return_counts=True, sorted=False, grad=()),
            Sample(np.array([2.0, nan, -0.0, 0.0, nan, 1.0]), return_inverse=True,
                   return_counts=True, grad=()),
            Sample(np.array(3.0), return_inverse=True, return_counts=True, grad=()),
            Sample(np.zeros((0, 2)), return_inverse=True, grad=())]


def _unique_dim_samples(rng):
    rows = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [0.0, 1.0]])
    return [Sample(rows, dim=0, return_inverse=True, return_counts=True, grad=()),
            Sample(rows, dim=-1, grad=()),
            Sample(_ties(rng, 3, 2, 2, levels=2), dim=1, return_inverse=True, grad=()),
            Sample(np.zeros((0, 2)), dim=0, return_counts=True, grad=())]


def _grad_of(lib, fn, wrt, weight):
    """d<fn(wrt), weight>/d wrt with create_graph: the backward's own graph."""
    with lib.enable_grad():
        return lib.autograd.grad(fn(wrt), wrt, weight, create_graph=True)[0]


OPS_DB = [
    OpInfo("sort", lambda lib, a, *args, **kw: lib.sort(a, *args, **kw), _sort_samples),
    OpInfo("sort.method", lambda lib, a, *args, **kw: a.sort(*args, **kw), _sort_samples,
           ops=("sort",)),
    OpInfo("sort.stable", lambda lib, a, **kw: lib.sort(a, **kw), _sort_stable_samples),
    OpInfo("sort.ties", lambda lib, a, *args, **kw: lib.sort(a, *args, **kw), _sort_ties,
           ops=("sort", "sort.stable"), gradcheck=False),
    # PyTorch leaves a stride-0 dim in index order
    OpInfo("sort.stride0", lambda lib, a: a.expand(3, 20).sort(),
           lambda rng: [Sample(randn(rng, 1))], ops=("sort", "expand"), gradcheck=False),
    OpInfo("msort", lambda lib, a: lib.msort(a),
           lambda rng: [Sample(_distinct(rng, 4, 3)), Sample(randn(rng))], ops=("sort",)),
    OpInfo("sort.backward", lambda lib, a, w: _grad_of(lib, lambda a: a.sort(0).values, a, w),
           lambda rng: [Sample(_distinct(rng, 4, 3), randn(rng, 4, 3))],
           ops=("sort", "scatter.src")),
    OpInfo("topk.backward", lambda lib, a, w: _grad_of(lib, lambda a: a.topk(2).values, a, w),
           lambda rng: [Sample(_distinct(rng, 4, 3), randn(rng, 4, 2))],
           ops=("topk", "scatter.src")),
    OpInfo("topk", lambda lib, a, *args, **kw: lib.topk(a, *args, **kw), _topk_samples),
    OpInfo("topk.method", lambda lib, a, *args, **kw: a.topk(*args, **kw), _topk_samples,
           ops=("topk",)),
    OpInfo("topk.ties", lambda lib, a, *args, **kw: lib.topk(a, *args, **kw), _topk_ties,
           ops=("topk",), gradcheck=False),
    OpInfo("_unique2", lambda lib, a, **kw: lib.unique(a, **kw), _unique_samples,
           gradcheck=False),
    OpInfo("unique_dim", lambda lib, a, **kw: a.unique(**kw), _unique_dim_samples,
           gradcheck=False),
]
