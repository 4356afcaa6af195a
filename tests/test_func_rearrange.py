"""torch.func.rearrange against PyTorch: shapes, values and the result's node for einops
patterns (groups, ellipsis, unit axes, given lengths, lists of tensors), gradients, vmap,
and PyTorch's errors and warnings."""
import numpy as np
import pytest

from helpers import same, same_error, same_warnings

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 6, 4))
W = RNG.standard_normal((12, 2, 2))

PATTERNS = [
    ("a b c -> c a b", {}), ("a (b1 b2) c -> a b1 (b2 c)", {"b1": 2}),
    ("a b c -> (a b c)", {}), ("... c -> c ...", {}), ("a b c -> a b c", {}),
    ("a b c -> a 1 b c", {}), ("a b c -> a () b c 1", {}), ("a ... -> ... a", {}),
    ("a b c -> (c a) b", {}), ("a (h w) c -> a h w c", {"w": 3}), ("a b c -> b (a c)", {}),
    ("a b c ... -> (a ...) b c", {}), ("a ... -> (...) a", {}), ("a (b 1) c -> c b a", {}),
    ("a (b) c -> (c) (a) b", {}), (" a  b c->c  b a ", {}), ("a b c -> a (b c)", {"a": 2}),
    ("a b ...  c -> c b a ...", {}),
]


def test_patterns_match_torch():
    def prog(T):
        x = T.tensor(X)
        return [T.func.rearrange(x, p, **kw) for p, kw in PATTERNS]
    same(prog)


def test_unit_axes_lists_integers_and_zero_dims():
    def prog(T):
        r = T.func.rearrange
        x = T.arange(12.).reshape(3, 4)
        t0 = T.tensor(5.)
        return [r(x, "1 b -> b"), r(x, "() b -> b"), r(x.int(), "1 b -> b"),
                r(x.int(), "a b -> b a"), r([x[0], x[1]], "n c -> c n"),
                r((x, x + 1), "n a b -> a (n b)"), r(T.zeros(0, 4), "(a a2) b -> a a2 b", a2=2),
                r(t0, "->") is t0, r(t0, "... -> ..."), r(x, "a b ... -> ... a b")]
    same(prog)


def test_views_share_storage_as_torch():
    def prog(T):
        r = T.func.rearrange
        x = T.tensor(X)
        outs = [r(x, "a b c -> c a b"), r(x, "a (b1 b2) c -> a b1 (b2 c)", b1=3),
                r(x, "a b c -> (c a) b")]
        return [(o._base is x, o.is_contiguous(), o.stride()) for o in outs]
    same(prog)


def test_gradients_and_double_backward():
    def prog(T):
        x = T.tensor(X, requires_grad=True)
        y = T.func.rearrange(x, "a (h w) c -> (w c) a h", h=2)
        (g,) = T.autograd.grad((y.sin() * T.tensor(W)).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        z = T.func.rearrange(x[:1], "1 b c -> c b")
        (gz,) = T.autograd.grad((z * z).sum(), x)
        # the gradient's graph is PyTorch's first-class-dims one (as_strided), not compared
        return y, g.detach(), gg, z, gz
    same(prog)


def test_under_vmap_and_per_sample_grad():
    def prog(T):
        F = T.func
        x = T.tensor(X)
        w = T.tensor(np.arange(24.).reshape(4, 6))
        f = lambda v: F.rearrange(v, "(h w) c -> c h w", h=3)
        g = F.grad(lambda v: (F.rearrange(v, "(h w) c -> (c w) h", w=2).cos() * 2).sum())
        return [F.vmap(f)(x), F.vmap(f, in_dims=1, out_dims=2)(w.T.reshape(6, 4, 1)
                                                               .expand(6, 4, 2)),
                F.vmap(g)(x), F.vmap(lambda v: F.rearrange(v, "... -> (...)"))(x),
                F.jacrev(lambda v: F.rearrange(v, "a b -> b a").sin())(w[:2, :3]),
                F.jvp(lambda v: F.rearrange(v, "a (h w) c -> (c h) w a", w=2), (x,), (x * 2,)),
                F.jacfwd(lambda v: F.rearrange(v, "1 b -> b").exp())(w[:1, :3])]
    same(prog)


@pytest.mark.parametrize("pattern, kw", [
    ("a b -> b a", {}), ("a b c d -> b a", {}), ("a b c -> a b", {}), ("a b c", {}),
    ("a b c -> a b c -> a", {}), ("a a c -> a c", {}), ("a (b b2) c -> a b b2 c", {}),
    ("a (b b2) c -> a b b2 c", {"b": 4}), ("a b c -> a b c", {"d": 3}),
    ("a 2 c -> a c", {}), ("a b c -> a (b c", {}), ("a b c -> a (b (c))", {}),
    ("a b c -> a b) c", {}), ("a ... ... -> a", {}), ("a .. c -> a", {}),
    ("a b c -> a b c ...", {}), ("a b c d ... -> a b c d", {}), ("a b _c -> a b _c", {}),
    ("a b 1c -> a b 1c", {}), ("a b c -> a b c 2", {}), ("a b c -> a b c", {"a": 3}),
    ("a b c -> a (b ...) c", {}), ("a (b ...) -> a b ...", {}), ("a b c -> a b c -", {}),
    ("a b c -> a b a c", {}), ("a (b c) d -> a b c d", {"b": 0}),
    ("a b c -> a b c", {"a": 2.0}), ("a b c -> a b c", {"\u2026": 2}),
    ("a b c -> a b c", {"b": True}), ("a b c -> a 0 b c", {}), ("(a b) c d -> a b c d", {}),
    ("a (b c) d -> a b c d", {"b": 4, "c": 2}), ("(x y) ... -> x y ...", {"y": 3}),
])
def test_errors_match_torch(pattern, kw):
    same_error(lambda T: T.func.rearrange(T.tensor(X), pattern, **kw))


def test_empty_list_error_and_warnings():
    same_error(lambda T: T.func.rearrange([], "a b -> b a"))
    # PyTorch parses a pattern once per rank and lengths: a fresh pattern each time
    same_warnings(lambda T: T.func.rearrange(T.tensor(X), "a for c -> c for a"))
    same_warnings(lambda T: T.func.rearrange(T.tensor(X), "a b axis -> b a axis", axis=4))
