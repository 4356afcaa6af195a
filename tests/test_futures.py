"""torch.futures, torch.Future, torch.fork/wait against PyTorch."""
import pickle
import threading
import time

import pytest
import torch

import chainrule
from helpers import same, same_error


def ok(T, v):
    f = T.futures.Future()
    f.set_result(v)
    return f


def err(T, e):
    f = T.futures.Future()
    f.set_exception(e)
    return f


def first_line(T, fn):
    """The exception class and the first line of its message (the rest is a stack)."""
    try:
        fn(T)
    except Exception as e:      # noqa: BLE001
        return type(e).__name__, str(e).split("\n")[0]
    return None


def test_names():
    assert chainrule.futures.__all__ == torch.futures.__all__
    assert issubclass(chainrule.futures.Future, chainrule.Future)
    same(lambda T: (type(T.futures.Future()).__name__, type(T.futures.Future()).__module__,
                    T.Future.__name__, T.Future.__module__,
                    repr(T.futures.Future()).split(" object")[0],
                    repr(T.Future([])).split(" object")[0]))


def test_result_and_callbacks():
    def prog(T):
        log = []
        f = T.futures.Future()
        done0 = f.done()
        g = f.then(lambda fut: fut.value() * 2)
        f.add_done_callback(lambda fut: log.append(("cb", fut.wait())))
        h = g.then(lambda fut: fut.wait() + 1)
        f.set_result(T.tensor([1., 2.]))
        same_obj = f.then(lambda fut: fut is f).wait()
        return (done0, f.done(), f.wait(), f.value(), g.wait(), h.wait(), log[0][0],
                log[0][1], type(g).__name__, type(g).__module__, same_obj,
                f.then(lambda fut: None).wait())
    same(prog)


def test_set_result_twice_and_value_before_done():
    same_error(lambda T: ok(T, 1).set_result(2))
    same_error(lambda T: err(T, ValueError("a")).set_result(2))
    same_error(lambda T: err(T, ValueError("a")).set_exception(ValueError("b")))
    same_error(lambda T: T.futures.Future().value())
    same_error(lambda T: T.Future([]).value())
    same_error(lambda T: ok(T, 1).then(lambda f: 2).set_result(3))


def test_set_exception():
    same_error(lambda T: err(T, ValueError("foo")).wait())
    same_error(lambda T: err(T, ValueError("foo")).value())
    same(lambda T: err(T, KeyError("k")).done())
    same_error(lambda T: T.futures.Future().set_exception(5))
    same_error(lambda T: T.futures.Future().set_exception(KeyboardInterrupt()))
    # a value that is an exception is a value
    same(lambda T: repr(ok(T, ValueError("x")).wait()))

    # PyTorch installs the raising unwrap before completing: a set_exception on a
    # complete future fails, and the future's value now raises its (non-exception) value
    def broken(T):
        f = ok(T, 3)
        try:
            f.set_exception(ValueError("late"))
        except RuntimeError:
            pass
        return f.wait()
    same_error(broken)


def test_callback_errors():
    def failing(T):
        return ok(T, 1).then(lambda f: 1 / 0).wait()
    assert first_line(chainrule, failing) == first_line(torch, failing) == (
        "RuntimeError",
        "Got the following error when running the callback: ZeroDivisionError: division by zero")

    def from_parent(T):
        return err(T, KeyError("k")).then(lambda f: f.value()).wait()
    assert first_line(chainrule, from_parent) == first_line(torch, from_parent)

    def not_reading(T):      # the callback that does not read the error succeeds
        return err(T, KeyError("k")).then(lambda f: 7).wait()
    same(not_reading)

    def chained(T):
        return ok(T, 1).then(lambda f: 1 / 0).then(lambda f: f.value()).wait()
    assert first_line(chainrule, chained) == first_line(torch, chained)

    # the stack: the callback, then outwards
    e = pytest.raises(RuntimeError, failing, chainrule).value
    assert "\n\nAt:\n  " in str(e) and "): <lambda>\n" in str(e)

    def pending(T):
        f = T.futures.Future()
        g = f.then(lambda fut: 1 / 0)
        f.set_result(1)
        return g.done()
    same(pending)


def test_add_done_callback_error_is_logged(capfd):
    def prog(T):
        f = T.futures.Future()
        f.add_done_callback(lambda fut: {}["k"])
        f.set_result(1)
        return f.wait()
    same(prog)
    logged = capfd.readouterr().err
    ours, theirs = [line.split("] ", 1)[1] for line in logged.splitlines()
                    if "pybind_utils.h:215]" in line]
    assert ours == theirs == "Got the following error when running the callback: KeyError: 'k'"


