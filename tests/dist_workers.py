"""Programs tests/test_distributed.py starts under mpiexec: `python dist_workers.py SCENARIO
LIB [ARG]`. A failed check raises, which (through init_process_group's excepthook) ends the
whole job with the error; a scenario that passes prints one JSON line, 'RESULT <json>'."""
import importlib
import json
import sys
import warnings

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
    assert len(model._buckets) > 2
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        ((model(X[r::p]) - Y[r::p]) ** 2).mean().backward()
        opt.step()
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
    result = globals()[scenario](T, *sys.argv[3:])
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
