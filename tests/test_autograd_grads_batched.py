"""autograd.grad(..., is_grads_batched=True) against PyTorch: one vector-Jacobian product per
index of dim 0 of the grad_outputs (values, shapes, unused inputs, materialize_grads,
create_graph, retain_graph) and PyTorch's errors."""
import pytest

from helpers import same, same_error


def _graph(T):
    x = T.tensor([0.3, -1.2, 0.7], dtype=T.float64, requires_grad=True)
    z = T.tensor([1.5, -2.0], dtype=T.float64, requires_grad=True)
    y = x.sin() * z.sum()
    s = (x ** 2).sum() * z[0]
    return x, z, y, s


def _basis(T, n=3):
    return T.eye(n, dtype=T.float64)


def test_batched_vjps():
    def prog(T):
        x, z, y, s = _graph(T)
        v = T.tensor([1.0, 2.0, -3.0], dtype=T.float64)
        one = T.autograd.grad(y, x, _basis(T), retain_graph=True, is_grads_batched=True)
        two = T.autograd.grad((y, s), (x, z), (_basis(T), v), retain_graph=True,
                              is_grads_batched=True)
        # a batch of 4 vectors of a [2, 3] output
        w = T.arange(24, dtype=T.float64).reshape(4, 2, 3) / 10
        outer = T.autograd.grad(x.unsqueeze(0) * z.unsqueeze(1), (x, z), w,
                                is_grads_batched=True)
        return one, two, outer
    same(prog)


def test_unused_inputs_and_materialize_grads():
    def prog(T):
        x, z, y, s = _graph(T)
        u = T.ones(2, 2, dtype=T.float64, requires_grad=True)
        none = T.autograd.grad(y, (x, u), _basis(T), retain_graph=True, allow_unused=True,
                               is_grads_batched=True)
        # materialized zeros have the input's shape, not the batched one
        zeros = T.autograd.grad(y, (u, x), _basis(T), retain_graph=True,
                                materialize_grads=True, is_grads_batched=True)
        only_unused = T.autograd.grad(y, u, _basis(T), allow_unused=True,
                                      is_grads_batched=True)
        return none, zeros, only_unused
    same(prog)


def test_create_graph_and_double_backward():
    def prog(T):
        x, z, y, s = _graph(T)
        basis = _basis(T).requires_grad_()
        (rows,) = T.autograd.grad(y, x, basis, create_graph=True, is_grads_batched=True)
        # second derivatives flow through every row, and to the batched grad_outputs
        gx, gb = T.autograd.grad((rows ** 2).sum(), (x, basis))
        # the batched product is PyTorch's vmap's node; chainrule stacks the rows
        return rows.detach(), rows.requires_grad, gx, gb
    same(prog)


def test_materialized_zeros_require_grad_with_create_graph():
    def prog(T):
        x, z, y, s = _graph(T)
        u = T.ones(2, dtype=T.float64, requires_grad=True)
        plain = T.autograd.grad(s, (x, u), create_graph=True, materialize_grads=True)
        batched = T.autograd.grad(y, (x, u), _basis(T), create_graph=True,
                                  materialize_grads=True, is_grads_batched=True)
        return [(g.detach(), g.requires_grad) for g in plain + batched]
    same(prog)


def test_graph_is_freed_after_the_last_vector():
    def prog(T):
        x, z, y, s = _graph(T)
        kept = T.autograd.grad(y, x, _basis(T), retain_graph=True, is_grads_batched=True)
        freed = T.autograd.grad(y, x, _basis(T), is_grads_batched=True)
        try:
            T.autograd.grad(y, x, _basis(T), is_grads_batched=True)
        except RuntimeError as e:
            return kept, freed, str(e)
    same(prog)


@pytest.mark.parametrize("prog", [
    # grad_output[0] of the wrong shape, 0-dim and empty grad_outputs
    lambda T: T.autograd.grad(_graph(T)[2], _graph(T)[0], T.ones(3, 2), is_grads_batched=True),
    lambda T: T.autograd.grad(_graph(T)[2], _graph(T)[0], T.ones(3), is_grads_batched=True),
    lambda T: T.autograd.grad(_graph(T)[3], _graph(T)[0], T.tensor(1.0, dtype=T.float64),
                              is_grads_batched=True),
    lambda T: T.autograd.grad(_graph(T)[2], _graph(T)[0], T.ones(0, 3, dtype=T.float64),
                              is_grads_batched=True),
    # a scalar output's implicit gradient is not batched
    lambda T: T.autograd.grad(_graph(T)[3], _graph(T)[0], is_grads_batched=True),
    lambda T: (lambda x, z, y, s: T.autograd.grad(
        (y, T.ones(3)), x, (_basis(T), None), is_grads_batched=True))(*_graph(T)),
    # batch sizes that differ
    lambda T: (lambda x, z, y, s: T.autograd.grad(
        (y, y), x, (_basis(T), T.ones(2, 3, dtype=T.float64)),
        is_grads_batched=True))(*_graph(T)),
    lambda T: T.autograd.grad(_graph(T)[2], _graph(T)[0], T.ones(2, 3, dtype=T.complex128),
                              is_grads_batched=True),
    lambda T: T.autograd.grad(_graph(T)[2], T.ones(3), _basis(T), is_grads_batched=True),
    lambda T: (lambda x, z, y, s: T.autograd.grad(
        y, (x, T.ones(2, requires_grad=True)), _basis(T), is_grads_batched=True))(*_graph(T)),
])
def test_errors(prog):
    same_error(prog)
