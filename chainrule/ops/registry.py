"""The op table: one `op(...)` row per op, and everything generated from it.

A row names the op, its backward node, its signature (tensor inputs first), its array
forward, and one derivative formula per differentiable input, in the spirit of PyTorch's
derivatives.yaml:

    op("exp", "ExpBackward0", "self", np.exp, promote=FLOAT,
       self=lambda grad, result: grad * result.conj())

A formula is a function of chainrule Tensors, so it is itself differentiable and higher
derivatives come for free. Its parameter names say what the node must save:

    grad / grads        the incoming gradient (`grads`: a tuple, for several outputs, with
                        zeros for outputs that received none)
    grads_defined       which outputs received a gradient (PyTorch's grads[i].defined())
    shared              a dict the formulas of one node share during one backward call
                        (work one fused backward does for several inputs)
    <input>             an input (a Tensor, or the Python number it was called with)
    <param>             a non-tensor argument (dim, keepdim, alpha, ...)
    result, result<i>   an output (saved without a reference cycle, see graph.py)
    <input>_shape       an input's shape only (no tensor kept alive)
    <input>_dtype       an input's dtype only (None for a number)

From the row the registry makes the public function, the Tensor method, dunders, the
in-place variant and the node class (`ExpBackward0`). Broadcast reduction and dtype casting
of returned gradients are done once, by the engine (engine.validate_outputs).
"""
import functools
import inspect
import numbers
import sys
import types
import warnings
from collections import namedtuple

import numpy as np

from .. import _dtype
from .._errstate import QUIET as _QUIET, _set as _errors_set, get as _errors_get, \
    quietly as _quietly
from .._dims import sizes_str
from .._dtype import FROM_NP
from .._tensor import Tensor, _SharedExtra, make_tensor
from ..autograd import grad_mode
from ..autograd.anomaly_mode import state as _anomaly
from ..autograd.graph import (ERR_BACKWARD_TWICE, HOOKED, RELEASED, _ZERO_NRS, Node,
                              SavedHooked, SavedInput, SavedOutput, SavedViewOutput, _sequence,
                              accumulator_of, current_hooks, raw_saved, refresh_view_history,
                              unpack, unpack_hooked, unpack_input, unpack_output)
from .binding import _not_tensor

__all__ = ["op", "OPS", "FUNCTIONS", "public", "dispatch", "PROMOTE", "FLOAT", "NONE", "CAST",
           "EXACT", "SAME_DTYPE", "out_cast", "out_exact", "out_as_dtype", "out_variant",
           "write_out", "NOT_IMPLEMENTED", "no_derivative", "not_implemented",
           "out_without_derivative",
           "intercept"]

NONE, PROMOTE, FLOAT, PROMOTE_FLOAT = "none", "promote", "float", "promote_float"

OPS = {}          # overload name -> Op: the table, introspectable (tests iterate it)
FUNCTIONS = {}    # public name -> callable, installed into the chainrule namespace
return_types = {}

_state = grad_mode.state
_ndarray = np.ndarray
# Forward AD (autograd/forward_ad.py): the dual-level dispatcher while a level is active,
# else None, so dispatch pays one global test when forward AD is unused.
FORWARD_AD = None
# torch.func.vmap (func/_batched.py): the batching dispatcher while a vmap runs its function
# on BatchedTensors, else None (one global test when vmap is unused).
VMAP = None
_asarray = np.asarray


class Op:
    """One row of the table."""

    def __init__(self, name, node_name, inputs, params, forward, formulas, promote,
                 returns, differentiable_outputs, view, number_inputs, promote_with=(),
                 list_input=False, inplace_ufunc=None):
        self.name = name
        self.node_name = node_name
        self.inputs = inputs                    # tensor argument names, in next_functions order
        self.params = params                    # other argument names
        self.forward = forward
        self.promote = promote
        # indices of number params that take part in type promotion (`2.5 - int_tensor`)
        self.promote_with = tuple(params.index(n) for n in promote_with)
        # returns: None (one output), names (a namedtuple), or list (any number, a tuple)
        self.returns = returns
        self.n_outputs = 1 if returns is None else -1 if returns is list else len(returns)
        # list_input: the only tensor input is a list (cat, stack); every element gets an
        # edge, and the formula returns one gradient per element.
        self.list_input = list_input
        # (ufunc, params): see inplace.py, Note [In-place ufuncs]
        self.inplace_ufunc, self.inplace_ufunc_params = inplace_ufunc or (None, None)
        self.differentiable_outputs = differentiable_outputs
        self.view = view                        # output shares memory and version with input 0
        self.number_inputs = number_inputs      # inputs that may be Python numbers
        # formulas[i]: (callable, names of what it reads) for input i, or None
        self.formulas = tuple(
            (f, tuple(inspect.signature(f).parameters)) if f is not None else None
            for f in (formulas.get(n) for n in inputs))
        self.differentiable = any(f is not None for f in self.formulas)
        # Note [Edges]: only inputs with a formula get an edge (where's condition does not;
        # a Python-number `other` does, as (None, 0)).
        self.edge_mask = tuple(f is not None for f in self.formulas)
        self.all_edges = all(self.edge_mask) or list_input
        self.edge_formulas = tuple(f for f in self.formulas if f is not None)
        # per edge formula, `call(env)` passing it what it reads by name from `env`
        self.edge_callers = tuple(_caller(f, names) for f, names in self.edge_formulas)
        self.shares = any("shared" in names for _, names in self.edge_formulas)
        self.node_cls = _make_node_class(self) if self.differentiable else None
        self.refuses_complex_autograd = name.split(".")[0] in _NO_COMPLEX_AUTOGRAD
        # element-wise over broadcast inputs (PyTorch's TensorIterator ops), which check
        # shapes before a kernel looks for their dtype
        self.broadcasts = _BROADCASTS.get(name, promote is not NONE and len(inputs) >= 2)
        self.out = False                        # the out= rule of its public function, see op()
        self.optional_inputs = frozenset()      # inputs that may be None (a default), see op()
        self.method_code = None                 # its method's own code, where that is not the
                                                # function's (the parser counts args after self)
        self.out_name = None                    # the op its out= messages name
        self._saves = {}                        # requires-grad key -> save plan
        self._savers = {}                       # requires-grad key -> its compiled saver

    def saves_for(self, key):
        """The save plan when the inputs whose bits are set in `key` (bit i: input i)
        need gradients: one (name, kind, index) per value the formulas of those inputs read.
        Computed once per key, so a forward call only follows it."""
        plan = self._saves.get(key)
        if plan is None:
            if self.list_input:
                mask = (key != 0,)
            else:
                mask = tuple(bool(key >> i & 1) for i in range(len(self.inputs)))
            used = []
            for needed, formula in zip(mask, self.formulas):
                if needed and formula is not None:
                    used.extend(n for n in formula[1] if n not in _GRAD_NAMES and n not in used)
            # PyTorch's order (its saved-tensor hooks see it): tensor inputs by name, then
            # outputs, then what is not a tensor
            plan = self._saves[key] = tuple(sorted(
                (self._plan(n) for n in used),
                key=lambda p: (0, p[0]) if p[1] in (_INPUT, _LIST) else (
                    (1, self._output_name(p[2])) if p[1] == _OUTPUT else (2, ""))))
        return plan

    def _output_name(self, i):
        returns = self.returns
        return returns[i] if type(returns) is tuple and i < len(returns) else "result"

    def _plan(self, name):
        first = self.inputs[0] if self.inputs else None
        if self.list_input and name == first:
            return (name, _LIST, 0)
        if self.list_input and name == first + "_shape":
            return (name, _LIST_SHAPES, 0)
        if name in self.inputs:
            return (name, _INPUT, self.inputs.index(name))
        if name == "result":
            return (name, _OUTPUT, 0)
        if name.startswith("result") and name[6:].isdigit():
            return (name, _OUTPUT, int(name[6:]))
        if name.endswith("_shape") and name[:-6] in self.inputs:
            return (name, _SHAPE, self.inputs.index(name[:-6]))
        if name.endswith("_strides") and name[:-8] in self.inputs:
            return (name, _STRIDES, self.inputs.index(name[:-8]))
        if name.endswith("_dtype") and name[:-6] in self.inputs:
            return (name, _DTYPE, self.inputs.index(name[:-6]))
        if name in self.params:
            return (name, _PARAM, self.params.index(name))
        raise TypeError(f"op {self.name}: a formula reads '{name}', which is not an input, "
                        "param, result, <input>_shape, <input>_strides or <input>_dtype")

    def __repr__(self):
        return f"<op {self.name} -> {self.node_name}>"


def _caller(f, names):
    """`call(env)`: f(env[<name>], ...) for f's parameter names, compiled once per formula
    (a backward step is mostly such calls)."""
    ns = {"f": f}
    exec(f"def call(env):\n    return f({', '.join(f'env[{n!r}]' for n in names)})\n", ns)
    return ns["call"]


