"""The rest of torch.optim against PyTorch: ASGD, Adadelta, Adafactor, Adamax, LBFGS, Muon,
NAdam, RAdam, Rprop, SparseAdam and swap_in_optimizer_params_and_state. Parameters are
compared after every step of the same seeded training loop, then the state dicts, reprs,
errors and the differentiable steps."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import chainrule

LIBS = (chainrule, torch)
TOL = {"float32": 2e-5, "float64": 1e-11}

OPTIMIZERS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.3, maximize=True, foreach=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adamax", dict(lr=0.02, maximize=True, foreach=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.03, t0=3, maximize=True, foreach=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("NAdam", dict(lr=0.02, foreach=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.02, betas=(0.9, 0.99), foreach=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.02, maximize=True, foreach=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5,
                       weight_decay=0.1)),
    ("Adafactor", dict(lr=0.02, eps=(None, 1e-3), maximize=True, foreach=True)),
]


def _id(v):
    """A test id that is the same in every xdist worker (no object addresses)."""
    if isinstance(v, dict):
        return ",".join(f"{k}={getattr(x, '__name__', x)}" for k, x in v.items())
    return str(v)


def _init_values(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for shape in ((3, 5), (5,), (5, 2), ())]


def _params(lib, values):
    return [lib.tensor(v.copy(), requires_grad=True) for v in values]


def _loss(lib, params):
    """A small MLP with a quadratic penalty; the scalar parameter sees a gradient whose sign
    flips (for Rprop)."""
    w1, b1, w2, s = params
    dtype = str(w1.dtype).split(".")[1]
    x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype))
    out = lib.tanh(x @ w1 + b1) @ w2
    return ((out - 0.5) ** 2).mean() + (w1 ** 2).sum() * 0.01 + lib.cos(3 * s)


def _compute(lib, opt, params):
    opt.zero_grad()
    loss = _loss(lib, params)
    loss.backward()
    return loss


def _assert_close(ours, theirs, rtol, scale=1e-2):
    """Equal to within rtol of each tensor's scale (at least `scale`): an entry that cancels
    to near zero keeps the rounding error of its larger neighbours."""
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        b = b.detach().numpy()
        np.testing.assert_allclose(a.detach().numpy(), b, rtol=rtol,
                                   atol=rtol * max(np.abs(b).max(initial=0.0), scale))


def _assert_state_close(sd, tsd, rtol):
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for i, st in sd["state"].items():
        tst = tsd["state"][i]
        assert list(st) == list(tst)
        for key, v in st.items():
            if isinstance(tst[key], torch.Tensor):
                _assert_close([v], [tst[key]], rtol)
            else:
                assert v == tst[key]


def _trajectories(name, kwargs, dtype, steps=20, groups=False):
    """Run both libraries side by side and compare the parameters after every step."""
    values = _init_values(dtype)
    runs = []
    for lib in LIBS:
        params = _params(lib, values)
        spec = [{"params": params[:2]}, {"params": params[2:], "lr": kwargs.get("lr", 1.0)}] \
            if groups else params
        runs.append((params, getattr(lib.optim, name)(spec, **kwargs)))
    (ours, opt), (theirs, topt) = runs
    # chainrule's foreach path is the single-tensor one; PyTorch's rounds in other places
    # (ASGD's foreach path even computes eta in the step's float32)
    rtol = 1e-7 if kwargs.get("foreach") and dtype == "float64" else TOL[dtype]
    for _ in range(steps):
        for lib, (params, o) in zip(LIBS, runs):
            _compute(lib, o, params)
            o.step()
        _assert_close(ours, theirs, rtol)
    return opt, topt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=_id)
def test_trajectory_matches_torch(name, kwargs, dtype):
    opt, topt = _trajectories(name, kwargs, dtype)
    rtol = 1e-7 if kwargs.get("foreach") and dtype == "float64" else TOL[dtype]
    _assert_state_close(opt.state_dict(), topt.state_dict(), rtol)
    for st in opt.state.values():
        assert str(st["step"].dtype) == "torch.float32" and st["step"].dim() == 0


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[::3], ids=_id)
def test_param_groups_defaults_and_repr(name, kwargs):
    opt, topt = _trajectories(name, kwargs, "float64", steps=3, groups=True)
    assert opt.param_groups[1].keys() == topt.param_groups[1].keys()
    assert opt.defaults == topt.defaults
    assert repr(opt) == repr(topt)
    _assert_state_close(opt.state_dict(), topt.state_dict(), TOL["float64"])


def test_step_dtype_follows_the_default_dtype():
    for lib in LIBS:
        lib.set_default_dtype(lib.float64)
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        opt = lib.optim.NAdam([p])
        opt.step()
        assert str(opt.state[p]["step"].dtype) == "torch.float64"
        assert str(opt.state[p]["mu_product"].dtype) == "torch.float64"
        lib.set_default_dtype(lib.float32)


def _round_trip(lib, name, kwargs):
    """4 steps, save, pickle, load into a fresh optimizer over copies of the parameters, 6
    more steps (loading casts the floating state but `step` to the parameters' dtype)."""
    params = _params(lib, _init_values("float64"))
    opt = getattr(lib.optim, name)(params, **kwargs)
    for _ in range(4):
        _compute(lib, opt, params)
        opt.step()
    saved = pickle.loads(pickle.dumps(opt.state_dict()))
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    opt2 = getattr(lib.optim, name)(params2, **dict(kwargs, lr=123.0))
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == kwargs.get("lr", opt.defaults["lr"])
    for _ in range(6):
        _compute(lib, opt2, params2)
        opt2.step()
    return params2, opt2.state_dict()


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[1::3], ids=_id)
def test_state_dict_round_trip(name, kwargs):
    (params, sd), (tparams, tsd) = (_round_trip(lib, name, kwargs) for lib in LIBS)
    _assert_close(params, tparams, TOL["float64"])
    _assert_state_close(sd, tsd, TOL["float64"])


