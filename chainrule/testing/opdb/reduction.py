"""Op-database entries for the reductions (sum and mean are in core.py).

Ties (max, amax, the inf-norm), the zero vector (norm) and degrees of freedom <= 0 (var,
std) are kinks or poles: finite differences cannot check them, so they get entries with
gradcheck=False that compare with PyTorch exactly there. prod and cumprod are polynomials,
so their samples with zeros are gradchecked too.
"""
import math

import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _distinct(rng, *shape):
    """Values with no ties, away from each other (max/min are smooth there)."""
    n = math.prod(shape)
    return (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape) - n / 2


def _with_zeros(rng, *shape, zeros=1):
    a = randn(rng, *shape)
    a.reshape(-1)[rng.choice(a.size, zeros, replace=False)] = 0.0
    return a


def _prod_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng)), Sample(noncontiguous(randn(rng, 2, 3))),
            Sample(_with_zeros(rng, 2, 3), name="one zero"),
            Sample(_with_zeros(rng, 2, 3, zeros=2), name="two zeros"),
            Sample(_with_zeros(rng, 2, 3, zeros=3), name="three zeros"),
            Sample(np.zeros((0, 3)), name="empty")]


def _prod_dim_samples(rng):
    zeros = randn(rng, 4, 3)
    zeros[1, 0] = zeros[[0, 2], 1] = zeros[:, 2] = 0.0   # one, two and four zeros in a column
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 2, 3, 4), -2, keepdim=True),
            Sample(randn(rng), 0), Sample(noncontiguous(randn(rng, 3, 4)), 0),
            Sample(zeros, 0, name="zeros along dim"),
            Sample(zeros, 1, keepdim=True, name="zeros across dim"),
            Sample(np.zeros((2, 0)), 1, name="empty")]


def _extreme_samples(rng):
    return [Sample(_distinct(rng, 3, 4)), Sample(randn(rng)),
            Sample(noncontiguous(_distinct(rng, 2, 3)))]


def _extreme_dim_samples(rng):
    return [Sample(_distinct(rng, 3, 4), 1), Sample(_distinct(rng, 2, 3, 4), -1, keepdim=True),
            Sample(randn(rng), 0), Sample(noncontiguous(_distinct(rng, 3, 4)), 0)]


def _amax_samples(rng):
    return [Sample(_distinct(rng, 3, 4)), Sample(_distinct(rng, 3, 4), dim=0),
            Sample(_distinct(rng, 2, 3, 4), dim=(0, 2), keepdim=True), Sample(randn(rng), dim=0),
            Sample(noncontiguous(_distinct(rng, 3, 4)), dim=-1)]


def _ties(rng):
    nan = float("nan")
    return [Sample(np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 2.0]]), name="ties"),
            Sample(np.array([[2.0, 2.0], [2.0, 2.0]]), name="all equal"),
            Sample(np.array([[1.0, nan, 2.0], [nan, 0.0, 1.0]]), name="nans")]


def _moment_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), False),
            Sample(randn(rng, 2, 3, 4), (0, 2), keepdim=True),
            Sample(randn(rng, 3, 4), correction=0),
            Sample(randn(rng, 3, 4), 0, correction=2), Sample(randn(rng, 3, 4), 1, False, True),
            Sample(randn(rng, 3, 4), dim=-1, unbiased=True, keepdim=True),
            Sample(noncontiguous(randn(rng, 3, 4)), None, correction=1.5),
            Sample(randn(rng, 1, 3), 1, correction=-1, name="negative correction")]


def _moment_edges(rng):
    # degrees of freedom <= 0 (a warning, inf or nan) and a zero standard deviation
    return [Sample(randn(rng, 3), correction=3), Sample(randn(rng, 1, 3), 0),
            Sample(randn(rng), name="0-d"), Sample(np.ones((2, 3)), 1, name="constant rows"),
            Sample(randn(rng, 2, 2), (), name="dim=()"), Sample(np.zeros((0, 3)), 1, name="empty")]


def _logsumexp_samples(rng):
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 2, 3, 4), (0, 2), keepdim=True),
            Sample(randn(rng), 0), Sample(noncontiguous(randn(rng, 3, 4)), -1),
            Sample(randn(rng, 2, 3) * 10 + 1000, 1, name="large values")]


def _logsumexp_edges(rng):
    inf = float("inf")
    return [Sample(np.array([[inf, 1.0], [-inf, -inf]]), 1, name="infinities"),
            Sample(np.zeros((0, 3)), 0, name="empty"), Sample(randn(rng, 2, 3), (), keepdim=True)]


