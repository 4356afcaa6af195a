"""Private names of torch that real programs call, against PyTorch: torch._check and its kin,
torch._logging.set_logs, torch.__future__ and Module._apply, every torch._foreach_* function,
torch._higher_order_ops.foreach_map."""
import logging

import pytest
import torch

import chainrule
from helpers import same, same_error, same_warnings


# ---- torch._check -------------------------------------------------------------------------

_CHECKS = ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented"]


@pytest.mark.parametrize("name", _CHECKS)
def test_checks_pass_and_raise_pytorchs_errors(name):
    same(lambda T: getattr(T, name)(True, lambda: "never evaluated"))
    same_error(lambda T: getattr(T, name)(False))
    same_error(lambda T: getattr(T, name)(False, lambda: f"bad {3}"))
    same_error(lambda T: getattr(T, name)(1 > 2, lambda: ValueError("an object with __str__")))
    same_error(lambda T: getattr(T, name)(False, "not callable"))
    same_error(lambda T: getattr(T, name)(T.tensor(True)))
    same_error(lambda T: getattr(T, name)(1))


def test_check_with_and_tensor_checks():
    same_error(lambda T: T._check_with(KeyError, False, lambda: "key"))
    same_error(lambda T: T._check_with(UserWarning, False, lambda: "warning"))
    same(lambda T: T._check_with(KeyError, True, None))
    same(lambda T: T._check_tensor_all(T.tensor([True, True])))
    same_error(lambda T: T._check_tensor_all(T.tensor([True, False]), lambda: "not all"))
    same_error(lambda T: T._check_tensor_all_with(IndexError, T.tensor([False])))
    same_error(lambda T: T._check_tensor_all(T.tensor([1, 1])))
    same_error(lambda T: T._check_tensor_all(True))


def test_check_is_size():
    same_warnings(lambda T: T._check_is_size(3))
    same_warnings(lambda T: T._check_is_size(3, max=4))
    same_error(lambda T: T._check_is_size(-1))
    same_error(lambda T: T._check_is_size(5, lambda: "too big", max=4))


# ---- torch._logging -----------------------------------------------------------------------

def test_set_logs_sets_chainrules_loggers(monkeypatch):
    monkeypatch.delenv("TORCH_LOGS", raising=False)
    try:
        for T in (chainrule, torch):
            T._logging.set_logs(autograd=logging.DEBUG, dynamo=logging.INFO, graph_code=True,
                                recompiles=False, modules={"json": logging.INFO})
        assert logging.getLogger("chainrule.autograd").level == logging.DEBUG
        assert logging.getLogger("json").level == logging.INFO
        chainrule._logging.set_logs(all=logging.ERROR)       # replaces the settings
        assert logging.getLogger("chainrule.autograd").level == logging.NOTSET
        assert logging.getLogger("chainrule").level == logging.ERROR
        chainrule._logging.set_logs(modules={"torch.autograd": logging.WARNING})
        assert logging.getLogger("chainrule.autograd").level == logging.WARNING
    finally:
        for T in (chainrule, torch):
            T._logging.set_logs()
    assert logging.getLogger("chainrule").level == logging.NOTSET


@pytest.mark.parametrize("kwargs", [{"autograd": 7}, {"graph_code": 1},
                                    {"modules": {"no_such_module_xyz": logging.INFO}},
                                    {"no_such_component": True}])
def test_set_logs_errors(kwargs, monkeypatch):
    monkeypatch.delenv("TORCH_LOGS", raising=False)
    try:
        same_error(lambda T: T._logging.set_logs(**kwargs))
    finally:
        for T in (chainrule, torch):
            T._logging.set_logs()


# ---- torch.__future__ and Module._apply ---------------------------------------------------

@pytest.mark.parametrize("setting", [None, "overwrite", "swap"])
def test_module_conversion_honours_future_settings(setting):
    def prog(T):
        T.manual_seed(0)
        m = T.nn.Linear(3, 2)
        m(T.ones(1, 3)).sum().backward()
        weight, grad = m.weight, m.weight.grad
        flags = (T.__future__.get_overwrite_module_params_on_conversion(),
                 T.__future__.get_swap_module_params_on_conversion())
        if setting == "overwrite":
            T.__future__.set_overwrite_module_params_on_conversion(True)
        elif setting == "swap":
            T.__future__.set_swap_module_params_on_conversion(True)
        try:
            m.double()
        finally:
            T.__future__.set_overwrite_module_params_on_conversion(False)
            T.__future__.set_swap_module_params_on_conversion(False)
        return (flags, m.weight is weight, m.weight.grad is grad, m.weight, m.weight.grad,
                type(m.weight).__name__, weight.dtype, m.bias.grad)
    same(prog)


