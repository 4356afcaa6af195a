"""The rest of torch.serialization's public names, for chainrule's save/load.

chainrule's file format never unpickles (see serialization.py): loading is always what
PyTorch calls weights_only, and nothing in a file names a Python global. So the safe-globals
list is kept (add/get/clear, the context manager) with nothing to allow, and
get_unsafe_globals_in_checkpoint is [] for chainrule files; for a PyTorch checkpoint (a zip
with a data.pkl) it lists, as PyTorch does, the globals its pickle names that PyTorch's
weights-only unpickler would refuse, reading the pickle's opcodes without running them.
The storage location registry (register_package, location_tag, default_restore_location)
answers as PyTorch's CPU build. The crc32, endianness and mmap options are recorded and
validated as PyTorch's; chainrule's files always carry CRCs and are little-endian, and load
reads them into memory."""
import contextlib
import enum
import io
import mmap as _mmap
import os
import pickletools
import shutil
import tempfile
import warnings
import zipfile

__all__ = ["SourceChangeWarning", "mkdtemp", "register_package",
           "check_module_version_greater_or_equal", "validate_cuda_device",
           "validate_hpu_device", "location_tag", "default_restore_location",
           "normalize_storage_type", "storage_to_tensor_type", "StorageType", "LoadEndianness",
           "get_crc32_options", "set_crc32_options", "get_default_load_endianness",
           "set_default_load_endianness", "get_default_mmap_options",
           "set_default_mmap_options", "clear_safe_globals", "get_safe_globals",
           "add_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]


class SourceChangeWarning(Warning):
    __module__ = "torch.serialization"


@contextlib.contextmanager
def mkdtemp():
    """A temporary directory, removed on exit."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


# ---- storage locations ----------------------------------------------------------------------

def _cpu_tag(obj):
    if obj.device.type == "cpu":
        return "cpu"


def _cpu_deserialize(obj, location):
    if location == "cpu":
        return obj


_NO_CUDA = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")


def _cuda_deserialize(obj, location):
    if location.startswith("cuda"):
        raise RuntimeError(_NO_CUDA)


_package_registry = [(10, _cpu_tag, _cpu_deserialize), (20, lambda obj: None, _cuda_deserialize)]


def register_package(priority, tagger, deserializer):
    """Register `tagger(storage) -> location or None` and `deserializer(storage, location)`
    for save/load's storage locations, tried in order of `priority`."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


def location_tag(storage):
    """The location tag of `storage` (\'cpu\')."""
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + _typename(storage))


def default_restore_location(storage, location):
    """`storage` restored at `location` by the registered deserializers."""
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError("don't know how to restore data location of " + _typename(storage)
                       + " (tagged with " + location + ")")


def _typename(obj):
    import chainrule
    return chainrule.typename(obj)


def validate_cuda_device(location):
    """PyTorch's CPU build: there is no CUDA device to load onto."""
    raise RuntimeError(_NO_CUDA)


def validate_hpu_device(location):
    """PyTorch's CPU build: there is no HPU device to load onto."""
    raise RuntimeError("The HPU device module is not registered. If you are running on a "
                       "CPU-only machine, please use torch.load with "
                       "map_location=torch.device('cpu') to map your storages to the CPU.")


def normalize_storage_type(storage_type):
    """The top-level storage class of that name (torch.FloatStorage, ...)."""
    import chainrule
    return getattr(chainrule, storage_type.__name__)


def storage_to_tensor_type(storage):
    """The legacy tensor type of a legacy storage (FloatStorage -> FloatTensor)."""
    import importlib
    storage_type = type(storage)
    module = importlib.import_module(storage_type.__module__.replace("torch", "chainrule", 1))
    name = storage_type.__name__.replace("Storage", "Tensor")
    if not hasattr(module, name):    # in PyTorch's words: its module names
        raise AttributeError(f"module '{storage_type.__module__}' has no attribute '{name}'")
    return getattr(module, name)


