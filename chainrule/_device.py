"""Devices. chainrule computes on the CPU only, like PyTorch's CPU build: `torch.device('cuda')`
and friends can be made, compared and printed, and fail where PyTorch's CPU build fails,
when a tensor is put on them (`use`), with that build's exception class and message."""
import operator

__all__ = ["device", "cpu", "use", "check_factory", "set_default_device", "get_default_device"]

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _signature_error(got, bad=True):
    why = f"      didn't match because some of the arguments have invalid types: (!{got}!)\n" \
        if bad else ""
    return TypeError(f"device() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:\n * (torch.device device)\n{why}"
                     " * (str type, int index = -1)\n")


def _wrap_index(i):
    # c10::DeviceIndex is an int8; PyTorch prints the wrapped value through a uint16
    w = (i + 128) % 256 - 128
    return None if w == -1 else w if w >= 0 else w + 65536


def _parse(s):
    """(type, index) from 'cuda' / 'cuda:1', with PyTorch's errors."""
    if not s:
        raise RuntimeError("Device string must not be empty")
    kind, sep, idx = s.partition(":")
    if kind not in DEVICE_TYPES:
        if not kind or not kind.isascii() or not all(c.isalpha() or c == "_" for c in kind):
            raise RuntimeError(f"Invalid device string: '{s}'")
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {s}")
    if not sep:
        return kind, None
    if not idx.isdigit() or not idx.isascii() or (len(idx) > 1 and idx[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{s}'")
    if int(idx) > 2147483647:
        raise RuntimeError(f"Could not parse device index '{idx}' in device string '{s}'")
    if kind == "mkldnn":
        _warn_mkldnn()
    return kind, _wrap_index(int(idx))


def _warn_mkldnn():
    import warnings
    warnings.warn("'mkldnn' is no longer used as device type. So torch.device('mkldnn') will be "
                  "deprecated and removed in the future. Please use other valid device types "
                  "instead.", UserWarning, stacklevel=4)


class device:
    """torch.device: a device type ('cpu', 'cuda', 'mps', ...) and an optional index.
    Only 'cpu' can hold tensors here, as in PyTorch's CPU-only build."""
    __slots__ = ("_type", "_index")
    __module__ = "torch"

    def __new__(cls, *args, **kwargs):
        if len(args) + len(kwargs) == 1 and isinstance((args or tuple(kwargs.values()))[0], device) \
                and set(kwargs) <= {"device"}:
            d = (args or tuple(kwargs.values()))[0]
            return _rebuild(d._type, d._index)     # a new object, as PyTorch's
        for k in kwargs:
            if k not in ("type", "index", "device"):
                if not args:
                    raise TypeError(
                        "device() received an invalid combination of arguments - got "
                        f"({k}={type(kwargs[k]).__name__}, ), but expected one of:\n * (torch.device "
                        "device)\n      didn't match because some of the keywords were incorrect: "
                        f"{k}\n * (str type, int index = -1)\n")
                raise TypeError(f"device() got an unexpected keyword argument '{k}'")
        # one positional argument is parsed as a device string; the (type, index) form
        # refuses a string that has its own index, even when index is None
        index_given = "index" in kwargs or "type" in kwargs or len(args) > 1
        index_kw = "index" in kwargs
        args = args + tuple(kwargs[k] for k in ("device", "type", "index") if k in kwargs)
        if not args:
            raise TypeError("device() received an invalid combination of arguments - got (), but "
                            "expected one of:\n * (torch.device device)\n * (str type, int index = -1)\n")
        if len(args) > 2:
            raise _signature_error(", ".join(type(a).__name__ for a in args), bad=False)
        kind = args[0]
        if isinstance(kind, bytes):
            kind = kind.decode()
        if not isinstance(kind, str):
            if len(args) == 1 and isinstance(kind, int) and not isinstance(kind, bool):
                # a bare index means the current accelerator, and there is none
                if kind < 0:
                    raise RuntimeError("Device index must not be negative")
                raise RuntimeError(NO_ACCELERATOR)
            if len(args) == 2:
                name = "torch.device" if isinstance(kind, device) else type(kind).__name__
                raise TypeError(f"device(): argument 'type' (position 1) must be str, not {name}")
            raise _signature_error("Tensor" if type(kind).__name__ == "Tensor" else type(kind).__name__)
        i = args[1] if len(args) > 1 else None
        if i is not None and (isinstance(i, bool) or not hasattr(i, "__index__")):
            where = "" if index_kw else " (position 2)"
            raise TypeError(f"device(): argument 'index'{where} must be int, not "
                            f"{type(i).__name__}")
        kind, index = _parse(kind)
        if index_given:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {args[0]}")
            if i is not None:
                i = operator.index(i)
                if i < 0:
                    raise RuntimeError("Device index must not be negative")
                if i >= 2 ** 63:
                    raise ValueError("Overflow when unpacking long long")
                index = _wrap_index(i)
        self = object.__new__(cls)
        object.__setattr__(self, "_type", kind)
        object.__setattr__(self, "_index", index)
        return self

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __setattr__(self, name, value):
        if name in ("type", "index"):
            raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")
        raise AttributeError(f"'torch.device' object has no attribute '{name}'")

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return other._type == self._type and other._index == self._index

    def __hash__(self):
        return hash((self._type, -1 if self._index is None else self._index))

    def __lt__(self, other):
        raise TypeError("comparison not implemented")

    __le__ = __gt__ = __ge__ = __lt__

    def __reduce__(self):
        # through a function of this module: the class reports its module as "torch"
        return (_rebuild, (self._type,) if self._index is None else (self._type, self._index))

    def __enter__(self):
        """`with torch.device('cpu'):` makes it the default device of factory functions."""
        _state.stack.append(_state.default)
        _state.default = self
        return self

    def __exit__(self, *exc):
        if not _state.stack:
            raise RuntimeError("trying to pop from empty mode stack")
        _state.default = _state.stack.pop()


def _rebuild(kind, index=None):
    self = object.__new__(device)
    object.__setattr__(self, "_type", kind)
    object.__setattr__(self, "_index", index)
    return self


cpu = device("cpu")


class _State:
    __slots__ = ("default", "stack")

    def __init__(self):
        self.default = None     # the device set by set_default_device / `with device`
        self.stack = []


_state = _State()


def set_default_device(device_):
    """Set the device factory functions (zeros, tensor, arange, ...) use when not told."""
    _state.default = None if device_ is None else as_device(device_)


def get_default_device():
    """The device factory functions use when not told (cpu unless set)."""
    d = _state.default
    if d is None or d._type == "cpu":
        return cpu
    if d._index is not None:
        return d
    use(d, "copy")    # PyTorch asks the backend for its current device, and fails there


def as_device(d):
    """A device from a device, string or index, with PyTorch's parsing errors."""
    return d if type(d) is device else device(d)


def check_factory(d, kind="empty", pin_memory=False, default=True):
    """Raise PyTorch's CPU-build error when a factory function is asked for a device other
    than the CPU: its `device=` argument, else (default=True: the factories PyTorch's default
    device applies to) the default device."""
    if d is None and default:
        d = _state.default
    if d is not None and d != "cpu" and (type(d) is not device or d._type != "cpu"):
        use(d, kind)
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")


def use(d, kind="copy"):
    """Raise the error PyTorch's CPU build raises when a tensor is placed on device `d`.
    kind: 'copy' (tensor(), as_tensor, to), 'empty' (zeros, arange, ...), 'empty_strided'
    (*_like). Returns the device when it is the CPU."""
    d = as_device(d)
    t = d._type
    if t == "cpu":
        return d
    if t in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[t])
    if t in ("hpu", "privateuseone"):
        raise ModuleNotFoundError(f"No module named 'torch.{t}'", name=f"torch.{t}")
    if t == "meta":
        # PyTorch makes data-less meta tensors; chainrule has none.
        raise NotImplementedError("chainrule has no meta tensors (device='meta')")
    if t in ("opengl", "opencl", "ideep", "mkldnn") and kind != "copy":
        raise RuntimeError(
            '0 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/TensorOptions.h":663, '
            "please report a bug to PyTorch. This is a grandfathered Caffe2 device type "
            f"{t}, it shouldn't ever convert to a DispatchKey.  File a bug describing what you "
            "were doing if you think this is in error.")
    if kind == "copy" and t != "lazy":
        raise RuntimeError(f"PyTorch is not linked with support for {t} devices")
    op = "aten::empty_strided" if kind == "empty_strided" else "aten::empty.memory_format"
    raise NotImplementedError(_missing_kernel(op, _BACKEND_KEYS.get(t, t.upper())))


_MTIA = ("Torch not compiled with MTIA enabled. Ensure you have `import "
         "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
         "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")
_NOT_COMPILED = {"cuda": "Torch not compiled with CUDA enabled",
                 "xpu": "Torch not compiled with XPU enabled", "mtia": _MTIA}
_BACKEND_KEYS = {"lazy": "Lazy", "vulkan": "Vulkan"}


# ---- PyTorch's dispatcher message for an op with no kernel for a backend ------------------
# The text lists the dispatch keys that do have a kernel and where each was registered in
# PyTorch 2.13's CPU build; it is rebuilt here from that table.

_SRC = "/__w/pytorch/pytorch/"
_KERNELS = {
    # op: (backend kernels "Key:file_line" as in build/aten/src/ATen/Register<Key>_<n>.cpp,
    #      VariableType file:line, TraceType file:line)
    "aten::empty.memory_format": (
        "CPU_1:2401 Meta_0:4882 QuantizedCPU_0:300 QuantizedMeta_0:105 MkldnnCPU_0:219 "
        "SparseCPU_0:880 SparseMeta_0:176 SparseCsrCPU_0:726 SparseCsrMeta_0:691",
        "7.cpp:10102", "7.cpp:9838"),
    "aten::empty_strided": ("CPU_2:2359 Meta_0:4966 QuantizedCPU_0:474", "2.cpp:10455",
                            "2.cpp:7396"),
    "aten::record_stream": ("", "8.cpp:9410", "8.cpp:7071"),
}
_BEFORE_AUTOGRAD_RECORD_STREAM = (
    ("Meta", "registered at", "aten/src/ATen/core/MetaFallbackKernel.cpp:23", "backend fallback"),
    ("BackendSelect", "fallthrough registered at",
     "aten/src/ATen/core/BackendSelectFallbackKernel.cpp:3", "backend fallback"),
    ("Python", "registered at", "aten/src/ATen/core/PythonFallbackKernel.cpp:192", "backend fallback"),
    ("FuncTorchDynamicLayerBackMode", "registered at", "aten/src/ATen/functorch/DynamicLayer.cpp:479",
     "backend fallback"),
    ("Functionalize", "registered at", "aten/src/ATen/FunctionalizeFallbackKernel.cpp:411",
     "backend fallback"),
    ("Conjugate", "registered at", "aten/src/ATen/ConjugateFallback.cpp:17", "backend fallback"),
    ("Negative", "registered at", "aten/src/ATen/native/NegateFallback.cpp:18", "backend fallback"),
    ("ZeroTensor", "registered at", "aten/src/ATen/ZeroTensorFallback.cpp:115", "backend fallback"),
    ("ADInplaceOrView", "fallthrough registered at", "aten/src/ATen/core/VariableFallbackKernel.cpp:103",
     "backend fallback"),
)
_BEFORE_AUTOGRAD = (
    ("BackendSelect", "registered at", "build/aten/src/ATen/RegisterBackendSelect.cpp:728", "kernel"),
    ("Python", "registered at", "aten/src/ATen/core/PythonFallbackKernel.cpp:192", "backend fallback"),
    ("FuncTorchDynamicLayerBackMode", "registered at", "aten/src/ATen/functorch/DynamicLayer.cpp:479",
     "backend fallback"),
    ("Functionalize", "registered at", "aten/src/ATen/FunctionalizeFallbackKernel.cpp:411",
     "backend fallback"),
    ("Conjugate", "fallthrough registered at", "aten/src/ATen/ConjugateFallback.cpp:21", "kernel"),
    ("Negative", "fallthrough registered at", "aten/src/ATen/native/NegateFallback.cpp:22", "kernel"),
    ("ZeroTensor", "fallthrough registered at", "aten/src/ATen/ZeroTensorFallback.cpp:119", "kernel"),
    ("ADInplaceOrView", "fallthrough registered at", "aten/src/ATen/core/VariableFallbackKernel.cpp:103",
     "backend fallback"),
)
_AUTOGRAD_KEYS = ("Other CPU CUDA HIP XLA MPS IPU XPU HPU VE Lazy MTIA MAIA PrivateUse1 PrivateUse2 "
                  "PrivateUse3 Meta NestedTensor").split()
_AFTER_TRACER = (
    ("AutocastCPU", "autocast_mode.cpp:330"), ("AutocastMTIA", "autocast_mode.cpp:472"),
    ("AutocastMAIA", "autocast_mode.cpp:510"), ("AutocastXPU", "autocast_mode.cpp:548"),
    ("AutocastMPS", "autocast_mode.cpp:221"), ("AutocastCUDA", "autocast_mode.cpp:177"),
    ("FuncTorchBatched", "functorch/LegacyBatchingRegistrations.cpp:730"),
    ("BatchedNestedTensor", "functorch/LegacyBatchingRegistrations.cpp:757"),
    ("FuncTorchVmapMode", "functorch/VmapModeRegistrations.cpp:22"),
    ("Batched", "LegacyBatchingRegistrations.cpp:1072"),
    ("VmapMode", "VmapModeRegistrations.cpp:32"),
    ("FuncTorchGradWrapper", "functorch/TensorWrapper.cpp:210"),
    ("PythonTLSSnapshot", "core/PythonFallbackKernel.cpp:200"),
    ("FuncTorchDynamicLayerFrontMode", "functorch/DynamicLayer.cpp:475"),
    ("PreDispatch", "core/PythonFallbackKernel.cpp:204"),
    ("PythonDispatcher", "core/PythonFallbackKernel.cpp:196"),
)
_FALLTHROUGH = {"AutocastCPU", "AutocastMTIA", "AutocastMAIA", "AutocastXPU", "AutocastMPS",
                "AutocastCUDA", "FuncTorchVmapMode", "VmapMode"}


def _missing_kernel(op, backend):
    kernels, variable_type, trace_type = _KERNELS[op]
    lines = []
    for k in kernels.split():
        key, file_line = k.split("_")
        lines.append((key, f"{key}: registered at {_SRC}build/aten/src/ATen/Register{key}_"
                           f"{file_line.replace(':', '.cpp:')} [kernel]"))
    before = _BEFORE_AUTOGRAD_RECORD_STREAM if op == "aten::record_stream" else _BEFORE_AUTOGRAD
    lines += [(key, f"{key}: {how} {_SRC}{where} [{what}]") for key, how, where, what in before]
    lines += [(f"Autograd{k}", f"Autograd{k}: registered at {_SRC}torch/csrc/autograd/generated/"
                               f"VariableType_{variable_type} [autograd kernel]")
              for k in _AUTOGRAD_KEYS]
    lines.append(("Tracer", f"Tracer: registered at {_SRC}torch/csrc/autograd/generated/"
                            f"TraceType_{trace_type} [kernel]"))
    lines += [(key, f"{key}: {'fallthrough ' if key in _FALLTHROUGH else ''}registered at "
                    f"{_SRC}aten/src/ATen/{where} [backend fallback]")
              for key, where in _AFTER_TRACER]
    return (f"Could not run '{op}' with arguments from the '{backend}' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the "
            "selective/custom build process (if using custom build). If you are a Facebook "
            "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for "
            f"possible resolutions. '{op}' is only available for these backends: "
            f"[{', '.join(k for k, _ in lines)}].\n\n" + "\n".join(line for _, line in lines) + "\n")
