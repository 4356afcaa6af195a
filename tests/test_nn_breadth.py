"""The nn functions torch has at the top level (and their torch.nn.functional forms and
modules), run as the same program on chainrule and PyTorch: values, dtypes, gradients to
second order, the graphs both record (node names to several levels), in-place variants,
seeded random draws, errors, warnings, and the modules' reprs, parameters, state_dicts,
seeded initialisation and training/evaluation behaviour. (Gradcheck and first-order
comparisons of every row are in the op database.)"""
import collections

import numpy as np
import pytest
import torch

import chainrule

from helpers import compare, same, same_error, same_warnings

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
X[0, 0] = 0.0
X3 = rng.standard_normal((2, 6, 3))
X4 = rng.standard_normal((2, 3, 2, 2))
W6, B6 = rng.standard_normal(6), rng.standard_normal(6)
A, B, C = (rng.standard_normal((3, 4)) for _ in range(3))


def F(T):
    return T.nn.functional


def graph(t, depth):
    """The names of t's graph, to `depth` levels: (name, (children...))."""
    def walk(node, d):
        if node is None:
            return None
        if d == 0:
            return node.name()
        return node.name(), tuple(walk(n, d - 1) for n, _ in node.next_functions)
    return walk(t.grad_fn, depth)


def program(f, *arrays, grad=None, order=2, depth=8):
    """A program running f(T, *tensors) and returning its outputs, their graphs, the
    gradients of a weighted sum of the first output (with their graphs, built with
    create_graph) and, for order 2, the gradients of those."""
    def prog(T):
        ts = [T.tensor(a, requires_grad=a.dtype.kind == "f" if grad is None else i in grad)
              if isinstance(a, np.ndarray) else a for i, a in enumerate(arrays)]
        y = f(T, *ts)
        ys = y if isinstance(y, (tuple, list)) else (y,)
        out = [ys, [graph(t, depth) for t in ys if isinstance(t, T.Tensor)]]
        leaves = [t for t in ts if isinstance(t, T.Tensor) and t.requires_grad]
        if order and ys[0].requires_grad:
            w = T.tensor(np.linspace(-1, 1.3, ys[0].numel()).reshape(ys[0].shape),
                         dtype=ys[0].dtype)
            gs = T.autograd.grad((ys[0] * w).sum(), leaves, create_graph=True,
                                 allow_unused=True)
            out += [gs, [None if g is None else graph(g, depth) for g in gs]]
            needing = [g for g in gs if g is not None and g.requires_grad]
            if order > 1 and needing:
                total = sum((g * T.tensor(np.linspace(0.5, -1, g.numel()).reshape(g.shape),
                                          dtype=g.dtype)).sum() for g in needing)
                out.append(T.autograd.grad(total, leaves, allow_unused=True))
        return out
    return prog


def check(prog, atol=1e-12, rtol=1e-10):
    ours, theirs = prog(chainrule), prog(torch)
    compare(ours, theirs, atol, rtol)


def seeded(f):
    def g(T, *args):
        T.manual_seed(7)
        return f(T, *args)
    return g


# ---- activations ------------------------------------------------------------------------------

