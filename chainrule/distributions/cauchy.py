"""Cauchy (Lorentz) distribution: median `loc`, half width at half maximum `scale`."""
import math

import chainrule as torch
from chainrule import inf, nan
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution


__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Density 1 / (pi scale (1 + ((x - loc) / scale)^2)); it has no mean and an infinite
    variance."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = self._broadcast_params(loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Cauchy, batch_shape, _instance, ("loc", "scale"))

    def _filled(self, number):
        return torch.full(self._extended_shape(), number, dtype=self.loc.dtype,
                          device=self.loc.device)

    @property
    def mean(self):
        return self._filled(nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._filled(inf)

    def rsample(self, sample_shape=torch.Size()):
        standard = self.loc.new(self._extended_shape(sample_shape)).cauchy_()
        return self.loc + standard * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z**2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
