"""torch.func's autodiff transforms and functional module calls against PyTorch on the same
programs: values, gradients, composition (levels), errors."""
import copy

import numpy as np
import pytest

from helpers import same, same_error

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 4))
V = RNG.standard_normal(4)
X = RNG.standard_normal(4)


def t(T, a, **kw):
    return T.tensor(a, **kw)


# ---- grad, grad_and_value --------------------------------------------------------------------

def test_grad_values_argnums_aux_and_pytrees():
    def prog(T):
        F = T.func
        x, y = t(T, X), t(T, V)
        f = lambda x, y: (x.sin() * y).sum()
        return [F.grad(f)(x, y), F.grad(f, argnums=1)(x, y), F.grad(f, argnums=(0, 1))(x, y),
                F.grad(f, argnums=-1)(x, y),
                F.grad(lambda x, y: ((x * y).sum(), {"aux": x.cos()}), has_aux=True)(x, y),
                F.grad(lambda d: (d["a"] * d["b"][0]).sum())({"a": x, "b": [y]}),
                F.grad(lambda x, *, k: (x * k).sum())(x, k=y),
                F.grad_and_value(f)(x, y), F.grad_and_value(f, argnums=(0, 1))(x, y),
                F.grad_and_value(lambda x: (x.exp().sum(), x * 2), has_aux=True)(x),
                F.grad(lambda x: T.tensor(1.0, dtype=T.float64))(x),    # unused input: zeros
                F.grad(lambda x: (x * 0).sum() + (x.detach() ** 2).sum())(x)]
    same(prog)


def test_grad_ignores_outer_no_grad_and_keeps_inner():
    def prog(T):
        x = t(T, X)

        def f(x):
            with T.no_grad():
                c = x ** 2
            return (x - c).sum()
        with T.no_grad():
            g = T.func.grad(f)(x)
            y, vjp_fn = T.func.vjp(T.sin, x)
            jac = T.func.jacrev(T.sin)(x)
        with T.inference_mode():
            h = T.func.hessian(f)(x)
            g2 = T.func.grad(f)(x)
            ps = T.vmap(T.func.grad(f))(t(T, A))
        return g, T.func.grad(f)(x), y, vjp_fn(x), jac, h, g2, ps
    same(prog)


def test_grad_composes_to_any_order_and_keeps_levels_apart():
    def prog(T):
        F = T.func
        x = t(T, 1.3)
        f = lambda x: x.sin() * x ** 3
        return [F.grad(F.grad(f))(x), F.grad(F.grad(F.grad(f)))(x),
                # perturbation confusion: d/dx [x * d/dy (x * y)] = 2x, not 1 + ...
                F.grad(lambda x: F.grad(lambda y: x * y)(x) * x)(x),
                F.grad(lambda x: F.grad(lambda y: x * y)(x))(x),
                F.grad(lambda x: F.grad(lambda y: (x * y).sin())(x * 2) * x)(x),
                F.grad(lambda x: F.grad(f)(x) * x)(x)]
    same(prog)


def test_grad_composes_with_regular_autograd():
    def prog(T):
        x = t(T, X, requires_grad=True)
        w = t(T, V, requires_grad=True)
        g = T.func.grad(lambda x: (w * x.sin()).sum())(x)
        (gx, gw) = T.autograd.grad(g.sum(), (x, w))
        return g, gx, gw, g.requires_grad
    same(prog)


def test_transforms_of_inputs_and_modules_that_require_grad():
    # results keep the graph to what requires grad outside the transform, as PyTorch's do
    def prog(T):
        F = T.func
        T.manual_seed(0)
        m = T.nn.Linear(4, 2).double()
        x = t(T, X, requires_grad=True)
        ones = T.ones(4, dtype=T.float64)
        y, fn = F.vjp(T.sin, x)
        return [F.grad(lambda x: m(x).sum())(t(T, A)), y, fn(ones),
                F.jacrev(T.sin)(x), F.jvp(T.sin, (x,), (ones,)),
                F.jvp(lambda x: (x.exp(), {"a": x.cos()}), (x,), (ones,), has_aux=True),
                F.grad_and_value(lambda x: x.sin().sum())(x)]
    same(prog)


