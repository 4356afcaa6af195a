"""Statistics and order statistics against PyTorch: values, index choice among ties, NaNs,
empty and 0-d tensors, dims and keepdim, dtypes, out=, in-place variants and errors.
Every program runs on both libraries (`same`, `same_error`, `same_warnings`)."""
import math

import numpy as np
import pytest

from helpers import same, same_error, same_warnings

nan, inf = math.nan, math.inf


def _ties(T, shape=(5, 40), high=3, seed=0, dtype=None):
    """Small integers as floats: many ties in every row."""
    rng = np.random.default_rng(seed)
    return T.tensor(rng.integers(0, high, shape).astype(np.float64 if dtype is None else dtype))


def _randn(T, *shape, seed=0):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape))


def _randn32(T, *shape, seed=0):
    return T.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# ---- nansum, nanmean ----------------------------------------------------------------------

NAN_MATRIX = [[1.0, nan, 2.0], [nan, nan, nan], [3.0, -1.0, 0.5]]


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor(NAN_MATRIX).nansum(),
    lambda T: T.nansum(T.tensor(NAN_MATRIX), 1),
    lambda T: T.tensor(NAN_MATRIX).nansum((0, 1), keepdim=True),
    lambda T: T.tensor(NAN_MATRIX).nansum(keepdim=True),
    lambda T: T.tensor(NAN_MATRIX).nansum(0, dtype=T.float64),
    lambda T: T.tensor([[1, 2], [3, 4]]).nansum(0),
    lambda T: T.tensor([True, False, True]).nansum(),
    lambda T: T.zeros(0, 3).nansum(1),
    lambda T: T.tensor(2.5).nansum(0),
    lambda T: T.tensor(NAN_MATRIX).nanmean(),
    lambda T: T.nanmean(T.tensor(NAN_MATRIX), 1),
    lambda T: T.tensor(NAN_MATRIX).nanmean(1, True),
    lambda T: T.tensor(NAN_MATRIX).nanmean(keepdim=True),
    lambda T: T.tensor(NAN_MATRIX).nanmean(0, dtype=T.float64),
    lambda T: T.zeros(0, 3).nanmean(),
    lambda T: T.tensor(NAN_MATRIX, dtype=T.float64).nanmean(1),
])
def test_nansum_nanmean(prog):
    same(prog)


def test_nan_reduction_graphs():
    def prog(T):
        x = T.tensor(NAN_MATRIX, requires_grad=True)
        y = x.nanmean(1)
        y.sum().backward()
        z = x.nansum(0)
        return y, z, y.grad_fn.next_functions[0][0], x.grad
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1j, 2]).nansum(),
    lambda T: T.tensor([1, 2]).nanmean(),
    lambda T: T.tensor([1, 2]).nanmean(dtype=T.float32),
])
def test_nan_reduction_errors(prog):
    same_error(prog)


# ---- median, nanmedian, kthvalue, mode: values and index choice among ties ----------------

def test_median_ties_pick_pytorchs_index():
    same(lambda T: _ties(T).median(1))
    same(lambda T: _ties(T, (40, 5)).median(0, keepdim=True))
    same(lambda T: _ties(T, (3, 7, 6), high=2).median(-2))
    same(lambda T: _ties(T).median())
    same(lambda T: _ties(T, (8, 9), high=2, dtype=np.int64).median(1))


def test_nanmedian_ties_and_nans():
    def data(T):
        x = _ties(T, (6, 41)).numpy().copy()
        x[0, ::3] = nan
        x[1, :] = nan
        x[2, 5] = nan
        x[3, :40] = nan
        return T.tensor(x)
    same(lambda T: data(T).nanmedian(1))
    same(lambda T: data(T).median(1))
    same(lambda T: data(T).nanmedian())
    same(lambda T: data(T).median())
    same(lambda T: data(T)[1].nanmedian())
    same(lambda T: T.full((3, 40), nan).nanmedian(1))
    same(lambda T: T.full((2, 3), nan).nanmedian(1))


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(0).median(),
    lambda T: T.zeros(0, dtype=T.int64).nanmedian(),
    lambda T: T.zeros(0, 3).median(1),
    lambda T: T.zeros(0, 3).nanmedian(1, keepdim=True),
    lambda T: T.tensor(2.5).median(0),
    lambda T: T.tensor(2.5).nanmedian(-1, True),
    lambda T: T.tensor(2.5).median(),
    lambda T: T.tensor([[1, 2, 2], [3, 3, 1]]).median(1),
    lambda T: T.tensor([3.0, 1.0], dtype=T.float16).median(0),
    lambda T: T.tensor([[1.0, nan, 2.0], [3.0, 1.0, 2.0]]).median(1),
    lambda T: T.median(T.tensor([[1.0, 4.0, 2.0]]), dim=1, keepdim=True),
])
def test_median_cases(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(0, 3).median(0),
    lambda T: T.zeros(0, 3).nanmedian(0),
    lambda T: T.tensor([True]).median(),
    lambda T: T.tensor([True]).median(0),
    lambda T: T.tensor([1j]).nanmedian(),
    lambda T: T.tensor(2.5).median(1),
])
def test_median_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("k", [1, 2, 7, 13, 20, 21, 39, 40])
def test_kthvalue_ties_pick_pytorchs_index(k):
    same(lambda T: _ties(T, (6, 40)).kthvalue(k, 1))
    same(lambda T: _ties(T, (40, 6), high=2, seed=1).kthvalue(k, 0, True))
    same(lambda T: _ties(T, (5, 40), high=40, seed=2).kthvalue(k))


