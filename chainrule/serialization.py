"""chainrule.save / chainrule.load: tensors and containers of them, in a file that loading
can never use to run code.

PyTorch's torch.save pickles, and unpickling an untrusted file can run arbitrary code. This
format holds only data: a JSON manifest and NumPy .npy arrays, read with
``allow_pickle=False``. Nothing in a file names a Python callable or class.

Savable objects: ``Tensor``; ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``;
``list``, ``tuple``, ``dict`` and ``collections.OrderedDict`` of savable objects (dict keys are
savable hashables: strings, numbers, tuples, tensors...). Subclasses of these (namedtuples,
IntEnum, Parameter-like Tensor subclasses) are refused rather than silently changed.

Format (version 1)
------------------
A zip archive with exactly these members, stored uncompressed:

``manifest.json``
    UTF-8 JSON object::

        {"format": "chainrule", "version": 1,
         "storages": [{"dtype": "float32", "numel": 12}, ...],
         "tensors": [{"storage": 0, "dtype": "float32", "shape": [3, 4],
                      "strides": [16, 4], "offset": 0, "requires_grad": false}, ...],
         "root": NODE}

    ``strides`` and ``offset`` are in bytes into the storage, so views with other shapes,
    strides (negative ones included) or dtypes than their storage are described exactly.
    NODE is one of:

    - JSON ``null``, ``true``/``false``, an integer, a string: None, bool, int, str;
    - ``{"float": "1.5"}`` (Python ``repr``, so ``"nan"``, ``"-inf"``, ``"-0.0"`` round trip);
    - ``{"complex": ["1.0", "-2.5"]}``;
    - ``{"tensor": i}``: entry ``i`` of ``tensors`` (the same Python tensor object saved
      twice is stored once and loads as one object);
    - ``{"list": [NODE, ...]}``, ``{"tuple": [NODE, ...]}``;
    - ``{"dict": [[KEY_NODE, NODE], ...]}``, ``{"ordered_dict": [[KEY_NODE, NODE], ...]}``.

``storages/<i>.npy``
    Storage ``i``: a one-dimensional array of the storage's dtype and numel in NumPy's .npy
    format (no object dtype, native little-endian), the memory that tensors refer into.

dtypes are chainrule's names: float16, bfloat16, float32, float64, complex32, complex64,
complex128, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, and the float8
types. The .npy format has no code for the ml_dtypes types (bfloat16, float8, complex32):
their storages hold the same bytes as unsigned integers of the same size.

Memory sharing: tensors whose NumPy arrays have the same base array (views of one another,
``detach()``, ``.data``) are saved against one storage, the whole base array, and load as
arrays sharing one buffer, so writes through one show in the others. As with torch.load,
loaded tensors are independent autograd leaves (no view relationship, ``.grad`` and
``grad_fn`` are not saved). Sharing is found through NumPy's ``.base`` chain only; a base
array that is not contiguous or has a dtype outside the list above is not shared: each
tensor then gets its own storage.

Loading a damaged or hostile file
--------------------------------
Loading checks everything (member names, sizes and CRCs, the JSON schema, dtypes, that every
view lies inside its storage) and raises ``RuntimeError``, with the same message for a path
as for a file object holding the same bytes::

    chainrule.load: <'path' or the file object> is not a valid chainrule file: <why>
    chainrule.load: <'path' or the file object> is corrupted: <error>: <why>

(the second when the damage shows while a member is read: a bad CRC-32, short data). Never
a MemoryError, ValueError or zipfile error from inside, and never a changed load: every
member's bytes are checked against the CRC-32 the archive records for them. Nothing is
read or allocated before it is known to fit: compressed or encrypted members, names outside
the format (path traversal like ``../x`` included), members whose sizes exceed the file or
overlap, and .npy headers whose dtype or element count disagree with the manifest or with
the member's size are refused first, so a small file cannot make load use much more memory
than the file's own size. Object dtypes (pickles) are refused from the header, unread. An
``OSError`` comes only from opening the path (FileNotFoundError...) or from the disk.

Saving to a path
----------------
A save to a path writes ``.<name>.<12 hex digits>.tmp`` in the target's directory and
renames it over the target, so a save that fails leaves an existing file untouched;
everything is validated before any byte is written. A save killed before its rename
(SIGKILL, power loss) leaves its temporary file behind: the next save to the same target
removes such files that are older than a few seconds and that no live save holds (each save
holds an flock on its temporary file while writing it, where the platform has flock).
"""
import collections
import io
import json
import os
import re
import secrets
import stat
import time
import zipfile
import zlib

