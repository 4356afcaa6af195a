"""gradcheck and gradgradcheck options against torch.autograd's: the same outcome (True,
False, or the same error and message) for the same functions, right and wrong, under
fast_mode, nondet_tol, check_undefined_grad, check_batched_grad, check_grad_dtypes, masked,
eps/atol/rtol and raise_exception."""
import warnings

import pytest
import torch

import chainrule
from helpers import same_error, same_warnings


def _functions(T):
    """Custom Functions, each wrong in one way (or right), written once for both libraries."""

    class Right(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a.cos()

    class Doubled(T.autograd.Function):          # backward twice too large
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a.cos() * 2

    class Noisy(T.autograd.Function):            # backward not deterministic
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a.cos() + T.rand(a.shape, dtype=a.dtype) * 1e-9

    class OnesWhenUndefined(T.autograd.Function):  # undefined grad_output gives ones
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return T.ones_like(a) if g is None else g * a.cos()

    class FailsWhenUndefined(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            if g is None:
                raise RuntimeError("no gradient")
            return g * a.cos()

    class NotMultiplied(T.autograd.Function):    # a constant added to the gradient
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + 1e-3

    class Float32Grad(T.autograd.Function):      # the engine casts it back
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).float()

    class FirstOrderOnly(T.autograd.Function):   # right gradient, no second derivative
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.sin()

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a.detach().cos()

    class ScaledSecond(T.autograd.Function):     # first input's gradient three times too large
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b * 3, g * a

    class WrongJvp(T.autograd.Function):         # forward-mode derivative twice too large
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_forward(a)
            return a.sin()

        @staticmethod
        def jvp(ctx, t):
            a, = ctx.saved_tensors
            return t * a.cos() * 2

        @staticmethod
        def backward(ctx, g):
            return g

    return {
        "wrong_jvp": WrongJvp.apply,
        "sin": T.sin,
        "right": Right.apply,
        "doubled": Doubled.apply,
        "noisy": Noisy.apply,
        "ones_when_undefined": OnesWhenUndefined.apply,
        "fails_when_undefined": FailsWhenUndefined.apply,
        "not_multiplied": NotMultiplied.apply,
        "float32_grad": Float32Grad.apply,
        "first_order_only": FirstOrderOnly.apply,
        "two_outputs": lambda a, b: (a * b, (a + b).exp()),
        "cumsum": lambda a: (a.sin() * a).cumsum(0),
        "exp": T.exp,
        "scaled_second_arg": lambda c, a, b: ScaledSecond.apply(a, b),
        "scaled_second": ScaledSecond.apply,
        "detached_first": lambda a: (a.detach(), a.sin()),
        "no_grad_output": lambda a: a.detach() * 2,
        "constant": lambda a: T.zeros(2, dtype=T.float64),
        "bool_output": lambda a: a > 0,
        "softmax_pair": lambda a, b: (a.softmax(0) * b, a.tanh()),
    }


def _inputs(T, name):
    x = T.tensor([0.3, -0.7, 1.1], dtype=T.float64, requires_grad=True)
    if name in ("two_outputs", "softmax_pair"):
        return x, T.tensor([0.5, 2.0, -1.5], dtype=T.float64, requires_grad=True)
    if name == "scaled_second":
        return (T.tensor([0.5, 2.0], dtype=T.float64, requires_grad=True),
                T.tensor([1.5, -0.5], dtype=T.float64, requires_grad=True))
    if name == "scaled_second_arg":
        return (T.tensor([1.0, 2.0], dtype=T.float64),
                T.tensor([0.5, 2.0], dtype=T.float64, requires_grad=True),
                T.tensor([1.5, -0.5], dtype=T.float64, requires_grad=True))
    return (x,)


def _outcome(T, check, name, **options):
    """(result or exception class and message, warnings) of one check on one library."""
    T.manual_seed(0)
    fn = _functions(T)[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = getattr(T.autograd, check)(fn, _inputs(T, name), **options)
        except Exception as e:     # noqa: BLE001  (compared with PyTorch's)
            result = (type(e).__name__, str(e))
    return result, [(w.category.__name__, str(w.message)) for w in caught
                    if "torch.jit" not in str(w.message)]


def _same_outcome(check, name, **options):
    theirs = _outcome(torch, check, name, **options)
    ours = _outcome(chainrule, check, name, **options)
    assert ours == theirs
    return ours[0]


FAST = [False, True]

# (function, options, expected outcome: True, False, or the GradcheckError message's start)
GRADCHECK_CASES = [
    ("sin", {}, True),
    ("right", {}, True),
    ("two_outputs", {}, True),
    ("softmax_pair", {}, True),
    ("cumsum", {"check_batched_grad": True}, True),
    ("softmax_pair", {"check_batched_grad": True}, True),
    ("cumsum", {"check_forward_ad": True, "check_batched_forward_grad": True}, True),
    ("two_outputs", {"check_forward_ad": True}, True),
    ("wrong_jvp", {"check_forward_ad": True, "check_backward_ad": False},
     "Jacobian computed with forward mode mismatch for output 0 with respect to input 0"),
    ("two_outputs", {"check_forward_ad": True, "check_batched_forward_grad": True,
                     "check_backward_ad": False, "check_undefined_grad": False}, True),
    ("doubled", {}, "Jacobian mismatch for output 0 with respect to input 0"),
    ("doubled", {"raise_exception": False}, False),
    ("doubled", {"atol": 10, "rtol": 10}, True),
    ("scaled_second", {}, "Jacobian mismatch for output 0 with respect to input 0"),
    ("scaled_second_arg", {}, "Jacobian mismatch for output 0 with respect to input 0"),
    ("noisy", {}, "Backward is not reentrant"),
    ("noisy", {"nondet_tol": 1e-6}, "backward not multiplied by grad_output"),
    ("ones_when_undefined", {}, "Expected all input grads to be undefined or zero"),
    ("ones_when_undefined", {"check_undefined_grad": False}, True),
    ("fails_when_undefined", {}, "Expected backward function to handle undefined"),
    ("float32_grad", {"check_grad_dtypes": True}, True),
    ("right", {"masked": True}, True),
    ("no_grad_output", {}, "Numerical gradient for function expected to be zero"),
    ("constant", {}, True),
    ("bool_output", {}, None),     # PyTorch's RuntimeError for subtracting bool tensors
]


@pytest.mark.parametrize("fast_mode", FAST)
@pytest.mark.parametrize("name, options, expected", GRADCHECK_CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1])}" for c in GRADCHECK_CASES])
def test_gradcheck_outcomes(name, options, expected, fast_mode):
    result = _same_outcome("gradcheck", name, fast_mode=fast_mode, **options)
    if isinstance(expected, str):
        assert result[0] == "GradcheckError" and result[1].startswith(expected), result
    elif expected is None:
        assert result[0] == "RuntimeError", result
    else:
        assert result is expected


