"""The graph and the engine: node names and next_functions, calling nodes by hand, version
counters, the iterative engine on long chains, execution order, accumulation,
retain_graph / create_graph, broadcasting and memory release. Each program runs on
chainrule and on PyTorch and the results are compared."""
import gc
import sys
import warnings
import weakref

import numpy as np
import pytest
import torch

import chainrule

from helpers import same, same_error


def graph_of(t, depth=6):
    """The graph under `t` as nested (name, [(child, input_nr), ...]), for comparison."""
    def walk(node, d):
        if node is None:
            return None
        if d == 0:
            return node.name()
        return (node.name(), [(walk(n, d - 1), nr) for n, nr in node.next_functions])
    return walk(t.grad_fn, depth)


# ---- the graph ----------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda x, y, T: x * y,
    lambda x, y, T: x * 2,
    lambda x, y, T: 2 * x,
    lambda x, y, T: x + y.detach(),
    lambda x, y, T: (x * y).exp().sum(),
    lambda x, y, T: (x + 1) / (y - 1),
    lambda x, y, T: 1 - x,
    lambda x, y, T: -x,
    lambda x, y, T: x.sum(0),
    lambda x, y, T: x.mean(),
    lambda x, y, T: (x * x) * (x * x),
    lambda x, y, T: x.view(6).unsqueeze(0).squeeze(0),
    lambda x, y, T: x.reshape(3, 2).clone(),
    lambda x, y, T: x.double().float(),
    lambda x, y, T: x.expand(2, 2, 3),
    lambda x, y, T: x ** 2,
    lambda x, y, T: x ** y,
    lambda x, y, T: 2 ** x,
    lambda x, y, T: T.where(x > 0, x, y),
    lambda x, y, T: x.log().reciprocal(),
    lambda x, y, T: x + T.ones(2, 3),
    lambda x, y, T: (x * 1).exp_(),
], ids=range(22))
def test_graph_structure(prog):
    def run(T):
        x = T.tensor([[1.5, 2., 3.], [0.5, 1., 4.]], requires_grad=True)
        y = T.tensor([[2., 1., 0.5], [3., 2., 1.]], requires_grad=True)
        out = prog(x, y, T)
        return out, graph_of(out), out.grad_fn.name(), type(out.grad_fn).__name__
    same(run)


def test_accumulate_grad_node():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        a, b = x * 2, x * 3
        acc = a.grad_fn.next_functions[0][0]
        return (acc.name(), acc.variable is x, b.grad_fn.next_functions[0][0] is acc,
                acc.next_functions, type(acc).__name__)
    same(prog)


def test_leaf_without_grad_has_no_edge():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        c = T.tensor([3., 4.])
        return (x * c).grad_fn.next_functions[1], (c * x).grad_fn.next_functions[0]
    same(prog)


def test_node_metadata_and_identity():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x.exp()
        y.grad_fn.metadata["k"] = 1
        return y.grad_fn.metadata, y.grad_fn is y.grad_fn, dict(y.grad_fn.metadata)
    same(prog)


def test_manual_backprop_calling_nodes():
    """Seed 004: walk the graph by hand, calling each node with its output gradient."""
    def prog(T):
        x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = T.tensor([[.5, -1.], [2., 0.]], requires_grad=True)
        z = x * y
        l = z.sum()
        back_sum = l.grad_fn
        dz = back_sum(T.tensor(1.))
        back_mul = back_sum.next_functions[0][0]
        dx, dy = back_mul(dz)
        back_x = back_mul.next_functions[0][0]
        back_y = back_mul.next_functions[1][0]
        r = back_x(dx)
        back_y(dy)
        return dz, dx, dy, r, x.grad, y.grad, back_x.variable is x
    same(prog)


def test_seed_004_second_example():
    def prog(T):
        A = T.tensor(2., requires_grad=True)
        B = T.tensor(.5, requires_grad=True)
        E = T.tensor(1., requires_grad=True)
        C = A * B
        D = C.exp()
        F = D + E
        out = [F, [t.is_leaf for t in (A, B, C, D, E, F)], [t.grad_fn for t in (F, D, C, A)],
               F.grad_fn.next_functions]
        F.backward(retain_graph=True)
        return out + [A.grad, B.grad, E.grad, C.retains_grad]
    same(prog)


