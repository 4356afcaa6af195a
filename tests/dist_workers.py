"""Programs tests/test_distributed.py starts under mpiexec: `python dist_workers.py SCENARIO
LIB [ARG]`. A failed check raises, which (through init_process_group's excepthook) ends the
whole job with the error; a scenario that passes prints one JSON line, 'RESULT <json>'."""
import importlib
import json
import sys
import warnings
from datetime import timedelta

import numpy as np


def _dtypes(T):
    names = ["float16", "float32", "float64", "complex64", "complex128", "int8", "int16",
             "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]
    try:
        import ml_dtypes  # noqa: F401
        names += ["bfloat16", "float8_e4m3fn", "float8_e5m2", "complex32"]
    except ImportError:
        pass
    return [getattr(T, n) for n in names]


def _input(T, dtype, r, shape=(2, 3)):
    """Rank r's known input: small integers (exact in every dtype)."""
    a = np.arange(int(np.prod(shape))).reshape(shape) % 4 + r + 1
    if dtype == T.bool:
        return T.tensor((a % 2).astype(bool))
    return T.tensor(a.astype(np.float64)).to(dtype)


def _close(got, want, what):
    got = np.asarray(got, dtype=np.complex128 if np.iscomplexobj(want) else np.float64)
    want = np.asarray(want, dtype=got.dtype)
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-2, atol=1e-6):
        raise AssertionError(f"{what}: got {got.tolist()}, want {want.tolist()}")


def _arr(t):
    """A tensor's values as float64/complex128 NumPy (bfloat16 and bool included)."""
    return np.asarray(t._data).astype(np.complex128 if t.dtype.is_complex else np.float64)


# ---- every collective against NumPy -------------------------------------------------------

