import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.independent import Independent
from chainrule.distributions.transforms import ComposeTransform, Transform
from chainrule.distributions.utils import _sum_rightmost
from chainrule.types import _size


__all__ = ["TransformedDistribution"]


def _transform_list(transforms):
    if isinstance(transforms, Transform):
        return [transforms]
    if not isinstance(transforms, list):
        raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
    if not all(isinstance(t, Transform) for t in transforms):
        raise ValueError("transforms must be a Transform or a list of Transforms")
    return transforms


class TransformedDistribution(Distribution):
    """The law of ``f(X)`` for X drawn from ``base_distribution`` and f the chain of
    ``transforms``; densities by change of variables. Its event takes in every dim that the
    base event or any transform couples."""

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        base_event = len(base_distribution.event_shape)
        base_full = base_distribution.batch_shape + base_distribution.event_shape
        needed = chain.domain.event_dim
        if len(base_full) < needed:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {needed}, "
                f"but got {base_full}.")
        out_full = chain.forward_shape(base_full)
        # transforms with parameters may broadcast the base out to more batch entries
        in_full = chain.inverse_shape(out_full)
        if in_full != base_full:
            base_distribution = base_distribution.expand(in_full[: len(in_full) - base_event])
        if needed > base_event:
            base_distribution = Independent(base_distribution, needed - base_event)
        self.base_dist = base_distribution

        # the event is coupled either by the transforms or by the base distribution
        growth = chain.codomain.event_dim - needed
        event_ndim = max(chain.codomain.event_dim, base_event + growth)
        if len(out_full) < event_ndim:
            raise AssertionError(
                f"forward_shape length {len(out_full)} must be >= event_dim {event_ndim}")
        split = len(out_full) - event_ndim
        super().__init__(out_full[:split], out_full[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = torch.Size(batch_shape)
        base_full = batch_shape + self.event_shape
        for t in self.transforms[::-1]:
            base_full = t.inverse_shape(base_full)
        keep = len(base_full) - len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(base_full[:keep])
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape,
                                                     validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        extra = len(self.event_shape) - last.event_dim
        return constraints.independent(last, extra) if extra > 0 else last

    @property
    def has_rsample(self) -> bool:
        return self.base_dist.has_rsample

    def _push(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=torch.Size()):
        """A base sample pushed through the transforms, without gradients."""
        with torch.no_grad():
            return self._push(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape: _size = torch.Size()) -> Tensor:
        """A reparameterized base sample pushed through the transforms."""
        return self._push(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        """Base log-density of the pulled-back value minus each transform's log-Jacobian."""
        if self._validate_args:
            self._validate_sample(value)
        ndim = len(self.event_shape)
        result = 0.0
        y = value
        for t in self.transforms[::-1]:
            x = t.inv(y)
            ndim += t.domain.event_dim - t.codomain.event_dim
            jac = t.log_abs_det_jacobian(x, y)
            result = result - _sum_rightmost(jac, ndim - t.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return result + _sum_rightmost(base, ndim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """``value`` reflected about 1/2 where the transforms decrease, so cdf increases."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base cdf at the pulled-back value."""
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The base icdf pushed through the transforms."""
        return self._push(self.base_dist.icdf(self._monotonize_cdf(value)))
