"""DistributedDataParallel: one replica of the model per process, gradients averaged across
the process group while backward runs."""
import contextlib
import warnings
import weakref

import numpy as np

from ... import distributed as dist
from ..._tensor import make_tensor
from ...autograd import grad_mode
from ...autograd.graph import AccumulateGrad
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
    "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
    "INFO or DETAIL to print out information about which particular parameters did not "
    "receive gradient on this rank as part of this error")


class _Bucket:
    """Gradients of some parameters of one dtype, packed in one flat array that is
    all-reduced in place. `slots` are (parameter index, offset, size)."""
    __slots__ = ("array", "tensor", "slots", "pending", "work")

    def __init__(self, dtype, slots):
        self.slots = slots
        self.array = np.zeros(sum(n for _, _, n in slots), dtype)
        self.tensor = make_tensor(self.array)
        self.pending = len(slots)
        self.work = None


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


class DistributedDataParallel(Module):
    """Data parallelism across processes: construction copies rank 0's parameters and
    buffers to every rank; during backward each parameter's gradient, once accumulated, is
    packed into a bucket, and a full bucket is all-reduced (averaged) without blocking, so
    communication overlaps the rest of backward; backward returns with every gradient
    averaged. no_sync() skips the averaging (gradient accumulation);
    find_unused_parameters=True lets some parameters go unused in a step."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
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
        if init_sync:
            self._broadcast(params + (self._buffers_to_sync if init_sync_buffers else []))
        self._params = [p for p in params if p.requires_grad]
        self._build_buckets()
        me = weakref.ref(self)
        for i, p in enumerate(self._params):
            p.register_post_accumulate_grad_hook(
                lambda param, i=i: me() is not None and me()._grad_ready(i))
        self._expect_hooks = self._started = False
        self._unused = []

    # ---- setup -----------------------------------------------------------------------------

    def _broadcast(self, tensors):
        """Rank 0's values of these tensors, to every rank: one broadcast per dtype."""
        if self.process_group.size() == 1:
            return
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        with grad_mode.no_grad():
            for ts in by_dtype.values():
                flat = make_tensor(np.concatenate([t._data.reshape(-1) for t in ts]))
                dist.broadcast(flat, group=self.process_group, group_src=0)
                start = 0
                for t in ts:
                    t._data[...] = flat._data[start:start + t.numel()].reshape(t._data.shape)
                    t._vc[0] += 1
                    start += t.numel()

    def _build_buckets(self):
        """Parameters in reverse order (roughly the order backward produces their gradients),
        one dtype per bucket, a bucket closed once it holds bucket_cap_mb (the first, by
        default, 1 MB, so communication starts early)."""
        self._buckets, self._where = [], {}
        open_buckets = {}

        def close(dtype):
            slots = open_buckets.pop(dtype)[0]
            for i, off, n in slots:
                self._where[i] = (len(self._buckets), off, n)
            self._buckets.append(_Bucket(dtype, slots))
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            dtype = p._data.dtype
            slots, numel = open_buckets.setdefault(dtype, ([], 0))
            slots.append((i, numel, p.numel()))
            numel += p.numel()
            open_buckets[dtype] = (slots, numel)
            cap = self.bucket_bytes_cap if self._buckets else self._first_bucket_bytes
            if numel * dtype.itemsize >= cap:
                close(dtype)
        for dtype in list(open_buckets):
            close(dtype)
        self._next_bucket = 0

    # ---- one step ------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        grad_enabled = grad_mode.is_grad_enabled()
        if grad_enabled and self._expect_hooks and self._started:
            missing = [i for i in range(len(self._params)) if not self._ready[i]]
            raise RuntimeError(_UNFINISHED.format(rank=self.process_group.rank(),
                                                  indices=" ".join(map(str, missing))))
        if self.forward_sync_buffers and self.require_forward_param_sync \
                and self._buffers_to_sync:
            self._broadcast(self._buffers_to_sync)
        output = self.module(*inputs, **kwargs)
        self._expect_hooks = grad_enabled and self.require_backward_grad_sync
        if self._expect_hooks:
            self._started = False
            self._ready = [False] * len(self._params)
            self._used = np.zeros(len(self._params), np.uint8)
            self._unused = []
            if self.find_unused_parameters:
                reached = _reached_leaves(_tensors_in(output))
                self._unused = [i for i, p in enumerate(self._params) if id(p) not in reached]
        return output

    def _grad_ready(self, i):
        """A post-accumulate-grad hook: parameter i's gradient is final for this backward."""
        if not self._expect_hooks:
            return
        if not self._started:
            self._started = True
            for b in self._buckets:
                b.pending = len(b.slots)
            self._next_bucket = 0
            for j in self._unused:
                self._mark_ready(j, None)
        self._used[i] = 1
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
        else:
            # averaging as PyTorch does: scale by 1/world_size, then sum
            np.multiply(grad._data.reshape(-1), 1 / self.process_group.size(), out=view,
                        casting="unsafe")
        bucket.pending -= 1
        # buckets start in one order on every rank, as MPI's collectives must
        while self._next_bucket < len(self._buckets) \
                and self._buckets[self._next_bucket].pending == 0:
            bucket = self._buckets[self._next_bucket]
            bucket.work = dist.all_reduce(bucket.tensor, group=self.process_group,
                                          async_op=True)
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
            bucket.work.wait()
            bucket.work = None
            for i, off, n in bucket.slots:
                if not self._used[i]:
                    continue
                p = self._params[i]
                value = bucket.array[off:off + n].reshape(p._data.shape)
                if p.grad is None:
                    p.grad = make_tensor(value.copy())
                else:
                    p.grad._data[...] = value
                    p.grad._vc[0] += 1

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