def test_grad_errors():
    x = lambda T: t(T, X)
    same_error(lambda T: T.func.grad(lambda x: x)(x(T)))
    same_error(lambda T: T.func.grad(lambda x: [x.sum()])(x(T)))
    same_error(lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(x(T)))
    same_error(lambda T: T.func.grad(lambda x: (x.sum(), 1), has_aux=True)(x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=2)(x(T), x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, 0))(x(T), x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=())(x(T), x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=[0])(x(T), x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0.5,))(x(T), x(T)))
    same_error(lambda T: T.func.grad(lambda x, y: x.sum(), argnums=1)(x(T), 3.0))
    same_error(lambda T: T.func.grad(lambda x: x.sum())(T.tensor([1, 2])))
    same_error(lambda T: T.func.grad(lambda x: x.sin_().sum())(x(T)))
    same_error(lambda T: T.func.grad_and_value(lambda x: x)(x(T)))


# ---- vjp, jvp, linearize ---------------------------------------------------------------------

def test_vjp():
    def prog(T):
        F = T.func
        x, y = t(T, X), t(T, V)
        out, fn = F.vjp(lambda x, y: (x * y, x.sin()), x, y)
        first = fn((T.ones(4, dtype=T.float64), y))
        again = fn((y, y))
        out2, fn2, aux = F.vjp(lambda x: (x.exp(), {"a": x.cos()}), x, has_aux=True)
        d, fn3 = F.vjp(lambda d: d["w"] @ d["v"], {"w": t(T, W), "v": y})
        return out, first, again, out2, fn2(y), aux, d, fn3(t(T, A[0]))
    same(prog)


def test_vjp_of_vjp_and_create_graph():
    def prog(T):
        F = T.func
        x = t(T, X)

        def g(x):
            _, fn = F.vjp(lambda x: x.sin() * x, x)
            return fn(x.cos())[0]
        _, fn = F.vjp(g, x)
        return g(x), fn(T.ones(4, dtype=T.float64)), F.jacrev(g)(x)
    same(prog)


def test_vjp_errors():
    x = lambda T: t(T, X)
    same_error(lambda T: T.func.vjp(lambda x: x, x(T))[1]((x(T), x(T))))
    same_error(lambda T: T.func.vjp(lambda x: (x, 1), x(T)))
    same_error(lambda T: T.func.vjp(lambda x: (), x(T)))
    same_error(lambda T: T.func.vjp(lambda x: x, x(T), has_aux=True))
    same_error(lambda T: T.func.vjp(lambda x: (x > 0).long(), x(T)))
    same_error(lambda T: T.func.vjp(lambda x: x, 1.0))


def test_jvp_and_linearize():
    def prog(T):
        F = T.func
        x, y, v = t(T, X), t(T, V), t(T, A[0])
        f = lambda x, y: (x.sin() * y, (x @ t(T, W)).tanh())
        out = F.jvp(f, (x, y), (v, y))
        aux = F.jvp(lambda x: (x.exp(), x * 3), (x,), (v,), has_aux=True)
        const = F.jvp(lambda x: (x, T.ones(2, dtype=T.float64)), (x,), (v,))
        lin_out, jvp_fn = F.linearize(lambda x: (x.exp() * x).sum(0), x)
        return out, aux, const, lin_out, jvp_fn(v), jvp_fn(y)
    same(prog)


def test_jvp_composes_with_grad():
    def prog(T):
        F = T.func
        x, v = t(T, X), t(T, V)
        f = lambda x: (x.sin() * x).sum()
        hvp = F.jvp(F.grad(f), (x,), (v,))[1]
        jvp_then_grad = F.grad(lambda x: F.jvp(f, (x,), (v,))[1])(x)
        return hvp, jvp_then_grad, F.hessian(f)(x) @ v
    same(prog)


def test_jvp_nests_and_mixes_with_reverse_mode():
    # the outer jvp runs by forward mode, one inside it by reverse mode (one dual level)
    def prog(T):
        F = T.func
        x, v, u = t(T, X), t(T, V), t(T, A[0])
        f = lambda x: (x.sin() * x.exp()).cumsum(0)
        jvp2 = F.jvp(lambda x: F.jvp(f, (x,), (v,))[1], (x,), (u,))
        confusion = F.jvp(lambda x: F.jvp(lambda y: x * y, (x,), (v,))[1] * x, (x,), (u,))
        fwd_of_vjp = F.jvp(lambda x: F.vjp(f, x)[1](v)[0], (x,), (u,))
        fwd_of_vmap = F.jvp(F.vmap(lambda r: r.tanh().sum()), (t(T, A),), (t(T, A) * 2,))
        fwd_of_jac = F.jvp(F.jacrev(f), (x,), (v,))
        return jvp2, confusion, fwd_of_vjp, fwd_of_vmap, fwd_of_jac
    same(prog)

    def in_user_level(T):
        with T.autograd.forward_ad.dual_level():
            T.func.jvp(T.sin, (t(T, X),), (t(T, V),))
    same_error(in_user_level)


