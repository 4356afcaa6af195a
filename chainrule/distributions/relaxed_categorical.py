import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.categorical import Categorical
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.relaxed_bernoulli import _base_attribute
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import ExpTransform
from chainrule.distributions.utils import broadcast_all, clamp_probs
from chainrule.types import _size  # noqa: F401 (in PyTorch's module namespace too)


__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """Log of a Concrete (Gumbel-softmax) sample at ``temperature``: log_softmax of
    (logits + Gumbel noise) / temperature (Maddison et al., 2017)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    # the values lie on a submanifold of the real vectors
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        cat = self._categorical
        super().__init__(cat.batch_shape, cat.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        size = torch.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(size)
        Distribution.__init__(new, size, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    param_shape = property(lambda self: self._categorical.param_shape)
    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape=torch.Size()):
        logits = self.logits
        u = torch.rand(self._extended_shape(sample_shape), dtype=logits.dtype,
                       device=logits.device)
        noise = -((-(clamp_probs(u).log())).log())  # standard Gumbel
        scores = (logits + noise) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        lg, value = broadcast_all(self.logits, value)
        t = self.temperature
        # log((k - 1)! * t ** (k - 1))
        log_norm = torch.full_like(t, float(k)).lgamma() - t.log().mul(-(k - 1))
        z = lg - value.mul(t)
        return (z - z.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_norm


class RelaxedOneHotCategorical(TransformedDistribution):
    """The Concrete (Gumbel-softmax) relaxation of OneHotCategorical: exp of an
    ExpRelaxedCategorical sample, on the simplex and reparameterizable."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        log_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                         validate_args=validate_args)
        super().__init__(log_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, new)

    temperature = _base_attribute("temperature")
    logits = _base_attribute("logits")
    probs = _base_attribute("probs")
