import math

import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import broadcast_all, lazy_property


__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz and
# Stegun 9.8.1-9.8.4): in (x / 3.75)**2 below x = 3.75, in 3.75 / x above it.
# Row k holds the coefficients for I_k, lowest power first.
_BELOW = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
)
_ABOVE = (
    (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
     0.2635537e-1, -0.1647633e-1, 0.392377e-2),
    (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
     -0.2895312e-1, 0.1787654e-1, -0.420059e-2),
)


def _horner(t, coefficients):
    acc = coefficients[-1]
    for c in coefficients[-2::-1]:
        acc = c + t * acc
    return acc


def _log_bessel_i(x, order):
    """log I_order(x) for x > 0 and order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    t = x / 3.75
    t = t * t
    below = _horner(t, _BELOW[order])
    if order == 1:
        below = x.abs() * below
    above = x - 0.5 * x.log() + _horner(3.75 / x, _ABOVE[order]).log()
    return torch.where(x < 3.75, below.log(), above)


def _best_fisher(loc, concentration, r, out):
    """Best and Fisher's (1979) rejection sampler: draws until every entry of ``out``
    accepted a proposal, then shifts by ``loc`` into [-pi, pi)."""
    accepted = torch.zeros(out.shape, dtype=torch.bool, device=loc.device)
    while not accepted.all():
        u1, u2, u3 = torch.rand((3,) + out.shape, dtype=loc.dtype, device=loc.device).unbind()
        z = torch.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = concentration * (r - f)
        ok = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if ok.any():
            out = torch.where(ok, (u3 - 0.5).sign() * f.acos(), out)
            accepted = accepted | ok
    return (out + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Von Mises distribution on the circle; ``loc`` and values are angles in radians,
    any real read modulo 2 pi. Its mean and variance are the circular ones."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torch.Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        unnormalized = k * torch.cos(value - self.loc)
        return unnormalized - math.log(2 * math.pi) - _log_bessel_i(k, 0)

    # sampling runs in float64: in float32 the rejection loop can stall for tiny
    # concentrations (PyTorch issue 88443)
    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(torch.double)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(torch.double)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        k = self._concentration
        tau = 1 + (1 + 4 * k**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        exact = (1 + rho**2) / (2 * rho)
        # for tiny k the above cancels; its expansion about 0 to second order
        return torch.where(k < 1e-5, 1 / k + k, exact)

    @torch.no_grad()
    def sample(self, sample_shape=torch.Size()):
        """Samples by Best and Fisher's rejection method, in float64."""
        out = torch.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype,
                          device=self.loc.device)
        drawn = _best_fisher(self._loc, self._concentration, self._proposal_r, out)
        return drawn.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            # subclasses with their own __init__: rebuild from expanded parameters
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration,
                              validate_args=self.__dict__.get("_validate_args"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        k = self.concentration
        # 1 - I1(k) / I0(k)
        return 1 - (_log_bessel_i(k, 1) - _log_bessel_i(k, 0)).exp()
