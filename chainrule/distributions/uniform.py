"""Continuous uniform distribution on [low, high)."""
import chainrule as torch
from chainrule import nan
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution


__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on [low, high); low < high is checked elementwise."""

    has_rsample = True

    @property
    def arg_constraints(self):
        # each bound is constrained by the other one
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        batch_shape = self._broadcast_params(low=low, high=high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Uniform, batch_shape, _instance, ("low", "high"))

    def _width(self):
        return self.high - self.low

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return nan * self.high       # every point of the interval is a mode

    @property
    def stddev(self):
        return self._width() / 12**0.5

    @property
    def variance(self):
        return self._width().pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=torch.Size()):
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.low.dtype,
                       device=self.low.device)
        return self.low + u * self._width()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        above_low = self.low.le(value).type_as(self.low)
        below_high = self.high.gt(value).type_as(self.low)
        return torch.log(above_low.mul(below_high)) - torch.log(self._width())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / self._width()).clamp(min=0, max=1)

    def icdf(self, value):
        return value * self._width() + self.low

    def entropy(self):
        return torch.log(self._width())
