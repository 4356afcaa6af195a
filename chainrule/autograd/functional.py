"""chainrule.autograd.functional: jacobian, hessian, vjp, jvp, vhp and hvp, as PyTorch's.

Arguments and results are a Tensor or a tuple of Tensors; everything works on tuples and
nests the results back as the arguments came (`_tupled` / `_untupled`).

vjp, jvp, vhp and hvp share `_product`: a differentiable first stage (the function, and for
jvp, vhp and hvp one or two more backward passes) yields roots, whose gradient against `v`
is the answer. jacobian cuts its blocks (one per output and input) out of rows, the
vector-Jacobian products of the standard basis over the outputs' elements (reverse mode),
or out of columns, the Jacobian-vector products of the basis over the inputs' elements
(forward mode, which PyTorch runs only vectorized). Vectorized, the basis vectors are
mapped with chainrule.func.vmap, by `autograd.grad(is_grads_batched=True)` in reverse mode.
hessian is the jacobian of the function's gradient.
"""
import chainrule as torch

from ..func import vmap
from . import forward_ad as fwAD


__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---- tuples in, tuples out -----------------------------------------------------------------

def _tupled(value, what, fn):
    """(whether `value` was a tuple, it as a tuple of Tensors); anything else is refused."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            culprit = f"value at index {i}" if was_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {culprit} has type {type(item)}.")
    return was_tuple, items


def _untupled(value, was_tuple, inner_was_tuple=True):
    """`value` nested as the arguments came: jacobian's blocks are untupled on both levels."""
    if not inner_was_tuple:
        value = tuple(row[0] for row in value)
    return value if was_tuple else value[0]


def _fresh(tensors, create_graph, requires_grad):
    """New Tensor objects for the arguments, so the function's own references to the same
    tensors do not count as uses of them: views that keep the caller's graph when
    create_graph asks for it, detached leaves otherwise."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(requires_grad) for t in tensors)


def _finished(value, create_graph):
    """Results (nested tuples) leave without history unless create_graph asked for it."""
    if create_graph:
        return value
    if isinstance(value, tuple):
        return tuple(_finished(v, False) for v in value)
    return value.detach()


# ---- strict mode ---------------------------------------------------------------------------

_UNUSED_INPUT = ("The output of the user-provided function is independent of input {i}. "
                 "This is not allowed in strict mode.")

# what a tensor that does not require grad says about the function, by where it was found
_NOT_DIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}

# the last backward pass of each product: what a None gradient means, and what one that
# does not require grad under create_graph means
_JACOBIAN_CONSTANT = ("The jacobian of the user-provided function is independent of input "
                      "{i}. This is not allowed in strict mode when create_graph=True.")
_HESSIAN_CONSTANT = ("The hessian of the user-provided function is independent of input {i}. "
                     "This is not allowed in strict mode when create_graph=True.")
_LAST_PASS = {
    "vjp": (_UNUSED_INPUT, _JACOBIAN_CONSTANT),
    "jvp": ("The gradient with respect to the input is independent of entry {i} in the "
            "grad_outputs when using the double backward trick to compute forward mode "
            "gradients. This is not allowed in strict mode.", _JACOBIAN_CONSTANT),
    "vhp": ("The jacobian of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.", _HESSIAN_CONSTANT),
    "hvp": ("The hessian of the user-provided function is independent of entry {i} in the "
            "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
            "double backward trick to replace forward mode AD.", _HESSIAN_CONSTANT),
}


def _strict_check(tensors, found_in, strict):
    """In strict mode, every tensor exists and requires grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_UNUSED_INPUT.format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[found_in].format(i=i))


def _zeros_for_none(grads, like, strict, create_graph, fn):
    """The product's gradients, zeros (shaped as `like`) where an input was not reached;
    in strict mode that, or a constant gradient under create_graph, is an error."""
    unreached, constant = _LAST_PASS[fn]
    result = []
    for i, (g, ref) in enumerate(zip(grads, like)):
        if g is None and strict:
            raise RuntimeError(unreached.format(i=i))
        if g is not None and strict and create_graph and not g.requires_grad:
            raise RuntimeError(constant.format(i=i))
        result.append(torch.zeros_like(ref) if g is None else g)
    return tuple(result)


# ---- the shared steps ----------------------------------------------------------------------

def _called(func, inputs, fn, strict, scalar=False):
    """func(*inputs) as (whether it returned a tuple, a tuple of Tensors), requiring grad in
    strict mode; `scalar` (hessian, vhp, hvp) wants one single-element Tensor."""
    out_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", fn)
    _strict_check(outputs, "outputs", strict)
    if scalar and out_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if scalar and outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should "
                           "contain a single element")
    return out_tuple, outputs