def test_setstate_turns_old_numeric_state_into_tensors():
    """Old pickles kept `step` (and ASGD's eta / mu, NAdam's mu_product) as numbers and
    lacked the newer options."""
    for name, keys in [("ASGD", ("step", "eta", "mu")), ("NAdam", ("step", "mu_product")),
                       ("Rprop", ("step",))]:
        results = []
        for lib in LIBS:
            p = lib.ones(2, requires_grad=True)
            p.grad = lib.ones(2)
            opt = getattr(lib.optim, name)([p])
            opt.step()
            state = {"defaults": opt.defaults, "state": opt.state,
                     "param_groups": opt.param_groups}
            for key in keys:
                state["state"][p][key] = float(state["state"][p][key])
            del state["param_groups"][0]["foreach"], state["param_groups"][0]["maximize"]
            opt.__setstate__(state)
            results.append([(str(opt.state[p][k].dtype), float(opt.state[p][k])) for k in keys]
                           + [opt.param_groups[0]["foreach"], opt.param_groups[0]["maximize"]])
        assert results[0] == results[1]


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "Rprop",
                                  "Adam", "AdamW", "RMSprop", "Adagrad", "SGD"])
def test_complex_parameters_match_torch(name):
    rng = np.random.default_rng(1)
    values = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    results = []
    for lib in LIBS:
        p = lib.tensor(values.copy(), requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=0.05)
        for _ in range(5):
            opt.zero_grad()
            (p.abs() ** 3).sum().backward()
            opt.step()
        results.append((p, opt.state[p]))
    (p, st), (tp, tst) = results
    _assert_close([p], [tp], 1e-10)
    _assert_close([st[k] for k in tst], list(tst.values()), 1e-10)


# ---- differentiable steps -------------------------------------------------------------------

def _differentiable_step(lib, name, kwargs, steps):
    """PyTorch's differentiable-optimizer check: a non-leaf parameter and a gradient that
    requires grad; the derivatives of the stepped parameter reach both leaves."""
    rng = np.random.default_rng(2)
    w = lib.tensor(rng.standard_normal(4), requires_grad=True)
    g = lib.tensor(rng.standard_normal(4), requires_grad=True)
    p = w.clone()
    opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
    for k in range(steps):
        p.grad = g * (k + 1)
        opt.step()
    out = (p * lib.arange(1.0, 5.0, dtype=lib.float64)).sum()
    return p, lib.autograd.grad(out, (w, g))


@pytest.mark.parametrize("steps", [1, 2])
@pytest.mark.parametrize("name,kwargs", [
    ("Adadelta", dict(lr=0.5, weight_decay=0.1)),
    ("Adamax", dict(lr=0.1, weight_decay=0.1)),
    ("ASGD", dict(lr=0.1, t0=1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.1, betas=(0.5, 0.6), weight_decay=0.1)),
    ("Rprop", dict(lr=0.1)),
], ids=_id)
def test_differentiable_step_matches_torch(name, kwargs, steps):
    try:
        tp, tgrads = _differentiable_step(torch, name, kwargs, steps)
    except RuntimeError as e:
        if "modified by an inplace operation" in str(e):
            # a second step overwrites in place what the first one's backward needs (which
            # saved tensor is checked first differs)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                _differentiable_step(chainrule, name, kwargs, steps)
        else:    # e.g. SGD's first momentum buffer is a detached copy of the gradient
            assert _error(lambda: _differentiable_step(chainrule, name, kwargs, steps)) == \
                (type(e), str(e))
        return
    p, grads = _differentiable_step(chainrule, name, kwargs, steps)
    _assert_close([p], [tp], 1e-10)
    assert _node_names(p.grad_fn) == _node_names(tp.grad_fn) != []
    _assert_close(grads, tgrads, 1e-10)


def _node_names(fn, depth=3):
    """The names of a node and of its inputs' nodes, `depth` levels deep."""
    if fn is None or depth == 0:
        return []
    return [type(fn).__name__] + [_node_names(f, depth - 1) for f, _ in fn.next_functions]


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _p(lib):
    return lib.ones(2, requires_grad=True)


