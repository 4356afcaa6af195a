"""chainrule.optim against torch.optim: parameter trajectories, state dicts, errors and
learning-rate schedules."""
import copy
import warnings

import numpy as np
import pytest
import torch

import chainrule

LIBS = (chainrule, torch)
TOL = {"float32": 1e-5, "float64": 1e-10}

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.01, momentum=0.8, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.02, weight_decay=0.05, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.2, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.003, momentum=0.9, centered=True)),
    ("RMSprop", dict(lr=0.005, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, eps=1e-5, maximize=True)),
]


def _id(v):
    """A test id that is the same in every xdist worker (no object addresses)."""
    if isinstance(v, dict):
        return ",".join(f"{k}={getattr(x, '__name__', x)}" for k, x in v.items())
    return str(v)


def _init_values(dtype):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(shape).astype(dtype) for shape in ((3, 4), (4,), (4, 2), ())]


def _params(lib, values):
    return [lib.tensor(v.copy(), requires_grad=True) for v in values]


def _loss(lib, params):
    """A small MLP-like loss with a quadratic penalty."""
    w1, b1, w2, s = params
    x = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3).astype(str(w1.dtype).split(".")[1]))
    h = lib.tanh(x @ w1 + b1)
    out = h @ w2
    return ((out - 0.5) ** 2).mean() + (w1 ** 2).sum() * 0.01 + (s - 1.0) ** 2


def _run(lib, name, kwargs, values, steps=10, groups=False, closure=False):
    params = _params(lib, values)
    spec = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs["lr"] / 2}] \
        if groups else params
    opt = getattr(lib.optim, name)(spec, **kwargs)

    def compute():
        opt.zero_grad()
        loss = _loss(lib, params)
        loss.backward()
        return loss

    losses = []
    for _ in range(steps):
        if closure:
            losses.append(float(opt.step(compute).detach()))
        else:
            losses.append(float(compute().detach()))
            opt.step()
    return params, opt, losses


def _assert_close(ours, theirs, rtol):
    """Equal to within rtol of each tensor's scale: an entry that cancels to near zero keeps
    the rounding error of its larger neighbours."""
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype)
        b = b.detach().numpy()
        np.testing.assert_allclose(a.detach().numpy(), b, rtol=rtol,
                                   atol=rtol * max(np.abs(b).max(initial=0.0), 1e-2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=_id)
def test_trajectory_matches_torch(name, kwargs, dtype):
    values = _init_values(dtype)
    ours, opt, _ = _run(chainrule, name, kwargs, values)
    theirs, topt, _ = _run(torch, name, kwargs, values)
    _assert_close(ours, theirs, TOL[dtype])
    for p, tp in zip(ours, theirs):
        assert p.is_leaf and p.grad_fn is None and p.requires_grad
    # the state holds the same entries with the same values
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for i, st in sd["state"].items():
        assert sorted(st) == sorted(tsd["state"][i])
        for key, v in st.items():
            _assert_close([v], [tsd["state"][i][key]], TOL[dtype])


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[1::3], ids=_id)
def test_param_groups_and_closure(name, kwargs):
    values = _init_values("float64")
    ours, _, losses = _run(chainrule, name, kwargs, values, groups=True, closure=True)
    theirs, _, tlosses = _run(torch, name, kwargs, values, groups=True, closure=True)
    _assert_close(ours, theirs, 1e-10)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-10)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[::2], ids=_id)
def test_state_dict_round_trip(name, kwargs):
    """Run 4 steps, save, load into a fresh optimizer and run 6 more: same as 10 steps."""
    values = _init_values("float64")
    full, _, _ = _run(chainrule, name, kwargs, values)
    params, opt, _ = _run(chainrule, name, kwargs, values, steps=4)
    saved = copy.deepcopy(opt.state_dict())
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    opt2 = getattr(chainrule.optim, name)(params2, **dict(kwargs, lr=123.0))
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == kwargs["lr"]
    assert opt2.param_groups[0]["params"][0] is params2[0]
    for _ in range(6):
        opt2.zero_grad()
        _loss(chainrule, params2).backward()
        opt2.step()
    _assert_close(params2, full, 1e-12)


