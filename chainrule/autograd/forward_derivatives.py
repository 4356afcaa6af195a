"""Forward derivatives of the op table: how an op computes its outputs' tangents.

Note [Forward derivatives]
While a dual level is active (forward_ad.py), dispatch hands every call to `dispatch` here.
It runs the op as usual (with forward AD off, so nothing inside recurses), and when an
input carries a tangent it gives the outputs theirs, the way derivatives.yaml's `result:`
formulas do. A row gets its forward derivative in one of three ways, tried in order:

- an explicit formula in FORWARD (the common ops, written for speed): one function per
  input, reading `<input>_t` (that input's tangent) and what backward formulas read
  (inputs, params, `result`, `<input>_shape`); the contributions of the inputs that have
  tangents are summed;
- LINEAR: the op is linear in its tensor inputs (views, reductions by sum, copies), so the
  tangent is the op applied to the tangents; views get views of the tangent, as PyTorch's;
- otherwise it is derived from the row's backward formulas (the transpose trick): they
  are linear in `grad`, computing v -> J^T v, so J t is the gradient with respect to a
  dummy `grad` g of <J^T g, t> = sum_i <formula_i(g), t_i> (real part of the conjugated
  product for complex tensors, PyTorch's convention for complex gradients).

Every tangent is computed with chainrule ops under the caller's grad mode, so tangents are
differentiable (reverse-over-forward), and backward formulas run with a level active
propagate tangents through themselves (forward-over-reverse).
"""
import inspect

import numpy as np

from .._tensor import Tensor, make_tensor
from ..ops import registry
from . import forward_ad, grad_mode

__all__ = ["dispatch", "FORWARD", "LINEAR", "ELEMENT_WISE", "rule_of", "unsupported",
           "function_jvp"]

_state = grad_mode.state
_store = forward_ad._tangents
_DIFFERENTIABLE_KINDS = "fcVW"


def dispatch(op, inputs, params, inplace=None):
    """registry.dispatch (or, given `inplace`, the in-place dispatcher) with a dual level
    active (Note [Forward derivatives])."""
    tangents = None
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            entry = _store.get(id(x))
            if entry is None and _saved_outputs and x._grad_fn is not None:
                entry = _saved_outputs.get((id(x._grad_fn), x._output_nr))
                if entry is not None and entry[0] is not x._data:
                    entry = None
            if entry is not None:
                if tangents is None:
                    tangents = [None] * len(inputs)
                tangents[i] = entry[1]
    registry.FORWARD_AD = None
    try:
        if tangents is None or not op.differentiable:
            if inplace is None:
                return registry.dispatch(op, inputs, params)
            out = inplace(op, inputs, params)
            if tangents is not None and tangents[0] is not None:
                # a comparison written into a dual tensor: its values no longer depend on it
                forward_ad.get_tangent(out).zero_()
            return out
        if inplace is not None:
            return _inplace(op, inputs, params, tangents, inplace)
        result = registry.dispatch(op, inputs, params)
        outs = (result,) if op.n_outputs == 1 else tuple(result)
        saves_result = _saves_result(op)
        for o, t in zip(outs, _tangents_of(op, inputs, params, outs, tangents)):
            if t is not None:
                forward_ad.set_tangent(o, t)
                if saves_result and o._grad_fn is not None:
                    _saved_outputs[(id(o._grad_fn), o._output_nr)] = (o._data, t, o._grad_fn)
        return result
    finally:
        registry.FORWARD_AD = dispatch


# Note [Tangents of saved outputs]
# A node rebuilds an output it saved as a new tensor over the same array (Note [Saved
# outputs] in graph.py), which the level's store does not know. Formulas running under
# the level (forward-over-reverse) need that output's tangent, as PyTorch's saved
# variables keep theirs: it is kept here by (node, output_nr), with the array to tell the
# rebuilt tensor from another output of the node; the node is held so its id stays unique
# until the level exits (forward_ad clears this with the store).
_saved_outputs = forward_ad._saved_outputs
_SAVES_RESULT = {}


def _saves_result(op):
    saves = _SAVES_RESULT.get(op.name)
    if saves is None:
        saves = _SAVES_RESULT[op.name] = any(
            n.startswith("result") for f in op.formulas if f is not None for n in f[1])
    return saves