def _norm_samples(rng):
    inf = float("inf")
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), 3, 1),
            Sample(randn(rng, 3, 4), 0.5), Sample(randn(rng, 3, 4), 1.5, dim=0, keepdim=True),
            Sample(randn(rng, 3, 4), -2, -1), Sample(randn(rng, 3, 4), 0),
            Sample(_distinct(rng, 3, 4), inf, 1), Sample(_distinct(rng, 3, 4), -inf),
            Sample(randn(rng, 2, 3, 4), "fro", (0, 2), True), Sample(randn(rng, 3, 4), "fro", 1),
            Sample(randn(rng), 2), Sample(noncontiguous(randn(rng, 3, 4)), p=2, dim=0),
            Sample(randn(rng, 3, 4), None, ())]


def _norm_edges(rng):
    inf = float("inf")
    zero = np.zeros((2, 3))
    zero[1] = randn(rng, 3)
    ties = np.array([[1.0, -3.0, 3.0], [0.0, 2.0, -2.0]])
    return [Sample(zero, 2, 1, name="zero row, p=2"), Sample(zero, 3, 1, name="zero row, p=3"),
            Sample(zero, 1.5, 1, name="zero row, p=1.5"),
            Sample(zero, 0.5, 1, name="zero row, p=0.5"),
            Sample(zero, -1, 1, name="zero row, p=-1"), Sample(zero, 1, name="zeros, p=1"),
            Sample(ties, inf, name="ties, inf"), Sample(ties, -inf, 1, name="ties, -inf"),
            Sample(np.zeros((0, 3)), name="empty")]


def _cumsum_samples(rng):
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), 0),
            Sample(randn(rng, 2, 3, 4), -2),
            Sample(randn(rng), 0), Sample(noncontiguous(randn(rng, 3, 4)), 1),
            Sample(randn(rng, 3, 1), 1, name="size-1 dim")]


def _cumprod_samples(rng):
    zeros = randn(rng, 3, 5)
    zeros[0, 1] = zeros[1, [0, 3]] = zeros[2, [1, 2, 4]] = 0.0
    return _cumsum_samples(rng) + [Sample(zeros, 1, name="zeros along dim"),
                                   Sample(zeros, 0, name="zeros across dim"),
                                   Sample(np.zeros(4), 0, name="all zeros")]


def _logical_samples(rng):
    a = randn(rng, 3, 4)
    a[0, 1] = a[2] = 0.0
    return [Sample(a), Sample(a, 1), Sample(a, (0, 1), keepdim=True), Sample(a, -1, True),
            Sample(a, ()), Sample(a > 0, 0), Sample((a > 0).astype(np.uint8)),
            Sample(np.zeros((0, 3)), 1), Sample(randn(rng), 0)]


def _arg_samples(rng):
    ties = np.array([[1.0, 3.0, 3.0], [3.0, 0.0, 0.0]])
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(ties, 0, True),
            Sample(ties, None, True), Sample(ties), Sample(randn(rng), 0),
            Sample(np.array([[1, 5], [5, 2]]), 1), Sample(np.zeros((0, 3)), 1)]


def _extremes(name):
    """Entries for max or min (whole tensor and along a dim), amax or amin, argmax or argmin."""
    a, arg = "a" + name, "arg" + name
    return [
        OpInfo(name, lambda lib, x: getattr(x, name)(), _extreme_samples),
        OpInfo(f"{name}.dim", lambda lib, x, *args, **kw: getattr(lib, name)(x, *args, **kw),
               _extreme_dim_samples),
        OpInfo(f"{name}.ties", lambda lib, x: getattr(x, name)(), _ties, ops=(name,),
               gradcheck=False),
        OpInfo(f"{name}.dim.ties", lambda lib, x: getattr(x, name)(1), _ties, ops=(f"{name}.dim",),
               gradcheck=False),
        OpInfo(a, lambda lib, x, **kw: getattr(x, a)(**kw), _amax_samples),
        OpInfo(f"{a}.ties", lambda lib, x: getattr(lib, a)(x, (0, 1)), _ties, ops=(a,),
               gradcheck=False),
        OpInfo(f"{a}.dim.ties", lambda lib, x: getattr(x, a)(1, keepdim=True), _ties, ops=(a,),
               gradcheck=False),
        OpInfo(arg, lambda lib, x, *args: getattr(x, arg)(*args), _arg_samples, gradcheck=False),
    ]