def test_calling_a_node_with_wrong_arity():
    for T in (chainrule, torch):
        x = T.tensor([1., 2.], requires_grad=True)
        with pytest.raises(TypeError):
            (x * 2).grad_fn(T.ones(2), T.ones(2))


def test_multi_output_edges():
    def prog(T):
        x = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        a, b = x.unbind(0)
        c = b * a
        return graph_of(c), c.grad_fn.next_functions[0][1], c.grad_fn.next_functions[1][1]
    same(prog)


def test_saved_tensor_attributes():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x.exp()
        z = x * 3
        out = [y.grad_fn._saved_result, z.grad_fn._saved_other, (x.sum()).grad_fn._saved_self_sym_sizes]
        y.sum().backward()
        return out
    same(prog)
    same_error(lambda T: (lambda y: (y.sum().backward(), y.grad_fn._saved_result))(
        T.tensor([1., 2.], requires_grad=True).exp()))



def test_saved_named_outputs():
    # a saved output of a named-tuple op is read by its name, as in PyTorch (_saved_indices)
    def prog(T):
        x = T.tensor([[3., 1., 2.], [0., 5., 4.]], requires_grad=True)
        return [(f.grad_fn._saved_indices, f.grad_fn._saved_dim)
                for f in (x.sort(1)[0], x.topk(2, 1)[0], x.max(1)[0])]
    same(prog)


# ---- version counters ---------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    # a saved output modified in place (output-of-node form)
    lambda T, x, c: (lambda y: (y.add_(1), y.sum().backward()))(x.exp()),
    # a saved leaf that does not require grad (leaf form)
    lambda T, x, c: (lambda y: (c.add_(1), y.sum().backward()))(x * c),
    # a saved input whose current grad_fn is the in-place op's node
    lambda T, x, c: (lambda h: (lambda z: (h.add_(1), z.sum().backward()))(h * h))(x * 1),
    # 2-D float64, two in-place ops
    lambda T, x, c: (lambda y: (y.mul_(2), y.add_(1), y.sum().backward()))(
        T.ones(2, 3, dtype=T.float64, requires_grad=True).exp()),
    lambda T, x, c: (lambda y: (y.mul_(2), y.add_(1), y.sum().backward()))(
        T.ones(2, 3, dtype=T.float64, requires_grad=True).sigmoid()),
    # autograd.grad sees it too
    lambda T, x, c: (lambda y: (y.add_(1), T.autograd.grad(y.sum(), x)))(x.exp()),
    # a view shares the counter
    lambda T, x, c: (lambda y: (y.unsqueeze(0).mul_(2), y.sum().backward()))(x.exp()),
], ids=["output", "leaf", "rebased", "2d-double", "sigmoid", "grad", "view"])
def test_modified_saved_tensor(prog):
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        c = T.tensor([4., 5., 6.])
        prog(T, x, c)
    same_error(run)


def test_modified_saved_tensor_under_anomaly_mode():
    def run(T):
        with T.autograd.detect_anomaly():
            x = T.tensor([1., 2., 3.], requires_grad=True)
            y = x.exp()
            y.add_(1)
            y.sum().backward()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(run)


def test_in_place_on_unsaved_tensor_is_fine():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2          # saves nothing about y
        y.add_(1)
        z = y.exp()
        z.sum().backward()
        return x.grad, y._version, y.grad_fn, graph_of(z)
    same(prog)


