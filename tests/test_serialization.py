"""chainrule.save / chainrule.load: round trips, sharing, and files that must be refused."""
import collections
import io
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import chainrule
from chainrule import serialization
from chainrule._tensor import make_tensor   # from_numpy refuses negative strides, as torch's


def _roundtrip(obj):
    buf = io.BytesIO()
    chainrule.save(obj, buf)
    buf.seek(0)
    return chainrule.load(buf)


def _same_tensor(a, b):
    assert type(a) is chainrule.Tensor and a.dtype is b.dtype and a.shape == b.shape
    assert a.requires_grad == b.requires_grad and a.is_leaf
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


DTYPES = [chainrule.float16, chainrule.float32, chainrule.float64, chainrule.int8,
          chainrule.int16, chainrule.int32, chainrule.int64, chainrule.uint8, chainrule.bool,
          chainrule.complex64, chainrule.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (2, 3, 4)], ids=str)
def test_tensor_round_trip(dtype, shape):
    data = (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3)
    x = chainrule.tensor(data.astype(dtype.np) if dtype.is_complex else data).to(dtype)
    if dtype.is_complex:
        x = x * (1 - 2j)
    _same_tensor(_roundtrip(x), x)


@pytest.mark.parametrize("dtype", [chainrule.float16, chainrule.float64, chainrule.complex64],
                         ids=str)
def test_requires_grad_and_special_values(dtype):
    x = chainrule.tensor([float("nan"), float("inf"), -0.0, 1.5], dtype=dtype).requires_grad_()
    y = _roundtrip(x)
    _same_tensor(y, x)
    assert np.signbit(y.detach().numpy().real[2])
    y.abs().sum().backward()  # an ordinary leaf
    assert y.grad is not None


def test_non_leaf_loads_as_leaf_without_grad_state():
    a = chainrule.ones(3, requires_grad=True)
    b = a * 2
    b.sum().backward()
    rb, ra = _roundtrip([b, a])
    assert rb.is_leaf and rb.requires_grad and rb.grad_fn is None and ra.grad is None
    assert rb.tolist() == [2.0, 2.0, 2.0]


def test_python_values_and_containers():
    obj = {"none": None, "t": True, "f": False, "i": -(2**70), "x": 0.1, "nan": float("nan"),
           "ninf": float("-inf"), "nz": -0.0, "c": 1 - 2.5j, "s": "héllo", "e": "",
           "nest": [(1, [2, {"k": (3,)}]), (), []], 7: "int key", 2.5: "float key",
           (1, "a"): "tuple key", None: "none key", True: "bool key",
           "od": collections.OrderedDict([("z", 1), ("a", 2)])}
    r = _roundtrip(obj)
    assert list(r) == list(obj) and type(r) is dict
    for k, v in obj.items():
        if k == "nan":
            assert np.isnan(r[k])
        else:
            assert r[k] == v and type(r[k]) is type(v)
    assert np.signbit(r["nz"])
    assert type(r["od"]) is collections.OrderedDict and list(r["od"]) == ["z", "a"]
    assert type(r["nest"][0]) is tuple and type(r["nest"][0][1]) is list
    assert _roundtrip(None) is None and _roundtrip(3) == 3


def test_optimizer_like_state_dict():
    w = chainrule.randn(3, 2)
    sd = {"state": {0: {"step": chainrule.tensor(3.0), "exp_avg": w.clone()}},
          "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0], "amsgrad": False,
                            "foreach": None}]}
    r = _roundtrip(sd)
    assert r["param_groups"] == sd["param_groups"]
    _same_tensor(r["state"][0]["exp_avg"], w)
    _same_tensor(r["state"][0]["step"], sd["state"][0]["step"])


def test_tensor_keys_and_identity():
    a = chainrule.arange(3.)
    r = _roundtrip({a: [a, a], "b": a})
    (k, v), = list(r.items())[:1]
    assert v[0] is k and v[1] is k and r["b"] is k


