import math

import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from chainrule.nn.functional import binary_cross_entropy_with_logits
from chainrule.types import _Number, _size, Number  # noqa: F401 (as PyTorch's namespace)


__all__ = ["ContinuousBernoulli"]


def _gap_log(p):
    # log(1 - p) - log(p), the (negated) natural parameter
    return torch.log1p(-p) - torch.log(p)


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli on [0, 1] (Loaiza-Ganem and Cunningham, 2019): density
    proportional to probs**x (1 - probs)**(1 - x). For probs inside ``lims`` (around 1/2)
    the closed forms cancel badly, so Taylor expansions about 1/2 are used there."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is None:
            given = logits
            self.logits = self._param = broadcast_all(logits)[0]
        else:
            given = probs
            self.probs = broadcast_all(probs)[0]
            # checked here: once clamped away from 0 and 1 any value would pass
            if validate_args is not None and not self._valid_probs():
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        shape = torch.Size() if isinstance(given, _Number) else self._param.size()
        super().__init__(shape, validate_args=validate_args)

    def _valid_probs(self):
        return self.arg_constraints["probs"].check(self.probs).all()

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        size = torch.Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new._param = self.__dict__[name].expand(size)
                setattr(new, name, new._param)
        ExponentialFamily.__init__(new, size, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _stable(self):
        """Where probs is outside ``lims``, so the closed forms are accurate."""
        low, high = self._lims
        return torch.max(torch.le(self.probs, low), torch.gt(self.probs, high))

    def _cut_probs(self):
        # probs where stable, a harmless stand-in elsewhere (its results get discarded)
        p = self.probs
        return torch.where(self._stable(), p, self._lims[0] * torch.ones_like(p))

    def _cont_bern_log_norm(self):
        """log C(probs), C the normalizing constant."""
        p = self._cut_probs()
        below = torch.where(torch.le(p, 0.5), p, torch.zeros_like(p))
        above = torch.where(torch.ge(p, 0.5), p, torch.ones_like(p))
        # log |2 p - 1|, each branch fed only values it is finite for
        log_dist = torch.where(torch.le(p, 0.5), torch.log1p(-2.0 * below),
                               torch.log(2.0 * above - 1.0))
        exact = torch.log(torch.abs(_gap_log(p))) - log_dist
        d2 = torch.pow(self.probs - 0.5, 2)
        series = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d2) * d2
        return torch.where(self._stable(), exact, series)

    @property
    def mean(self) -> Tensor:
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / _gap_log(p)
        d = self.probs - 0.5
        series = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(d, 2)) * d
        return torch.where(self._stable(), exact, series)

    @property
    def stddev(self) -> Tensor:
        return torch.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        p = self._cut_probs()
        exact = (p * (p - 1.0) / torch.pow(1.0 - 2.0 * p, 2)
                 + 1.0 / torch.pow(_gap_log(p), 2))
        d2 = torch.pow(self.probs - 0.5, 2)
        series = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * d2) * d2
        return torch.where(self._stable(), exact, series)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    def _uniform(self, sample_shape):
        p = self.probs
        return torch.rand(self._extended_shape(sample_shape), dtype=p.dtype, device=p.device)

    def sample(self, sample_shape=torch.Size()):
        u = self._uniform(sample_shape)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=torch.Size()):
        return self.icdf(self._uniform(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lg, value = broadcast_all(self.logits, value)
        bce = binary_cross_entropy_with_logits(lg, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        ratio = (torch.pow(p, value) * torch.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = torch.where(self._stable(), ratio, value)
        upper = torch.where(torch.ge(value, 1.0), torch.ones_like(value), inside)
        return torch.where(torch.le(value, 0.0), torch.zeros_like(value), upper)

    def icdf(self, value):
        p = self._cut_probs()
        num = torch.log1p(-p + value * (2.0 * p - 1.0)) - torch.log1p(-p)
        return torch.where(self._stable(), num / (torch.log(p) - torch.log1p(-p)), value)

    def entropy(self):
        log_q = torch.log1p(-self.probs)
        log_p = torch.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter x (the logits)."""
        low, high = self._lims[0] - 0.5, self._lims[1] - 0.5
        stable = torch.max(torch.le(x, low), torch.gt(x, high))
        cut = torch.where(stable, x, low * torch.ones_like(x))
        exact = torch.log(torch.abs(torch.special.expm1(cut))) - torch.log(torch.abs(cut))
        series = 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0
        return torch.where(stable, exact, series)
