"""Statistics: NaN-aware reductions (nansum, nanmean, nanmedian), order statistics (median,
kthvalue, mode, quantile, nanquantile), paired reductions (std_mean, var_mean, aminmax),
cumulative extremes (cummax, cummin, logcumsumexp), count_nonzero, dist, renorm, cov,
corrcoef, diff, gradient, trapezoid, cumulative_trapezoid, unique_consecutive, histograms,
frobenius_norm, norm_except_dim.

Order statistics send the gradient to the index they select (derivatives.yaml's
value_selecting_reduction_backward), so which index is returned among equal values is part of
the result. The indices follow PyTorch's CPU kernels:
- median and nanmedian along a dim: std::nth_element with an (value, index) comparator, i.e.
  the element at rank (n - 1) // 2 of a stable sort (the first NaN when one is present, for
  median; an all-NaN row of nanmedian replays introselect, sorting.py);
- kthvalue: PyTorch's own quickselect (quick_select_template, Note [Quickselect]);
- mode: the last element of the most frequent run after std::sort (sorting.py's replay);
- cummax / cummin: the last index of the running extreme (`>=`), NaN propagating.

Composite functions (nanmean, quantile, cov, corrcoef, diff, gradient, trapezoid, ...) are
built from the same ops as in ATen, so their graphs have PyTorch's nodes.
"""
import math
import warnings

import numpy as np

from .. import _dtype
from .._creation import linspace, scalar_tensor, zeros, zeros_like
from .._dims import sizes_str, wrap_dim, wrap_dims
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from ..autograd import grad_mode
from .aliasing import (_squeeze_dim_inplace as _squeeze_, _transpose_row as _transpose_,
                       _unsqueeze_row as _unsqueeze_)
from .nn_ops import div_scalar, mul_scalar
from .binding import Overloads, Signature, _bad_arguments, _not_tensor, declare
from .pointwise import _checked_scalar, _promoted, _refuse_bool_sub, where
from .reduction import (_evenly_distribute_backward, _reduce_dims, _select_backward,
                        _squared_deviations, _sum_backward, _MOMENT_ACC, _unsqueeze_to, _numel,
                        _vector_norm, _vector_norm_backward, _acc_dtype, _amax_backward,
                        _correction, _dof, _std_backward, _var_backward, vector_norm)
from .registry import (EXACT, FUNCTIONS, NOT_IMPLEMENTED, OPS, check_out_kind, dispatch,
                       no_derivative, not_implemented, op, out_as_dtype, out_exact, out_variant,
                       public, write_out)
from .shape import cat
from .sorting import (_INSERTION, _chosen, _depth_limit, _nth_element, _partition,
                      _rank_keys, _sort_indices, _stable_order, _ragged)

_DEFAULT = object()   # an argument not passed: PyTorch picks another overload


def _legacy(a):
    return FROM_NP[a.dtype].legacy


def _not_implemented(kernel, a):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(a)}'")


def _rows(a, d):
    """`a` with dim d last, as 2-D rows, and the leading shape."""
    x = np.moveaxis(a, d, -1)
    return x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), x.shape[:-1]


def _finish_dim(values, indices, lead, d, keepdim):
    """Per-row results back in the input's layout, dim d reduced (kept as 1 with keepdim)."""
    values, indices = values.reshape(lead), indices.reshape(lead)
    if keepdim:
        values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    return values, indices


def _check_reduced_dim(name, a, d):
    if a.ndim and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# ---- nansum, nanmean ----------------------------------------------------------------------

def _nansum(a, dim, keepdim, dtype):
    dims = _reduce_dims(dim, a.ndim)      # (checked before the dtype, as PyTorch)
    if a.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if a.dtype.kind == "f":
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{dtype.legacy}'")
        a = np.where(np.isnan(a), 0, a)
    return a.sum(axis=dims, keepdims=keepdim, dtype=_acc_dtype(a, dtype))


nansum = op("nansum", "NansumBackward0", "self, dim=None, keepdim=False, *, dtype=None", _nansum,
            self=lambda grad, self, dim, keepdim: _sum_backward(grad, self.shape, dim, keepdim)
            * (self == self), out=out_as_dtype())    # self == self: not NaN


@public("nanmean", out=out_as_dtype(), out_name="nansum")
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over `dim` (all dims for None) of the elements that are not NaN."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.legacy}")
    factor = (input == input).sum(dim, keepdim)      # the elements that are not NaN
    return nansum(input, dim, keepdim, dtype=dtype).div(factor)


# ---- median, nanmedian --------------------------------------------------------------------

def _median_all(ignore_nan):
    def forward(a):
        flat = a.reshape(-1)
        if flat.size == 0:
            # PyTorch fills NaN converted to the dtype, before the kernel checks it (0 for
            # small integers, the lowest int32/int64, True): NumPy's conversion is the same
            return _dtype.cast(np.array(np.nan), a.dtype)
        if a.dtype.kind in "bc":
            raise _not_implemented("median_cpu", a)
        nans = int(np.isnan(flat).sum()) if a.dtype.kind == "f" else 0
        if nans and not ignore_nan:
            return np.asarray(np.nan, a.dtype)
        k = (flat.size - nans - 1) // 2 if flat.size > nans else 0
        return np.asarray(np.partition(flat, k)[k])     # NaNs sort last
    return forward


