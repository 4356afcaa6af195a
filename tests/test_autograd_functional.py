"""chainrule.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch's:
results shaped as PyTorch returns them for single, tuple and nested inputs and outputs,
create_graph, strict, vectorize and forward-mode strategies, and the errors."""
import pytest

from helpers import same, same_error


def _graphless(out):
    """Tensors as (values, requires_grad): with create_graph, the grad_fn names of the
    double backward are the reverse-mode engine's concern, not this module's."""
    if isinstance(out, (tuple, list)):
        return type(out)(_graphless(o) for o in out)
    if hasattr(out, "detach"):
        return out.detach(), out.requires_grad
    return out


def _same(prog, kw):
    same((lambda T: _graphless(prog(T))) if kw.get("create_graph") else prog)


def _inputs(T):
    x = T.tensor([0.3, -1.2, 0.7], dtype=T.float64)
    y = T.tensor([[0.5, 2.0, -0.4], [1.1, -0.3, 0.9]], dtype=T.float64)
    return x, y


def _single(T, x):
    return (x.sin() * x).exp()


def _pair(T, x, y):
    return (x.tanh() * y).sum(0), (x ** 2).exp().sum() + y.sum()


def _scalar(T, x):
    return (x.sin() * x.exp()).sum() + (x @ x).tanh()


def _scalar2(T, x, y):
    return (x.unsqueeze(0) * y).pow(2).sum() + x.sum() * y.sum()


def _fn(T):
    return T.autograd.functional


@pytest.mark.parametrize("kw", [{}, {"vectorize": True},
                                {"vectorize": True, "strategy": "forward-mode"},
                                {"create_graph": True}, {"strict": True}])
def test_jacobian(kw):
    def prog(T):
        x, y = _inputs(T)
        fn = _fn(T)
        return (fn.jacobian(lambda a: _single(T, a), x, **kw),
                fn.jacobian(lambda a, b: _pair(T, a, b), (x, y), **kw),
                fn.jacobian(lambda a: (_single(T, a),), (x,), **kw))
    _same(prog, kw)


@pytest.mark.parametrize("kw", [{}, {"vectorize": True},
                                {"vectorize": True, "outer_jacobian_strategy": "forward-mode"},
                                {"create_graph": True}])
def test_hessian(kw):
    def prog(T):
        x, y = _inputs(T)
        fn = _fn(T)
        return (fn.hessian(lambda a: _scalar(T, a), x, **kw),
                fn.hessian(lambda a, b: _scalar2(T, a, b), (x, y), **kw))
    _same(prog, kw)


@pytest.mark.parametrize("name", ["vjp", "jvp"])
@pytest.mark.parametrize("kw", [{}, {"create_graph": True}, {"strict": True}])
def test_vjp_jvp(name, kw):
    def prog(T):
        x, y = _inputs(T)
        f = getattr(_fn(T), name)
        v_out = (T.tensor([1.0, -0.5, 2.0], dtype=T.float64), T.tensor(0.7, dtype=T.float64))
        v_in = (T.tensor([1.0, 0.5, -2.0], dtype=T.float64), T.ones(2, 3, dtype=T.float64))
        single = f(lambda a: _single(T, a), x, T.ones(3, dtype=T.float64), **kw)
        pair = f(lambda a, b: _pair(T, a, b), (x, y), v_out if name == "vjp" else v_in, **kw)
        # a scalar output needs no v for vjp
        scalar = f(lambda a: _scalar(T, a), x, **kw) if name == "vjp" else None
        return single, pair, scalar
    _same(prog, kw)


@pytest.mark.parametrize("name", ["vhp", "hvp"])
@pytest.mark.parametrize("kw", [{}, {"create_graph": True}, {"strict": True}])
def test_vhp_hvp(name, kw):
    def prog(T):
        x, y = _inputs(T)
        f = getattr(_fn(T), name)
        v = T.tensor([1.0, 0.5, -2.0], dtype=T.float64)
        return (f(lambda a: _scalar(T, a), x, v, **kw),
                f(lambda a, b: _scalar2(T, a, b), (x, y), (v, T.ones(2, 3, dtype=T.float64)),
                  **kw))
    _same(prog, kw)


@pytest.mark.parametrize("kw", [{}, {"vectorize": True},
                                {"vectorize": True, "strategy": "forward-mode"}])
