"""The op database: for every op in the table, how to call it and on which inputs.

An entry is an OpInfo: a function `fn(lib, *tensors, **kwargs)` written against the torch
API, so the same call runs on chainrule and on PyTorch (tinygrad's helper_test_op idea), plus
sample inputs. Each family module (pointwise.py, reduction.py, ...) lists its entries in
`OPS_DB`. tests/test_ops.py runs every sample through gradcheck and gradgradcheck in float64
and compares values, gradients and grad_fn names with PyTorch; a meta-test fails when a table
row has no entry.
"""
import numpy as np

__all__ = ["OpInfo", "Sample", "all_entries"]


class Sample:
    """One call: positional args (NumPy arrays become tensors; other values pass through)
    and keyword args. `grad` lists which array args require grad (default: the floating
    ones)."""

    def __init__(self, *args, grad=None, name=None, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.grad = grad
        self.name = name

    def requires_grad(self, i, a):
        if self.grad is not None:
            return i in self.grad
        return isinstance(a, np.ndarray) and a.dtype.kind == "f"

    def __repr__(self):
        if self.name:
            return self.name
        parts = [f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a)
                 for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return "(" + ", ".join(parts) + ")"


class OpInfo:
    """An entry: `ops` names the table rows it exercises (OPS keys); `fn(lib, *args,
    **kwargs)` calls the op through the torch API; `samples(rng)` returns Samples."""

    def __init__(self, name, fn, samples, *, ops=None, gradcheck=True, gradgradcheck=True,
                 atol=1e-5, rtol=1e-3, compare_atol=1e-7, compare_rtol=1e-7, check_node=True):
        self.name = name
        self.fn = fn
        self.samples = samples
        self.ops = tuple(ops) if ops is not None else (name,)
        self.gradcheck = gradcheck
        self.gradgradcheck = gradgradcheck
        self.atol, self.rtol = atol, rtol
        self.compare_atol, self.compare_rtol = compare_atol, compare_rtol
        self.check_node = check_node

    def __repr__(self):
        return self.name


def all_entries():
    """Every OpInfo of every family module."""
    import importlib
    import pkgutil
    entries = []
    for mod in pkgutil.iter_modules(__path__):
        entries.extend(importlib.import_module(f"{__name__}.{mod.name}").OPS_DB)
    return entries


# ---- helpers for writing samples ----------------------------------------------------------

def randn(rng, *shape):
    # np.asarray: with no shape NumPy returns a scalar, and a 0-d sample must be an array
    return np.asarray(rng.standard_normal(shape))


def positive(rng, *shape, low=0.5, high=2.0):
    return np.asarray(rng.uniform(low, high, shape))


def noncontiguous(a):
    """The same values as `a` in a non-contiguous layout (a transposed copy, transposed)."""
    # 1-D: every other element of a doubled array (a positive stride; torch.tensor rejects
    # negative ones)
    return np.ascontiguousarray(a.T).T if a.ndim >= 2 else np.repeat(a, 2)[::2]