# ---- torch._foreach_* ---------------------------------------------------------------------

_UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]


def _lists(T, requires_grad=False):
    T.manual_seed(0)
    xs = [(T.rand(3) * 0.8 + 0.1).requires_grad_(requires_grad),
          (T.rand(2, 2) * 0.8 + 0.1).requires_grad_(requires_grad)]
    ys = [(T.rand(3) + 0.5).requires_grad_(requires_grad),
          (T.rand(2, 2) + 0.5).requires_grad_(requires_grad)]
    return xs, ys


def _out_and_grads(T, fn, requires_grad=True):
    """fn's results (with their one Foreach*Backward node), the node's edges, and the
    gradients of the results' sum with respect to the inputs."""
    xs, ys = _lists(T, requires_grad)
    out = fn(T, xs, ys)
    node = out[0].grad_fn
    edges = [(n, nr) for n, nr in node.next_functions] if node is not None else None
    if node is not None and node.name() == "torch::autograd::NotImplemented":
        return type(out).__name__, list(out), edges
    total = sum(o.sum() for o in out)
    grads = T.autograd.grad(total, xs + ys, allow_unused=True, materialize_grads=True)
    return type(out).__name__, list(out), edges, all(o.grad_fn is node for o in out), grads


def _inplace(T, fn):
    xs, ys = _lists(T)
    xs = [x.clone() for x in xs]
    ret = fn(T, xs, ys)
    return ret is xs, xs


@pytest.mark.parametrize("op", _UNARY)
def test_foreach_unary(op):
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: getattr(T, f"_foreach_{op}")(xs)))
    same(lambda T: _inplace(T, lambda T, xs, ys: getattr(T, f"_foreach_{op}_")(xs)))


_BINARY_CASES = {
    "number": lambda xs, ys, T: 0.7,
    "numbers": lambda xs, ys, T: [0.7, 1.3],
    "tensors": lambda xs, ys, T: ys,
    "tensor": lambda xs, ys, T: T.tensor(0.6),
}


@pytest.mark.parametrize("case", list(_BINARY_CASES))
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "clamp_min", "clamp_max",
                                "maximum", "minimum", "pow"])
def test_foreach_binary(op, case):
    if case == "tensor" and op not in ("add", "sub", "mul", "div"):
        pytest.skip("PyTorch has this overload for add, sub, mul and div only")

    def fn(T, xs, ys, suffix=""):
        return getattr(T, f"_foreach_{op}{suffix}")(xs, _BINARY_CASES[case](xs, ys, T))
    same(lambda T: _out_and_grads(T, fn))
    same(lambda T: _inplace(T, lambda T, xs, ys: fn(T, xs, ys, "_")))


@pytest.mark.parametrize("case", ["tensors", "tensor"])
def test_foreach_add_sub_alpha(case):
    for op in ("_foreach_add", "_foreach_sub") if case == "tensors" else ("_foreach_add",):
        same(lambda T: _out_and_grads(T, lambda T, xs, ys: getattr(T, op)(
            xs, _BINARY_CASES[case](xs, ys, T), alpha=2.5)))
        same(lambda T: _inplace(T, lambda T, xs, ys: getattr(T, op + "_")(
            xs, _BINARY_CASES[case](xs, ys, T), alpha=2.5)))


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", ["default", "number", "numbers", "tensor"])
def test_foreach_addcmul_addcdiv(op, value):
    def args(T):
        return {"default": (), "number": (0.5,), "numbers": ([0.5, 2.0],),
                "tensor": (T.tensor([0.5, 2.0]),)}[value]
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: getattr(T, f"_foreach_{op}")(
        xs, ys, xs, *args(T))))
    same(lambda T: _inplace(T, lambda T, xs, ys: getattr(T, f"_foreach_{op}_")(
        xs, ys, ys, *args(T))))


@pytest.mark.parametrize("weight", ["number", "numbers", "tensors"])
def test_foreach_lerp(weight):
    def w(T, ys):
        return {"number": 0.3, "numbers": [0.3, 0.9], "tensors": [y / 2 for y in ys]}[weight]
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_lerp(xs, ys, w(T, ys))))
    same(lambda T: _inplace(T, lambda T, xs, ys: T._foreach_lerp_(xs, ys, w(T, ys))))


