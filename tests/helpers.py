"""Shared test helpers: run the same code on chainrule and PyTorch and compare."""
import numpy as np
import torch

import chainrule


def to_torch(x, requires_grad=None):
    """A torch tensor with the same values and dtype as chainrule tensor / array `x`."""
    if isinstance(x, chainrule.Tensor):
        t = torch.from_numpy(x.detach().numpy().copy())
        return t.requires_grad_(x.requires_grad if requires_grad is None else requires_grad)
    return torch.from_numpy(np.array(x))


def assert_same(ours, theirs, atol=1e-7, rtol=1e-7, check_dtype=True):
    """Values (and dtype) of a chainrule tensor equal those of a torch tensor."""
    assert isinstance(ours, chainrule.Tensor), type(ours)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    if check_dtype:
        assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=rtol,
                               equal_nan=True)


def node_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__
