"""In-place ops on views (CopySlices, AsStridedBackward0), `__setitem__` and `copy_`,
each run on chainrule and PyTorch and compared (values, grads, node names, errors)."""
import pytest
import torch

import chainrule
from helpers import same, same_error, same_warnings


def graph(fn, depth=3):
    """Node names and next_functions, a few levels deep."""
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return (fn.name(), tuple(graph(f, depth - 1) for f, _ in fn.next_functions))


@pytest.mark.parametrize("inplace", [
    lambda v, w: v.mul_(w), lambda v, w: v.add_(w), lambda v, w: v.exp_(),
    lambda v, w: v.zero_(), lambda v, w: v.fill_(w), lambda v, w: v.copy_(w),
], ids=["mul_", "add_", "exp_", "zero_", "fill_", "copy_"])
@pytest.mark.parametrize("view", [
    lambda b: b[1:], lambda b: b.unsqueeze(0)[0, :, 1:].t(), lambda b: b[:, 0],
    lambda b: b.view(-1)[::2], lambda b: b.t()[1],
], ids=["slice", "view-of-view", "select", "strided", "transposed"])
def test_inplace_on_view(inplace, view):
    def prog(T):
        x = T.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        w = T.tensor(0.5, requires_grad=True)
        before = x.exp()
        b = x * 1
        v = view(b)
        inplace(v, w)
        after = b * b
        (before.sum() + after.sum() + (v * 3).sum()).backward()
        return (b, v, x.grad, w.grad, graph(b.grad_fn), graph(v.grad_fn), b._version, v._version,
                v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset)
    same(prog)


def test_inplace_on_view_of_tensor_not_requiring_grad():
    def prog(T):
        w = T.tensor([2., 3.], requires_grad=True)
        b = T.zeros(3)
        b[1:].add_(w)
        (b * b).sum().backward()
        return b, w.grad, graph(b.grad_fn), b.is_leaf, b.requires_grad
    same(prog)


def test_two_inplace_ops_on_views():
    def prog(T):
        x = T.ones(4, requires_grad=True)
        b = x * 2
        b[:2].mul_(3)
        b[1:3].exp_()
        (b ** 2).sum().backward()
        return b, x.grad, graph(b.grad_fn, 4)
    same(prog)


@pytest.mark.parametrize("index, value", [
    (0, 5.), (0, "w"), (slice(1, None), 5.), (Ellipsis, 5.), (slice(None), "w"), ((), 5.),
    ((0, slice(1, None)), "w"), ((0, 1), 5.), (None, 5.), ((None, 0), "w"), ((Ellipsis, 1), "w"),
    (True, 5.), (0, "row"), (slice(0, 2), "row1"), ("idx", 5.), ("idx", "w"), ("mask", "row"),
    ([0, 1], 5.), ("0d", 5.),
])
def test_setitem(index, value):
    def prog(T):
        x = T.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
        w = T.tensor(7., requires_grad=True)
        row = T.tensor([1., 2., 3.], requires_grad=True)
        values = {"w": w, "row": row, "row1": row[None]}
        indices = {"idx": T.tensor([1, 0]), "mask": T.tensor([True, False]), "0d": T.tensor(1)}
        b = x * 1
        b[indices.get(index, index) if isinstance(index, str) else index] = values.get(value, value)
        (b * b).sum().backward()
        return b, x.grad, w.grad, row.grad, graph(b.grad_fn), b._version
    same(prog)


