"""Process groups and collectives, as torch.distributed's, for CPU data-parallel jobs on MPI.

mpi4py is imported by init_process_group only, so `import chainrule` (and
`import chainrule.distributed`) works without it. Tensors are exchanged zero-copy: a
contiguous tensor's NumPy array is MPI's buffer, written in place. Data movement (broadcast,
gathers, scatter, point-to-point) sends raw bytes, so every dtype travels; reductions use MPI's
own operation where MPI has the type and the operation, and otherwise gather every rank's
bytes and reduce them in NumPy.
"""
import contextlib
import datetime
import enum
import os
import sys
import threading
import time
import traceback
import typing
import warnings

import numpy as np

from .. import futures
from .._tensor import Tensor, make_tensor
from ..profiler import _collector
from .constants import default_pg_timeout

__all__ = [
    "Backend", "ReduceOp", "reduce_op", "Work", "ProcessGroup", "GroupMember", "group",
    "P2POp", "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
    "QueueEmptyError", "default_pg_timeout", "is_available", "is_mpi_available",
    "is_gloo_available", "is_nccl_available", "is_ucc_available", "is_xccl_available",
    "is_backend_available", "is_torchelastic_launched", "supports_complex",
    "get_node_local_rank", "get_default_backend_for_device", "init_process_group",
    "is_initialized", "destroy_process_group", "new_group", "new_subgroups",
    "new_subgroups_by_enumeration", "get_rank", "get_world_size", "get_backend",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_pg_count", "barrier",
    "monitored_barrier", "all_reduce", "all_reduce_coalesced", "all_gather_coalesced",
    "broadcast", "reduce", "all_gather",
    "all_gather_into_tensor", "all_gather_single", "reduce_scatter", "reduce_scatter_tensor",
    "reduce_scatter_single", "gather", "scatter", "all_to_all", "all_to_all_single", "send",
    "recv", "isend", "irecv", "batch_isend_irecv", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list",
    "recv_object_list", "GroupName", "RankType", "DebugLevel", "get_debug_level",
    "set_debug_level", "set_debug_level_from_env", "breakpoint", "record_comm", "split_group",
    "shrink_group", "SHRINK_DEFAULT", "SHRINK_ABORT", "GradBucket",
]

_NO_PG = ("Default process group has not been initialized, please make sure to call "
          "init_process_group.")
_NO_MPI = ("chainrule.distributed runs on MPI through mpi4py, which is not installed: "
           "pip install 'chainrule[distributed]' (mpi4py and mpich)")


class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library."""


class DistBackendError(DistError):
    """Raised when a backend error occurs in distributed."""


class DistNetworkError(DistError):
    """Raised when a network error occurs in distributed."""


class DistStoreError(DistError):
    """Raised when an error occurs in the distributed store."""


class QueueEmptyError(DistStoreError):
    """Raised when a store queue is empty."""


class Backend(str):
    """The name of a communication backend: a lower-case string (Backend("MPI") == "mpi").
    Every CPU backend name runs on MPI in chainrule."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        return str(name).lower()


class _RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class ReduceOp:
    """The reduction of all_reduce, reduce and reduce_scatter: ReduceOp.SUM, AVG, PRODUCT,
    MIN, MAX and the bitwise BAND, BOR, BXOR."""
    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM


class _reduce_op:
    """reduce_op, ReduceOp's deprecated name: its members, with a FutureWarning."""

    def __getattribute__(self, key):
        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use "
                      "`torch.distributed.ReduceOp` instead", FutureWarning, stacklevel=2)
        if key in _RedOpType.__members__:
            return _RedOpType[key]
        return object.__getattribute__(self, key)


reduce_op = _reduce_op()

_DEFAULT_BACKENDS = {"cpu": Backend.GLOO, "cuda": Backend.NCCL, "xpu": Backend.XCCL}


def get_default_backend_for_device(device):
    """The backend PyTorch pairs with a device type ('gloo' for the CPU, which chainrule
    runs on MPI)."""
    kind = device if isinstance(device, str) else device.type
    if kind not in _DEFAULT_BACKENDS:
        raise ValueError(f"Default backend not registered for device : {device}")
    return _DEFAULT_BACKENDS[kind]


class GroupMember:
    """WORLD (the default group, None before init) and NON_GROUP_MEMBER, what new_group
    returns on ranks outside the group."""
    WORLD = None
    NON_GROUP_MEMBER = -100


class ProcessGroup:
    """A set of ranks with its own MPI communicator; `_timeout` bounds how long its barriers
    wait."""

    def __init__(self, comm, ranks, backend, timeout=default_pg_timeout):
        self._comm = comm
        self._ranks = ranks
        self._backend = backend
        self._timeout = timeout

    def rank(self):
        return self._comm.Get_rank()

    def size(self):
        return self._comm.Get_size()

    def name(self):
        return self._backend

    def __repr__(self):
        return f"ProcessGroup(backend={self._backend!r}, ranks={self._ranks})"


class _World:
    """The default group and every group made since init, with their ranks."""
    MPI = None
    default = None
    groups = []
    count = 0       # groups created since init, on every rank (members or not)
    inflight = []   # asynchronous works not known to be complete
    future_works = []   # works whose futures were asked for, oldest first


class _GroupNamespace:
    @property
    def WORLD(self):
        return _World.default


group = _GroupNamespace()


def _mpi():
    if _World.MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise RuntimeError(_NO_MPI) from e
        _World.MPI = MPI
    return _World.MPI


# ---- availability and lifetime ----------------------------------------------------------

def is_available():
    """Whether the distributed package is there: always (MPI itself is needed at init)."""
    return True


def is_mpi_available():
    """Whether mpi4py (and so an MPI library) can be imported."""
    try:
        _mpi()
    except RuntimeError:
        return False
    return True


def is_gloo_available():
    """Whether backend='gloo' works: it is an alias that runs on MPI."""
    return is_mpi_available()


def is_nccl_available():
    """NCCL is CUDA's: never."""
    return False


def is_ucc_available():
    """UCC is not built in: never."""
    return False


def is_xccl_available():
    """XCCL is Intel GPUs': never."""
    return False