def test_shared_memory_views_come_back_sharing():
    base = chainrule.arange(24.).reshape(4, 6)
    views = [base, base.detach()[1:, ::2], base.t(), base.reshape(-1)[5:], base[2, 3],
             make_tensor(base.numpy()[::-1, ::-1]), base[:0]]    # negative strides
    other = chainrule.zeros(2)
    r = _roundtrip(views + [other])
    for got, want in zip(r, views):
        _same_tensor(got, want)
    r[0].numpy()[2, 2] = -1.0
    assert r[1].numpy()[1, 1] == -1.0 and r[2].numpy()[2, 2] == -1.0
    assert r[3].numpy()[14 - 5] == -1.0 and r[5].numpy()[1, 3] == -1.0
    r[4].numpy()[...] = 7.0
    assert r[0].numpy()[2, 3] == 7.0
    assert not np.shares_memory(r[-1].numpy(), r[0].numpy())
    buf = io.BytesIO()
    chainrule.save(views, buf)
    with zipfile.ZipFile(buf) as zf:
        assert [n for n in zf.namelist() if n.startswith("storages/")] == ["storages/0.npy"]


def test_views_with_another_dtype_and_unshareable_bases():
    a = np.arange(8, dtype=np.float32)
    t = chainrule.from_numpy(a.view(np.int32)[::2])   # base dtype differs from the view's
    u = chainrule.from_numpy(np.arange(12, dtype=np.uint32).view(np.int32)[::3])  # base uint32
    rt, ru = _roundtrip([t, u])
    _same_tensor(rt, t)
    _same_tensor(ru, u)


def test_paths_and_file_objects(tmp_path):
    x = {"w": chainrule.randn(2, 3)}
    p = tmp_path / "m.pt"
    chainrule.save(x, p)
    _same_tensor(chainrule.load(p)["w"], x["w"])
    _same_tensor(chainrule.load(str(p))["w"], x["w"])
    with open(p, "rb") as fh:
        _same_tensor(chainrule.load(fh)["w"], x["w"])
    with open(tmp_path / "f.pt", "wb") as fh:
        chainrule.save(x, fh)
    _same_tensor(chainrule.load(tmp_path / "f.pt", map_location="cpu")["w"], x["w"])
    assert sorted(os.listdir(tmp_path)) == ["f.pt", "m.pt"]  # no temporary files left
    b1, b2 = io.BytesIO(), io.BytesIO()
    chainrule.save(x, b1)
    chainrule.save(x, b2)
    assert b1.getvalue() == b2.getvalue()  # deterministic bytes


class _Unseekable(io.RawIOBase):
    def __init__(self, data):
        self._data = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, b):
        return self._data.readinto(b)


def test_unseekable_file_object():
    buf = io.BytesIO()
    chainrule.save([1, chainrule.ones(2)], buf)
    r = chainrule.load(_Unseekable(buf.getvalue()))
    assert r[0] == 1 and r[1].tolist() == [1.0, 1.0]


def test_unsupported_objects_are_refused_and_leave_the_file_intact(tmp_path):
    p = tmp_path / "keep.pt"
    chainrule.save({"ok": 1}, p)
    before = p.read_bytes()
    Point = collections.namedtuple("Point", "x")
    bad = [{"a": [chainrule.ones(2), {"deep": object()}]}, np.ones(2), Point(1),
           {1, 2}, b"bytes", chainrule.float32]
    for obj in bad:
        with pytest.raises(TypeError, match="chainrule.save: cannot save"):
            chainrule.save(obj, p)
    cyclic = [1]
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="reference cycle"):
        chainrule.save(cyclic, p)
    assert p.read_bytes() == before and os.listdir(tmp_path) == ["keep.pt"]
    with pytest.raises(TypeError, match=r"obj\['a'\]\[1\]\['deep'\]"):
        chainrule.save(bad[0], io.BytesIO())


def test_failure_while_writing_leaves_the_file_intact(tmp_path, monkeypatch):
    p = tmp_path / "keep.pt"
    chainrule.save({"ok": 1}, p)
    before = p.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(serialization.np, "save", broken)
    with pytest.raises(OSError, match="disk full"):
        chainrule.save(chainrule.ones(3), p)
    assert p.read_bytes() == before and os.listdir(tmp_path) == ["keep.pt"]


def _saved(obj=None):
    buf = io.BytesIO()
    chainrule.save({"w": chainrule.arange(6.).reshape(2, 3), "n": 1} if obj is None else obj, buf)
    return buf.getvalue()


