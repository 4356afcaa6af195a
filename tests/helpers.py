"""Shared test helpers: run the same code on chainrule and PyTorch and compare."""
import math
import warnings

import numpy as np
import torch

import chainrule


def to_torch(x, requires_grad=None):
    """A torch tensor with the same values and dtype as chainrule tensor / array `x`."""
    if isinstance(x, chainrule.Tensor):
        t = torch.from_numpy(x.detach().numpy().copy())
        return t.requires_grad_(x.requires_grad if requires_grad is None else requires_grad)
    return torch.from_numpy(np.array(x))


def assert_same(ours, theirs, atol=1e-7, rtol=1e-7, check_dtype=True):
    """Values (and dtype) of a chainrule tensor equal those of a torch tensor."""
    assert isinstance(ours, chainrule.Tensor), type(ours)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    if check_dtype:
        assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=rtol,
                               equal_nan=True)


def node_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# ---- run one program on both libraries and compare everything it returns ----------------

LIBS = (chainrule, torch)


# ---- comparison helpers -------------------------------------------------------------------

def same(prog, atol=1e-6, rtol=1e-6):
    """Run `prog(T)` on both libraries and compare what it returns: tensors (values, dtype,
    shape, requires_grad, grad_fn name), nodes (name), dtypes, sizes, numbers, strings and
    nested tuples / lists / dicts of them. Returns (ours, theirs)."""
    ours, theirs = prog(chainrule), prog(torch)
    compare(ours, theirs, atol, rtol)
    return ours, theirs


def compare(a, b, atol=1e-6, rtol=1e-6, path="result"):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, chainrule.Tensor), f"{path}: {type(a)}"
        assert str(a.dtype) == str(b.dtype), f"{path}: dtype {a.dtype} != {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"{path}: shape {a.shape} != {b.shape}"
        assert a.requires_grad == b.requires_grad, f"{path}: requires_grad"
        assert node_qualified_name(a.grad_fn) == node_qualified_name(b.grad_fn), \
            f"{path}: grad_fn {node_qualified_name(a.grad_fn)} != {node_qualified_name(b.grad_fn)}"
        x, y = a.detach().numpy(), b.detach().numpy()
        if x.dtype.kind in "fc":
            np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(x, y, err_msg=path)
    elif isinstance(b, torch.Size):
        assert type(a) is chainrule.Size and tuple(a) == tuple(b) and repr(a) == repr(b), path
    elif isinstance(b, (torch.dtype, torch.device)):
        assert str(a) == str(b), f"{path}: {a} != {b}"
    elif hasattr(b, "next_functions"):
        assert node_qualified_name(a) == node_qualified_name(b), f"{path}: {node_qualified_name(a)} != {node_qualified_name(b)}"
    elif isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype, path
        np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True, err_msg=path)
    elif isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, atol, rtol, f"{path}[{i}]")
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), f"{path}: {a!r} != {b!r}"
        for k in b:
            compare(a[k], b[k], atol, rtol, f"{path}[{k!r}]")
    elif isinstance(b, float):
        assert type(a) is float, f"{path}: {a!r} is not a float"
        assert math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or (a != a and b != b), \
            f"{path}: {a!r} != {b!r}"
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


def node_qualified_name(node):
    """A node's name() (torch::autograd::AccumulateGrad for leaves), or None."""
    return None if node is None else node.name()


def error_of(fn):
    try:
        fn()
    except Exception as e:     # noqa: BLE001  (any exception is compared)
        return e
    return None


def _kind(e):
    builtin = next(k for k in type(e).__mro__ if k.__module__ == "builtins")
    return type(e).__name__, builtin.__name__


def same_error(prog):
    """`prog(T)` raises the same exception class and message on both libraries."""
    theirs = error_of(lambda: prog(torch))
    assert theirs is not None, "PyTorch raised nothing"
    ours = error_of(lambda: prog(chainrule))
    assert ours is not None, f"chainrule raised nothing; PyTorch raised {theirs!r}"
    assert _kind(ours) == _kind(theirs), (ours, theirs)
    assert str(ours) == str(theirs)
    return ours


def warnings_of(fn):
    """(class name, text) of each warning fn emits; PyTorch's C++ suffix is cut."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message).split(" (Triggered internally at ")[0])
            for w in caught]


def same_warnings(prog):
    """`prog(T)` emits the same warnings (class and text) on both libraries, and at least
    one."""
    theirs = warnings_of(lambda: prog(torch))
    assert theirs, "PyTorch warned nothing"
    assert warnings_of(lambda: prog(chainrule)) == theirs
    return theirs


# ---- the reference, entry by entry --------------------------------------------------------
# Each program is written against the torch API; ids are the reference's entry numbers.