def is_backend_available(backend):
    """Whether the named backend can be used."""
    return Backend(backend) in (Backend.MPI, Backend.GLOO) and is_mpi_available()


def is_torchelastic_launched():
    """Whether torchrun started this process: never, chainrule's jobs start under mpiexec."""
    return False


def supports_complex(reduceOp):
    """Whether the reduction is defined on complex tensors (not MIN, MAX or bitwise ones)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)


def get_node_local_rank(fallback_rank=None):
    """This process's rank among those on its machine: LOCAL_RANK as torchrun sets it, else
    MPI_LOCALRANKID as MPICH's mpiexec sets it, else fallback_rank."""
    for name in ("LOCAL_RANK", "MPI_LOCALRANKID"):
        if name in os.environ:
            return int(os.environ[name])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running in "
                       "a multi-device context and want the code to run locally instead.")


# ---- names for types, debugging --------------------------------------------------------

GroupName = typing.NewType("GroupName", str)
# a rank: an int (PyTorch's also admits a SymInt, which chainrule does not have)
RankType = int


class DebugLevel(enum.Enum):
    """How much the package checks and reports (TORCH_DISTRIBUTED_DEBUG): OFF; INFO and
    DETAIL make DistributedDataParallel name the parameters that got no gradient."""
    OFF = 0
    INFO = 1
    DETAIL = 2

    def __int__(self):
        return self.value


DebugLevel.__module__ = __name__
_debug_level = [DebugLevel.OFF]


def get_debug_level():
    """The package's debug level (a DebugLevel)."""
    return _debug_level[0]


def set_debug_level(level):
    """Set the package's debug level (a DebugLevel)."""
    if not isinstance(level, DebugLevel):
        raise TypeError("set_debug_level(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. (arg0: torch._C._distributed_"
                        f"c10d.DebugLevel) -> None\n\nInvoked with: {level!r}")
    _debug_level[0] = level


def set_debug_level_from_env():
    """Set the debug level from TORCH_DISTRIBUTED_DEBUG (OFF, INFO or DETAIL, any case;
    unset means OFF)."""
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    _debug_level[0] = DebugLevel[value]


set_debug_level_from_env()      # as PyTorch, read once at import


_comm_name = threading.local()


@contextlib.contextmanager
def record_comm(name):
    """Collectives started inside are recorded under `name` too in the profiler (next to
    c10d's and the backend's own events)."""
    before = getattr(_comm_name, "value", None)
    _comm_name.value = name
    try:
        yield
    finally:
        _comm_name.value = before


def _profiled(c10d_name, mpi_name):
    """A collective as PyTorch's profile shows it: 'c10d::<op>', record_comm's name if any,
    and the backend's event ('mpi:<collective>'). Free when no profiler records."""
    def wrap(fn):
        def collective(*args, **kwargs):
            collector = _collector.active()
            if collector is None:
                return fn(*args, **kwargs)
            start = time.perf_counter_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                end = time.perf_counter_ns()
                collector.annotation("c10d::" + c10d_name, start, end)
                custom = getattr(_comm_name, "value", None)
                if custom is not None:
                    collector.annotation(custom, start, end)
                collector.annotation(mpi_name, start, end)
        collective.__name__ = collective.__qualname__ = fn.__name__
        collective.__doc__ = fn.__doc__
        collective.__wrapped__ = fn
        return collective
    return wrap


_breakpoint_calls = {}