def collectives(T):
    dist = T.distributed
    R = dist.ReduceOp
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    warnings.simplefilter("ignore", FutureWarning)   # the deprecated names are checked below
    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    assert dist.is_mpi_available() and dist.is_gloo_available()
    assert isinstance(dist.group.WORLD, dist.ProcessGroup) and dist.group.WORLD.size() == p
    assert dist.distributed_c10d.ReduceOp is R
    work = dist.barrier(async_op=True)
    assert isinstance(work, dist.Work) and work.wait()
    checked = 0
    for dtype in _dtypes(T):
        inputs = [_arr(_input(T, dtype, k)) for k in range(p)]
        stack = np.stack(inputs)
        is_int = dtype in (T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint16, T.uint32,
                           T.uint64)
        ops = {R.SUM: stack.sum(0), R.PRODUCT: stack.prod(0)}
        if not dtype.is_complex:
            ops.update({R.MIN: stack.min(0), R.MAX: stack.max(0)})
        if dtype.is_floating_point or dtype.is_complex:
            ops[R.AVG] = stack.mean(0)
        if is_int or dtype == T.bool:
            ints = stack.astype(np.int64)
            ops.update({R.BAND: np.bitwise_and.reduce(ints), R.BOR: np.bitwise_or.reduce(ints),
                        R.BXOR: np.bitwise_xor.reduce(ints)})
        for op, want in ops.items():
            if dtype == T.bool:
                want = want.astype(bool).astype(np.float64)
            elif is_int:
                want = want.astype(dtype.np).astype(np.float64)     # wraps as the dtype does
            else:                                                   # rounds to the dtype
                want = _arr(T.tensor(want).to(dtype))
            t = _input(T, dtype, r)
            v = t._version
            assert dist.all_reduce(t, op=op) is None
            _close(_arr(t), want, f"all_reduce {op} {dtype}")
            assert t._version > v
            t = _input(T, dtype, r)
            work = dist.all_reduce(t, op=op, async_op=True)
            assert work.wait() is True and work.is_completed()
            _close(_arr(t), want, f"async all_reduce {op} {dtype}")
            t = _input(T, dtype, r)
            root = 1 % p
            dist.reduce(t, dst=root, op=op)
            _close(_arr(t), want if r == root else inputs[r], f"reduce {op} {dtype}")
            checked += 3
        # data movement: broadcast, gathers, scatter, all-to-all
        t = _input(T, dtype, r)
        dist.broadcast(t, src=p - 1)
        _close(_arr(t), inputs[p - 1], f"broadcast {dtype}")
        t = _input(T, dtype, r)
        dist.broadcast(t, src=0, async_op=True).wait()
        _close(_arr(t), inputs[0], f"async broadcast {dtype}")
        outs = [T.zeros(2, 3, dtype=dtype) for _ in range(p)]
        dist.all_gather(outs, _input(T, dtype, r))
        _close(np.stack([_arr(o) for o in outs]), stack, f"all_gather {dtype}")
        cat = T.zeros(2 * p, 3, dtype=dtype)
        dist.all_gather_into_tensor(cat, _input(T, dtype, r))
        _close(_arr(cat), stack.reshape(2 * p, 3), f"all_gather_into_tensor {dtype}")
        stk = T.zeros(p, 2, 3, dtype=dtype)
        dist.all_gather_single(stk, _input(T, dtype, r), async_op=True).wait()
        _close(_arr(stk), stack, f"all_gather_into_tensor (stacked) {dtype}")
        # every rank's input is p blocks of 2 elements; rank r gets block r of the sum
        big = [_arr(_input(T, dtype, k, (p, 2))) for k in range(p)]
        bsum = np.sum(big, 0) if dtype != T.bool else np.any(big, 0)
        bsum = _arr(T.tensor(bsum).to(dtype))         # rounded to the dtype
        out = T.zeros(2, dtype=dtype)
        dist.reduce_scatter_tensor(out, _input(T, dtype, r, (p, 2)).reshape(-1))
        _close(_arr(out), bsum[r], f"reduce_scatter_tensor {dtype}")
        out = T.zeros(2, dtype=dtype)
        dist.reduce_scatter_single(out, _input(T, dtype, r, (p, 2)).reshape(-1))
        _close(_arr(out), bsum[r], f"reduce_scatter_single {dtype}")
        out = T.zeros(2, dtype=dtype)
        dist.reduce_scatter(out, list(_input(T, dtype, r, (p, 2)).unbind(0)))
        _close(_arr(out), bsum[r], f"reduce_scatter {dtype}")
        gl = [T.zeros(2, 3, dtype=dtype) for _ in range(p)] if r == 0 else None
        dist.gather(_input(T, dtype, r), gl, dst=0)
        if r == 0:
            _close(np.stack([_arr(g) for g in gl]), stack, f"gather {dtype}")
        out = T.zeros(2, 3, dtype=dtype)
        src_list = [_input(T, dtype, 10 + k) for k in range(p)] if r == p - 1 else None
        dist.scatter(out, src_list, src=p - 1)
        _close(_arr(out), _arr(_input(T, dtype, 10 + r)), f"scatter {dtype}")
        send = _input(T, dtype, r, (p, 2))
        got = T.zeros(p, 2, dtype=dtype)
        dist.all_to_all_single(got, send)
        _close(_arr(got), np.stack([_arr(_input(T, dtype, k, (p, 2)))[r] for k in range(p)]),
               f"all_to_all_single {dtype}")
        got = [T.zeros(2, dtype=dtype) for _ in range(p)]
        dist.all_to_all(got, list(_input(T, dtype, r, (p, 2)).unbind(0)))
        _close(np.stack([_arr(g) for g in got]),
               np.stack([_arr(_input(T, dtype, k, (p, 2)))[r] for k in range(p)]),
               f"all_to_all {dtype}")
        # a ring of point-to-point messages, blocking and not
        nxt, prv = (r + 1) % p, (r - 1) % p
        box = T.zeros(2, 3, dtype=dtype)
        if r % 2 == 0:
            dist.send(_input(T, dtype, r), dst=nxt)
            assert dist.recv(box, src=prv) == prv
        else:
            assert dist.recv(box) == prv
            dist.send(_input(T, dtype, r), dst=nxt)
        _close(_arr(box), inputs[prv], f"send/recv {dtype}")
        box = T.zeros(2, 3, dtype=dtype)
        works = dist.batch_isend_irecv([dist.P2POp(dist.isend, _input(T, dtype, r), nxt),
                                        dist.P2POp(dist.irecv, box, prv)])
        for w in works:
            w.wait()
        assert works[1].source_rank() == prv
        _close(_arr(box), inputs[prv], f"isend/irecv {dtype}")
        checked += 14
    # a non-contiguous tensor is written back in place
    base = T.arange(6.0).reshape(2, 3) + r
    view = base.t()
    dist.all_reduce(view)
    _close(_arr(base), sum(np.arange(6.0).reshape(2, 3) + k for k in range(p)),
           "non-contiguous all_reduce")
    # Python objects
    objs = [None] * p
    dist.all_gather_object(objs, {"rank": r})
    assert objs == [{"rank": k} for k in range(p)], objs
    lst = [r, "x"] if r == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, "x"], lst
    gathered = [None] * p if r == 0 else None
    dist.gather_object(("g", r), gathered, dst=0)
    assert r != 0 or gathered == [("g", k) for k in range(p)], gathered
    got = [None]
    dist.scatter_object_list(got, [k * 10 for k in range(p)] if r == 0 else None, src=0)
    assert got == [r * 10], got
    if r == 0:
        dist.send_object_list([{"a": 1}, 2], dst=1)
    elif r == 1:
        box = [None, None]
        assert dist.recv_object_list(box, src=0) == 0 and box == [{"a": 1}, 2], box
    # a subgroup of ranks 0 and 1; the others are outside it
    g = dist.new_group([1, 0])
    assert dist.get_pg_count() == 2
    if r < 2:
        assert dist.get_process_group_ranks(g) == [0, 1]
        assert dist.get_rank(g) == r and dist.get_world_size(g) == 2
        assert dist.get_global_rank(g, 1) == 1 and dist.get_group_rank(g, r) == r
        t = T.tensor([float(r + 1)])
        dist.all_reduce(t, group=g)
        assert t.item() == 3.0
        t = T.tensor([float(r)])
        dist.broadcast(t, src=1, group=g)
        assert t.item() == 1.0
    else:
        assert g == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert dist.all_reduce(T.ones(1), group=g) is None
        assert str(w[0].message) == (f"Running all_reduce on global rank {r} which does not "
                                     "belong to the given group."), w
        dist.destroy_process_group(g)
    # the deprecated coalesced forms
    ts = [T.full((2,), float(r)), T.full((3,), r)]
    dist.all_reduce_coalesced(ts)
    assert ts[0].tolist() == [sum(range(p))] * 2 and ts[1].tolist() == [sum(range(p))] * 3
    outs = [[T.zeros(2), T.zeros(1, dtype=T.int64)] for _ in range(p)]
    dist.all_gather_coalesced(outs, [T.full((2,), float(r)), T.tensor([r])])
    assert [o[0].tolist() for o in outs] == [[float(k)] * 2 for k in range(p)], outs
    assert [o[1].item() for o in outs] == list(range(p)), outs
    # subgroups: one rank each, then rank 0 alone and the others together
    mine, groups = dist.new_subgroups(1)
    assert len(groups) == p and dist.get_process_group_ranks(mine) == [r]
    t = T.tensor([float(r + 1)])
    dist.all_reduce(t, group=mine)
    assert t.item() == r + 1
    mine, groups = dist.new_subgroups_by_enumeration([[0], list(range(1, p))])
    t = T.tensor([float(r + 1)])
    dist.all_reduce(t, group=mine)
    assert t.item() == (1 if r == 0 else sum(range(2, p + 1))), t
    # the sampler takes its rank and world size from the default group
    s = T.utils.data.DistributedSampler(range(10), seed=3)
    assert (s.rank, s.num_replicas) == (r, p)
    shares = [None] * p
    dist.all_gather_object(shares, list(s))
    assert set(sum(shares, [])) == set(range(10)) and len(sum(shares, [])) == s.total_size
    assert dist.barrier() is None
    dist.barrier(async_op=True).wait()
    dist.monitored_barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    return {"checked": checked}


# ---- DistributedDataParallel against one process on the whole batch ----------------------

def _model(T, seed, dtype=None):
    nn = T.nn
    T.manual_seed(seed)
    m = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                      nn.Linear(16, 3))
    return m.to(dtype) if dtype is not None else m


def _max_diff(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b))


