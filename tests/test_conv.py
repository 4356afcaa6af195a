"""Convolution, pooling and padding beyond the op database: float32 values and gradients on
larger random inputs, the public names, graphs, and PyTorch's errors in PyTorch's order."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import chainrule
from chainrule.ops import conv, shape as shape_ops

from helpers import assert_same, error_of, node_name, same, same_error, warnings_of

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
    graphs = []
    for lib, fn in ((chainrule, conv.conv2d), (torch, F.conv2d)):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        gx, gw = lib.autograd.grad(fn(xt, wt).pow(2).sum(), (xt, wt), create_graph=True)
        graphs.append((node_name(gx), [type(n).__name__ for n, _ in gx.grad_fn.next_functions]))
    assert graphs[0] == graphs[1]


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


# ---- checks in PyTorch's order, padding='same' / 'valid', 1-D pooling, padding ------------

class _Functional:
    """nn.functional's conv, pool and pad functions for chainrule (from ops/), so these tests
    do not depend on which names nn/functional.py re-exports."""

    def __init__(self):
        from chainrule.ops import padding
        for name in conv.__all__ + padding.__all__:
            setattr(self, name, getattr(conv, name) if hasattr(conv, name)
                    else getattr(padding, name))
        self.max_pool1d = conv.functional_max_pool1d
        self.max_pool2d = conv.functional_max_pool2d


_CF = _Functional()


def _run(prog):
    """prog(T, F) on both libraries, F their nn.functional."""
    return prog(chainrule, _CF), prog(torch, F)


def _z(T, *shape, dtype="float64"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


def _x(T):
    return _z(T, 1, 2, 5, 6)


def _w(T):
    return _z(T, 3, 2, 2, 3)


CONV_ERRORS = [
    lambda T, F: F.conv2d(_x(T), _w(T)[0], padding="same"),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", stride=(1, 1, 1)),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", dilation=(1, 1, 1)),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="valid", dilation=(1, 1, 1)),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", groups=0),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", groups=2),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", stride=(1, 2)),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", dilation=0),
    lambda T, F: F.conv2d(_x(T), _w(T), padding="same", dilation=(1, -1)),
    lambda T, F: F.conv2d(_x(T), _w(T)[:, :, 0, 0], padding="same"),
    lambda T, F: F.conv2d(_x(T)[0, 0], _w(T), padding="foo"),
    lambda T, F: F.conv1d(_x(T)[0], _w(T), padding="same"),
    lambda T, F: F.conv2d(_x(T), _w(T), dilation=0, stride=0),
    lambda T, F: F.conv2d(_x(T), _w(T), dilation=0, padding=-1),
    lambda T, F: F.conv2d(_x(T)[:, :1], _w(T), dilation=0),
    lambda T, F: F.conv2d(_x(T), _w(T).float(), dilation=0),
    lambda T, F: F.conv2d(_x(T), _w(T).float(), stride=(1, 1, 1)),
    lambda T, F: F.conv2d(_x(T), _w(T), dilation=(0, -1)),
    lambda T, F: F.conv2d(_x(T)[:, :, :1], _w(T), dilation=(2, 1)),
    lambda T, F: F.conv2d(_x(T)[:, :, :1], _w(T), dilation=(0, 1)),
    lambda T, F: F.conv2d(_x(T), _w(T), padding=(1, 1, 1), groups=0),
    lambda T, F: F.conv2d(_x(T)[0, 0], _w(T), _z(T, 3, dtype="float32")),
    lambda T, F: F.conv2d(_x(T), _w(T), _z(T, 2), dilation=0),
    lambda T, F: F.conv2d(_x(T), _w(T)[:, :, :, 0]),
    lambda T, F: F.conv2d(_x(T), _w(T)[..., None]),
    lambda T, F: F.conv2d(_x(T), _w(T)[:, :, :, 0], stride=(1,), padding=(0,), dilation=(1,)),
    lambda T, F: F.conv2d(_x(T), _w(T)[:, :, 0, 0]),
    lambda T, F: F.conv2d(_x(T), _w(T), stride=()),
    lambda T, F: F.conv2d(_x(T), _w(T), groups=8),
    lambda T, F: F.conv1d(_x(T)[0], _w(T)),
]


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_conv_errors_in_pytorch_order(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # uneven 'same' warns before some errors
        same_error(lambda T: CONV_ERRORS[i](T, _CF if T is chainrule else F))


@pytest.mark.parametrize("padding, dilation, shape", [
    ("same", (1, 2), (1, 2, 5, 6)), ("same", 1, (2, 5, 6)), ("same", 3, (1, 2, 6, 7)),
    ("valid", 1, (1, 2, 5, 6))])
def test_same_and_valid_graph(padding, dilation, shape, rng):
    """Uneven 'same' pads the input on the right with constant_pad_nd first, as PyTorch."""
    x, w, b = rng.standard_normal(shape), rng.standard_normal((3, 2, 2, 3)), rng.standard_normal(3)

    def prog(T):
        xs = [T.tensor(a, requires_grad=True) for a in (x, w, b)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = (F if T is torch else _CF).conv2d(*xs, padding=padding, dilation=dilation)
        grads = T.autograd.grad((y * y).sum(), xs)
        return y, grads, _graph(y.grad_fn)
    same(prog)


def _graph(fn):
    """Node names, depth first (AccumulateGrad by its class name)."""
    if fn is None:
        return [None]
    return [type(fn).__name__] + [g for n, _ in fn.next_functions for g in _graph(n)]


def test_same_uneven_warns_once():
    message = ("Using padding='same' with even kernel lengths and odd dilation may require a "
               "zero-padded copy of the input be created")
    shape_ops._warned.discard(message)     # TORCH_WARN_ONCE: once per process
    x, w = chainrule.zeros(1, 1, 4, 4), chainrule.zeros(1, 1, 2, 2)
    assert warnings_of(lambda: conv.conv2d(x, w, padding="same")) == [("UserWarning", message)]
    assert warnings_of(lambda: conv.conv2d(x, w, padding="same")) == []
    theirs = warnings_of(lambda: F.conv2d(torch.zeros(1, 1, 4, 4), torch.zeros(1, 1, 2, 2),
                                          padding="same"))
    assert theirs in ([], [("UserWarning", message)])


def test_string_padding_casts_a_bias_of_another_dtype(rng):
    """Only the int-padding overloads check the bias dtype; 'same'/'valid' cast it."""
    x, w = rng.standard_normal((1, 2, 4, 5)), rng.standard_normal((3, 2, 3, 3))
    b = rng.standard_normal(3)
    for padding in ("same", "valid"):
        def prog(T):
            xs = [T.tensor(x, dtype=T.float32, requires_grad=True),
                  T.tensor(w, dtype=T.float32, requires_grad=True),
                  T.tensor(b, requires_grad=True)]
            y = (F if T is torch else _CF).conv2d(*xs, padding=padding)
            y.sum().backward()
            return y, [t.grad for t in xs]
        same(prog, atol=1e-5, rtol=1e-5)


def _pool_x(T, shape, rg):
    return _z(T, *shape).requires_grad_(rg)


POOL_ERRORS = [
    lambda T, F, rg: F.max_pool1d(_z(T, 7), 3),
    lambda T, F, rg: F.max_pool1d(_z(T, 1, 2, 3, 7), 3),
    lambda T, F, rg: F.max_pool1d(_z(T, 2, 0, 7), 3),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 8),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, padding=2),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, stride=0),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, dilation=0),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), (3, 3)),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 0),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, padding=-1),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, stride=(1, 1)),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, padding=(1, 1)),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, dilation=(1, 1)),
    lambda T, F, rg: F.max_pool1d(_z(T, 7), 3, return_indices=True),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), (3, 3), return_indices=True),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, 1, (1, 1), 1, False, True),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, padding=2, return_indices=True),
    lambda T, F, rg: F.max_pool1d(_pool_x(T, (2, 3, 7), rg), 3, dilation=0, return_indices=True),
    lambda T, F, rg: F.max_pool1d(_z(T, 2, 2, 0), 3, return_indices=True),
    lambda T, F, rg: F.avg_pool1d(_z(T, 7), 3),
    lambda T, F, rg: F.avg_pool1d(_z(T, 2, 0, 7), 3),
    lambda T, F, rg: F.avg_pool1d(_pool_x(T, (2, 3, 7), rg), 8),
    lambda T, F, rg: F.avg_pool1d(_pool_x(T, (2, 3, 7), rg), (3, 3)),
    lambda T, F, rg: F.avg_pool1d(_pool_x(T, (2, 3, 7), rg), 3, stride=-1),
    lambda T, F, rg: F.adaptive_avg_pool1d(_z(T, 7), 3),
    lambda T, F, rg: F.adaptive_avg_pool1d(_pool_x(T, (2, 3, 7), rg), (3, 3)),
    lambda T, F, rg: F.adaptive_avg_pool1d(_pool_x(T, (2, 3, 7), rg), -1),
    lambda T, F, rg: F.max_pool2d(_z(T, 2, 0, 5, 5), 2),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), (2, 2, 2)),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, stride=(2, 2, 2)),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, padding=(1, 1, 1)),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, dilation=(1, 1, 1)),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, padding=-1),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, dilation=0),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, stride=-1),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), -1),
    lambda T, F, rg: F.max_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 3, padding=2, dilation=3),
    lambda T, F, rg: F.max_pool2d(_z(T, 2, 2, 3, 5, 5), 2),
    lambda T, F, rg: F.avg_pool2d(_z(T, 2, 3, 0, 5), 2),
    lambda T, F, rg: F.avg_pool2d(_z(T, 2, 2, 3, 5, 5), 2),
    lambda T, F, rg: F.avg_pool2d(_z(T, 5, 5), 2, divisor_override=0),
    lambda T, F, rg: F.avg_pool2d(_pool_x(T, (2, 3, 5, 5), rg), (2, 2, 2)),
    lambda T, F, rg: F.avg_pool2d(_pool_x(T, (2, 3, 5, 5), rg), 2, stride=-1),
    lambda T, F, rg: F.adaptive_avg_pool2d(_pool_x(T, (2, 3, 5, 5), rg), (2, 2, 2)),
    lambda T, F, rg: F.adaptive_avg_pool2d(_pool_x(T, (2, 3, 5, 5), rg), -1),
    lambda T, F, rg: F.adaptive_avg_pool2d(_z(T, 2, 3, 0, 5), 2),
    lambda T, F, rg: F.adaptive_avg_pool2d(_z(T, 2, 3, 4, 5, 5), 2),
    lambda T, F, rg: F.adaptive_avg_pool2d(_z(T, 5), 1),
    lambda T, F, rg: F.adaptive_avg_pool2d(_z(T, 5, 5), (None, 2)),
]


@pytest.mark.parametrize("rg", [False, True], ids=["no-grad", "grad"])
@pytest.mark.parametrize("i", range(len(POOL_ERRORS)))
def test_pool_errors_match_pytorch(i, rg):
    same_error(lambda T: POOL_ERRORS[i](T, _CF if T is chainrule else F, rg))


POOL_CALLS = [
    lambda T, F, x: F.max_pool1d(x, 3, 2, 1, return_indices=True),
    lambda T, F, x: F.max_pool1d(x[0], 2, dilation=2, ceil_mode=True),
    lambda T, F, x: T.max_pool1d_with_indices(x, 3),
    lambda T, F, x: F.avg_pool1d(x, 3, 2, 1, True, False),
    lambda T, F, x: F.adaptive_avg_pool1d(x, 4),
    lambda T, F, x: F.adaptive_avg_pool1d(x[0], 1),
    lambda T, F, x: F.max_pool2d(x[:, None], (1, 3), return_indices=True),
    lambda T, F, x: F.max_pool2d_with_indices(x[:, None], 2, ceil_mode=True),
    lambda T, F, x: F.adaptive_avg_pool2d(x[:, None], 1),
    lambda T, F, x: F.adaptive_avg_pool2d(x[None], (None, 3)),
    lambda T, F, x: F.max_pool1d(x[:0], 3),
]


@pytest.mark.parametrize("i", range(len(POOL_CALLS)))
def test_pool_values_grads_and_graphs(i, rng):
    a = rng.permutation(2 * 3 * 9).reshape(2, 3, 9) / 7.0     # distinct: no max-pool ties

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        out = POOL_CALLS[i](T, _CF if T is chainrule else F, x)
        y = out[0] if isinstance(out, tuple) else out
        grad = T.autograd.grad((y * y).sum(), x) if y.numel() else None
        return type(out).__name__, out, grad, _graph(y.grad_fn)
    same(prog)


PAD_ERRORS = [
    ((1, 2, 3, 3), (1,), "constant", {}), ((1, 2, 3, 3), (1, 1) * 5, "constant", {}),
    ((1, 2, 3, 3), (3, 3, 0, 0), "reflect", {}), ((1, 2, 3, 3), (0, 0, 3, 3), "reflect", {}),
    ((1, 2, 3, 3), (4, 0, 0, 0), "circular", {}), ((1, 2, 3, 3), (1, 1), "reflect", {"value": 1.}),
    ((1, 2, 3, 3), (1, 1), "foo", {}), ((1, 2, 3, 3), (-4, 0), "constant", {}),
    ((1, 2, 3, 3), (1.5, 0), "constant", {}), ((3,), (1, 1), "reflect", {}),
    ((3,), (1, 1), "circular", {}), ((0, 3), (1, 1), "reflect", {}),
    ((2, 0, 3), (1, 1), "reflect", {}),
    ((2, 3, 0), (1, 1), "replicate", {}), ((2, 3, 1), (1, 1), "reflect", {}),
    ((2, 3), (-2, -2), "reflect", {}), ((2, 3), (-3, 0), "replicate", {}),
    ((1, 2, 3, 3), (-3, 0, -3, 0), "reflect", {}), ((1, 2, 3, 3), (-3, 0, -3, 0), "replicate", {}),
    ((1, 2, 3, 3), (-2, -2, 0, 0), "reflect", {}), ((1, 2, 3, 3), (-2, -2, 0, 0), "replicate", {}),
    ((1, 2, 3, 3, 3), (-3, 0, -3, 0, -3, 0), "reflect", {}),
    ((1, 2, 3, 3, 3), (0, 0, 0, 0, -2, -2), "replicate", {}),
    ((2, 3, 3, 3), (1, 1, 3, 1, 3, 1), "reflect", {}), ((2, 3), (-2, -2), "circular", {}),
    ((2, 3), (-4, 4), "circular", {}), ((2, 3, 3), (1, 1), "reflect", {"dtype": "bool"}),
    ((2, 3), (1, 1), "constant", {"value": "a"}), ((2, 3), 1, "constant", {}),
    ((2, 3), (True, False), "constant", {}), ((2, 3), (1, 1), None, {}),
    ((2, 3, 3), (1, 1, 1, 1, 1, 1), "replicate", {}), ((2, 3), (), "reflect", {}),
    ((2, 3), (1, 1), "constant", {"dtype": "uint8", "value": 300}),
]


@pytest.mark.parametrize("shape, pad, mode, kw", PAD_ERRORS)
def test_pad_errors_match_pytorch(shape, pad, mode, kw):
    kw = dict(kw)
    dtype = kw.pop("dtype", "float64")
    same_error(lambda T: (F if T is torch else _CF).pad(_z(T, *shape, dtype=dtype), pad, mode,
                                                        **kw))


@pytest.mark.parametrize("dtype, pad, value", [
    ("float32", (1,), 0), ("float32", (1, 1) * 3, 0), ("float32", (-4, 0), 0),
    ("float32", (1., 1), 0), ("float32", (1, 1), 1j), ("float64", (1, 1), 1j),
    ("int64", (1, 1), 1e30), ("int64", (1, 1), float("nan")), ("uint8", (1, 1), -256),
    ("float16", (1, 1), 1e6), ("int8", (1, 1), -128.9), ("complex64", (1, 1), 1e39),
    ("int32", (1, 1), 2 ** 31), ("int16", (1, 1), -32769)])
def test_constant_pad_nd_errors_match_pytorch(dtype, pad, value):
    same_error(lambda T: T.constant_pad_nd(_z(T, 2, 3, dtype=dtype), pad, value))


@pytest.mark.parametrize("dtype, value", [
    ("int64", 2.7), ("int64", -2.7), ("uint8", -255), ("bool", 7.5), ("bool", 1j),
    ("float32", float("nan")), ("float16", float("inf")), ("int64", 2 ** 62 + 1),
    ("complex64", 2 + 1j), ("float32", 2 + 0j), ("int64", -2 ** 63)])
def test_constant_pad_nd_value_cast(dtype, value):
    same(lambda T: T.constant_pad_nd(_z(T, 2, 3, dtype=dtype), (1, 0, 0, 1), value))


def test_pad_value_is_a_float():
    """F.pad's value is a double (2**62 + 1 rounds); constant_pad_nd keeps a Python int."""
    same(lambda T: (F if T is torch else _CF).pad(_z(T, 2, 3, dtype="int64"), (1, 1),
                                                  value=2 ** 62 + 1))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 5), (2, 1)), ((2, 3, 4, 5), (1, -1, 2, 3)),
                                        ((1, 2, 3, 4, 5), (1, 2, 0, 1, 2, 2))])
