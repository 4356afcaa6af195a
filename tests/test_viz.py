"""chainrule.viz: DOT text (to_dot, render), the real torchviz drawing chainrule graphs, the
interactive page (explore, in headless Chromium) and `python -m chainrule graph`."""
import importlib
import re
import shutil
import sys
import warnings
from collections import Counter

import pytest
import torch

import chainrule
from chainrule.viz import to_dot

# torchviz compares torch.__version__ with "1.9" through distutils; chainrule's own version
# (0.1.0) makes it warn that show_attrs/show_saved need PyTorch >= 1.9, and draw them anyway
TORCHVIZ_VERSION_WARNING = "ignore:make_dot. showing grad_fn attributes"
pytestmark = pytest.mark.filterwarnings("ignore:distutils Version classes:DeprecationWarning")


def load_torchviz(lib):
    """A fresh torchviz whose `import torch` got `lib` (torch, or chainrule, as a user
    running torchviz on chainrule aliases it), leaving sys.modules as it was."""
    pytest.importorskip("graphviz", reason="the test extra's graphviz is not installed")
    keys = ("torch", "torch.autograd", "torchviz", "torchviz.dot")
    before = {k: sys.modules.get(k) for k in keys}
    try:
        sys.modules["torch"] = lib
        sys.modules["torch.autograd"] = lib.autograd
        sys.modules.pop("torchviz", None)
        sys.modules.pop("torchviz.dot", None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)    # its distutils import
            try:
                return importlib.import_module("torchviz")
            except ImportError as e:
                pytest.skip(f"torchviz cannot be imported here: {e}")
    finally:
        for k, v in before.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


_NODE = re.compile(r"^\s*(\w+) \[(.*)\]$", re.S)
_EDGE = re.compile(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?$")


def canon(lines, first_line=False):
    """A DOT body as (Counter of node labels, Counter of (label, label, attrs) edges):
    comparable across runs, whatever the node ids. A node stated twice keeps its last
    statement, as Graphviz does."""
    labels, edges = {}, []
    for line in lines:
        line = line.rstrip("\n").replace("\\n", "\n")
        m = _EDGE.match(line)
        if m:
            edges.append(m.groups())
            continue
        m = _NODE.match(line)
        if m and not m.group(1) in ("graph", "node"):
            label = m.group(2).replace('"', "")
            labels[m.group(1)] = label.split("\n")[0] if first_line else label
    return Counter(labels.values()), Counter((labels[a], labels[b], x) for a, b, x in edges)


# ---- programs drawn on both libraries -------------------------------------------------------

def mlp(torch):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    return m(torch.randn(2, 3)).pow(2).mean(), dict(m.named_parameters())


def cnn(torch):
    torch.manual_seed(0)
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(2 * 3 * 3, 3))
    out = m(torch.randn(2, 1, 8, 8))
    return torch.nn.functional.cross_entropy(out, torch.tensor([0, 2])), m


def custom_function(torch):
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    a = torch.ones(3, requires_grad=True)
    b = torch.full((3,), 2., requires_grad=True)
    return Mul.apply(a.exp(), b).sum(), {"a": a, "b": b}


def inplace(torch):
    a = torch.ones(4, requires_grad=True)
    x = a * 2
    x[1:3].mul_(3)
    x.relu_()
    return x.view(2, 2), {"a": a}       # an output that is a view: its base is drawn too


PROGRAMS = [mlp, cnn, custom_function, inplace]
OPTIONS = [{}, {"show_saved": True}, {"show_attrs": True, "show_saved": True}]
# chainrule's nll_loss backward reads no total_weight, so it saves none (PyTorch's does)
KNOWN = {"cnn": "label=total_weight"}


def _check_same(name, ours, theirs):
    if name in KNOWN and "show_saved" in ours[2]:
        (n_ours, e_ours), (n_theirs, e_theirs) = ours[:2], theirs[:2]
        missing = n_theirs - n_ours
        assert list(missing) and all(k.startswith(KNOWN[name]) for k in missing)
        assert not n_ours - n_theirs and not e_ours - e_theirs
        assert all(b.startswith(KNOWN[name]) for _, b, _ in e_theirs - e_ours)
    else:
        assert ours[:2] == theirs[:2]


