"""Beta distribution on [0, 1], held as a two-class Dirichlet."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.dirichlet import Dirichlet
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.distributions.utils import broadcast_all


__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Density x^(a-1) (1-x)^(b-1) / B(a, b) with a = concentration1, b = concentration0;
    it is the first coordinate of Dirichlet([a, b])."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, (int, float)) and isinstance(concentration0, (int, float)):
            pair = torch.tensor([float(concentration1), float(concentration0)])
        else:
            pair = torch.stack(broadcast_all(concentration1, concentration0), -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Beta, batch_shape, _instance, ())
        new._dirichlet = self._dirichlet.expand(new.batch_shape)
        return new

    # the parameters are the Dirichlet's two concentrations
    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])

    @property
    def mean(self):
        a = self.concentration1
        return a / (a + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return torch.lgamma(x) + torch.lgamma(y) - torch.lgamma(x + y)
