"""Forward-mode AD (chainrule.autograd.forward_ad) against PyTorch's: tangents of every
op-database entry, dual tensors and their errors, views and in-place ops, custom Function
jvp, forward-over-reverse and reverse-over-forward, and the forward_ad tutorial programs."""
import re

import numpy as np
import pytest
import torch

import chainrule
from chainrule.autograd import forward_derivatives
from chainrule.ops.registry import OPS
from chainrule.testing.opdb import all_entries

from helpers import assert_same, same, same_error

ENTRIES = all_entries()


def _dual_run(lib, entry, sample, tangents):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        args = []
        for i, (a, t) in enumerate(zip(sample.args, tangents)):
            if not isinstance(a, np.ndarray):
                args.append(a)
                continue
            x = lib.tensor(a).requires_grad_(sample.requires_grad(i, a))
            args.append(x if t is None else fwAD.make_dual(x, lib.tensor(t)))
        lib.manual_seed(0)
        out = entry.fn(lib, *args, **sample.kwargs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [(o, fwAD.unpack_dual(o).tangent) for o in outs if isinstance(o, lib.Tensor)]


def _tangents(sample):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(a.shape).astype(a.dtype)
            + (1j * rng.standard_normal(a.shape) if a.dtype.kind == "c" else 0)
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc" and sample.requires_grad(i, a)
            or isinstance(a, np.ndarray) and a.dtype.kind == "c" else None
            for i, a in enumerate(sample.args)]


def _first_sample(entry):
    return entry.samples(np.random.default_rng(0))[0]


# Entries whose tangents differ from PyTorch's by design, each with the reason; those marked
# FD are checked against finite differences instead.
KNOWN = {
    "cholesky_inverse": ("FD", "PyTorch's cholesky_inverse_jvp fails PyTorch's own gradcheck "
                               "(check_forward_ad=True) on this sample"),
    "svd.complex": ("skip", "U U^T (not U U^H) depends on the singular vectors' phases, which "
                            "PyTorch's svd_jvp fixes otherwise than the transposed backward"),
    "linalg.eigh.complex": ("skip", "for a non-Hermitian tangent of a Hermitian input, the "
                                    "transposed backward sees its Hermitian part only"),
    "cholesky.complex": ("skip", "PyTorch has no complex cholesky jvp; the transposed "
                                 "backward sees a tangent's Hermitian part only"),
    "norm.dtype": ("skip", "PyTorch's norm_jvp keeps the input's dtype for the tangent of "
                           "norm(dtype=...); chainrule gives the output's"),
}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_tangents_match_pytorch(entry):
    sample = _first_sample(entry)
    if entry.name in KNOWN:
        how, why = KNOWN[entry.name]
        if how == "skip":
            pytest.skip(why)
        _check_against_finite_differences(entry, sample)
        return
    tangents = _tangents(sample)
    try:
        theirs = _dual_run(torch, entry, sample, tangents)
    except NotImplementedError as e:
        if "not been implemented yet" not in str(e):
            with pytest.raises(NotImplementedError, match=re.escape(str(e))):
                _dual_run(chainrule, entry, sample, tangents)
            return
        # PyTorch has no forward formula here: chainrule either has none either (a fused
        # backward without a derivative), or has one, checked against finite differences
        try:
            _dual_run(chainrule, entry, sample, tangents)
        except NotImplementedError as ours:
            assert "not been implemented yet" in str(ours)
            return
        _check_against_finite_differences(entry, sample)
        return
    except Exception as e:
        with pytest.raises(type(e)):
            _dual_run(chainrule, entry, sample, tangents)
        return
    ours = _dual_run(chainrule, entry, sample, tangents)
    assert len(ours) == len(theirs)
    for (o, ot), (t, tt) in zip(ours, theirs):
        assert_same(o, t, entry.compare_atol, entry.compare_rtol)
        assert (ot is None) == (tt is None), (ot, tt)
        if tt is not None and tt._is_zerotensor():
            assert not ot.detach().numpy().any()
        elif tt is not None:
            assert_same(ot, tt, max(entry.compare_atol, 1e-7) * 100,
                        max(entry.compare_rtol, 1e-7) * 100)