def _inplace(op, inputs, params, tangents, inplace):
    # the tangent from the old values, computed out of place; then the write, whose
    # tangent lands in self's (in place when self has one: its views see it, as PyTorch's)
    self = inputs[0]
    out = registry.dispatch(op, inputs, params)
    tangent = _tangents_of(op, inputs, params, (out,), tangents)[0]
    inplace(op, inputs, params)
    if tangent is None:
        # a value that no longer varies with the inputs (a comparison written into self)
        tangent = self.new_zeros(self.shape)
    old = forward_ad.get_tangent(self)
    if old is None and self._base is not None:
        old = _view_tangent(self)
    if old is None or (old._requires_grad and old._grad_fn is None):
        forward_ad.set_tangent(self, tangent.to(self.dtype) if tangent.dtype != self.dtype
                               else tangent)
    else:
        old.copy_(tangent)
    return self


def _view_tangent(view):
    """A tangent for a view that has none: a view of its base's (zeros made for a base that
    has none), as PyTorch's forward grads of views are."""
    base = view._base
    bt = forward_ad.get_tangent(base)
    if bt is None:
        bt = base.new_empty_strided(base.shape, base.stride()).zero_()
        forward_ad.set_tangent(base, bt)
    vt = bt.as_strided(view.shape, view.stride(),
                       bt.storage_offset() + view.storage_offset() - base.storage_offset())
    forward_ad.set_tangent(view, vt)
    return vt


def _tangents_of(op, inputs, params, outs, tangents):
    """One tangent per output (None for outputs that are not differentiable)."""
    diff = op.differentiable_outputs
    wanted = [(diff is None or k in diff) and o._data.dtype.kind in _DIFFERENTIABLE_KINDS
              for k, o in enumerate(outs)]
    if not any(wanted):
        return [None] * len(outs)
    rule = rule_of(op)
    if rule is LINEAR:
        args = tuple(tangents[i] if tangents[i] is not None else
                     (x.new_zeros(x.shape) if isinstance(x, Tensor) and op.formulas[i] is not None
                      and not op.list_input else x)
                     for i, x in enumerate(inputs))
        if op.list_input:
            args = tuple(t if t is not None else x.new_zeros(x.shape)
                         for t, x in zip(tangents, inputs))
        got = registry.dispatch(op, args, params)
        got = (got,) if op.n_outputs == 1 else tuple(got)
    elif rule is ELEMENT_WISE and all(
            t is None or t._data.dtype.kind in _REAL for t in tangents) and all(
            o._data.dtype.kind in _REAL for o in outs):
        got = _substituted(op, inputs, params, outs, tangents)
    elif rule is not None and rule is not ELEMENT_WISE:
        got = _explicit(op, rule, inputs, params, outs, tangents)
    else:
        got = _transposed(op, inputs, params, outs, tangents, wanted)
    return [_fit(t, o) if w else None for t, o, w in zip(got, outs, wanted)]


def _fit(t, o):
    """Tangent `t` as output `o`'s: its shape and dtype (zeros where none came)."""
    if t is None:
        return o.new_zeros(o.shape)
    if not isinstance(t, Tensor):
        t = o.new_full(o.shape, t)
    if t._data.dtype.kind == "c" and o._data.dtype.kind != "c":
        t = t.real
    if t._data.shape != o._data.shape:
        t = t.expand(o.shape).clone()
    if t._data.dtype != o._data.dtype:
        t = t.to(o.dtype)
    return t


def _env(op, inputs, params, outs):
    env = dict(zip(op.params, params))
    if op.list_input:
        name = op.inputs[0]
        env[name] = list(inputs)
        env[name + "_shape"] = [x._data.shape for x in inputs]
    else:
        for name, x in zip(op.inputs, inputs):
            env[name] = x
            env[name + "_shape"] = x._data.shape if isinstance(x, Tensor) else ()
    env["result"] = outs[0]
    for k, o in enumerate(outs):
        env[f"result{k}"] = o
    return env


# ---- element-wise rows: the tangent in place of grad ----------------------------------------

_REAL = "fV"


def _substituted(op, inputs, params, outs, tangents):
    """derivatives.yaml's auto_element_wise: an element-wise row's backward formula is a
    product by a (diagonal, so symmetric) local derivative, so with the tangent in place of
    `grad` it computes J t; for real tensors only (complex ones take the transpose trick,
    which needs no symmetry)."""
    env = _env(op, inputs, params, outs)
    total = None
    for formula, t in zip(op.formulas, tangents):
        if t is None or formula is None:
            continue
        f, names = formula
        if _refuses(f):
            raise unsupported(op)
        env["grad"] = t
        got = f(*[env[n] for n in names])
        if got is not None:
            total = got if total is None else total + got
    return [total]


