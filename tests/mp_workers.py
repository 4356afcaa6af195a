"""Top-level functions for tests/test_multiprocessing.py's child processes (spawned children
import this module; it imports a library only when asked to)."""
import importlib
import sys


def lib(name):
    return importlib.import_module(name)


def write_rank(rank, name, out):
    """spawn target: out[rank] = rank + 1 (out is shared memory)."""
    out[rank] = rank + 1


def raise_in(rank, name, bad_rank):
    if rank == bad_rank:
        raise ValueError(f"boom in {rank}")


def exit_with(rank, name, code):
    sys.exit(code)


def add_one(x):
    """Process target: modify a tensor in place."""
    x += 1


def echo_modified(name, inbox, outbox):
    """Get a tensor, modify it in place, send back a new one and its own is_shared(); stay
    alive until the parent has received it (the memory travels by file descriptor, which
    the sender hands over on request)."""
    t = inbox.get(timeout=60)
    with lib(name).no_grad():
        t.mul_(10)
    outbox.put((lib(name).arange(3.), t.is_shared(), type(t).__name__, t.requires_grad))
    inbox.get(timeout=60)


def square(x):
    return x * x


def train_hogwild(model, steps):
    """Change a shared model's parameters in place, as Hogwild training does."""
    for _ in range(steps):
        for p in model.parameters():
            p.data.add_(1.0)
