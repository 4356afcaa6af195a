"""gradcheck and gradgradcheck: analytical Jacobians against central finite differences.

The numerical Jacobian perturbs each input element by +-eps and re-runs the function; the
analytical one backpropagates one-hot gradients, one output element at a time, twice (the
runs must agree within nondet_tol). Both are meant for small float64 inputs in tests.
Complex numbers are checked as PyTorch's gradcheck does (Note [Complex gradcheck]).
fast_mode compares random projections instead (Note [Fast gradcheck]). After the Jacobians,
as PyTorch's: batched gradients under vmap (check_batched_grad, check_batched_forward_grad),
zero grad_outputs giving zero gradients, and undefined output gradients being accepted
(check_undefined_grad), each failure a GradcheckError with PyTorch's message.
"""
import warnings

import numpy as np

from .function import Function

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,) if not isinstance(x, list) else tuple(x)


def _differentiable(outputs):
    from .._tensor import Tensor
    return tuple(o for o in outputs if isinstance(o, Tensor) and o.requires_grad)


def _tensor_outputs(outputs):
    from .._tensor import Tensor
    return [o for o in _as_tuple(outputs) if isinstance(o, Tensor)]


def _central(plus, minus, eps):
    """The central difference of two output arrays, flattened (PyTorch subtracts tensors,
    which bool outputs refuse)."""
    if plus.dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return ((plus - minus) / (2 * eps)).reshape(-1)


# Note [Complex gradcheck]
# As PyTorch's: a complex output is checked as two real functions, its imaginary part first,
# then its real part (messages then start "While considering the imaginary/real part of
# complex outputs only, "). For a complex input z = x + iy and a real output s, backward
# gives ds/dx + i ds/dy (twice the conjugate Wirtinger derivative), so the numerical column
# is that combination of the differences along eps and along i eps. Forward mode checks a
# complex input along i, then along 1, with tangents i e and e.

def _numerical_jacobian(func, inputs, wrt, outputs, positions, eps, direction=None):
    """positions: which tensor outputs are differentiable (under no_grad none requires
    grad, so they are picked by position). A complex input's columns are ds/dx + i ds/dy
    (direction None) or the differences along `direction` (1 or 1j) alone."""
    from .grad_mode import no_grad

    def differences(data, idx, step):
        orig = data[idx].copy()
        with no_grad():
            data[idx] = orig - step
            outs = _tensor_outputs(func(*inputs))
            minus = [outs[p]._data.copy() for p in positions]
            data[idx] = orig + step
            outs = _tensor_outputs(func(*inputs))
            plus = [outs[p]._data.copy() for p in positions]
        data[idx] = orig
        return [_central(p, m, eps) for p, m in zip(plus, minus)]

    jac = [[np.zeros((t._data.size, o._data.size), np.result_type(t._data.dtype, o._data.dtype))
            for o in outputs] for t in wrt]
    for i, t in enumerate(wrt):
        data = t._data
        for j in range(data.size):
            idx = np.unravel_index(j, data.shape)
            if data.dtype.kind != "c":
                columns = differences(data, idx, eps)
            elif direction is None:
                columns = [dx + 1j * dy for dx, dy in zip(differences(data, idx, eps),
                                                          differences(data, idx, 1j * eps))]
            else:
                columns = differences(data, idx, direction * eps)
            for k, column in enumerate(columns):
                jac[i][k][j] = column
    return jac


def _vjps(output, wrt, grad_output):
    """Gradients of `output` for `wrt` weighted by `grad_output` (None where unused)."""
    from . import grad as autograd_grad
    return autograd_grad(output, wrt, grad_output, retain_graph=True, allow_unused=True)


def _analytical_rows(output, wrt, grad_outputs):
    """For each input, the matrix (input numel, number of grad_outputs) whose columns are
    the vector-Jacobian products with `grad_outputs` (zeros where the input is unused);
    and whether every gradient had its input's shape and dtype."""
    jac = [np.zeros((t._data.size, len(grad_outputs)),
                    np.result_type(t._data.dtype, output._data.dtype)) for t in wrt]
    sizes_ok = dtypes_ok = True
    for j, go in enumerate(grad_outputs):
        for i, (t, g) in enumerate(zip(wrt, _vjps(output, wrt, go))):
            if g is None:
                continue
            if g._data.shape != t._data.shape:
                sizes_ok = False
            elif g._data.dtype != t._data.dtype:
                dtypes_ok = False
            jac[i][:, j] = g._data.reshape(-1)
    return jac, sizes_ok, dtypes_ok


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _checked_analytical(output, wrt, grad_outputs, nondet_tol, check_grad_dtypes):
    """_analytical_rows computed twice: the gradients must have their inputs' shapes (and
    dtypes, with check_grad_dtypes) and the two runs agree within nondet_tol."""
    first, sizes_ok, dtypes_ok = _analytical_rows(output, wrt, grad_outputs)
    second = _analytical_rows(output, wrt, grad_outputs)[0]
    if not dtypes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if any(a.size and np.abs(a - b).max() > nondet_tol for a, b in zip(first, second)):
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and "
            "grad_output multiple times gives different values, although analytical gradient "
            f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + _NONDET_NOTE)
    return first


