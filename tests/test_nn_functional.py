"""chainrule.nn.functional against torch.nn.functional: the fused backward nodes recorded
under create_graph, double and triple backward values, errors and warnings. (Values,
gradients and first-order nodes of every op are also checked by the op database.)"""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import chainrule
import chainrule.nn.functional as CF

from helpers import assert_same

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
P = rng.uniform(0.1, 0.9, (3, 4))
LABELS = np.array([0, 3, 1])


def _name(n):
    return None if n is None else type(n).__name__.replace("torch::autograd::", "")


def _nexts(t):
    return [_name(n) for n, _ in t.grad_fn.next_functions]


def _both(fn, *arrays, grad=(0,)):
    """fn on chainrule and torch tensors made from `arrays` (ints stay integer tensors)."""
    outs = []
    for lib, F in ((chainrule, CF), (torch, TF)):
        ts = [lib.tensor(a).requires_grad_(i in grad) for i, a in enumerate(arrays)]
        outs.append((fn(lib, F, *ts), ts))
    return outs


DOUBLE = [
    ("softmax", lambda lib, F, x, t: F.softmax(x, 1)),
    ("log_softmax", lambda lib, F, x, t: F.log_softmax(x, 0)),
    ("nll_loss", lambda lib, F, x, t: F.nll_loss(x, lib.tensor(LABELS))),
    ("nll_loss none", lambda lib, F, x, t: F.nll_loss(x, lib.tensor(LABELS), reduction="none")),
    ("nll_loss2d", lambda lib, F, x, t: F.nll_loss(x.view(1, 3, 2, 2),
                                                   lib.tensor([[[0, 1], [2, 0]]]))),
    ("cross_entropy", lambda lib, F, x, t: F.cross_entropy(x, lib.tensor(LABELS))),
    ("cross_entropy probs", lambda lib, F, x, t: F.cross_entropy(x, t, label_smoothing=0.1)),
    ("mse_loss", lambda lib, F, x, t: F.mse_loss(x, t)),
    ("huber_loss", lambda lib, F, x, t: F.huber_loss(x, t, delta=0.5)),
    ("smooth_l1_loss", lambda lib, F, x, t: F.smooth_l1_loss(x, t, beta=0.5, reduction="sum")),
    ("binary_cross_entropy", lambda lib, F, x, t: F.binary_cross_entropy(x.sigmoid(), t)),
    ("bce_with_logits", lambda lib, F, x, t: F.binary_cross_entropy_with_logits(
        x, t, pos_weight=lib.ones(4, dtype=lib.float64) * 2)),
    ("leaky_relu", lambda lib, F, x, t: F.leaky_relu(x, 0.1)),
    ("elu", lambda lib, F, x, t: F.elu(x)),
    ("gelu", lambda lib, F, x, t: F.gelu(x)),
    ("gelu tanh", lambda lib, F, x, t: F.gelu(x, approximate="tanh")),
    ("silu", lambda lib, F, x, t: F.silu(x)),
    ("softplus", lambda lib, F, x, t: F.softplus(x, beta=2.0)),
]


@pytest.mark.parametrize("fn", [f for _, f in DOUBLE], ids=[n for n, _ in DOUBLE])
def test_double_backward_nodes_and_values(fn):
    (yc, (xc, _)), (yt, (xt, _)) = _both(fn, X, P)
    assert_same(yc, yt, 1e-12, 1e-12)
    assert _name(yc.grad_fn) == _name(yt.grad_fn) and _nexts(yc) == _nexts(yt)
    w = rng.standard_normal(tuple(yt.shape))
    gc, = chainrule.autograd.grad((yc * chainrule.tensor(w)).sum(), xc, create_graph=True)
    gt, = torch.autograd.grad((yt * torch.tensor(w)).sum(), xt, create_graph=True)
    assert_same(gc, gt, 1e-12, 1e-10)
    assert _name(gc.grad_fn) == _name(gt.grad_fn) and _nexts(gc) == _nexts(gt)
    v = rng.standard_normal((3, 4))
    ggc, = chainrule.autograd.grad((gc * chainrule.tensor(v)).sum(), xc, create_graph=True)
    ggt, = torch.autograd.grad((gt * torch.tensor(v)).sum(), xt, create_graph=True)
    assert_same(ggc, ggt, 1e-12, 1e-9)


def test_softmax_triple_backward():
    (yc, (xc, _)), (yt, (xt, _)) = _both(lambda lib, F, x, t: F.softmax(x, -1) ** 2, X, P)
    for _ in range(3):
        yc, = chainrule.autograd.grad(yc.sum(), xc, create_graph=True)
        yt, = torch.autograd.grad(yt.sum(), xt, create_graph=True)
        yc, yt = yc * yc, yt * yt
        assert_same(yc, yt, 1e-12, 1e-9)


def test_softmax_is_stable():
    a = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]])
    for f in ("softmax", "log_softmax"):
        assert_same(getattr(CF, f)(chainrule.tensor(a), 1), getattr(TF, f)(torch.tensor(a), 1))


def test_softmax_dtype_and_implicit_dim():
    (yc, _), (yt, _) = _both(lambda lib, F, x: F.softmax(x, 1, dtype=lib.float32), X)
    assert_same(yc, yt, 1e-7, 1e-6)
    assert _name(yc.grad_fn) == _name(yt.grad_fn) and _nexts(yc) == _nexts(yt)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        c = CF.softmax(chainrule.tensor(X))
    with pytest.warns(UserWarning):
        t = TF.softmax(torch.tensor(X))
    assert_same(c, t)


