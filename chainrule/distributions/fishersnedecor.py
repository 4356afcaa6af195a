"""Fisher-Snedecor (F) distribution with `df1` and `df2` degrees of freedom."""
import chainrule as torch
from chainrule import nan
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.gamma import Gamma


__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The ratio X1 / X2 of Gamma(df_i / 2, df_i) variables, i.e. (Chi2(df1) / df1) /
    (Chi2(df2) / df2)."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        batch_shape = self._broadcast_params(df1=df1, df2=df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1 = self._gamma1.expand(new.batch_shape)
        new._gamma2 = self._gamma2.expand(new.batch_shape)
        return new

    def _df2_above(self, limit):
        # df2 with nan wherever the moment is undefined
        d2 = self.df2.clone(memory_format=torch.contiguous_format)
        d2[d2 <= limit] = nan
        return d2

    @property
    def mean(self):
        d2 = self._df2_above(2)
        return d2 / (d2 - 2)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        peak = (d1 - 2) / d1 * d2 / (d2 + 2)
        peak[d1 <= 2] = nan
        return peak

    @property
    def variance(self):
        d1, d2 = self.df1, self._df2_above(4)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=torch.Size(())):
        full = self._extended_shape(sample_shape)
        num = self._gamma1.rsample(sample_shape).view(full)
        den = self._gamma2.rsample(sample_shape).view(full)
        smallest = torch.finfo(den.dtype).tiny
        den.clamp_(min=smallest)          # keep the ratio finite and positive
        ratio = num / den
        ratio.clamp_(min=smallest)
        return ratio

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        d_ratio = self.df1 / self.df2
        log_inv_beta = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        log_kernel = h1 * d_ratio.log() + (h1 - 1) * torch.log(value)
        return log_inv_beta + log_kernel - (h1 + h2) * torch.log1p(d_ratio * value)
