"""chainrule.autograd.graph.memory_report: the tensors a graph keeps alive for backward,
against totals computed by hand and against PyTorch's own saved tensors."""
import pytest
import torch

import chainrule
from chainrule.autograd.graph import memory_report
from chainrule.viz import record_modules

F32 = 4


def _mlp(T):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    x = T.randn(5, 3)
    return m, x


def test_mlp_totals_by_hand():
    m, x = _mlp(chainrule)
    with record_modules() as scopes:
        out = m(x)
    loss = out.pow(2).sum()
    r = memory_report(loss, scopes=scopes)
    # AddmmBackward0 (layer 0) saves x [5, 3]; ReluBackward0 its result [5, 4], which the
    # second AddmmBackward0 saves again as mat1 (one storage), with mat2 = W2.t(), a view
    # of W2 [2, 4]; PowBackward0 saves out [5, 2]; SumBackward0 only a shape
    x_b, h_b, w2_b, out_b = 5 * 3 * F32, 5 * 4 * F32, 2 * 4 * F32, 5 * 2 * F32
    assert r["total_bytes"] == x_b + h_b + w2_b + out_b == 212
    assert r["total_count"] == 4
    assert r["by_node_type"] == {
        "AddmmBackward0": {"count": 3, "bytes": x_b + h_b + w2_b},
        "ReluBackward0": {"count": 1, "bytes": h_b},
        "PowBackward0": {"count": 1, "bytes": out_b}}
    assert r["by_module"] == {
        "Sequential.2": {"count": 2, "bytes": h_b + w2_b},
        "Sequential.1": {"count": 1, "bytes": h_b},
        "Sequential.0": {"count": 1, "bytes": x_b}}
    top = r["largest"][0]
    assert top["bytes"] == h_b and top["shape"] == (5, 4) and top["dtype"] == "torch.float32"
    assert r["largest"][3]["shape"] == (2, 4)       # W2's storage, saved as W2.t()
    assert sorted(top["saved_by"]) == ["AddmmBackward0.mat1", "ReluBackward0.result"]
    assert [e["bytes"] for e in r["largest"]] == [h_b, x_b, out_b, w2_b]
    text = str(r)
    assert "total (each storage once)" in text and "212" in text
    assert "Sequential.2" in text and "AddmmBackward0" in text
    # without scopes there is no per-module table
    assert memory_report(loss)["by_module"] == {}


def _torch_saved_total(output):
    """The same total from PyTorch's graph: every _saved_* tensor, once per storage."""
    seen, total, stack, nodes = set(), 0, [output.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in nodes:
            continue
        nodes.add(fn)
        for attr in dir(fn):
            if attr.startswith("_saved_"):
                v = getattr(fn, attr)
                if isinstance(v, torch.Tensor):
                    s = v.untyped_storage()
                    if s.data_ptr() not in seen:
                        seen.add(s.data_ptr())
                        total += s.nbytes()
        stack.extend(f for f, _ in fn.next_functions)
    return total


def test_mlp_total_equals_pytorchs_saved_storages():
    m, x = _mlp(torch)
    expected = _torch_saved_total(m(x).pow(2).sum())
    m, x = _mlp(chainrule)
    assert memory_report(m(x).pow(2).sum())["total_bytes"] == expected == 212


def test_a_tensor_saved_by_several_nodes_counts_once():
    x = chainrule.randn(4, 8, dtype=chainrule.float64, requires_grad=True)
    y = x.sin() + x.cos() + x * x          # four saves of one storage
    z = y.exp()                            # ExpBackward0 saves its result: a new storage
    r = memory_report(z)
    xb = 4 * 8 * 8
    assert r["total_bytes"] == 2 * xb and r["total_count"] == 2
    for kind in ("SinBackward0", "CosBackward0", "MulBackward0", "ExpBackward0"):
        assert r["by_node_type"][kind] == {"count": 1, "bytes": xb}
    saved_by = [sorted(e["saved_by"]) for e in r["largest"]]
    assert ["CosBackward0.self", "MulBackward0.other", "MulBackward0.self",
            "SinBackward0.self"] in saved_by
    # several outputs (a list) share their graph's storages too
    assert memory_report([z, y])["total_bytes"] == 2 * xb


def test_views_share_their_base_storage_and_freed_tensors_are_not_counted():
    w = chainrule.randn(10, 10, requires_grad=True)
    a = w[:2].exp()            # saves its result, a new [2, 10]
    b = (w[2:4] * w[4:6])      # saves two views of w: w's storage, once
    out = a.sum() + b.sum()
    r = memory_report(out)
    assert r["total_bytes"] == 2 * 10 * F32 + 10 * 10 * F32
    out.backward()
    after = memory_report(out)
    assert after["total_bytes"] == 0 and after["freed"] == 3
    assert "already freed" in str(after)


def test_an_expanded_tensor_counts_the_storage_it_views():
    a = chainrule.arange(4.).unsqueeze(-1).expand(4, 1000)     # stride 0: 4 floats stored
    w = chainrule.randn(4, 1000, requires_grad=True)
    r = memory_report((a * w).sum())         # MulBackward0 saves a (for w's gradient)
    assert r["total_bytes"] == 4 * F32
    assert r["largest"][0]["shape"] == (4,)   # the storage's shape, not the view's


def test_in_place_on_a_view_keeps_the_wrapped_nodes_saved_tensors():
    a = chainrule.ones(4, requires_grad=True)
    x = a * 2
    s = chainrule.full((2,), 3.0, requires_grad=True)
    # CopySlices wraps MulBackward0, which saves s and the view's values before the write
    # (a copy of 2 elements: the view itself now holds the product)
    x[1:3].mul_(s)
    r = memory_report(x.sum())
    assert r["by_node_type"]["CopySlices"] == {"count": 2, "bytes": 2 * F32 + 2 * F32}


@pytest.mark.parametrize("bad", [torch.ones(2, requires_grad=True), "x"])
def test_memory_report_refuses_what_is_not_a_chainrule_graph(bad):
    with pytest.raises(TypeError, match="chainrule tensors"):
        memory_report(bad)
