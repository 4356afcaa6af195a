"""Smaller namespaces against PyTorch: cond/while_loop, torch.functional, torch.return_types,
torch.serialization names, torch.hub, lobpcg, and leftovers of torch / torch.Tensor."""
import io
import os
import pickle

import numpy as np
import pytest
import torch

import chainrule
from helpers import compare, same, same_error, same_warnings


def head(T, prog, stop="\n\n  Developer debug context"):
    """The exception class and message of prog(T) up to the compiler's debug context (the
    address of the operator object PyTorch prints is cut too)."""
    try:
        prog(T)
    except Exception as e:      # noqa: BLE001
        text = str(e).split(stop)[0].split("\nfrom user code:")[0]
        text = text.split(" object at 0x")[0]
        return type(e).__name__, type(e).__module__, text.rstrip("\n")
    return None


def same_head(prog):
    ours, theirs = head(chainrule, prog), head(torch, prog)
    assert theirs is not None
    assert ours == theirs, (ours, theirs)


# ---- cond --------------------------------------------------------------------------------

def test_cond_python_pred_runs_the_branch():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        a = T.cond(True, lambda x: x.cos(), lambda x: x.sin(), (x,))
        b = T.cond(0.0, lambda x: x + 1, lambda x: x - 1, (x,))
        c = T.cond(1, lambda: T.ones(2), lambda: T.zeros(2))
        return a, b, c, a.grad_fn.next_functions[0][0]
    same(prog)


