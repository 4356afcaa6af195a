"""Looking at a backward graph from outside: walking it, listing what its nodes saved,
recording which Module built which node, and the memory report of saved tensors.

Used by `chainrule.autograd.graph.memory_report`, `chainrule.autograd.explain` and
`chainrule.viz`. Nothing here unpacks a saved tensor (that would raise once it is freed,
or run unpack hooks): saved values are read as what the node holds.

Note [Module scopes]
Every node made by an op takes the next number of one global sequence counter, so the
nodes a Module's forward made are exactly those whose sequence numbers fall between the
counter's values before and after that call. `record_modules` keeps those spans (a global
forward pre-hook and forward hook, while the context is open); `ModuleScopes.of` maps
sequence numbers to the innermost span holding them.
"""
import contextlib
import numbers

import numpy as np

from .graph import (MAX_SEQ, RELEASED, SavedHooked, SavedInput, SavedOutput, SavedViewOutput,
                    _sequence)

__all__ = ["memory_report", "MemoryReport", "record_modules", "ModuleScopes"]


# ---- walking --------------------------------------------------------------------------------

def flatten(outputs):
    """The items of nested tuples/lists `outputs`, depth first, in order (a worklist)."""
    flat, stack = [], [outputs]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(reversed(x))
        else:
            flat.append(x)
    return flat


def roots_of(outputs):
    """The grad_fn (or AccumulateGrad) nodes of `outputs` (tensors, nodes, or nested
    tuples/lists of them) that have one, in order, without repeats."""
    from .._tensor import Tensor
    from .graph import edge_of
    roots = []
    for x in flatten(outputs):
        if isinstance(x, Tensor):
            node = edge_of(x)[0]
            if node is not None and node not in roots:
                roots.append(node)
        elif x is not None and x not in roots:
            if not hasattr(x, "next_functions") or isinstance(x, type):
                raise TypeError("expected chainrule tensors or graph nodes, got "
                                f"{type(x).__module__}.{type(x).__qualname__}")
            roots.append(x)
    return roots


def walk(roots):
    """Every node reachable from `roots` over next_functions, in discovery order (a
    worklist, no recursion), and the edges as (from index, to index, input_nr) triples:
    node i's next_functions entry leads to node j."""
    index = {}
    nodes = []
    edges = []
    for r in roots:
        if r not in index:
            index[r] = len(nodes)
            nodes.append(r)
    stack = list(roots)
    while stack:
        node = stack.pop()
        i = index[node]
        for fn, nr in node.next_functions:
            if fn is None:
                continue
            j = index.get(fn)
            if j is None:
                j = index[fn] = len(nodes)
                nodes.append(fn)
                stack.append(fn)
            edges.append((i, j, nr))
    return nodes, edges


# ---- saved values ---------------------------------------------------------------------------

class SavedInfo:
    """One tensor a node keeps for backward, read without unpacking it."""
    __slots__ = ("name", "shape", "dtype", "nbytes", "version", "now", "freed", "storage",
                 "storage_nbytes", "storage_shape", "is_leaf", "is_output", "hooked", "tensor",
                 "data", "vc")

    def __init__(self, name, data=None, version=None, now=None, freed=False, is_leaf=None,
                 is_output=False, hooked=None, tensor=None, vc=None):
        self.name = name
        self.data = data            # the saved array (None once freed, or when hooked away)
        self.vc = vc                # its version counter, when the node keeps it
        self.freed = freed
        self.version = version      # the tensor's version when saved (None: not tracked)
        self.now = now              # its version now
        self.is_leaf = is_leaf
        self.is_output = is_output
        self.hooked = hooked        # type name of what a pack hook returned, or None
        self.tensor = tensor        # the saved Tensor when the node holds one, else None
        if data is None:
            self.shape = self.dtype = self.storage = self.storage_shape = None
            self.nbytes = self.storage_nbytes = 0
        else:
            from .._dtype import FROM_NP
            self.shape = tuple(data.shape)
            self.dtype = str(FROM_NP[data.dtype]) if data.dtype in FROM_NP else str(data.dtype)
            self.nbytes = data.nbytes
            # a tensor saved by two nodes (or two views of one array) is one storage: the
            # array at the end of the .base chain (which as_strided views, expand's, reach
            # through a holder object)
            root = data
            while True:
                base = root.base
                if base is not None and not isinstance(base, np.ndarray):
                    base = getattr(base, "base", None)
                if not isinstance(base, np.ndarray):
                    break
                root = base
            self.storage = id(root)
            self.storage_nbytes = root.nbytes
            self.storage_shape = root.shape

    @property
    def modified(self):
        return self.version is not None and self.now is not None and self.now != self.version