def test_in_place_records_and_differentiates():
    def prog(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        y = x * 1
        y.mul_(x)
        y.exp_()
        y.sum().backward()
        return y, x.grad, graph_of(y), y._version
    same(prog)


def test_in_place_on_leaf_errors():
    same_error(lambda T: T.ones(3, requires_grad=True).add_(1))
    same_error(lambda T: T.ones(3, requires_grad=True).unsqueeze(0).add_(1))

    def prog(T):
        x = T.ones(3, requires_grad=True)
        with T.no_grad():
            x.add_(1)
        return x, x._version, x.is_leaf
    same(prog)


# ---- the engine ---------------------------------------------------------------------------

def test_million_op_chain():
    """The engine is a worklist: a chain of 1,000,000 nodes backpropagates (and the graph is
    freed) without recursion."""
    x = chainrule.tensor(1.0, dtype=chainrule.float64, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.000001
    y.backward()
    del y
    assert abs(x.grad.item() - 1.000001 ** 1_000_000) < 1e-9


def test_deep_graph_without_recursion():
    """100,000 mixed ops, backward and autograd.grad, under a small recursion limit."""
    def prog(T):
        x = T.tensor([0.5, -0.25], dtype=T.float64, requires_grad=True)
        y = x
        for i in range(25_000):
            y = (y * 0.9999).exp().log() + 1e-6
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(200)
        try:
            g, = T.autograd.grad(y.sum(), x, retain_graph=True)
            y.sum().backward()
            del y
        finally:
            sys.setrecursionlimit(limit)
        return g, x.grad
    same(prog, rtol=1e-9)


def test_dependency_order_diamond():
    """A node runs once, after every gradient into it has arrived."""
    def prog(T):
        order = []
        x = T.tensor([1., 2.], requires_grad=True)
        a = x * 2
        b = a.exp()
        c = a * 3
        d = b * c + a
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
            t.register_hook(lambda g, name=name: order.append(name))
        d.sum().backward()
        return order, x.grad
    same(prog)


def test_order_of_leaf_hooks_with_several_ready():
    """Six AccumulateGrad nodes ready at once pop in libstdc++'s heap order."""
    def prog(T):
        order = []
        xs = [T.tensor([float(i)], requires_grad=True) for i in range(6)]
        for i, x in enumerate(xs):
            x.register_hook(lambda g, i=i: order.append(i))
        T.stack(xs).sum().backward()
        return order
    same(prog)


def test_order_of_hooks_on_a_sum_of_products():
    def prog(T):
        order = []
        xs = [T.tensor([float(i + 1)], requires_grad=True) for i in range(5)]
        ys = [x * (i + 1) for i, x in enumerate(xs)]
        for i, t in enumerate(xs + ys):
            t.register_hook(lambda g, i=i: order.append(i))
        total = ys[0]
        for y in ys[1:]:
            total = total + y
        total.sum().backward()
        return order
    same(prog)


def test_accumulation_across_backwards():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        (x * x).sum().backward()
        g1 = x.grad.clone()
        (x * 3).sum().backward()
        y = (x.exp()).sum()
        y.backward(retain_graph=True)
        y.backward()
        return g1, x.grad
    same(prog)


def test_accumulated_grad_is_updated_in_place():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        (x * 2).sum().backward()
        g = x.grad
        (x * 3).sum().backward()
        return x.grad is g, g, g._version
    same(prog)


def test_user_gradient_is_not_aliased():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        seed = T.tensor([1., 1.])
        (x * 1).backward(seed)
        (x * 1).backward(seed)
        return seed, x.grad
    same(prog)


def test_non_leaf_grad_only_with_retain_grad():
    import warnings

    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        a = x * 2
        b = a.exp()
        b.retain_grad()
        b.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return a.grad, b.grad, x.grad
    same(prog)


@pytest.mark.parametrize("make", [
    lambda x: x.exp().sum(), lambda x: (x * 2).sum(), lambda x: (2 * x).sum(),
    lambda x: (x / 2).sum(), lambda x: x.pow(2).sum(), lambda x: (x * x.detach()).sum(),
], ids=["exp", "mul-scalar", "rmul-scalar", "div-scalar", "pow", "mul-const"])
def test_second_backward_fails_when_a_saved_tensor_was_freed(make):
    def prog(T):
        y = make(T.tensor([1., 2.], requires_grad=True))
        y.backward()
        y.backward()
    same_error(prog)


@pytest.mark.parametrize("make", [
    lambda x: x.sum(), lambda x: (x + x).sum(), lambda x: (x - 1).sum(), lambda x: x.mean(),
    lambda x: (-x).view(2, 1).sum(), lambda x: x.double().sum(), lambda x: x.clone().sum(),
    lambda x: x.expand(3, 2).sum(),
], ids=["sum", "add", "sub-scalar", "mean", "neg-view", "double", "clone", "expand"])
def test_second_backward_fine_without_saved_tensors(make):
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = make(x)
        y.backward()
        y.backward()
        return x.grad
    same(prog)


def test_retain_graph_keeps_saved_tensors():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x.exp().sum()
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    same(prog)


def test_create_graph_double_backward():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = (x ** 3).sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x, create_graph=True)
        ggg, = T.autograd.grad(gg.sum(), x)
        # (the nodes under g follow the formulas, which PyTorch writes with Scalar overloads)
        return g, gg, ggg, x.grad
    same(prog)


def test_backward_create_graph_makes_grad_differentiable():
    import warnings

    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x * x * x).sum().backward(create_graph=True)
            g = x.grad
            out = [g, graph_of(g)]
            # retain_graph defaulted to create_graph: a second backward works
            (x * x * x).sum().backward(create_graph=True)
        out += [x.grad, x.grad is g]
        x.grad.sum().backward()
        return out + [x.grad]
    same(prog)