def test_cond_tensor_pred_graph_and_gradients():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = T.tensor([4., 5., 6.], requires_grad=True)
        r = T.cond(x.sum() > 0, lambda a: a.cos() * y, lambda a: a.sin() + y, (x,))
        edges = [(n if n is None else n.name(), i) for n, i in r.grad_fn.next_functions]
        gx, gy = T.autograd.grad(r.sum(), [x, y])
        return r, type(r.grad_fn).__name__, type(r.grad_fn).__module__, edges, gx, gy
    same(prog)

    def multi(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = T.tensor([4., 5., 6.], requires_grad=True)
        r = T.cond(T.tensor(False), lambda a, b: (a * b, a + b), lambda a, b: (a - b, a / b),
                   (x, y))
        (r[0] * 2 + r[1]).sum().backward(retain_graph=True)
        # the cond's gradient is computed once: it has no history of its own
        g, = T.autograd.grad(r[1].sum(), x, create_graph=True)
        return type(r), r, x.grad, y.grad, g, g.requires_grad
    same(multi)

    def backward_twice(T):
        x = T.ones(2, requires_grad=True)
        r = T.cond(T.tensor(True), lambda a: a ** 3, lambda a: a * 1, (x,))
        r.sum().backward()
        r.sum().backward()
    same_error(backward_twice)

    def twice(T):
        x = T.ones(2, requires_grad=True)
        r = T.cond(T.tensor(True), lambda a: a ** 3, lambda a: a * 1, (x,))
        g, = T.autograd.grad(r.sum(), x, create_graph=True)
        return T.autograd.grad(g.sum(), x)
    same_error(twice)


def test_cond_values_without_grad_and_structures():
    def prog(T):
        x = T.tensor([1., 2., 3.])
        w = T.tensor([1., 2., 3.], requires_grad=True)
        a = T.cond(T.tensor(True), lambda a: a * 2, lambda a: a * 1, (x,))
        b = T.cond(T.tensor([[0.5]]), lambda d: {"o": d["a"] * d["b"]},
                   lambda d: {"o": d["a"] + d["b"]}, ({"a": w, "b": x},))
        c = T.cond(T.tensor(True), lambda a: (a * 2, 3), lambda a: (a * 1, 3), (w,))
        d = T.cond(T.tensor(True), lambda a: (a * 2, a.long()), lambda a: (a * 1, a.long()), (w,))
        e = T.cond(T.tensor(1), lambda a: T.ones(3), lambda a: a * 1, (w,))
        with T.no_grad():
            z = T.ones(3)
            f = T.cond(T.tensor(True), lambda a: a.add_(1), lambda a: a * 1, (z,))
        return a, b, c, d, e, f, z, f is z
    same(prog)


def test_cond_argument_errors():
    x = lambda T: T.tensor([1., 2., 3.], requires_grad=True)    # noqa: E731
    same_error(lambda T: T.cond("a", lambda a: a + 1, lambda a: a - 1, (x(T),)))
    same_error(lambda T: T.cond(T.tensor([True, False]), lambda a: a + 1, lambda a: a - 1,
                                (x(T),)))
    same_error(lambda T: T.cond(T.tensor(True), 5, lambda a: a - 1, (x(T),)))
    same_error(lambda T: T.cond(T.tensor(True), lambda a: a + 1, lambda a: a - 1, x(T)))
    same_error(lambda T: T.cond(T.tensor(True), lambda a: a + 1, lambda a: a - 1, (x(T), 1)))


def test_cond_traced_errors():
    P = lambda T: T.tensor(True)      # noqa: E731
    x = lambda T: T.tensor([1., 2., 3.], requires_grad=True)    # noqa: E731
    same_head(lambda T: T.cond(P(T), lambda a: a, lambda a: a * 1, (x(T),)))
    same_head(lambda T: T.cond(P(T), lambda a: a[:2], lambda a: a[1:] * 1, (x(T),)))
    same_head(lambda T: T.cond(P(T), lambda a: (lambda c: (c, c))(a * 2),
                               lambda a: (a * 1, a * 3), (x(T),)))
    same_head(lambda T: T.cond(P(T), lambda a: a.add_(1), lambda a: a * 1, (x(T).clone(),)))
    same_head(lambda T: T.cond(P(T), lambda a: (a * 2, None), lambda a: (a * 1, None), (x(T),)))
    same_head(lambda T: T.cond(P(T), lambda a: (a * 2, 2.0), lambda a: (a * 1, 2.0), (x(T),)))
    same_head(lambda T: T.cond(P(T), lambda a: "s", lambda a: "s", (x(T),)))


# ---- while_loop --------------------------------------------------------------------------

def test_while_loop_values():
    def prog(T):
        wl = T.while_loop
        return (wl(lambda i, x: i.sum() < 3, lambda i, x: (i + 1, x.sin()),
                   (T.zeros(1), T.ones(2))),
                wl(lambda i, x: 2 * i < x.shape[0], lambda i, x: (i + 1, x + i), (0, T.ones(3))),
                wl(lambda i, x: i.sum() < 0, lambda i, x: (i + 1, x.sin()),
                   (T.zeros(1), T.ones(2))),
                wl(lambda x: x.sum() < 10, lambda x: x * 2, (T.ones(2),)),
                wl(lambda x, y: x.sum() < 10, lambda x, y: [x * 2, y + 1], (T.ones(2), T.ones(2))),
                wl(lambda d: d["a"].sum() < 10, lambda d: ({"a": d["a"] * 2},),
                   ({"a": T.ones(2)},)),
                wl(lambda x: bool(x.sum() < 10), lambda x: (x * 2,), (T.ones(2),)),
                wl(lambda x: 0, lambda x: (x * 2,), (T.ones(2),)))
    same(prog)


def test_while_loop_gradients():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        w = T.tensor(3., requires_grad=True)
        i, r = T.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * w), (T.tensor(0), x))
        edges = [(n if n is None else n.name(), k) for n, k in r.grad_fn.next_functions]
        gx, gw = T.autograd.grad(r.sum(), [x, w])
        with T.no_grad():
            n, = T.while_loop(lambda x: x.sum() < 10, lambda x: (x * 2,), (x,))
        return i, r, type(r.grad_fn).__name__, edges, gx, gw, n
    same(prog)


