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