ACTIVATIONS = {
    "softmax": lambda T, x: T.softmax(x, 1),
    "softmax dtype": lambda T, x: T.softmax(x, 0, dtype=T.float32),
    "Tensor.softmax": lambda T, x: x.softmax(-1),
    "log_softmax": lambda T, x: T.log_softmax(x, 1),
    "Tensor.log_softmax dtype": lambda T, x: x.log_softmax(0, T.float64),
    "celu": lambda T, x: T.celu(x, 0.3),
    "celu_": lambda T, x: T.celu_(x * 1, 0.3),
    "selu": lambda T, x: T.selu(x),
    "selu_": lambda T, x: T.selu_(x * 1),
    "threshold": lambda T, x: T.threshold(x, 0.1, -2.0),
    "hardshrink": lambda T, x: T.hardshrink(x, 0.3),
    "Tensor.hardshrink": lambda T, x: x.hardshrink(),
    "rrelu eval": lambda T, x: T.rrelu(x),
    "rrelu_ eval": lambda T, x: T.rrelu_(x * 1, 0.2, 0.4),
    "rrelu training": seeded(lambda T, x: T.rrelu(x, 0.1, 0.6, True)),
    "rrelu_ training": seeded(lambda T, x: T.rrelu_(x * 1, training=True)),
    "F.elu_": lambda T, x: F(T).elu_(x * 1, 0.5),
    "F.elu inplace": lambda T, x: F(T).elu(x * 1, 2.0, inplace=True),
    "F.leaky_relu_": lambda T, x: F(T).leaky_relu_(x * 1, 0.2),
    "F.leaky_relu inplace": lambda T, x: F(T).leaky_relu(x * 1, 0.1, True),
    "F.relu_": lambda T, x: F(T).relu_(x * 1),
    "F.celu inplace": lambda T, x: F(T).celu(x * 1, 0.5, True),
    "F.celu_": lambda T, x: F(T).celu_(x * 1),
    "F.selu inplace": lambda T, x: F(T).selu(x * 1, True),
    "F.selu_": lambda T, x: F(T).selu_(x * 1),
    "F.rrelu": seeded(lambda T, x: F(T).rrelu(x, training=True)),
    "F.rrelu inplace": seeded(lambda T, x: F(T).rrelu(x * 1, training=True, inplace=True)),
    "F.rrelu_": seeded(lambda T, x: F(T).rrelu_(x * 1, 0.2, 0.5, True)),
    "F.threshold": lambda T, x: F(T).threshold(x, 0.5, 3.0),
    "F.hardshrink": lambda T, x: F(T).hardshrink(x, 0.7),
    "F.logsigmoid": lambda T, x: F(T).logsigmoid(x * 20),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activations(name):
    # float32 softmax differs from PyTorch's vectorized kernel in the last bit
    check(program(ACTIVATIONS[name], X), *((1e-7, 1e-6) if "dtype" in name else ()))


# Their in-place variants save the input, which PyTorch clones (a CloneBackward0 in the graph
# of the gradient's gradient, eight levels down); chainrule keeps the old history instead.
@pytest.mark.parametrize("f", [lambda T, x: T.threshold_(x * 1, 0.1, -2.0),
                               lambda T, x: F(T).threshold_(x * 1, 0.5, 3.0),
                               lambda T, x: F(T).threshold(x * 1, 0.5, 3.0, inplace=True)])
def test_threshold_in_place(f):
    check(program(f, X, depth=1))


@pytest.mark.parametrize("weight", [np.array([0.25, -0.5, 2.0]), np.array([0.25])],
                         ids=["channels", "one"])
@pytest.mark.parametrize("grad", [(0, 1), (0,), (1,)], ids=["both", "input", "weight"])
def test_prelu(weight, grad):
    x = X4.copy()
    x[0, 0, 0, 0] = 0.0
    check(program(lambda T, x, w: T.prelu(x, w), x, weight, grad=grad))
    check(program(lambda T, x, w: x.prelu(w), x, weight, grad=grad, order=1))
    check(program(lambda T, x, w: F(T).prelu(x, w), x, weight, grad=grad, order=1))


def test_prelu_shapes_and_kernel():
    check(program(lambda T, x, w: T.prelu(x, w), X, np.asarray(0.3)))
    check(program(lambda T, x, w: T.prelu(x, w), X[0], np.array([0.1])))
    check(program(lambda T, x, w: T._prelu_kernel(x, w), X4, np.array([[[0.2]], [[1.5]],
                                                                        [[-1.0]]])))


def test_rrelu_draws_bit_identical():
    values = rng.standard_normal(1000)
    for dtype in ("float32", "float64"):
        check(seeded(lambda T: (T.rrelu(T.tensor(values, dtype=getattr(T, dtype)),
                                        training=True), T.rand(3))), 0, 0)
    g = lambda T: T.Generator().manual_seed(5)
    check(lambda T: T.rrelu(T.tensor(values), training=True, generator=g(T)), 0, 0)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_activation_dtypes(dtype):
    def prog(T):
        x = T.tensor(X * 3, dtype=getattr(T, dtype))
        return [T.celu(x), T.selu(x), T.threshold(x, 0.5, 7), T.hardshrink(x),
                T.rrelu(x), T.prelu(x, T.tensor([0.2], dtype=x.dtype)), T.softmax(x, 1),
                T.log_softmax(x, 0), F(T).logsigmoid(x)]
    check(prog, 1e-6 if dtype == "float32" else 2e-3, 1e-6 if dtype == "float32" else 1e-3)
    check(lambda T: T.threshold(T.tensor([[-1, 0, 2]]), 0.5, 7.9))


@pytest.mark.parametrize("f", [
    lambda T: T.celu(T.tensor([1, 2])), lambda T: T.selu(T.tensor([True])),
    lambda T: T.celu(T.ones(3), 0), lambda T: T.threshold(T.tensor([True]), 0, 1),
    lambda T: T.threshold(T.ones(2, dtype=T.complex64), 0, 1),
    lambda T: T.hardshrink(T.tensor([1, 2])), lambda T: T.prelu(T.ones(2, 3), T.ones(2)),
    lambda T: T.prelu(T.ones(2, 3), T.ones(1, 3)), lambda T: T.prelu(T.tensor(1.), T.ones(3)),
    lambda T: T.prelu(T.ones(2, 3), T.ones(3, dtype=T.float64)),
    lambda T: T.prelu(T.tensor([1, 2]), T.tensor([1])),
    lambda T: T.rrelu(T.ones(3), 0.5, 0.1), lambda T: T.rrelu(T.tensor([1, 2]), training=True),
    lambda T: T.rrelu(T.ones(3, dtype=T.float16), training=True),
    lambda T: T.softmax(T.tensor([[1, 2]]), 1), lambda T: T.log_softmax(T.tensor([[1, 2]]), 0),
    lambda T: T.softmax(T.ones(2, 3), 5), lambda T: T.softmax(T.ones(2, 3), 1.0),
    lambda T: F(T).logsigmoid(T.tensor([1, 2])),
])
def test_activation_errors(f):
    same_error(f)


def test_softmax_out():
    def prog(T):
        x = T.tensor(X, requires_grad=True)
        out = T.empty(3, 4, dtype=T.float64)
        r = T.softmax(x, 1, out=out)
        return r is out, out, out.grad_fn, T.log_softmax(x.detach(), 0,
                                                         out=T.empty(0, dtype=T.float64))
    check(prog)
    same_error(lambda T: T.softmax(T.ones(2, 3), 1, out=T.empty(2, 3, dtype=T.float64)))
    same_error(lambda T: T.softmax(T.ones(2, 3), 1, out=T.empty(2, 3, requires_grad=True)))
    same_error(lambda T: T.softmax(T.ones(2, 3, requires_grad=True), 1,
                                   out=T.empty(2, 3)).sum().backward())


def test_softmax_implicit_dim_warnings():
    same_warnings(lambda T: F(T).softmax(T.ones(2, 3)))
    same_warnings(lambda T: F(T).log_softmax(T.ones(2, 3, 4)))
    same_warnings(lambda T: T.nn.Softmax()(T.ones(2, 3)))
    check(lambda T: F(T).softmax(T.tensor(X), 1, dtype=T.float32), 1e-7, 1e-6)


# ---- dropout ----------------------------------------------------------------------------------

DROPOUTS = {
    "dropout": lambda T, x: T.dropout(x, 0.3, True),
    "dropout_": lambda T, x: T.dropout_(x * 1, 0.3, True),
    "feature_dropout": lambda T, x: T.feature_dropout(x, 0.3, True),
    "feature_dropout_": lambda T, x: T.feature_dropout_(x * 1, 0.3, True),
    "alpha_dropout": lambda T, x: T.alpha_dropout(x, 0.3, True),
    "alpha_dropout_": lambda T, x: T.alpha_dropout_(x * 1, 0.3, True),
    "feature_alpha_dropout": lambda T, x: T.feature_alpha_dropout(x, 0.3, True),
    "feature_alpha_dropout_": lambda T, x: T.feature_alpha_dropout_(x * 1, 0.3, True),
    "alpha p=1": lambda T, x: T.alpha_dropout(x, 1.0, True),
    "alpha eval": lambda T, x: T.alpha_dropout(x * 1, 0.3, False),
    "native_dropout": lambda T, x: T.native_dropout(x, 0.3, True),
    "native_dropout train None": lambda T, x: T.native_dropout(x, 0.3, None),
    "native_dropout eval": lambda T, x: T.native_dropout(x, 0.3, False),
    "native_dropout p=1": lambda T, x: T.native_dropout(x, 1.0, True),
    "native_dropout non-contiguous": lambda T, x: T.native_dropout(x.transpose(0, 2), 0.4,
                                                                     True),
    "F.dropout1d": lambda T, x: F(T).dropout1d(x, 0.3),
    "F.dropout1d unbatched in place": lambda T, x: F(T).dropout1d(x[0] * 1, 0.3,
                                                                    inplace=True),
    "F.dropout2d": lambda T, x: F(T).dropout2d(x.unsqueeze(0), 0.3),
    "F.dropout3d": lambda T, x: F(T).dropout3d(x.unsqueeze(0), 0.3),
    "F.dropout3d batched in place": lambda T, x: F(T).dropout3d(x[None, None] * 1, 0.5,
                                                                  inplace=True),
    "F.alpha_dropout": lambda T, x: F(T).alpha_dropout(x, 0.3, True),
    "F.alpha_dropout default eval": lambda T, x: F(T).alpha_dropout(x, 0.3),
    "F.feature_alpha_dropout": lambda T, x: F(T).feature_alpha_dropout(x * 1, 0.3, True, True),
}


@pytest.mark.parametrize("name", DROPOUTS)
def test_dropouts_draw_as_pytorch(name):
    check(program(seeded(DROPOUTS[name]), rng.standard_normal((3, 4, 2))), 0, 0)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_dropout_dtypes(dtype):
    def prog(T):
        T.manual_seed(3)
        x = T.tensor(X3, dtype=getattr(T, dtype))
        return [T.alpha_dropout(x, 0.4, True), T.feature_alpha_dropout(x, 0.4, True),
                T.feature_dropout(x, 0.4, True), T.native_dropout(x.transpose(0, 1), 0.4, True)]
    check(prog, 0, 0)
    check(lambda T: (T.manual_seed(1), T.native_dropout(T.ones(3, 2, dtype=T.complex64), 0.5,
                                                        True))[1], 0, 0)
    check(lambda T: T.native_dropout(T.ones(0, 2), 0.5, True))


@pytest.mark.parametrize("f", [
    lambda T: T.alpha_dropout(T.ones(3, 2, dtype=T.int64), 0.5, True),
    lambda T: T.alpha_dropout(T.ones(3, 2, dtype=T.bool), 0.5, True),
    lambda T: T.feature_dropout(T.ones(3, 2, dtype=T.bool), 0.5, True),
    lambda T: T.dropout(T.ones(3, 2, dtype=T.complex64), 0.5, True),
    lambda T: T.native_dropout(T.ones(3, 2, dtype=T.int64), 0.5, True),
    lambda T: T.native_dropout(T.ones(3, 2), 1.5, True),
    lambda T: T.feature_dropout(T.ones(3), 0.5, True),
    lambda T: T.feature_alpha_dropout_(T.ones(3), 0.5, True),
    lambda T: T.alpha_dropout(T.ones(3), 1.5, True), lambda T: T.dropout_(T.ones(3), -1, True),
    lambda T: F(T).alpha_dropout(T.ones(3), 2), lambda T: F(T).dropout1d(T.ones(2, 3, 4, 5)),
    lambda T: F(T).dropout2d(T.ones(2, 3, 4), -0.5),
    lambda T: F(T).feature_alpha_dropout(T.ones(2, 3), 1.1),
])
def test_dropout_errors(f):
    same_error(f)


def test_dropout_warnings():
    same_warnings(lambda T: F(T).dropout2d(T.ones(2, 3, 4)))
    same_warnings(lambda T: F(T).dropout2d(T.ones(2, 3)))
    same_warnings(lambda T: F(T).dropout3d(T.ones(2, 3)))


# ---- shuffles ---------------------------------------------------------------------------------

@pytest.mark.parametrize("f", [
    lambda T, x: T.pixel_shuffle(x, 2), lambda T, x: T.pixel_shuffle(x.unsqueeze(0), 1),
    lambda T, x: T.pixel_unshuffle(x, 1), lambda T, x: T.pixel_unshuffle(x[:, :, :2, :2], 2),
    lambda T, x: T.pixel_unshuffle(T.pixel_shuffle(x, 2), 2),
    lambda T, x: T.channel_shuffle(x, 4), lambda T, x: T.channel_shuffle(x.transpose(2, 3), 2),
    lambda T, x: F(T).pixel_shuffle(x[0], 2), lambda T, x: F(T).pixel_unshuffle(x, 3),
    lambda T, x: F(T).channel_shuffle(x, 2),
])
def test_shuffles(f):
    check(program(f, rng.standard_normal((2, 8, 3, 3))))


def test_shuffles_of_other_dtypes():
    check(lambda T: [T.pixel_shuffle(T.arange(16).reshape(1, 4, 2, 2), 2),
                     T.channel_shuffle(T.tensor([[[True], [False], [True], [True]]]), 2),
                     T.native_channel_shuffle(T.arange(8).reshape(1, 4, 2), 2)])


def test_native_channel_shuffle_has_no_derivative():
    check(program(lambda T, x: T.native_channel_shuffle(x, 4), rng.standard_normal((2, 8, 3)),
                  order=0))
    check(program(lambda T, x: F(T).native_channel_shuffle(x, 2), X3, order=0))
    same_error(lambda T: T.native_channel_shuffle(T.ones(2, 4, 2, requires_grad=True),
                                                  2).sum().backward())


@pytest.mark.parametrize("f", [
    lambda T: T.pixel_shuffle(T.ones(4, 2), 2), lambda T: T.pixel_shuffle(T.ones(2, 8, 3, 3), 0),
    lambda T: T.pixel_shuffle(T.ones(2, 8, 3, 3), 3),
    lambda T: T.pixel_shuffle(T.ones(2, 8, 3, 3), 1.5),
    lambda T: T.pixel_unshuffle(T.ones(4, 2), 2),
    lambda T: T.pixel_unshuffle(T.ones(2, 8, 3, 3), 0),
    lambda T: T.pixel_unshuffle(T.ones(2, 8, 3, 3), 2),
    lambda T: T.pixel_unshuffle(T.ones(2, 4, 6), 4),
    lambda T: T.channel_shuffle(T.ones(4, 2), 2), lambda T: T.channel_shuffle(T.ones(2, 8, 3), 0),
    lambda T: T.channel_shuffle(T.ones(2, 8, 3), 3),
    lambda T: T.native_channel_shuffle(T.ones(2, 8, 3, 3), 3),
])
def test_shuffle_errors(f):
    same_error(f)


# ---- normalization ----------------------------------------------------------------------------

NORMS = {
    "group_norm": (lambda T, x: T.group_norm(x, 3), (X3,)),
    "group_norm affine eps": (lambda T, x, w, b: T.group_norm(x, 2, w, b, 0.1), (X3, W6, B6)),
    "group_norm weight": (lambda T, x, w: T.group_norm(x, 6, w), (X3, W6)),
    "group_norm 4-d": (lambda T, x: T.group_norm(x, 3), (X4,)),
    "group_norm non-contiguous": (lambda T, x: T.group_norm(x.transpose(0, 2), 1),
                                  (X4.reshape(3, 4, 2),)),
    "group_norm 2-d": (lambda T, x: T.group_norm(x[:, :, 0], 3), (X3,)),
    "native_group_norm": (lambda T, x, w, b: T.native_group_norm(x, w, b, 2, 6, 3, 3, 1e-5),
                          (X3, W6, B6)),
    "native_group_norm statistics": (
        lambda T, x, w, b: (lambda r: r[1] * 2 + r[2] * 3 + r[0].sum())(
            T.native_group_norm(x, w, b, 2, 6, 3, 3, 1e-5)), (X3, W6, B6)),
    "native_group_norm mean only": (
        lambda T, x: (lambda r: r[1] + r[0].sum())(
            T.native_group_norm(x, None, None, 2, 6, 3, 2, 1e-5)), (X3,)),
    "F.group_norm": (lambda T, x, w: F(T).group_norm(x, 2, w), (X3, W6)),
    "instance_norm": (lambda T, x: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5,
                                                   False), (X3,)),
    "F.instance_norm": (lambda T, x, w, b: F(T).instance_norm(x, weight=w[:6], bias=b[:6]),
                        (X3, W6, B6)),
}


