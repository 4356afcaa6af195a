"""Constraints: objects whose check(value) says elementwise (over the batch dims) whether a
value lies in a set, used to validate parameters and samples and to pick bijections
(constraint_registry). The module-level names are the instances and classes PyTorch has."""
import itertools

import chainrule as torch


__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer",
    "one_hot", "positive", "positive_semidefinite", "positive_definite", "positive_integer",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """A region; event_dim trailing dims form one event, is_discrete marks integer sets."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Boolean tensor of shape batch_shape: whether each event of `value` is inside."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Bounded(Constraint):
    """Constraint parameterized by bounds; repr lists them as keyword=value."""

    _fields = ()

    def __init__(self, *bounds):
        for field, bound in zip(self._fields, bounds):
            setattr(self, field, bound)
        super().__init__()

    def __repr__(self):
        shown = ", ".join(f"{field}={getattr(self, field)}" for field in self._fields)
        return f"{type(self).__name__[1:]}({shown})"


def _is_integer(value):
    return value % 1 == 0


# ---- placeholders for constraints known only once a distribution exists ----

class _Dependent(Constraint):
    """Stands for a constraint that depends on other parameters; it cannot be checked.
    Calling it makes a copy with is_discrete / event_dim fixed."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim
        super().__init__()

    def _known(self, attr, label):
        found = getattr(self, attr)
        if found is NotImplemented:
            raise NotImplementedError(f".{label} cannot be determined statically")
        return found

    @property
    def is_discrete(self):
        return self._known("_is_discrete", "is_discrete")

    @property
    def event_dim(self):
        return self._known("_event_dim", "event_dim")

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        keep = NotImplemented
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is keep else is_discrete,
            event_dim=self._event_dim if event_dim is keep else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether `constraint` is a dependent placeholder (so it cannot be checked)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint, for `support` methods whose set
    depends on the parameters. Called with a function, it wraps that function."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def __call__(self, fn):
        return type(self)(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


# ---- combinators over other constraints ----

def _base_of(constraint):
    if not isinstance(constraint, Constraint):
        raise AssertionError(
            f"base_constraint must be a Constraint, got {type(constraint).__name__}")
    return constraint


class _OverBase(Constraint):
    """Takes is_discrete (and by default event_dim) from `base_constraint`."""

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

class _IndependentConstraint(_OverBase):
    """Folds the rightmost `reinterpreted_batch_ndims` batch dims into the event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        n = reinterpreted_batch_ndims
        self.base_constraint = _base_of(base_constraint)
        if not isinstance(n, int):
            raise AssertionError(
                f"reinterpreted_batch_ndims must be an int, got {type(n).__name__}")
        if n < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {n}")
        self.reinterpreted_batch_ndims = n
        super().__init__()

    @property
    def event_dim(self):
        return super().event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        verdict = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if verdict.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return verdict.flatten(verdict.dim() - n).all(-1) if n else verdict.clone()

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(_OverBase):
    """Support of a mixture: the component constraint checked against the component dim."""

    def __init__(self, base_constraint):
        self.base_constraint = _base_of(base_constraint)
        super().__init__()

    def check(self, value):
        n_event = self.event_dim
        # broadcast the value against every component along a new mixture dim
        verdict = self.base_constraint.check(value.unsqueeze(-1 - n_event))
        if value.dim() < n_event:
            raise ValueError(f"Expected value.dim() >= {n_event} but got {value.dim()}")
        return verdict.flatten(value.dim() - n_event).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Cat(Constraint):
    """Pieces of `lengths` along `dim`, each checked by its own constraint."""

    def __init__(self, cseq, dim=0, lengths=None):
        if any(not isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        _check_dim(self.dim, value)
        starts = itertools.accumulate(self.lengths, initial=0)
        return torch.cat([c.check(value.narrow(self.dim, at, size))
                          for c, at, size in zip(self.cseq, starts, self.lengths)], self.dim)


class _Stack(Constraint):
    """Slices along `dim`, the i-th checked by the i-th constraint."""

    def __init__(self, cseq, dim=0):
        if any(not isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        deepest = max(c.event_dim for c in self.cseq)
        # a negative stacking dim that reaches into the event makes the event one dim larger
        return deepest + 1 if self.dim + deepest < 0 else deepest

    def check(self, value):
        _check_dim(self.dim, value)
        slices = value.unbind(self.dim)
        return torch.stack([c.check(s) for c, s in zip(self.cseq, slices)], self.dim)


def _check_dim(dim, value):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


# ---- discrete sets ----

class _Boolean(Constraint):
    """{0, 1}."""

    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        entries_ok = ((value == 0) | (value == 1)).all(-1)
        return entries_ok & value.sum(-1).eq(1)


class _IntegerInterval(_Bounded):
    """Integers in [lower_bound, upper_bound]."""

    is_discrete = True
    _fields = ("lower_bound", "upper_bound")

    def check(self, value):
        return _is_integer(value) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerLessThan(_Bounded):
    """Integers <= upper_bound."""

    is_discrete = True
    _fields = ("upper_bound",)

    def check(self, value):
        return _is_integer(value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    """Integers >= lower_bound."""

    is_discrete = True
    _fields = ("lower_bound",)

    def check(self, value):
        return _is_integer(value) & (value >= self.lower_bound)


class _Multinomial(Constraint):
    """Nonnegative count vectors summing to at most upper_bound."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return x.ge(0).all(-1) & x.sum(-1).le(self.upper_bound)


# ---- real sets ----

class _Real(Constraint):
    """The extended reals: everything but NaN."""

    def check(self, value):
        return value == value


class _GreaterThan(_Bounded):
    """(lower_bound, inf)."""

    _fields = ("lower_bound",)

    def check(self, value):
        return value > self.lower_bound


class _GreaterThanEq(_Bounded):
    """[lower_bound, inf)."""

    _fields = ("lower_bound",)

    def check(self, value):
        return value >= self.lower_bound


class _LessThan(_Bounded):
    """(-inf, upper_bound)."""

    _fields = ("upper_bound",)

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    """[lower_bound, upper_bound]."""

    _fields = ("lower_bound", "upper_bound")

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounded):
    """[lower_bound, upper_bound)."""

    _fields = ("lower_bound", "upper_bound")

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one (to within 1e-6)."""

    event_dim = 1

    def check(self, value):
        off_by = (value.sum(-1) - 1).abs()
        return value.ge(0).all(-1) & (off_by < 1e-6)


# ---- matrix sets ----

def _tril_ok(value):
    return (value.tril() == value).all(-1).all(-1)


class _LowerTriangular(Constraint):
    """Matrices with zeros above the diagonal."""

    event_dim = 2

    def check(self, value):
        return _tril_ok(value)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        return _tril_ok(value) & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with unit-norm rows."""

    event_dim = 2

    def check(self, value):
        # tolerance grows with the row length; the factor 10 leaves room for rounding
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10
        norms = torch.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & (norms - 1.0).abs().le(tol).all(dim=-1)


