"""torch._foreach_*: an op applied to each tensor of a list (PyTorch's multi-tensor kernels,
which its optimizers and clip_grad_norm_ call).

Each is a loop over the list calling chainrule's op on one tensor, after PyTorch's checks of
the lists (same lengths, tensors where tensors are expected), so values, dtypes, errors and
gradients are the ops' own. Out-of-place variants return a tuple; in-place ones modify each
tensor and return the list they were given, as PyTorch's Python bindings do.

Note [Foreach nodes]
PyTorch records one node for an out-of-place call (ForeachExpBackward0, ...), whose edges are
the tensors of the argument lists, list after list. chainrule records the per-tensor ops as
usual and puts one such node in front of them: its outputs are the results, and its backward
runs each result's own graph back to that element's inputs (keeping it for a later
backward until the node is released), so gradients, double backward, node names and
next_functions are PyTorch's.
"""
import numbers

from .autograd import grad_mode
from .autograd.graph import ERR_BACKWARD_TWICE, Node, _sequence, edge_of

__all__ = []     # filled below: one name per PyTorch _foreach_ function

_state = grad_mode.state
_NOT_IMPLEMENTED = "torch::autograd::NotImplemented"


class _ForeachNode(Node):
    """The node of one out-of-place foreach call; see Note [Foreach nodes]."""
    __slots__ = ("_parts", "_message")
    # _parts: per output, (result with its own graph, ((input, edge position), ...)); None
    # once released. _message: the error of a NotImplemented node, else None

    def name(self):
        return type(self).__name__ if self._message is None else _NOT_IMPLEMENTED

    def _apply(self, grads, create_graph):
        from .autograd.engine import run_backward
        if self._message is not None:
            raise RuntimeError(self._message)
        if self._parts is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        out = [None] * len(self._fns)
        for g, (result, spec) in zip(grads, self._parts):
            if g is None or not spec or not result._requires_grad:
                continue
            gs = run_backward([result], [g], True, create_graph, [t for t, _ in spec],
                              allow_unused=True, accumulate=False)
            for (_, pos), gi in zip(spec, gs):
                if gi is not None:
                    out[pos] = gi if out[pos] is None else out[pos] + gi
        return out

    def _release(self):
        self._parts = None


_node_classes = {}


def _node_class(name):
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (_ForeachNode,), {"__slots__": (),
                                                                 "__module__": "torch"})
    return cls


def _group(node_name, fn, elements, lists, shared=(), message=None):
    """`fn(*args)` for each element's `args`, as the outputs of one node named `node_name`
    whose edges are the tensors of `lists` (element i of each), then the `shared` tensors
    (used by every element); plain results when nothing requires grad. The op runs on an
    alias (a view) of each input that requires grad, so each element's graph ends there and
    its backward gives the direct derivatives only, while double backward still reaches the
    inputs through the views."""
    from ._tensor import Tensor, make_tensor
    inputs = [x for lst in lists for x in lst] + list(shared)
    if not _state.grad_enabled or not any(
            isinstance(x, Tensor) and x._requires_grad for x in inputs):
        return tuple(fn(*args) for args in elements)
    aliases = {}
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad and id(x) not in aliases:
            aliases[id(x)] = x.view_as(x)
    tensors = [x if isinstance(x, Tensor) else None for x in inputs]
    results = [fn(*[aliases.get(id(a), a) if isinstance(a, Tensor) else a for a in args])
               for args in elements]
    cls = _node_class("NotImplemented" if message is not None else node_name)
    node = cls.__new__(cls)
    node._seq = next(_sequence)
    node._hooks = None
    node._message = message
    node._next = tuple((None, 0) if t is None else edge_of(t) for t in tensors)
    node._meta = tuple((r._data.shape, r._data.dtype) for r in results)
    n = len(results)
    parts = []
    outputs = []
    for i, r in enumerate(results):
        positions = [k * n + i for k in range(len(lists))]
        positions += range(len(lists) * n, len(inputs))
        spec, seen = [], set()
        for pos in positions:
            t = tensors[pos]
            # an input used twice by the element gets its whole gradient at its first place
            if t is not None and t._requires_grad and id(t) not in seen:
                seen.add(id(t))
                spec.append((aliases[id(t)], pos))
        parts.append((r, tuple(spec)))
        outputs.append(make_tensor(r._data, True, node, i, r._vc)
                       if r._data.dtype.kind in "fcV" else r)
    node._parts = parts
    return tuple(outputs)