def breakpoint(rank=0, skip=0, timeout_s=3600):
    """Stop in pdb on one rank (reading commands from the terminal); the other ranks wait
    at a barrier until it continues. skip: let the first `skip` calls from this line pass.
    timeout_s (None: unchanged) becomes every group's barrier timeout, so a long debugging
    session does not time the others out."""
    if skip > 0:
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        _breakpoint_calls[key] = _breakpoint_calls.get(key, 0) + 1
        if _breakpoint_calls[key] <= skip:
            return
    if timeout_s is not None:
        for pg in _World.groups:
            pg._timeout = datetime.timedelta(seconds=timeout_s)
    if get_rank() == rank:
        import pdb
        debugger = pdb.Pdb()
        debugger.message(f"\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                         f"dist.breakpoint(rank={rank})\n")
        debugger.set_trace()
    barrier()


def _abort_on_uncaught(exc_type, exc, tb):
    """An exception no rank catches ends the whole job: the others may wait in a collective
    for this rank forever, so print the error with its rank and abort every process."""
    MPI = _World.MPI
    rank = MPI.COMM_WORLD.Get_rank()
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write("".join(f"[rank{rank}]: {line}\n" for line in text.splitlines()))
    sys.stderr.flush()
    MPI.COMM_WORLD.Abort(1)


def _check_timeout(timeout):
    """The timeout to use: default_pg_timeout for None, else a timedelta."""
    if timeout is None:
        return default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{timeout}")
    return timeout


def _poll(test, deadline):
    """Call test() until it returns True or time.monotonic() passes deadline: whether it
    did. Sleeps between calls (from 20 us, doubling to 1 ms), so a wait costs little CPU."""
    delay = 2e-5
    while not test():
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(2 * delay, 1e-3)
    return True


_RDZV_TAG = 32000       # point-to-point tags chainrule's own rendezvous uses


def _cancel(receives):
    """Withdraw the receives that have not completed (so that a later wait posts fresh ones
    that the late messages match): those it withdrew."""
    late = [r for r in receives if not r.Test()]
    for r in late:
        r.Cancel()
        r.Wait()
    return late


def _rendezvous(comm, timeout):
    """Every rank checks in with rank 0, which lets them go once all have: rank 0 raises
    PyTorch's store error when some rank has not come within `timeout` (a rank that is slow
    to reach init_process_group), the others when rank 0 does not answer in time."""
    MPI, size, me = _World.MPI, comm.Get_size(), comm.Get_rank()
    deadline = time.monotonic() + timeout.total_seconds()
    secs = int(timeout.total_seconds())
    token = np.zeros(1, np.uint8)
    if me == 0:
        arrivals = [comm.Irecv(np.zeros(1, np.uint8), k, _RDZV_TAG) for k in range(1, size)]
        if not _poll(lambda: MPI.Request.Testall(arrivals), deadline):
            joined = size - len(_cancel(arrivals))
            raise DistStoreError(f"Timed out after {secs} seconds waiting for clients. "
                                 f"{joined}/{size} clients joined.")
        MPI.Request.Waitall([comm.Isend(token, k, _RDZV_TAG) for k in range(1, size)])
    else:
        comm.Isend(token, 0, _RDZV_TAG).Wait()
        go = comm.Irecv(np.zeros(1, np.uint8), 0, _RDZV_TAG)
        if not _poll(go.Test, deadline):
            _cancel([go])
            raise DistStoreError(f"Timed out after {secs} seconds waiting for rank 0 to "
                                 f"start the job ({size} ranks).")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job's default process group: every process started by mpiexec (or one process
    run alone). backend may be None, 'mpi' or 'gloo' (all run on MPI); the rank and world
    size are MPI's, and world_size/rank, when given, must agree with them.

    timeout (default 30 minutes) bounds the rendezvous (every rank must reach
    init_process_group within it, counted once MPI is initialized: MPI_Init itself, run here
    unless mpi4py was imported before, waits for every process of the job without limit)
    and every barrier/monitored_barrier of the group and Work.wait(timeout); other
    collectives wait without limit, but MPI ends the whole job when a rank dies."""
    if _World.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    timeout = _check_timeout(timeout)
    name = Backend(backend) if backend is not None else Backend.MPI
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in (Backend.MPI, Backend.GLOO, "cpu:gloo", "cpu:mpi"):
        raise RuntimeError(f"Invalid backend: '{backend}'")
    MPI = _mpi()
    comm = MPI.COMM_WORLD
    size, me = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, size) or rank not in (-1, me):
        raise ValueError(f"world_size={world_size} and rank={rank} disagree with MPI's: "
                         f"this process is rank {me} of {size} (start the job with mpiexec)")
    if size > 1:
        _rendezvous(comm, timeout)
    _World.default = ProcessGroup(comm, list(range(size)), name.split(":")[-1], timeout)
    _World.groups = [_World.default]
    _World.count = 1
    GroupMember.WORLD = _World.default
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _abort_on_uncaught


def is_initialized():
    """Whether init_process_group has run (and destroy_process_group has not)."""
    return _World.default is not None


def _default():
    if _World.default is None:
        raise ValueError(_NO_PG)
    return _World.default


def destroy_process_group(group=None):
    """Free a group's communicator; with no group, every group and the default one."""
    if group is None or group is GroupMember.WORLD:
        if _World.default is None:
            raise AssertionError("Process group cannot be None")
        for w in _World.inflight:
            w.wait()
        _World.inflight = []
        _free(_World.groups)
        _World.default = GroupMember.WORLD = None
        _World.groups = []
        _World.count = 0
        if sys.excepthook is _abort_on_uncaught:
            sys.excepthook = sys.__excepthook__
    elif group != GroupMember.NON_GROUP_MEMBER:
        _free([group])
        _World.groups.remove(group)


def _free(groups):
    """Free the groups' communicators (not MPI's own COMM_WORLD)."""
    for pg in groups:
        if pg._comm != _World.MPI.COMM_WORLD:
            pg._comm.Free()


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """A group of some ranks with its own communicator. Every rank of the default group calls
    it; ranks outside the group get GroupMember.NON_GROUP_MEMBER."""
    world = _default()
    timeout = _check_timeout(timeout)
    size = world.size()
    ranks = list(range(size)) if ranks is None else list(ranks)
    if sort_ranks:
        ranks = sorted(ranks)
    for r in ranks:
        if r < 0 or r >= size:
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    everyone = world._comm.Get_group()
    members = everyone.Incl(ranks)
    comm = world._comm.Create(members)
    members.Free()
    everyone.Free()
    _World.count += 1
    if comm == _World.MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, world._backend, timeout)
    _World.groups.append(pg)
    return pg


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None,
                                 pg_options=None, group_desc=None):
    """A group for each list of ranks (disjoint lists; every rank calls it with the same
    ones): (this rank's group, all the groups)."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    owner = {}
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and "
                                 f"{ranks}")
            owner[r] = ranks
    groups = [new_group(ranks, timeout, backend, pg_options, group_desc=group_desc)
              for ranks in ranks_per_subgroup_list]
    me = get_rank()
    mine = next((g for g, ranks in zip(groups, ranks_per_subgroup_list) if me in ranks), None)
    return mine, groups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """The group's ranks cut into consecutive subgroups of group_size:
    (this rank's subgroup, all of them)."""
    if group_size is None:
        # PyTorch's default is the number of CUDA devices
        raise ValueError("Default group size only takes effect when CUDA is available.If your "
                         "subgroup using a backend that does not depend on CUDA,please pass in "
                         "'group_size' correctly.")
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    size = get_world_size(group)
    if size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({size})")
    if size % group_size:
        raise ValueError(f"The world size ({size}) must be divisible by '{group_size=}'")
    ranks = get_process_group_ranks(group)
    return new_subgroups_by_enumeration(
        [ranks[i:i + group_size] for i in range(0, size, group_size)], timeout, backend,
        pg_options, group_desc)


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None,
                group_desc=None, backend=None):
    """Split a group into disjoint subgroups (MPI_Comm_split): split_ranks lists them by
    rank within the parent; every rank of the parent calls it with the same list and gets its
    subgroup, or None when it is in none."""
    if split_ranks is None or len(split_ranks) == 0:
        raise ValueError("split_ranks cannot be None or empty")
    parent = _default() if not parent_pg else parent_pg
    if parent not in _World.groups:
        raise ValueError(f"Group {parent} is not registered")
    timeout = _check_timeout(timeout)
    me, mine, color = parent.rank(), None, _World.MPI.UNDEFINED
    for k, ranks in enumerate(split_ranks):
        if len(ranks) == 0:
            raise ValueError("the split group cannot be empty")
        if len(ranks) > _default().size():
            raise ValueError("the split group's size should be less or equal to the "
                             "world_size set by init_process_group")
        if len(ranks) != len(set(ranks)):
            raise ValueError("the split group cannot have duplicate ranks")
        if mine is None and me in ranks:
            mine, color = sorted(ranks), k
    comm = parent._comm.Split(color, me)
    _World.count += 1
    if mine is None:
        return None
    pg = ProcessGroup(comm, [parent._ranks[r] for r in mine], parent._backend, timeout)
    _World.groups.append(pg)
    return pg


