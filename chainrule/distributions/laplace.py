"""Laplace (double exponential) distribution with location `loc` and scale `scale`."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution


__all__ = ["Laplace"]


class Laplace(Distribution):
    """Density exp(-|x - loc| / scale) / (2 scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        batch_shape = self._broadcast_params(loc=loc, scale=scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def _signed_log_tail(self, u):
        # the inverse cdf around loc: loc - scale * sign(u) * log(1 - |u|), u in (-1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def rsample(self, sample_shape=torch.Size()):
        lowest = torch.finfo(self.loc.dtype).eps - 1    # keeps log1p(-|u|) finite
        u = self.loc.new(self._extended_shape(sample_shape)).uniform_(lowest, 1)
        return self._signed_log_tail(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        gap = value - self.loc
        return 0.5 - 0.5 * gap.sign() * torch.expm1(-gap.abs() / self.scale)

    def icdf(self, value):
        centred = value - 0.5
        return self.loc - self.scale * centred.sign() * torch.log1p(-2 * centred.abs())

    def entropy(self):
        return 1 + torch.log(2 * self.scale)
