"""chainrule: PyTorch's autograd (tensors, a define-by-run graph, reverse-mode and
higher-order differentiation) in Python on NumPy. Use it as `import chainrule as torch`."""
__version__ = "0.1.0"

# autograd first: its grad_mode and graph need nothing else, and Tensor needs them.
from . import autograd
from . import _dtype
from ._dtype import (bool, cdouble, cfloat, complex64, complex128, double, dtype, float,
                     float16, float32, float64, get_default_dtype, half, int, int8, int16,
                     int32, int64, long, promote_types, set_default_dtype, short, uint8,
                     can_cast)
from ._device import device
from ._tensor import Size, Tensor
from . import ops
from . import nn
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._tensor_str import set_printoptions, get_printoptions, printoptions
from . import _random as random
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                      seed, set_rng_state)
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                       no_grad, set_grad_enabled)
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .ops.registry import FUNCTIONS as _FUNCTIONS
from . import optim
from . import serialization
from . import utils
save = serialization.save; load = serialization.load  # noqa: E702

globals().update(_FUNCTIONS)


def result_type(tensor1, tensor2):
    """The dtype PyTorch's type promotion gives for an op over the two operands."""
    return _dtype.result_type((tensor1, tensor2))


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


__all__ = sorted(set(_FUNCTIONS) | set(_creation_all) | {
    "Tensor", "Size", "dtype", "device", "autograd", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "get_default_dtype",
    "set_default_dtype", "float32", "float64", "float16", "int8", "int16", "int32", "int64",
    "uint8", "bool", "complex64", "complex128", "result_type", "promote_types", "Generator",
    "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
    "set_rng_state"})
