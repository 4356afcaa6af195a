"""Categorical distribution over {0, ..., K-1}, given by (unnormalized) probs or logits."""
import chainrule as torch
from chainrule import nan
from chainrule.distributions import constraints
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import (
    _exactly_one, _HoldsParam, _ProbsOrLogits, _support_along_dim0)


__all__ = ["Categorical"]


class Categorical(_ProbsOrLogits, _HoldsParam, Distribution):
    """Draws a class index; the last dim of probs/logits indexes the K classes and both are
    normalized over it (probs to sum 1, logits by subtracting their logsumexp)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True
    _binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        _exactly_one(probs, logits)
        given, label = (probs, "probs") if probs is not None else (logits, "logits")
        if given.dim() < 1:
            raise ValueError(f"`{label}` parameter must be at least one-dimensional.")
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.__dict__[label]
        *batch, self._num_events = self._param.size()
        super().__init__(torch.Size(batch), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        tail = torch.Size((self._num_events,))
        new = self._expand_params(Categorical, batch_shape, _instance, ("probs", "logits"), tail)
        new._num_events = self._num_events
        return self._keep_given(new)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    def _undefined_moment(self):
        ref = self.probs
        return torch.full(self._extended_shape(), nan, dtype=ref.dtype, device=ref.device)

    @property
    def mean(self):
        return self._undefined_moment()

    @property
    def variance(self):
        return self._undefined_moment()

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    def sample(self, sample_shape=torch.Size()):
        count = torch.Size(sample_shape).numel()
        # one row per batch element; multinomial draws `count` classes from each row
        rows = self.probs.reshape(-1, self._num_events)
        drawn = torch.multinomial(rows, count, True).T
        return drawn.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        index, log_pmf = torch.broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        # -inf logits (zero probabilities) would give 0 * -inf = nan; clamp them to finite
        floor = torch.finfo(self.logits.dtype).min
        return -(torch.clamp(self.logits, min=floor) * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        classes = torch.arange(self._num_events, dtype=torch.long, device=self._param.device)
        return _support_along_dim0(classes, self._batch_shape, expand)