def test_kthvalue_ties_many_shapes():
    for n in (2, 3, 4, 5, 9, 17, 64, 101):
        for k in sorted({1, 2, (n + 1) // 2, n}):
            same(lambda T: _ties(T, (7, n), high=3, seed=n).kthvalue(k, 1))
            same(lambda T: _ties(T, (7, n), high=max(n // 3, 1), seed=n + 1).kthvalue(k, 1))


def test_kthvalue_nans_and_dtypes():
    def data(T):
        x = _ties(T, (4, 20)).numpy().copy()
        x[0, ::4] = nan
        x[1, :] = nan
        return T.tensor(x)
    for k in (1, 10, 18, 20):
        same(lambda T: data(T).kthvalue(k, 1))
    same(lambda T: T.tensor([[1, 2, 2], [3, 3, 1]]).kthvalue(2, 1))
    same(lambda T: T.tensor(2.5).kthvalue(1))
    same(lambda T: T.zeros(0, 3).kthvalue(1, 0 + 1))
    same(lambda T: T.kthvalue(T.tensor([3.0, 1.0, 2.0]), 2, 0, keepdim=True))


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([[1.0, 2.0]]).kthvalue(0, 1),
    lambda T: T.tensor([[1.0, 2.0]]).kthvalue(3, -1),
    lambda T: T.tensor([[1.0, 2.0]]).kthvalue(2, -2),
    lambda T: T.tensor(2.0).kthvalue(2),
    lambda T: T.zeros(0, 3).kthvalue(1, 0),
    lambda T: T.tensor([True]).kthvalue(1),
])
def test_kthvalue_errors(prog):
    same_error(prog)


def test_mode_ties_pick_pytorchs_index():
    same(lambda T: _ties(T, (6, 40)).mode(1))
    same(lambda T: _ties(T, (6, 16)).mode(1))
    same(lambda T: _ties(T, (6, 7), high=3).mode())
    same(lambda T: _ties(T, (50, 4), high=50).mode(0, True))
    same(lambda T: T.tensor([[1.0, 2, 2, 3, 3, 1]]).mode(1))
    same(lambda T: T.tensor([True, False, True]).mode())
    same(lambda T: T.tensor([[1, 2, 2], [3, 3, 1]]).mode(1))
    same(lambda T: T.tensor(2.5).mode())
    same(lambda T: T.zeros(0, 3).mode(0 + 1))
    same(lambda T: T.tensor([1.0, nan, nan, 1.0]).mode(0))


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(0, 3).mode(0),
    lambda T: T.zeros(0).mode(),
    lambda T: T.tensor([1j]).mode(),
])
def test_mode_errors(prog):
    same_error(prog)


def test_order_statistic_graphs():
    def prog(T):
        x = T.tensor([[3.0, 1.0, 3.0, 2.0], [2.0, 2.0, 5.0, 2.0]], requires_grad=True)
        outs = [x.median(), x.median(1), x.nanmedian(), x.nanmedian(0), x.kthvalue(2, 1),
                x.mode(1)]
        total = sum((o if isinstance(o, T.Tensor) else o.values).sum() for o in outs)
        total.backward()
        return outs, x.grad, [type(o).__name__ for o in outs]
    same(prog)


def test_order_statistics_out():
    def prog(T):
        x = _ties(T, (4, 9))
        v, i = T.empty(0, dtype=x.dtype), T.empty(0, dtype=T.int64)
        r = T.median(x, 1, out=(v, i))
        v2, i2 = T.empty(0, dtype=x.dtype), T.empty(0, dtype=T.int64)
        r2 = T.kthvalue(x, 3, 1, out=(v2, i2))
        v3, i3 = T.empty(0, dtype=x.dtype), T.empty(0, dtype=T.int64)
        r3 = T.mode(x, 1, out=(v3, i3))
        return r, v, i, r2, v2, i2, r3, v3, i3, type(r).__name__
    same(prog)


# ---- quantile, nanquantile ----------------------------------------------------------------

@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolations(interpolation):
    qs = [0.0, 0.1, 0.125, 1 / 6, 0.25, 0.375, 0.5, 0.7, 5 / 6, 0.875, 1.0]
    for n in (4, 5):
        same(lambda T: T.arange(n, dtype=T.float32).quantile(T.tensor(qs),
                                                             interpolation=interpolation))
    same(lambda T: _randn32(T, 3, 5, 4).quantile(0.3, 1, interpolation=interpolation))
    same(lambda T: _randn(T, 3, 5).quantile(T.tensor([0.2, 0.9], dtype=T.float64), 0, True,
                                            interpolation=interpolation))
    same(lambda T: _randn(T, 3, 5).nanquantile(0.4, None, True, interpolation=interpolation))


@pytest.mark.parametrize("prog", [
    lambda T: _randn32(T, 3, 4).quantile(0.3),
    lambda T: _randn32(T, 3, 4).quantile(0.3, -1),
    lambda T: _randn32(T, 3, 4).quantile(T.tensor([0.3, 0.6]), 1, keepdim=True),
    lambda T: _randn32(T, 3, 4).quantile(T.tensor(0.3), 1),
    lambda T: _randn32(T, 3, 4).quantile(T.tensor([0.3, 0.6]), None, True),
    lambda T: _randn32(T, 3, 4).quantile(1),
    lambda T: T.tensor(2.5).quantile(0.5),
    lambda T: T.tensor(2.5).quantile(0.5, 0, True),
    lambda T: T.tensor([1.0, nan, 2.0]).quantile(0.5),
    lambda T: T.tensor([1.0, nan, 2.0]).nanquantile(0.5),
    lambda T: T.tensor([[nan, nan, nan], [1.0, 2.0, 3.0]]).nanquantile(T.tensor([0.5, 1.0]), 1),
    lambda T: T.tensor([[nan, 5.0, nan], [1.0, nan, 3.0]]).quantile(0.25, 1),
    lambda T: T.quantile(_randn(T, 2, 3), 0.5, 1, True, interpolation="lower"),
])
def test_quantile_cases(prog):
    same(prog)


def test_quantile_graphs():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        q = T.tensor([0.3, 0.6], dtype=T.float64)
        outs = [x.quantile(0.3), x.quantile(0.3, 1), x.quantile(0.3, 0, True),
                x.quantile(q, 1), x.quantile(q), x.quantile(0.3, 1, interpolation="lower"),
                x.nanquantile(q, 0, interpolation="midpoint"), x[0, 0].quantile(0.4)]
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [o.grad_fn.next_functions[0][0] for o in outs], \
            [o.grad_fn.next_functions[0][0].next_functions[0][0] for o in outs[3:5]]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1, 2]).quantile(0.5),
    lambda T: T.tensor([1.0]).quantile(T.tensor([0.5], dtype=T.float64)),
    lambda T: T.tensor([1.0]).quantile(1.5),
    lambda T: T.tensor([1.0]).quantile(-0.1),
    lambda T: T.tensor([1.0]).quantile(nan),
    lambda T: T.tensor([1.0]).nanquantile(T.tensor([1.5])),
    lambda T: T.tensor([1.0]).quantile(T.ones(2, 2) * 0.5),
    lambda T: T.tensor([1.0]).quantile(0.5, interpolation="foo"),
    lambda T: T.tensor([1, 2]).quantile(0.5, interpolation="foo"),
    lambda T: T.tensor([1, 2]).quantile(2.0, interpolation="foo"),
    lambda T: T.zeros(0, 3).quantile(0.5, 1),
    lambda T: T.zeros(3, 4).quantile(0.5, 5),
    lambda T: T.tensor([True]).nanquantile(0.5),
    lambda T: T.tensor([1.0], dtype=T.float16).quantile(0.5),
    lambda T: T.quantile(T.ones(3), 0.5, out=T.empty(0, dtype=T.float64)),
])
def test_quantile_errors(prog):
    same_error(prog)


