"""Process and thread state around backward: the cyclic GC's switch, grad mode, anomaly mode
and NumPy's error state are what the user had after any backward, in any thread, whatever
interrupts it (Note [No cyclic GC during backward], Note [NumPy warnings]); a long training
loop keeps memory flat."""
import gc
import signal
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest

import chainrule as torch


def _state():
    return (gc.isenabled(), torch.is_grad_enabled(), torch.is_anomaly_enabled(),
            torch.is_anomaly_check_nan_enabled(), np.geterr())


@pytest.fixture
def gc_switch():
    """Yields a function that sets the collector; the user's setting comes back after."""
    was = gc.isenabled()
    yield lambda on: gc.enable() if on else gc.disable()
    if was:
        gc.enable()
    else:
        gc.disable()


def _tiny_backwards(n, errors, create_graph=False):
    try:
        before = _state()[1:]
        for _ in range(n):
            x = torch.tensor([1.0, 2.0], requires_grad=True)
            y = (x * 3.0).sin().sum()
            if create_graph:
                g, = torch.autograd.grad(y, x, create_graph=True)
                g.sum().backward()
            else:
                y.backward()
        assert _state()[1:] == before     # this thread's grad mode, NumPy state
    except BaseException as e:   # noqa: B902 -- reported to the main thread
        errors.append(e)


@pytest.mark.parametrize("user_gc", [True, False])
def test_concurrent_backwards_leave_the_gc_switch_alone(gc_switch, user_gc):
    # 4 threads of tiny backwards, switching threads every microsecond: the check of the
    # switch and its change race if they are not one step under a lock
    gc_switch(user_gc)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for round_ in range(6):
            errors = []
            threads = [threading.Thread(target=_tiny_backwards, args=(150, errors, i % 2 == 1))
                       for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors
            assert gc.isenabled() is user_gc, f"round {round_}"
    finally:
        sys.setswitchinterval(interval)


def test_gc_is_off_during_backward_and_back_after(gc_switch):
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: seen.append((gc.isenabled(), np.geterr()["over"])))
    gc_switch(True)
    with np.errstate(over="raise"):
        y.sum().backward()
        assert np.geterr()["over"] == "raise"
    assert seen == [(False, "ignore")]
    assert gc.isenabled()


def test_backward_inside_backward_and_exceptions(gc_switch):
    # a hook running a second backward, then a hook raising: the last one out restores
    gc_switch(True)

    def inner(g):
        z = torch.tensor([3.0], requires_grad=True)
        with torch.enable_grad():       # hooks run with grad mode off
            (z * z).sum().backward()
        assert not gc.isenabled()
        return g
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2.0
    y.register_hook(inner)
    y.sum().backward()
    assert gc.isenabled()

    def fail(g):
        raise ValueError("hook failed")
    y = x * 2.0
    y.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        y.sum().backward()
    assert gc.isenabled()


class _Interrupt(BaseException):
    pass


def _interrupted_trials(seconds, rng, make_work):
    """Trials of `make_work()` run in a loop until a timer signal's handler raises
    KeyboardInterrupt, at a random moment; returns how many trials ran. After each, the
    state must be as before."""
    before = _state()
    trials = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        work = make_work()
        try:    # armed inside: a timer firing at once still lands in the `try`
            _Alarm.armed = True
            # repeating, in case something swallows an interrupt (a callback run from C)
            signal.setitimer(signal.ITIMER_REAL, rng.uniform(2e-5, 2e-3), 1e-3)
            while True:     # until interrupted: the interrupt never lands outside the `try`
                work()
        except KeyboardInterrupt:
            _Alarm.armed = False    # first: no bytecode before it can run the handler
        signal.setitimer(signal.ITIMER_REAL, 0)
        trials += 1
        assert _state() == before, f"trial {trials}: {_state()} != {before}"
    return trials


class _Alarm:
    armed = False


def _raise_interrupt(signum, frame):
    if _Alarm.armed:
        raise KeyboardInterrupt


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
# An interrupt that lands in a weakref callback written in Python which the collector runs
# (importlib's module locks) is swallowed and reported as unraisable by CPython itself.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("user_gc, anomaly", [(True, False), (False, False), (True, True)])
def test_keyboard_interrupts_during_backward_leave_state(gc_switch, user_gc, anomaly):
    # Asynchronous KeyboardInterrupts (a signal handler, as Ctrl-C) during forward ops and
    # backward, hundreds of times at random moments: the GC switch, grad mode, anomaly mode
    # and NumPy's error state (here a non-default one) are the user's after each.
    gc_switch(user_gc)
    rng = np.random.default_rng(0)

    def make_work():
        x = torch.tensor(rng.standard_normal(6), requires_grad=True)

        def work():
            y = (x * 2.0).exp().sin() / 3.0
            g, = torch.autograd.grad(y.sum(), x, create_graph=True)
            (g * y).sum().backward()
            y.detach().mul_(0.5).add_(torch.ones(6, dtype=torch.float64))    # in-place paths
        return work
    previous = signal.signal(signal.SIGALRM, _raise_interrupt)
    try:
        with np.errstate(divide="raise", over="ignore", under="warn", invalid="print"), \
                torch.autograd.set_detect_anomaly(anomaly):
            trials = _interrupted_trials(1.5, rng, make_work)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert trials > 100
    assert gc.isenabled() is user_gc


def test_training_loop_memory_is_flat():
    # 3,000 steps of a small model: what is allocated after the first steps stays flat
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, target = torch.randn(32, 8), torch.randn(32, 1)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        return loss

    for _ in range(200):
        step()
    gc.collect()
    objects = len(gc.get_objects())
    for _ in range(1800):
        step()
    gc.collect()
    tracemalloc.start()     # traced for the last 1,000 steps only: it slows Python 3x
    try:
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            step()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    # a leak of one small tensor per step would be > 1000 * 100 bytes
    assert grown < 32 * 1024, grown
    assert len(gc.get_objects()) - objects < 100
