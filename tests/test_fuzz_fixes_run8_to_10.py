"""Regression tests for what the eighth to tenth long fuzz runs left open (issue 12):
torch.embedding_bag's declarations, baddbmm_'s in-place dtype check, dist promoting into
complex32, the norm of an empty tensor with a nan order."""
import pytest

from helpers import same, same_error


def _bag(T, *rest, **kw):
    return T.embedding_bag(T.arange(15.).reshape(5, 3), T.tensor([1, 2, 4]), T.tensor([0, 2]),
                           *rest, **kw)


@pytest.mark.parametrize("call", [
    lambda T: _bag(T, False, 0, False, 2.5),                      # a number for the weights
    lambda T: _bag(T, per_sample_weights=2.5),
    lambda T: _bag(T, False, 0, False, None, False, 1.5),         # padding_idx of the 9-arg form
    lambda T: _bag(T, foo=1),
    lambda T: T.embedding_bag(T.ones(5, 3), T.tensor([1, 2])),    # no offsets: both listed
    lambda T: _bag(T, 1.0),
])
def test_embedding_bag_binding_errors(call):
    same_error(call)


@pytest.mark.parametrize("rest", [(), (False, 0, False, None, False, None),
                                  (False, 0, False, None, False, 1), (False, 1)])
def test_embedding_bag_both_declarations_run(rest):
    same(lambda T: _bag(T, *rest)[0])


def test_functional_embedding_bag_with_a_number_for_the_weights():
    # F.embedding_bag reads per_sample_weights.size() first, in both libraries
    same_error(lambda T: T.nn.functional.embedding_bag(
        T.tensor([1, 2, 4]), T.ones(5, 3), T.tensor([0, 2]), mode="sum", per_sample_weights=2.5))


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("dtypes", [("float16", "float16", "float64"),
                                    ("float16", "float64", "float16"),
                                    ("float16", "float64", "float64"),
                                    ("float32", "float32", "float64")])
def test_baddbmm__result_takes_batch2s_dtype(n, dtypes):
    # the in-place check compares self with batch2's dtype (the result's), after the
    # self/batch1 check, whether or not there is anything to multiply
    def prog(T):
        a, b, c = (getattr(T, d) for d in dtypes)
        return T.zeros(n, 3, 5, dtype=a).baddbmm_(T.ones(n, 3, 4, dtype=b),
                                                  T.ones(n, 4, 5, dtype=c))
    same_error(prog)


def test_baddbmm__of_matching_dtypes_runs():
    same(lambda T: T.zeros(0, 3, 5, dtype=T.float16).baddbmm_(
        T.ones(0, 3, 4, dtype=T.float16), T.ones(0, 4, 5, dtype=T.float16)))


@pytest.mark.parametrize("p", [2, 1, 0, 3, float("inf")])
@pytest.mark.parametrize("z", [1 + 1j, complex(1, float("inf"))])
def test_dist_promoting_into_complex32(p, z):
    # a complex 0-d with half tensors promotes to complex32, whose norm PyTorch computes
    same(lambda T: T.dist(T.tensor(z, dtype=T.complex64),
                          T.tensor([-1.46, -0.596], dtype=T.float16, requires_grad=True), p))


def test_dist_promoting_into_complex32_backward_refuses():
    def prog(T):
        b = T.tensor([-1.46, -0.596], dtype=T.float16, requires_grad=True)
        T.dist(T.tensor(1 + 1j, dtype=T.complex64), b).backward()
    same_error(prog)


@pytest.mark.parametrize("call", [
    lambda T, e: T.dist(e, e, float("nan")),
    lambda T, e: T.linalg.vector_norm(e, float("nan")),
    lambda T, e: T.linalg.vector_norm(e, float("nan"), dim=0),
    lambda T, e: T.linalg.vector_norm(e, 1.5, dim=0),
    lambda T, e: T.norm(e, float("nan"))])
def test_norm_of_nothing_is_zero_whatever_the_order(call):
    # an empty reduction is filled with zeros, not 0 ** (1 / p), nan for p = nan
    same(lambda T: call(T, T.zeros(0, 4, dtype=T.float64, requires_grad=True)))