def _rebuild(data, change):
    """The archive `data` with its members passed through change(dict name -> bytes)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    change(members)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n, b in members.items():
            zf.writestr(n, b)
    return out.getvalue()


def _edit_manifest(edit):
    def change(members):
        m = json.loads(members["manifest.json"])
        edit(m)
        members["manifest.json"] = json.dumps(m).encode()
    return _rebuild(_saved(), change)


def _refused(data, match):
    with pytest.raises(RuntimeError, match=match):
        chainrule.load(io.BytesIO(data))


def test_truncated_and_corrupted_files(tmp_path):
    data = _saved()
    for n in (0, 10, len(data) // 2, len(data) - 1):
        _refused(data[:n], "chainrule.load: the file object is not a valid chainrule file")
    p = tmp_path / "t.pt"
    p.write_bytes(data[:len(data) // 2])
    with pytest.raises(RuntimeError, match=r"chainrule.load: '.*t.pt' is not a valid"):
        chainrule.load(p)
    # flip a byte inside the tensor data: the zip CRC catches it
    i = data.index(np.arange(6, dtype=np.float32).tobytes())
    flipped = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
    _refused(flipped, "corrupted: BadZipFile: Bad CRC-32")
    _refused(_rebuild(data, lambda m: m.update({"manifest.json": b"{not json"})),
             "manifest.json is not valid JSON")
    _refused(_rebuild(data, lambda m: m.update({"storages/0.npy": b"\x93NUMPY garbage"})),
             "storage 0 cannot be read")
    _refused(_rebuild(data, lambda m: m.pop("storages/0.npy")), "missing")
    deflated = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, \
            zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for n in src.namelist():
            dst.writestr(n, src.read(n))
    _refused(deflated.getvalue(), "archive members are compressed")


@pytest.mark.parametrize("edit,match", [
    (lambda m: m.update(format="torch"), "does not describe a chainrule file"),
    (lambda m: m.update(version=2), "unsupported format version 2"),
    (lambda m: m.update(extra=1), "manifest.json has keys"),
    (lambda m: m["tensors"][0].update(offset=8), "tensor 0 lies outside its storage"),
    (lambda m: m["tensors"][0].update(strides=[24, -8]), "tensor 0 lies outside its storage"),
    (lambda m: m["tensors"][0].update(shape=[3, 3]), "tensor 0 lies outside its storage"),
    (lambda m: m["tensors"][0].update(dtype="object"), "tensor entry 0 is malformed"),
    (lambda m: m["tensors"][0].update(requires_grad=1), "tensor entry 0 is malformed"),
    (lambda m: m["storages"][0].update(dtype="int64"), "storage 0 holds float32"),
    (lambda m: m["storages"][0].update(numel=5), "storage 0 holds"),
    (lambda m: m.update(root={"tensor": 5}), "bad tensor reference 5"),
    (lambda m: m.update(root={"pickle": "x"}), "malformed pickle"),
    (lambda m: m.update(root={"module": []}), "unknown value kind 'module'"),
    (lambda m: m.update(root={"dict": [[{"list": []}, 1]]}), "unhashable dict key"),
    (lambda m: m.update(root={"float": "not a number"}), "corrupted"),
])
def test_malformed_manifests(edit, match):
    _refused(_edit_manifest(edit), match)


def test_requires_grad_on_integer_tensor_is_refused():
    data = _rebuild(_saved(chainrule.arange(3)), lambda m: m.update(
        {"manifest.json": m["manifest.json"].replace(b'"requires_grad": false',
                                                     b'"requires_grad": true')}))
    _refused(data, "tensor 0 of dtype int64 requires grad")


class _Boom:
    ran = []

    def __reduce__(self):
        return (_Boom.ran.append, ("executed",))


def test_hostile_pickles_are_never_executed():
    payload = pickle.dumps(_Boom())
    # a PyTorch-style archive
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
    _refused(out.getvalue(), "looks like a pickle-based PyTorch file")
    # a raw pickle file
    _refused(payload, "not a zip archive")
    # an object-dtype .npy (a pickle inside NumPy's format) in place of a storage
    npy = io.BytesIO()
    np.save(npy, np.array([_Boom()], dtype=object), allow_pickle=True)
    _refused(_rebuild(_saved(), lambda m: m.update({"storages/0.npy": npy.getvalue()})),
             "storage 0 cannot be read: Object arrays cannot be loaded")
    # an extra pickle member next to a valid archive
    _refused(_rebuild(_saved(), lambda m: m.update({"data.pkl": payload})),
             r"unexpected archive members \['data.pkl'\]")
    assert _Boom.ran == []


def test_map_location():
    assert chainrule.load(io.BytesIO(_saved()), map_location=chainrule.device("cpu"))["n"] == 1
    with pytest.raises(ValueError, match="map_location"):
        chainrule.load(io.BytesIO(_saved()), map_location="cuda")