def _median_dim(name, ignore_nan):
    def forward(a, dim, keepdim):
        d = wrap_dim(dim, a.ndim)
        _check_reduced_dim("median", a, d)     # before the dtype, as PyTorch's
        if a.dtype.kind in "bc":
            raise _not_implemented("median_out", a)
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        rows, lead = _rows(a, d)
        m, n = rows.shape
        if rows.size == 0:
            return _finish_dim(np.empty(m, a.dtype), np.empty(m, np.int64), lead, d, keepdim)
        order = _stable_order(rows, False)           # NaNs last, ties in index order
        isnan = np.isnan(rows) if a.dtype.kind == "f" else np.zeros(rows.shape, bool)
        nans = isnan.sum(axis=1)
        if ignore_nan:
            # std::nth_element at (n - nans - 1) / 2 (C++ division: 0 for an all-NaN row)
            pos = np.where(nans < n, (n - nans - 1) // 2, 0)
        else:
            # median returns the first NaN of a row that has one
            pos = np.where(nans > 0, n - nans, (n - 1) // 2)
        idx = order[np.arange(m), pos]
        if ignore_nan and (nans == n).any():
            # every element is equivalent to the comparator: introselect's choice
            allnan = np.flatnonzero(nans == n)
            K = np.zeros((len(allnan), n), np.int64)
            P = np.broadcast_to(np.arange(n), K.shape).copy()
            _nth_element(K, P, 0)
            idx[allnan] = P[:, 0]
        return _finish_dim(rows[np.arange(m), idx], idx.astype(np.int64), lead, d, keepdim)
    return forward


_median_all_row = op("median", "MedianBackward0", "self", _median_all(False), function=False,
                     method=False, self=_evenly_distribute_backward)
_nanmedian_all_row = op("nanmedian", "NanmedianBackward0", "self", _median_all(True),
                        function=False, method=False, self=_evenly_distribute_backward)
_median_dim_row = op("median.dim", "MedianBackward1", "self, dim, keepdim=False",
                     _median_dim("median", False), returns=("values", "indices"),
                     differentiable_outputs=(0,), function=False, method=False,
                     self=_select_backward)
_nanmedian_dim_row = op("nanmedian.dim", "NanmedianBackward1", "self, dim, keepdim=False",
                        _median_dim("nanmedian", True), returns=("values", "indices"),
                        differentiable_outputs=(0,), function=False, method=False,
                        self=_select_backward)
_VALUES_INDICES_OUT = (EXACT, EXACT)


def _median_function(name, whole, along, doc):
    def along_dim(input, dim, keepdim=False):
        return along(input, dim, keepdim)
    along_dim.__name__ = name
    with_out = out_variant(along_dim, _VALUES_INDICES_OUT, name)

    def function(input, dim=_DEFAULT, keepdim=False, *, out=None):
        if out is not None:
            if dim is _DEFAULT:
                # only the dim overload takes out=
                raise TypeError(f"{name}() missing 1 required positional arguments: \"dim\"")
            return with_out(input, dim, keepdim, out=out)
        if dim is _DEFAULT:
            return whole(input)
        return along(input, dim, keepdim)
    function.__name__ = name
    function.__doc__ = doc

    def method(self, dim=_DEFAULT, keepdim=False):
        return function(self, dim, keepdim)
    method.__name__ = name
    method.__doc__ = doc
    FUNCTIONS[name] = function
    setattr(Tensor, name, method)
    return function


median = _median_function("median", _median_all_row, _median_dim_row,
                          "The lower median of all elements (NaN if there is one), or "
                          "(values, indices) along `dim`.")
nanmedian = _median_function("nanmedian", _nanmedian_all_row, _nanmedian_dim_row,
                             "median ignoring NaNs (NaN only where every element is NaN).")


# ---- kthvalue -----------------------------------------------------------------------------
# Note [Quickselect]
# kthvalue's CPU kernel is PyTorch's quick_select_template (SortingUtils.h), not a libstdc++
# algorithm: on the active range [L, R] it moves the middle element to L + 1, orders
# L + 1, L, R by median of three (pivot at L), then scans i up from L + 2 for elements
# >= pivot and j down from R - 1 for elements <= pivot, swapping while j >= i, swaps the pivot
# to j and keeps [i, R] or [L, j - 1]. Which of equal elements lands at k - 1 depends on those
# swaps, so the kernel is replayed on value ranks (NaN largest), vectorized over the rows
# whose k-th value is tied; rows without such a tie have one possible answer.

def _quickselect(K, P, k):
    """quick_select_template at position k of every row of K, moving P alike (in place)."""
    m, n = K.shape
    Kf, Pf = K.reshape(-1), P.reshape(-1)
    base = np.arange(m) * n
    L, R, kk = base.copy(), base + n - 1, base + k

    def swap(a, b):
        for X in (Kf, Pf):
            X[a], X[b] = X[b], X[a]

    act = np.arange(m)
    while True:
        act = act[R[act] > L[act]]
        if not act.size:
            return
        lo, hi = L[act], R[act]
        two = hi == lo + 1
        if two.any():
            a, b = lo[two], hi[two]
            s = Kf[a] > Kf[b]
            swap(a[s], b[s])
            R[act[two]] = L[act[two]]
            act, lo, hi = act[~two], lo[~two], hi[~two]
            if not act.size:
                return
        swap(lo + (hi - lo) // 2, lo + 1)
        for a, b in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            s = Kf[a] > Kf[b]
            swap(a[s], b[s])
        size = hi - lo                      # positions lo + 1 .. hi
        pos, off = _ragged(lo + 1, size)
        pivot = np.repeat(Kf[lo], size)
        keys = Kf[pos]
        left, right = keys >= pivot, keys <= pivot    # where i and j stop
        left[off] = False                   # i starts at L + 2, j at R - 1
        right[off + size - 1] = False
        count = np.int64
        cl = np.cumsum(left, dtype=count)
        cl -= np.repeat(cl[off] - left[off], size)    # left stops in [L + 2, q]
        cr = np.cumsum(right[::-1], dtype=count)[::-1]
        cr -= np.repeat(np.append(cr[off[1:]], 0) if len(off) > 1 else np.zeros(1, count),
                        size)   # right stops in [q, R - 1]
        s = np.maximum.reduceat(np.minimum(cl, cr), off)   # swaps (the last may be i == j)
        ss = np.repeat(s, size)
        big = np.iinfo(np.int64).max

        def nth_left(mth):     # position of the mth i-stop (mth 0: L + 1)
            hit = np.minimum.reduceat(np.where(left & (cl == np.repeat(mth, size)), pos, big), off)
            return np.where(mth == 0, lo + 1, hit)

        def nth_right(mth):    # position of the mth j-stop (mth 0: R)
            hit = np.maximum.reduceat(np.where(right & (cr == np.repeat(mth, size)), pos, -1), off)
            return np.where(mth == 0, hi, hit)

        i_s, j_s = nth_left(s), nth_right(s)
        equal = (s > 0) & (i_s == j_s)
        prev = np.maximum(s - 1, 0)
        i_end = np.minimum(nth_left(s + 1), np.where(equal, nth_right(prev), j_s))
        j_end = np.maximum(nth_right(s + 1), np.where(equal, nth_left(prev), i_s))
        lsw = pos[left & (cl <= ss)]
        rmask = right & (cr <= ss)
        seg = np.repeat(np.arange(len(act)), size)[rmask]
        rsw = pos[rmask][np.lexsort((cr[rmask], seg))]    # paired with the same rank of i
        swap(lsw, rsw)
        swap(lo, j_end)
        target = kk[act]
        L[act] = np.where(j_end <= target, i_end, lo)
        R[act] = np.where(j_end >= target, j_end - 1, hi)


def _kthvalue(a, k, dim, keepdim):
    d = wrap_dim(dim, a.ndim)
    if a.ndim:
        _check_reduced_dim("kthvalue", a, d)
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    if a.dtype.kind in "bc":    # after the checks of k; a 0-d input runs no kernel
        raise _not_implemented("kthvalue_cpu", a)
    rows, lead = _rows(a, d)
    m = rows.shape[0]
    if rows.size == 0:
        return _finish_dim(np.empty(m, a.dtype), np.empty(m, np.int64), lead, d, keepdim)
    order = _stable_order(rows, False)
    keys, tied = _rank_keys(rows, order)
    idx = order[:, k - 1].copy()
    kth_key = keys[np.arange(m), idx]
    redo = np.flatnonzero(tied[np.arange(m), kth_key])
    if redo.size:
        K = keys[redo].copy()
        P = np.broadcast_to(np.arange(n), K.shape).copy()
        _quickselect(K, P, k - 1)
        idx[redo] = P[:, k - 1]
    return _finish_dim(rows[np.arange(m), idx], idx.astype(np.int64), lead, d, keepdim)


kthvalue = op("kthvalue", "KthvalueBackward0", "self, k, dim=-1, keepdim=False", _kthvalue,
              returns=("values", "indices"), differentiable_outputs=(0,),
              self=_select_backward,
              out=(out_exact("output values must be of same type as input"), EXACT))


# ---- mode ---------------------------------------------------------------------------------

def _insertion_order(rows, order=None):
    """The order libstdc++'s __final_insertion_sort leaves each row (arranged by `order`)
    in under `<`, which NaN fails both ways: element i goes after the last earlier element
    it is not below, or, among the first 16 (a guarded insertion sort), to the front if it
    is below the first element. A loop over the positions, vectorized over rows; past the
    first 16 it looks 16 back (partitioned rows' elements seldom move further), and
    further where some row needs it."""
    m, n = rows.shape
    if order is None:
        order = np.broadcast_to(np.arange(n), (m, n))
    vals, order = np.take_along_axis(rows, order, 1), order.copy()
    for i in range(1, n):
        v = vals[:, i:i + 1]
        lo = max(0, i - _INSERTION)
        not_below = ~(v < vals[:, lo:i])
        if lo and not not_below.any(axis=1).all():
            lo = 0
            not_below = ~(v < vals[:, :i])
        last = i - 1 - np.argmax(not_below[:, ::-1], axis=1)
        # (an unguarded insertion below every earlier element runs off the row: not replayed)
        front = v[:, 0] < vals[:, 0] if i < _INSERTION else ~not_below.any(axis=1)
        p = np.where(front, 0, last + 1)[:, None]
        cols = np.arange(lo, i + 1)
        src = np.where(cols < p, cols, np.where(cols == p, i, cols - 1))
        vals[:, lo:i + 1] = np.take_along_axis(vals, src, 1)
        order[:, lo:i + 1] = np.take_along_axis(order, src, 1)
    return order


def _nan_sort_order(rows):
    """std::sort's order of rows longer than 16 holding NaN: libstdc++'s introsort
    partitions (NaN is neither below nor above a pivot), then its final insertion sort.
    (Its heapsort past the depth limit, for a row that never splits evenly, is not
    replayed.)"""
    m, n = rows.shape
    K = rows.copy()
    P = np.broadcast_to(np.arange(n), (m, n)).copy()
    lo = np.arange(m) * n
    hi = lo + n
    for _ in range(_depth_limit(n)):
        big = hi - lo > _INSERTION
        if not big.any():
            break
        lo, hi = lo[big], hi[big]
        cut = _partition(K.reshape(-1), P.reshape(-1), lo, hi)
        lo, hi = np.concatenate([lo, cut]), np.concatenate([cut, hi])
    return _insertion_order(rows, P)


def _mode(a, dim, keepdim):
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:     # no kernel runs (whatever the dtype)
        return a.copy(), np.zeros((), np.int64)
    _check_reduced_dim("mode", a, d)
    rows, lead = _rows(a, d)
    m, n = rows.shape
    if rows.size == 0:
        return _finish_dim(np.empty(m, a.dtype), np.empty(m, np.int64), lead, d, keepdim)
    if a.dtype.kind == "c":
        raise _not_implemented("mode_cpu", a)
    # std::sort of (value, index) pairs by value; the mode is the first longest run (the
    # smallest value), its index the one sorted last in that run
    order = _sort_indices(rows, False, False)
    if a.dtype.kind == "f":
        # with NaNs (unordered by `<`) std::sort is replayed (up to 16: an insertion sort)
        nans = np.flatnonzero(np.isnan(rows).any(axis=1))
        if nans.size:
            sort = _insertion_order if n <= _INSERTION else _nan_sort_order
            order[nans] = sort(rows[nans])
    s = np.take_along_axis(rows, order, -1)
    starts = np.ones(s.shape, bool)
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    ends = np.ones(s.shape, bool)
    ends[:, :-1] = starts[:, 1:]
    col = np.arange(n)
    first = np.maximum.accumulate(np.where(starts, col, 0), axis=1)
    best = np.argmax(np.where(ends, col - first + 1, 0), axis=1)
    r = np.arange(m)
    return _finish_dim(s[r, best], order[r, best].astype(np.int64), lead, d, keepdim)


mode = op("mode", "ModeBackward0", "self, dim=-1, keepdim=False", _mode,
          returns=("values", "indices"), differentiable_outputs=(0,), self=_select_backward,
          out=(out_exact("expected scalar type '{expected}' but got '{got}' for values output"),
               out_exact("expected scalar type '{expected}' but got '{got}' for indices "
                         "output")))


# ---- std_mean, var_mean -------------------------------------------------------------------

def _moment_mean(name, finish):
    def forward(a, dim, correction, keepdim):
        if a.dtype.kind not in "fc":
            raise RuntimeError(f"{name} only support floating point and complex dtypes")
        dims = _reduce_dims(dim, a.ndim)
        n = _numel(a.shape, dims)
        c = 1 if correction is None else correction
        out_numel = _numel([s for i, s in enumerate(a.shape) if i not in dims])
        if a.size // (out_numel or 1) - c <= 0:
            warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the reduction factor (input numel divided by output numel).",
                          UserWarning, stacklevel=5)
        real, dtype = a.real.dtype, a.dtype
        a = a.astype(_MOMENT_ACC.get(a.dtype, a.dtype), copy=False)    # as std and var do
        with np.errstate(invalid="ignore", divide="ignore"):   # inf or nan, as in PyTorch
            v = _squared_deviations(a, dims, n, keepdim) / _dof(n, c)
            mean = _welford_mean(a, dims, keepdim, n)
        return finish(v).astype(real, copy=False), mean.astype(dtype, copy=False)
    return forward


def _welford_mean(a, dims, keepdim, n):
    """The mean as PyTorch's Welford kernel leaves it: once the running mean is infinite, the
    next element makes it NaN, so a mean is NaN where a non-finite element is not the last
    one reduced (a last +-inf gives +-inf, as the sum does); complex parts each on their own."""
    if a.dtype.kind == "c":
        real = _welford_mean(a.real, dims, keepdim, n)
        mean = np.empty(np.shape(real), a.dtype)
        mean.real, mean.imag = real, _welford_mean(a.imag, dims, keepdim, n)
        return mean
    mean = a.sum(axis=dims, keepdims=keepdim) / n
    early = np.asarray(~np.isfinite(a))     # 0-d: an array, to assign into
    if not early.any():
        return mean
    last = tuple(-1 if d in dims else slice(None) for d in range(a.ndim))
    early[last] = np.isnan(a[last])
    return np.where(early.any(axis=dims, keepdims=keepdim), np.nan, mean)


def _moment_mean_backward(std):
    def formula(grads, self, result0, dim, correction, keepdim):
        g, gmean = grads
        n = self.dim()
        dims = _reduce_dims(dim, n)
        if std:
            out = _std_backward(g, self, result0, dim, correction, keepdim)
        else:
            out = _var_backward(g, self, dim, correction, keepdim)
        return out + _unsqueeze_to(gmean, dims, n, keepdim).expand(self.shape) / \
            _numel(self.shape, dims)
    return formula


std_mean_row = op("std_mean.correction", "StdMeanBackward0",
                  "self, dim=None, *, correction=None, keepdim=False",
                  _moment_mean("std_mean", np.sqrt), returns=list, function=False,
                  method=False, self=_moment_mean_backward(True))
var_mean_row = op("var_mean.correction", "VarMeanBackward0",
                  "self, dim=None, *, correction=None, keepdim=False",
                  _moment_mean("var_mean", lambda v: v), returns=list, function=False,
                  method=False, self=_moment_mean_backward(False))


@public("std_mean", method=False)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) over `dim`, the std dividing by N - correction (default 1)."""
    dim, correction = _correction("std_mean", dim, unbiased, correction)
    return std_mean_row(input, dim, correction=correction, keepdim=keepdim)


@public("var_mean", method=False)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) over `dim`, the variance dividing by N - correction (default 1)."""
    dim, correction = _correction("var_mean", dim, unbiased, correction)
    return var_mean_row(input, dim, correction=correction, keepdim=keepdim)


# ---- aminmax ------------------------------------------------------------------------------

def _aminmax(a, dim, keepdim):
    # PyTorch checks the dim and an empty input before refusing complex (a 0-d one in words
    # of its own)
    if dim is None:
        if a.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        axis = None
    else:
        axis = wrap_dim(dim, a.ndim)
        if a.ndim and a.shape[axis] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {axis} to have non-zero size.")
        if a.ndim == 0:
            if a.dtype.kind == "c":
                raise RuntimeError(f"aminmax not implemented for {_legacy(a)}")
            axis = None
    if a.dtype.kind == "c":
        raise _not_implemented("aminmax_cpu", a)
    keep = keepdim and a.ndim > 0
    return a.min(axis=axis, keepdims=keep), a.max(axis=axis, keepdims=keep)


def _aminmax_backward(grads, self, result0, result1, dim, keepdim):
    gmin, gmax = grads
    return (_amax_backward(gmin, self, result0, dim, keepdim)
            + _amax_backward(gmax, self, result1, dim, keepdim))


aminmax = op("aminmax", "AminmaxBackward0", "self, *, dim=None, keepdim=False", _aminmax,
             returns=("min", "max"), self=_aminmax_backward, out=(EXACT, EXACT))


# ---- cummax, cummin, logcumsumexp ---------------------------------------------------------

def _cumulative_extreme(name, ufunc):
    def forward(a, dim):
        if a.size == 0:     # no kernel runs, nor any check of dim or dtype
            return a.copy(), np.zeros(a.shape, np.int64)
        if a.ndim == 0:
            if dim not in (-1, 0):
                raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got "
                                 f"{dim}")
            return a.copy(), np.zeros((), np.int64)
        d = wrap_dim(dim, a.ndim)
        if a.dtype.kind == "c":
            raise _not_implemented(f"{name}_cpu", a)
        values = ufunc.accumulate(a, axis=d)        # NaN propagates
        # the index moves to every element equal to the running extreme (PyTorch compares
        # with >= / <=) and to every NaN
        hit = a == values
        if a.dtype.kind == "f":
            hit |= np.isnan(a)
        shape = [1] * a.ndim
        shape[d] = a.shape[d]
        positions = np.arange(a.shape[d]).reshape(shape)
        return values, np.maximum.accumulate(np.where(hit, positions, 0), axis=d)
    return forward