def _check_against_reverse_mode(entry, sample):
    """<J t, u> = <t, J^T u>: the tangents against chainrule's own backward (for entries
    finite differences do not suit: float32, random, non-smooth samples)."""
    tangents = _tangents(sample)
    outs = _dual_run(chainrule, entry, sample, tangents)
    rng = np.random.default_rng(3)
    us = [rng.standard_normal(o.shape) if t is not None else None for o, t in outs]
    forward = sum(float((t.detach().double() * chainrule.tensor(u)).sum())
                  for (_, t), u in zip(outs, us) if t is not None)
    args = [chainrule.tensor(a).requires_grad_(t is not None) if isinstance(a, np.ndarray) else a
            for a, t in zip(sample.args, tangents)]
    chainrule.manual_seed(0)
    out = entry.fn(chainrule, *args, **sample.kwargs)
    out = list(out) if isinstance(out, (tuple, list)) else [out]
    loss = sum((o * chainrule.tensor(u, dtype=o.dtype)).sum()
               for o, u in zip([o for o in out if isinstance(o, chainrule.Tensor)], us)
               if u is not None)
    loss.backward()
    backward = sum(float((a.grad.double() * chainrule.tensor(t)).sum())
                   for a, t in zip(args, tangents) if t is not None and a.grad is not None)
    assert np.isclose(forward, backward, rtol=1e-4, atol=1e-5), (forward, backward)


def _check_against_finite_differences(entry, sample):
    if any(isinstance(a, np.ndarray) and a.dtype.kind in "fc" and not np.isfinite(a).all()
           for a in sample.args):
        pytest.skip("derivatives at inf and nan are PyTorch's conventions, which it lacks here")
    if not entry.gradcheck:
        return _check_against_reverse_mode(entry, sample)
    args = [chainrule.tensor(a).requires_grad_(sample.requires_grad(i, a) or a.dtype.kind == "c")
            if isinstance(a, np.ndarray) else a for i, a in enumerate(sample.args)]

    def fn(*xs):
        chainrule.manual_seed(0)
        return entry.fn(chainrule, *xs, **sample.kwargs)
    # check_undefined_grad off: it re-runs fn with detached inputs, which the entries that
    # differentiate inside fn (the *_backward ones) cannot take
    assert chainrule.autograd.gradcheck(fn, tuple(args), atol=entry.atol, rtol=entry.rtol,
                                        check_forward_ad=True, check_backward_ad=False,
                                        check_undefined_grad=False)


def test_known_differences_name_entries():
    assert set(KNOWN) <= {e.name for e in ENTRIES}


def test_explicit_formulas_name_real_rows():
    unknown = sorted(n for n in forward_derivatives.FORWARD if n not in OPS)
    assert not unknown, unknown


def test_every_differentiable_row_has_a_forward_rule():
    # explicit, linear, element-wise, or derived from its backward formulas
    missing = sorted(name for name, row in OPS.items() if row.differentiable and
                     forward_derivatives.rule_of(row) is None and not all(
                         f is not None for f in row.formulas if f is not None))
    assert not missing
    rules = {forward_derivatives.rule_of(row) for row in OPS.values() if row.differentiable}
    assert forward_derivatives.LINEAR in rules and forward_derivatives.ELEMENT_WISE in rules


# ---- the API: levels, dual tensors, errors --------------------------------------------------

def _fw(T):
    return T.autograd.forward_ad


