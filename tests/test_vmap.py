"""torch.vmap / torch.func.vmap against PyTorch on the same programs: in_dims and out_dims
(ints, None, nested), nesting, composition with grad and jacrev (per-sample gradients),
randomness modes, chunk_size, and PyTorch's errors."""
import functools

import numpy as np
import pytest

from helpers import same, same_error

RNG = np.random.default_rng(1)
B = RNG.standard_normal((3, 4))
C = RNG.standard_normal((4, 3))
D = RNG.standard_normal((2, 3, 4))


def t(T, a, **kw):
    return T.tensor(a, **kw)


def test_in_dims_and_out_dims():
    def prog(T):
        vmap = T.vmap
        b, c, d = t(T, B), t(T, C), t(T, D)
        return [vmap(T.sin)(b), vmap(lambda x: x.sum())(b), vmap(T.dot)(b, b),
                vmap(T.mv, in_dims=(None, 0))(t(T, B.T @ B), b),
                vmap(lambda x, y: x * y, in_dims=(1, 0))(c, b),
                vmap(lambda x: x.sum(0), in_dims=-1)(d), vmap(T.outer, in_dims=(0, None))(b, b[0]),
                vmap(lambda x: x * 2, out_dims=1)(b), vmap(lambda x: x.outer(x), out_dims=-1)(b),
                vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(b),
                vmap(lambda x: (x.exp(), 1.5), out_dims=(0, None))(b),
                vmap(lambda x, w: x + w, in_dims=(0, None))(b, b[1]),
                vmap(lambda p: p["a"] * p["b"][0], in_dims=({"a": 0, "b": [1]},))(
                    {"a": b, "b": [c]}),
                vmap(lambda p: {"s": p[0] + p[1], "d": [p[0] - p[1]]})((b, b * 2)),
                vmap(lambda x, k: x * k, in_dims=(0, None))(b, 3.0),
                vmap(lambda x, *, scale: x * scale)(b, scale=t(T, 2.0)),
                vmap(lambda x: T.ones(2), out_dims=None)(b), vmap(lambda x: T.ones(2))(b),
                vmap(lambda x: x * 2)(t(T, np.zeros((0, 3)))),
                vmap(lambda x: (T.ones(()), x), out_dims=(None, 1))(t(T, np.zeros((0, 3)))),
                vmap(lambda x: x.sum(1, keepdim=True), in_dims=1, out_dims=2)(d)]
    same(prog)


