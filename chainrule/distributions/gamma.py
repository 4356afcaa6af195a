"""Gamma distribution with shape `concentration` and `rate` (= 1 / scale)."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily


__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Density rate^k x^(k-1) e^(-rate x) / Gamma(k) for k = concentration."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        batch_shape = self._broadcast_params(concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        k, lam = self.concentration, self.rate
        return k / lam

    @property
    def mode(self):
        k, lam = self.concentration, self.rate
        return ((k - 1) / lam).clamp(min=0)

    @property
    def variance(self):
        k, lam = self.concentration, self.rate
        return k / lam.pow(2)

    def rsample(self, sample_shape=torch.Size()):
        full = self._extended_shape(sample_shape)
        draw = torch._standard_gamma(self.concentration.expand(full)) / self.rate.expand(full)
        # lift underflowed zeros to the smallest normal number, outside the graph
        draw.detach().clamp_(min=torch.finfo(draw.dtype).tiny)
        return draw

    def log_prob(self, value):
        k, lam = self.concentration, self.rate
        value = torch.as_tensor(value, dtype=lam.dtype, device=lam.device)
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(k, lam) + torch.xlogy(k - 1, value) - lam * value
                - torch.lgamma(k))

    def entropy(self):
        k = self.concentration
        return k - torch.log(self.rate) + torch.lgamma(k) + (1.0 - k) * torch.digamma(k)

    @property
    def _natural_params(self):
        k, lam = self.concentration, self.rate
        return (k - 1, -lam)

    def _log_normalizer(self, x, y):
        k = x + 1
        return torch.lgamma(k) + k * torch.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # the regularized lower incomplete gamma function P(k, rate x)
        k, lam = self.concentration, self.rate
        return torch.special.gammainc(k, lam * value)
