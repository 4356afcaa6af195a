"""DistributedDataParallel: one replica of the model per process, gradients averaged across
the process group while backward runs."""
import contextlib
import inspect
import warnings
import weakref

import numpy as np

from ... import distributed as dist
from ... import futures
from ..._tensor import Tensor, make_tensor
from ...autograd import grad_mode
from ...autograd.graph import AccumulateGrad
from ...distributed.algorithms.join import Join, JoinHook, Joinable
from ...distributed.utils import _broadcast_coalesced
from ..modules.module import Module

__all__ = ["DistributedDataParallel", "DistributedDataParallelCPU"]

_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_MB = 25

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` "
    "function. Please include the loss function and the structure of the return value of "
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).")
_UNFINISHED_NAMES = "\nParameters which did not receive grad for rank {rank}: {names}"
_UNFINISHED_INDICES = "\nParameter indices which did not receive grad for rank {rank}: {indices}"
_UNFINISHED_HINT = (
    "\n In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
    "INFO or DETAIL to print out information about which particular parameters did not "
    "receive gradient on this rank as part of this error")


class _Bucket:
    """Gradients of some parameters of one dtype, packed in one flat array that is
    all-reduced in place. `slots` are (parameter index, offset, size); `work` is the
    all-reduce in flight, or `future` the communication hook's result."""
    __slots__ = ("array", "tensor", "slots", "pending", "work", "future")

    def __init__(self, dtype, slots):
        self.slots = slots
        self.array = np.zeros(sum(n for _, _, n in slots), dtype)
        self.tensor = make_tensor(self.array)
        self.pending = len(slots)
        self.work = self.future = None


def _tensors_in(obj):
    """The tensors in a forward's output (nested tuples, lists, dicts)."""
    stack, found = [obj], []
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            stack.extend(o.values())
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif hasattr(o, "grad_fn"):
            found.append(o)
    return found


def _reached_leaves(outputs):
    """ids of the leaves the outputs' graph reaches (whose AccumulateGrad it holds)."""
    seen, leaves = set(), set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    leaves.update(id(t) for t in outputs if t.grad_fn is None and t.requires_grad)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves.add(id(node.variable))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return leaves


class _DDPJoinHook(JoinHook):
    """What a DistributedDataParallel whose rank has run out of inputs does inside Join:
    each iteration of the others, the collectives of their forward (bucket order, buffers,
    whether backward synchronizes) and backward (one all-reduce of zeros, or the
    communication hook on a bucket of zeros, per bucket; the used-parameter map); at the
    end, every rank takes the model of the highest-ranked last joiner."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not isinstance(ddp, DistributedDataParallel):
            raise AssertionError("DDP join hook requires passing in a DistributedDataParallel "
                                 f"instance as the state, got {type(ddp).__name__}")
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size
        super().__init__()

    def main_hook(self):
        ddp = self.ddp
        ddp._rebuild_buckets_if_due()
        ddp._sync_buffers_before_forward(joined=True)
        should_sync = ddp._share_requires_sync(joined=True)
        ddp.require_forward_param_sync = should_sync
        if not should_sync:
            return
        works = []
        for k, bucket in enumerate(ddp._buckets):
            zeros = make_tensor(np.zeros_like(bucket.array))
            if ddp._comm_hook is None:
                works.append(dist.all_reduce(zeros, group=ddp.process_group, async_op=True))
            else:
                works.append(ddp._run_comm_hook(k, zeros))
        for w in works:
            w.wait()
        if ddp.find_unused_parameters:
            dist.all_reduce(make_tensor(np.zeros(len(ddp._params), np.uint8)),
                            op=dist.ReduceOp.MAX, group=ddp.process_group)
        ddp._synced_once()

    def post_hook(self, is_last_joiner):
        ddp = self.ddp
        src = ddp._common_rank(is_last_joiner)
        ddp._broadcast(ddp._all_params + (ddp._buffers_to_sync if ddp.forward_sync_buffers
                                          else []), src)


class DistributedDataParallel(Module, Joinable):
    """Data parallelism across processes: construction copies rank 0's parameters and
    buffers to every rank; during backward each parameter's gradient, once accumulated, is
    packed into a bucket, and a full bucket is all-reduced (averaged) without blocking, so
    communication overlaps the rest of backward; backward returns with every gradient
    averaged. no_sync() skips the averaging (gradient accumulation);
    find_unused_parameters=True lets some parameters go unused in a step; join() trains on
    uneven inputs; register_comm_hook replaces the averaging.

    Buckets, as PyTorch's: the first backward uses one bucket per dtype (parameters in
    order); after it, the buckets are rebuilt in the order the gradients became ready on
    rank 0, each closed at bucket_cap_mb (the first at 1 MB by default) - unless
    find_unused_parameters is set."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        Joinable.__init__(self)
        self.process_group = process_group if process_group is not None \
            else dist.distributed_c10d._default()
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore",
                                                ()))
        params = [p for n, p in module.named_parameters() if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.device_ids = None
        self.output_device = None
        self.static_graph = static_graph
        self.dim = dim
        self.module = module
        self.device = params[0].device
        if broadcast_buffers is not None:
            if forward_sync_buffers is not None:
                warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were "
                              "specified. `broadcast_buffers` is deprecated and its value is "
                              "ignored when `forward_sync_buffers` is provided.",
                              FutureWarning, stacklevel=2)
            else:
                warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` "
                              "instead. IMPORTANT: unlike `broadcast_buffers=False`, "
                              "`forward_sync_buffers=False` still syncs buffers at init. If "
                              "you rely on buffers NOT being synced at init (e.g. rank-local "
                              "buffers), keep using `broadcast_buffers=False` until "
                              "`init_sync_buffers` is available.", FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers = forward_sync_buffers
            init_sync_buffers = True
        else:
            self.forward_sync_buffers = init_sync_buffers = \
                broadcast_buffers if broadcast_buffers is not None else True
        self.broadcast_buffers = self.forward_sync_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.mixed_precision = mixed_precision
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_MB if bucket_cap_mb is None
                                     else bucket_cap_mb) * 1024 * 1024)
        # PyTorch's first bucket is 1 MB unless bucket_cap_mb is given
        self._first_bucket_bytes = min(self.bucket_bytes_cap, _FIRST_BUCKET_BYTES
                                       if bucket_cap_mb is None else self.bucket_bytes_cap)
        self._buffers_to_sync = [b for n, b in module.named_buffers()
                                 if n not in self.parameters_to_ignore]
        self._all_params = params
        if init_sync:
            self._broadcast(params + (self._buffers_to_sync if init_sync_buffers else []))
        self._params = [p for p in params if p.requires_grad]
        self._rebuild_allowed = static_graph or not find_unused_parameters
        self._rebuild_due = False
        self._ready_order = []
        self._build_buckets(None)
        self._comm_hook = None
        self._divide_by_initial_world_size = True
        self._loose_works = []      # asynchronous all-reduces whose result nobody needs
        self._divisor_work = None
        me = weakref.ref(self)
        for i, p in enumerate(self._params):
            p.register_post_accumulate_grad_hook(
                lambda param, i=i: me() is not None and me()._grad_ready(i))
        self._expect_hooks = self._started = False
        self._unused = []

    # ---- setup -----------------------------------------------------------------------------

    def _broadcast(self, tensors, src=0):
        """The values of these tensors on the group's rank src, to every rank."""
        _broadcast_coalesced(tensors, self.process_group, src)

    def _build_buckets(self, order):
        """Buckets of the parameters taken in `order` (indices into _params), one dtype per
        bucket, a bucket closed once it holds bucket_cap_mb (the first, by default, 1 MB, so
        communication starts early). order None: the first iteration's layout, one bucket
        per dtype with the parameters in their own order."""
        self._buckets, self._where = [], {}
        cap = None if order is None else self._first_bucket_bytes
        if order is None:
            order = list(range(len(self._params)))
        open_buckets = {}

        def close(dtype):
            slots = open_buckets.pop(dtype)[0]
            for i, off, n in slots:
                self._where[i] = (len(self._buckets), off, n)
            self._buckets.append(_Bucket(dtype, slots))
        for i in order:
            p = self._params[i]
            dtype = p._data.dtype
            slots, numel = open_buckets.setdefault(dtype, ([], 0))
            slots.append((i, numel, p.numel()))
            numel += p.numel()
            open_buckets[dtype] = (slots, numel)
            if cap is not None and numel * dtype.itemsize >= cap:
                close(dtype)
                cap = self.bucket_bytes_cap
        for dtype in list(open_buckets):
            close(dtype)
        self._next_bucket = 0

    def _synced_once(self):
        """A synchronized iteration is over: the buckets are rebuilt before the next one."""
        if self._rebuild_allowed and not self._rebuild_due and self._ready_order is not None:
            self._rebuild_due = True

    def _rebuild_buckets_if_due(self):
        """Rebuild the buckets in the order rank 0's gradients became ready (sent to every
        rank, so that all launch their all-reduces in one order), once."""
        if not self._rebuild_due:
            return
        n = len(self._params)
        seen = list(dict.fromkeys(self._ready_order))
        order = np.array(seen + [i for i in range(n) if i not in set(seen)], np.int64)
        if self.process_group.size() > 1:
            shared = make_tensor(order)
            dist.broadcast(shared, group=self.process_group, group_src=0)
            order = shared._data
        self._build_buckets([int(i) for i in order])
        self._rebuild_due = False
        self._ready_order = None        # never again

    # ---- join ------------------------------------------------------------------------------

    def _common_rank(self, candidate):
        """The highest group rank among those for which `candidate` is true."""
        rank = make_tensor(np.array([self.process_group.rank() if candidate else -1],
                                    np.int64))
        dist.all_reduce(rank, op=dist.ReduceOp.MAX, group=self.process_group)
        return int(rank._data[0])

    def _sync_buffers_before_forward(self, joined=False):
        """Buffers from rank 0 (in a Join, from the highest rank still training) before
        each synchronized forward."""
        if not (self.forward_sync_buffers and self.require_forward_param_sync
                and self._buffers_to_sync):
            return
        src = self._common_rank(not joined) if self._join_config.enable else 0
        self._broadcast(self._buffers_to_sync, src)

    def _share_requires_sync(self, joined):
        """In a Join, tell the joined ranks whether this iteration's backward synchronizes
        (a joined rank learns it: the sum is nonzero)."""
        flag = make_tensor(np.array([0.0 if joined or not self.require_backward_grad_sync
                                     else 1.0], np.float32))
        work = dist.all_reduce(flag, group=self.process_group, async_op=True)
        if not joined:
            self._loose_works.append(work)
            return None
        work.wait()
        return bool(flag._data[0] != 0)

    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """Context manager for uneven inputs: `with model.join(): for x in my_batches: ...`.
        A rank out of batches shadows the others' collectives until all are; gradients are
        averaged over the initial world size (joined ranks add zeros) or, with
        divide_by_initial_world_size=False, over the ranks still training. At the end every
        rank takes the model of the last rank to join."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        """The hook Join runs once this rank has joined (kwargs:
        divide_by_initial_world_size, default True)."""
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        return self.device

    @property
    def join_process_group(self):
        return self.process_group

    # ---- communication hooks -------------------------------------------------------------

    def register_comm_hook(self, state, hook):
        """Average the gradients with hook(state, bucket) instead: called with a
        distributed.GradBucket when the bucket is ready (its gradients are not divided by
        the world size), it returns a Future of a tensor of the bucket's size whose values
        become the gradients. Registered once, before backward."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        bucket_annotation = sig.parameters["bucket"].annotation
        if bucket_annotation not in (inspect.Parameter.empty, dist.GradBucket):
            raise ValueError("Communication hook: bucket annotation should be "
                             "dist.GradBucket.")
        if sig.return_annotation is not inspect.Signature.empty \
                and sig.return_annotation != futures.Future[Tensor]:
            raise ValueError("Communication hook: return annotation should be "
                             "torch.futures.Future[torch.Tensor].")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        self._comm_hook = (hook, state)

    def _run_comm_hook(self, k, buffer):
        """Bucket k's hook on `buffer` (its flat gradients): the hook's future."""
        hook, state = self._comm_hook
        bucket = self._buckets[k]
        params = [self._params[i] for i, _, _ in bucket.slots]
        fut = hook(state, dist.GradBucket(k, buffer, params, [off for _, off, _ in bucket.slots],
                                          k == len(self._buckets) - 1))
        if not isinstance(fut, futures._CFuture):
            kind = type(fut)
            raise RuntimeError(
                f"Unable to cast Python instance of type {kind} to C++ type '?' (#define "
                "PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details). DDP "
                "communication hook's callback must return a torch.futures.Future object, but "
                f"got {kind.__module__}.{kind.__qualname__}")
        return fut

    # ---- one step ------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        grad_enabled = grad_mode.is_grad_enabled()
        if grad_enabled and self._expect_hooks and self._started:
            missing = [i for i in range(len(self._params)) if not self._ready[i]]
            raise RuntimeError(self._unfinished_message(missing))
        self._wait_loose_works()
        work = Join.notify_join_context(self)
        if work is not None:
            self._loose_works.append(work)
        self._divisor_work = work if work is not None and \
            not self._divide_by_initial_world_size else None
        self._rebuild_buckets_if_due()
        self._sync_buffers_before_forward()
        if self._join_config.enable:
            self._share_requires_sync(joined=False)
        output = self.module(*inputs, **kwargs)
        self._expect_hooks = grad_enabled and self.require_backward_grad_sync
        self.require_forward_param_sync = self._expect_hooks
        if self._expect_hooks:
            self._started = False
            self._ready = [False] * len(self._params)
            self._used = np.zeros(len(self._params), np.uint8)
            self._unused = []
            if self.find_unused_parameters:
                reached = _reached_leaves(_tensors_in(output))
                self._unused = [i for i, p in enumerate(self._params) if id(p) not in reached]
        return output

    def _unfinished_message(self, missing):
        """PyTorch's error for parameters that got no gradient; at debug level INFO or
        DETAIL it names them (last first), otherwise it says how to."""
        rank = self.process_group.rank()
        indices = _UNFINISHED_INDICES.format(rank=rank, indices=" ".join(map(str, missing)))
        if dist.get_debug_level() == dist.DebugLevel.OFF:
            return _UNFINISHED + indices + _UNFINISHED_HINT
        names = {id(p): n for n, p in self.module.named_parameters()}
        named = ", ".join(names[id(self._params[i])] for i in reversed(missing))
        return _UNFINISHED + _UNFINISHED_NAMES.format(rank=rank, names=named) + indices

    def _wait_loose_works(self):
        works, self._loose_works = self._loose_works, []
        for w in works:
            w.wait()

    def _grad_ready(self, i):
        """A post-accumulate-grad hook: parameter i's gradient is final for this backward."""
        if not self._expect_hooks:
            return
        if not self._started:
            self._started = True
            for b in self._buckets:
                b.pending = len(b.slots)
            self._next_bucket = 0
            self._scale = 1 / self.process_group.size()
            if self._divisor_work is not None:      # join: over the ranks still training
                self._divisor_work.wait()
                self._scale = 1 / float(self._divisor_work.result()[0]._data[0])
            for j in self._unused:
                self._mark_ready(j, None)
        self._used[i] = 1
        if self._ready_order is not None and not self._ready[i]:
            self._ready_order.append(i)
        self._mark_ready(i, self._params[i].grad)

    def _mark_ready(self, i, grad):
        if self._ready[i]:
            return      # a reentrant backward reached it again: its gradient is in already
        self._ready[i] = True
        b, off, n = self._where[i]
        bucket = self._buckets[b]
        view = bucket.array[off:off + n]
        if grad is None:
            view[...] = 0
        elif self._comm_hook is not None:       # the hook divides, as PyTorch's hooks do
            view[...] = grad._data.reshape(-1)
        else:
            # averaging as PyTorch does: scale by 1/world_size, then sum
            np.multiply(grad._data.reshape(-1), self._scale, out=view, casting="unsafe")
        bucket.pending -= 1
        # buckets start in one order on every rank, as MPI's collectives must
        while self._next_bucket < len(self._buckets) \
                and self._buckets[self._next_bucket].pending == 0:
            k = self._next_bucket
            bucket = self._buckets[k]
            if self._comm_hook is None:
                bucket.work = dist.all_reduce(bucket.tensor, group=self.process_group,
                                              async_op=True)
            else:
                bucket.future = self._run_comm_hook(k, bucket.tensor)
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finalize()

    def _finalize(self):
        """Wait for every bucket and write the averaged gradients back (a parameter no rank
        used keeps the gradient it had)."""
        self._expect_hooks = False
        if self.find_unused_parameters:
            dist.all_reduce(make_tensor(self._used), op=dist.ReduceOp.MAX,
                            group=self.process_group)
        for bucket in self._buckets:
            if bucket.future is None:
                bucket.work.wait()
                bucket.work = None
                flat = bucket.array
            else:
                flat = self._hook_result(bucket)
            for i, off, n in bucket.slots:
                if not self._used[i]:
                    continue
                p = self._params[i]
                value = flat[off:off + n].reshape(p._data.shape)
                if p.grad is None:
                    p.grad = make_tensor(value.astype(p._data.dtype))
                else:
                    p.grad._data[...] = value
                    p.grad._vc[0] += 1
        self._wait_loose_works()
        self._synced_once()

    def _hook_result(self, bucket):
        """The flat array of the bucket's hook future, checked as PyTorch's reducer
        checks it."""
        fut, bucket.future = bucket.future, None
        value = fut.wait()
        if not isinstance(value, Tensor):
            raise RuntimeError(f"Unable to cast {value!r} to Tensor")
        flat = value._data.reshape(-1)
        for i, off, n in bucket.slots:
            if off + n > flat.size:
                p = self._params[i]
                shape = list(p._data.shape)
                strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
                size = value._data.dtype.itemsize
                raise RuntimeError(
                    f"setStorage: sizes {shape}, strides {strides}, storage offset {off}, and "
                    f"itemsize {size} requiring a storage size of {(off + n) * size} are out "
                    f"of bounds for storage of size {flat.size * size}")
        return flat

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate gradients locally, without communication; the
        first backward after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


class DistributedDataParallelCPU(DistributedDataParallel):
    """The old name of DistributedDataParallel (deprecated)."""

    def __init__(self, *args, **kwargs):
        warnings.warn("`torch.nn.parallel.DistributedDataParallelCPU` is deprecated, please use "
                      "`torch.nn.parallel.DistributedDataParallel` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__(*args, **kwargs)
