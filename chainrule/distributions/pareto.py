from typing import Optional  # noqa: F401 (in PyTorch's module namespace too)

from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.exponential import Exponential
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import AffineTransform, ExpTransform
from chainrule.distributions.utils import broadcast_all
from chainrule.types import _size  # noqa: F401 (likewise)


__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto type I: scale * exp(E) for E ~ Exponential(alpha)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        exponential = Exponential(self.alpha, validate_args=validate_args)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(exponential, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale, new.alpha = (p.expand(batch_shape) for p in (self.scale, self.alpha))
        return super().expand(batch_shape, new)

    @property
    def mean(self) -> Tensor:
        # infinite for alpha <= 1: clamping there makes the division give inf
        shape = self.alpha.clamp(min=1)
        return shape * self.scale / (shape - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        # infinite for alpha <= 2, likewise
        shape = self.alpha.clamp(min=2)
        return self.scale.pow(2) * shape / ((shape - 1).pow(2) * (shape - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
