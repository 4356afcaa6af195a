"""The base class every distribution derives from: shapes, argument and sample validation,
and the defaults (sample via rsample under no_grad, stddev from variance...)."""
import warnings

import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.utils import broadcast_all, lazy_property


__all__ = ["Distribution"]

_NO_SHAPE = torch.Size()


def _not_given(what):
    """Placeholder body of the abstract members; subclasses override what they support."""
    raise NotImplementedError(what) if what else NotImplementedError


class Distribution:
    """Abstract probability distribution with a batch shape and an event shape."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions built from now on."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_NO_SHAPE, event_shape=_NO_SHAPE, validate_args=None):
        self._batch_shape, self._event_shape = batch_shape, event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self):
        try:
            declared = self.arg_constraints
        except NotImplementedError:
            declared = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.", stacklevel=3)
        cls = type(self)
        for name, cons in declared.items():
            if constraints.is_dependent(cons):
                continue                 # depends on other parameters: nothing to check
            # a parameter still held lazily (e.g. logits given, probs not built) is not checked
            if name not in self.__dict__ and isinstance(getattr(cls, name), lazy_property):
                continue
            arg = getattr(self, name)
            if cons.check(arg).all():
                continue
            raise ValueError(
                f"Expected parameter {name} ({type(arg).__name__} of shape "
                f"{tuple(arg.shape)}) of distribution {self!r} to satisfy the constraint "
                f"{cons!r}, but found invalid values:\n{arg}")

    def expand(self, batch_shape, _instance=None):
        """A copy whose parameters are expanded (not copied) to `batch_shape`."""
        _not_given(None)

    @property
    def batch_shape(self):
        """Shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """Shape of one draw, without the batch dimensions."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """Parameter name to the Constraint each tensor parameter must satisfy."""
        _not_given(None)

    @property
    def support(self):
        """Constraint describing the set of values the distribution puts mass on."""
        _not_given(None)

    @property
    def mean(self):
        """Mean of the distribution."""
        _not_given(None)

    @property
    def mode(self):
        """Mode of the distribution."""
        _not_given(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """Variance of the distribution."""
        _not_given(None)

    @property
    def stddev(self):
        """Standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape=_NO_SHAPE):
        """Draw without tracking gradients (the reparameterized draw under no_grad)."""
        with torch.no_grad():
            drawn = self.rsample(sample_shape)
        return drawn

    def rsample(self, sample_shape=_NO_SHAPE):
        """Reparameterized draw, differentiable in the parameters."""
        _not_given(None)

    def sample_n(self, n):
        """Deprecated spelling of sample((n,))."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(torch.Size([n]))

    def log_prob(self, value):
        """Log density (or log mass) at `value`."""
        _not_given(None)

    def cdf(self, value):
        """Cumulative distribution function at `value`."""
        _not_given(None)

    def icdf(self, value):
        """Inverse of the cumulative distribution function at `value`."""
        _not_given(None)

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution along a new leading dimension."""
        _not_given(None)

    def entropy(self):
        """Entropy, one value per batch element."""
        _not_given(None)

    def perplexity(self):
        """exp(entropy)."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=_NO_SHAPE):
        """sample_shape + batch_shape + event_shape."""
        return torch.Size(torch.Size(sample_shape) + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """Raise ValueError unless `value` fits the event/batch shapes and the support."""
        if not torch.is_tensor(value):
            raise ValueError("The value argument to log_prob must be a Tensor")
        have = value.size()
        n_event = len(self._event_shape)
        if have[len(have) - n_event:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {have} vs "
                f"{self._event_shape}.")
        want = self._batch_shape + self._event_shape
        if any(a != b and 1 not in (a, b) for a, b in zip(have[::-1], want[::-1])):
            raise ValueError(
                f"Value is not broadcastable with batch_shape+event_shape: {have} vs "
                f"{want}.")
        try:
            region = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.", stacklevel=2)
            return
        if region is None:
            raise AssertionError("support is unexpectedly None")
        if not region.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({region!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _broadcast_params(self, **params):
        """Broadcast the parameters (tensors or numbers) together and store each as an
        attribute; returns their common shape, the usual batch shape."""
        tensors = broadcast_all(*params.values())
        for name, tensor in zip(params, tensors):
            setattr(self, name, tensor)
        return tensors[0].size()

    def _expand_params(self, cls, batch_shape, _instance, names, param_tail=()):
        """expand() for the common case: each tensor parameter in `names` that the instance
        holds is expanded to batch_shape + param_tail on a fresh instance of cls."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = torch.Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape + param_tail))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is not None:
            return _instance
        if type(self).__init__ != cls.__init__:
            # the generic expand() cannot know how to fill a custom subclass's state
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a "
                "custom __init__ method must also define a custom .expand() method.")
        return self.__new__(type(self))

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                arg = self.__dict__[name]
                shown.append(f"{name}: {arg if arg.numel() == 1 else arg.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"
