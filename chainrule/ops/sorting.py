"""Sorting and searching: sort, argsort, msort, topk, nonzero, argwhere, unique,
searchsorted, bucketize.

sort and topk send each value's gradient back to the index it came from (derivatives.yaml's
value_selecting_reduction_backward, a scatter, so double backward works). nonzero, unique,
searchsorted and argsort return indices and have no derivative; unique's values keep a
grad_fn whose backward raises, as PyTorch's do.

Note [Tie order]
Which of several equal elements comes first decides which index gets the gradient, so the
order of ties follows PyTorch's CPU kernels, which are libstdc++ algorithms:
std::stable_sort for sort(stable=True); std::sort (introsort) for sort; for topk,
std::nth_element (introselect) for the k-th element and then std::sort of the k - 1 before
it, or std::partial_sort when k * 64 <= n (each row copied first, so strides do not
matter). The comparators see only the order of values, so the kernels here rank the values
(NaN largest, equal values equal) and replay introsort's and introselect's steps -- median
of three moved to the front, then Hoare's partition -- on the ranks, vectorized over all
rows and segments at once; the insertion sorts that finish both are stable, which one
stable argsort reproduces. partial_sort's heap is replayed in rows with ties (a loop over
the elements that enter the heap, vectorized over rows) where at most 1,024 elements may
enter it. Not replayed: rows where more may (ascending rows for the largest) and the heap
sorts at introsort's depth limit; there ties keep index order, which can differ from
PyTorch.
"""
import math

import numpy as np

from .. import _dtype
from .._dims import sizes_str, wrap_dim
from .._tensor import make_tensor
from .binding import Overloads, Signature, declare
from .registry import EXACT, op, out_exact, public
from .shape import _warn_once

# out= dtype rules in the ops' own words (Note [out=] in registry.py)
_NONZERO_OUT = out_exact("nonzero: Expected out tensor to have scalar type {expected} but got "
                         "scalar type{got}")


def _SEARCHSORTED_OUT(expected, got):
    return RuntimeError(
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
        "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
        f"dtype {got.legacy} and out_int32 flag is {expected is _dtype.int32}")

_DEFAULT = object()       # `stable` not passed: PyTorch picks sort, not sort.stable
_INSERTION = 16           # libstdc++'s _S_threshold: introsort leaves runs this short


# ---- replaying libstdc++ (see Note [Tie order]) -------------------------------------------

def _stable_order(rows, descending):
    """std::stable_sort's order of each row of 2-D `rows` under PyTorch's comparator (NaN
    largest; a descending sort keeps equal elements in index order too)."""
    if not descending:
        return np.argsort(rows, axis=-1, kind="stable")
    return rows.shape[1] - 1 - np.argsort(rows[:, ::-1], axis=-1, kind="stable")[:, ::-1]


def _differs(s):
    """Whether each element of the sorted rows `s` differs from the one before (NaNs are
    equal to each other for the comparators)."""
    step = s[:, 1:] != s[:, :-1]
    if s.dtype.kind == "f":
        step &= ~(np.isnan(s[:, 1:]) & np.isnan(s[:, :-1]))
    return step


def _counts(n):
    # NumPy's int32 cumsum is several times faster than its int64 one
    return np.int32 if n < 2 ** 31 else np.int64


def _rank_keys(rows, order):
    """What the comparators see of each row: dense ranks along its stable `order`, and
    `tied[r, key]`, whether a rank occurs more than once in row r."""
    m, n = rows.shape
    ranks = np.zeros(rows.shape, np.int64)
    ranks[:, 1:] = np.cumsum(_differs(np.take_along_axis(rows, order, -1)), axis=-1,
                             dtype=_counts(n))
    keys = np.empty_like(ranks)
    np.put_along_axis(keys, order, ranks, -1)
    counts = np.bincount((ranks + n * np.arange(m)[:, None]).reshape(-1), minlength=m * n)
    return keys, counts.reshape(m, n) > 1


