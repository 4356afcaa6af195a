"""Regression tests for the differences from PyTorch the long fuzz run found in convolutions,
pooling and sampling (issue 12): each compares chainrule with PyTorch on the input found."""
import pytest
import torch

from helpers import same, same_error


def _F(T):
    return T.nn.functional


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int32"])
def test_avg_pool3d_has_no_half_kernel(dtype):
    same_error(lambda T: _F(T).avg_pool3d(T.ones(0, 1, 4, 5, 4, dtype=getattr(T, dtype)),
                                          (2, 3, 2), divisor_override=2))


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["bool", "int64", "int16", "complex64"])
def test_max_unpool_refuses_non_float_before_checking_indices(dims, dtype):
    shape = (1, 1) + (2,) * dims
    same_error(lambda T: getattr(_F(T), f"max_unpool{dims}d")(
        T.ones(shape, dtype=getattr(T, dtype)), T.full(shape, 11), 2))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_of_an_empty_batch(dims):
    shape = (0, 1) + (2,) * dims

    def prog(T):
        x = T.zeros(shape, requires_grad=True)
        y = getattr(_F(T), f"max_unpool{dims}d")(x, T.full(shape, 70), 2)
        empty = getattr(_F(T), f"max_unpool{dims}d")(T.zeros(shape, dtype=T.bool),
                                                     T.full(shape, 70), 2)
        return y, T.autograd.grad(y.sum(), x)[0], empty
    same(prog)


def _complex_case(T, transposed, dims, special):
    import numpy as np
    rng = np.random.default_rng(dims)
    x = rng.standard_normal((2, 2) + (5,) * dims) + 1j * rng.standard_normal((2, 2) + (5,) * dims)
    w = rng.standard_normal((2, 3) + (2,) * dims) + 0j
    x.reshape(-1)[3] = special
    return (T.tensor(x, dtype=T.complex64, requires_grad=True),
            T.tensor(w, dtype=T.complex64, requires_grad=True),
            T.tensor(rng.standard_normal(3) + 1j, dtype=T.complex64, requires_grad=True))


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("special", [0.5, float("inf"), complex(0, float("-inf"))])
@pytest.mark.parametrize("transposed", [False, True])
def test_complex_convolution_is_gauss_trick_of_three_real_ones(dims, special, transposed):
    def prog(T):
        x, w, b = _complex_case(T, transposed, dims, special)
        if transposed:
            y = getattr(T, f"conv_transpose{dims}d")(x, w, b)
        else:
            y = getattr(T, f"conv{dims}d")(x, w.transpose(0, 1), b)
        grads = T.autograd.grad(y.abs().nan_to_num().sum(), (x, w, b))
        return (y, y.grad_fn, y.grad_fn.next_functions[0][0],
                y.grad_fn.next_functions[1][0]) + grads
    same(prog, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dtypes", [("complex64", "float32"), ("complex64", "float64"),
                                    ("complex64", "complex128"), ("float32", "complex64")])
def test_complex_convolution_refusals(transposed, dtypes):
    def prog(T):
        x = T.ones(1, 2, 5, dtype=getattr(T, dtypes[0]))
        w = T.ones(2, 2, 2, dtype=getattr(T, dtypes[1]))
        f = T.conv_transpose1d if transposed else T.conv1d
        return f(x, w), f(x, w.to(x.dtype), T.ones(2, dtype=T.bool)), \
            f(x, w.to(x.dtype), T.ones(2, dtype=T.bfloat16), padding="same")
    same_error(prog)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_convolution_has_no_complex_kernel(transposed, dims):
    same_error(lambda T: T.convolution(
        T.ones((1, 2) + (3,) * dims, dtype=T.complex64),
        T.ones((2, 2) + (2,) * dims, dtype=T.complex64), None, [1], [0], [1], transposed, [0],
        1))


