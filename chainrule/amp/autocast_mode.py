"""Autocast: the per-device autocast state PyTorch keeps (enabled flag and fast dtype per
device type, cache flag, nesting count), the `autocast` context manager and decorator, and
custom_fwd/custom_bwd for custom autograd Functions.

What an enabled autocast region does to ops is in `_cast_hook` (CPU: matmul-like ops run in
the fast dtype, see the note there). 'cuda' and the other accelerators are never available:
`autocast('cuda')` warns and disables itself, as in PyTorch's CPU build."""
import collections.abc
import functools
import warnings

import numpy as np

from .. import _device, _dtype

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]


class _State:
    def __init__(self):
        self.enabled = {}      # device type -> bool
        self.dtype = {}        # device type -> fast dtype, when set
        self.cache_enabled = True
        self.nesting = 0


_state = _State()

# PyTorch's default fast dtype per device type (get_autocast_dtype); bfloat16 is filled in
# when chainrule has it
_DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": "float16", "mps": "float16", "xpu": "float16",
                  "mtia": "float16", "maia": "bfloat16", "xla": "bfloat16", "hpu": "bfloat16",
                  "ipu": "float16", "privateuseone": "float16", "hip": "float16",
                  "ve": "float16", "fpga": "float16", "vulkan": "float16", "opengl": "float16",
                  "opencl": "float16", "ideep": "float16", "mkldnn": "float16"}


def _device_type(device_type, fname):
    if not isinstance(device_type, str):
        raise TypeError(f"{fname}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    kind = _device.as_device(device_type).type
    if kind not in _DEFAULT_DTYPE:
        raise RuntimeError("unsupported scalarType")
    return kind


def _dtype_named(name):
    d = getattr(_dtype, name, None)
    if d is None:
        raise RuntimeError(f"chainrule has no {name} dtype (the default autocast dtype of this "
                           "device type)")
    return d


def is_autocast_enabled(*args):
    """Whether autocast is on for `device_type` (default 'cuda')."""
    if len(args) > 1:
        raise TypeError("is_autocast_enabled() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)}), but expected one of:\n"
                        " * (str device_type)\n * ()\n")
    kind = _device_type(args[0], "is_autocast_enabled") if args else "cuda"
    return _state.enabled.get(kind, False)


def set_autocast_enabled(*args):
    """set_autocast_enabled(device_type, enabled), or (enabled) for 'cuda'."""
    if len(args) == 1:
        kind, enabled = "cuda", args[0]
    else:
        kind, enabled = args
        kind = _device_type(kind, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        pos = 2 if len(args) == 2 else 1
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position {pos}) must be "
                        f"bool, not {type(enabled).__name__}")
    _state.enabled[kind] = enabled


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on `device_type`."""
    kind = _device_type(device_type, "get_autocast_dtype")
    d = _state.dtype.get(kind)
    return d if d is not None else _dtype_named(_DEFAULT_DTYPE[kind])


def set_autocast_dtype(device_type, dtype):
    kind = _device_type(device_type, "set_autocast_dtype")
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError("set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"torch.dtype, not {type(dtype).__name__}")
    _state.dtype[kind] = dtype


def is_autocast_cache_enabled():
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


def clear_autocast_cache():
    """Drop the casts autocast cached (chainrule caches none)."""


def autocast_increment_nesting():
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    _state.nesting -= 1
    return _state.nesting


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _legacy_getter(device, what):
    def get():
        if what == "enabled":
            _deprecated(f"is_autocast_{device}_enabled()", f"is_autocast_enabled('{device}')")
            return is_autocast_enabled(device)
        kind = "cuda" if device == "gpu" else device
        _deprecated(f"get_autocast_{device}_dtype()", f"get_autocast_dtype('{kind}')")
        return get_autocast_dtype(kind)
    return get


def _legacy_setter(device, what):
    def set(value):
        kind = "cuda" if device == "gpu" else device
        if what == "enabled":
            _deprecated(f"set_autocast_{device}_enabled(enabled)",
                        f"set_autocast_enabled('{kind}', enabled)")
            set_autocast_enabled(kind, value)
        else:
            _deprecated(f"set_autocast_{device}_dtype(dtype)",
                        f"set_autocast_dtype('{kind}', dtype)")
            set_autocast_dtype(kind, value)
    return set


is_autocast_cpu_enabled = _legacy_getter("cpu", "enabled")
is_autocast_ipu_enabled = _legacy_getter("ipu", "enabled")
is_autocast_xla_enabled = _legacy_getter("xla", "enabled")
get_autocast_cpu_dtype = _legacy_getter("cpu", "dtype")
get_autocast_gpu_dtype = _legacy_getter("gpu", "dtype")
get_autocast_ipu_dtype = _legacy_getter("ipu", "dtype")
get_autocast_xla_dtype = _legacy_getter("xla", "dtype")
set_autocast_cpu_enabled = _legacy_setter("cpu", "enabled")
set_autocast_ipu_enabled = _legacy_setter("ipu", "enabled")
set_autocast_xla_enabled = _legacy_setter("xla", "enabled")
set_autocast_cpu_dtype = _legacy_setter("cpu", "dtype")
set_autocast_gpu_dtype = _legacy_setter("gpu", "dtype")
set_autocast_ipu_dtype = _legacy_setter("ipu", "dtype")
set_autocast_xla_dtype = _legacy_setter("xla", "dtype")


def is_autocast_available(device_type):
    """Whether autocast supports `device_type`."""
    return _device.as_device(device_type).type in _DEFAULT_DTYPE


class autocast:
    """Run a region in mixed precision (a context manager or a decorator).

    On 'cpu', ops PyTorch lists as lower-precision-safe (matmul, mm, bmm, addmm, linear,
    convolutions, ...) cast their floating inputs to the fast dtype (bfloat16 by default);
    other device types are unavailable and disable themselves with PyTorch's warning."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        supported = [d for d in (getattr(_dtype, "bfloat16", None), _dtype.float16) if d is not None]
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
            elif self.fast_dtype not in supported:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              + ", ".join(map(str, [getattr(_dtype, "bfloat16", "torch.bfloat16"),
                                                    _dtype.float16])) + " currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        _update_hook()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        _update_hook()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you "
                "mean to use autocast as a context manager? For example:\n    with "
                "torch.autocast(device_type=...):\n        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _update_hook():
    """Install the CPU casting hook while CPU autocast is on (nothing is paid otherwise)."""
    from .._hooks import set_autocast
    set_autocast(_cast_hook if _state.enabled.get("cpu") else None)


# Note [CPU autocast]
# PyTorch's CPU autocast runs these ops in the fast dtype (its lower_precision_fp list for
# CPU, aten/src/ATen/autocast_mode.cpp): their floating inputs other than float64 are cast
# first. Ops on the fp32 list are left alone here: chainrule tensors reaching them are
# float32 already unless the user made them lower precision.
_LOWER_PRECISION = frozenset((
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm",
    "linear", "_convolution", "convolution", "matmul", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "prelu", "scaled_dot_product_attention",
))


def _cast_hook(call, row, inputs, params):
    if row.name.split(".")[0] in _LOWER_PRECISION:
        target = get_autocast_dtype("cpu")
        inputs = tuple(_cast(x, "cpu", target) for x in inputs)
    return call(row, inputs, params)


def _cast(value, device_type, dtype):
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.dtype is not _dtype.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's forward: records the autocast state (and, with
    cast_inputs, runs forward with inputs cast and autocast off)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if on:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's backward: runs it in forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