def _ragged(starts, lengths):
    """The concatenated ranges starts[i] + arange(lengths[i]) (lengths > 0), and where each
    range begins in them."""
    ends = np.cumsum(lengths)
    offsets = ends - lengths
    return np.arange(ends[-1] if len(ends) else 0) + np.repeat(starts - offsets, lengths), offsets


def _partition(K, P, lo, hi):
    """libstdc++'s __unguarded_partition_pivot on each segment [lo, hi) of the flat keys K,
    moving the flat arrangement P alike (in place). Returns the cuts.

    The median of K[lo + 1], K[mid], K[hi - 1] is swapped to the front as the pivot. Hoare's
    partition then swaps the i-th "left" element (after the pivot, not below it) with the
    i-th "right" element from the end (not above it) while the first lies before the
    second: s pairs, s the largest count such that some position has s left elements
    before it and s right ones from it on. The cut is the next left element or the last
    right one swapped, whichever comes first."""
    a, b, c = lo + 1, lo + (hi - lo) // 2, hi - 1
    ka, kb, kc = K[a], K[b], K[c]
    median = np.where(ka < kb, np.where(kb < kc, b, np.where(ka < kc, c, a)),
                      np.where(ka < kc, a, np.where(kb < kc, c, b)))
    for X in (K, P):
        X[lo], X[median] = X[median], X[lo]
    size = hi - lo
    pos, off = _ragged(lo, size)
    keys = K[pos]
    pivot = np.repeat(K[lo], size)
    left, right = ~(keys < pivot), ~(pivot < keys)     # (NaN keys are both: mode's replay)
    left[off] = False
    count = _counts(len(pos))
    before = np.cumsum(left, dtype=count) - left
    f = before - np.repeat(before[off], size)      # left elements before p (a left one's rank)
    rcum = np.cumsum(right, dtype=count)
    g = np.repeat(rcum[off + size - 1], size) - rcum + right   # right elements from p on
    s = np.maximum.reduceat(np.minimum(f, g), off)
    ss = np.repeat(s, size)
    lsw = pos[left & (f < ss)]
    rsw = np.flatnonzero(right & (g <= ss))        # ascending; paired from the segment's end
    rsw = pos[rsw[np.repeat(2 * (np.cumsum(s) - s) + s - 1, s) - np.arange(len(rsw))]]
    for X in (K, P):
        X[lsw], X[rsw] = X[rsw], X[lsw]
    cut = (left & (f == ss)) | (right & (g == ss))
    return np.minimum.reduceat(np.where(cut, pos, np.iinfo(np.int64).max), off)


def _depth_limit(n):
    return 2 * (int(n).bit_length() - 1)     # 2 * floor(log2(n))


def _stable_sort_range(K, P, lo, hi):
    """The final insertion sorts: a stable sort of positions [lo, hi) of each row of K, the
    rest in place (lo, hi: numbers, or columns of per-row bounds)."""
    n = K.shape[1]
    pos = np.arange(n)
    block = (pos >= lo).astype(np.int64) + (pos >= hi)
    order = np.argsort(block * n + np.where(block == 1, K, pos), axis=-1, kind="stable")
    K[:] = np.take_along_axis(K, order, -1)
    P[:] = np.take_along_axis(P, order, -1)


def _introsort(K, P, end, tied):
    """std::sort of positions [0, end) of every row of K. A segment whose keys are all
    distinct sorts the same however it is partitioned, so only those holding a key tied in
    their row (`tied[row, key]`) are partitioned further."""
    n = K.shape[1]
    Kf, Pf, tied = K.reshape(-1), P.reshape(-1), tied.reshape(-1)
    lo = np.arange(len(K)) * n
    hi = lo + end
    for _ in range(_depth_limit(end) if end > 1 else 0):
        big = np.flatnonzero(hi - lo > _INSERTION)
        if big.size:
            pos, off = _ragged(lo[big], hi[big] - lo[big])
            big = big[np.logical_or.reduceat(tied[pos - pos % n + Kf[pos]], off)]
        if not big.size:
            break
        lo, hi = lo[big], hi[big]
        cut = _partition(Kf, Pf, lo, hi)
        lo, hi = np.concatenate([lo, cut]), np.concatenate([cut, hi])
    _stable_sort_range(K, P, 0, end)