def _stepped(lib, name, **kwargs):
    p = _p(lib)
    p.grad = lib.ones(2)
    opt = getattr(lib.optim, name)([p], **kwargs)
    try:
        opt.step()
    finally:
        # PyTorch initializes the state before refusing
        assert len(opt.state[p]) > 0


ERRORS = [
    lambda lib: lib.optim.Adadelta([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.Adadelta([_p(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.Adadelta([_p(lib)], rho=1.5),
    lambda lib: lib.optim.Adadelta([_p(lib)], eps=-1.0),
    lambda lib: lib.optim.Adadelta([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.Adamax([_p(lib)], lr=-0.5),
    lambda lib: lib.optim.Adamax([_p(lib)], eps=-1.0),
    lambda lib: lib.optim.Adamax([_p(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adamax([_p(lib)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.Adamax([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.ASGD([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.ASGD([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.NAdam([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.NAdam([_p(lib)], eps=-1.0),
    lambda lib: lib.optim.NAdam([_p(lib)], betas=(0.9, 1.0)),
    lambda lib: lib.optim.NAdam([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.NAdam([_p(lib)], momentum_decay=-1.0),
    lambda lib: lib.optim.RAdam([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.RAdam([_p(lib)], eps=-1.0),
    lambda lib: lib.optim.RAdam([_p(lib)], betas=(-0.1, 0.9)),
    lambda lib: lib.optim.RAdam([_p(lib)], weight_decay=-1.0),
    lambda lib: lib.optim.Rprop([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.Rprop([_p(lib)], etas=(1.5, 1.2)),
    lambda lib: lib.optim.Rprop([_p(lib)], etas=(0.5, 0.9)),
]
for _name in ["Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "Rprop"]:
    ERRORS += [
        # a differentiable step on a leaf that requires grad writes it in place
        lambda lib, n=_name: _stepped(lib, n, differentiable=True),
        lambda lib, n=_name: _stepped(lib, n, capturable=True),
        lambda lib, n=_name: _stepped(lib, n, capturable=True, foreach=True),
        lambda lib, n=_name: _stepped(lib, n, differentiable=True, foreach=True),
    ]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    assert _error(lambda: ERRORS[i](chainrule)) == _error(lambda: ERRORS[i](torch))


def test_tensor_lr():
    """A 1-element tensor lr works as its value."""
    results = []
    for lib in LIBS:
        params = _params(lib, _init_values("float64"))
        opt = lib.optim.Adadelta(params, lr=lib.tensor([0.5], dtype=lib.float64))
        for _ in range(3):
            _compute(lib, opt, params)
            opt.step()
        results.append(params)
    _assert_close(*results, 1e-12)


# ---- LBFGS --------------------------------------------------------------------------------

def _compare_values(a, b, rtol):
    """Tensors, numbers, None and lists of them (LBFGS's state) as PyTorch's."""
    if isinstance(b, torch.Tensor):
        _assert_close([a], [b], rtol, scale=1.0)
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _compare_values(x, y, rtol)
    elif isinstance(b, float):
        np.testing.assert_allclose(float(a), b, rtol=rtol)
    else:
        assert a == b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(lr=0.5, max_iter=5, history_size=3),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.8, max_iter=4, max_eval=7, history_size=2, line_search_fn="strong_wolfe"),
    dict(max_iter=50, tolerance_grad=1e-3, tolerance_change=1e-4),
], ids=_id)
def test_lbfgs_matches_torch(kwargs, dtype):
    values = _init_values(dtype)
    runs = []
    for lib in LIBS:
        params = _params(lib, values)
        runs.append((params, lib.optim.LBFGS(params, **kwargs)))
    # dozens of iterations into a converging run, rounding differences grow: compared on
    # the parameters' scale (about 1); in float32 a one-ulp difference of a gradient (the
    # matmul's or tanh's backward) moves the default run's second step by 1e-2 before the
    # third converges again (float64 checks the algorithm closely)
    rtol = {"float32": 2e-2, "float64": 1e-8}[dtype]
    for _ in range(3):
        losses = []
        for lib, (params, opt) in zip(LIBS, runs):
            losses.append(opt.step(lambda: _compute(lib, opt, params)))
        _assert_close(runs[0][0], runs[1][0], rtol, scale=1.0)
        _assert_close(losses[:1], losses[1:], rtol, scale=1.0)
    (_, opt), (_, topt) = runs
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert list(sd["state"]) == list(tsd["state"]) == [0]
    assert list(sd["state"][0]) == list(tsd["state"][0])
    assert repr(opt) == repr(topt)
    if dtype == "float32":
        return      # rounding can move a stopping test by one evaluation, and the state with it
    for key, value in tsd["state"][0].items():
        _compare_values(sd["state"][0][key], value, rtol)


LBFGS_ERRORS = [
    lambda lib: lib.optim.LBFGS([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.LBFGS([{"params": [_p(lib)]}, {"params": [_p(lib)]}]),
    lambda lib: (lambda p: lib.optim.LBFGS([p], line_search_fn="armijo").step(
        lambda: (p * p).sum().backward() or (p * p).sum()))(_p(lib)),
    lambda lib: lib.optim.LBFGS([_p(lib)]).step(),
]


@pytest.mark.parametrize("i", range(len(LBFGS_ERRORS)))
def test_lbfgs_errors_match_torch(i):
    assert _error(lambda: LBFGS_ERRORS[i](chainrule)) == _error(lambda: LBFGS_ERRORS[i](torch))


def test_lbfgs_complex_parameters_match_torch():
    results = []
    for lib in LIBS:
        p = lib.tensor(np.array([1 + 2j, -0.5 + 1j]), requires_grad=True)
        opt = lib.optim.LBFGS([p], line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = (p.abs() ** 2 + (p.real - 1) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        results.append(p)
    _assert_close(results[:1], results[1:], 1e-12)


def test_lbfgs_stops_at_once_on_a_zero_gradient():
    for lib in LIBS:
        p = lib.zeros(3, requires_grad=True)
        opt = lib.optim.LBFGS([p])
        calls = []

        def closure():
            calls.append(1)
            opt.zero_grad()
            loss = (p ** 2).sum()
            loss.backward()
            return loss

        assert float(opt.step(closure).detach()) == 0.0 and len(calls) == 1
        assert opt.state[p] == {"func_evals": 1, "n_iter": 0}


# ---- swa_utils ------------------------------------------------------------------------------

def _model(lib):
    """Linear, BatchNorm1d, ReLU, Linear with the same seeded weights in both libraries."""
    gen = torch.Generator().manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                 torch.nn.ReLU(), torch.nn.Linear(4, 2)).double()
    with torch.no_grad():
        for p in tmodel.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64))
    if lib is torch:
        return tmodel
    model = chainrule.nn.Sequential(chainrule.nn.Linear(3, 4), chainrule.nn.BatchNorm1d(4),
                                    chainrule.nn.ReLU(), chainrule.nn.Linear(4, 2)).double()
    model.load_state_dict({k: chainrule.tensor(v.numpy().copy())
                           for k, v in tmodel.state_dict().items()})
    return model


def _batches(lib, n=4):
    rng = np.random.default_rng(3)
    return [(lib.tensor(rng.standard_normal((6, 3))), lib.tensor(rng.standard_normal((6, 2))))
            for _ in range(n)]


def _averaging(lib, make_averaged, steps=5):
    model = _model(lib)
    averaged = make_averaged(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for x, y in _batches(lib, steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        averaged.update_parameters(model)
    out = averaged(_batches(lib, 1)[0][0])
    return averaged.state_dict(), out, averaged


@pytest.mark.parametrize("make_averaged", [
    lambda lib, m: lib.optim.swa_utils.AveragedModel(m),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(m, use_buffers=True),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, avg_fn=lib.optim.swa_utils.get_swa_avg_fn()),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.9)),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.8), use_buffers=True),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    lambda lib, m: lib.optim.swa_utils.AveragedModel(m, device="cpu"),
], ids=["swa", "swa_buffers", "swa_avg_fn", "ema_avg_fn", "ema_multi", "swa_multi", "device"])
def test_averaged_model_matches_torch(make_averaged):
    (sd, out, averaged), (tsd, tout, taveraged) = (_averaging(lib, make_averaged)
                                                  for lib in LIBS)
    assert list(sd) == list(tsd)
    for key in tsd:
        assert str(sd[key].dtype) == str(tsd[key].dtype), key
        _assert_close([sd[key]], [tsd[key]], 1e-12)
    _assert_close([out], [tout], 1e-12)
    assert int(averaged.n_averaged) == int(taveraged.n_averaged) == 5
    assert averaged.module is not None and repr(averaged) == repr(taveraged)


def _outcome(fn):
    try:
        return fn()
    except Exception as e:    # noqa: BLE001  (the same error on both sides)
        return type(e), str(e)


@pytest.mark.parametrize("case", range(4))
def test_multi_avg_fns_on_integer_tensors(case):
    """The non-floating fallbacks: EMA through copy_, the running mean through addcdiv_ (a
    tensor count) or add_ (a number); PyTorch refuses some on integers, and so must we."""
    def run(lib):
        swa = lib.optim.swa_utils
        avg, cur = [lib.tensor([4, 8])], [lib.tensor([8, 0])]
        fn, count = [(swa.get_ema_multi_avg_fn(0.5), 1), (swa.get_swa_multi_avg_fn(), 1),
                     (swa.get_swa_multi_avg_fn(), lib.tensor(3)),
                     (swa.get_swa_multi_avg_fn(), 0)][case]
        fn(avg, cur, count)
        return avg[0].tolist()
    assert _outcome(lambda: run(chainrule)) == _outcome(lambda: run(torch))


def test_update_bn_matches_torch():
    results = []
    for lib in LIBS:
        model = _model(lib)
        model.eval()
        bn = model[1]
        bn.momentum = 0.3
        loader = [x for x, _ in _batches(lib)] + [(x,) for x, _ in _batches(lib, 2)]
        lib.optim.swa_utils.update_bn(loader, model, device="cpu")
        assert not model.training and bn.momentum == 0.3
        results.append((bn.running_mean, bn.running_var, bn.num_batches_tracked))
    _assert_close(results[0], results[1], 1e-12)
    plain = chainrule.nn.Linear(2, 2)
    assert chainrule.optim.swa_utils.update_bn([chainrule.ones(1, 2)], plain) is None


def _swalr(lib, kwargs, steps=14):
    opt = lib.optim.SGD([{"params": [lib.ones(1, requires_grad=True)]},
                         {"params": [lib.ones(1, requires_grad=True)], "lr": 0.2}], lr=0.5)
    sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
    lrs = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    state = sched.state_dict()
    fresh = lib.optim.swa_utils.SWALR(opt, swa_lr=1.0, anneal_strategy="cos")
    fresh.load_state_dict(state)
    return lrs, state, fresh.anneal_func(0.5)


@pytest.mark.parametrize("kwargs", [
    dict(swa_lr=0.05),
    dict(swa_lr=[0.01, 0.3], anneal_epochs=4, anneal_strategy="linear"),
    dict(swa_lr=0.05, anneal_epochs=0),
    dict(swa_lr=0.5, anneal_epochs=3),
], ids=_id)
def test_swalr_matches_torch(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = (_swalr(lib, kwargs) for lib in LIBS)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1] and "anneal_func" not in ours[1]
    assert ours[2] == theirs[2]


SWA_ERRORS = [
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(1.5),
    lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1),
    lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(1, 1), avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_p(lib)]), 0.1,
                                          anneal_strategy="exp"),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_p(lib)]), 0.1, anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_p(lib)]), 0.1, anneal_epochs=2.0),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_p(lib)]), [0.1, 0.2]),
    lambda lib: lib.optim.swa_utils.SWALR(object(), 0.1),
]


@pytest.mark.parametrize("i", range(len(SWA_ERRORS)))
def test_swa_errors_match_torch(i):
    assert _error(lambda: SWA_ERRORS[i](chainrule)) == _error(lambda: SWA_ERRORS[i](torch))


def test_swalr_get_lr_outside_step_warns():
    for lib in LIBS:
        sched = lib.optim.swa_utils.SWALR(lib.optim.SGD([_p(lib)], lr=0.1), 0.05)
        with pytest.warns(UserWarning, match="get_last_lr"):
            sched.get_lr()


# ---- swap_in_optimizer_params_and_state ---------------------------------------------------

def _swap_in(lib):
    values = _init_values("float64")
    params = _params(lib, values)
    opt = lib.optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.05}], lr=0.01)
    for _ in range(2):
        _compute(lib, opt, params)
        opt.step()
    other = _params(lib, _init_values("float64", seed=5))
    _compute(lib, opt, other)
    saved = copy.deepcopy(opt.state_dict())
    saved["param_groups"][1]["lr"] = 0.2
    names = {f"p{i}": p for i, p in enumerate(other)}
    live_groups = [dict(g) for g in opt.param_groups]
    with lib.optim.swap_in_optimizer_params_and_state(opt, names, saved):
        assert opt.param_groups[0]["params"][0] is other[0]
        assert opt.param_groups[1]["lr"] == 0.2
        opt.step()
        inside = {i: dict(st) for i, st in enumerate(opt.state.values())}
    assert [dict(g) for g in opt.param_groups] == live_groups
    assert all(opt.state[p]["step"].item() == 2 for p in params)
    return other, saved, inside


def test_swap_in_optimizer_params_and_state_matches_torch():
    (other, saved, inside), (tother, tsaved, tinside) = (_swap_in(lib) for lib in LIBS)
    _assert_close(other, tother, 1e-12)
    # the swapped-in state's tensors were updated in place, its dicts left alone
    _assert_state_close(saved, tsaved, 1e-12)
    assert saved["state"][0]["step"].item() == 3
    for i in tinside:
        _assert_close(list(inside[i].values()), list(tinside[i].values()), 1e-12)


def _swap_error(lib, change):
    p = _p(lib)
    opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = lib.ones(2)
    if change != "uninitialized":
        opt.step()
    saved = opt.state_dict()
    params = {"p": _p(lib)}
    if change == "not a dict":
        saved = [saved]
    elif change == "state list":
        saved["state"] = []
    elif change == "tensor keys":
        saved["state"] = {p: {}}
    elif change == "state entry":
        saved["state"] = {0: 1.0}
    elif change == "groups tuple":
        saved["param_groups"] = tuple(saved["param_groups"])
    elif change == "two groups":
        saved["param_groups"] = saved["param_groups"] * 2
    elif change == "group list":
        saved["param_groups"] = [[]]
    elif change == "names":
        saved["param_groups"][0]["params"] = ["p"]
    elif change == "count":
        saved["param_groups"][0]["params"] = [0, 1]
    elif change == "keys":
        saved["param_groups"][0]["extra"] = 1
        del saved["param_groups"][0]["nesterov"]
    elif change == "too few":
        params = {}
    elif change == "extra state":
        saved["state"][7] = {}
    with lib.optim.swap_in_optimizer_params_and_state(opt, params, saved):
        pass


@pytest.mark.parametrize("change", [
    "uninitialized", "not a dict", "state list", "tensor keys", "state entry", "groups tuple",
    "two groups", "group list", "names", "count", "keys", "too few", "extra state"])
def test_swap_in_errors_match_torch(change):
    assert _error(lambda: _swap_error(chainrule, change)) == \
        _error(lambda: _swap_error(torch, change))


# ---- Muon and SparseAdam --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(lr=0.02, weight_decay=0.05, momentum=0.9, nesterov=False),
    dict(lr=0.01, ns_steps=3, adjust_lr_fn="match_rms_adamw"),
    dict(lr=0.01, ns_coefficients=(3.0, -3.2, 1.2), eps=1e-5, adjust_lr_fn="original"),
], ids=_id)
def test_muon_matches_torch(kwargs, dtype):
    """Muon on the two weight matrices (the Newton-Schulz iteration runs in bfloat16, as
    PyTorch's, so the steps match to its rounding only where it is bit-identical)."""
    values = _init_values(dtype)
    runs = []
    for lib in LIBS:
        params = _params(lib, values)
        runs.append((params, lib.optim.Muon([params[0], params[2]], **kwargs)))
    for _ in range(10):
        for lib, (params, opt) in zip(LIBS, runs):
            _compute(lib, opt, params)
            opt.step()
        _assert_close(runs[0][0], runs[1][0], TOL[dtype])
    (_, opt), (_, topt) = runs
    _assert_state_close(opt.state_dict(), topt.state_dict(), TOL[dtype])
    assert repr(opt) == repr(topt)


def test_muon_orthogonalizes_a_tall_matrix():
    results = []
    for lib in LIBS:
        p = lib.tensor(np.arange(12.0).reshape(4, 3) / 10, requires_grad=True)
        p.grad = lib.tensor(np.cos(np.arange(12.0)).reshape(4, 3))
        lib.optim.Muon([p], lr=0.1).step()
        results.append(p)
    _assert_close(results[:1], results[1:], 1e-12)


MUON_ERRORS = [
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], lr=-1.0),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], lr=lib.tensor([1., 2.])),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], momentum=-0.1),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], weight_decay=-0.1),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True)], adjust_lr_fn="rms"),
    lambda lib: lib.optim.Muon([lib.ones(2, 2, requires_grad=True), _p(lib)]),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, 2)),
                            lib.optim.Muon([p], ns_steps=100).step()))(
        lib.ones(2, 2, requires_grad=True)),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, 2)),
                            lib.optim.Muon([p], ns_coefficients=(1.0, 2.0)).step()))(
        lib.ones(2, 2, requires_grad=True)),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, 2, dtype=lib.complex64)),
                            lib.optim.Muon([p]).step()))(
        lib.ones(2, 2, dtype=lib.complex64, requires_grad=True)),
    lambda lib: lib.optim.Adafactor([_p(lib)], lr=-1.0),
    lambda lib: lib.optim.Adafactor([_p(lib)], lr=lib.tensor([1.0, 2.0])),
    lambda lib: lib.optim.Adafactor([_p(lib)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([_p(lib)], eps=(-1.0, 1e-3)),
    lambda lib: lib.optim.Adafactor([_p(lib)], eps=(None, -1e-3)),
    lambda lib: lib.optim.Adafactor([_p(lib)], d=0.5),
    lambda lib: lib.optim.Adafactor([_p(lib)], weight_decay=-0.5),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, dtype=lib.complex64)),
                            lib.optim.Adafactor([p]).step()))(
        lib.ones(2, dtype=lib.complex64, requires_grad=True)),
    lambda lib: lib.optim.SparseAdam([_p(lib)], lr=0.0),
    lambda lib: lib.optim.SparseAdam([_p(lib)], lr=lib.tensor([1.0, 2.0])),
    lambda lib: lib.optim.SparseAdam([_p(lib)], eps=0.0),
    lambda lib: lib.optim.SparseAdam([_p(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.SparseAdam([_p(lib)], betas=(0.9, 1.0)),
    lambda lib: lib.optim.SparseAdam([_p(lib), lib.ones(2, dtype=lib.complex64,
                                                        requires_grad=True)]),
    # a dense gradient: PyTorch's SparseAdam refuses it (chainrule has no other kind)
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2)),
                            lib.optim.SparseAdam([p]).step()))(_p(lib)),
]


