"""Multivariate normal whose covariance is low rank plus diagonal, W W^T + D. Determinant
and inverse go through the small capacitance matrix C = I + W^T D^-1 W (matrix determinant
lemma and Woodbury identity), so nothing of size event x event is factored."""
import math

import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.multivariate_normal import _batch_mahalanobis, _batch_mv
from chainrule.distributions.utils import _standard_normal, lazy_property


__all__ = ["LowRankMultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def _plus_identity_(K):
    """Add 1 to the diagonal of each (contiguous) square matrix of K, in place."""
    side = K.size(-1)
    K.view(-1, side * side)[:, :: side + 1] += 1
    return K


def _wt_dinv(W, D):
    return W.mT / D.unsqueeze(-2)


def _batch_capacitance_tril(W, D):
    """Cholesky factor of C = I + W^T D^-1 W."""
    return torch.linalg.cholesky(_plus_identity_(torch.matmul(_wt_dinv(W, D), W).contiguous()))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log|W W^T + D| = log|C| + log|D|."""
    log_det_c = 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    return log_det_c + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by Woodbury: x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2."""
    projected = _batch_mv(_wt_dinv(W, D), x)
    diagonal_part = (x.pow(2) / D).sum(-1)
    return diagonal_part - _batch_mahalanobis(capacitance_tril, projected)


class LowRankMultivariateNormal(Distribution):
    """N(loc, cov_factor cov_factor^T + diag(cov_diag)); cov_factor has shape
    batch + (n, rank), cov_diag batch + (n,)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        # broadcast the batch dims of all three, loc and cov_diag as one-column matrices
        try:
            loc_col, self.cov_factor, diag_col = torch.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}") from e
        self.loc, self.cov_diag = loc_col[..., 0], diag_col[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(LowRankMultivariateNormal, batch_shape, _instance,
                                  ("loc", "cov_diag"), self.event_shape)
        rank = self.cov_factor.shape[-1:]
        new.cov_factor = self.cov_factor.expand(new.batch_shape + self.event_shape + rank)
        for name in ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag",
                     "_capacitance_tril"):
            setattr(new, name, getattr(self, name))
        return new

    def _parts(self):
        return self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        W, D = self._parts()
        return (W.pow(2).sum(-1) + D).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2; the middle factor has all
        # eigenvalues >= 1, so its Cholesky factorization is well conditioned
        W, D = self._parts()
        sqrt_d = D.sqrt().unsqueeze(-1)
        scaled = W / sqrt_d
        middle = _plus_identity_(torch.matmul(scaled, scaled.mT).contiguous())
        return (sqrt_d * torch.linalg.cholesky(middle)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W, D = self._parts()
        return (torch.matmul(W, W.mT) + torch.diag_embed(D)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: (W W^T + D)^-1 = D^-1 - A^T A with A = L_C^-1 W^T D^-1
        W, D = self._parts()
        A = torch.linalg.solve_triangular(self._capacitance_tril, _wt_dinv(W, D), upper=False)
        return (torch.diag_embed(D.reciprocal()) - A.mT @ A).expand(self._matrix_shape())

    def rsample(self, sample_shape=torch.Size()):
        W, D = self._parts()
        full = self._extended_shape(sample_shape)
        like = dict(dtype=self.loc.dtype, device=self.loc.device)
        noise_w = _standard_normal(full[:-1] + self.cov_factor.shape[-1:], **like)
        noise_d = _standard_normal(full, **like)
        return self.loc + _batch_mv(W, noise_w) + D.sqrt() * noise_d

    def _log_det(self):
        return _batch_lowrank_logdet(*self._parts(), self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        maha = _batch_lowrank_mahalanobis(*self._parts(), value - self.loc,
                                          self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + self._log_det() + maha)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + _LOG_2PI) + self._log_det())
        return h.expand(self._batch_shape) if self._batch_shape else h
