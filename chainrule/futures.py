"""torch.futures: a value that will be ready later, with callbacks and waiting.

`torch.Future` is the base class (PyTorch's C++ `torch._C.Future`), `torch.futures.Future`
the Python subclass users construct; futures made by `then`, `collect_all` and `fork` are of
the base class. The state is shared between the wrappers that see one future (as PyTorch's
wrappers share one C++ future), guarded by a condition variable so that any thread may set
a result while others wait. Callbacks run in the thread that completes the future (inline
when it is already complete)."""
import sys
import threading
import time
import types

from ._device import device as _make_device

__all__ = ["Future", "collect_all", "wait_all"]

_NOT_COMPLETED = ('completed() INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
                  'core/ivalue_inl.h":1016, please report a bug to PyTorch. ')
_COMPLETED_TWICE = ("Attempting to mark a completed Future as complete again. Note that a "
                    "Future can only be marked completed once.")


# Functions that complete pending outside work in the calling thread, each returning whether
# it completed something: a wait runs them before it sleeps. chainrule.distributed's completes
# MPI requests, oldest first, so futures of collectives (and the callbacks chained on them,
# which may start more collectives) finish in one order on every rank, without a thread.
_progress = []


class _State:
    """One future's value or error and its pending callbacks (PyTorch's c10::ivalue::Future)."""
    __slots__ = ("cond", "completed", "value", "error", "callbacks", "devices")

    def __init__(self, devices):
        self.cond = threading.Condition()
        self.completed = False
        self.value = None
        self.error = None          # an exception instance, raised by wait() and value()
        self.callbacks = []
        self.devices = devices

    def complete(self, value, error):
        with self.cond:
            if self.completed:
                raise RuntimeError(_COMPLETED_TWICE)
            self.value, self.error, self.completed = value, error, True
            callbacks, self.callbacks = self.callbacks, []
            self.cond.notify_all()
        for cb in callbacks:
            cb()

    def add_callback(self, cb):
        with self.cond:
            if not self.completed:
                self.callbacks.append(cb)
                return
        cb()

    def wait(self):
        # complete outside work in this thread first (see _progress)
        for drive in _progress:
            while not self.completed and drive():
                pass
        with self.cond:
            while not self.completed:
                self.cond.wait()


def _callback_error(e):
    """PyTorch's text for an exception a Python callback raised (pybind11's type, value and
    the stack from where it was raised outwards)."""
    text = f"Got the following error when running the callback: {type(e).__name__}: {e}"
    tb = e.__traceback__
    if tb is not None:
        while tb.tb_next is not None:
            tb = tb.tb_next
        frame, lines = tb.tb_frame, []
        while frame is not None:
            code = frame.f_code
            lines.append(f"  {code.co_filename}({frame.f_lineno}): {code.co_name}\n")
            frame = frame.f_back
        text += "\n\nAt:\n" + "".join(lines)
    return text


def _incompatible(method, signature, returns, invoked):
    return TypeError(f"{method}(): incompatible function arguments. The following argument "
                     f"types are supported:\n    1. ({signature}) -> {returns}\n\n"
                     f"Invoked with: {invoked}")


def _check_devices(devices):
    devices = [_make_device(d) for d in devices]
    for d in devices:
        if d.type not in ("cpu", "meta"):
            raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")
        if d.index is None:
            raise ValueError(f"Expected devices to have indices, got {d}")
    for d in devices[1:]:
        if d.type != devices[0].type:
            raise ValueError("Expected all devices to be of the same type, but got a mismatch "
                             f"between {devices[0]} and {d}")
    return devices


def _wrap(state):
    """A new torch.Future wrapper (no unwrap function) of `state`."""
    fut = object.__new__(_CFuture)
    fut._state, fut._unwrap = state, None
    return fut


