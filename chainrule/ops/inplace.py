"""In-place variants (`add_`, `mul_`, ...), generated from the same rows as the ops.

Note [In-place ops]
The forward runs out of place and the result is written into `self`, whose version counter
(shared with its views) is bumped, so saved tensors can tell they were modified. When
autograd records it, `self` gets a new grad_fn: the op's node, whose first edge is where
`self`'s history used to point. A formula that reads `self` sees a copy of the old value
taken before the write, as a recorded clone of it (CloneBackward0 over the old history, as
PyTorch's original_self), so it stays differentiable. On a view, the base is
rebased instead (CopySlices, see Note [In-place on views] in views.py).
"""
import warnings
import weakref

import numpy as np

from .._dims import sizes_str
from .. import _dtype, _errstate
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from ..autograd import grad_mode
from ..autograd.graph import (SavedInput, SavedOutput, SavedViewOutput, rebase_history,
                              refresh_view_history)
from . import registry
from .binding import _not_tensor, not_tensor_input

__all__ = ["make_inplace", "check_inplace"]

_state = grad_mode.state


def make_inplace(row, signature, names):
    return registry.generate(row.name.split(".")[0] + "_", signature, row, dispatch_inplace,
                             inplace=True)


# allow_mutation_on_saved_tensors's clone-before-write (autograd/graph.py), or None
MUTATION_HOOK = None


def check_inplace(self, records):
    """PyTorch's checks before modifying `self` in place."""
    if MUTATION_HOOK is not None:
        MUTATION_HOOK(self)
    extra = self._extra
    if extra is not None and extra.inference and not _state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if not records:
        return
    base = self._base
    if base is not None:
        check_view_inplace(self)
    if base is not None and base._grad_fn is None and self.requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


# in-place rows that give an integer or bool self no history (PyTorch's copy_ checks)
_NO_INT_HISTORY = frozenset(("copy",))


def dispatch_inplace(op, inputs, params):
    if registry.FORWARD_AD is not None:
        return registry.FORWARD_AD(op, inputs, params, dispatch_inplace)
    self = inputs[0]
    if not op.number_inputs:
        _check_inputs(op, inputs, Tensor)
    elif len(inputs) != 2 or type(inputs[1]) not in _PLAIN_OPERANDS:
        _check_inputs(op, inputs, _TENSOR_OR_NUMBER)
    try:
        kind = self._data.dtype.kind
    except AttributeError:      # torch.exp_(None)
        raise not_tensor_input(_inplace_name(op), self) from None
    if kind in "iu" and op.name in registry._WRAPPED_INTS:
        inputs, params = registry.wrap_ints(op, inputs, params, self._data.dtype)
    # a view requires grad when its base does (even one made in no_grad mode); an integer
    # or bool self records too (`int_tensor.lt_(x)` gets LtBackward1 in PyTorch; what it
    # feeds then refuses "Autograd not support dtype"), except for copy_ (_NO_INT_HISTORY)
    records = _state.grad_enabled and op.node_cls is not None and (any(
        isinstance(x, Tensor) and x._requires_grad for x in inputs) or (
        self._base is not None and self._base._requires_grad)) and (
        kind in registry._DIFFERENTIABLE_KINDS
        or op.name not in _NO_INT_HISTORY)
    check_inplace(self, records)
    if self._base is not None:
        refresh_view_history(self)     # Note [Stale views]
    target = self._data
    overlapping = 0 in target.strides and _overlaps(target)     # Note [Overlap]
    if overlapping and op.name not in _OVERLAP_OK:
        _overlap_error(op)
    half = target.dtype is registry._F16 and op.name in registry._HALF_OPMATH
    if not half and _writes_directly(op, inputs, params, target):
        # Note [In-place ufuncs]: the ufunc writes into self's array (no temporary, no copy);
        # NumPy checks that the result fits before it writes anything.
        other = inputs[1]
        other = other._data if isinstance(other, Tensor) else other
        if records:
            inputs = _snapshot_if_read(op, self, inputs)
        try:
            _errstate.quietly(op.inplace_ufunc, target, other, target)     # out=target
        except ValueError:
            pass   # does not broadcast into self: the general path below raises the error
        else:
            if records:
                _rebase(op, self, inputs, params, target)
            else:
                self._vc[0] += 1
            return self
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    forward = op.forward
    if target.dtype in _dtype.SPECIAL_NP:
        # bfloat16, float8, complex32, uint16/32/64: Note [Reduced and limited dtypes]
        arrays, forward = registry._special.prepare(op, inputs, arrays, params)
    elif half and (prepared := registry.half_opmath(op, inputs, arrays, forward)) is not None:
        arrays, forward = prepared
    elif op.promote is not registry.NONE:
        arrays = registry._promote(op, inputs, arrays, params)
    try:
        out = np.asarray(_errstate.quietly(forward, *arrays, *params))
    except ValueError as e:
        if "broadcast" in str(e):      # NumPy's; an op's own ValueErrors are PyTorch's
            registry.check_broadcast(arrays)
        raise
    except NotImplementedError:
        if op.broadcasts:
            _check_output_shape(arrays, target)
        _check_common_dtype(op, inputs, params, target)
        raise
    if op.broadcasts:
        _check_output_shape(arrays, target)
    result_dtype = FROM_NP[out.dtype]
    self_dtype = FROM_NP[target.dtype]
    if not _dtype.can_cast(result_dtype, self_dtype):
        raise RuntimeError(f"result type {result_dtype.legacy} can't be cast to the desired "
                           f"output type {self_dtype.legacy}")
    if out.shape != target.shape:
        raise RuntimeError(f"output with shape {sizes_str(target.shape)} doesn't match the "
                           f"broadcast shape {sizes_str(np.broadcast_shapes(out.shape, target.shape))}")
    if records:
        inputs = _snapshot_if_read(op, self, inputs)
    # a value out of self's range becomes inf, as in PyTorch
    if overlapping:
        # fill_ / index_put_ / masked_fill_ through an expanded view: write only the
        # elements the op changed, so a changed element is not overwritten by an alias
        _errstate.quietly(np.copyto, target, out, "unsafe", out != target)
    else:
        _errstate.quietly(np.copyto, target, out, "unsafe")
    if records:
        _rebase(op, self, inputs, params, out)
    else:
        self._vc[0] += 1
    return self


