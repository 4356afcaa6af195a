"""Op-database entries for the statistics family (ops/statistics.py).

Order statistics (median, kthvalue, mode, quantile's sort) are smooth only away from ties,
so their gradchecked samples have distinct values; ties and NaNs get gradcheck=False entries
that compare values, indices and gradients with PyTorch exactly (the index PyTorch picks
among equal values decides where the gradient goes). aminmax, cummax and cummin likewise.
"""
import math

import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn

nan, inf = math.nan, math.inf


def _distinct(rng, *shape):
    n = math.prod(shape)
    return (rng.permutation(n) + rng.uniform(0.1, 0.4, n)).reshape(shape) - n / 2


def _ties(rng, *shape, levels=3):
    return rng.integers(0, levels, shape).astype(np.float64)


def _with_nans(rng, *shape):
    a = randn(rng, *shape)
    a.reshape(-1)[rng.choice(a.size, max(a.size // 4, 1), replace=False)] = nan
    return a


# ---- samples ------------------------------------------------------------------------------

def _nansum_samples(rng):
    return [Sample(_with_nans(rng, 3, 4)), Sample(_with_nans(rng, 3, 4), 1),
            Sample(_with_nans(rng, 2, 3, 4), (0, 2), True), Sample(randn(rng)),
            Sample(noncontiguous(_with_nans(rng, 3, 4)), 0), Sample(np.zeros((0, 3)), 1),
            Sample(randn(rng, 3, 4), keepdim=True)]


def _nanmean_samples(rng):
    return [Sample(_with_nans(rng, 3, 4)), Sample(_with_nans(rng, 3, 4), 1),
            Sample(_with_nans(rng, 2, 3, 4), (0, 2), True)]


def _nanmean_edges(rng):
    a = _with_nans(rng, 3, 4)
    a[1] = nan
    return [Sample(a, 1, name="an all-NaN row"), Sample(np.zeros((0, 3)), name="empty")]


def _median_samples(rng):
    return [Sample(_distinct(rng, 3, 4)), Sample(_distinct(rng, 5)), Sample(randn(rng)),
            Sample(noncontiguous(_distinct(rng, 3, 4)))]


def _median_dim_samples(rng):
    return [Sample(_distinct(rng, 3, 4), 1), Sample(_distinct(rng, 3, 4), 0, True),
            Sample(_distinct(rng, 2, 3, 5), -1), Sample(randn(rng), 0),
            Sample(noncontiguous(_distinct(rng, 4, 3)), 0)]


def _order_edges(rng):
    return [Sample(_ties(rng, 3, 7), name="ties"), Sample(_ties(rng, 4, 40), name="long ties"),
            Sample(_with_nans(rng, 3, 5), name="nans"), Sample(np.full((2, 3), nan), name="all nan")]


def _kthvalue_samples(rng):
    return [Sample(_distinct(rng, 3, 4), 2), Sample(_distinct(rng, 3, 4), 1, 0, True),
            Sample(_distinct(rng, 2, 3, 5), 5, -1), Sample(randn(rng), 1),
            Sample(noncontiguous(_distinct(rng, 4, 3)), 3, 0)]


def _kthvalue_edges(rng):
    return [Sample(_ties(rng, 5, 40), k, name=f"ties, k={k}") for k in (1, 2, 17, 20, 40)] + \
        [Sample(_with_nans(rng, 3, 6), 5, name="nans")]


def _mode_samples(rng):
    return [Sample(_ties(rng, 4, 7)), Sample(_ties(rng, 4, 40), 1), Sample(_ties(rng, 40, 3), 0),
            Sample(_ties(rng, 3, 5, 4), -2, True), Sample(randn(rng)),
            Sample(np.array([[1.0, nan, nan, 1.0], [nan, 2.0, nan, 2.0]]), name="nans")]


def _moment_mean_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), False),
            Sample(randn(rng, 2, 3, 4), (0, 2), keepdim=True),
            Sample(randn(rng, 3, 4), 0, correction=2), Sample(randn(rng, 3, 4), 1, False, True),
            Sample(noncontiguous(randn(rng, 3, 4)), None, correction=0)]


def _aminmax_samples(rng):
    return [Sample(_distinct(rng, 3, 4)), Sample(_distinct(rng, 3, 4), dim=1),
            Sample(_distinct(rng, 2, 3, 4), dim=-1, keepdim=True), Sample(randn(rng), dim=0),
            Sample(noncontiguous(_distinct(rng, 3, 4)), dim=0)]


