"""chainrule.utils.checkpoint against torch.utils.checkpoint: the same gradients as without
checkpointing, the same number of forward runs (counted by the function), the same random
numbers with preserve_rng_state, nesting, and the same warnings and errors."""
import contextlib
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint  # noqa: F401  (torch loads it on import only)

import chainrule
from helpers import compare, same, same_error, same_warnings, warnings_of

VARIANTS = [True, False]


def _ckpt(T):
    return T.utils.checkpoint


def _params(T):
    g = np.random.default_rng(0)
    w = T.tensor(g.standard_normal((4, 3)), requires_grad=True)
    b = T.tensor(g.standard_normal(4), requires_grad=True)
    x = T.tensor(g.standard_normal((2, 3)), requires_grad=True)
    return w, b, x


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_same_gradients_and_recomputations(use_reentrant):
    def prog(T):
        w, b, x = _params(T)
        runs = [0]

        def layer(inp, weight, bias):
            runs[0] += 1
            return T.tanh(inp @ weight.t() + bias).exp()

        plain = layer(x, w, b).sum()
        expected = T.autograd.grad(plain, (w, b, x))
        out = _ckpt(T).checkpoint(layer, x, w, b, use_reentrant=use_reentrant)
        after_forward = runs[0]
        out.sum().backward()
        for e, got in zip(expected, (w.grad, b.grad, x.grad)):
            assert T.allclose(e, got)
        return out, w.grad, b.grad, x.grad, after_forward, runs[0]

    ours, _ = same(prog)
    assert ours[-2:] == (2, 3)


