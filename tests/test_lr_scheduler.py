"""The rest of torch.optim.lr_scheduler against PyTorch: ConstantLR, LinearLR,
MultiplicativeLR, PolynomialLR, CyclicLR, CosineAnnealingWarmRestarts, SequentialLR and
ChainedScheduler; learning rates (exactly: the same float operations), momenta, state dicts,
warnings and errors. (The older schedulers are in tests/test_optim.py.)"""
import warnings

import numpy as np
import pytest
import torch

import chainrule

LIBS = (chainrule, torch)


def _id(v):
    # stable across processes (pytest-xdist collects in each worker): functions by name
    if callable(v):
        return getattr(v, "__name__", type(v).__name__)
    if isinstance(v, dict):
        return ",".join(f"{k}={_id(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_id(x) for x in v) + "]"
    return str(v)


def _factor(epoch):
    return 0.9 if epoch % 3 else 1.05


class _Scale:
    """A callable object: its __dict__ goes into the scheduler's state dict."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return 1.0 / (1.0 + 0.1 * x)


def _optimizer(lib, opt_name="SGD"):
    p = lib.ones(2, requires_grad=True)
    q = lib.ones(1, requires_grad=True)
    kwargs = dict(lr=0.1, momentum=0.9) if opt_name == "SGD" else dict(lr=0.1)
    return getattr(lib.optim, opt_name)([{"params": [p]}, {"params": [q], "lr": 0.05}],
                                        **kwargs)


def _make(lib, opt, name, kwargs):
    sched = getattr(lib.optim.lr_scheduler, name)
    if name in ("SequentialLR", "ChainedScheduler"):
        inner = [getattr(lib.optim.lr_scheduler, n)(opt, **k) for n, k in kwargs["schedulers"]]
        if name == "ChainedScheduler":
            return sched(inner)
        return sched(opt, schedulers=inner, milestones=kwargs["milestones"])
    if name == "CyclicLR" and kwargs.get("scale_fn") == "object":
        kwargs = dict(kwargs, scale_fn=_Scale())
    return sched(opt, **kwargs)


SCHEDULERS = [
    ("SGD", "ConstantLR", dict()),
    ("SGD", "ConstantLR", dict(factor=0.5, total_iters=7)),
    ("SGD", "LinearLR", dict()),
    ("SGD", "LinearLR", dict(start_factor=0.2, end_factor=0.7, total_iters=9)),
    ("SGD", "MultiplicativeLR", dict(lr_lambda=_factor)),
    ("SGD", "MultiplicativeLR", dict(lr_lambda=[_factor, lambda e: 0.97])),
    ("SGD", "PolynomialLR", dict()),
    ("SGD", "PolynomialLR", dict(total_iters=12, power=2.5)),
    ("SGD", "CosineAnnealingWarmRestarts", dict(T_0=5)),
    ("SGD", "CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("SGD", "CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("SGD", "CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3,
                             step_size_down=5, mode="triangular2")),
    ("SGD", "CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range",
                             gamma=0.9, base_momentum=0.7, max_momentum=0.95)),
    ("SGD", "CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4, scale_fn="object",
                             scale_mode="iterations")),
    ("Adam", "CyclicLR", dict(base_lr=0.001, max_lr=0.01, step_size_up=5)),
    ("Adagrad", "CyclicLR", dict(base_lr=0.001, max_lr=0.01, step_size_up=5,
                                 cycle_momentum=False)),
    ("SGD", "SequentialLR", dict(schedulers=[("ConstantLR", dict(factor=0.1, total_iters=2)),
                                             ("ExponentialLR", dict(gamma=0.9))],
                                 milestones=[2])),
    ("SGD", "SequentialLR", dict(schedulers=[("LinearLR", dict(start_factor=0.5)),
                                             ("StepLR", dict(step_size=3)),
                                             ("CosineAnnealingLR", dict(T_max=6))],
                                 milestones=[4, 11])),
    ("SGD", "ChainedScheduler", dict(schedulers=[("ConstantLR", dict(factor=0.1,
                                                                     total_iters=2)),
                                                 ("ExponentialLR", dict(gamma=0.9))])),
    ("SGD", "ChainedScheduler", dict(schedulers=[("LinearLR", dict(total_iters=4)),
                                                 ("PolynomialLR", dict(total_iters=8)),
                                                 ("MultiplicativeLR",
                                                  dict(lr_lambda=_factor))])),
]


def _strip(state):
    """A state dict without what only compares by identity (functions, bound methods)."""
    state = dict(state)
    state.pop("lr_lambdas", None)
    state.pop("_scale_fn_custom", None)
    if "_schedulers" in state:
        state["_schedulers"] = [_strip(s) for s in state["_schedulers"]]
    return state


def _run(lib, opt_name, name, kwargs, steps=25):
    opt = _optimizer(lib, opt_name)
    sched = _make(lib, opt, name, kwargs)
    lrs = [sched.get_last_lr()]
    momenta = [[g.get("momentum", g.get("betas")) for g in opt.param_groups]]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, momenta, sched, opt


@pytest.mark.parametrize("opt_name,name,kwargs", SCHEDULERS, ids=_id)
def test_schedule_matches_torch(opt_name, name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (lrs, momenta, sched, opt), (tlrs, tmomenta, tsched, topt) = (
            _run(lib, opt_name, name, kwargs) for lib in LIBS)
    assert lrs == tlrs
    assert momenta == tmomenta
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]
    assert opt.param_groups[0].keys() == topt.param_groups[0].keys()
    assert _strip(sched.state_dict()) == _strip(tsched.state_dict())


@pytest.mark.parametrize("opt_name,name,kwargs", SCHEDULERS[::2], ids=_id)
def test_state_dict_resumes_the_schedule(opt_name, name, kwargs):
    """Load a scheduler's state after 7 steps into a fresh one (over a fresh optimizer
    loaded likewise): the next steps are those of the first."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lrs, _, sched, opt = _run(chainrule, opt_name, name, kwargs, steps=12)
        _, _, sched7, opt7 = _run(chainrule, opt_name, name, kwargs, steps=7)
        opt2 = _optimizer(chainrule, opt_name)
        sched2 = _make(chainrule, opt2, name, kwargs)
        opt2.load_state_dict(opt7.state_dict())
        sched2.load_state_dict(sched7.state_dict())
        resumed = []
        for _ in range(5):
            opt2.step()
            sched2.step()
            resumed.append(sched2.get_last_lr())
    assert resumed == lrs[8:]


