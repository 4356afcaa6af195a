"""torch.nn.utils: gradient clipping, parameters as one vector, weight and spectral
normalization (the hook-based ones and the parametrizations), parametrize, pruning, fusion,
stateless calls, memory formats, skip_init and packed sequences (rnn)."""
from . import parametrizations, parametrize, prune, rnn, stateless  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: F401
from .memory_format import (convert_conv2d_weight_memory_format,  # noqa: F401
                            convert_conv3d_weight_memory_format)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "get_total_norm", "parameters_to_vector",
           "parametrizations", "remove_spectral_norm", "remove_weight_norm", "rnn", "skip_init",
           "spectral_norm", "stateless", "vector_to_parameters", "weight_norm"]