@pytest.mark.parametrize("name", NORMS)
def test_norms(name):
    f, arrays = NORMS[name]
    check(program(f, *arrays))


def test_group_norm_weight_gradient_only():
    check(program(lambda T, x, w, b: T.group_norm(x, 2, w, b), X3, W6, B6, grad=(1, 2)))


def test_group_norm_bias_without_weight():
    # PyTorch's backward fails, in other words with create_graph
    def prog(T, create_graph):
        x = T.tensor(X3, requires_grad=True)
        b = T.ones(6, dtype=T.float64, requires_grad=True)
        return T.autograd.grad(T.group_norm(x, 1, None, b).sum(), [x, b],
                               create_graph=create_graph)
    same_error(lambda T: prog(T, False))
    same_error(lambda T: prog(T, True))
    check(program(lambda T, x, b: T.group_norm(x, 1, None, b), X3, W6, grad=(0,)))


def test_instance_norm_running_statistics():
    def prog(T, use_input_stats):
        rm, rv = T.tensor(B6), T.tensor(np.abs(W6))
        x, w = T.tensor(X3, requires_grad=True), T.tensor(W6, requires_grad=True)
        y = T.instance_norm(x, w, None, rm, rv, use_input_stats, 0.3, 1e-5, False)
        return y, rm, rv, T.autograd.grad(y.sum() + (y * y).sum(), [x, w])
    check(lambda T: prog(T, True))
    check(lambda T: prog(T, False))