# what an in-place op taking numbers takes besides tensors (bool is an int; a NumPy number
# is a number), and the exact types a plain call's operand has (tested without a loop)
_TENSOR_OR_NUMBER = (Tensor, float, int, complex, np.generic)
_PLAIN_OPERANDS = frozenset((Tensor, float, int, bool, complex))


def _check_inputs(op, inputs, kinds):
    """PyTorch's argument parser: a method's tensor arguments (after self) take `kinds` (no
    numbers unless the op takes them), and None only where optional."""
    for i in range(1, len(inputs)):
        x = inputs[i]
        if not isinstance(x, kinds) and (x is not None or i not in op.optional_inputs):
            raise _not_tensor(_inplace_name(op), op.inputs[i], i, x)


def _inplace_name(op):
    name = op.name.split(".")[0]
    return name if name.endswith("_") else name + "_"


def _check_output_shape(arrays, target):
    """TensorIterator's shape checks, before any of dtypes: the operands broadcast, and to
    self's shape."""
    if all(type(a) is not np.ndarray or a.shape == target.shape for a in arrays):
        return      # (the common case, without NumPy's broadcast_shapes)
    shape = registry.check_broadcast(arrays)
    if shape != target.shape:
        raise RuntimeError(f"output with shape {sizes_str(target.shape)} doesn't match the "
                           f"broadcast shape {sizes_str(shape)}")


def _check_common_dtype(op, inputs, params, target):
    """Before it looks for a kernel, PyTorch checks that the dtype the op computes in casts
    to self's: `int_tensor.bitwise_and_(2.5)` is a cast error, not a missing Float kernel."""
    operands = [x for x in inputs if x is not None] + [params[i] for i in op.promote_with]
    common = _dtype.result_type(operands)
    if op.promote in (registry.FLOAT, registry.PROMOTE_FLOAT) and common.category < 2:
        common = _dtype.get_default_dtype()
    self_dtype = FROM_NP[target.dtype]
    if not _dtype.can_cast(common, self_dtype):
        raise RuntimeError(f"result type {common.legacy} can't be cast to the desired "
                           f"output type {self_dtype.legacy}")


