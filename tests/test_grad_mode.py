"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode as context managers
and decorators, their thread-locality, and inference tensors' errors; anomaly mode."""
import threading
import warnings

import pytest
import torch

import chainrule

from helpers import same, same_error, same_warnings, warnings_of


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    yield
    for T in (chainrule, torch):
        T.set_grad_enabled(True)


def test_no_grad_context():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        out = [T.is_grad_enabled()]
        with T.no_grad():
            y = x * 2
            out += [T.is_grad_enabled(), y.requires_grad, y.grad_fn]
            with T.enable_grad():
                z = x * 2
                out += [T.is_grad_enabled(), z.requires_grad]
            out.append(T.is_grad_enabled())
        return out + [T.is_grad_enabled(), (x * 2).requires_grad]
    same(prog)


def test_context_restores_after_exception():
    def prog(T):
        try:
            with T.no_grad():
                raise KeyError
        except KeyError:
            pass
        return T.is_grad_enabled()
    same(prog)


def test_decorators():
    def prog(T):
        x = T.ones(2, requires_grad=True)

        @T.no_grad()
        def f1():
            return x * 2, T.is_grad_enabled()

        @T.no_grad
        def f2():
            return x * 2

        @T.enable_grad()
        def f3():
            return x * 2

        @T.enable_grad
        def f4():
            return x * 2

        @T.set_grad_enabled(False)
        def f5():
            return x * 2

        @T.inference_mode()
        def f6():
            return x * 2, T.is_inference_mode_enabled()

        @T.inference_mode
        def f7():
            return x * 2

        @T.inference_mode(False)
        def f8():
            return x * 2, T.is_inference_mode_enabled()

        out = [f1(), f2().requires_grad, f5().requires_grad, f6(), f7().requires_grad, f8(),
               f1.__name__, T.is_grad_enabled()]
        with T.no_grad():
            out += [f3().requires_grad, f4().requires_grad, f8()[0].requires_grad]
        return out
    same(prog)


def test_generator_decorator():
    def prog(T):
        x = T.ones(2, requires_grad=True)

        @T.no_grad()
        def gen():
            for _ in range(2):
                yield (x * 2).requires_grad, T.is_grad_enabled()

        out = []
        for item in gen():
            out.append((item, T.is_grad_enabled()))
        return out
    same(prog)


def test_decorating_a_class_warns():
    def prog(T):
        @T.no_grad()
        class A:
            def __init__(self):
                self.x = (T.ones(1, requires_grad=True) * 2).requires_grad
        return A().x
    same(lambda T: warnings_of(lambda: prog(T)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)


def test_set_grad_enabled():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        T.set_grad_enabled(False)
        out = [T.is_grad_enabled(), (x * 2).requires_grad]
        T.set_grad_enabled(True)
        with T.set_grad_enabled(False):
            out += [T.is_grad_enabled(), (x * 2).requires_grad]
        out.append(T.is_grad_enabled())
        with T.no_grad():
            with T.set_grad_enabled(True):
                out += [T.is_grad_enabled(), (x * 2).requires_grad]
            out.append(T.is_grad_enabled())
        return out + [T.is_grad_enabled(), T.autograd.set_grad_enabled is T.set_grad_enabled]
    same(prog)


def test_set_grad_enabled_takes_a_bool():
    same_error(lambda T: T.set_grad_enabled(1))
    same_error(lambda T: T.set_grad_enabled("yes"))


def test_names_are_shared():
    for T in (chainrule, torch):
        assert T.autograd.no_grad is T.no_grad and T.autograd.enable_grad is T.enable_grad
        assert T.autograd.grad_mode.no_grad is T.no_grad
        assert T.autograd.inference_mode is T.inference_mode


def test_grad_mode_is_thread_local():
    def prog(T):
        seen = []
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            t = threading.Thread(target=lambda: seen.append((T.is_grad_enabled(),
                                                             (x * 2).requires_grad)))
            t.start()
            t.join()
            seen.append(T.is_grad_enabled())
        return seen
    same(prog)


def test_backward_inside_no_grad_works():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        y = (x * x).sum()
        seen = []
        x.register_hook(lambda g: seen.append(T.is_grad_enabled()))
        with T.no_grad():
            y.backward()
        (x * x).sum().backward(create_graph=True)
        return x.grad, seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)


def test_inference_mode():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        with T.inference_mode():
            y = x * 2
            out = [T.is_grad_enabled(), T.is_inference_mode_enabled(), y.requires_grad,
                   y.is_inference()]
            with T.inference_mode(False):
                out += [T.is_inference_mode_enabled(), T.is_grad_enabled()]
        z = x * 2
        return out + [T.is_inference_mode_enabled(), z.is_inference(), x.is_inference(), y]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: _inference(T).requires_grad_(),
    lambda T: _inference(T).add_(1),
    lambda T: T.ones(2, requires_grad=True) * _inference(T),
], ids=["requires-grad", "in-place", "saved"])
def test_inference_tensor_errors(prog):
    same_error(prog)


def _inference(T):
    with T.inference_mode():
        return T.ones(2)


def test_inference_tensor_in_place_inside_the_mode():
    def prog(T):
        t = _inference(T)
        with T.inference_mode():
            t.add_(1)
        return t, t + 1
    same(prog)


# ---- anomaly mode -------------------------------------------------------------------------

def test_detect_anomaly_warns_on_entry():
    def prog(T):
        with T.autograd.detect_anomaly():
            pass
    same_warnings(prog)


def test_anomaly_mode_flags():
    import warnings as w

    def prog(T):
        out = [T.is_anomaly_enabled()]
        with w.catch_warnings():
            w.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                out += [T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()]
            with T.autograd.detect_anomaly(check_nan=False):
                out.append(T.is_anomaly_check_nan_enabled())
        with T.autograd.set_detect_anomaly(True):
            out.append(T.is_anomaly_enabled())
        return out + [T.is_anomaly_enabled()]
    same(prog)


def test_anomaly_without_forward_information():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x.exp()
        y.add_(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with T.autograd.detect_anomaly():
                try:
                    y.sum().backward()
                except RuntimeError:
                    pass
        return [str(w.message).split(" (Triggered internally at ")[0] for w in caught]
    same(prog)


def _nan_backward(T, node):
    x = T.tensor([0., 1.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.autograd.detect_anomaly():
            y = (x / x) if node == "div" else (x * 0).pow(0.5)
            y.sum().backward()


@pytest.mark.parametrize("node", ["div", "pow"])
def test_anomaly_nan_check(node):
    same_error(lambda T: _nan_backward(T, node))


def test_anomaly_reports_the_forward_traceback():
    def prog(T):
        class Fail(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with T.autograd.detect_anomaly():
                y = Fail.apply(T.ones(2, requires_grad=True))
                try:
                    y.sum().backward()
                except ValueError:
                    pass
        texts = [str(w.message) for w in caught]
        return [t.split("\n")[0] for t in texts], any("Fail.apply" in t for t in texts)
    same(prog)