def ddp(T):
    dist, nn = T.distributed, T.nn
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    T.manual_seed(7)
    X, Y = T.randn(4 * p, 5), T.randn(4 * p, 3)
    steps = 3
    # one process, the whole batch
    ref = _model(T, 0)
    opt = T.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        ((ref(X) - Y) ** 2).mean().backward()
        opt.step()
    # p processes, each its rows; other ranks start from other weights (rank 0's win)
    # and small buckets, so several all-reduces overlap backward
    DDP = nn.parallel.DistributedDataParallel
    model = DDP(_model(T, r), bucket_cap_mb=0.0002)
    assert len(model._buckets) == 1     # the first iteration's: one per dtype
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        ((model(X[r::p]) - Y[r::p]) ** 2).mean().backward()
        opt.step()
    assert len(model._buckets) > 2      # rebuilt after it, in the gradients' ready order
    diff = _max_diff(ref.parameters(), model.module.parameters())
    assert diff < 1e-5, f"DDP parameters differ from one process's by {diff}"
    assert list(model.state_dict()) == ["module." + k for k in ref.state_dict()]
    # no_sync: two local backward passes, then one synchronised one; the gradients are the
    # average over ranks of each rank's accumulated sum
    ref = _model(T, 0, T.float64)
    model = DDP(_model(T, 0, T.float64))
    total = 0
    for k in range(3):
        rows = slice(k, None, 3)
        total = total + sum(((ref(X.double()[q::p][rows]) - Y.double()[q::p][rows]) ** 2).mean()
                            for q in range(p)) / p
        if k < 2:
            with model.no_sync():
                ((model(X.double()[r::p][rows]) - Y.double()[r::p][rows]) ** 2).mean().backward()
            local = [q.grad.clone() for q in model.parameters()]
        else:
            ((model(X.double()[r::p][rows]) - Y.double()[r::p][rows]) ** 2).mean().backward()
    total.backward()
    diff = _max_diff([q.grad for q in ref.parameters()], [q.grad for q in model.parameters()])
    assert diff < 1e-12, f"no_sync accumulation differs by {diff}"
    assert not all(bool((a == q.grad).all()) for a, q in zip(local, model.parameters()))

    # unused parameters: b is used on rank 0 only, c on no rank
    class Branches(nn.Module):
        def __init__(self):
            super().__init__()
            T.manual_seed(1)
            self.a, self.b, self.c = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)

        def forward(self, x, use_b):
            return self.b(self.a(x)) if use_b else self.a(x)
    x = T.ones(2, 3) * (r + 1)
    model = DDP(Branches(), find_unused_parameters=True)
    model(x, r == 0).sum().backward()
    ref = Branches()
    sum(ref(T.ones(2, 3) * (q + 1), q == 0).sum() for q in range(p)).div(p).backward()
    for name in ("a", "b"):
        for q_ref, q in zip(getattr(ref, name).parameters(),
                            getattr(model.module, name).parameters()):
            assert (q_ref.grad - q.grad).abs().max().item() < 1e-6, name
    assert model.module.c.weight.grad is None and model.module.c.bias.grad is None
    # the same without find_unused_parameters: the next forward says which never got grads
    model = DDP(Branches())
    model(x, False).sum().backward()
    try:
        model(x, False)
    except RuntimeError as e:
        assert f"Parameter indices which did not receive grad for rank {r}: 2 3 4 5" in str(e)
    else:
        raise AssertionError("no error for unused parameters")
    # buffers: rank 0's at construction and before every forward
    bn = nn.BatchNorm1d(3)
    bn.running_mean.fill_(float(r))
    model = DDP(nn.Sequential(nn.Linear(3, 3), bn))
    assert bn.running_mean.abs().sum().item() == 0
    bn.running_var.fill_(float(r + 1))
    model(T.arange(12.0).reshape(4, 3))     # the same batch on every rank
    vs = [None] * p
    dist.all_gather_object(vs, bn.running_var.tolist())
    assert all(v == vs[0] for v in vs), vs
    # DDP over a subgroup of the last two ranks: they average between themselves only, from
    # the weights of the group's rank 0
    g = dist.new_group([p - 2, p - 1])
    k = r - (p - 2)
    if k >= 0:
        model = DDP(_model(T, 10 + k), process_group=g)
        ref = _model(T, 10)
        for q in range(2):
            ((ref(X[q::2]) - Y[q::2]) ** 2).mean().div(2).backward()
        ((model(X[k::2]) - Y[k::2]) ** 2).mean().backward()
        diff = _max_diff([q.grad for q in ref.parameters()], [q.grad for q in model.parameters()])
        assert diff < 1e-6, f"DDP over a subgroup differs by {diff}"
    dist.destroy_process_group()
    return {"ranks": p}


# ---- world size 1, on either library (compared by the test) ------------------------------