def test_jvp_and_linearize_errors():
    x = lambda T: t(T, X)
    same_error(lambda T: T.func.jvp(lambda x: x, x(T), (x(T),)))
    same_error(lambda T: T.func.jvp(lambda x: x, (x(T),), (x(T), x(T))))
    same_error(lambda T: T.func.jvp(lambda x: x, (), ()))
    same_error(lambda T: T.func.jvp(lambda x: x, (x(T),), (1.0,)))
    same_error(lambda T: T.func.jvp(lambda x: 1.0, (x(T),), (x(T),)))
    same_error(lambda T: T.func.jvp(lambda x: x, (x(T),), (x(T),), has_aux=True))
    same_error(lambda T: T.func.jvp(lambda x: T.ones(1), (x(T),), (x(T),), strict=True))
    same_error(lambda T: T.func.linearize(lambda x: x.sin(), x(T))[1](T.ones(3)))
    same_error(lambda T: T.func.linearize(lambda x: x.sin(), x(T))[1](x(T).float()))
    same_error(lambda T: T.func.linearize(lambda x: x.sin(), x(T))[1](x(T), x(T)))
    same_error(lambda T: T.func.linearize(T.sin, 3.0))
    same_error(lambda T: T.func.linearize(lambda x: x * 2, 3.0))
    same_error(lambda T: T.func.jvp(T.sin, (T.ones(3),), (T.ones(2),)))
    same_error(lambda T: T.func.jvp(T.sin, (T.ones(3, dtype=T.long),), (T.ones(3),)))


# ---- jacrev, jacfwd, hessian -----------------------------------------------------------------

@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians(jac):
    def prog(T):
        J = getattr(T.func, jac)
        x, y = t(T, X), t(T, V)
        f = lambda x, y: (x.sin() * y).cumsum(0)
        two = lambda x, y: {"a": x * y, "b": (x.exp().sum(), x[:2])}
        return [J(f)(x, y), J(f, argnums=1)(x, y), J(f, argnums=(0, 1))(x, y), J(two)(x, y),
                J(two, argnums=(1, 0))(x, y), J(lambda x: (x ** 2, x.sum()), has_aux=True)(x),
                J(lambda d: d["m"] @ d["v"])({"m": t(T, W), "v": y}),
                J(lambda m: m.tanh().sum(1))(t(T, A)),
                J(lambda x: x.sum())(x), J(lambda x: x * 2)(t(T, 2.0)),
                J(lambda x, y: x * 0 + 1, argnums=1)(x, y)]
    same(prog)


def test_jacrev_chunk_size_and_jacfwd_randomness():
    def prog(T):
        F = T.func
        x = t(T, X)
        f = lambda x: x.sin().outer(x)
        return [F.jacrev(f, chunk_size=1)(x), F.jacrev(f, chunk_size=3)(x),
                F.jacfwd(f, randomness="same")(x), F.jacfwd(f, randomness="different")(x)]
    same(prog)


def test_jacobian_errors():
    x = lambda T: t(T, X)
    same_error(lambda T: T.func.jacrev(lambda x: x, chunk_size=0))
    same_error(lambda T: T.func.jacrev(lambda x: x)(x(T).to(T.complex128)))
    same_error(lambda T: T.func.jacfwd(lambda x: x)(x(T).to(T.complex128)))
    same_error(lambda T: T.func.jacrev(lambda x: x.to(T.complex128))(x(T)))
    same_error(lambda T: T.func.jacrev(lambda x: x, has_aux=True)(x(T)))
    same_error(lambda T: T.func.jacfwd(lambda x: x, has_aux=True)(x(T)))
    same_error(lambda T: T.func.jacfwd(lambda x: x * T.rand(4))(x(T)))
    same_error(lambda T: T.func.jacfwd(lambda x: x, randomness="any")(x(T)))
    same_error(lambda T: T.func.jacfwd(lambda x: [x, 1])(x(T)))
    same_error(lambda T: T.func.jacrev(lambda x: [x, 1])(x(T)))
    same_error(lambda T: T.func.jacrev(lambda x: x, argnums=3)(x(T)))
    same_error(lambda T: T.func.jacfwd(lambda x: x, argnums=3)(x(T)))
    same_error(lambda T: T.func.jacrev(lambda x: x * 2)(T.ones(3, dtype=T.long)))
    same_error(lambda T: T.func.jacfwd(lambda x: x * 2)(T.ones(3, dtype=T.long)))
    same_error(lambda T: T.func.hessian(lambda x: x.sum())(T.ones(3, dtype=T.long)))