def _fractional(T, d, kernel, n):
    x = T.zeros((n, 2, 7, 6, 5)[:d + 2], dtype=T.float16, requires_grad=True)
    x.data[..., 1:, :] = -float("inf")
    y, i = getattr(_F(T), f"fractional_max_pool{d}d")(
        x, kernel, (4, 3, 3)[:d], None, True, T.zeros(n, 2, d, dtype=T.float16))
    return x, y, i


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("kernel", [-1, 0, 2])
@pytest.mark.parametrize("n", [0, 1])
def test_fractional_max_pool_without_taps(d, kernel, n):
    """No taps, or only -infs: -inf at each window's start."""
    def prog(T):
        x, y, i = _fractional(T, d, kernel, n)
        return y, i, T.autograd.grad(y.sum(), x)[0] if n and kernel > 0 else y
    same(prog)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("kernel", [-1, 0])
def test_fractional_max_pool_empty_kernel_backward(d, kernel):
    """PyTorch's backward asserts on the windows past the input a kernel <= 0 gives."""
    def prog(T):
        x, y, _ = _fractional(T, d, kernel, 1)
        return T.autograd.grad(y.sum(), x)
    same_error(prog)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("size,samples,dtype", [
    ((9, 9, 9), (1, 3), "int64"), ((3, 9, 9), (0, 2), "int64"), ((-1, 3, 3), (1, 3), "int64"),
    ((-1, 3, 3), (1, 2), "int64"), ((-1, 9, 9), (1, 2), "int64"), ((3, 3, 3), (1, 2), "int64"),
    ((3, 9, 3), (1, 2), "float32"), ((3, 3, 3), (1, 2), "int64")])
