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
    assert re.search(r"mat1 +: \[saved tensor\]", saved.replace("\\l", "").replace("\\n", "\n"))
    # several outputs; a freed graph still draws, its saved tensors marked freed
    z = (x.exp() * m.weight.sum()).sum()
    z.backward()
    freed = to_dot(y, z, show_saved=True)
    assert freed.count("darkolivegreen1") == 2
    assert "(freed)" in freed
    # a custom Function's saved tensors, freed too
    out, _ = custom_function(chainrule)
    assert to_dot(out).count("orange") == 2 and "(freed)" not in to_dot(out)
    out.backward()
    assert to_dot(out).count("(freed)") == 1


def test_render_writes_through_dot_or_says_what_to_install(tmp_path, monkeypatch):
    y = (chainrule.ones(2, requires_grad=True) * 3).sum()
    if shutil.which("dot") is not None:
        path = chainrule.viz.render(to_dot(y), tmp_path / "g.svg")
        assert "<svg" in open(path).read()
        assert to_dot(y).render(tmp_path / "h.svg", format="svg").endswith("h.svg")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install Graphviz"):
        chainrule.viz.render(y, tmp_path / "g.svg")


# ---- the interactive page --------------------------------------------------------------------

def _model_graph():
    """A small Module-built graph, with module scopes and recorded gradients."""
    nn = chainrule.nn
    chainrule.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 8))
            self.head = nn.Linear(8, 2)

        def forward(self, x):
            return self.head(self.enc(x).tanh())

    net = Net()
    with chainrule.viz.record_modules() as scopes:
        out = net(chainrule.randn(4, 3))
    loss = out.pow(2).mean()
    with chainrule.viz.record_gradients(loss):
        loss.backward(retain_graph=True)
    return net, scopes, loss


def _page_data(path):
    import json
    text = open(path, encoding="utf-8").read()
    start = text.index('type="application/json">') + len('type="application/json">')
    return text, json.loads(text[start:text.index("</script>", start)])


def test_explore_writes_one_self_contained_page(tmp_path):
    from chainrule.autograd._inspect import walk, roots_of
    net, scopes, loss = _model_graph()
    path = chainrule.viz.explore(loss, path=tmp_path / "g.html", params=net, scopes=scopes)
    text, data = _page_data(path)
    assert "http" not in text and "<link" not in text and "src=" not in text   # offline
    nodes, edges = walk(roots_of(loss))
    assert data["backward_nodes"] == len(nodes) == 16
    kinds = Counter(n["k"] for n in data["nodes"])
    assert kinds == {"fn": 10, "acc": 6, "leaf": 6, "out": 1}
    assert {m["name"]: m["cls"] for m in data["modules"]} == {
        "Net": "Net", "Net.enc": "Sequential", "Net.enc.0": "Linear", "Net.enc.1": "ReLU",
        "Net.enc.2": "Linear", "Net.head": "Linear"}
    relu = next(n for n in data["nodes"] if n["l"] == "ReluBackward0")
    assert data["modules"][relu["m"]]["name"] == "Net.enc.1"
    assert relu["d"]["saved"][0]["shape"] == [4, 8] and relu["d"]["saved"][0]["bytes"] == 128
    assert relu["d"]["grad"][0]["shape"] == [4, 8] and relu["d"]["grad"][0]["nan"] == 0
    leaves = {n["d"]["param"] for n in data["nodes"] if n["k"] == "leaf"}
    assert leaves == {name for name, _ in net.named_parameters()}


def _chromium():
    """(playwright's sync_playwright, a Chromium executable), or skip saying what is missing."""
    import os
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser test skipped: Playwright for Python is not installed "
                    "(pip install playwright)")
    exe = os.environ.get("CHAINRULE_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
         if p), None)
    if exe is None:
        pytest.skip("browser test skipped: no Chromium on PATH (apt-get install chromium)")
    return sync_playwright, exe


def open_page(sync_playwright, exe, path):
    """Yield a Playwright page showing `path`, laid out; fail on script errors or on any
    network request."""
    import contextlib

    @contextlib.contextmanager
    def session():
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                errors, requests = [], []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.on("request", lambda r: r.url.startswith("file:") or requests.append(r.url))
                page.goto(f"file://{path}")
                page.wait_for_selector("body[data-ready='1']", timeout=30000)
                yield page
                assert not errors and not requests, (errors, requests)
            finally:
                browser.close()
    return session()