def _camel(op):
    """PyTorch's node-name spelling of an op: clamp_min -> ClampMin, log1p -> Log1P."""
    out, up = [], True
    for c in op:
        if c == "_":
            up = True
            continue
        out.append(c.upper() if up else c)
        up = c.isdigit()
    return "".join(out)

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _torch():
    import chainrule
    return chainrule


def _tensor_list(name, arg, position):
    """`arg` checked as a list of tensors, as PyTorch's argument parser and foreach checks do."""
    from ._tensor import Tensor
    if not isinstance(arg, (list, tuple)):
        raise TypeError(f"{name}(): argument 'self' (position {position + 1}) must be tuple of "
                        f"Tensors, not {type(arg).__name__}")
    for i, t in enumerate(arg):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got "
                            f"{type(t).__name__}")
    if position == 0 and not arg:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return arg


def _same_length(tensors, other):
    if len(other) != len(tensors):
        raise RuntimeError("Tensor lists must have the same number of tensors, got "
                           f"{len(tensors)} and {len(other)}")


def _is_number(x):
    return isinstance(x, numbers.Number)


NUMBER, NUMBERS, TENSORS, TENSOR = range(4)     # the overloads of a binary foreach op


def _per_tensor(name, tensors, other, position=1, tensor_overload=False):
    """The second argument of a binary foreach op as one value per tensor, and which
    overload it selects: a number, a list of numbers, a list of tensors, or one 0-d tensor
    (add, mul and div; other ops take a 0-d tensor for a number, as PyTorch's parser)."""
    from ._tensor import Tensor
    if _is_number(other):
        return [other] * len(tensors), NUMBER
    if isinstance(other, Tensor):
        # PyTorch's parser: add takes a 0-d tensor that requires no grad as a number, mul
        # and div always as a tensor, the other ops only as a number
        if tensor_overload and other.dim() != 0:
            raise RuntimeError("scalar tensor expected to be 0 dim but it has "
                               f"{other.dim()} dimensions and {other.numel()} elements.")
        if tensor_overload == "always" or tensor_overload and other._requires_grad:
            return [other] * len(tensors), TENSOR
        if other.dim() != 0 or other._requires_grad:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "(list, Tensor), but expected one of:")
        return [other.item()] * len(tensors), NUMBER
    if isinstance(other, (list, tuple)) and other and all(_is_number(x) for x in other):
        if len(other) != len(tensors):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(other), NUMBERS
    _tensor_list(name, other, position)
    _same_length(tensors, other)
    return list(other), TENSORS


def _values(tensors, scalars):
    """addcmul/addcdiv's `value`: a number, a list of numbers or a 1-d tensor of them."""
    from ._tensor import Tensor
    if isinstance(scalars, Tensor):
        if scalars.numel() != len(tensors):
            raise RuntimeError(f"Expected length of scalars to match input of length "
                               f"{len(tensors)} but got {scalars.numel()} instead.")
        return scalars.tolist(), TENSOR
    if _is_number(scalars):
        return [scalars] * len(tensors), NUMBER
    if len(scalars) != len(tensors):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")
    return list(scalars), NUMBERS


def _define(name, fn):
    fn.__name__ = fn.__qualname__ = name
    globals()[name] = fn
    __all__.append(name)


