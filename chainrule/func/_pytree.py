"""The few pytree operations torch.func needs (tuple, list, dict, OrderedDict and namedtuple
nodes), with the structure printed as torch.utils._pytree prints it, since PyTorch's
error messages show it."""
from collections import OrderedDict


class LeafSpec:
    num_leaves = 1

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self, indent=0):
        return "*"


class TreeSpec:
    def __init__(self, type, context, children):
        self.type, self._context, self._children = type, context, children
        self.num_leaves = sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type
                and self._context == other._context and self._children == other._children)

    def __repr__(self, indent=0):
        text = ""
        if self._children:
            indent += 2
            text = self._children[0].__repr__(indent) + ("," if len(self._children) > 1 else "")
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return f"TreeSpec({self.type.__name__}, {self._context}, [{text}])"


_LEAF = LeafSpec()


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x):
    """(children, context) of a pytree node, or None for a leaf."""
    t = type(x)
    if t is tuple or t is list:
        return list(x), None
    if t is dict or t is OrderedDict:
        return list(x.values()), list(x)
    if _is_namedtuple(x):
        return list(x), t
    return None


def _build(t, context, children):
    if t is tuple or t is list:
        return t(children)
    if t is dict or t is OrderedDict:
        return t(zip(context, children))
    return t(*children)


# The walks are module functions taking their accumulator: a nested function calling itself
# is a reference cycle (function, cell), garbage that holds the leaves until the collector
# runs, per call of every transform.

def _flatten(x, leaves):
    node = _children(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, context = node
    return TreeSpec(type(x), context, [_flatten(c, leaves) for c in children])


def tree_flatten(tree):
    leaves = []
    return leaves, _flatten(tree, leaves)


def _unflatten(s, it):
    if isinstance(s, LeafSpec):
        return next(it)
    return _build(s.type, s._context, [_unflatten(c, it) for c in s._children])


def tree_unflatten(leaves, spec):
    return _unflatten(spec, iter(leaves))


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix` repeated over the leaves of the subtrees of `spec` they cover,
    or None where `prefix` is not a prefix of `spec`."""
    out = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(p, s, out):
    if isinstance(s, LeafSpec) or _children(p) is None:
        if _children(p) is not None:
            return False
        out.extend([p] * s.num_leaves)
        return True
    children, context = _children(p)
    if type(p) is not s.type or context != s._context or len(children) != len(s._children):
        return False
    return all(_broadcast(c, cs, out) for c, cs in zip(children, s._children))