def test_independent_outputs_and_inputs(kw):
    def prog(T):
        x, y = _inputs(T)
        fn = _fn(T)
        return (fn.jacobian(lambda a, b: (a * 2, a.sum() * 0 + 1.0), (x, y), **kw),
                fn.vjp(lambda a, b: a * 2, (x, y), T.ones(3, dtype=T.float64)),
                fn.hessian(lambda a, b: (a * a).sum(), (x, y)))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], strategy="forward-mode"),
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], strategy="forward-mode",
                              vectorize=True, strict=True),
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], strategy="forward-mode",
                              vectorize=True, create_graph=True),
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], strategy="sideways"),
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], vectorize=True, strict=True),
    lambda T: _fn(T).jacobian(lambda a: T.ones(2), _inputs(T)[0], strict=True),
    lambda T: _fn(T).jacobian(lambda a, b: a * 2, _inputs(T), strict=True),
    lambda T: _fn(T).jacobian(lambda a: a * 2, [1.0]),
    lambda T: _fn(T).jacobian(lambda a: 3.0, _inputs(T)[0]),
    lambda T: _fn(T).hessian(lambda a: a * 2, _inputs(T)[0]),
    lambda T: _fn(T).hessian(lambda a: a.sum(), _inputs(T)[0],
                             outer_jacobian_strategy="forward-mode"),
    lambda T: _fn(T).vjp(lambda a: a * 2, _inputs(T)[0], T.ones(4, dtype=T.float64)),
    lambda T: _fn(T).vjp(lambda a: a * 2, _inputs(T)[0]),
    lambda T: _fn(T).jvp(lambda a: a * 2, _inputs(T)[0]),
    lambda T: _fn(T).jvp(lambda a: a * 2, _inputs(T)[0], (T.ones(3), T.ones(3))),
    lambda T: _fn(T).vhp(lambda a: a * 2, _inputs(T)[0], T.ones(3, dtype=T.float64)),
    lambda T: _fn(T).hvp(lambda a: (a * 2).sum(), _inputs(T)[0], T.ones(3, dtype=T.float64),
                         strict=True),
    # strict mode: an unused input, or a product that does not depend on the inputs
    lambda T: _fn(T).vjp(lambda a, b: a * 2, _inputs(T), T.ones(3, dtype=T.float64),
                         strict=True),
    lambda T: _fn(T).vjp(lambda a: a * 2, _inputs(T)[0], T.ones(3, dtype=T.float64),
                         create_graph=True, strict=True),
    lambda T: _fn(T).jvp(lambda a, b: a * 2, _inputs(T),
                         (T.ones(3, dtype=T.float64), T.ones(2, 3, dtype=T.float64)),
                         strict=True),
    lambda T: _fn(T).jvp(lambda a: a * 2, _inputs(T)[0], T.ones(3, dtype=T.float64),
                         create_graph=True, strict=True),
    lambda T: _fn(T).vhp(lambda a, b: (a ** 3).sum(), _inputs(T),
                         (T.ones(3, dtype=T.float64), T.ones(2, 3, dtype=T.float64)),
                         strict=True),
    lambda T: _fn(T).jacobian(lambda a: a * 2, _inputs(T)[0], create_graph=True, strict=True),
    lambda T: _fn(T).hessian(lambda a, b: (a ** 3).sum(), _inputs(T), strict=True),
    lambda T: _fn(T).hessian(lambda a: (a.sum(), a.sum()), _inputs(T)[0]),
    # v of the wrong length, size or type
    lambda T: _fn(T).vjp(lambda a: (a, a), _inputs(T)[0], (T.ones(3, dtype=T.float64),)),
    lambda T: _fn(T).vjp(lambda a: (a, a), _inputs(T)[0],
                         (T.ones(3, dtype=T.float64), T.ones(2, dtype=T.float64))),
    lambda T: _fn(T).jvp(lambda a: a, _inputs(T)[0], (T.ones(3, dtype=T.float64), 1.0)),
    lambda T: _fn(T).vhp(lambda a: a.sum(), _inputs(T)[0]),
    # an output without elements has no rows to stack (vectorized it has, below)
    lambda T: _fn(T).jacobian(lambda a: (a[:0], a * 2), _inputs(T)[0]),
    # forward mode: PyTorch's message names no function; random ops are refused by its vmap
    lambda T: _fn(T).jacobian(lambda a: (a, 3.0), _inputs(T)[0], vectorize=True,
                              strategy="forward-mode"),
    lambda T: _fn(T).jacobian(lambda a: a * T.rand(3, dtype=T.float64), _inputs(T)[0],
                              vectorize=True, strategy="forward-mode"),
])
def test_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_vectorized_jacobian_of_an_empty_output(strategy):
    def prog(T):
        return _fn(T).jacobian(lambda a: (a[:0], a * 2, a.sum()), _inputs(T)[0], vectorize=True,
                               strategy=strategy)
    same(prog)


def test_module_names():
    import typing

    import chainrule
    import torch
    for T in (chainrule, torch):
        assert T.autograd.functional.fwAD is T.autograd.forward_ad
        assert T.autograd.forward_ad.NamedTuple is typing.NamedTuple
        assert T.autograd.forward_ad.UnpackedDualTensor.__mro__[1] is tuple