# ---- the transpose trick ------------------------------------------------------------------

def unsupported(op):
    """The NotImplementedError PyTorch gives for an op without a forward derivative."""
    return NotImplementedError(f"Trying to use forward AD with aten::{op.name.split('.')[0]} "
                               "that does not support it.")


def _refuses(formula):
    return formula.__qualname__.split(".")[0] in ("no_derivative", "not_implemented")


def _transposed(op, inputs, params, outs, tangents, wanted):
    """J t from the backward formulas: the gradient in a dummy `grad` g of
    sum_i <formula_i(g), t_i> (Note [Forward derivatives])."""
    from . import grad as autograd_grad
    create = _state.grad_enabled
    env = _env(op, inputs, params, outs)
    with grad_mode.enable_grad():
        # being linear in grad, the formulas give the same derivative at any grad: ones
        # for real outputs (some take grad's log, logcumsumexp's), zeros for complex ones
        # (spectral formulas refuse a grad that depends on the eigenvectors' phase)
        gs = [make_tensor((np.zeros if o._data.dtype.kind == "c" else np.ones)(
            o._data.shape, o._data.dtype), bool(w)) for o, w in zip(outs, wanted)]
        if op.n_outputs == 1:
            env["grad"] = gs[0]
        else:
            env["grads"] = tuple(gs)
            env["grads_defined"] = tuple(True for _ in gs)
        total = None
        if op.list_input:
            pairs = [(op.formulas[0], None)]
        else:
            pairs = [(f, t) for f, t in zip(op.formulas, tangents) if t is not None]
        for formula, t in pairs:
            if formula is None:
                continue
            f, names = formula
            if _refuses(f):
                raise unsupported(op)
            g = f(*[env[n] for n in names])
            if op.list_input:
                terms = [_inner(gi, ti) for gi, ti in zip(g, tangents)
                         if gi is not None and ti is not None]
            else:
                terms = [] if g is None else [_inner(g, t)]
            for term in terms:
                total = term if total is None else total + term
        targets = [g for g, w in zip(gs, wanted) if w]
        if total is None or not total._requires_grad:
            return [None] * len(outs)
        try:
            got = iter(autograd_grad(total, targets, create_graph=create, allow_unused=True))
        except (RuntimeError, NotImplementedError) as e:
            # the formulas are not differentiable (a fused backward without a derivative):
            # PyTorch has no forward formula there either
            if not any(m in str(e) for m in _NO_DOUBLE_BACKWARD):
                raise
            raise NotImplementedError(
                f"Trying to use forward AD with {op.name.split('.')[0]} that does not support "
                "it because it has not been implemented yet.\nPlease file an issue to PyTorch "
                "at https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml "
                "so that we can prioritize its implementation or submit a PR adding the "
                "implementation to derivatives.yaml") from None
    return [next(got) if w else None for w in wanted]


_NO_DOUBLE_BACKWARD = ("is not implemented", "Double backward is unsupported")


def _inner(g, t):
    """Re <g, t>, summed: the pairing of a gradient with a tangent."""
    if not isinstance(g, Tensor):
        return None
    if t._data.dtype.kind == "c":
        return (g.conj() * t).real.sum()
    if g._data.dtype.kind == "c":
        g = g.real
    return (g * t).sum()


# ---- explicit formulas --------------------------------------------------------------------

LINEAR = "linear"   # the op applied to the tangents
ELEMENT_WISE = "element-wise"   # the backward formulas with the tangent in place of grad
# the element-wise families: rows declared there with one output (or a NumPy ufunc forward)
_ELEMENT_WISE_FAMILIES = frozenset(f"chainrule.ops.{m}" for m in (
    "pointwise", "special", "special_bessel", "special_polynomials"))


def rule_of(op):
    """The row's forward rule: LINEAR, ELEMENT_WISE, a tuple of (input index, function,
    names), or None for the transpose trick."""
    rule = _RULES.get(op.name, _MISSING)
    if rule is _MISSING:
        spec = FORWARD.get(op.name)
        if spec is None and op.view and len(op.inputs) == 1:
            spec = LINEAR
        if spec is None and op.n_outputs == 1 and not op.list_input and (
                isinstance(op.forward, np.ufunc)
                or getattr(op.forward, "__module__", None) in _ELEMENT_WISE_FAMILIES):
            spec = ELEMENT_WISE
        if isinstance(spec, dict):
            rule = tuple((op.inputs.index(n), f, tuple(inspect.signature(f).parameters))
                         for n, f in spec.items())
        else:
            rule = spec
        _RULES[op.name] = rule
    return rule


