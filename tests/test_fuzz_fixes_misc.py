"""Regression tests for long-fuzz mismatches (issue 12) in einsum, topk and the in-place BLAS
ops, each compared with PyTorch on the input the fuzz drew."""
import numpy as np
import pytest
import torch

from helpers import same, same_error


def _t(T, a, **kw):
    return T.tensor(np.asarray(a), **kw)


# ---- einsum ---------------------------------------------------------------------------------

def test_einsum_empty_label_summed_alone_leaves_an_int64_operand():
    # `i` is of size 1 in the second operand: the first sums it on its own (int8 -> int64)
    # before the bmm over `j`, which then refuses the mixed dtypes even though `i` is empty
    def prog(T):
        a = T.from_numpy(np.zeros((4, 0), np.int8)).t()
        b = T.from_numpy(np.array([[-1], [0], [0], [1]], np.int8)).t()
        return T.einsum("ij,ij->", a, b)
    same_error(prog)


@pytest.mark.parametrize("eq, shapes", [("ij,ij->", ((0, 4), (0, 4))),
                                        ("ij,ij->", ((3, 0), (1, 0))),
                                        ("ij,jk->", ((0, 4), (4, 1))),
                                        ("ij,jk->ik", ((2, 0), (0, 3)))])
@pytest.mark.parametrize("dtypes", [("int8", "int8"), ("int8", "int64"), ("int64", "int8")])
def test_einsum_empty_integer_operands(eq, shapes, dtypes):
    def prog(T):
        return T.einsum(eq, *(T.ones(s, dtype=getattr(T, d)) for s, d in zip(shapes, dtypes)))
    try:
        prog(torch)
    except RuntimeError:
        same_error(prog)
    else:
        same(prog)


A_INF = np.array([[1e38 + 0j, -0.522748441 + 0j, -np.inf + 0j],
                  [1e-40 + 0j, 1.79970738 + 0j, 1.14416587 + 0j]])
B = np.array([-0.32542284, 0.77380659, 0.28121067, -0.55382284])


@pytest.mark.parametrize("eq, b", [("ij,k->ikj", B), ("ij,ij->i", B[:2, None]),
                                   ("ij,ij->ij", B[None, :3])])
def test_einsum_mul_pair_gradient_is_a_product_then_a_sum(eq, b):
    # PyTorch evaluates a pair with nothing to contract as a mul: the gradient multiplies
    # elementwise and sums (grad * (-inf + 0j): a NaN imaginary part only), where a complex
    # matmul makes the real part NaN too
    def prog(T):
        a, ga = _t(T, A_INF), _t(T, A_INF, requires_grad=True)
        tb = _t(T, b, requires_grad=True)
        out = T.einsum(eq, a, tb)
        rng = np.random.default_rng(312828577)
        g = _t(T, rng.standard_normal(tuple(out.shape)).astype(complex))
        gb, = T.autograd.grad(out, tb, g)
        gga, gb2 = T.autograd.grad(T.einsum(eq, ga, tb), [ga, tb], g)
        return gb, T.view_as_real(gga), gb2
    same(prog)


def test_einsum_mul_pair_double_backward():
    def prog(T):
        a = _t(T, np.arange(6.0).reshape(2, 3), requires_grad=True)
        b = _t(T, np.arange(4.0) - 1.5, requires_grad=True)
        out = T.einsum("ij,k->ikj", a, b)
        ga, = T.autograd.grad((out * out).sum(), a, create_graph=True)
        return T.autograd.grad(ga.sum(), [a, b])
    same(prog)



def test_einsum_complex_infinity_small_bmm():
    # PyTorch's bmm of small matrices multiplies complex numbers one by one: (1+infj) * x is
    # nan-infj, where BLAS gives nan+nanj
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.complex64)
    b = rng.standard_normal((2, 4, 2)).astype(np.complex64)
    for x in (a, b):
        where = rng.random(x.shape) < 0.15
        x[where] = rng.choice(np.array([1 + 1j * np.inf, 0, np.inf, -np.inf], np.complex64),
                              where.sum())

    def prog(T):
        x, y = _t(T, a, requires_grad=True), _t(T, b, requires_grad=True)
        outs = [T.einsum(eq, x, y) for eq in ("bij,bjk->bik", "...ij,...jk->...ik")]
        return _parts(T, [o.detach() for o in outs]
                      + list(T.autograd.grad(outs[0], [x, y], T.ones_like(outs[0]))))
    same(prog, rtol=1e-4, atol=1e-4)