RMS = {
    "rms_norm": lambda T, x: T.rms_norm(x, [3]),
    "rms_norm weight, 2-d shape, eps": lambda T, x, w: T.rms_norm(x, (2, 3), w, 0.1),
    "rms_norm non-contiguous": lambda T, x: T.rms_norm(x.transpose(0, 1), [3]),
    "rms_norm half": lambda T, x: T.rms_norm(x.half(), [3]),
    "F.rms_norm": lambda T, x: F(T).rms_norm(x, [3], eps=1e-3),
}


@pytest.mark.parametrize("name", RMS)
def test_rms_norm(name):
    # mean's backward is DivBackward0 in chainrule, DivBackward1 (C++'s Tensor / Scalar) in
    # PyTorch, two levels into the gradient's graph
    arrays = (X3.reshape(2, 3, 2, 3), W6.reshape(2, 3)) if "weight" in name else (X3,)
    check(program(RMS[name], *arrays, depth=1), 1e-3 if "half" in name else 1e-12,
          1e-3 if "half" in name else 1e-10)


def test_rms_norm_dtypes_and_eps():
    def prog(T):
        x = T.tensor(X3)
        return [T.rms_norm(x.float(), [3]), T.rms_norm(T.zeros(2, 3), [3]),
                T.rms_norm(T.full((2, 3), 1e-9, dtype=T.float64), [3]),
                T.rms_norm(x.half(), [3], eps=0.1), T.rms_norm(x.float(), [3], x[0, 0].float()),
                T.rms_norm(x.to(T.complex64), [3])]
    check(prog, 1e-3, 1e-3)
    # a warn-once warning: another test may have had it first, so both warn always here
    import torch
    for T in (torch, chainrule):
        T.set_warn_always(True)
    try:
        same_warnings(lambda T: T.rms_norm(T.ones(2, 3, dtype=T.float64), [3], T.ones(3)))
    finally:
        for T in (torch, chainrule):
            T.set_warn_always(False)


def test_rms_norm_warns_once():
    def prog(T):
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                T.rms_norm(T.ones(2, 3, dtype=T.float64), [3], T.ones(3))
        return len(caught) <= 1
    same(prog)


def test_batch_norm_update_stats():
    def prog(T):
        rm, rv = T.zeros(6, dtype=T.float64), T.ones(6, dtype=T.float64)
        x = T.tensor(X3, requires_grad=True)
        mean, var = T.batch_norm_update_stats(x, rm, rv, 0.2)
        return mean, var, rm, rv, T.batch_norm_update_stats(x.detach(), None, None, 0.5)
    check(prog)
    check(lambda T: (lambda rm, rv: (T.batch_norm_update_stats(T.tensor(X3, dtype=T.float16),
                                                               rm, rv, 0.1), rm, rv))(
        T.zeros(6), T.ones(6)), 1e-6, 1e-6)
    same_error(lambda T: T.batch_norm_update_stats(T.tensor(X3, requires_grad=True), None,
                                                   None, 0.1)[0].sum().backward())


def test_batch_norm_completeness():
    def prog(T):
        x = T.tensor(X3, requires_grad=True)
        w, b = T.tensor(W6, requires_grad=True), T.tensor(B6)
        rm, rv = T.zeros(6, dtype=T.float64), T.ones(6, dtype=T.float64)
        y = T.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False)
        e = T.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, True)
        return y, e, rm, rv, T.batch_norm(T.ones(0, 3), None, None, None, None, True, 0.1,
                                          1e-5, False)
    check(prog)