SHRINK_DEFAULT = 0
SHRINK_ABORT = 1


def shrink_group(ranks_to_exclude, group=None, shrink_flags=SHRINK_DEFAULT, pg_options=None):
    """A new group of the group's ranks less ranks_to_exclude (ranks within the group),
    built by the remaining ranks only (MPI_Comm_create_group): the excluded ones do not call
    it. Shrinking the default group makes the new one the default (ranks renumbered) and
    destroys every other group."""
    if not isinstance(ranks_to_exclude, list):
        raise TypeError(f"ranks_to_exclude must be a list, but got "
                        f"{type(ranks_to_exclude).__name__}. Example: [1, 3, 5] to exclude "
                        "ranks 1, 3, and 5.")
    if not ranks_to_exclude:
        raise ValueError("ranks_to_exclude cannot be empty. To shrink a group, you must "
                         "specify at least one rank to exclude. Example: [failed_rank_id]")
    if not isinstance(shrink_flags, int) or shrink_flags not in (SHRINK_DEFAULT, SHRINK_ABORT):
        raise ValueError(f"Invalid shrink_flags value: {shrink_flags}. Must be one of: "
                         f"SHRINK_DEFAULT ({SHRINK_DEFAULT}) or SHRINK_ABORT ({SHRINK_ABORT}). "
                         "Use SHRINK_ABORT to abort ongoing operations before shrinking.")
    pg = _default() if group is None else group
    size, me = pg.size(), pg.rank()
    if size <= 1:
        raise ValueError(f"Cannot shrink a process group with size {size}. Group must have at "
                         "least 2 ranks to support shrinking.")
    excluded = set()
    for i, r in enumerate(ranks_to_exclude):
        if not isinstance(r, int):
            raise TypeError(f"All elements in ranks_to_exclude must be integers. Element at "
                            f"index {i} is {type(r).__name__}: {r}")
        if not 0 <= r < size:
            raise ValueError(f"Rank {r} at index {i} is out of bounds for group size {size}. "
                             f"Valid ranks are in range [0, {size - 1}].")
        if r in excluded:
            raise ValueError(f"Duplicate rank {r} found in ranks_to_exclude at index {i}. "
                             "Each rank can only be excluded once.")
        excluded.add(r)
    if len(excluded) >= size:
        raise ValueError(f"Cannot exclude all {size} ranks from process group. At least one "
                         f"rank must remain. Excluding {len(excluded)} ranks.")
    if me in excluded:
        raise RuntimeError(f"Current rank {me} is in the exclusion list and should not call "
                           "shrink_group(). Only non-excluded ranks should participate in the "
                           "shrinking operation. Excluded ranks should terminate their "
                           "processes instead.")
    keep = [r for r in range(size) if r not in excluded]
    members = pg._comm.Get_group().Incl(keep)
    comm = pg._comm.Create_group(members)
    members.Free()
    if pg is _World.default:
        _free(_World.groups)
        new = ProcessGroup(comm, list(range(len(keep))), pg._backend, pg._timeout)
        _World.default = GroupMember.WORLD = new
        _World.groups = [new]
        return new
    new = ProcessGroup(comm, [pg._ranks[r] for r in keep], pg._backend, pg._timeout)
    _free([pg])
    _World.groups[_World.groups.index(pg)] = new
    return new


def _group(group):
    """The group to run on, or None on a rank outside it."""
    if group is None:
        return _default()
    if group == GroupMember.NON_GROUP_MEMBER:
        return None
    return group


def _not_in_group(op_name):
    warnings.warn(f"Running {op_name} on global rank {get_rank()} which does not belong to "
                  "the given group.")