def _nth_element(K, P, nth):
    """std::nth_element at position `nth` of every row of K."""
    m, n = K.shape
    base = np.arange(m) * n
    lo, hi = base.copy(), base + n
    for _ in range(_depth_limit(n)):
        act = np.flatnonzero(hi - lo > 3)
        if not act.size:
            break
        cut = _partition(K.reshape(-1), P.reshape(-1), lo[act], hi[act])
        left = cut <= base[act] + nth
        lo[act], hi[act] = np.where(left, cut, lo[act]), np.where(left, hi[act], cut)
    _stable_sort_range(K, P, (lo - base)[:, None], (hi - base)[:, None])


# ---- sort, argsort, msort -----------------------------------------------------------------

def _rows(a, d):
    """`a` with dim d last, as 2-D rows, and the leading shape."""
    x = np.moveaxis(a, d, -1)
    return x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), x.shape[:-1]


def _from_rows(rows, lead, d):
    return np.ascontiguousarray(np.moveaxis(rows.reshape(lead + rows.shape[-1:]), -1, d))


def _sort_indices(rows, descending, stable):
    n = rows.shape[1]
    idx = _stable_order(rows, descending)
    if not stable and n > _INSERTION:      # std::sort; shorter rows get an insertion sort
        keys, tied = _rank_keys(rows, idx)
        redo = np.flatnonzero(tied.any(axis=1))      # rows without ties sort one way only
        if redo.size:
            K, P = keys[redo], np.broadcast_to(np.arange(n), (len(redo), n)).copy()
            _introsort(K, P, n, tied[redo])
            idx[redo] = P
    return idx


def _sort(a, dim, descending, stable=False):
    d = wrap_dim(dim, a.ndim)
    if a.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    rows, lead = _rows(a, d)
    if a.strides[d] == 0:
        # PyTorch leaves the indices in order along a stride-0 dim (pytorch#91420)
        idx = np.broadcast_to(np.arange(rows.shape[1]), rows.shape)
    else:
        idx = _sort_indices(rows, descending, stable)
    return (_from_rows(np.take_along_axis(rows, idx, -1), lead, d),
            _from_rows(np.asarray(idx, np.int64), lead, d))


def _value_selecting_backward(grads, self_shape, dim, result1):
    """Each value's gradient goes back to the index it was taken from."""
    grad = grads[0]
    return make_tensor(np.zeros(self_shape, grad._data.dtype)).scatter(dim, result1, grad)


_sort_row = op("sort", "SortBackward0", "self, dim=-1, descending=False", _sort,
               returns=("values", "indices"), differentiable_outputs=(0,), function=False,
               method=False, self=_value_selecting_backward, out=EXACT)

_sort_stable_row = op("sort.stable", "SortBackward1", "self, *, stable, dim=-1, descending=False",
                      lambda a, stable, dim, descending: _sort(a, dim, descending, bool(stable)),
                      returns=("values", "indices"), differentiable_outputs=(0,),
                      function=False, method=False, self=_value_selecting_backward)


@public("sort", out=EXACT)
def sort(input, dim=-1, descending=False, *, stable=_DEFAULT):
    """(values, indices) sorted along `dim`; equal values keep PyTorch's order (see Note
    [Tie order])."""
    if stable is _DEFAULT:
        return _sort_row(input, dim, descending)
    return _sort_stable_row(input, stable=stable, dim=dim, descending=descending)


@public("msort", out=EXACT, out_name="sort")
def msort(input):
    """Values sorted along dim 0."""
    return _sort_row(input, 0, False)[0]


argsort = op("argsort", None, "self, dim=-1, descending=False, *, stable=False",
             lambda a, dim, descending, stable: _sort(a, dim, descending, stable)[1], self=None)


# ---- topk ---------------------------------------------------------------------------------

