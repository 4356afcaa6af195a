"""gradcheck with complex inputs and outputs (Wirtinger derivatives: the input perturbed
along its real and imaginary parts, a complex output checked as its imaginary then its
real part), against torch.autograd.gradcheck on the same functions: the same verdict, and
for a wrong backward the same message."""
import pytest
import torch

import chainrule
from helpers import error_of, same


def _functions(T):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            ctx.save_for_forward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            z, = ctx.saved_tensors
            return g * 2 * z.conj()

        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.saved_tensors[0] * t

    class SquareWithoutConj(Square):
        # the holomorphic derivative where PyTorch's convention needs its conjugate
        @staticmethod
        def backward(ctx, g):
            z, = ctx.saved_tensors
            return g * 2 * z

    class SquareWrongJvp(Square):
        @staticmethod
        def jvp(ctx, t):
            return 2 * ctx.saved_tensors[0].conj() * t

    class AbsWithConj(T.autograd.Function):
        # real output: right along the real axis only (the gradient is z / |z|)
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z.abs()

        @staticmethod
        def backward(ctx, g):
            z, = ctx.saved_tensors
            return g * z.conj() / z.abs()

    return {
        "square": (lambda z, x: z * z, {}),
        "abs": (lambda z, x: z.abs(), {}),
        "real_to_complex": (lambda z, x: x * (1 + 2j), {}),
        "mixed": (lambda z, x: ((z * x).exp(), x.sin()), {}),
        "view_as_real": (lambda z, x: T.view_as_real(z * 2), {}),
        "custom": (lambda z, x: Square.apply(z), {}),
        "custom_without_conj": (lambda z, x: SquareWithoutConj.apply(z), {}),
        "custom_real_output_wrong": (lambda z, x: AbsWithConj.apply(z), {}),
        "forward": (lambda z, x: (z * x).sin(), dict(check_forward_ad=True)),
        "custom_jvp": (lambda z, x: Square.apply(z),
                       dict(check_forward_ad=True, check_backward_ad=False)),
        "custom_wrong_jvp": (lambda z, x: SquareWrongJvp.apply(z),
                             dict(check_forward_ad=True, check_backward_ad=False)),
        "fast": (lambda z, x: (z * z).sin() * x, dict(fast_mode=True)),
    }


def _inputs(T):
    z = T.tensor([1 + 2j, -0.5 + 0.3j, 0.7 - 1.1j], dtype=T.complex128, requires_grad=True)
    x = T.tensor([0.3, -1.2, 0.8], dtype=T.float64, requires_grad=True)
    return z, x


NAMES = list(_functions(__import__("torch")))
WRONG = ["custom_without_conj", "custom_real_output_wrong", "custom_wrong_jvp"]


@pytest.mark.parametrize("name", NAMES)
def test_verdict_as_pytorch(name):
    def prog(T):
        fn, kwargs = _functions(T)[name]
        return T.autograd.gradcheck(fn, _inputs(T), raise_exception=False, **kwargs)
    ours, theirs = same(prog)
    assert ours is (name not in WRONG)


@pytest.mark.parametrize("name", WRONG)
def test_wrong_derivative_message_as_pytorch(name):
    def prog(T):
        fn, kwargs = _functions(T)[name]
        T.autograd.gradcheck(fn, _inputs(T), **kwargs)
    ours, theirs = error_of(lambda: prog(chainrule)), error_of(lambda: prog(torch))
    assert type(ours).__name__ == type(theirs).__name__ == "GradcheckError"
    assert "part of complex" in str(theirs) or name == "custom_real_output_wrong"
    # PyTorch fills its forward-mode Jacobian in place under grad mode, so its printout
    # carries that graph's node; the numbers and the text are compared
    assert str(ours) == str(theirs).replace(", grad_fn=<CopySlices>", "")


def test_gradgradcheck_complex():
    same(lambda T: T.autograd.gradgradcheck(lambda z: (z * z.conj() * z).sum(),
                                            (_inputs(T)[0],)))
