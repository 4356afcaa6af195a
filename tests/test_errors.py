"""Every in-scope error and warning of the autograd reference
(PyTorch 2.13's autograd error texts, sections 2a-2e, 2g, 2h of the reference), each run on
chainrule and on PyTorch and compared: exception class and exact message, warning class
and text.

The comparison helpers at the top are shared by the other engine and semantics test files
(test_tensor, test_engine, test_function, ...): each test there is a program written
against the torch API, `prog(T)`, run once with `T = chainrule` and once with `T = torch`.
"""
import warnings

import pytest
import torch

from chainrule.autograd import engine

from helpers import same, same_error, same_warnings, warnings_of

def _x(T, n=3, dtype=None):
    return T.ones(n, dtype=dtype, requires_grad=True)


def _grad_twice(T):
    x = _x(T)
    g, = T.autograd.grad((x * x).sum(), x)
    T.autograd.grad(g.sum(), x)


def _under_no_grad(T):
    x = _x(T)
    with T.no_grad():
        y = x * 2
    y.sum().backward()


def _custom_saved_after_backward(T):
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * g * x

    y = Sq.apply(_x(T))
    y.sum().backward()
    return y.grad_fn.saved_tensors


def _saved_attr_after_backward(T):
    x, w = _x(T), _x(T)
    y = x * w
    y.sum().backward()
    return y.grad_fn._saved_self


def _modified(T, anomaly=False):
    x = _x(T)
    y = x.exp()
    y.add_(1)
    if anomaly:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                y.sum().backward()
    else:
        y.sum().backward()


def _modified_leaf(T):
    x, c = _x(T), T.ones(3)
    y = x * c
    c.add_(1)
    y.sum().backward()


def _modified_2d_double(T):
    y = T.ones(2, 3, dtype=T.float64, requires_grad=True).sigmoid()
    y.mul_(2)
    y.add_(1)
    y.sum().backward()


def _leaf_in_place(T):
    x = _x(T)
    try:
        x.add_(1)
    finally:
        assert x._version == 0 and x.detach().sum().item() == 3


def _view_from_no_grad(T):
    a = _x(T) * 1
    with T.no_grad():
        v = a.unsqueeze(0)
    v.mul_(2)


def _detached_in_place(T):
    x = _x(T)
    z = x * 1
    w = z * z
    z.detach_()
    w.sum().backward()


def _inference(T):
    with T.inference_mode():
        return T.ones(3)


def _custom(T, forward, backward):
    class F(T.autograd.Function):
        pass
    F.forward = staticmethod(forward)
    F.backward = staticmethod(backward)
    return F


ERRORS = {
    # 2a
    "1": lambda T: (_x(T) * 2).backward(),
    "2": lambda T: (lambda x: T.autograd.grad(x * 2, x))(_x(T)),
    "3": lambda T: (lambda z: (z * z).backward())(T.tensor(1 + 2j, requires_grad=True)),
    "4": lambda T: (lambda y: (y.backward(), y.backward()))(_x(T).exp().sum()),
    "4-custom": _custom_saved_after_backward,
    "4-saved-attr": _saved_attr_after_backward,
    "5": lambda T: T.ones(3).sum().backward(),
    "5-element-1": lambda T: T.autograd.backward([_x(T).sum(), T.ones(3).sum()]),
    "5-no-grad": _under_no_grad,
    "5-grad-twice": _grad_twice,
    "6": lambda T: (lambda x, z: T.autograd.grad((x * 2).sum(), [x, z]))(_x(T), _x(T)),
    "7": lambda T: (lambda x: T.autograd.grad((x * 2).sum(), [x, T.ones(3)]))(_x(T)),
    "8": lambda T: (_x(T) * 2).backward(T.ones(4)),
    "9": lambda T: (_x(T) * 2).backward(T.ones(3, dtype=T.complex64)),
    "10": lambda T: (_x(T) * 2).sum().backward(inputs=[]),
    "11": lambda T: (lambda x: T.autograd.grad((x * 2).sum(), [x, 5]))(_x(T)),
    "12": lambda T: (lambda x: T.autograd.grad((x * 2).sum(), x, materialize_grads=True,
                                               allow_unused=False))(_x(T)),
    # 2b
    "13": _modified,
    "14": lambda T: _modified(T, anomaly=True),
    "15": _modified_leaf,
    "16": _modified_2d_double,
    "17": _leaf_in_place,
    "18": lambda T: _x(T).__setitem__(0, 1.),
    "19": _view_from_no_grad,
    "20": lambda T: (T.ones(2, 3, requires_grad=True) * 1).unbind(0)[0].mul_(2),
    "21": lambda T: T.ones(3).unsqueeze(0).detach_(),
    "22": _detached_in_place,
    # 2c
    "25": lambda T: T.tensor([1, 2]).requires_grad_(),
    "26": lambda T: T.tensor([1, 2], requires_grad=True),
    "27": lambda T: (_x(T) * 2).requires_grad_(False),
    "27-setter": lambda T: setattr(_x(T) * 2, "requires_grad", False),
    "28": lambda T: T.ones(3).retain_grad(),
    "29": lambda T: T.ones(3).register_hook(print),
    "30": lambda T: (_x(T) * 2).register_post_accumulate_grad_hook(print),
    "31": lambda T: _x(T).numpy(),
    "32": lambda T: setattr(_x(T), "grad", T.ones(4)),
    "33": lambda T: setattr(_x(T), "grad", T.ones(3, dtype=T.float64)),
    "34": lambda T: setattr(_x(T), "grad", 3),
    "35-is_leaf": lambda T: setattr(_x(T), "is_leaf", False),
    "35-grad_fn": lambda T: setattr(_x(T), "grad_fn", None),
    "36": lambda T: _inference(T).requires_grad_(),
    "37": lambda T: _inference(T).add_(1),
    "38": lambda T: _x(T) * _inference(T),
    # 2e
    "43": lambda T: _custom(T, lambda ctx, a, b: a * b, lambda ctx, g: g).apply(_x(T), _x(T))
    .sum().backward(),
    "44": lambda T: _custom(T, lambda ctx, a: a * 2, lambda ctx, g: T.ones(5)).apply(_x(T))
    .sum().backward(),
    "45": lambda T: _custom(T, lambda ctx, a, k: a * k, lambda ctx, g: (g, g)).apply(_x(T), 2)
    .sum().backward(),
    "46": lambda T: _custom(T, lambda ctx, a: (ctx.save_for_backward(a, 3), a * 2)[1],
                            lambda ctx, g: g).apply(_x(T)),
    "47": lambda T: _custom(T, lambda ctx, a: (ctx.mark_dirty(a), a * 2)[1],
                            lambda ctx, g: g).apply(_x(T) * 1),
    # 2g
    "size-mismatch": lambda T: T.ones(3) + T.ones(4),
    "mm": lambda T: T.ones(2, 3) @ T.ones(4, 5),
    "mm-function": lambda T: T.mm(T.ones(2, 3), T.ones(4, 5)),
    "item": lambda T: T.ones(3).item(),
}