def _cummaxmin_backward(grads, self_shape, dim, result1):
    grad = grads[0]
    if len(self_shape) == 0 or 0 in self_shape:
        return grad
    return make_tensor(np.zeros(self_shape, grad._data.dtype)).scatter_add(dim, result1, grad)


# cummax and cummin write their outs without TensorIterator's overlap check
_SCALAR_TYPE_OUT = out_exact("expected scalar_type {expected} but found {got}", overlap_ok=True)
cummax = op("cummax", "CummaxBackward0", "self, dim", _cumulative_extreme("cummax", np.maximum),
            returns=("values", "indices"), differentiable_outputs=(0,),
            self=_cummaxmin_backward, out=(_SCALAR_TYPE_OUT, _SCALAR_TYPE_OUT))
cummin = op("cummin", "CumminBackward0", "self, dim", _cumulative_extreme("cummin", np.minimum),
            returns=("values", "indices"), differentiable_outputs=(0,),
            self=_cummaxmin_backward, out=(_SCALAR_TYPE_OUT, _SCALAR_TYPE_OUT))


def _logcumsumexp(a, dim):
    d = wrap_dim(dim, a.ndim)
    if a.dtype.kind not in "fc":
        raise _not_implemented("logcumsumexp_out_cpu", a)
    if a.ndim == 0 or a.size == 0:
        return a.copy()
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f":
            # log1p(exp(min - max)) + max, element after element, as PyTorch's kernel
            return np.logaddexp.accumulate(a, axis=d)
        # complex: PyTorch's scan, one step along dim at a time (vectorized across the
        # others); one shift for the whole dim would lose small leading terms to exp's range
        steps = np.moveaxis(a, d, 0)
        out = np.empty_like(steps)
        out[0] = acc = steps[0]
        for k in range(1, steps.shape[0]):
            out[k] = acc = _complex_log_add_exp(steps[k], acc)
        return np.moveaxis(out, 0, d)


def _complex_log_add_exp(x, y):
    """log(exp(x) + exp(y)) for complex x, y as PyTorch's kernel: the one of smaller real part
    (a nan first) shifted by the other, log1p(exp(lo - hi)) + hi; nan when either is; equal
    infinite real parts give lo (-inf) or log(exp(lo) + exp(hi)) (+inf)."""
    x_lower = np.isnan(x) & ~np.isnan(y) | (x.real < y.real) & ~np.isnan(y)
    lo, hi = np.where(x_lower, x, y), np.where(x_lower, y, x)
    same_inf = ~np.isfinite(lo.real) & (lo.real == hi.real)
    out = np.where(same_inf, np.where(lo.real < 0, lo, np.log(np.exp(lo) + np.exp(hi))),
                   np.log1p(np.exp(lo - hi)) + hi)
    return np.where(np.isnan(lo), np.array(complex(np.nan, np.nan), x.dtype), out)


def _logcumsumexp_backward(grad, self, result, dim):
    if grad.dim() == 0 or grad.numel() == 0:
        return grad
    d = wrap_dim(dim, grad.dim())

    def reversed_logcumsumexp(x):
        return x.flip(d).logcumsumexp(d).flip(d)
    if grad.is_complex():
        return (reversed_logcumsumexp(grad.log() - result.conj()) + self.conj()).exp()
    lowest = float(np.finfo(grad._data.dtype).min)
    log_abs_grad = grad.abs().log()
    positive = where(grad > 0, log_abs_grad, lowest)
    negative = where(grad < 0, log_abs_grad, lowest)
    return ((reversed_logcumsumexp(positive - result) + self).exp()
            - (reversed_logcumsumexp(negative - result) + self).exp())


logcumsumexp = op("logcumsumexp", "LogcumsumexpBackward0", "self, dim", _logcumsumexp,
                  self=_logcumsumexp_backward,
                  out=out_exact("expected scalar_type {expected} but found {got}"))


