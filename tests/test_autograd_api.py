"""Tensor.backward, autograd.backward, autograd.grad and gradcheck / gradgradcheck: their
arguments, results and errors, compared with PyTorch."""
import importlib
import inspect
import warnings

import pytest
import torch

import chainrule
from chainrule.autograd import engine

from helpers import same, same_error, same_warnings, warnings_of


def _xy(T):
    x = T.tensor([1., 2., 3.], requires_grad=True)
    y = T.tensor([0.5, -1., 2.], requires_grad=True)
    return x, y


# ---- Tensor.backward / autograd.backward --------------------------------------------------

def test_backward_with_gradient():
    def prog(T):
        x, y = _xy(T)
        z = x * y
        z.backward(T.tensor([1., 0.5, 2.]))
        return x.grad, y.grad
    same(prog)


def test_backward_keywords():
    def prog(T):
        x, y = _xy(T)
        z = (x * y).exp()
        z.backward(gradient=T.ones(3), retain_graph=True)
        z.backward(T.ones(3) * 2, inputs=[x])
        return x.grad, y.grad
    same(prog)


def test_backward_inputs_on_a_non_leaf_fills_its_grad():
    def prog(T):
        x, y = _xy(T)
        h = x * y
        z = h.exp().sum()
        z.backward(inputs=[h], retain_graph=True)
        out = [h.grad, x.grad, y.grad, h.retains_grad]
        z.backward(inputs=h)
        return out + [h.grad]
    same(prog)


def test_backward_inputs_limit_what_is_accumulated():
    def prog(T):
        x, y = _xy(T)
        z = (x * y).sum()
        z.backward(inputs=(y,))
        return x.grad, y.grad
    same(prog)


def test_autograd_backward_several_roots():
    def prog(T):
        x, y = _xy(T)
        a, b = x * y, (x + y).sum()
        T.autograd.backward([a, b], [T.tensor([1., 2., 3.]), None], retain_graph=True)
        out = [x.grad.clone(), y.grad.clone()]
        T.autograd.backward([a.sum(), b * 2], grad_tensors=[T.tensor(2.), T.tensor(1.)])
        T.autograd.backward((x * x).sum())
        T.autograd.backward((y * y), T.ones(3))
        return out + [x.grad, y.grad]
    same(prog)


def test_backward_of_a_leaf():
    def prog(T):
        x = T.tensor(3., requires_grad=True)
        x.backward()
        x.backward(T.tensor(2.))
        return x.grad
    same(prog)


def test_repeated_roots_and_inputs():
    def prog(T):
        x, y = _xy(T)
        z = (x * y).sum()
        T.autograd.backward([z, z, x.sum()], retain_graph=True)
        g = T.autograd.grad(z, [x, x, y])
        return x.grad, y.grad, g
    same(prog)


def test_seed_of_a_leaf_root_is_not_aliased():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        seed = T.tensor([3., 4.])
        x.backward(seed)
        seed.add_(1)
        first = x.grad.clone()
        x.backward(seed)
        return first, x.grad, seed
    same(prog)


def test_backward_returns_none():
    for T in (chainrule, torch):
        x = T.tensor(2., requires_grad=True)
        assert (x * x).backward() is None


@pytest.mark.parametrize("prog", [
    lambda T: (T.ones(3, requires_grad=True) * 2).backward(),
    lambda T: T.autograd.grad(T.ones(3, requires_grad=True) * 2, T.ones(1)),
    lambda T: (lambda x: T.autograd.grad(x * 2, x))(T.ones(3, requires_grad=True)),
    lambda T: (lambda z: (z * z).backward())(T.tensor(1 + 1j, requires_grad=True)),
    lambda T: T.ones(3).sum().backward(),
    lambda T: T.autograd.backward([T.ones(1, requires_grad=True).sum(), T.ones(1).sum()]),
    lambda T: (lambda x: [(y := x * 2), T.no_grad().__enter__(), (z := x * 2),
                          T.enable_grad().__enter__(), z.sum().backward()])(T.ones(1, requires_grad=True)),
    lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(4)),
    lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(3, dtype=T.complex64)),
    lambda T: (T.ones(3, requires_grad=True) * 2).sum().backward(inputs=[]),
    lambda T: (T.ones(3, requires_grad=True) * 2).sum().backward(T.ones(1)),
    lambda T: (T.ones(3, requires_grad=True) * 2).backward(3),
    lambda T: (T.ones(3, requires_grad=True) * 2).backward(T.ones(3, 1)),
    lambda T: T.autograd.backward([T.ones(1, requires_grad=True).sum()], grad_tensors=[T.ones(2)]),
    lambda T: (lambda x: (x * 2).sum().backward(inputs=[x, 3]))(T.ones(3, requires_grad=True)),
], ids=["implicit-non-scalar", "grad-implicit-non-scalar", "grad-implicit", "complex-scalar",
        "no-grad-fn", "element-1", "built-under-no-grad", "shape", "complex-grad", "empty-inputs",
        "shape-of-scalar", "non-tensor-grad", "shape-2d", "grad-tensors-shape", "inputs-non-tensor"])
