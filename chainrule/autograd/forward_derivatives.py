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

from .._dtype import FROM_NP
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
            if entry is not None:
                t = entry[1]
            elif x._base is not None:
                t = forward_ad.get_tangent(x)
            elif x._grad_fn is not None and _node_tangents:
                t = _node_tangents.get(x._grad_fn, _NONE).get(x._output_nr)
            else:
                continue
            if t is not None:
                if tangents is None:
                    tangents = [None] * len(inputs)
                tangents[i] = t
    registry.FORWARD_AD = None
    try:
        if tangents is None or not op.differentiable:
            if inplace is None:
                result = registry.dispatch(op, inputs, params)
                if op.view and _store.get(id(inputs[0]), _UNMARKED)[1] is None:
                    # views of a tensor marked tangent-less (unpack_dual's primal) are too,
                    # though their base (the root) has one
                    for o in (result,) if op.n_outputs == 1 else result:
                        forward_ad.set_tangent(o, None)
                return result
            out = inplace(op, inputs, params)
            if tangents is not None and tangents[0] is not None:
                # a comparison written into a dual tensor: its values no longer depend on it
                forward_ad.get_tangent(out).zero_()
            return out
        if inplace is not None:
            return _inplace(op, inputs, params, tangents, inplace)
        result = registry.dispatch(op, inputs, params)
        outs = (result,) if op.n_outputs == 1 else tuple(result)
        for o, t in zip(outs, _tangents_of(op, inputs, params, outs, tangents)):
            if t is not None:
                forward_ad.set_tangent(o, t)
        return result
    finally:
        registry.FORWARD_AD = dispatch


# Note [Tangents of saved tensors]
# A node rebuilds an output it saved as a new tensor over the same array (Note [Saved
# outputs] in graph.py), and saved-tensor hooks rebuild whatever they unpack; the level's
# store, keyed by tensor, knows neither. Formulas running under the level
# (forward-over-reverse) need their tangents, as PyTorch's saved variables keep theirs:
# forward_ad also keeps each tangent by the (node, output_nr) its tensor is, which a
# rebuilt tensor shares; weakly by node, so it lives as long as the graph does.
_node_tangents = forward_ad._node_tangents
_NONE = {}


_UNMARKED = (None, 0)     # a store entry's default: no mark


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
    if old is None and self._base is not None and forward_ad.get_tangent(self._base) is None:
        old = _view_tangent(self)
    if old is None or (old._requires_grad and old._grad_fn is None):
        forward_ad.set_tangent(self, tangent.to(self.dtype) if tangent.dtype != self.dtype
                               else tangent)
    else:
        old.copy_(tangent)
        forward_ad.set_tangent(self, old)     # known by self's new node too
    return self


def _view_tangent(view):
    """A tangent for a view whose base has none: zeros for the base, and the view of them
    for the view, as PyTorch's forward grads of views are."""
    base = view._base
    bt = base.new_empty_strided(base.shape, base.stride()).zero_()
    forward_ad.set_tangent(base, bt)
    return forward_ad.view_tangent(view, bt)


def _tangents_of(op, inputs, params, outs, tangents):
    """One tangent per output (None for outputs that are not differentiable)."""
    diff = op.differentiable_outputs
    wanted = [(diff is None or k in diff) and o._data.dtype.kind in _DIFFERENTIABLE_KINDS
              for k, o in enumerate(outs)]
    if op.name == "scatter_reduce.two" and params[2] == "prod":
        return [None]       # PyTorch's jvp gives no tangent for reduce="prod"
    if not any(wanted):
        return [None] * len(outs)
    rule = rule_of(op)
    if rule is LINEAR:
        if op.list_input:
            args = tuple(t if t is not None else x.new_zeros(x.shape)
                         for t, x in zip(tangents, inputs))
        else:
            args = tuple(t if t is not None else x.new_zeros(x.shape)
                         if isinstance(x, Tensor) and f is not None else x
                         for t, x, f in zip(tangents, inputs, op.formulas))
        got = registry.dispatch(op, args, params)
        got = (got,) if op.n_outputs == 1 else tuple(got)
    elif rule is ELEMENT_WISE:
        got = _substituted(op, inputs, params, outs, tangents)
    elif type(rule) is tuple and len(rule) == 2 and callable(rule[0]):
        got = _whole(op, rule, inputs, params, outs, tangents)
    elif rule is not None:
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
            env[name + "_strides"] = (registry._element_strides(x._data)
                                      if isinstance(x, Tensor) else ())
            env[name + "_dtype"] = FROM_NP[x._data.dtype] if isinstance(x, Tensor) else None
    env["result"] = outs[0]
    for k, o in enumerate(outs):
        env[f"result{k}"] = o
    env["shared"] = {}      # the formulas of one evaluation share it, as a node's do
    return env


# ---- element-wise rows: the tangent in place of grad ----------------------------------------

_SYMMETRIC = frozenset(("sgn",))   # complex Jacobian symmetric, not Hermitian