# ---- count_nonzero ------------------------------------------------------------------------

def _count_nonzero(a, dim):
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return np.asarray(np.count_nonzero(a), np.int64)
    dims = wrap_dims(dim, a.ndim)
    if not dims:
        return np.asarray(a != 0, np.int64)
    return np.asarray(np.count_nonzero(a, axis=dims), np.int64)


count_nonzero = op("count_nonzero", None, "self, dim=None", _count_nonzero, self=None,
                   out=False)


# ---- dist, renorm -------------------------------------------------------------------------

def _dist(a, b, p):
    # norm(self - other): sub refuses bools before anything is promoted
    _refuse_bool_sub(a, b)
    a, b = _promoted(a, b)
    if a.dtype.kind == "W":
        # promoted into complex32 (a complex 0-d with half): its norm's special-dtype path
        return vector_norm(make_tensor(np.subtract(a, b)), p)._data
    if a.dtype.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_legacy(a)} instead.")
    return _vector_norm(a - b, p, None, False, None)


def _dist_backward(grad, self, other, p, result):
    # None for p = 0 (norm_backward's undefined gradient)
    return _vector_norm_backward(grad, self - other, p, result, None, False)


def _dist_other_backward(grad, self, other, p, result):
    g = _dist_backward(grad, self, other, p, result)
    if g is None:
        # ATen negates the undefined gradient
        raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in "
                           "C++) for argument #0 'self'")
    return -g


dist = op("dist", "DistBackward0", "self, other, p=2", _dist,
          self=_dist_backward, other=_dist_other_backward, out=False)


def _renorm_dims(ndim, dim):
    d = wrap_dim(dim, ndim)
    return [i for i in range(ndim) if i != d]


def _renorm(a, p, dim, maxnorm):
    for name, x in (("p", p), ("maxnorm", maxnorm)):
        if isinstance(x, complex):
            raise RuntimeError(f"renorm: {name} must be real-valued")
    if not p > 0:     # NaN included
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if a.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.ndim} dimensions")
    # a half input's norm and factor are computed in float32 (a norm past 65504 stays finite)
    wide = _dtype.float32 if a.dtype == np.float16 else None
    norm = _vector_norm(a, p, _renorm_dims(a.ndim, dim), True, wide)
    real = norm.dtype.type
    with np.errstate(all="ignore"):
        factor = np.where(norm > maxnorm, real(maxnorm) / (norm + real(1e-7)), real(1))
    return a * factor.astype(np.abs(a[:0]).dtype)


# the backward's norm and sum accumulate in the CPU accumulation type (float32 gives float64:
# a float32 norm that overflows is finite there); the engine casts the gradient back
_RENORM_BACKWARD_ACC = {"float16": "float32", "bfloat16": "float32", "float32": "float64",
                        "complex32": "complex64", "complex64": "complex128"}


def _renorm_backward(grad, self, p, dim, maxnorm):
    dims = _renorm_dims(self.dim(), dim)
    acc = _RENORM_BACKWARD_ACC.get(str(self.dtype).replace("torch.", ""))
    acc = acc and getattr(_dtype, acc)
    norm = vector_norm(self, p, dims, True, dtype=acc)
    grad_output = self.conj() * grad
    if grad_output.is_complex():
        grad_output = grad_output.real
    grad_output = grad_output.sum(dims, keepdim=True, dtype=acc and norm.dtype)
    nb = _vector_norm_backward(grad_output, self, p, norm, dims, True)
    invnorm = (norm + 1e-7).reciprocal()
    factor = invnorm * maxnorm
    return where(norm > maxnorm, factor * grad - (maxnorm * invnorm * invnorm) * nb, grad)


renorm = op("renorm", "RenormBackward0", "self, p, dim, maxnorm", _renorm, inplace="renorm_",
            self=_renorm_backward)