def test_quantile_out():
    def prog(T):
        out = T.empty(0)
        r = T.quantile(_randn32(T, 3, 4), T.tensor([0.25, 0.75]), 1, out=out)
        out2 = T.empty(0)
        T.nanquantile(_randn32(T, 3, 4), 0.5, out=out2)
        return r, out, out2
    same(prog)


# ---- std_mean, var_mean -------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.std_mean(_randn(T, 3, 4)),
    lambda T: T.std_mean(_randn(T, 3, 4), 1),
    lambda T: T.var_mean(_randn(T, 3, 4), False),
    lambda T: T.var_mean(_randn(T, 3, 4), 1, False, True),
    lambda T: T.var_mean(_randn(T, 3, 4), (0, 1), keepdim=True, correction=0),
    lambda T: T.std_mean(_randn32(T, 3, 4), dim=0, unbiased=True),
    lambda T: T.var_mean(_randn(T, 2, 3, 4), [0, 2], correction=2),
    lambda T: T.std_mean(T.tensor(2.0)),
    lambda T: T.var_mean(T.zeros(0, 3), 1),
])
def test_std_var_mean(prog):
    same(prog)


def test_std_var_mean_graph_and_warning():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        s, m = T.std_mean(x, 1)
        v, m2 = T.var_mean(x)
        (s.sum() * 2 + m.sum() + v * 3 + m2).backward()
        return s, m, v, m2, x.grad, type(T.std_mean(x)).__name__
    same(prog)
    same_warnings(lambda T: T.std_mean(T.ones(3, 4), 1, correction=4))
    same_warnings(lambda T: T.var_mean(T.ones(3, 1), 1))
    same_error(lambda T: T.var_mean(T.tensor([1, 2])))


# ---- aminmax ------------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: _randn(T, 3, 4).aminmax(),
    lambda T: _randn(T, 3, 4).aminmax(dim=1, keepdim=True),
    lambda T: T.aminmax(_randn(T, 3, 4), dim=-2),
    lambda T: T.aminmax(_randn(T, 3, 4), keepdim=True),
    lambda T: T.tensor([True, False]).aminmax(),
    lambda T: T.tensor([[1, 5], [7, 2]]).aminmax(dim=0),
    lambda T: T.tensor(2.5).aminmax(dim=0),
    lambda T: T.tensor(2.5).aminmax(dim=0, keepdim=True),
    lambda T: T.tensor([1.0, nan, 2.0]).aminmax(),
    lambda T: T.zeros(0, 3).aminmax(dim=1),
])
def test_aminmax(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(0, 3).aminmax(),
    lambda T: T.zeros(0, 3).aminmax(dim=0),
    lambda T: T.tensor([1j]).aminmax(),
    lambda T: T.ones(2).aminmax(dim=2),
])
def test_aminmax_errors(prog):
    same_error(prog)


def test_aminmax_graph_and_out():
    def prog(T):
        x = T.tensor([[1.0, 3.0, 3.0], [0.0, 0.0, 2.0]], requires_grad=True)
        lo, hi = x.aminmax()
        lo1, hi1 = x.aminmax(dim=1)
        (lo * 2 + hi + (lo1 * 3 + hi1 * 5).sum()).backward()
        mn, mx = T.empty(0), T.empty(0)
        r = T.aminmax(x.detach(), dim=0, out=(mn, mx))
        return lo, hi, lo1, hi1, x.grad, r, mn, mx, type(r).__name__
    same(prog)


