import math

import chainrule as torch
from chainrule import inf, Tensor
from chainrule.distributions import constraints
from chainrule.distributions.normal import Normal
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import AbsTransform


__all__ = ["HalfNormal"]


class _FoldedAtZero(TransformedDistribution):
    """|X| for X of a distribution symmetric about 0 with a ``scale`` (HalfNormal,
    HalfCauchy): density and cdf doubled on [0, inf)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, symmetric, validate_args):
        super().__init__(symmetric, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.scale)

    def _as_value(self, value):
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        doubled = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, doubled, -inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_FoldedAtZero):
    """|X| for X ~ Normal(0, scale)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, new)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