def _moments(name):
    row = f"{name}.correction"
    return [OpInfo(row, lambda lib, x, *args, **kw: getattr(x, name)(*args, **kw), _moment_samples),
            OpInfo(f"{name}.edges", lambda lib, x, *args, **kw: getattr(lib, name)(x, *args, **kw),
                   _moment_edges, ops=(row,), gradcheck=False)]


def _cumulative(name, samples):
    return [OpInfo(name, lambda lib, x, dim: getattr(x, name)(dim), samples),
            OpInfo(f"{name}.dtype", lambda lib, x: getattr(lib, name)(x, 0, dtype=lib.float64),
                   lambda rng: [Sample(randn(rng, 3, 2).astype(np.float32), grad=()),
                                Sample(np.array([[1, 2], [3, 4]]))], ops=(name,), gradcheck=False),
            OpInfo(f"{name}_", lambda lib, x, dim: getattr(x * 1, name + "_")(dim),
                   lambda rng: [Sample(randn(rng, 3, 4), 1), Sample(positive(rng, 2, 3), 0)],
                   ops=(name, "mul"))]


def _all_dims(rng):
    # an empty dim list and an explicit None reduce every dim (SumBackward1, MeanBackward1)
    return [Sample(randn(rng, 3, 4), ()), Sample(randn(rng, 3, 4), None, True),
            Sample(randn(rng), []), Sample(np.zeros((0, 3)), ())]


OPS_DB = [
    OpInfo("sum.all_dims", lambda lib, x, *args: x.sum(*args), _all_dims, ops=("sum.dim_IntList",)),
    OpInfo("mean.all_dims", lambda lib, x, *args: lib.mean(x, *args), _all_dims, ops=("mean.dim",)),
    OpInfo("prod", lambda lib, x: x.prod(), _prod_samples),
    OpInfo("prod.dim_int", lambda lib, x, dim, **kw: lib.prod(x, dim, **kw), _prod_dim_samples),
    OpInfo("prod.int", lambda lib, x, *args: x.prod(*args),
           lambda rng: [Sample(np.array([[1, 2], [3, 4]])), Sample(np.array([True, False])),
                        Sample(np.array([[1, 2], [3, 4]]), 1)],
           ops=("prod", "prod.dim_int"), gradcheck=False),
    OpInfo("prod.dtype", lambda lib, x, *args: x.prod(*args, dtype=lib.float64),
           lambda rng: [Sample(randn(rng, 3, 2).astype(np.float32)),
                        Sample(randn(rng, 3, 2).astype(np.float32), 0)],
           ops=("prod", "prod.dim_int"), gradcheck=False),
    *_extremes("max"),
    *_extremes("min"),
    *_moments("var"),
    *_moments("std"),
    OpInfo("logsumexp", lambda lib, x, dim, **kw: x.logsumexp(dim, **kw), _logsumexp_samples),
    OpInfo("logsumexp.edges", lambda lib, x, dim, **kw: lib.logsumexp(x, dim, **kw),
           _logsumexp_edges, ops=("logsumexp",), gradcheck=False),
    OpInfo("logsumexp.int", lambda lib, x: x.logsumexp(1),
           lambda rng: [Sample(np.array([[1, 2], [3, 4]])), Sample(np.array([[True, False]]))],
           ops=("logsumexp",), gradcheck=False),
    OpInfo("linalg_vector_norm", lambda lib, x, *args, **kw: x.norm(*args, **kw), _norm_samples),
    OpInfo("norm.edges", lambda lib, x, *args, **kw: lib.norm(x, *args, **kw), _norm_edges,
           ops=("linalg_vector_norm",), gradcheck=False),
    OpInfo("norm.dtype", lambda lib, x: x.norm(dtype=lib.float64),
           lambda rng: [Sample(randn(rng, 3, 4).astype(np.float32))], ops=("linalg_vector_norm",),
           gradcheck=False, compare_atol=1e-6, compare_rtol=1e-6),
    *_cumulative("cumsum", _cumsum_samples),
    *_cumulative("cumprod", _cumprod_samples),
    OpInfo("all", lambda lib, x, *args, **kw: x.all(*args, **kw), _logical_samples,
           gradcheck=False),
    OpInfo("any", lambda lib, x, *args, **kw: lib.any(x, *args, **kw), _logical_samples,
           gradcheck=False),
]