def _aminmax_edges(rng):
    return [Sample(np.array([[1.0, 3.0, 3.0], [0.0, 0.0, 2.0]]), name="ties"),
            Sample(np.array([[1.0, 3.0, 3.0], [0.0, 0.0, 2.0]]), dim=1, name="ties, dim"),
            Sample(np.array([[1.0, nan, 3.0], [0.0, 0.0, 2.0]]), dim=1, name="nan")]


def _cum_samples(rng):
    return [Sample(_distinct(rng, 3, 4), 1), Sample(_distinct(rng, 3, 4), 0),
            Sample(_distinct(rng, 2, 3, 4), -2), Sample(randn(rng), 0),
            Sample(noncontiguous(_distinct(rng, 3, 4)), 1)]


def _cum_edges(rng):
    return [Sample(_ties(rng, 3, 9), 1, name="ties"),
            Sample(np.array([[1.0, nan, 2.0, nan, 0.0]]), 1, name="nans")]


def _logcumsumexp_samples(rng):
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 3, 4), 0),
            Sample(randn(rng, 2, 3, 4), -1), Sample(randn(rng), 0),
            Sample(noncontiguous(randn(rng, 3, 4)), 1),
            Sample(randn(rng, 2, 3) * 10 + 500, 1, name="large values")]


def _dist_samples(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4)), Sample(randn(rng, 3, 4), randn(rng, 4), 3),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), 1.5),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), 1), Sample(randn(rng), randn(rng, 2), 2),
            Sample(_distinct(rng, 3, 4), np.zeros((3, 4)), inf),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), 0, grad=(0,), name="p=0")]


def _renorm_samples(rng):
    return [Sample(randn(rng, 3, 4), 2, 0, 1.0), Sample(randn(rng, 3, 4), 1, 1, 0.5),
            Sample(randn(rng, 2, 3, 4), 3, -1, 1.0), Sample(randn(rng, 3, 4) * 0.1, 2, 0, 5.0),
            Sample(noncontiguous(randn(rng, 3, 4)), 1.5, 1, 1.0)]


def _quantile_samples(rng):
    q2 = np.array([0.3, 0.8])
    return [Sample(_distinct(rng, 3, 4), 0.3), Sample(_distinct(rng, 3, 4), 0.3, 1),
            Sample(_distinct(rng, 3, 4), 0.7, 0, True), Sample(_distinct(rng, 3, 4), q2, 1),
            Sample(_distinct(rng, 3, 4), q2), Sample(_distinct(rng, 3, 4), q2, -1, True),
            Sample(_distinct(rng, 3, 4), 0.3, 1, interpolation="lower"),
            Sample(_distinct(rng, 3, 4), q2, 0, interpolation="higher"),
            Sample(_distinct(rng, 3, 4), 0.4, 1, interpolation="nearest"),
            Sample(_distinct(rng, 3, 4), q2, 1, interpolation="midpoint"),
            Sample(randn(rng), 0.5)]


def _nanquantile_samples(rng):
    a = _distinct(rng, 3, 5)
    a[0, 1] = a[2, [0, 3]] = nan
    return [Sample(a, 0.3, 1), Sample(a, np.array([0.1, 0.9]), 1, True),
            Sample(a, 0.5, 0, interpolation="midpoint")]


def _unique_consecutive_samples(rng):
    return [Sample(_ties(rng, 3, 4), grad=()),
            Sample(_ties(rng, 9), return_inverse=True, return_counts=True, grad=()),
            Sample(np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 3.0]]), dim=0, return_counts=True,
                   grad=())]


def _norm_except_dim_samples(rng):
    return [Sample(randn(rng, 3, 4, 2), 2, 0), Sample(randn(rng, 3, 4, 2), 2, -1),
            Sample(randn(rng, 3, 4, 2), 3, 1), Sample(randn(rng, 3, 4), 2, 1)]


def _frobenius_samples(rng):
    return [Sample(randn(rng, 3, 4), (0, 1)), Sample(randn(rng, 3, 4), (1,), True),
            Sample(randn(rng, 2, 3, 4), (0, 2))]


def _positive_quantile(rng):
    return [Sample(positive(rng, 4, 5), 0.5, 1)]


def _segment_reduce(lib, x, lengths, reduce, initial=None):
    return lib.segment_reduce(x, reduce, lengths=lib.tensor(lengths), initial=initial)


def _segment_reduce_grad(lib, x, lengths, reduce, initial=None):
    # values only: the result's NotImplemented node cannot be backwarded (test_statistics.py
    # checks it)
    y = _segment_reduce(lib, x, lengths, reduce, initial)
    return lib.autograd.grad(y, x, lib.ones_like(y) * 2, create_graph=True)[0].detach()