def _edges(tensors, others, overload):
    """The lists and shared tensors of a binary call, for _group."""
    if overload == TENSORS:
        return [tensors, others], ()
    return [tensors], (others[0],) if overload == TENSOR else ()


# ---- unary --------------------------------------------------------------------------------

def _unary(op):
    name = f"_foreach_{op}"
    node_name = f"Foreach{_camel(op)}Backward0"

    def out_of_place(self):
        """Apply the op to each tensor of the list."""
        tensors = _tensor_list(name, self, 0)
        return _group(node_name, getattr(_torch(), op), [(t,) for t in tensors], [tensors])

    def inplace(self):
        """Apply the op in place to each tensor of the list."""
        for t in _tensor_list(name + "_", self, 0):
            getattr(t, op + "_")()
        return self
    _define(name, out_of_place)
    _define(name + "_", inplace)


for _op in _UNARY:
    _unary(_op)


# ---- binary -------------------------------------------------------------------------------

# node name suffixes by overload (number, numbers, tensors, 0-d tensor), as PyTorch's
_BINARY_NODES = {
    "add": ("Backward1Scalar", "Backward1ScalarList", "Backward0List", "Backward0Tensor"),
    "sub": ("Backward1Scalar", "Backward1ScalarList", "Backward0List", None),
    "mul": ("Backward1Scalar", "Backward1ScalarList", "Backward0List", "Backward0Tensor"),
    "div": ("Backward1Scalar", "Backward1ScalarList", "Backward0", "Backward0Tensor"),
    "clamp_min": ("Backward0Scalar", "Backward0ScalarList", "Backward1List", None),
    "clamp_max": ("Backward0Scalar", "Backward0ScalarList", "Backward1List", None),
    "maximum": ("Backward0", "Backward1", "Backward0List", None),
    "minimum": ("Backward0", "Backward1", "Backward0List", None),
}


_TENSOR_OVERLOAD = {"add": "if it requires grad", "mul": "always", "div": "always"}


def _binary_apply(name, op, scalar_op, inplace_fn, self, other, alpha):
    """One binary foreach call; `scalar_op` is the op for a number (maximum with a number
    is clamp_min), `inplace_fn(t, o)` the in-place op for ops without a method."""
    torch = _torch()
    tensors = _tensor_list(name, self, 0)
    suffixes = _BINARY_NODES[op]
    # add's tensor overload takes alpha, its number overload does not
    tensor_overload = "always" if op == "add" and alpha != 1 else _TENSOR_OVERLOAD.get(op)
    others, overload = _per_tensor(name, tensors, other, 1, tensor_overload)
    if alpha != 1 and overload < TENSORS:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (list, "
                        f"{type(other).__name__}, alpha={type(alpha).__name__}), but expected "
                        "one of:")
    kwargs = {} if alpha == 1 else {"alpha": alpha}
    if not name.endswith("_"):
        fn = getattr(torch, scalar_op if scalar_op and overload < TENSORS else op)
        return _group(f"Foreach{_camel(op)}{suffixes[overload]}",
                      lambda t, o: fn(t, o, **kwargs), list(zip(tensors, others)),
                      *_edges(tensors, others, overload))
    for t, o in zip(tensors, others):
        if scalar_op and overload < TENSORS:
            getattr(t, scalar_op + "_")(o)
        elif inplace_fn is not None:
            inplace_fn(t, o)
        else:
            getattr(t, op + "_")(o, **kwargs)
    return self


def _binary(op, scalar_op=None, inplace_fn=None):
    name = f"_foreach_{op}"
    if op in ("add", "sub"):
        def out_of_place(self, other, *, alpha=1):
            """Apply the op to each tensor of the list and its number / tensor."""
            return _binary_apply(name, op, scalar_op, inplace_fn, self, other, alpha)

        def inplace(self, other, *, alpha=1):
            """Apply the op in place to each tensor of the list and its number / tensor."""
            return _binary_apply(name + "_", op, scalar_op, inplace_fn, self, other, alpha)
    else:
        def out_of_place(self, other):
            """Apply the op to each tensor of the list and its number / tensor."""
            return _binary_apply(name, op, scalar_op, inplace_fn, self, other, 1)

        def inplace(self, other):
            """Apply the op in place to each tensor of the list and its number / tensor."""
            return _binary_apply(name + "_", op, scalar_op, inplace_fn, self, other, 1)
    _define(name, out_of_place)
    _define(name + "_", inplace)


