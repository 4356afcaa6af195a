"""Base class of exponential-family distributions, p(x) = exp(<t(x), theta> - F(theta) + k(x)),
with the entropy derived from the log normalizer F by autograd."""
import chainrule as torch
from chainrule.distributions.distribution import Distribution


__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Exponential family given by natural parameters theta, log normalizer F(theta) and the
    expected carrier measure E[k(x)]."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta) evaluated at the given natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)], needed for the entropy."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)]."""
        thetas = [theta.detach().requires_grad_() for theta in self._natural_params]
        log_norm = self._log_normalizer(*thetas)
        slopes = torch.autograd.grad(log_norm.sum(), thetas, create_graph=True)
        entropy = log_norm + -self._mean_carrier_measure
        per_event = self._batch_shape + (-1,)
        for theta, slope in zip(thetas, slopes):
            entropy = entropy - (theta * slope).reshape(per_event).sum(-1)
        return entropy
