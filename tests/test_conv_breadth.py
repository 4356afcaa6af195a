"""3-D and transposed convolution, torch.convolution, conv_tbc, fold/unfold and their modules,
beyond the op database: float32 values and gradients, graphs to second order, PyTorch's errors
in PyTorch's order, dtypes, empty inputs, seeded modules, reprs and state_dict keys."""
import warnings

import numpy as np
import pytest
import torch

import chainrule

from helpers import same, same_error


def _graph(fn):
    """Node names, depth first (AccumulateGrad by its class name)."""
    if fn is None:
        return [None]
    return [type(fn).__name__] + [g for n, _ in fn.next_functions for g in _graph(n)]


def _z(T, *shape, dtype="float64"):
    return T.zeros(*shape, dtype=getattr(T, dtype))


# ---- values, gradients and graphs -----------------------------------------------------------

CALLS = [
    ("conv3d", [(2, 4, 5, 6, 6), (6, 2, 2, 3, 2), (6,)],
     dict(stride=(2, 1, 2), padding=(1, 0, 2), dilation=(1, 2, 1), groups=2)),
    ("conv3d", [(3, 4, 4, 5), (2, 3, 3, 2, 2)], dict(padding="same")),
    ("conv_transpose1d", [(2, 4, 7), (4, 3, 3), (6,)],
     dict(stride=3, padding=2, output_padding=1, groups=2, dilation=2)),
    ("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 2, 3), (6,)],
     dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(1, 2))),
    ("conv_transpose2d", [(3, 5, 4), (3, 2, 3, 3)], dict(stride=1, output_padding=1, dilation=2)),
    ("conv_transpose3d", [(1, 2, 3, 4, 3), (2, 3, 2, 2, 3), (3,)],
     dict(stride=2, padding=1, output_padding=(0, 1, 1))),
    ("unfold", [(2, 3, 7, 6)], dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=2)),
    ("fold", [(2, 12, 9)], dict(output_size=(5, 6), kernel_size=(2, 3), padding=1,
                                stride=(2, 2))),
]


@pytest.mark.parametrize("i", range(len(CALLS)), ids=[c[0] for c in CALLS])
def test_float32_values_grads_and_double_backward(i):
    name, shapes, kw = CALLS[i]
    rng = np.random.default_rng(i)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    def prog(T):
        F = T.nn.functional
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # uneven 'same' warns once
            y = getattr(F, name)(*xs, **kw)
        grads = T.autograd.grad((y * y).sum(), xs, create_graph=True)
        second = T.autograd.grad(sum((g * g).sum() for g in grads), xs)
        # (unbatched calls end in squeeze(0), whose gradient graph is not this file's subject)
        batched = xs[0].dim() == xs[-1].dim() or name in ("unfold", "fold")
        return y, grads, second, _graph(y.grad_fn), \
            [_graph(g.grad_fn) for g in grads] if batched else None
    same(prog, atol=2e-4, rtol=2e-4)


def test_torch_convolution_plain_and_transposed(rng):
    x, w, b = rng.standard_normal((2, 4, 5, 5)), rng.standard_normal((4, 3, 2, 2)), \
        rng.standard_normal(6)

    def prog(T):
        xs = [T.tensor(a, requires_grad=True) for a in (x, w, b)]
        y1 = T.convolution(xs[0], xs[1][:, :2], None, [2], [1], [1], False, [0], 2)
        y2 = T.convolution(*xs, (2, 1), (1, 0), (1, 1), True, (1, 0), 2)
        return y1, y2, T.autograd.grad((y1 * y1).sum() + (y2 * y2).sum(), xs), \
            _graph(y2.grad_fn)
    same(prog)


