"""torch.cuda.amp: deprecated aliases of torch.amp for device 'cuda'. Without CUDA, autocast
and GradScaler warn and disable themselves, as in PyTorch's CPU build."""
import functools
import types
import warnings

from .. import _dtype
from ..amp import GradScaler as _GradScaler, autocast as _autocast
from ..amp import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def amp_definitely_not_available():
    return True


class autocast(_autocast):
    """Deprecated: torch.amp.autocast('cuda', ...)."""

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """Deprecated: torch.amp.GradScaler('cuda', ...)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: torch.amp.custom_fwd(device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: torch.amp.custom_bwd(device_type='cuda')."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_custom_bwd, device_type="cuda")(bwd)


# the submodules, as namespaces
common = types.SimpleNamespace(amp_definitely_not_available=amp_definitely_not_available)
autocast_mode = types.SimpleNamespace(autocast=autocast, custom_fwd=custom_fwd, custom_bwd=custom_bwd)
grad_scaler = types.SimpleNamespace(GradScaler=GradScaler)