@pytest.mark.parametrize("i", range(len(MUON_ERRORS)))
def test_muon_adafactor_sparse_adam_errors_match_torch(i):
    assert _error(lambda: MUON_ERRORS[i](chainrule)) == _error(lambda: MUON_ERRORS[i](torch))


def test_sparse_adam_without_gradients_and_its_options():
    results = []
    for lib in LIBS:
        p = _p(lib)
        opt = lib.optim.SparseAdam([p], lr=0.1, maximize=True)
        assert float(opt.step(lambda: lib.tensor(2.0))) == 2.0
        assert p.tolist() == [1.0, 1.0] and len(opt.state) == 0
        results.append((repr(opt), opt.state_dict()))
    assert results[0] == results[1]


# ---- the state-dict hooks of every optimizer ----------------------------------------------

def _hooked(lib):
    calls = []
    p = _p(lib)
    p.grad = lib.ones(2)
    opt = lib.optim.NAdam([p], lr=0.1)
    opt.step()
    h1 = opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre first"), prepend=True)
    opt.register_state_dict_post_hook(
        lambda o, sd: calls.append(("post", sorted(sd))) or dict(sd, extra=1))
    opt.register_state_dict_post_hook(lambda o, sd: calls.append(("post2", sd["extra"])))
    saved = opt.state_dict()
    h1.remove()
    opt.state_dict()

    def load_pre(o, sd):
        calls.append(("load pre", sd.pop("extra")))
        sd = dict(sd)
        sd["param_groups"] = [dict(sd["param_groups"][0], lr=0.5)]
        return sd

    opt.register_load_state_dict_pre_hook(load_pre)
    opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append("load pre first"),
                                          prepend=True)
    opt.register_load_state_dict_post_hook(
        lambda o: calls.append(("load post", o.param_groups[0]["lr"])))
    opt.register_load_state_dict_post_hook(lambda o: calls.append("load post first"),
                                           prepend=True)
    opt.load_state_dict(saved)
    # a pickled optimizer keeps no hooks, and loads without them
    clone = pickle.loads(pickle.dumps(opt))
    clone.load_state_dict(clone.state_dict())
    return calls, "extra" in saved, clone.param_groups[0]["lr"]


