"""Bernoulli distribution on {0, 1}, given by the probability of 1 or its log-odds."""
import chainrule as torch
from chainrule import nan
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.distributions.utils import (
    _ProbsOrLogits, _HoldsParam, _support_along_dim0, broadcast_all)
from chainrule.nn.functional import binary_cross_entropy_with_logits


__all__ = ["Bernoulli"]


class Bernoulli(_ProbsOrLogits, _HoldsParam, ExponentialFamily):
    """1 with probability `probs` (= sigmoid(`logits`)), else 0; give exactly one."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(self._hold(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._keep_given(
            self._expand_params(Bernoulli, batch_shape, _instance, ("probs", "logits")))

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        p = self.probs
        out = (p >= 0.5).to(p)
        out[p == 0.5] = nan          # a tie has no single mode
        return out

    @property
    def variance(self):
        p = self.probs
        return p * (1 - p)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        ref = self._param
        both = torch.arange(2, dtype=ref.dtype, device=ref.device)
        return _support_along_dim0(both, self._batch_shape, expand)

    @property
    def _natural_params(self):
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x):
        return torch.log1p(torch.exp(x))