def _substituted(op, inputs, params, outs, tangents):
    """derivatives.yaml's auto_element_wise: an element-wise row's backward formula
    multiplies grad by the conjugate local derivative, so formula(t.conj()).conj() is J t
    (for real tensors simply formula(t)); sgn's Jacobian is symmetric: formula(t)."""
    env = _env(op, inputs, params, outs)
    conj = op.name not in _SYMMETRIC and any(
        isinstance(x, Tensor) and x._data.dtype.kind == "c" for x in (*inputs, *outs))
    total = None
    for formula, t in zip(op.formulas, tangents):
        if t is None or formula is None:
            continue
        f, names = formula
        if _refusal(op, f) is not None:
            raise _refusal(op, f)
        env["grad"] = t.conj() if conj else t
        got = f(*[env[n] for n in names])
        if got is not None:
            got = got.conj() if conj else got
            total = got if total is None else total + got
    return [total]


# ---- the transpose trick ------------------------------------------------------------------

def unsupported(op):
    """The NotImplementedError PyTorch gives for an op without a forward derivative."""
    return NotImplementedError(f"Trying to use forward AD with aten::{op.name.split('.')[0]} "
                               "that does not support it.")


def _refusal(op, formula):
    """The error for a formula that refuses (registry's no_derivative: PyTorch's op has no
    derivative at all; not_implemented: derivatives.yaml says not_implemented), or None."""
    kind = formula.__qualname__.split(".")[0]
    return unsupported(op) if kind == "no_derivative" else _not_yet(op) \
        if kind == "not_implemented" else None


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
            if _refusal(op, f) is not None:
                raise _refusal(op, f)
            g = f(*[env[n] for n in names])
            if op.list_input:
                terms = [_inner(gi, ti) for gi, ti in zip(g, tangents)
                         if gi is not None and ti is not None]
            else:
                terms = [] if g is None else [_inner(g, t)]
            for term in terms:
                total = term if total is None else total + term
        targets = [g for g, w in zip(gs, wanted) if w]
        if total is not None and not total._requires_grad and total._data.any():
            # a formula read grad (ones) without recording it: first-order only
            raise _not_yet(op)
        if total is None or not total._requires_grad:
            return [None] * len(outs)
        try:
            got = iter(autograd_grad(total, targets, create_graph=create, allow_unused=True))
        except (RuntimeError, NotImplementedError) as e:
            # the formulas are not differentiable (a fused backward without a derivative):
            # PyTorch has no forward formula there either
            if not any(m in str(e) for m in _NO_DOUBLE_BACKWARD):
                raise
            raise _not_yet(op) from None
    return [next(got) if w else None for w in wanted]


def _not_yet(op):
    return NotImplementedError(
        f"Trying to use forward AD with {op.name.split('.')[0]} that does not support it "
        "because it has not been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we "
        "can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml")


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
        if callable(spec):
            rule = (spec, tuple(inspect.signature(spec).parameters))
        elif isinstance(spec, dict):
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


