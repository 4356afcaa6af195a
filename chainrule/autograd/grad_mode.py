"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local).

The flags live on one thread-local object so the forward hot path reads a single attribute.
"""
import functools
import inspect
import threading
import warnings

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled", "is_multithreading_enabled",
           "enforce_grad_layout_policy", "is_view_replay_enabled"]


class _State(threading.local):
    grad_enabled = True
    inference = False
    multithreading = True          # set_multithreading_enabled (the engine is one thread)
    grad_layout_enforcement = True     # enforce_grad_layout_policy


state = _State()


def is_grad_enabled():
    """Whether operations are recorded for autograd in this thread."""
    return state.grad_enabled


def is_inference_mode_enabled():
    return state.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions and generator functions."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)    # noqa: E731
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                g = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = g.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                g.close()
                            raise
                        except BaseException as e:
                            with self.clone():
                                response = g.throw(e)
                        else:
                            with self.clone():
                                response = g.send(request)
                except StopIteration as e:
                    return e.value
            return gen

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class _NoParamDecorator(_DecoratorContextManager):
    """Also usable bare, as `@no_grad` without parentheses (PyTorch 2 allows it)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable gradient recording inside the block."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


class enable_grad(_NoParamDecorator):
    """Enable gradient recording inside the block (undoes no_grad)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = True

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode now; as a context manager, restore the previous mode on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.prev = state.grad_enabled
        self.mode = mode
        state.grad_enabled = mode

    def __call__(self, func):
        state.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.grad_enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are inference tensors; inference_mode(False)
    turns both off."""

    def __init__(self, mode=True):
        self.mode = mode
        self.prev = None

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self):
        self.prev = (state.grad_enabled, state.inference)
        # as in PyTorch, leaving inference mode (mode=False) turns grad mode on
        state.grad_enabled = not self.mode
        state.inference = self.mode

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self.prev

    def clone(self):
        return type(self)(self.mode)


class _SetFlag(_DecoratorContextManager):
    """Set a flag of `state` now; as a context manager, restore it on exit (PyTorch's
    set_multithreading_enabled and enforce_grad_layout_policy)."""
    _flag = None

    def __init__(self, mode):
        self.prev = getattr(state, self._flag)
        self.mode = mode
        setattr(state, self._flag, mode)

    def __call__(self, func):
        setattr(state, self._flag, self.prev)
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        setattr(state, self._flag, self.prev)

    def clone(self):
        return type(self)(self.mode)


class set_multithreading_enabled(_SetFlag):
    """Whether backward may run on several threads. chainrule's engine always runs in the
    calling thread, so the setting is only kept (is_multithreading_enabled reads it)."""
    _flag = "multithreading"


class enforce_grad_layout_policy(_SetFlag):
    """Whether accumulated gradients must have their parameter's strides. chainrule's
    AccumulateGrad keeps the incoming gradient's layout either way (NumPy arrays carry no
    contract), so the setting is only kept."""
    _flag = "grad_layout_enforcement"

    def __init__(self, enable=True):
        super().__init__(enable)


def is_multithreading_enabled():
    """The set_multithreading_enabled setting (True by default)."""
    return state.multithreading


def is_view_replay_enabled():
    """Whether autograd regenerates a modified view by replaying its views: never in
    chainrule, which regenerates it with as_strided (PyTorch's default, False)."""
    return False