@pytest.mark.filterwarnings(TORCHVIZ_VERSION_WARNING)
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "saved", "attrs"])
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_torchviz_draws_chainrule_graphs_as_pytorch_graphs(prog, options):
    first = "show_attrs" in options       # attribute tables differ (sym_strides); names not
    drawn = []
    for lib in (chainrule, torch):
        out, params = prog(lib)
        if not isinstance(params, dict):
            params = dict(params.named_parameters())
        dot = load_torchviz(lib).make_dot(out, params=params, **options)
        drawn.append(canon(dot.body, first) + (options,))
    _check_same(prog.__name__, drawn[0], drawn[1])
    assert sum(drawn[0][0].values()) > 4


@pytest.mark.filterwarnings(TORCHVIZ_VERSION_WARNING)
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "saved", "attrs"])
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_to_dot_draws_what_torchviz_draws_for_pytorch(prog, options):
    first = "show_attrs" in options
    out, params = prog(chainrule)
    ours = canon(to_dot(out, params=params, **options).splitlines(), first) + (options,)
    out, params = prog(torch)
    if not isinstance(params, dict):
        params = dict(params.named_parameters())
    theirs = canon(load_torchviz(torch).make_dot(out, params=params, **options).body, first)
    _check_same(prog.__name__, ours, theirs + (options,))


@pytest.mark.filterwarnings(TORCHVIZ_VERSION_WARNING)
def test_torchviz_raises_pytorchs_error_for_a_saved_tensor_modified_in_place():
    errors, outs = [], []
    for lib in (chainrule, torch):
        a = lib.ones(4, requires_grad=True)
        x = (a * 2).exp()
        x.add_(1)                       # ExpBackward0's saved result is now stale
        outs.append(x.sum())
        with pytest.raises(RuntimeError) as info:
            load_torchviz(lib).make_dot(outs[-1], show_saved=True)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    # to_dot reads saved values without unpacking them, so it still draws the graph
    assert "ExpBackward0" in to_dot(outs[0], show_saved=True)
    with pytest.raises(TypeError, match="chainrule tensors"):
        to_dot(outs[1])


def test_saved_attributes_are_listed_by_dir_as_in_pytorch():
    listed = []
    for lib in (chainrule, torch):
        w = lib.randn(3, 2, requires_grad=True)
        fn = lib.randn(4, 3).mm(w).relu().grad_fn
        listed.append(sorted(a for a in dir(fn) if a.startswith(("_saved_", "_raw_saved_"))))
    assert listed[0] == listed[1] == ["_raw_saved_result", "_saved_result"]
    t = chainrule.nn.functional.nll_loss(chainrule.randn(2, 3, requires_grad=True),
                                         chainrule.tensor([0, 2]))
    # a tensor the op takes as a parameter comes back as a Tensor, as PyTorch's
    assert chainrule.is_tensor(t.grad_fn._saved_target)
    assert t.grad_fn._saved_target.tolist() == [0, 2]


def test_to_dot_labels_and_conventions():
    m = chainrule.nn.Linear(3, 2)
    x = chainrule.randn(4, 3)
    y = m(x).sum()
    src = to_dot(y, params=m)
    assert src.startswith("digraph {") and src.rstrip().endswith("}")
    assert src.source == str(src)
    assert '"weight\\n (2, 3)" fillcolor=lightblue' in src
    assert '"bias\\n (2)" fillcolor=lightblue' in src
    assert '"\\n ()" fillcolor=darkolivegreen1' in src
    assert "AddmmBackward0" in src and "AccumulateGrad" in src
    assert "orange" not in src                     # saved tensors only with show_saved
    saved = to_dot(y, params=m, show_saved=True, show_attrs=True)
    assert '"mat1\\n (4, 3)" fillcolor=orange' in saved
    assert "mat1 : [saved tensor]" in saved.replace("\\l", "").replace("\\n", "\n")
    # several outputs; a freed graph still draws, its saved tensors marked freed
    z = (x.exp() * m.weight.sum()).sum()
    z.backward()
    freed = to_dot(y, z, show_saved=True)
    assert freed.count("darkolivegreen1") == 2
    assert "(freed)" in freed


def test_render_writes_through_dot_or_says_what_to_install(tmp_path, monkeypatch):
    y = (chainrule.ones(2, requires_grad=True) * 3).sum()
    if shutil.which("dot") is not None:
        path = chainrule.viz.render(to_dot(y), tmp_path / "g.svg")
        assert "<svg" in open(path).read()
        assert to_dot(y).render(tmp_path / "h.svg", format="svg").endswith("h.svg")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install Graphviz"):
        chainrule.viz.render(y, tmp_path / "g.svg")
