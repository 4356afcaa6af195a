import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.gamma import Gamma
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import PowerTransform


__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        gamma = Gamma(concentration, rate, validate_args=validate_args)
        reciprocal = PowerTransform(-gamma.rate.new_ones(()))
        super().__init__(gamma, reciprocal, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, new)

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        return torch.where(a > 1, self.rate / (a - 1), torch.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        finite = self.rate.square() / ((a - 1).square() * (a - 2))
        return torch.where(a > 2, finite, torch.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
