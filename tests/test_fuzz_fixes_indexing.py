"""Regression tests for the indexing, special and sorting ops the long fuzz run found
differing from PyTorch (issue 12), each on the fuzzer's input compared with PyTorch."""
import warnings

import pytest

from helpers import same, same_error

warnings.filterwarnings("ignore", "index_reduce\\(\\) is in beta", UserWarning)


def _long(T, values):
    return T.tensor(values, dtype=T.int64)


# ---- index_copy, index_fill, index_reduce on empty inputs --------------------------------
# PyTorch's kernels view self with the indexed dim resized to the index's length: with no
# elements there, no index is checked; with elements, an empty self has no storage for it

def test_index_copy_empty_self_checks_no_index():
    same(lambda T: T.zeros(0, 3, dtype=T.float64, requires_grad=True).index_copy(
        1, _long(T, [4, 0, 2]), T.zeros(0, 3, dtype=T.float64)))
    same(lambda T: T.zeros(3, 0).index_copy(0, _long(T, [0, 5]), T.zeros(2, 0)))


@pytest.mark.parametrize("case", [
    lambda T: T.zeros(0).index_copy(0, _long(T, [0, 2, 0, 3]), T.zeros(4)),
    lambda T: T.zeros(0).index_copy(0, _long(T, [3]), T.tensor(1.0)),
    lambda T: T.zeros(0, 3).t().index_copy(1, _long(T, [0, 2]), T.zeros(3, 2)),
    lambda T: T.zeros(0).index_fill(0, _long(T, [3, 4]), 1),
    lambda T: T.zeros(0, 4).index_fill(0, _long(T, [-2 ** 63, 4]), 1),
    lambda T: T.zeros(0, dtype=T.float64).index_reduce(
        -1, _long(T, [0, 2, 0, 3]), T.zeros(4, dtype=T.float64), "prod", include_self=False),
    lambda T: T.zeros(0, 3).t().index_reduce(1, _long(T, [3, 4]), T.zeros(3, 2), "mean",
                                             include_self=False),
], ids=["copy 1-d", "copy 0-d source", "copy transposed", "fill 1-d", "fill 2-d",
        "reduce 1-d", "reduce transposed"])
def test_empty_self_has_no_storage_for_the_restrided_view(case):
    same_error(case)


def test_index_fill_empty_self_checks_no_index():
    same(lambda T: T.zeros(0, 4, dtype=T.int16).index_fill(1, _long(T, [-2 ** 63, 0, 3]), 2))
    same(lambda T: T.zeros(4, 0).index_fill(0, _long(T, [-2 ** 63, 4]), 1.5))


@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_bounds_in_pytorch_order(include_self):
    kw = dict(include_self=include_self)
    # a slice along dim is selected before any index is checked
    same_error(lambda T: T.zeros(0, 3).index_reduce(0, _long(T, [3, 4]), T.zeros(2, 3), "prod",
                                                    **kw))
    # include_self=False fills with index_fill_ first (negative indices pass there)
    same_error(lambda T: T.zeros(3, 2).index_reduce(0, _long(T, [1, 4]), T.zeros(2, 2), "amax",
                                                    **kw))
    same_error(lambda T: T.zeros(3).index_reduce(0, _long(T, [-1, 0]), T.zeros(2), "mean", **kw))
    same_error(lambda T: T.zeros(2, 0).index_reduce(0, _long(T, [3, 4]), T.zeros(2, 0), "amin",
                                                    **kw))
    # empty slices: nothing to reduce (NumPy's IndexError before)
    same(lambda T: T.zeros(0, 3).index_reduce(1, _long(T, [1, 0]), T.zeros(0, 2), "prod", **kw))


@pytest.mark.parametrize("name", ["index_add", "index_reduce"])
def test_index_func_zero_dim_source_asks_its_size(name):
    extra = ("mean",) if name == "index_reduce" else ()
    same_error(lambda T: getattr(T.tensor(0, dtype=T.int8), name)(
        0, _long(T, []), T.tensor(2, dtype=T.int8), *extra))
    same_error(lambda T: getattr(T.tensor([[1.0, 0.0, 7.0]]), name)(
        0, _long(T, [0, 0, 2, 1]), T.tensor(1.0), *extra))
    same_error(lambda T: getattr(T.zeros(3), name)(-1, _long(T, [0, 0]), T.tensor(2.0), *extra))
    same(lambda T: getattr(T.tensor(1.0), name)(0, _long(T, [0]), T.tensor(2.0), *extra))