def get_rank(group=None):
    """This process's rank in the group (-1 outside it)."""
    pg = _group(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    """The number of ranks in the group (-1 outside it)."""
    pg = _group(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    """The group's backend name."""
    pg = _group(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend(pg.name())


def get_process_group_ranks(group):
    """The global ranks of the group's members, in group-rank order."""
    return list(_default()._ranks if group is None else group._ranks)


def get_global_rank(group, group_rank):
    """The global rank of the group's member number group_rank (itself on the default
    group)."""
    if group is None or group is _World.default:
        return group_rank
    ranks = group._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank within the group of the process whose global rank is global_rank (itself
    on the default group)."""
    if group is None or group is _World.default:
        return global_rank
    if global_rank not in group._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return group._ranks.index(global_rank)


def get_pg_count():
    """How many process groups were created since init (the default one included)."""
    return _World.count


def _peer(pg, rank, group_rank, default=None):
    """A peer's rank within pg from PyTorch's pair: a global `rank` or a `group_rank`
    (`default`, a group rank, when neither is given and the call has one)."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if group_rank is not None:
        return group_rank
    if rank is None:
        if default is None:
            raise ValueError("Must specify global_rank or group_rank")
        return default
    if pg is _World.default:
        return rank
    return get_group_rank(pg, rank)


# ---- buffers ------------------------------------------------------------------------------

def _check_tensor(t, name):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(t)} instead.")


def _check_tensor_list(ts, name):
    if not isinstance(ts, list) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        "List[torch.Tensor]\n             but got "
                        f"{type(ts)} with elements of type {[type(t) for t in ts]}.")


class _Buffer:
    """A tensor's array as one contiguous MPI buffer: the array itself when it is contiguous
    (zero copy), else a contiguous copy that `done` writes back."""
    __slots__ = ("tensor", "array")

    def __init__(self, tensor):
        self.tensor = tensor
        a = tensor._data
        self.array = a if a.flags.c_contiguous else np.ascontiguousarray(a)

    @property
    def bytes(self):
        return self.array.reshape(-1).view(np.uint8)

    def done(self):
        t = self.tensor
        if self.array is not t._data:
            t._data[...] = self.array
        t._vc[0] += 1


class Work:
    """A collective in flight (async_op=True): wait() blocks until it is done and returns
    True; is_completed() asks without blocking."""

    def __init__(self, requests=(), finish=None, outputs=(), source=None):
        self._requests = list(requests)
        self._finish = finish
        self._outputs = list(outputs)
        # an irecv's (group, MPI.Status), filled in when the receive completes
        self._source = source
        self._done = False
        self._future = None
        if not self._requests:
            self._complete()
        else:
            # MPI writes into the tensors until the work completes, even if the caller
            # drops the Work: keep it (and them) alive until then
            _World.inflight = [w for w in _World.inflight if not w._test()]
            _World.inflight.append(self)

    def _statuses(self):
        return None if self._source is None else [self._source[1]]

    def _complete(self):
        error = None
        if self._finish is not None:
            finish, self._finish = self._finish, None
            try:
                finish()
            except Exception as e:      # noqa: BLE001 - handed to the future's waiters
                if self._future is None:
                    raise
                error = e
        self._done = True
        if self._future is not None:
            if error is None:
                self._future.set_result(self._outputs)
            else:
                self._future.set_exception(error)

    def wait(self, timeout=None):
        """Block until done (True); with a timeout (a nonzero timedelta: zero, PyTorch's
        default, means none), raise DistBackendError when it is not done in time."""
        if self._done:
            return True
        if timeout and not _poll(self._test, time.monotonic()
                                             + _check_timeout(timeout).total_seconds()):
            raise DistBackendError(f"Work timed out after {_ms(timeout)} ms")
        if not self._done:
            _World.MPI.Request.Waitall(self._requests, self._statuses())
            self._complete()
        return True

    def _test(self):
        if not self._done and _World.MPI.Request.Testall(self._requests, self._statuses()):
            self._complete()
        return self._done

    def get_future(self):
        """A chainrule.futures.Future completed, with the list of output tensors, when the
        work is. Waiting on it, or on a future chained to it, completes the pending works
        that have futures, oldest first, in the waiting thread (their then() callbacks run
        there), so every rank runs them in one order."""
        if self._future is None:
            self._future = futures.Future()
            if self._done:
                self._future.set_result(self._outputs)
            else:
                _World.future_works.append(self)
        return self._future

    def synchronize(self):
        self.wait()

    def is_completed(self):
        return self._test()

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def result(self):
        self.wait()
        return self._outputs

    def source_rank(self):
        if self._source is None:
            raise RuntimeError("source_rank is only available for recv and irecv works")
        self.wait()
        pg, status = self._source
        return _global(pg, status.Get_source())


class GradBucket:
    """What a DistributedDataParallel communication hook receives: one bucket of gradients,
    flattened into one 1-D tensor (buffer()), with the parameters they belong to."""

    def __init__(self, index, buffer, parameters, offsets, is_last):
        self._index = index
        self._buffer = buffer
        self._parameters = parameters
        self._offsets = offsets
        self._is_last = is_last

    def index(self):
        """The bucket's position: 0 for the first bucket launched."""
        return self._index

    def buffer(self):
        """The flattened gradients (not divided by the world size)."""
        return self._buffer

    def gradients(self):
        """Each parameter's gradient, as a view into buffer() in the parameter's shape."""
        flat = self._buffer._data
        return [make_tensor(flat[off:off + p.numel()].reshape(p._data.shape))
                for p, off in zip(self._parameters, self._offsets)]

    def parameters(self):
        """The parameters whose gradients the bucket holds, in its order."""
        return list(self._parameters)

    def is_last(self):
        """Whether this is the last bucket of the backward pass."""
        return self._is_last

    def set_buffer(self, buffer):
        """Replace buffer() (a hook that casts the gradients, say)."""
        self._buffer = buffer


def _complete_oldest_work():
    """chainrule.futures' progress function: complete the oldest work whose future was
    asked for (whether there was one)."""
    pending = _World.future_works
    while pending and pending[0]._done:
        pending.pop(0)
    if not pending:
        return False
    pending.pop(0).wait()
    return True


futures._progress.append(_complete_oldest_work)


def _run(async_op, request, finish, outputs=()):
    """Finish a blocking call now, or hand back its Work."""
    work = Work([request] if request is not None else [], finish, outputs)
    if async_op:
        return work
    work.wait()
    return None


# ---- reductions -------------------------------------------------------------------------

_INTS = set("bhilqBHILQ")
_MPI_OPS = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD",
            ReduceOp.MIN: "MIN", ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND",
            ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}
_NP_OPS = {ReduceOp.SUM: np.add, ReduceOp.AVG: np.add, ReduceOp.PRODUCT: np.multiply,
           ReduceOp.MIN: np.minimum, ReduceOp.MAX: np.maximum, ReduceOp.BAND: np.bitwise_and,
           ReduceOp.BOR: np.bitwise_or, ReduceOp.BXOR: np.bitwise_xor}


def _op(op):
    if op not in _NP_OPS:
        raise ValueError(f"Unsupported ReduceOp {op} on the MPI backend")
    return op


def _native(dtype, op):
    """MPI's own operation for this dtype and op, or None when NumPy must reduce."""
    c = dtype.char
    if c in _INTS or (c in "fd" and op not in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)) \
            or (c in "FD" and op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT)):
        return getattr(_World.MPI, _MPI_OPS[op])
    return None


def _reduce_stack(stack, op):
    """Reduce the ranks' arrays stacked on axis 0, in NumPy (AVG included): bool as 0/1, and
    the narrow floating types (float16, bfloat16, float8, complex32) in float32 or complex64,
    rounded once at the end, as PyTorch computes them."""
    dt = stack.dtype
    if dt == np.bool_:
        return _reduce_stack(stack.astype(np.uint8), op).astype(np.bool_)
    if dt.kind not in "iu" and op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if dt.kind not in "iu" and dt.char not in "fdFD":
        wide = np.complex64 if dt.kind in "cW" else np.float32
        return _reduce_stack(stack.astype(wide), op).astype(dt)
    out = np.asarray(_NP_OPS[op].reduce(stack, axis=0))
    if op is ReduceOp.AVG:
        _average(out, len(stack))
    return out


