"""biject_to and transform_to: registries from a constraint's class to a factory building a
Transform from the unconstrained reals onto that constraint's set. biject_to gives
bijections (usable for densities); transform_to may give non-bijective maps (e.g. softmax)."""
from chainrule.distributions import constraints as C, transforms as T


__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps Constraint subclasses to factories `factory(constraint) -> Transform`."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register `factory` for a Constraint subclass (or an instance's class); without a
        factory this returns a decorator."""
        if factory is None:
            return lambda fn: self.register(constraint, fn)
        key = type(constraint) if isinstance(constraint, C.Constraint) else constraint
        if not (isinstance(key, type) and issubclass(key, C.Constraint)):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {key}")
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        """The transform the registered factory builds for `constraint`."""
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _is_number(bound, number):
    return isinstance(bound, (int, float)) and bound == number


def _exp_then_shift(bound, direction):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(bound, direction)])


def _onto_interval(c):
    if _is_number(c.lower_bound, 0) and _is_number(c.upper_bound, 1):
        return T.SigmoidTransform()
    width = c.upper_bound - c.lower_bound
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(c.lower_bound, width)])


# factories that are the same for both registries
_SHARED = [
    ((C.real,), lambda c: T.identity_transform),
    ((C.greater_than, C.greater_than_eq), lambda c: _exp_then_shift(c.lower_bound, 1)),
    ((C.less_than,), lambda c: _exp_then_shift(c.upper_bound, -1)),
    ((C.interval, C.half_open_interval), _onto_interval),
    ((C.corr_cholesky,), lambda c: T.CorrCholeskyTransform()),
]

# factories that recurse into the registry they belong to
_RECURSIVE = [
    (C.independent, lambda reg, c: T.IndependentTransform(reg(c.base_constraint),
                                                          c.reinterpreted_batch_ndims)),
    (C.cat, lambda reg, c: T.CatTransform([reg(part) for part in c.cseq], c.dim, c.lengths)),
    (C.stack, lambda reg, c: T.StackTransform([reg(part) for part in c.cseq], c.dim)),
]


def _fill():
    for registry in (biject_to, transform_to):
        for keys, factory in _SHARED:
            for key in keys:
                registry.register(key, factory)
        for key, factory in _RECURSIVE:
            registry.register(key, lambda c, _r=registry, _f=factory: _f(_r, c))
    # the simplex: stick breaking is a bijection, softmax only covers it
    biject_to.register(C.simplex, lambda c: T.StickBreakingTransform())
    transform_to.register(C.simplex, lambda c: T.SoftmaxTransform())
    # matrix sets reached only by surjections
    transform_to.register(C.lower_cholesky, lambda c: T.LowerCholeskyTransform())
    for key in (C.positive_definite, C.positive_semidefinite):
        transform_to.register(key, lambda c: T.PositiveDefiniteTransform())


_fill()
