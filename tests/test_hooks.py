"""Hooks: tensor hooks (leaves and non-leaves), post-accumulate-grad hooks, node pre- and
post-hooks, removable handles, and PyTorch's checks on what hooks return."""
import pytest

import chainrule

from helpers import same, same_error


def test_leaf_hook_replaces_gradient_before_accumulation():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)

        def hook(g):
            log.append((g.clone(), None if x.grad is None else x.grad.clone()))
            return g * 10
        x.register_hook(hook)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad, log
    same(prog)


def test_hook_returning_none_keeps_gradient():
    def prog(T):
        seen = []
        x = T.tensor([1., 2.], requires_grad=True)
        x.register_hook(lambda g: seen.append(g))
        (x * 2).sum().backward()
        return x.grad, seen
    same(prog)


def test_non_leaf_hook_changes_what_flows_on():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g + 1)
        y.exp().sum().backward()
        return x.grad
    same(prog)


def test_hooks_chain_in_registration_order():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: (log.append(("a", g)), g * 2)[1])
        y.register_hook(lambda g: (log.append(("b", g)), g + 1)[1])
        x.register_hook(lambda g: (log.append(("x1", g)), g * 3)[1])
        x.register_hook(lambda g: log.append(("x2", g)))
        y.sum().backward()
        return log, x.grad
    same(prog)


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_sees_hooked_gradient(retain_first):
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        if retain_first:
            y.retain_grad()
        y.register_hook(lambda g: g * 5)
        if not retain_first:
            y.retain_grad()
        y.sum().backward()
        return y.grad, x.grad
    same(prog)


def test_hooks_and_in_place_changes():
    """Tensor hooks stay with the value they were registered on; retains_grad follows the
    tensor to its new history."""
    def prog(T):
        log = []
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: log.append(("before", g)))
        y.retain_grad()
        y.mul_(3)
        y.register_hook(lambda g: log.append(("after", g)))
        y.sum().backward()
        return log, y.grad, x.grad
    same(prog)


def test_retain_grad_follows_a_custom_in_place_function():
    def prog(T):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a.mul_(2)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = T.ones(2, requires_grad=True)
        y = x * 1
        y.retain_grad()
        Twice.apply(y)
        (y * 5).sum().backward()
        return y.grad, x.grad
    same(prog)


def test_gradient_edge_as_input():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        h = x * 2
        y = (h * h).sum()
        e = T.autograd.graph.get_gradient_edge(h)
        return T.autograd.grad(y, e), e.node, e.output_nr, e.node is h.grad_fn
    same(prog)


def test_handle_remove():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        h = x.register_hook(lambda g: (log.append(1), g * 2)[1])
        y = x * 3
        hy = y.register_hook(lambda g: (log.append(2), g * 2)[1])
        hy.remove()
        (y.sum()).backward(retain_graph=True)
        h.remove()
        h.remove()           # removing twice is fine
        y.sum().backward()
        node = y.grad_fn
        hn = node.register_prehook(lambda gs: log.append(3))
        hp = node.register_hook(lambda gi, go: log.append(4))
        hn.remove()
        hp.remove()
        (x * 3).sum().backward()
        return log, x.grad
    same(prog)


def test_handle_as_context_manager():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        with x.register_hook(lambda g: log.append(1)):
            (x * 2).sum().backward()
        (x * 2).sum().backward()
        return log
    same(prog)


def test_post_accumulate_grad_hook():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)

        def hook(t):
            log.append((t is x, t.grad.clone()))
        h = x.register_post_accumulate_grad_hook(hook)
        x.register_hook(lambda g: g * 2)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        h.remove()
        (x * 3).sum().backward()
        return log, x.grad
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: (T.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
    lambda T: T.ones(2).register_post_accumulate_grad_hook(print),
    lambda T: T.ones(2).register_hook(print),
    lambda T: (T.ones(2) * 2).register_hook(print),
], ids=["non-leaf", "post-no-grad", "no-grad", "no-grad-non-leaf"])
def test_registration_errors(prog):
    same_error(prog)