def _partial_sort(rows, k, largest):
    """The k best of each row in (value, index) order, found by partitioning first."""
    n = rows.shape[1]
    kth = n - k if largest else k - 1
    t = np.take_along_axis(rows, np.argpartition(rows, kth, axis=-1)[:, kth:kth + 1], -1)
    if rows.dtype.kind == "f":     # NaN is the largest (argpartition agrees)
        nan = np.isnan(rows)
        if largest:
            good = np.where(np.isnan(t), nan, (rows >= t) | nan)
        else:
            good = np.isnan(t) | (rows <= t)
    else:
        good = rows >= t if largest else rows <= t
    # the candidates in index order; rows with fewer are padded with worse elements
    pos = np.argsort(~good, axis=-1, kind="stable")[:, :good.sum(axis=-1).max()]
    order = _stable_order(np.take_along_axis(rows, pos, -1), largest)[:, :k]
    return np.take_along_axis(pos, order, -1)


def _adjust_heap(HK, HP, r, top, length, vk, vp):
    """libstdc++'s __adjust_heap at `top` of the heaps HK[r, :length] (keys, the worst
    largest) with the value (vk, vp) to place: the hole goes down to a leaf, always to the
    worse child (the right one unless the left is worse), then the value climbs back while
    its parent is better. HP (positions) moves alike. In place."""
    hole = np.full(len(r), top, np.int64)
    while True:
        go = np.flatnonzero(hole < (length - 1) // 2)
        if not go.size:
            break
        rg, child = r[go], 2 * (hole[go] + 1)
        child -= HK[rg, child] < HK[rg, child - 1]
        HK[rg, hole[go]], HP[rg, hole[go]] = HK[rg, child], HP[rg, child]
        hole[go] = child
    if length % 2 == 0:     # a last parent with only a left child
        go = np.flatnonzero(hole == (length - 2) // 2)
        rg, child = r[go], 2 * hole[go] + 1
        HK[rg, hole[go]], HP[rg, hole[go]] = HK[rg, child], HP[rg, child]
        hole[go] = child
    while True:
        parent = (hole - 1) // 2
        go = np.flatnonzero((hole > top) & (HK[r, np.maximum(parent, 0)] < vk))
        if not go.size:
            break
        rg, pg = r[go], parent[go]
        HK[rg, hole[go]], HP[rg, hole[go]] = HK[rg, pg], HP[rg, pg]
        hole[go] = pg
    HK[r, hole], HP[r, hole] = vk, vp


def _heap_partial_sort(K, k):
    """std::partial_sort of the first k of each row of the comparator keys K (smaller is
    better): a heap of the first k with the worst on top (built from the last parent up), each
    later element better than the top replacing it, then the heap sorted by popping the top
    to the back. Returns the positions chosen, best first.

    The loop runs over the elements that enter the heap (vectorized over rows), each row's
    next one found in a block of at most 256 elements: as the top only gets better, an
    element that did not enter never will."""
    m, n = K.shape
    rows = np.arange(m)
    HK, HP = K[:, :k].copy(), np.broadcast_to(np.arange(k), (m, k)).copy()
    for top in range((k - 2) // 2, -1, -1):     # make_heap: from the last parent up
        _adjust_heap(HK, HP, rows, top, k, HK[:, top].copy(), HP[:, top].copy())
    start = k
    while start < n:
        stop = min(n, 2 * start, start + 256)
        block, after = K[:, start:stop], np.zeros((m, 1), np.int64)
        cols = np.arange(stop - start)
        while True:
            enter = (block < HK[:, :1]) & (cols >= after)
            r = np.flatnonzero(enter.any(axis=1))
            if not r.size:
                break
            first = enter[r].argmax(axis=1)
            _adjust_heap(HK, HP, r, 0, k, block[r, first], start + first)
            after[r, 0] = first + 1
        start = stop
    for last in range(k - 1, 0, -1):    # sort_heap: the top goes behind the shrunk heap
        vk, vp = HK[:, last].copy(), HP[:, last].copy()
        HK[:, last], HP[:, last] = HK[:, 0], HP[:, 0]
        _adjust_heap(HK, HP, rows, 0, last, vk, vp)
    return HP


def _heap_partial_sort_rows(rows, k, largest):
    """_heap_partial_sort of rows under topk's comparator, on ranks of the elements that may
    enter the heap only: the first k, and later ones better than the k-th best before the
    block they are in (blocks doubling in length), which the heap's top is never below.
    Returns (the rows replayed, their positions chosen)."""
    m, n = rows.shape
    may = np.ones(rows.shape, bool)
    start = k
    while start < n:
        stop = min(n, 2 * start)
        prefix = np.partition(rows[:, :start], start - k if largest else k - 1, axis=-1)
        t = prefix[:, start - k if largest else k - 1][:, None]
        x = rows[:, start:stop]
        if rows.dtype.kind == "f":      # NaN is the largest
            if largest:
                may[:, start:stop] = (np.isnan(x) & ~np.isnan(t)) | (x > t)
            else:
                may[:, start:stop] = (~np.isnan(x) & np.isnan(t)) | (x < t)
        else:
            may[:, start:stop] = x > t if largest else x < t
        start = stop
    counts = may.sum(axis=1)
    # each element that enters a heap is a step of a loop: rows where too many may (an
    # ascending row, for the largest) keep the fast path's order of ties
    replayed = np.flatnonzero(counts <= _HEAP_REPLAY_LIMIT)
    if not replayed.size:
        return replayed, np.zeros((0, k), np.int64)
    rows, may, counts = rows[replayed], may[replayed], counts[replayed]
    pos = np.argsort(~may, axis=1, kind="stable")[:, :counts.max()]
    vals = np.take_along_axis(rows, pos, -1)
    K, _ = _rank_keys(vals, _stable_order(vals, largest))
    K[np.arange(pos.shape[1]) >= counts[:, None]] = pos.shape[1]    # padding: never enters
    return replayed, np.take_along_axis(pos, _heap_partial_sort(K, k), -1)


_HEAP_REPLAY_LIMIT = 1024


def _topk(a, k, dim, largest, sorted):
    d = wrap_dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if a.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if a.dtype.kind == "c":
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    rows, lead = _rows(a, d)
    if k == 0 or not len(rows):
        idx = np.zeros((len(rows), k), np.int64)
    elif k * 64 <= n:
        # std::partial_sort: sorted whatever `sorted` says; its heap is replayed where ties
        # among the k best or with the next one leave a choice
        idx = _partial_sort(rows, k + 1, largest)
        redo = np.flatnonzero(~_differs(np.take_along_axis(rows, idx, -1)).all(axis=1))
        idx = idx[:, :k].copy()
        if redo.size:
            replayed, chosen = _heap_partial_sort_rows(rows[redo], k, largest)
            idx[redo[replayed]] = chosen
    else:
        order = _stable_order(rows, largest)
        idx = order[:, :k].copy()
        # sorted rows need a replay only when ties among the k best or with the next one
        # leave a choice; unsorted ones keep nth_element's arrangement
        exact = _differs(np.take_along_axis(rows, order[:, :k + 1], -1)).all(axis=1)
        redo = np.flatnonzero(~exact) if sorted else np.arange(len(rows))
        if redo.size:
            K, tied = _rank_keys(rows[redo], order[redo])
            P = np.broadcast_to(np.arange(n), K.shape).copy()
            _nth_element(K, P, k - 1)
            if sorted and k > 2:
                _introsort(K, P, k - 1, tied)
            idx[redo] = P[:, :k]
    return (_from_rows(np.take_along_axis(rows, idx, -1), lead, d),
            _from_rows(np.asarray(idx, np.int64), lead, d))


topk = op("topk", "TopkBackward0", "self, k, dim=-1, largest=True, sorted=True", _topk,
          returns=("values", "indices"), differentiable_outputs=(0,),
          self=_value_selecting_backward, out=EXACT)

# Note [Argument parser checks]: PyTorch's declarations of sort, argsort and topk
declare(Overloads("sort", ["(Tensor input, *, bool? stable, int dim = -1, bool descending = "
                           "False, tuple of Tensors out = None)",
                           "(Tensor input, int dim = -1, bool descending = False, *, "
                           "tuple of Tensors out = None)"], fast=(1, 0)),
        Overloads("argsort", ["(Tensor input, *, bool stable, int dim = -1, bool descending = "
                              "False, Tensor out = None)",
                              "(Tensor input, int dim = -1, bool descending = False)"],
                  fast=(1, 0)),
        "topk(Tensor input, SymInt k, int dim=-1, bool largest=True, bool sorted=True)")


# ---- nonzero, argwhere --------------------------------------------------------------------

_nonzero_row = op("nonzero", None, "self", np.argwhere, function=False, method=False, self=None)

_nonzero_numpy = op("nonzero_numpy", None, "self",
                    lambda a: np.nonzero(a.reshape(1) if a.ndim == 0 else a), returns=list,
                    function=False, method=False, self=None)


@public("nonzero", out=_NONZERO_OUT)
def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: one row per element, or one tensor per dim."""
    return _nonzero_numpy(input) if as_tuple else _nonzero_row(input)


@public("argwhere")
def argwhere(input):
    """nonzero(input): one row of indices per nonzero element."""
    return _nonzero_row(input)


# Note [Argument parser checks]: their own names in the parser's messages, not the ops'
declare("msort(Tensor input, *, Tensor? out=None)", "argwhere(Tensor input)", method=False)


# ---- unique -------------------------------------------------------------------------------

def _no_derivative(name):
    def formula(grads):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


def _groups(sorted_rows, order, n, return_inverse, return_counts):
    """First row of each run of equal rows (NaN equals nothing), the inverse and counts."""
    step = sorted_rows[1:] != sorted_rows[:-1]
    if step.ndim > 1:
        step = step.any(axis=1)
    starts = np.flatnonzero(np.concatenate(([n > 0], step)))
    inverse = counts = np.zeros(0, np.int64)
    if return_inverse:
        inverse = np.empty(n, np.int64)
        inverse[order] = np.cumsum(np.concatenate(([0], step)))
    if return_counts:
        counts = np.diff(np.append(starts, n))
    return starts, inverse, counts


def _unique2(a, sorted, return_inverse, return_counts):
    # `sorted` is ignored, as by PyTorch's CPU kernels: the result is always sorted
    if a.dtype.kind == "c":
        raise NotImplementedError("\"unique\" not implemented for "
                                  f"'{_dtype.FROM_NP[a.dtype].legacy}'")
    flat = a.reshape(-1)
    order = np.argsort(flat, kind="stable")
    s = flat[order]
    starts, inverse, counts = _groups(s, order, flat.size, return_inverse, return_counts)
    return s[starts], inverse.reshape(a.shape) if return_inverse else inverse, counts


def _insertion_order(rows):
    """The order std::sort (an insertion sort, up to 16 elements) gives the rows under
    PyTorch's unique_dim comparison: the first column where one row is less or greater
    decides. NaN is neither, so this is no strict weak order and lexsort's differs."""
    lt = rows[:, None, :] < rows[None, :, :]
    decided = lt | (rows[:, None, :] > rows[None, :, :])
    first = decided.argmax(axis=2)[..., None]
    less = np.take_along_axis(lt, first, 2)[..., 0] & decided.any(axis=2)
    order = []
    for i in range(len(rows)):     # at most 16 rows
        j = 0 if order and less[i, order[0]] else len(order)
        while j and less[i, order[j - 1]]:
            j -= 1
        order.insert(j, i)
    return np.array(order, np.intp)


def _std_sort_order(rows, order):
    """std::sort's order of more than 16 rows, from their lexicographic (stable) `order`:
    it decides which of equal rows (0.0 and -0.0) comes first and is kept. (With NaN the
    comparison is no strict weak order: libstdc++'s introsort is not replayed then.)"""
    step = (rows[order][1:] != rows[order][:-1]).any(axis=1)
    ranks = np.concatenate(([0], np.cumsum(step)))
    tied = np.bincount(ranks) > 1
    if not tied.any():
        return order
    keys = np.empty(len(rows), np.int64)
    keys[order] = ranks
    K, P = keys[None], np.arange(len(rows))[None]
    _introsort(K, P, len(rows), tied[None])
    return P[0]


def _unique_dim(a, dim, sorted, return_inverse, return_counts):
    if a.dtype.kind == "c":
        raise NotImplementedError("\"unique_dim\" not implemented for "
                                  f"'{_dtype.FROM_NP[a.dtype].legacy}'")
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if a.size == 0:
        if a.shape.count(0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot "
                               "be applied ")
        if a.shape[d]:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                               "cannot be applied")
    x = np.moveaxis(a, d, 0)
    rows = x.reshape(len(x), math.prod(x.shape[1:]))
    order = np.lexsort(rows.T[::-1])      # rows in lexicographic order, column 0 first
    if len(rows) <= _INSERTION and a.dtype.kind == "f" and np.isnan(rows).any():
        order = _insertion_order(rows)
    elif len(rows) > _INSERTION and a.dtype.kind == "f":
        order = _std_sort_order(rows, order)
    s = rows[order]
    starts, inverse, counts = _groups(s, order, len(x), return_inverse, return_counts)
    values = np.moveaxis(s[starts].reshape((len(starts),) + x.shape[1:]), 0, d)
    return np.ascontiguousarray(values), inverse, counts


_unique2_row = op("_unique2", "Unique2Backward0",
                  "self, sorted=True, return_inverse=False, return_counts=False", _unique2,
                  returns=list, differentiable_outputs=(0,), function=False, method=False,
                  self=_no_derivative("_unique2"))

_unique_dim_row = op("unique_dim", "UniqueDimBackward0",
                     "self, dim, sorted=True, return_inverse=False, return_counts=False",
                     _unique_dim, returns=list, differentiable_outputs=(0,), function=False,
                     method=False, self=_no_derivative("unique_dim"))


_UNIQUE2, _UNIQUE_DIM = (Signature(f"{name}(Tensor input, {dim}bool sorted=True, "
                                    "bool return_inverse=False, bool return_counts=False)")
                          for name, dim in (("_unique2", ""), ("unique_dim", "int dim, ")))


@public("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along `dim`), sorted, and optionally the inverse
    indices and the counts."""
    # PyTorch's Python picks its implementation by the flags' truth first (boolean_dispatch)
    inverse_wanted, counts_wanted = bool(return_inverse), bool(return_counts)
    # PyTorch's Python unique calls _unique2 or unique_dim, passing the flags by keyword
    flags = {"sorted": sorted, "return_inverse": return_inverse, "return_counts": return_counts}
    if dim is None:
        _UNIQUE2.raise_for((input,), flags, 1)
        values, inverse, counts = _unique2_row(input, sorted, return_inverse, return_counts)
    else:
        _UNIQUE_DIM.raise_for((input, dim), flags, 1)
        values, inverse, counts = _unique_dim_row(input, dim, sorted, return_inverse,
                                                  return_counts)
    return _chosen(values, inverse, counts, inverse_wanted, counts_wanted)


def _chosen(values, inverse, counts, inverse_wanted, counts_wanted):
    """unique's and unique_consecutive's result: values, then what the flags asked for."""
    if inverse_wanted and counts_wanted:
        return values, inverse, counts
    if inverse_wanted:
        return values, inverse
    if counts_wanted:
        return values, counts
    return values


# ---- searchsorted, bucketize --------------------------------------------------------------

_NONCONTIGUOUS = ("torch.searchsorted(): {} tensor is non-contiguous, this will lower the "
                  "performance due to extra data copy when converting non-contiguous tensor to "
                  "contiguous, please use contiguous {} tensor if possible. This message will "
                  "only appear once per program.")


def _searchsorted(seq, values, sorter, out_int32, right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side != "right":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               f"got side of {side} while right was True")
        right = side == "right"
    vals = np.asarray(values)
    if sorter is not None:
        if sorter.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {sizes_str(seq.shape)}and got "
                               f"sorter tensor {sizes_str(sorter.shape)}")
        if sorter.dtype != np.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {_dtype.FROM_NP[sorter.dtype].legacy}")
        if sorter.size and (sorter.max() >= seq.shape[-1] or sorter.min() < 0):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if vals.ndim == 0 and seq.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if seq.ndim != 1 and (seq.ndim != vals.ndim or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor must "
                           f"match, but we got boundaries tensor {sizes_str(seq.shape)} and input "
                           f"value tensor {sizes_str(vals.shape)}")
    out_dtype = np.int32 if out_int32 else np.int64
    if vals.size == 0:
        return np.zeros(vals.shape, out_dtype)
    for a, name in ((vals, "input value"), (seq, "boundary"), (sorter, "sorter")):
        if a is not None and not a.flags.c_contiguous:
            _warn_once(_NONCONTIGUOUS.format(name, name))
    common = _dtype.result_type((seq, values))   # a Python number is weak
    if common.category in (0, 3):
        raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{common.legacy}'")
    return _bisect(seq.astype(common.np), vals.astype(common.np), sorter, right).astype(out_dtype)


def _bisect(seq, vals, sorter, right):
    """PyTorch's cus_lower_bound / cus_upper_bound for every value at once: a binary search
    on `not (mid >= v)` (or `not (mid > v)`), so a NaN value lands at the end."""
    n = seq.shape[-1]
    rows = seq.reshape(math.prod(seq.shape[:-1]), n)
    if sorter is not None:
        rows = np.take_along_axis(rows, sorter.reshape(rows.shape), -1)
    v = vals.reshape(len(rows), -1)         # a 1-D sequence: one row for all values
    row = np.arange(len(rows))[:, None]
    start, end = np.zeros(v.shape, np.int64), np.full(v.shape, n)
    while True:
        active = start < end
        if not active.any():
            break
        mid = start + ((end - start) >> 1)
        mid_val = rows[row, np.minimum(mid, n - 1)]
        go_right = ~(mid_val > v) if right else ~(mid_val >= v)
        start = np.where(active & go_right, mid + 1, start)
        end = np.where(active & ~go_right, mid, end)
    return start.reshape(vals.shape)


_searchsorted_row = op("searchsorted", None,
                       "sorted_sequence, input, sorter, out_int32, right, side",
                       _searchsorted, inputs=("sorted_sequence", "input", "sorter"), numbers=True,
                       optional=("sorter",), function=False, method=False,
                       sorted_sequence=None, input=None, sorter=None)


@public("searchsorted", method=False, out=_SEARCHSORTED_OUT)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value of `input`, the index in the last dim of `sorted_sequence` where it
    would be inserted to keep it sorted (before equal elements, after them with right=True
    or side='right'; `sorter` gives the order when the sequence is not sorted)."""
    return _searchsorted_row(sorted_sequence, input, sorter, out_int32, right, side)


@public("bucketize", method=False, out=_SEARCHSORTED_OUT)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """searchsorted with the arguments swapped; `boundaries` must be 1-D."""
    if boundaries.dim() != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got "
                           f"dim({boundaries.dim()})")
    return _searchsorted_row(boundaries, input, None, out_int32, right, None)


# ---- isin ---------------------------------------------------------------------------------

def _isin(elements, test_elements, assume_unique, invert):
    for x in (elements, test_elements):
        kind = np.asarray(x).dtype.kind
        if kind in "bc":
            raise RuntimeError("Unsupported input type encountered for isin(): "
                               f"{_dtype.from_numpy_dtype(np.asarray(x).dtype).legacy}")
    t = _dtype.result_type((elements, test_elements)).np
    return np.isin(np.asarray(elements, t), np.asarray(test_elements, t),
                   assume_unique=assume_unique, invert=invert)


isin = op("isin", None, "elements, test_elements, *, assume_unique=False, invert=False", _isin,
          numbers=True, method=False, out=EXACT, elements=None, test_elements=None)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare(Overloads("nonzero", [], method_lines=["()", "(*, bool as_tuple)"], fast=(),
                  method_fast=(0, 1)), function=False)