def test_explore_page_in_headless_chromium(tmp_path):
    sync_playwright, exe = _chromium()
    from chainrule.autograd._inspect import walk, roots_of
    net, scopes, loss = _model_graph()
    path = chainrule.viz.explore(loss, path=tmp_path / "g.html", params=net, scopes=scopes)
    with open_page(sync_playwright, exe, path) as page:
        assert int(page.inner_text("#node-count")) == len(walk(roots_of(loss))[0])
        assert page.locator("g.n").count() == 23         # 16 nodes, 6 leaves, 1 output
        page.fill("#search", "relu")
        assert page.inner_text("#search-count") == "1 found"
        page.click("g.n.hit")
        assert page.inner_text("#panel-title") == "ReluBackward0"
        assert page.locator("#saved td.saved-shape").all_inner_texts() == ["[4, 8]"]
        panel = page.inner_text("#panel")
        assert "Net.enc.1" in panel and "AddmmBackward0" in panel and "gradient in" in panel
        # its AccumulateGrad, then the leaf: parameter name, requires_grad and .grad
        page.fill("#search", "head.weight")
        assert page.inner_text("#search-count") == "2 found"
        page.press("#search", "Enter")
        assert "leaf: head.weight" in page.inner_text("#panel")
        page.press("#search", "Enter")
        leaf = page.inner_text("#panel")
        assert "leaf tensor head.weight" in leaf and "requires_grad: true" in leaf
        assert ".grad\nshape" in leaf
        # fold Net.enc into one box, then unfold
        page.click("#modules [data-fold='1']")
        assert page.locator("g.k-group").count() == 1
        # its 5 nodes become one box (AccumulateGrads and leaves belong to no call)
        assert page.locator("g.n").count() == 23 - 5 + 1
        page.click("g.k-group")
        assert "Net.enc" in page.inner_text("#panel-title")
        page.click("#unfold-all")
        assert page.locator("g.n").count() == 23
        # pan and zoom move the view
        before = page.get_attribute("#view", "transform")
        page.mouse.move(300, 400)
        page.mouse.wheel(0, -300)
        assert page.get_attribute("#view", "transform") != before
        shot = tmp_path / "page.png"
        page.screenshot(path=str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10000


# ---- python -m chainrule graph ---------------------------------------------------------------

SCRIPT = """
import chainrule as torch
nn = torch.nn
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
features = model[0](x)
"""


def test_graph_command_draws_the_last_backward_of_a_script(tmp_path, capsys):
    from chainrule.__main__ import main
    backward = chainrule.Tensor.backward
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    out = tmp_path / "g.html"
    assert main(["graph", str(script), "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    _, data = _page_data(out)
    assert data["backward_nodes"] == 11
    relu = next(n for n in data["nodes"] if n["l"] == "ReluBackward0")
    # run with retain_graph and gradient recording: saved tensors kept, gradients shown
    assert not relu["d"]["saved"][0]["freed"] and relu["d"]["grad"][0]["shape"] == [16, 8]
    assert data["modules"][relu["m"]]["name"] == "Sequential.1"
    assert {n["d"]["param"] for n in data["nodes"] if n["k"] == "leaf"} == {
        "0.weight", "0.bias", "2.weight", "2.bias"}
    assert main(["graph", str(script), "--out", str(out), "--var", "features"]) == 0
    assert _page_data(out)[1]["backward_nodes"] == 4      # Addmm, T, two AccumulateGrads
    with pytest.raises(SystemExit, match="defines no variable 'nope'"):
        main(["graph", str(script), "--out", str(out), "--var", "nope"])
    quiet = tmp_path / "quiet.py"
    quiet.write_text("import chainrule\ny = chainrule.ones(2) * 2\n")
    with pytest.raises(SystemExit, match="called backward on no tensor"):
        main(["graph", str(quiet), "--out", str(out)])
    assert chainrule.Tensor.backward is backward        # put back after the run
