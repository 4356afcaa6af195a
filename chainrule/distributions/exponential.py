"""Exponential distribution with rate `rate` (= 1 / scale)."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily


__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Density rate * exp(-rate x) on x >= 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative   # zero included, as PyTorch's
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        super().__init__(self._broadcast_params(rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=torch.Size()):
        unit = self.rate.new(self._extended_shape(sample_shape)).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lam = self.rate
        return lam.log() - lam * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lam = self.rate
        return 1 - torch.exp(-lam * value)

    def icdf(self, value):
        survival_log = torch.log1p(-value)
        return -survival_log / self.rate

    def entropy(self):
        log_rate = torch.log(self.rate)
        return 1.0 - log_rate

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -torch.log(-x)