class OpNode(Node):
    """Backward node of a table op. `_saved` maps saved names to values; an input tensor
    is kept with its version at save time, an output as a SavedOutput."""
    __slots__ = ("_saved",)
    _op = None
    _takes_needed = True

    def _apply(self, grads, create_graph, needed=None):
        op = self._op
        if op.n_outputs == 1:
            grad = grads[0]
            if grad is None:
                return [None] * len(self._fns)
            env = {"grad": grad}
        else:
            if all(g is None for g in grads):
                return [None] * len(self._fns)
            env = {"grads": _materialize(grads, self._meta),
                   "grads_defined": tuple(g is not None for g in grads)}
        if op.shares:
            env["shared"] = {}
        for name, value in self._saved.items():
            kind = type(value)
            if kind is SavedInput:
                t = value.t
                if t._vc[0] != value.version or (t._grad_fn is None and not value.leaf):
                    unpack_input(value)      # raises PyTorch's error
                env[name] = t
            elif kind is SavedOutput:
                vc = value.vc
                if vc[0] != value.version:
                    unpack_output(value, self)      # raises PyTorch's error
                env[name] = make_tensor(value.data, value.requires_grad, self, value.output_nr,
                                        vc)
            elif kind is SavedHooked:
                env[name] = unpack_hooked(value, self)
            elif kind is SavedViewOutput:
                env[name] = unpack_output(value, self)
            elif value is _RELEASED:
                raise RuntimeError(ERR_BACKWARD_TWICE)
            elif kind is _SavedList:
                if _RELEASED in value:
                    raise RuntimeError(ERR_BACKWARD_TWICE)
                env[name] = [unpack(v, self) for v in value]
            elif kind is _SavedTensors:
                env[name] = value.unpack(self)
            else:
                env[name] = value
        callers = op.edge_callers
        if op.list_input:
            grads = callers[0](env)
            return [None if fn is None else g for fn, g in zip(self._fns, grads)]
        if needed is not None:
            return [call(env) if want else None for want, call in zip(needed, callers)]
        fns = self._fns
        if len(fns) == 1:
            return [None if fns[0] is None else callers[0](env)]
        if len(fns) == 2:
            return [None if fns[0] is None else callers[0](env),
                    None if fns[1] is None else callers[1](env)]
        return [None if fn is None else call(env) for fn, call in zip(fns, callers)]

    def _release(self):
        # Saved tensors are freed, and so are Python numbers passed as tensor inputs (PyTorch
        # wraps them in 0-d tensors: (x*2).sum() cannot be backwarded twice); shapes and
        # params stay, so a node that reads none can run again (x.sum() can).
        saved = self._saved
        inputs = self._op.inputs
        for name, value in saved.items():
            if type(value) in _SAVED_KINDS or name in inputs:
                saved[name] = _RELEASED
            elif type(value) is _SavedTensors:
                value[:] = [None if v is None else _RELEASED for v in value]
                saved[name] = _RELEASED
            elif type(value) is _SavedList:
                saved[name] = _SavedList([_RELEASED])

    def __dir__(self):
        # PyTorch's nodes list their saved values as attributes, and tools (torchviz) find
        # them through dir(): _saved_<name> per saved value, _raw_saved_<name> per tensor
        names = set(super().__dir__())
        for key, value in self._saved.items():
            if key.endswith("_dtype") and key[:-6] in self._op.inputs:
                continue    # PyTorch keeps an input's dtype in its options, not shown
            shown = key     # PyTorch's names for a saved shape and strides
            if key.endswith("_shape"):
                shown = key[:-6] + "_sym_sizes"
            elif key.endswith("_strides"):
                shown = key[:-8] + "_sym_strides"
            names.add("_saved_" + shown)
            if (type(value) in _SAVED_KINDS or value is _RELEASED or isinstance(value, Tensor)
                    or key in self._op.inputs or type(value) is _SavedTensors
                    or type(value) is tuple and any(isinstance(v, Tensor) for v in value)):
                names.add("_raw_saved_" + key)
        return sorted(names)

    def __getattr__(self, name):
        # grad_fn._saved_self / _saved_result / _saved_self_sym_sizes, as in PyTorch
        if name.startswith("_raw_saved_"):
            # the SavedTensor of a saved tensor (or of a number taken for a tensor input)
            key = name[11:]
            value = self._saved.get(key, None)
            if (type(value) in _SAVED_KINDS or value is _RELEASED or isinstance(value, Tensor)
                    or key in self._saved and key in self._op.inputs):
                return raw_saved(self._saved, key)
            if type(value) is tuple and any(isinstance(v, Tensor) for v in value):
                value = self._saved[key] = _SavedTensors(value)     # register_hooks writes
            if type(value) is _SavedTensors:
                return tuple(raw_saved(value, i) for i in range(len(value)))
        elif name.startswith("_saved_"):
            key = name[7:].replace("_sym_sizes", "_shape").replace("_sym_strides", "_strides")
            op = type(self)._op
            if key not in self._saved and type(op.returns) is tuple and key in op.returns:
                # a named output (sort's `indices`) is saved as result<i>; one that is not
                # differentiable comes back without history, as PyTorch's
                i = op.returns.index(key)
                value = getattr(self, f"_saved_result{i}")
                differentiable = op.differentiable_outputs
                return value if differentiable is None or i in differentiable else value.detach()
            if key in self._saved:
                value = self._saved[key]
                if value is _RELEASED:
                    raise RuntimeError(ERR_BACKWARD_TWICE)
                if type(value) is SavedInput:
                    return unpack_input(value)
                if type(value) is SavedOutput or type(value) is SavedViewOutput:
                    return unpack_output(value, self)
                if type(value) is SavedHooked:
                    return unpack_hooked(value, self)
                if type(value) is _SavedTensors:
                    return value.unpack(self)
                if key in op.inputs and isinstance(value, numbers.Number):
                    # PyTorch saved the number as a wrapped 0-d tensor
                    return make_tensor(np.asarray(value))
                if type(value) is np.ndarray:     # a tensor param kept as its array (a target)
                    return make_tensor(value)
                return value
            raise AttributeError(f"'{op.node_name}' object has no attribute '{name}'")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


_RELEASED = RELEASED   # a saved tensor freed after backward
_SAVED_KINDS = (SavedInput, SavedOutput, SavedViewOutput, SavedHooked)
_GRAD_NAMES = ("grad", "grads", "grads_defined", "shared")   # given to formulas, not saved


def requires_grad_key(inputs):
    """The save-plan key of a call: bit i set when input i requires grad."""
    return sum(1 << i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad)


# save-plan kinds
_INPUT, _LIST, _LIST_SHAPES, _OUTPUT, _SHAPE, _PARAM, _STRIDES, _DTYPE = range(8)
_NOTHING_SAVED = types.MappingProxyType({})   # shared by nodes that save nothing; read-only


class _SavedList(list):
    """A saved tensor list (cat's inputs), told apart from a saved list of ints."""
    __slots__ = ()


class _SavedTensors(list):
    """A parameter holding optional tensors (index's `indices`) once saved-tensor hooks or
    grad_fn._raw_saved_<name> reached its tensors: per item None, a Tensor or SavedHooked."""
    __slots__ = ()

    def unpack(self, node):
        if _RELEASED in self:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        return tuple(v if v is None or isinstance(v, Tensor) else unpack_hooked(v, node)
                     for v in self)


def _materialize(grads, meta):
    # Multi-output formulas see zeros for outputs that received no gradient.
    return tuple(g if g is not None else make_tensor(np.zeros(m[0], m[1]))
                 for g, m in zip(grads, meta))


def _make_node_class(op):
    if op.node_name == NOT_IMPLEMENTED:
        return type("NotImplemented", (_NotImplementedRowNode,), {"__slots__": (), "_op": op,
                                                                   "__module__": "torch"})
    # A complex gradient reaching a real input is refused by the engine, except from ops whose
    # PyTorch formulas take its real part (handle_r_to_c): the ones promoting their inputs'
    # dtypes, with exceptions both ways
    real_part = _REAL_PART.get(op.name, op.promote in (PROMOTE, PROMOTE_FLOAT))
    return type(op.node_name, (OpNode,), {"__slots__": (), "_op": op, "__module__": "torch",
                                          "_real_part_for_real_inputs": real_part})


# sub, rsub and dist promote in their own forwards; copy_ and einsum (whose PyTorch decomposition
# is mul/bmm) take the real part too; where, addr, dist and logaddexp do not
_REAL_PART = {"sub": True, "rsub": True, "copy": True, "einsum": True, "where.self": False,
              "addr": False, "dist": False, "logaddexp": False}


# ---- ops PyTorch has no derivative for ------------------------------------------------------
# Note [NotImplemented nodes]
# PyTorch gives the output of an op without a derivative formula (heaviside, histogram, the
# out= variants of the *_copy functions, ...) a placeholder node, torch::autograd::
# NotImplemented, with edges to the inputs that require grad; running it raises "derivative
# for aten::<op> is not implemented". A row declares it with node name NOT_IMPLEMENTED and
# formulas no_derivative("aten::<op>"); out_without_derivative gives a function's out= one.
# An op whose derivatives.yaml entry says not_implemented("<name>") keeps its own node, and
# that formula raises NotImplementedError instead: not_implemented(name) here.

NOT_IMPLEMENTED = "NotImplemented"


def no_derivative(name):
    """The formula of an input of a NOT_IMPLEMENTED row: backward raises PyTorch's error."""
    def formula():
        raise RuntimeError(f"derivative for {name} is not implemented")
    return formula


def not_implemented(name):
    """derivatives.yaml's not_implemented("name") formula."""
    def formula():
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


def _edges_that_require_grad(node):
    return tuple(edge for edge in node._next if edge[0] is not None)


class _NotImplementedRowNode(OpNode):
    __slots__ = ()
    next_functions = property(_edges_that_require_grad)

    def name(self):
        return "torch::autograd::NotImplemented"


class NotImplementedNode(Node):
    """A NotImplemented node made outside the op table (for out= variants)."""
    __slots__ = ("_message",)

    def name(self):
        return "torch::autograd::NotImplemented"

    def _apply(self, grads, create_graph):
        raise RuntimeError(self._message)


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"