def test_while_loop_errors():
    wl = lambda T: T.while_loop      # noqa: E731
    same_error(lambda T: wl(T)(lambda x: x.sum() < 10, lambda x: (x * 2,), (1.5,)))
    same_error(lambda T: wl(T)(5, lambda x: (x * 2,), (T.ones(2),)))
    same_head(lambda T: wl(T)(lambda x: x.sum(), lambda x: (x * 2,), (T.ones(2),)))
    same_head(lambda T: wl(T)(lambda x: (x.sum() < 10).long(), lambda x: (x * 2,), (T.ones(2),)))
    same_head(lambda T: wl(T)(lambda x: x.sum() < 10, lambda x: (x,), (T.ones(2),)))
    same_head(lambda T: wl(T)(lambda x: x.sum() < 10, lambda x: (x.mul_(2),), (T.ones(2),)))
    same_head(lambda T: wl(T)(lambda i, x: i < 10, lambda i, x: (i + 0.5, x + 1),
                              (0, T.ones(2))))
    # the body's outputs against the carried inputs (PyTorch prints symbolic sizes: compare
    # the kind of mismatch)
    for make in (lambda T: (lambda x: (T.cat([x, x]),)), lambda T: (lambda x: (x.double() * 2,)),
                 lambda T: (lambda x: None)):
        ours, theirs = (head(T, lambda T: wl(T)(lambda x: x.sum() < 10, make(T), (T.ones(2),)))
                        for T in (chainrule, torch))
        assert ours[:2] == theirs[:2] == ("UncapturedHigherOrderOpError", "torch._dynamo.exc")
        assert ours[2].split(" differ in ")[0] == theirs[2].split(" differ in ")[0]
        assert ours[2].split(" differ in ")[1][:5] == theirs[2].split(" differ in ")[1][:5]
    ours, theirs = (head(T, lambda T: wl(T)(lambda x, y: x.sum() < 10, lambda x, y: (x * 2,),
                                            (T.ones(2), T.ones(2)))) for T in (chainrule, torch))
    assert ours[2].split(" but got")[0] == theirs[2].split(" but got")[0]
    with pytest.raises(RuntimeError):
        chainrule.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
                             (0, chainrule.ones(2, requires_grad=True)))


# ---- torch.functional and torch.return_types ----------------------------------------------

def test_functional_module():
    import chainrule.functional as F
    import torch.functional as TF
    assert set(F.__all__) <= set(TF.__all__)
    assert set(TF.__all__) - set(F.__all__) <= {"stft", "istft"}
    for name in F.__all__:
        assert getattr(F, name) is getattr(chainrule, name), name
    same(lambda T: (T.functional.einsum("ij,jk->ik", T.ones(2, 3), T.ones(3, 2)),
                    T.functional.split(T.arange(5), 2), T.functional.meshgrid(
                        T.arange(2), T.arange(3), indexing="ij"),
                    T.functional.norm(T.ones(3)), T.functional.unique(T.tensor([2, 1, 2])),
                    T.functional.broadcast_shapes((2, 1), (3,)),
                    T.functional.atleast_1d(T.tensor(2.)), T.functional.atleast_2d(T.ones(2)),
                    T.functional.atleast_3d(T.ones(2)), T.functional.tensordot(
                        T.ones(2, 3), T.ones(3, 2), 1), T.functional.cdist(T.ones(1, 2),
                                                                           T.zeros(1, 2)),
                    T.functional.unravel_index(T.tensor(5), (2, 3))))
    with pytest.raises(AttributeError):
        chainrule.functional.no_such_function