def test_foreach_pow_number_base_norm_powsum_max_mm_clone():
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_pow(2.0, xs)))
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_powsum(xs, 3)))
    for ord_ in (2, 1, 3.5, float("inf")):
        same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_norm(xs, ord_)))
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_norm(
        [x.double() for x in xs], dtype=T.float64)))
    for ord_ in (2, 3):
        same(lambda T: _lists(T) and T._foreach_powsum(_lists(T)[0], ord_))
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_max(xs)))
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_mm(
        [x.reshape(-1, 1) for x in xs], [y.reshape(1, -1) for y in ys])))
    same(lambda T: _out_and_grads(T, lambda T, xs, ys: T._foreach_clone(xs)))


def test_foreach_copy_and_zero():
    def prog(T):
        xs, ys = _lists(T)
        xs = [x.clone() for x in xs]
        r1 = T._foreach_copy_(xs, ys)
        copied = [x.clone() for x in xs]
        r2 = T._foreach_zero_(xs)
        return r1 is xs, r2 is xs, copied, xs
    same(prog)


def test_foreach_in_place_keeps_the_graph():
    def prog(T):
        xs, ys = _lists(T, True)
        zs = [x * 1 for x in xs]
        # tensor lists: with a number PyTorch records the per-tensor .Scalar nodes
        # (AddBackward1), which chainrule does not have (AddBackward0)
        T._foreach_mul_(zs, ys)
        T._foreach_add_(zs, xs, alpha=2)
        grads = T.autograd.grad(sum(z.sum() for z in zs), xs + ys)
        return zs, grads
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T._foreach_add([T.ones(2), T.ones(3)], [T.ones(2)]),
    lambda T: T._foreach_add([T.ones(2), T.ones(3)], [1.0]),
    lambda T: T._foreach_add([], 1),
    lambda T: T._foreach_exp(5),
    lambda T: T._foreach_exp([1.0]),
    lambda T: T._foreach_add([T.ones(2)], T.ones(2)),
    lambda T: T._foreach_addcmul([T.ones(2), T.ones(2)], [T.ones(2)] * 2, [T.ones(2)]),
    lambda T: T._foreach_addcmul([T.ones(2)] * 2, [T.ones(2)] * 2, [T.ones(2)] * 2, [1.0]),
    lambda T: T._foreach_addcmul([T.ones(2)] * 2, [T.ones(2)] * 2, [T.ones(2)] * 2,
                                 T.ones(3)),
    lambda T: T._foreach_lerp([T.ones(2), T.ones(2)], [T.ones(2)], 0.5),
    lambda T: T._foreach_copy_([T.ones(2), T.ones(2)], [T.ones(2)]),
    lambda T: T._foreach_max([T.ones(0)]),
    lambda T: T._foreach_add([T.ones(2)], [T.ones(3)]),
    lambda T: T._foreach_add_([T.ones(2, dtype=T.int64)], 1.5),
    lambda T: T._foreach_sub([T.ones(2, dtype=T.bool)], 1),
    lambda T: T._foreach_mul_([T.ones(2, requires_grad=True)], 2),
    lambda T: T._foreach_norm([T.ones(2, dtype=T.int64)]),
    lambda T: T._foreach_powsum([T.ones(2, requires_grad=True)])[0].backward(),
    lambda T: T._foreach_addcmul([T.ones(2, requires_grad=True)], [T.ones(2)], [T.ones(2)],
                                 T.ones(1))[0].sum().backward(),
])
def test_foreach_errors(prog):
    same_error(prog)


def test_every_foreach_name_exists():
    theirs = sorted(n for n in dir(torch) if n.startswith("_foreach_"))
    assert [n for n in theirs if not callable(getattr(chainrule, n, None))] == []


# ---- torch._higher_order_ops.foreach_map --------------------------------------------------

def test_foreach_map():
    def prog(T):
        from importlib import import_module
        foreach_map = import_module(f"{T.__name__}._higher_order_ops").foreach_map
        xs, ys = _lists(T)
        out = foreach_map(lambda x, y: x * y + 1, xs, ys)
        scaled = foreach_map(T.mul, xs, 2.0)
        pairs = foreach_map(lambda x: (x, x.exp()), xs)
        shorter = foreach_map(T.add, xs, ys[:1])
        single = foreach_map(T.add, T.ones(2), 1)
        return type(out).__name__, out, scaled, pairs, shorter, single
    same(prog)

    def dropped_kwargs(T):
        from importlib import import_module
        # keyword arguments are not passed to the function (PyTorch's eager path drops them)
        import_module(f"{T.__name__}._higher_order_ops").foreach_map(
            lambda x, alpha: x * alpha, [T.ones(1)], alpha=3)
    same_error(dropped_kwargs)


