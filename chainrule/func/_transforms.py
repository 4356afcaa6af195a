"""torch.func's autodiff transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize) on
chainrule's reverse-mode engine and forward mode (jvp).

Note [Transform levels]: a transform differentiates with respect to fresh aliases of its
inputs (a new leaf, or a view of an input that already requires grad), never the inputs
themselves, so a nested transform and an outer one keep their perturbations apart
(`grad(lambda x: grad(lambda y: x * y)(x))(x)` is 1, as PyTorch's). Gradients are taken with
`create_graph=True` only when the graph reaches tensors other than the transform's own
aliases (an outer transform's inputs, parameters that require grad); a result that depends
on nothing but the transform's own aliases is detached, so at top level results do not
require grad, as PyTorch's unwrapped tensors do not.

Note [Transforms inside vmap]: autograd records the physical ops of BatchedTensors (Note
[Batching rules] in _batched.py). Inside a batched vmap a transform's aliases are batched
along every running level (an unbatched input, like the weights of per-sample gradients, is
expanded first), so each batch element has inputs of its own, and the gradient of the
physical outputs (summed over the batch) is each element's gradient. Jacobians batch their
rows the same way: `func` runs again inside a vmap over the rows, on inputs expanded along
it, and one backward pass with the identity's columns as cotangents gives every row (the
row-by-row passes over the first run's graph remain where that run cannot be batched).
"""
import contextlib
import functools
import itertools
import weakref

from .. import autograd
from .._creation import zeros_like
from .._tensor import Tensor
from . import _batched
from ._batched import BatchedTensor, Unbatchable, wrap
from ..autograd import forward_ad
from ..autograd.graph import AccumulateGrad
from ._pytree import tree_flatten, tree_map, tree_unflatten


# ---- levels: own aliases, what the graph reaches, unwrapping -------------------------------

def _alias(x):
    """A differentiable stand-in for `x` at a new level (Note [Transform levels])."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)
    return _detach(x).requires_grad_()


def _detach(t):
    """t.detach(), keeping the forward-mode tangent of an enclosing jvp (detach is this
    level's business only)."""
    d = t.detach()
    if forward_ad._current_level >= 0:
        tangent = forward_ad.get_tangent(t)
        if tangent is not None:
            forward_ad.set_tangent(d, tangent)
    return d


_LEVEL_NUMBERS = itertools.count()   # transform levels, inner ones numbered after outer
_ALIAS_LEAVES = {}      # id(alias leaf) -> (its level's number, weak reference to the leaf)


def _forget(key):
    return lambda ref: _ALIAS_LEAVES.pop(key, None)


class _Level:
    """The aliases one transform differentiates with respect to."""

    def __init__(self):
        self.number = next(_LEVEL_NUMBERS)
        self.aliases = []    # kept alive, so their ids in `own` stay theirs
        self.own = set()     # id() of the alias leaves (an alias view leads outside)

    def alias(self, x):
        if _batched.SIZES and isinstance(x, Tensor):    # Note [Transforms inside vmap]
            x = _batched.to_levels(x)
        a = _alias(x)
        self.aliases.append(a)
        if a.grad_fn is None:
            leaf = a._phys if type(a) is BatchedTensor else a
            self.own.add(id(leaf))
            _ALIAS_LEAVES[id(leaf)] = (self.number, weakref.ref(leaf, _forget(id(leaf))))
        return a

    def _outside(self, leaf):
        """Whether a leaf requiring grad is something an enclosing computation may
        differentiate: not this level's alias nor an inner level's (a detached copy of a
        constant, as far as this level and those around it are concerned)."""
        if id(leaf) in self.own:
            return False
        entry = _ALIAS_LEAVES.get(id(leaf))
        return entry is None or entry[1]() is not leaf or entry[0] < self.number

    def reaches_outside(self, tensors):
        """Whether the graphs of `tensors` reach something that requires grad other than
        this level's aliases (so results must keep a graph for it)."""
        stack, seen = [], set()
        for t in tensors:
            if isinstance(t, Tensor) and t.requires_grad:
                if t.grad_fn is None:
                    if self._outside(t._phys if type(t) is BatchedTensor else t):
                        return True
                else:
                    stack.append(t.grad_fn)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if type(node) is AccumulateGrad:
                if self._outside(node.variable):
                    return True
                continue
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return False

    def unwrap(self, tree):
        """`tree` with tensors that depend on nothing but this level detached."""
        def unwrap(t):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(t)}")
            if t.requires_grad and not self.reaches_outside([t]):
                return _detach(t)
            return t
        return tree_map(unwrap, tree)


