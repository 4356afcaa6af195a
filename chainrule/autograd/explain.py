"""`explain(tensor, output=None)`: why a tensor's `.grad` is None (or zero), in one sentence
and as a structured answer.

It reads the tensor and, when `output` is given, the backward graph of `output`; it never
runs a backward or a hook. Checks go from the tensor itself (dtype, requires_grad, how it
was made) to its place in the graph (reachable, freed, modified saved tensors, hooks).
"""
import numpy as np

from ._inspect import roots_of, saved_of, walk
from .graph import MAX_SEQ

__all__ = ["explain", "Explanation"]

REASONS = {
    "ok": "the gradient is there",
    "integer_dtype": "integer and bool tensors cannot require gradients",
    "requires_grad_false": "a leaf that does not require grad",
    "inference_mode": "created under inference_mode",
    "no_grad": "computed with grad mode off (no_grad)",
    "detached": "cut from the graph by .detach()",
    "data": "cut from the graph by .data or a NumPy round trip (shares memory, no history)",
    "rewrapped": "a copy of a graph tensor's values (torch.tensor(t), .item(), .tolist())",
    "non_leaf": "a non-leaf without retain_grad()",
    "not_reachable": "the output's graph does not reach it",
    "graph_freed": "the graph was freed by an earlier backward",
    "modified_inplace": "a tensor saved for backward was modified in place",
    "hook": "a hook on the way may have replaced the gradient",
    "before_backward": "backward has not run (yet) through it",
}


class Explanation:
    """explain's answer: `reason` (a key of REASONS), `message` (a sentence), `tensor`,
    the offending `node` (or None) and `details` (a dict). str() is the message; it is
    truthy when the gradient is fine (`reason == "ok"`)."""
    __slots__ = ("reason", "message", "tensor", "node", "details")

    def __init__(self, reason, message, tensor, node=None, **details):
        self.reason = reason
        self.message = message
        self.tensor = tensor
        self.node = node
        self.details = details

    @property
    def ok(self):
        return self.reason == "ok"

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"Explanation(reason={self.reason!r}, message={self.message!r})"


def _describe(t):
    from .._dims import sizes_str
    return f"this {t.dtype} tensor of shape {sizes_str(t.shape)}"


def _node_name(node):
    return type(node).__name__


def _hook_name(hook):
    return getattr(hook, "__qualname__", None) or repr(hook)


def _hooks_of(t, path):
    """Hooks that can change the gradient on its way to `t`: t's own, and the pre/post
    hooks of the nodes in `path`, as (where, hook) pairs."""
    found = []
    e = t._extra
    if e is not None and e.hooks:
        found += [("tensor hook", h) for h in e.hooks.values()]
    fn = t._grad_fn
    if fn is not None and fn._hooks is not None:
        found += [("tensor hook", h) for nr, h in fn._hooks.tensor_pre.values()
                  if nr == t._output_nr]
    for node in path:
        h = node._hooks
        if h is not None:
            found += [(f"pre-hook of {_node_name(node)}", f) for f in h.pre.values()]
            found += [(f"hook of {_node_name(node)}", f) for f in h.post.values()]
    return found


def _graph_tensors(nodes):
    """(data, vc, where) for every tensor the graph holds: leaves and saved tensors."""
    held = []
    for node in nodes:
        v = getattr(node, "variable", None)
        if v is not None:
            held.append((v._data, v._vc, f"the leaf of {_node_name(node)}"))
        for info in saved_of(node):
            if info.data is not None:
                held.append((info.data, info.vc, f"{_node_name(node)}.{info.name}"))
    return held


