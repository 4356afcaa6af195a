"""Op-database entries for layer_norm, batch_norm (ops/normalization.py), embedding, bilinear
(_trilinear) and dropout (ops/nn_ops.py), called through nn.functional. Backward rows are
reached by gradgradcheck of their forward."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _F(lib):
    return lib.nn.functional


def _layer_norm_samples(rng):
    return [Sample(randn(rng, 3, 4), (4,), randn(rng, 4), randn(rng, 4)),
            Sample(randn(rng, 2, 3, 4), (3, 4), randn(rng, 3, 4), randn(rng, 3, 4),
                   name="2-d normalized_shape"),
            Sample(randn(rng, 3, 4), [4], name="no affine"),
            Sample(randn(rng, 3, 4), (4,), randn(rng, 4), name="weight only"),
            Sample(randn(rng, 3, 4), (4,), None, randn(rng, 4), name="bias only"),
            Sample(randn(rng, 5), (5,), randn(rng, 5), randn(rng, 5), eps=0.1, name="1-d eps"),
            Sample(noncontiguous(randn(rng, 4, 3)), (3,), randn(rng, 3), randn(rng, 3),
                   name="non-contiguous"),
            Sample(randn(rng, 2, 4) + 1e4, (4,), randn(rng, 4), randn(rng, 4),
                   name="large mean")]


def _native_layer_norm(lib, x, shape, w=None, b=None):
    return lib.native_layer_norm(x, shape, w, b, 1e-5)


def _batch_norm_samples(rng):
    def stats(c):
        return randn(rng, c), positive(rng, c)
    return [Sample(randn(rng, 4, 3), *stats(3), randn(rng, 3), randn(rng, 3), grad=(0, 3, 4),
                   training=True),
            Sample(randn(rng, 4, 3, 2), None, None, randn(rng, 3), randn(rng, 3),
                   grad=(0, 3, 4), training=True, name="3-d, no running stats"),
            Sample(randn(rng, 2, 3, 2, 2), *stats(3), randn(rng, 3), randn(rng, 3),
                   grad=(0, 3, 4), training=True, momentum=0.3, eps=0.01, name="4-d"),
            Sample(randn(rng, 4, 3), None, None, grad=(0,), training=True, name="no affine"),
            Sample(randn(rng, 4, 3), None, None, randn(rng, 3), grad=(0, 3), training=True,
                   name="weight only"),
            Sample(randn(rng, 4, 3, 2), *stats(3), randn(rng, 3), randn(rng, 3),
                   grad=(0, 3, 4), name="eval"),
            Sample(randn(rng, 2, 3, 2, 2), *stats(3), grad=(0,), name="eval no affine"),
            Sample(noncontiguous(randn(rng, 5, 3)), *stats(3), randn(rng, 3), randn(rng, 3),
                   grad=(0, 3, 4), training=True, name="non-contiguous")]


def _batch_norm_stats(lib, x, rm, rv, w=None, b=None, **kw):
    # the output and the running statistics it updated in place
    return _F(lib).batch_norm(x, rm, rv, w, b, **kw), rm, rv


def _native_batch_norm(lib, x, rm, rv, w=None, b=None, training=False, momentum=0.1,
                       eps=1e-5):
    return lib.native_batch_norm(x, w, b, rm, rv, training, momentum, eps)


def _labels(rng, n, *shape):
    return np.asarray(rng.integers(0, n, shape), np.int64)


def _embedding_samples(rng):
    return [Sample(_labels(rng, 5, 4), randn(rng, 5, 3)),
            Sample(_REPEATS, randn(rng, 5, 3), name="2-d repeated"),
            Sample(np.asarray(3), randn(rng, 5, 3), name="0-d index"),
            Sample(_REPEATS.astype(np.int32), noncontiguous(randn(rng, 3, 5)).T,
                   name="int32, non-contiguous weight")]


def _embedding_exact_samples(rng):
    # gradients PyTorch defines to differ from the derivative: the padding row gets none,
    # scale_grad_by_freq divides by the count
    return [Sample(_REPEATS, randn(rng, 5, 3), padding_idx=1, name="padding_idx"),
            Sample(_REPEATS, randn(rng, 5, 3), padding_idx=-1, name="negative padding_idx"),
            Sample(_REPEATS, randn(rng, 5, 3), scale_grad_by_freq=True, name="scaled"),
            Sample(_REPEATS, randn(rng, 5, 3), padding_idx=2, scale_grad_by_freq=True,
                   name="scaled padding_idx")]


_REPEATS = np.array([[1, 2, 1], [0, 1, 4]])


def _bilinear_samples(rng):
    w, b = randn(rng, 4, 2, 3), randn(rng, 4)
    return [Sample(randn(rng, 5, 2), randn(rng, 5, 3), w, b),
            Sample(randn(rng, 2, 3, 2), randn(rng, 2, 3, 3), w, b, name="3-d"),
            Sample(randn(rng, 2), randn(rng, 3), w, b, name="1-d"),
            Sample(randn(rng, 5, 2), randn(rng, 5, 3), w, name="no bias"),
            Sample(noncontiguous(randn(rng, 5, 2)), randn(rng, 5, 3), w, b,
                   name="non-contiguous")]


def _seeded_dropout(lib, x, **kw):
    lib.manual_seed(0)
    return _F(lib).dropout(x, **kw)


def _group_norm_samples(rng):
    return [Sample(randn(rng, 2, 6, 3), 3, randn(rng, 6), randn(rng, 6)),
            Sample(randn(rng, 2, 4, 2, 2), 2, name="4-d no affine"),
            Sample(randn(rng, 3, 4), 4, randn(rng, 4), name="2-d weight, groups of 1"),
            Sample(randn(rng, 2, 4, 3), 1, None, randn(rng, 4), grad=(0,), eps=0.1,
                   name="bias without weight, eps"),
            Sample(noncontiguous(randn(rng, 3, 4)).reshape(3, 4, 1) * np.ones(2), 2,
                   name="non-contiguous")]


def _native_group_norm(lib, x, w, b, group):
    n, c = x.shape[:2]
    y, mean, rstd = lib.native_group_norm(x, w, b, n, c, x.numel() // (n * c), group, 1e-5)
    # one output all three take part in: PyTorch's formula drops the statistics' gradients
    # unless both have one
    return y + (mean * 2 + rstd).sum()


def _instance_norm(lib, x, w=None, b=None, use_input_stats=True):
    c = x.shape[1]
    rm, rv = lib.linspace(-1, 1, c, dtype=x.dtype), lib.linspace(0.5, 2, c, dtype=x.dtype)
    y = lib.instance_norm(x, w, b, rm, rv, use_input_stats, 0.3, 1e-5, False)
    return y, rm, rv


def _update_stats(lib, x):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype), lib.ones(c, dtype=x.dtype)
    mean, var = lib.batch_norm_update_stats(x, rm, rv, 0.2)
    return mean, var, rm, rv


_BAG_INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 0])
_BAG_OFFSETS = np.array([0, 2, 2, 5])


def _embedding_bag(lib, w, *psw, mode=0, scale_grad_by_freq=False, include_last_offset=False,
                   padding_idx=None):
    # all positional: torch.embedding_bag takes padding_idx only after every other argument
    return lib.embedding_bag(w, lib.tensor(_BAG_INDICES), lib.tensor(_BAG_OFFSETS),
                             scale_grad_by_freq, mode, False, psw[0] if psw else None,
                             include_last_offset, padding_idx)


def _embedding_bag_samples(rng):
    # max mode: distinct values, so the argmax of each bag and column is unique
    distinct = rng.permutation(18).reshape(6, 3) / 7.0
    return [Sample(randn(rng, 6, 3), mode=0), Sample(randn(rng, 6, 3), mode=1, name="mean"),
            Sample(distinct, mode=2, name="max"),
            Sample(randn(rng, 6, 3), mode=1, padding_idx=2, name="mean padding_idx"),
            Sample(randn(rng, 6, 3), mode=0, include_last_offset=True,
                   name="sum include_last_offset"),
            Sample(randn(rng, 6, 3), positive(rng, 8), mode=0, name="per_sample_weights"),
            Sample(randn(rng, 6, 3), positive(rng, 8), grad=(1,), mode=0, padding_idx=4,
                   name="per_sample_weights only, padding_idx"),
            Sample(noncontiguous(randn(rng, 3, 6)).T, mode=1, name="non-contiguous weight")]


OPS_DB = [
    OpInfo("layer_norm", lambda lib, x, shape, w=None, b=None, **kw: _F(lib).layer_norm(
        x, shape, w, b, **kw), _layer_norm_samples,
           ops=("native_layer_norm", "native_layer_norm_backward")),
    OpInfo("native_layer_norm", _native_layer_norm, lambda rng: _layer_norm_samples(rng)[:5],
           ops=("native_layer_norm",)),
    OpInfo("batch_norm", lambda lib, x, rm, rv, w=None, b=None, **kw: _F(lib).batch_norm(
        x, rm, rv, w, b, **kw), _batch_norm_samples,
           ops=("native_batch_norm", "native_batch_norm_backward")),
    OpInfo("batch_norm running stats", _batch_norm_stats, _batch_norm_samples,
           ops=("native_batch_norm",), gradcheck=False),
    OpInfo("native_batch_norm", _native_batch_norm, _batch_norm_samples,
           ops=("native_batch_norm",), gradcheck=False),
    OpInfo("embedding", lambda lib, idx, w, **kw: _F(lib).embedding(idx, w, **kw),
           _embedding_samples, ops=("embedding", "embedding_dense_backward")),
    OpInfo("embedding padding / scaled", lambda lib, idx, w, **kw: _F(lib).embedding(
        idx, w, **kw), _embedding_exact_samples, ops=("embedding", "embedding_dense_backward"),
           gradcheck=False),
    OpInfo("bilinear", lambda lib, x1, x2, w, *b: _F(lib).bilinear(x1, x2, w, *b),
           _bilinear_samples, ops=("_trilinear",)),
    OpInfo("_trilinear", lambda lib, a, b, c: lib._trilinear(a, b, c, [2], [0], [1], [1]),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 3, 4), randn(rng, 2, 4))]),
    OpInfo("dropout seeded", _seeded_dropout,
           lambda rng: [Sample(randn(rng, 4, 5), p=0.3), Sample(randn(rng, 3), p=1.0),
                        Sample(noncontiguous(randn(rng, 3, 4)), p=0.5)], ops=("mul",)),
    OpInfo("group_norm", lambda lib, x, g, *wb, **kw: _F(lib).group_norm(x, g, *wb, **kw),
           _group_norm_samples, ops=("native_group_norm",)),
    OpInfo("native_group_norm", _native_group_norm,
           lambda rng: [Sample(randn(rng, 2, 6, 3), randn(rng, 6), randn(rng, 6), 3),
                        Sample(randn(rng, 2, 4, 2), None, None, 2, name="no affine")],
           ops=("native_group_norm",)),
    OpInfo("instance_norm", _instance_norm,
           lambda rng: [Sample(randn(rng, 2, 3, 4)),
                        Sample(randn(rng, 2, 3, 2, 2), randn(rng, 3), randn(rng, 3), name="4-d"),
                        Sample(randn(rng, 2, 3, 4), randn(rng, 3), randn(rng, 3),
                               use_input_stats=False, name="running statistics")],
           ops=("native_batch_norm", "native_batch_norm_backward", "repeat")),
    OpInfo("rms_norm", lambda lib, x, shape, *w, **kw: lib.rms_norm(x, shape, *w, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), [4]),
                        Sample(randn(rng, 2, 3, 4), (3, 4), randn(rng, 3, 4), eps=0.01,
                               name="2-d normalized_shape"),
                        Sample(noncontiguous(randn(rng, 4, 3)), [3], randn(rng, 3),
                               name="non-contiguous")],
           ops=("pow.Tensor_Scalar", "add.Scalar", "rsqrt", "mul")),
    # no derivative: its node raises (tests/test_nn_breadth.py)
    OpInfo("batch_norm_update_stats", _update_stats,
           lambda rng: [Sample(randn(rng, 4, 3, 2), grad=())], gradcheck=False),
    # second order is not implemented in PyTorch (tests/test_nn_breadth.py checks the errors)
    OpInfo("embedding_bag", _embedding_bag, _embedding_bag_samples,
           ops=("_embedding_bag", "_embedding_bag_backward",
                "_embedding_bag_per_sample_weights_backward"), gradgradcheck=False),
    # gradients PyTorch defines to differ from the derivative (scale_grad_by_freq divides by a
    # count, of the wrong index in its kernel)
    OpInfo("embedding_bag scaled", _embedding_bag,
           lambda rng: [Sample(randn(rng, 6, 3), mode=m, scale_grad_by_freq=True,
                               name=f"mode {m}") for m in (0, 1)] + [
               Sample(randn(rng, 6, 3), positive(rng, 8), mode=0, scale_grad_by_freq=True,
                      padding_idx=1, name="per_sample_weights, padding_idx")],
           ops=("_embedding_bag", "_embedding_bag_backward"), gradcheck=False),
]