def single(T, init_file):
    dist, nn = T.distributed, T.nn
    out = {}

    def err(f):
        try:
            f()
        except Exception as e:
            return [type(e).__name__, str(e)]
        return None
    out["before"] = [dist.is_available(), dist.is_initialized(), err(dist.get_rank),
                     err(lambda: dist.all_reduce(T.ones(1))), err(dist.barrier),
                     err(lambda: nn.parallel.DistributedDataParallel(nn.Linear(2, 2)))]
    dist.init_process_group("gloo", init_method=f"file://{init_file}", world_size=1, rank=0)
    out["after"] = [dist.is_initialized(), dist.get_rank(), dist.get_world_size(),
                    dist.get_backend(),
                    err(lambda: dist.init_process_group("gloo", world_size=1, rank=0)),
                    err(lambda: dist.all_reduce([1.0])),
                    [repr(op) for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG,
                                         dist.ReduceOp.MAX)],
                    [dist.supports_complex(op) for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX)],
                    dist.Backend("MPI"), dist.Backend.GLOO, str(dist.default_pg_timeout),
                    dist.get_node_local_rank(fallback_rank=5) in (0, 5),
                    dist.is_nccl_available(), dist.is_backend_available("nccl"),
                    dist.is_torchelastic_launched(),
                    issubclass(dist.DistBackendError, dist.DistError),
                    issubclass(dist.QueueEmptyError, dist.DistStoreError),
                    issubclass(dist.DistNetworkError, RuntimeError),
                    err(lambda: dist.broadcast(T.ones(1))), err(lambda: dist.reduce(T.ones(1))),
                    err(lambda: dist.broadcast(T.ones(1), src=0, group_src=0)),
                    err(lambda: dist.send(T.ones(1))), err(lambda: dist.send(T.ones(1), 0))]
    out["subgroups"] = [err(dist.new_subgroups), err(lambda: dist.new_subgroups(0)),
                        err(lambda: dist.new_subgroups(2)),
                        err(lambda: dist.new_subgroups_by_enumeration([])),
                        err(lambda: dist.new_subgroups_by_enumeration([[0], [0]])),
                        dist.get_process_group_ranks(dist.new_subgroups(1)[0])]
    t = T.arange(3.0)
    work = dist.all_reduce(t, async_op=True)
    out["work"] = [type(work).__name__, work.wait(), work.is_completed(), t.tolist()]
    s = T.utils.data.DistributedSampler(range(7), shuffle=False)
    out["sampler"] = [s.num_replicas, s.rank, list(s)]
    objs = [None]
    dist.all_gather_object(objs, {"x": 1})
    lst = ["a", 2]
    dist.broadcast_object_list(lst, src=0)
    out["objects"] = [objs, lst]
    # DDP's surface
    T.manual_seed(0)
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))
    d = nn.parallel.DistributedDataParallel(m)
    out["ddp"] = [list(d.state_dict()), [n for n, _ in d.named_parameters()],
                  d.module is m, d.device_ids, d.output_device, d.dim, d.broadcast_buffers,
                  d.find_unused_parameters, d.gradient_as_bucket_view, d.bucket_bytes_cap,
                  d.require_backward_grad_sync, d.static_graph,
                  nn.parallel.DistributedDataParallel(nn.Linear(2, 2),
                                                      bucket_cap_mb=2).bucket_bytes_cap,
                  err(lambda: nn.parallel.DistributedDataParallel(nn.Linear(2, 2).requires_grad_(
                      False))),
                  err(lambda: nn.parallel.DistributedDataParallel(nn.Linear(2, 2),
                                                                  device_ids=[0, 1]))]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2), broadcast_buffers=False)
        nn.parallel.DistributedDataParallelCPU(nn.Linear(2, 2))
        dist.all_gather_into_tensor(T.zeros(2), T.ones(2))
        dist.reduce_scatter_tensor(T.zeros(2), T.ones(2))
        dist.all_reduce_coalesced([T.ones(1), T.ones(2)])
        dist.all_gather_coalesced([[T.zeros(1)]], [T.ones(1)])
    out["warnings"] = [(c.category.__name__, str(c.message)) for c in w]
    x = T.randn(4, 2)
    d = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(2, 3), nn.Tanh(),
                                                          nn.Linear(3, 1)))
    d(x).sum().backward()
    out["ddp_grads"] = [q.grad.tolist() for q in d.parameters()]

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            T.manual_seed(0)
            self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)
    d = nn.parallel.DistributedDataParallel(Two())
    d(x).sum().backward()
    out["unfinished"] = err(lambda: d(x))
    d = nn.parallel.DistributedDataParallel(Two(), find_unused_parameters=True)
    d(x).sum().backward()
    with d.no_sync():
        d(x).sum().backward()
    out["unused"] = [None if q.grad is None else q.grad.tolist() for q in d.parameters()]
    dp = nn.DataParallel(Two())
    out["data_parallel"] = [list(dp.state_dict()), dp.device_ids, dp(x).tolist(),
                            err(lambda: nn.parallel.data_parallel(Two(), x))]
    dist.destroy_process_group()
    out["destroyed"] = [dist.is_initialized(), err(dist.get_world_size),
                        err(dist.destroy_process_group)]
    return out


# ---- Join: uneven inputs -----------------------------------------------------------------

def _mse(T, out, y):
    return ((out - y) ** 2).mean()


class _Shifted:
    """A model with a buffer its forward reads (so DDP syncs buffers every forward)."""

    @staticmethod
    def make(T, seed, unused=False):
        nn = T.nn

        class Shifted(nn.Module):
            def __init__(self):
                super().__init__()
                T.manual_seed(seed)
                self.body = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
                if unused:      # a layer forward never uses
                    self.unused = nn.Linear(2, 2)
                self.register_buffer("shift", T.full((3,), 0.5))

            def forward(self, x):
                return self.body(x) + self.shift
        return Shifted()


def join(T):
    """Rank k has 2 + k batches; inside model.join() the ranks that run out shadow the
    others, which must train exactly as one process whose loss at step s sums the batches
    of the ranks still training, divided by the world size (or by their number)."""
    dist = T.distributed
    dh = dist.algorithms.ddp_comm_hooks.default_hooks
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    counts = [2 + k for k in range(p)]
    T.manual_seed(11)
    batches = [[(T.randn(2, 5), T.randn(2, 3)) for _ in range(c)] for c in counts]
    DDP = T.nn.parallel.DistributedDataParallel
    cases = [(True, None, {}), (False, None, {}), (True, dh.allreduce_hook, {}),
             (True, None, {"find_unused_parameters": True}),
             (False, None, {"bucket_cap_mb": 0.0002})]
    for divide, hook, kwargs in cases:
        unused = "find_unused_parameters" in kwargs
        ref = _Shifted.make(T, 0, unused)
        opt = T.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
        for step in range(max(counts)):
            active = [k for k in range(p) if step < counts[k]]
            opt.zero_grad()
            sum(_mse(T, ref(x), y) for x, y in (batches[k][step] for k in active)).div(
                p if divide or hook else len(active)).backward()
            opt.step()
        model = DDP(_Shifted.make(T, r, unused), **kwargs)
        if hook is not None:
            model.register_comm_hook(None, hook)
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with model.join(divide_by_initial_world_size=divide):
            for x, y in batches[r]:
                opt.zero_grad()
                _mse(T, model(x), y).backward()
                opt.step()
        diff = _max_diff(ref.parameters(), model.module.parameters())
        assert diff < 1e-5, f"join {divide, hook, kwargs}: parameters differ by {diff}"
    # no_sync on even steps, synchronised on odd ones: the joined ranks learn from the
    # others whether to shadow the backward; a rank's unsynchronised last step never counts
    ref = _Shifted.make(T, 0)
    opt = T.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(1, max(counts), 2):
        active = [k for k in range(p) if step < counts[k]]
        opt.zero_grad()
        sum(_mse(T, ref(x), y) for k in active for x, y in batches[k][step - 1:step + 1]).div(
            p).backward()
        opt.step()
    model = DDP(_Shifted.make(T, r))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    with model.join():
        for step, (x, y) in enumerate(batches[r]):
            if step % 2 == 0:
                with model.no_sync():
                    _mse(T, model(x), y).backward()
                continue
            _mse(T, model(x), y).backward()
            opt.step()
            opt.zero_grad()
    diff = _max_diff(ref.parameters(), model.module.parameters())
    assert diff < 1e-5, f"join with no_sync: parameters differ by {diff}"
    # a hook whose callbacks start more collectives (PowerSGD), shadowed on zeros by the
    # joined ranks: no hang, and every rank ends with the last joiner's model
    P = dist.algorithms.ddp_comm_hooks.powerSGD_hook
    model = DDP(_Shifted.make(T, r))
    model.register_comm_hook(P.PowerSGDState(None, start_powerSGD_iter=2,
                                             min_compression_rate=1), P.powerSGD_hook)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    with model.join():
        for x, y in batches[r]:
            opt.zero_grad()
            _mse(T, model(x), y).backward()
            opt.step()
    finals = [None] * p
    dist.all_gather_object(finals, [q.tolist() for q in model.parameters()])
    assert all(f == finals[-1] for f in finals)
    # throw_on_early_termination: rank 0 runs out first, and every rank raises
    model = DDP(_model(T, 0))
    try:
        with model.join(throw_on_early_termination=True):
            for x, y in batches[r][:1 if r == 0 else None]:
                _mse(T, model(x[:, :5]), y).backward()
    except RuntimeError as e:
        thrown = str(e)
    else:
        raise AssertionError("no rank-exhausted error")
    want = "Rank 0 exhausted all inputs." if r == 0 else \
        "Detected at least one rank that exhausted inputs. Throwing across all ranks."
    assert thrown == want, thrown
    # enable=False: no shadowing, so equal inputs train as plain DDP
    model = DDP(_model(T, 0))
    with model.join(enable=False):
        _mse(T, model(batches[0][0][0]), batches[0][0][1]).backward()
    return {"ranks": p, "generic": _generic_join(T, r, p)}


