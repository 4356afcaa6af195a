"""The execution trace writer behind ExecutionTraceObserver: PyTorch's
execution_trace_observer.cpp on chainrule's profiler hooks.

A process has at most one trace file (PyTorch keeps a single observer). While it is enabled,
every op row (as `aten::<op>`), backward node (`autograd::engine::evaluate_function: <Node>`
around `<Node>`) and record_function block becomes a JSON node of the Chakra schema
1.1.1-chakra.0.0.4, written when it exits (so children come before their parent):
`id`, `name`, `ctrl_deps` (the enclosing node's id; the thread's node at top level),
`inputs` / `outputs` with `values`, `shapes`, `types`, `strides`, and the `attrs` rf_id,
fw_parent, seq_id, scope, tid, fw_tid, op_schema, kernel_backend, kernel_file, tensor_range.
Nodes, tensors and storages share one id counter; a tensor is [tensor id, storage id,
storage offset, numel, itemsize, device]. Values are encoded as PyTorch encodes its IValues
(Int, Double, Bool, String, None, Device, GenericList[...]; a dtype is its ScalarType
number). What chainrule cannot say: op_schema is "" (chainrule's rows have no ATen schema);
ops PyTorch runs inside an op (aten::to inside aten::mul with a Python scalar, ...) and its
factory ops (aten::ones, ...) are absent, as chainrule runs no such rows; a tensor's id is
never given to a later tensor (PyTorch keys tensors by address, which can be reused)."""
import itertools
import math
import numbers
import os
import threading
import time
import weakref

from .._dtype import dtype
from .._tensor import Tensor
from ..autograd.grad_mode import state as _grad_state
from ..autograd.graph import MAX_SEQ, _sequence
from ..ops.views import _storage, storage_offset

__all__ = ["add_observer", "remove_observer", "enable_observer", "disable_observer"]

_writer = [None]               # the process's trace writer, registered or not
_rf_ids = itertools.count(1)   # record-function handles, process-wide as in PyTorch
_thread_ids = threading.local()
_next_thread_id = itertools.count(1)

_USER_SCOPE = 7
_BACKWARD_FUNCTION = 1
_ROOT_ID = 1

# c10::ScalarType numbers, which PyTorch writes for a dtype argument
_SCALAR_TYPE = {
    "uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6,
    "float64": 7, "complex32": 8, "complex64": 9, "complex128": 10, "bool": 11, "qint8": 12,
    "quint8": 13, "qint32": 14, "bfloat16": 15, "quint4x2": 16, "quint2x4": 17, "bits1x8": 18,
    "bits2x4": 19, "bits4x2": 20, "bits8": 21, "bits16": 22, "float8_e5m2": 23,
    "float8_e4m3fn": 24, "float8_e5m2fnuz": 25, "float8_e4m3fnuz": 26, "uint16": 27,
    "uint32": 28, "uint64": 29, "float8_e8m0fnu": 44, "float4_e2m1fn_x2": 45}
_LAYOUT = {"torch.strided": 0, "torch.sparse_coo": 1, "torch.sparse_csr": 2,
           "torch.mkldnn": 3, "torch.sparse_csc": 4, "torch.sparse_bsr": 5,
           "torch.sparse_bsc": 6, "torch.jagged": 7}
_MEMORY_FORMAT = {"torch.contiguous_format": 0, "torch.preserve_format": 1,
                  "torch.channels_last": 2, "torch.channels_last_3d": 3}

_NODE = ('\n      {{\n        "id": {}, "name": "{}", "ctrl_deps": {},\n'
         '        "inputs": {{"values": {}, "shapes": {}, "types": {}, "strides": {}}},\n'
         '        "outputs": {{"values": {}, "shapes": {}, "types": {}, "strides": {}}},\n'
         '        "attrs": [{{"name": "rf_id", "type": "uint64", "value": {}}},'
         '{{"name": "fw_parent", "type": "uint64", "value": {}}},'
         '{{"name": "seq_id", "type": "int64", "value": {}}},'
         '{{"name": "scope", "type": "uint64", "value": {}}},'
         '{{"name": "tid", "type": "uint64", "value": {}}},'
         '{{"name": "fw_tid", "type": "uint64", "value": {}}},'
         '{{"name": "op_schema", "type": "string", "value": "{}"}},'
         '{{"name": "kernel_backend", "type": "string", "value": "{}"}},'
         '{{"name": "kernel_file", "type": "string", "value": "{}"}},'
         '{{"name": "tensor_range", "type": "string", "value": "{}"}}]\n      }}')


