"""torch.cond and torch.while_loop, the structured control-flow operators, run eagerly.

PyTorch traces both branches (or the loop's body) with torch.compile when the predicate is
a tensor, and differentiates the traced graph through a custom autograd Function
(`CondAutogradOp`, `WhileLoopAutogradOp`). chainrule runs the Python code directly: the
branch taken (the loop, iteration by iteration) is run with autograd recording into a graph
of its own, over detached copies of the operands, and its outputs get one node of PyTorch's
name whose inputs are the operands and the tensors requiring grad that the code captured
from outside (PyTorch lifts those too). That node's backward differentiates the inner graph
once (it is not differentiable again, as PyTorch's is not).

Checked as PyTorch checks them: the predicate and operands, outputs that alias an input or
each other and inputs mutated in place while grad mode is on, output types, the loop's
condition and the body's outputs against the carried inputs. PyTorch's compiler also compares
the two branches' outputs (structure, shapes, dtypes) and lifts captured tensors that need no
gradient; chainrule runs only the branch taken, so neither is seen. Errors name the
compiler's exception classes; their messages stop before the compiler's debug context."""
from ._tensor import Tensor, make_tensor
from .autograd import grad_mode
from .autograd.function import Function
from .autograd.graph import (ERR_BACKWARD_TWICE, AccumulateGrad, GradientEdge, _sequence,
                             edge_of, rebase_history)
from .ops.views import _storage

__all__ = ["cond", "while_loop"]


class TorchDynamoException(RuntimeError):
    __module__ = "torch._dynamo.exc"


class UncapturedHigherOrderOpError(TorchDynamoException):
    __module__ = "torch._dynamo.exc"


class TorchRuntimeError(TorchDynamoException):
    __module__ = "torch._dynamo.exc"


class _HopName:
    """Stands for the operator object PyTorch's messages print (with its address)."""

    def __init__(self, cls):
        self.cls = cls

    def __repr__(self):
        return f"<{self.cls} object at {hex(id(self))}>"


_OPS = {"torch.cond": _HopName("torch._higher_order_ops.cond.CondOp"),
        "torch.while_loop": _HopName("torch._higher_order_ops.while_loop.WhileLoopOp")}
_USER_ERROR = ("Your code may result in an error when running in eager. Please double check "
               "that your code doesn't contain a similar error when actually running "
               "eager/uncompiled. You can do this by removing the `torch.compile` call, or by "
               "using `torch.compiler.set_stance(\"force_eager\")`. ")


def _unsupported(hop, gb_type, explanation, hints=(_USER_ERROR,)):
    text = ("This higher order operator doesn't work unless it is captured completely with "
            f"torch.compile. Got graph break/error:\n\n{gb_type}\n  Higher Order Operator: "
            f"{hop}\n  Explanation: {explanation}\n")
    return UncapturedHigherOrderOpError(text + "".join(f"  Hint: {h}\n" for h in hints))


def _found_in(hop):
    return f"Found in <bound method HigherOrderOperator.name of {_OPS[hop]!r}>"


# ---- pytrees: nested tuples, lists and dicts -----------------------------------------------

def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return type(tree), [_flatten(x, leaves) for x in tree]
    if isinstance(tree, dict):
        return dict, [(k, _flatten(v, leaves)) for k, v in tree.items()]
    leaves.append(tree)
    return None


def _unflatten(spec, leaves):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, children = s
        if kind is dict:
            return {k: build(c) for k, c in children}
        items = [build(c) for c in children]
        return kind(*items) if hasattr(kind, "_fields") else kind(items)
    return build(spec)


def _leaves(tree):
    leaves = []
    _flatten(tree, leaves)
    return leaves


# ---- checks ---------------------------------------------------------------------------------

def _check_outputs(hop, outputs):
    leaves = _leaves(outputs)
    for leaf in leaves:
        if not isinstance(leaf, (Tensor, int)) and leaf is not None:
            raise _unsupported(hop, "HOP body output unsupported",
                               "HigherOrderOperator body's output must consist of tensors or "
                               f"ints/bools only but got {type(leaf)}.")
    if hop == "torch.cond":
        if any(leaf is None for leaf in leaves):
            raise _unsupported(hop, "torch.cond: unsupported branch return type (constant "
                                    "non-int)", "Constants returned from branches must be ints.")
        for leaf in leaves:
            if isinstance(leaf, bool):
                raise TorchRuntimeError(
                    "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to "
                    "run FX node with fake tensors: got AssertionError(\"expected both a and b "
                    "to be FakeTensor, got a=<class 'bool'>, b=<class 'bool'>\")\n")
    return leaves