def _once_twice(T):
    class Once(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            return g * 2

    x = _x(T)
    g, = T.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    g.sum().backward()


def _legacy_forward(T):
    class Legacy(T.autograd.Function):
        def forward(self, x):
            return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Legacy()(T.ones(2))


def _nan(T, make):
    x = T.tensor([0., 1.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.autograd.detect_anomaly():
            make(T, x).sum().backward()


ERRORS.update({
    "42-div": lambda T: _nan(T, lambda T, x: x / x),
    "42-sqrt": lambda T: _nan(T, lambda T, x: (x * 0).sqrt()),
    "48": _once_twice,
    "49": _legacy_forward,
})


@pytest.mark.parametrize("entry", list(ERRORS))
def test_reference_error(entry):
    same_error(ERRORS[entry])


def _warn_anomaly_error(T):
    a, b = _x(T), _x(T) * 1
    with T.autograd.detect_anomaly():
        y = a / b
        b.add_(1)
        try:
            y.sum().backward()
        except RuntimeError:
            pass


def _first_lines(prog):
    """The warnings of prog(T), first line of each (the traceback lines name files)."""
    return lambda T: [(c, t.split("\n")[0]) for c, t in warnings_of(lambda: prog(T))]


WARNINGS = {
    "24": lambda T: (_x(T) * 2).grad,
    "40": lambda T: T.autograd.detect_anomaly(),
    "50": lambda T: _custom(T, lambda ctx, a: a, lambda ctx, g: g)(),
    "52": lambda T: T.autograd.gradcheck(lambda a: a * 2, (_x(T),), raise_exception=False),
}


@pytest.mark.parametrize("entry", list(WARNINGS))
def test_reference_warning(entry):
    same_warnings(WARNINGS[entry])


def test_reference_warning_41():
    assert same(_first_lines(_warn_anomaly_error))[1][1] == (
        "UserWarning", "Error detected in DivBackward0. Traceback of forward call that caused "
                       "the error:")


def test_reference_warning_39():
    engine._warned_create_graph = False
    previous = torch._C._get_warnAlways()
    torch._C._set_warnAlways(True)
    try:
        same_warnings(lambda T: (_x(T) ** 2).sum().backward(create_graph=True))
    finally:
        torch._C._set_warnAlways(previous)


def test_reference_2h_where_sqrt_nan_gradient():
    def prog(T):
        a = T.tensor([-1., 4.], requires_grad=True)
        y = T.where(a > 0, a.sqrt(), a)
        y.sum().backward()
        return y, a.grad
    same(prog)


def test_reference_2h_reprs():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        return [repr(x), repr(x.exp()), repr(T.tensor([3.], dtype=T.float64, requires_grad=True) * 2),
                repr(x.detach()), repr(x.exp().detach())]
    same(prog)
