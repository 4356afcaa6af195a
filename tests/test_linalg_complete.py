"""torch.linalg beyond the op database: results of every function against PyTorch (named
tuples, dtypes, batching, drivers), errors with PyTorch's classes and messages (singular
inputs raise torch.linalg.LinAlgError with the batch index), _ex info tensors, out=, and
gradients of the composites, each a program run on chainrule and on PyTorch."""
import math

import numpy as np
import pytest

import chainrule
import chainrule.linalg  # noqa: F401  (the namespace is loaded lazily)

from helpers import same, same_error, same_warnings


def R(*shape, seed=0):
    """Normal values fixed by shape and seed: a program calls it once per library."""
    return np.asarray(np.random.default_rng([seed, *shape]).standard_normal(shape))


def C(*shape, seed=0):
    return R(*shape, seed=seed) + 1j * R(*shape, seed=seed + 1)


def WC(*shape, seed=0):
    """Well-conditioned square matrices."""
    return R(*shape, seed=seed) + 3 * np.eye(shape[-1])


def SPD(*shape, seed=0):
    a = R(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def HPD(*shape, seed=0):
    a = C(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2).conj() + shape[-1] * np.eye(shape[-1])


SINGULAR = np.array([[1., 2.], [2., 4.]])
INF = math.inf


def fields(r):
    return tuple(r), type(r).__name__


# ---- results --------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: fields(T.linalg.solve_ex(T.tensor(WC(2, 3, 3)), T.tensor(R(2, 3, 2)))),
    lambda T: T.linalg.solve(T.tensor(WC(3, 3)), T.tensor(R(3))),
    lambda T: T.linalg.solve(T.tensor(WC(2, 3, 3)), T.tensor(R(2, 3))),
    lambda T: T.linalg.solve(T.tensor(WC(2, 3, 3)), T.tensor(R(3))),
    lambda T: T.linalg.solve(T.tensor(WC(3, 3)), T.tensor(R(4, 3, 2))),
    lambda T: T.linalg.solve(T.tensor(WC(1, 3, 3)), T.tensor(R(2, 3, 2))),
    lambda T: T.linalg.solve(T.tensor(WC(2, 3, 3)), T.tensor(R(2, 4, 3)), left=False),
    lambda T: T.linalg.solve(T.tensor(WC(3, 3) + 1j * R(3, 3)), T.tensor(C(3, 2))),
    lambda T: T.linalg.solve(T.tensor(WC(3, 3)).float(), T.tensor(R(3, 2)).float()),
    lambda T: T.linalg.solve(T.tensor(WC(0, 0)), T.tensor(R(0, 2))),
    lambda T: fields(T.linalg.solve_ex(T.tensor(np.array([[0., 1], [0, 1]])), T.tensor(R(2)))),
    lambda T: T.linalg.solve_ex(T.tensor(np.stack([np.eye(2), SINGULAR])), T.tensor(R(2)))[1],
    lambda T: T.linalg.eigvals(T.tensor(R(2, 3, 3))),
    lambda T: T.linalg.eigvals(T.tensor(R(3, 3)).float()),
    lambda T: T.linalg.eigvals(T.tensor(C(3, 3))),
    lambda T: T.linalg.eigvals(T.tensor(R(2, 0, 0))),
    lambda T: type(T.linalg.eig(T.tensor(R(3, 3)))).__name__,
    lambda T: T.linalg.eig(T.tensor(np.diag([1., 2, 3]))),
    lambda T: [t.abs() for t in T.linalg.eig(T.tensor(R(2, 3, 3)))],
    # eigenvectors are compared through quantities free of their sign (LAPACK builds differ)
    lambda T: (lambda r: (r[0], r[1].abs(), type(r).__name__))(T.linalg.eigh(T.tensor(
        SPD(2, 3, 3)))),
    lambda T: T.linalg.eigh(T.tensor(SPD(3, 3)), UPLO="U")[0],
    lambda T: T.linalg.eigh(T.tensor(np.triu(SPD(3, 3))), UPLO="U")[1].abs(),
    lambda T: T.linalg.eigh(T.tensor(np.tril(SPD(3, 3))), UPLO="l")[1].abs(),
    lambda T: T.linalg.eigh(T.tensor(HPD(3, 3)))[0],
    lambda T: T.linalg.eigvalsh(T.tensor(HPD(2, 3, 3)), UPLO="U"),
    lambda T: T.linalg.eigvalsh(T.tensor(SPD(3, 3)).float()),
    lambda T: fields(T.linalg.eigh(T.tensor(R(2, 0, 0)))),
    lambda T: fields(T.linalg.lu(T.tensor(R(2, 4, 3)))),
    lambda T: T.linalg.lu(T.tensor(C(3, 5))),
    lambda T: T.linalg.lu(T.tensor(R(2, 0, 3))),
    lambda T: T.linalg.diagonal(T.tensor(R(2, 3, 4)), offset=1, dim1=0, dim2=2),
    lambda T: T.linalg.diagonal(T.tensor(R(2, 3, 4))),
    lambda T: T.linalg.matmul(T.tensor(R(2, 3, 4)), T.tensor(R(4))),
    lambda T: T.linalg.vecdot(T.tensor(R(2, 3)), T.tensor(R(3))),
    lambda T: T.linalg.vecdot(T.tensor(C(2, 3)), T.tensor(C(2, 3)), dim=0),
    lambda T: T.linalg.vander(T.tensor(R(4))),
    lambda T: T.linalg.vander(T.tensor(R(2, 3)), N=5),
    lambda T: T.linalg.vander(T.tensor(np.arange(4, dtype=np.int32))),
    lambda T: T.linalg.vander(T.tensor(C(3))),
    lambda T: T.linalg.tensorinv(T.tensor(WC(6, 6).reshape(6, 2, 3)), ind=1),
    lambda T: T.linalg.tensorinv(T.tensor(WC(4, 4).reshape(2, 2, 2, 2))),
    lambda T: T.linalg.tensorsolve(T.tensor(WC(6, 6).reshape(2, 3, 6)), T.tensor(R(2, 3))),
    lambda T: T.linalg.tensorsolve(T.tensor(WC(6, 6).reshape(2, 3, 6)), T.tensor(R(6)),
                                   dims=(0, 1)),
    lambda T: fields(T.linalg.ldl_factor(T.tensor(SPD(2, 4, 4) - 5 * np.eye(4)))),
    lambda T: fields(T.linalg.ldl_factor_ex(T.tensor(np.stack([np.zeros((3, 3)), WC(3, 3)])))),
    lambda T: T.linalg.ldl_factor(T.tensor(HPD(4, 4)), hermitian=True),
    lambda T: T.linalg.ldl_factor(T.tensor(R(0, 0))),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(R(3, 3))),
                                 T.tensor(R(2, 3, 2))),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(C(3, 3)), hermitian=True),
                                 T.tensor(C(3, 2)), hermitian=True),
])
def test_results(prog):
    same(prog)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shapes", [((4, 3), (4, 2)), ((3, 4), (3, 2)), ((2, 4, 3), (2, 4)),
                                    ((1, 4, 3), (2, 4, 2)), ((2, 4, 3), (4, 1)),
                                    ((3, 3), (3,))], ids=str)