def _grad_on():
    """Grad mode on and inference mode off inside a transform, whatever the caller's modes
    (PyTorch's NOTE [grad and vjp interaction with no_grad]; `func`'s own no_grad still
    holds)."""
    return autograd.inference_mode(False)


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=True):
    """autograd.grad over the outputs that require grad, zeros for unreached inputs. A graph
    created from this one keeps it (an outer level differentiates through both)."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if _batched.SIZES and any(type(t) is BatchedTensor for t in (*outputs, *inputs,
                                                                 *grad_outputs)):
        return _batched_autograd_grad(outputs, inputs, grad_outputs, retain_graph,
                                      create_graph)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(i.new_zeros(i.shape) for i in inputs)
    outs, gos = zip(*pairs)
    gos = None if gos[0] is None else gos
    with _grad_on():
        grads = autograd.grad(outs, inputs, gos, retain_graph=retain_graph or create_graph,
                              create_graph=create_graph, allow_unused=True)
    return tuple(i.new_zeros(i.shape) if g is None else g for g, i in zip(grads, inputs))


def _batched_autograd_grad(outputs, inputs, grad_outputs, retain_graph, create_graph):
    """_autograd_grad on the physical tensors of batched ones (Note [Transforms inside
    vmap]): inputs batched along every running level, outputs and cotangents laid out as
    theirs."""
    levels = tuple(sorted(_batched.SIZES))
    if any(type(i) is not BatchedTensor or i._levels != levels for i in inputs):
        raise Unbatchable("grad")   # a cotangent batched over a graph that is not
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if o.requires_grad:
            p = _batched.full(o, levels)
            outs.append(p)
            gos.append(_batched.ones(p) if g is None else _batched.full(g, levels, o.dim()))
    phys = [i._phys for i in inputs]
    grads = [None] * len(phys)
    if outs:
        with _grad_on():
            grads = _batched.unhooked(lambda: autograd.grad(
                outs, phys, gos, retain_graph=retain_graph or create_graph,
                create_graph=create_graph, allow_unused=True))
    return tuple(wrap(zeros_like(p) if g is None else g, levels)
                 for g, p in zip(grads, phys))


# ---- argnums -------------------------------------------------------------------------------

def _validate_and_wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums):
    """The (wrapped) argnums and the arguments they select (one, or a tuple)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        argnums = _validate_and_wrap_argnum(argnums, len(args))
        return argnums, args[argnums]
    argnums = tuple(_validate_and_wrap_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums, tuple(args[i] for i in argnums)


def _differentiable_args(level, args, argnums):
    """(args with the selected ones replaced by aliases, the aliases as a pytree)."""
    argnums, diff = _slice_argnums(args, argnums)
    diff = tree_map(level.alias, diff)
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = diff
    else:
        for i, d in zip(argnums, diff):
            args[i] = d
    return tuple(args), diff


# ---- grad, grad_and_value, vjp -------------------------------------------------------------

def _grad_and_value(func, argnums, has_aux, args, kwargs):
    level = _Level()
    with _grad_on():
        args, diff_args = _differentiable_args(level, args, argnums)
        output = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) "
                               f"to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        flat_diff, spec = tree_flatten(diff_args)
        outside = level.reaches_outside([output])
        grads = tree_unflatten(list(_autograd_grad([output], flat_diff, create_graph=outside)),
                               spec)
        if outside:
            grads, output = level.unwrap(grads), level.unwrap(output)
        else:   # nothing beyond this level: no graph to keep
            output = _detach(output)
        if has_aux:
            return grads, (output, level.unwrap(aux))
        return grads, output