@pytest.mark.parametrize("f", [
    lambda T: T.group_norm(T.ones(2, 6, 3), 0), lambda T: T.group_norm(T.ones(2, 6, 3), 4),
    lambda T: T.group_norm(T.ones(2, 6, 3), 3, T.ones(5)),
    lambda T: T.group_norm(T.ones(2, 6, 3), 3, None, T.ones(2, 3)),
    lambda T: T.group_norm(T.ones(2, 6, 3, dtype=T.float64), 3, T.ones(6)),
    lambda T: T.group_norm(T.ones(2, 6, 3, dtype=T.int32), 3),
    lambda T: T.group_norm(T.ones(3), 3), lambda T: T.group_norm(T.tensor(1.), 3),
    lambda T: T.native_group_norm(T.ones(2, 3, 6).transpose(1, 2), None, None, 2, 6, 3, 3, 1e-5),
    lambda T: T.native_group_norm(T.ones(2, 6, 3), None, None, 2, 6, 4, 3, 1e-5),
    lambda T: T.rms_norm(T.ones(2, 6, 3), []), lambda T: T.rms_norm(T.ones(2, 6, 3), [4]),
    lambda T: T.rms_norm(T.ones(2, 6, 3), [2, 4]),
    lambda T: T.rms_norm(T.ones(2, 6, 3), [3], T.ones(4)),
    lambda T: T.rms_norm(T.ones(2, 3, dtype=T.int32), [3]),
    lambda T: T.rms_norm(T.ones(2, 3), 3), lambda T: T.rms_norm(T.ones(2, 3), [3.0]),
    lambda T: T.instance_norm(T.ones(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False),
    lambda T: T.instance_norm(T.ones(3), None, None, None, None, True, 0.1, 1e-5, False),
    lambda T: T.instance_norm(T.ones(2, 3, 4), T.ones(2), None, None, None, True, 0.1, 1e-5,
                              False),
    lambda T: T.batch_norm(T.ones(2, 3), None, None, None, None, False, 0.1, 1e-5, False),
    lambda T: T.batch_norm(T.ones(3), None, None, None, None, True, 0.1, 1e-5, False),
    lambda T: T.batch_norm(T.ones(2, 3, dtype=T.int32), None, None, None, None, True, 0.1,
                           1e-5, False),
    lambda T: T.batch_norm_update_stats(T.ones(2, 3, dtype=T.int32), None, None, 0.1),
    lambda T: T.batch_norm_update_stats(T.ones(2, 3), T.zeros(3, dtype=T.float64),
                                        T.ones(3, dtype=T.float64), 0.1),
    lambda T: T.batch_norm_update_stats(T.ones(3), None, None, 0.1),
    lambda T: F(T).group_norm(T.ones(3), 3), lambda T: F(T).group_norm(T.ones(1, 3), 3),
    lambda T: F(T).instance_norm(T.ones(2, 3, 1)),
    lambda T: F(T).batch_norm(T.ones(1, 3), None, None, training=True),
])
def test_norm_errors(f):
    same_error(f)


def test_batch_norm_functions_pytorch_runs_only_on_cuda_are_absent():
    # batch_norm_stats/elemt/gather_stats(_with_counts)/backward_reduce/backward_elemt have
    # no CPU kernel in PyTorch; chainrule does not pretend to have them
    for name in ("batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats",
                 "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
                 "batch_norm_backward_elemt"):
        assert not hasattr(chainrule, name)
    with pytest.raises(NotImplementedError):
        torch.batch_norm_stats(torch.ones(2, 3), 1e-5)


# ---- losses -----------------------------------------------------------------------------------
# Deeper down, the gradients' graphs go through other families' formulas (norm's, sum's),
# where chainrule and PyTorch record different helper nodes.

TARGETS = np.array([1, -1, 1])


@pytest.mark.parametrize("reduction", [0, 1, 2, 7])
def test_losses(reduction):
    r = reduction
    signs = np.sign(C)
    programs = [
        program(lambda T, a, b, t: T.margin_ranking_loss(a, b, t, 0.3, r), A, B, signs,
                grad=(0, 1)),
        program(lambda T, a, b, t: T.cosine_embedding_loss(a, b, t, 0.1, r), A, B, TARGETS,
                depth=2),
        program(lambda T, a, t: T.hinge_embedding_loss(a, t, 0.5, r), A, signs),
        program(lambda T, a, b, c: T.triplet_margin_loss(a, b, c, 1.0, 2, 1e-6, False, r),
                A, B, C, depth=1),
        program(lambda T, a, b, c: T.triplet_margin_loss(a, b, c, 1.0, 3, 1e-6, True, r),
                A, B, C, depth=1),
        program(lambda T, a, t: T.poisson_nll_loss(a, t, True, False, 1e-8, r), A, np.abs(C)),
        program(lambda T, a, t: T.poisson_nll_loss(a, t, False, True, 1e-8, r), np.abs(A),
                np.abs(C) * 3, grad=(0,)),
        program(lambda T, a, t: T.kl_div(a, t, r), A, np.abs(C)),
        program(lambda T, a, t: T.kl_div(a, t, r, log_target=True), A, C),
        program(lambda T, a, t, w: T.binary_cross_entropy_with_logits(a, t, w, None, r),
                A, np.abs(C) / 3, np.abs(B), grad=(0, 1)),
        program(lambda T, a, t, w: T.binary_cross_entropy_with_logits(a, t, None, w, r),
                A, np.abs(C) / 3, np.abs(B), grad=(0, 1)),
    ]
    for prog in programs:
        check(prog)


def test_loss_functions_default_to_no_reduction():
    # the torch.* bindings cannot parse the schema's default `Mean`: they give 0 (none)
    check(lambda T: [
        T.margin_ranking_loss(T.tensor(A), T.tensor(B), T.tensor(C)),
        T.cosine_embedding_loss(T.tensor(A), T.tensor(B), T.tensor(TARGETS)),
        T.hinge_embedding_loss(T.tensor(A), T.tensor(C)),
        T.triplet_margin_loss(T.tensor(A), T.tensor(B), T.tensor(C)),
        T.kl_div(T.tensor(A), T.tensor(C)),
        T.binary_cross_entropy_with_logits(T.tensor(A), T.tensor(C)),
        T.margin_ranking_loss(T.tensor([1, 2]), T.tensor([3, 1]), T.tensor([1, -1]), 0.5),
        T.cosine_embedding_loss(T.tensor(A[0]), T.tensor(B[0]), T.tensor(-1))])


def test_functional_losses():
    signs = np.sign(C)
    check(program(lambda T, a, t: F(T).kl_div(a, t, reduction="batchmean"), A, np.abs(C)))
    check(program(lambda T, a, t: F(T).kl_div(a, t, reduction="batchmean"),
                  np.asarray(A[0, 0]), np.asarray(abs(C[0, 0]))))
    check(program(lambda T, a, t: F(T).poisson_nll_loss(a, t, reduction="sum"), A, np.abs(C)))
    check(program(lambda T, a, b, c: F(T).triplet_margin_loss(a, b, c, swap=True), A, B, C,
                  depth=1))
    check(program(lambda T, a, b, t: F(T).margin_ranking_loss(a, b, t, 0.2), A, B, signs,
                  grad=(0, 1)))
    check(program(lambda T, a, t: F(T).hinge_embedding_loss(a, t, reduction="none"), A, signs))
    check(program(lambda T, a, b, t: F(T).cosine_embedding_loss(a, b, t, reduction="sum"),
                  A, B, TARGETS, depth=2))
    check(program(lambda T, a, t: F(T).binary_cross_entropy_with_logits(
        a, t, pos_weight=T.ones(4, dtype=T.float64) * 2), A, np.abs(C) / 3, grad=(0,)))


def test_loss_warnings():
    same_warnings(lambda T: F(T).kl_div(T.tensor(A), T.tensor(C)))
    same_warnings(lambda T: F(T).hinge_embedding_loss(T.tensor(A), T.tensor(C),
                                                      reduction="elementwise_mean"))
    same_warnings(lambda T: F(T).cosine_embedding_loss(T.tensor(A), T.tensor(C),
                                                       T.tensor(TARGETS), size_average=False))
    same_warnings(lambda T: F(T).margin_ranking_loss(T.tensor(A), T.tensor(B), T.tensor(C),
                                                     reduce=False))
    same_warnings(lambda T: F(T).poisson_nll_loss(T.tensor(A), T.tensor(C), size_average=True))
    same_warnings(lambda T: F(T).triplet_margin_loss(T.tensor(A), T.tensor(B), T.tensor(C),
                                                     reduce=True))


@pytest.mark.parametrize("f", [
    lambda T: T.margin_ranking_loss(T.ones(3, 4), T.ones(3, 2), T.ones(3, 4)),
    lambda T: T.margin_ranking_loss(T.ones(3, dtype=T.complex64), T.ones(3, dtype=T.complex64),
                                    T.ones(3)),
    lambda T: T.cosine_embedding_loss(T.ones(3, 4), T.ones(3, 4), T.ones(3, 4)),
    lambda T: T.cosine_embedding_loss(T.ones(3, 4), T.ones(3, 4), T.ones(())),
    lambda T: T.cosine_embedding_loss(T.ones(4), T.ones(4), T.ones(3)),
    lambda T: T.cosine_embedding_loss(T.ones(3, 4), T.ones(2, 4), T.ones(3)),
    lambda T: T.cosine_embedding_loss(T.ones(3, 4), T.ones(3, 4), T.ones(2)),
    lambda T: T.hinge_embedding_loss(T.ones(3, 4), T.ones(5)),
    lambda T: T.triplet_margin_loss(T.ones(3, 4), T.ones(3, 4), T.ones(4)),
    lambda T: T.triplet_margin_loss(T.ones(3, 4), T.ones(3, 2), T.ones(3, 4)),
    lambda T: T.kl_div(T.ones(3, dtype=T.complex64), T.ones(3, dtype=T.complex64)),
    lambda T: T.kl_div(T.ones(3, dtype=T.int32), T.ones(3)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, 4), T.ones(4)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, dtype=T.int32),
                                                 T.ones(3, dtype=T.int32)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, 4), T.ones(3, 4), T.ones(5)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, 4), T.ones(3, 4),
                                                 pos_weight=T.ones(4, requires_grad=True)),
    lambda T: T.binary_cross_entropy_with_logits(T.ones(3, 4), T.ones(3, 4),
                                                 T.ones(4, requires_grad=True)),
    lambda T: F(T).margin_ranking_loss(T.ones(3, 4), T.ones(3, 4), T.ones(4)),
    lambda T: F(T).triplet_margin_loss(T.ones(3, 4), T.ones(3, 4), T.ones(3, 4), margin=0),
    lambda T: F(T).poisson_nll_loss(T.ones(3), T.ones(3), reduction="x"),
    lambda T: F(T).kl_div(T.ones(3), T.ones(3), reduction="x"),
    lambda T: F(T).cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(()), reduction="x"),
])
def test_loss_errors(f):
    same_error(f)


