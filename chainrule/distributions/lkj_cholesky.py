import math

import chainrule as torch
from chainrule import Tensor  # noqa: F401 (in PyTorch's module namespace too)
from chainrule.distributions import Beta, constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import broadcast_all


__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ law of the Cholesky factor L of a dim x dim correlation matrix: the density of
    L L^T is proportional to det(L L^T) ** (concentration - 1). Sampled with the onion
    method of Lewandowski, Kurowicka and Joe (2009), vectorized over rows."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        self.concentration = broadcast_all(concentration)[0]
        conc = self.concentration
        # row i of the factor has squared off-diagonal norm ~ Beta(i / 2, eta + (dim - 2 - i) / 2)
        # (row 0 takes the same law as row 1; its draw is not used)
        steps = torch.arange(dim - 1, dtype=conc.dtype, device=conc.device)
        steps = torch.cat([steps.new_zeros((1,)), steps])
        eta_row = conc + 0.5 * (dim - 2)
        self._beta = Beta(steps + 0.5, eta_row.unsqueeze(-1) - 0.5 * steps)
        super().__init__(conc.size(), torch.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        size = torch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(size)
        new._beta = self._beta.expand(size + (self.dim,))
        Distribution.__init__(new, size, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=torch.Size()):
        # each row: a uniform direction in the strictly lower part scaled to norm sqrt(y),
        # then the diagonal entry that completes the row to unit norm
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        gauss = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                            device=y.device).tril(-1)
        direction = gauss / gauss.norm(dim=-1, keepdim=True)
        direction[..., 0, :].fill_(0.0)  # row 0 was 0 / 0
        rows = torch.sqrt(y) * direction
        left = 1 - torch.sum(rows**2, dim=-1)
        rows += torch.diag_embed(torch.clamp(left, min=torch.finfo(rows.dtype).tiny).sqrt())
        return rows

    def log_prob(self, value):
        # density of L: prod_i L_ii ** (2 (eta - 1) + dim - i) for i = 2..dim (1-based),
        # the second part being the Jacobian of L -> L L^T
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        powers = torch.arange(2, self.dim + 1, device=self.concentration.device)
        powers = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - powers
        unnormalized = torch.sum(powers * diag.log(), dim=-1)
        # log normalizer (Lewandowski et al. 2009, p. 1999) via the multivariate lgamma,
        # whose pi term is short of (dim - 1) log(pi) / 2
        k = self.dim - 1
        alpha = self.concentration + 0.5 * k
        log_norm = 0.5 * k * math.log(math.pi) + torch.mvlgamma(alpha - 0.5, k)
        return unnormalized - (log_norm - torch.lgamma(alpha) * k)