def test_backward_errors(prog):
    try:
        same_error(prog)
    finally:
        chainrule.autograd.set_grad_enabled(True)
        torch.autograd.set_grad_enabled(True)


def test_implicit_gradient_of_one_element_tensors():
    def prog(T):
        x = T.tensor([[2.]], requires_grad=True)
        (x * 3).backward()
        return x.grad
    same(prog)


def test_grad_variables_is_deprecated():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.autograd.backward(x * 2, grad_variables=T.ones(2))
        return x.grad
    same(prog)
    same_warnings(lambda T: (lambda x: T.autograd.backward(x * 2, grad_variables=T.ones(2)))(
        T.tensor([1., 2.], requires_grad=True)))


def test_create_graph_warning_once():
    # PyTorch warns once per process (TORCH_WARN_ONCE); make both warn now, then compare.
    engine._warned_create_graph = False
    previous = torch._C._get_warnAlways()
    torch._C._set_warnAlways(True)
    try:
        theirs = same_warnings(lambda T: (T.ones(2, requires_grad=True) ** 2).sum().backward(
            create_graph=True))
    finally:
        torch._C._set_warnAlways(previous)
    assert theirs[0][0] == "UserWarning"
    # chainrule, like PyTorch by default, says it once
    assert warnings_of(lambda: (chainrule.ones(2, requires_grad=True) ** 2).sum().backward(
        create_graph=True)) == []


# ---- autograd.grad ------------------------------------------------------------------------

def test_grad_basic_and_grad_untouched():
    def prog(T):
        x, y = _xy(T)
        z = (x * y).exp().sum()
        gx, gy = T.autograd.grad(z, [x, y])
        return gx, gy, x.grad, y.grad, type(T.autograd.grad((x * 1).sum(), x)).__name__
    same(prog)


def test_grad_outputs():
    def prog(T):
        x, y = _xy(T)
        z = x * y
        w = x.exp()
        g1 = T.autograd.grad(z, x, grad_outputs=T.tensor([1., 2., 3.]), retain_graph=True)
        g2 = T.autograd.grad([z, w], [x, y], grad_outputs=[T.ones(3), T.ones(3) * 2])
        g3 = T.autograd.grad([(x * 2).sum(), (x * x).sum()], x, grad_outputs=[None, T.tensor(2.)])
        return g1, g2, g3
    same(prog)


def test_grad_of_a_non_leaf():
    def prog(T):
        x, y = _xy(T)
        h = x * y
        z = (h * h).sum()
        gh, = T.autograd.grad(z, h)
        return gh, x.grad, h.retains_grad
    same(prog)


def test_grad_retain_graph():
    def prog(T):
        x, _ = _xy(T)
        z = x.exp().sum()
        a = T.autograd.grad(z, x, retain_graph=True)
        b = T.autograd.grad(z, x)
        return a, b
    same(prog)
    same_error(lambda T: (lambda x: (lambda z: (T.autograd.grad(z, x), T.autograd.grad(z, x)))(
        x.exp().sum()))(_xy(T)[0]))


def test_grad_create_graph():
    def prog(T):
        x, y = _xy(T)
        z = (x * x * y).sum()
        gx, gy = T.autograd.grad(z, (x, y), create_graph=True)
        h = T.autograd.grad(gx.sum(), [x, y], retain_graph=True)
        return gx, gy, gx.requires_grad, h, gx.grad_fn is not None
    same(prog)


def test_grad_allow_unused_and_materialize():
    def prog(T):
        x, y = _xy(T)
        z = (x * 2).sum()
        a = T.autograd.grad(z, [x, y], allow_unused=True, retain_graph=True)
        b = T.autograd.grad(z, [x, y], materialize_grads=True, retain_graph=True)
        c = T.autograd.grad(z, [y], allow_unused=True, materialize_grads=True)
        return a, b, c
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: (lambda x, y: T.autograd.grad((x * 2).sum(), [x, y]))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad((x * 2).sum(), [x, T.ones(3)]))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad((x * 2).sum(), [x, 5]))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad((x * 2).sum(), x, materialize_grads=True,
                                            allow_unused=False))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad(x * 2, x, grad_outputs=T.ones(4)))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad((x * 2).sum(), y))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad(T.ones(3).sum(), x))(*_xy(T)),
    lambda T: (lambda x, y: T.autograd.grad([(x * 2).sum(), (x * 3).sum()], x,
                                            grad_outputs=[T.tensor(1.)]))(*_xy(T)),
], ids=["unused", "not-requiring-grad", "non-tensor-input", "materialize-not-unused", "shape",
        "unused-single", "no-grad-fn", "grad-outputs-count"])
def test_grad_errors(prog):
    same_error(prog)