def test_public_names_follow_torch():
    for name in ("conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                 "convolution", "conv_tbc"):
        assert hasattr(torch, name) and hasattr(chainrule, name)
        assert not hasattr(torch.Tensor, name) and not hasattr(chainrule.Tensor, name)
    for name in ("fold", "unfold"):     # only nn.functional's (torch has Tensor.unfold)
        assert hasattr(torch.nn.functional, name) and hasattr(chainrule.nn.functional, name)
        assert not hasattr(torch, name) and not hasattr(chainrule, name)
    # none takes out= (torch.convolution's .out overload is not bound in Python)
    same_error(lambda T: T.convolution(_z(T, 1, 1, 3), _z(T, 1, 1, 2), None, [1], [0], [1],
                                       False, [0], 1, out=_z(T, 0)))
    same_error(lambda T: T.conv_tbc(_z(T, 3, 1, 1), _z(T, 2, 1, 1), _z(T, 1), out=_z(T, 0)))


@pytest.mark.parametrize("pad", [0, 1, -1, 2])
def test_conv_tbc_values_and_composite_double_backward(pad, rng):
    """conv_tbc's backward is composite in PyTorch (addmm_ on narrowed zeros): the gradients
    taken with create_graph are CopySlices chains, and so are chainrule's."""
    arrays = [rng.standard_normal(s) for s in ((6, 2, 3), (3, 3, 4), (4,))]

    def prog(T):
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        y = T.conv_tbc(*xs, pad)
        grads = T.autograd.grad((y * y).sum(), xs, create_graph=True)
        second = T.autograd.grad(sum((g * g).sum() for g in grads), xs)
        return y, grads, second, _graph(y.grad_fn), [_graph(g.grad_fn) for g in grads]
    same(prog)


def test_conv_tbc_dtypes():
    def prog(T):
        x, w = T.arange(30).reshape(5, 2, 3), T.arange(36).reshape(3, 3, 4)
        return (T.conv_tbc(x, w, T.arange(4)), T.conv_tbc(x, w, T.ones(4)),
                T.conv_tbc(x.float(), w.float(), T.ones(4, dtype=T.float64), 1),
                T.conv_tbc(x.float(), w.float(), T.ones(4).long()))
    same(prog)


@pytest.mark.parametrize("dtype", ["int64", "float16"])
def test_conv_integer_and_half(dtype):
    def prog(T):
        d = getattr(T, dtype)
        x = T.arange(2 * 3 * 25).reshape(2, 3, 5, 5).to(d) % 7
        w = (T.arange(24).reshape(3, 2, 2, 2) % 5).to(d)
        return (T.conv2d(x, w.transpose(0, 1)), T.conv_transpose2d(x, w),
                T.conv3d(x[:, :, None], w.transpose(0, 1)[:, :, None]),
                T.conv_transpose1d(x[:, :, 0], w[..., 0], stride=2))
    same(prog, atol=0.5, rtol=1e-3)


def test_empty_inputs():
    def prog(T):
        return (T.conv_transpose2d(_z(T, 0, 3, 4, 4), _z(T, 3, 2, 2, 2), stride=2),
                T.conv_transpose2d(_z(T, 0, 3, 4, 4), _z(T, 3, 2, 2, 2), dilation=0),
                T.conv3d(_z(T, 0, 2, 3, 3, 3), _z(T, 4, 2, 2, 2, 2)),
                T.conv2d(_z(T, 1, 0, 4, 4), _z(T, 3, 0, 2, 2), _z(T, 3) + 1),
                T.nn.functional.unfold(_z(T, 0, 2, 4, 4), 2),
                T.nn.functional.fold(_z(T, 0, 8, 9), 4, 2))
    same(prog)


def test_complex_values_and_gradients(rng):
    """Values, gradients and graph (both build complex convolutions from three real ones)."""
    a = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in ((1, 2, 4), (2, 2, 3))]

    def prog(T):
        x, w = (T.tensor(v, requires_grad=True) for v in a)
        y = T.conv_transpose1d(x, w, stride=2)
        z = T.conv1d(x, w.transpose(0, 1))
        grads = T.autograd.grad((y * y.conj()).real.sum() + (z * z).real.sum(), (x, w))
        return y.detach(), z.detach(), grads, y.grad_fn.name(), z.grad_fn.name()
    same(prog)


# ---- errors, in PyTorch's order -----------------------------------------------------------

def _x(T, *shape):
    return _z(T, 1, 4, *shape)


