"""F.nll_loss and F.cross_entropy with class-index targets under vmap, against
torch.func.vmap: reductions, weights, ignore_index, label smoothing, higher-dimensional
inputs, unbatched operands, per-sample gradients, PyTorch's batched errors; and a check
that they run batched (neither the per-op loop nor the element-by-element rerun)."""
import numpy as np
import pytest

from helpers import same, same_error

RNG = np.random.default_rng(5)
X = RNG.standard_normal((5, 3, 4))
T = np.array([[0, 1, 3], [2, 2, 1], [3, 0, 0], [1, 1, 1], [0, 3, 2]])
T_IGNORED = T.copy()
T_IGNORED[0, 1] = -100
T_IGNORED[3] = -100
WEIGHT = RNG.uniform(0.5, 2.0, 4)
W_LIN = RNG.standard_normal((12, 4))


def _cases(lib, F):
    """(name, function, x, t, in_dims) covering the rule's cases."""
    x = lib.tensor(X).log_softmax(-1)
    t, ti, w = lib.tensor(T), lib.tensor(T_IGNORED), lib.tensor(WEIGHT)
    t_one = lib.tensor(np.where(T == 1, 1, T))
    x4 = x.reshape(5, 3, 4, 1, 1).expand(5, 3, 4, 2, 2).contiguous()
    t4 = t.reshape(5, 3, 1, 1).expand(5, 3, 2, 2).contiguous()
    cases = []
    for red in ("mean", "sum", "none"):
        cases += [
            (f"plain {red}", lambda a, b, r=red: F.nll_loss(a, b, reduction=r), x, t, 0),
            (f"ignored {red}", lambda a, b, r=red: F.nll_loss(a, b, reduction=r), x, ti, 0),
            (f"ignore 1 {red}", lambda a, b, r=red: F.nll_loss(a, b, reduction=r,
                                                               ignore_index=1), x, t_one, 0),
            (f"weight {red}", lambda a, b, r=red: F.nll_loss(a, b, w, reduction=r), x, ti, 0),
            (f"weight ignore 1 {red}", lambda a, b, r=red: F.nll_loss(
                a, b, w, reduction=r, ignore_index=1), x, t_one, 0),
            (f"1-d {red}", lambda a, b, r=red: F.nll_loss(a, b, w, reduction=r),
             x[:, 0], t[:, 0], 0),
            (f"4-d {red}", lambda a, b, r=red: F.nll_loss(a, b, w, reduction=r), x4, t4, 0),
            (f"3-d {red}", lambda a, b, r=red: F.nll_loss(a, b, reduction=r, ignore_index=2),
             x4[..., 0], t4[..., 0], 0),
            (f"ce {red}", lambda a, b, r=red: F.cross_entropy(a, b, w, reduction=r), x, ti, 0),
            (f"ce smoothing {red}", lambda a, b, r=red: F.cross_entropy(
                a, b, reduction=r, label_smoothing=0.2, ignore_index=1), x, t_one, 0),
            (f"ce smoothing 4-d {red}", lambda a, b, r=red: F.cross_entropy(
                a, b, reduction=r, label_smoothing=0.3), x4, t4, 0),
        ]
    # PyTorch's rule refuses a weighted mean with smoothing (it masks with masked_select)
    cases += [(f"ce weighted smoothing {red}", lambda a, b, r=red: F.cross_entropy(
        a, b, w, reduction=r, label_smoothing=0.1), x, ti, 0) for red in ("sum", "none")]
    cases += [
        ("unbatched target", lambda a, b: F.nll_loss(a, b, w), x, t[0], (0, None)),
        ("unbatched input", lambda a, b: F.cross_entropy(a, b, w), x[0], t, (None, 0)),
        ("int32 target", lambda a, b: F.nll_loss(a, b), x, t.int(), 0),
        ("all ignored", lambda a, b: F.nll_loss(a, b, w), x, lib.full_like(t, -100), 0),
        ("empty", lambda a, b: F.nll_loss(a, b), x[:, :0], t[:, :0], 0),
        ("in_dims 1", lambda a, b: F.cross_entropy(a, b, label_smoothing=0.1),
         x.movedim(0, 1), t.T, 1),
    ]
    return cases


def test_values_match_torch_func_vmap():
    def prog(lib):
        return {name: lib.func.vmap(f, in_dims=d)(a, b)
                for name, f, a, b, d in _cases(lib, lib.nn.functional)}
    same(prog)


def test_nested_vmap():
    def prog(lib):
        F = lib.nn.functional
        x = lib.tensor(X).log_softmax(-1).reshape(5, 3, 1, 4).expand(5, 3, 2, 4)
        t = lib.tensor(np.stack([T, T[::-1]], 2))
        return [lib.vmap(lib.vmap(F.nll_loss))(x, t),
                lib.vmap(lib.vmap(lambda a, b: F.cross_entropy(a, b, label_smoothing=0.2),
                                  in_dims=(0, 0)), in_dims=(1, 1))(x, t)]
    same(prog)


def test_per_sample_gradients():
    def prog(lib):
        F = lib.func
        x = lib.tensor(X.reshape(5, 12))
        t = lib.tensor(T[:, 0])
        W = lib.tensor(W_LIN)
        b = lib.tensor(np.zeros(4))
        w = lib.tensor(WEIGHT)

        def loss(params, xi, ti):
            logits = (xi @ params[0] + params[1]).unsqueeze(0)
            return lib.nn.functional.cross_entropy(logits, ti.unsqueeze(0), w,
                                                   label_smoothing=0.1)

        def nll(logits, ti):
            return lib.nn.functional.nll_loss(logits.log_softmax(-1), ti, reduction="sum")
        return [F.vmap(F.grad(loss), in_dims=(None, 0, 0))((W, b), x, t),
                F.vmap(F.grad(nll))(lib.tensor(X), lib.tensor(T_IGNORED)),
                F.vmap(F.jacrev(lambda a, ti: lib.nn.functional.nll_loss(a, ti,
                                                                         reduction="none")))(
                    lib.tensor(X), lib.tensor(T)),
                F.grad(lambda a: F.vmap(lib.nn.functional.cross_entropy)(
                    a, lib.tensor(T)).sum())(lib.tensor(X))]
    same(prog)


@pytest.mark.parametrize("target", [T + 1, T - 1, T.astype(np.uint8), T.astype(np.float32)])
def test_batched_errors(target):
    same_error(lambda lib: lib.vmap(lib.nn.functional.nll_loss)(
        lib.tensor(X).log_softmax(-1), lib.tensor(target)))


def test_runs_batched(monkeypatch):
    """No case reruns the function element by element or loops over an op's elements."""
    import chainrule
    from chainrule.func import _batched, _vmap

    def refuse(*args, **kwargs):
        raise AssertionError("not batched")
    monkeypatch.setattr(_vmap, "_map", refuse)
    monkeypatch.setattr(_batched, "_loop", refuse)
    F = chainrule.nn.functional
    for name, f, a, b, d in _cases(chainrule, F):
        chainrule.func.vmap(f, in_dims=d)(a, b)
    chainrule.func.vmap(chainrule.func.grad(lambda a, b: F.cross_entropy(
        a, b, label_smoothing=0.1)))(chainrule.tensor(X), chainrule.tensor(T))
