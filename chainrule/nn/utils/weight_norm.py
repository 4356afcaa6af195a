"""torch.nn.utils.weight_norm, the hook-based form (deprecated in favour of
parametrizations.weight_norm).

The parameter `name` is replaced by a magnitude `name_g` (its norm over every dim but `dim`)
and a direction `name_v`; a forward pre-hook rebuilds `name` = g * v / ||v|| before each call."""
import warnings

from ...ops.registry import FUNCTIONS
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _hook_key(module, name):
    """Key of the WeightNorm hook acting on `module.<name>`, or None."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            return key
    return None


class WeightNorm:
    """The forward pre-hook that recomputes the weight from its g and v parameters."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = dim if dim is not None else -1  # None: one norm over the whole tensor

    def compute_weight(self, module):
        magnitude = getattr(module, self.name + "_g")
        direction = getattr(module, self.name + "_v")
        return FUNCTIONS["_weight_norm"](direction, magnitude, self.dim)

    @staticmethod
    def apply(module, name, dim):
        # stacklevel 3: the warning points at the caller of weight_norm()
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        if _hook_key(module, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                               f"{name}")
        hook = WeightNorm(name, dim)
        original = getattr(module, name)
        if isinstance(original, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        magnitude = FUNCTIONS["norm_except_dim"](original, 2, hook.dim)
        module.register_parameter(name + "_g", Parameter(magnitude.data))
        module.register_parameter(name + "_v", Parameter(original.data))
        setattr(module, name, hook.compute_weight(module))
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        """Turn `name` back into one plain parameter holding the current weight."""
        current = self.compute_weight(module)
        delattr(module, self.name)
        for part in ("_g", "_v"):
            del module._parameters[self.name + part]
        setattr(module, self.name, Parameter(current.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Split `module.<name>` into a magnitude (`name_g`) and a direction (`name_v`)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: `module.<name>` is a parameter again."""
    key = _hook_key(module, name)
    if key is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    module._forward_pre_hooks[key].remove(module)
    del module._forward_pre_hooks[key]
    return module