ERRORS = [
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), groups=3),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), output_padding=1),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), output_padding=(0, 1)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), output_padding=-1),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), padding=-1),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), padding=4),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), stride=0),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), dilation=0),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), dilation=0,
                                    output_padding=1),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), _z(T, 4)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5)[:, :3], _z(T, 4, 3, 3, 3)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5)[0, 0], _z(T, 4, 3, 3, 3)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), padding="same"),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3, dtype="float32")),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), stride=(1, 1, 1)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 3), output_padding=(1, 1, 1)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 0, 3, 3)),
    lambda T, F: F.conv_transpose2d(_x(T, 0, 5), _z(T, 4, 3, 3, 3)),
    lambda T, F: F.conv_transpose2d(_x(T, 5, 5), _z(T, 4, 3, 3, 0)),
    lambda T, F: F.conv_transpose2d(_z(T, 2, 4, 4, 4), _z(T, 4, 2, 2, 2), groups=2, padding=3),
    lambda T, F: F.conv_transpose2d(_z(T, 0, 4, 4, 4), _z(T, 4, 2, 2, 2), padding=6),
    lambda T, F: F.conv_transpose1d(_x(T, 5), _z(T, 4, 3, 3), dilation=0),
    lambda T, F: F.conv_transpose1d(_x(T, 5), _z(T, 4, 3, 3), output_padding=1),
    lambda T, F: F.conv_transpose1d(_x(T, 5), _z(T, 4, 3, 3), padding=5),
    lambda T, F: F.conv_transpose1d(_x(T, 5), _z(T, 4, 3, 0)),
    lambda T, F: F.conv_transpose1d(_x(T, 0), _z(T, 4, 3, 3)),
    lambda T, F: F.conv_transpose3d(_x(T, 5, 5, 5), _z(T, 4, 3, 3, 3, 3), dilation=0),
    lambda T, F: F.conv_transpose3d(_x(T, 5, 5, 5), _z(T, 4, 3, 3, 3, 3), output_padding=1),
    lambda T, F: F.conv_transpose3d(_x(T, 5, 5, 5), _z(T, 4, 3, 3, 3, 3), padding=5),
    lambda T, F: F.conv_transpose3d(_x(T, 5, 5, 5), _z(T, 4, 3, 3, 3, 0)),
    lambda T, F: F.conv_transpose3d(_x(T, 5, 5), _z(T, 4, 3, 3, 3, 3)),
    lambda T, F: F.conv3d(_x(T, 5, 5), _z(T, 2, 4, 2, 2, 2)),
    lambda T, F: F.conv3d(_x(T, 0, 5, 5), _z(T, 2, 4, 3, 3, 3)),
    lambda T, F: F.conv3d(_x(T, 5, 5, 5), _z(T, 2, 4, 3, 3, 0)),
    lambda T, F: F.conv3d(_x(T, 5, 5, 5), _z(T, 2, 4, 3, 3, 3), dilation=0),
    lambda T, F: F.conv3d(_x(T, 5, 5, 5), _z(T, 2, 4, 3, 3, 3), dilation=(1, 0, 1)),
    lambda T, F: F.conv3d(_x(T, 5, 5, 5), _z(T, 2, 4, 3, 3, 3), _z(T, 2, dtype="float32")),
    lambda T, F: F.conv3d(_x(T, 5, 5, 5), _z(T, 2, 3, 3, 3, 3)),
    lambda T, F: F.conv2d(_x(T, 0, 5), _z(T, 2, 4, 3, 3), padding=2),
    lambda T, F: F.conv2d(_x(T, 5, 5), _z(T, 2, 4, 3, 0)),
    lambda T, F: F.conv1d(_x(T, 5), _z(T, 2, 4, 0)),
    lambda T, F: F.conv1d(_x(T, 5), _z(T, 2, 4, 3), dilation=0),
    lambda T, F: F.conv2d(_x(T, 5, 5).bool(), _z(T, 2, 4, 3, 3).bool()),
    lambda T, F: T.convolution(_x(T, 5, 5), _z(T, 4, 3, 3, 3), None, [1], [0], [1], True,
                               [0, 0, 0], 1),
    lambda T, F: T.convolution(_x(T, 5, 5), _z(T, 3, 4, 3, 3), None, [2], [0], [1], False,
                               [-1], 1),
    lambda T, F: T.convolution(_x(T, 5, 5)[0], _z(T, 3, 4, 3, 3), None, [2], [0], [1], False,
                               [0], 1),
    lambda T, F: T.convolution(_x(T, 5, 5), _z(T, 3, 4, 3, 3), None, [], [0], [1], False,
                               [0], 1),
    lambda T, F: T.convolution(_x(T, 5, 5), _z(T, 4, 3, 3, 3), None, [1], [0], [1], True,
                               [0], 0),
    lambda T, F: T.convolution(_x(T, 5, 5), _z(T, 4, 3), None, [1], [0], [1], True, [0], 1),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4), _z(T, 3)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 2, 4), _z(T, 3)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2), _z(T, 3, 2, 4), _z(T, 4)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 4), _z(T, 4)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4), _z(T, 4, 1)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 7, 3, 4), _z(T, 4)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4), _z(T, 4), -3),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4), _z(T, 4), 1.5),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4), None),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3), _z(T, 3, 3, 4, dtype="float32"), _z(T, 4)),
    lambda T, F: T.conv_tbc(_z(T, 5, 2, 3).bool(), _z(T, 3, 3, 4).bool(), _z(T, 4).bool()),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_conv_errors_match_pytorch(i):
    same_error(lambda T: ERRORS[i](T, T.nn.functional))


