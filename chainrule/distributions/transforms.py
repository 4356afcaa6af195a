"""Invertible maps between constrained spaces with their log-Jacobians (PyTorch's
torch.distributions.transforms). With ``cache_size=1`` a transform remembers its latest
(x, y) pair, so inverting a value it produced returns the original tensor itself."""

import math

import chainrule as torch
import chainrule.nn.functional as F
from chainrule import Tensor  # noqa: F401 (in PyTorch's module namespace too)
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution  # noqa: F401 (likewise)
from chainrule.distributions.utils import (
    _sum_rightmost,
    broadcast_all,
    lazy_property,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)
from chainrule.nn.functional import pad, softplus
from chainrule.types import _Number


__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]

_NOT_INVERTED = "_inv must not be None"
_dependent = constraints.dependent_property
# domains/codomains that depend on the instance's parameters
_continuous = constraints.dependent_property(is_discrete=False)


def _at_least(shape, ndim):
    if len(shape) < ndim:
        raise ValueError("Too few dimensions on input")


def _broadcast_with(shape, *params):
    """``shape`` broadcast against the shapes of tensor parameters (numbers count as ())."""
    return torch.broadcast_shapes(shape, *(getattr(p, "shape", ()) for p in params))


def _instances_equal(cls):
    """Class decorator: a transform without parameters equals every instance of its class."""
    cls.__eq__ = lambda self, other: isinstance(other, cls)
    return cls


class Transform:
    """Base of invertible maps with a computable ``log |dy/dx|``.

    Subclasses give ``_call`` and/or ``_inverse`` (and ``log_abs_det_jacobian`` when
    bijective); ``cache_size`` 1 keeps the latest (x, y) pair, 0 keeps nothing."""

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size:
            self._cached_x_y = None, None

    def __getstate__(self):
        # the inverse points back at us; it is rebuilt on demand after unpickling
        return {**self.__dict__, "_inv": None}

    @property
    def event_dim(self):
        dims = self.domain.event_dim
        if dims != self.codomain.event_dim:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return dims

    @property
    def inv(self):
        """The inverse transform (created once, so ``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """Sign of the Jacobian's determinant, for bijective transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return self._recreate(cache_size)

    def _recreate(self, cache_size):
        # transforms whose constructor takes arguments say how to rebuild themselves
        if type(self).__init__ is not Transform.__init__:
            raise NotImplementedError(f"{type(self)}.with_cache is not implemented")
        return type(self)(cache_size=cache_size)

    def __eq__(self, other):
        return self is other

    def __call__(self, x):
        """y = t(x)."""
        return self._through_cache(x, forward=True)

    def _inv_call(self, y):
        """x = t.inv(y)."""
        return self._through_cache(y, forward=False)

    def _through_cache(self, value, forward):
        compute = self._call if forward else self._inverse
        if not self._cache_size:
            return compute(value)
        seen_x, seen_y = self._cached_x_y
        if value is (seen_x if forward else seen_y):
            return seen_y if forward else seen_x
        result = compute(value)
        self._cached_x_y = (value, result) if forward else (result, value)
        return result

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """log |dy/dx| at the pair (x, y)."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        """Output shape for an input of ``shape`` (unchanged unless overridden)."""
        return shape

    def inverse_shape(self, shape):
        """Input shape for an output of ``shape`` (unchanged unless overridden)."""
        return shape


class _InverseTransform(Transform):
    """``t.inv``: runs ``t`` backwards, sharing its cache."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    def _base(self):
        if self._inv is None:
            raise AssertionError(_NOT_INVERTED)
        return self._inv

    @_continuous
    def domain(self):
        return self._base().codomain

    @_continuous
    def codomain(self):
        return self._base().domain

    @property
    def bijective(self):
        return self._base().bijective

    @property
    def sign(self):
        return self._base().sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self._base().with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._base() == other._inv

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._base()._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._base().log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


def _widest_event_dim(steps, start):
    """Event dims a chain must treat as one event at its far end: ``steps`` are the parts'
    (dims read, dims written), walked from the end whose event dims are ``start``."""
    dims = start
    for read, written in steps:
        dims = max(dims + read - written, read)
    return dims