# ---- cummax, cummin, logcumsumexp ---------------------------------------------------------

@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin(name):
    same(lambda T: getattr(T.tensor([5.0, 1, 5, 3, 5, 2, 5]), name)(0))
    same(lambda T: getattr(T.tensor([1.0, 5, 1, 1, 0, 1]), name)(0))
    same(lambda T: getattr(T.tensor([1.0, nan, 2.0, nan, 0.0]), name)(0))
    same(lambda T: getattr(T, name)(_ties(T, (4, 30)), 1))
    same(lambda T: getattr(T, name)(_ties(T, (30, 4)), -2))
    same(lambda T: getattr(T.tensor([[1, 2, 2], [3, 3, 1]]), name)(1))
    same(lambda T: getattr(T.tensor([True, False, True]), name)(0))
    same(lambda T: getattr(T.zeros(0, 3), name)(0))
    same(lambda T: getattr(T.tensor(2.5), name)(0))
    same_error(lambda T: getattr(T.tensor([1j]), name)(0))
    same_error(lambda T: getattr(T.ones(2), name)(1))

    def prog(T):
        x = T.tensor([[1.0, 3.0, 3.0, 2.0], [4.0, 0.0, 4.0, 5.0]], requires_grad=True)
        v, i = getattr(x, name)(1)
        (v * T.tensor([1.0, 2.0, 3.0, 4.0], dtype=x.dtype)).sum().backward()
        vo, io = T.empty(0), T.empty(0, dtype=T.int64)
        r = getattr(T, name)(x.detach(), 0, out=(vo, io))
        return v, i, x.grad, r, vo, io, type(r).__name__
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: _randn(T, 3, 5).logcumsumexp(1),
    lambda T: T.logcumsumexp(_randn32(T, 3, 5), 0),
    lambda T: T.tensor([inf, inf, -inf, 1.0]).logcumsumexp(0),
    lambda T: T.tensor([-inf, -inf, 1.0]).logcumsumexp(0),
    lambda T: T.tensor([1.0, nan, 2.0]).logcumsumexp(0),
    lambda T: T.tensor(2.5).logcumsumexp(0),
    lambda T: T.zeros(0, 3).logcumsumexp(0),
    lambda T: T.tensor([1 + 1j, 2 - 1j]).logcumsumexp(0),
])
def test_logcumsumexp(prog):
    same(prog)


def test_logcumsumexp_errors_and_out():
    same_error(lambda T: T.tensor([1, 2]).logcumsumexp(0))
    same_error(lambda T: T.tensor([True]).logcumsumexp(0))

    def prog(T):
        out = T.empty(0)
        r = T.logcumsumexp(_randn32(T, 3, 4), 1, out=out)
        return r, out
    same(prog)


# ---- count_nonzero, dist, renorm ----------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([[0.0, 1.0, nan], [0.0, 0.0, 2.0]]).count_nonzero(),
    lambda T: T.count_nonzero(T.tensor([[0, 1, 3], [0, 0, 2]]), 1),
    lambda T: T.tensor([[0, 1, 3], [0, 0, 2]]).count_nonzero((0, 1)),
    lambda T: T.tensor([[0, 1, 3], [0, 0, 2]]).count_nonzero([0]),
    lambda T: T.tensor([[0, 1, 3], [0, 0, 2]]).count_nonzero(-1),
    lambda T: T.tensor([True, False, True]).count_nonzero(),
    lambda T: T.tensor([1j, 0]).count_nonzero(),
    lambda T: T.zeros(0, 3).count_nonzero(0),
    lambda T: T.tensor(2.0).count_nonzero(),
])
def test_count_nonzero(prog):
    same(prog)


def test_count_nonzero_errors():
    same_error(lambda T: T.ones(2, 3).count_nonzero((0, 0)))
    same_error(lambda T: T.ones(2, 3).count_nonzero(2))


@pytest.mark.parametrize("prog", [
    lambda T: T.dist(_randn32(T, 3, 4), _randn32(T, 3, 4, seed=1)),
    lambda T: _randn(T, 3, 4).dist(_randn(T, 4, seed=1), 3),
    lambda T: T.dist(_randn(T, 3, 4), _randn(T, 3, 4, seed=1), 0),
    lambda T: T.dist(_randn(T, 3, 4), _randn(T, 3, 4, seed=1), inf),
    lambda T: T.dist(_randn(T, 3, 4), _randn(T, 3, 4, seed=1), -1),
    lambda T: T.dist(_randn32(T, 3, 4), _randn(T, 4, seed=1)),
    lambda T: T.dist(_randn32(T, 4), T.tensor([1, 2, 3, 4])),
])
def test_dist(prog):
    same(prog)


def test_dist_graph_and_errors():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        y = T.tensor(np.random.default_rng(1).standard_normal(4), requires_grad=True)
        d = T.dist(x, y * 1.5, 3)
        d.backward()
        return d, x.grad, y.grad, d.grad_fn.next_functions
    same(prog)
    same_error(lambda T: T.dist(T.tensor([1, 2]), T.tensor([3, 4])))
    same_error(lambda T: T.dist(T.zeros(0), T.zeros(0), inf))


