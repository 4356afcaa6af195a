"""KL(p || q) between distributions: a table of closed forms keyed by the pair of classes,
looked up by the most specific registered pair of base classes."""
import math
import warnings

import chainrule as torch
from chainrule import inf
from chainrule.nn.functional import softplus

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    _batch_lowrank_logdet, _batch_lowrank_mahalanobis, LowRankMultivariateNormal)
from .multivariate_normal import _batch_mahalanobis, MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant as _EULER


__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}   # (class of p, class of q) -> function, as registered
_KL_MEMOIZE = {}    # (type(p), type(q)) -> the function dispatch chose (or NotImplemented)


def register_kl(type_p, type_q):
    """Decorator registering `fn(p, q)` as the KL divergence for the pair of classes."""
    for cls, label in ((type_p, "type_p"), (type_q, "type_q")):
        # issubclass raises the TypeError for a non-class, as PyTorch's check does
        if not isinstance(cls, type) and issubclass(cls, Distribution):
            raise TypeError(f"Expected {label} to be a Distribution subclass but got {cls}")

    def add(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()          # a new entry can change what a pair resolves to
        return fn
    return add


def _dispatch_kl(type_p, type_q):
    """The registered function for the most specific pair of base classes (single
    inheritance assumed); warns when ranking p first and q first disagree."""
    pairs = [(bp, bq) for bp, bq in _KL_REGISTRY
             if issubclass(type_p, bp) and issubclass(type_q, bq)]
    if not pairs:
        return NotImplemented
    depth_p, depth_q = type_p.__mro__.index, type_q.__mro__.index
    by_p = min(pairs, key=lambda pq: (depth_p(pq[0]), depth_q(pq[1])))
    by_q = min(pairs, key=lambda pq: (depth_q(pq[1]), depth_p(pq[0])))
    chosen = _KL_REGISTRY[by_p]
    if chosen is not _KL_REGISTRY[by_q]:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({by_p[0].__name__}, {by_q[1].__name__})",
            RuntimeWarning, stacklevel=2)
    return chosen


def kl_divergence(p, q):
    """KL(p || q), batched over the batch shape."""
    key = type(p), type(q)
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fn = _KL_MEMOIZE[key]
    if fn is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
            f"{q.__class__.__name__}")
    return fn(p, q)


def _infinite_like(tensor):
    return torch.full_like(tensor, inf)


def _x_log_x(x):
    return torch.special.xlogy(x, x)     # 0 at x = 0


def _batch_trace_XXT(bmat):
    """trace(X X^T) for a batch of matrices: the sum of squares of each matrix."""
    rows, cols = bmat.shape[-2:]
    return bmat.reshape(-1, rows * cols).pow(2).sum(-1).reshape(bmat.shape[:-2])


def _overwrite(result, where, value):
    # in place, as PyTorch does, so the result's node is the index_put
    result[where] = value
    return result


def _log_tril_det(tril):
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _lowrank_maha(q, p):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      q.loc - p.loc, q._capacitance_tril)


def _same_event_or_raise(p, q, which):
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"KL-divergence between two {which} with{' ' * 26}different event shapes "
            "cannot be computed")


def _support_edges(d):
    return d.support.lower_bound, d.support.upper_bound


def _register_infinite(p_cls, q_classes, attr):
    """Pairs whose KL is infinite (q's support misses part of p's): inf shaped like p.attr."""
    def kl(p, q):
        return _infinite_like(getattr(p, attr))
    for q_cls in q_classes:
        register_kl(p_cls, q_cls)(kl)


