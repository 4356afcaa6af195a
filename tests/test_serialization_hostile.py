"""chainrule.load on hostile and damaged files: bombs, huge headers, path traversal, object
dtypes, and every truncation, byte flip and byte deletion of a small file give the documented
RuntimeError (the same for a path as for BytesIO) or load the unchanged data; never a
MemoryError, OSError, ValueError or zipfile error from inside. Also: a killed save's
temporary file is removed by the next save to the same target."""
import io
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import chainrule
from chainrule import serialization

_DOCUMENTED = re.compile(r"chainrule\.load: (?P<name>'.*'|the file object) is (not a valid "
                         r"chainrule file|corrupted): .+", re.S)


def _object():
    w = chainrule.arange(6.).reshape(2, 3).requires_grad_()
    return {"w": w, "row": w.detach()[1], "i": chainrule.tensor([7, -8], dtype=chainrule.int16),
            "n": 1, "f": -0.0, "s": "ok", "t": (None, True, 2j)}


def _saved(obj):
    buf = io.BytesIO()
    chainrule.save(obj, buf)
    return buf.getvalue()


def _same(a, b):
    """Loaded `a` is `b` unchanged: types, dtypes, shapes, requires_grad, bits."""
    assert type(a) is type(b)
    if isinstance(b, chainrule.Tensor):
        assert (a.dtype, a.shape, a.requires_grad) == (b.dtype, b.shape, b.requires_grad)
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
    elif isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            _same(a[k], b[k])
    elif isinstance(b, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert repr(a) == repr(b)


def _outcome(load):
    """('ok', object) or ('error', message without the file's name)."""
    try:
        return "ok", load()
    except RuntimeError as e:
        m = _DOCUMENTED.fullmatch(str(e))
        assert m, f"undocumented RuntimeError: {e}"
        return "error", str(e)[:m.start("name")] + "<f>" + str(e)[m.end("name"):]


def _refused(data, match, tmp_path=None):
    with pytest.raises(RuntimeError, match=match) as info:
        chainrule.load(io.BytesIO(data))
    assert _DOCUMENTED.fullmatch(str(info.value))
    if tmp_path is not None:    # the same by path
        p = tmp_path / "hostile.pt"
        p.write_bytes(data)
        with pytest.raises(RuntimeError, match=match):
            chainrule.load(p)


def test_every_truncation_flip_and_deletion(tmp_path):
    obj = _object()
    data = _saved(obj)
    assert len(data) < 2000
    _same(chainrule.load(io.BytesIO(data)), obj)
    path = tmp_path / "damaged.pt"
    variants = [data[:n] for n in range(len(data))]
    variants += [data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:] for i in range(len(data))]
    variants += [data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:] for i in range(len(data))]
    variants += [data[:i] + data[i + 1:] for i in range(len(data))]
    loaded = 0
    for v in variants:
        from_bytes = _outcome(lambda: chainrule.load(io.BytesIO(v)))
        path.write_bytes(v)
        from_path = _outcome(lambda: chainrule.load(path))
        assert from_bytes[0] == from_path[0], (from_bytes, from_path)
        if from_bytes[0] == "ok":
            # a change in bytes that nothing reads (a timestamp, a version field)
            _same(from_bytes[1], obj)
            _same(from_path[1], obj)
            loaded += 1
        else:
            assert from_bytes[1] == from_path[1]
    # most damage is refused; flips in fields zipfile ignores load unchanged
    assert loaded < len(variants) // 4, loaded