def _parts(T, tensors):
    # real and imaginary parts apart: a complex NaN is NaN whichever part is
    return [T.view_as_real(t) for t in tensors]


def test_einsum_complex_overflow_in_a_product():
    # finite operands whose product overflows: inf+0j one by one, a NaN part from BLAS
    a = np.array([[0.5, -1.9, 0.2], [-0.4, 1e38, 1.0]], np.complex64)
    b = np.array([[1.3, -1.8, 0.4, 0.1], [0.2, -0.2, 0.0, -np.inf], [1.8, -1.0, 1.0, -0.2]],
                 np.complex64)
    c = np.array([[0.2, 0.9], [0.2, 0.2], [-1.4, -0.6], [-0.7, 1e38]], np.complex64)
    g = np.array([[1.2, -0.3], [0.5, 2.0]], np.complex64)

    def prog(T):
        xs = [_t(T, v, requires_grad=True) for v in (a, b, c)]
        out = T.einsum("ij,jk,kl->il", *xs)
        return _parts(T, (out.detach(),) + T.autograd.grad(out, xs, _t(T, g)))
    same(prog, rtol=1e-4, atol=1e-4)


def test_einsum_own_sums_before_the_mul():
    # `ij` are of size 1 in the second operand: the first is summed alone first, an int64 sum
    # (it wraps) or a float16 one (rounded once), before the mul promotes
    a = np.array([[-1, 1, 4, -3], [-2 ** 63, 5, 2, -5], [-7, 2, 0, 1]], np.int64)
    h = np.array([[-3.727, 0, -2.781, 1.589], [-0.1344, 0, 0, 3.023],
                  [-3.688, 6.58, -1.935, 0]], np.float16)

    def prog(T):
        b = _t(T, np.array([[3.027]], np.float16), requires_grad=True)
        c = _t(T, np.array([[-0.18924717]]), requires_grad=True)
        x = _t(T, h, requires_grad=True)
        first = T.einsum("ij,ij->", _t(T, a), b)
        second = T.einsum("ij,ij->", x, c)
        return ((first.detach(), second.detach())
                + T.autograd.grad((first, second), [b, x, c]))
    same(prog)


def test_einsum_own_sum_of_a_size_one_label_in_float16():
    # `i` is of size 1 in the first operand: the second is summed over it on its own (in
    # float32, rounded to float16 once) before the bmm, and so is its gradient's partner
    a = np.array([[-5.19, -2.512, -3.158, -2.076]], np.float16)
    b = np.array([[1.0, 3.39, 2.0, 1.101], [-0.589, -0.0, 1.5, -1.955],
                  [3.568, -3.361, -3.178, 0.0]], np.float16)

    def prog(T):
        x, y = _t(T, a, requires_grad=True), _t(T, b, requires_grad=True)
        out = T.einsum("ij,ij->", x, y)
        return (out.detach(),) + T.autograd.grad(out, [x, y], _t(T, np.float16(1.5)))
    same(prog)

# ---- in-place BLAS ops: which self they take -------------------------------------------------

def _batches(T, requires_grad=False):
    rng = np.random.default_rng(4216)
    return (_t(T, rng.standard_normal((2, 3, 4)), requires_grad=requires_grad),
            _t(T, rng.standard_normal((2, 4, 5)), requires_grad=requires_grad))


@pytest.mark.parametrize("self_value", [0.12573022, [[1.0, 2, 3, 4, 5]], [1.0, 2, 3, 4, 5]])
def test_addbmm_inplace_grows_a_broadcastable_self(self_value):
    def prog(T):
        s = _t(T, self_value)
        r = s.addbmm_(*_batches(T), beta=2, alpha=0.5)
        return r, r is s, s.stride(), s._version
    same(prog)