def test_setitem_without_grad_bumps_version():
    def prog(T):
        x = T.zeros(2, 3)
        x[0, 1:] = T.tensor([1, 2])
        x[T.tensor([1])] = 3.
        return x, x._version
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3, requires_grad=True).__setitem__(0, 1.),                  # #18
    lambda T: T.ones(3, requires_grad=True).__setitem__(Ellipsis, 1.),           # #17
    lambda T: T.ones(3, requires_grad=True).__setitem__(T.tensor([0]), 1.),      # #17
    lambda T: (T.ones(2, 3, requires_grad=True) * 1).unbind(0)[1].mul_(2),       # #20
    lambda T: (T.ones(2, 3, requires_grad=True) * 1).split(1)[1].add_(1),
    lambda T: (T.ones(2, 3, requires_grad=True) * 1).chunk(2)[0][0:1].mul_(2),   # view of it
    lambda T: (T.ones(3) * 1).__setitem__(slice(0, 2), T.ones(3)),
    lambda T: (T.ones(2, 3) * 1).__setitem__(0, T.ones(2, 3)),
    lambda T: (T.ones(3) * 1).__setitem__(T.tensor([0, 1]), T.ones(3)),
    lambda T: T.ones(3).copy_(T.ones(2)),
    lambda T: T.ones(3).copy_(T.ones(2, 3)),
    lambda T: T.ones(3).as_strided((2,), (2,), 2),
    lambda T: T.ones(3).as_strided((2,), (-1,)),
], ids=["18", "17-ellipsis", "17-index", "20", "split", "chunk-view",
        "setitem-shape", "setitem-ndim", "index-put-shape", "copy-shape", "copy-ndim",
        "as-strided-bounds", "as-strided-negative"])
def test_errors(prog):
    same_error(prog)


def test_view_made_in_no_grad_mode():
    def prog(T):
        a = T.ones(3, requires_grad=True) * 1
        with T.no_grad():
            v = a.unsqueeze(0)
            v.mul_(2)       # fine: not recorded
        v.mul_(2)
    same_error(prog)


@pytest.mark.parametrize("prog", [
    lambda T, x: (lambda y: (y.unsqueeze(0).mul_(2), y.sum().backward()))(x.exp()),
    lambda T, x: (lambda y: (lambda z: (y.unsqueeze(0).mul_(2), z.sum().backward()))(y * y))(x * 1),
    lambda T, x: (lambda v: (lambda z: (v.mul_(2), z.sum().backward()))(v * v))((x * 1)[1:]),
], ids=["saved-output", "saved-base", "saved-view"])
def test_modified_saved_tensor(prog):
    same_error(lambda T: prog(T, T.tensor([1., 2., 3.], requires_grad=True)))


def test_saved_tensor_of_base_not_modified():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = x * 1
        z = y.exp()          # saves its result, not y
        y.unsqueeze(0).mul_(2)
        z.sum().backward()
        return x.grad, y._version
    same(prog)


def test_copy_():
    def prog(T):
        x = T.ones(2, 3, requires_grad=True)
        s = T.tensor([1., 2., 3.], dtype=T.float64, requires_grad=True)
        b = x * 2
        b.copy_(s)
        (b * b).sum().backward()
        i = T.zeros(3, dtype=T.int64).copy_(T.tensor([1.5, 2.5, -3.5]))
        return b, x.grad, s.grad, graph(b.grad_fn), b._version, i, T.ones(2).copy_(5)
    same(prog)


def test_as_strided():
    def prog(T):
        x = T.arange(6.).requires_grad_()
        y = x * 1
        v = y[1:].as_strided((2, 2), (1, 2))
        (v * v).sum().backward()
        return v, x.grad, graph(v.grad_fn), v.grad_fn._saved_storage_offset, v._base is y
    same(prog)