def _deflated(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, payload in members.items():
            zf.writestr(name, payload)
    return out.getvalue()


def test_deflate_bomb_is_refused_before_decompressing(tmp_path):
    # 64 MB of JSON whitespace in a manifest of ~64 KB: nothing may be inflated
    bomb = _deflated({"manifest.json": b"{" + b" " * (64 << 20) + b"}",
                      "storages/0.npy": b"\x93NUMPY" + b"\0" * (16 << 20)})
    assert len(bomb) < 200_000
    tracemalloc.start()
    try:
        _refused(bomb, "archive members are compressed", tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def _with_npy_header(data, header):
    """`data` (a saved file of one 3-element float32 storage) with the storage's .npy
    header dict replaced, the manifest made consistent with it, and CRCs recomputed."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        payload = zf.read("storages/0.npy")
    shape = header["shape"]
    manifest["storages"][0]["numel"] = shape[0]
    manifest["tensors"][0]["shape"] = list(shape)
    text = repr(header).encode()
    text += b" " * (63 - (10 + len(text)) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + payload[128:]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr("storages/0.npy", npy)
    return out.getvalue()


def test_huge_declared_npy_header_is_refused_before_allocating(tmp_path):
    data = _saved(chainrule.tensor([1.0, 2.0, 3.0]))
    huge = _with_npy_header(data, {"descr": "<f4", "fortran_order": False,
                                   "shape": (10**12,)})
    tracemalloc.start()
    try:
        _refused(huge, r"storage 0: its \.npy header declares 4000000000000 bytes of data, "
                       r"but the member holds 12", tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
    # the control: the same construction with the true size loads
    same = _with_npy_header(data, {"descr": "<f4", "fortran_order": False, "shape": (3,)})
    assert chainrule.load(io.BytesIO(same)).tolist() == [1.0, 2.0, 3.0]


def _central_directory_edit(data, name, offset, value, fmt):
    """`data` with a field of `name`'s central-directory record overwritten."""
    record = data.index(b"PK\x01\x02")
    while True:
        n = struct.unpack_from("<H", data, record + 28)[0]
        if data[record + 46:record + 46 + n] == name.encode():
            break
        record = data.index(b"PK\x01\x02", record + 4)
    return data[:record + offset] + struct.pack(fmt, value) + \
        data[record + offset + struct.calcsize(fmt):]


def test_sizes_beyond_the_file_and_encryption_are_refused(tmp_path):
    data = _saved(chainrule.ones(4))
    # compressed and uncompressed sizes (offsets 20, 24) claiming 4 GB
    big = _central_directory_edit(data, "storages/0.npy", 20, 2**32 - 1, "<I")
    big = _central_directory_edit(big, "storages/0.npy", 24, 2**32 - 1, "<I")
    _refused(big, "archive member 'storages/0.npy' does not fit in the file", tmp_path)
    big = _central_directory_edit(data, "manifest.json", 20, 2**31, "<I")
    big = _central_directory_edit(big, "manifest.json", 24, 2**31, "<I")
    _refused(big, "archive member 'manifest.json' does not fit in the file", tmp_path)
    encrypted = _central_directory_edit(data, "manifest.json", 8, 0x1, "<H")
    _refused(encrypted, r"archive member 'manifest.json' has flags 0x1", tmp_path)
    # a local header offset before the start of the file: a negative seek inside zipfile
    # (an OSError for a path, a ValueError for BytesIO) is refused the same both ways
    cut = data[:10] + data[11:]
    _refused(cut, "not a valid chainrule file", tmp_path)


@pytest.mark.parametrize("name", ["../escape.npy", "storages/../../etc/passwd",
                                  "/abs/storages/0.npy", "storages/0.npy/../x",
                                  "storages\\..\\0.npy", "storages/00.npy", "storages/-1.npy"])
def test_path_traversal_and_foreign_member_names_are_refused(tmp_path, name):
    data = _saved(chainrule.ones(2))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members[name] = members["storages/0.npy"]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n, payload in members.items():
            zf.writestr(zipfile.ZipInfo(n), payload)
    _refused(out.getvalue(), "unexpected archive members", tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["hostile.pt"]


class _Boom:
    ran = []

    def __reduce__(self):
        return (_Boom.ran.append, ("executed",))


def test_object_dtypes_are_refused_unread(tmp_path):
    data = _saved(chainrule.tensor([1.0, 2.0, 3.0]))
    npy = io.BytesIO()
    np.save(npy, np.array([_Boom(), 1, 2], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        manifest = zf.read("manifest.json")
    for m in (manifest, manifest.replace(b'"float32"', b'"object"')):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zf:
            zf.writestr("manifest.json", m)
            zf.writestr("storages/0.npy", npy.getvalue())
        _refused(out.getvalue(), "Object arrays cannot be loaded|storage entry 0 is malformed",
                 tmp_path)
    # an object dtype inside a structured dtype
    mixed = _with_npy_header(data, {"descr": [("a", "<f4"), ("b", "|O")],
                                    "fortran_order": False, "shape": (3,)})
    _refused(mixed, "Object arrays cannot be loaded", tmp_path)
    assert _Boom.ran == []


# ---- a killed save's temporary file ----------------------------------------------------

def _temporaries(directory, name):
    return sorted(f for f in os.listdir(directory) if re.fullmatch(
        rf"\.{re.escape(name)}\.[0-9a-f]{{12}}\.tmp", f))


def _age(path, seconds):
    t = time.time() - seconds
    os.utime(path, (t, t))


_KILLED_SAVE = """
import sys, time
import chainrule
from chainrule import serialization
def stall(fh, *args):
    fh.write(b"partial" * 1000)
    fh.flush()
    print("writing", flush=True)
    time.sleep(60)
serialization._write = stall
chainrule.save(chainrule.ones(1000), sys.argv[1])
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_save_leaves_a_temporary_file_that_the_next_save_removes(tmp_path):
    target = tmp_path / "model.pt"
    chainrule.save({"epoch": 1}, target)
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_SAVE, str(target)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        # alive and writing: its file is held, a save now leaves it alone
        (held,) = _temporaries(tmp_path, "model.pt")
        _age(tmp_path / held, 3600)
        chainrule.save({"epoch": 2}, target)
        assert _temporaries(tmp_path, "model.pt") == [held]
    finally:
        proc.kill()
        proc.wait()
    assert _temporaries(tmp_path, "model.pt") == [held]     # what the issue found
    (tmp_path / ".other.pt.0123456789ab.tmp").write_bytes(b"x")    # another target's
    (tmp_path / ".model.pt.notatempfile.tmp").write_bytes(b"x")   # not one of ours
    _age(tmp_path / held, 3600)
    chainrule.save({"epoch": 3}, target)
    assert _temporaries(tmp_path, "model.pt") == []
    assert sorted(os.listdir(tmp_path)) == [".model.pt.notatempfile.tmp",
                                            ".other.pt.0123456789ab.tmp", "model.pt"]
    assert chainrule.load(target) == {"epoch": 3}


def test_recent_temporary_files_are_left_to_their_save(tmp_path):
    # one just created may belong to a save between its creation and its lock, or between
    # closing and renaming it: only files untouched for a few seconds are removed
    target = tmp_path / "m.pt"
    recent = tmp_path / ".m.pt.aaaaaaaaaaaa.tmp"
    old = tmp_path / ".m.pt.bbbbbbbbbbbb.tmp"
    recent.write_bytes(b"x")
    old.write_bytes(b"x")
    _age(old, serialization._STALE_AFTER + 1)
    chainrule.save(1, target)
    assert _temporaries(tmp_path, "m.pt") == [recent.name]