def test_pad_values_and_grads_float32(mode, shape, pad, rng):
    a = rng.standard_normal(shape).astype(np.float32)

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        y = (F if T is torch else _CF).pad(x, pad, mode)
        g = T.autograd.grad((y * y).sum(), x)
        return y, g, _graph(y.grad_fn)
    same(prog, atol=1e-6, rtol=1e-6)


def test_circular_pad_graph_matches_pytorch():
    same(lambda T: _graph((F if T is torch else _CF).pad(
        T.zeros(1, 2, 3, 4, requires_grad=True), (1, 2, 2, -1), "circular").grad_fn))


def test_pad_double_backward_nodes(rng):
    a = rng.standard_normal((2, 3, 4))
    for mode in ("reflect", "replicate", "constant"):
        def prog(T):
            x = T.tensor(a, requires_grad=True)
            y = (F if T is torch else _CF).pad(x, (1, 2), mode)
            g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
            gg, = T.autograd.grad((g * g).sum(), x)
            return g, gg, _graph(g.grad_fn)
        same(prog)


POOL_FNS = {
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2, 1, 1, return_indices=True),
    "max_pool1d": lambda F, x: F.max_pool1d(x[0], 2),
    "max_pool1d_with_indices": lambda F, x: F.max_pool1d(x[0], 2, return_indices=True),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 2, 1, 1, count_include_pad=False),
    "avg_pool2d_divisor": lambda F, x: F.avg_pool2d(x, 2, 1, divisor_override=3),
    "avg_pool1d": lambda F, x: F.avg_pool1d(x[0], 2),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, 2),
    "adaptive_avg_pool2d_mean": lambda F, x: F.adaptive_avg_pool2d(x, 1),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "complex64", "float16"])