def _one_hots(output):
    """The basis of `output`'s space, as gradients shaped like it, each in its own storage
    (a backward using as_strided reads the gradient's storage from its start)."""
    from .._creation import from_numpy
    data = output._data
    rows = []
    for j in range(data.size):
        e = np.zeros(data.shape, data.dtype)
        e.flat[j] = 1
        rows.append(from_numpy(e))
    return rows


def _forward_jacobian(func, inputs, wrt, outputs, positions, direction=1):
    """The Jacobian from forward-mode AD: one one-hot tangent per input element (`direction`
    times it for a complex input)."""
    from .._creation import from_numpy
    from . import forward_ad
    jac = [[np.zeros((t._data.size, o._data.size), np.result_type(t._data.dtype, o._data.dtype))
            for o in outputs] for t in wrt]
    for i, t in enumerate(wrt):
        at = next(n for n, x in enumerate(inputs) if x is t)
        for j in range(t._data.size):
            e = np.zeros(t._data.size, t._data.dtype)
            e[j] = direction if t._data.dtype.kind == "c" else 1
            with forward_ad.dual_level():
                args = list(inputs)
                args[at] = forward_ad.make_dual(t, from_numpy(e.reshape(t._data.shape)))
                outs = _tensor_outputs(func(*args))
                for k, p in enumerate(positions):
                    tangent = forward_ad.unpack_dual(outs[p]).tangent
                    if tangent is not None:
                        jac[i][k][j] = tangent._data.reshape(-1)
    return jac


