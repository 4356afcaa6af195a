"""Join: training on uneven inputs. A rank that runs out of data leaves the `with` block
and, until every rank has, runs its joinables' hooks, which issue the collectives the
still-training ranks issue in each iteration (with contributions that change nothing), so
their collectives complete instead of waiting for it forever.

Each iteration the ranks agree, by an all-reduce, on how many have not joined: a training
rank contributes 1 (Join.notify_join_context, from its first joinable, before its own
collectives), a joined rank 0."""
import warnings
from abc import ABC, abstractmethod
from typing import NamedTuple

from ... import distributed as dist
from ..._creation import ones, zeros

__all__ = ["JoinHook", "Joinable", "Join"]

# iterations a joined rank shadows before it warns that the inputs are very uneven
_SKEW_WARNING = 1000


class JoinHook:
    """What a joinable does once its rank has joined: main_hook() once per iteration of the
    ranks still training (shadowing their collectives), post_hook(is_last_joiner) once all
    have joined. Both do nothing by default."""

    def main_hook(self):
        """Shadow one training iteration's collectives."""

    def post_hook(self, is_last_joiner):
        """Called when every rank has joined; is_last_joiner: this rank was among the last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(False, False, False)


class Joinable(ABC):
    """A class whose instances can take part in Join: join_hook(**kwargs) gives its
    JoinHook, join_device and join_process_group where the join's own all-reduces run."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        """This joinable's JoinHook; every joinable of one Join gets the same kwargs."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the join's collectives."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The process group of the join's collectives."""


class Join:
    """Context manager for uneven inputs across ranks: `with Join([model, ...]):` around the
    training loop. enable=False turns it off; throw_on_early_termination=True makes every
    rank raise as soon as one has run out of inputs, instead of shadowing."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for k, j in enumerate(joinables):
            j._join_config = _JoinConfig(enable, throw_on_early_termination, k == 0)
        self._process_group = joinables[0].join_process_group
        if any(j.join_process_group != self._process_group for j in joinables[1:]):
            raise ValueError("Using join context manager with multiple process groups")
        self._rank = dist.get_rank(self._process_group)
        self._device = joinables[0].join_device

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        """Shadow the other ranks' iterations until every rank has joined, then run the
        post-hooks. An exception inside the block passes through untouched."""
        if not self._enable or exc_type is not None:
            return
        shadowed = 0
        while self._count_training_ranks() > 0:
            if shadowed > _SKEW_WARNING:
                warnings.warn(f"Detected uneven input skew of greater than {_SKEW_WARNING}. "
                              f"This means that rank {self._rank} has at least "
                              f"{_SKEW_WARNING} fewer inputs than other currently-active "
                              "ranks. This level of skew could lead to performance "
                              "degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                # the others' notify_join_context learns of it from this all-reduce
                dist.all_reduce(ones(1, device=self._device), group=self._process_group)
                raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")
            for hook in self._join_hooks:
                hook.main_hook()
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(shadowed == 0)

    def _count_training_ranks(self):
        """The number of ranks that have not joined (this one contributes 0); matches
        notify_join_context's asynchronous all-reduce on the training ranks."""
        count = zeros(1, device=self._device)
        dist.all_reduce(count, group=self._process_group, async_op=True).wait()
        return count.item()

    @staticmethod
    def notify_join_context(joinable):
        """Tell the Join around this iteration (if any) that this rank is still training:
        called by a joinable before its per-iteration collectives. Only the first joinable
        of the Join communicates; it returns the asynchronous all-reduce's Work (its result,
        once done, is the number of training ranks), the others None. With
        throw_on_early_termination it raises once some rank has joined."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the "
                                 "``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        group = joinable.join_process_group
        work = dist.all_reduce(ones(1, device=joinable.join_device), group=group,
                               async_op=True)
        if config.throw_on_early_termination:
            joined = zeros(1, device=joinable.join_device)
            dist.all_reduce(joined, group=group)
            if joined.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        return work