# ---- both arguments of the same family ----
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    _overwrite(ones, q.probs == 0, inf)
    _overwrite(ones, p.probs == 0, 0)
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    _overwrite(zeros, q.probs == 1, inf)
    _overwrite(zeros, p.probs == 1, 0)
    return ones + zeros


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a_p, b_p, a_q, b_q = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    total_p, total_q = a_p + b_p, a_q + b_q
    log_beta_q = a_q.lgamma() + b_q.lgamma() + total_p.lgamma()
    log_beta_p = a_p.lgamma() + b_p.lgamma() + total_q.lgamma()
    return (log_beta_q - log_beta_p + (a_p - a_q) * torch.digamma(a_p)
            + (b_p - b_q) * torch.digamma(b_p) + (total_q - total_p) * torch.digamma(total_p))


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    n = p.total_count
    if (n < q.total_count).any():
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented")
    per_trial = p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p()
    out = n * per_trial
    more = n > q.total_count          # q cannot reach p's largest counts
    return _overwrite(out, more, _infinite_like(out[more]))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    _overwrite(terms, (q.probs == 0).expand_as(terms), inf)
    _overwrite(terms, (p.probs == 0).expand_as(terms), 0)
    return terms.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    cross = p.mean * (p.logits - q.logits)
    own = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    other = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return cross + own + other


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    alpha_p, alpha_q = p.concentration, q.concentration
    total_p, total_q = alpha_p.sum(-1), alpha_q.sum(-1)
    log_norms = total_p.lgamma() - total_q.lgamma()
    lgamma_gap = (alpha_p.lgamma() - alpha_q.lgamma()).sum(-1)
    expected_log = alpha_p.digamma() - total_p.digamma().unsqueeze(-1)
    return log_norms - lgamma_gap + ((alpha_p - alpha_q) * expected_log).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # Bregman divergence of the log normalizer, only within one family
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "                            be computed using Bregman divergences")
    theta_p = [theta.detach().requires_grad_() for theta in p._natural_params]
    theta_q = q._natural_params
    norm_p = p._log_normalizer(*theta_p)
    slopes = torch.autograd.grad(norm_p.sum(), theta_p, create_graph=True)
    out = q._log_normalizer(*theta_q) - norm_p
    for tp, tq, slope in zip(theta_p, theta_q, slopes):
        out -= _sum_rightmost((tq - tp) * slope, len(q.event_shape))
    return out


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    k_p, k_q = p.concentration, q.concentration
    return (k_q * (p.rate / q.rate).log() + (torch.lgamma(k_q) - torch.lgamma(k_p))
            + (k_p - k_q) * torch.digamma(k_p) + (q.rate - p.rate) * (k_p / p.rate))


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    s = p.scale / q.scale
    mu_q, mu_p = q.loc / q.scale, p.loc / q.scale
    head = -s.log() - mu_q + mu_p
    return head + s * _EULER + torch.exp(mu_q + (1 + s).lgamma() - mu_p) - (1 + _EULER)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    s = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -s.log() + gap / q.scale + s * torch.exp(-gap / p.scale) - 1