def test_return_types():
    import chainrule.return_types as R
    import torch.return_types as TR
    assert set(R.__all__) == set(TR.__all__) - {"pytree_register_structseq"}
    assert len(R.all_return_types) == len(TR.all_return_types)
    for name in R.__all__[1:]:
        ours, theirs = getattr(R, name), getattr(TR, name)
        assert ours.__name__ == theirs.__name__ and ours.__module__ == theirs.__module__
        assert ours._fields == theirs.__match_args__, name

    def prog(T):
        x = T.tensor([[3., 1.], [2., 5.]])
        results = [T.max(x, 0), x.max(1), T.sort(x), T.sort(x, stable=True), T.topk(x, 1),
                   T.median(x, 0), T.kthvalue(x, 1), T.mode(x), T.aminmax(x), T.cummax(x, 0),
                   T.frexp(x), T.histogram(x.flatten(), 3), T.qr(x), T.svd(x), T.slogdet(x),
                   T.linalg.qr(x), T.linalg.slogdet(x), T.linalg.inv_ex(x),
                   T.max(x, 0, out=(T.empty(0), T.empty(0, dtype=T.long)))]
        return [(type(r).__name__, isinstance(r, getattr(T.return_types, type(r).__name__)),
                 repr(r).split("(")[0]) for r in results]
    import chainrule.linalg  # noqa: F401
    same(prog)


def test_structseqs_pickle():
    x = chainrule.tensor([[3., 1.], [2., 5.]])
    for r in (chainrule.max(x, 0), chainrule.sort(x), chainrule.aminmax(x)):
        back = pickle.loads(pickle.dumps(r))
        assert type(back) is type(r)
        assert all(bool((a == b).all()) for a, b in zip(back, r))


# ---- lobpcg --------------------------------------------------------------------------------

def spd(T, m=20, dtype=None, seed=0, batch=()):
    T.manual_seed(seed)
    M = T.randn(*batch, m, m, dtype=dtype or T.float64)
    return M @ M.mT + m * T.eye(m, dtype=dtype or T.float64)


def signless(result):
    """(eigenvalues, |eigenvectors|): eigenvectors are defined up to sign, and LAPACK builds
    choose signs differently."""
    E, V = result
    return E, V.abs()


@pytest.mark.parametrize("kw", [dict(k=2), dict(k=3, largest=False), dict(k=2, method="basic"),
                                dict(k=1, n=2), dict(k=2, niter=3), dict(k=2, tol=1e-4),
                                dict(k=2, ortho_bparams={"ortho_use_drop": True}),
                                dict(k=2, ortho_iparams={"ortho_i_max": 1},
                                     ortho_fparams={"ortho_tol": 1e-6})])
def test_lobpcg_values(kw):
    same(lambda T: signless(T.lobpcg(spd(T), **kw)), atol=1e-9, rtol=1e-9)


def test_lobpcg_inputs():
    def prog(T):
        A = spd(T)
        B = spd(T, seed=1) / 20
        X = T.randn(20, 2, dtype=T.float64)
        iK = T.eye(20, dtype=T.float64) * 0.5
        f32 = spd(T, dtype=T.float32)
        return (signless(T.lobpcg(A, B=B, k=2)), signless(T.lobpcg(A, X=X.clone())),
                signless(T.lobpcg(A, X=X.clone(), method="basic", iK=iK)),
                signless(T.lobpcg(spd(T, 12, batch=(2,)), k=1)),
                signless(T.lobpcg(f32, k=2)))
    same(prog, atol=1e-4, rtol=1e-4)

    def tracked(T):
        seen = []

        def tracker(worker):
            seen.append((worker.ivars["istep"], worker.ivars["converged_count"],
                         type(worker).__name__))
            if worker.ivars["istep"] >= 2:
                worker.bvars["force_stop"] = True
        T.lobpcg(spd(T), k=2, tracker=tracker)
        return seen
    same(tracked)
    same_error(lambda T: T.lobpcg(spd(T, 5), k=2))
    same_error(lambda T: T.lobpcg(T.ones(6, 5, dtype=T.float64), k=1))
    same_error(lambda T: T.lobpcg(spd(T), B=T.eye(10, dtype=T.float64)))
    same_error(lambda T: T.lobpcg(spd(T), X=T.ones(20, 2, 1, dtype=T.float64)))