class Future:
    """A future: `set_result` completes it, `wait` blocks until it is complete, `then` and
    `add_done_callback` run code when it is."""
    __slots__ = ("_state", "_unwrap", "__weakref__")

    def __init__(self, *args, **kwargs):
        if len(args) != 1 or kwargs or not isinstance(args[0], (list, tuple)):
            invoked = ", ".join([repr(a) for a in args] + (
                ["kwargs: " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items())] if kwargs
                else []))
            raise TypeError("__init__(): incompatible constructor arguments. The following "
                            "argument types are supported:\n    1. torch._C.Future(arg0: "
                            "collections.abc.Sequence[torch.device])\n\nInvoked with: " + invoked)
        self._state, self._unwrap = _State(_check_devices(args[0])), None

    def done(self):
        """Whether the future has a result or an error."""
        return self._state.completed

    def wait(self):
        """Block until the future is complete; its value, or its error raised."""
        self._state.wait()
        return self.value()

    def value(self):
        """The value of a complete future (its error raised)."""
        state = self._state
        if not state.completed:
            raise RuntimeError(_NOT_COMPLETED)
        if state.error is not None:
            raise state.error
        if self._unwrap is not None:
            self._unwrap(state.value)
        return state.value

    def then(self, callback):
        """A future of `callback(self)`'s result, run once this one is complete."""
        if not callable(callback):
            raise _incompatible("then", "self: torch._C.Future, arg0: collections.abc.Callable",
                                "torch._C.Future", f"{self!r}, {callback!r}")
        child = _wrap(_State(self._state.devices))

        def run():
            try:
                result = callback(self)
            except Exception as e:      # noqa: BLE001  (the child future carries any error)
                child._state.complete(None, RuntimeError(_callback_error(e)))
            else:
                child._state.complete(result, None)

        self._state.add_callback(run)
        return child

    def add_done_callback(self, callback):
        """Run `callback(self)` once this future is complete; its errors are logged."""
        if not callable(callback):
            raise _incompatible("add_done_callback",
                                "self: torch._C.Future, arg0: collections.abc.Callable", "None",
                                f"{self!r}, {callback!r}")

        def run():
            try:
                callback(self)
            except Exception as e:      # noqa: BLE001  (logged, as PyTorch does)
                now = time.time()
                stamp = time.strftime("%m%d %H:%M:%S", time.localtime(now))
                print(f"[E{stamp}.{int(now % 1 * 1e9):09d} pybind_utils.h:215] "
                      f"{_callback_error(e)}", file=sys.stderr)

        self._state.add_callback(run)

    def set_result(self, result):
        """Complete the future with `result` and run its callbacks."""
        self._state.complete(result, None)

    def _set_unwrap_func(self, func):
        self._unwrap = func

    def __reduce_ex__(self, protocol):
        raise RuntimeError("Can not pickle torch.futures.Future")


Future.__module__ = "torch"
_CFuture = Future     # torch.Future (PyTorch's torch._C.Future)


class Future(_CFuture):
    """A future that user code completes with `set_result` or `set_exception`."""
    __slots__ = ()
    __module__ = "torch.jit"     # PyTorch's class prints as torch.jit.Future
    # generic, as PyTorch's: hooks are annotated `-> torch.futures.Future[torch.Tensor]`
    __class_getitem__ = classmethod(types.GenericAlias)

    def __init__(self, *, devices=None):
        super().__init__([] if devices is None else devices)

    def set_exception(self, result):
        """Complete the future with an exception, raised by `wait` and `value`."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")

        def raise_error(fut_result):
            raise fut_result

        # PyTorch installs the raising unwrap before it completes the future, so a failed
        # second completion leaves a future whose value raises its value.
        self._set_unwrap_func(raise_error)
        self.set_result(result)


def collect_all(futures):
    """A future completed when all of `futures` are, whose value is the list of them (an
    error of any of them completes it at once with that error)."""
    if not isinstance(futures, (list, tuple)) or not all(
            f is None or isinstance(f, _CFuture) for f in futures):
        raise _incompatible("_collect_all", "arg0: collections.abc.Sequence[torch._C.Future]",
                            "torch._C.Future", repr(futures))
    if any(f is None for f in futures):
        raise RuntimeError("Future can't be None")
    futures = list(futures)
    devices = futures[0]._state.devices if futures else []
    result = _wrap(_State(devices))
    left = [len(futures), False]      # futures not yet complete; whether result is set
    lock = threading.Lock()

    def one_done(state):
        with lock:
            if left[1]:
                return
            left[0] -= 1
            error = state.error
            left[1] = finish = error is not None or left[0] == 0
        if finish:
            result._state.complete(None if error is not None else
                                   [_wrap(f._state) for f in futures], error)

    for f in futures:
        f._state.add_callback(lambda s=f._state: one_done(s))
    if not futures:
        result._state.complete([], None)

    def unwrap(_):
        # waiting on the originals raises what their own wait() raises (set_exception)
        for f in futures:
            f.wait()

    result._set_unwrap_func(unwrap)
    return result


def wait_all(futures):
    """Wait for all `futures` and return their values; the first error is raised."""
    return [fut.wait() for fut in collect_all(futures).wait()]


def fork(func, *args, **kwargs):
    """TorchScript's fork outside TorchScript: run `func` now and return a complete future of
    its result."""
    if not callable(func):
        raise TypeError(f"Object of type '{type(func).__name__}' is not an instance of "
                        "'function'")
    fut = _wrap(_State([]))
    fut._state.complete(func(*args, **kwargs), None)
    return fut


def wait(fut):
    """The value of future `fut`, once it is complete."""
    if not isinstance(fut, _CFuture):
        raise _incompatible("wait", "arg0: torch._C.Future", "object", repr(fut))
    return fut.wait()
