"""Op-database entries for the nn rows (ops/nn_ops.py), called through nn.functional.

Losses with a kink (huber, smooth_l1 at |d| = delta; leaky_relu, elu at 0) use samples away
from it for gradcheck; backward rows are reached by gradgradcheck of their forward."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _F(lib):
    return lib.nn.functional


def _labels(rng, n, *shape):
    return np.asarray(rng.integers(0, n, shape), np.int64)


def _softmax_samples(rng):
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 2, 3, 4), 0),
            Sample(randn(rng, 3, 4), -1), Sample(randn(rng), 0, name="0-d"),
            Sample(noncontiguous(randn(rng, 3, 4)), 0, name="non-contiguous"),
            Sample(np.array([[1000.0, 0.0, -1000.0], [2.0, 2.0, 2.0]]), 1, name="large, ties")]


def _nll_samples(rng):
    ignore = _labels(rng, 4, 5)
    ignore[1] = 2
    return [Sample(randn(rng, 3, 4), _labels(rng, 4, 3)),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), reduction="sum"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), reduction="none"),
            Sample(randn(rng, 4), np.asarray(2, np.int64), name="1-d"),
            Sample(randn(rng, 5, 4), ignore, ignore_index=2, name="ignore_index"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), positive(rng, 4), grad=(0,),
                   name="weight"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), positive(rng, 4), grad=(0,),
                   reduction="none", name="weight none"),
            Sample(noncontiguous(randn(rng, 3, 4)), _labels(rng, 4, 3), name="non-contiguous")]


def _nll_nd_samples(rng):
    return [Sample(randn(rng, 2, 3, 2, 2), _labels(rng, 3, 2, 2, 2)),
            Sample(randn(rng, 2, 3, 2, 2), _labels(rng, 3, 2, 2, 2), positive(rng, 3),
                   grad=(0,), reduction="none", name="4-d weight none"),
            Sample(randn(rng, 2, 3, 4), _labels(rng, 3, 2, 4), reduction="sum", name="3-d"),
            Sample(randn(rng, 2, 3, 4), _labels(rng, 3, 2, 4), reduction="none",
                   name="3-d none"),
            Sample(randn(rng, 2, 3, 2, 1, 2), _labels(rng, 3, 2, 2, 1, 2), name="5-d")]


def _ce_samples(rng):
    probs = positive(rng, 3, 4)
    probs /= probs.sum(1, keepdims=True)
    return [Sample(randn(rng, 3, 4), _labels(rng, 4, 3)),
            Sample(randn(rng, 2, 3, 2), _labels(rng, 3, 2, 2), reduction="none", name="3-d"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), positive(rng, 4), grad=(0,),
                   name="weight"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), label_smoothing=0.1, name="smoothing"),
            Sample(randn(rng, 3, 4), _labels(rng, 4, 3), label_smoothing=0.2, reduction="sum",
                   name="smoothing sum"),
            Sample(randn(rng, 3, 4), probs, grad=(0,), name="probabilities"),
            Sample(randn(rng, 3, 4), probs, grad=(0,), reduction="none", name="probs none"),
            Sample(randn(rng, 3, 4), probs, positive(rng, 4), grad=(0,), label_smoothing=0.1,
                   reduction="sum", name="probs weight smoothing")]


def _pair(rng, reduction="mean"):
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), reduction="sum"),
            Sample(randn(rng, 3, 4), randn(rng, 4), reduction="none", name="broadcast none"),
            Sample(randn(rng), randn(rng), name="0-d"),
            Sample(noncontiguous(randn(rng, 3, 4)), randn(rng, 3, 4), grad=(0,),
                   name="non-contiguous")]


def _huber_samples(rng):
    # differences away from +-delta (the kink of the second derivative)
    x = randn(rng, 3, 4)
    d = rng.choice([-1, 1], (3, 4)) * rng.uniform(0.1, 0.6, (3, 4))
    d[0] *= 4
    return [Sample(x, x - d), Sample(x, x - d, reduction="sum", delta=1.5),
            Sample(x, x - d, reduction="none", delta=0.5),
            Sample(x[0], (x - d)[0], grad=(0,), delta=2.0)]


def _smooth_l1_samples(rng):
    x = randn(rng, 3, 4)
    d = rng.choice([-1, 1], (3, 4)) * rng.uniform(0.1, 0.6, (3, 4))
    d[0] *= 4
    return [Sample(x, x - d), Sample(x, x - d, reduction="sum", beta=1.5),
            Sample(x, x - d, reduction="none", beta=0.5), Sample(x, x - d, beta=0.0)]


def _bce_samples(rng):
    t = positive(rng, 3, 4, low=0.0, high=1.0)
    return [Sample(positive(rng, 3, 4, low=0.1, high=0.9), t),
            Sample(positive(rng, 3, 4, low=0.1, high=0.9), t, reduction="none"),
            Sample(positive(rng, 3, 4, low=0.1, high=0.9), t, positive(rng, 4), grad=(0, 1),
                   reduction="sum", name="weight"),
            Sample(positive(rng, 3, 4, low=0.1, high=0.9), (t > 0.5) * 1.0, grad=(0,),
                   name="hard targets")]


def _bce_logits_samples(rng):
    t = positive(rng, 3, 4, low=0.0, high=1.0)
    return [Sample(randn(rng, 3, 4), t), Sample(randn(rng, 3, 4), t, reduction="none"),
            Sample(randn(rng, 3, 4), t, positive(rng, 4), grad=(0, 1), reduction="sum",
                   name="weight"),
            Sample(randn(rng, 3, 4), t, None, positive(rng, 4), grad=(0, 1), name="pos_weight"),
            Sample(randn(rng, 3, 4) * 30, t, name="large logits")]


def _kl_samples(rng):
    t = positive(rng, 3, 4, low=0.0, high=1.0)
    t[0, 0] = 0.0
    return [Sample(randn(rng, 3, 4), t, grad=(0,), reduction="batchmean"),
            Sample(randn(rng, 3, 4), t, grad=(0,), reduction="sum"),
            Sample(randn(rng, 3, 4), t, grad=(0,), reduction="none"),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), log_target=True, reduction="sum",
                   name="log_target"),
            Sample(randn(rng, 3, 4), positive(rng, 3, 4), reduction="mean", name="target grad")]


def _away_from_zero(rng, *shape):
    a = randn(rng, *shape)
    return np.asarray(a + np.where(a >= 0, 0.1, -0.1))


def _activation(rng, **kw):
    return [Sample(_away_from_zero(rng, 3, 4), **kw), Sample(_away_from_zero(rng), **kw),
            Sample(noncontiguous(_away_from_zero(rng, 2, 3)), **kw)]


def _at_kinks(rng):
    return [Sample(np.array([-1.0, 0.0, 0.0, 2.0]))]


def _linear_samples(rng):
    w, b = randn(rng, 5, 4), randn(rng, 5)
    return [Sample(randn(rng, 3, 4), w, b), Sample(randn(rng, 3, 4), w),
            Sample(randn(rng, 4), w, b, name="1-d"), Sample(randn(rng, 2, 3, 4), w, b, name="3-d"),
            Sample(randn(rng, 2, 3, 4), w, name="3-d no bias"),
            Sample(noncontiguous(randn(rng, 4, 3)).T, w, b, name="non-contiguous")]


def _clone(f):
    """f applied in place to a copy of the input (in-place variants of leaves are refused)."""
    return lambda lib, a, *args, **kw: f(lib)(a * 1, *args, **kw)


def _seeded(f):
    """f(lib, ...) after seeding the default generator, so every call draws the same."""
    def g(lib, *args, **kw):
        lib.manual_seed(0)
        return f(lib, *args, **kw)
    return g


def _prelu_samples(rng):
    return [Sample(_away_from_zero(rng, 2, 3, 2), positive(rng, 3) - 1, name="channels"),
            Sample(_away_from_zero(rng, 2, 3, 2, 2), positive(rng, 1), name="one weight"),
            Sample(_away_from_zero(rng, 4), np.asarray(0.3), name="1-d, 0-d weight"),
            Sample(_away_from_zero(rng), np.asarray(-0.2), name="0-d"),
            Sample(noncontiguous(_away_from_zero(rng, 3, 4)), positive(rng, 4),
                   name="non-contiguous")]


def _shuffle_samples(rng):
    return [Sample(randn(rng, 2, 8, 2, 3), 2), Sample(randn(rng, 4, 3, 2), 2, name="3-d"),
            Sample(randn(rng, 1, 2, 9, 2, 3), 1, name="5-d, factor 1")]


def _unshuffle_samples(rng):
    return [Sample(randn(rng, 2, 2, 4, 6), 2), Sample(randn(rng, 3, 3, 6), 3, name="3-d"),
            Sample(noncontiguous(randn(rng, 2, 2, 2, 4)), 2, name="non-contiguous")]


def _channel_samples(rng):
    return [Sample(randn(rng, 2, 6, 3), 3), Sample(randn(rng, 1, 4, 2, 2), 2, name="4-d"),
            Sample(noncontiguous(randn(rng, 2, 6, 2)), 2, name="non-contiguous")]


def _signs(rng, *shape):
    return np.where(rng.standard_normal(shape) >= 0, 1.0, -1.0)


def _loss_pair_samples(rng):
    # margins are chosen so no element sits at the clamp's kink
    return [Sample(randn(rng, 3, 4), randn(rng, 3, 4), _signs(rng, 3, 4), 0.1, 1),
            Sample(randn(rng, 5), randn(rng, 5), _signs(rng, 5), 0.0, 2, name="sum"),
            Sample(randn(rng, 3, 4), randn(rng, 3, 4), _signs(rng, 3, 4), 0.3, 0, name="none")]


def _distinct(rng, *shape):
    """Values with no ties (max pooling's gradient is not differentiable at a tie)."""
    return np.asarray(rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0 - 2.0)


OPS_DB = [
    OpInfo("softmax", lambda lib, a, dim: _F(lib).softmax(a, dim), _softmax_samples,
           ops=("_softmax", "_softmax_backward_data")),
    OpInfo("log_softmax", lambda lib, a, dim: _F(lib).log_softmax(a, dim), _softmax_samples,
           ops=("_log_softmax", "_log_softmax_backward_data")),
    OpInfo("nll_loss", lambda lib, a, t, *w, **kw: _F(lib).nll_loss(
        a, lib.tensor(t), *(w and (w[0],)), **kw), _nll_samples,
           ops=("nll_loss", "nll_loss_backward")),
    OpInfo("nll_loss2d", lambda lib, a, t, *w, **kw: _F(lib).nll_loss(
        a, lib.tensor(t), *(w and (w[0],)), **kw), _nll_nd_samples,
           ops=("nll_loss2d", "nll_loss2d_backward")),
    OpInfo("cross_entropy", lambda lib, a, t, *w, **kw: _F(lib).cross_entropy(
        a, lib.tensor(t), *(w and (w[0],)), **kw), _ce_samples,
           ops=("_log_softmax", "nll_loss", "nll_loss2d", "mul.Scalar", "div.Scalar")),
    OpInfo("mse_loss", lambda lib, a, b, **kw: _F(lib).mse_loss(a, b, **kw), _pair,
           ops=("mse_loss", "mse_loss_backward")),
    OpInfo("l1_loss", lambda lib, a, b, **kw: _F(lib).l1_loss(a, b, **kw),
           lambda rng: _pair(rng)[:2], ops=("abs", "sub")),
    OpInfo("huber_loss", lambda lib, a, b, **kw: _F(lib).huber_loss(a, b, **kw),
           _huber_samples, ops=("huber_loss", "huber_loss_backward")),
    OpInfo("smooth_l1_loss", lambda lib, a, b, **kw: _F(lib).smooth_l1_loss(a, b, **kw),
           _smooth_l1_samples, ops=("smooth_l1_loss", "smooth_l1_loss_backward")),
    OpInfo("binary_cross_entropy", lambda lib, a, t, *w, **kw: _F(lib).binary_cross_entropy(
        a, t, *w, **kw), _bce_samples,
           ops=("binary_cross_entropy", "binary_cross_entropy_backward")),
    OpInfo("binary_cross_entropy_with_logits",
           lambda lib, a, t, w=None, pw=None, **kw: _F(lib).binary_cross_entropy_with_logits(
               a, t, w, pos_weight=pw, **kw),
           _bce_logits_samples, ops=("binary_cross_entropy_with_logits",)),
    OpInfo("kl_div", lambda lib, a, t, **kw: _F(lib).kl_div(a, t, **kw), _kl_samples,
           ops=("mul", "sub")),
    OpInfo("leaky_relu", lambda lib, a, **kw: _F(lib).leaky_relu(a, **kw),
           lambda rng: _activation(rng) + _activation(rng, negative_slope=0.2),
           ops=("leaky_relu", "leaky_relu_backward")),
    OpInfo("elu", lambda lib, a, **kw: _F(lib).elu(a, **kw),
           lambda rng: _activation(rng) + _activation(rng, alpha=0.5),
           ops=("elu", "elu_backward")),
    OpInfo("activations at kinks", lambda lib, a: [
        f(a) for f in (_F(lib).leaky_relu, _F(lib).elu, _F(lib).softplus, _F(lib).gelu)],
           _at_kinks, ops=("leaky_relu", "elu"), gradcheck=False),
    OpInfo("gelu", lambda lib, a, **kw: _F(lib).gelu(a, **kw),
           lambda rng: _activation(rng) + _activation(rng, approximate="tanh"),
           ops=("gelu", "gelu_backward"), compare_atol=1e-12, compare_rtol=1e-12),
    OpInfo("silu", lambda lib, a: _F(lib).silu(a), _activation, ops=("silu", "add.Scalar")),
    OpInfo("softplus", lambda lib, a, **kw: _F(lib).softplus(a, **kw),
           lambda rng: _activation(rng) + _activation(rng, beta=2.0, threshold=1.0) + [
               Sample(np.array([-30.0, 0.0, 25.0]), name="beyond threshold")],
           ops=("softplus", "softplus_backward")),
    OpInfo("normalize", lambda lib, a, **kw: _F(lib).normalize(a, **kw),
           lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng, 3, 4), dim=0, p=1.0)],
           ops=("linalg_vector_norm", "div")),
    OpInfo("cosine_similarity", lambda lib, a, b, **kw: _F(lib).cosine_similarity(a, b, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), dim=0, grad=(0,))],
           ops=("linalg_vector_norm", "mul")),
    OpInfo("linear", lambda lib, a, w, *b: _F(lib).linear(a, w, *b), _linear_samples,
           ops=("addmm", "mm")),
    OpInfo("softmax (torch)", lambda lib, a, dim, **kw: lib.softmax(a, dim, **kw),
           lambda rng: _softmax_samples(rng)[:3] + [
               Sample(randn(rng, 3, 4), 1, dtype=None, name="dtype None")],
           ops=("_softmax", "_softmax_backward_data")),
    OpInfo("log_softmax (method)", lambda lib, a, dim: a.log_softmax(dim),
           lambda rng: _softmax_samples(rng)[:4],
           ops=("_log_softmax", "_log_softmax_backward_data")),
    OpInfo("elu_", _clone(lambda lib: _F(lib).elu_), lambda rng: _activation(rng) + _activation(
        rng, alpha=0.5), ops=("elu_", "elu_backward")),
    OpInfo("leaky_relu_", _clone(lambda lib: _F(lib).leaky_relu_),
           lambda rng: _activation(rng, negative_slope=0.2),
           ops=("leaky_relu_", "leaky_relu_backward")),
    OpInfo("celu", lambda lib, a, **kw: lib.celu(a, **kw),
           lambda rng: _activation(rng) + _activation(rng, alpha=0.3),
           ops=("celu", "elu_backward")),
    OpInfo("celu_", _clone(lambda lib: lib.celu_), lambda rng: _activation(rng, alpha=1.7),
           ops=("celu_", "elu_backward")),
    OpInfo("selu", lambda lib, a: lib.selu(a), _activation, ops=("elu", "elu_backward")),
    OpInfo("selu_", _clone(lambda lib: lib.selu_), _activation, ops=("elu_", "elu_backward")),
    OpInfo("threshold", lambda lib, a, t, v: lib.threshold(a, t, v),
           lambda rng: [Sample(_away_from_zero(rng, 3, 4), 0.05, -2.0),
                        Sample(_away_from_zero(rng), -0.05, 3),
                        Sample(noncontiguous(_away_from_zero(rng, 3, 4)), 0.5, 0.5)],
           ops=("threshold", "threshold_backward")),
    OpInfo("threshold_", _clone(lambda lib: lib.threshold_),
           lambda rng: [Sample(_away_from_zero(rng, 3, 4), 0.05, -2.0)],
           ops=("threshold_", "threshold_backward")),
    OpInfo("hardshrink", lambda lib, a, **kw: lib.hardshrink(a, **kw),
           lambda rng: _activation(rng) + [Sample(np.array([-2.0, -0.9, 0.2, 0.8]), lambd=0.7,
                                                  name="lambd")],
           ops=("hardshrink", "hardshrink_backward")),
    OpInfo("prelu", lambda lib, a, w: lib.prelu(a, w), _prelu_samples,
           ops=("_prelu_kernel", "_prelu_kernel_backward")),
    OpInfo("_prelu_kernel", lambda lib, a, w: lib._prelu_kernel(a, w),
           lambda rng: [Sample(_away_from_zero(rng, 2, 3, 2), positive(rng, 1, 3, 1) - 1)],
           ops=("_prelu_kernel", "_prelu_kernel_backward")),
    OpInfo("rrelu", lambda lib, a, *args, **kw: lib.rrelu(a, *args, **kw),
           lambda rng: _activation(rng) + [Sample(_away_from_zero(rng, 3, 4), 0.2, 0.5)],
           ops=("rrelu_with_noise", "rrelu_with_noise_backward")),
    OpInfo("rrelu training", _seeded(lambda lib, a, **kw: lib.rrelu(a, training=True, **kw)),
           lambda rng: _activation(rng) + [Sample(_away_from_zero(rng, 3, 4), lower=0.2,
                                                  upper=0.5)],
           ops=("rrelu_with_noise", "rrelu_with_noise_backward")),
    OpInfo("rrelu_", _seeded(lambda lib, a, **kw: lib.rrelu_(a * 1, **kw)),
           lambda rng: _activation(rng) + _activation(rng, training=True),
           ops=("rrelu_with_noise_", "rrelu_with_noise_backward")),
    OpInfo("native_dropout", _seeded(lambda lib, a, p, train: lib.native_dropout(a, p, train)),
           lambda rng: [Sample(randn(rng, 4, 5), 0.3, True), Sample(randn(rng, 4, 5), 0.3, False),
                        Sample(noncontiguous(randn(rng, 3, 4)), 0.5, True),
                        Sample(randn(rng, 3), 1.0, True, name="p=1")],
           ops=("native_dropout", "mul")),
    # train=None drops and scales, but its backward scales by 1 (PyTorch's formula)
    OpInfo("native_dropout train=None", _seeded(lambda lib, a: lib.native_dropout(a, 0.4, None)),
           lambda rng: [Sample(randn(rng, 4, 5))], ops=("native_dropout",), gradcheck=False),
    OpInfo("dropouts", _seeded(lambda lib, a, f, p: getattr(lib, f)(a, p, True)),
           lambda rng: [Sample(randn(rng, 4, 3, 2), f, 0.3, name=f) for f in (
               "dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")] + [
               Sample(noncontiguous(randn(rng, 4, 3)), "alpha_dropout", 0.5,
                      name="alpha non-contiguous")],
           ops=("mul", "add")),
    OpInfo("pixel_shuffle", lambda lib, a, r: lib.pixel_shuffle(a, r), _shuffle_samples,
           ops=("pixel_shuffle", "pixel_unshuffle")),
    OpInfo("pixel_unshuffle", lambda lib, a, r: _F(lib).pixel_unshuffle(a, r),
           _unshuffle_samples, ops=("pixel_unshuffle", "pixel_shuffle")),
    OpInfo("channel_shuffle", lambda lib, a, g: lib.channel_shuffle(a, g), _channel_samples),
    # no derivative: its node raises (tests/test_nn_breadth.py)
    OpInfo("native_channel_shuffle", lambda lib, a, g: lib.native_channel_shuffle(a, g),
           lambda rng: [Sample(randn(rng, 2, 6, 3), 3, grad=())], gradcheck=False),
    OpInfo("logsigmoid", lambda lib, a: _F(lib).logsigmoid(a),
           lambda rng: _activation(rng) + [Sample(np.array([-40.0, -3.0, 0.0, 5.0, 40.0]),
                                                  name="large")],
           ops=("log_sigmoid_forward", "log_sigmoid_backward")),
    OpInfo("margin_ranking_loss", lambda lib, a, b, t, m, r: lib.margin_ranking_loss(
        a, b, t, m, r), _loss_pair_samples, ops=("add.Scalar", "clamp_min", "mean", "sum")),
    OpInfo("cosine_embedding_loss", lambda lib, a, b, t, m, r: lib.cosine_embedding_loss(
        a, b, lib.tensor(t), m, r),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), np.array([1, -1, 1]), -0.9,
                               1),
                        Sample(randn(rng, 4), randn(rng, 4), np.asarray(-1), -0.5, 2,
                               name="1-d"),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), np.array([-1, 1, -1]), -0.9,
                               0, name="none")],
           ops=("sub.Scalar", "add.Scalar", "sqrt", "where.self")),
    OpInfo("hinge_embedding_loss", lambda lib, a, t, m, r: lib.hinge_embedding_loss(
        a, t, m, r),
           lambda rng: [Sample(randn(rng, 3, 4) * 0.1, _signs(rng, 3, 4), 1.0, 1, grad=(0,)),
                        Sample(randn(rng, 6) * 0.1, _signs(rng, 6), 0.5, 0, grad=(0,),
                               name="none")],
           ops=("sub", "clamp_min", "where.self")),
    OpInfo("triplet_margin_loss", lambda lib, a, b, c, **kw: lib.triplet_margin_loss(
        a, b, c, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4),
                               margin=10.0, reduction=1),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4), margin=10.0,
                               p=3.0, swap=True, reduction=2, name="swap, p=3"),
                        Sample(randn(rng, 4), randn(rng, 4), randn(rng, 4), margin=10.0,
                               name="1-d")],
           ops=("linalg_vector_norm", "minimum", "clamp_min")),
    OpInfo("poisson_nll_loss", lambda lib, a, t, *args: lib.poisson_nll_loss(a, t, *args),
           lambda rng: [Sample(randn(rng, 3, 4), positive(rng, 3, 4), True, False, 1e-8, 1),
                        Sample(positive(rng, 3, 4), positive(rng, 3, 4, high=4.0), False, True,
                               1e-8, 2, name="rates, full"),
                        Sample(randn(rng, 3, 4), positive(rng, 3, 4), True, True, 1e-8, 0,
                               name="full none")],
           ops=("exp", "log", "masked_fill.Scalar")),
    OpInfo("kl_div (torch)", lambda lib, a, t, *args, **kw: lib.kl_div(a, t, *args, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), positive(rng, 3, 4), 1),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), 2, log_target=True,
                               name="log_target"),
                        Sample(randn(rng, 3, 4), positive(rng, 3, 4), name="default: none")],
           ops=("xlogy.Tensor", "exp", "sub")),
    OpInfo("binary_cross_entropy_with_logits (torch)",
           lambda lib, a, t, w, pw, r: lib.binary_cross_entropy_with_logits(a, t, w, pw, r),
           lambda rng: [Sample(randn(rng, 3, 4), positive(rng, 3, 4, low=0.0, high=1.0), None,
                               positive(rng, 4), 1, grad=(0, 1)),
                        Sample(randn(rng, 3, 4), positive(rng, 3, 4, low=0.0, high=1.0),
                               positive(rng, 3, 4), None, 0, grad=(0, 1), name="weight none")],
           ops=("binary_cross_entropy_with_logits", "log_sigmoid_forward")),
    OpInfo("max_pool3d", lambda lib, x, *args, **kw: lib.max_pool3d(x, *args, **kw),
           lambda rng: [Sample(_distinct(rng, 1, 2, 4, 4, 4), 2),
                        Sample(_distinct(rng, 2, 4, 5, 6), (3, 2, 2), (1, 2, 1), (1, 0, 1),
                               ceil_mode=True, name="4-d, padding, ceil_mode"),
                        Sample(_distinct(rng, 1, 1, 5, 5, 5), 2, 1, dilation=2,
                               name="dilation, overlapping")],
           ops=("max_pool3d_with_indices", "max_pool3d_with_indices_backward")),
    OpInfo("adaptive_max_pool1d", lambda lib, x, n: lib.adaptive_max_pool1d(x, n)[0],
           lambda rng: [Sample(_distinct(rng, 2, 3, 10), 4),
                        Sample(_distinct(rng, 3, 5), 7, name="2-d, more outputs")],
           ops=("adaptive_max_pool2d", "adaptive_max_pool2d_backward")),
    OpInfo("adaptive_max_pool2d", lambda lib, x, n: _F(lib).adaptive_max_pool2d(x, n),
           lambda rng: [Sample(_distinct(rng, 2, 3, 5, 7), (2, 3)),
                        Sample(_distinct(rng, 3, 4, 4), (3, None), name="3-d, None")],
           ops=("adaptive_max_pool2d", "adaptive_max_pool2d_backward")),
]