def test_reentrant_node_and_non_reentrant_graph():
    def prog(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        a = _ckpt(T).checkpoint(T.sin, x, use_reentrant=True)
        b = _ckpt(T).checkpoint(T.sin, x, use_reentrant=False)
        c = _ckpt(T).CheckpointFunction.apply(T.exp, False, x)
        c.sum().backward()
        return a.grad_fn, b.grad_fn, b.grad_fn.next_functions[0][0], c, x.grad

    same(prog)


@pytest.mark.parametrize("early_stop", [True, False, "context"])
def test_early_stop(early_stop):
    def prog(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        log = []

        def f(a):
            log.append("start")
            y = a.sin().cos()        # the last tensor saved: cos's input
            log.append("after cos")
            return y + 1

        ck = _ckpt(T)
        if early_stop == "context":
            with ck.set_checkpoint_early_stop(False):
                out = ck.checkpoint(f, x, use_reentrant=False)
        else:
            out = ck.checkpoint(f, x, use_reentrant=False, early_stop=early_stop)
        out.sum().backward()
        return log, x.grad

    ours, _ = same(prog)
    assert len(ours[0]) == (3 if early_stop is True else 4)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
@pytest.mark.parametrize("preserve", [True, False])
def test_dropout_preserve_rng_state(use_reentrant, preserve):
    def prog(T):
        T.manual_seed(0)
        x = T.randn(8, 4, dtype=T.float64, requires_grad=True)
        drop = T.nn.Dropout(0.5)

        def f(a):
            return drop(a).exp()

        T.manual_seed(1)
        plain, = T.autograd.grad(f(x).sum(), x)
        T.manual_seed(1)
        out = _ckpt(T).checkpoint(f, x, use_reentrant=use_reentrant,
                                  preserve_rng_state=preserve)
        after = T.randn(2)       # the caller's stream goes on as without recomputation
        out.sum().backward()
        return out, x.grad, after, T.randn(2), bool(T.equal(plain, x.grad))

    ours, _ = same(prog)
    assert ours[-1] is preserve


@pytest.mark.filterwarnings("ignore:None of the inputs have requires_grad")
@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_nested_checkpoints(use_reentrant):
    def prog(T):
        w, b, x = _params(T)
        runs = {"inner": 0, "outer": 0}
        ck = _ckpt(T)

        def inner(a):
            runs["inner"] += 1
            return (a @ w.t()).sin()

        def outer(a):
            runs["outer"] += 1
            h = ck.checkpoint(inner, a.cos(), use_reentrant=use_reentrant)
            return (h + b).exp()

        out = ck.checkpoint(outer, x, use_reentrant=use_reentrant)
        out.sum().backward()
        return out, x.grad, w.grad, b.grad, dict(runs)

    same(prog)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_retain_graph_recomputes_each_backward(use_reentrant):
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        runs = [0]

        def f(a):
            runs[0] += 1
            return a.exp().sin()

        out = _ckpt(T).checkpoint(f, x, use_reentrant=use_reentrant).sum()
        out.backward(retain_graph=True)
        out.backward()
        return x.grad, runs[0]

    same(prog)


def test_non_reentrant_grad_kwargs_and_non_tensor_outputs():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        c = T.tensor([2.0, 3.0])        # does not require grad

        def f(a, b, *, scale, tag):
            return a.sin() * b * scale, tag, None

        out, tag, none = _ckpt(T).checkpoint(f, x, c, scale=2.0, tag="t", use_reentrant=False)
        g, = T.autograd.grad(out.sum(), x)
        gg = _ckpt(T).checkpoint(lambda a: a.exp(), c, use_reentrant=False)
        return out, tag, none, g, gg

    same(prog)


def test_reentrant_non_tensor_outputs():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        out, n = _ckpt(T).checkpoint(lambda a, k: (a.sin() * k, k), x, 3,
                                     use_reentrant=True)
        out.sum().backward()
        return out, n, x.grad

    same(prog)


def test_no_grad_runs_plainly():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        runs = [0]

        def f(a):
            runs[0] += 1
            return a.sin()

        with T.no_grad():
            a = _ckpt(T).checkpoint(f, x, use_reentrant=False)
            b = _ckpt(T).checkpoint(f, x, use_reentrant=True)
        return a, b, runs[0]

    same(prog)


def test_context_fn():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        log = []

        @contextlib.contextmanager
        def tag(name):
            log.append(f"enter {name}")
            yield
            log.append(f"exit {name}")

        out = _ckpt(T).checkpoint(lambda a: a.sin().exp(), x, use_reentrant=False,
                                  context_fn=lambda: (tag("forward"), tag("recompute")))
        out.sum().backward()
        return log, x.grad

    same(prog)


def test_graph_exec_group_recomputes_once():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        runs = [0]

        def f(a):
            runs[0] += 1
            return a.sin().exp(), a.cos().exp()

        ck = _ckpt(T)
        p, q = ck.checkpoint(f, x, use_reentrant=False)
        with ck.GraphExecGroup():
            gp, = T.autograd.grad(p.sum(), x)
            gq, = T.autograd.grad(q.sum(), x)
        return gp, gq, runs[0]

    same(prog)
    for T in (chainrule, torch):
        with T.utils.checkpoint.GraphExecGroup():
            with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested. "
                                                   "Already inside group"):
                T.utils.checkpoint.GraphExecGroup().__enter__()


def test_checkpoint_sequential():
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(3, 5), T.nn.Tanh(), T.nn.Linear(5, 5), T.nn.ReLU(),
                                T.nn.Linear(5, 2), T.nn.Sigmoid())
        x = T.randn(4, 3, requires_grad=True)
        results = []
        for use_reentrant in VARIANTS:
            for segments in (1, 2, 3):
                model.zero_grad()
                x.grad = None
                out = _ckpt(T).checkpoint_sequential(model, segments, x,
                                                     use_reentrant=use_reentrant)
                out.sum().backward()
                results.append((out, x.grad, [p.grad for p in model.parameters()]))
        funcs = [T.sin, T.exp, T.cos]
        out = _ckpt(T).checkpoint_sequential(funcs, 2, x, use_reentrant=False,
                                             preserve_rng_state=False)
        return results, out

    same(prog, atol=1e-5)


def test_warnings():
    same_warnings(lambda T: _ckpt(T).checkpoint(T.sin, T.ones(2, requires_grad=True)))
    same_warnings(lambda T: _ckpt(T).checkpoint_sequential([T.sin], 1,
                                                           T.ones(2, requires_grad=True)))
    same_warnings(lambda T: _ckpt(T).checkpoint(T.sin, T.ones(2), use_reentrant=True))
    assert not warnings_of(lambda: chainrule.utils.checkpoint.checkpoint(
        chainrule.sin, chainrule.ones(2, requires_grad=True), use_reentrant=False))


def _nondeterministic(T, which):
    x = T.tensor([0.3, -0.7, 0.1], dtype=T.float64, requires_grad=True)
    runs = [0]

    def f(a):
        runs[0] += 1
        if which == "shape":
            return a.sin() if runs[0] == 1 else a[:2].sin()
        return a.sin().exp() if runs[0] == 1 else a.sin()

    return x, f