def test_dual_level_make_and_unpack():
    def prog(T):
        fwAD = _fw(T)
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        t = T.tensor([0.5, -1.0, 2.0], dtype=T.float64)
        with fwAD.dual_level() as level:
            d = fwAD.make_dual(x, t)
            unpacked = fwAD.unpack_dual(d)
            y = (d * d).sin()
            tangent = fwAD.unpack_dual(y).tangent
            inside = (level, type(unpacked).__name__, unpacked.tangent is t,
                      fwAD.unpack_dual(x).primal is x, fwAD.unpack_dual(x).primal._base is x,
                      unpacked.primal._base is x, d._base is x, d.requires_grad,
                      fwAD.unpack_dual(x).tangent, fwAD.unpack_dual(d.detach()).tangent,
                      tangent.detach())
        after = fwAD.unpack_dual(y)
        return inside, after.primal is y, after.tangent
    same(prog)


def test_level_functions_and_decorator():
    def prog(T):
        fwAD = _fw(T)
        first = fwAD.enter_dual_level()
        fwAD.exit_dual_level()
        second = fwAD.enter_dual_level()
        fwAD.exit_dual_level(level=second)

        @fwAD.dual_level()
        def f(x):
            return fwAD.unpack_dual(fwAD.make_dual(x, T.ones(2)).exp()).tangent
        return first, second, f(T.zeros(2)), fwAD.UnpackedDualTensor._fields
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.autograd.forward_ad.make_dual(T.ones(2), T.ones(2)),
    lambda T: _in_level(T, lambda fw: fw.enter_dual_level()),
    lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(2), T.ones(3))),
    lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(2).long(), T.ones(2))),
    lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(2), T.ones(2).long())),
    lambda T: _in_level(T, lambda fw: fw.make_dual(fw.make_dual(T.ones(2), T.ones(2)),
                                                   T.ones(2))),
    lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(2), T.ones(2), level=3)),
    lambda T: _in_level(T, lambda fw: fw.exit_dual_level(level=3)),
    lambda T: T.autograd.forward_ad.exit_dual_level(),
    lambda T: _in_level(T, lambda fw: fw.unpack_dual(fw.make_dual(T.ones(2), T.ones(2)),
                                                     level=1)),
    lambda T: _in_level(T, lambda fw: T.heaviside(fw.make_dual(T.ones(2), T.ones(2)),
                                                  T.ones(2))),
    lambda T: _in_level(T, lambda fw: T.exp(fw.make_dual(T.ones(2), T.ones(2)),
                                            out=T.empty(2))),
    lambda T: _in_level(T, lambda fw: T.conj_physical(fw.make_dual(T.ones(2), T.ones(2)),
                                                      out=T.empty(2))),
    lambda T: _in_level(T, lambda fw: T.geqrf(fw.make_dual(T.ones(2, 2), T.ones(2, 2)))),
    lambda T: _in_level(T, lambda fw: T.nn.functional.multi_margin_loss(
        fw.make_dual(T.ones(2, 3), T.ones(2, 3)), T.tensor([0, 2]))),
])
def test_errors(prog):
    same_error(prog)


def _in_level(T, f):
    with T.autograd.forward_ad.dual_level():
        return f(T.autograd.forward_ad)


def test_no_cost_outside_a_level():
    from chainrule.ops import registry
    assert registry.FORWARD_AD is None
    with chainrule.autograd.forward_ad.dual_level():
        assert registry.FORWARD_AD is forward_derivatives.dispatch
    assert registry.FORWARD_AD is None


# ---- views and in-place ops -----------------------------------------------------------------