# ---- hardtanh, hardsigmoid, hardswish, mish, softshrink, glu; soft, multi and multilabel margin
# losses (samples keep away from the kinks: the bounds, +-3, +-lambd)

def _away_from(rng, kinks, *shape, scale=2.0):
    a = np.asarray(rng.standard_normal(shape) * scale)
    for k in kinks:
        a = np.where(np.abs(a - k) < 0.1, a + 0.25, a)
    return a


def _bounded(rng, kinks, *args, **kw):
    return [Sample(_away_from(rng, kinks, 3, 4), *args, **kw),
            Sample(_away_from(rng, kinks), *args, **kw),
            Sample(noncontiguous(_away_from(rng, kinks, 2, 3)), *args, **kw)]


def _glu_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 4, 3), 0, name="dim 0"),
            Sample(randn(rng, 2, 2, 6), -1, name="3-d"),
            Sample(noncontiguous(randn(rng, 3, 4)), 1, name="non-contiguous")]


def _margin_targets(rng, n, c):
    """multilabel_margin_loss targets: some class lists ended by -1, one full, one empty."""
    t = np.full((n, c), -1, np.int64)
    for i in range(n):
        k = [2, c, 0, 1][i % 4]
        t[i, :k] = rng.permutation(c)[:k]
    return t


