"""Negative binomial distribution: successes before `total_count` failures, each trial a
success with probability `probs` (or log-odds `logits`); total_count may be real."""
import chainrule as torch
import chainrule.nn.functional as F
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.gamma import Gamma
from chainrule.distributions.utils import _ProbsOrLogits, _HoldsParam, lazy_property


__all__ = ["NegativeBinomial"]


class NegativeBinomial(_ProbsOrLogits, _HoldsParam, Distribution):
    """Successes before total_count failures; probs in [0, 1)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._hold(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        names = ("total_count", "probs", "logits")
        return self._keep_given(
            self._expand_params(NegativeBinomial, batch_shape, _instance, names))

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        odds = self.logits.exp()
        return ((self.total_count - 1) * odds).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # the Gamma-Poisson mixture; unvalidated since total_count may be 0
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r, logit = self.total_count, self.logits
        log_weight = r * F.logsigmoid(-logit) + value * F.logsigmoid(logit)
        log_coef = -torch.lgamma(r + value) + torch.lgamma(1.0 + value) + torch.lgamma(r)
        # r = 0 and value = 0 has probability 1, though lgamma(0) is infinite
        log_coef = log_coef.masked_fill(r + value == 0.0, 0.0)
        return log_weight - log_coef
