import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.transformed_distribution import TransformedDistribution
from chainrule.distributions.transforms import SigmoidTransform
from chainrule.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from chainrule.types import _Number, _size, Number  # noqa: F401 (as PyTorch's namespace)


__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _base_attribute(name):
    """A read-only property forwarding to ``self.base_dist.<name>``."""
    return property(lambda self: getattr(self.base_dist, name))


class LogitRelaxedBernoulli(Distribution):
    """Logits of the binary Concrete relaxation at ``temperature`` (Maddison et al.,
    2017): (logit(U) + logits) / temperature for U uniform."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        # the given parameter shadows its lazy property; the other one derives from it
        self._param = broadcast_all(given)[0]
        setattr(self, name, self._param)
        shape = torch.Size() if isinstance(given, _Number) else self._param.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        size = torch.Size(batch_shape)
        new.temperature = self.temperature
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new._param = self.__dict__[name].expand(size)
                setattr(new, name, new._param)
        Distribution.__init__(new, size, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> torch.Size:
        return self._param.size()

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        p = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(torch.rand(shape, dtype=p.dtype, device=p.device))
        # logit(u) + logit(p), evaluated left to right
        return (u.log() - (-u).log1p() + p.log() - (-p).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lg, value = broadcast_all(self.logits, value)
        t = self.temperature
        z = lg - value.mul(t)
        return t.log() + z - 2 * z.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The binary Concrete (Gumbel-softmax) relaxation of Bernoulli: the sigmoid of a
    LogitRelaxedBernoulli sample, in (0, 1) and reparameterizable."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        logit_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(logit_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, new)

    temperature = _base_attribute("temperature")
    logits = _base_attribute("logits")
    probs = _base_attribute("probs")
