"""nn.Conv1d / Conv2d and the pooling modules against PyTorch 2.13: seeded parameters,
forward values, gradients and graphs, reprs, constructor errors, and a small CNN."""
import re
import warnings

import numpy as np
import pytest
import torch

import chainrule

from helpers import error_of, same


def _graph(fn):
    """Node names, depth first (AccumulateGrad by its class name)."""
    if fn is None:
        return [None]
    return [type(fn).__name__] + [g for n, _ in fn.next_functions for g in _graph(n)]


def _seeded(T, build, seed=0):
    T.manual_seed(seed)
    return build(T)


CONVS = [
    lambda T: T.nn.Conv2d(3, 4, 3),
    lambda T: T.nn.Conv2d(4, 6, (2, 3), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
    lambda T: T.nn.Conv2d(3, 4, (2, 3), padding="same", bias=False),
    lambda T: T.nn.Conv2d(3, 4, 3, padding="valid", dtype=T.float64),
    lambda T: T.nn.Conv2d(2, 4, 3, padding=1, padding_mode="reflect"),
    lambda T: T.nn.Conv2d(2, 4, (2, 3), padding=(1, 2), padding_mode="replicate"),
    lambda T: T.nn.Conv2d(2, 2, 3, padding=(2, 1), padding_mode="circular", groups=2),
    lambda T: T.nn.Conv2d(2, 4, (2, 3), padding="same", padding_mode="circular", dilation=(1, 2)),
    lambda T: T.nn.Conv1d(2, 4, 3),
    lambda T: T.nn.Conv1d(4, 4, 2, stride=2, padding=1, groups=4, bias=False),
    lambda T: T.nn.Conv1d(2, 3, 4, padding="same"),
    lambda T: T.nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect", dilation=2),
    lambda T: T.nn.Conv1d(2, 3, 2, padding="same", padding_mode="replicate"),
]


@pytest.mark.parametrize("i", range(len(CONVS)))
def test_conv_modules_match_pytorch(i, rng):
    build = CONVS[i]
    conv0 = _seeded(torch, build)
    spatial = (5, 6) if isinstance(conv0, torch.nn.Conv2d) else (7,)
    batched = rng.standard_normal((2, conv0.in_channels) + spatial)

    def prog(T):
        m = _seeded(T, build)
        params = [m.weight] + ([] if m.bias is None else [m.bias])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = T.tensor(batched, dtype=m.weight.dtype, requires_grad=True)
            y = m(x)
            y1 = m(x[1])
        grads = T.autograd.grad((y * y).sum() + y1.sum(), [x] + params)
        graph = _graph(y.grad_fn)
        return ([p.detach() for p in params], y, y1, grads, graph, repr(m),
                m._reversed_padding_repeated_twice)
    # the seeded parameters are bit-for-bit PyTorch's
    ours, theirs = same(prog, atol=1e-5, rtol=1e-5)
    for o, t in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("seed", [0, 3])
def test_seeded_init_float64(seed):
    def prog(T):
        T.manual_seed(seed)
        m = T.nn.Conv2d(6, 9, (3, 2), groups=3, dtype=T.float64)
        return m.weight.detach(), m.bias.detach(), T.rand(2)    # the generator ends in step
    ours, theirs = same(prog)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("args, kw", [
    ((3, 4, 3), dict(groups=0)), ((3, 4, 3), dict(groups=-1)), ((3, 4, 3), dict(groups=2)),
    ((4, 3, 3), dict(groups=2)), ((3, 4, 3), dict(padding="SAME")),
    ((3, 4, 3), dict(padding="same", stride=2)), ((3, 4, 3), dict(padding="same", stride=(1, 2))),
    ((3, 4, 3), dict(padding_mode="zero")), ((3, 4, 3), dict(padding="foo", groups=0))])
def test_conv_constructor_errors(args, kw):
    for cls in ("Conv2d", "Conv1d"):
        ours, theirs = (error_of(lambda: getattr(T.nn, cls)(*args, **kw))
                        for T in (chainrule, torch))
        assert theirs is not None and type(ours) is type(theirs)
        # the messages print a set, whose order varies between processes and .pyc files
        assert _sorted_sets(str(ours)) == _sorted_sets(str(theirs))


def _sorted_sets(message):
    return re.sub(r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m[1].split(", "))) + "}",
                  message)