def test_double_backward_through_copy_slices():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        b = x * x
        b[1:].mul_(x[:2])
        b[0] = x[2] ** 2
        g, = T.autograd.grad((b ** 2).sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        return g, gg
    same(prog)


def _inplace_fn(a, w):
    b = a * 1
    b[1:, 1:].mul_(w)
    b[:, 0] = w.sum()
    b.t()[2].copy_(w[0, 0])
    b[0].exp_()     # last: exp_ saves its result, which a later write would invalidate
    return b * a


def _setitem_fn(a, v):
    b = a.sin()
    b[chainrule.tensor([2, 0])] = v
    b[1, ::2] = v[0, :2]
    return b


@pytest.mark.parametrize("fn, shapes", [(_inplace_fn, ((3, 3), (2, 2))),
                                        (_setitem_fn, ((3, 3), (2, 3)))],
                         ids=["inplace", "setitem"])
def test_gradcheck(fn, shapes):
    inputs = tuple(chainrule.randn(*s, dtype=chainrule.float64, requires_grad=True)
                   for s in shapes)
    assert chainrule.autograd.gradcheck(fn, inputs)
    assert chainrule.autograd.gradgradcheck(fn, inputs)


STALE_VIEW_PROGRAMS = {
    # the base is modified in place after the view was taken: the view's history is
    # regenerated (Note [Stale views]) so its gradient reaches the base's new history
    "base-modified": "b = x * 1; v = b[0]; b.mul_(2); (v * 1).sum().backward()",
    "sibling-view-modified": "b = x * 1; v = b[1:]; w = b[:2]; w.mul_(3); (v * v).sum().backward()",
    "used-before-modification": "b = x * 1; v = b[0]; u = v * 5; b.add_(1); u.backward()",
}


@pytest.mark.parametrize("name", sorted(STALE_VIEW_PROGRAMS))
def test_stale_view_history_is_regenerated(name):
    results = []
    for lib in (chainrule, torch):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        scope = {"x": x}
        exec(STALE_VIEW_PROGRAMS[name], scope)
        results.append((x.grad.tolist(), type(scope["v"].grad_fn).__name__))
    assert results[0] == results[1]


def test_view_made_in_no_grad_requires_grad_like_its_base():
    for lib in (chainrule, torch):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        with lib.no_grad():
            v = x[0:2]
        assert (v.requires_grad, v.is_leaf, v.grad_fn) == (True, True, None)


def test_multi_output_view_without_history_is_flagged():
    messages = []
    for lib in (chainrule, torch):
        c = lib.tensor([[1., 2.], [3., 4.]])
        w = lib.tensor(2., requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            c.unbind(0)[1].mul_(w)
        messages.append(str(err.value))
    assert messages[0] == messages[1]


# ---- writes into expanded views (Note [Overlap] in ops/inplace.py) ------------------------

@pytest.mark.parametrize("write", [
    lambda T, e: e.add_(1), lambda T, e: e.mul_(2), lambda T, e: e.copy_(T.ones(4, 3)),
    lambda T, e: e.clamp_(0, 1), lambda T, e: e[:, 0].exp_(),
], ids=["add_", "mul_", "copy_", "clamp_", "column-exp_"])
def test_write_into_overlapping_view_raises(write):
    same_error(lambda T: write(T, T.zeros(3).expand(4, 3)))


def test_fill_through_expanded_view_writes_the_base():
    def prog(T):
        x = T.zeros(3)
        x.expand(4, 3).fill_(2.)
        y = T.zeros(2, 1)
        y.expand(2, 5).zero_()
        z = T.zeros(3)
        z.expand(2, 3)[1] = T.tensor([1., 2., 3.])     # a row of an expand does not overlap
        return x, y, z
    same(prog)


def test_overlap_check_on_a_non_leaf_view():
    same_error(lambda T: (T.ones(3, requires_grad=True) * 1).expand(2, 3).mul_(2))
    same(lambda T: _grad_after(T, lambda b: b.expand(1, 3).mul_(2)))


def _grad_after(T, write):
    a = T.tensor([1., 2., 3.], requires_grad=True)
    b = a * 1
    write(b)
    (b * T.tensor([1., 10., 100.])).sum().backward()
    return a.grad, b.grad_fn.name()


# ---- custom Functions that modify a view in place (ctx.mark_dirty) ------------------------

def _twice(T):
    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Twice


def test_mark_dirty_on_a_view_rebases_the_base():
    def prog(T):
        a = T.tensor([1., 2., 3.], requires_grad=True)
        base = a * 1
        out = _twice(T).apply(base[1:])
        names = (out.grad_fn.name(), graph(base.grad_fn))
        (base * T.tensor([1., 10., 100.])).sum().backward()
        return base, a.grad, names
    same(prog)


def test_mark_dirty_on_a_view_with_two_outputs_raises():
    def prog(T):
        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x.sum().clone(), x

            @staticmethod
            def backward(ctx, g1, g2):
                return g2 * 2 + g1
        Two.apply((T.ones(3, requires_grad=True) * 1)[1:])
    same_error(prog)


def test_mark_dirty_on_a_multi_output_view_raises():
    same_error(lambda T: _twice(T).apply((T.ones(2, 3, requires_grad=True) * 1).unbind(0)[0]))


def test_empty_tensors_do_not_overlap():
    same(lambda T: T.zeros(0, 3).mul_(2))


def test_index_put_and_masked_fill_through_an_expanded_view_warn_and_write():
    def prog(T):
        x = T.zeros(3)
        x.expand(2, 3).index_put_((T.tensor([0]),), T.tensor(1.))
        y = T.zeros(3)
        y.expand(2, 3).masked_fill_(T.tensor([True, False, True]), 3.)
        return x, y
    same(prog)
    same_warnings(prog)


def test_fill_from_a_tensor_through_an_expanded_view_raises():
    same_error(lambda T: T.zeros(3).expand(4, 3).fill_(T.tensor(1.)))
    same_error(lambda T: T.zeros(3).expand(4, 3).__setitem__((slice(None), 0), 5.))


def test_view_of_a_leaf_view_that_requires_grad():
    # x is itself a view (of arange's result) and a leaf: its views may not be written
    same_error(lambda T: T.arange(6.).reshape(2, 3).requires_grad_().__setitem__(
        (0, T.tensor([0])), 5.))


def test_inplace_op_reading_another_view_of_the_same_base():
    def prog(T):
        x = T.arange(5., requires_grad=True)
        y = x * 1
        y[0:2].copy_(y[3:5])
        names = graph(y.grad_fn)
        y.sum().backward()
        return x.grad, names
    same(prog)
    # the source was saved before the write, so its modification is detected, and named
    # by the source's regenerated history
    same_error(lambda T: _mul_by_alias(T))


def _mul_by_alias(T):
    x = T.arange(5., requires_grad=True)
    y = x * 1
    y[0:2].mul_(y[3:5])
    y.sum().backward()


def test_inplace_on_as_strided_view_with_an_offset():
    def prog(T):
        a = T.arange(9., dtype=T.float64).reshape(3, 3).requires_grad_()
        b = a * 1
        b.as_strided((2,), (4,), 1).mul_(0.)
        (b * b).sum().backward()
        return a.grad
    same(prog)


def _identity(T, n):
    class Identity(T.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            return xs if n > 1 else xs[0]

        @staticmethod
        def backward(ctx, *gs):
            return gs
    return Identity


@pytest.mark.parametrize("n", [1, 2])
def test_custom_function_returning_its_input_may_not_be_modified_in_place(n):
    def prog(T):
        xs = [T.ones(3, requires_grad=True) * 1 for _ in range(n)]
        out = _identity(T, n).apply(*xs)
        (out[0] if n > 1 else out).add_(1)
    same_error(prog)


@pytest.mark.parametrize("keep_view", [True, False], ids=["view kept", "view dropped"])
@pytest.mark.parametrize("inplace", [lambda v, x: v.exp_(), lambda v, x: v.mul_(2.0),
                                     lambda v, x: v.sin_()], ids=["exp_", "mul_", "sin_"])
def test_double_backward_through_an_inplace_op_on_a_view(inplace, keep_view):
    # the op's node can run both inside CopySlices and on its own (as grad_fn of its saved
    # result) in the second backward; the first graph is CopySlices's, as PyTorch's
    def prog(T):
        x = T.tensor([0.5, 1.0, 1.5], dtype=T.float64, requires_grad=True)
        b = x.clone()
        v = b[1:]
        inplace(v, x)
        if not keep_view:
            del v
        g, = T.autograd.grad((b * b).sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        return g, gg, graph(g.grad_fn, 5)
    same(prog)