def _generic_join(T, r, p):
    """Join over a Joinable of the test's own: rank k counts, with an all-reduce, the ranks
    still stepping, 1 + k times; its hook shadows that all-reduce."""
    dist = T.distributed
    Join, JoinHook, Joinable = (dist.algorithms.Join, dist.algorithms.JoinHook,
                                dist.algorithms.Joinable)

    class CountHook(JoinHook):
        def __init__(self, counter, tag):
            self.counter, self.tag = counter, tag

        def main_hook(self):
            self.counter.shadowed += 1
            dist.all_reduce(T.zeros(1))

        def post_hook(self, is_last_joiner):
            self.counter.last = [is_last_joiner, self.tag]

    class Counter(Joinable):
        def __init__(self):
            super().__init__()
            self.total, self.shadowed, self.last = 0, 0, None

        def step(self):
            Join.notify_join_context(self)
            t = T.ones(1)
            dist.all_reduce(t)
            self.total += int(t.item())

        def join_hook(self, **kwargs):
            return CountHook(self, kwargs.get("tag"))

        @property
        def join_device(self):
            return T.device("cpu")

        @property
        def join_process_group(self):
            return dist.group.WORLD
    counter = Counter()
    with Join([counter], tag="x"):
        for _ in range(1 + r):
            counter.step()
    want = sum(p - s for s in range(1 + r))
    assert counter.total == want, (counter.total, want)
    assert counter.shadowed == p - 1 - r, counter.shadowed
    assert counter.last == [r == p - 1, "x"], counter.last
    return counter.total


# ---- communication hooks -----------------------------------------------------------------

def _local_grads(T, seed, x, y, dtype=None):
    m = _model(T, seed, dtype)
    _mse(T, m(x), y).backward()
    return [q.grad.double().numpy() for q in m.parameters()]


def hooks(T):
    """DDP with each of default_hooks' hooks (and the no-op one, and one that checks the
    GradBucket it gets) against the same averaging done in NumPy on every rank's gradients."""
    dist = T.distributed
    debugging_hooks = dist.algorithms.ddp_comm_hooks.debugging_hooks
    default_hooks = dist.algorithms.ddp_comm_hooks.default_hooks
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    T.manual_seed(5)
    X, Y = T.randn(4 * p, 5), T.randn(4 * p, 3)
    local = [_local_grads(T, 0, X[k::p], Y[k::p]) for k in range(p)]
    mean = [sum(gs) / p for gs in zip(*local)]

    def compressed(narrow):
        """PyTorch's compression: each rank's gradient cast to the narrow type, divided
        there by the world size, summed and rounded to it once, cast back."""
        out = []
        for gs in zip(*local):
            parts = [(T.tensor(g).float().to(narrow) / p).float().double().numpy() for g in gs]
            out.append(T.tensor(sum(parts)).to(narrow).double().numpy())
        return out
    cases = [("allreduce", default_hooks.allreduce_hook, mean, 1e-6),
             ("fp16", default_hooks.fp16_compress_hook, compressed(T.float16), 1e-3),
             ("fp16_wrapper", default_hooks.fp16_compress_wrapper(default_hooks.allreduce_hook),
              compressed(T.float16), 1e-3),
             ("noop", debugging_hooks.noop_hook, local[r], 1e-6)]
    try:
        import ml_dtypes  # noqa: F401
        cases += [("bf16", default_hooks.bf16_compress_hook, compressed(T.bfloat16), 1e-2),
                  ("bf16_wrapper",
                   default_hooks.bf16_compress_wrapper(default_hooks.allreduce_hook),
                   compressed(T.bfloat16), 1e-2)]
    except ImportError:
        pass
    fp16_exact = None
    for name, hook, want, tol in cases:
        model = T.nn.parallel.DistributedDataParallel(_model(T, 0), bucket_cap_mb=0.0002)
        model.register_comm_hook(dist.group.WORLD, hook)
        for _ in range(2):          # the first layout, then the rebuilt buckets
            model.zero_grad()
            _mse(T, model(X[r::p]), Y[r::p]).backward()
        got = [q.grad.double().numpy() for q in model.parameters()]
        diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
        scale = max(float(np.abs(b).max()) for b in want)
        assert diff <= tol * scale, f"{name}: gradients differ by {diff}"
        if name == "fp16":
            fp16_exact = diff == 0
    # a hook that looks at its GradBucket, then averages; state counts the calls
    seen, calls = [], []

    def inspect(state, bucket):
        state.append(bucket.index())
        grads = bucket.gradients()
        assert all(np.shares_memory(g.numpy(), bucket.buffer().numpy()) for g in grads)
        assert [tuple(g.shape) for g in grads] == [tuple(q.shape) for q in bucket.parameters()]
        seen.append([bucket.index(), bucket.is_last(), str(bucket.buffer().dtype),
                     bucket.buffer().numel(), [list(q.shape) for q in bucket.parameters()],
                     float(bucket.buffer().sum())])
        return default_hooks.allreduce_hook(None, bucket)
    model = T.nn.parallel.DistributedDataParallel(_model(T, 0), bucket_cap_mb=0.0002)
    model.register_comm_hook(calls, inspect)
    for _ in range(2):
        model.zero_grad()
        _mse(T, model(X[r::p]), Y[r::p]).backward()
    # undivided gradients in the bucket: rank r's own sum
    assert abs(seen[0][5] - sum(float(g.sum()) for g in local[r])) < 1e-4, seen[0]
    diff = max(float(np.abs(q.grad.double().numpy() - m).max())
               for q, m in zip(model.parameters(), mean))
    assert diff < 1e-6, diff
    # a hook whose callback starts another collective (as PowerSGD's do): the second
    # all-reduces of the buckets start in one order on every rank
    def two_stage(state, bucket):
        sq = (bucket.buffer() ** 2).sum().reshape(1)
        first = dist.all_reduce(sq, async_op=True).get_future()

        def average(fut):
            state.append(round(float(fut.value()[0]), 3))
            buf = bucket.buffer().div_(p)
            return dist.all_reduce(buf, async_op=True).get_future().wait()[0]
        return first.then(average)
    norms = []
    model = T.nn.parallel.DistributedDataParallel(_model(T, 0), bucket_cap_mb=0.0002)
    model.register_comm_hook(norms, two_stage)
    for _ in range(2):
        model.zero_grad()
        _mse(T, model(X[r::p]), Y[r::p]).backward()
    diff = max(float(np.abs(q.grad.double().numpy() - m).max())
               for q, m in zip(model.parameters(), mean))
    assert diff < 1e-6, f"two-stage hook: {diff}"
    # futures of several works, waited on together
    a, b = T.ones(2), T.full((3,), float(r))
    futs = [dist.all_reduce(a, async_op=True).get_future(),
            dist.all_reduce(b, async_op=True).get_future()]
    got = T.futures.wait_all(futs)
    assert [g[0].tolist() for g in got] == [[float(p)] * 2, [float(sum(range(p)))] * 3], got
    layout = [s[:5] for s in seen]
    everyone = [None] * p
    dist.all_gather_object(everyone, layout)
    assert all(e == layout for e in everyone), everyone
    return {"layout": layout, "calls": calls, "fp16_exact": fp16_exact, "norms": norms}