# ---- repeat_interleave with a tensor of repeats ------------------------------------------

@pytest.mark.parametrize("repeats", [[1, 0, 2], 3, [2], []])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_repeat_interleave_zero_dim_input_asks_its_size(repeats, dim):
    same_error(lambda T: T.repeat_interleave(T.tensor(0.189), T.tensor(repeats), dim))


def test_repeat_interleave_messages():
    same_error(lambda T: T.repeat_interleave(T.tensor([0.5]), T.tensor([[2]]), 1))
    same_error(lambda T: T.repeat_interleave(T.ones(2, 3), T.tensor([1, 2]), -1))
    same_error(lambda T: T.repeat_interleave(T.tensor(0.5), T.tensor([1, 2])))
    same(lambda T: T.repeat_interleave(T.tensor(0.5), T.tensor([2])))


# ---- scatter_reduce ----------------------------------------------------------------------

def test_scatter_reduce_mean_of_bool_divides_even_when_empty():
    same_error(lambda T: T.zeros(0, 3, dtype=T.bool).scatter_reduce(
        0, T.zeros(0, 3, dtype=T.int64), T.zeros(0, 3, dtype=T.bool), "mean",
        include_self=False))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce,dtype", [("amin", "complex64"), ("amax", "complex64"),
                                          ("mean", "bool")])
def test_scatter_reduce_identity_fill_checks_indices_first(include_self, reduce, dtype):
    same_error(lambda T: T.zeros(4, 3, dtype=getattr(T, dtype)).scatter_reduce(
        0, _long(T, [[1, 0, 0], [-1, 3, 3]]), T.zeros(2, 3, dtype=getattr(T, dtype)), reduce,
        include_self=include_self))


# ---- special functions -------------------------------------------------------------------

def _f64(T, values):
    return T.tensor(values, dtype=T.float64)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_distribution_digamma_is_inf_at_zero_and_negative_integers(dtype):
    # digamma_one (not torch.digamma): +inf there, so the Taylor branches give infinities
    def t(T, values):
        return T.tensor(values, dtype=getattr(T, dtype))
    same(lambda T: 1 / T._standard_gamma_grad(
        t(T, [-1.0, -0.0, 0.0, -2.5, float("inf"), -float("inf"), -3.0, -0.3]),
        t(T, [0.1, 0.5, 0.2, 0.7, 0.1, 0.1, 0.3, 0.3])))
    same(lambda T: T._standard_gamma_grad(t(T, -1.0), t(T, [0.1, 0.5, 2.0, 7.0])))
    same(lambda T: T._dirichlet_grad(t(T, [0.1, 0.95, -0.0, 0.4, 1.0]),
                                     t(T, [0.5, -1.0, 10.0, 0.0, 3.0]),
                                     t(T, [1.0, 2.2, 20.0, 40.5, 9.0])))


@pytest.mark.parametrize("name", ["i1", "i1e"])
def test_i1_backward_refuses_half(name):
    def prog(T):
        x = T.tensor([0.5, 0.0], dtype=T.float16, requires_grad=True)
        return T.autograd.grad(getattr(T.special, name)(x).sum(), x)
    same_error(prog)
    same(lambda T: getattr(T.special, name)(T.tensor([0.5, 0.0], dtype=T.float16)))


@pytest.mark.parametrize("name", ["igamma", "igammac", "xlogy", "special.zeta",
                                  "special.xlog1py"])
def test_complex64_with_float16_promotes_to_complex_half(name):
    def prog(T):
        f = T
        for part in name.split("."):
            f = getattr(f, part)
        return f(T.tensor(complex("nan"), dtype=T.complex64), T.tensor([], dtype=T.float16))
    same_error(prog)