# ---- embedding_bag ----------------------------------------------------------------------------

W = rng.standard_normal((6, 3))
PSW = rng.random(8)
IDX, OFF = np.array([1, 2, 4, 5, 4, 3, 2, 0]), np.array([0, 2, 2, 5])


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_embedding_bag(mode, include_last_offset, padding_idx, dtype):
    # a last offset short of the end is read past by PyTorch's float backward: not tested
    offsets = np.append(OFF, 8) if include_last_offset else OFF
    for scale in (False, True) if mode != 2 else (False,):
        check(program(lambda T, w: T.embedding_bag(
            w.to(getattr(T, dtype)), T.tensor(IDX), T.tensor(offsets), scale, mode, False, None,
            include_last_offset, padding_idx), W, order=1), 1e-6, 1e-6)
    if include_last_offset and dtype == "float64":
        check(program(lambda T, w: T.embedding_bag(w, T.tensor(IDX), T.tensor(OFF), False, mode,
                                                   False, None, True, padding_idx), W, order=1))


@pytest.mark.parametrize("padding_idx", [None, 1])
@pytest.mark.parametrize("grad", [(0, 1), (1,)], ids=["both", "per_sample_weights"])
def test_embedding_bag_per_sample_weights(padding_idx, grad):
    for scale in (False, True):
        check(program(lambda T, w, p: T.embedding_bag(
            w, T.tensor(IDX), T.tensor(OFF), scale, 0, False, p, False, padding_idx), W, PSW,
            grad=grad, order=1))
        check(program(lambda T, w, p: T.embedding_bag(
            w.float(), T.tensor(IDX), T.tensor(OFF), scale, 0, False, p.float(), False,
            padding_idx), W, PSW, grad=grad, order=1), 1e-6, 1e-6)


def test_embedding_bag_edges():
    nan = np.array([[1., np.nan], [np.nan, 2.], [3., 1.], [3., 1.], [0., 0.], [5., np.nan]])
    check(program(lambda T, w: T.embedding_bag(w, T.tensor([1, 0, 2, 3, 5]), T.tensor([0, 2]),
                                               False, 2), nan, order=1))
    ties = np.array([[1., 1.], [1., 2.], [3., 1.], [3., 1.], [0., 0.], [5., 5.]])
    check(program(lambda T, w: T.embedding_bag(w, T.tensor([1, 0, 2, 3, 5]), T.tensor([0, 1]),
                                               False, 2), ties, order=1))
    check(program(lambda T, w: T.embedding_bag(w, T.tensor(IDX), T.tensor([0, 2, 2, 5, 8]),
                                               False, 1, False, None, True), W, order=1))
    check(lambda T: [
        T.embedding_bag(T.tensor(W), T.tensor(IDX, dtype=T.int32), T.tensor(OFF, dtype=T.int32),
                        False, 1),
        T.embedding_bag(T.tensor(W), T.tensor(IDX, dtype=T.int32), T.tensor(OFF), False, 1),
        T.embedding_bag(T.tensor(W), T.tensor([2, 2, 1]), T.tensor([0, 2]), False, 2, False, None,
                        False, 2),
        T.embedding_bag(T.tensor(W), T.tensor([], dtype=T.int64), T.tensor([0, 0]), False, 1),
        T.embedding_bag(T.tensor(W).half(), T.tensor(IDX), T.tensor(OFF), False, 1),
        T.embedding_bag(T.tensor(W).float(), T.tensor(IDX), T.tensor(OFF), False, 0, False,
                        None, True)], 1e-3, 1e-3)


def test_embedding_bag_private_functions():
    def prog(T):
        w, i, o = T.tensor(W, requires_grad=True), T.tensor(IDX), T.tensor(OFF)
        full = T._embedding_bag(w, i, o, False, 1, False, None, False, 3)
        only = T._embedding_bag_forward_only(w.detach(), i, o, False, 2)
        return full, only, T._embedding_bag_forward_only(w.detach().float(), i, o)
    check(prog, 1e-6, 1e-6)
    same_error(lambda T: T._embedding_bag_forward_only(T.ones(6, 3, requires_grad=True),
                                                       T.tensor(IDX), T.tensor(OFF)))


def test_embedding_bag_second_order_is_not_implemented():
    def prog(T, which):
        w, p = T.tensor(W, requires_grad=True), T.tensor(PSW, requires_grad=True)
        r = T.embedding_bag(w, T.tensor(IDX), T.tensor(OFF), False, 0, False, p)
        gw, gp = T.autograd.grad((r[0] ** 2).sum(), [w, p], create_graph=True)
        return T.autograd.grad((gw if which == 0 else gp).sum(), [w])
    same_error(lambda T: prog(T, 0))
    same_error(lambda T: prog(T, 1))


def test_functional_embedding_bag():
    check(program(lambda T, w: F(T).embedding_bag(T.tensor([[1, 2], [4, 5]]), w), W, order=1))
    check(program(lambda T, w: F(T).embedding_bag(T.tensor([1, 2, 4, 5]), w, T.tensor([0, 1]),
                                                  mode="sum"), W, order=1))
    check(program(lambda T, w, p: F(T).embedding_bag(T.tensor([[1, 2], [4, 5]]), w, mode="sum",
                                                     per_sample_weights=p),
                  W, rng.random((2, 2)), order=1))
    check(lambda T: (lambda w: (F(T).embedding_bag(T.tensor([[1, 2], [4, 5]]), w, max_norm=0.5,
                                                   mode="max"), w))(T.tensor(W)))
    same_warnings(lambda T: F(T).embedding_bag(T.tensor(W), T.tensor([[1, 2], [4, 5]])))