def test_hessians():
    def prog(T):
        F = T.func
        w, x = t(T, W), t(T, X)
        f = lambda x: (w @ x).tanh().sum()
        g = lambda x, y: (x.sin() * y.exp()).sum()
        return [F.hessian(f)(x), F.jacrev(F.jacrev(f))(x), F.jacfwd(F.jacfwd(f))(x),
                F.jacfwd(F.jacrev(f))(x), F.hessian(g, argnums=(0, 1))(x, t(T, V)),
                F.hessian(g, argnums=1)(x, t(T, V))]
    same(prog)


def test_jacobians_hessians_tutorial():
    # PyTorch's "Jacobians, Hessians, hvp, vhp, and more" tutorial, on both libraries
    def prog(T):
        from functools import partial
        F = T.nn.functional
        jacrev, jacfwd, vmap, hessian = T.func.jacrev, T.func.jacfwd, T.func.vmap, \
            T.func.hessian
        T.manual_seed(0)

        def predict(weight, bias, x):
            return F.linear(x, weight, bias).tanh()
        D = 16
        weight = T.randn(D, D)
        bias = T.randn(D)
        x = T.randn(D)
        unit_vectors = T.eye(D)

        def vjp_fn(v):
            (_, vjpfunc) = T.func.vjp(partial(predict, weight, bias), x)
            return vjpfunc(v)
        jacobian_loop = T.stack([vjp_fn(v)[0] for v in unit_vectors])
        jacobian = jacrev(predict, argnums=2)(weight, bias, x)
        ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
        batch_size = 8
        xb = T.randn(batch_size, D)
        compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
        batch_jacobian0 = compute_batch_jacobian(weight, bias, xb)

        def predict_with_output_summed(weight, bias, x):
            return predict(weight, bias, x).sum(0)
        batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias,
                                                                     xb).movedim(1, 0)
        hess0 = hessian(predict, argnums=2)(weight, bias, x)
        hess1 = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
        hess2 = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
        compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
        batch_hess = compute_batch_hessian(weight, bias, xb)

        def hvp(f, primals, tangents):
            return T.func.jvp(T.func.grad(f), primals, tangents)[1]
        xs, tangent = T.randn(2048 // 256), T.randn(2048 // 256)
        return [jacobian_loop, jacobian, ft_jac_weight, ft_jac_bias, batch_jacobian0,
                batch_jacobian1, hess0, hess1, hess2, batch_hess,
                hvp(lambda x: x.sin().sum(), (xs,), (tangent,))]
    same(prog, atol=1e-5, rtol=1e-5)


# ---- functionalize, debug_unwrap -----------------------------------------------------------

def test_functionalize_and_debug_unwrap():
    def prog(T):
        F = T.func

        def f(a):
            b = a + 1
            c = b.view(-1)
            c.add_(1)
            return b
        x = t(T, A)
        inp = t(T, X)
        F.functionalize(lambda a: a.mul_(2))(inp)   # input mutations reach the input
        return [F.functionalize(f)(x), F.functionalize(f, remove="mutations_and_views")(x), inp,
                F.grad(lambda x: F.functionalize(f)(x).sum())(x),
                F.debug_unwrap(x), F.debug_unwrap(x, recurse=False)]
    same(prog)
    same_error(lambda T: T.func.functionalize(lambda x: x, remove="views"))


# ---- functional_call, stack_module_state, batch norm ----------------------------------------

class _Tied:
    """A module with tied weights and a buffer, built in either library."""

    @staticmethod
    def make(T):
        class Tied(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(3, 3)
                self.other = T.nn.Linear(3, 3)
                self.other.weight = self.lin.weight
                self.register_buffer("scale", T.ones(3))

            def forward(self, x, shift=0.0):
                return self.other(self.lin(x)) * self.scale + shift
        T.manual_seed(0)
        return Tied()


def test_functional_call():
    def prog(T):
        F = T.func
        m = _Tied.make(T)
        x = T.ones(2, 3)
        w = T.full((3, 3), 0.5)
        b = T.zeros(3)
        plain = F.functional_call(m, {}, (x,))
        tied = F.functional_call(m, {"lin.weight": w}, x)
        untied = F.functional_call(m, {"lin.weight": w}, (x,), tie_weights=False)
        both = F.functional_call(m, ({"lin.weight": w, "lin.bias": b},
                                     {"scale": T.full((3,), 2.)}), (x,), {"shift": 1.0})
        strict = F.functional_call(m, dict(m.named_parameters(remove_duplicate=False)) |
                                   dict(m.named_buffers()), (x,), strict=True)
        g = F.grad(lambda p: F.functional_call(m, p, (x,)).sum())(
            {k: v.detach() for k, v in m.named_parameters()})
        return plain, tied, untied, both, strict, g, m.lin.weight, m.scale
    same(prog)


def test_functional_call_updates_given_buffers():
    def prog(T):
        bn = T.nn.BatchNorm1d(3)
        state = {"running_mean": T.zeros(3), "running_var": T.ones(3),
                 "num_batches_tracked": T.tensor(0)}
        out = T.func.functional_call(bn, state, (T.arange(6.).view(2, 3),))
        return out, state["running_mean"], state["num_batches_tracked"], bn.running_mean
    same(prog)


def test_functional_call_errors():
    x = lambda T: T.ones(2, 3)
    same_error(lambda T: T.func.functional_call(_Tied.make(T), [1], (x(T),)))
    same_error(lambda T: T.func.functional_call(_Tied.make(T), 3, (x(T),)))
    same_error(lambda T: T.func.functional_call(
        _Tied.make(T), ({"scale": T.ones(3)}, {"scale": T.ones(3)}), (x(T),)))
    same_error(lambda T: T.func.functional_call(
        _Tied.make(T), {"lin.weight": T.ones(3, 3), "other.weight": T.zeros(3, 3)}, (x(T),)))
    same_error(lambda T: T.func.functional_call(
        _Tied.make(T), {"lin.weight": T.ones(3, 3), "nope": T.ones(1)}, (x(T),), strict=True))
    same_error(lambda T: T.func.functional_call(_Tied.make(T), {"lin.weight": 3}, (x(T),)))


def test_stack_module_state_and_errors():
    def prog(T):
        T.manual_seed(0)
        models = [T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2)) for _ in range(3)]
        params, buffers = T.func.stack_module_state(models)
        return ({k: (v, v.is_leaf) for k, v in params.items()},
                {k: v for k, v in buffers.items()})
    same(prog)
    same_error(lambda T: T.func.stack_module_state([]))
    same_error(lambda T: T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.Linear(1, 1).eval()]))
    same_error(lambda T: T.func.stack_module_state([T.nn.Linear(1, 1), T.nn.ReLU()]))
    same_error(lambda T: T.func.stack_module_state(
        [T.nn.Linear(1, 1), T.nn.Linear(1, 1).requires_grad_(False)]))


