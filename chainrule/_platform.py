"""torch-level settings and queries: deterministic algorithms, warn-always, float32 matmul
precision, denormal flushing, threads, and small type queries (typename, is_storage,
is_nonzero, ...). Settings PyTorch keeps as global flags are kept here with its validation."""
import os
import warnings

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_flush_denormal",
           "set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads", "init_num_threads", "typename", "is_storage",
           "is_nonzero", "is_same_size", "is_signed", "get_device_module",
           "set_default_tensor_type", "compiled_with_cxx11_abi"]


class _State:
    deterministic = False
    deterministic_warn_only = False
    warn_always = False
    matmul_precision = "highest"
    num_threads = None          # set_num_threads' value (None: not set)
    interop_threads = None


_state = _State()


# ---- determinism: chainrule's kernels are all deterministic, so these are flags only ------

def use_deterministic_algorithms(mode, *, warn_only=False):
    """Require deterministic algorithms (every chainrule op already is one)."""
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state.deterministic = mode
    _state.deterministic_warn_only = warn_only


def are_deterministic_algorithms_enabled():
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _state.deterministic_warn_only


def set_deterministic_debug_mode(debug_mode):
    """0/'default': off, 1/'warn': warn-only deterministic mode, 2/'error': deterministic."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state.deterministic:
        return 0
    return 1 if _state.deterministic_warn_only else 2


# ---- warnings ----------------------------------------------------------------------------

def set_warn_always(b, /):
    """Make warnings PyTorch gives once per process appear every time."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state.warn_always = b


def is_warn_always_enabled():
    return _state.warn_always


# ---- float32 matmul precision (a flag: NumPy's float32 matmul is always IEEE) -------------

_PRECISION_FP32 = {"highest": ("ieee", "ieee"), "high": ("tf32", "tf32"),
                   "medium": ("tf32", "bf16")}


def set_float32_matmul_precision(precision):
    """Set the internal precision of float32 matrix multiplications ('highest', 'high',
    'medium'). Recorded, with PyTorch's effect on the backend flags; chainrule's float32
    matmul stays IEEE float32 (as PyTorch's CPU kernels do)."""
    from .backends import _set_fp32
    from .backends.cuda import _cublas
    if precision not in _PRECISION_FP32:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state.matmul_precision = precision
    cuda, mkldnn = _PRECISION_FP32[precision]
    _set_fp32("cuda", "matmul", cuda)
    _set_fp32("mkldnn", "matmul", mkldnn)
    _cublas["allow_tf32"] = precision != "highest"


def get_float32_matmul_precision():
    return _state.matmul_precision


def set_matmul_precision_from_tf32(allow_tf32):
    """torch.backends.cuda.matmul.allow_tf32 = ...: PyTorch ties it to the matmul precision."""
    from .backends import _set_fp32
    _state.matmul_precision = "high" if allow_tf32 else "highest"
    _set_fp32("cuda", "matmul", "tf32" if allow_tf32 else "ieee")


def set_flush_denormal(mode):
    """Flush denormal floats to zero. Returns whether that is supported: NumPy gives no
    control over the CPU's flush-to-zero mode, so it is not (False), and nothing changes, as
    in PyTorch on a CPU without the feature."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


# ---- threads -----------------------------------------------------------------------------
# chainrule's parallelism is NumPy's BLAS thread pool. With threadpoolctl installed (the
# `threads` extra) set_num_threads resizes that pool and get_num_threads reads it; without
# it they only record and report the number. There is no inter-op pool: those calls record.

def _blas_controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController().select(user_api="blas")


def _positive(n, name):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(int):
    """Set the number of threads of intra-op parallelism (NumPy's BLAS pool)."""
    _positive(int, "set_num_threads")
    _state.num_threads = int
    pools = _blas_controller()
    if pools is not None and pools.lib_controllers:
        pools.limit(limits=int)


def get_num_threads():
    """The number of threads of intra-op parallelism."""
    pools = _blas_controller()
    if pools is not None and pools.lib_controllers:
        return max(c.num_threads for c in pools.lib_controllers)
    if _state.num_threads is not None:
        return _state.num_threads
    return _default_threads()


def _default_threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def set_num_interop_threads(int):
    _positive(int, "set_num_interop_threads")
    _state.interop_threads = int


def get_num_interop_threads():
    return _state.interop_threads if _state.interop_threads is not None else _default_threads()


def init_num_threads():
    """Initialize the thread pools (NumPy's is ready; nothing to do)."""


# ---- type queries --------------------------------------------------------------------------

def typename(obj, /):
    """The type of `obj` as a string ('torch.FloatTensor' for tensors)."""
    from ._tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


def is_storage(obj, /):
    """Whether `obj` is a storage (UntypedStorage or TypedStorage)."""
    from ._storage import is_storage
    return is_storage(obj)


def _tensor_arg(fname, name, position, value):
    from ._tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def is_nonzero(input):
    """Whether a one-element tensor is nonzero (its truth value)."""
    _tensor_arg("is_nonzero", "input", 1, input)
    return bool(input)


def is_same_size(input, other):
    _tensor_arg("is_same_size", "input", 1, input)
    _tensor_arg("is_same_size", "other", 2, other)
    return input._data.shape == other._data.shape


def is_signed(input):
    _tensor_arg("is_signed", "input", 1, input)
    return input.dtype.is_signed


def is_distributed(input):
    """Whether input is distributed across processes: never, for a CPU tensor."""
    _tensor_arg("is_distributed", "input", 1, input)
    return False


def get_device(input):
    """The device index of input: -1 for the CPU."""
    _tensor_arg("get_device", "input", 1, input)
    return -1


_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is "
    "deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
    "reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
    "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = "
    "torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")