def test_nested_vmap_and_chunks():
    def prog(T):
        vmap = T.func.vmap
        b, d = t(T, B), t(T, D)
        return [vmap(vmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(b[0], b),
                vmap(vmap(T.dot))(d, d), vmap(vmap(lambda x: x.sum(), in_dims=1), in_dims=2)(d),
                vmap(T.sin, chunk_size=1)(b), vmap(T.sin, chunk_size=2)(b),
                vmap(lambda x: (x, x.sum()), out_dims=(1, 0), chunk_size=2)(b),
                vmap(T.outer, in_dims=(0, None), chunk_size=5)(b, b[0])]
    same(prog)


def test_vmap_composes_with_grad_and_jacobians():
    def prog(T):
        F = T.func
        b, w = t(T, B), t(T, C)
        f = lambda x: (x @ w).tanh().sum()
        per_sample = F.vmap(F.grad(f))(b)
        jac = F.vmap(F.jacrev(lambda x: (x @ w).tanh()))(b)
        jacf = F.vmap(F.jacfwd(lambda x: x.sin() * x))(b)
        hess = F.vmap(F.hessian(f))(b)
        grad_of_vmap = F.grad(lambda w: F.vmap(lambda x: (x @ w).sin().sum())(b).sum())(w)
        vjp_of_vmap = F.vjp(F.vmap(T.sin), b)[1](b)
        jvp_of_vmap = F.jvp(F.vmap(lambda x: x.exp().sum()), (b,), (b,))
        x = t(T, B, requires_grad=True)
        out = F.vmap(lambda r: (r * r).sum())(x)
        (gx,) = T.autograd.grad(out.sum(), x)
        return per_sample, jac, jacf, hess, grad_of_vmap, vjp_of_vmap, jvp_of_vmap, gx
    same(prog)


def test_per_sample_grads_tutorial():
    # PyTorch's "Per-sample-gradients" tutorial, on the CPU with a smaller batch
    def prog(T):
        nn, F = T.nn, T.nn.functional
        T.manual_seed(0)

        class SimpleCNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 32, 3, 1)
                self.conv2 = nn.Conv2d(32, 64, 3, 1)
                self.fc1 = nn.Linear(9216, 128)
                self.fc2 = nn.Linear(128, 10)

            def forward(self, x):
                x = self.conv1(x)
                x = F.relu(x)
                x = self.conv2(x)
                x = F.relu(x)
                x = F.max_pool2d(x, 2)
                x = T.flatten(x, 1)
                x = self.fc1(x)
                x = F.relu(x)
                x = self.fc2(x)
                output = F.log_softmax(x, dim=1)
                return output

        def loss_fn(predictions, targets):
            return F.nll_loss(predictions, targets)
        batch_size = 4
        data = T.randn(batch_size, 1, 28, 28)
        targets = T.randint(10, (batch_size,))
        model = SimpleCNN()

        def compute_grad(sample, target):
            sample = sample.unsqueeze(0)
            target = target.unsqueeze(0)
            prediction = model(sample)
            loss = loss_fn(prediction, target)
            return T.autograd.grad(loss, list(model.parameters()))

        def compute_sample_grads(data, targets):
            sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
            sample_grads = zip(*sample_grads)
            return [T.stack(shards) for shards in sample_grads]
        per_sample_grads = compute_sample_grads(data, targets)
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params, buffers, sample, target):
            batch = sample.unsqueeze(0)
            targets = target.unsqueeze(0)
            predictions = T.func.functional_call(model, (params, buffers), (batch,))
            loss = loss_fn(predictions, targets)
            return loss
        ft_compute_grad = T.func.grad(compute_loss)
        ft_compute_sample_grad = T.func.vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
        ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
        for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads,
                                                       ft_per_sample_grads.values()):
            assert T.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)
        return ft_per_sample_grads
    same(prog, atol=1e-5, rtol=1e-4)


def test_randomness():
    def prog(T):
        vmap = T.func.vmap
        b = t(T, B, dtype=T.float32)
        T.manual_seed(0)
        same_ = vmap(lambda x: T.rand(3) + x * 0, randomness="same")(b[:, :3])
        after_same = T.rand(2)
        diff = vmap(lambda x: T.rand(3) + x * 0, randomness="different")(b[:, :3])
        like = vmap(lambda x: T.rand_like(x), randomness="same")(b)
        nested = vmap(vmap(lambda x: T.rand(()) + x * 0, randomness="different"),
                      randomness="same")(b)
        chunked = vmap(lambda x: T.rand(2) + x * 0, randomness="same", chunk_size=2)(b[:, :2])
        return same_, after_same, diff, like, nested, chunked, T.rand(1)
    same(prog)


def test_randomness_different_draws_differ():
    import chainrule as T
    out = T.vmap(lambda x: T.randn(64) + x, randomness="different", in_dims=(0,))(T.zeros(3, 1))
    assert not T.equal(out[0], out[1]) and not T.equal(out[1], out[2])
    out = T.vmap(lambda x: T.nn.functional.dropout(x, 0.5), randomness="same")(T.ones(3, 64))
    assert T.equal(out[0], out[1]) and T.equal(out[0], out[2])


