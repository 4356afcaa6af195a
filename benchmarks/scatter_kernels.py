"""Scatter kernels: the NumPy candidates for adding (and maxing, multiplying) rows into an
array at repeated indices, timed on the same inputs in one run, against PyTorch's
index_add_ / scatter_add_ / scatter_reduce_ and chainrule's own ops.

    PYTHONPATH=. python benchmarks/scatter_kernels.py          # all cases (about a minute)
    PYTHONPATH=. python benchmarks/scatter_kernels.py --quick  # smaller inputs

Each line is one candidate on one case: the best time of several repeats, its ratio to
PyTorch (single-threaded, as NumPy is) and whether it matches PyTorch's result ("ok"; "WRONG"
when it does not, e.g. integers pushed through float64). The candidates:

  add.at rows     np.add.at(out, idx, src) on the 2-D output (NumPy's slow, general path)
  add.at flat     one flat position per element, np.add.at on the flat output (ufunc.at's
                  fast path since NumPy 1.25); what chainrule uses
  bincount flat   one flat position per element, np.bincount with float64 weights
  sort+reduceat   argsort the rows' indices, np.add.reduceat over the sorted rows
  sparse matmul   a scipy.sparse CSR one-hot matrix times src (when scipy is installed;
                  it is not a chainrule dependency)

Timings move between runs on a shared machine (best-of-N damps other load): read the
ratios as ranges.
"""
import argparse
import time

import numpy as np
import torch

try:
    import scipy.sparse as sparse
except ImportError:     # optional: only a candidate to compare with
    sparse = None

import chainrule