# Note [Overlap]
# An expanded view has several elements at one memory location (a zero stride over a dim of
# size > 1). Writing a computed value into it would depend on the order elements are
# visited, so PyTorch refuses every in-place op on it except those writing one value
# everywhere (fill_ from a number, zero_; fill_ from a 0-d tensor takes PyTorch's checked
# copy path and refuses); index_put_ and masked_fill_ only warn (deprecated) and go ahead.
# Views that overlap without a zero stride (as_strided) PyTorch cannot detect cheaply and
# lets through; so does chainrule.
_OVERLAP_OK = frozenset(("zero", "fill_.Scalar"))
_OVERLAP_DEPRECATED = {"index_put": "index_put_", "_index_put_impl_": "index_put_",
                       "masked_fill.Scalar": "masked_fill_", "masked_fill.Tensor": "masked_fill_"}


def _overlaps(a):
    return a.size > 1 and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def _overlap_error(op):
    name = _OVERLAP_DEPRECATED.get(op.name)
    if name is None:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    example = "tensor[indices] = tensor" if name == "index_put_" else "tensor[mask] = scalar"
    warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor "
                  "before performing this operation. This also applies to advanced indexing "
                  f"e.g. {example}", UserWarning, stacklevel=4)


# Note [In-place ufuncs]
# Rows whose forward is a single NumPy ufunc for their default params (add and sub with
# alpha=1, mul, div) declare it as `inplace_ufunc`; their in-place variants then write into
# self directly when no type promotion is involved, which is what an optimizer step
# (`p -= lr * p.grad`) needs: one pass and no temporary, as hand-written NumPy does.

def _writes_directly(op, inputs, params, target):
    if op.inplace_ufunc is None or len(inputs) != 2 or params != op.inplace_ufunc_params:
        return False
    if type(inputs[1]) is bool:
        return False     # the forward refuses some (float_tensor.sub_(True))
    # (complex: add_/sub_ multiply other by alpha as a complex number even when it is 1,
    # which makes inf+1j inf+nanj; the general path does)
    if not target.flags.writeable or target.dtype.kind != "f":
        return False
    other = inputs[1]
    if isinstance(other, Tensor):
        return other._data.dtype is target.dtype
    return not registry._needs_promotion(op, target.dtype, False,
                                         registry._NUMBER_CATEGORY.get(type(other), 9))


def _snapshot_if_read(op, self, inputs):
    """If the formulas read `self`, replace it by a copy of its value from before the
    write, attached to its old history (see Note [In-place ops])."""
    plan = op.saves_for(registry.requires_grad_key(inputs))
    if any(name == "self" for name, _, _ in plan):
        snap = make_tensor(self._data.copy(), self._requires_grad, self._grad_fn, self._output_nr)
        snap._acc = self._acc
        return (snap,) + tuple(inputs[1:])
    return inputs


def _rebase(op, self, inputs, params, out):
    """Make `self` the output of a new node for this op (see Note [In-place ops])."""
    # inputs[0] is self or its snapshot; either way its edge is still self's old history.
    # Edges and saved inputs are taken before the version bump, as PyTorch's kernels save
    # before they write: another view of the same base read by the op is not stale yet.
    results = registry._record(op, inputs, params, (self._data,), True)
    self._vc[0] += 1
    node = results[0]._grad_fn
    saved = node._saved
    old = saved.get("self") if saved else None
    if type(old) is SavedInput and old.t._requires_grad:
        # what the formulas read is a recorded clone of the old value (PyTorch's
        # original_self = self.clone()), so a graph of the backward has its CloneBackward0
        snap = old.t
        saved["self"] = SavedInput(registry._record(_CLONE, (snap,), (None,), (snap._data,))[0])
    if self._base is not None:
        rebase_view(self, node)
    else:
        rebase_history(self, node, 0)
    # The node saved `result` from the fresh wrapper; point it at self's version counter.
    result = saved.get("result") if saved else None
    if type(result) is SavedOutput:   # not through hooks
        if self._base is not None:
            result = saved["result"] = _view_output(result, self._grad_fn)
        result.vc = self._vc
        result.version = self._vc[0]


def _view_output(saved, view_fn):
    out = SavedViewOutput.__new__(SavedViewOutput)
    out.data, out.output_nr, out.requires_grad = saved.data, saved.output_nr, saved.requires_grad
    out.view_fn = weakref.ref(view_fn)
    return out


# last: views.py declares rows with in-place variants, which import this module
from .views import check_view_inplace, rebase_view  # noqa: E402
from .shape import clone as _clone_function  # noqa: E402
_CLONE = _clone_function.op