def test_retain_graph_defaults_to_create_graph():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x.exp().sum()
        g, = T.autograd.grad(y, x, create_graph=True)
        g2, = T.autograd.grad(y, x)
        return g, g2
    same(prog)
    same_error(lambda T: (lambda x: (lambda y: (T.autograd.grad(y, x), T.autograd.grad(y, x)))(
        x.exp().sum()))(T.tensor([1., 2.], requires_grad=True)))


def test_second_grad_without_create_graph_errors():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        g, = T.autograd.grad((x * x).sum(), x)
        T.autograd.grad(g.sum(), x)
    same_error(prog)


def test_broadcast_gradients_are_summed():
    def prog(T):
        a = T.tensor([[1.], [2.], [3.]], requires_grad=True)
        b = T.tensor([1., 2., 3., 4.], requires_grad=True)
        c = T.tensor(2., requires_grad=True)
        d = T.tensor([[[0.5]]], dtype=T.float64, requires_grad=True)
        y = (a * b + c) * d
        y.sum().backward()
        return y, a.grad, b.grad, c.grad, d.grad
    same(prog)


def test_mixed_dtype_gradients_keep_input_dtypes():
    def prog(T):
        a = T.tensor([1., 2.], requires_grad=True)
        b = T.tensor([3., 4.], dtype=T.float64, requires_grad=True)
        y = a * b
        y.sum().backward()
        return y, a.grad, b.grad
    same(prog)


def test_gradient_flows_through_integer_free_paths_only():
    def prog(T):
        x = T.tensor([1.5, -2.], requires_grad=True)
        m = (x > 0)
        y = x * m
        y.sum().backward()
        return m, x.grad
    same(prog)


# ---- memory -------------------------------------------------------------------------------

def test_saved_tensors_are_freed_by_backward():
    x = chainrule.tensor([1., 2.], requires_grad=True)
    h = x * 2
    saved_input = weakref.ref(h)
    e = h.exp()
    saved_output = weakref.ref(e._data)
    z = (h * e).sum()
    del h, e
    gc.collect()
    assert saved_input() is not None and saved_output() is not None
    gc.disable()
    try:
        z.backward()
        assert saved_input() is None and saved_output() is None
    finally:
        gc.enable()


def test_retain_graph_keeps_them_until_the_graph_dies():
    gc.disable()
    try:
        x = chainrule.tensor([1., 2.], requires_grad=True)
        e = x.exp()
        saved = weakref.ref(e._data)
        y = e.sum()
        node = weakref.ref(e.grad_fn)
        del e
        y.backward(retain_graph=True)
        assert saved() is not None and node() is not None
        del y          # no reference cycles: the graph goes with its output
        assert saved() is None and node() is None
    finally:
        gc.enable()


def test_no_cycles_between_outputs_and_nodes():
    """With the cyclic collector off, dropping the output frees the whole graph."""
    gc.disable()
    try:
        x = chainrule.tensor([1., 2.], requires_grad=True)
        e = x.exp()
        y = (e * x).sum()
        refs = [weakref.ref(o) for o in (y, y.grad_fn, e, e.grad_fn,
                                         y.grad_fn.next_functions[0][0],
                                         e.grad_fn.next_functions[0][0])]
        del e, y
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()