def test_state_dict_format_and_dtype_cast():
    values = _init_values("float32")
    for lib in LIBS:
        p = _params(lib, values)
        opt = lib.optim.Adam([{"params": p[:3]}, {"params": p[3:], "lr": 0.5}])
        _loss(lib, p).backward()
        opt.step()
        sd = opt.state_dict()
        assert sd["param_groups"][0]["params"] == [0, 1, 2]
        assert sd["param_groups"][1]["params"] == [3]
        assert sorted(sd["state"]) == [0, 1, 2, 3]
        assert str(sd["state"][0]["step"].dtype) == "torch.float32"
        # loading into float64 params casts the moments but not `step`
        q = [lib.tensor(v.astype("float64"), requires_grad=True) for v in values]
        opt2 = lib.optim.Adam([{"params": q[:3]}, {"params": q[3:]}])
        opt2.load_state_dict(sd)
        assert str(opt2.state[q[0]]["exp_avg"].dtype) == "torch.float64"
        assert str(opt2.state[q[0]]["step"].dtype) == "torch.float32"
        assert opt2.param_groups[1]["lr"] == 0.5


def test_zero_grad():
    for lib in LIBS:
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        (p * p).sum().backward()
        g = p.grad
        opt.zero_grad(set_to_none=False)
        assert p.grad is g and p.grad.tolist() == [0.0, 0.0]
        opt.zero_grad()
        assert p.grad is None


def test_step_skips_params_without_grad_and_runs_under_no_grad():
    for lib in LIBS:
        p, q = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0], requires_grad=True)
        opt = lib.optim.Adam([p, q], lr=0.1)
        (p * 3).sum().backward()
        opt.step()
        assert q.tolist() == [2.0] and len(opt.state) == 1
        assert p.grad_fn is None and p.is_leaf


def test_repr():
    reprs = [repr(lib.optim.RMSprop([lib.ones(1, requires_grad=True)], lr=0.1)) for lib in LIBS]
    assert reprs[0] == reprs[1]


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _p(lib):
    return lib.ones(2, requires_grad=True)


