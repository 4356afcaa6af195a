import chainrule as torch
from chainrule import Tensor
from chainrule.distributions import Categorical, constraints
from chainrule.distributions.constraints import MixtureSameFamilyConstraint
from chainrule.distributions.distribution import Distribution


__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Mixture of k components of one family: ``mixture_distribution`` (a Categorical over
    k) picks the index into the rightmost batch dim (of size k) of
    ``component_distribution``."""

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an "
                             " instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an "
                             "instance of torch.distributions.Distribution")
        mix_batch = mixture_distribution.batch_shape
        batch = component_distribution.batch_shape[:-1]
        # the two batch shapes must broadcast, aligned at the right
        for a, b in zip(mix_batch[::-1], batch[::-1]):
            if 1 not in (a, b) and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`({batch})")
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._num_component = k_mix
        events = component_distribution.event_shape
        self._event_ndims = len(events)
        super().__init__(batch_shape=batch, event_shape=events, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        size = torch.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            size + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(size)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape=size,
                              event_shape=new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _component_dim(self):
        # where k sits in a component statistic: left of the event dims
        return -1 - self._event_ndims

    def _weighted_sum(self, per_component):
        weights = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return torch.sum(weights * per_component, dim=self._component_dim())

    @property
    def mean(self) -> Tensor:
        return self._weighted_sum(self.component_distribution.mean)

    @property
    def variance(self) -> Tensor:
        # total variance: mean of the variances plus variance of the means
        within = self._weighted_sum(self.component_distribution.variance)
        spread = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        return within + self._weighted_sum(spread)

    def cdf(self, x):
        per_component = self.component_distribution.cdf(self._pad(x))
        return torch.sum(per_component * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self.component_distribution.log_prob(self._pad(x))
        log_weights = torch.log_softmax(self.mixture_distribution.logits, dim=-1)
        return torch.logsumexp(per_component + log_weights, dim=-1)

    def sample(self, sample_shape=torch.Size()):
        with torch.no_grad():
            # k's position in the component samples (sample + batch dims before it)
            k_dim = len(sample_shape) + len(self.batch_shape)
            events = self.event_shape
            picks = self.mixture_distribution.sample(sample_shape)
            drawn = self.component_distribution.sample(sample_shape)
            ones = torch.Size([1] * (len(events) + 1))
            index = picks.reshape(picks.shape + ones)
            index = index.repeat(torch.Size([1] * picks.dim()) + torch.Size([1]) + events)
            return torch.gather(drawn, k_dim, index).squeeze(k_dim)

    def _pad(self, x):
        return x.unsqueeze(self._component_dim())

    def _pad_mixture_dimensions(self, x):
        # mixture weights [..., k] -> [..., (ones for missing batch dims), k, (event ones)]
        missing = len(self.batch_shape) - len(self.mixture_distribution.batch_shape)
        if len(self.mixture_distribution.batch_shape) == 1:
            missing = 0
        shape = x.shape
        return x.reshape(shape[:-1] + torch.Size(missing * [1]) + shape[-1:]
                         + torch.Size(self._event_ndims * [1]))

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},"
                f"\n  {self.component_distribution})")