def _thread_id():
    """PyTorch's RecordFunction thread id: 1, 2, ... in the order threads first record."""
    tid = getattr(_thread_ids, "id", None)
    if tid is None:
        tid = _thread_ids.id = next(_next_thread_id)
    return tid


def _ms():
    return time.monotonic_ns() // 1_000_000


def _escape(s):
    out = []
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def _double(v):
    if math.isinf(v) or math.isnan(v):
        text = "nan" if math.isnan(v) else "inf"
        return f'"{"-" if math.copysign(1.0, v) < 0 else ""}{text}"'
    return f"{v:f}"     # std::to_string


def _jlist(items):
    return "[" + ",".join(items) + "]"


def _scalar(v):
    """(IValue kind, JSON value) of a non-tensor argument, as PyTorch writes it: a dtype,
    layout or memory format is the number it passes as an Int."""
    if v is None:
        return "None", '"<None>"'
    if isinstance(v, bool):
        return "Bool", "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return "Int", str(int(v))
    if isinstance(v, numbers.Real):
        return "Double", _double(float(v))
    if isinstance(v, numbers.Complex):
        return "ComplexDouble", '"<ComplexDouble>"'
    if isinstance(v, str):
        return "String", f'"{_escape(v)}"'
    if isinstance(v, dtype):
        return "Int", str(_SCALAR_TYPE.get(v.name, -1))
    text = str(v)
    if text in _LAYOUT:
        return "Int", str(_LAYOUT[text])
    if text in _MEMORY_FORMAT:
        return "Int", str(_MEMORY_FORMAT[text])
    if type(v).__name__ == "device":
        return "Device", f'"{_escape(text)}"'
    kind = "GenericDict" if isinstance(v, dict) else "Object"
    return kind, f'"<{kind}>"'