OPS_DB += [
    OpInfo("hardtanh", lambda lib, a, *args: _F(lib).hardtanh(a, *args),
           lambda rng: _bounded(rng, (-1, 1)) + _bounded(rng, (-0.5, 2), -0.5, 2.0),
           ops=("hardtanh", "hardtanh_backward")),
    OpInfo("hardtanh_", _clone(lambda lib: _F(lib).hardtanh_),
           lambda rng: _bounded(rng, (-1, 1)) + _bounded(rng, (0, 0.5), 0.0, 0.5),
           ops=("hardtanh", "hardtanh_backward")),
    OpInfo("relu6", lambda lib, a, **kw: _F(lib).relu6(a * 4, **kw),
           lambda rng: _bounded(rng, (0, 1.5)) + _bounded(rng, (0, 1.5), inplace=True),
           ops=("hardtanh", "hardtanh_backward")),
    # hardsigmoid_backward has no derivative (PyTorch's NotImplemented node)
    OpInfo("hardsigmoid", lambda lib, a, **kw: _F(lib).hardsigmoid(a * 1, **kw),
           lambda rng: _bounded(rng, (-3, 3)) + _bounded(rng, (-3, 3), inplace=True),
           ops=("hardsigmoid", "hardsigmoid_backward"), gradgradcheck=False),
    OpInfo("hardswish", lambda lib, a, **kw: _F(lib).hardswish(a * 1, **kw),
           lambda rng: _bounded(rng, (-3, 3)) + _bounded(rng, (-3, 3), inplace=True),
           ops=("hardswish", "hardswish_backward")),
    OpInfo("mish", lambda lib, a, **kw: _F(lib).mish(a * 1, **kw),
           lambda rng: _activation(rng) + _activation(rng, inplace=True) + [
               Sample(np.array([-30.0, 25.0]), name="large")],
           ops=("mish", "softplus", "tanh", "sigmoid")),
    OpInfo("softshrink", lambda lib, a, *args: _F(lib).softshrink(a, *args),
           lambda rng: _bounded(rng, (-0.5, 0.5)) + _bounded(rng, (-1.2, 1.2), 1.2) + [
               Sample(np.array([-1.0, -0.2, 0.25, 3.0]), 0.0, name="lambd 0")],
           ops=("softshrink", "softshrink_backward")),
    OpInfo("glu", lambda lib, a, *args: _F(lib).glu(a, *args), _glu_samples,
           ops=("glu", "glu_backward")),
    OpInfo("soft_margin_loss", lambda lib, a, t, **kw: _F(lib).soft_margin_loss(a, t, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), _signs(rng, 3, 4), grad=(0,)),
                        Sample(randn(rng, 3, 4), _signs(rng, 3, 4), grad=(0,), reduction="sum"),
                        Sample(randn(rng, 3, 4), randn(rng, 4), grad=(0,), reduction="none",
                               name="broadcast none"),
                        Sample(randn(rng), _signs(rng), grad=(0,), name="0-d")],
           ops=("soft_margin_loss", "soft_margin_loss_backward")),
    # multi_margin_loss_backward and multilabel_margin_loss_backward have no derivative
    OpInfo("multi_margin_loss", lambda lib, a, t, *w, **kw: _F(lib).multi_margin_loss(
        a, t, weight=w[0] if w else None, **kw),
           lambda rng: [Sample(randn(rng, 3, 5), _labels(rng, 5, 3)),
                        Sample(randn(rng, 3, 5), _labels(rng, 5, 3), p=2, margin=0.6,
                               reduction="sum"),
                        Sample(randn(rng, 4, 3), _labels(rng, 3, 4), positive(rng, 3),
                               grad=(0,), reduction="none", name="weight none"),
                        Sample(randn(rng, 4), np.asarray(1, np.int64), name="1-d"),
                        Sample(noncontiguous(randn(rng, 3, 4)), _labels(rng, 4, 3),
                               name="non-contiguous")],
           ops=("multi_margin_loss", "multi_margin_loss_backward"), gradgradcheck=False),
    OpInfo("multilabel_margin_loss", lambda lib, a, t, **kw: _F(lib).multilabel_margin_loss(
        a, t, **kw),
           lambda rng: [Sample(randn(rng, 4, 5), _margin_targets(rng, 4, 5)),
                        Sample(randn(rng, 4, 5), _margin_targets(rng, 4, 5), reduction="none"),
                        Sample(randn(rng, 4, 3), _margin_targets(rng, 4, 3), reduction="sum"),
                        Sample(randn(rng, 5), np.array([3, 3, 0, -1, 2]), name="1-d repeats"),
                        Sample(randn(rng), np.asarray(0), name="0-d")],
           ops=("multilabel_margin_loss", "multilabel_margin_loss_backward"),
           gradgradcheck=False),
    OpInfo("compositions: softsign, tanhshrink, softmin, multilabel_soft_margin_loss",
           lambda lib, a, t: [_F(lib).softsign(a), _F(lib).tanhshrink(a),
                              _F(lib).softmin(a, 1), _F(lib).softmin(a, 0, dtype=lib.float64),
                              _F(lib).multilabel_soft_margin_loss(a, t),
                              _F(lib).multilabel_soft_margin_loss(a, t, t[0] + 1,
                                                                  reduction="none")],
           lambda rng: [Sample(_away_from_zero(rng, 3, 4), positive(rng, 3, 4, low=0.0,
                                                                    high=1.0), grad=(0,))],
           ops=("div", "tanh", "_softmax", "log_sigmoid_forward")),
    OpInfo("compositions: gaussian_nll_loss, local_response_norm, triplet with distance",
           lambda lib, a, b, v: [
               _F(lib).gaussian_nll_loss(a, b, v), _F(lib).gaussian_nll_loss(
                   a, b, v[:, :1], full=True, reduction="sum"),
               _F(lib).local_response_norm(a.view(1, 3, 4), 2),
               _F(lib).local_response_norm(a.view(1, 3, 2, 2), 3, 1e-2, 0.5, 2.0),
               _F(lib).triplet_margin_with_distance_loss(
                   a, b, v, distance_function=lambda x, y: (x - y).abs().sum(1), swap=True,
                   margin=5.0, reduction="none")],
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), positive(rng, 3, 4))],
           ops=("log", "avg_pool2d", "avg_pool3d", "pow.Tensor_Scalar", "minimum")),
]