def _average(array, size):
    """AVG after SUM: divide in place (integers divide down, as a floor)."""
    if array.dtype.kind in "iub":
        np.floor_divide(array, size, out=array, casting="unsafe")
    else:
        np.divide(array, size, out=array, casting="unsafe")


def _all_gather_bytes(comm, array):
    """Every rank's array (all the same shape and dtype), stacked on a new axis 0."""
    out = np.empty((comm.Get_size(),) + array.shape, array.dtype)
    comm.Allgather(array.reshape(-1).view(np.uint8), out.reshape(-1).view(np.uint8))
    return out


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce the tensor over every rank of the group, in place on every rank."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_reduce")
    op = _op(op)
    buf = _Buffer(tensor)
    comm, a = pg._comm, buf.array
    mpi_op = _native(a.dtype, op)

    def finish():
        if op is ReduceOp.AVG and mpi_op is not None:
            _average(buf.array, comm.Get_size())
        buf.done()
    if mpi_op is None:
        a[...] = _reduce_stack(_all_gather_bytes(comm, a), op)
        return _run(async_op, None, finish, [tensor])
    if not async_op:
        comm.Allreduce(_World.MPI.IN_PLACE, a, mpi_op)
        return _run(False, None, finish)
    return _run(True, comm.Iallreduce(_World.MPI.IN_PLACE, a, mpi_op), finish, [tensor])


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op=False):
    """all_reduce of several tensors, packed into one buffer per dtype (deprecated)."""
    warnings.warn("`torch.distributed.all_reduce_coalesced` will be deprecated. If you must "
                  "use it, please revisit our documentation later at "
                  "https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=2)
    _check_tensor_list(tensors, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_reduce_coalesced")
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for ts in by_dtype.values():
        flat = make_tensor(np.concatenate([t._data.reshape(-1) for t in ts]))
        all_reduce(flat, op, pg)
        start = 0
        for t in ts:
            t._data[...] = flat._data[start:start + t.numel()].reshape(t._data.shape)
            t._vc[0] += 1
            start += t.numel()
    return _run(async_op, None, None, tensors)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce the tensor over the group into rank dst's tensor (the others keep theirs)."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("reduce")
    op, root = _op(op), _peer(pg, dst, group_dst)
    buf = _Buffer(tensor)
    comm, a = pg._comm, buf.array
    mine = comm.Get_rank() == root
    mpi_op = _native(a.dtype, op)

    def finish():
        if mine:
            if op is ReduceOp.AVG and mpi_op is not None:
                _average(a, comm.Get_size())
            buf.done()
    if mpi_op is None:
        stack = np.empty((comm.Get_size(),) + a.shape, a.dtype) if mine else None
        comm.Gather(buf.bytes, stack.reshape(-1).view(np.uint8) if mine else None, root)
        if mine:
            a[...] = _reduce_stack(stack, op)
        return _run(async_op, None, finish, [tensor])
    send = _World.MPI.IN_PLACE if mine else a
    if not async_op:
        comm.Reduce(send, a if mine else None, mpi_op, root)
        return _run(False, None, finish)
    return _run(True, comm.Ireduce(send, a if mine else None, mpi_op, root), finish, [tensor])


def _reduce_scatter_arrays(comm, full, out, op):
    """out = this rank's block of the reduction of `full` (p blocks of out's size)."""
    mpi_op = _native(full.dtype, op)
    if mpi_op is None:
        stack = _all_gather_bytes(comm, full)
        out[...] = _reduce_stack(stack, op).reshape((comm.Get_size(),) + out.shape)[
            comm.Get_rank()]
    else:
        comm.Reduce_scatter_block(full, out, mpi_op)
        if op is ReduceOp.AVG:
            _average(out, comm.Get_size())


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce `input` (world_size blocks of output's size) over the group and give rank i
    block i, in `output`."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group(group)
    if pg is None:
        return _not_in_group("reduce_scatter_single")
    op = _op(op)
    comm = pg._comm
    if input.numel() != output.numel() * comm.Get_size():
        raise ValueError("input tensor must be the same size as output size times world size")
    out = _Buffer(output)
    _reduce_scatter_arrays(comm, np.ascontiguousarray(input._data), out.array, op)
    return _run(async_op, None, out.done, [output])


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """reduce_scatter_single's deprecated name."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning,
                  stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce input_list[i] over the group into rank i's `output`."""
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    pg = _group(group)
    if pg is None:
        return _not_in_group("reduce_scatter")
    out = _Buffer(output)
    full = np.stack([np.asarray(t._data, dtype=out.array.dtype) for t in input_list])
    _reduce_scatter_arrays(pg._comm, full, out.array, _op(op))
    return _run(async_op, None, out.done, [output])


# ---- data movement ------------------------------------------------------------------------

def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank src's tensor into every rank's tensor."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("broadcast")
    root = _peer(pg, src, group_src)
    comm = pg._comm
    if not 0 <= root < comm.Get_size():
        raise RuntimeError(f"ProcessGroupMPI::broadcast: invalid root rank: {root}")
    buf = _Buffer(tensor)
    if async_op:
        return _run(True, comm.Ibcast(buf.bytes, root), buf.done, [tensor])
    comm.Bcast(buf.bytes, root)
    return _run(False, None, buf.done)


def _check_list_length(ts, size, op):
    if len(ts) != size:
        raise RuntimeError(f"ProcessGroupMPI::{op}: invalid output tensor list at index 0 "
                           f"(expected length {size}, got {len(ts)})")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's tensor, into tensor_list (one tensor per rank) on every rank."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_gather")
    _check_list_length(tensor_list, pg.size(), "allgather")
    stack = _all_gather_bytes(pg._comm, np.ascontiguousarray(tensor._data))
    for t, a in zip(tensor_list, stack):
        t._data[...] = a
        t._vc[0] += 1
    return _run(async_op, None, None, tensor_list)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's input_tensor, concatenated (or stacked) in rank order into output_tensor."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_gather_single")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor "
                         "size")
    out = _Buffer(output_tensor)
    send = np.ascontiguousarray(input_tensor._data, dtype=out.array.dtype)
    comm = pg._comm
    if async_op:
        req = comm.Iallgather(send.reshape(-1).view(np.uint8), out.bytes)
        return _run(True, req, out.done, [output_tensor])
    comm.Allgather(send.reshape(-1).view(np.uint8), out.bytes)
    return _run(False, None, out.done)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """all_gather_single's deprecated name."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def all_gather_coalesced(output_tensor_lists, input_tensor_list, group=None, async_op=False):
    """output_tensor_lists[i][j] = rank i's input_tensor_list[j] (deprecated)."""
    warnings.warn("`torch.distributed.all_gather_coalesced` will be deprecated. If you must "
                  "use it, please revisit our documentation later at "
                  "https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=2)
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_gather_coalesced")
    for j, t in enumerate(input_tensor_list):
        all_gather([outputs[j] for outputs in output_tensor_lists], t, pg)
    return _run(async_op, None, None, output_tensor_lists)


def _check_root_list(mine, tensors, name, world, others):
    """gather's and scatter's list: one tensor per rank on the root, none elsewhere."""
    if mine:
        _check_tensor_list(tensors, name)
        if len(tensors) != world:
            raise ValueError(f"Argument ``{name}`` must have the same size as the world size.")
    elif tensors:
        raise ValueError(f"Argument ``{name}`` must NOT be specified on {others} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's tensor into gather_list on rank dst (only dst passes a list)."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("gather")
    root = _peer(pg, dst, group_dst, 0)
    comm = pg._comm
    mine = comm.Get_rank() == root
    _check_root_list(mine, gather_list, "gather_list", comm.Get_size(), "non-destination")
    a = np.ascontiguousarray(tensor._data)
    stack = np.empty((comm.Get_size(),) + a.shape, a.dtype) if mine else None
    comm.Gather(a.reshape(-1).view(np.uint8),
                stack.reshape(-1).view(np.uint8) if mine else None, root)
    if mine:
        for t, x in zip(gather_list, stack):
            t._data[...] = x
            t._vc[0] += 1
    return _run(async_op, None, None, gather_list or [])


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """scatter_list[i] of rank src into rank i's tensor (only src passes a list)."""
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        return _not_in_group("scatter")
    root = _peer(pg, src, group_src, 0)
    comm = pg._comm
    mine = comm.Get_rank() == root
    _check_root_list(mine, scatter_list, "scatter_list", comm.Get_size(), "non-source")
    stack = np.stack([np.asarray(t._data, dtype=tensor.dtype.np) for t in scatter_list]) \
        if mine and scatter_list else None
    buf = _Buffer(tensor)
    comm.Scatter(stack.reshape(-1).view(np.uint8) if mine else None, buf.bytes, root)
    return _run(async_op, None, buf.done, [tensor])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank i sends its j-th slice of `input` (along dim 0) to rank j, which puts it in its
    i-th slice of `output`; slice sizes are equal unless the split sizes are given."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_to_all_single")
    comm, p = pg._comm, pg.size()
    out = _Buffer(output)
    send = np.ascontiguousarray(input._data, dtype=out.array.dtype)
    row_in = send[0].nbytes if send.ndim else send.nbytes
    row_out = out.array[0].nbytes if out.array.ndim else out.array.nbytes

    def counts(sizes, rows, row):
        sizes = [rows // p] * p if sizes is None else list(sizes)
        c = np.asarray(sizes, dtype=np.int64) * row
        return c, np.concatenate([[0], np.cumsum(c)[:-1]])
    sc, sd = counts(input_split_sizes, send.shape[0] if send.ndim else 1, row_in)
    rc, rd = counts(output_split_sizes, out.array.shape[0] if out.array.ndim else 1, row_out)
    comm.Alltoallv([send.reshape(-1).view(np.uint8), sc, sd, _World.MPI.BYTE],
                   [out.bytes, rc, rd, _World.MPI.BYTE])
    return _run(async_op, None, out.done, [output])


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank i's input_tensor_list[j] into rank j's output_tensor_list[i]."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_to_all")
    sends = [np.ascontiguousarray(t._data, dtype=o.dtype.np).reshape(-1).view(np.uint8)
             for t, o in zip(input_tensor_list, output_tensor_list)]
    recvs = [_Buffer(t) for t in output_tensor_list]

    def layout(arrays):
        c = np.asarray([a.size for a in arrays], dtype=np.int64)
        return c, np.concatenate([[0], np.cumsum(c)[:-1]])
    sc, sd = layout(sends)
    rc, rd = layout([b.bytes for b in recvs])
    flat = np.empty(int(rc.sum()), np.uint8)
    pg._comm.Alltoallv([np.concatenate(sends), sc, sd, _World.MPI.BYTE],
                       [flat, rc, rd, _World.MPI.BYTE])
    for b, start, n in zip(recvs, rd, rc):
        b.bytes[...] = flat[start:start + n]
        b.done()
    return _run(async_op, None, None, output_tensor_list)


def _ms(timeout):
    return int(timeout.total_seconds() * 1000)


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every rank of the group has reached this barrier; a rank still waiting
    after `timeout` (default: the group's) raises DistBackendError."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("barrier")
    # a Work, so that a barrier given up on stays tracked until the late ranks reach it
    work = Work([pg._comm.Ibarrier()])
    if async_op:
        return work
    timeout = _check_timeout(timeout if timeout is not None else pg._timeout)
    if not _poll(work._test, time.monotonic() + timeout.total_seconds()):
        raise DistBackendError(f"[Rank {pg.rank()}]: barrier timed out after "
                               f"{_ms(timeout)} ms: some rank of the group did not reach it")
    return None


_MONITOR_TAG = 32001


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that names the late ranks: every rank reports to the group's rank 0, which
    raises (PyTorch's message) for the first rank, or with wait_all_ranks all the ranks, that
    did not within `timeout`, and otherwise releases them."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("monitored_barrier")
    timeout = _check_timeout(timeout if timeout is not None else pg._timeout)
    comm, me, size = pg._comm, pg.rank(), pg.size()
    deadline = time.monotonic() + timeout.total_seconds()
    token = np.zeros(1, np.uint8)
    if me != 0:
        comm.Isend(token, 0, _MONITOR_TAG).Wait()
        release = comm.Irecv(np.zeros(1, np.uint8), 0, _MONITOR_TAG)
        if not _poll(release.Test, deadline):
            _cancel([release])
            raise RuntimeError(f"[Rank {me}]: Rank 0 failed to pass monitoredBarrier in "
                               f"{_ms(timeout)} ms")
        return None
    arrivals = {k: comm.Irecv(np.zeros(1, np.uint8), k, _MONITOR_TAG) for k in range(1, size)}
    for k, request in arrivals.items():
        if not _poll(request.Test, deadline):
            missing = _cancel(list(arrivals.values()))
            late = [j for j, r in arrivals.items() if any(r is m for m in missing)]
            if not wait_all_ranks:
                raise RuntimeError(f"[Rank 0]: Rank {k} failed to pass monitoredBarrier in "
                                   f"{_ms(timeout)} ms")
            raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, late))} failed to pass "
                               f"monitoredBarrier in {_ms(timeout)} ms")
    _World.MPI.Request.Waitall([comm.Isend(token, k, _MONITOR_TAG) for k in range(1, size)])
    return None


# ---- point to point -----------------------------------------------------------------------

def _p2p_args(tensor, peer, group, group_peer, what, op_name):
    _check_tensor(tensor, "tensor")
    pg = _group(group)
    if pg is None:
        _not_in_group(op_name)
        return None, None
    if peer is None and group_peer is None and what == "src":
        return pg, _World.MPI.ANY_SOURCE
    peer = _peer(pg, peer, group_peer)
    if what == "dst" and peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same "
                         "as the rank of the current process.")
    return pg, peer