def test_views_and_inplace():
    def prog(T):
        fwAD = _fw(T)
        f64 = T.float64
        with fwAD.dual_level():
            d = fwAD.make_dual(T.arange(6.0, dtype=f64).view(2, 3), T.ones(2, 3, dtype=f64))
            v = d[1]
            view_of_tangent = fwAD.unpack_dual(v).tangent._base is fwAD.unpack_dual(d).tangent
            v.mul_(fwAD.make_dual(T.full((3,), 2.0, dtype=f64), T.full((3,), 3.0, dtype=f64)))
            base = T.zeros(2, 3, dtype=f64)
            base[0].copy_(fwAD.make_dual(T.ones(3, dtype=f64), T.arange(3.0, dtype=f64)))
            a = T.randn(3, dtype=f64).abs() + 1
            a.mul_(fwAD.make_dual(T.ones(3, dtype=f64), T.ones(3, dtype=f64)))
            e = fwAD.make_dual(T.ones(2, 3, dtype=f64), T.ones(2, 3, dtype=f64)).t_()
            c = fwAD.make_dual(T.ones(3, dtype=f64), T.ones(3, dtype=f64)).clone()
            c.eq_(1.0)
            with T.no_grad():
                nograd = fwAD.unpack_dual(d * d).tangent
            # a view made before its base had a tangent sees the base's
            z = T.ones(2, 3, dtype=f64)
            early = z.view(3, 2)
            z.mul_(fwAD.make_dual(T.ones(3, dtype=f64), T.arange(3.0, dtype=f64)))
            primal = fwAD.unpack_dual(z * 2).primal
            return (view_of_tangent, fwAD.unpack_dual(d).tangent, fwAD.unpack_dual(v).tangent,
                    fwAD.unpack_dual(base).tangent, fwAD.unpack_dual(a).tangent.shape,
                    fwAD.unpack_dual(e).tangent.shape, fwAD.unpack_dual(c).tangent, nograd,
                    fwAD.unpack_dual(early).tangent, fwAD.unpack_dual(primal).tangent,
                    fwAD.unpack_dual(primal[0]).tangent)
    same(prog)


# ---- custom Functions -----------------------------------------------------------------------