def test_replace_all_batch_norm_modules_():
    def prog(T):
        T.manual_seed(0)    # the Linear's initial weights, alike in both libraries
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2),
                            T.nn.Sequential(T.nn.BatchNorm1d(2, momentum=None)))
        out = T.func.replace_all_batch_norm_modules_(m)
        return (out is m, [(b.running_mean, b.track_running_stats, b.num_batches_tracked)
                           for b in (m[1], m[2][0])], m(T.arange(6.).view(3, 2)))
    same(prog)


def test_ensembling_tutorial():
    # PyTorch's "Model ensembling" tutorial, smaller; chainrule has no meta device, so the
    # base model stays on the CPU (functional_call replaces all its tensors anyway)
    def prog(T):
        F = T.nn.functional

        class SimpleMLP(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = T.nn.Linear(784, 32)
                self.fc2 = T.nn.Linear(32, 32)
                self.fc3 = T.nn.Linear(32, 10)

            def forward(self, x):
                x = x.flatten(1)
                x = self.fc1(x)
                x = F.relu(x)
                x = self.fc2(x)
                x = F.relu(x)
                x = self.fc3(x)
                return x
        T.manual_seed(0)
        num_models = 4
        data = T.randn(10, 8, 1, 28, 28)
        models = [SimpleMLP() for _ in range(num_models)]
        minibatches = data[:num_models]
        predictions_diff_minibatch_loop = [model(mb) for model, mb in zip(models, minibatches)]
        minibatch = data[0]
        predictions2 = [model(minibatch) for model in models]
        params, buffers = T.func.stack_module_state(models)
        base_model = copy.deepcopy(models[0])

        def fmodel(params, buffers, x):
            return T.func.functional_call(base_model, (params, buffers), (x,))
        predictions1_vmap = T.vmap(fmodel)(params, buffers, minibatches)
        assert T.allclose(predictions1_vmap, T.stack(predictions_diff_minibatch_loop),
                          atol=1e-3, rtol=1e-5)
        predictions2_vmap = T.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
        assert T.allclose(predictions2_vmap, T.stack(predictions2), atol=1e-3, rtol=1e-5)
        return (predictions1_vmap.detach(), predictions2_vmap.detach(),
                [p.size(0) for p in params.values()])
    same(prog, atol=1e-5, rtol=1e-5)


def test_neural_tangent_kernels_tutorial():
    # PyTorch's "Neural Tangent Kernels" tutorial, smaller: vmap of jacrev over a
    # functional_call, and the NTK-vector-product variant composing vmap, vjp and jvp
    def prog(T):
        nn = T.nn
        functional_call, jacrev, jvp, vjp, vmap = (T.func.functional_call, T.func.jacrev,
                                                   T.func.jvp, T.func.vjp, T.func.vmap)
        T.manual_seed(0)

        class CNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, 4, (3, 3))
                self.conv2 = nn.Conv2d(4, 4, (3, 3))
                self.conv3 = nn.Conv2d(4, 4, (3, 3))
                self.fc = nn.Linear(16, 3)

            def forward(self, x):
                x = self.conv1(x)
                x = x.relu()
                x = self.conv2(x)
                x = x.relu()
                x = self.conv3(x)
                x = x.flatten(1)
                x = self.fc(x)
                return x
        x_train = T.randn(3, 3, 8, 8, dtype=T.float64)
        x_test = T.randn(2, 3, 8, 8, dtype=T.float64)
        net = CNN().double()
        params = {k: v.detach() for k, v in net.named_parameters()}

        def fnet_single(params, x):
            return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

        def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
            jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
            jac1 = [j.flatten(2) for j in jac1.values()]
            jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
            jac2 = [j.flatten(2) for j in jac2.values()]
            result = T.stack([T.einsum("Naf,Mbf->NMab", j1, j2) for j1, j2 in zip(jac1, jac2)])
            return result.sum(0)

        def empirical_ntk_ntk_vps(func, params, x1, x2):
            def get_ntk(x1, x2):
                def func_x1(params):
                    return func(params, x1)

                def func_x2(params):
                    return func(params, x2)
                output, vjp_fn = vjp(func_x1, params)

                def get_ntk_slice(vec):
                    vjps = vjp_fn(vec)
                    _, jvps = jvp(func_x2, (params,), vjps)
                    return jvps
                basis = T.eye(output.numel(), dtype=output.dtype).view(output.numel(), -1)
                return vmap(get_ntk_slice)(basis)
            return vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
        ntk1 = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
        ntk2 = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
        assert T.allclose(ntk1, ntk2, atol=1e-8)
        return ntk1, ntk2
    same(prog, atol=1e-8, rtol=1e-8)