def _check_alias_and_mutation(hop, inputs, versions, outputs):
    """Grad mode on: no input modified in place, no output sharing memory with an input or
    another output (PyTorch's check_aliasing_and_input_mutation)."""
    for t, v in zip(inputs, versions):
        if t._vc[0] != v:
            raise _unsupported(hop, "Encountered input mutation during higher order op tracing",
                               f"Higher order ops do not support input mutation. {_found_in(hop)}",
                               ("Consider using the debug context to change user code to avoid "
                                "mutation.", "Please open an issue."))
    seen = {id(_storage(t._data)) for t in inputs}
    for o in outputs:
        if isinstance(o, Tensor):
            root = id(_storage(o._data))
            if root in seen:
                raise _unsupported(
                    hop, "Encountered aliasing during higher order op tracing",
                    f"Higher order ops do not support aliasing. {_found_in(hop)}",
                    ("Replace `return input` with `return input.clone()` to avoid aliasing.",
                     "Consider using the debug context to change user code to avoid aliasing.",
                     "Please open an issue."))
            seen.add(root)


# ---- the recorded inner graph and its outer node ---------------------------------------------

class CondAutogradOp(Function):
    """The autograd Function whose node (`CondAutogradOpBackward`) stands for a cond."""
    __module__ = "torch._higher_order_ops.cond"

    @staticmethod
    def backward(ctx, *grads):
        return _inner_backward(ctx, grads)


class WhileLoopAutogradOp(Function):
    """The autograd Function whose node (`WhileLoopAutogradOpBackward`) stands for a loop."""
    __module__ = "torch._higher_order_ops.while_loop"

    @staticmethod
    def backward(ctx, *grads):
        return _inner_backward(ctx, grads)


def _release(ctx):
    ctx._inner = None


CondAutogradOp._backward_cls._release = _release
WhileLoopAutogradOp._backward_cls._release = _release


def _inner_backward(ctx, grads):
    """Gradients for the node's inputs: the inner graph differentiated once."""
    from .autograd import grad
    if ctx._inner is None:
        raise RuntimeError(ERR_BACKWARD_TWICE)
    outputs, inputs, lead = ctx._inner
    pairs = [(o, g) for o, g in zip(outputs, grads)
             if isinstance(o, Tensor) and o._grad_fn is not None]
    wanted = [i for i, x in enumerate(inputs) if x is not None]
    result = [None] * len(inputs)
    if pairs and wanted:
        with grad_mode.no_grad():
            got = grad([o for o, _ in pairs], [inputs[i] for i in wanted],
                       [g for _, g in pairs], retain_graph=True, allow_unused=True)
        for i, g in zip(wanted, got):
            result[i] = g
    return (None,) * lead + tuple(result)


def _captured_edges(outputs, copies, start):
    """The edges by which the inner graph reaches tensors made before it started: leaves
    requiring grad and results of earlier ops that the code captured. In order of first use."""
    own = {id(c) for c in copies}
    found = {}
    stack = [t._grad_fn for t in outputs if isinstance(t, Tensor) and t._grad_fn is not None]
    visited = set()
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        for edge in node._next:
            nxt = edge[0]
            if nxt is None:
                continue
            if isinstance(nxt, AccumulateGrad):
                if id(nxt.variable) in own:
                    continue
            elif nxt._seq > start:
                stack.append(nxt)
                continue
            key = (id(nxt), edge[1])
            if key not in found or found[key][0] > node._seq:
                found[key] = (node._seq, edge)
    return [e for _, e in sorted(found.values(), key=lambda p: p[0])]


def _record(fn_cls, run, operands, lead):
    """Run `run(copies)` with autograd recording over copies of `operands` cut from their
    history; give its outputs one `fn_cls` node over the tensor operands (after `lead`
    inputs that take no gradient) and the captured tensors. Returns the outputs, in their
    structure."""
    start = next(_sequence)
    with grad_mode.enable_grad():
        # an operand requiring grad is cloned from a fresh leaf, so that the code sees a
        # tensor it may modify in place (refused by the checks, as PyTorch refuses it)
        fresh = [x.detach().requires_grad_() if isinstance(x, Tensor) and x._requires_grad
                 else None for x in operands]
        copies = [f.clone() if f is not None else x.detach() if isinstance(x, Tensor) else x
                  for x, f in zip(operands, fresh)]
        result = run(copies)
    outputs = _leaves(result)
    captured = _captured_edges(outputs, [f for f in fresh if f is not None], start)
    tensor_ops = [(x, f) for x, f in zip(operands, fresh) if isinstance(x, Tensor)]
    if not captured and not any(x._requires_grad for x, _ in tensor_ops):
        return result
    ctx = fn_cls._backward_cls()
    ctx._next = ((None, 0),) * lead + tuple(edge_of(x) for x, _ in tensor_ops) + tuple(captured)
    ctx._tensor_args = (True,) * len(ctx._next)
    ctx.needs_input_grad = tuple(e[0] is not None for e in ctx._next)
    ctx._inner = (outputs, [f for _, f in tensor_ops] + [GradientEdge(*e) for e in captured],
                  lead)
    outs, meta = [], []
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            outs.append(o)
            meta.append(((), None))
            continue
        t = make_tensor(o._data)
        if t._data.dtype.kind in "fcVW":
            rebase_history(t, ctx, i)
        meta.append((t._data.shape, t._data.dtype))
        outs.append(t)
    ctx._meta = tuple(meta)
    ctx._packed = True
    return _unflatten(_flatten(result, []), outs)