def solve(input, A, *, out=None):
    """Removed in PyTorch 1.9 for torch.linalg.solve; raises PyTorch's error."""
    raise RuntimeError(_SOLVE_REMOVED)


_REINFORCE_REMOVED = (
    "reinforce() was removed.\nUse torch.distributions instead.\nSee "
    "https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = "
    "policy_network(state)\naction = probs.multinomial()\nnext_state, reward = "
    "env.step(action)\naction.reinforce(reward)\naction.backward()\n\nUse:\n\nprobs = "
    "policy_network(state)\n# NOTE: categorical is equivalent to what used to be called "
    "multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\n"
    "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
    "loss.backward()\n")


class FatalError(Exception):
    """torch.FatalError: an unrecoverable error of the runtime."""


class StorageBase:
    """torch.StorageBase, the base of PyTorch's C storage type; chainrule's storages are
    UntypedStorage and TypedStorage."""


def _install_tensor_methods():
    """Tensor methods that are these functions, or PyTorch's errors for removed ones."""
    from ._tensor import Tensor

    def reinforce(self, reward):
        raise RuntimeError(_REINFORCE_REMOVED)

    def solve(self, A):
        raise RuntimeError(_SOLVE_REMOVED)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """A dense tensor: this one (converted to dtype when given), as for PyTorch's strided
        tensors."""
        return self if dtype is None else self.to(dtype)

    for f in (reinforce, solve, to_dense, is_nonzero, is_same_size, is_signed, is_distributed):
        setattr(Tensor, f.__name__, f)


_install_tensor_methods()


def compiled_with_cxx11_abi():
    """Whether the C++ parts were built with the C++11 ABI: chainrule has none; PyTorch's
    wheels answer True."""
    return True


def get_device_module(device=None):
    """The module of a device type (chainrule.cuda for 'cuda'; chainrule.cpu by default)."""
    import chainrule
    from ._device import device as _device
    if isinstance(device, _device):
        name = device.type
    elif isinstance(device, str):
        name = _device(device).type
    elif device is None:
        name = "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(chainrule, name, None) if name in _DEVICE_MODULES else None
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as "
                           f"'torch.{name}'.")
    return module


_DEVICE_MODULES = ("cpu", "cuda", "mps", "xpu", "mtia")


def set_default_tensor_type(t, /):
    """Deprecated: set the default floating dtype from a legacy type (torch.DoubleTensor or
    'torch.DoubleTensor')."""
    from . import _dtype
    from ._tensor import _parse_type
    if isinstance(t, str):
        if t.startswith("torch.cuda."):
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if not t.startswith("torch."):
            raise ModuleNotFoundError(f"No module named '{t.rsplit('.', 1)[0]}'",
                                      name=t.rsplit(".", 1)[0])
        d = _parse_type(t)
    elif callable(t) and getattr(t, "__name__", "").endswith("Tensor") and \
            not isinstance(t, _dtype.dtype):
        if getattr(t, "__module__", "") == "torch.cuda":
            raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled "
                            "with CUDA enabled.")
        d = _parse_type(f"torch.{t.__name__}")
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not _warned_default_tensor_type or _state.warn_always:
        # PyTorch warns once per process (TORCH_WARN_ONCE)
        _warned_default_tensor_type.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(d)


_warned_default_tensor_type = []