# ---- quantile, nanquantile ----------------------------------------------------------------
# quantile_compute in ATen: sort, gather the values at the ranks below and above each q,
# lerp, then squeeze_ / unsqueeze_ / transpose_ the result in place. The in-place view ops
# act on an intermediate nobody else sees, so their rows called out of place give the same
# graph.

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    scalar_q = not isinstance(q, Tensor)
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    a = input._data
    if a.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not scalar_q and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if a.dtype not in (np.float32, np.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not scalar_q and q._data.dtype != a.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    ndim = input.dim()
    wrapped = wrap_dim(0 if dim is None else dim, ndim)
    shape = list(input.shape) if dim is not None and ndim else []
    if shape:
        if keepdim:
            shape[wrapped] = 1
        else:
            del shape[wrapped]
    elif keepdim:
        shape = [1] * ndim
    qa = np.asarray(q, a.dtype) if scalar_q else q._data
    if not scalar_q and not ((qa >= 0) & (qa <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    n = a.size if dim is None else (a.shape[wrapped] if ndim else 1)
    if n > 2 ** 24:
        raise RuntimeError("quantile() input tensor is too large")
    if dim is None:
        ordered = input.flatten().sort()[0]
    elif wrapped == ndim - 1:
        ordered = input.sort()[0]
    else:
        ordered = input.unsqueeze(-1).transpose(wrapped, -1).sort()[0]
    ordered = ordered.view(shape + [n])
    # ranks in [0, n): computed in the input's dtype, as PyTorch does
    s = ordered._data
    qv = qa.reshape(-1)
    t = a.dtype.type
    if ignore_nan:
        ranks = qv * ((~np.isnan(s)).sum(-1, keepdims=True) - 1).astype(a.dtype)
        ranks = np.where(ranks < 0, t(0), ranks)
    else:
        ranks = np.where(np.isnan(s).any(-1, keepdims=True), t(n - 1), qv * t(n - 1))
    ranks = np.broadcast_to(ranks, tuple(shape) + qv.shape)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)           # half to even, as torch.round
    below = ranks.astype(np.int64)
    result = ordered.gather(-1, make_tensor(below))
    if interpolation in ("linear", "midpoint"):
        weights = np.full(ranks.shape, 0.5, a.dtype) if interpolation == "midpoint" \
            else (ranks - below).astype(a.dtype)
        above = ordered.gather(-1, make_tensor(np.ceil(ranks).astype(np.int64)))
        result = result.lerp(above, make_tensor(weights))
    if scalar_q or q.dim() == 0:
        return _squeeze_(result, -1)
    return _squeeze_(_transpose_(_unsqueeze_(result, 0), 0, -1), -1)


def _quantile_out(expected, got):
    return RuntimeError("quantile() out tensor must be same dtype as the input tensor")


_QUANTILE_OUT = out_exact("quantile() out tensor must be same dtype as the input tensor")


_QUANTILE_OVERLOADS = tuple(
    f"({{}}{q} q, int dim = None, bool keepdim = False, *, str interpolation = \"linear\"{{}})"
    for q in ("Tensor", "float"))


def _quantile_args(name, args, method):
    # the argument parser's, for dim a bool or keepdim a plain int, which no overload takes
    # (read as positional arguments; a keepdim left False as not given)
    if type(args[-2]) is bool or type(args[-1]) is int:
        raise _bad_arguments(name, args[:-1] if args[-1] is False else args, [o.format(*("", "") if method else (
            "Tensor input, ", ", Tensor out = None")) for o in _QUANTILE_OVERLOADS])


def _quantile_function(name, ignore_nan, doc):
    def compute(input, q, dim=None, keepdim=False, *, interpolation="linear"):
        _quantile_args(name, (q, dim, keepdim), True)
        return _quantile(input, q, dim, keepdim, interpolation, ignore_nan)
    compute.__name__ = name
    with_out = out_variant(compute, _QUANTILE_OUT, name)

    def function(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
        _quantile_args(name, (input, q, dim, keepdim), False)
        if out is None:
            return compute(input, q, dim, keepdim, interpolation=interpolation)
        if isinstance(out, Tensor) and out.requires_grad and out.is_leaf and \
                grad_mode.state.grad_enabled:
            # ATen resizes and copies into out in place
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if isinstance(input, Tensor) and input.requires_grad and grad_mode.state.grad_enabled:
            # ATen copies the result into out under autograd: out gets CopyBackwards
            result = compute(input, q, dim, keepdim, interpolation=interpolation)
            write_out(name, result.detach(), out, _QUANTILE_OUT, (input,))
            return out.copy_(result)
        return with_out(input, q, dim, keepdim, interpolation=interpolation, out=out)
    function.__name__ = name
    function.__doc__ = doc
    FUNCTIONS[name] = function
    setattr(Tensor, name, compute)
    return function


quantile = _quantile_function(
    "quantile", False, "The q-th quantiles over `dim` (the flattened input for None), "
    "interpolating between the neighbouring order statistics as `interpolation` says; NaN "
    "where a NaN is present.")
nanquantile = _quantile_function(
    "nanquantile", True, "quantile ignoring NaNs (NaN only where every element is NaN).")


# ---- cov, corrcoef ------------------------------------------------------------------------

def _check_weights(name, w, kind, n):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.dim()} dimensions")
    if not kind(w):
        what = "integral" if name == "fweights" else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {what} dtype but got {name} with "
                           f"{w.dtype.legacy} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {n}")
    if not bool((w >= 0).all()):    # a NaN weight is refused too, as PyTorch's check reads
        raise RuntimeError(f"cov(): {name} cannot be negative")


@public("cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of `input` (observations in columns),
    optionally weighted by frequencies and observation weights."""
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights,
                       lambda t: t._data.dtype.kind in "iu", n)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, lambda t: t._data.dtype.kind == "f", n)
        w = aweights if w is None else w * aweights
    long = _dtype.int64
    if w is None:
        w_sum = scalar_tensor(n, dtype=long)
    else:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is None:
        norm_factor = scalar_tensor(n - correction, dtype=long)
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    elif fweights is None and n == 1 and correction == 1:
        norm_factor = scalar_tensor(0, dtype=long)     # ATen's corner case, as NumPy's
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    if bool(norm_factor <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor.zero_()     # (not * 0: a norm factor of -inf would be nan)
    if n == 1 and (fweights is None) != (aweights is None):
        # ATen zeroes its 2-D view of the input in place here (the user's tensor when it is
        # 2-D: PyTorch 2.13 does so too)
        x.zero_()
        if not (x.is_floating_point() or x.is_complex()):
            x = x.to(_dtype.float32)
    else:
        x = x - avg.unsqueeze(1)
    c = x.mm((x if w is None else x * w).t().conj())
    return c.true_divide(norm_factor).squeeze()


@public("corrcoef")
def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of `input`."""
    if input.dim() > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c            # NaN for a zero, infinite or NaN variance, else 1
    d = c.diagonal()
    stddev = (d.real if d.is_complex() else d).sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return FUNCTIONS["complex"](c.real.clip(-1, 1), c.imag.clip(-1, 1))
    return c.clip(-1, 1)


# ---- diff, gradient -----------------------------------------------------------------------

def _check_diff_shape(input, other, d):
    if other is None:
        return
    if other.dim() != input.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i != d and other.shape[i] != input.shape[i]:
            raise RuntimeError("diff expects the shape of tensor to prepend or append to match "
                               f"that of input except along the differencing dimension; "
                               f"input.size({i}) = {input.shape[i]}, but got "
                               f"tensor.size({i}) = {other.shape[i]}")


def _prepend_append(x, prepend, append, dim):
    parts = [t for t in (prepend, x, append) if t is not None]
    return cat(parts, dim)


@public("diff", out=True, out_name="sub")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim`, after concatenating `prepend` and `append`."""
    if input.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0 and prepend is None and append is None:
        return zeros_like(input).copy_(input)      # (PyTorch checks no dim for nothing to do)
    d = wrap_dim(dim, input.dim())
    _check_diff_shape(input, prepend, d)
    _check_diff_shape(input, append, d)
    x = input
    if n and (prepend is not None or append is not None):
        x = _prepend_append(x, prepend, append, d)
    if n == 0:
        return zeros_like(x).copy_(x)
    length = x.shape[d] - 1
    boolean = x.dtype is _dtype.bool
    for _ in range(min(n, x.shape[d])):
        later, earlier = x.narrow(d, 1, length), x.narrow(d, 0, length)
        x = later.logical_xor(earlier) if boolean else later - earlier
        length -= 1
    return x


def _times(x, s):
    """x * s for a Python number s: MulBackward1 (mul.Scalar), as ATen's C++ records it."""
    return mul_scalar(x, s) if x.is_floating_point() or x.is_complex() else x * s


def _over(x, s):
    """x / s for a Python number s: DivBackward1 (div.Scalar)."""
    return div_scalar(x, s) if x.is_floating_point() or x.is_complex() else x / s


def _slice(x, d, start, stop=None):
    """x[..., start:stop] along dim d (SliceBackward0), as at::slice."""
    index = [slice(None)] * x.dim()
    index[d] = slice(start, stop)
    return x[tuple(index)]


def _gradient_scalar(x, spacing, dims, edge_order):
    out = []
    for h, d in zip(spacing, dims):
        center = _over(_slice(x, d, 2) - _slice(x, d, 0, -2), h)
        if edge_order == 1:
            before = _over(_slice(x, d, 1, 2) - _slice(x, d, 0, 1), h)
            after = _over(_slice(x, d, -1) - _slice(x, d, -2, -1), h)
        else:
            before = _over(_times(_slice(x, d, 0, 1), -1.5) + _times(_slice(x, d, 1, 2), 2)
                           - _times(_slice(x, d, 2, 3), 0.5), h)
            after = _over(_times(_slice(x, d, -3, -2), 0.5) - _times(_slice(x, d, -2, -1), 2)
                          + _times(_slice(x, d, -1), 1.5), h)
        out.append(cat([before, _over(center, 2), after], d))
    return tuple(out)


def _gradient_coordinates(x, coordinates, dims, edge_order):
    out = []
    for coords, d in zip(coordinates, dims):
        if coords.dim() != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one "
                               f"dimension, but got an element with {coords.dim()} dimensions!")
        shape = [1] * x.dim()
        shape[d] = -1
        dx = coords.diff(1, 0)
        dx1, dx2 = _slice(dx, 0, 0, -1), _slice(dx, 0, 1)
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * _slice(x, d, 0, -2) + b * _slice(x, d, 1, -1) + c * _slice(x, d, 2)
        if edge_order == 1:
            before = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / dx[0]
            after = (_slice(x, d, -1) - _slice(x, d, -2, -1)) / dx[-1]
        else:
            h0, h1 = dx[0], dx[1]
            a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
            b = (h0 + h1) / (h0 * h1)
            c = (-h0) / (h1 * (h0 + h1))
            before = a * _slice(x, d, 0, 1) + b * _slice(x, d, 1, 2) + c * _slice(x, d, 2, 3)
            h0, h1 = dx[-1], dx[-2]
            a = h0 / (h1 * (h0 + h1))
            b = -(h0 + h1) / (h0 * h1)
            c = (2 * h0 + h1) / (h0 * (h0 + h1))
            after = a * _slice(x, d, -3, -2) + b * _slice(x, d, -2, -1) + c * _slice(x, d, -1)
        out.append(cat([before, center, after], d))
    return tuple(out)


@public("gradient", method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimates of the derivative of `input` along each of `dim` (all dims for None) by
    central differences, one-sided at the edges (first or second order), with unit, scalar,
    per-dim scalar or coordinate spacing. Returns one tensor per dim."""
    if not isinstance(input, Tensor):
        # the one overload of PyTorch's seven that takes a lone input names it (the spacing
        # kinds are more than a Signature spells: none is declared)
        raise _not_tensor("gradient", "input", 1, input)
    if input.dtype is _dtype.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    listed = isinstance(spacing, (list, tuple))
    if isinstance(dim, int):
        dims_given = [dim]
    else:
        dims_given = None if dim is None else list(dim)
    if listed and dims_given is None and len(spacing) != input.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a "
                           "list of length equal to 'self.dim() = "
                           f"{input.dim()}', since dim argument was not given, but got a list "
                           f"of length {len(spacing)}")
    if listed and dims_given is not None and len(spacing) != len(dims_given):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's "
                           "spacing and dim arguments to have the same length, but got a "
                           f"spacing argument of length {len(spacing)} and a dim argument of "
                           f"length {len(dims_given)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dims_given is None else dims_given
    if dims_given is not None:
        wrap_dims(dims_given, input.dim())      # PyTorch's errors for bad or repeated dims
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    dims = [wrap_dim(d, input.dim()) for d in dims]
    if listed and spacing and isinstance(spacing[0], Tensor):
        return _gradient_coordinates(input, spacing, dims, edge_order)
    steps = list(spacing) if listed else [spacing] * len(dims)
    return _gradient_scalar(input, steps, dims, edge_order)


# ---- trapezoid, cumulative_trapezoid ------------------------------------------------------

def _x_viewed(name, y, x, d):
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[d] = x.shape[0]
        return x.view(shape)
    if x.dim() < y.dim():
        return x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    return x


def _check_dx(name, dx):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


# PyTorch's declarations, bound at the bottom (Note [Argument parser checks])
_TRAPEZOID_OVERLOADS = ("(Tensor y, Tensor x, *, int dim = -1)",
                        "(Tensor y, *, Number dx = 1, int dim = -1)")
_TRAPZ_OVERLOADS = ("(Tensor y, *, float dx = 1, int dim = -1)",
                    "(Tensor y, Tensor x, *, int dim = -1)")


def _trapezoid(name):
    def function(y, x=None, *, dx=None, dim=-1):
        d = wrap_dim(dim, y.dim())
        if x is not None and dx is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(Tensor, Tensor, dx=float), but expected one of")
        if y.shape[d] == 0:
            shape = list(y.shape)
            del shape[d]
            return zeros(shape, dtype=y.dtype)
        if x is None:
            if y.dtype is _dtype.bool:
                raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not "
                                   "supported")
            step = 1 if dx is None else dx
            _check_dx("trapezoid", step)
            return _times(y.sum(d) - _times(y.select(d, 0) + y.select(d, -1), 0.5), float(step))
        if y.dtype is _dtype.bool or x.dtype is _dtype.bool:
            raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is "
                               "not supported")
        xv = _x_viewed("trapezoid", y, x, d)
        h = _slice(xv, d, 1) - _slice(xv, d, 0, -1)
        return _over(((_slice(y, d, 1) + _slice(y, d, 0, -1)) * h).sum(d), 2.0)
    function.__name__ = name
    function.__doc__ = ("The trapezoidal rule along `dim`: samples `y` at points `x`, or "
                        "spaced `dx` apart (default 1).")
    return function


trapezoid = public("trapezoid", method=False)(_trapezoid("trapezoid"))
trapz = public("trapz", method=False)(_trapezoid("trapz"))


@public("cumulative_trapezoid", method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The cumulative trapezoidal rule along `dim` (samples at `x`, or `dx` apart)."""
    d = wrap_dim(dim, y.dim())
    if x is None:
        if y.dtype is _dtype.bool:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool "
                               "is not supported")
        step = 1 if dx is None else dx
        _check_dx("cumulative_trapezoid", step)
        return _times(_slice(y, d, 0, -1) + _slice(y, d, 1), 0.5 * step).cumsum(d)
    if y.dtype is _dtype.bool or x.dtype is _dtype.bool:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but "
                           "bool is not supported")
    xv = _x_viewed("cumulative_trapezoid", y, x, d)
    h = _slice(xv, d, 1) - _slice(xv, d, 0, -1)
    return _over(((_slice(y, d, 0, -1) + _slice(y, d, 1)) * h).cumsum(d), 2.0)


# ---- unique_consecutive -------------------------------------------------------------------

def _unique_consecutive(a, return_inverse, return_counts, dim):
    if a.dtype.kind == "c":
        raise _not_implemented("unique" if dim is None else "unique_dim", a)
    if dim is None:
        x, shape, d = a.reshape(-1, 1), a.shape, 0
    else:
        if a.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = wrap_dim(dim, a.ndim)
        x = np.moveaxis(a, d, 0)
        x = x.reshape(len(x), math.prod(x.shape[1:]))
        shape = (len(x),)
    n = len(x)
    step = (x[1:] != x[:-1]).any(axis=1) if x.shape[1] else np.zeros(max(n - 1, 0), bool)
    starts = np.flatnonzero(np.concatenate(([n > 0], step)))
    values = a.reshape(-1)[starts] if dim is None else np.take(a, starts, axis=d)
    inverse = counts = np.zeros(0, np.int64)
    if return_inverse:
        inverse = np.cumsum(np.concatenate(([0], step)), dtype=np.int64)[:n].reshape(shape)
    if return_counts:
        counts = np.diff(np.append(starts, n))
    return values, inverse, counts


_unique_consecutive_row = op("unique_consecutive", "UniqueConsecutiveBackward0",
                             "self, return_inverse=False, return_counts=False, dim=None",
                             _unique_consecutive, returns=list, differentiable_outputs=(0,),
                             function=False, method=False,
                             self=not_implemented("unique_consecutive"))


_UNIQUE_CONSECUTIVE = Signature("unique_consecutive(Tensor input, bool return_inverse=False, "
                                "bool return_counts=False, int? dim=None)")


@public("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The first element (or slice along `dim`) of each run of equal ones, and optionally
    the inverse indices and the run lengths."""
    # PyTorch's Python picks its implementation by the flags' truth first (boolean_dispatch)
    inverse_wanted, counts_wanted = bool(return_inverse), bool(return_counts)
    # PyTorch's Python unique_consecutive passes everything but input on by keyword
    _UNIQUE_CONSECUTIVE.raise_for((input,), {"return_inverse": return_inverse,
                                             "return_counts": return_counts, "dim": dim}, 1)
    values, inverse, counts = _unique_consecutive_row(input, return_inverse, return_counts, dim)
    return _chosen(values, inverse, counts, inverse_wanted, counts_wanted)


# ---- histc, histogram, histogramdd (not differentiable) ------------------------------------

def _bin_linear(x, left, right, bins, edges=None):
    """Bin positions by PyTorch's linear interpolation in the input's dtype; with `edges`,
    corrected against them as its local search does (histogram), without (histc)."""
    t = x.dtype.type
    l, r = t(left), t(right)
    with np.errstate(all="ignore"):
        pos = ((x - l) * t(bins) / (r - l)).astype(np.int64)
    # points outside the range (NaN, huge) are dropped later: kept from overflowing here
    pos = np.clip(pos, 0, bins)
    if edges is not None:
        lo = np.maximum(pos - 1, 0)
        count = np.zeros_like(pos)
        for j in range(3):
            at = lo + j
            ok = at < np.minimum(pos + 2, bins + 1)
            count += ok & (edges[np.minimum(at, bins)] <= x)
        pos = lo + count - 1
    return pos


def _upper_bound(edges, x):
    """std::upper_bound's answer for each of `x` in `edges` (as PyTorch's histogram finds
    bins), also where the edges are not sorted: its bisection, over all points at once."""
    first = np.zeros(x.shape, np.int64)
    count = np.full(x.shape, len(edges), np.int64)
    while count.any():
        step = count // 2
        probe = first + step
        right = (count > 0) & ~(x < edges[np.minimum(probe, len(edges) - 1)])
        first = np.where(right, probe + 1, first)
        count = np.where(right, count - step - 1, step)
    return first


def _histogram_counts(coords, positions, keep, bins, weight, dtype):
    """The histogram of N-dimensional bin positions (one array per dim) of the kept points."""
    flat = np.ravel_multi_index(tuple(np.minimum(p, b - 1)[keep] for p, b in
                                      zip(positions, bins)), bins) if coords else np.zeros(0, int)
    w = None if weight is None else weight[keep]
    hist = np.bincount(flat, weights=w, minlength=math.prod(bins))
    return hist.astype(dtype).reshape(bins)


def _density(hist, edges):
    total = hist.sum()
    with np.errstate(all="ignore"):
        hist = hist / total
        for d, e in enumerate(edges):
            shape = [1] * hist.ndim
            shape[d] = len(e) - 1
            hist = hist / np.diff(e).reshape(shape)
    return hist


def _check_histc_range(left, right):
    if not (math.isfinite(left) and math.isfinite(right)):
        raise RuntimeError(f"torch.histc: range of [{left:g}, {right:g}] is not finite")
    if not left < right:
        raise RuntimeError("torch.histc: max must be larger than min")


def _histc(a, bins, min, max):
    # PyTorch checks bins, then a given range, then the dtype (a range from the data needs it)
    _check_bin_count(bins, 0)
    left, right = float(min), float(max)
    if left != right:
        _check_histc_range(left, right)
    if a.dtype.kind != "f":
        raise _not_implemented("histogram_cpu", a)
    if left == right and a.size:
        left, right = float(a.min()), float(a.max())
    if left == right:
        left, right = left - 1, right + 1
    _check_histc_range(left, right)
    x = a.reshape(-1)
    t = a.dtype.type
    keep = (x >= t(left)) & (x <= t(right))
    pos = _bin_linear(x, left, right, bins)
    return _histogram_counts(True, [pos], keep, (bins,), None, a.dtype)


_HIST_OUT = out_exact("torch.histogram: input tensor and hist tensor should have the same "
                      "dtype, but got input {expected_cpp} and hist {got_cpp}", overlap_ok=True)
histc = op("histc", None, "self, bins=100, min=0, max=0", _histc, self=None, out=_HIST_OUT)


def _outer_edges(x, range):
    """Leftmost and rightmost edge of each of the N dims of the (M, N) points `x`."""
    n = x.shape[1]
    if range is not None:
        if len(range) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range "
                               f"should have {2 * n} elements, but got {len(range)}")
        lefts, rights = [float(v) for v in range[0::2]], [float(v) for v in range[1::2]]
    elif x.size:
        lefts, rights = [float(v) for v in x.min(axis=0)], [float(v) for v in x.max(axis=0)]
    else:
        lefts, rights = [0.0] * n, [1.0] * n
    for d in builtins_range(n):
        l, r = lefts[d], rights[d]
        if not (math.isfinite(l) and math.isfinite(r)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{l:g}, {r:g}] is not "
                               "finite")
        if not l <= r:
            raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                               f"{l:g} max {r:g} for dimension {d}")
        if l == r:
            lefts[d], rights[d] = l - 0.5, r + 0.5
    return lefts, rights


builtins_range = range


def _check_bin_count(bins, d):
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           f"dimension {d}")


def _histogramdd(input, bins, range, weight, density, counts_before_dtype=False):
    """The N-dimensional histogram of the points in the rows of `input` (last dim N), and the
    bin edges: `bins` an int, a list of ints, or a list of edge tensors. histogram (1-D)
    checks the number of bins between edges before the input's dtype, histogramdd after."""
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = a.shape[-1]
    x = a.reshape(-1, n)
    if isinstance(bins, int):
        bins = [bins] * n
    given = len(bins) > 0 and isinstance(bins[0], Tensor)
    if not given:
        # the kernel finding a nonempty data's range takes these only
        if range is None and x.size and a.dtype not in (np.float32, np.float64):
            raise _not_implemented("histogramdd", a)
        lefts, rights = _outer_edges(x, range)
        if len(bins) != n:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")
        for d, b in enumerate(bins):
            _check_bin_count(b, d)
        if a.dtype.kind == "b":
            raise _not_implemented("linspace_cpu", a)
        for v in lefts + rights:       # the given range's ends, in the input's dtype
            _checked_scalar(v, a.dtype)
        if a.dtype.kind != "f":
            raise _not_implemented("histogram_cpu", a)
        edges = [linspace(l, r, b + 1, dtype=input.dtype)._data
                 for l, r, b in zip(lefts, rights, bins)]
    else:
        edges = [e._data for e in bins]
    if len(edges) != n:
        raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a "
                           f"{n}-dimensional histogram but got {len(edges)}")
    for d, e in enumerate(edges):
        if e.dtype != a.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the "
                               f"same dtype, but got input with dtype {input.dtype.cpp} and bins "
                               f"for dimension {d} with dtype {FROM_NP[e.dtype].cpp}")
        if e.ndim != 1:
            raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {e.ndim} dimensions in the bins tensor for dimension {d}")
        if e.size == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, "
                               f"but got 0 elements in the bins tensor for dimension {d}")
    w = None
    if weight is not None:
        if weight.dtype is not input.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor "
                               "and weight tensor should have the same dtype, but got input("
                               f"{input.dtype.cpp}), and weight({weight.dtype.cpp})")
        if tuple(weight.shape or (1,)) != a.shape[:-1]:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have "
                               "the same shape as the input tensor excluding its innermost "
                               f"dimension, but got input with shape {sizes_str(a.shape)} and "
                               f"weight with shape {sizes_str(weight.shape)}")
        w = weight._data.reshape(-1)
    counts = tuple(len(e) - 1 for e in edges)
    for d, c in enumerate(counts if counts_before_dtype else ()):
        _check_bin_count(c, d)
    if a.dtype.kind != "f":
        raise _not_implemented("histogramdd", a)
    for d, c in enumerate(counts):
        _check_bin_count(c, d)
    keep = np.ones(len(x), bool)
    positions = []
    for d, e in enumerate(edges):
        col = x[:, d]
        keep &= (col >= e[0]) & (col <= e[-1])
        if given:
            positions.append(_upper_bound(e, col) - 1)
        else:
            positions.append(_bin_linear(col, e[0], e[-1], counts[d], e))
    hist = _histogram_counts(True, positions, keep, counts, w, a.dtype)
    if density:
        hist = _density(hist, edges).astype(a.dtype)
    return make_tensor(hist), [make_tensor(e.copy()) for e in edges]


_HISTOGRAM_EDGES_OUT = out_exact("torch.histogram: input tensor and bin_edges tensor should "
                                 "have the same dtype, but got input {expected_cpp} and "
                                 "bin_edges {got_cpp} for dimension 0")


def _histogram_out(compute):
    """histogram's out=(hist, bin_edges): ATen checks and resizes bin_edges first."""
    def with_out(input, bins=100, *, range=None, weight=None, density=False, out=None):
        result = compute(input, bins, range=range, weight=weight, density=density)
        if out is None:
            return result
        check_out_kind("histogram", out)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("histogram(): argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        if grad_mode.state.grad_enabled and any(o.requires_grad for o in out):
            raise RuntimeError("aten::histogram(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        for r, o, rule in zip(result, out, (_HIST_OUT, _HISTOGRAM_EDGES_OUT)):
            if isinstance(o, Tensor) and o.dtype is not r.dtype:
                raise rule(r.dtype, o.dtype)
        write_out("aten::histogram", result.bin_edges.detach(), out[1], _HISTOGRAM_EDGES_OUT,
                  (input,))
        write_out("aten::histogram", result.hist.detach(), out[0], _HIST_OUT, (input,))
        if result.hist.requires_grad:
            for r, o in zip(result, out):
                _rebase_history(o, r)
        return _return_type("histogram_out")(*out)
    with_out.__name__ = compute.__name__
    with_out.__doc__ = compute.__doc__
    return with_out


def _rebase_history(out, result):
    """out takes result's history, as ATen's out= kernels under autograd give it."""
    out._requires_grad = True
    out._grad_fn = result._grad_fn
    out._output_nr = result._output_nr


def _return_type(name):
    from .registry import _structseq, return_types
    rt = return_types.get(name)
    if rt is None:
        rt = return_types[name] = _structseq(name, ("hist", "bin_edges"))
    return rt


def _histogram_forward(a, bins, range, weight, density):
    if isinstance(bins, int):
        _check_bin_count(bins, 0)      # first of all
    bins_list = [bins] if isinstance(bins, (int, Tensor)) else bins
    if range is not None and len(range) != 2:
        raise RuntimeError(f"torch.histogramdd: for a 1-dimensional histogram range should have "
                           f"2 elements, but got {len(range)}")
    hist, edges = _histogramdd(make_tensor(a).reshape(-1, 1), bins_list, range,
                               None if weight is None else weight.reshape(-1), density, True)
    return hist._data, edges[0]._data


# histogram has no derivative: outputs of an input that requires grad get a node whose
# backward raises, as ATen's NotImplemented node
_histogram_row = op("histogram", NOT_IMPLEMENTED, "self, bins, range, weight, density",
                    _histogram_forward, returns=("hist", "bin_edges"), function=False,
                    method=False, self=no_derivative("aten::histogram"))


def _histogram(input, bins=100, *, range=None, weight=None, density=False):
    """The histogram of the elements of `input` in `bins` equal bins over `range` (default:
    the data's min and max), or between the given edges; (hist, bin_edges)."""
    return _histogram_row(input, bins, range, weight, density)


FUNCTIONS["histogram"] = histogram = _histogram_out(_histogram)
Tensor.histogram = _histogram


@public("histogramdd", method=False)
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    """The N-dimensional histogram of the points in the rows of `input`; (hist, bin_edges)."""
    rt = _return_type("histogramdd")
    hist, edges = _histogramdd(input, bins, range, weight, density)
    return rt(hist, tuple(edges))


# ---- frobenius_norm, norm_except_dim ------------------------------------------------------

_norm_scalar = op("norm.Scalar", "NormBackward0", "self, p=2",
                  lambda a, p: _vector_norm(a, p, None, False, None), function=False,
                  method=False,
                  self=lambda grad, self, p, result: _vector_norm_backward(grad, self, p, result,
                                                                           None, False))


if "norm.ScalarOpt_dim" not in OPS:       # pairwise_distance's row (linalg.py) when present
    op("norm.ScalarOpt_dim", "NormBackward1", "self, p, dim, keepdim=False",
       lambda a, p, dim, keepdim: _vector_norm(a, p, dim, keepdim, None), function=False,
       method=False, self=lambda grad, self, p, result, dim, keepdim: _vector_norm_backward(
           grad, self, p, result, dim, keepdim))


def _norm_dim_row(input, p, dim, keepdim):
    """at::norm(input, p, dim, keepdim): NormBackward1."""
    return dispatch(OPS["norm.ScalarOpt_dim"], (input,), (p, dim, keepdim))


@public("frobenius_norm", method=False, out=EXACT, out_name="norm")
def frobenius_norm(input, dim, keepdim=False):
    """Deprecated: linalg.vector_norm(input, 2, dim, keepdim)."""
    from .shape import _warn_once
    _warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
               "will be removed in a future PyTorch release. Please use "
               "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions "
                           "instead.")
    return _norm_dim_row(input, 2.0, dim, keepdim)


@public("norm_except_dim", method=False)
def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm over every dim but `dim` (all of them for -1), keeping v's rank."""
    if dim == -1:
        return _norm_scalar(v, pow)
    last = v.dim() - 1
    if dim == 0:
        size = [1] * v.dim()
        size[0] = v.shape[0]
        return _norm_dim_row(v.contiguous().view(v.shape[0], -1), pow, (1,), True).view(size)
    if dim == last:
        size = [1] * v.dim()
        size[last] = v.shape[last]
        return _norm_dim_row(v.contiguous().view(-1, v.shape[last]), pow, (0,), True).view(size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


# ---- segment_reduce -----------------------------------------------------------------------
# Segments of `data` along `axis` (given as offsets: segment i of a row is [offsets[i],
# offsets[i + 1]); leading dims of offsets batch over data's leading dims) reduced with one
# ufunc.reduceat over the flattened batch; an empty segment gives the reduction's identity,
# or `initial`. Elements no segment covers get no gradient.

_SEGMENT_REDUCTIONS = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "amax",
                       "amax": "amax", "min": "amin", "amin": "amin"}
_SEGMENT_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                   "amin": np.minimum}
_SEGMENT_EMPTY = {"sum": 0.0, "mean": np.nan, "prod": 1.0, "amax": -np.inf, "amin": np.inf}


def _segments(data_shape, offsets, axis):
    """(flat shape of data, segment starts in it, lengths flat, output shape)."""
    batch = data_shape[:axis]
    n = data_shape[axis]
    rows = int(np.prod(batch, dtype=np.int64))
    offsets = offsets.reshape(rows, -1)
    lengths = np.diff(offsets, axis=1)
    starts = offsets[:, :-1] + (np.arange(rows) * n)[:, None]
    rest = data_shape[axis + 1:]
    return ((rows * n,) + rest, starts.reshape(-1), lengths.reshape(-1),
            batch + (lengths.shape[1],) + rest)


def _reduceat(ufunc, flat, starts, counts):
    """ufunc over each segment [start, start + count) of flat's rows, vectorized: reduceat
    over the interleaved starts and ends, keeping every other result. A row of the ufunc's
    identity is appended so an end (or the start of an empty last segment) may be the end
    of the data; empty segments come out as garbage for the caller to mask."""
    pad = np.full((1,) + flat.shape[1:], ufunc.identity if ufunc.identity is not None
                  else (-np.inf if ufunc is np.maximum else np.inf), flat.dtype)
    bounds = np.stack([starts, starts + counts], axis=1).reshape(-1)
    return ufunc.reduceat(np.concatenate([flat, pad]), bounds, axis=0)[::2]


def _segment_reduce(data, offsets, reduce, axis, initial):
    flat_shape, starts, counts, out_shape = _segments(data.shape, offsets, axis)
    flat = data.reshape(flat_shape)
    ufunc = _SEGMENT_UFUNCS[reduce]
    out = _reduceat(ufunc, flat, starts, counts)
    empty = (counts == 0).reshape((-1,) + (1,) * (flat.ndim - 1))
    if initial is not None:
        out = ufunc(out, data.dtype.type(initial))
    out = np.where(empty, data.dtype.type(_SEGMENT_EMPTY[reduce] if initial is None else initial),
                   out)
    if reduce == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(empty, out, out / counts.reshape(empty.shape).astype(data.dtype))
    return out.astype(data.dtype, copy=False).reshape(out_shape)


def _segment_reduce_backward(grad, output, data, offsets, reduce, axis, initial):
    """ATen's _segment_reduce_backward: each element's share of its segment's gradient (none
    for the elements outside every segment)."""
    flat_shape, starts, counts, _ = _segments(data.shape, offsets, axis)
    covered, _ = _ragged(starts, counts)
    starts = np.cumsum(counts) - counts           # the segments among the covered elements
    seg = np.repeat(np.arange(len(counts)), counts)          # segment of each element
    g = grad.reshape((len(counts),) + flat_shape[1:])[seg]
    x = data.reshape(flat_shape)[covered]
    if reduce == "sum":
        grad_input = g
    elif reduce == "mean":
        grad_input = g / counts[seg].reshape((-1,) + (1,) * (x.ndim - 1))
    else:
        out = output.reshape((len(counts),) + flat_shape[1:])[seg]
        grad_input = _segment_select_backward(g, out, x, reduce, starts, counts, seg, initial)
    result = np.zeros(flat_shape, data.dtype)
    result[covered] = grad_input
    return result.reshape(data.shape)


def _segment_select_backward(g, out, x, reduce, starts, counts, seg, initial):
    if reduce in ("amax", "amin"):
        hit = (x == out) | (np.isnan(x) & np.isnan(out))
        ties = _reduceat(np.add, hit.astype(x.dtype), starts, counts)
        # ATen splits only the positive gradients among ties (its `> 0` test)
        g = np.where(hit, g, 0)
        return np.where(g > 0, g / ties[seg], g)
    # prod: grad * output / x, except at zeros and NaNs, which get grad times the product
    # of the others (and of initial), as ATen computes it
    zero, nan = x == 0, np.isnan(x)
    special = zero | nan
    safe = np.where(special, 1, x)
    others = _reduceat(np.multiply, safe, starts, counts)[seg]
    if initial is not None:
        others = others * x.dtype.type(initial)
    zeros_left = _reduceat(np.add, zero.astype(np.int64), starts, counts)[seg] - zero
    nans_left = _reduceat(np.add, nan.astype(np.int64), starts, counts)[seg] - nan
    others = np.where(zeros_left > 0, others * 0, others)
    others = np.where(nans_left > 0, np.nan, others)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(special, g * others, g * out / safe)


_segment_reduce_backward_row = op(
    "_segment_reduce_backward", NOT_IMPLEMENTED,
    "grad, output, data, offsets, reduce, axis, initial", _segment_reduce_backward,
    function=False, method=False, grad=no_derivative("aten::_segment_reduce_backward"),
    output=no_derivative("aten::_segment_reduce_backward"),
    data=no_derivative("aten::_segment_reduce_backward"))

_segment_reduce_row = op(
    "segment_reduce", "SegmentReduceBackward0", "data, offsets, reduce, axis, initial",
    _segment_reduce, function=False, method=False,
    data=lambda grad, result, data, offsets, reduce, axis, initial: _segment_reduce_backward_row(
        grad, result, data, offsets, reduce, axis, initial))


@public("segment_reduce", method=False)
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce `data` over consecutive segments along `axis` ('sum', 'mean', 'prod', 'max'/
    'amax', 'min'/'amin'), given by `lengths` or `offsets`; empty segments take `initial`."""
    if reduce not in _SEGMENT_REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    reduce = _SEGMENT_REDUCTIONS[reduce]
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    kind = "lengths" if lengths is not None else "offsets"
    lens = lengths if lengths is not None else offsets
    axis = wrap_dim(axis, data.dim())
    if data.dim() < lens.dim():
        raise RuntimeError(f"Expected data.dim() >= {kind}_value.dim() to be true, but got "
                           "false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    if axis != lens.dim() - 1:
        raise RuntimeError("segment_reduce(): Expected axis to be the last dimension of "
                           f"{kind} but got {axis}.")
    values = lens._data
    if lengths is not None and not unsafe:
        # PyTorch checks the values before their dtype: min() as an int64, row sums as they are
        if values.dtype.kind == "c":
            raise _not_implemented("min_all", values)
        if values.size == 0:
            raise RuntimeError("min(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        if int(values.min()) < 0:
            raise RuntimeError("lengths contains negative value!")
        if (values.sum(-1) != data.shape[axis]).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
    if lengths is None and values.shape[-1] == 0:
        raise RuntimeError("Trying to create tensor with negative dimension -1: [-1]")
    if values.dtype not in (np.int32, np.int64):
        raise _not_implemented(f"_segment_reduce_{kind}_cpu_kernel1", values)
    if data._data.dtype.kind not in "f":
        raise _not_implemented("_segment_reduce_cpu", data._data)
    if initial is not None:
        initial = _checked_scalar(initial, data._data.dtype)
    values = values.astype(np.int64)
    if lengths is None:
        offsets = values
    else:
        offsets = np.concatenate([np.zeros(values.shape[:-1] + (1,), np.int64),
                                  np.cumsum(values, axis=-1)], axis=-1)
    if (np.diff(offsets, axis=-1) < 0).any():      # the kernel's check (also when unsafe)
        raise RuntimeError("Expected segment_length >= 0 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    # PyTorch reads outside the data where segments leave it (offsets, unsafe lengths);
    # chainrule refuses them
    if offsets.size and (offsets.min() < 0 or offsets.max() > data.shape[axis]):
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum "
                           "to data.size(lengths.dim()-1) when !unsafe.")
    # PyTorch reads the rows of lengths/offsets one after another for the data's leading
    # positions: rows beyond them are unused, missing ones read past the tensor (its crash)
    rows = math.prod(data.shape[:axis])
    offsets = offsets.reshape(-1, offsets.shape[-1])
    if len(offsets) < rows:
        raise RuntimeError(f"segment_reduce(): {kind} has {len(offsets)} rows for {rows} "
                           "leading positions of data")
    offsets = offsets[:rows].reshape(data.shape[:axis] + offsets.shape[-1:])
    return _segment_reduce_row(data, offsets, reduce, axis, initial)


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
_MOMENT = ["(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False)",
           "(Tensor input, tuple of ints[1] dim = None, *, Number correction = None, "
           "bool keepdim = False)", "(Tensor input, bool unbiased = True)"]
declare("logcumsumexp(Tensor input, int dim)", "cummax(Tensor input, int dim)",
        "cummin(Tensor input, int dim)", "renorm(Tensor input, Scalar p, int dim, Scalar maxnorm)",
        "kthvalue(Tensor input, int k, int dim=-1, bool keepdim=False)",
        "median(Tensor input, int dim, bool keepdim=False)",
        "nanmedian(Tensor input, int dim, bool keepdim=False)",
        "mode(Tensor input, int dim=-1, bool keepdim=False)",
        "nansum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
        "nanmean(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)",
        "aminmax(Tensor input, *, int? dim=None, bool keepdim=False)",
        "diff(Tensor input, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None)",
        Overloads("count_nonzero", ["(Tensor input, int dim = None)",
                                    "(Tensor input, tuple of ints dim)"]))
declare(*(Overloads(name, _MOMENT, fast=(1, 0)) for name in ("std_mean", "var_mean")),
        "norm_except_dim(Tensor v, int pow=2, int dim=0)", method=False)
declare("renorm_(Tensor input, Scalar p, int dim, Scalar maxnorm)", function=False)
declare("cov(Tensor input, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None)",
        Overloads("histogram", [
            "(Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
            "tuple of Tensors out = None)",
            "(Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
            "bool density = False, tuple of Tensors out = None)"], fast=(1, 0)))
# softmax's rows are nn_ops', which this module follows
declare("softmax(Tensor input, int dim, ScalarType? dtype=None)",
        "log_softmax(Tensor input, int dim, ScalarType? dtype=None)")
declare("corrcoef(Tensor input)", method=False)
declare(Overloads("trapezoid", _TRAPEZOID_OVERLOADS, fast=(0, 1)),
        Overloads("trapz", _TRAPZ_OVERLOADS, fast=(0, 1)),
        Overloads("cumulative_trapezoid", _TRAPEZOID_OVERLOADS, fast=(0, 1)),
        Overloads("histogramdd", [f"(Tensor input, {bins} bins, tuple of floats range = None, "
                                  "Tensor weight = None, bool density = False)"
                                  for bins in ("int", "tuple of ints", "tuple of Tensors")],
                  fast=(0, 1, 2)), method=False)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("dist(Tensor input, Tensor other, Scalar p=2)",
        "histc(Tensor input, int bins=100, Scalar min=0, Scalar max=0)",
        *(Overloads(name, [f'(Tensor input, {kind} q, int dim = None, bool keepdim = False, *, '
                           'str interpolation = "linear")' for kind in ("Tensor", "float")],
                    fast=(0, 1)) for name in ("quantile", "nanquantile")), function=False)