def _functions(T):
    class MulAdd(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_forward(x, y)
            ctx.k = k
            return x * y * k, x + 1

        @staticmethod
        def jvp(ctx, x_t, y_t, k_t):
            x, y = ctx.saved_tensors
            return (x_t * y + x * y_t) * ctx.k, x_t

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TwoTangents(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, x_t):
            return x_t, x_t
    return MulAdd, NoJvp, TwoTangents


def test_custom_function_jvp():
    def prog(T):
        fwAD = _fw(T)
        MulAdd, NoJvp, _ = _functions(T)
        x = T.tensor([1.0, -2.0, 0.5], dtype=T.float64)
        y = T.tensor([3.0, 0.25, -1.0], dtype=T.float64)
        with fwAD.dual_level():
            a, b = MulAdd.apply(fwAD.make_dual(x, T.ones(3, dtype=T.float64)), y, 3.0)
            plain = NoJvp.apply(x)       # no tangent in: no jvp needed
            return fwAD.unpack_dual(a), fwAD.unpack_dual(b), plain
    same(prog)


@pytest.mark.parametrize("which", [1, 2])
def test_custom_function_jvp_errors(which):
    def prog(T):
        fn = _functions(T)[which]
        with T.autograd.forward_ad.dual_level():
            fn.apply(T.autograd.forward_ad.make_dual(T.ones(2), T.ones(2)))
    same_error(prog)


def test_custom_function_jvp_sees_no_saved_tensors_without_save_for_forward():
    def prog(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def jvp(ctx, x_t):
                return x_t * len(ctx.saved_tensors)    # () here, in PyTorch's words
        with T.autograd.forward_ad.dual_level():
            x = T.autograd.forward_ad.make_dual(T.ones(2), T.ones(2))
            return T.autograd.forward_ad.unpack_dual(Square.apply(x)).tangent
    same(prog)


# ---- higher order -----------------------------------------------------------------------------

def _f(T, x):
    return (x.sin() * x.exp()).sum() + (x @ x.unsqueeze(-1)).sum().tanh()


def test_forward_over_reverse_hessian_vector_product():
    def prog(T):
        fwAD = _fw(T)
        x = T.tensor([0.3, -1.2, 0.7], dtype=T.float64, requires_grad=True)
        v = T.tensor([1.0, 0.5, -2.0], dtype=T.float64)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, v)
            g, = T.autograd.grad(_f(T, d), d, create_graph=True)
            return g.detach(), fwAD.unpack_dual(g).tangent.detach()
    ours, theirs = same(prog)
    # and it is the Hessian times v
    h = torch.autograd.functional.hessian(lambda x: _f(torch, x),
                                          torch.tensor([0.3, -1.2, 0.7], dtype=torch.float64))
    np.testing.assert_allclose(ours[1].numpy(), (h @ torch.tensor([1.0, 0.5, -2.0],
                                                                  dtype=torch.float64)).numpy())


@pytest.mark.parametrize("pack", [lambda t: t, lambda t: t * 1])
def test_forward_over_reverse_through_saved_tensor_hooks(pack):
    def prog(T):
        fwAD = _fw(T)
        x = T.tensor([0.3, -1.2, 0.7], dtype=T.float64, requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t), fwAD.dual_level():
            d = fwAD.make_dual(x, T.tensor([1.0, 0.5, -2.0], dtype=T.float64))
            g, = T.autograd.grad((d.exp() * d.sin()).sigmoid().sum(), d, create_graph=True)
            return fwAD.unpack_dual(g).tangent.detach()
    same(prog)


def test_reverse_over_forward():
    def prog(T):
        fwAD = _fw(T)
        x = T.tensor([0.3, -1.2, 0.7], dtype=T.float64, requires_grad=True)
        with fwAD.dual_level():
            y = _f(T, fwAD.make_dual(x, T.tensor([1.0, 0.5, -2.0], dtype=T.float64)))
            jvp = fwAD.unpack_dual(y).tangent
        g, = T.autograd.grad(jvp, x)
        return jvp.detach(), g
    same(prog)


def test_gradcheck_check_forward_ad():
    x = chainrule.tensor([0.3, -1.2, 0.7], dtype=chainrule.float64, requires_grad=True)
    assert chainrule.autograd.gradcheck(lambda a: (a.sin() * a).cumsum(0).softmax(0), (x,),
                                        check_forward_ad=True)

    class Wrong(chainrule.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3
    with pytest.raises(chainrule.autograd.GradcheckError,
                       match="Jacobian computed with forward mode mismatch"):
        chainrule.autograd.gradcheck(Wrong.apply, (x,), check_forward_ad=True)
    assert chainrule.autograd.gradcheck(Wrong.apply, (x,), check_forward_ad=False)


# ---- the forward-mode AD tutorial (pytorch.org/tutorials/intermediate/forward_ad_usage) ----

def test_tutorial_basic_usage():
    def prog(T):
        fwAD = _fw(T)
        T.manual_seed(0)
        primal = T.randn(10, 10, dtype=T.float64)
        tangent = T.randn(10, 10, dtype=T.float64)

        def fn(x, y):
            return x ** 2 + y ** 2
        with fwAD.dual_level():
            dual_input = fwAD.make_dual(primal, tangent)
            plain_tensor = T.randn(10, 10, dtype=T.float64)
            dual_output = fn(dual_input, plain_tensor)
            jvp = fwAD.unpack_dual(dual_output).tangent
        return jvp, fwAD.unpack_dual(dual_output).tangent
    same(prog)


def test_tutorial_modules():
    def prog(T):
        fwAD = _fw(T)
        T.manual_seed(0)
        model = T.nn.Linear(5, 5)
        input = T.randn(16, 5)
        params = {name: p for name, p in model.named_parameters()}
        tangents = {name: T.rand_like(p) for name, p in params.items()}
        with fwAD.dual_level():
            for name, p in params.items():
                delattr(model, name)
                setattr(model, name, fwAD.make_dual(p, tangents[name]))
            out = model(input)
            jvp = fwAD.unpack_dual(out).tangent
        # the same through functional_call
        model = T.nn.Linear(5, 5)
        params = {name: p for name, p in model.named_parameters()}
        with fwAD.dual_level():
            dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
            out = T.func.functional_call(model, dual_params, (input,))
            jvp2 = fwAD.unpack_dual(out).tangent
        return jvp.detach(), jvp2.detach()
    same(prog, atol=1e-6, rtol=1e-5)


def test_tutorial_custom_function():
    def prog(T):
        fwAD = _fw(T)

        class Fn(T.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                result = T.exp(foo)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx, gI):
                gO = gI * ctx.result
                del ctx.result
                return gO
        fn = Fn.apply
        T.manual_seed(0)
        primal = T.randn(10, 10, dtype=T.double, requires_grad=True)
        tangent = T.randn(10, 10)
        with fwAD.dual_level():
            dual_input = fwAD.make_dual(primal, tangent)
            dual_output = fn(dual_input)
            jvp = fwAD.unpack_dual(dual_output).tangent
        ok = T.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                  check_backward_ad=False, check_undefined_grad=False,
                                  check_batched_grad=False)
        return jvp.detach(), ok
    same(prog)


# ---- values that need their vectors: computed with them when a tangent is present -----------

@pytest.mark.parametrize("fn", [
    lambda T, x: T.linalg.svdvals(x), lambda T, x: T.svd(x, compute_uv=False)[1],
    lambda T, x: T.linalg.matrix_norm(x, "nuc"), lambda T, x: T.linalg.matrix_norm(x, 2),
    lambda T, x: T.linalg.cond(x), lambda T, x: T.linalg.eigvalsh(x @ x.mT),
    lambda T, x: T.linalg.eigvals(x @ x.mT),
], ids=["svdvals", "svd_compute_uv_false", "nuclear", "spectral", "cond", "eigvalsh",
        "eigvals"])
def test_jvp_of_singular_and_eigenvalues(fn):
    # PyTorch computes the vectors when the input may need a forward derivative too
    def prog(T):
        a = T.tensor([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], dtype=T.float64)
        t = T.tensor([[0.1, 0.2, 0.], [0.2, -0.3, 0.5], [0., 0.5, 0.7]], dtype=T.float64)
        with T.autograd.forward_ad.dual_level():
            y = fn(T, T.autograd.forward_ad.make_dual(a, t))
            return T.autograd.forward_ad.unpack_dual(y).tangent
    same(prog)


# ---- forward over reverse, and every entry's tangents against finite differences ----------

def test_gradgradcheck_forward_over_reverse():
    x = chainrule.tensor([0.3, -1.2, 0.7], dtype=chainrule.float64, requires_grad=True)
    assert chainrule.autograd.gradgradcheck(lambda a: (a.sin() * a.exp()).softmax(0), (x,),
                                            check_fwd_over_rev=True)
    assert chainrule.autograd.gradgradcheck(lambda a: (a.tanh() * a).sum(), (x,),
                                            check_fwd_over_rev=True, check_rev_over_rev=False,
                                            check_undefined_grad=False)


# PyTorch's scatter_reduce jvp gives no tangent for reduce="prod", and neither does chainrule
FD_ENTRIES = [e for e in ENTRIES if e.gradcheck and e.name not in KNOWN
              and not e.name.startswith("scatter_reduce.prod")]


@pytest.mark.parametrize("entry", FD_ENTRIES, ids=[e.name for e in FD_ENTRIES])
def test_gradcheck_forward_ad(entry):
    """gradcheck(check_forward_ad=True) on each entry's first sample: the tangents against
    finite differences (PyTorch's forward formulas aside)."""
    sample = _first_sample(entry)
    try:
        _check_against_finite_differences(entry, sample)
    except NotImplementedError as e:
        # PyTorch's fused backwards without a derivative: no forward formula here either
        assert "not been implemented yet" in str(e)
