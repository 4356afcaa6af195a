"""The graph-network demo (`python -m chainrule demo`) and the karate club data it ships."""
import io
import subprocess
import sys

import numpy as np
import torch

import chainrule
from chainrule import demo
from chainrule.__main__ import main
from chainrule.datasets import load_karate_club


def test_karate_club_data():
    data = load_karate_club()
    assert data.classes == ("Mr. Hi", "Officer")
    assert data.edges.shape == (78, 2) and data.weights.shape == (78,)
    assert data.edges.dtype == data.labels.dtype == np.int64
    assert (data.edges[:, 0] < data.edges[:, 1]).all()
    assert len({tuple(e) for e in data.edges}) == 78
    assert data.edges.min() == 0 and data.edges.max() == 33
    assert np.bincount(data.labels).tolist() == [17, 17]
    # the two leaders, and the members whose club networkx's docstring names
    assert [data.classes[data.labels[i]] for i in (0, 5, 9, 33)] == [
        "Mr. Hi", "Mr. Hi", "Officer", "Officer"]
    assert np.bincount(data.edges.ravel(), minlength=34)[[0, 33]].tolist() == [16, 17]


def test_demo_reaches_accuracy():
    # (its speed is measured, not asserted: `python -m chainrule demo` reports its seconds)
    out = io.StringIO()
    accuracy = demo.run(out=out)
    assert accuracy >= 0.9
    text = out.getvalue()
    assert "gradcheck passed" in text
    assert "34 members, 78 friendships" in text
    assert "accuracy on the 32 unlabeled members: 96.9% (wrong: member 8)" in text


def test_gradcheck_of_the_model():
    x, edge_index, edge_weight, labels, _ = demo.load_graph(chainrule)
    chainrule.manual_seed(1)
    params = demo.init_params(chainrule, x.shape[1], edge_weight)
    assert demo.check_gradients(chainrule, x, edge_index, params, labels,
                                chainrule.tensor(demo.LABELED)) is True


def test_same_loss_curve_as_torch():
    ours = demo.train(chainrule, epochs=100, seed=2)
    theirs = demo.train(torch, epochs=100, seed=2)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    assert ours[1] == theirs[1]
    np.testing.assert_array_equal(ours[2].numpy(), theirs[2].numpy())


def test_progress_bar_redraws_one_line_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    out = Terminal()
    bar = demo.ProgressBar(3, out, width=6)
    for epoch in (1, 2, 3):
        bar(epoch, 0.5, 0.75)
    assert out.getvalue() == "".join(
        f"\repoch {e}/3 [{'#' * (2 * e)}{'.' * (6 - 2 * e)}] loss 0.5000  accuracy  75.0%"
        for e in (1, 2, 3)) + "\n"


def test_progress_bar_prints_tenths_when_not_a_terminal():
    out = io.StringIO()
    bar = demo.ProgressBar(25, out)
    for epoch in range(1, 26):
        bar(epoch, 0.1, 1.0)
    assert [line.split("/")[0] for line in out.getvalue().splitlines()] == [
        "epoch  3", "epoch  5", "epoch  8", "epoch 10", "epoch 13", "epoch 15", "epoch 18",
        "epoch 20", "epoch 23", "epoch 25"]


def test_command_line(capsys):
    assert main(["demo", "--epochs", "5", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "gradcheck passed" in text and "epoch 5/5" in text


def test_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "chainrule", "demo", "--epochs", "2"],
                         capture_output=True, text=True, check=True).stdout
    assert "epoch 2/2" in out and "accuracy on the 32 unlabeled members" in out