def _whole(op, rule, inputs, params, outs, tangents):
    """A formula of the whole op (derivatives.yaml's `result:`), reading every input's
    tangent: zeros where an input has none, as PyTorch materializes them."""
    f, names = rule
    env = _env(op, inputs, params, outs)
    for name, x, t in zip(op.inputs, inputs, tangents):
        env[name + "_t"] = t if t is not None else (
            x.new_zeros(x.shape) if isinstance(x, Tensor) else 0)
    got = f(*[env[n] for n in names])
    return [got] if op.n_outputs == 1 else list(got)


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
    "dot": {"self": lambda self_t, tensor: self_t.dot(tensor),
            "tensor": lambda tensor_t, self: self.dot(tensor_t)},
    "addmm": {"self": lambda self_t, beta: _scaled(self_t, beta),
              "mat1": lambda mat1_t, mat2, alpha: _scaled(mat1_t.mm(mat2), alpha),
              "mat2": lambda mat2_t, mat1, alpha: _scaled(mat1.mm(mat2_t), alpha)},
    "addmv": {"self": lambda self_t, beta: _scaled(self_t, beta),
              "mat": lambda mat_t, vec, alpha: _scaled(mat_t.mv(vec), alpha),
              "vec": lambda vec_t, mat, alpha: _scaled(mat.mv(vec_t), alpha)},
    "baddbmm": {"self": lambda self_t, beta: _scaled(self_t, beta),
                "batch1": lambda batch1_t, batch2, alpha: _scaled(batch1_t.bmm(batch2), alpha),
                "batch2": lambda batch2_t, batch1, alpha: _scaled(batch1.bmm(batch2_t), alpha)},
    "_softmax": {"self": lambda self_t, result, dim: result * (
        self_t - (self_t * result).sum(dim, keepdim=True))},
    "_log_softmax": {"self": lambda self_t, result, dim: self_t - (
        self_t * result.exp()).sum(dim, keepdim=True)},
    # bilinear in input and weight, linear in bias
    "convolution": {
        "input": lambda input_t, weight, stride, padding, dilation, transposed, output_padding,
        groups: _convolution(input_t, weight, stride, padding, dilation, transposed,
                             output_padding, groups),
        "weight": lambda weight_t, input, stride, padding, dilation, transposed, output_padding,
        groups: _convolution(input, weight_t, stride, padding, dilation, transposed,
                             output_padding, groups),
        "bias": lambda bias_t, result: bias_t.reshape((1, -1) + (1,) * (result.dim() - 2))},
    "_grouped_mm": {"self": lambda self_t, mat2, offs: _row("_grouped_mm", (self_t, mat2),
                                                             (offs,)),
                    "mat2": lambda mat2_t, self, offs: _row("_grouped_mm", (self, mat2_t),
                                                            (offs,))},
    # jointly linear in their tensor inputs: the op applied to the tangents
    **dict.fromkeys(("index_put", "_index_put_impl_", "masked_scatter", "scatter.src",
                     "scatter_add", "index_copy", "index_add", "select_scatter",
                     "slice_scatter", "diagonal_scatter", "as_strided_scatter", "put",
                     "cat", "stack", "complex", "block_diag", "masked_fill.Tensor",
                     "index_fill.int_Tensor", "embedding"), LINEAR),
    # PyTorch's scales by 1/(1-p) whenever train is not False (its backward does not
    # when train is None)
    "native_dropout": lambda input_t, result1, p, train: (
        input_t if train is False else input_t * result1 * (0.0 if p == 1 else 1 / (1 - p)),
        None),
    "linalg_householder_product": lambda self, tau, self_t, tau_t: _composite_jvp(
        _householder, (self, tau), (self_t, tau_t)),
    # derivatives.yaml's result: formulas where the element-wise rule differs at ties,
    # zeros and nan
    "div": lambda self_t, other_t, other, result: (self_t - other_t * result) / other,
    "atan2": lambda self, other, self_t, other_t: (
        (-self * other_t + other * self_t) / (self.pow(2) + other.pow(2))),
    "maximum": lambda self, other, self_t, other_t, result: other_t + _where(
        self == other, 0.5, (self > other).to(result.dtype)) * (self_t - other_t),
    "minimum": lambda self, other, self_t, other_t, result: other_t + _where(
        self == other, 0.5, (self < other).to(result.dtype)) * (self_t - other_t),
    "fmax": lambda self, other, self_t, other_t: other_t + (
        (self > other).logical_or_(other.isnan())) * (self_t - other_t),
    "fmin": lambda self, other, self_t, other_t: other_t + (
        (self <= other).logical_or_(other.isnan())) * (self_t - other_t),
    # evenly_read_jvp: the mean tangent over the elements equal to the result (nan when
    # none is, as for a nan result)
    **dict.fromkeys(("max", "min", "median", "nanmedian"), {
        "self": lambda self_t, self, result: _evenly_read(self_t, self, result)}),
    "clamp_min.Tensor": lambda self, self_t, min, min_t: _where(self >= min, self_t, min_t),
    "clamp_max.Tensor": lambda self, self_t, max, max_t: _where(self <= max, self_t, max_t),
    "clamp.Tensor": lambda self, self_t, min, min_t, max, max_t: _clamp_jvp(
        self, self_t, min, min_t, max, max_t),
}


def _householder(h, tau):
    from ..ops.decompositions import _householder_composite
    eye = make_tensor(np.broadcast_to(np.eye(h.shape[-2], h.shape[-1], dtype=h._data.dtype),
                                      tuple(h.shape)))
    return _householder_composite(h, tau, eye, True, False)


def _composite_jvp(fn, primals, tangents):
    """J t of `fn`, a composite of differentiable ops, by the transpose trick on it (for rows
    whose backward formulas are first-order only)."""
    from . import grad as autograd_grad
    with grad_mode.enable_grad():
        leaves = [p.detach().requires_grad_() for p in primals]
        out = fn(*leaves)
        g = out.detach().new_ones(out.shape).requires_grad_()
        vjps = autograd_grad(out, leaves, g, create_graph=True, allow_unused=True)
        total = sum((_inner(v, t) for v, t in zip(vjps, tangents) if v is not None),
                    start=out.new_zeros(()))
        got, = autograd_grad(total, g, allow_unused=True)
    return got


def _convolution(input, weight, *params):
    return _row("convolution", (input, weight, None), params)


def _row(name, inputs, params):
    """Row `name` itself (a bilinear row applied to one tangent)."""
    return registry.dispatch(registry.OPS[name], inputs, params)


def _evenly_read(t, self, result):
    mask = self == result
    return (t * mask).sum() / mask.sum()


def _where(condition, x, y):
    from ..ops.pointwise import where
    return where(condition, x, y)


def _clamp_jvp(self, self_t, min, min_t, max, max_t):
    if min is not None and max is not None:
        return _where(min > max, max_t, _where(self < min, min_t, _where(
            self > max, max_t, self_t)))
    if min is not None:
        return _where(self > min, self_t, min_t)
    if max is not None:
        return _where(self < max, self_t, max_t)
    return self_t


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
    ctx._to_save = getattr(ctx, "_saved_for_forward", None) or ()    # none saved: ()
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