def attach_not_implemented(name, outs, inputs):
    """Give `outs` a NotImplemented node for aten::<name> (whose backward raises) when grad
    mode is on and some of `inputs` require grad, as PyTorch does for an op without a
    derivative."""
    sources = [t for t in inputs if t.requires_grad]
    if _state.grad_enabled and sources:
        from ..autograd.graph import edge_of, rebase_history
        node = NotImplementedNode()
        node._seq = next(_sequence)
        node._hooks = None
        node._message = f"derivative for aten::{name} is not implemented"
        node._next = tuple(edge_of(t) for t in sources)
        node._meta = tuple((o._data.shape, o._data.dtype) for o in outs)
        for i, o in enumerate(outs):
            if o._data.dtype.kind in _DIFFERENTIABLE_KINDS:
                rebase_history(o, node, i)


def out_without_derivative(name, f, rule=True):
    """`f` (a public function) with an out= that has no derivative in PyTorch: inputs that
    require grad are allowed, and `out` gets a NotImplemented node for aten::<name> whose
    backward raises; an `out` that itself requires grad is refused in aten::<name>'s words.
    Installed as FUNCTIONS[name]; returns it."""
    @functools.wraps(f)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return f(*args, **kwargs)
        check_out_kind(name, out)
        if FORWARD_AD is not None:
            _refuse_out(f"aten::{name}", args + tuple(kwargs.values()), ".")
        outs = (out,) if isinstance(out, Tensor) else tuple(out)
        if _state.grad_enabled and any(o.requires_grad for o in outs):
            raise RuntimeError(_OUT_GRAD.format(f"aten::{name}"))
        inputs = tuple(_tensors_in(args + tuple(kwargs.values())))
        with grad_mode.no_grad():
            result = f(*args, **kwargs)
        returned = write_out(name, result, out, rule, inputs)
        attach_not_implemented(name, outs, inputs)
        return returned
    sig = inspect.signature(f)
    if "out" not in sig.parameters:
        with_out.__signature__ = sig.replace(parameters=list(sig.parameters.values()) + [
            inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)])
    FUNCTIONS[name] = with_out
    return with_out


# ---- the forward hot path -----------------------------------------------------------------

def _promote(op, inputs, arrays, params):
    """Cast arrays to PyTorch's result dtype where NumPy would pick another."""
    kind = op.promote
    operands = inputs
    if op.name in _EXPANDS_SELF and inputs[0]._data.ndim == 0:
        # self is expanded to the result's shape first: it promotes as a dimensioned tensor
        operands = (np.empty(1, inputs[0]._data.dtype),) + tuple(inputs[1:])
    if op.promote_with:
        operands = tuple(inputs) + tuple(params[i] for i in op.promote_with)
    if kind is FLOAT:
        target = FROM_NP[arrays[0].dtype]
    else:
        target = _dtype.result_type(operands)
    if target.category < 2 and (kind is FLOAT or kind is PROMOTE_FLOAT):
        target = _dtype.get_default_dtype()
    t = target.np
    out = []
    for a in arrays:
        if type(a) is _ndarray and a.dtype != t:
            # a value past float16's range becomes inf, silently in PyTorch
            a = _quietly(a.astype, t) if t is _F16 else a.astype(t)
        elif t.isbuiltin == 2 and a is not None and type(a) is not _ndarray:
            a = _asarray(a, t)    # a number with an ml_dtypes target (bfloat16 default dtype)
        out.append(a)
    return out


_KIND_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
# floating and complex arrays; V and W: the ml_dtypes types (bfloat16, float8, complex32)
_DIFFERENTIABLE_KINDS = "fcVW"
_SPECIAL_NP = _dtype.SPECIAL_NP
_NUMBER_CATEGORY = {bool: 0, int: 1, float: 2, complex: 3}


def _needs_promotion(op, first, mixed, number_category):
    """False when NumPy will already produce PyTorch's dtype: tensors of one dtype, and
    Python numbers of no higher category (NEP 50 keeps them weak, as PyTorch does).
    number_category: the highest category among the Python numbers (-1: none)."""
    if mixed or first is None or op.promote_with:
        return True
    cat = _KIND_CATEGORY[first.kind]
    if cat < 2 and op.promote is not PROMOTE:
        return True      # FLOAT / PROMOTE_FLOAT: integers become the default float dtype
    return number_category > cat


# The _fn_version of a result (not a view) that a differentiable op computed with grad mode
# off (no_grad, set_grad_enabled(False)) from inputs that require grad: autograd.explain tells
# a tensor made that way from one that never had a history. One slot store, off the grad path.
MADE_WITHOUT_GRAD = -1


# Ops whose Python integer operand PyTorch wraps to an integer tensor's dtype (it becomes an
# int64 0-d tensor, then is cast): `int32_tensor + 2**40` adds 0, where NumPy raises or
# compares exactly. Name -> the params that may hold it (numbers among the inputs always).
_WRAPPED_INTS = {name: () for name in (
    "add", "sub", "mul", "eq", "ne", "lt", "le", "gt", "ge", "floor_divide", "floor_divide_",
    "div.Tensor_mode", "remainder.Scalar_Tensor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift")}
_WRAPPED_INTS.update((name, (0,)) for name in (
    "rsub", "add.Scalar", "sub.Scalar", "mul.Scalar", "remainder.Scalar", "fmod.Scalar",
    "eq_.Scalar", "ne_.Scalar", "lt_.Scalar", "le_.Scalar", "gt_.Scalar", "ge_.Scalar"))


def _wrap_int(x, dtype):
    """The Python int `x` as PyTorch casts it to the integer `dtype`: its low bits."""
    if type(x) is not int:
        return x
    info = np.iinfo(dtype)
    if info.min <= x <= info.max:
        return x
    if x < -2 ** 63:
        raise OverflowError("can't convert negative int to unsigned")
    if x >= 2 ** 64:
        raise OverflowError("int too big to convert")
    x &= (1 << info.bits) - 1
    return x - (1 << info.bits) if info.min and x > info.max else x


def wrap_ints(op, values, params, dtype):
    """`values` (inputs or their arrays) and `params` with their Python ints wrapped."""
    values = [_wrap_int(v, dtype) for v in values]
    indices = _WRAPPED_INTS[op.name]
    if indices:
        params = list(params)
        for i in indices:
            params[i] = _wrap_int(params[i], dtype)
    return values, params


# Ops whose float16 kernels read a second operand that is a number or a 0-d tensor at
# PyTorch's opmath precision (float32), not rounded to float16 first: float16 * 1e-8 is not 0.
_HALF_OPMATH = frozenset(("mul", "div", "div.Tensor_mode", "floor_divide", "floor_divide_"))
_F16 = np.dtype(np.float16)


def half_opmath(op, inputs, arrays, forward):
    """(arrays, forward) computing in float32 and rounding once, where PyTorch's result is
    float16; None otherwise."""
    if (len(arrays) < 2 or type(arrays[0]) is not _ndarray or arrays[0].dtype != _F16
            or isinstance(arrays[1], complex)
            or _dtype.result_type([x for x in inputs if x is not None]).np != _F16):
        return None
    # a tensor of another dtype is cast to float16 first, as TensorIterator casts its
    # operands to the common dtype (an int64 of 1e5 is inf); Python numbers are not, nor a
    # one-element second operand (these ops' *_reduced_float kernels read its original
    # value in float32)
    unrounded = type(arrays[1]) is _ndarray and arrays[1].size == 1
    with np.errstate(over="ignore", invalid="ignore"):
        arrays = [(a if a.dtype == _F16 or unrounded and i == 1 else a.astype(_F16))
                  .astype(np.float32) if type(a) is _ndarray else a
                  for i, a in enumerate(arrays)]
    return arrays, lambda *args: forward(*args).astype(_F16)


def _argument_error(op, i, value):
    """The parser's error for input i of `op` given `value`, not a Tensor: its position
    counts from 1 after self in a method call (told by the calling wrapper's code)."""
    name = op.inputs[i]
    method = op.method_code is not None and sys._getframe(2).f_code is op.method_code
    return _not_tensor(op.name.split(".")[0], "input" if name == "self" else name,
                       i if method else i + 1, value)