def _grad(roots, wrt, vectors=None, create_graph=False, retain_graph=None, batched=False):
    """autograd.grad of the roots that require grad (others are dropped with their vectors):
    None for an input they do not reach, and for every input when no root is left."""
    vectors = (None,) * len(roots) if vectors is None else vectors
    kept = [(r, v) for r, v in zip(roots, vectors) if r is not None and r.requires_grad]
    if not kept:
        return (None,) * len(wrt)
    return torch.autograd.grad([r for r, _ in kept], wrt, [v for _, v in kept],
                               retain_graph=retain_graph, create_graph=create_graph,
                               allow_unused=True, is_grads_batched=batched)


def _checked_v(v, like, like_was_tuple, fn, create_graph):
    """v as a tuple sized as `like` (the outputs for vjp, the inputs for the others); it may
    be None only where `like` is one single-element Tensor."""
    if v is None:
        if len(like) != 1 or like[0].nelement() != 1:
            holder = ("user-provided function returns" if fn == "vjp"
                      else "input to the user-provided function is")
            raise RuntimeError(f"The vector v can only be None if the {holder} a single "
                               "Tensor with a single element.")
        return None
    v = _fresh(_tupled(v, "v", fn)[1], create_graph, False)
    if len(v) != len(like):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                           f"{len(v)}." if like_was_tuple
                           else "The given v should contain a single Tensor.")
    for i, (given, ref) in enumerate(zip(v, like)):
        if given.size() != ref.size():
            entry = f"Entry {i} in " if like_was_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got "
                               f"{given.size()}.")
    return v


def _zero_vectors(tensors):
    """Stand-ins to differentiate a backward pass with respect to: it is linear in them, so
    their value does not matter as long as it is finite."""
    return tuple(torch.zeros_like(t, requires_grad=True) for t in tensors)


def _product(fn, func, inputs, v, create_graph, strict):
    """vjp, jvp, vhp and hvp: (func's output, the product), nested as the arguments."""
    with torch.enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", fn)
        inputs = _fresh(inputs, create_graph, True)
        if fn != "vjp":
            v = _checked_v(v, inputs, in_tuple, fn, create_graph)
        out_tuple, outputs = _called(func, inputs, fn, strict, scalar=fn in ("vhp", "hvp"))
        if fn == "vjp":
            v = _checked_v(v, outputs, out_tuple, fn, create_graph)
            roots, wrt, like = outputs, inputs, inputs
        elif fn == "jvp":
            # J v as the gradient, with respect to u, of the backward pass u^T J
            wrt, like = _zero_vectors(outputs), outputs
            roots = _grad(outputs, inputs, wrt, create_graph=True)
            _strict_check(roots, "grad_inputs", strict)
        else:
            roots = _grad(outputs, inputs, create_graph=True)
            _strict_check(roots, "jacobian", strict)
            wrt = like = inputs
            if fn == "hvp":
                # H v as the gradient, with respect to u, of the double backward u^T H
                wrt = _zero_vectors(inputs)
                roots = _grad(roots, inputs, wrt, create_graph=True)
    with torch.set_grad_enabled(create_graph or torch.is_grad_enabled()):
        grads = _grad(roots, wrt, v, create_graph=create_graph)
        result = _zeros_for_none(grads, like, strict, create_graph, fn)
    return (_untupled(_finished(outputs, create_graph), out_tuple),
            _untupled(_finished(result, create_graph), out_tuple if fn == "jvp" else in_tuple))


# ---- Jacobians -----------------------------------------------------------------------------

def _basis(tensors):
    """The standard basis over all the tensors' elements: the identity's columns cut into
    one (N, numel) piece per tensor, in its dtype (row k is 1 at the k-th element)."""
    numels = [t.numel() for t in tensors]
    pieces = torch.eye(sum(numels)).split(numels, dim=1)
    return tuple(p.to(t.dtype) for p, t in zip(pieces, tensors))