@pytest.mark.parametrize("prog", [
    lambda T: _randn32(T, 3, 4).renorm(2, 0, 1.0),
    lambda T: _randn(T, 3, 4).renorm(1, 1, 0.5),
    lambda T: _randn(T, 2, 3, 4).renorm(3, -1, 1.0),
    lambda T: _randn(T, 3, 4).renorm(inf, 1, 1.0),
    lambda T: T.renorm(_randn(T, 3, 4) * 0.01, 2, 0, 5.0),
])
def test_renorm(prog):
    same(prog)


def test_renorm_inplace_graph_and_errors():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        y = x * 1
        r = y.renorm_(2, 0, 1.0)
        (r * T.arange(12.0, dtype=x.dtype).view(3, 4)).sum().backward()
        return r is y, y, x.grad
    same(prog)
    for prog in [lambda T: T.ones(3, 4).renorm(2, 0, -1.0), lambda T: T.ones(3, 4).renorm(0, 0, 1),
                 lambda T: T.ones(3, 4).renorm(-1, 0, 1), lambda T: T.ones(3).renorm(2, 0, 1),
                 lambda T: T.tensor(2.0).renorm(2, 0, 1), lambda T: T.ones(3, 4).renorm(2, 2, 1),
                 lambda T: T.tensor([[1, 2]]).renorm(2, 0, 1.0)]:
        same_error(prog)


# ---- cov, corrcoef ------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: _randn(T, 3, 5).cov(),
    lambda T: _randn(T, 5).cov(),
    lambda T: T.cov(_randn32(T, 3, 5), correction=0),
    lambda T: T.cov(_randn(T, 3, 5), correction=2),
    lambda T: T.cov(_randn(T, 3, 5), fweights=T.tensor([1, 2, 1, 3, 1])),
    lambda T: T.cov(_randn(T, 3, 5), aweights=T.tensor([0.5, 2.0, 1.0, 3.0, 1.0],
                                                       dtype=T.float64)),
    lambda T: T.cov(_randn(T, 3, 5), correction=0, fweights=T.tensor([1, 2, 1, 3, 1]),
                    aweights=T.tensor([0.5, 2.0, 1.0, 3.0, 1.0], dtype=T.float64)),
    lambda T: T.cov(T.tensor([[1, 2, 4], [3, 1, 0]])),
    lambda T: T.cov(T.tensor([1.0, 2.0, 3.0]), aweights=T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.cov(T.tensor([[1, 2]]), fweights=T.tensor([2, 1])),
    lambda T: T.cov(T.tensor([[1.0], [2.0]]), aweights=T.tensor([2.0])),
    lambda T: T.cov(T.tensor([[1, 2, 4], [3, 1, 0j]])),
    lambda T: _randn(T, 3, 5).corrcoef(),
    lambda T: T.corrcoef(_randn(T, 5)),
    lambda T: T.corrcoef(T.tensor([[1, 2, 4], [3, 1, 0]])),
    lambda T: T.corrcoef(T.ones(2, 3)),
])
def test_cov_corrcoef(prog):
    same(prog)


def test_cov_corrcoef_graphs_and_warnings():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
        w = T.tensor([0.5, 2.0, 1.0, 3.0, 1.0], dtype=T.float64)
        outs = [x.cov(), x[0].cov(), x.cov(fweights=T.tensor([1, 2, 1, 3, 1]), aweights=w),
                x.corrcoef(), x[0].corrcoef()]
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [o.grad_fn.next_functions for o in outs]
    same(prog)
    same_warnings(lambda T: T.cov(T.ones(2, 3), correction=3))
    same_warnings(lambda T: T.cov(T.ones(2, 1)))

    def zeroes_input(T):
        x = T.tensor([[1.0], [2.0], [3.0]])
        return T.cov(x, fweights=T.tensor([2])), x
    same(zeroes_input)


@pytest.mark.parametrize("prog", [
    lambda T: T.cov(T.ones(2, 2, 2)),
    lambda T: T.cov(T.ones(2, 2, dtype=T.bool)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(3)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(1, 3, dtype=T.int64)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.ones(2, dtype=T.int64)),
    lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, -1, 1])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.ones(3, dtype=T.int64)),
    lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1.0, -1.0, 1.0])),
    lambda T: T.cov(T.ones(2, 3), aweights=T.zeros(3)),
    lambda T: T.corrcoef(T.ones(2, 2, 2)),
])
def test_cov_errors(prog):
    same_error(prog)


# ---- diff, gradient, trapezoid ------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: _randn(T, 3, 5).diff(),
    lambda T: T.diff(_randn(T, 3, 5), n=2, dim=0),
    lambda T: T.diff(_randn(T, 3, 5), n=3, dim=0),
    lambda T: T.diff(_randn(T, 3, 5), n=0),
    lambda T: T.diff(_randn(T, 3, 5), prepend=_randn(T, 3, 2, seed=1),
                     append=_randn(T, 3, 1, seed=2)),
    lambda T: T.diff(_randn(T, 3, 5), 2, 0, append=_randn(T, 1, 5, seed=2)),
    lambda T: T.diff(T.tensor([1, 4, 9, 16]), 2),
    lambda T: T.diff(T.tensor([True, False, False, True]), 2),
    lambda T: T.diff(T.zeros(0)),
    lambda T: T.diff(T.tensor([1.0])),
])
def test_diff(prog):
    same(prog)


def test_diff_graph_and_errors():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        outs = [x.diff(n=2, dim=0, append=x), x.diff(), x.diff(n=0)]
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [o.grad_fn.next_functions for o in outs]
    same(prog)
    for prog in [lambda T: T.tensor(1.0).diff(), lambda T: T.ones(3).diff(-1),
                 lambda T: T.ones(2, 3).diff(prepend=T.ones(3)),
                 lambda T: T.ones(2, 3).diff(append=T.ones(3, 3)),
                 lambda T: T.ones(2, 3).diff(dim=2)]:
        same_error(prog)
    same(lambda T: T.diff(T.ones(2, 3), out=T.empty(0)))