@pytest.mark.parametrize("which", ["shape", "count"])
@pytest.mark.parametrize("check", ["default", "none"])
def test_determinism_check(which, check):
    def prog(T):
        x, f = _nondeterministic(T, which)
        out = _ckpt(T).checkpoint(f, x, use_reentrant=False, determinism_check=check)
        out.sum().backward()
        return x.grad

    if which == "shape" and check == "none":
        # nothing compared: backward goes on with the recomputed (wrong-shaped) tensor
        for T in (chainrule, torch):
            with pytest.raises(RuntimeError):
                prog(T)
        return
    err = same_error(prog)
    assert type(err) is chainrule.utils.checkpoint.CheckpointError


def test_debug_report():
    def prog(T, how):
        x, f = _nondeterministic(T, "count")
        ck = _ckpt(T)
        if how == "flag":
            out = ck.checkpoint(f, x, use_reentrant=False, debug=True)
        else:
            with ck.set_checkpoint_debug_enabled(True):
                out = ck.checkpoint(f, x, use_reentrant=False)
        out.sum().backward()

    for how in ("flag", "context"):
        for T in (chainrule, torch):
            with pytest.raises(T.utils.checkpoint.CheckpointError) as info:
                prog(T, how)
            text = str(info.value)
            assert text.startswith(" An error happened while unpacking tensors; dumping logs")
            assert "Operations executed during recomputation:" in text
            assert "sin" in text and "exp" in text
            assert "A different number of tensors" in str(info.value.__cause__)


def test_errors():
    ck = _ckpt
    x = lambda T: T.tensor([0.3, -0.7], requires_grad=True)  # noqa: E731
    same_error(lambda T: ck(T).checkpoint(lambda a, b=1: a, x(T), b=2, c=3,
                                          use_reentrant=True))
    same_error(lambda T: ck(T).checkpoint(T.sin, x(T), use_reentrant=True, debug=True))
    same_error(lambda T: ck(T).checkpoint(T.sin, x(T), use_reentrant=True,
                                          context_fn=lambda: (contextlib.nullcontext(),) * 2))
    same_error(lambda T: ck(T).checkpoint(T.sin, x(T), use_reentrant=False,
                                          determinism_check="full"))
    same_error(lambda T: ck(T).checkpoint(T.sin, x(T), use_reentrant=False, debug=True,
                                          context_fn=lambda: (contextlib.nullcontext(),) * 2))
    same_error(lambda T: ck(T).checkpoint_sequential([T.sin], 1, x(T), use_reentrant=False,
                                                     scale=2))

    def grad_of_reentrant(T):
        a = x(T)
        T.autograd.grad(ck(T).checkpoint(T.sin, a, use_reentrant=True).sum(), a)

    def inputs_of_reentrant(T):
        a = x(T)
        ck(T).checkpoint(T.sin, a, use_reentrant=True).sum().backward(inputs=[a])

    def no_output_requires_grad(T):
        ck(T).checkpoint(lambda a: a.detach() * 2, x(T), use_reentrant=True).sum().backward()

    def inputs_without_grad(T):
        ck(T).checkpoint(T.sin, T.ones(2), use_reentrant=True).sum().backward()

    def suppressing_context(T):
        @contextlib.contextmanager
        def swallow():
            try:
                yield
            except ZeroDivisionError:
                pass

        def f(a):
            raise ZeroDivisionError

        ck(T).checkpoint(f, x(T), use_reentrant=False,
                         context_fn=lambda: (swallow(), contextlib.nullcontext()))

    def saved_tensors_twice(T):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                a, = ctx.saved_tensors
                return g * 2

        ck(T).checkpoint(lambda a: Twice.apply(a.sin()), x(T),
                         use_reentrant=False).sum().backward()

    for prog in (grad_of_reentrant, inputs_of_reentrant, no_output_requires_grad,
                 inputs_without_grad, suppressing_context, saved_tensors_twice):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # inputs_without_grad warns (tested above)
            same_error(prog)