@pytest.mark.parametrize("f", [
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX).float(), T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF).float()),
    lambda T: T.embedding_bag(T.ones(6, 3, dtype=T.int32), T.tensor(IDX), T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor([1, 2])),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor([0, 9])),
    lambda T: T.embedding_bag(T.ones(6, 3, dtype=T.float64), T.tensor(IDX) + 3, T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX) + 3, T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3, dtype=T.float64), T.tensor(IDX) - 3, T.tensor(OFF),
                              False, 1),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 1, False,
                              T.ones(8)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 0, False,
                              T.ones(3)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 0, False,
                              T.ones(8, dtype=T.float64)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 0, False,
                              T.ones(1, 8)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor([], dtype=T.int64), False,
                              0, False, None, True),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 0, False, None,
                              False, 6),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 0, False, None,
                              False, -7),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF), False, 3),
    lambda T: T.embedding_bag(T.ones(3), T.tensor(IDX), T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX)[None], T.tensor(OFF)),
    lambda T: T.embedding_bag(T.ones(6, 3), T.tensor(IDX), T.tensor(OFF)[None]),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3), T.tensor([0])),
    lambda T: F(T).embedding_bag(T.tensor([1, 2]), T.ones(6, 3)),
    lambda T: F(T).embedding_bag(T.tensor([1, 2]), T.ones(6, 3), T.tensor([[0]])),
    lambda T: F(T).embedding_bag(T.tensor([[[1, 2]]]), T.ones(6, 3)),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3), mode="x"),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3), mode="max",
                                 scale_grad_by_freq=True),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3), mode="max", sparse=True),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3),
                                 per_sample_weights=T.ones(1, 2)),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(6, 3), per_sample_weights=T.ones(2)),
    lambda T: F(T).embedding_bag(T.tensor([[1, 2]]), T.ones(3)),
])
def test_embedding_bag_errors(f):
    same_error(f)


# ---- pooling ----------------------------------------------------------------------------------

X5 = rng.standard_normal((2, 2, 4, 5, 6))
NAN_TIES = np.array([[1., 1., np.nan], [1., 2., 2.], [np.nan, 0., 2.]])[None].repeat(3, 0)


@pytest.mark.parametrize("f", [
    lambda T, x: T.max_pool3d(x, 2),
    lambda T, x: T.max_pool3d(x, (3, 2, 2), (1, 2, 1), (1, 0, 1), (1, 2, 1), True),
    lambda T, x: T.max_pool3d(x[0], 2, 1),
    lambda T, x: T.max_pool3d(x.transpose(2, 4), 2),
    lambda T, x: F(T).max_pool3d(x, 3, padding=1, return_indices=True),
    lambda T, x: F(T).max_pool3d_with_indices(x, 2, ceil_mode=True),
    lambda T, x: T.adaptive_max_pool1d(x[0, 0], 4),
    lambda T, x: T.adaptive_max_pool1d(x[0, 0, 0], [7]),
    lambda T, x: F(T).adaptive_max_pool1d(x[0, 0], 3),
    lambda T, x: F(T).adaptive_max_pool1d(x[0, 0], 3, True),
    lambda T, x: F(T).adaptive_max_pool1d_with_indices(x[0, 0], 9),
    lambda T, x: F(T).adaptive_max_pool2d(x[0], (3, None)),
    lambda T, x: F(T).adaptive_max_pool2d(x[0], 3, True),
    lambda T, x: F(T).adaptive_max_pool2d_with_indices(x[0, :, 0], (2, 4)),
])
def test_max_pooling(f):
    check(program(f, X5))


def test_max_pooling_edges():
    check(program(lambda T, x: F(T).max_pool3d(x, 2, 1, return_indices=True),
                  NAN_TIES[None, None], order=1))
    check(program(lambda T, x: F(T).adaptive_max_pool2d(x, 2, True), NAN_TIES, order=1))
    check(lambda T: [T.max_pool3d(T.tensor(X5, dtype=T.float16), 2),
                     T.max_pool3d(T.arange(120).reshape(1, 2, 3, 4, 5), 2),
                     T.adaptive_max_pool1d(T.ones(2, 3, 4), 0),
                     T.adaptive_max_pool1d(T.ones(0, 3, 4), 2),
                     T.max_pool3d(T.ones(0, 2, 4, 4, 4), 2)], 0, 0)


@pytest.mark.parametrize("f", [
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 0),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), (2, 2)),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, (1, 1)),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, 2, (1, 1)),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, 2, 0, (1, 1)),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, 2, 2),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 5),
    lambda T: T.max_pool3d(T.ones(2, 4, 4), 2),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, 2, 0, 0),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2, 2, -1),
    lambda T: T.max_pool3d(T.ones(1, 0, 4, 4, 4), 2),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4), 2.5),
    lambda T: T.max_pool3d(T.ones(1, 2, 4, 4, 4, dtype=T.bool), 2),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 3, 4, 5), 2),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 3, 4), [2, 3]),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 0, 4), 2),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 3, 4), -1),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 3, 4, dtype=T.int32), 2),
    lambda T: T.adaptive_max_pool1d(T.ones(2, 3, 4), 2.5),
    lambda T: F(T).adaptive_max_pool2d(T.ones(3, 4), (2, None)),
    lambda T: F(T).adaptive_max_pool2d(T.ones(3, 4, 5, 6, 7), 2),
])
def test_max_pooling_errors(f):
    same_error(f)


def test_max_pooling_modules():
    check(lambda T: [repr(T.nn.MaxPool3d(2)), repr(T.nn.MaxPool3d((2, 3, 1), 1, 1, 2, True, True)),
                     repr(T.nn.AdaptiveMaxPool1d(3)), repr(T.nn.AdaptiveMaxPool2d((2, None), True)),
                     T.nn.MaxPool3d(2)(T.tensor(X5)),
                     T.nn.MaxPool3d(2, return_indices=True)(T.tensor(X5)),
                     T.nn.AdaptiveMaxPool1d(3, True)(T.tensor(X5[0, 0])),
                     T.nn.AdaptiveMaxPool2d((2, None))(T.tensor(X5[0]))])


# ---- modules ----------------------------------------------------------------------------------

