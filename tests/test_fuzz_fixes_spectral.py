"""Regression tests for what the long fuzz run (issue 12) found in the spectral and statistics
families (ops/spectral.py, ops/statistics.py), each compared with PyTorch on the input found."""
import warnings

import numpy as np
import pytest

from helpers import same, same_error

INF, NAN = float("inf"), float("nan")


# ---- segment_reduce: PyTorch's order of checks ---------------------------------------------

@pytest.mark.parametrize("data, kwargs", [
    (2.5, dict(lengths=[2, 3, 2])),                   # 0-d data: data.dim() >= lengths.dim()
    (2, dict(lengths=[2, 3, 2])),                     # ... before the dtype
    (2.0, dict(offsets=[0, 3])),
    ([2.0], dict(lengths=[[1]])),                     # ... before the axis
    ([1.0, 2, 3], dict(lengths=[2.6, 0.6])),          # float lengths: sums before their dtype
    ([1, 2, 3], dict(lengths=[2.0, 1.0])),            # lengths' dtype before data's
    ([1.0, 2, 3], dict(lengths=np.array([2, 1], np.uint8))),
    ([1.0, 2, 3], dict(lengths=[2 + 0j, 1])),
    ([1.0, 2, 3], dict(lengths=[True, True])),
    ([], dict(lengths=np.zeros(0, np.int64))),        # min() of no lengths
    ([1.0, 2, 3], dict(offsets=np.zeros(0, np.int64))),
    ([1.0, 2, 3], dict(offsets=[0, 3, 2, 3])),
    ([1.0, 2, 3], dict(lengths=[1, 2], initial=2 ** 70)),
    ([1.0, 2, 3], dict(lengths=[1, 2], initial=1j)),
])
def test_segment_reduce_errors(data, kwargs):
    def prog(T):
        args = {k: T.tensor(v) if k in ("lengths", "offsets") else v for k, v in kwargs.items()}
        return T.segment_reduce(T.tensor(data), "min", **args)
    same_error(prog)


def test_segment_reduce_values():
    same(lambda T: T.segment_reduce(T.tensor([1.0, 2, 3]), "sum", offsets=T.tensor([3])))
    same(lambda T: T.segment_reduce(T.ones(2, 3, dtype=T.float16), "sum",
                                    lengths=T.tensor([[1, 2], [3, 0]]), axis=1, initial=True))


# ---- cummax / cummin, median / nanmedian, aminmax, renorm ------------------------------------

@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumulative_extreme_empty_and_scalar(name):
    for dim in (2, -3, 5):       # an empty input checks no dim
        same(lambda T: getattr(T, name)(T.zeros(0, 4, requires_grad=True), dim))
    same_error(lambda T: getattr(T, name)(T.tensor(1.0), 1))
    same(lambda T: getattr(T, name)(T.tensor(1j), -1))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "complex64", "complex128"])
def test_median_empty(name, dtype):
    # NaN converted to the dtype, before the kernel refuses bool and complex
    same(lambda T: getattr(T, name)(T.empty(0, 3, dtype=getattr(T, dtype))))
    same_error(lambda T: getattr(T, name)(T.empty(0, 3, dtype=getattr(T, dtype)), 0))


def test_median_dtype_errors_after_shape():
    same_error(lambda T: T.median(T.ones(3, 0, dtype=T.bool), 0))
    same_error(lambda T: T.nanmedian(T.ones(2, 3, dtype=T.complex64)))
    same_error(lambda T: T.median(T.tensor(True), 0))


def test_aminmax_complex():
    same_error(lambda T: T.aminmax(T.tensor(INF + 0j, dtype=T.complex64), dim=0))
    same_error(lambda T: T.aminmax(T.ones(2, 3, dtype=T.complex128), dim=1))
    same_error(lambda T: T.aminmax(T.zeros(0, 3, dtype=T.complex64)))
    same_error(lambda T: T.aminmax(T.zeros(0, 3, dtype=T.complex64), dim=0))


@pytest.mark.parametrize("p, maxnorm", [(2, NAN), (NAN, 1.0), (2, -INF), (2, -1e-300)])
def test_renorm_nan_arguments(p, maxnorm):
    same_error(lambda T: T.renorm(T.ones(3, 4), p, 0, maxnorm))