# ---- split_group, shrink_group, timeouts, breakpoint ------------------------------------

def groups(T):
    dist = T.distributed
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    out = {}
    # the last rank in a group of its own, the others together; then a split that leaves
    # rank 0 out
    g = dist.split_group(split_ranks=[list(range(p - 1)), [p - 1]])
    t = T.tensor([float(r + 1)])
    dist.all_reduce(t, group=g)
    out["split"] = [dist.get_process_group_ranks(g), dist.get_rank(g), t.item()]
    g = dist.split_group(split_ranks=[list(range(1, p))], timeout=timedelta(seconds=5))
    out["none"] = g is None
    if g is not None:
        t = T.tensor([float(r)])
        dist.all_reduce(t, group=g)
        out["none"] = t.item()
    # shrink: the last rank leaves (and does not call); the others get a new default group
    if r != p - 1:
        world = dist.shrink_group([p - 1])
        assert world is dist.group.WORLD
        t = T.tensor([float(r + 1)])
        dist.all_reduce(t)
        out["shrunk"] = [dist.get_world_size(), dist.get_rank(), t.item(),
                         dist.get_process_group_ranks(None)]
        out["new_group"] = dist.get_rank(dist.new_group([0]))     # -1 outside it
        if p > 2:       # shrink a subgroup: the shrunk default group's ranks 0 and 1
            pair = dist.new_group([0, 1])
            if r < 2:
                one = dist.shrink_group([1 - r], group=pair)
                out["sub"] = dist.get_process_group_ranks(one)
    dist.destroy_process_group()
    return out


def timeouts(T):
    """Two ranks; rank 1 comes late each time, so rank 0's waits run out."""
    import os
    import time
    dist = T.distributed
    r = int(os.environ["PMI_RANK"])     # set by mpiexec (hydra); init has not run yet
    # MPI_Init waits for every process of the job, without limit: the rendezvous timeout
    # counts from there (is_mpi_available() initializes MPI, as importing mpi4py does)
    assert dist.is_mpi_available()
    out = {}
    if r == 1:
        time.sleep(3.0)
    else:
        try:
            dist.init_process_group(timeout=timedelta(seconds=1))
        except dist.DistStoreError as e:
            out["init"] = str(e)
    dist.init_process_group()            # both: the late rank's check-in is matched now
    ms = timedelta(milliseconds=300)

    def late(call):
        """call() on rank 0 while rank 1 sleeps, then on rank 1: rank 0's error."""
        if r == 1:
            time.sleep(1.5)
        try:
            return call()
        except RuntimeError as e:
            return [type(e).__name__, str(e)]
    out["barrier"] = late(lambda: dist.barrier(timeout=ms))
    dist.barrier()                      # resynchronised: rank 0's first barrier completes
    out["monitored"] = late(lambda: dist.monitored_barrier(timeout=ms, wait_all_ranks=r == 0))
    dist.barrier()
    out["monitored_ok"] = dist.monitored_barrier(timeout=timedelta(seconds=20))
    t = T.ones(2)
    work = late(lambda: dist.all_reduce(t, async_op=True))
    if r == 0:
        try:
            work.wait(timeout=ms)
        except RuntimeError as e:
            out["work"] = [type(e).__name__, str(e)]
    work.wait()
    out["work_value"] = t.tolist()
    dist.destroy_process_group()
    return out


def pdb_stop(T):
    """dist.breakpoint on rank 0 (commands from stdin, which mpiexec forwards to rank 0);
    rank 1 waits at the barrier meanwhile; skip=1 passes the first call from that line."""
    dist = T.distributed
    dist.init_process_group()
    passes = 0
    for _ in range(2):
        dist.breakpoint(rank=0, skip=1)
        passes += 1
    dist.destroy_process_group()
    return {"passes": passes}