def test_callable_object_state_is_saved():
    for lib in LIBS:
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2,
                                                scale_fn=_Scale(), scale_mode="iterations")
        opt.step()
        sched.step()
        state = sched.state_dict()
        assert state["_scale_fn_custom"] == {"calls": 8}    # 2 groups, lr and momentum, 2 steps
        assert "_scale_fn_ref" not in state
        fresh = lib.optim.lr_scheduler.CyclicLR(_optimizer(lib), 0.01, 0.1,
                                                scale_fn=_Scale())
        fresh.load_state_dict(state)
        assert fresh._scale_fn_custom.calls == 8 and fresh.last_epoch == 1


def _closed_form(lib, name, kwargs, epochs):
    opt = _optimizer(lib)
    sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lrs = []
        for epoch in epochs:
            opt.step()
            sched.step(epoch)
            lrs.append(sched.get_last_lr())
    return lrs, [(w.category, str(w.message)) for w in caught], sched.state_dict()


@pytest.mark.parametrize("name,kwargs", [
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("LinearLR", dict(start_factor=0.25, total_iters=6)),
    ("PolynomialLR", dict(total_iters=6, power=2.0)),
    ("MultiplicativeLR", dict(lr_lambda=_factor)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2)),
    ("CosineAnnealingWarmRestarts", dict(T_0=4, eta_min=0.001)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3)),
], ids=_id)
def test_explicit_epochs_match_torch(name, kwargs):
    """step(epoch): the closed form where there is one, with the deprecation warning
    (CosineAnnealingWarmRestarts takes fractional epochs without one)."""
    epochs = [0.5, 1, 2.25, 3, 7, 5, 10, 0, 13.5, 40]
    if name not in ("CosineAnnealingWarmRestarts",):
        epochs = [int(e) for e in epochs]
    ours, theirs = (_closed_form(lib, name, kwargs, epochs) for lib in LIBS)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert _strip(ours[2]) == _strip(theirs[2])


