import math
import warnings

import chainrule as torch
from chainrule import nan, Tensor
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.distributions.multivariate_normal import _precision_to_scale_tril
from chainrule.distributions.utils import lazy_property
from chainrule.types import _Number, _size, Number  # noqa: F401 (as PyTorch's namespace)


__all__ = ["Wishart"]

_LOG2 = math.log(2)
_MATRIX_ARGS = ("covariance_matrix", "precision_matrix", "scale_tril")


def _mvdigamma(x, p):
    """Multivariate digamma: sum over i < p of digamma(x - i / 2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = torch.arange(p, dtype=x.dtype, device=x.device).div(2)
    return torch.digamma(x.unsqueeze(-1) - halves.expand(x.shape + (-1,))).sum(-1)


def _bartlett_chi2(df, n, like, batch_shape):
    """Chi2 laws of the squared diagonal of the Bartlett factor: df - i in row i."""
    rows = torch.arange(n, dtype=like.dtype, device=like.device)
    return torch.distributions.chi2.Chi2(df=df.unsqueeze(-1) - rows.expand(batch_shape + (-1,)))


def _batch_dim_indices(batch_shape):
    # the batch dims counted from the right: -1, -2, ...
    return [-(k + 1) for k in range(len(batch_shape))]


class Wishart(ExponentialFamily):
    """Wishart distribution over positive-definite matrices with ``df`` degrees of freedom
    and scale given by exactly one of ``covariance_matrix``, ``precision_matrix`` or
    ``scale_tril`` (everything is computed from the Cholesky factor). Samples use the
    Bartlett decomposition, redrawn a few times if singular."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        n = self.event_shape[-1]
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(n - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {k: v for k, v in zip(_MATRIX_ARGS, (covariance_matrix, precision_matrix,
                                                     scale_tril)) if v is not None}
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, _Number):
            batch_shape = torch.Size(matrix.shape[:-2])
            self.df = torch.tensor(df, dtype=matrix.dtype, device=matrix.device)
        else:
            batch_shape = torch.broadcast_shapes(matrix.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = matrix.shape[-2:]
        n = event_shape[-1]
        if self.df.le(n - 1).any():
            raise ValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {n - 1}.")
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        if self.df.lt(n).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = _batch_dim_indices(self._batch_shape)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        self._dist_chi2 = _bartlett_chi2(self.df, n, self._unbroadcasted_scale_tril,
                                         batch_shape)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        size = torch.Size(batch_shape)
        full = size + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(full)
        new.df = self.df.expand(size)
        new._batch_dims = _batch_dim_indices(size)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(full))
        new._dist_chi2 = _bartlett_chi2(new.df, self.event_shape[-1],
                                        new._unbroadcasted_scale_tril, size)
        ExponentialFamily.__init__(new, size, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full_shape(self):
        return self._batch_shape + self._event_shape

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._full_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        low = self._unbroadcasted_scale_tril
        return (low @ low.transpose(-2, -1)).expand(self._full_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        low = self._unbroadcasted_scale_tril
        eye = torch.eye(self._event_shape[-1], device=low.device, dtype=low.dtype)
        return torch.cholesky_solve(eye, low).expand(self._full_shape())

    def _per_matrix(self, t):
        # a batch-shaped tensor viewed so that it scales whole matrices
        return t.view(self._batch_shape + (1, 1))

    @property
    def mean(self) -> Tensor:
        return self._per_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = nan  # no mode unless df > n + 1
        return self._per_matrix(factor) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        cov = self.covariance_matrix
        d = cov.diagonal(dim1=-2, dim2=-1)
        return self._per_matrix(self.df) * (cov.pow(2) + torch.einsum("...i,...j->...ij", d, d))

    def _bartlett_sampling(self, sample_shape=torch.Size()):
        n = self._event_shape[-1]
        # the Bartlett factor A: sqrt(chi2) on the diagonal, standard normals below it
        root = self._dist_chi2.rsample(sample_shape).sqrt()
        factor = root.clamp(min=torch.finfo(root.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        rows, cols = torch.tril_indices(n, n, offset=-1)
        below = torch.Size(sample_shape) + self._batch_shape + (int(n * (n - 1) / 2),)
        factor[..., rows, cols] = torch.randn(below, dtype=factor.dtype, device=factor.device)
        la = self._unbroadcasted_scale_tril @ factor
        return la @ la.transpose(-2, -1)

    def _per_sample(self, flags):
        # one flag per sample: any matrix of its batch
        return flags.amax(self._batch_dims) if self._batch_shape else flags

    def rsample(self, sample_shape=torch.Size(), max_try_correction=None):
        """Bartlett samples; singular ones (possible for small df) are redrawn up to
        ``max_try_correction`` (default 10) times and may remain singular."""
        tries = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sampling(torch.Size(sample_shape))
        # PyTorch marks the samples the support check *accepts* on the first pass
        redo = self._per_sample(self.support.check(sample))
        if redo.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(tries):
                fresh = self._bartlett_sampling(redo[redo].shape)
                sample[redo] = fresh
                redo[redo.clone()] = self._per_sample(~self.support.check(fresh))
                if not redo.any():
                    break
        return sample

    def _half_log_det_scale(self):
        # p log(2) / 2 + log det(L), i.e. half the log det of 2 * covariance
        n = self._event_shape[-1]
        diag = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1)
        return n * _LOG2 / 2 + diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, n = self.df, self._event_shape[-1]
        trace = torch.cholesky_solve(value, self._unbroadcasted_scale_tril)
        trace = trace.diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * self._half_log_det_scale() - torch.mvlgamma(nu / 2, p=n)
                + (nu - n - 1) / 2 * torch.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, n = self.df, self._event_shape[-1]
        return ((n + 1) * self._half_log_det_scale() + torch.mvlgamma(nu / 2, p=n)
                - (nu - n - 1) / 2 * _mvdigamma(nu / 2, p=n) + nu * n / 2)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        n = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - n - 1) / 2

    def _log_normalizer(self, x, y):
        n = self._event_shape[-1]
        shifted = y + (n + 1) / 2
        log_det = -torch.linalg.slogdet(-2 * x).logabsdet + _LOG2 * n
        return shifted * log_det + torch.mvlgamma(shifted, p=n)
