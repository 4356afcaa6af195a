"""Regression tests for what the long fuzz run (issue 12) found in pooling, grid sampling and
stft (ops/conv.py, ops/nn_ops.py, ops/sampling.py, and the index_add / as_strided backward
stft's gradient runs through), each compared with PyTorch on the input found."""
import numpy as np
import pytest

from helpers import same, same_error

INF = float("inf")


# ---- adaptive max pooling: an empty output's backward is refused -------------------------

@pytest.mark.parametrize("name, shape, size", [
    ("adaptive_max_pool1d", (2, 3, 10), 0),              # the fuzz draw
    ("adaptive_max_pool1d", (3, 10), 0),
    ("adaptive_max_pool2d", (2, 3, 4, 5), (0, 2)),
    ("adaptive_max_pool2d", (3, 4, 5), (2, 0)),
    ("adaptive_max_pool3d", (2, 3, 4, 5, 6), (0, 2, 2)),
    ("adaptive_max_pool3d", (3, 4, 5, 6), (2, 2, 0)),
])
def test_adaptive_max_pool_empty_output_backward(name, shape, size):
    def prog(T):
        x = T.ones(shape, dtype=T.float64, requires_grad=True)
        getattr(T.nn.functional, name)(x, size).sum().backward()
    same_error(prog)


def test_adaptive_max_pool_empty_batch_backward():
    def prog(T):
        x = T.ones(0, 3, 4, 5, requires_grad=True)
        T.nn.functional.adaptive_max_pool2d(x, 2).sum().backward()
        return x.grad
    same(prog)


# ---- grid_sample: nearest has no grid gradient (zeros, never 0 * inf) ----------------------

@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("dtype", ["float16", "float64"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_nearest_grid_grad(dims, dtype, padding_mode):
    def prog(T):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((1, 2, 3, 4, 3)[:dims + 2])
        x.flat[0], x.flat[5] = -INF, INF
        g = rng.uniform(-1.2, 1.2, (1,) + (2,) * dims + (dims,))
        x = T.tensor(x, dtype=getattr(T, dtype), requires_grad=True)
        g = T.tensor(g, dtype=getattr(T, dtype), requires_grad=True)
        out = T.nn.functional.grid_sample(x, g, mode="nearest", padding_mode=padding_mode,
                                          align_corners=False)
        return T.autograd.grad(out, [x, g], T.full_like(out, INF))
    same(prog)


# ---- index_add: PyTorch's kernels multiply by alpha as complex numbers ---------------------

@pytest.mark.parametrize("shape, dim", [((3,), 0), ((), 0), ((3, 2), 0), ((3, 2), 1),
                                        ((2, 3, 2), 1)])
@pytest.mark.parametrize("alpha", [1, True, 2])
def test_index_add_complex_alpha(shape, dim, alpha):
    def prog(T):
        src = T.full(shape, complex(INF, 1), dtype=T.complex128)
        index = T.arange(shape[dim]) if shape else T.tensor([0])
        return T.zeros(shape, dtype=T.complex128).index_add(dim, index, src, alpha=alpha)
    same(prog)


def test_index_add_bool_alpha_bad_index():
    # alpha True is not PyTorch's scatter_add path: its own message
    same_error(lambda T: T.zeros(3, 2).index_add(0, T.tensor([5, 0, 1]), T.ones(3, 2),
                                                 alpha=True))


# ---- as_strided backward: index_add_ only where the output may overlap ---------------------

@pytest.mark.parametrize("size, stride, offset", [
    ((2, 3), (1, 1), 0),            # overlapping: index_add_
    ((2, 3), (2, 1), 0),
    ((3, 2), (2, 3), 0),            # no overlap, though PyTorch's test cannot tell
    ((5,), (1,), 0),                # no overlap: a copy
    ((2, 2, 2), (0, 1, 2), 0),      # a broadcast dim summed first
])
def test_as_strided_backward_complex_inf(size, stride, offset):
    def prog(T):
        x = T.zeros(8, dtype=T.complex128, requires_grad=True)
        y = x.as_strided(size, stride, offset)
        g = T.arange(y.numel(), dtype=T.float64).reshape(size).to(T.complex128)
        g.view(-1)[0] = complex(INF, 1)
        g.view(-1)[2] = complex(1, -INF)
        return T.autograd.grad(y, [x], g)
    same(prog)


def test_as_strided_backward_overlapping_input():
    def prog(T):
        base = T.zeros(3, dtype=T.complex128, requires_grad=True)
        y = base.expand(2, 3).as_strided((2, 2), (1, 1))
        return T.autograd.grad(y, [base], T.tensor([[complex(INF, 1), 1j], [2, 3]]))
    same(prog)


@pytest.mark.parametrize("center", [True, False])
def test_stft_complex_overflowing_grad(center):
    # the fuzz draw: float32 real parts, int32 imaginary parts, a float64 window holding
    # -1e38: the frames' complex64 gradient overflows to infinite parts, which index_add_
    # (as_strided's backward) turns partly nan, and the reflection padding's backward sums
    def prog(T):
        rng = np.random.default_rng(0)
        re = T.tensor(rng.standard_normal((2, 20)), dtype=T.float32, requires_grad=True)
        im = T.tensor(rng.integers(-2, 3, (2, 20)), dtype=T.int32)
        im[0, 4] = im[1, 15] = 2 ** 31 - 1
        window = T.tensor(rng.uniform(0.5, 1.5, 8), requires_grad=True)
        with T.no_grad():
            window[1] = -1e38
        z = T.view_as_complex(T.stack([re, im], -1))
        out = T.view_as_real(T.stft(z, 8, window=window, hop_length=4, center=center,
                                    return_complex=True))
        g = T.tensor(rng.standard_normal(tuple(out.shape)))
        return T.autograd.grad(out, [re, window], g)
    same(prog)


def test_reflection_pad_backward_complex_inf():
    def prog(T):
        z = T.zeros(1, 2, 6, dtype=T.complex64, requires_grad=True)
        p = T.nn.functional.pad(z, [3, 3], "reflect")
        g = T.ones(p.shape, dtype=T.complex64)
        g[0, 0, 4] = complex(1, -INF)
        g[0, 1, 2] = complex(INF, 2)
        return T.autograd.grad(p, [z], g)
    same(prog)