try:
    import fcntl
except ImportError:     # Windows: a file open for writing cannot be removed there anyway
    fcntl = None

import numpy as np

from ._dtype import FROM_NP as _SUPPORTED_NP, TENSOR_DTYPES as _DTYPES
from ._tensor import Tensor, make_tensor

__all__ = ["save", "load"]
from ._serialization_api import *  # noqa: E402,F401,F403  (torch.serialization's other names)
from ._serialization_api import __all__ as _api_all  # noqa: E402
__all__ += _api_all

_FORMAT, _VERSION = "chainrule", 1
_MANIFEST = "manifest.json"
_BY_NAME = {d.name: d for d in _DTYPES}     # .np read on use: ml_dtypes loads when needed
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed member timestamps: equal objects give equal files


def _storage_name(i):
    return f"storages/{i}.npy"


# ---- save ---------------------------------------------------------------------------------

class _Encoder:
    """Turns an object into the manifest's NODE tree and the storages to write."""

    def __init__(self):
        self.tensors = []      # manifest entries
        self.tensor_ids = {}   # id(tensor) -> index; `keep` holds the objects alive
        self.storages = []     # 1-d arrays to write
        self.storage_ids = {}  # id(base array) -> index
        self.keep = []
        self.active = set()    # containers being encoded, to catch cycles

    def node(self, obj, where):
        t = type(obj)
        if obj is None or t in (bool, int, str):
            return obj
        if t is float:
            return {"float": repr(obj)}
        if t is complex:
            return {"complex": [repr(obj.real), repr(obj.imag)]}
        if t is Tensor:
            return {"tensor": self.tensor(obj, where)}
        if t in (list, tuple, dict, collections.OrderedDict):
            if id(obj) in self.active:
                raise ValueError(f"chainrule.save: {where} contains itself (a reference cycle)")
            self.active.add(id(obj))
            if t in (list, tuple):
                out = {t.__name__: [self.node(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
            else:
                out = {"dict" if t is dict else "ordered_dict":
                       [[self.node(k, f"a key of {where}"), self.node(v, f"{where}[{k!r}]")]
                        for k, v in obj.items()]}
            self.active.discard(id(obj))
            return out
        raise TypeError(f"chainrule.save: cannot save {where}, an object of type "
                        f"{t.__module__}.{t.__qualname__}; only tensors, None, bool, int, float, "
                        "complex, str and list/tuple/dict/OrderedDict of them can be saved")

    def tensor(self, t, where):
        index = self.tensor_ids.get(id(t))
        if index is not None:
            return index
        data = t._data
        if data.dtype not in _SUPPORTED_NP:
            raise TypeError(f"chainrule.save: {where} has unsupported array dtype {data.dtype}")
        storage, offset, strides = self.storage(data)
        index = self.tensor_ids[id(t)] = len(self.tensors)
        self.keep.append(t)
        self.tensors.append({"storage": storage, "dtype": t.dtype.name, "shape": list(data.shape),
                             "strides": list(strides), "offset": offset,
                             "requires_grad": bool(t.requires_grad)})
        return index

    def storage(self, data):
        """(storage index, byte offset, byte strides) of data, sharing its base array if
        possible."""
        base = data
        while isinstance(base.base, np.ndarray):
            base = base.base
        if (base.dtype in _SUPPORTED_NP and base.dtype.isnative
                and (base.flags.c_contiguous or base.flags.f_contiguous)):
            index = self.storage_ids.get(id(base))
            if index is None:
                index = self.storage_ids[id(base)] = self.add_storage(base.reshape(-1, order="A"))
                self.keep.append(base)
            return index, _address(data) - _address(base), data.strides
        compact = np.ascontiguousarray(data)  # not shareable: a copy of its own
        return self.add_storage(compact.reshape(-1)), 0, compact.strides

    def add_storage(self, flat):
        self.storages.append(flat)
        return len(self.storages) - 1


def _address(a):
    return a.__array_interface__["data"][0]


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save `obj` (tensors, numbers, strings, None and nested list/tuple/dict of them) to `f`,
    a path or a writable binary file object, in the format described in this module. The
    pickle and legacy-format arguments of torch.save are accepted; nothing is pickled."""
    enc = _Encoder()
    manifest = {"format": _FORMAT, "version": _VERSION,
                "storages": None, "tensors": enc.tensors, "root": enc.node(obj, "obj")}
    manifest["storages"] = [{"dtype": _np_name(s.dtype), "numel": int(s.size)}
                            for s in enc.storages]
    manifest = json.dumps(manifest, allow_nan=False).encode()
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), lambda fh: _write(fh, manifest, enc.storages))
    else:
        _write(f, manifest, enc.storages)


def _np_name(np_dtype):
    return _SUPPORTED_NP[np_dtype].name


def _bits(arr):
    """An ml_dtypes array as the unsigned integers of its bytes, which .npy can hold."""
    return arr.view(f"u{arr.itemsize}") if _SUPPORTED_NP[arr.dtype]._ml_name else arr


def _stored(name):
    """The NumPy dtype a storage of dtype `name` has in the file."""
    d = _BY_NAME[name]
    return np.dtype(f"u{d.itemsize}") if d._ml_name else d.np


def _write(fh, manifest, storages):
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(zipfile.ZipInfo(_MANIFEST, _EPOCH), manifest)
        for i, arr in enumerate(storages):
            with zf.open(zipfile.ZipInfo(_storage_name(i), _EPOCH), "w",
                         force_zip64=arr.nbytes >= 2**31) as member:
                np.save(member, _bits(arr), allow_pickle=False)


_STALE_AFTER = 5.0      # seconds: a temporary file untouched so long is not being renamed


def _remove_stale_temporaries(directory, name):
    """Remove the temporary files that killed saves to `name` left (see the module doc)."""
    pattern = re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{12}}\.tmp")
    try:
        candidates = [e for e in os.scandir(directory)
                      if pattern.fullmatch(e.name) and e.is_file(follow_symlinks=False)]
    except OSError:
        return
    for entry in candidates:
        try:
            if time.time() - entry.stat(follow_symlinks=False).st_mtime < _STALE_AFTER:
                continue
            with open(entry.path, "rb") as fh:
                if fcntl is not None:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: a live save
                os.unlink(entry.path)
        except OSError:     # held, gone already, or not ours to remove: leave it
            pass


def _write_atomically(path, write):
    path = os.path.realpath(path)  # write through a symlink, as open() would
    directory, name = os.path.split(path)
    _remove_stale_temporaries(directory, name)
    tmp = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    # 0o666 with O_EXCL: the umask applies, as for an ordinary open(path, "wb")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            if fcntl is not None:
                fcntl.flock(fh, fcntl.LOCK_EX)  # released on close: others see a live save
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))  # keep an overwritten file's mode
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# ---- load ---------------------------------------------------------------------------------

class _Corrupt(Exception):
    """A problem with the file's contents, reported by load() as a RuntimeError."""


class _OutsideFile(_Corrupt, OSError):
    """A seek before the file's start: an OSError, which zipfile expects from a seek that
    fails, but one load reports as damage."""


class _Reader:
    """The file being loaded, as zipfile sees it. A real file refuses a seek before its
    start with OSError and BytesIO with ValueError or by stopping at 0; here both refuse it
    as _OutsideFile, so a path and a BytesIO of the same bytes fail the same way. Reads
    stop at the end of the file, so a huge size read from the archive never makes a read
    allocate for it."""
    __slots__ = ("fh", "size")

    def __init__(self, fh):
        self.fh = fh
        where = fh.tell()
        self.size = fh.seek(0, 2)
        fh.seek(where)

    def seek(self, offset, whence=0):
        target = offset + (0 if whence == 0 else self.fh.tell() if whence == 1 else self.size)
        if target < 0:
            raise _OutsideFile("an offset in the archive points before the start of the file")
        return self.fh.seek(target)

    def tell(self):
        return self.fh.tell()

    def read(self, n=-1):
        left = max(self.size - self.fh.tell(), 0)
        return self.fh.read(left if n is None or n < 0 or n > left else n)

    def seekable(self):
        return True


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by `save` from `f`, a path or a readable binary file object.

    Only the CPU exists, so `map_location` may be None, "cpu" or a cpu device. Loading is
    always weights-only (the format holds data, never code), whatever `weights_only` says;
    as PyTorch, a pickle_module is refused with weights_only=True. mmap=True reads the
    file into memory as well, and pickle_load_args have nothing to apply to."""
    if pickle_module is not None and weights_only:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if map_location is not None and str(map_location) != "cpu":
        raise ValueError(f"chainrule.load: map_location must be None or 'cpu', got "
                         f"{map_location!r}")
    if isinstance(f, (str, os.PathLike)):
        name = repr(os.fspath(f))
        with open(f, "rb") as fh:
            return _load(fh, name)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load(f, "the file object")


def _load(fh, name):
    try:
        reader = _Reader(fh)
        try:
            zf = zipfile.ZipFile(reader)
        except zipfile.BadZipFile as e:
            raise _Corrupt(f"not a zip archive, or a truncated one ({e})") from None
        with zf:
            return _Decoder(zf, reader.size).run()
    except _Corrupt as e:
        raise RuntimeError(f"chainrule.load: {name} is not a valid chainrule file: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, ValueError,
            NotImplementedError, OverflowError, RecursionError) as e:
        # damage found while reading members (bad CRC, short data, bad .npy header, ...)
        raise RuntimeError(f"chainrule.load: {name} is corrupted: "
                           f"{type(e).__name__}: {e}") from None


def _check(cond, message):
    if not cond:
        raise _Corrupt(message)


def _is_int(x):
    return type(x) is int


_MEMBER_NAME = re.compile(r"manifest\.json|storages/(0|[1-9][0-9]*)\.npy")
_FLAGS_WRITTEN = 0x08 | 0x800   # data descriptor (an unseekable target), UTF-8 names


class _Decoder:
    def __init__(self, zf, size):
        self.zf = zf
        self.size = size    # the file's: no member can be larger

    def run(self):
        names = self.zf.namelist()
        _check(_MANIFEST in names, "it has no manifest.json"
               + (" (it looks like a pickle-based PyTorch file, which chainrule never loads: "
                  "unpickling can run arbitrary code)" if any(n.endswith(".pkl") for n in names)
                  else ""))
        extra = sorted(n for n in names if not _MEMBER_NAME.fullmatch(n))
        _check(not extra, f"unexpected archive members {extra}")
        self.check_sizes()
        try:
            m = json.loads(self.zf.read(_MANIFEST).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise _Corrupt(f"manifest.json is not valid JSON ({e})") from None
        _check(isinstance(m, dict) and m.get("format") == _FORMAT,
               "manifest.json does not describe a chainrule file")
        _check(m.get("version") == _VERSION, f"unsupported format version {m.get('version')!r}")
        _check(set(m) == {"format", "version", "storages", "tensors", "root"},
               f"manifest.json has keys {sorted(m)}")
        storages, tensors = m["storages"], m["tensors"]
        _check(isinstance(storages, list) and isinstance(tensors, list),
               "manifest.json storages/tensors are not lists")
        expected = {_MANIFEST} | {_storage_name(i) for i in range(len(storages))}
        extra = sorted(set(names) - expected)
        _check(not extra, f"unexpected archive members {extra}")
        _check(len(names) == len(set(names)) == len(expected),
               "missing or duplicated archive members")
        self.storages = [self.storage(i, s) for i, s in enumerate(storages)]
        self.tensors = [self.tensor(i, t) for i, t in enumerate(tensors)]
        return self.node(m["root"])

    def check_sizes(self):
        """Before anything is read: members stored (so no decompression bombs), unencrypted,
        and inside the file without overlapping (so no member is read twice over)."""
        infos = self.zf.infolist()
        _check(all(i.compress_type == zipfile.ZIP_STORED for i in infos),
               "archive members are compressed; this format stores them uncompressed")
        for i in infos:
            _check(not i.flag_bits & ~_FLAGS_WRITTEN,
                   f"archive member {i.filename!r} has flags {i.flag_bits:#x} (encryption or "
                   "other zip features this format never uses)")
            _check(i.file_size == i.compress_size and 0 <= i.header_offset
                   and i.header_offset + i.compress_size <= self.size,
                   f"archive member {i.filename!r} does not fit in the file")
        _check(sum(i.compress_size for i in infos) <= self.size,
               "archive members overlap")

    def storage(self, i, entry):
        _check(isinstance(entry, dict) and set(entry) == {"dtype", "numel"}
               and entry["dtype"] in _BY_NAME and _is_int(entry["numel"]) and entry["numel"] >= 0,
               f"storage entry {i} is malformed")
        stored, numel = _stored(entry["dtype"]), entry["numel"]
        info = self.zf.getinfo(_storage_name(i))
        with self.zf.open(info) as member:
            # the .npy header first: nothing is allocated for a size it does not vouch for
            try:
                version = np.lib.format.read_magic(member)
                _check(version in ((1, 0), (2, 0)),
                       f"storage {i} cannot be read: unsupported .npy version {version}")
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(member)
            except ValueError as e:
                raise _Corrupt(f"storage {i} cannot be read: {e}") from None
            _check(not dtype.hasobject, f"storage {i} cannot be read: Object arrays cannot be "
                   "loaded: this format never holds pickles")
            _check(dtype == stored and shape == (numel,),
                   f"storage {i} holds {dtype} {shape}, but the manifest says "
                   f"{entry['dtype']} ({numel},)")
            nbytes = numel * stored.itemsize
            _check(member.tell() + nbytes == info.file_size,
                   f"storage {i}: its .npy header declares {nbytes} bytes of data, but the "
                   f"member holds {info.file_size - member.tell()}")
            data = bytearray(nbytes)
            # reading to the member's end makes zipfile check its CRC-32
            _check(member.readinto(data) == nbytes and member.read(1) == b"",
                   f"storage {i} is shorter than its header says")
        return np.frombuffer(data, stored).view(_BY_NAME[entry["dtype"]].np)

    def tensor(self, i, e):
        _check(isinstance(e, dict) and set(e) == {"storage", "dtype", "shape", "strides",
                                                  "offset", "requires_grad"}
               and _is_int(e["storage"]) and 0 <= e["storage"] < len(self.storages)
               and e["dtype"] in _BY_NAME and isinstance(e["shape"], list)
               and isinstance(e["strides"], list) and len(e["shape"]) == len(e["strides"])
               and all(_is_int(n) and n >= 0 for n in e["shape"])
               and all(_is_int(s) for s in e["strides"]) and _is_int(e["offset"])
               and type(e["requires_grad"]) is bool, f"tensor entry {i} is malformed")
        storage, dtype = self.storages[e["storage"]], _BY_NAME[e["dtype"]].np
        shape, strides, offset = tuple(e["shape"]), tuple(e["strides"]), e["offset"]
        if 0 in shape:
            data = np.empty(shape, dtype)
        else:
            low = offset + sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
            high = offset + sum(max(0, (n - 1) * s) for n, s in zip(shape, strides))
            _check(0 <= low and high + dtype.itemsize <= storage.nbytes,
                   f"tensor {i} lies outside its storage")
            data = np.ndarray(shape, dtype, buffer=storage, offset=offset, strides=strides)
        t = make_tensor(data)
        if e["requires_grad"]:
            _check(_BY_NAME[e["dtype"]].category >= 2,
                   f"tensor {i} of dtype {e['dtype']} requires grad")
            t.requires_grad_()
        return t

    def node(self, n):
        if n is None or type(n) in (bool, int, str):
            return n
        _check(isinstance(n, dict) and len(n) == 1, f"malformed value {str(n)[:80]}")
        (kind, v), = n.items()
        if kind == "float":
            _check(isinstance(v, str), "malformed float")
            return float(v)
        if kind == "complex":
            _check(isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v),
                   "malformed complex")
            return complex(float(v[0]), float(v[1]))
        if kind == "tensor":
            _check(_is_int(v) and 0 <= v < len(self.tensors), f"bad tensor reference {v!r}")
            return self.tensors[v]
        _check(isinstance(v, list), f"malformed {kind}")
        if kind == "list":
            return [self.node(x) for x in v]
        if kind == "tuple":
            return tuple(self.node(x) for x in v)
        _check(kind in ("dict", "ordered_dict"), f"unknown value kind {kind!r}")
        _check(all(isinstance(p, list) and len(p) == 2 for p in v), f"malformed {kind}")
        out = {} if kind == "dict" else collections.OrderedDict()
        for k, x in v:
            k = self.node(k)
            try:
                out[k] = self.node(x)
            except TypeError:
                raise _Corrupt(f"unhashable dict key of type {type(k).__name__}") from None
        return out