def test_buffers_are_dropped_during_backward():
    """A gradient flowing down a chain is released as soon as its node has consumed it."""
    x = chainrule.ones(1000, dtype=chainrule.float64, requires_grad=True)
    y = x
    for _ in range(20):
        y = y * 1.0
    top = bottom = y.grad_fn.next_functions[0][0]     # its input is a fresh gradient
    while bottom.next_functions[0][0].next_functions:
        bottom = bottom.next_functions[0][0]
    seen, dead = [], []
    top.register_prehook(lambda gs: seen.append(weakref.ref(gs[0])))
    bottom.register_prehook(lambda gs: dead.append(seen[0]() is None))
    y.backward(chainrule.ones(1000, dtype=chainrule.float64) * 2)
    assert dead == [True]


@pytest.mark.parametrize("seed", range(4))
def test_execution_order_on_random_graphs(seed):
    """Hooks on every tensor of a random DAG (several leaves, shared subexpressions, two
    roots) fire in PyTorch's order, and the gradients agree."""
    def prog(T):
        rng = np.random.default_rng(seed)
        order = []
        leaves = [T.tensor([0.1 * (i + 1), -0.2], dtype=T.float64, requires_grad=True)
                  for i in range(4)]
        pool = list(leaves)
        for step in range(12):
            a, b = (pool[i] for i in rng.integers(0, len(pool), 2))
            kind = rng.integers(0, 3)
            t = a * b if kind == 0 else a + b if kind == 1 else (a * 0.5).exp()
            pool.append(t)
        for i, t in enumerate(pool):
            t.register_hook(lambda g, i=i: order.append(i))
        T.autograd.backward([pool[-1].sum(), pool[-2].sum()])
        return order, [x.grad for x in leaves]
    same(prog, rtol=1e-12)


def test_first_gradient_is_never_shared_with_the_caller():
    """AccumulateGrad keeps a fresh gradient without copying (Note [Stealing the first
    gradient]); a gradient someone else holds must be copied, or later in-place accumulation
    would write into it."""
    for lib in (chainrule, torch):
        a = lib.tensor([1., 2.], requires_grad=True)
        c = lib.tensor([3., 4.], requires_grad=True)
        g = lib.ones(2)
        (a + c).backward(g)          # AddBackward0 passes the same gradient to both leaves
        (a + c).backward(g)
        assert a.grad.tolist() == [2., 2.] and c.grad.tolist() == [2., 2.]
        assert g.tolist() == [1., 1.]
        assert a.grad is not c.grad
        leaf = lib.tensor([1., 2.], requires_grad=True)
        u = lib.tensor([5., 5.])
        leaf.backward(u)             # the root gradient reaches AccumulateGrad directly
        leaf.backward(u)
        assert leaf.grad.tolist() == [10., 10.] and u.tolist() == [5., 5.]
        w = lib.tensor([1., 2.], requires_grad=True)
        (w * 3).sum().backward()
        first = w.grad
        (w * 3).sum().backward()     # accumulates in place into the tensor stored first
        assert first is w.grad and w.grad.tolist() == [6., 6.]


def test_formulas_run_only_for_inputs_backward_needs():
    # PyTorch's should_compute_output: igamma has no derivative for its first input, yet a
    # gradient for the second alone is computed
    def prog(T):
        a = T.tensor([1.5, 2.0], requires_grad=True)
        x = T.tensor([0.5, 3.0], requires_grad=True)
        y = T.igamma(a, x).sum()
        g = T.autograd.grad(y, x, retain_graph=True)
        y.backward(inputs=[x])
        return g, x.grad, a.grad
    same(prog)
    same_error(lambda T: T.autograd.grad(T.igamma(T.tensor([1.5], requires_grad=True),
                                                  T.tensor([0.5])).sum(),
                                         T.tensor([1.5], requires_grad=True)))


def test_python_complex_numbers_are_conjugated_in_formulas():
    # PyTorch conjugates the other operand of mul/div, a Python number too, and takes the
    # real part of a real input's gradient without a warning
    def prog(T):
        out = []
        for f in (lambda x: x * 2j, lambda x: 2j * x, lambda x: x / (1 + 2j),
                  lambda x: x * (3 - 1j) + x):
            x = T.tensor([1.0, 2.0], requires_grad=True)
            f(x).backward(T.tensor([1j, 2 + 1j]))
            z = T.tensor([1 + 1j, 2 - 1j], requires_grad=True)
            f(z).abs().sum().backward()
            out += [x.grad, z.grad]
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(prog)
