"""chainrule.autograd.explain: each reason a gradient is None (or zero), built as a program
that runs on both libraries; PyTorch confirms the premise (its .grad is None or zero, or
its backward fails), chainrule's explain names the cause."""
import warnings

import numpy as np
import pytest
import torch

import chainrule
from chainrule.autograd import explain
from chainrule.autograd.explain import REASONS, Explanation


def _integer(T):
    t = T.arange(3)
    return t, None, None


def _requires_grad_false(T):
    x = T.randn(3)
    w = T.randn(3, requires_grad=True)
    out = (x * w).sum()
    out.backward()
    return x, out, None


def _no_grad(T):
    w = T.randn(3, requires_grad=True)
    with T.no_grad():
        h = w * 2
    out = (h * w).sum()
    out.backward()
    return h, out, None


def _inference(T):
    with T.inference_mode():
        t = T.ones(3)
    return t, None, None


def _detached(T):
    w = T.randn(3, requires_grad=True)
    y = w.exp()
    d = y.detach()
    out = (d * w).sum()
    return d, out, None


def _data(T):
    w = T.randn(3, requires_grad=True)
    y = w.exp()
    out = (y * w).sum()
    return y.data, out, None


def _numpy_round_trip(T):
    w = T.randn(3, requires_grad=True)
    y = w.exp()
    out = (y * w).sum()
    return T.from_numpy(y.detach().numpy()), out, None


def _tensor_rewrap(T):
    w = T.randn(3, requires_grad=True)
    y = w.exp()
    out = (y * w).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # PyTorch's "To copy construct..." warning
        return T.tensor(y), out, None


def _item(T):
    w = T.randn(3, requires_grad=True)
    s = (w * w).sum()
    out = s * w.sum()
    return T.tensor(s.item()), out, None


def _non_leaf(T):
    w = T.randn(3, requires_grad=True)
    y = w.exp()
    out = y.sum()
    out.backward()
    return y, out, None


def _not_reachable_leaf(T):
    w = T.randn(3, requires_grad=True)
    v = T.randn(3, requires_grad=True)
    out = (w * 2).sum()
    out.backward()
    return v, out, None


def _not_reachable_branch(T):
    w = T.randn(3, requires_grad=True)
    z = w.exp()
    a, b = z.sin(), z.cos()
    a.retain_grad()
    out = b.sum()
    out.backward()
    return a, out, "ExpBackward0"


def _graph_freed(T):
    w = T.randn(3, requires_grad=True)
    out = (w * w).sum()
    out.backward()
    w.grad = None                  # optimizer.zero_grad(set_to_none=True), then...
    return w, out, "MulBackward0"  # ...a second backward through `out` would fail


def _modified_inplace(T):
    w = T.randn(3, requires_grad=True)
    s = w.sigmoid()
    s.mul_(2)                      # SigmoidBackward0 saved its result
    out = s.sum()
    return w, out, "SigmoidBackward0"


def _hook_zeros(T):
    w = T.randn(3, requires_grad=True)
    w.register_hook(lambda g: g * 0)
    out = (w * 2).sum()
    out.backward()
    return w, out, None


def _node_hook_none(T):
    w = T.randn(3, requires_grad=True)
    y = w * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (None, None))
    out = y.sum()
    out.backward()
    return w, out, None


def _before_backward(T):
    w = T.randn(3, requires_grad=True)
    out = (w * w).sum()
    return w, out, None


CASES = {
    "integer_dtype": _integer,
    "requires_grad_false": _requires_grad_false,
    "no_grad": _no_grad,
    "inference_mode": _inference,
    "detached": _detached,
    "data": _data,
    "numpy": _numpy_round_trip,
    "rewrapped": _tensor_rewrap,
    "item": _item,
    "non_leaf": _non_leaf,
    "not_reachable": _not_reachable_leaf,
    "not_reachable_branch": _not_reachable_branch,
    "graph_freed": _graph_freed,
    "modified_inplace": _modified_inplace,
    "hook": _hook_zeros,
    "node_hook": _node_hook_none,
    "before_backward": _before_backward,
}
EXPECTED = {"numpy": "data", "item": "rewrapped", "not_reachable_branch": "not_reachable",
            "node_hook": "hook"}


def _premise(name, t, out):
    """PyTorch's side: the gradient is really missing (or zero, or backward fails)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # .grad of a non-leaf warns
        grad = t.grad
    if name == "hook":
        assert grad is not None and not grad.any()
    elif name in ("graph_freed", "modified_inplace"):
        with pytest.raises(RuntimeError):
            out.backward()
    else:
        assert grad is None


@pytest.mark.parametrize("name", list(CASES))
def test_explain_names_the_reason(name):
    torch.manual_seed(0)
    t, out, _ = CASES[name](torch)
    _premise(name, t, out)
    chainrule.manual_seed(0)
    t, out, node = CASES[name](chainrule)
    answer = explain(t, out)
    reason = EXPECTED.get(name, name)
    assert isinstance(answer, Explanation)
    assert answer.reason == reason, answer.message
    assert reason in REASONS and not answer and answer.tensor is t
    assert str(answer) == answer.message and len(answer.message) > 40
    if node is not None:
        assert type(answer.node).__name__ == node and node in answer.message


def test_explain_messages_say_what_to_do():
    w = chainrule.randn(3, requires_grad=True)
    y = w.exp()
    assert "retain_grad()" in explain(y).message
    with chainrule.no_grad():
        h = w * 2
    assert "no_grad" in explain(h).message
    d = y.detach()
    assert ".detach()" in explain(d, (d * w).sum()).message
    assert "requires_grad=True" in explain(chainrule.randn(2)).message
    s = w.sigmoid()
    s.mul_(2)
    m = explain(w, s.sum())
    assert "version 0 when saved, 1 now" in m.message
    assert m.details == {"saved": "result", "version": 0, "now": 1}
    # without an output, a leaf whose backward has not run
    assert explain(w).reason == "before_backward" and "output=" in explain(w).message
    assert "Explanation(reason='before_backward'" in repr(explain(w))


def test_a_tensor_whose_gradient_is_fine_says_so():
    w = chainrule.randn(3, requires_grad=True)
    y = w.exp()
    y.retain_grad()
    out = (y * w).sum()
    out.backward()
    for t in (w, y):
        answer = explain(t, out)
        assert answer.reason == "ok" and answer.ok and answer
        assert "has its gradient" in str(answer)
    # a zero gradient without hooks is a real zero, not a problem
    z = chainrule.zeros(3, requires_grad=True)
    (z * 0).sum().backward()
    assert explain(z).ok


def test_explain_checks_its_argument():
    with pytest.raises(TypeError, match="expects a Tensor"):
        explain(np.ones(3))
    with pytest.raises(TypeError, match="chainrule tensors"):
        explain(chainrule.ones(3), torch.ones(3))
