"""Note [Argument parser checks] for the functions a strict fuzz run found taking a number
where PyTorch declares a Tensor, an int or a list of ints (fuzz run 5): the function, its
Tensor method and in-place variant refuse it with PyTorch's TypeError, and a valid call
still runs as PyTorch's."""
import warnings

import pytest

import chainrule

from helpers import same, same_error


def _m(T):
    return T.arange(12.).reshape(3, 4)


def _v(T, n=3):
    return T.arange(float(n))


def _idx(T):
    return T.tensor([2, 0, 1])


def _safe_softmax(T):
    return chainrule.ops.attention.safe_softmax if T is chainrule else T._safe_softmax


def _grid(T):
    return T.zeros(1, 2, 2, 2)


def _group_norm(T, *args):
    return T.native_group_norm(T.ones(2, 4, 2), None, None, *args)


def _chain_matmul(T, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # its deprecation warning
        return T.chain_matmul(*args, **kwargs)


def _sdpa(T, *args, **kwargs):
    q = T.ones(1, 2, 3)
    return T.nn.functional.scaled_dot_product_attention(q, *args, **kwargs)


ERRORS = {
    "_pack_padded_sequence lengths": lambda T: T._pack_padded_sequence(
        T.zeros(4, 3, 2), float("nan"), False),
    "_pack_padded_sequence batch_first": lambda T: T._pack_padded_sequence(
        T.zeros(4, 3, 2), T.tensor([3, 2, 1]), 1),
    "addmm_ mat2": lambda T: T.zeros(3, 3).addmm_(T.zeros(3, 3), 1.0),
    "addmm_ mat2 keyword": lambda T: T.zeros(3, 3).addmm_(T.zeros(3, 3), mat2=1.0),
    "addmm_ beta": lambda T: T.zeros(3, 3).addmm_(T.zeros(3, 3), T.zeros(3, 3), beta="a"),
    "addmv_ vec": lambda T: T.addmv_(_v(T), T.zeros(3, 3), 1.0),
    "addmv_ method vec": lambda T: _v(T).addmv_(T.zeros(3, 3), 1.0),
    "addr_ vec2": lambda T: T.zeros(3, 3).addr_(_v(T), 1.0),
    "chain_matmul element": lambda T: _chain_matmul(T, _m(T), 1j),
    "chain_matmul out": lambda T: _chain_matmul(T, _m(T), _m(T).t(), out=1),
    "cosine_similarity x2": lambda T: T.nn.functional.cosine_similarity(_v(T), 1.0),
    "cosine_similarity x2 keyword": lambda T: T.cosine_similarity(_v(T), x2=1.0),
    "cosine_similarity dim": lambda T: T.cosine_similarity(_v(T), _v(T), True),
    "cov fweights": lambda T: T.cov(_m(T), fweights=1),
    "cov aweights": lambda T: _m(T).cov(aweights=0.5),
    "cov correction": lambda T: T.cov(_m(T), correction=True),
    "grid_sample grid": lambda T: T.nn.functional.grid_sample(
        T.zeros(1, 1, 2, 2), 1, align_corners=False),
    "grid_sample input": lambda T: T.nn.functional.grid_sample(1, _grid(T), align_corners=False),
    "grid_sampler mode": lambda T: T.grid_sampler(T.zeros(1, 1, 2, 2), _grid(T), True, 0, False),
    "index_copy index": lambda T: T.index_copy(_v(T), 0, 2, _v(T)),
    "index_copy dim": lambda T: T.index_copy(_v(T), True, _idx(T), _v(T)),
    "index_copy method": lambda T: _v(T).index_copy(0, 2, _v(T)),
    "index_copy_ method": lambda T: _v(T).index_copy_(0, 2, _v(T)),
    "masked_scatter mask": lambda T: T.masked_scatter(_v(T), True, _v(T)),
    "masked_scatter method": lambda T: _v(T).masked_scatter(True, _v(T)),
    "masked_scatter_ method": lambda T: _v(T).masked_scatter_(True, _v(T)),
    "put index": lambda T: T.put(_v(T), 2, _v(T)),
    "put method": lambda T: _v(T).put(2, _v(T)),
    "put_ method": lambda T: _v(T).put_(2, _v(T)),
    "put_ accumulate": lambda T: _v(T).put_(_idx(T), _v(T), 1),
    "sdpa key": lambda T: _sdpa(T, 1, T.ones(1, 2, 3)),
    "sdpa value keyword": lambda T: _sdpa(T, T.ones(1, 2, 3), value=1),
    "sdpa mask": lambda T: _sdpa(T, T.ones(1, 2, 3), T.ones(1, 2, 3), 1),
    "sdpa is_causal": lambda T: _sdpa(T, T.ones(1, 2, 3), T.ones(1, 2, 3), None, 0.0, 1),
    "sdpa scale": lambda T: _sdpa(T, T.ones(1, 2, 3), T.ones(1, 2, 3), scale="a"),
    "scatter_add index": lambda T: T.scatter_add(_v(T), 0, 0, _v(T)),
    "scatter_add method": lambda T: _v(T).scatter_add(0, 0, _v(T)),
    "scatter_add_ method": lambda T: _v(T).scatter_add_(0, 0, _v(T)),
    "scatter_add_ dim": lambda T: _v(T).scatter_add_(True, _idx(T), _v(T)),
    "fold kernel_size": lambda T: T.nn.functional.fold(T.zeros(1, 4, 4), 5, True),
    "fold stride": lambda T: T.nn.functional.fold(T.zeros(1, 4, 4), 5, 1, stride=True),
    "fold input": lambda T: T.nn.functional.fold(1.0, 5, 1),
    "unfold kernel_size": lambda T: T.nn.functional.unfold(T.zeros(1, 1, 4, 4), True),
    "unfold input": lambda T: T.nn.functional.unfold(1.0, 2),
    "histogram bins": lambda T: T.histogram(_v(T), True),
    "histogram method bins": lambda T: _v(T).histogram(True),
    "histogram bins keyword": lambda T: T.histogram(_v(T), bins=True),
    "histogram range": lambda T: T.histogram(_v(T), 3, range=1),
    "native_group_norm group": lambda T: _group_norm(T, 2, 4, 2, True, 1e-5),
    "native_group_norm N": lambda T: _group_norm(T, True, 4, 2, 2, 1e-5),
    "_safe_softmax dim": lambda T: _safe_softmax(T)(_m(T), True),
}


@pytest.mark.parametrize("prog", ERRORS.values(), ids=ERRORS.keys())
def test_refused_as_pytorch(prog):
    same_error(prog)


VALID = {
    "_pack_padded_sequence": lambda T: T._pack_padded_sequence(
        T.ones(4, 3, 2), T.tensor([3, 2, 1]), False),
    "addmm_": lambda T: T.ones(3, 2).addmm_(_m(T), T.ones(4, 2), beta=2, alpha=0.5),
    "addmv_": lambda T: T.addmv_(_v(T), _m(T), _v(T, 4), alpha=2),
    "addmv_ method": lambda T: _v(T).addmv_(_m(T), _v(T, 4)),
    "addr_": lambda T: _m(T).addr_(_v(T), _v(T, 4), beta=0.5),
    "chain_matmul": lambda T: _chain_matmul(T, _m(T), _m(T).t()),
    "cosine_similarity": lambda T: T.nn.functional.cosine_similarity(_m(T), _m(T) + 1, 0, 1e-6),
    "cov": lambda T: T.cov(_m(T), correction=0, fweights=T.tensor([1, 2, 1, 3]),
                           aweights=T.tensor([0.5, 1., 1., 2.])),
    "cov method": lambda T: _m(T).cov(),
    "grid_sample": lambda T: T.nn.functional.grid_sample(
        T.arange(4.).reshape(1, 1, 2, 2), _grid(T) + 0.25, align_corners=True),
    "index_copy": lambda T: T.index_copy(_v(T), 0, _idx(T), _v(T) * 2),
    "index_copy_ method": lambda T: _v(T).index_copy_(0, _idx(T), _v(T) * 2),
    "masked_scatter": lambda T: _v(T).masked_scatter(_v(T) > 0, _v(T) * 3),
    "masked_scatter_ method": lambda T: _v(T).masked_scatter_(_v(T) > 0, _v(T) * 3),
    "put": lambda T: T.put(_v(T), _idx(T), _v(T) * 2, True),
    "put_ method": lambda T: _v(T).put_(_idx(T), _v(T) * 2, accumulate=False),
    "sdpa": lambda T: _sdpa(T, T.ones(1, 2, 3), T.arange(6.).reshape(1, 2, 3),
                            is_causal=True, scale=0.5),
    "sdpa bool dropout_p and scale": lambda T: _sdpa(T, T.ones(1, 2, 3), T.ones(1, 2, 3),
                                                     dropout_p=False, scale=True),
    "scatter_add": lambda T: T.scatter_add(_v(T), 0, _idx(T), _v(T) * 2),
    "scatter_add_ method": lambda T: _v(T).scatter_add_(0, _idx(T), _v(T) * 2),
    "fold": lambda T: T.nn.functional.fold(T.ones(1, 4, 4), 3, 2),
    "unfold": lambda T: T.nn.functional.unfold(T.ones(1, 1, 3, 3), (2, 2)),
    "histogram": lambda T: T.histogram(_v(T), 3, range=(0., 3)),
    "histogram method": lambda T: _v(T).histogram(T.tensor([0., 1., 3.])),
    "native_group_norm": lambda T: _group_norm(T, 2, 4, 2, 2, 1e-5),
    "_safe_softmax": lambda T: _safe_softmax(T)(_m(T), 1),
}


@pytest.mark.parametrize("prog", VALID.values(), ids=VALID.keys())
def test_valid_call(prog):
    same(prog)