def _time(fn, repeats):
    """The best of `repeats` runs: on a shared machine, other load only ever adds time."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _flat(idx, f):
    return (idx[:, None] * f + np.arange(f)).reshape(-1)


# ---- scatter-add candidates: out[idx[e], :] += src[e, :] -----------------------------------

def add_at_rows(idx, src, n):
    out = np.zeros((n,) + src.shape[1:], src.dtype)
    np.add.at(out, idx, src)
    return out


def add_at_flat(idx, src, n):
    f = src[0].size
    out = np.zeros(n * f, src.dtype)
    np.add.at(out, _flat(idx, f), src.reshape(-1))
    return out.reshape((n,) + src.shape[1:])


def bincount_flat(idx, src, n):
    f = src[0].size
    out = np.bincount(_flat(idx, f), src.reshape(-1), n * f)
    with np.errstate(invalid="ignore"):     # integers out of range: shown as WRONG
        return out.astype(src.dtype).reshape((n,) + src.shape[1:])


def sort_reduceat(idx, src, n, ufunc=np.add, fill=0):
    order = np.argsort(idx, kind="stable")
    rows = idx[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    out = np.full((n,) + src.shape[1:], fill, src.dtype)
    out[rows[starts]] = ufunc.reduceat(src[order], starts, axis=0)
    return out


def sparse_matmul(idx, src, n):
    ones = np.ones(idx.size, src.dtype)
    onehot = sparse.csr_matrix((ones, (idx, np.arange(idx.size))), shape=(n, idx.size))
    return np.asarray(onehot @ src.reshape(idx.size, -1)).reshape((n,) + src.shape[1:])


def _chainrule_index_add(idx, src, n):
    i, s = chainrule.from_numpy(idx), chainrule.from_numpy(src)
    return lambda: chainrule.zeros((n,) + src.shape[1:], dtype=s.dtype).index_add_(0, i, s)


def _chainrule_scatter_add(idx, src, n):
    s = chainrule.from_numpy(src)
    i = chainrule.from_numpy(idx).reshape((-1,) + (1,) * (src.ndim - 1)).expand(*src.shape)
    return lambda: chainrule.zeros((n,) + src.shape[1:], dtype=s.dtype).scatter_add_(0, i, s)


def _torch_index_add(idx, src, n):
    i, s = torch.from_numpy(idx), torch.from_numpy(src)
    return lambda: torch.zeros((n,) + src.shape[1:], dtype=s.dtype).index_add_(0, i, s)


def _torch_scatter_add(idx, src, n):
    s = torch.from_numpy(src)
    i = torch.from_numpy(idx).reshape((-1,) + (1,) * (src.ndim - 1)).expand(*src.shape)
    return lambda: torch.zeros((n,) + src.shape[1:], dtype=s.dtype).scatter_add_(0, i, s)


# ---- scatter-reduce candidates (amax, amin, prod), include_self=False ----------------------

_UFUNC = {"amax": np.maximum, "amin": np.minimum, "prod": np.multiply}


def _fill(reduce, dtype):
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def ufunc_at_flat(idx, src, n, reduce):
    f = src[0].size
    out = np.full(n * f, _fill(reduce, src.dtype), src.dtype)
    _UFUNC[reduce].at(out, _flat(idx, f), src.reshape(-1))
    return out.reshape((n,) + src.shape[1:])


def ufunc_at_rows(idx, src, n, reduce):
    out = np.full((n,) + src.shape[1:], _fill(reduce, src.dtype), src.dtype)
    _UFUNC[reduce].at(out, idx, src)
    return out


def sort_reduceat_rows(idx, src, n, reduce):
    return sort_reduceat(idx, src, n, _UFUNC[reduce], _fill(reduce, src.dtype))


def _chainrule_scatter_reduce(idx, src, n, reduce):
    s = chainrule.from_numpy(src)
    i = chainrule.from_numpy(idx).reshape((-1,) + (1,) * (src.ndim - 1)).expand(*src.shape)
    fill = _fill(reduce, src.dtype)
    return lambda: chainrule.full((n,) + src.shape[1:], fill, dtype=s.dtype).scatter_reduce_(
        0, i, s, reduce, include_self=False)


def _torch_scatter_reduce(idx, src, n, reduce):
    s = torch.from_numpy(src)
    i = torch.from_numpy(idx).reshape((-1,) + (1,) * (src.ndim - 1)).expand(*src.shape)
    fill = _fill(reduce, src.dtype)
    return lambda: torch.full((n,) + src.shape[1:], fill, dtype=s.dtype).scatter_reduce_(
        0, i, s, reduce, include_self=False)


# ---- the run -------------------------------------------------------------------------------

def _matches(ours, ref):
    if ref.dtype.kind == "f":
        tol = 1e-4 if ref.dtype == np.float32 else 1e-9
        return np.allclose(ours, ref, rtol=tol, atol=tol * np.abs(ref).max())
    return np.array_equal(ours, ref)


def _report(case, candidates, reference, repeats):
    ref_time = _time(reference, repeats)
    ref = reference().numpy()
    print(f"\n{case}")
    print(f"  {'torch (1 thread)':<22}{ref_time * 1e3:9.2f} ms   1.00x")
    for name, fn in candidates:
        if fn is None:
            print(f"  {name:<22}  skipped (scipy not installed)")
            continue
        t = _time(fn, repeats)
        out = fn()
        verdict = "ok" if _matches(getattr(out, "numpy", lambda: out)(), ref) else "WRONG"
        print(f"  {name:<22}{t * 1e3:9.2f} ms {t / ref_time:6.2f}x  {verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    args = parser.parse_args()
    edges, rows, repeats = (20_000, 1_000, 3) if args.quick else (200_000, 10_000, 7)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, rows, edges)
    print(f"NumPy {np.__version__}, PyTorch {torch.__version__}; {edges:,} edges into {rows:,} "
          f"rows; best of {repeats}")

    print("\n== scatter-add: out[idx[e]] += src[e] ==")
    for dtype, features in (("float32", 16), ("float64", 16), ("float32", 64), ("float64", 64),
                            ("float32", None), ("float64", None), ("int64", 16), ("int32", 16)):
        shape = (edges,) if features is None else (edges, features)
        # integer sums past 2**53 (int64) or wrapping (int32) show what float64 paths lose
        scale = {"int64": 2.0 ** 50, "int32": 2.0 ** 28}.get(dtype, 1)
        src = (rng.standard_normal(shape) * scale).astype(dtype)
        cands = [
            ("add.at rows", lambda: add_at_rows(idx, src, rows)),
            ("add.at flat", lambda: add_at_flat(idx, src, rows)),
            ("bincount flat", lambda: bincount_flat(idx, src, rows)),
            ("sort+reduceat", lambda: sort_reduceat(idx, src, rows)),
            ("sparse matmul", sparse and (lambda: sparse_matmul(idx, src, rows))),
            ("chainrule index_add_", _chainrule_index_add(idx, src, rows)),
            ("chainrule scatter_add_", _chainrule_scatter_add(idx, src, rows)),
        ]
        label = f"{dtype}, {'1-D' if features is None else f'x {features} features'}"
        _report(f"{label} (reference: torch index_add_)", cands, _torch_index_add(idx, src, rows),
                repeats)
        t = _time(_torch_scatter_add(idx, src, rows), repeats)
        print(f"  {'torch scatter_add_':<22}{t * 1e3:9.2f} ms")

    print("\n== scatter-reduce (include_self=False), x 16 features ==")
    for reduce in ("amax", "amin", "prod"):
        for dtype in ("float32", "float64", "int64"):
            scale = 1 if dtype.startswith("float") else 1e6
            src = (rng.standard_normal((edges, 16)) * scale).astype(dtype)
            if reduce == "prod":   # keep products finite (and integers exact)
                src = (np.sign(src) + (src == 0)).astype(dtype) if dtype == "int64" else \
                    (1 + src / 100).astype(dtype)
            cands = [
                (f"{reduce}.at rows", lambda: ufunc_at_rows(idx, src, rows, reduce)),
                (f"{reduce}.at flat", lambda: ufunc_at_flat(idx, src, rows, reduce)),
                ("sort+reduceat", lambda: sort_reduceat_rows(idx, src, rows, reduce)),
                ("chainrule", _chainrule_scatter_reduce(idx, src, rows, reduce)),
            ]
            _report(f"{reduce}, {dtype} (reference: torch scatter_reduce_)", cands,
                    _torch_scatter_reduce(idx, src, rows, reduce), repeats)


if __name__ == "__main__":
    main()