@pytest.mark.parametrize("build", [
    lambda nn: nn.Conv2d(16, 33, 3, stride=2),
    lambda nn: nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)),
    lambda nn: nn.Conv2d(4, 4, 3, groups=2, bias=False, padding="same", padding_mode="reflect"),
    lambda nn: nn.Conv2d(4, 4, 3, padding="valid"),
    lambda nn: nn.Conv1d(16, 33, 3, stride=2, padding_mode="circular", padding=1),
    lambda nn: nn.Sequential(nn.Conv1d(2, 2, [3]), nn.MaxPool1d(2), nn.AvgPool1d(3, 1, 1)),
    lambda nn: nn.MaxPool2d(3, stride=2),
    lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=2, return_indices=True,
                            ceil_mode=True),
    lambda nn: nn.MaxPool1d(3),
    lambda nn: nn.AvgPool2d(3, stride=2, ceil_mode=True, divisor_override=2),
    lambda nn: nn.AvgPool2d((3, 2), padding=(1, 0)),
    lambda nn: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False),
    lambda nn: nn.AdaptiveAvgPool2d((5, 7)),
    lambda nn: nn.AdaptiveAvgPool2d((None, 7)),
    lambda nn: nn.AdaptiveAvgPool2d(1),
    lambda nn: nn.AdaptiveAvgPool1d(5),
])
def test_reprs(build):
    same(lambda T: repr(build(T.nn)))


POOLS = [
    (lambda nn: nn.MaxPool2d(2), (2, 3, 6, 7)),
    (lambda nn: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (2, 3, 7, 6)),
    (lambda nn: nn.MaxPool2d((2, 3), stride=(1, 2), dilation=(2, 1), return_indices=True),
     (3, 6, 7)),
    (lambda nn: nn.MaxPool1d(3, stride=2, padding=1, return_indices=True), (2, 3, 9)),
    (lambda nn: nn.MaxPool1d(2, dilation=2, ceil_mode=True), (3, 9)),
    (lambda nn: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     (2, 3, 7, 6)),
    (lambda nn: nn.AvgPool2d((2, 3), padding=(1, 1), divisor_override=5), (3, 6, 7)),
    (lambda nn: nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True), (2, 3, 9)),
    (lambda nn: nn.AdaptiveAvgPool2d((4, 3)), (2, 3, 7, 5)),
    (lambda nn: nn.AdaptiveAvgPool2d((None, 2)), (3, 7, 5)),
    (lambda nn: nn.AdaptiveAvgPool2d(1), (2, 3, 7, 5)),
    (lambda nn: nn.AdaptiveAvgPool1d(4), (2, 3, 9)),
    (lambda nn: nn.AdaptiveAvgPool1d(1), (3, 9)),
]


@pytest.mark.parametrize("i", range(len(POOLS)))
def test_pool_modules_match_pytorch(i, rng):
    build, shape = POOLS[i]
    a = rng.permutation(np.prod(shape)).reshape(shape) / 7.0     # distinct: no max-pool ties

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        out = build(T.nn)(x)
        y = out[0] if isinstance(out, tuple) else out
        return out, T.autograd.grad((y * y).sum(), x), _graph(y.grad_fn)
    same(prog)


def test_cnn_loss_and_grads_match_pytorch(rng):
    """Conv2d -> ReLU -> MaxPool2d -> Flatten -> Linear, seeded alike, on the same batch."""
    x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
    target = rng.integers(0, 5, 4)

    def prog(T):
        T.manual_seed(0)
        nn = T.nn
        net = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Flatten(), nn.Linear(6 * 4 * 4, 5))
        inp = T.tensor(x, requires_grad=True)
        loss = nn.functional.cross_entropy(net(inp), T.tensor(target))
        loss.backward()
        return loss, inp.grad, [p.grad for p in net.parameters()]
    same(prog, atol=1e-6, rtol=1e-5)


def test_cnn_trains_like_pytorch(rng):
    """Three SGD steps of a padded, grouped CNN keep the two libraries' losses together."""
    x = rng.standard_normal((4, 2, 9, 9)).astype(np.float32)
    target = rng.integers(0, 3, 4)

    def prog(T):
        T.manual_seed(1)
        nn = T.nn
        net = nn.Sequential(nn.Conv2d(2, 4, 3, padding="same", padding_mode="reflect"),
                            nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2, groups=2),
                            nn.AvgPool2d(2, ceil_mode=True), nn.AdaptiveAvgPool2d(1),
                            nn.Flatten(), nn.Linear(4, 3))
        opt = T.optim.SGD(net.parameters(), lr=0.5)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(T.tensor(x)), T.tensor(target))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    same(prog, atol=1e-5, rtol=1e-5)
