"""torch.masked: reductions and normalizations over the elements a mask keeps
(`torch.masked.sum(x, 1, mask=m)`), and the prototype MaskedTensor (see maskedtensor.py for
how it differs from PyTorch's Tensor subclass)."""
from ._ops import (_canonical_dim, _combine_input_and_mask, _input_mask,  # noqa: F401
                   _output_mask, _reduction_identity, amax, amin, argmax, argmin, cumprod,
                   cumsum, log_softmax, logaddexp, logsumexp, mean, median, norm, normalize,
                   prod, softmax, softmin, std, sum, var)
from .maskedtensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

__all__ = ["amax", "amin", "argmax", "argmin", "as_masked_tensor", "cumprod", "cumsum",
           "is_masked_tensor", "log_softmax", "logaddexp", "logsumexp", "masked_tensor",
           "MaskedTensor", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin",
           "std", "sum", "var"]