def _info(name, value):
    """SavedInfo for one saved entry, or None when it is not a tensor (a shape, a number)."""
    from .._tensor import Tensor
    kind = type(value)
    if kind is SavedInput:
        t = value.t
        return SavedInfo(name, t._data, value.version, t._vc[0], is_leaf=value.leaf, tensor=t,
                         vc=t._vc)
    if kind is SavedOutput or kind is SavedViewOutput:
        return SavedInfo(name, value.data, value.version, value.vc[0], is_leaf=False,
                         is_output=True, vc=value.vc)
    if kind is SavedHooked:
        packed = value.packed
        data = packed._data if isinstance(packed, Tensor) else None
        return SavedInfo(name, data, is_output=value.is_output, hooked=type(packed).__name__)
    if value is RELEASED:
        return SavedInfo(name, freed=True)
    if isinstance(value, Tensor):
        return SavedInfo(name, value._data, value._vc[0], value._vc[0],
                         is_leaf=value._grad_fn is None, tensor=value, vc=value._vc)
    if kind is np.ndarray:
        return SavedInfo(name, value)
    return None


def saved_of(node, inner=True):
    """The tensors `node` keeps for backward, as SavedInfo, in its saved order. A node that
    wraps another (CopySlices) also keeps the wrapped node's, named `fn.<name>`, listed
    when `inner`."""
    out = []
    saved = getattr(node, "_saved", None)
    items = ()
    if isinstance(saved, dict):
        items = saved.items()
    elif isinstance(saved, list):        # a custom Function's ctx
        items = ((f"saved_tensors[{i}]", v) for i, v in enumerate(saved))
    elif saved is None and getattr(node, "_to_save", None):
        items = ((f"saved_tensors[{i}]", v) for i, v in enumerate(node._to_save))
    elif saved is None and getattr(node, "_packed", False):
        out.append(SavedInfo("saved_tensors", freed=True))      # freed by backward
    op = getattr(type(node), "_op", None)
    inputs = op.inputs if op is not None else ()
    for name, value in items:
        if name in inputs and isinstance(value, numbers.Number):
            # a number taken for a tensor input: PyTorch saves it as a wrapped 0-d tensor
            out.append(SavedInfo(name, np.asarray(value)))
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                info = _info(f"{name}[{i}]", v)
                if info is not None:
                    out.append(info)
        elif not isinstance(value, numbers.Number) or value is RELEASED:
            info = _info(name, value)
            if info is not None:
                out.append(info)
    wrapped = getattr(node, "fn", None) if inner else None
    if wrapped is not None and hasattr(wrapped, "_saved"):
        for info in saved_of(wrapped):
            info.name = "fn." + info.name
            out.append(info)
    return out


# ---- which Module made a node ---------------------------------------------------------------

def _peek_sequence():
    # the counter's next value without taking it (its repr is "count(n)")
    return int(repr(_sequence)[6:-1])


class ModuleScopes:
    """The Module calls seen by `record_modules`: per call, its qualified name (the
    outermost module's class name, then the dotted attribute path: "Net.layers.0"), its
    class name, and the span of node sequence numbers its forward made."""

    def __init__(self):
        self.names = []
        self.classes = []
        self.starts = []
        self.ends = []
        self.depths = []
        self._stack = []

    def _enter(self, module, args):
        name = type(module).__name__
        if self._stack:
            parent_name, parent = self._stack[-1]
            child = next((k for k, m in parent._modules.items() if m is module), None)
            # a module called from a parent that does not own it is named by its class
            name = f"{parent_name}.{name if child is None else child}"
        self._stack.append((name, module))
        self.names.append(name)
        self.classes.append(type(module).__name__)
        self.starts.append(_peek_sequence())
        self.ends.append(None)
        self.depths.append(len(self._stack) - 1)

    def _exit(self, module, args, output):
        self._stack.pop()
        i = len(self.ends) - 1
        while self.ends[i] is not None:      # the innermost call still open
            i -= 1
        self.ends[i] = _peek_sequence()

    def of(self, seqs):
        """Per sequence number, the index of the innermost recorded call that made it
        (-1 for none); an array."""
        seqs = np.asarray(seqs, np.int64)
        out = np.full(seqs.shape, -1, np.int64)
        done = [i for i, e in enumerate(self.ends) if e is not None]
        if not done or seqs.size == 0:
            return out
        starts = np.array([self.starts[i] for i in done], np.int64)
        ends = np.array([self.ends[i] for i in done], np.int64)
        lo = starts.min()
        label = np.full(ends.max() - lo, -1, np.int64)
        # outer calls first, so inner ones paint over them (spans nest)
        for k in np.argsort([self.depths[i] for i in done], kind="stable"):
            label[starts[k] - lo:ends[k] - lo] = done[k]
        inside = (seqs >= lo) & (seqs < ends.max())
        out[inside] = label[seqs[inside] - lo]
        return out

    def name_of(self, node):
        """The qualified name of the Module call that made `node`, or None."""
        i = int(self.of([node._sequence_nr])[0])
        return None if i < 0 else self.names[i]


