"""torch.nn.attention: which kernels scaled_dot_product_attention may use (sdpa_kernel and the
backend flags of torch.backends.cuda, which the CPU choice reads), SDPAParams and the fused
kernels' checks (False on a CPU build), and the flash-attention implementation registry as
PyTorch's CPU build answers it (FA3 and FA4 registered; activating one imports its CUDA
package, which is absent)."""
import contextlib
import importlib
import logging
from warnings import warn

from ...backends import cuda as _cuda
from ...backends.cuda import (SDPAParams, SDPBackend, can_use_efficient_attention,  # noqa: F401
                              can_use_flash_attention)

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS",
           "register_flash_attention_impl", "activate_flash_attention_impl",
           "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

SDPBackend.__module__ = __name__    # where PyTorch documents it

# when True, SDPA calls with a bias subclass warn why the fused kernels could not run
WARN_FOR_UNFUSED_KERNELS = False


def _raise_kernel_warnings(params):
    """With WARN_FOR_UNFUSED_KERNELS, warn why the fused kernels cannot run."""
    if WARN_FOR_UNFUSED_KERNELS:
        if not can_use_efficient_attention(params):
            warn("Efficient attention can't be used because:", stacklevel=2)
            can_use_efficient_attention(params, True)
        if not can_use_flash_attention(params):
            warn("Flash attention can't be used because:", stacklevel=2)
            can_use_flash_attention(params, True)


_backend_flags = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                  "mem_efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH,
                  "overrideable": SDPBackend.OVERRIDEABLE}
# the order the CUDA selection tries backends in (flash, efficient, math, cuDNN, overrideable)
_priority = [1, 2, 0, 3, 4]


def _cur_sdpa_kernel_backends(with_priority=False):
    backends = [b for name, b in _backend_flags.items() if _cuda._sdp[name]]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(int(b)))
    return backends


def _sdpa_kernel(backends, set_priority=False):
    for name, b in _backend_flags.items():
        _cuda._sdp[name] = b in backends
    if set_priority:
        user = [int(b) for b in backends]
        _priority[:] = user + [b for b in _priority if b not in user]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enable only `backends` (one SDPBackend or a list) for scaled_dot_product_attention in
    the block; with set_priority their order is the order they are tried in."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


# ---- the flash-attention implementation registry --------------------------------------------

_logger = logging.getLogger(__name__ + "._registry")
_FLASH_ATTENTION_IMPLS = {}
_FLASH_ATTENTION_ACTIVE = None       # (name, handle) of the activated implementation


def register_flash_attention_impl(impl, *, register_fn):
    """Register the callable that activates flash-attention implementation `impl`."""
    _FLASH_ATTENTION_IMPLS[impl] = register_fn


def activate_flash_attention_impl(impl):
    """Activate a registered implementation (after restoring the default); the handle its
    register function returns is kept."""
    global _FLASH_ATTENTION_ACTIVE
    restore_flash_attention_impl(_raise_warn=False)
    register_fn = _FLASH_ATTENTION_IMPLS.get(impl)
    if register_fn is None:
        raise ValueError(f"Unknown flash attention impl '{impl}'. Available implementations: "
                         f"{list_flash_attention_impls()}")
    handle = register_fn()
    if handle is not None:
        _FLASH_ATTENTION_ACTIVE = (impl, handle)


def list_flash_attention_impls():
    """The names of the registered implementations, sorted."""
    return sorted(_FLASH_ATTENTION_IMPLS)


def current_flash_attention_impl():
    """The activated implementation's name, or None."""
    return None if _FLASH_ATTENTION_ACTIVE is None else _FLASH_ATTENTION_ACTIVE[0]


def restore_flash_attention_impl(_raise_warn=True):
    """Back to the default (FA2) implementation."""
    global _FLASH_ATTENTION_ACTIVE
    handle = None if _FLASH_ATTENTION_ACTIVE is None else _FLASH_ATTENTION_ACTIVE[1]
    if handle is not None:
        handle.remove()
    elif _raise_warn:
        _logger.warning("Trying to restore default FA2 impl when no custom impl was activated")
    _FLASH_ATTENTION_ACTIVE = None


def _register_from(module_path):
    # FA3/FA4 kernels live in CUDA packages (flash_attn_interface, flash_attn.cute.interface);
    # importing one is where PyTorch's CPU build stops
    def register_fn(module_path=module_path):
        importlib.import_module(module_path)
        raise RuntimeError(f"Module '{module_path}' does not expose flash attention kernels "
                           "chainrule can run (they are CUDA kernels)")
    return register_fn


register_flash_attention_impl("FA3", register_fn=_register_from("flash_attn_interface"))
register_flash_attention_impl("FA4", register_fn=_register_from("flash_attn.cute.interface"))

from . import bias  # noqa: E402,F401  (SDPA hands a CausalBias mask its call)
from . import experimental, flex_attention  # noqa: E402,F401