@pytest.mark.parametrize("prog", [
    lambda T: T.gradient(_randn(T, 4, 5)),
    lambda T: T.gradient(_randn(T, 4, 5), dim=1),
    lambda T: T.gradient(_randn(T, 4, 5), spacing=2.0, dim=1, edge_order=2),
    lambda T: T.gradient(_randn(T, 4, 5), spacing=[2.0, 0.5]),
    lambda T: T.gradient(_randn(T, 4, 5), spacing=(0.5,), dim=(-1,), edge_order=2),
    lambda T: T.gradient(_randn(T, 4, 5), spacing=(T.tensor([0.0, 1, 3, 4, 7],
                                                             dtype=T.float64),), dim=1),
    lambda T: T.gradient(_randn(T, 4, 5), spacing=(T.tensor([0.0, 1, 3, 4, 7],
                                                             dtype=T.float64),), dim=1,
                         edge_order=2),
    lambda T: T.gradient(_randn32(T, 4, 5), spacing=[T.tensor([0.0, 1, 3, 4]),
                                                     T.tensor([1.0, 2, 4, 5, 8])]),
    lambda T: T.gradient(T.tensor([1, 4, 9, 16, 25])),
    lambda T: T.gradient(T.tensor([1, 4, 9, 16, 25]), spacing=2),
])
def test_gradient(prog):
    same(prog)


def test_gradient_graph_and_errors():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        c = T.tensor([0.0, 1.0, 3.0, 4.0], dtype=T.float64)
        outs = [*T.gradient(x), *T.gradient(x, spacing=2.0, dim=1, edge_order=2),
                *T.gradient(x, spacing=(c,), dim=1), *T.gradient(x, spacing=(c,), dim=1,
                                                                edge_order=2)]
        sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
        return outs, x.grad, [[n for n, _ in o.grad_fn.next_functions] for o in outs]
    same(prog)
    for prog in [lambda T: T.gradient(T.ones(3, dtype=T.uint8)),
                 lambda T: T.gradient(T.ones(3, 3), spacing=[1.0]),
                 lambda T: T.gradient(T.ones(3, 3), spacing=[1.0, 2.0], dim=0),
                 lambda T: T.gradient(T.ones(3, 3), edge_order=3),
                 lambda T: T.gradient(T.ones(2, 3), edge_order=2),
                 lambda T: T.gradient(T.ones(3, 3), dim=(0, 0)),
                 lambda T: T.gradient(T.ones(3, 3), spacing=(T.ones(3, 3),), dim=0)]:
        same_error(prog)


@pytest.mark.parametrize("name", ["trapezoid", "trapz"])
def test_trapezoid(name):
    for prog in [
        lambda T: getattr(T, name)(_randn(T, 3, 5)),
        lambda T: getattr(T, name)(_randn(T, 3, 5), dim=0),
        lambda T: getattr(T, name)(_randn(T, 3, 5), dx=0.5),
        lambda T: getattr(T, name)(_randn32(T, 3, 5), T.tensor([0.0, 1, 3, 4, 7])),
        lambda T: getattr(T, name)(_randn(T, 3, 5), _randn(T, 3, 5, seed=1), dim=0),
        lambda T: getattr(T, name)(_randn(T, 3, 5), _randn(T, 5, seed=1).view(1, 5).expand(2, 5)
                                   .sum(0)),
        lambda T: getattr(T, name)(T.tensor([1, 4, 9])),
        lambda T: getattr(T, name)(T.zeros(3, 0)),
    ]:
        same(prog)

    def prog(T):
        y = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        x = T.tensor([0.0, 1.0, 3.0, 4.0], dtype=T.float64)
        outs = [getattr(T, name)(y), getattr(T, name)(y, x), getattr(T, name)(y, dx=2.0)]
        sum(o.sum() for o in outs).backward()
        return outs, y.grad, [o.grad_fn.next_functions for o in outs]
    same(prog)
    same_error(lambda T: getattr(T, name)(T.ones(3, 4), T.ones(3)))
    same_error(lambda T: getattr(T, name)(T.ones(3, dtype=T.bool)))


@pytest.mark.parametrize("prog", [
    lambda T: T.cumulative_trapezoid(_randn(T, 3, 5)),
    lambda T: T.cumulative_trapezoid(_randn(T, 3, 5), dim=0, dx=0.5),
    lambda T: T.cumulative_trapezoid(_randn32(T, 3, 5), T.tensor([0.0, 1, 3, 4, 7])),
    lambda T: T.cumulative_trapezoid(T.tensor([1, 4, 9])),
    lambda T: T.cumulative_trapezoid(T.zeros(3, 0)),
])
def test_cumulative_trapezoid(prog):
    same(prog)


def test_cumulative_trapezoid_graph_and_errors():
    def prog(T):
        y = T.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
        x = T.tensor([0.0, 1.0, 3.0, 4.0], dtype=T.float64)
        outs = [T.cumulative_trapezoid(y), T.cumulative_trapezoid(y, x),
                T.cumulative_trapezoid(y, dx=2.0)]
        sum(o.sum() for o in outs).backward()
        return outs, y.grad, [o.grad_fn.next_functions for o in outs]
    same(prog)
    same_error(lambda T: T.cumulative_trapezoid(T.ones(3, 4), T.ones(3)))
    same_error(lambda T: T.cumulative_trapezoid(T.ones(3, dtype=T.bool)))


