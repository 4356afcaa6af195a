"""Geometric distribution: failures before the first success, P(X = k) = (1 - p)^k p.
(Tensor.geometric_ counts the trials instead, so its draws are one larger.)"""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import _ProbsOrLogits, _exactly_one, broadcast_all
from chainrule.nn.functional import binary_cross_entropy_with_logits


__all__ = ["Geometric"]


class Geometric(_ProbsOrLogits, Distribution):
    """Number of failures before the first success, success probability `probs` in (0, 1]
    (or log-odds `logits`)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _exactly_one(probs, logits)
        label = "probs" if probs is not None else "logits"
        (given,) = broadcast_all(probs if probs is not None else logits)
        setattr(self, label, given)
        super().__init__(given.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            self._check_probs_positive()

    def _check_probs_positive(self):
        # unit_interval admits 0, which has no geometric distribution
        p = self.probs
        positive = p > 0
        if not positive.all():
            raise ValueError(
                f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) "
                f"of distribution {self!r} to be positive but found invalid values:\n"
                f"{p.data[~positive]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        p = self.probs
        return (1.0 / p - 1.0) / p

    def sample(self, sample_shape=torch.Size()):
        full = self._extended_shape(sample_shape)
        p = self.probs
        smallest = torch.finfo(p.dtype).tiny
        with torch.no_grad():
            # inverse cdf of a uniform draw kept away from 0
            u = p.new(full).uniform_(smallest, 1)
            return (u.log() / (-p).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, p = broadcast_all(value, self.probs)
        p = p.clone(memory_format=torch.contiguous_format)
        # p = 1 at k = 0: 0 * log(0) should count as 0
        p[(p == 1) & (value == 0)] = 0
        return value * (-p).log1p() + self.probs.log()

    def entropy(self):
        per_trial = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return per_trial / self.probs