def test_lobpcg_gradient():
    def prog(T, k):
        A = spd(T).requires_grad_()
        E, V = T.lobpcg(A, k=k)
        (E.sum() + (V ** 2).sum(0).sum()).backward()
        return E, V.abs(), type(E.grad_fn).__name__, A.grad
    # the least converged eigenvector's last digits follow the triangular solves' summation
    # order (blocked trsm, here and in PyTorch's BLAS, each its own way): 1e-5 relative, 1e-6
    # absolute (the iteration stops at its tolerance, not at the same bits)
    for k in (2, 6):
        same(lambda T: prog(T, k), atol=1e-6, rtol=1e-5)

    def with_b(T):
        A = spd(T).requires_grad_()
        E, _ = T.lobpcg(A, B=T.eye(20, dtype=T.float64), k=1)
        E.sum().backward()
    same_error(with_b)


# ---- torch.serialization names -------------------------------------------------------------

class Payload:
    """A class a PyTorch checkpoint can name as a global."""


def test_serialization_names():
    import torch.serialization as TS
    import chainrule.serialization as CS
    assert set(CS.__all__) == set(TS.__all__) - {"skip_data"}
    import inspect
    for name in ("save", "load"):
        assert inspect.signature(getattr(CS, name)).parameters.keys() == \
            inspect.signature(getattr(TS, name)).parameters.keys()

    def prog(T):
        S = T.serialization
        S.clear_safe_globals()
        S.add_safe_globals([Payload, (dict, "x.y")])
        added = sorted(map(repr, S.get_safe_globals()))
        with S.safe_globals([pickle.Pickler]):
            inside = len(S.get_safe_globals())
        S.clear_safe_globals()
        st = T.ones(2).untyped_storage()
        crc = S.get_crc32_options()
        S.set_crc32_options(False)
        crc_off = S.get_crc32_options()
        S.set_crc32_options(True)
        S.set_default_load_endianness(S.LoadEndianness.BIG)
        endian = S.get_default_load_endianness().name
        S.set_default_load_endianness(None)
        import mmap
        mm = S.get_default_mmap_options()
        with S.set_default_mmap_options(mmap.MAP_SHARED):
            inside_mm = S.get_default_mmap_options()
        with S.mkdtemp() as d:
            made = os.path.isdir(d)
        S.register_package(5, lambda s: "cpu" if s.device.type == "cpu" else None,
                           lambda s, loc: s if loc == "mine" else None)
        mine = S.default_restore_location(st, "mine") is st
        return (added, inside, S.get_safe_globals(), S.location_tag(st), mine,
                S.default_restore_location(st, "cpu") is st, crc, crc_off, endian,
                S.get_default_load_endianness(), mm == mmap.MAP_PRIVATE,
                inside_mm == mmap.MAP_SHARED, S.get_default_mmap_options() == mm, made,
                str(S.StorageType("FloatStorage")), S.StorageType("LongStorage").dtype,
                S.normalize_storage_type(T.FloatStorage).__name__,
                S.check_module_version_greater_or_equal(np, (1, 0)),
                issubclass(S.SourceChangeWarning, Warning), [e.name for e in S.LoadEndianness])
    same(prog)
    same_error(lambda T: T.serialization.validate_cuda_device("cuda:0"))
    same_error(lambda T: T.serialization.validate_hpu_device("hpu:0"))
    same_error(lambda T: T.serialization.default_restore_location(
        T.ones(2).untyped_storage(), "cuda:0"))
    same_error(lambda T: T.serialization.default_restore_location(
        T.ones(2).untyped_storage(), "xyz"))
    same_error(lambda T: T.serialization.set_default_load_endianness("big"))
    same_error(lambda T: T.serialization.set_default_mmap_options(5))
    same_error(lambda T: T.serialization.StorageType("Foo"))
    same_error(lambda T: T.serialization.storage_to_tensor_type(T.ones(2).storage()))
    same_error(lambda T: T.serialization.check_module_version_greater_or_equal(pickle, (2, 0)))
    same_error(lambda T: T.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(b"abc")))