def test_fractional_max_pool_check_order(d, size, samples, dtype):
    same_error(lambda T: getattr(_F(T), f"fractional_max_pool{d}d")(
        T.zeros((1, 2) + (7,) * d, dtype=getattr(T, dtype)), 2, size[:d], None, True,
        T.zeros(samples + (d,), dtype=T.float32)))


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("shape", [(), (2,), (2, 2), (0, 2, 2), (2, 2, 2, 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fractional_max_pool_checks_samples_dtype_then_dims(d, shape, dtype):
    same_error(lambda T: getattr(_F(T), f"fractional_max_pool{d}d")(
        T.zeros((2, 2, 7, 6, 5)[:d + 2], dtype=T.float64), 2, (4, 3, 3)[:d], None, False,
        T.zeros(shape, dtype=getattr(T, dtype))))


@pytest.mark.parametrize("d", [2, 3])
def test_fractional_max_pool_empty_inputs(d):
    def prog(T):
        fn = getattr(_F(T), f"fractional_max_pool{d}d")
        return (fn(T.zeros((0, 2, 7, 6, 5)[:d + 2], dtype=T.int32), 2, (4, 3, 3)[:d], None,
                   True, T.zeros(0, 2, d, dtype=T.int32)),
                fn(T.zeros((0, 7, 6, 5)[:d + 1]), 2, (4, 3, 3)[:d], None, False,
                   T.zeros(1, 0, d)))
    same(prog)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("shape", [(1, 0, 7, 6, 5), (2, 7, 0, 5, 5)])
def test_fractional_max_pool_refuses_empty_planes_first(d, shape):
    same_error(lambda T: getattr(_F(T), f"fractional_max_pool{d}d")(
        T.zeros(shape[:d + 2], dtype=T.int32), 2, (9, 9, 9)[:d], None, False,
        T.zeros(1, 0, d)))


@pytest.mark.parametrize("fn,shape,size", [
    ("adaptive_avg_pool1d", (2, 3, 5), 0), ("adaptive_avg_pool2d", (2, 3, 5), (0, 2)),
    ("adaptive_avg_pool2d", (2, 3, 5, 4), (2, 0)), ("adaptive_avg_pool3d", (2, 3, 5, 3), (0, 2, 2))])
def test_adaptive_avg_pool_backward_refuses_empty_output(fn, shape, size):
    def prog(T):
        x = T.ones(shape, requires_grad=True)
        return T.autograd.grad(getattr(_F(T), fn)(x, size).sum(), x)
    same_error(prog)


def _special(T, shape, dtype="float64"):
    import numpy as np
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    flat = x.reshape(-1)
    flat[[1, 7, 12]] = [np.nan, np.inf, -np.inf]
    flat[-3] = np.inf
    return T.tensor(x, dtype=getattr(T, dtype), requires_grad=True)


POOLS_AND_RESAMPLES = [
    ("avg_pool1d", (2, 3, 7), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool2d", (1, 2, 5, 5), dict(kernel_size=2)),
    ("avg_pool2d", (1, 2, 5, 5), dict(kernel_size=3, stride=1, padding=1)),
    ("avg_pool3d", (1, 2, 4, 4, 4), dict(kernel_size=2, stride=1)),
    ("adaptive_avg_pool1d", (2, 3, 7), dict(output_size=3)),
    ("adaptive_avg_pool2d", (1, 2, 5, 4), dict(output_size=(None, 3))),
    ("adaptive_avg_pool3d", (1, 2, 5, 4, 3), dict(output_size=(3, 2, 2))),
    ("interpolate", (1, 2, 4, 5, 3), dict(size=(2, 3, 2), mode="area")),
    ("interpolate", (2, 2, 5), dict(scale_factor=0.6, mode="linear")),
    ("interpolate", (2, 2, 5), dict(size=5, mode="linear")),
    ("interpolate", (2, 2, 5), dict(size=5, mode="linear", align_corners=True)),
    ("interpolate", (1, 2, 4, 5), dict(size=(7, 7), mode="bilinear", align_corners=True)),
    ("interpolate", (1, 2, 4, 5), dict(size=(4, 7), mode="bicubic", align_corners=True)),
    ("interpolate", (1, 2, 4, 5), dict(size=(3, 5), mode="bicubic")),
    ("interpolate", (1, 1, 3, 2, 4), dict(scale_factor=2, mode="trilinear")),
    ("interpolate", (1, 2, 6, 5), dict(scale_factor=0.6, mode="bilinear", antialias=True)),
    ("interpolate", (1, 2, 6, 5), dict(size=(5, 4), mode="bicubic", antialias=True,
                                       align_corners=True)),
    ("interpolate", (1, 2, 6, 5), dict(size=(6, 3), mode="bilinear", antialias=True)),
    ("interpolate", (1, 2, 6, 5), dict(size=(5, 9), mode="nearest")),
]


@pytest.mark.parametrize("fn,shape,kwargs", POOLS_AND_RESAMPLES)
def test_nan_and_inf_reach_only_the_windows_holding_them(fn, shape, kwargs):
    """Note [Non-finite taps]: values and gradients with nan, inf and -inf in the input."""
    def prog(T):
        import numpy as np
        x = _special(T, shape)
        y = getattr(_F(T), fn)(x, **kwargs)
        g = np.random.default_rng(0).standard_normal(tuple(y.shape))
        g.reshape(-1)[[0, 2]] = [np.inf, np.nan]
        return y, T.autograd.grad(y, x, T.tensor(g))[0]
    same(prog)


def test_lanczos_keeps_a_nan_to_its_windows():
    def prog(T):
        x = _special(T, (1, 2, 6, 5), "float32")
        x.data[0, 0, 2, 2] = 1e38
        return _F(T).interpolate(x.detach(), size=(5, 4), mode="lanczos", antialias=True)
    same(prog, rtol=1e-4, atol=1e30)


@pytest.mark.parametrize("dtype", ["complex128", "int32", "bool", "int64"])
def test_adaptive_avg_pool2d_to_an_empty_output_takes_any_dtype(dtype):
    same(lambda T: (
        _F(T).adaptive_avg_pool2d(T.zeros(0, 2, 5, 7, dtype=getattr(T, dtype)), (3, 4)),
        _F(T).adaptive_avg_pool2d(T.zeros(1, 2, 5, 7, dtype=getattr(T, dtype)), (0, 4)),
        _F(T).adaptive_avg_pool1d(T.zeros(2, 3, 7, dtype=getattr(T, dtype)), 0)))


@pytest.mark.parametrize("shapes,dtypes", [
    (((0, 2, 4, 3), (0, 3, 2, 2)), ("float64", "float16")),
    (((0, 2, 4, 3), (0, 3, 2, 2)), ("int32", "float16")),
    (((1, 2, 4, 3), (1, 0, 2, 2)), ("int32", "float16")),
    (((1, 0, 4, 3), (1, 1, 2, 2)), ("float64", "int32")),
    (((1, 0, 4, 3, 2), (1, 1, 2, 2, 3)), ("float32", "float64")),
    (((0, 2, 4, 3), (0, 3, 2, 2)), ("complex64", "complex64")),
    (((0, 2, 4, 3), (0, 3, 2, 2)), ("int64", "complex64"))])
def test_grid_sample_to_an_empty_output_checks_no_dtypes(shapes, dtypes):
    same(lambda T: _F(T).grid_sample(
        T.zeros(shapes[0], dtype=getattr(T, dtypes[0])),
        T.zeros(shapes[1], dtype=getattr(T, dtypes[1])), align_corners=True))


@pytest.mark.parametrize("shapes", [((), (1, 2, 2, 2, 3)), ((1, 2, 3, 3, 3), ()),
                                    ((2,), (1, 2, 2, 2, 3))])
def test_grid_sample_of_a_0d_tensor(shapes):
    same_error(lambda T: _F(T).grid_sample(T.zeros(shapes[0], dtype=T.int32),
                                           T.zeros(shapes[1]), mode="nearest",
                                           align_corners=True))


@pytest.mark.parametrize("dtypes", [("uint8", "uint8"), ("complex64", "complex64")])
@pytest.mark.parametrize("shapes", [((0, 2, 3, 4, 3), (0, 2, 2, 2, 3)),
                                    ((1, 2, 3, 4, 3), (1, 0, 2, 2, 3))])
def test_grid_sample_3d_checks_the_input_dtype_of_an_empty_output(shapes, dtypes):
    same_error(lambda T: _F(T).grid_sample(
        T.zeros(shapes[0], dtype=getattr(T, dtypes[0])),
        T.zeros(shapes[1], dtype=getattr(T, dtypes[1])), align_corners=True))


CONVS = [
    ("conv1d", (2, 2, 6), (3, 2, 3), dict(padding=1)),
    ("conv2d", (2, 2, 5, 5), (3, 2, 2, 3), {}),
    ("conv2d", (4, 5, 5), (4, 2, 2, 3), dict(padding="same", groups=2)),
    ("conv2d", (2, 2, 5, 5), (3, 2, 2, 3), dict(padding=1, dilation=2)),
    ("conv3d", (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {}),
    ("conv_transpose2d", (2, 2, 4, 4), (2, 3, 2, 3), {}),
    ("conv_transpose2d", (2, 3, 4), (2, 3, 2, 3), dict(dilation=2, output_padding=1,
                                                        stride=2)),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 3, 2, 2, 2), {}),
    ("conv_transpose1d", (2, 3), (2, 2, 2), dict(output_padding=1, dilation=2)),
    ("conv_transpose3d", (2, 3, 3, 2), (2, 2, 2, 2, 2), dict(output_padding=1, dilation=2)),
]


@pytest.mark.parametrize("fn,xshape,wshape,kwargs", CONVS)
@pytest.mark.parametrize("special", ["input", "weight", "grad"])
def test_convolution_keeps_nan_and_inf_to_their_windows(fn, xshape, wshape, kwargs, special):
    """Note [Flat windows]'s extra positions must not carry a non-finite value's products."""
    def prog(T):
        import numpy as np
        rng = np.random.default_rng(1)
        a = [rng.standard_normal(xshape), rng.standard_normal(wshape)]
        if special != "grad":
            flat = a[special == "weight"].reshape(-1)
            flat[[1, -2]] = [np.inf, np.nan]
        x, w = (T.tensor(v, requires_grad=True) for v in a)
        y = getattr(T, fn)(x, w, **kwargs)
        g = rng.standard_normal(tuple(y.shape))
        if special == "grad":
            g.reshape(-1)[[0, 5]] = [-np.inf, np.nan]
        return (y,) + T.autograd.grad(y, (x, w), T.tensor(g))
    same(prog)


def _same_outcome(prog):
    """same(prog), or same_error(prog) where PyTorch raises."""
    try:
        prog(torch)
    except Exception:       # noqa: BLE001  (compared by same_error)
        same_error(prog)
        return
    same(prog)


def _conv_call(T, xdt, wdt, bdt, xshape, transposed, dilation=1, wshape=None):
    d = len(xshape) - 2
    return T.convolution(T.ones(xshape, dtype=getattr(T, xdt)),
                         T.ones(wshape or (2, 2) + (2,) * d, dtype=getattr(T, wdt)),
                         None if bdt is None else T.ones(2, dtype=getattr(T, bdt)),
                         [1], [0], [dilation], transposed, [0], 1)


@pytest.mark.parametrize("dtypes", [("float32", "float64", None), ("float32", "float32", "bool"),
                                    ("bfloat16", "bfloat16", "float32"),
                                    ("float64", "float64", "float32"),
                                    ("int64", "int64", "float64"), ("uint8", "uint8", None),
                                    ("float64", "float64", "complex128")])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("transposed,dilation", [(False, 1), (False, 2), (True, 1)])
def test_convolution_dtype_checks_of_each_backend(dtypes, n, d, transposed, dilation):
    """oneDNN's messages (bfloat16, float32 but for small inputs), slow_conv_dilated's
    refusal, a transposed convolution's bias added in place (2-D) or checked (3-D)."""
    def prog(T):
        return _conv_call(T, *dtypes, (n, 2) + (5,) * d, transposed, dilation)
    _same_outcome(prog)


@pytest.mark.parametrize("dtypes", [("float32", "float64", "float64"),
                                    ("uint8", "uint8", "float64"),
                                    ("float64", "int16", "uint8"), ("int32", "float64", "int64"),
                                    ("float64", "float64", "complex128"), ("bool", "bool", None),
                                    ("complex64", "float64", None)])
@pytest.mark.parametrize("xshape", [(0, 2, 5, 4), (2, 0, 5, 4)])
@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_of_an_empty_input_promotes(dtypes, xshape, transposed):
    """PyTorch's Empty backend: input * weight[0] (+ bias[0] in place)."""
    def prog(T):
        return _conv_call(T, *dtypes, xshape, transposed, wshape=(2, 2, 2, 3))
    _same_outcome(prog)


@pytest.mark.parametrize("fn,kwargs", [("avg_pool2d", {}), ("avg_pool2d", dict(divisor_override=-3)),
                                       ("avg_pool3d", {})])
def test_integer_average_pooling_divides_toward_zero_at_the_minimum(fn, kwargs):
    def prog(T):
        x = T.tensor([[[-2 ** 63, 0], [-1, -6]]])
        x = x[None] if fn == "avg_pool2d" else x[None, None]
        return getattr(_F(T), fn)(x, (2, 2) if fn == "avg_pool2d" else (1, 2, 2), **kwargs)
    same(prog)


@pytest.mark.parametrize("shapes,dtypes,pad", [
    (((0, 2, 3), (0, 3, 4)), ("float64", "int32"), 0), (((0, 2, 3), (0, 3, 4)), ("float64", "int32"), 1),
    (((0, 2, 3), (1, 3, 4)), ("float64", "int32"), 1), (((2, 0, 3), (1, 3, 4)), ("float64", "int32"), 1),
    (((2, 2, 3), (0, 3, 4)), ("bool", "bool"), 0)])
def test_conv_tbc_checks_dtypes_in_its_products_only(shapes, dtypes, pad):
    _same_outcome(lambda T: T.conv_tbc(T.ones(shapes[0], dtype=getattr(T, dtypes[0])),
                                       T.ones(shapes[1], dtype=getattr(T, dtypes[1])),
                                       T.ones(shapes[1][2], dtype=getattr(T, dtypes[0])), pad))


def test_conv_tbc_views_the_input_rows():
    """PyTorch views each tap's input rows as a matrix: a transposed layout is refused."""
    same_error(lambda T: T.conv_tbc(T.ones(4, 3, 2).transpose(-1, -2), T.ones(2, 3, 3),
                                    T.zeros(3, dtype=T.int64), 1))


@pytest.mark.parametrize("xdt,bdt", [("int64", "float64"), ("float64", "float32"),
                                     ("float32", "float64"), ("float64", "int64")])
def test_conv_tbc_takes_the_bias_as_given(xdt, bdt):
    """The bias is copied into the output, not cast first: an integer output with a bias
    that requires grad is refused as PyTorch refuses it, a float bias gets its own grad."""
    def prog(T):
        x = T.ones(4, 2, 3, dtype=getattr(T, xdt), requires_grad=xdt.startswith("float"))
        b = T.tensor([0.5, 1.5, -2.0]).to(getattr(T, bdt))
        b.requires_grad_(b.is_floating_point())
        y = T.conv_tbc(x, T.ones(2, 3, 3, dtype=x.dtype), b, 1)
        return (y,) + T.autograd.grad(y.sum(), [t for t in (x, b) if t.requires_grad])
    _same_outcome(prog)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample_of_non_finite_coordinates(mode, padding_mode, align_corners, dims):
    """A clipped nan lands on 0 (2-D) or the last index (3-D); in 3-D a tap outside adds
    nothing, however it is weighted."""
    def prog(T):
        import numpy as np
        nan, inf = float("nan"), float("inf")
        shape = (1, 2, 3, 4) if dims == 2 else (1, 2, 2, 3, 4)
        x = T.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape))
        points = [[nan, 0.3, 0.1], [0.2, nan, 0.1], [0.1, 0.2, nan], [inf, 0.1, 0.2],
                  [-inf, 0.5, 0.1], [0.3, -0.2, 0.4]]
        g = T.tensor([p[:dims] for p in points], dtype=T.float64).reshape((1,) * dims + (6, dims))
        # (no gradient: PyTorch's backward can crash on these)
        return _F(T).grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                 align_corners=align_corners)
    same(prog)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample_reflects_huge_coordinates_as_each_kernel(mode, align_corners, dims):
    """2-D subtracts the whole spans (vectorized), 3-D takes fmod (scalar)."""
    def prog(T):
        import numpy as np
        shape = (1, 2, 4, 3) if dims == 2 else (1, 2, 3, 4, 3)
        x = T.tensor(np.random.default_rng(0).standard_normal(shape))
        points = [[1e38, 0.2, -0.3], [0.3, -1e38, 0.1], [1.2, 0.4, 1e30], [0.3, -0.2, 0.4]]
        g = T.tensor([p[:dims] for p in points], dtype=T.float64).reshape((1,) * dims + (4, dims))
        return _F(T).grid_sample(x, g, mode=mode, padding_mode="reflection",
                                 align_corners=align_corners)
    same(prog)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d_backward_of_non_finite_coordinates(padding_mode, align_corners):
    """PyTorch's 3-D backward clips by comparisons, leaving a nan coordinate outside."""
    def prog(T):
        import numpy as np
        rng = np.random.default_rng(2)
        x = T.tensor(rng.standard_normal((1, 2, 3, 4, 3)), requires_grad=True)
        g = rng.standard_normal((1, 2, 3, 2, 3))
        g.reshape(-1)[[1, 8, 20]] = [np.nan, np.inf, -np.inf]
        g = T.tensor(g, requires_grad=True)
        y = _F(T).grid_sample(x, g, padding_mode=padding_mode, align_corners=align_corners)
        return (y,) + T.autograd.grad(y, (x, g), T.tensor(rng.standard_normal(tuple(y.shape))))
    same(prog)