def test_maml_style_grad_through_an_inner_grad_step():
    def prog(T):
        F = T.func
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 1)).double()
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, y = t(T, A.T[:, :3]), t(T, X)

        def loss(p, x, y):
            return ((F.functional_call(model, p, (x,)).squeeze(-1) - y) ** 2).mean()

        def outer(p):
            g = F.grad(loss)(p, x, y)
            return loss({k: p[k] - 0.1 * g[k] for k in p}, x, y)
        return F.grad(outer)(params), F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    same(prog)


def test_forward_and_reverse_levels_stay_apart():
    def prog(T):
        F = T.func
        x, one = t(T, 1.7), t(T, 1.0)
        return [F.grad(lambda x: F.jvp(lambda y: x * y, (x,), (one,))[1])(x),
                F.grad(lambda x: F.jvp(lambda y: x * y.sin(), (x,), (one,))[1] * x)(x),
                F.jvp(lambda x: F.grad(lambda y: x * y)(x), (x,), (one,)),
                F.jvp(lambda x: F.grad(lambda y: (x * y).exp())(x * 3) * x, (x,), (one,)),
                F.grad(lambda x: F.vmap(lambda s: F.jvp(lambda y: s * y * x, (x,), (one,))[1])(
                    T.stack([x, x * 2])).sum())(x)]
    same(prog)
