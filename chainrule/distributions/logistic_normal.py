from chainrule import Tensor  # noqa: F401 (in PyTorch's module namespace too)
from chainrule.distributions import constraints, Independent  # noqa: F401 (likewise)
from chainrule.distributions.normal import Normal
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import StickBreakingTransform


__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Stick-breaking image on the simplex of an independent Normal(loc, scale) vector."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        normal = Normal(loc, scale, validate_args=validate_args)
        # stick-breaking needs a vector: a scalar base becomes a 1-vector
        if len(normal.batch_shape) == 0:
            normal = normal.expand([1])
        super().__init__(normal, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, new)

    # base_dist is Independent(Normal)
    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)
