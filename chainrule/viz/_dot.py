"""The backward graph as Graphviz DOT text, in torchviz's conventions (`make_dot`): a grey
box per backward node named by its class, blue leaves (named by `params`), orange saved
tensors, green outputs (dark green for the base of an output that is a view)."""
import os
import shutil
import subprocess

from ..autograd._inspect import flatten, roots_of, saved_of, walk
from ..autograd.function import BackwardCFunction

__all__ = ["to_dot", "render", "Dot"]

_GRAPH_ATTRS = 'graph [size="12,12"]'
_NODE_ATTRS = ("node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 "
               "shape=box style=filled]")


class Dot(str):
    """DOT source text (a str) that can draw itself: `render(path, format)`."""

    @property
    def source(self):
        return str(self)

    def render(self, path, format="svg"):
        return render(self, path, format)


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _size(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ")"


def param_names(params):
    """{id(tensor): name} from a dict of named tensors or a Module."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters"):
        params = dict(params.named_parameters())
    return {id(t): name for name, t in params.items()}


def _attrs(node, saved, max_attr_chars):
    """The rows `show_attrs` lists: every `_saved_*` attribute, tensors shown as
    placeholders (not unpacked: that would run unpack hooks, or fail once freed)."""
    tensors = {}
    for info in saved:
        base = info.name.split("[")[0]
        tensors[base] = "[saved tensors]" if "[" in info.name else "[saved tensor]"
    rows = {}
    for attr in dir(node):
        if not attr.startswith("_saved_"):
            continue
        key = attr[7:]
        if key in tensors:
            rows[key] = tensors[key]
            continue
        try:
            value = getattr(node, attr)
        except RuntimeError:          # freed by backward
            value = "[freed]"
        rows[key] = "[saved tensor]" if hasattr(value, "_data") else str(value)
    width = max(max_attr_chars, 3)
    return {k: v if len(v) <= width else v[:width - 3] + "..." for k, v in rows.items()}


def _node_label(node, saved, show_attrs, max_attr_chars):
    name = type(node).__name__
    rows = _attrs(node, saved, max_attr_chars) if show_attrs else {}
    if not rows:
        return name
    kw = max(map(len, rows))
    vw = max(map(len, rows.values()))
    lines = [f"{k:<{kw}}: {v:>{vw}}" for k, v in rows.items()]
    return "\n".join([name, "-" * max(kw + vw + 2, len(name))] + lines)


def to_dot(*outputs, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """The backward graph of `outputs` as DOT source (a `Dot`, a str), drawn as torchviz's
    `make_dot` draws it. `params`: a dict of named tensors or a Module, naming the leaves;
    `show_attrs`: list each node's `_saved_*` values; `show_saved`: draw the tensors nodes
    saved (a custom Function's are always drawn)."""
    names = param_names(params)
    lines = ["digraph {", "\t" + _GRAPH_ATTRS, "\t" + _NODE_ATTRS]
    ids = {}

    def ident(obj, key=None):
        # key: for what has no lasting Python object of its own (a saved output)
        key = id(obj) if key is None else key
        if key not in ids:
            ids[key] = f"n{len(ids)}"
        return ids[key]

    def tensor_node(t, color, name=None):
        label = (names.get(id(t), "") if name is None else name) + "\n " + _size(t.shape)
        lines.append(f"\t{ident(t)} [label={_quote(label)} fillcolor={color}]")

    drawn = set()

    def output(t, color):
        if id(t) in drawn:
            return
        drawn.add(id(t))
        tensor_node(t, color)
        if t.grad_fn is not None:
            lines.append(f"\t{ident(t.grad_fn)} -> {ident(t)}")
        if t._base is not None:
            output(t._base, "darkolivegreen3")
            lines.append(f"\t{ident(t._base)} -> {ident(t)} [style=dotted]")

    flat = flatten(outputs)
    bases = [t._base for t in flat if getattr(t, "_base", None) is not None]
    nodes, edges = walk(roots_of(flat + bases))
    by_node = {}
    for i, j, _ in edges:
        by_node.setdefault(i, []).append(j)
    late = []      # a custom Function's saved tensors, drawn last as torchviz does
    for i, node in enumerate(nodes):
        saved = saved_of(node, inner=False)     # what dir() shows, as torchviz reads
        if isinstance(node, BackwardCFunction):
            late.extend((node, info) for info in saved)
        elif show_saved:
            for info in saved:
                key = None if info.tensor is not None else (id(node), info.name)
                lines.append(f"\t{ident(node)} -> {ident(info.tensor, key)} [dir=none]")
                if info.tensor is not None and id(info.tensor) in drawn:
                    continue
                if info.tensor is not None:
                    drawn.add(id(info.tensor))
                if info.shape is None:
                    label = info.name + ("\n (freed)" if info.freed else "\n (packed)")
                else:
                    label = info.name + "\n " + _size(info.shape)
                lines.append(f"\t{ident(info.tensor, key)} [label={_quote(label)} "
                             "fillcolor=orange]")
        variable = getattr(node, "variable", None)
        if variable is not None:
            drawn.add(id(variable))
            tensor_node(variable, "lightblue")
            lines.append(f"\t{ident(variable)} -> {ident(node)}")
        label = _node_label(node, saved, show_attrs, max_attr_chars)
        lines.append(f"\t{ident(node)} [label={_quote(label)}]")
        for j in by_node.get(i, ()):
            lines.append(f"\t{ident(nodes[j])} -> {ident(node)}")
    for node, info in late:
        key = None if info.tensor is not None else (id(node), info.name)
        lines.append(f"\t{ident(info.tensor, key)} -> {ident(node)} [dir=none]")
        if info.tensor is not None:
            drawn.add(id(info.tensor))
            tensor_node(info.tensor, "orange")
        else:
            label = "\n " + ("(freed)" if info.freed else
                              "(packed)" if info.shape is None else _size(info.shape))
            lines.append(f"\t{ident(None, key)} [label={_quote(label)} fillcolor=orange]")
    for t in flat:
        if hasattr(t, "_data"):
            output(t, "darkolivegreen1")
    lines.append("}")
    return Dot("\n".join(lines) + "\n")


def render(graph, path, format="svg"):
    """Write `graph` (DOT text from to_dot, or a tensor whose graph to draw) to `path` in
    `format` through Graphviz's `dot` program; returns the path."""
    if not isinstance(graph, str):
        graph = to_dot(graph)
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "chainrule.viz.render needs the `dot` program of Graphviz, which was not found "
            "on PATH: install Graphviz (apt-get install graphviz, brew install graphviz or "
            "conda install graphviz), or write to_dot(...) text to a .dot file yourself")
    path = os.fspath(path)
    subprocess.run([dot, f"-T{format}", "-o", path], input=graph.encode(), check=True,
                   capture_output=True)
    return path