def test_randomness_errors():
    b = lambda T: t(T, B)
    same_error(lambda T: T.vmap(lambda x: T.randn(3) + x)(b(T)))
    same_error(lambda T: T.vmap(lambda x: T.nn.functional.dropout(x, 0.5))(b(T)))
    same_error(lambda T: T.vmap(lambda x: x.bernoulli())(b(T).sigmoid()))
    same_error(lambda T: T.vmap(T.vmap(lambda x: x * T.rand(())), randomness="different")(b(T)))
    same_error(lambda T: T.vmap(T.vmap(lambda x: x * T.rand(()), randomness="same"))(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, randomness="sometimes"))
    # the guard is lifted once vmap returns, even after an error
    import chainrule
    with pytest.raises(RuntimeError):
        chainrule.vmap(lambda x: x * chainrule.rand(4))(chainrule.ones(2, 4))
    assert chainrule.rand(2).shape == (2,)


def test_in_dims_errors():
    b = lambda T: t(T, B)
    same_error(lambda T: T.vmap(T.sin, in_dims=[0])(b(T)))
    same_error(lambda T: T.vmap(T.sin)())
    same_error(lambda T: T.vmap(T.add, in_dims=(0, 0, 0))(b(T), b(T)))
    same_error(lambda T: T.vmap(T.add, in_dims=(0, "a"))(b(T), b(T)))
    same_error(lambda T: T.vmap(T.add, in_dims=(0, 0))(b(T), 1.0))
    same_error(lambda T: T.vmap(T.sin, in_dims=2)(b(T)))
    same_error(lambda T: T.vmap(T.sin, in_dims=-3)(b(T)))
    same_error(lambda T: T.vmap(T.add, in_dims=(None, None))(b(T), b(T)))
    same_error(lambda T: T.vmap(T.add, in_dims=(0, 1))(b(T), b(T)))
    same_error(lambda T: T.vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": b(T)}))
    same_error(lambda T: T.vmap(functools.partial(T.add, b(T)), in_dims=(0, 0))(b(T)))
    same_error(lambda T: T.vmap(T.sin, chunk_size=0))


def test_out_dims_errors():
    b = lambda T: t(T, B)
    same_error(lambda T: T.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, out_dims=(0, 1))(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, out_dims="a")(b(T)))
    same_error(lambda T: T.vmap(lambda x: (x, 1))(b(T)))
    same_error(lambda T: T.vmap(lambda x: None)(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, out_dims=None)(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, out_dims=2)(b(T)))
    same_error(lambda T: T.vmap(lambda x: x, out_dims=-3)(b(T)))


# PyTorch's results here come from its fallback for in-place ops (a warning says it has no
# batching rule), not from the per-element semantics vmap promises: as_strided_ leaves the
# shape unchanged; batch_norm_update_stats writes batched statistics into a tensor created
# unbatched inside the function.
_TORCH_FALLBACK_QUIRKS = {"as_strided_", "batch_norm_update_stats"}


def test_op_database_under_vmap_matches_torch_batching_rules():
    """Every op-database entry's first sample, batched twice along a new dim 0 (non-array
    arguments unbatched), through chainrule.vmap and torch.vmap: same shapes, dtypes and
    values wherever PyTorch's vmap accepts the call."""
    import warnings

    import torch

    import chainrule
    from chainrule.func._pytree import tree_flatten
    from chainrule.testing.opdb import all_entries
    compared, failures = 0, []
    for entry in all_entries():
        sample = entry.samples(np.random.default_rng(0))[0]
        in_dims = tuple(0 if isinstance(a, np.ndarray) else None for a in sample.args)
        if entry.name in _TORCH_FALLBACK_QUIRKS or 0 not in in_dims:
            continue

        def run(lib):
            args = [lib.tensor(np.stack([a, a])) if d == 0 else a
                    for a, d in zip(sample.args, in_dims)]
            return lib.vmap(functools.partial(entry.fn, lib, **sample.kwargs),
                            in_dims=in_dims)(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                theirs = run(torch)
            except Exception:   # noqa: BLE001  (PyTorch refuses: a random op, .item(), ...)
                continue
            ours = run(chainrule)
        compared += 1
        flat_ours, flat_theirs = tree_flatten(ours)[0], torch.utils._pytree.tree_leaves(theirs)
        try:
            assert len(flat_ours) == len(flat_theirs)
            for a, b in zip(flat_ours, flat_theirs):
                if isinstance(b, torch.Tensor):
                    assert (tuple(a.shape), str(a.dtype)) == (tuple(b.shape), str(b.dtype))
                    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(),
                                               atol=max(entry.compare_atol, 1e-6),
                                               rtol=max(entry.compare_rtol, 1e-6),
                                               equal_nan=True)
        except AssertionError as e:
            failures.append(f"{entry.name}: {str(e)[:200]}")
    assert compared > 700 and not failures, (compared, failures)