def test_state_dict_hooks_match_torch():
    ours, theirs = _hooked(chainrule), _hooked(torch)
    assert ours == theirs
    assert ours[0][:4] == ["pre first", "pre", ("post", ["param_groups", "state"]),
                           ("post2", 1)]


# ---- the options of Adam, AdamW, SGD, RMSprop and Adagrad ----------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", [
    ("Adam", dict(lr=0.01, foreach=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, fused=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, fused=True, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, fused=True)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.1, foreach=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, foreach=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, fused=True)),
    ("Adagrad", dict(lr=0.1, foreach=True, maximize=True)),
], ids=_id)
def test_foreach_and_fused_match_torch(name, kwargs, dtype):
    """Fused and foreach steps (PyTorch's CPU kernels) equal the single-tensor one up to
    rounding; the fused step counters are float32 even under a float64 default dtype."""
    opt, topt = _trajectories(name, kwargs, dtype)
    rtol = 1e-7 if dtype == "float64" else TOL[dtype]
    _assert_state_close(opt.state_dict(), topt.state_dict(), rtol)
    assert repr(opt) == repr(topt)
    if kwargs.get("fused") and name != "SGD":
        results = []
        for lib in LIBS:
            lib.set_default_dtype(lib.float64)
            p = lib.ones(2, requires_grad=True)
            p.grad = lib.ones(2)
            o = getattr(lib.optim, name)([p], fused=True)
            o.step()
            results.append(str(o.state[p]["step"].dtype))
            lib.set_default_dtype(lib.float32)
        assert results == ["torch.float32"] * 2


