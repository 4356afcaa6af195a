"""torch.library's Python custom operators (custom_op and its register_* methods, infer_schema,
opcheck, torch.ops.<ns>.<name>), run as the same programs on chainrule and PyTorch."""
import itertools
import logging
import typing
from typing import Optional, Sequence

import numpy as np
import pytest
import torch

import chainrule
from helpers import LIBS, compare, same

_ids = {lib: itertools.count() for lib in LIBS}


def _name(lib):
    # a fresh operator name per program (each library's registry is global), the same in
    # both libraries since programs create their operators in the same order
    return f"crtest::op{next(_ids[lib])}"


def _numpy_sin(lib):
    @lib.library.custom_op(_name(lib), mutates_args=())
    def numpy_sin(x: lib.Tensor) -> lib.Tensor:
        return lib.from_numpy(np.sin(x.numpy(force=True)))
    return numpy_sin


def test_custom_op_without_autograd_records_a_node_that_refuses():
    def prog(T):
        op = _numpy_sin(T)
        x = T.tensor([0.5, 1.0, 2.0], requires_grad=True)
        y = op(x)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        return y, str(e.value), repr(op)
    same(prog)


def test_register_autograd_setup_context_and_backward():
    def prog(T):
        op = _numpy_sin(T)

        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x)

        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * x.cos()
        op.register_autograd(backward, setup_context=setup_context)
        x = T.tensor([0.5, 1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = op(x)
        names = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
        y.sum().backward()
        with T.no_grad():
            z = op(x)
        return y, x.grad, names, z, type(y.grad_fn).__name__
    same(prog)


def test_keyword_only_arguments_reach_setup_context():
    def prog(T):
        @T.library.custom_op(_name(T), mutates_args=())
        def numpy_mul(x: T.Tensor, *, val: float = 2.0) -> T.Tensor:
            return T.from_numpy(x.numpy(force=True) * val)

        def setup_context(ctx, inputs, keyword_only_inputs, output):
            ctx.val = keyword_only_inputs["val"]

        def backward(ctx, grad):
            return grad * ctx.val
        numpy_mul.register_autograd(backward, setup_context=setup_context)
        x = T.ones(3, requires_grad=True)
        numpy_mul(x, val=3.14).sum().backward()
        g1 = x.grad.clone()
        x.grad = None
        numpy_mul(x).sum().backward()
        return g1, x.grad
    same(prog)


def test_tensor_list_inputs_and_outputs():
    def prog(T):
        @T.library.custom_op(_name(T), mutates_args=())
        def scale_all(xs: typing.List[T.Tensor], s: float) -> typing.List[T.Tensor]:
            return [x * s for x in xs]

        def setup_context(ctx, inputs, output):
            ctx.s = inputs[1]

        def backward(ctx, grads):
            return [g * ctx.s for g in grads], None
        scale_all.register_autograd(backward, setup_context=setup_context)
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0], requires_grad=True)
        ys = scale_all([a, b], 3.0)
        (ys[0].sum() + 2 * ys[1].sum()).backward()
        return ys, a.grad, b.grad, type(ys).__name__
    same(prog)


def test_mutating_op_bumps_the_version_and_refuses_autograd():
    def prog(T):
        @T.library.custom_op(_name(T), mutates_args={"x"})
        def add_(x: T.Tensor, y: float) -> None:
            x.add_(y)
        a = T.zeros(2)
        v0 = a._version
        add_(a, 2.0)
        with pytest.raises(RuntimeError) as e:
            add_.register_autograd(lambda ctx, g: g)
        message = str(e.value)
        return a, a._version - v0, message.split(" with schema")[0]
    same(prog)


def test_output_aliasing_an_input_is_refused():
    for lib in LIBS:
        @lib.library.custom_op(_name(lib), mutates_args=())
        def bad(x: lib.Tensor) -> lib.Tensor:
            return x[:1]
        with pytest.raises(RuntimeError, match="must not also be an input to this custom "
                                               "operator and \\(2\\) may not alias any inputs"):
            bad(lib.randn(3))


def test_torch_ops_namespace_reaches_the_operator():
    def prog(T):
        op = _numpy_sin(T)
        ns, name = op._namespace, op._name
        packet = getattr(getattr(T.ops, ns), name)
        x = T.tensor([0.25, 0.5])
        with pytest.raises(AttributeError) as e:
            getattr(T.ops, ns).no_such_op
        return (packet(x), packet.default(x), repr(packet), str(packet), repr(packet.default),
                str(packet.default), str(e.value), packet.overloads(), repr(getattr(T.ops, ns)),
                str(packet.default._schema))
    same(prog)


def test_register_kernel_and_set_kernel_enabled():
    def prog(T):
        op = _numpy_sin(T)

        @op.register_kernel("cpu")
        def _(x):
            return T.from_numpy(np.cos(x.numpy()))
        x = T.tensor([0.1, 0.2])
        with op.set_kernel_enabled("cpu", enabled=False):
            disabled = op(x)
        return op(x), disabled
    same(prog)