@pytest.mark.parametrize("name", POOL_FNS)
def test_pool_dtypes(name, dtype):
    """Integer max pooling, int64 average pooling (divided toward zero), and PyTorch's
    errors for dtypes it has no kernel for."""
    a = np.array([[[[1, 2, -3], [3, 4, -8], [5, -7, 9]]]]) % (2 if dtype == "bool" else 99)

    def prog(T):
        return POOL_FNS[name](_CF if T is chainrule else F, T.tensor(a, dtype=getattr(T, dtype)))
    if error_of(lambda: prog(torch)) is not None:
        same_error(prog)
    else:
        same(prog, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("values, kw", [
    ([[[-5, -3], [-2, -4]]], dict(kernel_size=2)),
    ([[[-2 ** 63, -2 ** 63], [-2 ** 63, -2 ** 63]]], dict(kernel_size=2, padding=1)),
    ([[[1., float("nan"), 3.], [float("nan"), 2., 0.]]], dict(kernel_size=(2, 3))),
    ([[[-float("inf")] * 2] * 2], dict(kernel_size=2, padding=1, stride=1)),
    ([[[2., 2.], [2., 2.]]], dict(kernel_size=2, padding=1, stride=1)),
    # non-overlapping windows: a tie across rows, NaN first / last / twice, all lowest
    ([[[1., 3., float("nan"), 0., -float("inf"), -float("inf")],
       [3., 0., 5., float("nan"), -float("inf"), -float("inf")],
       [float("nan"), 2., 7., 7., 4., 4.],
       [float("nan"), 9., 7., 7., 4., 4.]]], dict(kernel_size=2)),
    ([[[3, 3, 1, 5], [3, 3, 5, 5]]], dict(kernel_size=2)),
    # ceil_mode partial windows, strides past the kernel, dilation with padding
    ([[[-float("inf"), 1., 1.], [1., -float("inf"), float("nan")],
       [-float("inf"), -float("inf"), -float("inf")]]], dict(kernel_size=2, ceil_mode=True)),
    ([[[0., 1., 1., 0., 2.], [1., 0., 0., 2., 2.], [3., 3., 3., 3., 3.]]],
     dict(kernel_size=(1, 2), stride=(2, 3))),
    ([[[1., 1., 1., 1.], [1., float("nan"), 1., 1.], [1., 1., 1., 1.]]],
     dict(kernel_size=3, dilation=(1, 2), padding=1, stride=1))])
def test_max_pool_ties_nan_and_lowest(values, kw):
    """The first maximum inside the input wins, the last NaN, and a window of the lowest
    value points at its first position inside the input (never at padding)."""
    same(lambda T: (F if T is torch else _CF).max_pool2d(T.tensor(values), return_indices=True,
                                                          **kw))