def _mismatch(mode, k, i, numerical, analytical, part=""):
    """part: "While considering the ... part of complex outputs/inputs only, " or ""."""
    return (f"{part}Jacobian {mode}mismatch for output {k:d} with respect to input {i:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _part_of_outputs(func, part):
    """func with each complex tensor output replaced by its real or imaginary part."""
    from .._tensor import Tensor

    def split(*args):
        return tuple(getattr(o, part) if isinstance(o, Tensor) and o.is_complex() else o
                     for o in _as_tuple(func(*args)))
    return split


def _check_inputs(inputs):
    from .._tensor import Tensor
    wrt = []
    for i, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue
        if t._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=4)
        if any(st == 0 and sz > 1 for st, sz in zip(t.stride(), t.shape)):
            raise RuntimeError(
                f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                "that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        wrt.append(t)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    return tuple(wrt)


def _slow_backward_check(func, inputs, wrt, all_outputs, positions, eps, atol, rtol,
                         nondet_tol, check_grad_dtypes):
    """Note [Complex gradcheck]: with complex outputs, the imaginary then the real parts."""
    complex_outputs = {k for k, p in enumerate(positions) if all_outputs[p].is_complex()}
    if not complex_outputs:
        _real_backward_check(func, inputs, wrt, all_outputs, positions, eps, atol, rtol,
                             nondet_tol, check_grad_dtypes, complex_outputs, "")
        return
    for part, name in (("imag", "imaginary"), ("real", "real")):
        split = _part_of_outputs(func, part)
        _real_backward_check(split, inputs, wrt, _tensor_outputs(split(*inputs)), positions,
                             eps, atol, rtol, nondet_tol, check_grad_dtypes, complex_outputs,
                             f"While considering the {name} part of complex outputs only, ")


def _real_backward_check(func, inputs, wrt, all_outputs, positions, eps, atol, rtol,
                         nondet_tol, check_grad_dtypes, complex_outputs, part):
    from .._creation import from_numpy
    outputs = [all_outputs[p] for p in positions]
    numerical = _numerical_jacobian(func, inputs, wrt, outputs, positions, eps)
    for k, o in enumerate(outputs):
        analytical = _checked_analytical(o, wrt, _one_hots(o), nondet_tol, check_grad_dtypes)
        for i in range(len(wrt)):
            a, n = analytical[i], numerical[i][k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch("", k, i, from_numpy(n), from_numpy(a),
                                               part if k in complex_outputs else ""))


def _slow_forward_check(func, inputs, wrt, outputs, positions, eps, atol, rtol):
    """Forward-mode Jacobians against differences; complex inputs along i, then along 1
    (Note [Complex gradcheck])."""
    from .._creation import from_numpy
    from .._tensor import Tensor
    # PyTorch names the complex inputs by their index among all inputs, and the input of a
    # mismatch by its index among those requiring grad: the prefix compares the two
    complex_inputs = {n for n, x in enumerate(inputs) if isinstance(x, Tensor) and x.is_complex()}
    passes = ((1j, "imaginary"), (1, "real")) if complex_inputs else ((1, ""),)
    for direction, name in passes:
        numerical = _numerical_jacobian(func, inputs, wrt, outputs, positions, eps, direction)
        forward = _forward_jacobian(func, inputs, wrt, outputs, positions, direction)
        for i in range(len(wrt)):
            for k in range(len(outputs)):
                a, n = forward[i][k], numerical[i][k]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    part = (f"While considering the {name} part of complex inputs only, "
                            if i in complex_inputs else "")
                    raise GradcheckError(_mismatch("computed with forward mode ", k, i,
                                                   from_numpy(n), from_numpy(a), part))


# ---- fast mode: Note [Fast gradcheck] ----------------------------------------------------
# Instead of whole Jacobians J, fast mode compares one number per (input, output) pair:
# v^T J u, with u and v random unit vectors (uniform entries, from a fresh generator, so
# the user's random stream is untouched and the vectors are PyTorch's). The numerical side
# is a central difference along u, dotted with v; the analytical side one backward with v,
# dotted with u. atol is scaled by sum(u) * sum(v), the v^T (all ones) u a matrix of atol
# becomes. As in PyTorch, the numerical side pairs the floating outputs, differentiable or
# not, with the differentiable outputs' v, in order. Forward mode draws no v: it compares
# the vectors J u themselves (atol scaled by sum(u)). On a mismatch the message also gives
# the slow-mode Jacobians of the pair.

_FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _unit_vector(t, generator):
    import chainrule
    v = chainrule.rand(t.numel(), generator=generator).to(dtype=t.dtype)
    return (v / v.norm())._data


def _directional_difference(func, inputs, t, u, eps):
    """(f(t + eps u) - f(t - eps u)) / (2 eps), flattened, for each floating output."""
    from .grad_mode import no_grad
    data = t._data
    orig = data.copy()
    step = eps * u.reshape(data.shape)
    try:
        with no_grad():
            data[...] = orig - step
            minus = [o._data.copy() for o in _tensor_outputs(func(*inputs))]
            data[...] = orig + step
            outs = _tensor_outputs(func(*inputs))
            plus = [o._data.copy() for o in outs]
    finally:
        data[...] = orig
    return [_central(p, m, eps) for o, p, m in zip(outs, plus, minus)
            if o.is_floating_point() or o.is_complex()]


def _fast_backward_check(func, inputs, wrt, all_outputs, positions, eps, atol, rtol,
                         nondet_tol, check_grad_dtypes):
    import chainrule
    from .._creation import from_numpy
    outputs = [all_outputs[p] for p in positions]
    generator = chainrule.Generator()
    us = [_unit_vector(t, generator) for t in wrt]
    vs = [_unit_vector(o, generator) for o in outputs]
    numerical = [[float(np.dot(v, ju)) for v, ju in
                  zip(vs, _directional_difference(func, inputs, t, u, eps))]
                 for t, u in zip(wrt, us)]
    analytical = []
    for o, v in zip(outputs, vs):
        vj = _checked_analytical(o, wrt, [from_numpy(v.reshape(o._data.shape))], nondet_tol,
                                 check_grad_dtypes)
        analytical.append([float(np.dot(j[:, 0], u)) for j, u in zip(vj, us)])
    for i, u in enumerate(us):
        for k, n in enumerate(numerical[i]):
            a = analytical[k][i]
            if abs(a - n) > atol * u.sum() * vs[k].sum() + rtol * abs(n):
                raise GradcheckError(_mismatch("", k, i, n, a) + _slow_report(
                    func, inputs, wrt, all_outputs, outputs, i, k, eps, atol, rtol))


def _forward_directional(func, inputs, t, u):
    """J u by forward AD, for each floating output: `t`'s tangent is u, the other inputs
    requiring grad carry zero tangents (PyTorch's duals)."""
    import chainrule
    from .._creation import from_numpy
    from .._tensor import Tensor
    from . import forward_ad
    with forward_ad.dual_level():
        args = [x if not (isinstance(x, Tensor) and x.requires_grad) else
                forward_ad.make_dual(x.detach(), from_numpy(u.reshape(x._data.shape))
                                     if x is t else chainrule.zeros_like(x))
                for x in inputs]
        result = []
        for out in _floating(func(*args)):
            tangent = forward_ad.unpack_dual(out).tangent
            result.append(np.zeros(out._data.size, out._data.dtype) if tangent is None
                          else tangent._data.reshape(-1).copy())
    return result


def _fast_forward_check(func, inputs, wrt, all_outputs, eps, atol, rtol):
    """Fast mode in forward AD: J u from tangents against J u from differences, per input
    and floating output (atol scaled by sum(u)); no v is drawn."""
    import chainrule
    from .._creation import from_numpy
    generator = chainrule.Generator()
    us = [_unit_vector(t, generator) for t in wrt]
    for i, (t, u) in enumerate(zip(wrt, us)):
        numerical = _directional_difference(func, inputs, t, u, eps)
        analytical = _forward_directional(func, inputs, t, u)
        for k, (a, n) in enumerate(zip(analytical, numerical)):
            if not np.allclose(a, n, rtol=rtol, atol=atol * u.sum()):
                raise GradcheckError(
                    _mismatch("computed with forward mode ", k, i, from_numpy(n),
                              from_numpy(a))
                    + _slow_report(func, inputs, wrt, all_outputs, _floating(all_outputs), i,
                                   k, eps, atol, rtol, forward=True))


def _slow_report(func, inputs, wrt, all_outputs, outputs, i, k, eps, atol, rtol,
                 forward=False):
    """The slow-mode Jacobians of input i and output k, for a fast-mode failure."""
    from .._creation import from_numpy
    numerical = _numerical_jacobian(func, inputs, wrt[i:i + 1], all_outputs,
                                    range(len(all_outputs)), eps)[0][k]
    if forward:
        position = next(n for n, o in enumerate(all_outputs) if o is outputs[k])
        analytical = _forward_jacobian(func, inputs, wrt[i:i + 1], outputs[k:k + 1],
                                       [position])[0][0]
    else:
        analytical = _analytical_rows(outputs[k], wrt, _one_hots(outputs[k]))[0][i]
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are "
           "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for "
           "more background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {from_numpy(numerical)}\nAnalytical:\n{from_numpy(analytical)}\n\n"
           "The max per-element difference (slow mode) is: "
           f"{from_numpy(np.asarray(np.abs(numerical - analytical).max()))}.\n")
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        msg += _FAST_FAIL_SLOW_OK
    return msg


