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
]