def single_algorithms(T, init_file):
    """World size 1 on either library (PyTorch on gloo): join, communication hooks and
    their GradBuckets and errors, futures of works, profiling names, timeouts' checks."""
    dist, nn = T.distributed, T.nn
    dh = dist.algorithms.ddp_comm_hooks.default_hooks
    DDP = nn.parallel.DistributedDataParallel
    out = {}

    def err(f):
        try:
            f()
        except Exception as e:
            return [type(e).__name__, str(e)]
        return None
    out["bad_timeout"] = err(lambda: dist.init_process_group("gloo", timeout=5))
    dist.init_process_group("gloo", init_method=f"file://{init_file}", world_size=1, rank=0,
                            timeout=timedelta(seconds=20))
    out["barriers"] = [dist.barrier(timeout=timedelta(seconds=5)),
                       dist.monitored_barrier(timeout=timedelta(seconds=5)),
                       dist.monitored_barrier(wait_all_ranks=True)]
    t = T.arange(3.0)
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future()
    chained = fut.then(lambda f: f.value()[0] * 2)
    out["future"] = [type(fut).__name__, [v.tolist() for v in fut.wait()], fut.done(),
                     chained.wait().tolist(), work.wait(timeout=timedelta(seconds=5)),
                     dist.all_reduce(T.ones(1), async_op=True).wait(timedelta(0))]
    # profiling names ('gloo:' and 'mpi:' are the backends' own prefixes)
    with T.profiler.profile() as prof:
        dist.all_reduce(T.ones(2))
        dist.broadcast(T.ones(2), 0)
        with dist.record_comm("grads"):
            dist.all_reduce(T.ones(2))
            dist.all_reduce(T.ones(2), async_op=True).wait()
    names = [e.name.replace("gloo:", "backend:").replace("mpi:", "backend:")
             for e in prof.events()]
    out["profile"] = sorted(n for n in names if n.startswith(("c10d::", "backend:"))
                            or n == "grads")
    out["shrink"] = [err(lambda: dist.shrink_group((1,))), err(lambda: dist.shrink_group([])),
                     err(lambda: dist.shrink_group([0], shrink_flags=7)),
                     err(lambda: dist.shrink_group([0])),
                     err(lambda: dist.split_group(split_ranks=[]))]
    # GradBucket as hooks see it: the first iteration's one bucket, then the rebuilt ones
    T.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 5), nn.Linear(5, 2))
    d = DDP(m, bucket_cap_mb=0.00008)
    seen = []

    def look(state, bucket):
        state.append(1)
        seen.append([bucket.index(), bucket.is_last(), list(bucket.buffer().shape),
                     str(bucket.buffer().dtype), [list(q.shape) for q in bucket.parameters()],
                     [list(g.shape) for g in bucket.gradients()], bucket.buffer().tolist()])
        return dh.allreduce_hook(None, bucket)
    calls = []
    d.register_comm_hook(calls, look)
    x = T.randn(5, 3)
    for _ in range(2):
        d(x).sum().backward()
    out["buckets"] = [seen, len(calls), [q.grad.tolist() for q in m.parameters()]]

    def typed(state, bucket: dist.GradBucket) -> T.futures.Future[T.Tensor]:
        return dh.fp16_compress_hook(state, bucket)

    def bad_bucket(state, bucket: int):
        return None

    def bad_return(state, bucket) -> int:
        return 0
    fresh = DDP(nn.Linear(2, 2))
    out["register"] = [err(lambda: fresh.register_comm_hook(None, 3)),
                       err(lambda: fresh.register_comm_hook(None, bad_bucket)),
                       err(lambda: fresh.register_comm_hook(None, bad_return)),
                       fresh.register_comm_hook(None, typed),
                       err(lambda: fresh.register_comm_hook(None, typed))]

    def returns_list(state, bucket):
        f = T.futures.Future()
        f.set_result([bucket.buffer()])
        return f

    def returns_int(state, bucket):
        return 3

    def too_small(state, bucket):
        f = T.futures.Future()
        f.set_result(T.zeros(3))
        return f
    bad = []
    for hook in (returns_list, returns_int, too_small):
        T.manual_seed(0)
        model = DDP(nn.Linear(2, 2))
        model.register_comm_hook(None, hook)
        bad.append(err(lambda: model(T.ones(1, 2)).sum().backward()))
    out["bad_hooks"] = bad
    # each hook on one rank: the gradients themselves (fp16: rounded through float16)
    grads = []
    for hook in (dh.allreduce_hook, dh.fp16_compress_hook,
                 dh.fp16_compress_wrapper(dh.allreduce_hook),
                 dist.algorithms.ddp_comm_hooks.debugging_hooks.noop_hook):
        T.manual_seed(1)
        model = DDP(nn.Linear(3, 2))
        model.register_comm_hook(None, hook)
        model(x).pow(2).sum().backward()
        grads.append([q.grad.tolist() for q in model.parameters()])
    out["hook_grads"] = grads
    # join on one rank: nothing to shadow
    T.manual_seed(2)
    model = DDP(nn.Linear(3, 2))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    with model.join():
        for k in range(3):
            opt.zero_grad()
            model(x[k:k + 2]).sum().backward()
            opt.step()
    out["join"] = [q.tolist() for q in model.parameters()]
    other = dist.new_group([0])
    out["join_errors"] = [
        err(lambda: dist.algorithms.Join([])),
        err(lambda: dist.algorithms.Join([model, DDP(nn.Linear(2, 2), process_group=other)])),
        err(lambda: dist.algorithms.Join.notify_join_context(object())),
        # the join's configuration stays after it: a Work still
        type(dist.algorithms.Join.notify_join_context(model)).__name__,
        type(model.join_hook()).__name__, str(model.join_device),
        model.join_process_group is dist.group.WORLD]

    # parameters without gradients: at debug level INFO the error names them
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            T.manual_seed(0)
            self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)
    before = dist.get_debug_level()
    dist.set_debug_level(dist.DebugLevel.INFO)
    try:
        d = DDP(Two())
        d(T.ones(1, 2)).sum().backward()
        out["unfinished_info"] = err(lambda: d(T.ones(1, 2)))
    finally:
        dist.set_debug_level(before)
    dist.destroy_process_group()
    return out