def _global(pg, rank):
    return rank if pg is _World.default else pg._ranks[rank]


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send the tensor to rank dst (blocking)."""
    pg, peer = _p2p_args(tensor, dst, group, group_dst, "dst", "send")
    if pg is not None:
        pg._comm.Send(_Buffer(tensor).bytes, peer, tag)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive a tensor from rank src (any rank when None) into `tensor`; returns the
    sender's global rank."""
    pg, peer = _p2p_args(tensor, src, group, group_src, "src", "recv")
    if pg is None:
        return -1
    buf = _Buffer(tensor)
    status = _World.MPI.Status()
    pg._comm.Recv(buf.bytes, peer, tag, status)
    buf.done()
    return _global(pg, status.Get_source())


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send the tensor to rank dst without waiting; returns a Work."""
    pg, peer = _p2p_args(tensor, dst, group, group_dst, "dst", "isend")
    if pg is None:
        return None
    buf = _Buffer(tensor)
    return Work([pg._comm.Isend(buf.bytes, peer, tag)], None, [tensor])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor` without waiting; returns a Work (source_rank() after wait)."""
    pg, peer = _p2p_args(tensor, src, group, group_src, "src", "irecv")
    if pg is None:
        return None
    buf = _Buffer(tensor)
    req = pg._comm.Irecv(buf.bytes, peer, tag)
    return Work([req], buf.done, [tensor], (pg, _World.MPI.Status()))