def _as_event(constraint, dims):
    extra = dims - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied one after another (each caches for itself)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @_continuous
    def domain(self):
        if not self.parts:
            return constraints.real
        steps = [(p.domain.event_dim, p.codomain.event_dim) for p in reversed(self.parts)]
        dims = _widest_event_dim(steps, self.parts[-1].codomain.event_dim)
        return _as_event(self.parts[0].domain, dims)

    @_continuous
    def codomain(self):
        if not self.parts:
            return constraints.real
        steps = [(p.codomain.event_dim, p.domain.event_dim) for p in self.parts]
        dims = _widest_event_dim(steps, self.parts[0].domain.event_dim)
        return _as_event(self.parts[-1].codomain, dims)

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        total = 1
        for p in self.parts:
            total = total * p.sign
        return total

    @property
    def inv(self):
        if self._inv is None:
            backwards = ComposeTransform([p.inv for p in self.parts[::-1]])
            backwards._inv = self
            self._inv = backwards
        return self._inv

    def _recreate(self, cache_size):
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        # the values between the parts; cached parts hand them back without recomputing
        values = [x]
        for p in self.parts[:-1]:
            values.append(p(values[-1]))
        values.append(y)
        dims = self.domain.event_dim
        total = None
        for i, p in enumerate(self.parts):
            term = p.log_abs_det_jacobian(values[i], values[i + 1])
            term = _sum_rightmost(term, dims - p.domain.event_dim)
            total = term if total is None else total + term
            dims += p.codomain.event_dim - p.domain.event_dim
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in self.parts[::-1]:
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its ``reinterpreted_batch_ndims`` rightmost batch dims made
    part of the event: same values, the log-Jacobian summed over those dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def _recreate(self, cache_size):
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @_continuous
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @_continuous
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        _at_least(x.shape, self.domain.event_dim)
        return self.base_transform(x)

    def _inverse(self, y):
        _at_least(y.shape, self.codomain.event_dim)
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        inner = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(inner, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{type(self).__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


def _swap_event(shape, old, new):
    """``shape`` with its trailing ``old`` event shape replaced by ``new``."""
    _at_least(shape, len(old))
    keep = len(shape) - len(old)
    if shape[keep:] != old:
        raise ValueError(f"Shape mismatch: expected {shape[keep:]} but got {old}")
    return shape[:keep] + new


class ReshapeTransform(Transform):
    """Reshapes the event from ``in_shape`` to ``out_shape`` (same numel; unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torch.Size(in_shape)
        self.out_shape = torch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    @_dependent
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @_dependent
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def _recreate(self, cache_size):
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _batch(self, t, event):
        return t.shape[: t.dim() - len(event)]

    def _call(self, x):
        return x.reshape(self._batch(x, self.in_shape) + self.out_shape)

    def _inverse(self, y):
        return y.reshape(self._batch(y, self.out_shape) + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(self._batch(x, self.in_shape))

    def forward_shape(self, shape):
        return _swap_event(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _swap_event(shape, self.out_shape, self.in_shape)


class _IncreasingOnReals(Transform):
    """Elementwise, strictly increasing bijections defined on all reals."""

    domain = constraints.real
    bijective = True
    sign = +1


@_instances_equal
class ExpTransform(_IncreasingOnReals):
    """y = exp(x)."""

    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = broadcast_all(exponent)[0]

    def _recreate(self, cache_size):
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if isinstance(other, PowerTransform):
            return self.exponent.eq(other.exponent).all().item()
        return False

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        ratio = self.exponent * y / x
        return ratio.abs().log()

    def forward_shape(self, shape):
        return _broadcast_with(shape, self.exponent)

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    # keeps the result strictly inside (0, 1) so that its logit stays finite
    info = torch.finfo(x.dtype)
    return torch.clamp(torch.sigmoid(x), min=info.tiny, max=1.0 - info.eps)


@_instances_equal
class SigmoidTransform(_IncreasingOnReals):
    """y = sigmoid(x), x = logit(y)."""

    codomain = constraints.unit_interval

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = torch.finfo(y.dtype)
        inside = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return inside.log() - (-inside).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


@_instances_equal
class SoftplusTransform(_IncreasingOnReals):
    """y = log(1 + exp(x)) (linear above x = 20)."""

    codomain = constraints.positive

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1) = y + log(1 - exp(-y))
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


@_instances_equal
class TanhTransform(_IncreasingOnReals):
    """y = tanh(x). The inverse is not clamped: use ``cache_size=1`` near +-1."""

    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) written without cancellation
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


@_instances_equal
class AbsTransform(Transform):
    """y = |x| (not bijective: the inverse picks the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


def _same_parameter(a, b):
    if isinstance(a, _Number) and isinstance(b, _Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    """y = loc + scale * x, elementwise over an event of ``event_dim`` dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    def _reals(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @_continuous
    def domain(self):
        return self._reals()

    @_continuous
    def codomain(self):
        return self._reals()

    def _recreate(self, cache_size):
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        return (isinstance(other, AffineTransform)
                and _same_parameter(self.loc, other.loc)
                and _same_parameter(self.scale, other.scale))

    @property
    def sign(self):
        if not isinstance(self.scale, _Number):
            return self.scale.sign()
        s = float(self.scale)
        return (s > 0) - (s < 0)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        out_shape = x.shape
        if isinstance(self.scale, _Number):
            logs = torch.full_like(x, math.log(abs(self.scale)))
        else:
            logs = torch.abs(self.scale).log()
        if self.event_dim:
            # one term per event: sum the logs over its flattened dims
            logs = logs.view(logs.size()[: -self.event_dim] + (-1,)).sum(-1)
            out_shape = out_shape[: -self.event_dim]
        return logs.expand(out_shape)

    def forward_shape(self, shape):
        return _broadcast_with(shape, self.loc, self.scale)

    inverse_shape = forward_shape


class CorrCholeskyTransform(Transform):
    """Unconstrained vector of length D(D-1)/2 -> Cholesky factor of a D x D correlation
    matrix: tanh into (-1, 1), laid out below the diagonal row by row, then each row scaled
    to unit norm by a signed stick-breaking."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = torch.finfo(x.dtype).eps
        r = torch.tanh(x).clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(r, diag=-1)
        # stick-breaking on r**2: row i keeps r_ij * sqrt(prod_{k<j} (1 - r_ik**2))
        remaining = (1 - r**2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        # undo the stick-breaking: divide by the norm still left before each entry
        left = 1 - torch.cumsum(y * y, dim=-1)
        left = pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # x and the strictly lower part of y have the same length: the Jacobian between them
        left = 1 - (y * y).cumsum(dim=-1)
        # diag=-2 picks each row's norm left before the entry (no shift needed)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick + tanh

    def forward_shape(self, shape):
        _at_least(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        _at_least(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class _LastDimTransform(Transform):
    """Transforms acting on vectors along the last dim."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def forward_shape(self, shape):
        _at_least(shape, 1)
        return self._event_shape(shape, 1)

    def inverse_shape(self, shape):
        _at_least(shape, 1)
        return self._event_shape(shape, -1)

    def _event_shape(self, shape, grow):
        return shape


@_instances_equal
class SoftmaxTransform(_LastDimTransform):
    """y = exp(x) normalised to the simplex (not bijective; log is a right inverse)."""

    def _call(self, x):
        unnormed = (x - x.max(-1, True)[0]).exp()
        return unnormed / unnormed.sum(-1, True)

    def _inverse(self, y):
        return y.log()


def _stick_offsets(t, length, total):
    # total - k for k = 1..length; their logs centre the stick-breaking logits
    return total - t.new_ones(length).cumsum(-1)


@_instances_equal
class StickBreakingTransform(_LastDimTransform):
    """Vector of K reals -> simplex of K + 1 entries: each sigmoid breaks off a fraction of
    what is left of the stick (bijective)."""

    bijective = True

    def _call(self, x):
        k = x.shape[-1]
        frac = _clipped_sigmoid(x - _stick_offsets(x, k, k + 1).log())
        rest = (1 - frac).cumprod(-1)
        return pad(frac, [0, 1], value=1) * pad(rest, [1, 0], value=1)

    def _inverse(self, y):
        head = y[..., :-1]
        offsets = _stick_offsets(y, head.shape[-1], y.shape[-1])
        rest = 1 - head.cumsum(-1)
        # rounding can leave nothing (or less) of the stick: keep it positive
        rest = torch.clamp(rest, min=torch.finfo(y.dtype).tiny)
        return head.log() - rest.log() + offsets.log()

    def log_abs_det_jacobian(self, x, y):
        k = x.shape[-1]
        z = x - _stick_offsets(x, k, k + 1).log()
        # log(1 - sigmoid(z)) = -z + logsigmoid(z)
        return (-z + F.logsigmoid(z) + y[..., :-1].log()).sum(-1)

    def _event_shape(self, shape, grow):
        return shape[:-1] + (shape[-1] + grow,)


def _with_diagonal(m, fn):
    """The strictly lower triangle of ``m`` plus ``fn`` of its diagonal on the diagonal."""
    diag = m.diagonal(dim1=-2, dim2=-1)
    return m.tril(-1) + fn(diag).diag_embed()


@_instances_equal
class LowerCholeskyTransform(Transform):
    """Square matrix -> lower triangular with positive (exponentiated) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return _with_diagonal(x, torch.exp)

    def _inverse(self, y):
        return _with_diagonal(y, torch.log)


@_instances_equal
class PositiveDefiniteTransform(Transform):
    """Square matrix -> L @ L.mT with L its lower-Cholesky transform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


class _PiecewiseTransform(Transform):
    """Applies one transform per piece of a tensor cut along ``dim``."""

    def _setup(self, tseq, dim, cache_size):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def _checked_pieces(self, t, name, kind):
        if not -t.dim() <= self.dim < t.dim():
            raise AssertionError(
                f"dim {self.dim} out of range for {kind} with {t.dim()} dimensions")
        count, what = self._extent()
        if t.size(self.dim) != count:
            raise AssertionError(
                f"{name}.size({self.dim}) = {t.size(self.dim)} must equal {what} {count}")
        return self._pieces(t)

    def _apply(self, t, name, inverse):
        pieces = self._checked_pieces(t, name, "tensor")
        fns = [s.inv if inverse else s for s in self.transforms]
        return self._join([f(p) for f, p in zip(fns, pieces)])

    def _call(self, x):
        return self._apply(x, "x", False)

    def _inverse(self, y):
        return self._apply(y, "y", True)

    def _jacobian_terms(self, x, y):
        xs = self._checked_pieces(x, "x", "x")
        ys = self._checked_pieces(y, "y", "y")
        return [s.log_abs_det_jacobian(a, b) for s, a, b in zip(self.transforms, xs, ys)]

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)


class CatTransform(_PiecewiseTransform):
    """Applies ``tseq[i]`` to the i-th block (of ``lengths[i]`` entries) along ``dim``,
    like :func:`torch.cat`."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        self._setup(tseq, dim, cache_size)
        self.lengths = list([1] * len(self.transforms) if lengths is None else lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def _recreate(self, cache_size):
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _extent(self):
        return self.length, "length"

    def _pieces(self, t):
        starts = [0]
        for n in self.lengths:
            starts.append(starts[-1] + n)
        return [t.narrow(self.dim, s, n) for s, n in zip(starts, self.lengths)]

    def _join(self, pieces):
        return torch.cat(pieces, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [
            term if s.event_dim >= self.event_dim
            else _sum_rightmost(term, self.event_dim - s.event_dim)
            for s, term in zip(self.transforms, self._jacobian_terms(x, y))
        ]
        # ``dim`` counted from the right of the per-event terms: inside the batch the
        # blocks' terms sit side by side, inside the event they add up
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return torch.cat(terms, dim=dim) if dim < 0 else sum(terms)

    @_dependent
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @_dependent
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(_PiecewiseTransform):
    """Applies ``tseq[i]`` to index i along ``dim``, like :func:`torch.stack`."""

    def __init__(self, tseq, dim=0, cache_size=0):
        self._setup(tseq, dim, cache_size)

    def _recreate(self, cache_size):
        return StackTransform(self.transforms, self.dim, cache_size)

    def _extent(self):
        return len(self.transforms), "len(transforms)"

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _pieces(self, t):
        return self._slice(t)

    def _join(self, pieces):
        return torch.stack(pieces, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return self._join(self._jacobian_terms(x, y))

    @_dependent
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @_dependent
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x); the log-Jacobian is the distribution's log density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def _recreate(self, cache_size):
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