def _cut(t, nodes):
    """How `t` (no history) relates to a tensor of the graph: ("detached", where) when it
    shares the version counter, ("data", where) when it shares only memory, ("rewrapped",
    where) when it holds equal values in other memory; else None."""
    held = _graph_tensors(nodes)
    for data, vc, where in held:
        if vc is t._vc:
            return "detached", where
    for data, vc, where in held:
        if np.may_share_memory(data, t._data) and np.shares_memory(data, t._data):
            return "data", where
    a = t._data
    for data, vc, where in held:
        if data.size and (data.shape == a.shape or a.size == 1) and data.dtype.kind in "fc":
            try:
                same = np.array_equal(data, a) if data.shape == a.shape else bool(
                    np.isin(a.astype(data.dtype).reshape(-1), data.reshape(-1)).all())
            except (TypeError, ValueError):
                continue
            if same:
                return "rewrapped", where
    return None


def _path_to(target, nodes, edges):
    """The nodes of the graph from which `target` is reachable (target included)."""
    back = {}
    for i, j, _ in edges:
        back.setdefault(j, []).append(i)
    index = {id(n): k for k, n in enumerate(nodes)}
    k = index.get(id(target))
    if k is None:
        return []
    seen, stack = {k}, [k]
    while stack:
        for i in back.get(stack.pop(), ()):
            if i not in seen:
                seen.add(i)
                stack.append(i)
    return [nodes[i] for i in sorted(seen)]


def explain(tensor, output=None):
    """Why `tensor.grad` is None (or all zero): returns an Explanation whose `reason`
    names the cause and whose message says it in a sentence. Pass the `output` backward
    is (or was) called on to check the graph between them too."""
    from .._tensor import Tensor
    from .graph import accumulator_of
    if not isinstance(tensor, Tensor):
        raise TypeError(f"explain() expects a Tensor, got {type(tensor).__name__}")
    t = tensor
    what = _describe(t)
    if not (t.is_floating_point() or t.is_complex()):
        return Explanation("integer_dtype", f"{what} has an integer or bool dtype: only "
                           "floating point and complex tensors can require gradients.", t)
    nodes = edges = None
    if output is not None:
        nodes, edges = walk(roots_of(output))
    leaf = t._grad_fn is None
    e = t._extra
    retains = e is not None and e.retains_grad
    grad = t._grad
    target = None
    if t._requires_grad:
        target = accumulator_of(t) if leaf else t._grad_fn
    path = _path_to(target, nodes, edges) if nodes is not None and target is not None else []
    if grad is not None and (leaf or retains):
        g = grad._data
        if g.size and not np.any(g):
            hooks = _hooks_of(t, path)
            if hooks:
                return Explanation("hook", f"{what} has a gradient of all zeros, and a "
                                   f"{hooks[0][0]} on its way ({_hook_name(hooks[0][1])}) "
                                   "may have replaced it.", t, hooks=hooks)
        return Explanation("ok", f"{what} has its gradient: .grad is set.", t)
    if e is not None and e.inference:
        return Explanation("inference_mode", f"{what} was created under inference_mode: "
                           "inference tensors never record a graph. Compute it outside "
                           "inference_mode (or under torch.enable_grad()).", t)
    if not t._requires_grad:
        from ..ops.registry import MADE_WITHOUT_GRAD
        if t._base is None and getattr(t, "_fn_version", None) == MADE_WITHOUT_GRAD:
            return Explanation("no_grad", f"{what} was computed with grad mode off (inside "
                               "torch.no_grad() or set_grad_enabled(False)) from tensors that "
                               "require grad, so it has no history: compute it with grad "
                               "mode on.", t)
        cut = _cut(t, nodes) if nodes is not None else None
        if cut is not None:
            how, where = cut
            text = {
                "detached": "was cut from the graph by .detach() (it shares its version "
                            f"counter with {where})",
                "data": "was cut from the graph: it shares memory with "
                        f"{where} but has no history (.data, or .numpy() and back)",
                "rewrapped": f"holds a copy of the values of {where} but has no history "
                             "(torch.tensor(t), .item() or .tolist() made a new tensor)",
            }[how]
            return Explanation(how, f"{what} {text}; use the original tensor instead.", t,
                               where=where)
        if t._base is not None and t._base._requires_grad:
            return Explanation("no_grad", f"{what} is a view made with grad mode off of a "
                               "tensor that requires grad, so it has no history.", t)
        return Explanation("requires_grad_false", f"{what} is a leaf that does not require "
                           "grad: create it with requires_grad=True or call "
                           ".requires_grad_() before using it.", t)
    if not leaf and not retains:
        return Explanation("non_leaf", f"{what} is not a leaf (it was made by "
                           f"{_node_name(t._grad_fn)}): backward fills .grad of leaves only. "
                           "Call .retain_grad() on it before backward, or use "
                           "torch.autograd.grad(output, it).", t, node=t._grad_fn)
    if nodes is not None:
        if not path:
            return _not_reachable(t, target, nodes, what)
        for node in nodes:
            for info in saved_of(node):
                if info.modified:
                    return _modified(t, node, info, what, nodes)
        hooks = _hooks_of(t, path)
        for node in path:
            if not hooks and any(info.freed for info in saved_of(node)):
                return Explanation("graph_freed", f"{what} is reached from the output through "
                                   f"{_node_name(node)}, whose saved tensors an earlier "
                                   "backward freed: run the forward again (or pass "
                                   "retain_graph=True to the first backward).", t, node=node)
    else:
        hooks = _hooks_of(t, path)
    if hooks:
        return Explanation("hook", f"{what} has no gradient, and a {hooks[0][0]} on its way "
                           f"({_hook_name(hooks[0][1])}) may have returned None or replaced "
                           "it.", t, hooks=hooks)
    if nodes is None:
        return Explanation("before_backward", f"{what} requires grad but no backward has "
                           "reached it yet: call backward() on an output computed from it "
                           "first (pass output= to check that it is reachable).", t)
    return Explanation("before_backward", f"{what} will get its gradient when backward runs "
                       "on the output: .grad was read before backward ran.", t)


