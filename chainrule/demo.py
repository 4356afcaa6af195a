"""The graph-network demo: `python -m chainrule demo`.

A two-layer graph network classifies the members of Zachary's karate club (34 members, 78
friendships) by the faction they joined when the club split, knowing only the factions of
the two leaders, member 0 (Mr. Hi) and member 33 (the Officer): the classic semi-supervised
setup, where the labels spread to the other 32 members through the friendships.

Each layer is a linear transform followed by message passing: every edge carries a learnable
weight, and each member sums its neighbours' weighted messages with `scatter_add`. The code
is written against the torch API with the library as a parameter, so the same model runs
under PyTorch (`train(torch)`) and gives the same losses.
"""
import sys
import time

import numpy as np

__all__ = ["load_graph", "init_params", "graph_conv", "forward", "loss_fn", "check_gradients",
           "train", "ProgressBar", "run"]

HIDDEN = 16
EPOCHS = 200
LABELED = (0, 33)


def load_graph(lib):
    """Features, edges, initial edge weights and labels of the karate club, as lib tensors.

    Features are one-hot member ids (the network learns an embedding per member). Each
    friendship becomes two directed edges, and every member gets a self-loop so it keeps its
    own features; edge weights start at GCN's normalization 1 / sqrt(deg(u) deg(v))."""
    from .datasets import load_karate_club
    data = load_karate_club()
    n = len(data.labels)
    loops = np.arange(n)
    src = np.concatenate([data.edges[:, 0], data.edges[:, 1], loops])
    dst = np.concatenate([data.edges[:, 1], data.edges[:, 0], loops])
    degree = np.bincount(dst, minlength=n).astype(np.float32)
    edge_weight = 1 / np.sqrt(degree[src] * degree[dst])
    return (lib.eye(n), lib.tensor(np.stack([src, dst])), lib.tensor(edge_weight),
            lib.tensor(data.labels), data.classes)


def init_params(lib, in_features, edge_weight, hidden=HIDDEN, classes=2):
    """[weight, bias, edge_weight] of each layer; weights and biases as nn.Linear makes them."""
    params = []
    for fan_in, fan_out in ((in_features, hidden), (hidden, classes)):
        linear = lib.nn.Linear(fan_in, fan_out)
        params += [linear.weight, linear.bias, lib.nn.Parameter(edge_weight.clone())]
    return params


def graph_conv(lib, x, edge_index, weight, bias, edge_weight):
    """Linear transform, then each node sums the messages of its in-edges, each message
    scaled by its edge's weight."""
    h = lib.nn.functional.linear(x, weight, bias)
    src, dst = edge_index
    messages = h[src] * edge_weight.unsqueeze(-1)
    return lib.zeros_like(h).scatter_add(0, dst.unsqueeze(-1).expand_as(messages), messages)


def forward(lib, x, edge_index, params):
    """Class scores of every node: graph_conv, ReLU, graph_conv."""
    w1, b1, e1, w2, b2, e2 = params
    h = graph_conv(lib, x, edge_index, w1, b1, e1).relu()
    return graph_conv(lib, h, edge_index, w2, b2, e2)


def loss_fn(lib, x, edge_index, params, labels, labeled):
    """Cross-entropy on the labeled nodes only."""
    return lib.nn.functional.cross_entropy(forward(lib, x, edge_index, params)[labeled],
                                           labels[labeled])


def check_gradients(lib, x, edge_index, params, labels, labeled):
    """gradcheck of the loss with respect to every parameter, in float64."""
    params64 = [p.detach().double().requires_grad_() for p in params]
    return lib.autograd.gradcheck(
        lambda *ps: loss_fn(lib, x.double(), edge_index, ps, labels, labeled), params64)