def test_lstsq(driver, shapes):
    a, b = shapes
    if len(b) == 2 and len(a) == 3 and b[0] == 4:
        b = (1,) + b
    same(lambda T: fields(T.linalg.lstsq(T.tensor(R(*a)), T.tensor(R(*b, seed=1)),
                                         driver=driver)))


@pytest.mark.parametrize("prog", [
    # rank-deficient: rank and minimum-norm solution; no residuals
    lambda T: tuple(T.linalg.lstsq(T.tensor(SINGULAR[[0, 1, 1]] * [1, 1]), T.tensor(R(3, 1)),
                                   driver="gelsd")),
    lambda T: tuple(T.linalg.lstsq(T.tensor(np.array([[1., 2], [2, 4], [3, 6]])),
                                   T.tensor(R(3, 2)), driver="gelsy")),
    lambda T: tuple(T.linalg.lstsq(T.tensor(R(5, 3)), T.tensor(R(5, 2)), rcond=0.5,
                                   driver="gelss")),
    lambda T: tuple(T.linalg.lstsq(T.tensor(C(4, 3)), T.tensor(C(4, 2)), driver="gelsd")),
    lambda T: tuple(T.linalg.lstsq(T.tensor(R(4, 3)).float(), T.tensor(R(4, 2)).float())),
])
def test_lstsq_cases(prog):
    same(prog, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("prog", [
    lambda T: [T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), o) for o in
               ("fro", "nuc", 2, -2, 1, -1, INF, -INF)],
    lambda T: [T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), o, dim=(0, 2), keepdim=True)
               for o in ("fro", "nuc", 2, -2, 1, -1, INF, -INF)],
    lambda T: [T.linalg.matrix_norm(T.tensor(R(3, 2, 4)), o, dim=(2, 0)) for o in
               ("nuc", -2, 1, -INF)],
    lambda T: [T.linalg.matrix_norm(T.tensor(C(3, 3)), o) for o in ("fro", "nuc", 2, 1, INF)],
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)).float(), dtype=T.float64),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)).float(), 2, dtype=T.float64),
    lambda T: [T.linalg.matrix_norm(T.tensor(R(0, 3)), o) for o in ("fro", "nuc", 2, 1, -1)],
    lambda T: [T.linalg.norm(T.tensor(R(3, 4)), o) for o in
               (None, "fro", "nuc", 2, -2, 1, -1, INF, -INF)],
    lambda T: [T.linalg.norm(T.tensor(R(4)), o) for o in (None, 0, 1, 2, 3.5, INF, -INF)],
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4))),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), 3, dim=1, keepdim=True),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), 2, dim=(0, 2)),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), "nuc", dim=(0, 2)),
    lambda T: T.linalg.norm(T.tensor(C(3, 4)), dtype=T.complex128),
    lambda T: [T.linalg.cond(T.tensor(WC(2, 3, 3)), p) for p in
               (None, 2, -2, 1, -1, INF, -INF, "fro", "nuc", 1.0)],
    lambda T: [T.linalg.cond(T.tensor(R(3, 5)), p) for p in (None, -2)],
    lambda T: [T.linalg.cond(T.tensor(np.stack([[[1., 2], [0, 0]], np.eye(2)])), p) for p in
               (None, 1, INF, "fro", "nuc")],
    lambda T: T.linalg.cond(T.tensor(C(3, 3)), "fro"),
    lambda T: [T.linalg.cond(T.tensor(R(2, 0, 0)), p) for p in (None, "fro")],
    lambda T: T.linalg.cond(T.tensor(WC(3, 3)), p=T.tensor(2.)),
    lambda T: T.linalg.norm(T.tensor(R(3, 3)), 2, dim=(0,)),
    lambda T: T.linalg.matrix_rank(T.tensor(np.stack([SINGULAR, np.eye(2)]))),
    lambda T: T.linalg.matrix_rank(T.tensor(R(3, 5))),
    lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., 1e-3, 1e-9])), atol=1e-2),
    lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., 1e-3, 1e-9])), rtol=1e-4),
    lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., 1e-3, 1e-9])), 1e-2),
    lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., -1e-3, 1e-9])), hermitian=True),
    lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., 1e-3, 1e-9])),
                                   atol=T.tensor([1e-4, 1e-2])[:, None].squeeze(-1)),
    lambda T: T.linalg.matrix_rank(T.tensor(C(2, 3, 3))),
    lambda T: T.linalg.matrix_rank(T.tensor(R(0, 3))),
    # an infinity (no NaN) gives NaN singular values, not an error
    lambda T: [f(T.tensor(np.where(np.eye(2) > 0, INF, R(2, 2, 2)))) for f in (
        T.linalg.svdvals, T.linalg.pinv, T.linalg.matrix_rank, lambda t: T.linalg.svd(t)[1],
        lambda t: T.linalg.cond(t), lambda t: T.linalg.matrix_norm(t, "nuc"))],
    lambda T: T.linalg.pinv(T.tensor(np.tril(R(3, 3))), hermitian=True),
    lambda T: T.linalg.pinv(T.tensor(np.diag([1., 1e-3, 1e-9])), 1e-2),
    lambda T: T.linalg.pinv(T.tensor(np.diag([1., 1e-3, 1e-9])), rcond=1e-4, hermitian=True),
    lambda T: T.linalg.pinv(T.tensor(np.stack([np.diag([1., 1e-3])] * 2)),
                            atol=T.tensor([1e-4, 1e-2])),
    lambda T: T.linalg.vector_norm(x=T.tensor(R(3, 4)), ord=3, dim=1),
    # torch.norm's matrix norms are linalg.matrix_norm's
    lambda T: [T.norm(T.tensor(R(2, 3, 4)), "nuc", dim=(0, 2), keepdim=k) for k in (False, True)],
    lambda T: T.norm(T.tensor(R(3, 4)), "nuc"),
])
def test_composites(prog):
    same(prog)