@pytest.mark.parametrize("steps", [1, 2])
@pytest.mark.parametrize("name,kwargs", [
    ("Adam", dict(lr=0.1, weight_decay=0.1)),
    ("Adam", dict(lr=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.1, amsgrad=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.1, centered=True, momentum=0.5)),
    ("RMSprop", dict(lr=0.1, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1)),
], ids=_id)
def test_differentiable_steps_of_the_first_optimizers(name, kwargs, steps):
    test_differentiable_step_matches_torch(name, kwargs, steps)


def test_sgd_learned_lr_and_weight_decay():
    """Tensors that require grad as SGD's lr and weight decay (hypergradients): the step
    keeps their graph."""
    results = []
    for lib in LIBS:
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        lr = lib.tensor(0.1, dtype=lib.float64, requires_grad=True)
        wd = lib.tensor(0.05, dtype=lib.float64, requires_grad=True)
        p = w.clone()
        opt = lib.optim.SGD([p], lr=lr, weight_decay=wd, differentiable=True)
        for k in range(2):
            p.grad = (p * p).detach() * (k + 1)
            opt.step()
        results.append([p] + list(lib.autograd.grad((p * p).sum(), (w, lr, wd))))
    _assert_close(results[0], results[1], 1e-12)


def test_adam_tensor_betas():
    results = []
    for lib in LIBS:
        params = _params(lib, _init_values("float64"))
        opt = lib.optim.Adam(params, lr=lib.tensor(0.01, dtype=lib.float64),
                             betas=(lib.tensor([0.8], dtype=lib.float64),
                                    lib.tensor(0.99, dtype=lib.float64)))
        for _ in range(3):
            _compute(lib, opt, params)
            opt.step()
        assert opt.param_groups[0]["betas"][0].dim() == 0
        results.append(params)
    _assert_close(results[0], results[1], 1e-12)