def _segment_samples(rng):
    x = np.asarray(rng.permutation(7) + rng.uniform(0.1, 0.4, 7)) - 2.5
    x2 = np.asarray(rng.permutation(12) + rng.uniform(0.1, 0.4, 12)).reshape(6, 2) / 3
    # an empty segment's mean, max and min (nan, -inf, inf) have no finite differences
    return [Sample(x, [2, 0, 3, 2], r) for r in ("sum", "prod")] + [
        Sample(x, [2, 3, 2], r) for r in ("mean", "max", "min")] + [
        Sample(x, [3, 4], "sum", 1.5, name="sum, initial"),
        Sample(x2, [1, 3, 2], "max", name="2-d data"),
        Sample(x2, [6], "mean", name="one segment")]


OPS_DB = [
    OpInfo("nansum", lambda lib, x, *args, **kw: x.nansum(*args, **kw), _nansum_samples),
    OpInfo("nanmean", lambda lib, x, *args, **kw: lib.nanmean(x, *args, **kw), _nanmean_samples,
           ops=("nansum", "div")),
    OpInfo("nanmean.edges", lambda lib, x, *args: x.nanmean(*args), _nanmean_edges,
           ops=("nansum",), gradcheck=False),
    OpInfo("median", lambda lib, x: x.median(), _median_samples),
    OpInfo("nanmedian", lambda lib, x: lib.nanmedian(x), _median_samples),
    OpInfo("median.dim", lambda lib, x, *args: x.median(*args), _median_dim_samples),
    OpInfo("nanmedian.dim", lambda lib, x, *args: lib.nanmedian(x, *args), _median_dim_samples),
    OpInfo("median.edges", lambda lib, x: x.median(1), _order_edges, ops=("median.dim",),
           gradcheck=False),
    OpInfo("median.all.edges", lambda lib, x: x.median(), _order_edges, ops=("median",),
           gradcheck=False),
    OpInfo("nanmedian.edges", lambda lib, x: x.nanmedian(1), _order_edges,
           ops=("nanmedian.dim",), gradcheck=False),
    OpInfo("nanmedian.all.edges", lambda lib, x: x.nanmedian(), _order_edges,
           ops=("nanmedian",), gradcheck=False),
    OpInfo("kthvalue", lambda lib, x, *args, **kw: x.kthvalue(*args, **kw), _kthvalue_samples),
    OpInfo("kthvalue.edges", lambda lib, x, k: lib.kthvalue(x, k, 1), _kthvalue_edges,
           ops=("kthvalue",), gradcheck=False),
    OpInfo("mode", lambda lib, x, *args: x.mode(*args), _mode_samples, gradcheck=False),
    OpInfo("std_mean.correction", lambda lib, x, *args, **kw: lib.std_mean(x, *args, **kw),
           _moment_mean_samples),
    OpInfo("var_mean.correction", lambda lib, x, *args, **kw: lib.var_mean(x, *args, **kw),
           _moment_mean_samples),
    OpInfo("aminmax", lambda lib, x, **kw: x.aminmax(**kw), _aminmax_samples),
    OpInfo("aminmax.edges", lambda lib, x, **kw: lib.aminmax(x, **kw), _aminmax_edges,
           ops=("aminmax",), gradcheck=False),
    OpInfo("cummax", lambda lib, x, dim: x.cummax(dim), _cum_samples),
    OpInfo("cummin", lambda lib, x, dim: lib.cummin(x, dim), _cum_samples),
    OpInfo("cummax.edges", lambda lib, x, dim: x.cummax(dim), _cum_edges, ops=("cummax",),
           gradcheck=False),
    OpInfo("cummin.edges", lambda lib, x, dim: x.cummin(dim), _cum_edges, ops=("cummin",),
           gradcheck=False),
    OpInfo("logcumsumexp", lambda lib, x, dim: x.logcumsumexp(dim), _logcumsumexp_samples),
    OpInfo("dist", lambda lib, x, y, *args: lib.dist(x, y, *args), _dist_samples),
    OpInfo("renorm", lambda lib, x, *args: x.renorm(*args), _renorm_samples),
    OpInfo("renorm_", lambda lib, x, *args: (x * 1).renorm_(*args),
           lambda rng: [Sample(randn(rng, 3, 4), 2, 0, 1.0)], ops=("renorm", "mul")),
    OpInfo("quantile", lambda lib, x, q, *args, **kw: x.quantile(
        lib.tensor(q) if isinstance(q, np.ndarray) else q, *args, **kw),
           lambda rng: [Sample(*s.args[:1], s.args[1], *s.args[2:], grad=(0,), **s.kwargs)
                        for s in _quantile_samples(rng)],
           ops=("unsqueeze_", "transpose_", "sort", "gather", "lerp.Tensor")),
    OpInfo("nanquantile", lambda lib, x, q, *args, **kw: lib.nanquantile(
        x, lib.tensor(q) if isinstance(q, np.ndarray) else q, *args, **kw),
           lambda rng: [Sample(*s.args, grad=(0,), **s.kwargs) for s in _nanquantile_samples(rng)],
           ops=("unsqueeze_", "transpose_")),
    OpInfo("cov", lambda lib, x, **kw: lib.cov(x, **kw),
           lambda rng: [Sample(randn(rng, 3, 5)), Sample(randn(rng, 5)),
                        Sample(randn(rng, 3, 5), correction=0)], ops=("mm",)),
    OpInfo("cov.weights", lambda lib, x, aw: lib.cov(x, fweights=lib.tensor([1, 2, 1, 3, 1]),
                                                    aweights=aw),
           lambda rng: [Sample(randn(rng, 3, 5), positive(rng, 5), grad=(0,))], ops=("mm",)),
    OpInfo("corrcoef", lambda lib, x: x.corrcoef(),
           lambda rng: [Sample(randn(rng, 3, 5)), Sample(randn(rng, 5))], ops=("mm",)),
    OpInfo("diff", lambda lib, x, *args, **kw: x.diff(*args, **kw),
           lambda rng: [Sample(randn(rng, 3, 5)), Sample(randn(rng, 3, 5), 2, 0),
                        Sample(randn(rng, 3, 5), 1, -1, randn(rng, 3, 2), randn(rng, 3, 1))],
           ops=("sub",)),
    OpInfo("gradient", lambda lib, x, **kw: lib.gradient(x, **kw),
           lambda rng: [Sample(randn(rng, 4, 5)), Sample(randn(rng, 4, 5), spacing=2.0, dim=1,
                                                         edge_order=2),
                        Sample(randn(rng, 4, 5), spacing=[0.5, 2.0])], ops=("cat",)),
    OpInfo("gradient.coordinates", lambda lib, x, c, **kw: lib.gradient(x, spacing=(c,), **kw),
           lambda rng: [Sample(randn(rng, 4, 5), np.array([0.0, 1.0, 3.0, 4.0, 7.0]), dim=1,
                               grad=(0,)),
                        Sample(randn(rng, 4, 5), np.array([0.0, 1.0, 3.0, 4.0]), dim=0,
                               edge_order=2, grad=(0,))], ops=("cat",)),
    OpInfo("trapezoid", lambda lib, y, *args, **kw: lib.trapezoid(y, *args, **kw),
           lambda rng: [Sample(randn(rng, 3, 5)), Sample(randn(rng, 3, 5), dx=0.5, dim=0),
                        Sample(randn(rng, 3, 5), np.array([0.0, 1.0, 3.0, 4.0, 7.0]),
                               grad=(0,))], ops=("sum.dim_IntList",)),
    OpInfo("cumulative_trapezoid", lambda lib, y, *args, **kw: lib.cumulative_trapezoid(
        y, *args, **kw),
           lambda rng: [Sample(randn(rng, 3, 5)), Sample(randn(rng, 3, 5), dx=0.5, dim=0),
                        Sample(randn(rng, 3, 5), np.array([0.0, 1.0, 3.0, 4.0, 7.0]),
                               grad=(0,))], ops=("cumsum",)),
    OpInfo("unique_consecutive", lambda lib, x, **kw: lib.unique_consecutive(x, **kw),
           _unique_consecutive_samples, gradcheck=False),
    # histogram's node only raises (tests/test_statistics.py checks it): no grad here
    OpInfo("histogram", lambda lib, x, *args, **kw: lib.histogram(x, *args, **kw),
           lambda rng: [Sample(randn(rng, 20), 5, grad=()),
                        Sample(randn(rng, 20), np.array([-1.0, 0.0, 2.0]), grad=()),
                        Sample(randn(rng, 4, 5), 3, range=(-1.0, 1.0), density=True, grad=())],
           gradcheck=False),
    OpInfo("norm_except_dim", lambda lib, x, *args: lib.norm_except_dim(x, *args),
           _norm_except_dim_samples, ops=("norm.Scalar", "norm.ScalarOpt_dim")),
    OpInfo("frobenius_norm", lambda lib, x, *args: lib.frobenius_norm(x, *args),
           _frobenius_samples, ops=("norm.ScalarOpt_dim",)),
    # distinct values keep max/min/prod smooth; an empty segment and `initial` included
    OpInfo("segment_reduce", _segment_reduce, _segment_samples, gradgradcheck=False),
    # the backward has no derivative in PyTorch: its node is NotImplemented
    OpInfo("segment_reduce backward", _segment_reduce_grad, _segment_samples, gradcheck=False,
           ops=("_segment_reduce_backward",)),
]