def test_linear_nodes():
    w, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    for shape in [(4,), (3, 4), (2, 3, 4), (2, 2, 3, 4)]:
        x = rng.standard_normal(shape)
        for args in [(x, w, b), (x, w)]:
            (yc, tc), (yt, tt) = _both(lambda lib, F, *a: F.linear(*a), *args, grad=(0, 1, 2))
            assert_same(yc, yt, 1e-12, 1e-12)
            assert _name(yc.grad_fn) == _name(yt.grad_fn) and _nexts(yc) == _nexts(yt)
            yc.sum().backward()
            yt.sum().backward()
            for c, t in zip(tc, tt):
                assert_same(c.grad, t.grad, 1e-12, 1e-12)


def test_one_hot():
    for args in [(np.array([0, 3, 1]),), (np.array([[0, 1], [2, 0]]), 4)]:
        c = CF.one_hot(chainrule.tensor(args[0]), *args[1:])
        t = TF.one_hot(torch.tensor(args[0]), *args[1:])
        assert c.dtype == chainrule.int64
        np.testing.assert_array_equal(c.numpy(), t.numpy())


def _same_error(call):
    with pytest.raises(Exception) as theirs:
        call(torch, TF)
    with pytest.raises(type(theirs.value)) as ours:
        call(chainrule, CF)
    assert str(ours.value) == str(theirs.value)


ERRORS = {
    "class out of range": lambda lib, F: F.nll_loss(lib.tensor(X), lib.tensor([0, 4, 1])),
    "negative class": lambda lib, F: F.cross_entropy(lib.tensor(X), lib.tensor([0, -1, 1])),
    "batch size": lambda lib, F: F.nll_loss(lib.tensor(X), lib.tensor([0, 1])),
    "multi-target": lambda lib, F: F.nll_loss(lib.tensor(X), lib.tensor([[0], [1], [2]])),
    "weight size": lambda lib, F: F.nll_loss(lib.tensor(X), lib.tensor(LABELS),
                                             weight=lib.ones(3, dtype=lib.float64)),
    "nd target size": lambda lib, F: F.nll_loss(lib.tensor(X).view(1, 3, 2, 2),
                                                lib.tensor([[[0, 1, 2], [0, 1, 2]]])),
    "reduction": lambda lib, F: F.mse_loss(lib.tensor(X), lib.tensor(X), reduction="avg"),
    "ce reduction": lambda lib, F: F.cross_entropy(lib.tensor(X), lib.tensor(LABELS),
                                                   reduction="bad"),
    "kl reduction": lambda lib, F: F.kl_div(lib.tensor(X), lib.tensor(X), reduction="x"),
    "broadcast": lambda lib, F: F.mse_loss(lib.tensor(X), lib.tensor(X[:2])),
    "bce size": lambda lib, F: F.binary_cross_entropy(lib.tensor(P), lib.tensor(P[0])),
    "bce logits size": lambda lib, F: F.binary_cross_entropy_with_logits(lib.tensor(X),
                                                                         lib.tensor(P[:, 0])),
    "softmax dim": lambda lib, F: F.softmax(lib.tensor(X), 2),
    "one_hot negative": lambda lib, F: F.one_hot(lib.tensor([0, -1])),
    "one_hot too large": lambda lib, F: F.one_hot(lib.tensor([0, 5]), 3),
    "one_hot float": lambda lib, F: F.one_hot(lib.tensor([0.0, 1.0])),
    "one_hot empty": lambda lib, F: F.one_hot(lib.tensor([], dtype=lib.int64)),
    "gelu approximate": lambda lib, F: F.gelu(lib.tensor(X), approximate="fast"),
}


@pytest.mark.parametrize("call", ERRORS.values(), ids=ERRORS.keys())
def test_errors_match_pytorch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(call)


def test_warnings_match_pytorch():
    for call in [lambda lib, F: F.mse_loss(lib.tensor(X), lib.tensor(X[0])),
                 lambda lib, F: F.kl_div(lib.tensor(X), lib.tensor(P))]:
        with pytest.warns(UserWarning) as theirs:
            call(torch, TF)
        with pytest.warns(UserWarning) as ours:
            call(chainrule, CF)
        assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_ignored_targets_and_zero_total_weight():
    for labels in ([-100, 1, -100], [-100, -100, -100]):
        (yc, (xc, _)), (yt, (xt, _)) = _both(
            lambda lib, F, x, t: F.cross_entropy(x, t), X, np.array(labels))
        assert_same(yc, yt)
        yc.backward()
        yt.backward()
        assert_same(xc.grad, xt.grad)


def test_more_target_errors():
    for call in [lambda lib, F: F.nll_loss(lib.tensor(X), lib.tensor([0.0, 1.0, 2.0])),
                 lambda lib, F: F.nll_loss(lib.tensor(1.0), lib.tensor(0)),
                 lambda lib, F: F.cross_entropy(lib.tensor(X), lib.tensor(P[:, :3]))]:
        _same_error(call)


def test_legacy_reduction_args():
    for kw in [dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True)]:
        (yc, _), (yt, _) = _both(lambda lib, F, x, t: F.mse_loss(x, t, **kw), X, P)
        assert_same(yc, yt)
        assert _name(yc.grad_fn) == _name(yt.grad_fn)
