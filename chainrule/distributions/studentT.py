"""Student's t distribution with `df` degrees of freedom, location `loc`, scale `scale`."""
import math

import chainrule as torch
from chainrule import inf, nan
from chainrule.distributions import Chi2, constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import _standard_normal


__all__ = ["StudentT"]

_HALF_LOG_PI = 0.5 * math.log(math.pi)


class StudentT(Distribution):
    """loc + scale * T with T a standard t variable: N(0, 1) / sqrt(Chi2(df) / df)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        batch_shape = self._broadcast_params(df=df, loc=loc, scale=scale)
        self._chi2 = Chi2(self.df)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(new.batch_shape)
        return new

    @property
    def mean(self):
        out = self.loc.clone(memory_format=torch.contiguous_format)
        out[self.df <= 1] = nan          # undefined for df <= 1
        return out

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        nu = self.df
        out = nu.clone(memory_format=torch.contiguous_format)
        finite = nu > 2
        out[finite] = self.scale[finite].pow(2) * nu[finite] / (nu[finite] - 2)
        out[(nu <= 2) & (nu > 1)] = inf
        out[nu <= 1] = nan
        return out

    def rsample(self, sample_shape=torch.Size()):
        nu = self.df
        normal = _standard_normal(self._extended_shape(sample_shape), dtype=nu.dtype,
                                  device=nu.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (normal * torch.rsqrt(chi2 / nu))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        z = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * nu.log() + _HALF_LOG_PI
                    + torch.lgamma(0.5 * nu) - torch.lgamma(0.5 * (nu + 1.0)))
        return -0.5 * (nu + 1.0) * torch.log1p(z**2.0 / nu) - log_norm

    def entropy(self):
        nu = self.df
        log_beta = torch.lgamma(0.5 * nu) + math.lgamma(0.5) - torch.lgamma(0.5 * (nu + 1))
        digamma_gap = torch.digamma(0.5 * (nu + 1)) - torch.digamma(0.5 * nu)
        return self.scale.log() + 0.5 * (nu + 1) * digamma_gap + 0.5 * nu.log() + log_beta
