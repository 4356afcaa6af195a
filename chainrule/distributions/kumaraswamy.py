import chainrule as torch
from chainrule import nan, Tensor
from chainrule.distributions import constraints
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import AffineTransform, PowerTransform
from chainrule.distributions.uniform import Uniform
from chainrule.distributions.utils import broadcast_all, euler_constant


__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X**n] = b * B(1 + n / a, b), through lgamma."""
    shifted = 1 + n / a
    log_beta = torch.lgamma(shifted) + torch.lgamma(b) - torch.lgamma(shifted + b)
    return b * torch.exp(log_beta)


class Kumaraswamy(TransformedDistribution):
    """(1 - (1 - U) ** (1 / concentration0)) ** (1 / concentration1) for U uniform."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        like = self.concentration0
        uniform = Uniform(torch.full_like(like, 0), torch.full_like(like, 1),
                          validate_args=validate_args)
        steps = [PowerTransform(exponent=self.concentration0.reciprocal()),
                 AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(uniform, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, new)

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        # in log space for accuracy; no interior mode unless both exceed 1
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = nan
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        second = _moments(self.concentration1, self.concentration0, 2)
        return second - torch.pow(self.mean, 2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        weight = 1 - a.reciprocal()
        rest = 1 - b.reciprocal()
        harmonic = torch.digamma(b + 1) + euler_constant  # H(b)
        return rest + weight * harmonic - torch.log(a) - torch.log(b)