MODULES = {
    "CELU": lambda nn: nn.CELU(0.5), "CELU inplace": lambda nn: nn.CELU(inplace=True),
    "SELU": lambda nn: nn.SELU(), "SELU inplace": lambda nn: nn.SELU(True),
    "PReLU": lambda nn: nn.PReLU(), "PReLU channels": lambda nn: nn.PReLU(6, 0.1),
    "RReLU": lambda nn: nn.RReLU(), "RReLU inplace": lambda nn: nn.RReLU(0.1, 0.3, True),
    "Threshold": lambda nn: nn.Threshold(0.1, 20),
    "Threshold inplace": lambda nn: nn.Threshold(0.1, 20, True),
    "Hardshrink": lambda nn: nn.Hardshrink(), "Hardshrink lambd": lambda nn: nn.Hardshrink(0.3),
    "LogSigmoid": lambda nn: nn.LogSigmoid(),
    "LeakyReLU inplace": lambda nn: nn.LeakyReLU(0.2, True),
    "ELU inplace": lambda nn: nn.ELU(inplace=True),
    "AlphaDropout": lambda nn: nn.AlphaDropout(),
    "FeatureAlphaDropout": lambda nn: nn.FeatureAlphaDropout(0.2),
    "Dropout1d": lambda nn: nn.Dropout1d(), "Dropout2d": lambda nn: nn.Dropout2d(0.1, True),
    "Dropout3d": lambda nn: nn.Dropout3d(),
    "PixelShuffle": lambda nn: nn.PixelShuffle(1),
    "PixelUnshuffle": lambda nn: nn.PixelUnshuffle(1),
    "ChannelShuffle": lambda nn: nn.ChannelShuffle(2),
    "GroupNorm": lambda nn: nn.GroupNorm(2, 6),
    "GroupNorm no affine": lambda nn: nn.GroupNorm(3, 6, affine=False),
    "GroupNorm no bias": lambda nn: nn.GroupNorm(2, 6, eps=0.1, bias=False),
    "InstanceNorm1d": lambda nn: nn.InstanceNorm1d(6),
    "InstanceNorm1d tracked": lambda nn: nn.InstanceNorm1d(6, affine=True,
                                                           track_running_stats=True),
    "InstanceNorm2d": lambda nn: nn.InstanceNorm2d(6, momentum=None, affine=True, bias=False),
    "InstanceNorm3d": lambda nn: nn.InstanceNorm3d(6, track_running_stats=True),
    "RMSNorm": lambda nn: nn.RMSNorm(3),
    "RMSNorm shape": lambda nn: nn.RMSNorm([6, 3], eps=1e-3, elementwise_affine=False),
}
INPUT_DIMS = {"PixelShuffle": 3, "PixelUnshuffle": 3, "Dropout2d": 4, "Dropout3d": 5,
              "InstanceNorm2d": 4, "InstanceNorm3d": 5}


@pytest.mark.parametrize("name", MODULES)
def test_modules(name):
    def prog(T):
        T.manual_seed(0)
        m = MODULES[name](T.nn)
        sd = m.state_dict()
        x = T.tensor(X3, dtype=T.float32)
        x = x.reshape((2, 6, 3) + (1,) * (INPUT_DIMS.get(name, 3) - 3)) * 1
        out = [repr(m), list(sd), list(sd.values()), [n for n, _ in m.named_parameters()],
               [n for n, _ in m.named_buffers()], m(x * 1)]
        m.eval()
        out += [m(x * 1), list(m.state_dict().values())]
        return out
    check(prog, 1e-6, 1e-5)


def test_module_gradients_and_statistics():
    def prog(T):
        T.manual_seed(0)
        norm = T.nn.InstanceNorm1d(6, affine=True, track_running_stats=True)
        prelu, gn = T.nn.PReLU(6), T.nn.GroupNorm(3, 6)
        x = T.tensor(X3, dtype=T.float32, requires_grad=True)
        y = gn(prelu(norm(x)))
        grads = T.autograd.grad((y * y).sum(), [x, norm.weight, prelu.weight, gn.weight])
        norm.eval()
        return y, grads, norm.running_mean, norm.running_var, norm(x.detach()), norm(x[0])
    check(prog, 1e-5, 1e-5)


def test_embedding_bag_module():
    def prog(T):
        T.manual_seed(0)
        bag = T.nn.EmbeddingBag(6, 3, mode="sum", padding_idx=-2)
        big = T.nn.EmbeddingBag(6, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                                include_last_offset=True)
        pre = T.nn.EmbeddingBag.from_pretrained(T.tensor(W), freeze=False, mode="max")
        out = bag(T.tensor(IDX), T.tensor(OFF), T.tensor(PSW, dtype=T.float32))
        g = T.autograd.grad(out.sum(), bag.weight)
        return [repr(bag), repr(big), repr(pre), list(bag.state_dict().values()), out, g,
                big(T.tensor(IDX), T.tensor([0, 2, 8])), pre(T.tensor([[0, 1], [2, 3]])),
                pre.weight.requires_grad]
    check(prog, 1e-6, 1e-6)


def test_loss_modules():
    def prog(T):
        a, b, c = (T.tensor(v, requires_grad=True) for v in (A, B, C))
        t = T.tensor(np.sign(C))
        losses = [T.nn.PoissonNLLLoss()(a, c.abs()),
                  T.nn.PoissonNLLLoss(False, True, reduction="sum")(a.abs(), c.abs() * 3),
                  T.nn.HingeEmbeddingLoss(0.5)(a, t),
                  T.nn.CosineEmbeddingLoss(0.2)(a, b, T.tensor(TARGETS)),
                  T.nn.MarginRankingLoss(0.1, reduction="none")(a, b, t),
                  T.nn.TripletMarginLoss(p=3, swap=True)(a, b, c)]
        reprs = [repr(m) for m in (T.nn.PoissonNLLLoss(), T.nn.TripletMarginLoss(margin=2.0),
                                   T.nn.HingeEmbeddingLoss(), T.nn.CosineEmbeddingLoss(),
                                   T.nn.MarginRankingLoss())]
        return losses, reprs, T.autograd.grad(sum(x.sum() for x in losses), [a, b, c])
    check(prog)
    same_warnings(lambda T: T.nn.PoissonNLLLoss(size_average=False))


@pytest.mark.parametrize("f", [
    lambda T: T.nn.GroupNorm(3, 4), lambda T: T.nn.TripletMarginLoss(margin=0),
    lambda T: T.nn.EmbeddingBag(3, 2, padding_idx=5),
    lambda T: T.nn.EmbeddingBag(3, 2, _weight=T.ones(2, 2)),
    lambda T: T.nn.EmbeddingBag.from_pretrained(T.ones(3)),
    lambda T: T.nn.AlphaDropout(1.5), lambda T: T.nn.Dropout1d()(T.ones(2, 3, 4, 5)),
    lambda T: T.nn.InstanceNorm1d(3)(T.ones(2, 3, 4, 5)),
    lambda T: T.nn.InstanceNorm2d(4, affine=True)(T.ones(2, 3, 4, 5)),
    lambda T: T.nn.PReLU(2)(T.ones(2, 3)),
])
def test_module_errors(f):
    same_error(f)


def test_module_warnings():
    same_warnings(lambda T: T.nn.InstanceNorm1d(4)(T.ones(2, 3, 5)))
    same_warnings(lambda T: T.nn.Dropout2d()(T.ones(2, 3, 4)))


def test_instance_norm_loads_old_checkpoints_as_pytorch():
    def prog(T):
        state = collections.OrderedDict(running_mean=T.zeros(3), running_var=T.ones(3))
        state._metadata = {"": {}}       # saved before modules recorded their version
        return T.nn.InstanceNorm1d(3).load_state_dict(state)
    same_error(prog)