X4 = (2, 3, 5, 5)
C3 = (2, 12, 16)
FOLD_ERRORS = [
    lambda F, T: F.unfold(_z(T, *X4), 6),
    lambda F, T: F.unfold(_z(T, *X4), 0),
    lambda F, T: F.unfold(_z(T, *X4), 2, stride=0),
    lambda F, T: F.unfold(_z(T, *X4), 2, dilation=0),
    lambda F, T: F.unfold(_z(T, *X4), 2, padding=-1),
    lambda F, T: F.unfold(_z(T, *X4), 2, padding=-1, stride=0),
    lambda F, T: F.unfold(_z(T, *X4), (2, 2, 2)),
    lambda F, T: F.unfold(_z(T, *X4), 2, stride=(1,)),
    lambda F, T: F.unfold(_z(T, *X4).long(), 2),
    lambda F, T: F.unfold(_z(T, *X4)[:, :0], 2),
    lambda F, T: F.unfold(_z(T, *X4)[:, :, :0], 2),
    lambda F, T: F.unfold(_z(T, *X4)[0, 0], 2),
    lambda F, T: F.unfold(_z(T, *X4)[0, 0, 0], 2),
    lambda F, T: F.unfold(_z(T, *X4), 2.5),
    lambda F, T: F.unfold(_z(T, *X4), "a"),
    lambda F, T: F.unfold(_z(T, *X4), (2, 2.0)),
    lambda F, T: F.unfold(_z(T, *X4), 2, out=None),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 3),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 2, stride=2),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 2, stride=0),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 0),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 2, dilation=0),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 2, padding=-1),
    lambda F, T: F.fold(_z(T, *C3), (5, 5), 2, padding=-1, stride=0),
    lambda F, T: F.fold(_z(T, *C3), (5,), 2),
    lambda F, T: F.fold(_z(T, *C3)[None], 5, 2),
    lambda F, T: F.fold(_z(T, *C3)[:, :11], 5, 2),
    lambda F, T: F.fold(_z(T, *C3)[:, :0], 5, 2),
    lambda F, T: F.fold(_z(T, *C3)[:, :, :0], (1, 1), 2),
    lambda F, T: F.fold(_z(T, *C3)[0, 0], (5, 5), 2),
    lambda F, T: F.fold(_z(T, *C3).long(), 5, 2),
    lambda F, T: F.fold(_z(T, *C3), (1, 1), 2),
    lambda F, T: F.fold(_z(T, *C3), (0, 5), 2),
    lambda F, T: F.fold(_z(T, *C3), (5, 5.0), 2),
]


@pytest.mark.parametrize("i", range(len(FOLD_ERRORS)))
def test_fold_errors_match_pytorch(i):
    same_error(lambda T: FOLD_ERRORS[i](T.nn.functional, T))


def test_fold_unfold_dtypes():
    def prog(T):
        F = T.nn.functional
        x = T.arange(2 * 3 * 16).reshape(2, 3, 4, 4)
        return (F.unfold(x.bool(), 2), F.unfold(x.half(), 2, stride=2),
                F.unfold(x.to(T.complex64), 3, padding=1), F.fold(F.unfold(x.double(), 2), 4, 2),
                F.fold(F.unfold(x.bool(), 2, stride=2), 4, 2, stride=2))
    same(prog)


# ---- modules ------------------------------------------------------------------------------

