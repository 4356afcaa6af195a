import math
from numbers import Number, Real

import chainrule as torch
from chainrule import inf, nan
from chainrule.distributions import constraints, Distribution
from chainrule.distributions.utils import broadcast_all


__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto with ``loc``, ``scale`` and shape ``concentration`` (xi):
    survival (1 + xi z) ** (-1 / xi) for z = (x - loc) / scale, exp(-z) at xi = 0.
    Concentration 0 gives the Exponential, -1 the Uniform, > 0 a shifted Pareto."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalars = all(isinstance(p, Number) for p in (loc, scale, concentration))
        shape = torch.Size() if scalars else self.loc.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        size = torch.Size(batch_shape)
        for name in ("loc", "scale", "concentration"):
            setattr(new, name, getattr(self, name).expand(size))
        Distribution.__init__(new, size, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=torch.Size()):
        like = self.loc
        u = torch.rand(self._extended_shape(sample_shape), dtype=like.dtype, device=like.device)
        return self.icdf(u)

    def _split_at_zero(self, zero):
        """(where concentration is ~0, concentration with those entries set to 1): the
        xi != 0 formulas get a harmless divisor where the xi = 0 limit is used instead."""
        xi = self.concentration
        at_zero = torch.isclose(xi, zero)
        return at_zero, torch.where(at_zero, torch.ones_like(xi), xi)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        # PyTorch compares with a float32 zero here (float64 parameters then fail)
        at_zero, xi = self._split_at_zero(torch.tensor(0.0))
        power = 1 / xi + torch.ones_like(z)
        general = torch.where(power == 0, power, power * torch.log1p(xi * z))
        scale = self.scale
        log_scale = math.log(scale) if isinstance(scale, Real) else scale.log()
        return -log_scale - torch.where(at_zero, z, general)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._split_at_zero(torch.tensor(0.0))
        return torch.where(at_zero, -z, -torch.log1p(xi * z) / xi)

    def log_cdf(self, value):
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torch.exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, xi = self._split_at_zero(torch.zeros_like(self.concentration))
        log_survival = torch.log1p(-value)
        general = self.loc + self.scale / xi * torch.expm1(-xi * log_survival)
        exponential = self.loc - self.scale * log_survival
        return torch.where(at_zero, exponential, general)

    @property
    def mean(self):
        # finite only for concentration < 1
        finite = self.concentration < 1
        xi = torch.where(finite, self.concentration, 0.5)
        return torch.where(finite, self.loc + self.scale / (1 - xi), nan)

    @property
    def variance(self):
        # finite only for concentration < 1/2
        finite = self.concentration < 0.5
        xi = torch.where(finite, self.concentration, 0.25)
        value = self.scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi))
        return torch.where(finite, value, nan)

    def entropy(self):
        per_entry = torch.log(self.scale) + self.concentration + 1
        return torch.broadcast_to(per_entry, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        # bounded above by loc - scale / xi when xi < 0
        xi = self.concentration
        upper = torch.where(xi < 0, self.loc - self.scale / xi, inf)
        return constraints.interval(self.loc, upper)