# ---- checks beyond the Jacobian ----------------------------------------------------------

_BATCHED_NOTE = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.

If you're modifying an existing operator that supports batched grad computation,
or wish to make a new operator work with batched grad computation, please read
the following.

To compute batched grads (e.g., jacobians, hessians), we vmap over the backward
computation. The most common failure case is if there is a 'vmap-incompatible
operation' in the backward pass. Please see
NOTE: [How to write vmap-compatible backward formulas]
in the codebase for an explanation of how to fix this.
""".strip()


_BATCHED_FORWARD_NOTE = """
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_forward_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_forward_grad=False`
"""


def _batched_failure(k, i, note, got, expected):
    return f"For output {k} and input {i}:\n\n{note}\n\nGot:\n{got}\n\nExpected:\n{expected}"


def _check_batched_forward_grad(func, inputs):
    """Forward AD with two random tangents per input, once each and once under vmap: the
    output tangents must agree."""
    import chainrule
    from .._tensor import Tensor
    from . import forward_ad
    for at, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue

        def jvp(tangent):
            with forward_ad.dual_level():
                args = [forward_ad.make_dual(t.detach(), tangent) if n == at else
                        x.detach() if isinstance(x, Tensor) else x for n, x in enumerate(inputs)]
                tangents = []
                for out in _as_tuple(func(*args)):
                    if out is None:
                        continue
                    primal, tangent_out = forward_ad.unpack_dual(out)
                    tangents.append(chainrule.zeros((), dtype=primal.dtype).expand(primal.shape)
                                    if tangent_out is None else tangent_out)
                return tuple(tangents)

        if not (t.is_floating_point() or t.is_complex()):
            continue
        # PyTorch's message names the output's index for both
        _vmap_agrees(jvp, t, _BATCHED_FORWARD_NOTE, lambda k: (k, k))


def _check_batched_grad(wrt, output, k):
    """Backward of `output` with two random grad_outputs, once each and once under vmap:
    the results must agree."""
    import chainrule

    def vjp(v):
        return tuple(chainrule.zeros((), dtype=t.dtype).expand(t.shape) if g is None else g
                     for t, g in zip(wrt, _vjps(output, wrt, v)))

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="There is a performance drop")
        _vmap_agrees(vjp, output, _BATCHED_NOTE, lambda i: (k, i))


def _vmap_agrees(fn, like, note, indices):
    """fn of two random tensors like `like`, once each and once under vmap: each result
    must agree; `indices(i)` names the (output, input) of result i in the message."""
    import chainrule
    seeds = [chainrule.randn_like(like) for _ in range(2)]
    expected = [chainrule.stack(shards) for shards in zip(*map(fn, seeds))]
    try:
        result = chainrule.func.vmap(fn)(chainrule.stack(seeds))
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                             f"{note}") from ex
    for i, (res, exp) in enumerate(zip(result, expected)):
        if not chainrule.allclose(res, exp):
            raise GradcheckError(_batched_failure(*indices(i), note, res, exp))


# These checks keep the graph (PyTorch's free it) only to sidestep a chainrule bug: the
# double-backward graph of an in-place op on a view (`b = a * 1; b[0].exp_()`) reaches a
# freed saved tensor within one backward.

def _check_mul_by_grad_output(outputs, wrt, masked):
    """Zero grad_outputs must give zero gradients, of the inputs' dtypes and shapes."""
    import chainrule
    from . import grad as autograd_grad
    grads = autograd_grad(outputs, wrt, [chainrule.zeros_like(o) for o in outputs],
                          retain_graph=True, allow_unused=True)
    for g, t in zip(grads, wrt):
        if g is None:
            continue
        zero = (chainrule.allclose(g, chainrule.zeros_like(g)) if masked
                else bool(np.all(g._data == 0)))
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != t.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != t.shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGrad(Function):
    """Identity whose backward sends an undefined (None) gradient on, as PyTorch's
    UndefinedGrad node does."""

    @staticmethod
    def forward(ctx, t):
        return t.clone()

    @staticmethod
    def backward(ctx, grad):
        return None


def _check_undefined_grad(func, inputs, wrt, n_outputs):
    """Backward must accept undefined output gradients (all of them, then each one alone)
    and give undefined or zero input gradients when all are undefined."""
    import chainrule
    from . import grad as autograd_grad

    def warn():
        warnings.warn("Backwards compatibility: New undefined gradient support checking "
                      "feature is enabled by default, but it may break existing callers of "
                      "this function. If this is true for you, you can call this function "
                      'with "check_undefined_grad=False" to disable the feature', stacklevel=4)

    def differentiable():
        return _differentiable(_as_tuple(func(*inputs)))

    cases = [[_UndefinedGrad.apply(o) for o in differentiable()]]
    if len(cases[0]) > 1:
        for undefined in range(n_outputs):
            cases.append([_UndefinedGrad.apply(o) if k == undefined else o
                          for k, o in enumerate(differentiable())])
    for outs in cases:
        try:
            grads = autograd_grad(outs, wrt, [chainrule.zeros_like(o) for o in outs],
                                  retain_graph=True, allow_unused=True)
        except RuntimeError as e:
            warn()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        if any(g is not None and not np.all(g._data == 0) for g in grads):
            warn()
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"')


def _check_undefined_forward(func, inputs):
    """Forward AD where one input's tangent is zero must give the same output tangents
    whether that zero is a tangent tensor or the input is passed without one."""
    import chainrule
    from .._creation import from_numpy
    from .._tensor import Tensor
    from . import forward_ad
    generator = chainrule.Generator()
    at = [n for n, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    with forward_ad.dual_level():
        duals = list(inputs)
        for n in at:
            t = inputs[n]
            duals[n] = forward_ad.make_dual(t.detach(), from_numpy(
                _unit_vector(t, generator).reshape(t._data.shape)))
        for n in at:
            t = inputs[n]
            kept = duals[n]
            duals[n] = forward_ad.make_dual(t.detach(), chainrule.zeros_like(t))
            with_zero = _floating(func(*duals))
            duals[n] = t.detach()
            without = _floating(func(*duals))
            duals[n] = kept
            for k, (a, b) in enumerate(zip(with_zero, without)):
                ta, tb = forward_ad.unpack_dual(a).tangent, forward_ad.unpack_dual(b).tangent
                if ta is not None and tb is not None and not chainrule.allclose(ta, tb):
                    raise GradcheckError("Mismatch in tangent values for output with index: ",
                                         k, " when input: ", t, " has an undefined tangent "
                                         "value. ", " Got: ", ta, " but expected: ", tb)


def _floating(outputs):
    from .._tensor import Tensor
    return [o for o in _as_tuple(outputs)
            if isinstance(o, Tensor) and (o.is_floating_point() or o.is_complex())]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of `func` at `inputs` against finite differences; returns True
    or raises GradcheckError (returns False with raise_exception=False)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be "
                             "True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    try:
        _gradcheck(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol, check_undefined_grad,
                   check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                   check_forward_ad, check_backward_ad, fast_mode, masked)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
               check_forward_ad, check_backward_ad, fast_mode, masked):
    wrt = _check_inputs(inputs)
    all_outputs = _tensor_outputs(func(*inputs))
    positions = [i for i, o in enumerate(all_outputs) if o.requires_grad]
    outputs = [all_outputs[p] for p in positions]
    if not positions:
        # Nothing to backpropagate: then the function must not depend on its inputs.
        every = range(len(all_outputs))
        for jacs in _numerical_jacobian(func, inputs, wrt, all_outputs, every, eps):
            if any(np.any(j != 0) for j in jacs):
                raise GradcheckError("Numerical gradient for function expected to be zero")
    elif check_backward_ad:
        # fast mode handles real inputs and outputs; complex ones take the slow path
        fast = fast_mode and not any(t.is_complex() for t in list(wrt) + outputs)
        check = _fast_backward_check if fast else _slow_backward_check
        check(func, inputs, wrt, all_outputs, positions, eps, atol, rtol, nondet_tol,
              check_grad_dtypes)
    if positions and check_forward_ad and fast_mode and not any(
            t.is_complex() for t in list(wrt) + outputs):
        _fast_forward_check(func, inputs, wrt, all_outputs, eps, atol, rtol)
        if check_undefined_grad:
            _check_undefined_forward(func, inputs)
    elif positions and check_forward_ad:
        _slow_forward_check(func, inputs, wrt, outputs, positions, eps, atol, rtol)
        if check_undefined_grad:
            _check_undefined_forward(func, inputs)
    if check_batched_forward_grad:
        _check_batched_forward_grad(func, inputs)
    # without differentiable outputs, backward has nothing to check (PyTorch's checks run
    # a backward of no outputs, which gives no gradients)
    if not (check_backward_ad and outputs):
        return
    if check_batched_grad:
        for k, o in enumerate(outputs):
            _check_batched_grad(wrt, o, k)
    _check_mul_by_grad_output(outputs, wrt, masked)
    if check_undefined_grad:
        _check_undefined_grad(func, inputs, wrt, len(outputs))


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the function that maps (inputs, grad_outputs)
    to the first-order gradients, built with create_graph=True. Without grad_outputs,
    random ones in [-1, 1) are drawn from the global generator, as PyTorch's."""
    from .. import testing
    from .._tensor import Tensor
    from . import grad as autograd_grad
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev "
                             "to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be "
                             "True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        import chainrule
        outputs = _differentiable(_as_tuple(func(*inputs)))
        grad_outputs = tuple(
            testing.make_tensor(o.shape, dtype=o.dtype if o.is_floating_point() or
                                o.is_complex() else chainrule.double, device=o.device,
                                low=-1, high=1, requires_grad=True,
                                noncontiguous=gen_non_contig_grad_outputs)
            for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_order(*args):
        # Finite differences call this under no_grad; it needs a graph to differentiate.
        from .grad_mode import enable_grad
        with enable_grad():
            ins, gos = args[:n_in], args[n_in:]
            outs = _differentiable(_as_tuple(func(*ins)))
            wrt = tuple(t for t in ins if isinstance(t, Tensor) and t.requires_grad)
            grads = autograd_grad(outs, wrt, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
