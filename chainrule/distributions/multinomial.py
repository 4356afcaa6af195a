"""Multinomial distribution: counts of `total_count` independent Categorical draws."""
import chainrule as torch
from chainrule import inf
from chainrule.distributions import constraints
from chainrule.distributions.binomial import Binomial
from chainrule.distributions.categorical import Categorical
from chainrule.distributions.distribution import Distribution
from chainrule.distributions.utils import broadcast_all


__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Category counts over `total_count` trials with probs/logits over the last dim.
    Sampling needs one integer total_count; log_prob takes the count from the value."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        inner = self._categorical = Categorical(probs=probs, logits=logits)
        # the per-category count marginals, used by entropy()
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(inner.batch_shape, inner.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Multinomial, batch_shape, _instance, ())
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(new.batch_shape)
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)
    param_shape = property(lambda self: self._categorical.param_shape)

    @property
    def mean(self):
        p = self.probs
        return p * self.total_count

    @property
    def variance(self):
        p = self.probs
        return self.total_count * p * (1 - p)

    def sample(self, sample_shape=torch.Size()):
        sample_shape = torch.Size(sample_shape)
        # one categorical draw per trial, trials first; move the trial dim to the end
        trials = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
        trials = trials.permute(*range(1, trials.dim()), 0)
        counts = trials.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, trials, torch.ones_like(trials))
        return counts.type_as(self._categorical.probs)

    def entropy(self):
        n = torch.tensor(self.total_count)  # a tensor, so lgamma applies
        head = n * self._categorical.entropy() - torch.lgamma(n + 1)
        # E[sum_k log x_k!] from each category's Binomial marginal, over counts 1..n
        counts = self._binomial.enumerate_support(expand=False)[1:]
        mass = torch.exp(self._binomial.log_prob(counts))
        return head + (mass * torch.lgamma(counts + 1)).sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=torch.contiguous_format)
        log_coef = torch.lgamma(value.sum(-1) + 1) - torch.lgamma(value + 1).sum(-1)
        # a category with zero probability and zero count contributes nothing (not nan)
        unused = (value == 0) & (logits == -inf)
        logits[unused] = 0
        return log_coef + (logits * value).sum(-1)