# ---- gradients of the composites (the rows themselves are in the op database) -------------

def grads(f, *arrays, seed=5):
    def prog(T):
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        out = f(T, *xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        w = np.random.default_rng(seed)
        loss = sum((o * T.tensor(w.standard_normal(tuple(o.shape)), dtype=o.dtype)).sum()
                   for o in outs if o.requires_grad and not o.is_complex())
        return out, [g if g is None else g.resolve_conj()
                     for g in T.autograd.grad(loss, xs, allow_unused=True)]
    return prog


@pytest.mark.parametrize("prog", [
    grads(lambda T, a: [T.linalg.matrix_norm(a, o) for o in
                        ("fro", "nuc", 2, -2, 1, -1, INF, -INF)], R(3, 4)),
    grads(lambda T, a: T.linalg.norm(a, "nuc", dim=(0, 2), keepdim=True), R(2, 3, 4)),
    grads(lambda T, a: [T.linalg.cond(a, p) for p in (None, -2, "nuc")], WC(3, 3)),
    grads(lambda T, a: T.linalg.cond(a, "nuc"), C(3, 3) + 3 * np.eye(3)),
    grads(lambda T, a, b: T.linalg.vecdot(a, b).abs(), C(2, 3), C(3)),
    grads(lambda T, a: T.linalg.vander(a, N=4), R(2, 3)),
    grads(lambda T, a: T.linalg.tensorinv(a, ind=1), WC(6, 6).reshape(6, 2, 3)),
    grads(lambda T, a, b: T.linalg.tensorsolve(a, b), WC(6, 6).reshape(2, 3, 6), R(2, 3)),
    grads(lambda T, a: T.linalg.eigvals(a).abs(), C(3, 3)),
    grads(lambda T, a: T.linalg.eigvalsh(a, UPLO="U"), HPD(3, 3)),
    grads(lambda T, a, b: T.linalg.solve(a, b).abs(), C(2, 3, 3) + 3 * np.eye(3), C(3)),
    grads(lambda T, a, b: tuple(T.linalg.lstsq(a, b, driver="gelsd")[:2]), R(5, 3), R(5, 2)),
    grads(lambda T, a, b: tuple(T.linalg.lstsq(a, b, driver="gels")[:2]), R(5, 3), R(5)),
    grads(lambda T, a, b: T.linalg.lstsq(a, b)[0].abs(), C(4, 3), C(4, 2)),
    grads(lambda T, a: [t.abs() for t in T.linalg.lu(a)[1:]], C(3, 3)),
])
def test_gradients(prog):
    same(prog)


def test_eig_gradient_of_a_gauge_dependent_loss_raises():
    for fn, name in ((lambda T, a: T.linalg.eig(a)[1], "linalg_eig_backward"),
                     (lambda T, a: T.linalg.eigh(a @ a.mH)[1], "linalg_eigh_backward")):
        def prog(T):
            a = T.tensor(C(3, 3), requires_grad=True)
            T.autograd.grad(fn(T, a).sum().abs(), a)
        assert str(same_error(prog)).startswith(name)


def test_cond_gradient_through_its_in_place_fill_raises_as_pytorch():
    # PyTorch's cond fills the inverse in place, which LinalgInvExBackward0 saved
    def prog(T):
        a = T.tensor(WC(3, 3), requires_grad=True)
        T.linalg.cond(a, 1).backward()
    same_error(prog)


def test_second_order_through_solve_and_eigh():
    def prog(T):
        a = T.tensor(WC(3, 3), requires_grad=True)
        b = T.tensor(R(3, 2), requires_grad=True)
        x = T.linalg.solve(a, b)
        w = T.linalg.eigvalsh(a @ a.mT)
        g = T.autograd.grad((x * x).sum() + (w * w).sum(), (a, b), create_graph=True)
        gg = T.autograd.grad(sum((t * t).sum() for t in g), (a, b))
        return g, gg, [t.grad_fn.name() for t in g]
    same(prog)


# ---- errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.linalg.solve(T.tensor(SINGULAR), T.tensor(R(2))),
    lambda T: T.linalg.solve(T.tensor(np.stack([np.eye(2), SINGULAR])), T.tensor(R(2))),
    lambda T: T.linalg.solve_ex(T.tensor(SINGULAR), T.tensor(R(2)), check_errors=True),
    lambda T: T.linalg.solve(T.tensor(np.ones((2, 2), np.int64)), T.tensor(np.ones(2, np.int64))),
    lambda T: T.linalg.solve(T.tensor(R(2, 2)).half(), T.tensor(R(2)).half()),
    lambda T: T.linalg.solve(T.tensor(R(2, 2)).float(), T.tensor(R(2))),
    lambda T: T.linalg.solve(T.tensor(R(2, 2)), T.tensor(R(3))),
    lambda T: T.linalg.solve(T.tensor(R(2, 2)), T.tensor(R(2)), left=False),
    lambda T: T.linalg.solve(T.tensor(R(2, 3, 3)), T.tensor(R(4, 3, 1))),
    lambda T: T.linalg.solve(T.tensor(R(2, 3)), T.tensor(R(3, 1))),
    lambda T: T.linalg.solve(T.tensor(R(3)), T.tensor(R(3, 1))),
    lambda T: T.linalg.solve(T.tensor(R(3, 3)), T.tensor(R(3, 2)), left=False),
    lambda T: T.linalg.eig(T.tensor(R(3, 2))),
    lambda T: T.linalg.eig(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.eig(T.tensor(R(3, 3)).half()),
    lambda T: T.linalg.eig(T.tensor(R(3))),
    lambda T: T.linalg.eig(T.tensor(np.array([[math.nan, 1], [1, 1]]))),
    lambda T: T.linalg.eigvals(T.tensor(R(3))),
    lambda T: T.linalg.eigh(T.tensor(R(3, 2))),
    lambda T: T.linalg.eigh(T.tensor(R(3, 3)), UPLO="X"),
    lambda T: T.linalg.eigh(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.eigvalsh(T.tensor(R(3, 3)).half()),
    lambda T: T.linalg.eigvalsh(T.tensor(R(3))),
    lambda T: T.linalg.lu(T.tensor(R(3, 3)), pivot=False),
    lambda T: T.linalg.lu(T.tensor(R(3))),
    lambda T: T.linalg.lu(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.lstsq(T.tensor(np.array([[1., 0], [2, 0], [3, 0]])), T.tensor(R(3, 1)),
                             driver="gels"),
    lambda T: T.linalg.lstsq(T.tensor(R(3, 2)), T.tensor(R(3, 1)), driver="bad"),
    lambda T: T.linalg.lstsq(T.tensor(np.ones((3, 2), np.int64)),
                             T.tensor(np.ones((3, 1), np.int64))),
    lambda T: T.linalg.lstsq(T.tensor(R(3, 2)).float(), T.tensor(R(3, 1))),
    lambda T: T.linalg.lstsq(T.tensor(R(3, 2)), T.tensor(R(2, 1))),
    lambda T: T.linalg.lstsq(T.tensor(R(3, 2)), T.tensor(R(2))),
    lambda T: T.linalg.lstsq(T.tensor(R(2)), T.tensor(R(2, 1))),
    lambda T: T.linalg.lstsq(T.tensor(R(3, 2)), T.tensor(1.)),
    lambda T: T.linalg.lstsq(T.tensor(R(2, 4, 3)), T.tensor(R(4, 2))),
    lambda T: T.linalg.lstsq(T.tensor(R(4, 3)), T.tensor(R(2, 4, 1))),
    lambda T: T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), 3),
    lambda T: T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), "abc"),
    lambda T: T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), dim=(0,)),
    lambda T: T.linalg.matrix_norm(T.tensor(R(2, 3, 4)), dim=(1, -2)),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3))),
    lambda T: T.linalg.matrix_norm(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)).half(), "nuc"),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)).half(), 2),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)), dtype=T.int64),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)), dtype=T.complex64),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)), dtype=T.float32),
    lambda T: T.linalg.matrix_norm(T.tensor(R(0, 3)), -2),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), 2),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), "fro"),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), dim=(0, 1, 2)),
    lambda T: T.linalg.norm(T.tensor(R(2, 3, 4)), "fro", dim=0),
    lambda T: T.linalg.norm(T.tensor(R(3, 3)), 3),
    lambda T: T.linalg.norm(T.tensor(np.ones(3, np.int64))),
    lambda T: T.linalg.norm(T.tensor(R(3)), "fro"),
    lambda T: T.linalg.matrix_norm(T.tensor(R(3, 3)), dim=(0, 5)),
    lambda T: T.linalg.vector_norm(T.tensor(R(3)), "fro"),
    lambda T: T.norm(T.tensor(R(2, 3, 4)), "nuc"),
    lambda T: T.norm(T.tensor(R(2, 3, 4)), "abc", dim=(0, 1)),
    lambda T: T.linalg.cond(T.tensor(R(3))),
    lambda T: T.linalg.cond(T.tensor(R(3, 3)), 3),
    lambda T: T.linalg.cond(T.tensor(R(3, 3)), 2.5),
    lambda T: T.linalg.cond(T.tensor(R(3, 3)), "abc"),
    lambda T: T.linalg.cond(T.tensor(R(3, 2)), 1),
    lambda T: T.linalg.cond(T.tensor(R(3, 2)), -1.0),
    lambda T: T.linalg.cond(T.tensor(R(3, 2)), INF),
    lambda T: T.linalg.cond(T.tensor(R(3, 2)), "fro"),
    lambda T: T.linalg.cond(T.tensor(np.ones((2, 2), np.int64))),
    lambda T: T.linalg.cond(T.tensor(np.ones((2, 2), np.int64)), 1),
    lambda T: T.linalg.vander(T.tensor(2.)),
    lambda T: T.linalg.tensorsolve(T.tensor(WC(6, 6).reshape(6, 2, 3)), T.tensor(R(6)),
                                   dims=(0,)),
    lambda T: T.linalg.matrix_rank(T.tensor(R(3))),
    lambda T: T.linalg.matrix_rank(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.matrix_rank(T.tensor(R(3, 3)), atol=T.tensor(1j)),
    lambda T: T.linalg.ldl_factor(T.tensor(np.zeros((2, 3, 3)))),
    lambda T: T.linalg.ldl_factor_ex(T.tensor(np.zeros((3, 3))), check_errors=True),
    lambda T: T.linalg.ldl_factor(T.tensor(R(3, 3)).half()),
    lambda T: T.linalg.ldl_factor(T.tensor(R(3))),
    lambda T: T.linalg.ldl_factor(T.tensor(R(3, 2))),
    lambda T: T.linalg.ldl_factor(T.tensor(np.ones((3, 3), np.int64))),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(WC(3, 3))), T.tensor(R(3))),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(WC(3, 3))), T.tensor(R(2, 3))),
    lambda T: T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(WC(3, 3))),
                                 T.tensor(R(3, 2)).float()),
    lambda T: T.linalg.ldl_solve(T.linalg.ldl_factor(T.tensor(WC(3, 3)))[0],
                                 T.linalg.ldl_factor(T.tensor(WC(3, 3)))[1][:2],
                                 T.tensor(R(3, 2))),
    lambda T: T.linalg.ldl_factor(T.tensor(R(3, 3), requires_grad=True))[0].sum().backward(),
    # non-finite input: PyTorch's LinAlgError from its SVD (the batch index included), and
    # its internal assert when MKL's lstsq refuses a NaN
    lambda T: T.linalg.svdvals(T.tensor(np.where(np.eye(2) > 0, math.nan, R(3, 2, 2)))),
    lambda T: T.linalg.matrix_rank(T.tensor(np.stack([R(2, 2), np.full((2, 2), math.nan)]))),
    lambda T: T.linalg.cond(T.tensor(np.stack([R(2, 2), np.full((2, 2), math.nan)]))),
    lambda T: T.linalg.lstsq(T.tensor(np.full((2, 2), math.nan)), T.tensor(R(2, 1))),
    lambda T: T.linalg.lstsq(T.tensor(np.stack([np.full((2, 2), math.nan)] * 2)),
                             T.tensor(R(2, 2, 1)), driver="gels"),
    lambda T: T.linalg.svd(T.tensor(R(3, 3)), driver="gesvd"),
    lambda T: T.linalg.svdvals(T.tensor(R(3, 3)), driver="gesvd"),
    lambda T: T.linalg.pinv(T.tensor(R(3, 3)), atol=T.tensor(1j)),
    lambda T: T.linalg.vecdot(T.tensor(np.ones(3, np.int64)), T.tensor(np.ones(3, np.int64))),
    lambda T: T.linalg.vecdot(T.tensor(R(3)).float(), T.tensor(R(3))),
    lambda T: T.linalg.vander(T.tensor(np.ones(3, bool))),
    lambda T: T.linalg.vander(T.tensor(R(3)).half()),
    lambda T: T.linalg.vander(T.tensor(R(3)), N=1),
    lambda T: T.linalg.tensorinv(T.tensor(R(2, 3)), 0),
    lambda T: T.linalg.tensorinv(T.tensor(R(2, 3)), 1),
    lambda T: T.linalg.tensorinv(T.tensor(SINGULAR), 1),
    lambda T: T.linalg.tensorsolve(T.tensor(R(2, 3)), T.tensor(R(2))),
    lambda T: T.linalg.tensorsolve(T.tensor(SINGULAR), T.tensor(R(2))),
])
def test_errors(prog):
    same_error(prog)