def test_ensemble_gradients_reach_stacked_parameters():
    def prog(T):
        F = T.func
        T.manual_seed(0)
        models = [T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4)).double().eval()
                  for _ in range(3)]
        params, buffers = F.stack_module_state(models)

        def loss(p, b, x):
            return F.functional_call(models[0], (p, b), (x,)).pow(2).sum()
        per_model = F.vmap(F.grad(loss), in_dims=(0, 0, None))(params, buffers, t(T, C))
        out = F.vmap(lambda p, b, x: F.functional_call(models[0], (p, b), (x,)),
                     in_dims=(0, 0, None))(params, buffers, t(T, C))
        out.sum().backward()
        # the per-model gradients require grad (the stacked parameters do); their grad_fn
        # differs (StackBackward0 here), so values are compared
        return ({k: (v.detach(), v.requires_grad) for k, v in per_model.items()},
                {k: v.grad for k, v in params.items()})
    same(prog)


def _no_rerun(monkeypatch):
    """Make chainrule's element-by-element rerun fail: these functions must run batched."""
    import chainrule.func._vmap as vmap_module

    def refuse(func, *args):
        raise AssertionError(f"{func} was run element by element")
    monkeypatch.setattr(vmap_module, "_map", refuse)


def test_batching_rules_match_torch(monkeypatch):
    # one rule of each kind (element-wise, dim-taking, views, matmul family, losses, joining)
    # and an op without a rule (flip: the loop over that op alone), against PyTorch's vmap
    _no_rerun(monkeypatch)

    def prog(T):
        vmap, F = T.func.vmap, T.nn.functional
        b, c, d = t(T, B), t(T, C), t(T, D)
        return [vmap(lambda x: F.softmax(x, 0) * x.exp().mean() - x.amax())(b),
                vmap(lambda x, y: (x > 0) * x + y.sum())(b, b),
                vmap(lambda x: x.view(2, 2).t().reshape(4).unsqueeze(0).expand(3, 4).permute(
                    1, 0).squeeze())(b),
                vmap(lambda x: x[1:3, None] + x.select(0, 1))(b),
                vmap(lambda x: T.cat([x, x * 2], 0) + T.stack([x, x], 1).sum(1).repeat(2))(b),
                vmap(T.mm, in_dims=(0, None))(d, c), vmap(T.mv, in_dims=(None, 0))(c, t(T, B.T)),
                vmap(T.dot)(b, b),
                vmap(T.bmm)(t(T, np.stack([D, D])), t(T, np.stack([C, C])[None].repeat(2, 0))),
                vmap(T.addmm, in_dims=(None, 0, None))(t(T, np.ones(3)), d, c),
                vmap(lambda m, v: m @ v, in_dims=(None, 0))(c, t(T, B.T)),
                vmap(F.mse_loss)(b, b.flip(1)), vmap(lambda x: x.flip(0).cumsum(0))(b),
                vmap(vmap(lambda x, y: (x * y).sum()), in_dims=(0, None))(d, d[0]),
                vmap(lambda x: x.sum(), out_dims=0)(t(T, D)), vmap(lambda x: x.t(), in_dims=2)(d)]
    same(prog)