def test_old_optimizer_pickles_gain_the_new_options():
    for name in ["Adam", "AdamW", "SGD", "RMSprop", "Adagrad"]:
        results = []
        for lib in LIBS:
            opt = getattr(lib.optim, name)([_p(lib)])
            state = {"defaults": opt.defaults, "state": opt.state,
                     "param_groups": [{k: v for k, v in opt.param_groups[0].items()
                                       if k in ("params", "lr")}]}
            opt.__setstate__(state)
            results.append(sorted(opt.param_groups[0].items(), key=lambda kv: kv[0])[1:])
        assert [r for r in results[0] if r[0] != "params"] == \
            [r for r in results[1] if r[0] != "params"], name


OPTION_ERRORS = [
    lambda lib: lib.optim.Adam([_p(lib)], lr=lib.tensor(0.1), foreach=True),
    lambda lib: lib.optim.Adam([_p(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.Adam([_p(lib)], betas=(lib.tensor(0.9), 0.99)),
    lambda lib: lib.optim.Adam([_p(lib)], betas=(lib.tensor(0.9), lib.tensor(0.99)),
                               foreach=True),
    lambda lib: lib.optim.AdamW([_p(lib)], fused=True, foreach=True),
    lambda lib: lib.optim.AdamW([_p(lib)], fused=True, differentiable=True),
    lambda lib: lib.optim.SGD([_p(lib)], fused=True, foreach=True),
    lambda lib: lib.optim.SGD([_p(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.Adagrad([_p(lib)], fused=True, differentiable=True),
    lambda lib: lib.optim.RMSprop([_p(lib)], lr=-0.1),
    lambda lib: lib.optim.Adagrad([_p(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, dtype=lib.complex64)),
                            lib.optim.Adam([p], fused=True).step()))(
        lib.ones(2, dtype=lib.complex64, requires_grad=True)),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, dtype=lib.complex64)),
                            lib.optim.SGD([p], fused=True).step()))(
        lib.ones(2, dtype=lib.complex64, requires_grad=True)),
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2, dtype=lib.complex64)),
                            lib.optim.Adagrad([p], fused=True).step()))(
        lib.ones(2, dtype=lib.complex64, requires_grad=True)),
]
for _name in ["Adam", "AdamW", "RMSprop"]:
    OPTION_ERRORS += [
        lambda lib, n=_name: _stepped(lib, n, capturable=True),
        lambda lib, n=_name: _stepped(lib, n, capturable=True, foreach=True),
        lambda lib, n=_name: _stepped(lib, n, differentiable=True, foreach=True),
    ]