def _element_rows(index, out, inputs, create_graph, strict):
    """Rows of output `index` without vmap: one backward pass per element, stacked per input."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(out.nelement()):
        grads = _grad((flat[k],), inputs, create_graph=create_graph, retain_graph=True)
        for j, (g, x) in enumerate(zip(grads, inputs)):
            if g is None and strict:
                raise RuntimeError(f"Output {index} of the user-provided function is "
                                   f"independent of input {j}. This is not allowed in strict "
                                   "mode.")
            if g is not None and strict and create_graph and not g.requires_grad:
                # (PyTorch names the output's index as the input's here)
                raise RuntimeError(_JACOBIAN_CONSTANT.format(i=index))
            rows[j].append(torch.zeros_like(x) if g is None else g)
    return [torch.stack(r) for r in rows]


def _by_rows(outputs, inputs, create_graph, strict, vectorize):
    """Reverse mode: blocks[i][j], the rows of output i (one per element) against input j."""
    if vectorize:
        numels = [o.numel() for o in outputs]
        grads = _grad([o.reshape(-1) for o in outputs], inputs, _basis(outputs),
                      create_graph=create_graph, batched=True)
        rows = [(torch.zeros_like(x).expand(sum(numels), *x.shape) if g is None else g)
                .split(numels) for g, x in zip(grads, inputs)]
        blocks = zip(*rows)
    else:
        blocks = (_element_rows(i, out, inputs, create_graph, strict)
                  for i, out in enumerate(outputs))
    return tuple(tuple(b.view(out.shape + x.shape) for b, x in zip(row, inputs))
                 for row, out in zip(blocks, outputs))


def _by_columns(func, inputs):
    """Forward mode: (whether func returns a tuple, blocks[i][j]), the columns of output i
    (one per element of input j, by a dual-number pass each) moved last."""
    numels = [x.numel() for x in inputs]
    returned = []

    def column(*tangents):
        with fwAD.dual_level():
            duals = [fwAD.make_dual(x, t.view_as(x)) for x, t in zip(inputs, tangents)]
            was_tuple, outs = _tupled(func(*duals), "outputs", None)
            unpacked = [fwAD.unpack_dual(o) for o in outs]
            returned[:] = [was_tuple, [p for p, _ in unpacked]]
            return tuple(torch.zeros_like(p) if t is None else t for p, t in unpacked)

    try:
        columns = vmap(column)(*_basis(inputs))
    except RuntimeError as e:
        # PyTorch maps with its legacy vmap, which words its refusal of random ops so
        if not str(e).startswith("vmap: called random operation"):
            raise
        raise RuntimeError("vmap: We do not yet support calling random operations inside of "
                           "vmap. Please perform random operations outside of vmap as a "
                           "workaround") from None
    out_tuple, outputs = returned
    return out_tuple, tuple(
        tuple(c.permute(*range(1, c.dim()), 0).reshape(out.shape + x.shape)
              for c, x in zip(cols.split(numels), inputs))
        for cols, out in zip(columns, outputs))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`, nested by outputs then inputs as PyTorch's."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported '
                                      "together (yet). Please either set `create_graph=False` "
                                      'or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). '
                               'Please either set `strict=False` or `strategy="reverse-mode"`.')
        in_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian isonly implemented for "
                                      "`vectorize=True`.")
        out_tuple, blocks = _by_columns(func, inputs)
        return _untupled(blocks, out_tuple, in_tuple)
    with torch.enable_grad():
        in_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, True)
        out_tuple, outputs = _called(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either "
                               "set `strict=False` or `vectorize=False`.")
        blocks = _by_rows(outputs, inputs, create_graph, strict, vectorize)
    return _untupled(_finished(blocks, create_graph), out_tuple, in_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function `func` at `inputs`: the jacobian of its gradient."""
    in_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*args):
        return _called(func, args, "hessian", strict, scalar=True)[1][0].squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            # the dual inputs must require grad, or the inner jacobian would detach them
            args = tuple(a.requires_grad_(True) for a in args)
        grads = jacobian(scalar, args, create_graph=True)
        _strict_check(grads, "jacobian", strict)
        return grads

    blocks = jacobian(gradient, inputs, create_graph, strict, vectorize, outer_jacobian_strategy)
    return _untupled(blocks, in_tuple, in_tuple)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """v^T J of `func` at `inputs`: returns (func_output, vjp)."""
    return _product("vjp", func, inputs, v, create_graph, strict)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """J v of `func` at `inputs` (by two reverse passes, as PyTorch's): returns
    (func_output, jvp)."""
    return _product("jvp", func, inputs, v, create_graph, strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """v^T H of the scalar function `func` at `inputs`: returns (func_output, vhp)."""
    return _product("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """H v of the scalar function `func` at `inputs`: returns (func_output, hvp)."""
    return _product("hvp", func, inputs, v, create_graph, strict)