def test_only_inputs_is_deprecated():
    same_warnings(lambda T: (lambda x: T.autograd.grad((x * 2).sum(), x, only_inputs=False))(
        T.ones(2, requires_grad=True)))


def test_grad_accepts_a_tensor_or_sequences():
    def prog(T):
        x, y = _xy(T)
        z = (x * y).sum()
        return (T.autograd.grad(z, x, retain_graph=True), T.autograd.grad([z], (x,), retain_graph=True),
                T.autograd.grad((z,), [y], T.tensor(2.)))
    same(prog)


def test_grad_on_graph_with_unreachable_branches():
    def prog(T):
        x, y = _xy(T)
        a = x.exp()
        b = y.exp()
        z = (a * b).sum() + (a * a).sum()
        gx, = T.autograd.grad(z, x, retain_graph=True)
        ga, = T.autograd.grad(z, a)
        return gx, ga, x.grad, y.grad
    same(prog)


# ---- gradcheck ----------------------------------------------------------------------------

def test_gradcheck_signatures():
    for name in ("gradcheck", "gradgradcheck", "grad", "backward"):
        ours = inspect.signature(getattr(chainrule.autograd, name)).parameters
        theirs = inspect.signature(getattr(torch.autograd, name)).parameters
        assert [(p.name, p.kind, p.default) for p in ours.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.values()], name
    ours = inspect.signature(chainrule.Tensor.backward).parameters
    theirs = inspect.signature(torch.Tensor.backward).parameters
    assert [(p.name, p.default) for p in ours.values()] == [(p.name, p.default) for p in theirs.values()]


def test_gradcheck_passes():
    for T in (chainrule, torch):
        x = T.tensor([0.5, 1.5], dtype=T.float64, requires_grad=True)
        y = T.tensor([2., -1.], dtype=T.float64, requires_grad=True)
        assert T.autograd.gradcheck(lambda a, b: (a * b).exp(), (x, y)) is True
        assert T.autograd.gradcheck(lambda a: a.exp(), x) is True
        assert T.autograd.gradgradcheck(lambda a, b: (a * b).exp(), [x, y]) is True
        assert T.autograd.gradgradcheck(lambda a: a ** 3, (x,), T.ones(2, dtype=T.float64)) is True
        assert T.autograd.gradcheck(lambda a, k: a * k, (x, 3)) is True


def _wrong(T):
    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return Wrong


def test_gradcheck_error_text_on_a_wrong_backward():
    def prog(T):
        T.autograd.gradcheck(_wrong(T).apply, (T.tensor([1., 2.], dtype=T.float64,
                                                        requires_grad=True),))
    e = same_error(prog)
    assert isinstance(e, chainrule.autograd.GradcheckError) and isinstance(e, RuntimeError)


def test_gradcheck_second_input_mismatch():
    def prog(T):
        W = _wrong(T)
        T.autograd.gradcheck(lambda a, b: (a * b, W.apply(b)),
                             (T.tensor([1.], dtype=T.float64, requires_grad=True),
                              T.tensor([2.], dtype=T.float64, requires_grad=True)))
    same_error(prog)


def test_gradcheck_raise_exception_false():
    for T in (chainrule, torch):
        x = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
        assert T.autograd.gradcheck(_wrong(T).apply, (x,), raise_exception=False) is False


def _wrong_second(T):
    class WrongSecond(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.detach() * 2      # right first derivative, no second
    return WrongSecond


@pytest.mark.parametrize("grad_outputs_require_grad", [True, False])
def test_gradgradcheck_catches_a_wrong_double_backward(grad_outputs_require_grad):
    def prog(T):
        x = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
        assert T.autograd.gradcheck(_wrong_second(T).apply, (x,))
        go = T.tensor([1., -1.], dtype=T.float64, requires_grad=grad_outputs_require_grad)
        T.autograd.gradgradcheck(_wrong_second(T).apply, (x,), go)
    same_error(prog)


def test_gradgradcheck_default_grad_outputs():
    for T in (chainrule, torch):
        error = importlib.import_module(T.__name__ + ".autograd.gradcheck").GradcheckError
        x = T.tensor([1., 2.], dtype=T.float64, requires_grad=True)
        with pytest.raises(error):
            T.autograd.gradgradcheck(_wrong_second(T).apply, (x,))


def test_gradcheck_float32_warning():
    def prog(T):
        T.autograd.gradcheck(lambda a: a * 2, (T.tensor([1., 2.], requires_grad=True),),
                             raise_exception=False)
    ours = warnings_of(lambda: prog(chainrule))
    theirs = warnings_of(lambda: prog(torch))
    assert ours[:1] == theirs[:1] and theirs[0][0] == "UserWarning"


def test_gradcheck_needs_an_input_requiring_grad():
    same_error(lambda T: T.autograd.gradcheck(lambda a: a * 2, (T.ones(2, dtype=T.float64),)))