def test_load_arguments_and_unsafe_globals(tmp_path):
    def prog(T):
        b = io.BytesIO()
        T.save({"a": T.arange(3.)}, b, pickle_protocol=2)
        b.seek(0)
        first = T.load(b, weights_only=True, mmap=False)
        b.seek(0)
        second = T.load(b, map_location="cpu", weights_only=None)
        b.seek(0)
        return first, second, T.serialization.get_unsafe_globals_in_checkpoint(b)
    same(prog)

    def pickle_module(T):
        b = io.BytesIO()
        T.save({"a": T.arange(3.)}, b)
        b.seek(0)
        return T.load(b, pickle_module=pickle, weights_only=True)
    same_error(pickle_module)

    # a PyTorch checkpoint naming a class: found without unpickling it
    path = tmp_path / "torch.pt"
    torch.save({"x": Payload(), "t": torch.ones(2)}, path)
    for lib in (chainrule, torch):
        assert lib.serialization.get_unsafe_globals_in_checkpoint(path) == \
            [f"{__name__}.Payload"]
        lib.serialization.add_safe_globals([Payload])
        assert lib.serialization.get_unsafe_globals_in_checkpoint(path) == []
        lib.serialization.clear_safe_globals()


# ---- torch.hub -------------------------------------------------------------------------------

HUBCONF = '''
dependencies = ["numpy"]


def tiny(scale=1.0, *, shift=0):
    """A tiny entrypoint."""
    return [scale * 2, shift]


def _private():
    return 0
'''