def test_per_sample_gradients_and_jacobians_batched(monkeypatch):
    _no_rerun(monkeypatch)

    def prog(T):
        F = T.func
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 5), T.nn.Tanh(), T.nn.Linear(5, 2)).double()
        params = {k: v.detach() for k, v in model.named_parameters()}
        x, y = t(T, D.reshape(6, 4)), t(T, D.reshape(6, 4)[:, :2])

        def loss(p, xi, yi):
            return T.nn.functional.mse_loss(F.functional_call(model, p, (xi,)), yi)
        w = t(T, C)
        return (F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, x, y),
                F.hessian(lambda v: (w.t() @ v).tanh().sum())(t(T, B[0])),
                F.jacrev(lambda v: (v.sin() @ w, v.sum()))(t(T, B)),
                F.vmap(F.jacfwd(lambda v: v.outer(v)))(t(T, B)))
    same(prog)


def test_batched_run_calls_the_function_once():
    # a batched run calls the function once; one that reads an array (.item()) is run again
    # element by element; a Jacobian runs the function once more, batched over its rows
    import chainrule as T
    b, w, calls = T.tensor(B), T.tensor(C), []

    def f(x):
        calls.append(1)
        return x.flip(0).sin().sum()
    assert T.allclose(T.vmap(f)(b), b.sin().sum(1)) and len(calls) == 1
    calls.clear()

    def g(x):
        calls.append(1)
        return x * x.sum().item()
    assert T.allclose(T.vmap(g)(b), b * b.sum(1, keepdim=True)) and len(calls) == 1 + 3
    calls.clear()

    def loss(w, x):
        calls.append(1)
        return (x @ w).tanh().sum()
    per_sample = T.func.vmap(T.func.grad(loss), in_dims=(None, 0))(w, b)
    assert len(calls) == 1 and per_sample.shape == (3, 4, 3)
    assert T.allclose(per_sample[1], T.func.grad(loss)(w, b[1]))
    calls.clear()
    T.func.hessian(lambda x: loss(w, x))(b[0])
    assert len(calls) == 2
    # nothing stays batched once vmap returns, whether it ran batched or again per element
    from chainrule.func import _batched
    from chainrule.ops import registry
    assert registry.VMAP is None and not _batched.SIZES


def test_errors_inside_a_batched_run_are_pytorchs():
    # PyTorch's batched ops report physical sizes (the batch dim included) in some errors and
    # the element's in others (dims out of range): a function failing batched and element by
    # element raises the batched run's error, whose rules shift dims as PyTorch's do
    same_error(lambda T: T.vmap(lambda x, y: x + y)(T.ones(2, 3), T.ones(2, 4)))
    same_error(lambda T: T.vmap(lambda x: x.transpose(0, 5))(T.ones(2, 3, 4)))
    same_error(lambda T: T.vmap(lambda x, w: x @ w, in_dims=(0, None))(T.ones(2, 3),
                                                                        T.ones(4, 2)))
    same_error(lambda T: T.vmap(lambda x: x.view(5))(T.ones(2, 3)))


def test_nested_compositions():
    # grad of vmap of grad: the inner gradients' graph reaches the inner level's own
    # aliases, which an outer level does not differentiate (results do not require grad)
    def prog(T):
        F = T.func
        xs, w = t(T, B), t(T, C)
        inner = lambda w: F.vmap(F.grad(lambda x: (x @ w).tanh().sum()))(xs).pow(2).sum()
        return (F.grad(inner)(w),
                F.vmap(F.vmap(F.grad(lambda x, y: (x * y).sin().sum())), in_dims=(0, None))(
                    xs.view(3, 2, 2), xs[0].view(2, 2)),
                F.jacrev(F.vmap(lambda x: (x @ w).sin()))(xs),
                F.vmap(F.jacrev(F.jacrev(lambda x: (x @ w).sin().sum())))(xs),
                F.vmap(lambda x: F.vjp(lambda v: v.exp() * 2, x)[1](x))(xs))
    same(prog)
