"""A graph network on Zachary's karate club, written as a PyTorch program that runs on
chainrule: the code of `python -m chainrule demo` as one script.

    python examples/karate_club.py            # on chainrule
    python examples/karate_club.py --torch    # the same script on PyTorch, to compare

Knowing only the factions of the two leaders (member 0, Mr. Hi, and member 33, the Officer),
the network predicts which faction each of the other 32 members joined when the club split.
Each layer is a linear transform followed by message passing: every edge has a learnable
weight, and each member sums its neighbours' weighted messages with scatter_add.
"""
import argparse
import time

import numpy as np

from chainrule.datasets import load_karate_club   # NumPy arrays, shipped with chainrule

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of chainrule")
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

if args.torch:
    import torch
else:
    import chainrule as torch
F = torch.nn.functional

# The graph: each friendship as two directed edges, plus a self-loop per member so it keeps
# its own features. Edge weights start at GCN's normalization 1 / sqrt(deg(u) deg(v)).
data = load_karate_club()
n = len(data.labels)
src = np.concatenate([data.edges[:, 0], data.edges[:, 1], np.arange(n)])
dst = np.concatenate([data.edges[:, 1], data.edges[:, 0], np.arange(n)])
degree = np.bincount(dst, minlength=n).astype(np.float32)
edge_index = torch.tensor(np.stack([src, dst]))
edge_weight = torch.tensor(1 / np.sqrt(degree[src] * degree[dst]))
x = torch.eye(n)                       # one-hot member ids: the network learns an embedding each
labels = torch.tensor(data.labels)
labeled = torch.tensor([0, 33])
unlabeled = torch.ones(n, dtype=torch.bool)
unlabeled[labeled] = False


def graph_conv(x, edge_index, weight, bias, edge_weight):
    """Linear transform, then each node sums its in-edges' messages scaled by their weights."""
    h = F.linear(x, weight, bias)
    src, dst = edge_index
    messages = h[src] * edge_weight.unsqueeze(-1)
    return torch.zeros_like(h).scatter_add(0, dst.unsqueeze(-1).expand_as(messages), messages)


def forward(x, params):
    w1, b1, e1, w2, b2, e2 = params
    h = graph_conv(x, edge_index, w1, b1, e1).relu()
    return graph_conv(h, edge_index, w2, b2, e2)


def loss_fn(x, params):
    return F.cross_entropy(forward(x, params)[labeled], labels[labeled])


# Parameters: per layer a weight and bias (initialized as nn.Linear does) and the edge weights.
torch.manual_seed(args.seed)
params = []
for fan_in, fan_out in ((n, 16), (16, 2)):
    linear = torch.nn.Linear(fan_in, fan_out)
    params += [linear.weight, linear.bias, torch.nn.Parameter(edge_weight.clone())]

# Check the gradients of the loss against finite differences, in float64.
params64 = [p.detach().double().requires_grad_() for p in params]
torch.autograd.gradcheck(lambda *ps: loss_fn(x.double(), ps), params64)
print(f"{torch.__name__} {torch.__version__}: gradcheck passed for all "
      f"{sum(p.numel() for p in params)} parameters")

# GCN's settings: Adam, lr 0.01, weight decay 5e-4 on the linear weights. The edge weights learn
# 10x slower and without decay: the two labels pull on only a few of them, and Adam would move
# (or decay) every one by about lr per step.
optimizer = torch.optim.Adam([{"params": [p for i, p in enumerate(params) if i % 3 != 2],
                               "weight_decay": 5e-4},
                              {"params": params[2::3], "lr": 1e-3}], lr=0.01)
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    optimizer.zero_grad()
    scores = forward(x, params)
    loss = F.cross_entropy(scores[labeled], labels[labeled])
    loss.backward()
    optimizer.step()
    accuracy = (scores.argmax(1) == labels)[unlabeled].float().mean().item()
    if epoch % 20 == 0 or epoch == args.epochs:
        print(f"epoch {epoch:>3}/{args.epochs}  loss {loss.item():.6f}  "
              f"accuracy on the unlabeled members {accuracy:.2%}")
print(f"final accuracy {accuracy:.2%}, {time.perf_counter() - start:.2f} s")