def dispatch(op, inputs, params):
    """Run `op` on `inputs` (Tensors or Python numbers) and `params`; record a node when
    grad mode is on and some input requires grad."""
    if FORWARD_AD is not None:
        return FORWARD_AD(op, inputs, params)
    if VMAP is not None:
        return VMAP(op, inputs, params)
    arrays = []
    needs_grad = False
    first = None
    mixed = False
    number_category = -1
    for x in inputs:
        if isinstance(x, Tensor):
            a = x._data
            arrays.append(a)
            if x._requires_grad:
                needs_grad = True
            if first is None:
                first = a.dtype
            elif a.dtype is not first:
                mixed = True
        elif x is None:
            if len(arrays) not in op.optional_inputs:
                raise _argument_error(op, len(arrays), None)
            arrays.append(x)
        elif op.number_inputs:
            c = _NUMBER_CATEGORY.get(type(x), 9)    # 9: not a plain number, promote fully
            if c == 9:
                if isinstance(x, np.generic):
                    # PyTorch reads a NumPy scalar as the Python number it converts to
                    from .._creation import python_numbers
                    return dispatch(op, python_numbers(inputs), params)
                if type(x) is not _ndarray:     # (an array: from chainrule's own code)
                    raise _argument_error(op, len(arrays), x)   # a str, a list
            arrays.append(x)
            if c > number_category:
                number_category = c
        else:
            raise _argument_error(op, len(arrays), x)
    if first is not None and first.kind in "iu" and op.name in _WRAPPED_INTS and (
            number_category == 1 or any(type(params[i]) is int for i in _WRAPPED_INTS[op.name])):
        # (only with a Python int to wrap: the result type of uint16 and bool is itself an
        # error, which must not come before the op's own checks)
        arrays, params = wrap_ints(op, arrays, params, _dtype.result_type(
            [x for x in inputs if isinstance(x, Tensor)]).np if mixed else first)
    forward = op.forward
    if first is not None and (first in _SPECIAL_NP or mixed and _special.involved(arrays)):
        # bfloat16, float8, complex32, uint16/32/64: Note [Reduced and limited dtypes]
        arrays, forward = _special.prepare(op, inputs, arrays, params)
    elif first is _F16 and op.name in _HALF_OPMATH and (
            prepared := half_opmath(op, inputs, arrays, forward)) is not None:
        arrays, forward = prepared
    elif op.promote is not NONE and _needs_promotion(op, first, mixed, number_category):
        arrays = _promote(op, inputs, arrays, params)
        if _special.involved(arrays):
            # promoted into a special dtype (a complex 0-d with half tensors: complex32)
            arrays, forward = _special.prepare(op, inputs, arrays, params)
    try:
        if _errors_get() is _QUIET:     # Note [NumPy warnings]
            out = forward(arrays, *params) if op.list_input else forward(*arrays, *params)
        else:
            out = (_quietly(forward, arrays, *params) if op.list_input
                   else _quietly(forward, *arrays, *params))
    except ValueError as e:
        if "broadcast" in str(e):      # NumPy's; an op's own ValueErrors are PyTorch's
            check_broadcast(arrays)
        raise
    except NotImplementedError:     # a kernel refusing a dtype
        if op.broadcasts:
            check_broadcast(arrays)
        raise
    if op.n_outputs == 1:
        if type(out) is not _ndarray:
            out = _asarray(out)
        if not needs_grad or not _state.grad_enabled or op.node_cls is None:
            result = make_tensor(out)
            if op.view:
                _make_view(result, inputs[0], op)
            elif needs_grad and op.node_cls is not None:    # made under no_grad
                result._fn_version = MADE_WITHOUT_GRAD
            return result
        if out.dtype.kind not in "fV":
            _check_recordable(op, out.dtype)
        return _record(op, inputs, params, (out,))[0]
    out = tuple(o if type(o) is _ndarray else _asarray(o) for o in out)
    if not needs_grad or not _state.grad_enabled or op.node_cls is None:
        results = tuple(make_tensor(o) for o in out)
        if op.view:
            for r in results:
                _make_view(r, inputs[0], op)
        elif needs_grad and op.node_cls is not None:
            for r in results:
                r._fn_version = MADE_WITHOUT_GRAD
    else:
        if op.refuses_complex_autograd:
            for o in out:
                _check_recordable(op, o.dtype)
        results = _record(op, inputs, params, out)
    if op.n_outputs == -1:
        return tuple(results)
    return return_types[op.name](*results)


# Note [Complex autograd]
# PyTorch differentiates complex outputs only of the ops on its list of those supporting
# complex autograd; the others refuse to record (after computing, so their own checks come
# first). These are the ops chainrule has that PyTorch leaves off that list.
_NO_COMPLEX_AUTOGRAD = frozenset((
    "_adaptive_avg_pool2d", "_log_softmax", "_pack_padded_sequence", "_softmax", "_trilinear",
    "amax", "amin", "binary_cross_entropy_with_logits", "conv_tbc", "convolution", "cummax",
    "cummin", "embedding", "fractional_max_pool2d", "fractional_max_pool3d", "geqrf",
    "grid_sampler_2d", "index_reduce", "median", "mode", "nan_to_num", "nanmedian",
    "native_dropout", "scatter_reduce", "select_copy", "select_scatter", "silu", "slice_copy",
    "slice_inverse", "slice_scatter", "soft_margin_loss"))


# rows whose kernel expands a 0-d self to the result's shape before promoting (addr)
_EXPANDS_SELF = frozenset(("addr",))


# rows whose promotion does not tell whether they broadcast their inputs element-wise
_BROADCASTS = {"addr": False, "clamp.Tensor": True, "clamp_min.Tensor": True,
               "clamp_max.Tensor": True, "dist": True}


def _check_recordable(op, dtype):
    """Refuse, as PyTorch, to record a node for a result of `dtype` (not a float)."""
    if dtype.kind not in _DIFFERENTIABLE_KINDS:
        # an integer or bool result cannot carry a gradient (casts record no node); rows of
        # in-place ops (eq_) run out of place only inside forward AD, which wants no error
        if op.n_outputs == 1 and not op.name.split(".")[0].endswith("_"):
            raise RuntimeError(f"Autograd not support dtype: {FROM_NP[dtype].legacy}")
    elif op.refuses_complex_autograd and (dtype.kind == "c" or FROM_NP[dtype].is_complex):
        raise RuntimeError(f"{op.name.split('.')[0]} does not support automatic "
                           "differentiation for outputs with complex dtype.")


def check_broadcast(arrays):
    """Raise PyTorch's error when array operands cannot broadcast (NumPy says ValueError);
    else their broadcast shape (None without arrays)."""
    shape = None
    for a in arrays:
        if type(a) is not _ndarray:
            continue
        if shape is None:
            shape = a.shape
            continue
        b = a.shape
        n = max(len(shape), len(b))
        pa, pb = (1,) * (n - len(shape)) + shape, (1,) * (n - len(b)) + b
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor "
                                   f"b ({pb[i]}) at non-singleton dimension {i}")
        shape = tuple(y if x == 1 else x for x, y in zip(pa, pb))   # 1 against 0 is 0
    return shape


def _make_view(result, base, op=None):
    """Make `result` a view of `base`: shared version counter, `_base` the root tensor, and
    PyTorch's CreationMeta when not the default (see ops/views.py). `op`, when given, tells
    whether the op returns several views; recorded outputs tell it by their node."""
    result._vc = base._vc
    result._fn_version = base._vc[0]
    root = base._base
    result._base = base if root is None else root
    fn = result._grad_fn
    row = op if fn is None else fn._op
    multi = row is not None and row.n_outputs == -1
    if multi or not _state.grad_enabled or (
            root is not None and base._extra is not None and base._extra.view_info is not None):
        meta = _views.creation_meta(base, multi)
        if meta is not None:
            result._extra = _SharedExtra.with_view_info(meta)


# Note [Objects per node]
# CPython's cyclic collector walks every object it tracks in each full pass, and those passes
# come more often the more tracked objects survive: a graph of tiny ops under construction
# is mostly what it walks (measured on a 100,000-op chain: most of the forward's time with
# eleven tracked objects per step). So a recorded node leaves as few as it can: the node, its
# tuple of next nodes (input numbers apart, Note [Edges]), and what it saves; the shapes
# and dtypes a gradient must match are shared between nodes with equal ones.
_METAS = {}      # (shape, dtype) -> the one-output _meta tuple for it, shared


def _record(op, inputs, params, outs, inplace=False):
    """Build the node for one forward call and wire it into the graph (`inplace`: for an
    in-place op, whose output is self and takes the node whatever its dtype)."""
    cls = op.node_cls
    node = cls.__new__(cls)
    node._seq = next(_sequence)
    node._hooks = None
    fns = []
    nrs = 0          # the input numbers, as a list once one is not 0 (Note [Edges])
    key = 0          # bit i set: input i needs a gradient (selects the save plan)
    i = 0
    edge_mask = None if op.all_edges else op.edge_mask
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            key |= 1 << i
            if edge_mask is None or edge_mask[i]:
                fn = x._grad_fn if x._base is None else refresh_view_history(x)
                if fn is None:
                    fns.append(accumulator_of(x))
                    if nrs:
                        nrs.append(0)
                else:
                    fns.append(fn)
                    nr = x._output_nr
                    if nrs:
                        nrs.append(nr)
                    elif nr:
                        nrs = [0] * (len(fns) - 1) + [nr]
        elif edge_mask is None or edge_mask[i]:
            fns.append(None)
            if nrs:
                nrs.append(0)
        i += 1
    node._fns = tuple(fns)
    node._nrs = tuple(nrs) if nrs else (_ZERO_NRS[len(fns)] if len(fns) < 9 else (0,) * len(fns))
    # Only floating and complex outputs are differentiable (x.int() gets no grad_fn).
    if len(outs) == 1 and op.differentiable_outputs is None:
        o = outs[0]
        results = (make_tensor(o, True, node, 0)
                   if inplace or o.dtype.kind in _DIFFERENTIABLE_KINDS else make_tensor(o),)
        k = (o.shape, o.dtype)
        meta = _METAS.get(k)
        node._meta = meta if meta is not None else _shared_meta(k)
    else:
        diff = op.differentiable_outputs
        results = tuple(make_tensor(o, True, node, i)
                        if (diff is None or i in diff) and o.dtype.kind in _DIFFERENTIABLE_KINDS
                        else make_tensor(o) for i, o in enumerate(outs))
        node._meta = tuple((o.shape, o.dtype) for o in outs)
    if op.view:
        for r in results:
            _make_view(r, inputs[0])
    saver = op._savers.get(key)
    if saver is None:
        saver = op._savers[key] = _compile_saver(op.saves_for(key))
    if HOOKED:     # one test per node while no saved-tensor hooks are set
        plan = op.saves_for(key)
        node._saved = (_save(plan, inputs, params, results, current_hooks()) if plan
                       else _NOTHING_SAVED)
    else:
        node._saved = saver(inputs, params, results)
    if _anomaly.enabled:
        import traceback
        node._node_hooks().metadata["traceback_"] = traceback.format_stack()[:-3]
    return results


def _nothing_saved(inputs, params, results):
    return _NOTHING_SAVED