# ---- unique_consecutive -------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.unique_consecutive(T.tensor([1.0, 1, 2, 2, 3, 1, 1, nan, nan])),
    lambda T: T.unique_consecutive(T.tensor([1.0, 1, 2, 2, 3, 1, 1, nan, nan]),
                                   return_inverse=True, return_counts=True),
    lambda T: T.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(True, True, 0),
    lambda T: T.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(return_counts=True, dim=1),
    lambda T: T.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(return_inverse=True),
    lambda T: T.unique_consecutive(T.tensor(3.0), return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(T.zeros(0), return_inverse=True, return_counts=True),
    lambda T: T.unique_consecutive(T.zeros(0, 2), return_inverse=True, return_counts=True, dim=0),
    lambda T: T.unique_consecutive(T.tensor([True, True, False])),
])
def test_unique_consecutive(prog):
    same(prog)


def test_unique_consecutive_graph_and_errors():
    def prog(T):
        x = T.tensor([[1.0, 1.0], [1.0, 1.0], [2.0, 3.0]], requires_grad=True)
        return T.unique_consecutive(x), T.unique_consecutive(x, dim=0)
    same(prog)
    same_error(lambda T: T.unique_consecutive(T.tensor([1.0, 1.0], requires_grad=True)).sum()
               .backward())
    same_error(lambda T: T.unique_consecutive(T.tensor(3.0), dim=0))
    same_error(lambda T: T.unique_consecutive(T.tensor([1j])))


# ---- histc, histogram, histogramdd --------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.histc(T.tensor([1.0, 2, 1, 4, 5]), bins=4),
    lambda T: T.histc(_randn32(T, 1000), bins=7, min=-1, max=1),
    lambda T: T.histc(_randn(T, 1000), bins=13),
    lambda T: T.tensor([1.0, nan, 3]).histc(4, 0, 4),
    lambda T: T.histc(T.zeros(0), bins=4),
    lambda T: T.histc(T.tensor([2.0, 2.0]), bins=3),
    lambda T: T.histc(T.tensor([1.0, 2, 1], dtype=T.float16), bins=4, min=1, max=2),
    lambda T: T.histc(T.arange(10.0) / 10, bins=10, min=0, max=0.9),
])
def test_histc(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.histc(T.tensor([1, 2, 1]), bins=4),
    lambda T: T.histc(T.tensor([1.0, 2, 1]), bins=4, min=3, max=1),
    lambda T: T.histc(T.tensor([1.0, 2, 1]), bins=0),
    lambda T: T.histc(T.tensor([1.0, inf]), bins=4),
    lambda T: T.histc(T.ones(3), out=T.empty(0, dtype=T.float64)),
])
def test_histc_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.histogram(T.tensor([1.0, 2, 1, 4, 5]), bins=4),
    lambda T: T.histogram(T.tensor([1.0, 2, 1, 4, 5]), bins=T.tensor([0.0, 1, 3, 5])),
    lambda T: T.histogram(T.tensor([1.0, 2, 1, 4, 5]), bins=4, range=(0.0, 4.0),
                          weight=T.tensor([1.0, 2, 3, 4, 5]), density=True),
    lambda T: T.histogram(T.zeros(0), bins=4),
    lambda T: T.tensor([1.0, 2]).histogram(3),
    lambda T: T.histogram(T.ones(2, 3), 3),
    lambda T: T.histogram(_randn32(T, 1000), 17),
    lambda T: T.histogram(_randn(T, 1000), T.tensor([-1.0, 0.0, 0.5, 3.0], dtype=T.float64),
                          density=True),
    lambda T: T.histogram(T.arange(10.0) / 10, 10, range=(0.0, 0.9)),
])
def test_histogram(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.histogram(T.tensor([1, 2]), bins=4),
    lambda T: T.histogram(T.zeros(3), bins=4, range=(1.0, 0.0)),
    lambda T: T.histogram(T.tensor([1.0, inf]), bins=4),
    lambda T: T.histogram(T.zeros(3), bins=T.tensor([0.0, 1.0], dtype=T.float64)),
    lambda T: T.histogram(T.zeros(3), bins=4, weight=T.ones(2)),
])
def test_histogram_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.histogramdd(T.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=[3, 3],
                            weight=T.tensor([1.0, 2, 4, 8])),
    lambda T: T.histogramdd(T.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=2),
    lambda T: T.histogramdd(T.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]),
                            bins=[T.tensor([0.0, 1, 2]), T.tensor([0.0, 2])], density=True),
    lambda T: T.histogramdd(T.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=[1, 2],
                            range=[0.0, 1.0, 0.0, 1.0]),
    lambda T: T.histogramdd(_randn32(T, 500, 3), bins=[4, 5, 6]),
    lambda T: T.histogramdd(_randn(T, 10, 20, 2), bins=3, density=True),
])
def test_histogramdd(prog):
    same(prog)


def test_histogramdd_errors():
    same_error(lambda T: T.histogramdd(T.tensor([0.0, 1]), bins=[1]))
    same_error(lambda T: T.histogramdd(T.ones(3, 2), bins=[1, 2], range=[0.0, 1.0]))


# ---- frobenius_norm, norm_except_dim ------------------------------------------------------

