"""Every op in the table, checked three ways on the op database's samples:
gradcheck and gradgradcheck in float64, and values, gradients and grad_fn names against
PyTorch 2.13 on the same inputs."""
import numpy as np
import pytest
import torch

import chainrule
from chainrule.ops.registry import OPS
from chainrule.testing.opdb import all_entries

from helpers import assert_same, node_name

ENTRIES = all_entries()
CASES = [(e, i) for e in ENTRIES for i in range(len(e.samples(np.random.default_rng(0))))]


def _build(entry, sample_index):
    sample = entry.samples(np.random.default_rng(0))[sample_index]
    ours, theirs = [], []
    for i, a in enumerate(sample.args):
        if isinstance(a, np.ndarray):
            rg = sample.requires_grad(i, a)
            ours.append(chainrule.tensor(a).requires_grad_(rg))
            theirs.append(torch.tensor(a).requires_grad_(rg))
        else:
            ours.append(a)
            theirs.append(a)
    return sample, ours, theirs


def _tensors(out):
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, (chainrule.Tensor, torch.Tensor))]
    return [out]


def _ids(case):
    entry, i = case
    return f"{entry.name}-{entry.samples(np.random.default_rng(0))[i]!r}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_matches_pytorch(case):
    entry, index = case
    sample, ours, theirs = _build(entry, index)
    out_c = _tensors(entry.fn(chainrule, *ours, **sample.kwargs))
    out_t = _tensors(entry.fn(torch, *theirs, **sample.kwargs))
    assert len(out_c) == len(out_t)
    for c, t in zip(out_c, out_t):
        assert_same(c, t, entry.compare_atol, entry.compare_rtol)
        assert c.requires_grad == t.requires_grad
        if entry.check_node:
            assert node_name(c) == node_name(t)
            if c.grad_fn is not None:
                assert [node_name_of(n) for n, _ in c.grad_fn.next_functions] == \
                    [node_name_of(n) for n, _ in t.grad_fn.next_functions]
                assert [i for _, i in c.grad_fn.next_functions] == \
                    [i for _, i in t.grad_fn.next_functions]
    # Complex outputs would need a real-valued loss; their gradients are left to other tests.
    diff = [(c, t) for c, t in zip(out_c, out_t) if t.requires_grad and not t.is_complex()]
    if not diff:
        return
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal(t.shape) for _, t in diff]
    loss_c = sum((c * chainrule.tensor(w, dtype=c.dtype)).sum() for (c, _), w in zip(diff, weights))
    loss_t = sum((t * torch.tensor(w, dtype=t.dtype)).sum() for (_, t), w in zip(diff, weights))
    loss_c.backward()
    loss_t.backward()
    for c, t in zip(ours, theirs):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert (c.grad is None) == (t.grad is None)
            if t.grad is not None:
                assert_same(c.grad, t.grad, entry.compare_atol * 10, entry.compare_rtol * 10)


def node_name_of(n):
    if n is None:
        return None
    name = type(n).__name__
    return "AccumulateGrad" if name == "AccumulateGrad" else name


GRAD_CASES = [c for c in CASES if c[0].gradcheck]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[_ids(c) for c in GRAD_CASES])
def test_gradcheck(case):
    entry, index = case
    sample, ours, _ = _build(entry, index)
    assert chainrule.autograd.gradcheck(lambda *xs: entry.fn(chainrule, *xs, **sample.kwargs),
                                        tuple(ours), atol=entry.atol, rtol=entry.rtol)


GRADGRAD_CASES = [c for c in CASES if c[0].gradcheck and c[0].gradgradcheck]


@pytest.mark.parametrize("case", GRADGRAD_CASES, ids=[_ids(c) for c in GRADGRAD_CASES])
def test_gradgradcheck(case):
    entry, index = case
    sample, ours, _ = _build(entry, index)
    assert chainrule.autograd.gradgradcheck(lambda *xs: entry.fn(chainrule, *xs, **sample.kwargs),
                                            tuple(ours), atol=entry.atol, rtol=entry.rtol)


def test_every_differentiable_op_has_an_entry():
    covered = {name for e in ENTRIES for name in e.ops}
    missing = sorted(name for name, row in OPS.items()
                     if row.differentiable and name not in covered)
    assert not missing, f"ops without an op-database entry: {missing}"


def test_entries_name_real_ops():
    unknown = sorted(name for e in ENTRIES for name in e.ops if name not in OPS)
    assert not unknown, f"op-database entries naming unknown ops: {unknown}"