def _element_strides(a):
    """An array's strides in elements, as PyTorch's sym_strides."""
    size = a.itemsize
    return tuple(s // size for s in a.strides)


def _compile_saver(plan):
    """`save(inputs, params, results)`: what _save returns for `plan` without saved-tensor
    hooks, written out once per save plan (a recorded op runs one)."""
    if not plan:
        return _nothing_saved
    if any(kind is _LIST or kind is _LIST_SHAPES for _, kind, _ in plan):
        return lambda inputs, params, results: _save(plan, inputs, params, results, None)
    lines = ["def save(inputs, params, results):"]
    entries = []
    for n, (name, kind, i) in enumerate(plan):
        v = f"v{n}"
        if kind is _INPUT:
            lines += [f"    x = inputs[{i}]",
                      f"    if isinstance(x, Tensor):",
                      f"        if x._extra is not None and x._extra.inference:",
                      f"            raise RuntimeError(INFERENCE_SAVE)",
                      f"        {v} = new(SavedInput)",
                      f"        {v}.t = x",
                      f"        {v}.version = x._vc[0]",
                      f"        {v}.leaf = x._grad_fn is None",
                      f"    else:",
                      f"        {v} = x"]
        elif kind is _PARAM:
            lines.append(f"    {v} = params[{i}]")
        elif kind is _OUTPUT:
            lines += [f"    r = results[{i}]",
                      f"    {v} = new(SavedOutput)",
                      f"    {v}.data = r._data",
                      f"    {v}.vc = vc = r._vc",
                      f"    {v}.version = vc[0]",
                      f"    {v}.output_nr = r._output_nr",
                      f"    {v}.requires_grad = r._requires_grad"]
        elif kind is _STRIDES:
            lines += [f"    x = inputs[{i}]",
                      f"    {v} = strides(x._data) if isinstance(x, Tensor) else ()"]
        elif kind is _DTYPE:
            lines += [f"    x = inputs[{i}]",
                      f"    {v} = FROM_NP[x._data.dtype] if isinstance(x, Tensor) else None"]
        else:   # _SHAPE
            lines += [f"    x = inputs[{i}]",
                      f"    {v} = x._data.shape if isinstance(x, Tensor) else ()"]
        entries.append(f"{name!r}: {v}")
    lines.append("    return {" + ", ".join(entries) + "}")
    ns = {"Tensor": Tensor, "new": object.__new__, "SavedInput": SavedInput,
          "SavedOutput": SavedOutput, "INFERENCE_SAVE": _INFERENCE_SAVE,
          "strides": _element_strides, "FROM_NP": FROM_NP}
    exec("\n".join(lines) + "\n", ns)
    return ns["save"]


def _save(plan, inputs, params, results, hooks):
    """What a node keeps for its formulas, following the op's save plan; tensors go
    through `hooks` (pack, unpack) when saved-tensor hooks are set."""
    saved = {}
    for name, kind, i in plan:
        if kind is _INPUT:
            x = inputs[i]
            if isinstance(x, Tensor):
                if x._extra is not None and x._extra.inference:
                    raise RuntimeError(_INFERENCE_SAVE)
                saved[name] = SavedInput(x)
            else:
                saved[name] = x
        elif kind is _PARAM:
            saved[name] = params[i]
        elif kind is _OUTPUT:
            saved[name] = SavedOutput(results[i])
        elif kind is _SHAPE:
            x = inputs[i]
            saved[name] = x._data.shape if isinstance(x, Tensor) else ()
        elif kind is _STRIDES:
            x = inputs[i]
            saved[name] = _element_strides(x._data) if isinstance(x, Tensor) else ()
        elif kind is _DTYPE:
            x = inputs[i]
            saved[name] = FROM_NP[x._data.dtype] if isinstance(x, Tensor) else None
        elif kind is _LIST:
            saved[name] = _SavedList(SavedInput(x) for x in inputs)
        else:
            saved[name] = [x._data.shape for x in inputs]
    if hooks is not None:
        _pack(saved, plan, results, hooks)
    return saved


def _pack(saved, plan, results, hooks):
    """Under saved-tensor hooks, every tensor a node saved goes through pack, in PyTorch's
    order: tensor arguments by name (a non-differentiable one, like gather's index, too),
    then outputs (see Note [Saved-tensor hooks] in autograd/graph.py)."""
    for name, kind, i in sorted(plan, key=lambda p: (p[1] is _OUTPUT, p[0])):
        value = saved[name]
        if kind is _OUTPUT:
            saved[name] = SavedHooked(results[i], hooks, True)
        elif type(value) is SavedInput or kind is _PARAM and isinstance(value, Tensor):
            saved[name] = SavedHooked(value.t if type(value) is SavedInput else value, hooks,
                                      False)
        elif kind is _LIST:
            saved[name] = _SavedList(SavedHooked(v.t, hooks, False) for v in value)
        elif kind is _PARAM and type(value) is tuple and any(
                isinstance(v, Tensor) for v in value):
            saved[name] = _SavedTensors(SavedHooked(v, hooks, False) if isinstance(v, Tensor)
                                        else v for v in value)


_INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")


# ---- declaring ops ------------------------------------------------------------------------

def op(name, node_name, signature, forward, *, promote=NONE, promote_with=(), returns=None,
       differentiable_outputs=None, view=False, numbers=False, function=None, method=None,
       dunders=(), rdunders=(), idunders=(), inplace=None, list_input=False, inputs=None,
       inplace_ufunc=None, out=True, out_name=None, optional=(), **formulas):
    """Declare one op (see the module docstring). Returns the generated public function.

    signature: the Python signature, tensor inputs first, then parameters, e.g.
        "self, other, *, alpha=1". The tensor inputs are the leading names given a formula
        (None for a tensor input that is not differentiable, like where's condition);
        `numbers` lets them be Python numbers too.
    function/method: public names (default: `name` for both; False to skip).
    promote: NONE; PROMOTE (PyTorch's result type over the inputs and the number params
        named in promote_with); FLOAT (integer input becomes the default float dtype);
        PROMOTE_FLOAT (both).
    dunders / rdunders: operator methods calling the op as (self, other) / (other, self);
        idunders: augmented assignments (`+=`), which call the in-place variant.
    inplace: name of the generated in-place method (e.g. "add_").
    inputs: names of the tensor inputs, when they are not simply the leading parameters
        (index_add(self, dim, index, source)); the forward then takes the input arrays
        first, then the other parameters in signature order.
    inplace_ufunc: (ufunc, params) when the forward is that single NumPy ufunc for those
        params; the in-place variant then writes into self directly (inplace.py, Note
        [In-place ufuncs]).
    list_input: the first parameter is a list of tensors (cat, stack); its formula returns
        one gradient per element, `<name>` reads the list, `<name>_shape` their shapes.
    returns: output names for a namedtuple result, or `list` for any number of outputs.
    out: the dtype rule of the public function's `out=` (Note [out=]): True (CAST: the
        result is cast to out's dtype where can_cast allows), EXACT or SAME_DTYPE (out's
        dtype must equal the result's, in the words of most non-elementwise ops / of
        unary ops), a rule made by out_cast / out_exact with the op's own message, out_as_dtype,
        a tuple of rules (one per output), or False (torch's function takes no out=).
        Views and list results never take out=. out_name: the op its out= messages name,
        when not this one (PyTorch's diag reports aten::diagonal_copy).
    optional: the inputs that may be None besides those with a default (PyTorch's `Tensor?`
        before required parameters, convolution's bias); None for any other input is the
        parser's TypeError.
    """
    params_sig = inspect.signature(eval(f"lambda {signature}: None"))
    names = list(params_sig.parameters)
    if inputs is None:
        n_inputs = _count_inputs(names, formulas, params_sig)
        inputs, params = tuple(names[:n_inputs]), tuple(names[n_inputs:])
    else:
        inputs = tuple(inputs)
        params = tuple(n for n in names if n not in inputs)
    if returns is not None and returns is not list:
        # overloads (sort, sort.stable) share their structseq, as PyTorch's do
        base = name.split(".")[0]
        rt = return_types.get(base)
        if rt is None or rt._fields != tuple(returns):
            rt = _structseq(base, returns)
        return_types.setdefault(base, rt)
        return_types[name] = rt
    row = Op(name, node_name, inputs, params, forward, formulas, promote, returns,
             None if differentiable_outputs is None else frozenset(differentiable_outputs),
             view, numbers, promote_with, list_input, inplace_ufunc)
    row.optional_inputs = frozenset(
        i for i, n in enumerate(inputs)
        if n in optional or params_sig.parameters[n].default is not inspect.Parameter.empty)
    if name in OPS:
        raise ValueError(f"op {name} declared twice")
    OPS[name] = row
    fn = _make_wrapper(row, signature, names)
    fn.op = row
    public_name = name.split(".")[0]
    if function is not False:
        row.out = False if view or returns is list else out
        row.out_name = out_name or public_name
        public_fn = _make_wrapper(row, signature, names, with_out=True) if row.out else fn
        public_fn.op = row
        for n in _names(function, public_name):
            FUNCTIONS[n] = public_fn
        if public_fn is not fn and method is not False:
            # (fn is also what hand-written code calls, but never with a wrong argument)
            row.method_code = fn.__code__
    if method is not False:
        for n in _names(method, public_name):
            setattr(Tensor, n, fn)
    for d in dunders:
        setattr(Tensor, d, _operator(row, fn, False, _EQ_OPERANDS if d == "__eq__" else _OPERANDS))
    for d in rdunders:
        setattr(Tensor, d, _operator(row, fn, True))
    if inplace:
        from .inplace import make_inplace
        inplace_fn = make_inplace(row, signature, names)
        setattr(Tensor, inplace, inplace_fn)
        for d in idunders:
            setattr(Tensor, d, _binary_dunder(inplace_fn))
    return fn


def _structseq(name, fields):
    """A torch.return_types structseq: a tuple with named fields, printed one per line."""
    rt = namedtuple(name, fields)
    rt.__module__ = "torch.return_types"
    rt.__reduce__ = _reduce_structseq    # pickled by name through chainrule.return_types
    rt.__repr__ = lambda self: f"torch.return_types.{type(self).__name__}(\n" + ",\n".join(
        f"{field}={value!r}" for field, value in zip(self._fields, self)) + ")"
    return rt


def _reduce_structseq(self):
    from ..return_types import _rebuild
    return _rebuild, (type(self).__name__, tuple(self))


def _names(spec, default):
    if spec is None:
        return (default,)
    return (spec,) if isinstance(spec, str) else tuple(spec)


def _count_inputs(names, formulas, sig):
    # Tensor inputs are the leading parameters before the first one without a formula
    # that is not declared tensor-like; rows with non-differentiable tensor inputs list
    # them in formulas with None.
    n = 0
    for nm in names:
        p = sig.parameters[nm]
        if nm in formulas and p.kind == p.POSITIONAL_OR_KEYWORD:
            n += 1
        else:
            break
    return n


def _make_wrapper(row, signature, names, with_out=False):
    if names and names[0] == "self":
        # PyTorch's functions call their first argument `input` (torch.cumsum(input=x, ...));
        # as a method it is bound positionally, so one name serves both.
        signature = "input" + signature[4:]
        rename = {"self": "input"}
    else:
        rename = {}
    return generate(row.name.split(".")[0], signature, row, dispatch, rename, with_out)


_GENERATED = []   # (namespace, key, dispatcher) of every generated function: see intercept()

# Note [Plain calls]
# Most calls are plain: tensors of one dtype, float32 or float64, maybe with a Python int or
# float, no forward AD, vmap, autocast or profiler. For those, dispatch's general work
# (promotion, reduced dtypes, integer wrapping, NumPy scalars) does nothing, so each generated
# function of a one-output row of one or two inputs starts with a straight path, written
# out for that row, that runs the forward and records the node; anything else goes to
# `dispatcher` as before. Both give the same results: the straight path only skips steps
# that are no-ops for such inputs.
_PLAIN_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _quiet(statement, indent):
    """Source lines running `statement` with NumPy's warnings off, in the order of Note
    [NumPy warnings] (_errstate.quietly), for the straight paths."""
    pad = " " * indent
    return [pad + line for line in (
        "prev_ = errors_get_()",
        "if prev_ is QUIET_:",
        f"    {statement}",
        "else:",
        "    try:",
        "        errors_set_(QUIET_)",
        f"        {statement}",
        "    finally:",
        "        errors_set_(prev_)")]


def _plain_path(row, ins, params, indent):
    """The source of the straight path of Note [Plain calls] for `row` called with the input
    variables `ins` and the params tuple expression `params`; "" if the row has none.
    The generated code's own locals end in `_`, so they cannot shadow an argument."""
    if (row.list_input or row.n_outputs != 1 or row.promote_with or not 1 <= len(ins) <= 2
            or row.view and len(ins) != 1):
        return ""
    number = "(type({0}) is float or type({0}) is int)"
    if len(ins) == 1:
        (x,) = ins
        lines = [f"if isinstance({x}, Tensor_) and {x}._data.dtype in PLAIN_DTYPES_:",
                 f"    arrays_ = ({x}._data,)",
                 f"    g0_ = {x}._requires_grad"]
        grads = "g0_"
    else:
        x, y = ins
        lines = [f"if isinstance({x}, Tensor_):",
                 f"    if isinstance({y}, Tensor_):",
                 f"        plain_ = {x}._data.dtype in PLAIN_DTYPES_ and "
                 f"{y}._data.dtype is {x}._data.dtype",
                 f"        g0_ = {x}._requires_grad",
                 f"        g1_ = {y}._requires_grad",
                 f"        arrays_ = ({x}._data, {y}._data)"]
        if row.number_inputs:
            lines += [f"    else:",
                      f"        plain_ = {number.format(y)} and {x}._data.dtype in PLAIN_DTYPES_",
                      f"        g0_ = {x}._requires_grad",
                      f"        g1_ = False",
                      f"        arrays_ = ({x}._data, {y})",
                      f"elif {number.format(x)} and isinstance({y}, Tensor_):",
                      f"    plain_ = {y}._data.dtype in PLAIN_DTYPES_",
                      f"    g0_ = False",
                      f"    g1_ = {y}._requires_grad",
                      f"    arrays_ = ({x}, {y}._data)"]
        else:
            lines += [f"    else:",
                      f"        plain_ = False"]
        lines += [f"else:",
                  f"    plain_ = False",
                  f"if plain_:"]
        grads = "g0_ or g1_"
    call = "forward_(*arrays_, *params_)" if params != "()" else "forward_(*arrays_)"
    lines += [f"    params_ = {params}"]
    if row.view:
        # a view of its one input: no arithmetic, so no NumPy warnings to silence and no
        # operands to broadcast; _record and _make_view know views
        lines += [f"    out_ = {call}",
                  f"    if type(out_) is not ndarray_:",
                  f"        out_ = asarray_(out_)",
                  f"    if g0_ and grad_state_.grad_enabled and node_cls_ is not None:",
                  f"        return record_(row, ({ins[0]},), params_, (out_,))[0]",
                  f"    result_ = make_tensor_(out_)",
                  f"    make_view_(result_, {ins[0]}, row)",
                  f"    return result_"]
    else:
        lines += ["    try:"] + _quiet(f"out_ = {call}", 8) + [
            f"    except ValueError as e_:",
            f"        if 'broadcast' in str(e_):",
            f"            check_broadcast_(arrays_)",
            f"        raise"]
        if row.broadcasts:
            lines += [f"    except NotImplementedError:",
                      f"        check_broadcast_(arrays_)",
                      f"        raise"]
        lines += [f"    if type(out_) is not ndarray_:",
                  f"        out_ = asarray_(out_)"]
        if row.node_cls is not None:
            lines += [f"    if {grads}:",
                      f"        if not grad_state_.grad_enabled:",
                      f"            result_ = make_tensor_(out_)",
                      f"            result_._fn_version = MADE_WITHOUT_GRAD_",
                      f"            return result_"]
            lines += ["        " + line for line in _plain_record(row, ins)]
        lines += [f"    return make_tensor_(out_)"]
    pad = " " * indent
    return "".join(pad + line + "\n" for line in lines)


def _plain_record(row, ins):
    """The source recording the node of a plain call (what _record does, written out for
    `row`); inputs `ins`, their requires-grad flags g0_, g1_, the output array `out_`."""
    tensors = f"({', '.join(ins)}{',' if len(ins) == 1 else ''})"
    if row.differentiable_outputs is not None:
        return [f"return record_(row, {tensors}, params_, (out_,))[0]"]
    lines = ["if HOOKED_ or anomaly_.enabled:",
             f"    return record_(row, {tensors}, params_, (out_,))[0]",
             "node_ = new_(node_cls_)",
             "node_._seq = next(sequence_)",
             "node_._hooks = None"]
    edges, nrs = [], []
    for i, x in enumerate(ins):
        if not row.edge_mask[i]:
            continue
        lines += [f"if g{i}_:",
                  f"    fn_ = {x}._grad_fn if {x}._base is None else refresh_view_history_({x})",
                  f"    if fn_ is None:",
                  f"        e{i}_ = accumulator_of_({x})",
                  f"        n{i}_ = 0",
                  f"    else:",
                  f"        e{i}_ = fn_",
                  f"        n{i}_ = {x}._output_nr",
                  f"else:",
                  f"    e{i}_ = None",
                  f"    n{i}_ = 0"]
        edges.append(f"e{i}_")
        nrs.append(f"n{i}_")
    lines += [f"node_._fns = ({', '.join(edges)},)",
              f"node_._nrs = (ZERO_NRS_[{len(edges)}] if not ({' or '.join(nrs)})"
              f" else ({', '.join(nrs)},))",
              "result_ = (make_tensor_(out_, True, node_, 0) if out_.dtype.kind in DIFFERENTIABLE_"
              " else make_tensor_(out_))",
              "k_ = (out_.shape, out_.dtype)",
              "meta_ = METAS_.get(k_)",
              "node_._meta = meta_ if meta_ is not None else shared_meta_(k_)",
              "key_ = " + " | ".join(f"(g{i}_ and {1 << i})" for i in range(len(ins))),
              "saver_ = savers_.get(key_)",
              "if saver_ is None:",
              "    saver_ = savers_[key_] = compile_saver_(row.saves_for(key_))",
              f"node_._saved = saver_({tensors}, params_, (result_,))",
              "return result_"]
    return lines


def _shared_meta(k):
    """The shared one-output _meta for (shape, dtype) `k` (Note [Objects per node])."""
    if len(_METAS) > 4096:
        _METAS.clear()
    meta = _METAS[k] = (k,)
    return meta


def _plain_namespace(row):
    return {"Tensor_": Tensor, "PLAIN_DTYPES_": _PLAIN_DTYPES, "errors_get_": _errors_get,
            "errors_set_": _errors_set, "QUIET_": _QUIET, "check_broadcast_": check_broadcast,
            "ndarray_": _ndarray, "asarray_": _asarray, "grad_state_": _state,
            "record_": _record, "make_tensor_": make_tensor,
            "MADE_WITHOUT_GRAD_": MADE_WITHOUT_GRAD, "forward_": row.forward,
            "registry_": sys.modules[__name__],
            "HOOKED_": HOOKED, "anomaly_": _anomaly, "new_": object.__new__,
            "node_cls_": row.node_cls, "sequence_": _sequence,
            "refresh_view_history_": refresh_view_history, "accumulator_of_": accumulator_of,
            "ZERO_NRS_": _ZERO_NRS, "DIFFERENTIABLE_": _DIFFERENTIABLE_KINDS, "METAS_": _METAS,
            "shared_meta_": _shared_meta, "savers_": row._savers, "make_view_": _make_view,
            "compile_saver_": _compile_saver}


def _plain_guard(dispatcher_name):
    """The straight path's guard: no forward AD or vmap, and the namespace's dispatcher not
    wrapped (intercept(), checkpoint's debug log: they must see every call)."""
    return (f"registry_.FORWARD_AD is None and registry_.VMAP is None and "
            f"{dispatcher_name} is unwrapped_")


def _plain_inplace_path(row, ins, params):
    """The straight path of Note [Plain calls] for the in-place variant of a row with an
    in-place ufunc (Note [In-place ufuncs] in inplace.py) when nothing is recorded: an
    optimizer's `p.sub_(lr * g)` or `p -= ...` under no_grad. It writes into self's array as
    dispatch_inplace would, and leaves everything else (recording, views, inference tensors,
    overlap, casts, errors) to it."""
    if row.inplace_ufunc is None or len(ins) != 2:
        return _plain_inplace_forward_path(row, ins, params)
    x, y = ins
    # add_ / sub_ with an alpha: self op= other * alpha, other's product rounded first, as
    # their forward (_times_alpha) computes it; the optimizers' `p.add_(d_p, alpha=-lr)`
    scaled = row.params == ("alpha",) and row.inplace_ufunc_params == (1,)
    if scaled:
        params_test = "(type(alpha) is float or type(alpha) is int)"
        operand = "other_ if alpha == 1 else multiply_(other_, target_.dtype.type(alpha))"
    else:
        params_test = f"{params} == UFUNC_PARAMS_"
        operand = "other_"
    lines = [f"if (isinstance({x}, Tensor_) and {x}._extra is None and {x}._base is None",
             f"        and {params_test} and inplace_.MUTATION_HOOK is None):",
             f"    target_ = {x}._data",
             f"    if isinstance({y}, Tensor_):",
             f"        other_ = {y}._data",
             f"        plain_ = other_.dtype is target_.dtype",
             f"        records_ = {x}._requires_grad or {y}._requires_grad"]
    if row.number_inputs:
        lines += [f"    else:",
                  f"        other_ = {y}",
                  f"        plain_ = (type(other_) is float or type(other_) is int)"
                  + (" and alpha == 1" if scaled else ""),
                  f"        records_ = {x}._requires_grad"]
    else:
        lines += [f"    else:",
                  f"        plain_ = records_ = False"]
    lines += [
        f"    if (plain_ and target_.dtype in PLAIN_DTYPES_",
        f"            and not (records_ and grad_state_.grad_enabled)",
        f"            and target_.flags.writeable and 0 not in target_.strides):",
        f"        try:"] + _quiet(f"ufunc_(target_, {operand}, target_)", 12) + [
        f"        except ValueError:",
        f"            pass      # does not broadcast into self: dispatch raises PyTorch's error",
        f"        else:",
        f"            {x}._vc[0] += 1",
        f"            return {x}"]
    return "".join("        " + line + "\n" for line in lines)


def _plain_inplace_forward_path(row, ins, params):
    """The straight path of an in-place variant without an in-place ufunc (zero_, copy_,
    clamp_, ...) when nothing is recorded: the row's forward, written into self when its
    result has self's dtype and shape, as dispatch_inplace would; anything else (casts,
    broadcasting errors, recording, views) goes to dispatch_inplace."""
    if row.list_input or row.n_outputs != 1 or row.view or not 1 <= len(ins) <= 2:
        return ""
    x = ins[0]
    lines = [f"if (isinstance({x}, Tensor_) and {x}._extra is None and {x}._base is None",
             f"        and inplace_.MUTATION_HOOK is None):",
             f"    target_ = {x}._data",
             f"    records_ = {x}._requires_grad"]
    if len(ins) == 1:
        lines += [f"    arrays_ = (target_,)",
                  f"    plain_ = True"]
    else:
        y = ins[1]
        lines += [f"    if isinstance({y}, Tensor_):",
                  f"        arrays_ = (target_, {y}._data)",
                  f"        plain_ = {y}._data.dtype is target_.dtype",
                  f"        records_ = records_ or {y}._requires_grad"]
        if row.number_inputs:
            lines += [f"    else:",
                      f"        arrays_ = (target_, {y})",
                      f"        plain_ = type({y}) is float or type({y}) is int"]
        else:
            lines += [f"    else:",
                      f"        plain_ = False"]
    call = "forward_(*arrays_, *params_)" if params != "()" else "forward_(*arrays_)"
    lines += [
        f"    if (plain_ and target_.dtype in PLAIN_DTYPES_",
        f"            and not (records_ and grad_state_.grad_enabled)",
        f"            and target_.flags.writeable and 0 not in target_.strides):",
        f"        params_ = {params}",
        f"        try:"] + _quiet(f"out_ = {call}", 12) + [
        f"        except (ValueError, RuntimeError):",
        f"            out_ = None     # dispatch_inplace raises PyTorch's error",
        f"        if (type(out_) is ndarray_ and out_.dtype is target_.dtype",
        f"                and out_.shape == target_.shape):",
        f"            copyto_(target_, out_)",
        f"            {x}._vc[0] += 1",
        f"            return {x}"]
    return "".join("        " + line + "\n" for line in lines)


def generate(name, signature, row, dispatcher, rename=None, with_out=False, inplace=False):
    """A function `name(<signature>)` that calls `dispatcher(row, tensor inputs, params)`:
    a real signature (defaults, keywords, help()) and no argument parsing per call.
    with_out adds PyTorch's keyword `out=` (Note [out=]), one `is None` test when unused.
    Calls of the op's own dispatch, or of its in-place variant's (`inplace`), first try the
    straight path of Note [Plain calls]."""
    rename = rename or {}
    ins = tuple(rename.get(n, n) for n in row.inputs)
    ps = tuple(rename.get(n, n) for n in row.params)
    tensors = f"tuple({ins[0]})" if row.list_input else \
        f"({', '.join(ins)}{',' if len(ins) == 1 else ''})"
    params = f"({', '.join(ps)}{',' if len(ps) == 1 else ''})"
    if inplace:
        plain = _plain_inplace_path(row, ins, params)
    else:
        plain = _plain_path(row, ins, params, 8) if dispatcher is dispatch else ""
    if plain:
        plain = f"    if {_plain_guard('dispatcher')}:\n" + plain
    if with_out:
        signature += ", out=None" if "*" in signature else ", *, out=None"
        src = (f"def {name}({signature}):\n"
               f"    if out is None:\n"
               + plain.replace("\n    ", "\n        ").replace("    if", "        if", 1) +
               f"        return dispatcher(row, {tensors}, {params})\n"
               f"    return call_out(dispatcher, row, {tensors}, {params}, out)\n")
    else:
        src = (f"def {name}({signature}):\n" + plain +
               f"    return dispatcher(row, {tensors}, {params})\n")
    ns = _plain_namespace(row)
    ns.update({"dispatcher": dispatcher, "row": row, "call_out": call_out,
               "unwrapped_": dispatcher, "__name__": __name__})   # frames name a module
    if inplace:
        from . import inplace as inplace_module
        ns.update({"inplace_": inplace_module, "ufunc_": row.inplace_ufunc,
                   "UFUNC_PARAMS_": row.inplace_ufunc_params, "multiply_": np.multiply,
                   "copyto_": np.copyto})
    exec(src, ns)
    _GENERATED.append((ns, "dispatcher", dispatcher))
    return ns[name]


def intercept(hook):
    """Route every generated function, method and operator through
    `hook(call, row, inputs, params)`, which must return `call(row, inputs, params)`'s result
    (the profiler times ops this way); `intercept(None)` restores direct calls. The
    dispatcher is swapped in each function's namespace, so nothing is checked per call."""
    for ns, key, original in _GENERATED:
        ns[key] = original if hook is None else functools.partial(hook, original)


# ---- out= ---------------------------------------------------------------------------------
# Note [out=]
# `torch.add(x, y, out=r)` computes the result as usual and writes it into r, as PyTorch's
# out= variants do: no graph is recorded (an input or r requiring grad in grad mode is
# PyTorch's error), r's dtype must be one the result casts to (or equal it, for ops that
# say EXACT), r is resized when its shape differs (with PyTorch's deprecation warning unless
# it was empty), r must not partly overlap an input, and r's version counter is bumped.
# r itself is returned (a `<op>_out` structseq of the outs for several outputs).
# A hand-written public function gets the same behaviour from @out_variant.

def out_cast(message, error=RuntimeError):
    """An out= dtype rule: the result is cast to out's dtype where PyTorch's can_cast allows,
    else `error(message)`; the message may name {expected} and {got} ('Float') or
    {expected_cpp} and {got_cpp} ('float')."""
    def rule(expected, got):
        if not _dtype.can_cast(expected, got):
            return error(_dtype_message(message, expected, got))
    return rule


def out_exact(message, error=RuntimeError, overlap_ok=False):
    """An out= dtype rule: out's dtype must equal the result's, else `error(message)`.
    overlap_ok: the op writes an out whose elements alias each other (an expanded
    tensor) without complaint (tril does: it is not a TensorIterator kernel)."""
    def rule(expected, got):
        return error(_dtype_message(message, expected, got))
    rule.overlap_ok = overlap_ok
    return rule


def _dtype_message(message, expected, got):
    return message.format(expected=expected.legacy, got=got.legacy, expected_cpp=expected.cpp,
                          got_cpp=got.cpp)


def out_as_dtype(check=None):
    """An out= dtype rule for reductions whose out dtype is their computation's: called
    without `dtype`, they compute in out's (sum(x, 0, out=int_tensor) sums integers), as
    PyTorch does; `check(expected, got)` may still refuse some dtypes."""
    def rule(expected, got):
        return None if check is None else check(expected, got)
    rule.sets_dtype = True
    return rule


CAST = out_cast("result type {expected} can't be cast to the desired output type {got}")
EXACT = out_exact("Expected out tensor to have dtype {expected_cpp}, but got {got_cpp} instead")
SAME_DTYPE = out_exact("Found dtype {got} but expected {expected}")

_OUT_GRAD = ("{}(): functions with out=... arguments don't support automatic "
             "differentiation, but one of the arguments requires grad.")
_OUT_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation.")
_OUT_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to "
                         "tensor refers to a single memory location. Please clone() the tensor "
                         "before performing the operation.")