def test_frobenius_norm_and_norm_except_dim():
    def prog(T):
        x = T.tensor(np.random.default_rng(0).standard_normal((3, 4, 2)), requires_grad=True)
        outs = [T.frobenius_norm(x, (0, 1)), T.frobenius_norm(x, (1,), True),
                T.norm_except_dim(x, 2, 0), T.norm_except_dim(x, 2, -1),
                T.norm_except_dim(x, 3, 1), T.norm_except_dim(x, 2, 2)]
        sum(o.sum() for o in outs).backward()
        return outs, x.grad, [o.grad_fn.next_functions for o in outs]
    same(prog)
    same_error(lambda T: T.frobenius_norm(T.ones(2, 2, 2), (0, 1, 2)))


# ---- summation order (issue 7, point 6) ---------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((10000,), 0), ((1000, 37), 0), ((1000, 37), 1)])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_float32_cumulative_ops_are_bit_exact(shape, dim, name):
    # PyTorch accumulates float32 running sums and products in double
    def prog(T):
        x = _randn32(T, *shape) * (0.5 if name == "cumprod" else 1.0) + \
            (1.0 if name == "cumprod" else 0.0)
        return getattr(x, name)(dim)
    same(prog, atol=0, rtol=0)
    same(lambda T: T.tensor(np.random.default_rng(3).standard_normal(300).astype(np.float16))
         .cumsum(0), atol=0, rtol=0)


def test_histogram_has_no_derivative():
    def prog(T):
        x = T.tensor([1.0, 2.0, 2.5], requires_grad=True)
        h = T.histogram(x, 3)
        return h, h.hist.grad_fn, h.bin_edges.requires_grad
    same(prog)
    same_error(lambda T: T.histogram(T.tensor([1.0, 2.0, 2.5], requires_grad=True), 3).hist
               .sum().backward())


def test_quantile_out_records_the_copy():
    def prog(T):
        x = T.tensor([1.0, 4.0, 2.0], requires_grad=True)
        out = T.empty(0)
        r = T.quantile(x, 0.5, out=out)
        r.backward()
        return r is out, out, out.grad_fn, x.grad
    same(prog)
    same_error(lambda T: T.quantile(T.ones(3), 0.5, out=T.empty(0, requires_grad=True)))


# ---- segment_reduce, hash_tensor ----------------------------------------------------------

@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "max", "min", "amax", "amin"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce_values_and_gradients(reduce, initial):
    data = np.array([1.0, 2.0, 3.0, 0.0, 2.0, 2.0, 5.0, float("nan"), 0.0, float("nan"), 3.0,
                     float("inf"), 2.0])

    def prog(T):
        x = T.tensor(data, requires_grad=True)
        r = T.segment_reduce(x, reduce, lengths=T.tensor([2, 0, 3, 2, 1, 3, 2]), initial=initial)
        g, = T.autograd.grad(r, x, T.arange(1.0, 8.0, dtype=T.float64))
        return r, g
    same(prog)


def test_segment_reduce_batched_offsets_and_axis():
    a = np.arange(24.0).reshape(2, 3, 4)

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        by_rows = T.segment_reduce(x, "sum", lengths=T.tensor([[1, 2], [3, 0]]), axis=1)
        by_offsets = T.segment_reduce(x, "max", offsets=T.tensor([0, 1, 2]), axis=0)
        unsafe = T.segment_reduce(x[0, 0], "mean", lengths=T.tensor([1, 1]), unsafe=True)
        return by_rows, by_offsets, unsafe, T.autograd.grad(by_rows.sum(), x)[0]
    same(prog)


def test_segment_reduce_backward_has_no_derivative():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        r = T.segment_reduce(x, "max", lengths=T.tensor([2, 2]))
        g, = T.autograd.grad((r * r).sum(), x, create_graph=True)
        return g, g.grad_fn.name(), [f.name() for f, _ in g.grad_fn.next_functions]
    same(prog)
    same_error(lambda T: prog(T)[0].sum().backward())


@pytest.mark.parametrize("call", [
    lambda T: T.segment_reduce(T.ones(4), "foo", lengths=T.tensor([4])),
    lambda T: T.segment_reduce(T.ones(4), "sum"),
    lambda T: T.segment_reduce(T.ones(4), "sum", indices=T.tensor([0, 0, 1, 1])),
    lambda T: T.segment_reduce(T.ones(4), "sum", lengths=T.tensor([2])),
    lambda T: T.segment_reduce(T.ones(4), "sum", lengths=T.tensor([-1, 5])),
    lambda T: T.segment_reduce(T.ones(4), "sum", lengths=T.tensor([2.0, 2.0])),
    lambda T: T.segment_reduce(T.ones(4, dtype=T.int64), "sum", lengths=T.tensor([4])),
    lambda T: T.segment_reduce(T.ones(2, 2), "sum", lengths=T.tensor([1, 1]), axis=1),
])
def test_segment_reduce_errors(call):
    same_error(call)


def test_hash_tensor():
    def prog(T):
        x = T.tensor([[1.5, -2.0, 0.0], [3.0, 4.0, -0.0]])
        return (T.hash_tensor(x), T.hash_tensor(x, 1), T.hash_tensor(x, [0], keepdim=True),
                x.hash_tensor(), T.hash_tensor(x.half()), T.hash_tensor(T.tensor([-1, 3], dtype=T.int8)),
                T.hash_tensor(T.tensor([True, False])), T.hash_tensor(T.zeros(0, 2), 1),
                T.hash_tensor(x, out=T.empty(0, dtype=T.uint64)))
    same(prog)
    same_error(lambda T: T.hash_tensor(T.zeros(0)))
    same_error(lambda T: T.hash_tensor(T.zeros(0, 2), 0))
    same_error(lambda T: T.hash_tensor(T.ones(2), mode=1))
    same_error(lambda T: T.hash_tensor(T.tensor([1 + 2j])))