def _copy_result(op):
    # maximum/minimum have no in-place method: write the result in place
    return lambda t, o: t.copy_(getattr(_torch(), op)(t, o))


for _op in ("add", "sub", "mul", "div", "clamp_min", "clamp_max"):
    _binary(_op)
_binary("maximum", "clamp_min", _copy_result("maximum"))
_binary("minimum", "clamp_max", _copy_result("minimum"))

_POW_NODES = ("ForeachPowBackward0Scalar", "ForeachPowBackward1", "ForeachPowBackward0")


def _foreach_pow(self, exponent):
    """Each tensor to the power of its exponent; or a number to the power of each tensor."""
    pow_ = _torch().pow
    if _is_number(self):
        exponents = _tensor_list("_foreach_pow", exponent, 1)
        if not exponents:
            raise RuntimeError("Tensor list must have at least one tensor.")
        return _group("ForeachPowBackward2", lambda e: pow_(self, e),
                      [(e,) for e in exponents], [exponents])
    tensors = _tensor_list("_foreach_pow", self, 0)
    exponents, overload = _per_tensor("_foreach_pow", tensors, exponent)
    return _group(_POW_NODES[overload], pow_, list(zip(tensors, exponents)),
                  *_edges(tensors, exponents, overload))


def _foreach_pow_(self, exponent):
    """Each tensor raised in place to the power of its exponent."""
    tensors = _tensor_list("_foreach_pow_", self, 0)
    for t, e in zip(tensors, _per_tensor("_foreach_pow_", tensors, exponent)[0]):
        t.pow_(e)
    return self


_define("_foreach_pow", _foreach_pow)
_define("_foreach_pow_", _foreach_pow_)


# ---- ternary ------------------------------------------------------------------------------

def _pointwise(op):
    name = f"_foreach_{op}"
    camel = _camel(op)

    def checked(n, self, tensor1, tensor2, scalars):
        tensors = _tensor_list(n, self, 0)
        t1, t2 = _tensor_list(n, tensor1, 1), _tensor_list(n, tensor2, 2)
        _same_length(tensors, t1)
        _same_length(tensors, t2)
        values, overload = _values(tensors, scalars)
        return (tensors, t1, t2), values, overload

    def out_of_place(self, tensor1, tensor2, value=1):
        """self + value * (tensor1 op tensor2), for each triple of the lists."""
        fn = getattr(_torch(), op)
        lists, values, overload = checked(name, self, tensor1, tensor2, value)
        elements = list(zip(*lists, values))
        if overload == TENSOR:       # PyTorch has no derivative for a tensor of scalars
            return _group(None, lambda t, a, b, v: fn(t, a, b, value=v), elements, lists,
                          message=f"derivative for aten::{name} is not implemented")
        suffix = "Scalar" if overload == NUMBER else "ScalarList"
        return _group(f"Foreach{camel}Backward0{suffix}",
                      lambda t, a, b, v: fn(t, a, b, value=v), elements, lists)

    def inplace(self, tensor1, tensor2, value=1):
        """self += value * (tensor1 op tensor2) in place, for each triple of the lists."""
        lists, values, _ = checked(name + "_", self, tensor1, tensor2, value)
        for t, a, b, v in zip(*lists, values):
            getattr(t, op + "_")(a, b, value=v)
        return self
    _define(name, out_of_place)
    _define(name + "_", inplace)


_pointwise("addcmul")
_pointwise("addcdiv")