_OUT_RESIZED = (
    "An output with one or more elements was resized since it had shape {}, which does not "
    "match the required output shape {}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0).")


def call_out(dispatcher, row, inputs, params, out):
    """A row's public function called with out= (Note [out=])."""
    name = row.out_name
    check_out_kind(name, out)
    if FORWARD_AD is not None:
        _refuse_out(name + "_out", inputs)
    if getattr(row.out, "sets_dtype", False):
        i = row.params.index("dtype")
        if params[i] is None:
            params = params[:i] + (FROM_NP[out._data.dtype],) + params[i + 1:]
    result = dispatcher(row, inputs, params)
    if row.differentiable:
        check_out_grad(name, result, out)
    return write_out(name, result, out, row.out, inputs, stacklevel=4)


def _refuse_out(name, inputs, why=" because it is an out= function"):
    """PyTorch's refusal of out= under forward AD, when an input carries a tangent."""
    from ..autograd.forward_ad import get_tangent
    if any(get_tangent(x) is not None for x in _tensors_in(inputs)):
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not support "
                                  f"it{why}")


def _tensors_in(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if isinstance(x, Tensor))


def check_out_kind(name, out):
    for o in out if isinstance(out, (tuple, list)) else (out,):
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")


def check_out_grad(name, result, out):
    """PyTorch's refusal to record a graph through a differentiable op's out=: an input
    (then the result has history) or out requiring grad, in grad mode. Ops without a
    derivative (comparisons, argmax) write into out regardless."""
    if not _state.grad_enabled:
        return
    results = (result,) if isinstance(result, Tensor) else tuple(result)
    outs = (out,) if isinstance(out, Tensor) else tuple(out)
    if any(r._requires_grad for r in results) or any(
            o.requires_grad for o, r in zip(outs, results) if r._data.dtype.kind in "fc"):
        raise RuntimeError(_OUT_GRAD.format(name))