class P2POp:
    """One point-to-point operation for batch_isend_irecv: op is isend or irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed"
                             ".isend`` or ``torch.distributed.irecv``.")
        _check_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """Start every isend/irecv of the list; returns their Works."""
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# ---- Python objects (pickled by MPI) ------------------------------------------------------

def all_gather_object(object_list, obj, group=None):
    """Every rank's obj (picklable) into object_list on every rank."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("all_gather_object")
    object_list[:] = pg._comm.allgather(obj)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank src's object_list, copied into every rank's list (same length everywhere)."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("broadcast_object_list")
    root = _peer(pg, src, group_src, 0)
    mine = pg.rank() == root
    object_list[:] = pg._comm.bcast(list(object_list) if mine else None, root)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's obj into object_gather_list on rank dst."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("gather_object")
    root = _peer(pg, dst, group_dst, 0)
    mine = pg.rank() == root
    if mine and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not mine and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    got = pg._comm.gather(obj, root)
    if mine:
        object_gather_list[:] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """scatter_object_input_list[i] of rank src into rank i's scatter_object_output_list[0]."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("scatter_object_list")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    root = _peer(pg, src, group_src, 0)
    mine = pg.rank() == root
    scatter_object_output_list[0] = pg._comm.scatter(
        list(scatter_object_input_list) if mine else None, root)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch=False):
    """Send a list of picklable objects to rank dst."""
    pg = _group(group)
    if pg is None:
        return _not_in_group("send_object_list")
    pg._comm.send(list(object_list), _peer(pg, dst, group_dst))


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch=False):
    """Receive the list rank src sent into object_list; returns the sender's rank."""
    pg = _group(group)
    if pg is None:
        _not_in_group("recv_object_list")
        return -1
    peer = _World.MPI.ANY_SOURCE if src is None and group_src is None \
        else _peer(pg, src, group_src)
    status = _World.MPI.Status()
    got = pg._comm.recv(None, peer, _World.MPI.ANY_TAG, status)
    object_list[:len(got)] = got
    return _global(pg, status.Get_source())


# what PyTorch's profiler names each collective: c10d's op and the backend's own event
for _name, _c10d, _backend_name in [
        ("all_reduce", "allreduce_", "all_reduce"), ("broadcast", "broadcast_", "broadcast"),
        ("reduce", "reduce_", "reduce"), ("all_gather", "allgather_", "all_gather"),
        ("all_gather_single", "_allgather_base_", "_allgather_base"),
        ("reduce_scatter", "reduce_scatter_", "reduce_scatter"),
        ("reduce_scatter_single", "_reduce_scatter_base_", "_reduce_scatter_base"),
        ("gather", "gather_", "gather"), ("scatter", "scatter_", "scatter"),
        ("all_to_all", "alltoall_", "all_to_all"),
        ("all_to_all_single", "alltoall_base_", "all_to_all"), ("barrier", "barrier", "barrier"),
        ("send", "send", "send"), ("recv", "recv_", "recv")]:
    globals()[_name] = _profiled(_c10d, "mpi:" + _backend_name)(globals()[_name])
del _name, _c10d, _backend_name
