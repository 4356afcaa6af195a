"""swap_in_optimizer_params_and_state, as torch.optim's: run an optimizer over other
parameters and another state dict for the duration of a with block."""
import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _validate_state_field(state):
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed "
            f"parameter ids to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           "packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")
    return state


def _validate_param_groups_field(optimizer, param_groups):
    if not isinstance(param_groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of "
            f"param-group dicts, got {type(param_groups).__name__}.")
    if len(optimizer.param_groups) != len(param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups "
                           "than the live optimizer.")
    return param_groups


def _validate_group_against_live(idx, group, swapin_group):
    """The packed parameter ids of one swap-in group, after checking it is a dict with as
    many ids as the live group has parameters, and the same keys."""
    if not isinstance(swapin_group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin_group.get("params")
    if not isinstance(ids, list) or not all(isinstance(pid, int) for pid in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                           "param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(group["params"]) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of "
                           "params than the live optimizer param group.")
    swapin_only = [k for k in swapin_group if k not in group]
    live_only = [k for k in group if k not in swapin_group]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match "
            f"the live optimizer group keys for group {idx}. Keys only in swap-in: "
            f"{swapin_only}. Keys only in live: {live_only}.")
    return ids


def _prepare_swap_in(optimizer, swapin_parameters, swapin_optim_state):
    """The swap-in state and, per group, (live group, swap-in group, swap-in tensors)."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    swapin_state = _validate_state_field(swapin_optim_state.get("state"))
    swapin_groups = _validate_param_groups_field(optimizer,
                                                 swapin_optim_state.get("param_groups"))
    flat = list(swapin_parameters.values())
    offset = 0
    seen = set()
    infos = []
    for idx, (group, swapin_group) in enumerate(zip(optimizer.param_groups, swapin_groups)):
        ids = _validate_group_against_live(idx, group, swapin_group)
        seen.update(ids)
        if offset + len(ids) > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        infos.append((group, swapin_group, flat[offset:offset + len(ids)]))
        offset += len(ids)
    extra_keys = [k for k in swapin_state if k not in seen]
    if extra_keys:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed "
            f"parameter ids from param_groups[*]['params']; got extra keys {extra_keys!r}.")
    return swapin_state, infos


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the block, `optimizer` steps `swapin_parameters` (a dict of tensors in the
    order of its parameters) with the state and group options of `swapin_optim_state` (an
    optimizer.state_dict()); its own parameters, options and state come back on exit.
    Per-parameter state dicts are copied shallowly: their tensors are updated in place."""
    state, infos = _prepare_swap_in(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    original_groups = [dict(g) for g in optimizer.param_groups]
    try:
        swapin_state = defaultdict(dict)
        for live_group, swapin_group, swapin_params in infos:
            live_group["params"] = swapin_params
            live_group.update((k, v) for k, v in swapin_group.items() if k != "params")
            for param, param_id in zip(swapin_params, swapin_group["params"]):
                swapin_state[param] = dict(state.get(param_id, {}))
        optimizer.state = swapin_state
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, original_groups):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
