"""Binomial distribution: successes in `total_count` trials of success probability `probs`
(or log-odds `logits`)."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import (
    _ProbsOrLogits, _HoldsParam, _support_along_dim0)


__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) with derivative 1/2 at x = 0, where clamp's would be 0 or 1
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_ProbsOrLogits, _HoldsParam, Distribution):
    """Number of successes in total_count trials; total_count broadcasts with the
    probability parameter and takes its dtype."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        batch_shape = self._hold(probs, logits, total_count)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        names = ("total_count", "probs", "logits")
        return self._keep_given(self._expand_params(Binomial, batch_shape, _instance, names))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        n = self.total_count
        return ((n + 1) * self.probs).floor().clamp(max=n)

    @property
    def variance(self):
        n, p = self.total_count, self.probs
        return n * p * (1 - p)

    def sample(self, sample_shape=torch.Size()):
        full = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.binomial(self.total_count.expand(full), self.probs.expand(full))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logit = self.total_count, self.logits
        log_n_fact = torch.lgamma(n + 1)
        log_k_fact = torch.lgamma(value + 1)
        log_rest_fact = torch.lgamma(n - value + 1)
        # n log(1 + e^logit) written stably: n max(logit, 0) + n log1p(e^-|logit|)
        log_norm = n * _clamp_by_zero(logit) + n * torch.log1p(torch.exp(-torch.abs(logit))) \
            - log_n_fact
        return value * logit - log_k_fact - log_rest_fact - log_norm

    def _common_count(self, caller):
        top = int(self.total_count.max())
        if not self.total_count.min() == top:
            raise NotImplementedError(
                f"Inhomogeneous total count not supported by `{caller}`.")
        return top

    def entropy(self):
        self._common_count("entropy")
        log_pmf = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_pmf) * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        ref = self._param
        counts = torch.arange(1 + self._common_count("enumerate_support"), dtype=ref.dtype,
                              device=ref.device)
        return _support_along_dim0(counts, self._batch_shape, expand)