def test_foreach_double_backward():
    def prog(T):
        xs, ys = _lists(T, True)
        xs = [x.double() for x in xs]
        ys = [y.double() for y in ys]
        out = T._foreach_mul(xs, ys)
        g = T.autograd.grad(sum(o.sum() for o in out), xs, create_graph=True)
        gg = T.autograd.grad(sum((t * t).sum() for t in g), ys)
        return g, gg
    same(prog)


# ---- the rest of torch.autograd -----------------------------------------------------------

def test_autograd_flags():
    def prog(T):
        A = T.autograd
        out = [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        with A.set_multithreading_enabled(False):
            out.append(A.is_multithreading_enabled())
        out.append(A.is_multithreading_enabled())
        A.set_multithreading_enabled(False)
        out.append(A.is_multithreading_enabled())
        A.set_multithreading_enabled(True)
        x = T.ones(2, 3, requires_grad=True)
        with A.enforce_grad_layout_policy(False):
            (x * 2).sum().backward()

        @A.enforce_grad_layout_policy(False)
        def f(y):
            return (y * 3).sum()
        f(x).backward()
        return out, x.grad
    same(prog)


def test_anomaly_mode_module():
    def prog(T):
        with T.autograd.anomaly_mode.detect_anomaly(check_nan=False):
            on = (T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())
        with T.autograd.anomaly_mode.set_detect_anomaly(True):
            on += (T.is_anomaly_enabled(),)
        return on, T.is_anomaly_enabled()
    same(prog)


def test_is_tensor_like():
    class WithTorchFunction:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return None

    same(lambda T: [T.autograd.is_tensor_like(x) for x in (
        T.ones(1), T.nn.Parameter(T.ones(1)), 1.0, [T.ones(1)], WithTorchFunction())])


def test_variable():
    def prog(T):
        V = T.autograd.Variable
        t = T.ones(2)
        v = V(t, requires_grad=True)
        x = T.ones(2, requires_grad=True) * 2
        w = V(x)
        return (v, v is t, v.is_leaf, t.requires_grad, w, w.grad_fn, V(),
                isinstance(t, V), isinstance(1.0, V), T.autograd.variable.Variable is V)
    same(prog)
    same_warnings(lambda T: T.autograd.Variable(T.ones(1), volatile=True))
    same_error(lambda T: T.autograd.Variable([1, 2]))
    same_error(lambda T: T.autograd.variable(T.ones(1)))


def test_nested_io_function():
    def prog(T):
        class F(T.autograd.NestedIOFunction):
            def forward_extended(self, a, b):
                return a * b
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            f = F()
        f.save_for_backward(T.ones(1), (T.ones(2), None))
        f.mark_dirty(T.ones(1))
        f.mark_non_differentiable(T.ones(3), x=T.ones(4))
        out = (f.to_save, f._to_save_nested, f.dirty_tensors, f.non_differentiable)
        try:
            f(T.ones(2), T.ones(2))          # PyTorch's Function lost _do_forward
        except AttributeError as e:
            out += (str(e),)
        return out
    same(prog)
    same_error(lambda T: T.autograd.NestedIOFunction.forward_extended(None, 1))


def test_legacy_profiler_and_its_types():
    def prog(T):
        A = T.autograd
        p = A.profiler_legacy.profile(record_shapes=True)
        with p:
            T.ones(3).exp()
        names = [e.name for e in p.function_events if e.name == "aten::exp"]
        return (names, type(p.function_events).__name__, repr(A.ProfilerState.CPU),
                int(A.ProfilerState.KINETO), list(A.ProfilerState.__members__),
                repr(A.DeviceType.CPU), repr(A.ProfilerActivity.CPU),
                A.kineto_available is T.profiler.kineto_available,
                type(p.config()).__name__, A.ProfilerConfig.__name__,
                A.profiler_util.EventList.__name__, A.profiler_util.MEMORY_EVENT_NAME)
    same(prog)
    same_error(lambda T: T.autograd.ProfilerEvent())
    same_warnings(lambda T: T.autograd.profiler_legacy.profile(use_cuda=True))