def _symmetric_ok(value):
    return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


def _eigenvalues_nonnegative(value):
    return torch.linalg.eigvalsh(value).ge(0).all(-1)


def _cholesky_succeeds(value):
    return torch.linalg.cholesky_ex(value).info.eq(0)


class _Square(Constraint):
    """Square matrices; subclasses add further tests, run only while all still pass."""

    event_dim = 2
    _tests = ()

    def check(self, value):
        rows, cols = value.shape[-2:]
        verdict = torch.full(size=value.shape[:-2], fill_value=rows == cols,
                             dtype=torch.bool, device=value.device)
        for test in self._tests:
            if not verdict.all():
                break
            verdict = test(value)
        return verdict


class _Symmetric(_Square):
    """Square matrices equal to their transpose (to within 1e-6)."""

    _tests = (_symmetric_ok,)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues."""

    _tests = (_symmetric_ok, _eigenvalues_nonnegative)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices whose Cholesky factorization exists."""

    _tests = (_symmetric_ok, _cholesky_succeeds)


# the public instances and classes, under PyTorch's names
dependent, dependent_property = _Dependent(), _DependentProperty
independent, cat, stack = _IndependentConstraint, _Cat, _Stack
boolean, one_hot = _Boolean(), _OneHot()
nonnegative_integer, positive_integer = _IntegerGreaterThan(0), _IntegerGreaterThan(1)
integer_interval, multinomial = _IntegerInterval, _Multinomial
real = _Real()
real_vector = independent(real, 1)
positive, nonnegative = _GreaterThan(0.0), _GreaterThanEq(0.0)
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan
unit_interval = _Interval(0.0, 1.0)
interval, half_open_interval = _Interval, _HalfOpenInterval
simplex = _Simplex()
lower_triangular, lower_cholesky, corr_cholesky = (
    _LowerTriangular(), _LowerCholesky(), _CorrCholesky())
square, symmetric = _Square(), _Symmetric()
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()
