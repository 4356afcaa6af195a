"""tril/triu, diagonal (a view), diag, diag_embed, diagflat, trace and fill_diagonal_
beyond the op database: memory and version sharing of the diagonal view, in-place ops
through it (CopySlices), the graphs of double backward, dtypes and errors, each run on
chainrule and PyTorch and compared."""
import numpy as np
import pytest

from helpers import same, same_error


def graph(fn, depth=4):
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return (fn.name(), tuple(graph(f, depth - 1) for f, _ in fn.next_functions))


def test_diagonal_is_a_view():
    def prog(T):
        b = T.arange(12.).reshape(3, 4)
        d = b.diagonal(1)
        d2 = T.diagonal(b.t(), -1)
        before = d._version
        b.add_(1)
        d[0] = 100.
        return (b, d, d2, before, d._version, d2._version, d._base is b, d.stride(),
                d.data_ptr() - b.data_ptr(), d.is_contiguous(), b.diag()._base is None)
    same(prog)


@pytest.mark.parametrize("view", [
    lambda b: b.diagonal(), lambda b: b.diagonal(1), lambda b: b.diagonal(-1)[1:],
    lambda b: b.t().diagonal(), lambda b: b.unsqueeze(0).diagonal(0, 1, 2),
], ids=["main", "offset", "view of diagonal", "transposed", "batched"])
@pytest.mark.parametrize("inplace", [
    lambda v, w: v.mul_(2), lambda v, w: v.mul_(w), lambda v, w: v.exp_(), lambda v, w: v.zero_(),
    lambda v, w: v.copy_(w.expand(v.shape)),
], ids=["mul_", "mul_ w", "exp_", "zero_", "copy_"])
def test_inplace_through_diagonal(view, inplace):
    def prog(T):
        a = T.tensor(np.arange(12.).reshape(3, 4) / 4, requires_grad=True)
        w = T.tensor(0.5, requires_grad=True)
        x = a.clone()
        v = view(x)
        inplace(v, w)
        (x * x).sum().backward()
        return x, v, a.grad, w.grad, graph(x.grad_fn), graph(v.grad_fn), x._version, v._version
    same(prog)


def test_inplace_through_diagonal_of_leaf_or_no_grad_view():
    same_error(lambda T: T.ones(2, 2, requires_grad=True).diagonal().mul_(2))

    def no_grad_view(T):
        a = T.ones(2, 2, requires_grad=True) * 1
        with T.no_grad():
            v = a.diagonal()
        v.mul_(2)
    same_error(no_grad_view)


def test_double_backward_graphs():
    def prog(T):
        a = T.tensor(np.arange(24.).reshape(2, 3, 4) / 8, requires_grad=True)
        v = T.tensor([1., -2., 0.5], requires_grad=True)
        w = T.tensor(np.linspace(-1, 1, 24).reshape(2, 3, 4), requires_grad=True)
        outs = [a.diagonal(1, 1, 2), T.diagonal(a, 0, -1, 0), a.tril(-1), a.triu(1), a[0].trace(),
                a[1].diag(), T.diag_embed(a, -1), T.diagflat(a[0])]
        result = []
        for o in outs:
            g, = T.autograd.grad((o * o).sum(), a, create_graph=True)
            gg, = T.autograd.grad((g * w).sum(), a)
            result.append((graph(g.grad_fn), g, gg))
        gv, = T.autograd.grad(v.diag(1), v, T.ones(4, 4, requires_grad=True), create_graph=True)
        return result, graph(gv.grad_fn), gv
    same(prog)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "uint8", "bool",
                                   "complex64"])
def test_dtypes(dtype):
    def prog(T):
        x = T.tensor(np.arange(1, 13).reshape(3, 4) % 3).to(getattr(T, dtype))
        out = [x.tril(), x.triu(1), x.diagonal(), x.diag(), x[0].diag(), T.diag_embed(x),
               T.diagflat(x[:, 0])]
        if dtype != "bool":
            out.append(x.trace())
        y = x.clone()
        y.tril_(-1)
        z = x.clone()
        z.fill_diagonal_(1)
        return out + [y, z]
    same(prog)


def test_tril_inplace():
    def prog(T):
        a = T.tensor(np.arange(12.).reshape(3, 4), requires_grad=True)
        x = a * 1
        x.tril_(1)
        y = a * 1
        T.Tensor.triu_(y, -1)
        (x * y).sum().backward()
        return x, y, a.grad, graph(x.grad_fn), x._version
    same(prog)


def test_fill_diagonal():
    def prog(T):
        a = T.tensor(np.arange(27.).reshape(3, 3, 3), requires_grad=True)
        b = a * 1
        b.fill_diagonal_(-1)
        c = T.zeros(12, 2)
        c.fill_diagonal_(5, wrap=True)
        d = T.zeros(3, 7).t()
        d.fill_diagonal_(5, wrap=True)
        e = T.zeros(4, 4, dtype=T.int64)[1:]
        e.fill_diagonal_(2.7)
        f = T.zeros(2, 3)
        f.fill_diagonal_(T.tensor(3))
        (b * b).sum().backward()
        return b, a.grad, graph(b.grad_fn), c, d, e, f
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3).tril(),
    lambda T: T.tensor(1.).triu(),
    lambda T: T.ones(3).tril_(),
    lambda T: T.ones(2, 3, requires_grad=True).tril_(),
    lambda T: T.ones(3).diagonal(),
    lambda T: T.tensor(1.).diagonal(),
    lambda T: T.ones(2, 3, 4).diagonal(1, 1, 1),
    lambda T: T.ones(2, 3, 4).diagonal(0, 1, -2),
    lambda T: T.ones(2, 3, 4).diagonal(0, -1, 3),
    lambda T: T.ones(2, 2, 2).diag(),
    lambda T: T.tensor(1.).diag(),
    lambda T: T.diag_embed(T.ones(2, 3), 0, -1, 2),
    lambda T: T.diag_embed(T.ones(2, 3), 0, 1, 3),
    lambda T: T.diag_embed(T.tensor(2.)),
    lambda T: T.ones(2, 2, 2).trace(),
    lambda T: T.ones(2).trace(),
    lambda T: T.ones(2, 2, dtype=T.bool).trace(),
    lambda T: T.ones(3).fill_diagonal_(1),
    lambda T: T.ones(3, 2, 2).fill_diagonal_(1),
    lambda T: T.ones(2, 2).fill_diagonal_(T.tensor([1.])),
    lambda T: T.ones(2, 2).fill_diagonal_(T.tensor(1., requires_grad=True)),
    lambda T: T.ones(2, 2).fill_diagonal_("a"),
    lambda T: T.ones(2, 2, requires_grad=True).fill_diagonal_(1),
    lambda T: T.zeros(2, 12).t().fill_diagonal_(5, wrap=True),
], ids=["tril 1-d", "triu 0-d", "tril_ 1-d", "tril_ leaf", "diagonal 1-d", "diagonal 0-d",
        "same dims", "same dims negative", "dim out of range", "diag 3-d", "diag 0-d",
        "diag_embed same dims", "diag_embed dim out of range", "diag_embed 0-d", "trace 3-d",
        "trace 1-d", "trace bool", "fill 1-d", "fill unequal dims", "fill 1-d tensor",
        "fill grad tensor", "fill str", "fill leaf", "fill wrap out of storage"])
def test_errors(prog):
    same_error(prog)
