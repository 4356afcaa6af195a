"""Poisson distribution: P(X = k) = rate^k e^-rate / k!."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.distributions.utils import broadcast_all


__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Counts with mean and variance `rate`."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        super().__init__(self._broadcast_params(rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=torch.Size()):
        full = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.poisson(self.rate.expand(full))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lam, k = broadcast_all(self.rate, value)
        return k.xlogy(lam) - lam - (k + 1).lgamma()

    @property
    def _natural_params(self):
        return (torch.log(self.rate),)

    def _log_normalizer(self, x):
        return torch.exp(x)