def train(lib, epochs=EPOCHS, seed=0, progress=None):
    """Train from seed; returns (losses, accuracy on the unlabeled nodes, predictions).
    progress(epoch, loss, accuracy) is called after each epoch."""
    x, edge_index, edge_weight, labels, _ = load_graph(lib)
    lib.manual_seed(seed)
    params = init_params(lib, x.shape[1], edge_weight)
    labeled = lib.tensor(LABELED)
    unlabeled = lib.ones(len(labels), dtype=lib.bool)
    unlabeled[labeled] = False
    # GCN's settings (Adam, lr 0.01, weight decay 5e-4 on the linear weights). The edge
    # weights learn 10x slower and without decay: two labels pull on only a few of them, and
    # Adam would move (or decay) every one of them by about lr per step.
    weights = [p for i, p in enumerate(params) if i % 3 != 2]
    optimizer = lib.optim.Adam([{"params": weights, "weight_decay": 5e-4},
                                {"params": params[2::3], "lr": 1e-3}], lr=0.01)
    losses = []
    for epoch in range(1, epochs + 1):
        optimizer.zero_grad()
        scores = forward(lib, x, edge_index, params)
        loss = lib.nn.functional.cross_entropy(scores[labeled], labels[labeled])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        predictions = scores.detach().argmax(1)
        accuracy = (predictions == labels)[unlabeled].float().mean().item()
        if progress is not None:
            progress(epoch, losses[-1], accuracy)
    return losses, accuracy, predictions


class ProgressBar:
    """One line redrawn in place on a terminal; every tenth of the run as its own line
    otherwise (a log file or a pipe)."""

    def __init__(self, total, out, width=30):
        self.total, self.out, self.width = total, out, width
        self.tty = out.isatty()

    def __call__(self, epoch, loss, accuracy):
        done = self.width * epoch // self.total
        line = (f"epoch {epoch:>{len(str(self.total))}}/{self.total} "
                f"[{'#' * done}{'.' * (self.width - done)}] loss {loss:.4f}  "
                f"accuracy {accuracy:6.1%}")
        if self.tty:
            self.out.write("\r" + line + ("\n" if epoch == self.total else ""))
            self.out.flush()
        elif 10 * epoch // self.total != 10 * (epoch - 1) // self.total:
            print(line, file=self.out)


def run(lib=None, epochs=EPOCHS, seed=0, out=None):
    """The demo: gradcheck the model, train it with a progress bar, report."""
    if lib is None:
        import chainrule as lib
    out = sys.stdout if out is None else out
    start = time.perf_counter()
    x, edge_index, edge_weight, labels, classes = load_graph(lib)
    n = x.shape[0]
    print(f"Zachary's karate club: {n} members, {(edge_index.shape[1] - n) // 2} friendships, "
          f"factions {classes[0]!r} and {classes[1]!r}.", file=out)
    print(f"Known: member {LABELED[0]} ({classes[int(labels[LABELED[0]])]}) and member "
          f"{LABELED[1]} ({classes[int(labels[LABELED[1]])]}); the network predicts the other "
          f"{n - len(LABELED)}.", file=out)
    print(f"Model: two graph layers (linear transform, then message passing with a learnable "
          f"weight per edge,\naggregated with scatter_add), hidden size {HIDDEN}, ReLU between; "
          f"Adam, seed {seed}.", file=out)
    lib.manual_seed(seed)
    params = init_params(lib, x.shape[1], edge_weight)
    check_gradients(lib, x, edge_index, params, labels, lib.tensor(LABELED))
    print(f"gradcheck passed: the loss's gradients with respect to all "
          f"{sum(p.numel() for p in params)} parameters match\nfinite differences (float64, "
          f"{time.perf_counter() - start:.2f} s).", file=out)
    start = time.perf_counter()
    losses, accuracy, predictions = train(lib, epochs, seed, ProgressBar(epochs, out))
    seconds = time.perf_counter() - start
    wrong = [str(i) for i in np.flatnonzero((predictions != labels).numpy()) if i not in LABELED]
    print(f"accuracy on the {n - len(LABELED)} unlabeled members: {accuracy:.1%}"
          + (f" (wrong: member{'s' * (len(wrong) > 1)} {', '.join(wrong)})" if wrong else ""),
          file=out)
    print(f"final loss {losses[-1]:.4f}; {epochs} epochs trained in {seconds:.2f} s", file=out)
    return accuracy