def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value: the gradient of `func` with respect to `argnums` and the
    value it computed."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad: the gradient of scalar `func` with respect to `argnums`."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def _vjp_core(func, primals, argnums=None, has_aux=False, api="vjp(f, *primals)"):
    """Run `func` on aliases of `primals` (all, or those at argnums): the level, the
    unwrapped outputs, the flat outputs and their structure, the flat aliases and their
    structure, and aux. `api` names the transform in errors (jacfwd reports jvp's)."""
    level = _Level()
    with _grad_on():
        if argnums is None:
            primals = diff_primals = tree_map(level.alias, primals)
        else:
            primals, diff_primals = _differentiable_args(level, primals, argnums)
        primals_out = func(*primals)
        aux = None
        if has_aux:
            if not (isinstance(primals_out, tuple) and len(primals_out) == 2):
                raise RuntimeError(f"{api}: output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            primals_out, aux = primals_out
            aux = level.unwrap(aux)
        flat_out, out_spec = tree_flatten(primals_out)
        _check_non_empty_tensor_output(flat_out, api)
        flat_diff, primals_spec = tree_flatten(diff_primals)
        results = level.unwrap(primals_out)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    return level, results, flat_out, out_spec, flat_diff, primals_spec, aux


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: `func(*primals)` and a function mapping cotangents to the
    vector-Jacobian products with respect to `primals`."""
    level, results, flat_out, out_spec, flat_diff, primals_spec, aux = _vjp_core(
        func, primals, has_aux=has_aux)
    outside = level.reaches_outside(flat_out)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function. cotangents: "
                               f"{_pprint(cot_spec)}, primal output: {_pprint(out_spec)}")
        if create_graph is None:
            create_graph = autograd.is_grad_enabled() and (
                outside or any(isinstance(c, Tensor) and c.requires_grad for c in flat_cot))
        grads = _autograd_grad(flat_out, flat_diff, flat_cot, retain_graph=retain_graph,
                               create_graph=create_graph)
        return level.unwrap(tree_unflatten(list(grads), primals_spec))

    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


def _pprint(spec):
    """torch's treespec_pprint: the structure with leaves as `*`."""
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))


class _Star:
    def __repr__(self):
        return "*"


def _check_non_empty_tensor_output(output, api):
    if (len(output) == 1 and output[0] is None) or len(output) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {output})")
    for o in output:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors"
                               f", got unsupported type {type(o)}")


def _error_if_complex(func_name, args, is_input):
    for idx, arg in enumerate(tree_flatten(args)[0]):
        if isinstance(arg, Tensor) and arg.dtype.is_complex:
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{func_name}: Expected all {kind} to be real but received "
                               f"complex tensor at flattened input idx: {idx}")


# ---- jacrev, jacfwd, hessian ---------------------------------------------------------------

def _jacobian(level, flat_out, flat_diff):
    """Per output, per input: d out / d input shaped out.shape + input.shape, one backward
    pass per output element (a row of the Jacobian each)."""
    from .. import eye, stack
    create_graph = level.reaches_outside(flat_out)
    jac = []
    for out in flat_out:
        rows = [[] for _ in flat_diff]
        basis = eye(out.numel(), dtype=out.dtype)
        for j in range(out.numel()):
            grads = _autograd_grad([out], flat_diff, [basis[j].view(out.shape)],
                                   retain_graph=True, create_graph=create_graph)
            for r, g in zip(rows, grads):
                r.append(g)
        jac.append([stack(r).view(out.shape + d.shape) if r else
                    d.new_zeros(out.shape + d.shape) for r, d in zip(rows, flat_diff)])
    return jac


def _batched_jacobian(func, args, argnums, has_aux, flat_out, state):
    """The Jacobian by one run of `func` batched over its rows (Note [Transforms inside
    vmap]), from the generator state `state` of the first run so it draws the same; None
    where that run cannot be batched."""
    from .. import eye, get_rng_state, set_rng_state
    from ._vmap import _remove_level, batch_level
    m = sum(o.numel() for o in flat_out)
    after = get_rng_state()
    set_rng_state(state)
    try:
        with batch_level(m) as rows, _grad_on():
            level = _Level()
            args, diff = _differentiable_args(level, args, argnums)
            out = func(*args)
            flat, _ = tree_flatten(out[0] if has_aux else out)
            flat_diff = tree_flatten(diff)[0]
            cotangents, at = [], 0
            for o in flat:
                n = o.numel()
                basis = eye(m, dtype=o.dtype)[:, at:at + n].reshape((m,) + tuple(o.shape))
                cotangents.append(wrap(basis, (rows,)))
                at += n
            grads = _autograd_grad(flat, flat_diff, cotangents,
                                   create_graph=level.reaches_outside(flat))
            grads = [_remove_level(g, 0, rows, m) for g in grads]
            jac, at = [], 0
            for o in flat:
                n = o.numel()
                jac.append([g[at:at + n].reshape(tuple(o.shape) + tuple(d.shape))
                            for g, d in zip(grads, flat_diff)])
                at += n
            return jac
    except (Unbatchable, Exception):   # noqa: BLE001  (the row-by-row passes decide)
        return None
    finally:
        set_rng_state(after)