@pytest.mark.parametrize("eps", [None, 0.0, 0.1])
def test_logit_backward_kernel_at_the_ends(eps):
    # no graph: logit_backward's kernel gives an infinity of the gradient's sign at 0 and 1
    def prog(T, create_graph):
        x = _f64(T, [-0.5, -0.0, 1e-5, 0.5, 1.0, 1.5, -1.0, 0.0])
        x.requires_grad_()
        g = _f64(T, [1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
        return 1 / T.autograd.grad(x.logit(eps), x, g, create_graph=create_graph)[0].detach()
    same(lambda T: prog(T, False))
    same(lambda T: prog(T, True))


def test_zeta_of_x_below_one_is_nan_before_poles_of_q():
    values = [-float("inf"), -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, float("nan")]
    same(lambda T: T.special.zeta(_f64(T, values)[:, None], _f64(T, values)[None, :]))
    same(lambda T: T.special.zeta(_f64(T, [3.65, 2.84, -float("inf"), 4.93]),
                                  _f64(T, [[2.83, 2.70, -float("inf"), 1.73]])))


# ---- sort, _pack_padded_sequence ---------------------------------------------------------

def test_sort_wraps_dim_before_refusing_complex():
    same_error(lambda T: T.sort(T.zeros(0, 5, dtype=T.complex64), 2))
    same_error(lambda T: T.sort(T.zeros(3, 5, dtype=T.complex64), 1))
    same_error(lambda T: T.argsort(T.zeros((), dtype=T.complex64), -3))


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("lengths", [[1e-40, 1e-40, 2.0], [2, 1, 1], [[2]]])
@pytest.mark.parametrize("shape", [(), (3,), (0, 3)])
def test_pack_padded_sequence_checks_in_pytorch_order(shape, lengths, batch_first):
    same_error(lambda T: T._pack_padded_sequence(
        T.zeros(shape), T.tensor(lengths, dtype=T.complex64 if 1e-40 in lengths else None),
        batch_first))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["complex64", "bool"])
def test_index_reduce_complex_and_bool(dtype, reduce, include_self):
    # PyTorch's slice by slice loop (self of 2 or more dims) takes them, its kernels not
    def t(T, shape, fill):
        return T.full(shape, fill, dtype=getattr(T, dtype))
    for index in ([1, 0, 1], [0, 5, 1], [5, 0, 1]):
        prog = (lambda T: t(T, (3, 2), 1).index_reduce(0, _long(T, index), t(T, (3, 2), 2),
                                                       reduce, include_self=include_self))
        if include_self and (dtype == "bool" and reduce != "mean" or dtype == "complex64"
                             and reduce in ("prod", "mean")) and 5 not in index:
            same(prog)
        else:
            same_error(prog)
    same_error(lambda T: t(T, (3,), 1).index_reduce(0, _long(T, []), t(T, (0,), 1), reduce,
                                                    include_self=include_self))


def test_distribution_grads_of_zero_dim_inputs_and_shapes_first():
    same(lambda T: T._standard_gamma_grad(_f64(T, 10.0), _f64(T, 9.5)))
    same(lambda T: T._dirichlet_grad(T.tensor(0.3), T.tensor(-1.0), T.tensor(2.0)))
    # TensorIterator checks shapes before dtypes
    same_error(lambda T: T._standard_gamma_grad(T.zeros(0, dtype=T.int8),
                                                T.zeros(4, dtype=T.int8)))
    same_error(lambda T: T._dirichlet_grad(T.zeros(5), T.zeros(3, 1), T.zeros(2, dtype=T.bool)))


@pytest.mark.parametrize("lengths", [[-2 ** 63, -2 ** 63, 2], [2 ** 63 - 1] * 3, [2 ** 62, 1, 1]])
def test_pack_padded_sequence_extreme_lengths(lengths):
    same_error(lambda T: T._pack_padded_sequence(T.zeros(3, 3, 2), _long(T, lengths), False))


# ---- unique_dim: std::sort's order of the slices -----------------------------------------

def test_unique_dim_with_nan_in_insertion_sort_order():
    # NaN is neither less nor greater for PyTorch's comparison: the next column decides
    nan = float("nan")
    x = [[[nan, 0.0], [0.0, 0.0]], [[0.0, -0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]]]
    same(lambda T: T.unique(_f64(T, x), dim=1, return_inverse=True, return_counts=True))
    same(lambda T: T.unique(_f64(T, [[nan, 2.0], [1.0, nan], [0.0, 1.0], [nan, -1.0]]), dim=-1,
                            return_inverse=True))


def test_unique_dim_keeps_std_sort_first_of_equal_rows():
    # more than 16 rows: introsort, not stable; 1 / x tells which zero was kept
    rows = [[(-1.0) ** (i // 3) * 0.0, float(i % 4)] for i in range(40)]
    same(lambda T: 1 / T.unique(_f64(T, rows), dim=0)[:, :1])
