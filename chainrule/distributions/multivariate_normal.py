"""Multivariate normal distribution, given by a mean vector and one of a covariance matrix,
a precision matrix or a lower Cholesky factor of the covariance (scale_tril). Everything is
computed from the Cholesky factor, kept unbroadcast."""
import math

import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import _standard_normal, lazy_property


__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcasting batch dims."""
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """x^T (L L^T)^-1 x where L's batch shape broadcasts against x's. x is regrouped so the
    batch entries sharing one L are columns of a single triangular solve per L."""
    n = bx.size(-1)
    x_batch, l_batch = bx.shape[:-1], bL.shape[:-2]
    k = len(l_batch)
    outer = len(x_batch) - k
    # split each dim of x that lines up with a dim of L into (repeats, L's size)
    split = list(bx.shape[:outer])
    for l_size, x_size in zip(l_batch, x_batch[outer:]):
        split += [x_size // l_size, l_size]
    x = bx.reshape(split + [n])
    # outer dims, then the repeat dims, then L's dims, then the event dim
    repeats = [outer + 2 * i for i in range(k)]
    x = x.permute(list(range(outer)) + repeats + [d + 1 for d in repeats] + [outer + 2 * k])
    flat_L = bL.reshape(-1, n, n)
    columns = x.reshape(-1, flat_L.size(0), n).permute(1, 2, 0)
    solved = torch.linalg.solve_triangular(flat_L, columns, upper=False)
    squared = solved.pow(2).sum(-2).t()
    # back to the permuted layout, then to the interleaved one, then to x's batch shape
    squared = squared.reshape(x.shape[:-1])
    back = list(range(outer)) + [d for i in range(k) for d in (outer + i, outer + k + i)]
    return squared.permute(back).reshape(x_batch)


def _precision_to_scale_tril(P):
    """Lower Cholesky factor of P^-1 without forming the inverse: factor P with rows and
    columns reversed, which gives an upper factor of P, and invert that triangle."""
    flipped_factor = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    inv_factor = torch.transpose(torch.flip(flipped_factor, (-2, -1)), -2, -1)
    eye = torch.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return torch.linalg.solve_triangular(inv_factor, eye, upper=False)


_MATRIX_ARGS = ("covariance_matrix", "precision_matrix", "scale_tril")
_TO_TRIL = {"scale_tril": lambda m: m, "covariance_matrix": torch.linalg.cholesky,
            "precision_matrix": _precision_to_scale_tril}


class MultivariateNormal(Distribution):
    """N(loc, Sigma) with Sigma given as covariance_matrix, precision_matrix (its inverse)
    or scale_tril (L with Sigma = L L^T); exactly one of them."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: m for name, m in zip(
            _MATRIX_ARGS, (covariance_matrix, precision_matrix, scale_tril)) if m is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{label} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = torch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        # factor only after validation, so a bad matrix gets the constraint's error
        self._unbroadcasted_scale_tril = _TO_TRIL[name](matrix)

    def expand(self, batch_shape, _instance=None):
        event = self.event_shape
        new = self._expand_params(MultivariateNormal, batch_shape, _instance, ("loc",), event)
        for name in _MATRIX_ARGS:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(new.batch_shape + event + event))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        row_norms = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return row_norms.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=torch.Size()):
        noise = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                                 device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, noise)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        maha = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        dim = self._event_shape[0]
        return -0.5 * (dim * _LOG_2PI + maha) - self._half_log_det()

    def entropy(self):
        dim = self._event_shape[0]
        h = 0.5 * dim * (1.0 + _LOG_2PI) + self._half_log_det()
        return h.expand(self._batch_shape) if self._batch_shape else h
