"""One-hot categorical distributions: a Categorical whose draws are one-hot vectors, and its
straight-through reparameterized variant."""
import chainrule as torch
from chainrule.distributions import constraints
from chainrule.distributions.categorical import Categorical
from chainrule.distributions.distribution import Distribution
from chainrule.nn.functional import one_hot


__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Draws one-hot vectors of length K = probs.size(-1); wraps a Categorical that holds
    the (normalized) parameters."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        inner = self._categorical = Categorical(probs, logits)
        super().__init__(inner.batch_shape, inner.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(OneHotCategorical, batch_shape, _instance, ())
        new._categorical = self._categorical.expand(new.batch_shape)
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    # the parameters and their shape are the wrapped Categorical's
    _param = property(lambda self: self._categorical._param)
    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def variance(self):
        p = self._categorical.probs
        return p * (1 - p)

    def _as_one_hot(self, index):
        p = self._categorical.probs
        return one_hot(index, self._categorical._num_events).to(p)

    @property
    def mode(self):
        return self._as_one_hot(self._categorical.probs.argmax(dim=-1))

    def sample(self, sample_shape=torch.Size()):
        return self._as_one_hot(self._categorical.sample(torch.Size(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        k = self.event_shape[0]
        ref = self._param
        rows = torch.eye(k, dtype=ref.dtype, device=ref.device)
        rows = rows.view((k,) + (1,) * len(self.batch_shape) + (k,))
        return rows.expand((k,) + self.batch_shape + (k,)) if expand else rows


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with rsample: the one-hot draw in the forward pass, the gradient of
    the probabilities in the backward pass (straight-through estimator, Bengio et al. 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=torch.Size()):
        hard = self.sample(sample_shape)
        p = self._categorical.probs
        return hard + (p - p.detach())