def write_out(name, result, out, rule=True, inputs=(), stacklevel=3):
    """Write `result` (a Tensor or a tuple of them) into `out` (Note [out=]); returns out.
    rule: as op()'s `out`; stacklevel: how many frames up the user's call is, for the
    resize warning."""
    if rule is True:
        rule = CAST
    if isinstance(result, Tensor):
        if isinstance(rule, tuple):     # max(x) returns one tensor where max(x, dim) two
            rule = rule[0]
        if isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        _write_one(result, out, rule, inputs, stacklevel + 1)
        return out
    if not isinstance(out, (tuple, list)) or len(out) != len(result):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    rules = rule if isinstance(rule, tuple) else (rule,) * len(result)
    for r, o, rl in zip(result, out, rules):
        _write_one(r, o, CAST if rl is True else rl, inputs, stacklevel + 1)
    fields = getattr(result, "_fields", None)
    if fields is None:
        return tuple(out)
    rt = return_types.get(name + "_out")
    if rt is None:
        rt = return_types[name + "_out"] = _structseq(name + "_out", fields)
    return rt(*out)


def _write_one(result, out, rule, inputs, stacklevel):
    src, dst = result._data, out._data
    if src.dtype != dst.dtype:
        error = rule(FROM_NP[src.dtype], FROM_NP[dst.dtype])
        if error is not None:
            raise error
    if 0 in dst.strides and dst.size > 1 and not getattr(rule, "overlap_ok", False) and any(
            st == 0 and n > 1 for st, n in zip(dst.strides, dst.shape)):
        raise RuntimeError(_OUT_INTERNAL_OVERLAP)
    for x in _tensors_in(inputs):
        a = x._data
        if a is dst or not np.may_share_memory(a, dst):
            continue
        same = (a.__array_interface__["data"][0] == dst.__array_interface__["data"][0]
                and a.strides == dst.strides and a.shape == dst.shape)
        if not same and _dense(a) and _dense(dst):
            raise RuntimeError(_OUT_OVERLAP)
    if dst.shape != src.shape:
        if dst.size:
            warnings.warn(_OUT_RESIZED.format(sizes_str(dst.shape), sizes_str(src.shape)),
                          UserWarning, stacklevel=stacklevel)
        if dst.size == src.size and dst.flags.c_contiguous:
            dst = dst.reshape(src.shape)      # same memory: views of out still see the result
        else:
            dst = np.empty(src.shape, dst.dtype)
        out._data = dst
    np.copyto(dst, src, casting="unsafe")
    out._vc[0] += 1