def test_hub_dirs(monkeypatch, tmp_path):
    for lib in (chainrule, torch):
        monkeypatch.setattr(lib.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    same(lambda T: T.hub.get_dir())
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    same(lambda T: T.hub.get_dir())

    def set_then_get(T):
        T.hub.set_dir("~/somewhere")
        d = T.hub.get_dir()
        T.hub.set_dir(str(tmp_path))
        return d, T.hub.get_dir()
    same(set_then_get)
    monkeypatch.setenv("TORCH_HUB", "x")
    same_warnings(lambda T: T.hub.get_dir())
    assert set(chainrule.hub.__all__) == set(torch.hub.__all__)


def test_hub_local_and_cached_github(monkeypatch, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(HUBCONF)
    hub_dir = tmp_path / "hub"
    (hub_dir / "someone_models_main").mkdir(parents=True)
    (hub_dir / "someone_models_main" / "hubconf.py").write_text(HUBCONF)
    for lib in (chainrule, torch):
        monkeypatch.setattr(lib.hub, "_hub_dir", str(hub_dir))

    def prog(T):
        return (T.hub.load(str(repo), "tiny", 3.0, source="local", shift=1),
                T.hub.load(str(repo), "tiny", source="LOCAL"),
                T.hub.list("someone/models:main", trust_repo=True),
                T.hub.help("someone/models:main", "tiny", trust_repo=True),
                T.hub.load("someone/models:main", "tiny", 2.0, trust_repo=True, verbose=False))
    same(prog)
    same_error(lambda T: T.hub.load(str(repo), "tiny", source="svn"))
    same_error(lambda T: T.hub.load(str(repo), "_missing", source="local"))
    same_error(lambda T: T.hub.load(str(repo), 5, source="local"))
    (repo / "hubconf.py").write_text(HUBCONF.replace('["numpy"]', '["no_such_module_x"]'))
    same_error(lambda T: T.hub.load(str(repo), "tiny", source="local"))


def test_hub_downloads(monkeypatch, tmp_path):
    import hashlib
    src = tmp_path / "payload.bin"
    src.write_bytes(b"chainrule" * 1000)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    url = src.as_uri()

    def prog(T):
        dst = tmp_path / f"out_{T.__name__}.bin"
        T.hub.download_url_to_file(url, str(dst), hash_prefix=digest[:8], progress=False)
        return dst.read_bytes() == src.read_bytes()
    same(prog)
    same_error(lambda T: T.hub.download_url_to_file(url, str(tmp_path / "bad"), "00ff",
                                                    progress=False))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]

    # load_state_dict_from_url: each library reads its own format
    for lib in (chainrule, torch):
        name = f"weights_{lib.__name__}-{'0' * 4}.pt"
        lib.save({"w": lib.arange(4.)}, tmp_path / name)
        model_dir = tmp_path / f"cache_{lib.__name__}"
        sd = lib.hub.load_state_dict_from_url((tmp_path / name).as_uri(),
                                              model_dir=str(model_dir), progress=False)
        assert sd["w"].tolist() == [0., 1., 2., 3.] and (model_dir / name).exists()
        sd = lib.hub.load_state_dict_from_url("https://unused.invalid/" + name,
                                              model_dir=str(model_dir), progress=False)
        assert sd["w"].tolist() == [0., 1., 2., 3.]      # from the cache, no download
    with pytest.raises(RuntimeError, match="does not unpickle PyTorch checkpoints"):
        chainrule.hub.load_state_dict_from_url(
            (tmp_path / "weights_torch-0000.pt").as_uri(), model_dir=str(tmp_path / "c2"),
            progress=False)
    empty = tmp_path / "empty.pt"
    chainrule.save({}, empty)
    assert chainrule.hub.load_state_dict_from_url(empty.as_uri(), model_dir=str(tmp_path / "c3"),
                                                  progress=False) == {}


# ---- torch.Tensor leftovers and nn.functional aliases -----------------------------------------

def test_tensor_contains_reversed_and_python2_names():
    def prog(T):
        x = T.tensor([1., 2.])
        m = T.tensor([[1, 2], [3, 4]])
        y = T.tensor([1., 2., 3.], requires_grad=True) * 1
        return (2 in x, 5 in x, T.tensor(2.) in x, 1 in m, T.tensor([1, 2]) in m, 2.5 in m,
                list(reversed(x)), reversed(T.tensor(3.)), reversed(y), reversed(m),
                T.tensor(2.).__nonzero__(), T.tensor(0.).__nonzero__(),
                T.tensor(2.5).__long__(), T.tensor([7]).__long__())
    same(prog)
    same_error(lambda T: "a" in T.tensor([1.]))
    same_error(lambda T: [1] in T.tensor([1.]))
    same_error(lambda T: T.tensor([1., 2.]).__nonzero__())
    same_error(lambda T: T.tensor([1., 2.]).__long__())


def test_functional_aliases_are_the_top_level_functions():
    import chainrule.nn.functional as F
    assert F.cosine_similarity is chainrule.cosine_similarity
    assert F.pairwise_distance is chainrule.pairwise_distance
    same(lambda T: (T.nn.functional.pairwise_distance(T.ones(2, 3), T.zeros(2, 3)),
                    T.nn.functional.cosine_similarity(T.ones(2, 3), T.arange(6.).view(2, 3))))


def test_sym_helpers():
    same(lambda T: (T.sym_max(2, 3.5), T.sym_max(np.int64(2), 1), T.sym_max(True, 0),
                    T.sym_min(1, 1.0), T.sym_min(4, 2), T.sym_int(-3.7), T.sym_float("2.5"),
                    T.sym_sqrt(4), T.sym_sqrt(T.tensor(4.)), T.sym_ite(True, 1, 2),
                    T.sym_ite(False, "a", "b"), T.sym_sum(1, 2.5), T.sym_sum([]),
                    T.sym_sum([1, 2, 3]), T.sym_fresh_size(3), T.sym_not(0),
                    T.sym_not(T.tensor(True)), T.thread_safe_generator(),
                    T.sym_sqrt.__name__, T.sym_int.__module__))
    same_error(lambda T: T.sym_max(T.tensor(2), 3))
    same_error(lambda T: T.sym_min("a", 1))
    same_error(lambda T: T.sym_ite(1, 1, 2))
    same_error(lambda T: T.sym_ite(True, 1, 2.0))


def test_every_return_type_by_name():
    def prog(T):
        types = (
            T.return_types.aminmax,
            T.return_types.aminmax_out,
            T.return_types.cummax,
            T.return_types.cummax_out,
            T.return_types.cummin,
            T.return_types.cummin_out,
            T.return_types.frexp,
            T.return_types.frexp_out,
            T.return_types.geqrf,
            T.return_types.geqrf_out,
            T.return_types.histogram,
            T.return_types.histogram_out,
            T.return_types.histogramdd,
            T.return_types.kthvalue,
            T.return_types.kthvalue_out,
            T.return_types.linalg_cholesky_ex,
            T.return_types.linalg_cholesky_ex_out,
            T.return_types.linalg_eig,
            T.return_types.linalg_eig_out,
            T.return_types.linalg_eigh,
            T.return_types.linalg_eigh_out,
            T.return_types.linalg_inv_ex,
            T.return_types.linalg_inv_ex_out,
            T.return_types.linalg_ldl_factor,
            T.return_types.linalg_ldl_factor_ex,
            T.return_types.linalg_ldl_factor_ex_out,
            T.return_types.linalg_ldl_factor_out,
            T.return_types.linalg_lstsq,
            T.return_types.linalg_lstsq_out,
            T.return_types.linalg_lu,
            T.return_types.linalg_lu_factor,
            T.return_types.linalg_lu_factor_ex,
            T.return_types.linalg_lu_factor_ex_out,
            T.return_types.linalg_lu_factor_out,
            T.return_types.linalg_lu_out,
            T.return_types.linalg_qr,
            T.return_types.linalg_qr_out,
            T.return_types.linalg_slogdet,
            T.return_types.linalg_slogdet_out,
            T.return_types.linalg_solve_ex,
            T.return_types.linalg_solve_ex_out,
            T.return_types.linalg_svd,
            T.return_types.linalg_svd_out,
            T.return_types.lu_unpack,
            T.return_types.lu_unpack_out,
            T.return_types.max,
            T.return_types.max_out,
            T.return_types.median,
            T.return_types.median_out,
            T.return_types.min,
            T.return_types.min_out,
            T.return_types.mode,
            T.return_types.mode_out,
            T.return_types.nanmedian,
            T.return_types.nanmedian_out,
            T.return_types.qr,
            T.return_types.qr_out,
            T.return_types.slogdet,
            T.return_types.slogdet_out,
            T.return_types.sort,
            T.return_types.sort_out,
            T.return_types.svd,
            T.return_types.svd_out,
            T.return_types.topk,
            T.return_types.topk_out,
            T.return_types.triangular_solve,
            T.return_types.triangular_solve_out)
        return [(t.__name__, t.__module__, tuple(t(tuple(range(len(t.__match_args__))))
                 if T is torch else t(*range(len(t._fields))))) for t in types]
    same(prog)


def test_dynamo_names_beside_compile():
    """torch._dynamo.reset / utils.counters / list_backends as programs using torch.compile
    call them: with eager compilation nothing is cached and no counter moves."""
    import torch._dynamo  # noqa: F401  (loads torch._dynamo.utils too)

    def prog(T):
        import importlib
        dynamo = importlib.import_module(f"{T.__name__}._dynamo")
        f = T.compile(lambda x: x.sin() + 1, backend="eager")
        y = f(T.tensor([0.5, 1.0]))
        return (dynamo.reset(), y, dynamo.list_backends(), dynamo.is_compiling(),
                {k: dict(v) for k, v in dynamo.utils.counters.items() if v})
    ours, theirs = prog(chainrule), prog(torch)
    compare(ours[:4], theirs[:4])
    assert ours[4] == {}