ERRORS = [
    lambda lib: lib.optim.SGD([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.SGD([_p(lib)], lr=0.1, momentum=-0.5),
    lambda lib: lib.optim.SGD([_p(lib)], lr=0.1, weight_decay=-1e-3),
    lambda lib: lib.optim.SGD([_p(lib)], lr=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([_p(lib)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(_p(lib), lr=0.1),
    lambda lib: lib.optim.SGD([_p(lib) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([{"params": {_p(lib)}}], lr=0.1),
    lambda lib: (lambda p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(_p(lib)),
    lambda lib: (lambda p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": p}))(_p(lib)),
    lambda lib: lib.optim.SGD([_p(lib)], lr=0.1).add_param_group([_p(lib)]),
    lambda lib: lib.optim.Adam([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.Adam([_p(lib)], eps=-1.0),
    lambda lib: lib.optim.Adam([_p(lib)], betas=(1.0, 0.999)),
    lambda lib: lib.optim.Adam([_p(lib)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.Adam([_p(lib)], betas=(0, 0.9)),
    lambda lib: lib.optim.AdamW([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.RMSprop([_p(lib)], alpha=-0.1),
    lambda lib: lib.optim.RMSprop([_p(lib)], momentum=-0.1),
    lambda lib: lib.optim.RMSprop([_p(lib)], eps=-0.1),
    lambda lib: lib.optim.Adagrad([_p(lib)], lr_decay=-0.1),
    lambda lib: lib.optim.Adagrad([_p(lib)], initial_accumulator_value=-0.1),
    lambda lib: lib.optim.Adagrad([_p(lib)], eps=-0.1),
    lambda lib: lib.optim.SGD([_p(lib)]).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0, 1]}]}),
    lambda lib: lib.optim.SGD([_p(lib)]).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0]}, {"params": [1]}]}),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _error(lambda: ERRORS[i](chainrule)) == _error(lambda: ERRORS[i](torch))


def test_duplicate_parameter_warning():
    for lib in LIBS:
        p = _p(lib)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p, p], lr=0.1)


# ---- learning-rate schedulers -----------------------------------------------------------

def _lambda(epoch):
    return 0.95 ** epoch


SCHEDULERS = [
    ("SGD", "StepLR", dict(step_size=4, gamma=0.5)),
    ("SGD", "MultiStepLR", dict(milestones=[3, 7, 7, 20], gamma=0.3)),
    ("SGD", "ExponentialLR", dict(gamma=0.9)),
    ("SGD", "CosineAnnealingLR", dict(T_max=8, eta_min=0.001)),
    ("SGD", "LambdaLR", dict(lr_lambda=_lambda)),
    ("SGD", "OneCycleLR", dict(max_lr=1.0, total_steps=31)),
    ("SGD", "OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=40, anneal_strategy="linear",
                               three_phase=True, pct_start=0.25)),
    ("Adam", "OneCycleLR", dict(max_lr=0.1, epochs=4, steps_per_epoch=8)),
]


def _scheduled_run(lib, opt_name, sched_name, kwargs, steps=30):
    p = lib.ones(2, requires_grad=True)
    q = lib.ones(1, requires_grad=True)
    opt_kwargs = dict(lr=0.1, momentum=0.9) if opt_name == "SGD" else dict(lr=0.1)
    opt = getattr(lib.optim, opt_name)([{"params": [p]}, {"params": [q], "lr": 0.05}],
                                       **opt_kwargs)
    sched = getattr(lib.optim.lr_scheduler, sched_name)(opt, **kwargs)
    lrs, momenta = [sched.get_last_lr()], []
    for _ in range(steps):
        opt.zero_grad()
        (p.sum() + q.sum()).backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, momenta, [p, q], opt, sched


@pytest.mark.parametrize("opt_name,sched_name,kwargs", SCHEDULERS, ids=_id)
def test_scheduler_matches_torch(opt_name, sched_name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _scheduled_run(chainrule, opt_name, sched_name, kwargs)
        theirs = _scheduled_run(torch, opt_name, sched_name, kwargs)
    assert ours[0] == theirs[0]      # exactly: same float operations
    assert ours[1] == theirs[1]
    _assert_close(ours[2], theirs[2], 1e-5)
    sd, tsd = ours[4].state_dict(), theirs[4].state_dict()
    sd.pop("lr_lambdas", None), tsd.pop("lr_lambdas", None)
    assert sd == tsd


def _plateau_run(lib, kwargs):
    p = lib.ones(1, requires_grad=True)
    opt = lib.optim.SGD([{"params": [p]}, {"params": [lib.ones(1, requires_grad=True)],
                                           "lr": 0.5}], lr=1.0)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    metrics = [5, 4, 4, 4.5, 4.2, 4, 4, 3.9996, 4, 4, 4, 3, 3, 3, 3.5, 3, 3, 3, 2, 2,
               2, 2, 1, 2, 2, 2, 2, 2, 2, 2]
    lrs = []
    for m in metrics:
        opt.step()
        sched.step(m)
        lrs.append(sched.get_last_lr())
    return lrs, sched.state_dict()


@pytest.mark.parametrize("kwargs", [
    dict(patience=2),
    dict(mode="max", factor=0.5, patience=1, threshold_mode="abs", threshold=0.1),
    dict(factor=0.5, patience=1, cooldown=2, min_lr=[0.1, 0.2]),
    dict(factor=0.1, patience=0, min_lr=1e-3, eps=1e-2),
], ids=_id)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    (lrs, sd), (tlrs, tsd) = _plateau_run(chainrule, kwargs), _plateau_run(torch, kwargs)
    assert lrs == tlrs
    assert sd == tsd


def test_scheduler_state_dict_round_trip():
    lrs, _, _, _, sched = _scheduled_run(chainrule, "SGD", "CosineAnnealingLR",
                                         dict(T_max=8, eta_min=0.001), steps=12)
    p = chainrule.ones(1, requires_grad=True)
    opt = chainrule.optim.SGD([p], lr=0.1)
    other = chainrule.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
    other.load_state_dict(sched.state_dict())
    assert other.T_max == 8 and other.last_epoch == 12
    assert other.get_last_lr() == lrs[-1]


def _order_warnings(lib, optimizer_first):
    p = lib.ones(1, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if optimizer_first:
            opt.step()
        sched.step()
        opt.step()
        sched.step()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("optimizer_first", [False, True])
def test_scheduler_step_before_optimizer_step_warns(optimizer_first):
    ours, theirs = (_order_warnings(lib, optimizer_first) for lib in LIBS)
    assert ours == theirs
    assert len(ours) == (0 if optimizer_first else 1)


SCHEDULER_ERRORS = [
    lambda lib, opt: lib.optim.lr_scheduler.StepLR(object(), step_size=1),
    lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=1, last_epoch=3),
    lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, [_lambda, _lambda]),
    lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0),
    lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=0),
    lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5,
                                                       pct_start=1),
    lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5,
                                                       anneal_strategy="exp"),
    lambda lib, opt: lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=5),
    lambda lib, opt: (lambda s: [s.step() for _ in range(3)])(
        lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)),
    lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0),
    lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="avg"),
    lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="x"),
    lambda lib, opt: lib.optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2]),
]


@pytest.mark.parametrize("i", range(len(SCHEDULER_ERRORS)))
def test_scheduler_errors_match_torch(i):
    def make(lib):
        return lambda: SCHEDULER_ERRORS[i](lib, lib.optim.SGD([_p(lib)], lr=0.1, momentum=0.9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _error(make(chainrule)) == _error(make(torch))


def test_one_cycle_needs_momentum():
    for lib in LIBS:
        opt = lib.optim.Adagrad([_p(lib)])
        with pytest.raises(ValueError, match="must support momentum or beta1"):
            lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5)
