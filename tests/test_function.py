"""Custom autograd.Function: both styles, ctx features, once_differentiable, the nodes
they make and their errors, each compared with PyTorch."""
import warnings

import pytest
import torch

import chainrule

from helpers import same, same_error, same_warnings
from test_engine import graph_of


def functions(T):
    """The same custom Functions, subclassing T.autograd.Function."""
    F = T.autograd.Function

    class Exp(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class MulConst(F):
        """x * c * k for a tensor x, a tensor c and a number k; records needs_input_grad."""
        log = []

        @staticmethod
        def forward(ctx, x, k, c):
            ctx.k = k
            ctx.save_for_backward(x, c)
            MulConst.log.append(ctx.needs_input_grad)
            return x * c * k

        @staticmethod
        def backward(ctx, g):
            x, c = ctx.saved_tensors
            MulConst.log.append(ctx.needs_input_grad)
            return (g * c * ctx.k if ctx.needs_input_grad[0] else None, None,
                    g * x * ctx.k if ctx.needs_input_grad[2] else None)

    class Cube(F):
        """setup_context style, backward in differentiable ops."""
        @staticmethod
        def forward(x):
            return x * x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x * x

    class Split(F):
        """Two outputs; the second gets a gradient only if used."""
        seen = []

        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            Split.seen.append((ga is None, gb is None))
            return ga * 2 + gb * 3

    class SplitNoMaterialize(F):
        seen = []

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            SplitNoMaterialize.seen.append((ga is None, gb is None))
            out = ga * 2 if ga is not None else None
            if gb is not None:
                out = gb * 3 if out is None else out + gb * 3
            return out

    class Sort(F):
        @staticmethod
        def forward(ctx, x):
            idx = T.tensor([2, 0, 1])
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return x * 1, idx

        @staticmethod
        def backward(ctx, g, gidx):
            return g

    class AddOneInPlace(F):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class OnceExp(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class ExtraNones(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    return dict(Exp=Exp, MulConst=MulConst, Cube=Cube, Split=Split,
                SplitNoMaterialize=SplitNoMaterialize, Sort=Sort, AddOneInPlace=AddOneInPlace,
                Identity=Identity, OnceExp=OnceExp, ExtraNones=ExtraNones)


def test_static_forward_backward():
    def prog(T):
        fs = functions(T)
        x = T.tensor([0.5, 1., 2.], requires_grad=True)
        y = fs["Exp"].apply(x)
        z = (y * y).sum()
        z.backward()
        return (y, x.grad, y.grad_fn.name(), type(y.grad_fn).__name__, graph_of(z),
                y.grad_fn.next_functions, y.is_leaf)
    same(prog)


def test_setup_context_style_and_double_backward():
    def prog(T):
        Cube = functions(T)["Cube"]
        x = T.tensor([0.5, -1., 2.], dtype=T.float64, requires_grad=True)
        y = Cube.apply(x)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        return y, g, gg, y.grad_fn.name()
    same(prog)


def test_non_tensor_arguments_and_needs_input_grad():
    def prog(T):
        MulConst = functions(T)["MulConst"]
        x = T.tensor([1., 2.], requires_grad=True)
        c = T.tensor([3., 4.])
        y = MulConst.apply(x, 2.5, c)
        y.sum().backward()
        c2 = T.tensor([3., 4.], requires_grad=True)
        y2 = MulConst.apply(T.tensor([1., 2.]), 2, c2)
        y2.sum().backward()
        return (y, x.grad, c.grad, c2.grad, MulConst.log, y.grad_fn.next_functions,
                y2.grad_fn.next_functions)
    same(prog)


def test_ctx_is_the_node():
    def prog(T):
        MulConst = functions(T)["MulConst"]
        y = MulConst.apply(T.tensor([1., 2.], requires_grad=True), 3, T.tensor([1., 1.]))
        return y.grad_fn.k, y.grad_fn.needs_input_grad, len(y.grad_fn.saved_tensors)
    same(prog)


def test_saved_tensors_freed_after_backward():
    def prog(T):
        y = functions(T)["Exp"].apply(T.tensor([1., 2.], requires_grad=True))
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same_error(prog)

    def prog2(T):
        y = functions(T)["Exp"].apply(T.tensor([1., 2.], requires_grad=True))
        s = y.sum()
        s.backward(retain_graph=True)
        s.backward()
        s.backward()
    same_error(prog2)


def test_saved_output_modified_in_place():
    def prog(T):
        y = functions(T)["Exp"].apply(T.tensor([1., 2.], requires_grad=True))
        y.mul_(2)
        y.sum().backward()
    same_error(prog)


def test_multiple_outputs():
    def prog(T):
        Split = functions(T)["Split"]
        x = T.tensor([1., 2.], requires_grad=True)
        a, b = Split.apply(x)
        c = b * a
        c.sum().backward()
        g1 = x.grad.clone()
        a2, b2 = Split.apply(x)
        a2.sum().backward()           # b2 gets no gradient: materialized as zeros
        return (a, b, g1, x.grad, Split.seen, graph_of(c), a.grad_fn is b.grad_fn,
                a.output_nr, b.output_nr)
    same(prog)


def test_set_materialize_grads_false():
    def prog(T):
        S = functions(T)["SplitNoMaterialize"]
        x = T.tensor([1., 2.], requires_grad=True)
        a, b = S.apply(x)
        a.sum().backward()
        return x.grad, S.seen
    same(prog)


def test_mark_non_differentiable():
    def prog(T):
        Sort = functions(T)["Sort"]
        x = T.tensor([1., 2., 3.], requires_grad=True)
        v, i = Sort.apply(x)
        v.sum().backward()
        return v, i, x.grad, i.grad_fn, i.is_leaf
    same(prog)


def test_mark_dirty_in_place_forward():
    def prog(T):
        AddOne = functions(T)["AddOneInPlace"]
        x = T.tensor([1., 2.], requires_grad=True)
        h = x * 2
        out = AddOne.apply(h)
        res = [out is h, out, h.grad_fn.name(), h._version, graph_of(out)]
        (out * out).sum().backward()
        with T.no_grad():
            z = T.zeros(2)
            r = AddOne.apply(z)
        return res + [x.grad, r is z, z, z.grad_fn, z._version]
    same(prog)


def test_mark_dirty_on_a_leaf_that_requires_grad():
    same_error(lambda T: functions(T)["AddOneInPlace"].apply(T.ones(2, requires_grad=True)))


def test_returning_an_input_unchanged():
    def prog(T):
        Identity = functions(T)["Identity"]
        x = T.tensor([1., 2.], requires_grad=True)
        y = Identity.apply(x)
        y.sum().backward()
        return y is x, y, y.grad_fn.name(), x.grad, y._version
    same(prog)


def test_once_differentiable():
    def prog(T):
        OnceExp = functions(T)["OnceExp"]
        x = T.tensor([1., 2.], requires_grad=True)
        y = OnceExp.apply(x)
        y.sum().backward()
        g, = T.autograd.grad(OnceExp.apply(x).sum(), x, create_graph=True)
        return x.grad, g, g.requires_grad, g.grad_fn is not None
    same(prog)

    def twice(T):
        OnceExp = functions(T)["OnceExp"]
        x = T.tensor([1., 2.], requires_grad=True)
        g, = T.autograd.grad(OnceExp.apply(x).sum(), x, create_graph=True)
        g.sum().backward()
    same_error(twice)


def test_no_input_requires_grad():
    def prog(T):
        fs = functions(T)
        y = fs["Exp"].apply(T.tensor([1., 2.]))
        with T.no_grad():
            z = fs["Exp"].apply(T.tensor([1., 2.], requires_grad=True))
        return y, y.grad_fn, z, z.grad_fn
    same(prog)


def test_trailing_none_gradients_are_accepted():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        functions(T)["ExtraNones"].apply(x).sum().backward()
        return x.grad
    same(prog)


def test_gradcheck_of_a_custom_function():
    for T in (chainrule, torch):
        fs = functions(T)
        x = T.tensor([0.5, 1.5], dtype=T.float64, requires_grad=True)
        assert T.autograd.gradcheck(fs["Exp"].apply, (x,))
        assert T.autograd.gradgradcheck(fs["Cube"].apply, (x,))


def test_custom_node_apply():
    """A custom node is not callable; its apply runs the user's backward."""
    def prog(T):
        y = functions(T)["Exp"].apply(T.tensor([0., 1.], requires_grad=True))
        return y.grad_fn.apply(T.tensor([1., 2.]))
    same(prog)
    same_error(lambda T: functions(T)["Exp"].apply(T.tensor([0., 1.], requires_grad=True))
               .grad_fn(T.tensor([1., 2.])))


def test_vjp_instead_of_backward():
    def prog(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 2

        x = T.tensor([1., 2.], requires_grad=True)
        Double.apply(x).sum().backward()
        return x.grad
    same(prog)


def test_setup_context_sees_default_arguments():
    def prog(T):
        seen = []

        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, k=3.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(len(inputs))
                ctx.k = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

        x = T.tensor([1., 2.], requires_grad=True)
        Scale.apply(x).sum().backward()
        return x.grad, seen
    same(prog)


# ---- errors -------------------------------------------------------------------------------

def _bad(T, backward, forward=None, n_inputs=1):
    class FBad(T.autograd.Function):
        pass
    FBad.forward = staticmethod(forward or (lambda ctx, *args: args[0] * 2))
    FBad.backward = staticmethod(backward)
    return FBad


@pytest.mark.parametrize("prog", [
    # wrong number of gradients
    lambda T: _bad(T, lambda ctx, g: g).apply(T.ones(3, requires_grad=True),
                                              T.ones(3, requires_grad=True)).sum().backward(),
    # wrong shape
    lambda T: _bad(T, lambda ctx, g: T.ones(5)).apply(T.ones(3, requires_grad=True)).sum().backward(),
    # a gradient for a non-tensor input
    lambda T: _bad(T, lambda ctx, g: (g, T.ones(1))).apply(T.ones(3, requires_grad=True),
                                                          2).sum().backward(),
    # save_for_backward of a non-tensor
    lambda T: _bad(T, lambda ctx, g: g,
                   lambda ctx, x: (ctx.save_for_backward(x, 3), x * 2)[1]).apply(
                       T.ones(3, requires_grad=True)),
    # a dirty tensor not returned
    lambda T: _bad(T, lambda ctx, g: g,
                   lambda ctx, x: (ctx.mark_dirty(x), x * 2)[1]).apply(T.ones(3) * 1),
    # a backward returning a non-tensor
    lambda T: _bad(T, lambda ctx, g: 3).apply(T.ones(3, requires_grad=True)).sum().backward(),
    # more gradients than inputs
    lambda T: _bad(T, lambda ctx, g: (g, g)).apply(T.ones(3, requires_grad=True)).sum().backward(),
], ids=["count", "shape", "non-tensor-input", "save-non-tensor", "dirty-not-returned",
        "non-tensor-grad", "too-many"])
def test_custom_function_errors(prog):
    same_error(prog)


def test_wrong_gradient_dtype_is_cast():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        _bad(T, lambda ctx, g: T.ones(3, dtype=T.float64)).apply(x).sum().backward()
        return x.grad
    same(prog)


def test_broadcastable_gradient_is_summed():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        _bad(T, lambda ctx, g: T.ones(2, 3)).apply(x).sum().backward()
        return x.grad
    same(prog)


def test_legacy_non_static_forward():
    def prog(T):
        class Legacy(T.autograd.Function):
            def forward(self, x):
                return x

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Legacy()(T.ones(2))
    same_error(prog)


def test_instantiating_a_function_warns():
    def prog(T):
        F = functions(T)["Exp"]
        F()
    theirs = same_warnings(prog)
    assert theirs[0][0] == "DeprecationWarning"


def test_backward_without_implementation():
    def prog(T):
        class NoBackward(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        NoBackward.apply(T.ones(2, requires_grad=True)).sum().backward()
    same_error(prog)