def test_addbmm_inplace_resized_self_history():
    # the node sends self's gradient back to its old (0-d) shape
    def prog(T):
        leaf = _t(T, 0.12573022, requires_grad=True)
        b1, b2 = _batches(T, requires_grad=True)
        s = leaf.clone()
        r = s.addbmm_(b1, b2, beta=3)
        w = T.arange(15.0, dtype=T.float64).reshape(3, 5)
        return (r, r.grad_fn.next_functions[0][0], r._version,
                T.autograd.grad((r * w).sum(), [leaf, b1, b2]))
    same(prog)


def test_addbmm_inplace_resize_shortcuts():
    same(lambda T: _t(T, float("nan")).addbmm_(*_batches(T), beta=0))
    same(lambda T: _t(T, 7.0).addbmm_(T.zeros(0, 3, 4, **_dt(T)), T.zeros(0, 4, 5, **_dt(T)),
                                      beta=2))
    same(lambda T: T.tensor(1).addbmm_(T.ones(2, 3, 4, dtype=T.int64),
                                       T.ones(2, 4, 5, dtype=T.int64)))


def _dt(T):
    return {"dtype": T.float64}


@pytest.mark.parametrize("prog", [
    lambda T: _t(T, 1.0, requires_grad=True).addbmm_(*_batches(T)),
    lambda T: T.ones(4, 5, **_dt(T)).addbmm_(*_batches(T)),
    lambda T: T.ones(()).addbmm_(*_batches(T)),
    lambda T: T.ones(()).addbmm_(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.ones(()).addmm_(T.ones(3, 4), T.ones(4, 5)),
    lambda T: T.ones(()).addmv_(T.ones(3, 4), T.ones(4)),
    lambda T: T.ones(()).baddbmm_(T.ones(2, 3, 4), T.ones(2, 4, 5)),
    lambda T: T.ones(3, 5).baddbmm_(T.ones(2, 3, 4), T.ones(2, 4, 5)),
    lambda T: T.ones((), **_dt(T)).baddbmm_(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.ones((), **_dt(T)).baddbmm_(T.ones(2, 3), T.ones(2, 4, 5)),
    lambda T: T.baddbmm(T.ones(2, 3, 5, **_dt(T)), T.ones(2, 3, 4), T.ones(3, 4, 5)),
    lambda T: T.baddbmm(T.ones(2, 3, 5), T.ones(2), T.ones(2, 4)),
    lambda T: T.ones(()).addr_(T.ones(3), T.ones(4)),
    lambda T: T.ones(4).addr_(T.ones(3), T.ones(4)),
    lambda T: T.ones(2, 3, 4).addr_(T.ones(3), T.ones(4)),
    lambda T: T.ones(()).addr_(T.ones(3, 2), T.ones(4)),
    lambda T: T.ones(1, 4).addr_(T.ones(3), T.ones(4)),
])
def test_inplace_blas_self_errors(prog):
    same_error(prog)


# ---- topk: std::partial_sort's heap decides the order of ties (k * 64 <= n) ----------------

def _tied_int8(transposed):
    rng = np.random.default_rng(7)
    a = np.clip(rng.integers(-200, 300, (3, 130)), -128, 127).astype(np.int8)    # many 127s
    return (np.ascontiguousarray(a.T), True) if transposed else (a, False)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("kwargs", [{}, {"sorted": False}, {"largest": False}])
def test_topk_partial_sort_ties(transposed, kwargs):
    a, t = _tied_int8(transposed)

    def prog(T):
        x = T.from_numpy(a.copy())
        return (x.t() if t else x).topk(2, **kwargs)
    same(prog)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_partial_sort_ties_nan_and_dims(largest):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 6, (2, 300, 3)).astype(np.float64)
    a[rng.random(a.shape) < 0.05] = np.nan
    a[rng.random(a.shape) < 0.1] = -0.0
    same(lambda T: T.from_numpy(a.copy()).topk(4, dim=1, largest=largest))


def test_topk_partial_sort_ties_ascending():
    # every new value enters the heap (replayed up to 1,024 entering elements a row)
    a = np.arange(1000) // 2
    same(lambda T: (T.from_numpy(a.copy()).topk(7), T.from_numpy(-a).topk(7, largest=False)))