class StorageType:
    """A pickled storage type name, as PyTorch's loader reads it."""
    __module__ = "torch.serialization"

    def __init__(self, name):
        from ._storage import _LEGACY
        dtypes = {cls.__name__: d for d, cls in _LEGACY.items()}
        if name not in dtypes:
            raise KeyError(f'pickle storage type "{name}" is not recognized')
        self._dtype = dtypes[name]

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether `module.__version__` is at least `req_version_tuple`."""
    try:
        version_strs = module.__version__.split(".")
        module_version = tuple(type(req_field)(version_strs[idx])
                               for idx, req_field in enumerate(req_version_tuple))
        requirement_is_met = module_version >= req_version_tuple
    except Exception as e:      # noqa: BLE001  (any malformed version)
        message = (f"'{module.__name__}' module version string is malformed "
                   f"'{module.__version__}' and cannot be compared with tuple "
                   f"{str(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met",
                      stacklevel=2)
        requirement_is_met = True
    return requirement_is_met


# ---- options ----------------------------------------------------------------------------------

class LoadEndianness(enum.Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


LoadEndianness.__module__ = "torch.serialization"
_options = {"crc32": True, "endianness": None, "mmap_flags": _mmap.MAP_PRIVATE}


def get_crc32_options():
    """Whether save computes CRC32s (chainrule's files always have them)."""
    return _options["crc32"]


def set_crc32_options(compute_crc32):
    _options["crc32"] = compute_crc32


def get_default_load_endianness():
    """The byte order load assumes for files that record none (chainrule's record it)."""
    return _options["endianness"]


def set_default_load_endianness(endianness):
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _options["endianness"] = endianness


def get_default_mmap_options():
    """The mmap flags of load(mmap=True) (chainrule's load reads into memory)."""
    return _options["mmap_flags"]


class set_default_mmap_options:
    """Set the flags of load(mmap=True): mmap.MAP_PRIVATE or mmap.MAP_SHARED; as a context
    manager, restored on exit."""
    __module__ = "torch.serialization"

    def __init__(self, flags):
        if flags not in (_mmap.MAP_PRIVATE, _mmap.MAP_SHARED):
            raise ValueError("Invalid argument in function set_default_mmap_options, expected "
                             f"mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _options["mmap_flags"]
        _options["mmap_flags"] = flags

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _options["mmap_flags"] = self.prev


# ---- safe globals -----------------------------------------------------------------------------

_safe_globals = set()


def clear_safe_globals():
    """Forget the globals add_safe_globals allowed."""
    _safe_globals.clear()


def get_safe_globals():
    """The globals add_safe_globals allowed (functions, classes, or (object, name) pairs)."""
    return list(_safe_globals)


def add_safe_globals(safe_globals):
    """Allow these globals in weights-only loading (chainrule's files name none)."""
    _safe_globals.update(safe_globals)


class safe_globals:
    """Allow `safe_globals` inside a with block only."""
    __module__ = "torch.serialization"

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _safe_globals.update(self.safe_globals)

    def __exit__(self, *exc):
        _safe_globals.difference_update(self.safe_globals)


# PyTorch 2.13's default weights-only allow list (torch._weights_only_unpickler)
_ALLOWED = set((
    "_codecs.encode builtins.bytearray builtins.complex builtins.set collections.Counter "
    "collections.OrderedDict torch.BFloat16Storage torch.BFloat16Tensor torch.BoolStorage "
    "torch.BoolTensor torch.ByteStorage torch.ByteTensor torch.CharStorage torch.CharTensor "
    "torch.ComplexDoubleStorage torch.ComplexFloatStorage torch.DoubleStorage torch.DoubleTensor "
    "torch.FloatStorage torch.FloatTensor torch.HalfStorage torch.HalfTensor torch.IntStorage "
    "torch.IntTensor torch.LongStorage torch.LongTensor torch.QInt32Storage torch.QInt8Storage "
    "torch.QUInt2x4Storage torch.QUInt4x2Storage torch.QUInt8Storage torch.ShortStorage "
    "torch.ShortTensor torch.Size torch.Tensor torch._tensor._rebuild_from_type_v2 "
    "torch._utils._rebuild_device_tensor_from_cpu_tensor "
    "torch._utils._rebuild_device_tensor_from_numpy torch._utils._rebuild_meta_tensor_no_storage "
    "torch._utils._rebuild_nested_tensor torch._utils._rebuild_parameter "
    "torch._utils._rebuild_parameter_with_state torch._utils._rebuild_qtensor "
    "torch._utils._rebuild_sparse_tensor torch._utils._rebuild_tensor "
    "torch._utils._rebuild_tensor_v2 torch._utils._rebuild_tensor_v3 "
    "torch._utils._rebuild_wrapper_subclass torch.bfloat16 torch.bits16 torch.bits1x8 torch.bits2x4 "
    "torch.bits4x2 torch.bits8 torch.bool torch.complex128 torch.complex32 torch.complex64 "
    "torch.cuda.BFloat16Storage torch.cuda.BFloat16Tensor torch.cuda.BoolStorage "
    "torch.cuda.BoolTensor torch.cuda.ByteStorage torch.cuda.ByteTensor torch.cuda.CharStorage "
    "torch.cuda.CharTensor torch.cuda.ComplexDoubleStorage torch.cuda.ComplexFloatStorage "
    "torch.cuda.DoubleStorage torch.cuda.DoubleTensor torch.cuda.FloatStorage torch.cuda.FloatTensor "
    "torch.cuda.HalfStorage torch.cuda.HalfTensor torch.cuda.IntStorage torch.cuda.IntTensor "
    "torch.cuda.LongStorage torch.cuda.LongTensor torch.cuda.ShortStorage torch.cuda.ShortTensor "
    "torch.cuda.sparse.BFloat16Tensor torch.cuda.sparse.ByteTensor torch.cuda.sparse.CharTensor "
    "torch.cuda.sparse.DoubleTensor torch.cuda.sparse.FloatTensor torch.cuda.sparse.HalfTensor "
    "torch.cuda.sparse.IntTensor torch.cuda.sparse.LongTensor torch.cuda.sparse.ShortTensor "
    "torch.device torch.float16 torch.float32 torch.float4_e2m1fn_x2 torch.float64 "
    "torch.float8_e4m3fn torch.float8_e4m3fnuz torch.float8_e5m2 torch.float8_e5m2fnuz "
    "torch.float8_e8m0fnu torch.int1 torch.int16 torch.int2 torch.int3 torch.int32 torch.int4 "
    "torch.int5 torch.int6 torch.int64 torch.int7 torch.int8 torch.nn.parameter.Parameter "
    "torch.per_channel_affine torch.per_channel_affine_float_qparams torch.per_channel_symmetric "
    "torch.per_tensor_affine torch.per_tensor_symmetric torch.qint32 torch.qint8 torch.quint2x4 "
    "torch.quint4x2 torch.quint8 torch.serialization._get_layout torch.sparse.BFloat16Tensor "
    "torch.sparse.ByteTensor torch.sparse.CharTensor torch.sparse.DoubleTensor "
    "torch.sparse.FloatTensor torch.sparse.HalfTensor torch.sparse.IntTensor torch.sparse.LongTensor "
    "torch.sparse.ShortTensor torch.storage.TypedStorage torch.storage.UntypedStorage torch.uint1 "
    "torch.uint16 torch.uint2 torch.uint3 torch.uint32 torch.uint4 torch.uint5 torch.uint6 "
    "torch.uint64 torch.uint7 torch.uint8 "
).split())


def _user_allowed():
    names = set()
    for g in _safe_globals:
        if isinstance(g, tuple):
            names.add(g[1])
        else:
            names.add(f"{g.__module__}.{g.__qualname__}")
    return names


def get_unsafe_globals_in_checkpoint(f):
    """The globals a checkpoint's pickle names that weights-only loading would refuse:
    none in a chainrule file; read from the opcodes (never run) of a PyTorch one."""
    from .serialization import _MANIFEST
    with contextlib.ExitStack() as stack:
        if isinstance(f, (str, os.PathLike)):
            f = stack.enter_context(open(f, "rb"))
        try:
            zf = stack.enter_context(zipfile.ZipFile(f))
        except zipfile.BadZipFile:
            raise ValueError("Expected input to be a checkpoint returned by torch.save") from None
        names = zf.namelist()
        if _MANIFEST in names:
            return []
        pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if not pkl:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        found = {arg.replace(" ", ".") for op, arg, _ in pickletools.genops(
            io.BytesIO(zf.read(pkl[0]))) if op.name == "GLOBAL"}
        return list(found - _ALLOWED - _user_allowed())