_LERP_NODES = ("ForeachLerpBackward0Scalar", "ForeachLerpBackward0ScalarList",
               "ForeachLerpBackward1List")


def _lerp_args(name, self, tensors1, weight):
    tensors = _tensor_list(name, self, 0)
    ends = _tensor_list(name, tensors1, 1)
    _same_length(tensors, ends)
    weights, overload = _per_tensor(name, tensors, weight, 2)
    lists = [tensors, ends] + ([weights] if overload == TENSORS else [])
    return lists, weights, overload


def _foreach_lerp(self, tensors1, weight):
    """lerp of each pair of the lists with its weight (a number, numbers or tensors)."""
    lists, weights, overload = _lerp_args("_foreach_lerp", self, tensors1, weight)
    return _group(_LERP_NODES[overload], _torch().lerp,
                  list(zip(lists[0], lists[1], weights)), lists)


def _foreach_lerp_(self, tensors1, weight):
    """lerp of each pair of the lists, in place."""
    lists, weights, _ = _lerp_args("_foreach_lerp_", self, tensors1, weight)
    for s, e, w in zip(lists[0], lists[1], weights):
        s.lerp_(e, w)
    return self


_define("_foreach_lerp", _foreach_lerp)
_define("_foreach_lerp_", _foreach_lerp_)


# ---- the rest -----------------------------------------------------------------------------

def _foreach_clone(self, *, memory_format=None):
    """A clone of each tensor."""
    kwargs = {} if memory_format is None else {"memory_format": memory_format}
    tensors = _tensor_list("_foreach_clone", self, 0)
    return _group("ForeachCloneBackward0", lambda t: t.clone(**kwargs), [(t,) for t in tensors],
                  [tensors])


def _foreach_copy_(self, src, non_blocking=False):
    """Copy each tensor of `src` into the tensor of `self` at its place."""
    tensors = _tensor_list("_foreach_copy_", self, 0)
    sources = _tensor_list("_foreach_copy_", src, 1)
    _same_length(tensors, sources)
    for t, s in zip(tensors, sources):
        t.copy_(s, non_blocking)
    return self


def _foreach_zero_(self):
    """Fill each tensor with zeros."""
    for t in _tensor_list("_foreach_zero_", self, 0):
        t.zero_()
    return self


def _foreach_max(self):
    """The maximum of each tensor."""
    tensors = _tensor_list("_foreach_max", self, 0)
    if any(t.numel() == 0 for t in tensors):
        raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max "
                           "over zero elements is undefined.")
    return _group("ForeachMaxBackward1", lambda t: t.max(), [(t,) for t in tensors], [tensors])


def _foreach_mm(self, mat2):
    """The matrix product of each pair of the lists."""
    tensors = _tensor_list("_foreach_mm", self, 0)
    others = _tensor_list("_foreach_mm", mat2, 1)
    _same_length(tensors, others)
    return _group("ForeachMmBackward0", lambda a, b: a.mm(b), list(zip(tensors, others)),
                  [tensors, others])


def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of each tensor (linalg.vector_norm)."""
    norm = _torch().linalg.vector_norm
    tensors = _tensor_list("_foreach_norm", self, 0)
    return _group("ForeachNormBackward0", lambda t: norm(t, ord, dtype=dtype),
                  [(t,) for t in tensors], [tensors])


def _foreach_powsum(self, ord=2, dtype=None):
    """The sum of |x| ** ord over each tensor (the norm before its root); PyTorch has no
    derivative for it."""
    tensors = _tensor_list("_foreach_powsum", self, 0)
    return _group(None, lambda t: t.abs().pow(ord).sum(dtype=dtype), [(t,) for t in tensors],
                  [tensors], message="derivative for aten::_foreach_powsum is not implemented")


for _fn in (_foreach_clone, _foreach_copy_, _foreach_zero_, _foreach_max, _foreach_mm,
            _foreach_norm, _foreach_powsum):
    __all__.append(_fn.__name__)