def _lowrank_cross_factor(q):
    # A = L_C^{-1} W^T D^{-1} for q's capacitance factor L_C: inv(cov_q) = inv(D) - A^T A
    w_over_d = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return torch.linalg.solve_triangular(q._capacitance_tril, w_over_d, upper=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _same_event_or_raise(p, q, "Low Rank Multivariate Normals")
    logdet_gap = _lowrank_logdet(q) - _lowrank_logdet(p)
    maha = _lowrank_maha(q, p)
    A = _lowrank_cross_factor(q)
    w_p, d_p, d_q = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, \
        q._unbroadcasted_cov_diag
    # trace(inv(cov_q) cov_p) with cov_p = W_p W_p^T + D_p, term by term
    trace = ((d_p / d_q).sum(-1) + _batch_trace_XXT(w_p * d_q.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A * d_p.sqrt().unsqueeze(-2))
             - _batch_trace_XXT(A.matmul(w_p)))
    return 0.5 * (logdet_gap + trace + maha - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _same_event_or_raise(p, q, "(Low Rank) Multivariate Normals")
    tril_p = p._unbroadcasted_scale_tril
    logdet_gap = _lowrank_logdet(q) - 2 * _log_tril_det(tril_p)
    maha = _lowrank_maha(q, p)
    A = _lowrank_cross_factor(q)
    # trace(inv(cov_q) L_p L_p^T)
    trace = (_batch_trace_XXT(tril_p * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A.matmul(tril_p)))
    return 0.5 * (logdet_gap + trace + maha - p.event_shape[0])


def _expand_batch(n, batch, *pairs):
    return [m.expand(batch + (n, cols)) for m, cols in pairs]


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _same_event_or_raise(p, q, "(Low Rank) Multivariate Normals")
    tril_q = q._unbroadcasted_scale_tril
    logdet_gap = 2 * _log_tril_det(tril_q) - _lowrank_logdet(p)
    maha = _batch_mahalanobis(tril_q, (q.loc - p.loc))
    batch = torch.broadcast_shapes(tril_q.shape[:-2], p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    tril_q, w_p, sqrt_d_p = _expand_batch(
        n, batch, (tril_q, n), (p._unbroadcasted_cov_factor, p.cov_factor.size(-1)),
        (torch.diag_embed(p._unbroadcasted_cov_diag.sqrt()), n))
    # trace(inv(L_q L_q^T) (W_p W_p^T + D_p))
    trace = (_batch_trace_XXT(torch.linalg.solve_triangular(tril_q, w_p, upper=False))
             + _batch_trace_XXT(torch.linalg.solve_triangular(tril_q, sqrt_d_p, upper=False)))
    return 0.5 * (logdet_gap + trace + maha - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    _same_event_or_raise(p, q, "Multivariate Normals")
    half_logdet_gap = (_log_tril_det(q._unbroadcasted_scale_tril)
                       - _log_tril_det(p._unbroadcasted_scale_tril))
    batch = torch.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                   p._unbroadcasted_scale_tril.shape[:-2])
    n = p.event_shape[0]
    tril_q, tril_p = _expand_batch(n, batch, (q._unbroadcasted_scale_tril, n),
                                   (p._unbroadcasted_scale_tril, n))
    trace = _batch_trace_XXT(torch.linalg.solve_triangular(tril_q, tril_p, upper=False))
    maha = _batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    return half_logdet_gap + 0.5 * (trace + maha - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    s = p.scale / q.scale
    a = q.alpha / p.alpha
    out = q.alpha * s.log() + -a.log() + a - 1
    return _overwrite(out, p.support.lower_bound < q.support.lower_bound, inf)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    out = ((q.high - q.low) / (p.high - p.low)).log()
    return _overwrite(out, (q.low > p.low) | (q.high < p.high), inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # closed form of Chyzak and Nielsen (arXiv:1905.10965)
    num = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return num - (4 * p.scale * q.scale).log()


# ---- pairs of different families ----

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _minus_entropy_minus_cb_cross(p, q):
    # -H(p) - E_p[log q] for a continuous Bernoulli q
    return -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()


def _inf_where(condition, out):
    return torch.where(condition, torch.ones_like(out) * inf, out)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _minus_entropy_minus_cb_cross(p, q)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    a, b = p.concentration1, p.concentration0
    return -p.entropy() - q.rate.log() + q.rate * (a / (a + b))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    a, b, k = p.concentration1, p.concentration0, q.concentration
    log_norm_q = k.lgamma() - k * q.rate.log()
    mean_log = (k - 1) * (a.digamma() - (a + b).digamma())
    return -p.entropy() + log_norm_q - mean_log + q.rate * a / (a + b)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    a, b = p.concentration1, p.concentration0
    m = a / (a + b)
    var_q = q.scale.pow(2)
    half_second_moment = (m * (1 - m) / (a + b + 1) + m.pow(2)) * 0.5
    quad = half_second_moment - q.loc * m + q.loc.pow(2) * 0.5
    return -p.entropy() + 0.5 * (var_q * 2 * math.pi).log() + quad / var_q


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    out = -p.entropy() + (q.high - q.low).log()
    lo, hi = _support_edges(p)
    return _overwrite(out, (q.low > lo) | (q.high < hi), inf)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    log_norm_q = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) \
        + torch.log(q.scale)
    quad = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) \
        / (2.0 * torch.square(q.scale))
    return -p.entropy() + log_norm_q + quad


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    out = -p.entropy() + (q.high - q.low).log()
    lo, hi = _support_edges(p)
    return _inf_where(torch.max(torch.ge(q.low, lo), torch.le(q.high, hi)), out)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    k = q.concentration
    return -k * torch.log(ratio) + ratio + k.lgamma() + k * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    prod = p.rate * q.scale
    shift = q.loc / q.scale
    return (prod.log() - 1 - shift + torch.exp(shift) * prod / (prod + 1)
            + prod.reciprocal())


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    quad = rate2.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5
    return 0.5 * torch.log(rate2 * var_q * 2 * math.pi) - 1 + quad / var_q


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    k = p.concentration
    prod = p.rate * q.scale
    shift = q.loc / q.scale
    head = (k - 1) * k.digamma() - k.lgamma() - k
    mid = prod.log() + k / prod
    tail = torch.exp(shift) * (1 + prod.reciprocal()).pow(-k) - shift
    return head + mid + tail


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    k = p.concentration
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    head = 0.5 * torch.log(rate2 * var_q * 2 * math.pi) - k - k.lgamma()
    quad = 0.5 * (k.pow(2) + k) / rate2 - q.loc * k / p.rate + 0.5 * q.loc.pow(2)
    return head + (k - 1) * k.digamma() + quad / var_q


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    s = p.scale / q.scale
    log_ratio = (s / math.sqrt(2 * math.pi)).log()
    spread = (math.pi * s * 0.5).pow(2) / 3
    shift = ((p.loc + p.scale * _EULER - q.loc) / q.scale).pow(2) * 0.5
    return -log_ratio + spread + shift - (_EULER + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_q = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_q
    quad = 0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)
    return -(0.5 * torch.log(2 * ratio / math.pi)) + ratio + quad / var_q - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    m = p.loc / q.scale
    v = (p.scale / q.scale).pow(2)
    shift = q.loc / q.scale
    return (-(v.log() * 0.5) + (m - shift) + torch.exp(-m + 0.5 * v + shift)
            - (0.5 * (1 + math.log(2 * math.pi))))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    gap = p.loc - q.loc
    z = gap / p.scale
    fold = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * z.pow(2))
    skew = gap * torch.erf(math.sqrt(0.5) * z)
    return (-torch.log(p.scale / q.scale) + (fold + skew) / q.scale
            - (0.5 * (1 + math.log(0.5 * math.pi))))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    a = p.alpha
    prod = p.scale * q.rate
    out = (a / prod).log() - a.reciprocal() + a * prod / (a - 1) - 1
    return _overwrite(out, a <= 1, inf)      # p has no finite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    a, k = p.alpha, q.concentration
    mean_log = p.scale.log() + a.reciprocal()
    log_norm_q = k.lgamma() - k * q.rate.log()
    out = (a.log() - mean_log) + log_norm_q + (1 - k) * mean_log \
        + q.rate * a * p.scale / (a - 1) - 1
    return _overwrite(out, a <= 1, inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    a = p.alpha
    two_var = 2 * q.scale.pow(2)
    unit = p.scale / (a - 1)
    log_ratio = (math.sqrt(2 * math.pi) * q.scale * a / p.scale).log()
    second = a * unit.pow(2) / (a - 2) + (a * unit - q.loc).pow(2)
    out = log_ratio - a.reciprocal() + second / two_var - 1
    return _overwrite(out, a <= 2, inf)      # p has no finite variance


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    lo_edge, hi_edge = _support_edges(q)
    a_term = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    b_term = ((q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width)
              / width)
    log_beta = (q.concentration1.lgamma() + q.concentration0.lgamma()
                - (q.concentration1 + q.concentration0).lgamma())
    out = b_term + log_beta - torch.log(width) - a_term
    return _overwrite(out, (p.high > hi_edge) | (p.low < lo_edge), inf)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    out = _minus_entropy_minus_cb_cross(p, q)
    lo, hi = _support_edges(q)
    return _inf_where(torch.max(torch.ge(p.high, hi), torch.le(p.low, lo)), out)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponetial(p, q):
    out = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _overwrite(out, p.low < q.support.lower_bound, inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    k = q.concentration
    log_norm_q = k.lgamma() - k * q.rate.log()
    mean_log = (1 - k) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    out = -width.log() + log_norm_q + mean_log + q.rate * (p.high + p.low) / 2
    return _overwrite(out, p.low < q.support.lower_bound, inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    ratio = q.scale / (p.high - p.low)
    z_hi, z_lo = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    head = ratio.log() + 0.5 * (z_hi + z_lo)
    return head - ratio * (torch.exp(-z_hi) - torch.exp(-z_lo))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    log_ratio = (math.sqrt(math.pi * 2) * q.scale / width).log()
    second = width.pow(2) / 12 + ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return log_ratio + 0.5 * second / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    mean_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    out = mean_log * (q.alpha + 1) - log_norm
    return _overwrite(out, p.low < q.support.lower_bound, inf)


# ---- pairs where q's support misses part of p's ----
_register_infinite(Beta, (Pareto,), "concentration1")
_register_infinite(ContinuousBernoulli, (Pareto,), "probs")
_register_infinite(Exponential, (Beta, ContinuousBernoulli, Pareto, Uniform), "rate")
_register_infinite(Gamma, (Beta, ContinuousBernoulli, Pareto, Uniform), "concentration")
_register_infinite(Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
                   "loc")
_register_infinite(Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
                   "loc")
_register_infinite(Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
                   "loc")
_register_infinite(Pareto, (Beta, ContinuousBernoulli, Uniform), "scale")
_register_infinite(Poisson, (Bernoulli, Binomial), "rate")


def _add_kl_info():
    """Append the list of registered pairs to kl_divergence's docstring."""
    pairs = sorted(_KL_REGISTRY, key=lambda pq: (pq[0].__name__, pq[1].__name__))
    listing = "\n\t".join(
        ["KL divergence is currently implemented for the following distribution pairs:"]
        + [f"* :class:`~torch.distributions.{p.__name__}` and "
           f":class:`~torch.distributions.{q.__name__}`" for p, q in pairs])
    if kl_divergence.__doc__:
        kl_divergence.__doc__ += listing