MODULES = [
    (lambda nn: nn.Conv3d(2, 4, (2, 3, 2), stride=(1, 2, 1), padding=1, groups=2), (4, 5, 4)),
    (lambda nn: nn.Conv3d(2, 3, 2, padding="same", padding_mode="reflect", bias=False),
     (3, 4, 4)),
    (lambda nn: nn.Conv3d(2, 3, 3, padding=(1, 2, 0), padding_mode="circular", dilation=2),
     (5, 5, 5)),
    (lambda nn: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
     (5,)),
    (lambda nn: nn.ConvTranspose2d(2, 3, (2, 3), stride=(2, 1), dilation=(1, 2), bias=False),
     (4, 3)),
    (lambda nn: nn.ConvTranspose3d(2, 2, 2, stride=2, padding=(0, 1, 0), dtype=None),
     (3, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_modules_match_pytorch(i, rng):
    build, spatial = MODULES[i]
    m0 = build(torch.nn)
    a = rng.standard_normal((2, m0.in_channels) + spatial)

    def prog(T):
        T.manual_seed(i)
        m = build(T.nn)
        x = T.tensor(a, dtype=T.float32, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y, y1 = m(x), m(x[1])
        params = list(m.parameters())
        grads = T.autograd.grad((y * y).sum() + y1.sum(), [x] + params)
        return ([p.detach() for p in params], y, y1, grads, _graph(y.grad_fn), repr(m),
                list(m.state_dict()), [n for n, _ in m.named_parameters()])
    ours, theirs = same(prog, atol=1e-5, rtol=1e-5)
    for o, t in zip(ours[0], theirs[0]):     # the seeded parameters are PyTorch's, bit for bit
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("size", [None, (8, 11), [2, 3, 7, 12], (8, 10)])
def test_conv_transpose_output_size(size, rng):
    a = rng.standard_normal((2, 3, 4, 4))

    def prog(T):
        T.manual_seed(0)
        m = T.nn.ConvTranspose2d(3, 2, 3, stride=(2, 3), padding=1)
        y = m(T.tensor(a, dtype=T.float32), output_size=size)
        return y, m.output_padding
    same(prog, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("prog", [
    lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2)(_z(T, 2, 3, 4, 4, dtype="float32"),
                                                      output_size=(12, 12)),
    lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2)(_z(T, 2, 3, 4, 4, dtype="float32"),
                                                      output_size=(9,)),
    lambda T: T.nn.ConvTranspose1d(3, 2, 3, stride=2)(_z(T, 3, 4, dtype="float32"),
                                                      output_size=(1, 2, 9)),
    lambda T: T.nn.ConvTranspose2d(3, 2, 3, padding_mode="reflect"),
    lambda T: T.nn.ConvTranspose3d(3, 2, 3, groups=2),
    lambda T: T.nn.Conv3d(3, 2, 3, padding="same", stride=2),
    lambda T: T.nn.Conv3d(3, 4, 3, groups=2),
    lambda T: T.nn.Fold(3, 2)(_z(T, 2, 8, 5)),
    lambda T: T.nn.Unfold(3)(_z(T, 2, 2)),
])
def test_module_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("build", [
    lambda nn: nn.Conv3d(16, 33, (3, 5, 2), stride=(2, 1, 1), padding=(4, 2, 0)),
    lambda nn: nn.Conv3d(4, 4, 3, groups=2, bias=False, padding="same", padding_mode="replicate"),
    lambda nn: nn.ConvTranspose1d(16, 33, 3, stride=2, output_padding=1, dilation=2),
    lambda nn: nn.ConvTranspose2d(16, 32, (3, 5), stride=(2, 1), padding=(4, 2), groups=16),
    lambda nn: nn.ConvTranspose3d(16, 33, 3, bias=False),
    lambda nn: nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=2),
    lambda nn: nn.Unfold(kernel_size=(2, 3), dilation=2, padding=1),
])
def test_reprs(build):
    same(lambda T: repr(build(T.nn)))


def test_fold_unfold_modules_round_trip(rng):
    a = rng.standard_normal((2, 3, 6, 5))

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        cols = T.nn.Unfold((2, 3), padding=1, stride=(2, 1))(x)
        back = T.nn.Fold((6, 5), (2, 3), padding=1, stride=(2, 1))(cols)
        return cols, back, T.autograd.grad((back * back).sum(), x), _graph(back.grad_fn)
    same(prog)


def test_conv3d_trains_like_pytorch(rng):
    """A few SGD steps of a small 3-D conv net give PyTorch's parameters."""
    a = rng.standard_normal((2, 1, 5, 5, 5))
    t = rng.standard_normal((2, 2, 5, 5, 5))

    def prog(T):
        T.manual_seed(1)
        net = T.nn.Sequential(T.nn.Conv3d(1, 3, 3, padding=1), T.nn.Tanh(),
                              T.nn.ConvTranspose3d(3, 2, 3, padding=1))
        opt = T.optim.SGD(net.parameters(), lr=0.05)
        x, target = T.tensor(a, dtype=T.float32), T.tensor(t, dtype=T.float32)
        for _ in range(3):
            opt.zero_grad()
            loss = ((net(x) - target) ** 2).mean()
            loss.backward()
            opt.step()
        return loss, [p.detach() for p in net.parameters()]
    same(prog, atol=1e-5, rtol=1e-4)


# ---- 3-D, fractional, power-average pooling and unpooling ---------------------------------

def _distinct(rng, *shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0


POOLS = [
    ("avg_pool3d", (1, 2, 5, 6, 7), (2,), {}),
    ("avg_pool3d", (2, 5, 6, 7), (3,), dict(stride=2, padding=1, ceil_mode=True,
                                            count_include_pad=False)),
    ("avg_pool3d", (1, 2, 5, 6, 7), ((2, 3, 2),), dict(stride=(1, 2, 3), padding=(1, 0, 1),
                                                        divisor_override=5)),
    ("adaptive_avg_pool3d", (1, 2, 5, 6, 7), ((3, None, 4),), {}),
    ("adaptive_max_pool3d", (1, 2, 5, 6, 7), (3,), dict(return_indices=True)),
    ("adaptive_max_pool3d", (2, 5, 6, 7), ((2, None, 4),), {}),
    ("lp_pool1d", (2, 3, 7), (2, 3), {}),
    ("lp_pool2d", (2, 3, 7, 6), (1.5, 2), dict(stride=1, ceil_mode=True)),
    ("lp_pool3d", (2, 3, 5, 6, 7), (3, 2), {}),
    ("lp_pool2d", (2, 3, 7, 6), (float("inf"), 2), {}),
    ("lp_pool1d", (2, 3, 7), (-float("inf"), 3), dict(stride=2)),
]


@pytest.mark.parametrize("i", range(len(POOLS)), ids=[p[0] for p in POOLS])
def test_pools(i, rng):
    name, shape, args, kw = POOLS[i]
    a = _distinct(rng, *shape) + 0.5

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        out = getattr(T.nn.functional, name)(x, *args, **kw)
        y = out[0] if isinstance(out, tuple) else out
        return out, T.autograd.grad((y * y).sum(), x), _graph(y.grad_fn)
    same(prog)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool(dims, rng):
    a = _distinct(rng, *((2, 3) + (6,) * dims))

    def prog(T):
        F = T.nn.functional
        pool = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[dims - 1]
        unpool = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[dims - 1]
        x = T.tensor(a, requires_grad=True)
        y, idx = pool(x, 2, return_indices=True)
        u = unpool(y, idx, 2)
        u2 = unpool(y, idx, 2, output_size=(7,) * dims)
        g = T.autograd.grad((u * u).sum() + u2.sum(), x)
        return u, u2, g, _graph(u.grad_fn)[:2]
    same(prog)


def test_fractional_max_pool(rng):
    a2, a3 = _distinct(rng, 2, 3, 7, 8), _distinct(rng, 1, 2, 6, 7, 8)

    def prog(T):
        F = T.nn.functional
        T.manual_seed(4)      # the random samples come from the global generator
        x2, x3 = T.tensor(a2, requires_grad=True), T.tensor(a3, requires_grad=True)
        y2, i2 = F.fractional_max_pool2d(x2, (2, 3), output_size=(4, 5), return_indices=True)
        y3 = F.fractional_max_pool3d(x3, 2, output_ratio=0.6)
        y4 = F.fractional_max_pool2d(x2[0], 2, output_ratio=(0.5, 0.6))
        m = T.nn.FractionalMaxPool3d(2, output_size=3, return_indices=True)
        y5, i5 = m(x3)
        grads = T.autograd.grad((y2 * y2).sum() + y3.sum() + y4.sum() + y5.sum(), (x2, x3))
        return y2, i2, y3, y4, y5, i5, grads, repr(m), _graph(y2.grad_fn), _graph(y3.grad_fn)
    same(prog)


POOL_ERRORS = [
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 6),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 2, padding=2),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 0),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 2, stride=0),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), (2, 2)),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 2, divisor_override=0),
    lambda F, T: F.avg_pool3d(_z(T, 5, 6, 7), 2),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 0, 6, 7), 2),
    lambda F, T: F.avg_pool3d(_z(T, 1, 2, 5, 6, 7), 2, padding=-1),
    lambda F, T: F.adaptive_max_pool3d(_z(T, 5, 6, 7), 3),
    lambda F, T: F.adaptive_max_pool3d(_z(T, 1, 2, 5, 6, 7), (2, 2)),
    lambda F, T: F.adaptive_max_pool3d(_z(T, 1, 2, 5, 6, 7), -1),
    lambda F, T: F.adaptive_max_pool3d(_z(T, 1, 2, 5, 6, 7, dtype="int64"), 2),
    lambda F, T: F.adaptive_max_pool3d(_z(T, 1, 2, 0, 6, 7), 2),
    lambda F, T: F.adaptive_avg_pool3d(_z(T, 5, 6, 7), 2),
    lambda F, T: F.adaptive_avg_pool3d(_z(T, 1, 2, 5, 6, 7), (2, 2)),
    lambda F, T: F.adaptive_avg_pool3d(_z(T, 1, 2, 5, 6, 7), -1),
    lambda F, T: F.adaptive_avg_pool3d(_z(T, 1, 2, 0, 6, 7), 2),
    lambda F, T: F.adaptive_avg_pool3d(_z(T, 1, 2, 5, 6, 7, dtype="int64"), 2),
    lambda F, T: F.max_unpool2d(_z(T, 2, 5, 3, 3), (T.arange(90).reshape(2, 5, 3, 3) == 50) * 40,
                                2, output_size=(5, 7)),
    lambda F, T: F.max_unpool2d(_z(T, 2, 5, 3, 3), T.zeros(2, 5, 3, 3, dtype=T.int32), 2),
    lambda F, T: F.max_unpool2d(_z(T, 2, 5, 3, 3), T.zeros(2, 1, 3, 3, dtype=T.int64), 2),
    lambda F, T: F.max_unpool2d(_z(T, 2, 5, 3, 3), T.zeros(2, 5, 3, 3, dtype=T.int64), 2,
                                output_size=(5,)),
    lambda F, T: F.max_unpool2d(_z(T, 2, 5, 3, 3), T.zeros(2, 5, 3, 3, dtype=T.int64), 2,
                                output_size=(9, 7)),
    lambda F, T: F.max_unpool2d(_z(T, 3, 3), T.zeros(3, 3, dtype=T.int64), 2),
    lambda F, T: F.max_unpool3d(_z(T, 2, 1, 3, 3, 3), T.zeros(2, 1, 3, 3, 3, dtype=T.int64), 2,
                                stride=(0, 2, 2)),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_ratio=0.5),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_size=7),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_size=3,
                                         _random_samples=_z(T, 1, 5, 2)),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_size=3,
                                         _random_samples=_z(T, 2, 4, 2)),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_size=3,
                                         _random_samples=_z(T, 2, 5, 3)),
    lambda F, T: F.fractional_max_pool2d(_z(T, 2, 5, 6, 7), 2, output_size=3,
                                         _random_samples=_z(T, 2, 5, 2, dtype="float32")),
    lambda F, T: F.fractional_max_pool3d(_z(T, 1, 2, 6, 6, 6), 2, output_size=5),
    lambda F, T: T.nn.FractionalMaxPool2d(2),
    lambda F, T: T.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda F, T: T.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda F, T: T.nn.FractionalMaxPool3d(0, output_ratio=0.5),
]