@pytest.mark.parametrize("fast_mode", FAST)
def test_fast_and_slow_disagree_as_pytorchs(fast_mode):
    """A large eps fails the element-wise check and passes the projected one; a fast-mode
    failure reports both the projections and the slow-mode Jacobians."""
    result = _same_outcome("gradcheck", "exp", eps=1e-1, fast_mode=fast_mode)
    assert (result is True) == fast_mode
    result = _same_outcome("gradcheck", "detached_first", fast_mode=fast_mode,
                           check_undefined_grad=False)
    assert (result is True) != fast_mode     # PyTorch pairs outputs by position in fast mode
    if fast_mode:
        assert "The max per-element difference (slow mode) is:" in result[1]


@pytest.mark.parametrize("fast_mode", FAST)
@pytest.mark.parametrize("name, options, expected", [
    ("sin", {}, True),
    ("two_outputs", {"check_batched_grad": True}, True),
    ("first_order_only", {}, "Jacobian mismatch for output 0 with respect to input 0"),
    ("first_order_only", {"raise_exception": False}, False),
    ("right", {"check_undefined_grad": False, "nondet_tol": 1e-12}, True),
])
def test_gradgradcheck_outcomes(name, options, expected, fast_mode):
    result = _same_outcome("gradgradcheck", name, fast_mode=fast_mode, **options)
    if isinstance(expected, str):
        assert result[0] == "GradcheckError" and result[1].startswith(expected), result
    else:
        assert result is expected


def test_option_errors():
    x = lambda T: T.tensor([0.5], dtype=T.float64, requires_grad=True)  # noqa: E731
    same_error(lambda T: T.autograd.gradcheck(T.sin, (x(T),), check_forward_ad=False,
                                              check_backward_ad=False))
    same_error(lambda T: T.autograd.gradcheck(T.sin, (x(T),), check_batched_grad=True,
                                              check_backward_ad=False, check_forward_ad=True))
    same_error(lambda T: T.autograd.gradcheck(T.sin, (x(T),), check_batched_forward_grad=True))
    same_error(lambda T: T.autograd.gradgradcheck(T.sin, (x(T),), check_rev_over_rev=False))
    same_error(lambda T: T.autograd.gradgradcheck(T.sin, (x(T),), check_rev_over_rev=False,
                                                  check_fwd_over_rev=True))
    same_error(lambda T: T.autograd.gradgradcheck(T.sin, (x(T),), check_rev_over_rev=False,
                                                  check_fwd_over_rev=True,
                                                  check_undefined_grad=False,
                                                  check_batched_grad=True))
    same_error(lambda T: T.autograd.gradcheck(T.sin, (T.ones(3, dtype=T.float64),)))
    same_error(lambda T: T.autograd.gradcheck(
        T.sin, (T.ones(1, dtype=T.float64).expand(3).requires_grad_(),)))
    same_warnings(lambda T: T.autograd.gradcheck(T.sin, (T.ones(2, requires_grad=True),),
                                                 atol=1e-2, rtol=1e-2))
