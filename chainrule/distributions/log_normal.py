from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.normal import Normal
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import ExpTransform


__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        normal = Normal(loc, scale, validate_args=validate_args)
        super().__init__(normal, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(LogNormal, _instance))

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        # the log-Jacobian of exp is x, whose mean is loc
        return self.base_dist.entropy() + self.loc
