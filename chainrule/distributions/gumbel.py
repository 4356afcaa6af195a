import math

import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import AffineTransform, ExpTransform
from chainrule.distributions.uniform import Uniform
from chainrule.distributions.utils import broadcast_all, euler_constant
from chainrule.types import _Number


__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """loc - scale * log(-log(U)) for U uniform on (0, 1)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = torch.finfo(self.loc.dtype)
        # U stays off 0 and 1 so that both logs are finite
        low, high = info.tiny, 1 - info.eps
        if not (isinstance(loc, _Number) and isinstance(scale, _Number)):
            low = torch.full_like(self.loc, low)
            high = torch.full_like(self.loc, high)
        uniform = Uniform(low, high, validate_args=validate_args)
        log = ExpTransform().inv
        steps = [log, AffineTransform(loc=0, scale=-torch.ones_like(self.scale)),
                 ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(uniform, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc, new.scale = (p.expand(batch_shape) for p in (self.loc, self.scale))
        return super().expand(batch_shape, new)

    def log_prob(self, value):
        # the closed form: the chain of transforms loses precision in the tails
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