def _not_reachable(t, target, nodes, what):
    """The answer for a tensor the output's graph does not reach; names the nearest node
    the two histories share (where their paths part), if any."""
    ours = walk([target])[0] if target is not None else []
    theirs = {id(n) for n in nodes}
    shared = [n for n in ours if id(n) in theirs]
    ops = [n for n in shared if n._sequence_nr != MAX_SEQ]
    if ops:
        part = max(ops, key=lambda n: n._sequence_nr)
        return Explanation("not_reachable", f"{what} is not used by the output's graph: both "
                           f"come from {_node_name(part)}, where their paths part, but the "
                           "output was computed without it.", t, node=part)
    if shared:
        leaf = shared[0].variable
        return Explanation("not_reachable", f"{what} is not used by the output's graph: both "
                           f"come from the leaf {_describe(leaf)[5:]}, where their paths part, "
                           "but the output was computed without it.", t, node=shared[0])
    return Explanation("not_reachable", f"{what} is not used by the output's graph at all: "
                       "the output was not computed from it (was it replaced, copied, or "
                       "computed before it was created?).", t)


def _modified(t, node, info, what, nodes):
    by = ""
    for other in [info.tensor] + [i.tensor for n in nodes for i in saved_of(n)
                                  if i.vc is info.vc]:
        # the tensor's history now starts at the in-place op that modified it
        if other is not None and other._grad_fn is not None and other._grad_fn is not node:
            by = f" by {_node_name(other._grad_fn)}"
            break
    return Explanation("modified_inplace", f"backward through the output would fail: the "
                       f"tensor {_node_name(node)} saved as '{info.name}' was modified in "
                       f"place{by} (version {info.version} when saved, {info.now} now), so "
                       f"{what} cannot get a gradient. Use an out-of-place op, or "
                       ".clone() before modifying.", t, node=node, saved=info.name,
                       version=info.version, now=info.now)