# ---- cond -----------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, operands=()):
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`; `pred` is a bool or a
    one-element tensor. See the module docstring for what is checked."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(
            isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    branch = true_fn if bool(pred._data) else false_fn
    if not grad_mode.state.grad_enabled:      # in-place changes and aliases are allowed
        result = branch(*operands)
        _check_outputs("torch.cond", result)
        return result
    leaves = []
    spec = _flatten(tuple(operands), leaves)

    def run(copies):
        versions = [c._vc[0] for c in copies]
        result = branch(*_unflatten(spec, copies))
        _check_alias_and_mutation("torch.cond", copies, versions,
                                  _check_outputs("torch.cond", result))
        return result
    return _record(CondAutogradOp, run, leaves, 1)


# ---- while_loop -----------------------------------------------------------------------------

def _fake(x):
    if isinstance(x, Tensor):
        dt = "" if x.dtype == _default_dtype() else f", dtype={x.dtype}"
        return f"FakeTensor(..., size={tuple(x.shape)}{dt})"
    return repr(x)


def _default_dtype():
    from ._dtype import get_default_dtype
    return get_default_dtype()


def _mismatch(text):
    return UncapturedHigherOrderOpError(f"{text}\n  Higher Order Operator: torch.while_loop\n")


def _check_body(out, carried):
    """The body's outputs must match the carried inputs one to one, in type, shape and
    dtype."""
    if len(out) != len(carried):
        raise _mismatch("Expected body_fn_output and carried_inputs to have same number of "
                        f"outputs but got lhs:[{', '.join(map(_fake, out))}] and "
                        f"rhs:[{', '.join(map(_fake, carried))}]")
    for i, (a, b) in enumerate(zip(out, carried)):
        if isinstance(a, Tensor) != isinstance(b, Tensor):
            diff = f"type: {_fake(a)} vs {_fake(b)}"
        elif not isinstance(a, Tensor):
            continue
        elif a.shape != b.shape:
            diff = f"'shape: {a.shape} vs {b.shape}'"
        elif a.dtype != b.dtype:
            diff = f"'dtype: {a.dtype} vs {b.dtype}'"
        else:
            continue
        raise _mismatch("Expected body_fn_output and carried_inputs to have same metadata but "
                        f"found:\npair[{i}] differ in {diff}, where lhs is {_fake(a)} and rhs is "
                        f"{_fake(b)}")


def _keep_going(value):
    if isinstance(value, Tensor):
        if value.dtype.name != "bool" or value.dim() != 0:
            raise _unsupported("torch.while_loop", "torch.while_loop: unsupported cond_fn return "
                               "type", "Expected cond_fn to return a scalar tensor or a bool but "
                               f"got {value.shape}.")
        return bool(value._data)
    return bool(value)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run `body_fn(*carried)` while `cond_fn(*carried)` is true, carrying its outputs into
    the next iteration; the last outputs (or `carried_inputs`) are returned."""
    flat = _leaves(carried_inputs)
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not all(isinstance(a, (Tensor, int)) for a in flat):
        raise AssertionError(f"{flat} can only be of (<class 'torch.Tensor'>, <class 'int'>, "
                             "<class 'torch.SymInt'>) but got "
                             f"{tuple(type(a) for a in flat)}")

    spec = _flatten(carried_inputs, [])

    def loop(flat):
        # each iteration's outputs are flattened and read in the carried inputs' structure
        tensors = [c for c in flat if isinstance(c, Tensor)]
        versions = [t._vc[0] for t in tensors]
        result, first = _unflatten(spec, flat), True
        while _keep_going(cond_fn(*_unflatten(spec, flat))):
            result = body_fn(*_unflatten(spec, flat))
            out = _check_outputs("torch.while_loop", result)
            _check_body(out, flat)
            if first:    # what PyTorch checks when it traces the body once
                _check_alias_and_mutation("torch.while_loop", tensors, versions, out)
                first = False
            flat = out
        return result

    if not grad_mode.state.grad_enabled:
        return loop(flat)
    if any(isinstance(a, Tensor) and a._requires_grad for a in flat) and not all(
            isinstance(a, Tensor) for a in flat):
        raise TorchRuntimeError(
            "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX "
            "node with fake tensors: got AssertionError(\"all carried_inputs must be tensors "
            f"for stack_output, got {[type(a) for a in flat]}\")\n")
    return _record(WhileLoopAutogradOp, loop, flat, 0)