class _Writer:
    """One trace file being written; enabled between start() and stop()."""

    def __init__(self, out):
        self.out = out
        self.ids = itertools.count(2)      # 1 is the process (root) node
        self.objects = {}                  # id() of a live tensor or storage -> (id, weakref)
        self.stacks = {}                   # thread id -> ids of the open nodes
        self.enabled = False

    def object_id(self, obj):
        """The trace id of a tensor or storage (the array owning the memory). PyTorch keys
        them by address, which a new object may reuse; chainrule forgets an object when it
        dies, so that a later one sharing its id() is not taken for it."""
        key = id(obj)
        entry = self.objects.get(key)
        if entry is None:
            objects = self.objects
            entry = objects[key] = (next(self.ids),
                                    weakref.ref(obj, lambda _, key=key: objects.pop(key, None)))
        return entry[0]

    # ---- values --------------------------------------------------------------------------

    def convert(self, v):
        """(shape, strides, type, value) of an argument or result, as PyTorch's
        convertIValue writes them."""
        if isinstance(v, Tensor):
            a = v._data
            root = _storage(a)
            value = (f"[{self.object_id(v)},{self.object_id(root)},"
                     f"{storage_offset(a)},{a.size},{a.itemsize},\"cpu\"]")
            return (_jlist(map(str, a.shape)), _jlist(map(str, v.stride())),
                    f"Tensor({v.dtype.cpp})", value)
        if isinstance(v, (list, tuple)):
            parts = [self.convert(x) for x in v]
            return (_jlist(p[0] for p in parts), _jlist(p[1] for p in parts),
                    "GenericList" + _jlist(p[2] for p in parts), _jlist(p[3] for p in parts))
        kind, value = _scalar(v)
        return "[]", "[]", kind, value

    def convert_all(self, values):
        """The values, shapes, types and strides lists of a node's inputs or outputs."""
        parts = [self.convert(v) for v in values]
        return (_jlist(p[3] for p in parts), _jlist(p[0] for p in parts),
                _jlist(f'"{p[2]}"' for p in parts), _jlist(p[1] for p in parts))

    # ---- nodes ---------------------------------------------------------------------------

    def enter(self, name, args=()):
        """Open a node (its id, then its inputs' ids, as PyTorch numbers them)."""
        tid = _thread_id()
        stack = self.stacks.get(tid)
        if not stack:
            stack = self.stacks[tid] = [next(self.ids)]
            self.write(_NODE.format(stack[0], "[pytorch|profiler|execution_trace|thread]",
                                    _ROOT_ID, "[]", "[]", "[]", "[]", "[]", "[]", "[]", "[]",
                                    0, 0, -1, _USER_SCOPE, tid, 0, "", "", "", "") + ",")
        node_id = next(self.ids)
        rf_id = next(_rf_ids)
        inputs = self.convert_all(args)
        parent = stack[-1]
        stack.append(node_id)
        return [name, node_id, parent, rf_id, inputs, tid]

    def exit(self, ctx, outputs=(), seq_id=-1, scope=0, fw_parent=0, fw_tid=0):
        name, node_id, parent, rf_id, inputs, tid = ctx
        stack = self.stacks.get(tid)
        if stack and stack[-1] == node_id:
            stack.pop()
        if not self.enabled:
            return
        ov, osh, oty, ost = self.convert_all(outputs)
        self.write(_NODE.format(node_id, _escape(name), parent, inputs[0], inputs[1],
                                inputs[2], inputs[3], ov, osh, oty, ost, rf_id, fw_parent,
                                seq_id, scope, tid, fw_tid, "", "", "", "") + ",")

    def write(self, text):
        self.out.write(text)

    # ---- hooks (installed by _collector while enabled) ----------------------------------

    def op_hook(self, call, row, inputs, params):
        # the sequence number the op's node gets (PyTorch's seqNr; itertools.count shows its
        # next value only in its repr); -1 without grad mode
        seq = int(repr(_sequence)[6:-1]) if _grad_state.grad_enabled else -1
        args = ((list(inputs),) if row.list_input else tuple(inputs)) + tuple(params)
        ctx = self.enter("aten::" + row.name.split(".")[0], args)
        result = ()
        try:
            result = call(row, inputs, params)
            return result
        finally:
            outs = result if isinstance(result, tuple) else (result,)
            self.exit(ctx, outs, seq_id=seq)

    def node_hook(self, evaluate, node, buffer, exec_info, *args):
        name = node.name()
        outer = self.enter("autograd::engine::evaluate_function: " + name)
        if exec_info is not None:
            info = exec_info.get(node)
            if info is None or not info.needed:     # autograd.grad only captures its input
                try:
                    return evaluate(node, buffer, exec_info, *args)
                finally:
                    self.exit(outer)
        seq = getattr(node, "_seq", -1)
        if seq == MAX_SEQ:
            seq = -1           # AccumulateGrad has no sequence number
        inner = self.enter(name, tuple(buffer))
        try:
            return evaluate(node, buffer, exec_info, *args)
        finally:
            self.exit(inner, seq_id=seq, scope=_BACKWARD_FUNCTION, fw_parent=outer[1],
                      fw_tid=inner[5])
            self.exit(outer)

    def user_enter(self, name, args):
        return self.enter(name, () if args is None else (args,))

    def user_exit(self, ctx):
        self.exit(ctx, scope=_USER_SCOPE)

    # ---- file ----------------------------------------------------------------------------

    def finalize(self):
        self.write(_NODE.format(_ROOT_ID, "[pytorch|profiler|execution_trace|process]",
                                _ROOT_ID, "[]", "[]", "[]", "[]", "[]", "[]", "[]", "[]", 0,
                                0, -1, _USER_SCOPE, 0, 0, "", "", "", ""))
        self.write(f'\n  ],\n  "finish_ts": {_ms()}\n}}')
        self.out.close()


def add_observer(path):
    """Open the trace file (PyTorch's _add_execution_trace_observer): False when it cannot
    be opened; with a trace already registered, that one stays (True)."""
    if _writer[0] is not None:
        return True
    try:
        out = open(path, "w")
    except OSError:
        return False
    out.write('{{\n  "schema": "1.1.1-chakra.0.0.4", "pid": {}, "time": "{}", "start_ts": {},'
              '\n  "nodes": ['.format(os.getpid(), time.strftime("%Y-%m-%d %X"), _ms()))
    _writer[0] = _Writer(out)
    return True


def remove_observer():
    """Stop recording and finish the trace file."""
    writer = _writer[0]
    if writer is None:
        return
    disable_observer()
    writer.finalize()
    _writer[0] = None


def enable_observer():
    writer = _writer[0]
    if writer is not None and not writer.enabled:
        from . import _collector
        writer.enabled = True
        _collector.set_trace(writer)


def disable_observer():
    writer = _writer[0]
    if writer is not None and writer.enabled:
        from . import _collector
        writer.enabled = False
        _collector.set_trace(None)
