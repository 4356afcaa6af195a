"""Dirichlet distribution on the probability simplex, with reparameterized draws whose
gradient is the implicit-reparameterization one of torch._dirichlet_grad."""
import chainrule as torch
from chainrule.autograd import Function
from chainrule.autograd.function import once_differentiable
from chainrule.distributions import constraints
from chainrule.distributions.exp_family import ExponentialFamily
from chainrule.nn.functional import one_hot


__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):
    """Gradient of a draw x ~ Dir(concentration) with respect to the concentration."""
    total = concentration.sum(-1, True).expand_as(concentration)
    dx_dalpha = torch._dirichlet_grad(x, concentration, total)
    # project the incoming gradient onto the simplex's tangent space first
    return dx_dalpha * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    """Draw from torch._sample_dirichlet; backward via _Dirichlet_backward."""

    @staticmethod
    def forward(ctx, concentration):
        draw = torch._sample_dirichlet(concentration)
        ctx.save_for_backward(draw, concentration)
        return draw

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        return _Dirichlet_backward(*ctx.saved_tensors, grad_output)


class Dirichlet(ExponentialFamily):
    """Dirichlet over the last dim of `concentration` (the event dim)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        *batch, k = concentration.shape
        super().__init__(torch.Size(batch), torch.Size((k,)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Dirichlet, batch_shape, _instance, ("concentration",),
                                   self.event_shape)

    def rsample(self, sample_shape=()):
        alpha = self.concentration.expand(self._extended_shape(sample_shape))
        return _Dirichlet.apply(alpha)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        alpha = self.concentration
        return (torch.xlogy(alpha - 1.0, value).sum(-1) + torch.lgamma(alpha.sum(-1))
                - torch.lgamma(alpha).sum(-1))

    @property
    def mean(self):
        alpha = self.concentration
        return alpha / alpha.sum(-1, True)

    @property
    def mode(self):
        excess = (self.concentration - 1).clamp(min=0.0)
        peak = excess / excess.sum(-1, True)
        # all concentrations below 1: the density peaks at a vertex
        at_vertex = (self.concentration < 1).all(dim=-1)
        peak[at_vertex] = one_hot(peak[at_vertex].argmax(dim=-1), excess.shape[-1]).to(peak)
        return peak

    @property
    def variance(self):
        alpha = self.concentration
        total = alpha.sum(-1, True)
        return alpha * (total - alpha) / (total.pow(2) * (total + 1))

    def entropy(self):
        alpha = self.concentration
        k = alpha.size(-1)
        total = alpha.sum(-1)
        return (torch.lgamma(alpha).sum(-1) - torch.lgamma(total)
                - (k - total) * torch.digamma(total)
                - ((alpha - 1.0) * torch.digamma(alpha)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))
