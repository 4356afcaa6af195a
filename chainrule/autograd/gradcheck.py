"""gradcheck and gradgradcheck: analytical Jacobians against central finite differences.

The numerical Jacobian perturbs each input element by +-eps and re-runs the function; the
analytical one backpropagates one-hot gradients, one output element at a time. Both are
meant for small float64 inputs in tests.
"""
import warnings

import numpy as np

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


def _numerical_jacobian(func, inputs, wrt, outputs, positions, eps):
    """positions: which tensor outputs are differentiable (under no_grad none requires
    grad, so they are picked by position)."""
    from .grad_mode import no_grad
    jac = [[np.zeros((t._data.size, o._data.size), np.result_type(t._data.dtype, o._data.dtype))
            for o in outputs] for t in wrt]
    for i, t in enumerate(wrt):
        data = t._data
        for j in range(data.size):
            idx = np.unravel_index(j, data.shape)
            orig = data[idx].copy()
            with no_grad():
                data[idx] = orig - eps
                outs = _tensor_outputs(func(*inputs))
                minus = [outs[p]._data.copy() for p in positions]
                data[idx] = orig + eps
                outs = _tensor_outputs(func(*inputs))
                plus = [outs[p]._data.copy() for p in positions]
            data[idx] = orig
            for k, (p, m) in enumerate(zip(plus, minus)):
                jac[i][k][j] = ((p - m) / (2 * eps)).reshape(-1)
    return jac


def _analytical_jacobian(inputs, wrt, outputs):
    from .. import _creation
    from . import grad as autograd_grad
    jac = [[np.zeros((t._data.size, o._data.size), np.result_type(t._data.dtype, o._data.dtype))
            for o in outputs] for t in wrt]
    for k, o in enumerate(outputs):
        for j in range(o._data.size):
            g = np.zeros(o._data.size, o._data.dtype)
            g[j] = 1
            grads = autograd_grad(o, wrt, _creation.from_numpy(g.reshape(o._data.shape)),
                                  retain_graph=True, allow_unused=True)
            for i, gi in enumerate(grads):
                if gi is not None:
                    jac[i][k][:, j] = gi._data.reshape(-1)
    return jac


def _forward_jacobian(func, inputs, wrt, outputs, positions):
    """The Jacobian from forward-mode AD: one one-hot tangent per input element."""
    from .._creation import from_numpy
    from . import forward_ad
    jac = [[np.zeros((t._data.size, o._data.size), np.result_type(t._data.dtype, o._data.dtype))
            for o in outputs] for t in wrt]
    for i, t in enumerate(wrt):
        at = next(n for n, x in enumerate(inputs) if x is t)
        for j in range(t._data.size):
            e = np.zeros(t._data.size, t._data.dtype)
            e[j] = 1
            with forward_ad.dual_level():
                args = list(inputs)
                args[at] = forward_ad.make_dual(t, from_numpy(e.reshape(t._data.shape)))
                outs = _tensor_outputs(func(*args))
                for k, p in enumerate(positions):
                    tangent = forward_ad.unpack_dual(outs[p]).tangent
                    if tangent is not None:
                        jac[i][k][j] = tangent._data.reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of `func` at `inputs` against finite differences; returns True
    or raises GradcheckError (returns False with raise_exception=False)."""
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    wrt = tuple(t for t in inputs if isinstance(t, Tensor) and t.requires_grad)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad and t._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are not "
                          "of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    all_outputs = _tensor_outputs(func(*inputs))
    positions = [i for i, o in enumerate(all_outputs) if o.requires_grad]
    if not positions:
        # Nothing to backpropagate: then the function must not depend on its inputs.
        every = range(len(all_outputs))
        for jacs in _numerical_jacobian(func, inputs, wrt, all_outputs, every, eps):
            if any(np.any(j != 0) for j in jacs):
                if raise_exception:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
                return False
        return True
    outputs = [all_outputs[p] for p in positions]
    numerical = _numerical_jacobian(func, inputs, wrt, outputs, positions, eps)
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical_jacobian(inputs, wrt, outputs)))
    if check_forward_ad:
        checks.append(("computed with forward mode ",
                       _forward_jacobian(func, inputs, wrt, outputs, positions)))
    input_index = {id(t): i for i, t in enumerate(inputs)}
    for mode, analytical in checks:
        for i, t in enumerate(wrt):
            for k in range(len(outputs)):
                a, n = analytical[i][k], numerical[i][k]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    from .._creation import from_numpy
                    msg = (f"Jacobian {mode}mismatch for output {k} with respect to input "
                           f"{input_index[id(t)]},\nnumerical:{from_numpy(n)!r}\n"
                           f"analytical:{from_numpy(a)!r}\n")
                    if raise_exception:
                        raise GradcheckError(msg)
                    return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the function that maps (inputs, grad_outputs)
    to the first-order gradients, built with create_graph=True."""
    from .. import _creation
    from .._tensor import Tensor
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable(_as_tuple(func(*inputs)))
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _creation.from_numpy(rng.standard_normal(o._data.shape).astype(o._data.dtype))
            .requires_grad_() for o in outputs)
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
                     raise_exception=raise_exception, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev)