_RULES = {}
_MISSING = object()


def _explicit(op, rule, inputs, params, outs, tangents):
    env = _env(op, inputs, params, outs)
    for name, t in zip(op.inputs, tangents):
        env[name + "_t"] = t
    total = None
    for i, f, names in rule:
        if tangents[i] is None:
            continue
        got = f(*[env[n] for n in names])
        if op.n_outputs == 1:
            got = (got,)
        if total is None:
            total = list(got)
        else:
            total = [a if b is None else b if a is None else a + b for a, b in zip(total, got)]
    return total if total is not None else [None] * len(outs)


def _scaled(t, alpha):
    return t if alpha == 1 else t * alpha


def _threshold_backward(*args):
    from ..ops.pointwise import threshold_backward
    return threshold_backward(*args)


FORWARD = {
    "add": {"self": lambda self_t: self_t,
            "other": lambda other_t, alpha: _scaled(other_t, alpha)},
    "sub": {"self": lambda self_t: self_t,
            "other": lambda other_t, alpha: -_scaled(other_t, alpha)},
    "mul": {"self": lambda self_t, other: self_t * other,
            "other": lambda other_t, self: other_t * self},
    "div": {"self": lambda self_t, other: self_t / other,
            "other": lambda other_t, other, result: -other_t * result / other},
    "add.Scalar": {"self": lambda self_t: self_t},
    "sub.Scalar": {"self": lambda self_t: self_t},
    "mul.Scalar": LINEAR,
    "div.Scalar": LINEAR,
    "neg": LINEAR,
    "clone": LINEAR,
    "_to_copy": LINEAR,
    "sum": LINEAR,
    "sum.dim_IntList": LINEAR,
    "mean": LINEAR,
    "mean.dim": LINEAR,
    "exp": {"self": lambda self_t, result: self_t * result},
    "tanh": {"self": lambda self_t, result: self_t * (1 - result * result)},
    "sigmoid": {"self": lambda self_t, result: self_t * (result * (1 - result))},
    "relu": {"self": lambda self_t, result: _threshold_backward(self_t, result, 0)},
    "log": {"self": lambda self_t, self: self_t / self},
    "sin": {"self": lambda self_t, self: self_t * self.cos()},
    "cos": {"self": lambda self_t, self: -self_t * self.sin()},
    "sqrt": {"self": lambda self_t, result: self_t / (2 * result)},
    "mm": {"self": lambda self_t, mat2: self_t.mm(mat2),
           "mat2": lambda mat2_t, self: self.mm(mat2_t)},
    "bmm": {"self": lambda self_t, mat2: self_t.bmm(mat2),
            "mat2": lambda mat2_t, self: self.bmm(mat2_t)},
    "mv": {"self": lambda self_t, vec: self_t.mv(vec),
           "vec": lambda vec_t, self: self.mv(vec_t)},
}


# ---- custom Functions ---------------------------------------------------------------------

def function_jvp(cls, ctx, args, result):
    """The outputs' tangents of a custom Function call: its `jvp(ctx, *tangents)`, given a
    tangent per tensor argument (zeros for one without) and None for the others; in jvp,
    ctx.saved_tensors are those of ctx.save_for_forward."""
    tangents = [forward_ad.get_tangent(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    tangents = [t if t is not None or not isinstance(a, Tensor) else a.new_zeros(a.shape)
                for t, a in zip(tangents, args)]
    outs = result if isinstance(result, tuple) else (result,)
    saved = (ctx._saved, ctx._to_save, ctx._packed)
    ctx._saved, ctx._packed = None, False
    ctx._to_save = getattr(ctx, "_saved_for_forward", None)
    hook, registry.FORWARD_AD = registry.FORWARD_AD, None
    try:
        got = cls.jvp(ctx, *tangents)
    finally:
        registry.FORWARD_AD = hook
        ctx._saved, ctx._to_save, ctx._packed = saved
    got = got if isinstance(got, tuple) else (got,)
    if len(got) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(got)})")
    for o, t in zip(outs, got):
        if isinstance(o, Tensor) and t is not None and o._data.dtype.kind in "fcVW":
            forward_ad.check_tangent_size(o, t)
            forward_ad.set_tangent(o, t)