OPTION_ERRORS += [
    lambda lib: _stepped(lib, "Adagrad", differentiable=True, foreach=True),
    # (PyTorch's SGD writes its momentum buffers in the state only after the update)
    lambda lib: (lambda p: (setattr(p, "grad", lib.ones(2)), lib.optim.SGD(
        [p], momentum=0.9, differentiable=True, foreach=True).step()))(_p(lib)),
]


@pytest.mark.parametrize("i", range(len(OPTION_ERRORS)))
def test_option_errors_match_torch(i):
    assert _error(lambda: OPTION_ERRORS[i](chainrule)) == _error(lambda: OPTION_ERRORS[i](torch))


def test_adam_learned_hyperparameters():
    """Adam's betas and weight decay as tensors that require grad (differentiable)."""
    results = []
    for lib in LIBS:
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        hyper = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in (0.8, 0.9, 0.1)]
        p = w.clone()
        opt = lib.optim.Adam([p], lr=0.1, betas=tuple(hyper[:2]), weight_decay=hyper[2],
                             differentiable=True)
        p.grad = (p * p).detach()
        opt.step()
        results.append([p] + list(lib.autograd.grad((p * p).sum(), [w] + hyper)))
    _assert_close(results[0], results[1], 1e-12)


def test_hook_type_aliases():
    for name in ("OptimizerPreHook", "OptimizerPostHook"):
        assert repr(getattr(chainrule.optim.Optimizer, name)) == \
            repr(getattr(torch.optim.Optimizer, name))


def test_adagrad_share_memory():
    for lib in LIBS:
        p = _p(lib)
        opt = lib.optim.Adagrad([p], initial_accumulator_value=0.5)
        assert opt.share_memory() is None
        assert opt.state[p]["sum"].is_shared() and opt.state[p]["sum"].tolist() == [0.5, 0.5]