def test_functional_register_forms_by_qualified_name():
    def prog(T):
        op = _numpy_sin(T)
        T.library.register_autograd(op._qualname, lambda ctx, g: g * 2, setup_context=None)
        fake = T.library.register_fake(op._qualname)(lambda x: T.empty_like(x))
        x = T.ones(2, requires_grad=True)
        op(x).sum().backward()
        return x.grad, fake is op._abstract_fn
    same(prog)


@pytest.mark.parametrize("case", range(9))
def test_infer_schema(case):
    def prog(T):
        def f0(x: T.Tensor) -> T.Tensor: ...
        def f1(x: T.Tensor, y: Optional[T.Tensor], n: int = 2, *, s: float = 1.5) -> T.Tensor: ...
        def f2(xs: Sequence[T.Tensor], d: T.dtype = T.float32, flag: bool = True) -> None: ...
        def f3(x: T.Tensor, dims: list[int], name: str = "a") -> tuple[T.Tensor, T.Tensor]: ...
        def f4(x: T.Tensor, out: T.Tensor) -> None: ...
        def f5(x: T.Tensor, y: typing.Optional[typing.List[float]] = None) -> typing.List[T.Tensor]: ...
        def f6(x) -> T.Tensor: ...
        def f7(x: T.Tensor, *args: T.Tensor) -> T.Tensor: ...
        def f8(x: T.Tensor, p: dict) -> T.Tensor: ...
        fns = [(f0, ()), (f1, ()), (f2, ["xs"]), (f3, ()), (f4, {"out"}), (f5, "unknown"),
               (f6, ()), (f7, ()), (f8, ())]
        fn, mutates = fns[case]
        try:
            return T.library.infer_schema(fn, mutates_args=mutates)
        except ValueError as e:
            return type(e).__name__, str(e).split(" Got func")[0].split(". The valid")[0]
    same(prog)


def test_opcheck_passes_and_reports():
    def prog(T):
        op = _numpy_sin(T)
        op.register_autograd(lambda ctx, g: g, setup_context=lambda ctx, inputs, output: None)
        op.register_fake(lambda x: T.empty_like(x))
        return T.library.opcheck(op, (T.randn(3, requires_grad=True),))
    same(prog)


def test_opcheck_finds_a_missing_fake_kernel():
    def prog(T):
        op = _numpy_sin(T)
        result = T.library.opcheck(op, (T.randn(3),), test_utils="test_faketensor",
                                   raise_exception=False)
        return sorted(result), "no fake impl registered" in str(result["test_faketensor"])
    same(prog)


def test_qualified_name_without_namespace():
    for lib in LIBS:
        with pytest.raises(ValueError, match="not enough values to unpack"):
            @lib.library.custom_op("nonamespace", mutates_args=())
            def f(x: lib.Tensor) -> lib.Tensor:
                return x.clone()


def test_set_kernel_enabled_warns_through_logging(caplog):
    ours = _numpy_sin(chainrule)
    with caplog.at_level(logging.WARNING, logger="chainrule.library"):
        with ours.set_kernel_enabled("cpu", enabled=True):
            pass
    assert "already enabled" in caplog.text


def test_impl_abstract_is_register_fake():
    assert chainrule.library.impl_abstract is chainrule.library.register_fake
    compare(list(chainrule.library.DEFAULT_TEST_UTILS),
            list(torch.testing._internal.optests.generate_tests.DEFAULT_TEST_UTILS))


def test_types_and_the_remaining_registrations():
    def prog(T):
        op = _numpy_sin(T)
        rule = op.register_vmap(lambda info, in_dims, x: (op(x), in_dims[0]))
        T.library.register_vmap(op._qualname, lambda info, in_dims, x: (op(x), in_dims[0]))
        T.library.register_autocast(op._qualname, "cpu", T.float16)
        with pytest.raises(ValueError) as e:
            op.register_autocast(1, T.float16)
        return (isinstance(op, T.library.CustomOpDef),
                isinstance(getattr(getattr(T.ops, op._namespace), op._name).default,
                           T.library.OpOverload), rule, str(e.value), op(T.tensor([0.5])))
    same(prog)


def test_register_autocast_casts_floating_inputs_inside_cpu_autocast():
    def prog(T):
        @T.library.custom_op(_name(T), mutates_args=())
        def double(x: T.Tensor, n: T.Tensor) -> T.Tensor:
            return x * 2 + n.to(x.dtype)
        double.register_autocast("cpu", T.float16)
        x, n = T.tensor([1.5, 2.25]), T.tensor([1, 2])
        with T.autocast("cpu"):
            inside = double(x, n)
        return inside, double(x, n)
    same(prog)