def test_node_hooks():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        c = T.tensor([3., 4.])
        y = x * c
        node = y.grad_fn
        node.register_prehook(lambda go: (log.append(("pre", go)), (go[0] * 2,))[1])
        node.register_hook(lambda gi, go: (log.append(("post", gi, go)), (gi[0] + 1, gi[1]))[1])
        y.sum().backward()
        return log, x.grad
    same(prog)


def test_hooks_on_accumulate_grad_node():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: (log.append(("pre", go)), (go[0] * 3,))[1])
        acc.register_hook(lambda gi, go: log.append(("post", gi, go)))
        y.sum().backward()
        return log, x.grad
    same(prog)


def test_hook_order_tensor_then_node_prehook():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        z = y * 3
        y.grad_fn.register_prehook(lambda go: log.append("node-pre"))
        y.register_hook(lambda g: log.append("tensor"))
        y.grad_fn.register_hook(lambda gi, go: log.append("node-post"))
        x.register_hook(lambda g: log.append("leaf"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("post-acc"))
        z.sum().backward()
        return log
    same(prog)


def test_tensor_hooks_run_for_autograd_grad_inputs():
    def prog(T):
        log = []
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        x.register_hook(lambda g: (log.append("x"), g * 2)[1])
        y.register_hook(lambda g: (log.append("y"), g * 3)[1])
        x.register_post_accumulate_grad_hook(lambda t: log.append("post-acc"))
        gx, gy = T.autograd.grad(y.exp().sum(), [x, y])
        return log, gx, gy, x.grad
    same(prog)


def _tensor_hook(T, hook, leaf):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    (x if leaf else y).register_hook(hook)
    (y * y).sum().backward()


def _node_hook(T, hook, pre):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    (y.grad_fn.register_prehook if pre else y.grad_fn.register_hook)(hook)
    y.sum().backward()


def _named(T):
    def hk(g):
        return T.ones(3)
    return hk


class _Callable:
    def __init__(self, T):
        self.T = T

    def __call__(self, g):
        return self.T.ones(3)


@pytest.mark.parametrize("prog", [
    lambda T: _tensor_hook(T, lambda g: T.ones(3), True),
    lambda T: _tensor_hook(T, _named(T), True),
    lambda T: _tensor_hook(T, _Callable(T), True),
    lambda T: _tensor_hook(T, lambda g: T.ones(3), False),
    lambda T: _tensor_hook(T, lambda g: T.ones(2, dtype=T.float64), True),
    lambda T: _tensor_hook(T, lambda g: T.ones(2, dtype=T.float64), False),
    lambda T: _tensor_hook(T, lambda g: 3, True),
    lambda T: _tensor_hook(T, lambda g: 3, False),
    lambda T: _node_hook(T, lambda gi, go: (T.ones(3), None), False),
    lambda T: _node_hook(T, lambda gi, go: (T.ones(2),), False),
    lambda T: _node_hook(T, lambda gi, go: [T.ones(2), None], False),
    lambda T: _node_hook(T, lambda gi, go: (3, None), False),
    lambda T: _node_hook(T, lambda gi, go: (T.ones(2), T.ones(2)), False),
    lambda T: _node_hook(T, lambda go: (T.ones(3),), True),
    lambda T: _node_hook(T, lambda go: T.ones(2), True),
], ids=range(15))
def test_bad_hook_results(prog):
    same_error(prog)


def test_hook_may_drop_a_gradient():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: (None, None))
        y.sum().backward()
        z = x * 3
        z.grad_fn.register_prehook(lambda go: (None,))
        z.sum().backward()
        return x.grad
    same(prog)


def test_removable_handle_type():
    from chainrule.utils.hooks import RemovableHandle
    x = chainrule.ones(1, requires_grad=True)
    assert isinstance(x.register_hook(print), RemovableHandle)
    assert isinstance((x * 1).grad_fn.register_hook(print), RemovableHandle)