# ---- histogram, histogramdd, histc: bins checked before the dtype ----------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.histogram(T.zeros(0, dtype=T.int32), 0),
    lambda T: T.histogram(T.zeros(3), 0, range=(1.0, 0.0, 3.0)),
    lambda T: T.histogram(T.zeros(3, dtype=T.complex64), 0),
    lambda T: T.histogram(T.zeros(3, dtype=T.int32), T.zeros(1, dtype=T.int32)),
    lambda T: T.histogramdd(T.zeros(3, 2), [3, 4, 5]),
    lambda T: T.histogramdd(T.zeros(3, 2, dtype=T.int32), [3, 0]),
    lambda T: T.histc(T.zeros(3, dtype=T.int32), 0),
    lambda T: T.histc(T.zeros(3, dtype=T.int32), 1, 1, 0),
    lambda T: T.histc(T.zeros(3, dtype=T.int32), 1, INF, 0),
    lambda T: T.histc(T.zeros(3, dtype=T.int32), 1, 0, 0),
])
def test_histogram_check_order(prog):
    same_error(prog)


# ---- std_mean / var_mean: the mean of a Welford reduction ------------------------------------

@pytest.mark.parametrize("x, dim", [
    ([[1.004, -INF, 1.822, -1.32], [-0.66, 0.935, 0.049, 2.0]], 1),
    ([[-0.76, -0.13], [1.13, -0.84], [-INF, 0.05]], None),
    ([[1.0, INF], [-INF, 2.0]], 0),           # a last inf stays inf
    ([[1.0, INF], [-INF, 2.0]], 1),
    ([[1.0, INF], [-INF, 2.0]], (1, 0)),
    ([1.0, 2.0, NAN], 0),
    (INF, None),
])
@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_moment_mean_non_finite(x, dim, name, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # degrees of freedom <= 0 for the 0-d input
        same(lambda T: getattr(T, name)(T.tensor(x, dtype=getattr(T, dtype)), dim))


def test_moment_mean_complex_parts():
    for x in ([complex(INF, 0), 1, 2], [1, 2, complex(0, INF)], [1, complex(0, INF), 2]):
        same(lambda T: T.var_mean(T.tensor(x, dtype=T.complex128)))


def test_histogram_points_outside_the_range():
    x = [[-1.2, -0.68, -0.07], [0.09, -1e38, 0.59], [0.32, NAN, 0.73]]
    same(lambda T: T.histogram(T.tensor(x, dtype=T.float64), 3, range=(-1.0, 1.0),
                               density=True))
    same(lambda T: T.histc(T.tensor(x, dtype=T.float64), 3, -1.0, 1.0))


def test_histogram_half_and_unsorted_edges():
    x = [1.0, 1.37, -0.67, 0.35, -0.92, 0.0, -0.65, NAN, 0.78, 1.49, -0.0, -1.0]
    same_error(lambda T: T.histogram(T.tensor(x, dtype=T.float16), 5))
    same(lambda T: T.histogram(T.tensor(x, dtype=T.float16), T.tensor([0.0, 1.0],
                                                                       dtype=T.float16)))
    # PyTorch bisects the edges as std::upper_bound does, sorted or not
    for edges in ([-1.0, 1e38, -0.0], [0.5, -1.0, 2.0, 0.0, 1.0], [1.0, 0.0, 1.0, 2.0]):
        same(lambda T: T.histogram(T.tensor(x, dtype=T.float64),
                                   T.tensor(edges, dtype=T.float64)))
    same(lambda T: T.histogram(T.tensor(x, dtype=T.float16), 3, range=(-1.0, 1.0),
                               density=True))


@pytest.mark.parametrize("dtype, range", [("uint8", (-1.0, 1.0)), ("int8", (-1.0, 1.0)),
                                          ("bool", (-1.0, 1.0)), ("complex64", (-1.0, 1.0)),
                                          ("int8", (1.0, -1.0)), ("int8", (0.5, 300.0)),
                                          ("float16", (0.5, 1e6))])
def test_histogram_range_in_the_input_dtype(dtype, range):
    same_error(lambda T: T.histogram(T.zeros(2, 5, dtype=getattr(T, dtype)), 3, range=range))
    same_error(lambda T: T.histogramdd(T.zeros(3, 2, dtype=getattr(T, dtype)), [3, 3],
                                       range=list(range) * 2))


# ---- FFT backward: the doubled (halved) range scaled alone -----------------------------------

def test_c2r_backward_leaves_the_edges_alone():
    # the DC and Nyquist entries of an irfft's gradient are R2C values of the upstream
    # gradient as they are; a product with a weight vector made inf + 0j inf + nanj
    def prog(T):
        z = T.ones(2, 5, dtype=T.complex128, requires_grad=True)
        g = T.tensor([[1.0, NAN, 2, 3, 4, 5, 6, 7], [1, 2, 3, INF, 5, 6, 7, 8]])
        return T.autograd.grad(T.fft.irfft(z, 8), z, g)
    same(prog)


def test_istft_gradient_of_an_infinite_window():
    def prog(T):
        rng = np.random.default_rng(0)
        x = T.tensor(rng.standard_normal((2, 5, 5)) + 1j * rng.standard_normal((2, 5, 5)),
                     requires_grad=True)
        w = T.tensor([1.134, INF, 1.477, 1.928, 0.7305, 1.277], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = T.istft(x, 8, window=w, hop_length=3, win_length=6, length=13)
        return T.autograd.grad(out, x, T.ones_like(out))[0]
    same(prog)


@pytest.mark.parametrize("g", [[complex(INF, 0), 1, 2, 3, complex(0, -INF)],
                               [complex(0, INF), 1, 2, 3, 4], [1, complex(INF, 1), 2, 3, 4],
                               [1, complex(1, INF), 2, 3, 4]])
def test_r2c_backward_halves_each_part(g):
    # PyTorch's formula (a C2C of the zero-padded gradient) multiplies nothing
    def prog(T):
        x = T.ones(2, 8, dtype=T.float64, requires_grad=True)
        return T.autograd.grad(T.fft.rfft(x), x, T.tensor([g] * 2))
    same(prog)


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "max", "min"])
def test_segment_reduce_offsets_inside_the_data(reduce):
    # offsets need not start at 0 nor end at the data's size; elements outside get no gradient
    def prog(T):
        x = T.tensor([[1.5, 0.0, 3.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0, 0.5]], requires_grad=True)
        y = T.segment_reduce(x, reduce, offsets=T.tensor([[1, 2, 4], [0, 3, 3]]), axis=1)
        return y, T.autograd.grad(y, x, T.ones_like(y))[0]
    same(prog)
    # rows of lengths beyond the data's leading positions are checked, then unused
    same(lambda T: T.segment_reduce(T.tensor([[1.0, 2, 3]]), reduce,
                                    lengths=T.tensor([[1, 2], [3, 0]]), axis=1))


def test_segment_reduce_unsafe_negative_length():
    same_error(lambda T: T.segment_reduce(T.tensor([1.0, 2, 3]), "sum",
                                          lengths=T.tensor([2, -1]), unsafe=True))
    same(lambda T: T.segment_reduce(T.tensor([1.0, 2, 3]), "sum", lengths=T.tensor([1, 1]),
                                    unsafe=True))


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_segment_reduce_ties_split_only_positive_gradients(reduce):
    def prog(T):
        x = T.tensor([1.0, 3.78, -0.18, 0.66, 1.62, 1.0, 1.0], requires_grad=True)
        y = T.segment_reduce(x, reduce, lengths=T.tensor([2, 3, 2]))
        return T.autograd.grad(y, x, T.tensor([0.5, 2.0, -0.47]))[0]
    same(prog)


@pytest.mark.parametrize("dtype", ["float16", "int32", "bool", "complex64"])
def test_histogram_empty_without_range(dtype):
    prog = lambda T: T.histogram(T.zeros(0, dtype=getattr(T, dtype)), 5)     # noqa: E731
    if dtype == "float16":
        same(prog)
    else:
        same_error(prog)