@contextlib.contextmanager
def record_modules():
    """Context manager recording which Module call made each backward node (see Note
    [Module scopes]); yields the ModuleScopes to pass as `scopes=`."""
    from ..nn.modules import module as _module
    scopes = ModuleScopes()
    pre = _module.register_module_forward_pre_hook(scopes._enter)
    post = _module.register_module_forward_hook(scopes._exit, always_call=True)
    try:
        yield scopes
    finally:
        pre.remove()
        post.remove()


def modules_of(nodes, scopes):
    """Per node, the qualified name of the Module call that made it (None where none)."""
    if scopes is None:
        return [None] * len(nodes)
    seqs = [n._sequence_nr if n._sequence_nr != MAX_SEQ else -1 for n in nodes]
    return [None if i < 0 else scopes.names[i] for i in scopes.of(seqs).tolist()]


# ---- memory report --------------------------------------------------------------------------

class MemoryReport(dict):
    """memory_report's result: a dict (total_bytes, total_count, by_node_type, by_module,
    largest, freed) that prints as a table."""

    def __str__(self):
        def table(title, rows):
            lines = [f"{title:<40} {'count':>7} {'bytes':>12}"]
            lines += [f"{k:<40} {v['count']:>7} {v['bytes']:>12,}" for k, v in rows.items()]
            return lines
        lines = table("saved tensors by node type", self["by_node_type"])
        if self["by_module"]:
            lines += [""] + table("by module", self["by_module"])
        lines += ["", f"{'total (each storage once)':<40} {self['total_count']:>7} "
                      f"{self['total_bytes']:>12,}"]
        if self["freed"]:
            lines.append(f"({self['freed']} saved tensors already freed by backward)")
        if self["largest"]:
            lines += ["", "largest:"]
            lines += [f"  {e['bytes']:>12,}  {e['dtype']} {list(e['shape'])}  saved by "
                      + ", ".join(e["saved_by"]) for e in self["largest"]]
        return "\n".join(lines)


def memory_report(output, scopes=None):
    """The tensors saved for backward that the graph of `output` (a tensor, a node, or a
    sequence of them) keeps alive: count and bytes per node type and per Module (when
    `scopes` from `record_modules` is given), the total and the ten largest. Each storage
    counts once, however many nodes (or views) saved it: in the total, in each node type and
    in each module. Returns a MemoryReport (a dict; print it for a table)."""
    nodes, _ = walk(roots_of(output))
    modules = modules_of(nodes, scopes)
    storages = {}         # storage -> [bytes, dtype, shape, [saved by], module]
    by_type, by_module = {}, {}
    freed = 0

    def count(groups, key, storage, nbytes):
        g = groups.setdefault(key, {"count": 0, "bytes": 0, "_seen": set()})
        if storage not in g["_seen"]:
            g["_seen"].add(storage)
            g["count"] += 1
            g["bytes"] += nbytes

    for node, module in zip(nodes, modules):
        kind = type(node).__name__
        for info in saved_of(node):
            if info.freed:
                freed += 1
                continue
            if info.storage is None:      # packed by a hook into something not a tensor
                continue
            entry = storages.setdefault(
                info.storage, [info.storage_nbytes, info.dtype, info.storage_shape, [], module])
            entry[3].append(f"{kind}.{info.name}")
            count(by_type, kind, info.storage, info.storage_nbytes)
            if module is not None:
                count(by_module, module, info.storage, info.storage_nbytes)
    for groups in (by_type, by_module):
        for g in groups.values():
            del g["_seen"]
    largest = sorted(storages.values(), key=lambda e: -e[0])[:10]
    return MemoryReport(
        total_bytes=sum(e[0] for e in storages.values()), total_count=len(storages),
        by_node_type=dict(sorted(by_type.items(), key=lambda kv: -kv[1]["bytes"])),
        by_module=dict(sorted(by_module.items(), key=lambda kv: -kv[1]["bytes"])),
        largest=[{"bytes": b, "dtype": d, "shape": s, "saved_by": by, "module": m}
                 for b, d, s, by, m in largest],
        freed=freed)