def test_matrix_rank_resize_warning_when_tolerances_broadcast():
    same_warnings(lambda T: T.linalg.matrix_rank(T.tensor(np.diag([1., 1e-3])),
                                                 atol=T.tensor([1e-4, 1e-2])))


def test_linalg_error_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        chainrule.linalg.solve(chainrule.tensor(SINGULAR), chainrule.tensor(R(2)))
    assert issubclass(chainrule.linalg.LinAlgError, RuntimeError)


# ---- out= --------------------------------------------------------------------------------

def _out(fn, *outs):
    def prog(T):
        o = [T.empty(0, dtype=getattr(T, d)) for d in outs]
        r = fn(T, o[0] if len(o) == 1 else tuple(o))
        return r, o, type(r).__name__
    return prog


@pytest.mark.parametrize("prog", [
    _out(lambda T, o: T.linalg.solve(T.tensor(WC(3, 3)), T.tensor(R(3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.solve_ex(T.tensor(WC(3, 3)), T.tensor(R(3, 2)), out=o),
         "float64", "int32"),
    _out(lambda T, o: T.linalg.eig(T.tensor(np.diag([1., 2, 3])), out=o), "complex128",
         "complex128"),
    _out(lambda T, o: T.linalg.eigvals(T.tensor(R(3, 3)), out=o), "complex128"),
    _out(lambda T, o: T.linalg.eigh(T.tensor(SPD(3, 3)), out=o), "float64", "float64"),
    _out(lambda T, o: T.linalg.eigvalsh(T.tensor(SPD(3, 3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.lstsq(T.tensor(R(4, 3)), T.tensor(R(4, 2)), driver="gelsd",
                                     out=o), "float64", "float64", "int64", "float64"),
    _out(lambda T, o: T.linalg.lu(T.tensor(R(3, 3)), out=o), "float64", "float64", "float64"),
    _out(lambda T, o: T.linalg.norm(T.tensor(R(3, 3)), "nuc", out=o), "float64"),
    _out(lambda T, o: T.linalg.matrix_norm(T.tensor(R(3, 3)), 1, out=o), "float64"),
    _out(lambda T, o: T.linalg.cond(T.tensor(R(3, 3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.matrix_rank(T.tensor(R(3, 3)), out=o), "int64"),
    _out(lambda T, o: T.linalg.vecdot(T.tensor(R(3, 3)), T.tensor(R(3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.matmul(T.tensor(R(3, 3)), T.tensor(R(3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.tensorinv(T.tensor(WC(3, 3)), 1, out=o), "float64"),
    _out(lambda T, o: T.linalg.tensorsolve(T.tensor(WC(3, 3)), T.tensor(R(3)), out=o),
         "float64"),
    _out(lambda T, o: T.linalg.inv(T.tensor(WC(3, 3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.det(T.tensor(WC(3, 3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.svdvals(T.tensor(R(3, 4)), out=o), "float64"),
    _out(lambda T, o: T.linalg.pinv(T.tensor(R(3, 4)), out=o), "float64"),
])
def test_out(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    _out(lambda T, o: T.linalg.solve(T.tensor(WC(3, 3)), T.tensor(R(3)), out=o), "float32"),
    _out(lambda T, o: T.linalg.eigvals(T.tensor(R(3, 3)), out=o), "float64"),
    _out(lambda T, o: T.linalg.norm(T.tensor(R(3, 3)), out=o), "float32"),
    _out(lambda T, o: T.linalg.matrix_norm(T.tensor(R(3, 3)), out=o), "int64"),
    _out(lambda T, o: T.linalg.cond(T.tensor(R(3, 3)), out=o), "int64"),
    _out(lambda T, o: T.linalg.vecdot(T.tensor(R(3)), T.tensor(R(3)), out=o), "float32"),
    _out(lambda T, o: T.linalg.tensorinv(T.tensor(WC(3, 3)), 1, out=o), "int64"),
    _out(lambda T, o: T.linalg.solve_triangular(T.tensor(WC(3, 3)), T.tensor(R(3, 1)),
                                                upper=True, out=o), "float32"),
    _out(lambda T, o: T.linalg.multi_dot([T.tensor(R(3, 3)), T.tensor(R(3, 3))], out=o),
         "float32"),
    lambda T: T.linalg.eigh(T.eye(3), out=1),
    lambda T: T.linalg.eigh(T.eye(3), out=(T.empty(0), 2)),
    lambda T: T.linalg.solve_ex(T.eye(3), T.ones(3), out=T.empty(0)),
    lambda T: T.linalg.matmul(T.eye(3), T.eye(3), out=1),
    lambda T: T.linalg.solve(T.tensor(WC(3, 3), requires_grad=True), T.tensor(R(3)),
                             out=T.empty(3, dtype=T.float64)),
])
def test_out_errors(prog):
    same_error(prog)