@pytest.mark.parametrize("i", range(len(POOL_ERRORS)))
def test_pool_errors(i):
    same_error(lambda T: POOL_ERRORS[i](T.nn.functional, T))


@pytest.mark.parametrize("build, shape", [
    (lambda nn: nn.AvgPool3d(2, stride=1, padding=1, ceil_mode=True), (2, 3, 4, 5, 4)),
    (lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), (2, 3, 4, 5, 4)),
    (lambda nn: nn.AdaptiveMaxPool3d(2), (3, 4, 5, 4)),
    (lambda nn: nn.AdaptiveMaxPool3d((1, 2, 3), return_indices=True), (2, 3, 4, 5, 4)),
    (lambda nn: nn.LPPool1d(2, 3, stride=2), (2, 3, 9)),
    (lambda nn: nn.LPPool2d(1.5, (2, 3)), (2, 3, 6, 7)),
    (lambda nn: nn.LPPool3d(3, 2, ceil_mode=True), (2, 3, 5, 5, 5)),
])
def test_pool_modules(build, shape, rng):
    a = _distinct(rng, *shape) + 0.5

    def prog(T):
        m = build(T.nn)
        x = T.tensor(a, requires_grad=True)
        out = m(x)
        y = out[0] if isinstance(out, tuple) else out
        return repr(m), out, T.autograd.grad(y.sum(), x)
    same(prog)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_unpool_modules(dims, rng):
    a = _distinct(rng, *((2, 3) + (5,) * dims))

    def prog(T):
        pool = (T.nn.MaxPool1d, T.nn.MaxPool2d, T.nn.MaxPool3d)[dims - 1](2, return_indices=True)
        unpool = (T.nn.MaxUnpool1d, T.nn.MaxUnpool2d, T.nn.MaxUnpool3d)[dims - 1](2)
        x = T.tensor(a, requires_grad=True)
        y, idx = pool(x)
        u = unpool(y, idx, output_size=x.size())
        return repr(unpool), u, T.autograd.grad(u.sum(), x)
    same(prog)


