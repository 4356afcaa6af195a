"""The digits MLP of digits_mlp.py trained data-parallel: every process (rank) trains a replica
on its share of each epoch (DistributedSampler) and DistributedDataParallel averages the
gradients over MPI during backward, so the replicas stay identical.

    python -m chainrule.distributed.run -n 2 examples/ddp_digits.py
    mpiexec -n 2 python examples/ddp_digits.py                 # the same, by hand
    python -m chainrule.distributed.run -n 2 examples/ddp_digits.py --torch   # PyTorch, gloo

Needs scikit-learn for the data and MPI: pip install "chainrule[examples,distributed]".
"""
import argparse
import os
import time

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of chainrule")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--batch-size", type=int, default=64, help="the global batch size")
parser.add_argument("--port", type=int, default=29500, help="PyTorch's rendezvous port")
args = parser.parse_args()

if args.torch:
    import torch
    import torch.distributed as dist
    # PyTorch rendezvous over TCP; mpiexec (MPICH's hydra) says who is who
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}",
                            rank=int(os.environ.get("PMI_RANK", 0)),
                            world_size=int(os.environ.get("PMI_SIZE", 1)))
else:
    import chainrule as torch
    import chainrule.distributed as dist
    dist.init_process_group()          # MPI: mpiexec says who is who
nn, F = torch.nn, torch.nn.functional
from_rank, ranks = dist.get_rank(), dist.get_world_size()

# 1797 images, pixels 0..16; the same split on every rank and for both libraries.
digits = load_digits()
x_train, x_test, y_train, y_test = train_test_split(
    digits.data / 16, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
train = torch.utils.data.TensorDataset(torch.tensor(x_train, dtype=torch.float32),
                                       torch.tensor(y_train))
x_test, y_test = torch.tensor(x_test, dtype=torch.float32), torch.tensor(y_test)
sampler = torch.utils.data.distributed.DistributedSampler(train, seed=args.seed)
loader = torch.utils.data.DataLoader(train, batch_size=args.batch_size // ranks,
                                     sampler=sampler)

torch.manual_seed(args.seed)
model = nn.parallel.DistributedDataParallel(nn.Sequential(
    nn.Linear(64, 128), nn.ReLU(),
    nn.Linear(128, 64), nn.ReLU(),
    nn.Linear(64, 10),
))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def say(*text):
    if from_rank == 0:
        print(*text, flush=True)


say(f"{torch.__name__} {torch.__version__}: MLP 64-128-64-10 on scikit-learn's digits, "
    f"{ranks} ranks, {args.batch_size // ranks} images per rank per step")
start = time.perf_counter()
for epoch in range(1, args.epochs + 1):
    sampler.set_epoch(epoch)            # a new order each epoch, the same on every rank
    model.train()
    total = torch.zeros(2, dtype=torch.float64)         # loss sum, images
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()                 # gradients averaged over the ranks here
        optimizer.step()
        total += torch.tensor([loss.item() * len(y), len(y)], dtype=torch.float64)
    dist.all_reduce(total)
    model.eval()
    with torch.no_grad():
        scores = model.module(x_test)
        test_loss = F.cross_entropy(scores, y_test).item()
        accuracy = (scores.argmax(1) == y_test).float().mean().item()
    say(f"epoch {epoch:>2}/{args.epochs}  train loss {(total[0] / total[1]).item():.6f}  "
        f"test loss {test_loss:.6f}  test accuracy {accuracy:.2%}")
say(f"final test accuracy {accuracy:.2%}, {time.perf_counter() - start:.2f} s")
dist.barrier()        # every rank done before any leaves (PyTorch's store lives on rank 0)
dist.destroy_process_group()