def powersgd(T, init_file):
    """PowerSGD and the hooks registered by name, on either library under mpiexec (PyTorch
    on gloo, its rank from mpiexec's environment): compared rank by rank by the test."""
    import os
    dist, nn = T.distributed, T.nn
    hooks = dist.algorithms.ddp_comm_hooks
    if T.__name__ == "torch":
        dist.init_process_group("gloo", init_method=f"file://{init_file}",
                                world_size=int(os.environ["PMI_SIZE"]),
                                rank=int(os.environ["PMI_RANK"]))
    else:
        dist.init_process_group()
    r = dist.get_rank()
    out = {"rank": r}

    def train(register, steps=4):
        T.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(),
                          nn.Linear(8, 8), nn.Linear(8, 4))
        ddp = nn.parallel.DistributedDataParallel(m)
        state = register(ddp)
        T.manual_seed(1 + r)            # each rank its own batch
        x = T.randn(5, 6)
        opt = T.optim.SGD(m.parameters(), lr=0.05)
        for _ in range(steps):
            opt.zero_grad()
            ddp(x).pow(2).sum().backward()
            opt.step()
        return [q.tolist() for q in m.parameters()], state
    P = hooks.powerSGD_hook
    for rank, batched in [(1, False), (2, True), (3, False)]:
        def register(ddp):
            state = P.PowerSGDState(None, matrix_approximation_rank=rank, start_powerSGD_iter=2,
                                    min_compression_rate=1,
                                    batch_tensors_with_same_shape=batched)
            ddp.register_comm_hook(state, P.powerSGD_hook)
            return state
        params, state = train(register)
        out[f"powerSGD rank {rank} batched {batched}"] = [
            params, state.iter, list(state.compression_stats()), sorted(state.error_dict),
            sorted(state.p_memory_dict), sorted(state.__getstate__())]
    for name in ("ALLREDUCE", "FP16_COMPRESS", "NOOP", "POWER_SGD", "POWER_SGD_RANK2"):
        def register(ddp):
            hooks.register_ddp_comm_hook(hooks.DDPCommHookType[name], ddp,
                                         dist.group.WORLD)
        out[name] = train(register, steps=2)[0]
    dist.destroy_process_group()
    return out


def hooks_beyond_pytorch_cpu(T):
    """Hooks PyTorch 2.13 cannot run on the CPU (its batched PowerSGD fails a shape check,
    its quantization hooks index gloo's all-gather result as NCCL's), against NumPy:
    batched PowerSGD at full rank without error feedback reconstructs the average exactly;
    the quantized hooks average every rank's uint8 gradients."""
    dist = T.distributed
    hooks = dist.algorithms.ddp_comm_hooks
    dist.init_process_group()
    r, p = dist.get_rank(), dist.get_world_size()
    T.manual_seed(5)
    X, Y = T.randn(4 * p, 5), T.randn(4 * p, 3)
    local = [_local_grads(T, 0, X[k::p], Y[k::p]) for k in range(p)]
    mean = [sum(gs) / p for gs in zip(*local)]

    def run(register):
        model = T.nn.parallel.DistributedDataParallel(_model(T, 0))
        register(model)
        for _ in range(3):
            model.zero_grad()
            _mse(T, model(X[r::p]), Y[r::p]).backward()
        return [q.grad.double().numpy() for q in model.parameters()]
    state = hooks.powerSGD.PowerSGDState(None, matrix_approximation_rank=21,
                                         start_powerSGD_iter=1, use_error_feedback=False,
                                         warm_start=False)
    got = run(lambda m: m.register_comm_hook(state, hooks.powerSGD.batched_powerSGD_hook))
    assert state.iter == 3 and state.compression_stats()[1:] == (419 * 2, 21 * 21 * 2 * 2)
    diff = max(float(np.abs(a - b).max()) for a, b in zip(got, mean))
    assert diff < 1e-5, f"batched PowerSGD at full rank: {diff}"
    # uint8 by hand: each rank's range (widened to 0) over 0..255, rounded, averaged
    want = []
    for gs in zip(*local):
        total = 0
        for k, g in enumerate(gs):
            flat = np.concatenate([x.reshape(-1) for x in local[k]]).astype(np.float32)
            lo, hi = min(flat.min(), 0), max(flat.max(), 0)
            scale = np.float32((np.float32(hi) - np.float32(lo)) / np.float32(255))
            zero = np.clip(-np.round(np.float32(lo) / scale), 0, 255)
            q = np.clip(np.round(g.astype(np.float32) / scale) + zero, 0, 255)
            total = total + scale * (q - zero)
        want.append(total / p)
    for name in ("QUANTIZE_PER_TENSOR", "QUANTIZE_PER_CHANNEL"):
        got = run(lambda m: hooks.register_ddp_comm_hook(hooks.DDPCommHookType[name], m))
        diff = max(float(np.abs(a - b).max()) for a, b in zip(got, want))
        assert diff < 1e-6, f"{name}: {diff}"
    # quantization rows of 64 numbers: finer than one range for the whole bucket
    fine = run(lambda m: m.register_comm_hook(
        None, lambda state, bucket: hooks.quantization.quantization_perchannel_hook(
            state, bucket, 64)))
    err = [max(float(np.abs(a - b).max()) for a, b in zip(g, mean)) for g in (fine, got)]
    assert err[0] < err[1], err
    dist.destroy_process_group()
    return {"ranks": p}


# ---- the launcher's job ------------------------------------------------------------------

def hello(T):
    dist = T.distributed
    dist.init_process_group()
    t = T.ones(1)
    dist.all_reduce(t)
    return {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "sum": t.item()}


# ---- faults -----------------------------------------------------------------------------

def fault(T):
    dist = T.distributed
    dist.init_process_group()
    if dist.get_rank() == 1:
        raise ValueError("rank 1 failed on purpose")
    dist.barrier()          # never completes: rank 1 is gone
    return {}


def main():
    scenario, lib = sys.argv[1], sys.argv[2]
    T = importlib.import_module(lib)
    importlib.import_module(f"{lib}.distributed")
    # torch loads these on first import
    importlib.import_module(f"{lib}.distributed.algorithms.ddp_comm_hooks.default_hooks")
    importlib.import_module(f"{lib}.distributed.algorithms.ddp_comm_hooks.debugging_hooks")
    importlib.import_module(f"{lib}.distributed.algorithms.ddp_comm_hooks.powerSGD_hook")
    result = globals()[scenario](T, *sys.argv[3:])
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
