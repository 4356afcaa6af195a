import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.exponential import Exponential
from chainrule.distributions.gumbel import euler_constant
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import AffineTransform, PowerTransform
from chainrule.distributions.utils import broadcast_all


__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """scale * E ** (1 / concentration) for E ~ Exponential(1)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        unit = Exponential(torch.ones_like(self.scale), validate_args=validate_args)
        super().__init__(unit, self._steps(), validate_args=validate_args)

    def _steps(self):
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape, _instance=None):
        # the transforms hold the parameters, so they are rebuilt at the new shape
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        unit = self.base_dist.expand(batch_shape)
        super(Weibull, new).__init__(unit, new._steps(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * torch.exp(torch.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        inv_k = self.concentration_reciprocal
        second = torch.exp(torch.lgamma(1 + 2 * inv_k))
        return self.scale.pow(2) * (second - torch.exp(2 * torch.lgamma(1 + inv_k)))

    def entropy(self):
        inv_k = self.concentration_reciprocal
        return euler_constant * (1 - inv_k) + torch.log(self.scale * inv_k) + 1
