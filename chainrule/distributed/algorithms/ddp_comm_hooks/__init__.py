"""DistributedDataParallel's communication hooks (register with
DistributedDataParallel.register_comm_hook, or by name with register_ddp_comm_hook):
default_hooks (all-reduce, fp16/bf16 compression and the wrappers), powerSGD_hook
(low-rank compression), quantization_hooks (uint8 by all-gather) and debugging_hooks (a
no-op, for headroom analysis)."""
import enum
from functools import partial

from . import debugging_hooks, default_hooks, powerSGD_hook, quantization_hooks  # noqa: F401
from . import debugging_hooks as debugging
from . import default_hooks as default
from . import powerSGD_hook as powerSGD
from . import quantization_hooks as quantization

__all__ = ["DDPCommHookType", "register_ddp_comm_hook"]


def _register(comm_hook, model, state):
    model.register_comm_hook(state, comm_hook)


def _register_powerSGD(comm_hook, model, state, matrix_approximation_rank,
                       start_powerSGD_iter=1_000):
    """PowerSGD's state built around `state`, the process group."""
    model.register_comm_hook(powerSGD.PowerSGDState(
        process_group=state, matrix_approximation_rank=matrix_approximation_rank,
        start_powerSGD_iter=start_powerSGD_iter), comm_hook)


# a partial as an enum value must be marked a member (Python 3.11 and later)
_member = getattr(enum, "member", lambda value: value)


class DDPCommHookType(enum.Enum):
    """The hooks by name: DDPCommHookType.FP16_COMPRESS.value(model=ddp, state=group)
    registers fp16_compress_hook on ddp (PowerSGD's take the group and build their state:
    rank 1 or 2, batched or not)."""
    ALLREDUCE = _member(partial(_register, comm_hook=default.allreduce_hook))
    FP16_COMPRESS = _member(partial(_register, comm_hook=default.fp16_compress_hook))
    BF16_COMPRESS = _member(partial(_register, comm_hook=default.bf16_compress_hook))
    QUANTIZE_PER_TENSOR = _member(partial(
        _register, comm_hook=quantization.quantization_pertensor_hook))
    QUANTIZE_PER_CHANNEL = _member(partial(
        _register, comm_hook=quantization.quantization_perchannel_hook))
    POWER_SGD = _member(partial(_register_powerSGD, comm_hook=powerSGD.powerSGD_hook,
                                matrix_approximation_rank=1))
    POWER_SGD_RANK2 = _member(partial(_register_powerSGD, comm_hook=powerSGD.powerSGD_hook,
                                      matrix_approximation_rank=2))
    BATCHED_POWER_SGD = _member(partial(
        _register_powerSGD, comm_hook=powerSGD.batched_powerSGD_hook,
        matrix_approximation_rank=1))
    BATCHED_POWER_SGD_RANK2 = _member(partial(
        _register_powerSGD, comm_hook=powerSGD.batched_powerSGD_hook,
        matrix_approximation_rank=2))
    NOOP = _member(partial(_register, comm_hook=debugging.noop_hook))


def register_ddp_comm_hook(comm_hook_type, model, state=None):
    """Register the hook comm_hook_type names on the DDP model, with `state`."""
    comm_hook_type.value(model=model, state=state)