def test_helpers():
    def prog(T):
        ck = _ckpt(T)
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        d = ck.detach_variable((b, 3, T.ones(1)))
        fwd, rec = ck.noop_context_fn()
        with fwd, rec:
            pass
        ck.set_device_states([], [])
        ck.set_device_states([], [], device_type="meta")
        policies = [(p.name, p.value) for p in ck.CheckpointPolicy]
        sac = ck.SelectiveCheckpointContext(is_recompute=False, op_output=b)
        return (d[0], d[0].is_leaf, d[1], d[2], ck.get_device_states(a, [b], {"k": 1}),
                ck.DefaultDeviceType.get_device_type(), policies, sac.is_recompute,
                sac.op_output)

    same(prog)
    same_error(lambda T: _ckpt(T).detach_variable([T.ones(1)]))
    same_warnings(lambda T: _ckpt(T).check_backward_validity([T.ones(1), 2]))
    assert not warnings_of(lambda: chainrule.utils.checkpoint.check_backward_validity(
        [chainrule.ones(1, requires_grad=True)]))
    for T in (chainrule, torch):
        ck = _ckpt(T)
        try:
            ck.DefaultDeviceType.set_device_type("meta")
            assert ck.DefaultDeviceType.get_device_type() == "meta"
        finally:
            ck.DefaultDeviceType.set_device_type("cpu")
    compare(chainrule.utils.checkpoint.get_device_states(), torch.utils.checkpoint
            .get_device_states())


@pytest.mark.parametrize("early_stop", [True, False])
def test_backward_inside_the_checkpointed_function(early_stop):
    def prog(T):
        runs = [0]

        def f(a):
            runs[0] += 1
            z = a.sin().cos()
            ga, = T.autograd.grad(z.sum(), a, create_graph=True)
            return a.cos() * ga

        x = T.tensor([0.3, -0.7], dtype=T.float64, requires_grad=True)
        out = _ckpt(T).checkpoint(f, x, use_reentrant=False, early_stop=early_stop)
        out.sum().backward()
        return x.grad, runs[0]

    same(prog)


def test_reading_saved_tensors_recomputes():
    """grad_fn._saved_* outside backward unpacks through the checkpoint: one recomputation
    per read, the values as without checkpointing."""
    def prog(T):
        runs = [0]

        def f(a):
            runs[0] += 1
            return a.sin().exp()

        x = T.tensor([0.3, -0.7], dtype=T.float64, requires_grad=True)
        y = _ckpt(T).checkpoint(f, x, use_reentrant=False)
        counts = [runs[0]]
        saved_result = y.grad_fn._saved_result
        counts.append(runs[0])
        saved_self = y.grad_fn.next_functions[0][0]._saved_self
        counts.append(runs[0])
        y.sum().backward()
        counts.append(runs[0])
        return saved_result, saved_self, x.grad, counts

    ours, _ = same(prog)
    assert ours[-1] == [1, 2, 3, 4]


@pytest.mark.parametrize("use_reentrant, debug", [(True, False), (False, False),
                                                   (False, True)])
def test_recomputation_under_the_forwards_autocast(use_reentrant, debug):
    """Backward runs outside autocast; the recomputation runs under the forward's settings
    (else the saved dtypes would differ), and debug's op log leaves autocast working."""

    def prog(T):
        T.manual_seed(0)
        x = T.randn(3, 4, requires_grad=True)
        w = T.randn(4, 2, requires_grad=True)
        with T.autocast("cpu", dtype=T.bfloat16):
            # PyTorch's debug mode (a logging dispatch mode) fails on this matmul once an
            # earlier debug checkpoint has run in the process: debug is chainrule's alone
            y = _ckpt(T).checkpoint(lambda a: (a @ w).relu() * a.sum(), x,
                                    use_reentrant=use_reentrant, debug=debug and T is chainrule)
            after = x @ w
        y.float().sum().backward()
        return y.dtype, y.float(), after.dtype, x.grad, w.grad

    same(prog, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_outputs_that_do_not_require_grad(use_reentrant):
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        a, b = _ckpt(T).checkpoint(lambda q: (q.sin(), q.detach() + 1), x,
                                   use_reentrant=use_reentrant)
        (a.sum() + b.sum()).backward()
        return a, b, x.grad

    same(prog)


def test_tensor_kwargs_get_gradients():
    def prog(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        s = T.tensor([2.0, 3.0], requires_grad=True)
        y = _ckpt(T).checkpoint(lambda a, *, scale: a.sin() * scale, x, scale=s,
                                use_reentrant=False)
        y.sum().backward()
        return x.grad, s.grad

    same(prog)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_saved_input_modified_in_place_and_freed_graph(use_reentrant):
    def modified(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        h = x * 2
        y = _ckpt(T).checkpoint(lambda a: a.sin(), h, use_reentrant=use_reentrant)
        h.mul_(2)
        y.sum().backward()

    def twice(T):
        x = T.tensor([0.3, -0.7], requires_grad=True)
        y = _ckpt(T).checkpoint(lambda a: a.sin().exp(), x, use_reentrant=use_reentrant).sum()
        y.backward()
        y.backward()

    same_error(modified)
    same_error(twice)
