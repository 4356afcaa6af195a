"""Batching rules of the nn family's element-wise rows and losses, of matrix functions
(linalg, tril/triu, view_as_real), full reductions and gather: the same values as
torch.func.vmap, per-sample gradients, and each runs batched (neither the per-op loop nor
the element-by-element rerun)."""
import numpy as np

from helpers import same

RNG = np.random.default_rng(4)
X = RNG.standard_normal((3, 4, 5))
T = RNG.uniform(0.05, 0.95, (3, 4, 5))
SPD = np.einsum("bij,bkj->bik", X[:, :, :4], X[:, :, :4]) + 4 * np.eye(4)
INDEX = RNG.integers(0, 5, (3, 4, 2))


def _cases(lib):
    F = lib.nn.functional
    la = lib.linalg
    x, t, a = lib.tensor(X), lib.tensor(T), lib.tensor(SPD)
    p = lib.tensor(T).logit()
    cases = {
        "elu": (F.elu, x), "gelu": (lambda v: F.gelu(v, approximate="tanh"), x),
        "celu": (F.celu, x), "hardtanh": (F.hardtanh, x), "leaky_relu": (F.leaky_relu, x),
        "softplus": (F.softplus, x), "silu": (F.silu, x), "mish": (F.mish, x),
        "hardswish": (F.hardswish, x), "hardsigmoid": (F.hardsigmoid, x),
        "softshrink": (F.softshrink, x), "hardshrink": (F.hardshrink, x),
        "logsigmoid": (F.logsigmoid, x), "threshold": (lambda v: F.threshold(v, 0.1, 2.0), x),
        "det": (la.det, a), "inv": (la.inv, a), "slogdet": (la.slogdet, a),
        "cholesky": (la.cholesky, a), "qr": (la.qr, a), "matrix_exp": (la.matrix_exp, a),
        "eigh": (la.eigh, a), "eigvalsh": (la.eigvalsh, a), "svd": (la.svd, a),
        "svdvals": (la.svdvals, a), "lu_factor": (la.lu_factor, a),
        "tril": (lambda v: v.tril(1), x), "triu": (lambda v: lib.triu(v, -1), x),
        "view_as_real": (lambda v: lib.view_as_real(v.to(lib.complex128)), x),
        "max": (lib.max, x), "min": (lambda v: v.min(), x), "prod": (lib.prod, x),
        "var": (lambda v: v.var(correction=0), x), "std_mean": (lib.std_mean, x),
        "any": (lambda v: (v > 1).any(), x), "all": (lambda v: (v > -3).all(), x),
        "count_nonzero": (lambda v: lib.count_nonzero(v > 0), x),
        "vector_norm": (lambda v: la.vector_norm(v, 3), x),
        "gather": (lambda v, i: v.gather(-1, i), x, lib.tensor(INDEX)),
        "gather dim 0": (lambda v, i: lib.gather(v, 0, i), x, lib.tensor(INDEX % 4)),
    }
    for red in ("mean", "sum", "none"):
        cases.update({
            f"huber {red}": (lambda v, w, r=red: F.huber_loss(v, w, reduction=r, delta=0.5),
                             x, t),
            f"smooth_l1 {red}": (lambda v, w, r=red: F.smooth_l1_loss(v, w, reduction=r), x, t),
            f"soft_margin {red}": (lambda v, w, r=red: F.soft_margin_loss(v, w, reduction=r),
                                   x, t),
            f"bce {red}": (lambda v, w, r=red: F.binary_cross_entropy(v, w, reduction=r),
                           t.flip(-1), t),
            f"bce logits {red}": (lambda v, w, r=red: F.binary_cross_entropy_with_logits(
                v, w, reduction=r, pos_weight=lib.tensor(np.full(5, 2.0))), p, t),
        })
    return cases


def test_values_match_torch_func_vmap():
    def prog(lib):
        return {name: lib.func.vmap(f)(*args) for name, (f, *args) in _cases(lib).items()}
    same(prog)


def test_gather_with_one_operand_batched_and_nested():
    def prog(lib):
        x, i = lib.tensor(X), lib.tensor(INDEX)
        return [lib.vmap(lambda v: v.gather(1, i[0]))(x),
                lib.vmap(lambda j: x[0].gather(1, j))(i),
                lib.vmap(lib.vmap(lambda v, j: v.gather(0, j)))(x, i % 5),
                lib.func.vmap(lib.func.grad(lambda v, j: (v.gather(1, j) ** 2).sum()))(x, i)]
    same(prog)


def test_per_sample_gradients():
    def prog(lib):
        F, G = lib.nn.functional, lib.func
        x, t, a = lib.tensor(X), lib.tensor(T), lib.tensor(SPD)
        return [G.vmap(G.grad(lambda v, w: F.huber_loss(F.elu(v), w)))(x, t),
                G.vmap(G.grad(lambda v, w: F.binary_cross_entropy_with_logits(
                    F.gelu(v), w)))(x, t),
                G.vmap(G.grad(lambda m: lib.linalg.slogdet(m)[1] + lib.linalg.inv(m).sum()))(a),
                G.vmap(G.grad(lambda v: v.round().max() + v.prod() + v.var()))(x)]
    same(prog)


# still run element by element: their public functions read arrays before the row (inv,
# cholesky, lu_factor, binary_cross_entropy_with_logits), or a row returns an empty tensor
# in place of the vectors not asked for (eigvalsh, svdvals: the op alone is looped)
_NOT_BATCHED = {"inv", "cholesky", "lu_factor", "eigvalsh", "svdvals", "bce logits mean",
                "bce logits sum", "bce logits none"}


def test_run_batched(monkeypatch):
    import chainrule
    from chainrule.func import _batched, _vmap

    def refuse(*args, **kwargs):
        raise AssertionError("not batched")
    monkeypatch.setattr(_vmap, "_map", refuse)
    monkeypatch.setattr(_batched, "_loop", refuse)
    for name, (f, *args) in _cases(chainrule).items():
        if name not in _NOT_BATCHED:
            chainrule.func.vmap(f)(*args)


def test_too_few_dims_loop_to_pytorchs_error():
    from helpers import same_error
    same_error(lambda lib: lib.vmap(lib.linalg.det)(lib.tensor(X[:, 0, :2])))
