import math

import chainrule as torch
from chainrule import inf, Tensor  # noqa: F401 (in PyTorch's module namespace too)
from chainrule.distributions import constraints  # noqa: F401 (likewise)
from chainrule.distributions.cauchy import Cauchy
from chainrule.distributions.half_normal import _FoldedAtZero
from chainrule.distributions.transformed_distribution import TransformedDistribution  # noqa
from chainrule.distributions.transforms import AbsTransform  # noqa: F401 (likewise)


__all__ = ["HalfCauchy"]


class HalfCauchy(_FoldedAtZero):
    """|X| for X ~ Cauchy(0, scale)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, new)

    def _as_value(self, value):
        like = self.base_dist.scale
        return torch.as_tensor(value, dtype=like.dtype, device=like.device)

    @property
    def mean(self) -> Tensor:
        like = self.scale
        return torch.full(self._extended_shape(), math.inf, dtype=like.dtype,
                          device=like.device)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance
