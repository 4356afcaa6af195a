"""The programs of the seed documents chainrule was born from, run under chainrule and
under PyTorch 2.13 on identical inputs, with everything they print compared.

Each program is the seed's code written once as `program(torch)`, the library under test
passed in. `print` inside a program is a recorder (see `printer`), so a program returns
what it printed; values the seed computes but does not print are appended to that list
too. `check` compares the two runs: tensors (values, dtype, shape, requires_grad, is_leaf,
grad_fn name), nodes (class name), tuples and lists item by item, exceptions (class and
message), the warnings raised, and the printed text itself with memory addresses masked.

Inputs: the seeds' own torch.randn / rand / randint / manual_seed calls. chainrule's
generator is bit-identical to PyTorch's CPU generator, and `run` seeds both alike before
each program, so both runs see the same numbers.

Quirks are kept: where a seed's code raises in PyTorch (a non-scalar `backward()`, a
gradient of the wrong shape, `with torch.no_grad:`, a missing `outputs=`), the program runs
it inside `raises(out)` and both libraries must raise the same; the lines after it then run
what the author meant, marked "the seed's intent".
"""
import contextlib
import functools
import io
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule

SEED = 0
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.S)


# ---- recording and comparing --------------------------------------------------------------

class Printed(tuple):
    """The arguments of one print() call; `text` is what it printed, taken at the call
    (later in-place updates, such as gradient accumulation, change the arguments)."""


class Raised(tuple):
    """(exception class name, message) of an expected exception."""


def printer():
    """A list to record into, and a `print` that records its arguments there."""
    out = []

    def print(*args):
        p = Printed(args)
        p.text = ADDRESS.sub(" at 0x...", " ".join(str(a) for a in args))
        out.append(p)
    return out, print


@contextlib.contextmanager
def raises(out):
    """Record into `out` the exception the block raises (or that it raised none)."""
    try:
        yield
    except Exception as e:
        out.append(Raised((type(e).__name__, str(e))))
    else:
        out.append(Raised(("no exception", "")))


def run(program, lib):
    """Run `program(lib)` from a fixed seed; return what it recorded and the warnings."""
    lib.manual_seed(SEED)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = program(lib)
    return out, [(w.category.__name__, TRIGGERED.sub("", str(w.message))) for w in caught]


def check(program, text=True, rtol=1.3e-6, atol=1e-5):
    """Run `program` on both libraries and compare everything it recorded. `text=False`
    skips comparing printed text (for approximate values). Returns (ours, theirs)."""
    ours, our_warnings = run(program, chainrule)
    theirs, their_warnings = run(program, torch)
    assert len(ours) == len(theirs), (ours, theirs)
    for i, (o, t) in enumerate(zip(ours, theirs)):
        same(o, t, f"record {i}", rtol, atol)
        if isinstance(t, Raised):
            assert t[0] != "no exception", f"record {i}: PyTorch was expected to raise"
        if text and isinstance(t, Printed):
            assert o.text == t.text, f"record {i}"
    assert our_warnings == their_warnings
    return ours, theirs


def node_name(node):
    return None if node is None else type(node).__name__


def same(o, t, where, rtol, atol):
    if isinstance(t, torch.Tensor):
        assert isinstance(o, chainrule.Tensor), f"{where}: {type(o)}"
        assert tuple(o.shape) == tuple(t.shape), f"{where}: shape {o.shape} != {t.shape}"
        assert str(o.dtype) == str(t.dtype), f"{where}: dtype {o.dtype} != {t.dtype}"
        assert o.requires_grad == t.requires_grad, f"{where}: requires_grad"
        assert o.is_leaf == t.is_leaf, f"{where}: is_leaf"
        assert node_name(o.grad_fn) == node_name(t.grad_fn), f"{where}: grad_fn"
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol,
                                   err_msg=where)
    elif isinstance(t, torch.autograd.graph.Node):
        assert node_name(o) == node_name(t), where
    elif isinstance(t, (tuple, list)):
        assert type(o).__name__ == type(t).__name__, f"{where}: {type(o)} != {type(t)}"
        assert len(o) == len(t), f"{where}: {o!r} != {t!r}"
        for i, (a, b) in enumerate(zip(o, t)):
            same(a, b, f"{where}[{i}]", rtol, atol)
    elif isinstance(t, torch.dtype):
        assert str(o) == str(t), where
    else:
        assert type(o) is type(t) and o == t, f"{where}: {o!r} != {t!r}"


def test_inputs_are_identical():
    """The premise of `run`: the seeds' sampling calls give PyTorch's numbers bit for bit."""
    def draws(lib):
        lib.manual_seed(6)
        a = lib.randn(4, 4, requires_grad=True)
        return [a.detach(), lib.randn(10), lib.rand(5), lib.randint(0, 4, (2, 5)).long(),
                lib.randn((3, 3)), lib.randn_like(a)]
    for o, t in zip(draws(chainrule), draws(torch)):
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.numpy(), t.numpy())


# ---- seed 000: gradients for a non-sequential model ---------------------------------------

# nn.Linear(5, 3)'s weights, fed explicitly so both libraries start from the same model.
LINEAR_WEIGHT = np.random.default_rng(0).uniform(-0.44, 0.44, (3, 5)).astype(np.float32)
LINEAR_BIAS = np.random.default_rng(1).uniform(-0.44, 0.44, 3).astype(np.float32)


def custom_aggregate(torch):
    """Seed 000's CustomAggregate Function, for library `torch`."""
    class CustomAggregate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, node_features, edge_indices, edge_weights):
            ctx.save_for_backward(node_features, edge_indices, edge_weights)
            num_nodes = node_features.size(0)
            source_nodes = edge_indices[0]
            target_nodes = edge_indices[1]
            weighted_features = node_features[source_nodes] * edge_weights.unsqueeze(-1)
            aggregated_features = torch.zeros_like(node_features)
            aggregated_features = aggregated_features.scatter_add(0, target_nodes.unsqueeze(-1).expand_as(weighted_features), weighted_features)
            return aggregated_features

        @staticmethod
        def backward(ctx, grad_output):
            node_features, edge_indices, edge_weights = ctx.saved_tensors
            num_nodes = node_features.size(0)
            source_nodes = edge_indices[0]
            target_nodes = edge_indices[1]
            grad_node_features = torch.zeros_like(node_features)
            grad_edge_weights = torch.zeros_like(edge_weights)

            weighted_output_grad = grad_output[target_nodes]
            grad_node_features.index_add_(0, source_nodes, (weighted_output_grad*edge_weights.unsqueeze(-1)))

            grad_edge_weights.index_add_(0, torch.arange(edge_weights.size(0)),(weighted_output_grad*node_features[source_nodes]).sum(-1))

            return grad_node_features, None, grad_edge_weights
    return CustomAggregate


def seed000_custom_aggregate(torch):
    """Example 3's Function on its own: `transformed_features` stands in for the model's
    Linear output, and the loss is MSELoss's formula in plain ops."""
    out, print = printer()
    CustomAggregate = custom_aggregate(torch)
    out_features = 3
    num_nodes = 4
    num_edges = 5
    transformed_features = torch.randn(num_nodes, out_features, requires_grad=True)
    edge_indices = torch.randint(0, num_nodes, (2, num_edges)).long()
    edge_weights = torch.rand(num_edges, requires_grad=True)
    output = CustomAggregate.apply(transformed_features, edge_indices, edge_weights)
    target = torch.randn_like(output)
    loss = ((output - target) ** 2).mean()
    loss.backward()
    print(output)
    print("Gradients of node features:", transformed_features.grad)
    print("Gradients of edge weights:", edge_weights.grad)
    return out


def hetero_graph_program(torch, example):
    """Seed 000's Examples 1-3: the same model with three aggregations."""
    out, print = printer()
    CustomAggregate = custom_aggregate(torch)

    class HeteroGraphProcessor(torch.nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.linear = torch.nn.Linear(in_features, out_features)

        def aggregate_messages(self, node_features, edge_indices, edge_weights):
            if example == 1:
                num_nodes = node_features.size(0)
                aggregated_features = torch.zeros_like(node_features)
                for i in range(edge_indices.size(1)):
                    source_node = edge_indices[0, i]
                    target_node = edge_indices[1, i]
                    weight = edge_weights[i]
                    aggregated_features[target_node] += node_features[source_node] * weight
                return aggregated_features
            if example == 2:
                num_nodes = node_features.size(0)
                source_nodes = edge_indices[0]
                target_nodes = edge_indices[1]
                weighted_features = node_features[source_nodes] * edge_weights.unsqueeze(-1) # Multiply with weights

                aggregated_features = torch.zeros_like(node_features)
                aggregated_features = aggregated_features.scatter_add(0, target_nodes.unsqueeze(-1).expand_as(weighted_features), weighted_features)

                return aggregated_features
            return CustomAggregate.apply(node_features, edge_indices, edge_weights)

        def forward(self, node_features, edge_indices, edge_weights):
            transformed_features = self.linear(node_features)
            aggregated_features = self.aggregate_messages(transformed_features, edge_indices, edge_weights)
            return aggregated_features

    in_features = 5
    out_features = 3
    num_nodes = 4
    num_edges = 5

    model = HeteroGraphProcessor(in_features, out_features)
    with torch.no_grad():
        model.linear.weight.copy_(torch.tensor(LINEAR_WEIGHT))
        model.linear.bias.copy_(torch.tensor(LINEAR_BIAS))
    torch.manual_seed(SEED)  # nn's own init draws are not compared: restart the stream
    node_features = torch.randn(num_nodes, in_features, requires_grad=True)
    edge_indices = torch.randint(0, num_nodes, (2, num_edges)).long()
    edge_weights = torch.rand(num_edges, requires_grad=True)
    loss_fn = torch.nn.MSELoss()

    output = model(node_features, edge_indices, edge_weights)
    target = torch.randn_like(output)
    loss = loss_fn(output, target)
    loss.backward()

    print("Gradients of node features:", node_features.grad)
    print("Gradients of edge weights:", edge_weights.grad)
    out.append([output, loss, model.linear.weight.grad, model.linear.bias.grad])
    return out


def test_seed000_custom_aggregate_function():
    check(seed000_custom_aggregate)


@pytest.mark.parametrize("example", [1, 2, 3])
def test_seed000_hetero_graph_processor(example):
    check(functools.partial(hetero_graph_program, example=example))


# ---- seed 001: custom Functions for non-differentiable code -------------------------------

def seed001_finite_difference(torch):
    out, print = printer()

    def my_external_func(x):
        return torch.exp(x) * torch.sin(x*2)

    class MyExternalFunc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return my_external_func(x)

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            h = 1e-6  # Step size
            grad_x = (my_external_func(x + h) - my_external_func(x - h)) / (2 * h)
            return grad_x * grad_output

    x = torch.randn(10, requires_grad=True)
    y = MyExternalFunc.apply(x)
    with raises(out):
        y.backward()  # y has 10 elements
    y.backward(torch.ones_like(y))  # the seed's intent
    print(x.grad)
    out.append(x)
    return out


def test_seed001_finite_difference():
    """The central difference with h=1e-6 in float32 is far from the derivative (x + h
    rounds h to a few ulps of x), and differs between libraries wherever exp or sin round
    differently. Both must be as close to the exact derivative as PyTorch's value is."""
    # Each within `tol` of the exact value, so within twice that of each other.
    ours, theirs = check(seed001_finite_difference, text=False, rtol=0.25, atol=0.2)
    x = theirs[-1].detach().numpy().astype(np.float64)
    exact = np.exp(x) * (np.sin(2 * x) + 2 * np.cos(2 * x))
    tol = 0.1 * np.abs(exact) + 0.1  # PyTorch is off by up to 5.2% here
    assert np.all(np.abs(theirs[1][0].numpy() - exact) <= tol)  # PyTorch meets it
    assert np.all(np.abs(ours[1][0].numpy() - exact) <= tol)


def seed001_analytical(torch):
    out, print = printer()

    def my_external_func(x):
        return torch.exp(x) * torch.sin(x * 2)

    def my_external_func_derivative(x):
        return torch.exp(x) * (torch.sin(2 * x) + 2 * torch.cos(2 * x))

    class MyExternalFunc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return my_external_func(x)

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            grad_x = my_external_func_derivative(x)
            return grad_x * grad_output

    x = torch.randn(10, requires_grad=True)
    y = MyExternalFunc.apply(x)
    with raises(out):
        y.backward()
    y.backward(torch.ones_like(y))  # the seed's intent
    print(x.grad)
    print(y)
    return out


def test_seed001_analytical_derivative():
    check(seed001_analytical)


def seed001_jacobian(torch, fixed=False):
    """Example 3. Its backward hands bmm a 2-d Jacobian, which PyTorch rejects; `fixed`
    gives the Jacobian its missing dim so the vector-Jacobian product runs."""
    out, print = printer()

    def my_external_func(x):
        return torch.stack([torch.sin(x), torch.cos(x)], dim=-1) # Example multi-dimensional output

    class MyExternalFunc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return my_external_func(x)

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            jacobian = torch.stack([torch.cos(x), -torch.sin(x)], dim=-1)
            if fixed:
                return torch.bmm(grad_output.unsqueeze(1), jacobian.unsqueeze(-1)).squeeze(-1).squeeze(-1)
            grad_x = torch.bmm(grad_output.unsqueeze(1), jacobian).squeeze(1)  # matrix multiplication for vector-Jacobian product
            return grad_x

    x = torch.randn(10, requires_grad=True)
    y = MyExternalFunc.apply(x)
    with raises(out):
        y.backward()
    print(y)
    if fixed:
        y.backward(torch.ones_like(y))
        print(x.grad)
    else:
        with raises(out):
            y.backward(torch.ones_like(y))  # the seed's intent
    return out


def test_seed001_jacobian():
    check(seed001_jacobian)


def test_seed001_jacobian_fixed():
    check(functools.partial(seed001_jacobian, fixed=True))


# ---- seed 002: graphs, automatic differentiation and autograd -----------------------------

def seed002_uninitialized(torch):
    """`torch.Tensor(3,5)` holds whatever memory held: compare its shape and dtype only."""
    tsr = torch.Tensor(3,5)
    t1 = torch.randn((3,3), requires_grad = True)
    t2 = torch.FloatTensor(3,3) # No way to specify requires_grad while initiating
    t2.requires_grad = True
    return [(tsr.shape, tsr.dtype, tsr.requires_grad), t1,
            (t2.shape, t2.dtype, t2.requires_grad, t2.is_leaf, t2.grad_fn)]


def test_seed002_tensor_constructors():
    check(seed002_uninitialized)


def seed002_leaves(torch):
    a = torch.randn((3,3), requires_grad = True)
    w1 = torch.randn((3,3), requires_grad = True)
    w2 = torch.randn((3,3), requires_grad = True)
    w3 = torch.randn((3,3), requires_grad = True)
    w4 = torch.randn((3,3), requires_grad = True)
    return a, w1, w2, w3, w4


def seed002_grad_fn(torch):
    out, print = printer()
    a, w1, w2, w3, w4 = seed002_leaves(torch)
    b = w1*a
    c = w2*a
    d = w3*b + w4*c
    L = 10 - d
    print("The grad fn for a is", a.grad_fn)
    print("The grad fn for d is", d.grad_fn)
    out.append([b, c, d, L, a.is_leaf, d.is_leaf, d.grad_fn.next_functions])
    return out


def test_seed002_grad_fn():
    check(seed002_grad_fn)


def seed002_scalar_outputs(torch):
    out, print = printer()
    a, w1, w2, w3, w4 = seed002_leaves(torch)
    b = w1*a
    c = w2*a
    d = w3*b + w4*c
    L = (10 - d)
    with raises(out):
        L.backward()
    # Replace L = (10 - d) by
    L = (10 -d).sum()
    L.backward()
    out.append([t.grad for t in (a, w1, w2, w3, w4)])
    return out


def test_seed002_backward_needs_a_scalar():
    check(seed002_scalar_outputs)


def seed002_ones_gradient(torch):
    out, print = printer()
    a, w1, w2, w3, w4 = seed002_leaves(torch)
    b = w1*a
    c = w2*a
    d = w3*b + w4*c
    L = (10 - d)
    # Replace L.backward() with
    L.backward(torch.ones(L.shape))
    out.append([t.grad for t in (a, w1, w2, w3, w4)])
    learning_rate = 0.01  # the seed leaves it undefined
    w1 = w1 - learning_rate * w1.grad
    out.append(w1)
    return out


def test_seed002_ones_gradient_and_update():
    check(seed002_ones_gradient)


def seed002_dynamic_graph(torch):
    a = torch.randn((3,3), requires_grad = True)   #No graph yet, as a is a leaf
    w1 = torch.randn((3,3), requires_grad = True)  #Same logic as above
    nodes_before = (a.grad_fn, w1.grad_fn)
    b = w1*a   #Graph with node `mulBackward` is created.
    return [nodes_before, b, b.grad_fn.next_functions]


def test_seed002_dynamic_graph():
    check(seed002_dynamic_graph)


def seed002_backward_twice(torch):
    out, print = printer()
    a, w1, w2, w3, w4 = seed002_leaves(torch)
    loss = (10 - (w3*(w1*a) + w4*(w2*a))).sum()
    loss.backward()
    with raises(out):
        loss.backward()
    out.append(w1.grad.clone())
    loss = (10 - (w3*(w1*a) + w4*(w2*a))).sum()
    loss.backward(retain_graph = True)
    loss.backward()  # accumulates into .grad
    out.append([t.grad for t in (a, w1, w2, w3, w4)])
    return out


def test_seed002_backward_twice():
    check(seed002_backward_twice)


def seed002_requires_grad_flags(torch):
    a = torch.randn((3,3), requires_grad = True)
    w1 = torch.randn((3,3), requires_grad = True)
    w1.requires_grad = False  # a frozen layer
    frozen = torch.randn((3,3))
    return [w1 * a, w1 * frozen, (w1 * a).requires_grad, (w1 * frozen).requires_grad]


def test_seed002_requires_grad_is_contagious():
    check(seed002_requires_grad_flags)


def seed002_no_grad(torch):
    out, print = printer()
    a = torch.randn((3,3), requires_grad = True)
    w1 = torch.randn((3,3), requires_grad = True)
    with raises(out):
        with torch.no_grad:  # the class, not an instance
            b = w1*a
    with torch.no_grad():  # the seed's intent
        b = w1*a
    out.append(b)
    return out


def test_seed002_no_grad_without_parentheses():
    check(seed002_no_grad)


# ---- seed 003: the gradient parameter of backward -----------------------------------------

def seed003_practical(torch):
    out, print = printer()
    x = torch.randn(2, 2, requires_grad=True)
    y = x.pow(2).sum()
    y.backward()
    v = torch.tensor([1.0, 0.5], dtype=torch.float32)
    with raises(out):
        y.backward(gradient=v)  # y is a scalar: v has the wrong shape
    out.append([x, y, x.grad])
    return out


def test_seed003_gradient_of_wrong_shape_for_a_scalar():
    check(seed003_practical)


def seed003_scalar_loss(torch):
    out, print = printer()
    x = torch.randn(2, 2, requires_grad=True)
    y = x.pow(2).sum()
    y.backward()
    print(x.grad)
    out.append(y)
    return out


def test_seed003_scalar_loss():
    check(seed003_scalar_loss)


def seed003_vector_loss(torch):
    out, print = printer()
    x = torch.randn(2, 2, requires_grad=True)
    y = x.pow(2)
    v = torch.tensor([0.1, 0.5, 0.2, 0.3])
    with raises(out):
        y.backward(gradient=v)  # 4 values for a 2x2 output
    print(x.grad)
    y.backward(gradient=v.reshape(2, 2))  # the seed's intent
    print(x.grad)
    return out


def test_seed003_vector_loss():
    check(seed003_vector_loss)


def seed003_autograd_grad(torch):
    out, print = printer()
    x = torch.randn(2, 2, requires_grad=True)
    y = x.pow(2).sum()
    grads = torch.autograd.grad(outputs=y, inputs=x)
    print(grads)
    print(x.grad)
    return out


def test_seed003_autograd_grad():
    check(seed003_autograd_grad)


def seed003_second_derivative(torch):
    out, print = printer()
    x = torch.randn(2, 2, requires_grad=True)
    y = x.pow(2).sum()
    with raises(out):  # no outputs=
        second_derivatives = torch.autograd.grad(grad_outputs=torch.ones_like(y), inputs=x, create_graph=True)[0]
    # the seed's intent, step by step
    second_derivatives = torch.autograd.grad(outputs=y, grad_outputs=torch.ones_like(y), inputs=x, create_graph=True)[0]
    print(second_derivatives)
    with raises(out):  # a 2x2 output needs grad_outputs
        torch.autograd.grad(outputs=second_derivatives, inputs=x)[0]
    second_derivatives = torch.autograd.grad(outputs=second_derivatives, inputs=x, grad_outputs=torch.ones_like(x))[0]
    print(second_derivatives)
    return out


def test_seed003_second_derivative():
    check(seed003_second_derivative)


def seed003_custom_function(torch):
    out, print = printer()

    class MyFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            # Forward pass implementation
            y = x.pow(2)
            ctx.save_for_backward(x)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            # Backward pass implementation
            x, = ctx.saved_tensors
            grad_input = 2 * x * grad_output
            return grad_input

    my_function = MyFunction.apply

    x = torch.randn(2, 2, requires_grad=True)
    y = my_function(x)

    with raises(out):
        y.backward()  # y is 2x2
    print(x.grad)
    y.sum().backward()  # the seed's intent
    print(x.grad)
    print(y)
    return out


def test_seed003_custom_function():
    check(seed003_custom_function)


# ---- seed 004: backward, autograd.grad, grad_fn and next_functions, hooks -----------------

def seed004_scalar_backward(torch):
    out, print = printer()
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = x**2+y
    z.backward()
    print(z, x.grad, y.grad)
    return out


def test_seed004_scalar_backward():
    ours, _ = check(seed004_scalar_backward)
    assert ours[0].text == "tensor(7., grad_fn=<AddBackward0>) tensor(4.) tensor(1.)"


def seed004_tensor_backward(torch):
    out, print = printer()
    x = torch.ones(2,requires_grad=True)
    z = x + 2
    with raises(out):
        z.backward()

    x = torch.ones(2,requires_grad=True)
    z = x + 2
    z.backward(torch.ones_like(z))
    out.append([z, x.grad])
    return out


def test_seed004_tensor_backward():
    check(seed004_tensor_backward)


def seed004_autograd_grad(torch):
    out, print = printer()
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    z = x**2+y
    z.backward()
    print(z, x.grad, y.grad)

    x = torch.tensor(2.0, requires_grad=True)
    z = x**2
    print(torch.autograd.grad(outputs=z, inputs=x), x.grad)
    return out


def test_seed004_autograd_grad():
    ours, _ = check(seed004_autograd_grad)
    assert ours[1].text == "(tensor(4.),) None"


def seed004_mul_sum(torch):
    out, print = printer()
    torch.manual_seed(6)
    x = torch.randn(4, 4, requires_grad=True)
    y = torch.randn(4, 4, requires_grad=True)
    z = x * y
    l = z.sum()
    l.backward()
    print(x.grad)
    print(y.grad)
    return out


def test_seed004_mul_sum():
    check(seed004_mul_sum)


def seed004_calling_nodes(torch):
    out, print = printer()
    torch.manual_seed(6)
    x = torch.randn(4, 4, requires_grad=True)
    y = torch.randn(4, 4, requires_grad=True)
    z = x * y
    l = z.sum()
    dl = torch.tensor(1.)
    back_sum = l.grad_fn
    dz = back_sum(dl)
    back_mul = back_sum.next_functions[0][0]
    dx, dy = back_mul(dz)
    back_x = back_mul.next_functions[0][0]
    accumulated = back_x(dx)
    back_y = back_mul.next_functions[1][0]
    back_y(dy)
    print(x.grad)
    print(y.grad)
    out.append([back_sum, dz, back_mul, dx, dy, back_x, back_y, accumulated])
    return out


def test_seed004_calling_nodes_is_backward():
    ours, _ = check(seed004_calling_nodes)
    by_backward, _ = run(seed004_mul_sum, chainrule)
    for called, backward in zip(ours[:2], by_backward):
        np.testing.assert_array_equal(called[0].detach().numpy(), backward[0].numpy())


def seed004_graph(torch):
    out, print = printer()
    A = torch.tensor(2., requires_grad=True)
    B = torch.tensor(.5, requires_grad=True)
    E = torch.tensor(1., requires_grad=True)
    C = A * B
    D = C.exp()
    F = D + E
    print(F)
    print([x.is_leaf for x in [A, B, C, D, E, F]])
    print([x.grad_fn for x in [F, D, C, A]])
    print(F.grad_fn.next_functions)
    F.backward(retain_graph=True)
    print(A.grad, B.grad, E.grad)
    print(C.grad, D.grad)  # non-leaves: None, with a warning each
    F.backward()
    print(A.grad, B.grad, E.grad)
    return out


def test_seed004_graph():
    ours, _ = check(seed004_graph)
    assert [p.text for p in ours[:2]] == [
        "tensor(3.7183, grad_fn=<AddBackward0>)", "[True, True, False, False, True, False]"]
    assert ours[4].text == "tensor(1.3591) tensor(5.4366) tensor(1.)"


def seed004_tensor_hook(torch, parameter=False):
    out, print = printer()

    def print_grad(grad):
        print(grad)
        return grad / 2

    w = torch.nn.Parameter(torch.randn(2, 2)) if parameter else torch.randn(2, 2).requires_grad_()
    w.register_hook(print_grad)

    loss = (w - 1) ** 2
    print('before backward')
    loss.mean().backward()
    print('after backward')
    print(w.grad)
    return out


def seed004_node_hook(torch, parameter=False):
    out, print = printer()

    def parameter_hook(grad):
        print('parameter hook')

    def operator_hook(*grads):
        print('operator hook' )

    w = torch.nn.Parameter(torch.randn(2, 2)) if parameter else torch.randn(2, 2).requires_grad_()
    w.register_hook(parameter_hook)

    print('first')
    y = w + 1
    op1 = y.grad_fn
    print(op1)
    op1.register_hook(operator_hook)
    y.sum().backward()

    print('second')
    z = w + 1
    op2 = z.grad_fn
    print(op2)
    z.sum().backward()
    out.append(w.grad)
    return out


@pytest.mark.parametrize("program", [seed004_tensor_hook, seed004_node_hook])
def test_seed004_hooks(program):
    check(program)


@pytest.mark.parametrize("program", [seed004_tensor_hook, seed004_node_hook])
def test_seed004_hooks_on_a_parameter(program):
    check(functools.partial(program, parameter=True))


# ---- the tour -----------------------------------------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_tour_runs_as_a_command():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for args in (["tour"], []):
        proc = subprocess.run([sys.executable, "-m", "chainrule", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        for key in ("tensor(3.7183, grad_fn=<AddBackward0>)",
                    "[True, True, False, False, True, False]",
                    "(<ExpBackward0 object at 0x",
                    "tensor(1.3591) tensor(5.4366) tensor(1.)",
                    "RuntimeError: Trying to backward through the graph a second time"):
            assert key in proc.stdout, key


def test_tour_prints_what_pytorch_prints():
    """The tour's code, run with PyTorch as `torch`, prints the same text."""
    from chainrule import tour
    ours, theirs = io.StringIO(), io.StringIO()
    tour.run(chainrule, ours)
    tour.run(torch, theirs)
    assert ADDRESS.sub("", ours.getvalue()) == ADDRESS.sub("", theirs.getvalue())