# ---- lazy modules -------------------------------------------------------------------------

LAZY = [
    (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    (lambda nn: nn.LazyConv2d(4, (2, 3), stride=2, bias=False), (3, 6, 7)),
    (lambda nn: nn.LazyConv3d(2, 2, groups=2), (1, 4, 3, 4, 3)),
    (lambda nn: nn.LazyConvTranspose1d(3, 2, stride=2), (4, 5)),
    (lambda nn: nn.LazyConvTranspose2d(4, 3, output_padding=1, stride=2, groups=2),
     (1, 2, 3, 4)),
    (lambda nn: nn.LazyConvTranspose3d(2, 2, dtype=None), (1, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(LAZY)))
def test_lazy_convolutions(i, rng):
    build, shape = LAZY[i]
    a = rng.standard_normal(shape)

    def prog(T):
        T.manual_seed(i)
        m = build(T.nn)
        before = (type(m).__name__, repr(m), repr(m.weight), m.in_channels,
                  m.has_uninitialized_params(), list(m.state_dict()),
                  isinstance(m.weight, T.nn.UninitializedParameter))
        x = T.tensor(a, dtype=T.float32, requires_grad=True)
        y = m(x)
        after = (type(m).__name__, repr(m), m.in_channels, type(m.weight).__name__,
                 hasattr(m, "_initialize_hook"), list(m.state_dict()))
        params = [p.detach() for p in m.parameters()]
        return before, after, params, y, T.autograd.grad(y.sum(), x)
    ours, theirs = same(prog, atol=1e-5, rtol=1e-5)
    for o, t in zip(ours[2], theirs[2]):     # PyTorch's seeded values, bit for bit
        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_lazy_load_state_dict_materializes():
    def prog(T):
        T.manual_seed(0)
        src = T.nn.Conv2d(3, 2, 2)
        m = T.nn.LazyConv2d(2, 2)
        m.load_state_dict(src.state_dict())
        return type(m).__name__, m.weight.shape, m.weight.detach(), m.bias.detach(), \
            m(T.ones(1, 3, 4, 4)).detach()
    same(prog)


LAZY_ERRORS = [
    lambda T: T.nn.LazyConv2d(4, 3)(T.ones(3, 5)),
    lambda T: T.nn.LazyConv2d(4, 3, groups=2)(T.ones(1, 3, 5, 5)),
    lambda T: T.nn.LazyConv1d(4, 3).weight.shape,
    lambda T: T.nn.UninitializedParameter().shape,
    lambda T: T.nn.UninitializedBuffer().share_memory_(),
]


@pytest.mark.parametrize("i", range(len(LAZY_ERRORS)))
def test_lazy_errors(i):
    same_error(LAZY_ERRORS[i])


def test_uninitialized_parameter_and_buffer():
    def prog(T):
        p = T.nn.UninitializedParameter(dtype=T.float64)
        b = T.nn.UninitializedBuffer()
        reprs = (repr(p), repr(b), p.requires_grad, b.requires_grad, p.dtype,
                 T.nn.parameter.is_lazy(p), T.nn.parameter.is_lazy(T.ones(1)))
        p.materialize((2, 3))
        b.materialize(4)
        return reprs, type(p).__name__, type(b).__name__, p.shape, b.shape, p.requires_grad, \
            T.nn.parameter.is_lazy(p)
    same(prog)


def test_functional_spellings(rng):
    """nn.functional's names for these ops, each called once against PyTorch."""
    a = _distinct(rng, 1, 2, 6, 6, 6) + 0.5

    def prog(T):
        F = T.nn.functional
        x = T.tensor(a)
        return (F.avg_pool3d(x, 2), F.adaptive_max_pool3d_with_indices(x, 2),
                F.lp_pool1d(x[0, 0, 0], 2, 2), F.lp_pool2d(x[0, 0], 2, 3),
                F.lp_pool3d(x, 1.5, 2),
                F.fractional_max_pool2d_with_indices(x[0, 0], 2, output_size=3,
                                                     _random_samples=T.full((1, 6, 2), 0.3,
                                                                            dtype=T.float64)),
                F.fractional_max_pool3d_with_indices(x, 2, output_size=3,
                                                     _random_samples=T.full((1, 2, 3), 0.6,
                                                                            dtype=T.float64)),
                F.conv_tbc(x[0, 0], x[0, 1, :2, :, :4], x[0, 0, 0, 0, :4]))
    same(prog)