def test_argument_errors():
    for prog in (lambda T: T.futures.Future().then(5),
                 lambda T: T.futures.Future().add_done_callback(5),
                 lambda T: T.futures.collect_all([1]),
                 lambda T: T.futures.collect_all([T.futures.Future(), None]),
                 lambda T: T.wait(5),
                 lambda T: T.fork(5),
                 lambda T: T.Future(),
                 lambda T: T.Future(devices=[]),
                 lambda T: T.futures.Future(5),
                 lambda T: T.futures.Future().set_result()):
        e = same_error(prog) if "Invoked with: <" not in str(_raise(prog)) else None
        if e is None:    # the message names the object's address: compare up to it
            assert first_line(chainrule, prog) == first_line(torch, prog)


def _raise(prog):
    try:
        prog(torch)
    except Exception as e:      # noqa: BLE001
        return e


def test_devices():
    for d in ("cpu", "meta", "cuda:0", "mps", "xpu:0", 0):
        same_error(lambda T: T.futures.Future(devices=[d]))
    same_error(lambda T: T.futures.Future(devices=["cpu:0", "meta:0"]))
    same(lambda T: T.futures.Future(devices=["cpu:0", T.device("cpu", 1)]).done())


def test_collect_all_and_wait_all():
    def prog(T):
        a, b = T.futures.Future(), T.futures.Future()
        c = T.futures.collect_all([a, b])
        d0 = c.done()
        a.set_result(1)
        d1 = c.done()
        b.set_result(T.ones(2))
        futs = c.wait()
        return (d0, d1, c.done(), [type(f).__name__ for f in futs],
                [type(f).__module__ for f in futs], futs[0] is a, futs[0].wait(), futs[1].wait(),
                T.futures.wait_all([ok(T, 1), ok(T, 2)]), T.futures.wait_all([]),
                T.futures.collect_all(()).wait())
    same(prog)
    same_error(lambda T: T.futures.wait_all([ok(T, 1), err(T, ValueError("v"))]))
    same_error(lambda T: T.futures.collect_all([ok(T, 1), err(T, ValueError("v"))]).value())
    same(lambda T: T.futures.collect_all([ok(T, 1), err(T, ValueError("v"))]).done())

    def early_error(T):    # a real error completes the collection at once
        g = ok(T, 1).then(lambda f: 1 / 0)
        return T.futures.collect_all([T.futures.Future(), g]).done()
    same(early_error)

    def waits_error(T):
        g = ok(T, 1).then(lambda f: 1 / 0)
        return T.futures.wait_all([T.futures.Future(), g])
    assert first_line(chainrule, waits_error) == first_line(torch, waits_error)


def test_threads():
    def prog(T):
        f = T.futures.Future()
        order = []
        g = f.then(lambda fut: order.append(threading.current_thread().name) or 9)
        f.add_done_callback(lambda fut: order.append("second"))
        t = threading.Thread(target=lambda: (time.sleep(0.05), f.set_result(T.ones(2) * 3)),
                             name="setter")
        t.start()
        value = f.wait()
        t.join()
        return value, g.wait(), order
    same(prog)

    # many threads race to complete one future: exactly one succeeds
    def race(T):
        f = T.futures.Future()
        errors = []

        def setter(i):
            try:
                f.set_result(i)
            except RuntimeError as e:
                errors.append(str(e))
        threads = [threading.Thread(target=setter, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return len(errors), sorted(set(errors)), f.wait() in range(8)
    same(race)

    # many waiters
    f = chainrule.futures.Future()
    got = []
    waiters = [threading.Thread(target=lambda: got.append(f.wait())) for _ in range(6)]
    for t in waiters:
        t.start()
    f.set_result(5)
    for t in waiters:
        t.join()
    assert got == [5] * 6


def test_fork_wait_and_pickle():
    same(lambda T: (T.wait(ok(T, 2)), type(T.fork(lambda x: x + 1, 2)).__name__,
                    T.fork(lambda x, y=0: x + y, 2, y=3).wait(), T.fork(lambda: 3).done()))
    same_error(lambda T: T.fork(lambda: 1 / 0))
    same_error(lambda T: pickle.dumps(ok(T, 1)))
    same_error(lambda T: pickle.dumps(T.Future([])))
    same(lambda T: ok(T, 1) == ok(T, 1))