def _jac_wrapper(func, argnums, has_aux, name, api, randomness=None):
    @functools.wraps(func)
    def wrapper_fn(*args):
        from ._vmap import _check_randomness_arg, _random_ops
        _error_if_complex(name, args, is_input=True)
        if randomness is not None:   # jacfwd: PyTorch pushes a basis through vmap and jvp
            flat_primals = tree_flatten(_slice_argnums(args, argnums)[1])[0]
            _check_randomness_arg(randomness)
            for p in flat_primals:
                if not (p.is_floating_point() or p.is_complex()):
                    raise ValueError("Expected primal to be floating point or complex, but "
                                     f"got: {p.dtype}")
        from .. import get_rng_state
        state = get_rng_state()
        guard = functools.partial(_random_ops, randomness) if randomness else \
            contextlib.nullcontext
        with guard():
            level, output, flat_out, out_spec, flat_diff, primals_spec, aux = _vjp_core(
                func, args, argnums, has_aux, api)
        _error_if_complex(name, flat_out, is_input=False)
        jac = None
        if sum(o.numel() for o in flat_out) > 1:
            with guard():
                jac = _batched_jacobian(func, args, argnums, has_aux, flat_out, state)
        if jac is None:
            jac = _jacobian(level, flat_out, flat_diff)
        per_out = [tree_unflatten(j, primals_spec) for j in jac]
        result = tree_unflatten(per_out, out_spec)
        return (result, aux) if has_aux else result
    return wrapper_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev: the Jacobian of `func` with respect to `argnums`, by reverse mode
    (`chunk_size` only bounds how many rows PyTorch batches at once; the rows are the same)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jac_wrapper(func, argnums, has_aux, "jacrev", "vjp(f, *primals)")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the Jacobian of `func` with respect to `argnums`. The matrix is
    the one forward mode gives, computed row by row in reverse mode; `func` runs once, so
    randomness 'different' draws once like 'same'."""
    return _jac_wrapper(func, argnums, has_aux, "jacfwd", _JVP, randomness)


def hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func, argnums), argnums)."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- jvp, linearize ------------------------------------------------------------------------

_JVP = "jvp(f, primals, tangents)"
_JVP_NESTING = 0


def _check_list_of_tensors(output, api, argname):
    if len(output) == 0:
        raise RuntimeError(f"{api}: Expected {argname} to contain at least one Tensor.")
    for out in output:
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{api}: Expected {argname} to only contain Tensors, "
                               f"got {type(out)}")


def _pushforward(level, flat_out, flat_in):
    """A function of input tangents giving output tangents, by the double-vjp trick: the
    vjp u -> J^T u is linear in its cotangent u, so J v = d/du <J^T u, v>, exactly."""
    us = [level.alias(zeros_like(o)) if o.requires_grad and
          (o.is_floating_point() or o.is_complex()) else None for o in flat_out]
    diff = [(o, u) for o, u in zip(flat_out, us) if u is not None]
    vjps = [None] * len(flat_in)
    if diff:
        with _grad_on():
            vjps = autograd.grad([o for o, _ in diff], flat_in, [u for _, u in diff],
                                 create_graph=True, allow_unused=True)
    outside = level.reaches_outside(flat_out)

    def push(flat_tangents, strict=False, retain_graph=True):
        pairs = [(g, t) for g, t in zip(vjps, flat_tangents) if g is not None and g.requires_grad]
        live = [u for u in us if u is not None]
        jv = [None] * len(live)
        if pairs and live:
            create_graph = outside or any(t.requires_grad for _, t in pairs)
            with _grad_on():
                jv = autograd.grad([g for g, _ in pairs], live, [t for _, t in pairs],
                                   retain_graph=retain_graph or create_graph,
                                   create_graph=create_graph,
                                   allow_unused=True)
        jv = iter(jv)
        result = []
        for o, u in zip(flat_out, us):
            t = None if u is None else next(jv)
            if t is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                t = o.new_zeros(o.shape)
            result.append(t)
        return level.unwrap(result)
    return push


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: `func(*primals)` and its Jacobian-vector product with `tangents`."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. "
                           "E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure {primals_spec} "
                           f"and tangents with structure {tangents_spec}")
    _check_list_of_tensors(flat_primals, _JVP, "primals")
    _check_list_of_tensors(flat_tangents, _JVP, "tangents")
    global _JVP_NESTING
    # forward mode has one level: the outermost jvp takes it (refused inside a user's
    # dual_level, as PyTorch refuses), a jvp inside another runs by reverse mode
    run = _jvp_forward if _JVP_NESTING == 0 else _jvp_reverse
    _JVP_NESTING += 1
    try:
        out, tangents_out, aux = run(func, flat_primals, primals_spec, flat_tangents, strict,
                                     has_aux)
    finally:
        _JVP_NESTING -= 1
    flat_out, spec = tree_flatten(out)
    result = tree_unflatten(flat_out, spec), tree_unflatten(tangents_out, spec)
    return result + (aux,) if has_aux else result


def _split_aux(out, has_aux):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{_JVP}: output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


def _jvp_forward(func, flat_primals, primals_spec, flat_tangents, strict, has_aux):
    """jvp by forward mode: the tangents ride along one evaluation of `func`. Outputs are
    returned as PyTorch's unwrapped duals are: primals as aliases (AliasBackward0), aux as
    computed."""
    from ..ops.shape import _alias as alias
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        out, aux = _split_aux(func(*tree_unflatten(duals, primals_spec)), has_aux)
        flat_out, spec = tree_flatten(out)
        _check_non_empty_tensor_output(flat_out, _JVP)
        tangents_out = []
        for o in flat_out:
            tangent = forward_ad.unpack_dual(o).tangent
            if tangent is None:
                if strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                tangent = o.new_zeros(o.shape)
            tangents_out.append(tangent)
    if has_aux:
        aux = tree_map(lambda a: a if isinstance(a, Tensor) else _not_tensor(a), aux)
    return tree_unflatten([alias(o) for o in flat_out], spec), tangents_out, aux


def _not_tensor(a):
    raise RuntimeError(f"Expected tensors, got unsupported type {type(a)}")


def _jvp_reverse(func, flat_primals, primals_spec, flat_tangents, strict, has_aux):
    """jvp by reverse mode (the double-vjp trick of _pushforward)."""
    level = _Level()
    with _grad_on():
        flat_in = [level.alias(p) for p in flat_primals]
        out, aux = _split_aux(func(*tree_unflatten(flat_in, primals_spec)), has_aux)
        if has_aux:
            aux = level.unwrap(aux)
        flat_out, spec = tree_flatten(out)
        _check_non_empty_tensor_output(flat_out, _JVP)
        tangents_out = _pushforward(level, flat_out, flat_in)(flat_tangents, strict, False)
        return tree_unflatten(level.unwrap(flat_out), spec), tangents_out, aux


def linearize(func, *primals):
    """torch.func.linearize: `func(*primals)` and a function computing its jvp at `primals`
    for any tangents, reusing one recorded graph."""
    flat_primals, primals_spec = tree_flatten(primals)
    level = _Level()
    with _grad_on():
        flat_in = [level.alias(p) if isinstance(p, Tensor) else p for p in flat_primals]
        out = func(*tree_unflatten(flat_in, primals_spec))
        for p in flat_primals:   # PyTorch runs func first, then makes tangents like primals
            if not isinstance(p, Tensor):
                raise AttributeError(f"'{type(p).__name__}' object has no attribute 'new_empty'")
        flat_out, output_spec = tree_flatten(out)
        push = _pushforward(level, flat_out, flat_in)
        output = tree_unflatten(level.unwrap(flat_out), output_spec)

    def jvp_fn(*tangents):
        flat_tangents, tangent_spec = tree_flatten(tangents)
        if tangent_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangent_spec} to have "
                               f"the same argspec as the primals {primals_spec}")
        for idx, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what in ("shape", "device", "dtype"):
                if getattr(t, what) != getattr(p, what):
                    raise RuntimeError(f"tangent:{idx} with {what} {getattr(t, what)} in "
                                       "flattened pytree doesn't match the "
                                       f"{what} {getattr(p, what)} of the corresponding primal.")
        return tree_unflatten(push(flat_tangents), output_spec)
    return output, jvp_fn


# ---- functionalize, debug_unwrap ----------------------------------------------------------

def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize. Eager chainrule has no functional tensor layer to trace
    into, so the function computes exactly what `func` computes (mutations of inputs
    included, as functionalize propagates them back)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            "functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n     remove='mutations': all inplace and "
            "out= operators will be removed from the program, and replaced with their "
            "out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing "
            "counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """torch.func.debug_unwrap: transforms here pass plain tensors, so there is no wrapper
    to remove."""
    return tensor