def _order_warnings(lib, name, kwargs, optimizer_first):
    opt = _optimizer(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched = _make(lib, opt, name, kwargs)
        if optimizer_first:
            opt.step()
        sched.step()
        opt.step()
        sched.step()
        if not hasattr(sched, "_schedulers"):    # the composites have no get_lr
            sched.get_lr()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("optimizer_first", [False, True])
@pytest.mark.parametrize("name,kwargs", [
    ("LinearLR", dict()),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3)),
    ("SequentialLR", SCHEDULERS[16][2]),
    ("ChainedScheduler", SCHEDULERS[18][2]),
], ids=_id)
def test_warnings_match_torch(name, kwargs, optimizer_first):
    """scheduler.step() before optimizer.step(), and get_lr() called outside step."""
    assert _order_warnings(chainrule, name, kwargs, optimizer_first) == \
        _order_warnings(torch, name, kwargs, optimizer_first)


def test_overridden_optimizer_step_warns():
    results = []
    for lib in LIBS:
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.PolynomialLR(opt)
        opt.step = lambda: None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        results.append([str(w.message) for w in caught])
    assert results[0] == results[1] and "overridden" in results[0][0]


def test_tensor_lr_is_updated_in_place():
    results = []
    for lib in LIBS:
        p = lib.ones(2, requires_grad=True)
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.5)
        for _ in range(3):
            opt.step()
            sched.step()
        assert opt.param_groups[0]["lr"] is lr
        assert isinstance(sched.get_last_lr()[0], lib.Tensor)
        assert sched.get_last_lr()[0] is not lr
        results.append((float(lr), float(opt.param_groups[0]["initial_lr"])))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-7)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


ERRORS = [
    lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=1.5),
    lambda lib, opt: lib.optim.lr_scheduler.ConstantLR(opt, factor=-0.1),
    lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, start_factor=0),
    lambda lib, opt: lib.optim.lr_scheduler.LinearLR(opt, end_factor=1.5),
    lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(opt, [_factor]),
    lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(opt, [_factor, 0.5]),
    lambda lib, opt: lib.optim.lr_scheduler.MultiplicativeLR(object(), _factor),
    lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0),
    lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2.0),
    lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, T_mult=0),
    lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2, eta_min="0"),
    lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 2).step(-1),
    lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="sawtooth"),
    lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(opt, [0.01], 0.1),
    lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(object(), 0.01, 0.1),
    lambda lib, opt: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad([lib.ones(1, requires_grad=True)]), 0.01, 0.1),
    lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(opt, [], []),
    lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.ConstantLR(opt)], [3]),
    lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(opt, [object()], []),
    lambda lib, opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.ReduceLROnPlateau(opt)], []),
    lambda lib, opt: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib, opt: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(opt), lib.optim.lr_scheduler.ReduceLROnPlateau(opt)]),
    lambda lib, opt: lib.optim.lr_scheduler.PolynomialLR(opt, last_epoch=2),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(lambda: ERRORS[i](chainrule, _optimizer(chainrule))) == \
            _error(lambda: ERRORS[i](torch, _optimizer(torch)))


def test_schedulers_of_another_optimizer_are_refused():
    messages = []
    for lib in LIBS:
        opt, other = _optimizer(lib), _optimizer(lib)
        inner = lib.optim.lr_scheduler.ConstantLR(other)
        for make in (lambda: lib.optim.lr_scheduler.SequentialLR(opt, [inner], []),
                     lambda: lib.optim.lr_scheduler.ChainedScheduler([inner], opt)):
            with pytest.raises(ValueError) as info:
                make()
            # the message shows the optimizer's repr, which holds no object address
            messages.append(str(info.value))
    assert messages[:2] == messages[2:]


def test_lr_scheduler_base_and_deprecation_text():
    assert chainrule.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING == \
        torch.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING
    assert issubclass(chainrule.optim.lr_scheduler.SequentialLR,
                      chainrule.optim.lr_scheduler.LRScheduler)
    assert chainrule.optim.lr_scheduler.Optimizer is chainrule.optim.Optimizer
    # the helpers PyTorch's module imports are there too, the same objects
    for name in ("Counter", "bisect_right", "partial", "wraps", "ref", "math", "types"):
        assert getattr(chainrule.optim.lr_scheduler, name) is \
            getattr(torch.optim.lr_scheduler, name)
