"""Convolution and pooling beyond the op database: float32 values and gradients on larger
random inputs, the public names, and PyTorch's errors for bad arguments."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import chainrule
from chainrule.ops import conv

from helpers import assert_same, node_name

CASES = [
    ("conv2d", (2, 6, 11, 9), dict(weight=(6, 2, 3, 4), bias=(6,), stride=(2, 3), padding=(2, 1),
                                   dilation=(2, 1), groups=3)),
    ("conv2d", (3, 4, 8, 8), dict(weight=(4, 1, 5, 5), groups=4, padding="same")),
    ("conv2d", (2, 3, 7, 7), dict(weight=(5, 3, 3, 3), padding="valid", stride=3)),
    ("conv1d", (2, 4, 13), dict(weight=(6, 2, 3), bias=(6,), stride=2, padding=3, dilation=3,
                                groups=2)),
    ("max_pool2d", (2, 3, 11, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool2d", (2, 3, 11, 10), dict(kernel_size=(3, 2), stride=2, padding=1,
                                        count_include_pad=False, ceil_mode=True)),
    ("adaptive_avg_pool2d", (2, 3, 11, 10), dict(output_size=(4, 3))),
]


@pytest.mark.parametrize("name, shape, kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_float32_matches_pytorch(name, shape, kw):
    rng = np.random.default_rng(0)
    kw = dict(kw)
    arrays = [rng.standard_normal(shape).astype(np.float32)]
    for k in ("weight", "bias"):
        if k in kw:
            arrays.append(rng.standard_normal(kw.pop(k)).astype(np.float32))
    ours = [chainrule.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y_c, y_t = getattr(conv, name)(*ours, **kw), getattr(F, name)(*theirs, **kw)
    assert_same(y_c, y_t, 1e-5, 1e-5)
    assert node_name(y_c) == node_name(y_t)
    g = rng.standard_normal(tuple(y_t.shape)).astype(np.float32)
    (y_c * chainrule.tensor(g)).sum().backward()
    (y_t * torch.tensor(g)).sum().backward()
    for c, t in zip(ours, theirs):
        assert_same(c.grad, t.grad, 1e-4, 1e-4)


def test_public_names_follow_torch():
    for name in ("conv1d", "conv2d", "max_pool2d"):
        assert hasattr(torch, name) and hasattr(chainrule, name)
    # PyTorch keeps these in torch._C._nn only (nn.functional wraps them)
    for name in ("avg_pool2d", "adaptive_avg_pool2d"):
        assert not hasattr(torch, name) and not hasattr(chainrule, name)
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5))
    y_c = chainrule.max_pool2d(chainrule.tensor(x, requires_grad=True), 2)
    y_t = torch.max_pool2d(torch.tensor(x, requires_grad=True), 2)
    assert_same(y_c, y_t)
    assert node_name(y_c) == node_name(y_t)


def test_double_backward_nodes():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    for lib, fn in ((chainrule, conv.conv2d), (torch, F.conv2d)):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        gx, gw = lib.autograd.grad(fn(xt, wt).pow(2).sum(), (xt, wt), create_graph=True)
        names = [type(n).__name__ for n, _ in gx.grad_fn.next_functions]
        if lib is torch:
            assert node_name(gx) == ours_name and names == ours_names
        ours_name, ours_names = node_name(gx), names


X = np.zeros((2, 4, 5, 5))
ERRORS = [
    ("conv2d", (X[0, 0], np.zeros((6, 2, 3, 3))), {}),
    ("conv2d", (X, np.zeros((6, 2, 3, 3))), {}),
    ("conv2d", (X[:, :, :2, :2], np.zeros((6, 4, 3, 3))), {}),
    ("conv2d", (X, np.zeros((5, 2, 3, 3))), dict(groups=2)),
    ("conv2d", (X, np.zeros((6, 2, 3, 3))), dict(groups=2, padding="same", stride=2)),
    ("conv2d", (X, np.zeros((6, 2, 3, 3))), dict(groups=2, padding="foo")),
    ("conv2d", (X, np.zeros((6, 2, 3, 3))), dict(groups=2, padding=-1)),
    ("conv2d", (X, np.zeros((6, 2, 3, 3))), dict(groups=2, stride=0)),
    ("conv2d", (X, np.zeros((6, 2, 3, 3)), np.zeros(5)), dict(groups=2)),
    ("conv2d", (X[0], np.zeros((6, 2, 3, 3))), dict(groups=2, stride=(1, 1, 1))),
    ("conv1d", (X, np.zeros((6, 2, 3))), {}),
    ("conv1d", (X[0, :, 0], np.zeros((6, 2, 3))), {}),
    ("max_pool2d", (X[0, 0],), dict(kernel_size=2)),
    ("max_pool2d", (X,), dict(kernel_size=6)),
    ("max_pool2d", (X,), dict(kernel_size=3, padding=2)),
    ("max_pool2d", (X,), dict(kernel_size=3, stride=0)),
    ("max_pool2d", (X,), dict(kernel_size=3, dilation=3)),
    ("avg_pool2d", (X[0, 0],), dict(kernel_size=2)),
    ("avg_pool2d", (X,), dict(kernel_size=6)),
    ("avg_pool2d", (X,), dict(kernel_size=3, padding=2)),
    ("avg_pool2d", (X,), dict(kernel_size=3, divisor_override=0)),
    ("adaptive_avg_pool2d", (X[0, 0],), dict(output_size=2)),
]


@pytest.mark.parametrize("name, args, kw", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_match_pytorch(name, args, kw):
    with pytest.raises(Exception) as theirs:
        getattr(F, name)(*[torch.tensor(a) for a in args], **kw)
    with pytest.raises(theirs.type) as ours:
        getattr(conv, name)(*[chainrule.tensor(a) for a in args], **kw)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("case", ["weight", "input", "bias"])
def test_mixed_dtypes_raise_as_pytorch(case):
    messages = []
    for lib in (chainrule, torch):
        x = lib.ones(1, 1, 3, 3, dtype=lib.float64 if case == "input" else lib.float32)
        w = lib.ones(1, 1, 2, 2, dtype=lib.float64 if case == "weight" else lib.float32)
        b = lib.ones(1, dtype=lib.float64) if case == "bias" else None
        with pytest.raises(RuntimeError) as err:
            lib.conv2d(x, w, b)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