def _dense(a):
    return a.flags.c_contiguous or a.flags.f_contiguous


def out_variant(f, rule=True, name=None):
    """`f` with PyTorch's keyword `out=` (Note [out=]), for hand-written public functions;
    `rule` as op()'s `out`; `name` for messages (default f's). The wrapper's signature is
    f's plus `out=None`."""
    name = name or f.__name__

    @functools.wraps(f)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return f(*args, **kwargs)
        inputs = args + tuple(kwargs.values())
        check_out_kind(name, out)
        if FORWARD_AD is not None:
            _refuse_out(name + "_out", inputs)
        if getattr(rule, "sets_dtype", False) and kwargs.get("dtype") is None \
                and isinstance(out, Tensor):
            kwargs["dtype"] = FROM_NP[out._data.dtype]
        result = f(*args, **kwargs)
        check_out_grad(name, result, out)
        return write_out(name, result, out, rule, inputs)
    sig = inspect.signature(f)
    if "out" not in sig.parameters:
        params = list(sig.parameters.values())
        at = next((i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD), len(params))
        params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
        with_out.__signature__ = sig.replace(parameters=params)
    return with_out


# Concrete types first: an isinstance check against the numbers.Number ABC is 4x slower.
# NumPy arrays are refused (NotImplemented: NumPy then computes, and Tensor.__array_wrap__
# makes a tensor of its result), except by __eq__, as PyTorch's operators do.
_OPERANDS = (Tensor, float, int, numbers.Number, np.generic)
_EQ_OPERANDS = _OPERANDS + (np.ndarray,)


def _operator(row, fn, reflected, operands=_OPERANDS):
    """An operator method (`__mul__`, or `__rsub__` with reflected=True). It returns
    NotImplemented for operands it does not take, so Python can try the other side (and
    raise its usual TypeError). When the other parameters all have defaults it calls
    dispatch directly, saving a call on the hottest path."""
    defaults = inspect.signature(fn).parameters
    params = [defaults[n].default for n in ([p for p in defaults][len(row.inputs):])]
    if len(row.inputs) == 2 and not row.list_input and inspect.Parameter.empty not in params:
        args = "(other, self)" if reflected else "(self, other)"
        plain = _plain_path(row, args[1:-1].split(", "), "PARAMS", 8)
        src = (f"def operator(self, other):\n"
               + (f"    if {_plain_guard('dispatch')}:\n" + plain if plain else "") +
               f"    if not isinstance(other, OPERANDS):\n"
               f"        return NotImplemented\n"
               f"    return dispatch(row, {args}, PARAMS)\n")
        ns = _plain_namespace(row)
        ns.update({"dispatch": dispatch, "row": row, "OPERANDS": operands,
                   "PARAMS": tuple(params), "unwrapped_": dispatch, "__name__": __name__})
        exec(src, ns)
        _GENERATED.append((ns, "dispatch", dispatch))
        operator = ns["operator"]
    elif reflected:
        def operator(self, other):
            if not isinstance(other, operands):
                return NotImplemented
            return fn(_python_number(other), self)
    else:
        def operator(self, *other):
            if other and not isinstance(other[0], operands):
                return NotImplemented
            return fn(self, *map(_python_number, other))
    operator.__name__ = fn.__name__
    return operator


def _python_number(x):
    """A NumPy scalar operand as the Python number PyTorch reads it as."""
    if isinstance(x, np.generic):
        from .._creation import python_numbers
        return python_numbers((x,))[0]
    return x


# hand-written binary operators: NumPy arrays refused, NumPy scalars read as numbers
# (__rtruediv__ is not one: PyTorch's is reciprocal(self) * other, whose __mul__ refuses)
_BINARY_DUNDERS = frozenset(("__pow__", "__rpow__", "__ipow__", "__mod__", "__imod__",
                             "__ifloordiv__"))


def _binary_dunder(f):
    def dunder(self, other):
        if type(other) is not Tensor:
            if not isinstance(other, _OPERANDS):
                return NotImplemented
            other = _python_number(other)
        return f(self, other)
    dunder.__name__ = dunder.__qualname__ = f.__name__
    return dunder


def public(name=None, *, method=True, function=True, dunders=(), out=False, out_name=None):
    """Register a hand-written public function (one that picks among overload rows).
    out: the dtype rule of the function's `out=` as in op() (False: none; the method never
    takes it); out_name: the op its messages name, when not the function's own (square's
    are pow's)."""
    def deco(f):
        n = name or f.__name__
        if function:
            FUNCTIONS[n] = out_variant(f, out, out_name) if out else f
        if method:
            m = n if method is True else method
            setattr(Tensor, m, _binary_dunder(f) if m in _BINARY_DUNDERS else f)
        for d in dunders:
            setattr(Tensor, d, _binary_dunder(f) if d in _BINARY_DUNDERS else f)
        return f
    return deco


# last: special_dtypes reads this module's promotion constants, views declares rows
from . import special_dtypes as _special  # noqa: E402
from . import views as _views  # noqa: E402