# PyTorch's fused weight norm treats its saved norms as constants in double backward, so its
# second derivative is not the true one (gradgradcheck fails in PyTorch too); tests/
# test_nn_utils.py compares chainrule's with PyTorch's instead
OPS_DB += [
    OpInfo("_weight_norm", lambda lib, v, g, dim: lib._weight_norm(v, g, dim),
           lambda rng: [Sample(randn(rng, 3, 4), positive(rng, 3, 1), 0),
                        Sample(randn(rng, 2, 3, 4), positive(rng, 1, 1, 4), 2, name="last dim"),
                        Sample(randn(rng, 4, 3), positive(rng, 1, 3), 1, name="2-d, last dim"),
                        Sample(randn(rng, 2, 3, 2), positive(rng, 1, 3, 1), 1,
                               name="middle dim (composed)"),
                        Sample(randn(rng, 3, 2), positive(rng), -1, name="-1: whole norm")],
           ops=("_weight_norm_interface",), gradgradcheck=False),
]


def _grouped_samples(rng):
    offs = np.array([3, 8], np.int32)
    return [Sample(randn(rng, 2, 4, 8), randn(rng, 2, 8, 4), None, name="3-d, 3-d"),
            Sample(randn(rng, 8, 4), randn(rng, 2, 4, 8), offs, name="2-d, 3-d"),
            Sample(randn(rng, 4, 8), randn(rng, 8, 4), offs, name="2-d, 2-d"),
            Sample(randn(rng, 2, 4, 8), randn(rng, 8, 8), offs, name="3-d, 2-d")]


# _grouped_mm takes float32 (or bfloat16, float16) only: compared with PyTorch in float32,
# through a cast, without gradcheck; its double backward is its own row again
OPS_DB += [
    OpInfo("grouped_mm", lambda lib, a, b, offs: _F(lib).grouped_mm(
        a.float(), b.float(), offs=None if offs is None else offs.int()), _grouped_samples,
           ops=("_grouped_mm",), gradcheck=False, gradgradcheck=False, compare_atol=1e-5,
           compare_rtol=1e-5),
]
