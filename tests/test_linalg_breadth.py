"""Products, distances, decompositions and solvers beyond the op database: dtypes (integer,
bool, complex), in-place and out= variants, broadcasting, empty inputs, warnings and errors,
each a program run on chainrule and on PyTorch."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.linalg  # noqa: F401  (the namespace, until the package exports it)
from chainrule.ops import shape as _shape

from helpers import same, same_error, warnings_of


def R(*shape, seed=0):
    """Normal values fixed by shape and seed: a program calls it once per library."""
    return np.asarray(np.random.default_rng([seed, *shape]).standard_normal(shape))


def C(*shape, seed=0):
    return R(*shape, seed=seed) + 1j * R(*shape, seed=seed + 1)


def grads(f, *arrays, seed=5):
    """A program: f on leaves made from `arrays`, then the gradient of a weighted sum."""
    def prog(T):
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        out = f(T, *xs)
        outs = out if isinstance(out, tuple) else (out,)
        w = np.random.default_rng(seed)
        loss = sum((o * T.tensor(w.standard_normal(tuple(o.shape)), dtype=o.dtype)).sum()
                   for o in outs if o.requires_grad)
        return out, T.autograd.grad(loss, xs, allow_unused=True)
    return prog


# ---- integer, bool and complex dtypes -----------------------------------------------------

INT = np.arange(12).reshape(3, 4) - 5
BOOL = INT % 3 == 0


@pytest.mark.parametrize("prog", [
    lambda T: T.kron(T.tensor(INT), T.tensor(INT[:2, :2])),
    lambda T: T.kron(T.tensor(BOOL), T.tensor(BOOL[:1])),
    lambda T: T.kron(T.tensor(INT), T.tensor(R(2))),
    lambda T: T.kron(T.tensor(C(2, 2)), T.tensor(R(2))),
    lambda T: T.cross(T.tensor(INT[:, :3]), T.tensor(INT[:, 1:]), dim=1),
    lambda T: T.cross(T.tensor(R(3, 2)), T.tensor(R(3, 1)), dim=0),
    lambda T: T.tensordot(T.tensor(INT), T.tensor(INT.T), 1),
    lambda T: T.tensordot(T.tensor(C(2, 3)), T.tensor(C(3, 2)), ([1], [0])),
    lambda T: T.inner(T.tensor(INT), T.tensor(INT)),
    lambda T: T.inner(T.tensor(3), T.tensor(INT)),
    lambda T: T.vdot(T.tensor(INT[0]), T.tensor(INT[1])),
    lambda T: T.vdot(T.tensor(C(4)), T.tensor(C(4))),
    lambda T: T.dot(T.tensor(C(4)), T.tensor(C(4))),
    lambda T: T.addmv(T.tensor(INT[:, 0]), T.tensor(INT), T.tensor(INT[0]), beta=2, alpha=3),
    lambda T: T.addmv(T.tensor(C(3)), T.tensor(C(3, 4)), T.tensor(C(4)), alpha=1j),
    lambda T: T.addr(T.tensor(INT), T.tensor(INT[:, 0]), T.tensor(INT[0]), beta=2, alpha=-1),
    lambda T: T.addr(T.tensor(BOOL), T.tensor(BOOL[:, 0]), T.tensor(BOOL[0])),
    lambda T: T.addr(T.tensor(BOOL), T.tensor(BOOL[:, 0]), T.tensor(BOOL[0]), beta=0),
    lambda T: T.addr(T.tensor(INT), T.tensor(R(3)), T.tensor(INT[0])),
    lambda T: T.addr(T.tensor(R(3, 4)).float(), T.tensor(INT[:, 0]), T.tensor(INT[0])),
    lambda T: T.baddbmm(T.tensor(INT[:1, :1]), T.tensor(np.stack([INT, INT])),
                        T.tensor(np.stack([INT.T, INT.T])), beta=-1, alpha=2),
    lambda T: T.addbmm(T.tensor(INT[:1, :1]), T.tensor(np.stack([INT, INT])),
                       T.tensor(np.stack([INT.T, INT.T]))),
    lambda T: T.matrix_power(T.tensor(INT[:3, :3]), 3),
    lambda T: T.matrix_power(T.tensor(INT[:3, :3]), 0),
    lambda T: T.matrix_power(T.tensor(C(3, 3)), -2),
    lambda T: T.matrix_exp(T.tensor(C(2, 3, 3))),
    lambda T: T.matrix_exp(T.tensor(R(3, 3)).float()),
    lambda T: T.matrix_exp(T.tensor(R(2, 0, 0))),
    lambda T: T.chain_matmul(T.tensor(INT), T.tensor(INT.T), T.tensor(INT)),
    lambda T: T.cosine_similarity(T.tensor(INT), T.tensor(R(3, 4))),
    lambda T: T.pairwise_distance(T.tensor(INT), T.tensor(INT[::-1].copy())),
    lambda T: T.pairwise_distance(T.tensor(R(4)), T.tensor(R(4)), keepdim=True),
    lambda T: T.pairwise_distance(T.tensor(1.5), T.tensor(0.5)),
    lambda T: T.cdist(T.tensor(R(3, 4)).float(), T.tensor(R(2, 4)).float()),
    lambda T: T.cdist(T.tensor(R(0, 4)), T.tensor(R(2, 4))),
    lambda T: T.cdist(T.tensor(R(3, 0)), T.tensor(R(2, 0))),
    lambda T: T.pdist(T.tensor(R(1, 3))),
    lambda T: T.pdist(T.tensor(R(4, 0))),
], ids=lambda f: f.__code__.co_firstlineno)
def test_values_and_dtypes(prog):
    same(prog)


# ---- gradients beyond the op database: complex, broadcasting, special points ---------------

@pytest.mark.parametrize("prog", [
    grads(lambda T, a, b: T.vdot(a, b).abs(), C(4), C(4)),
    grads(lambda T, a, b: T.cross(a, b, dim=-1).abs(), C(2, 3), C(2, 3)),
    grads(lambda T, a: T.matrix_exp(a).abs(), C(3, 3)),
    grads(lambda T, a, b: T.cdist(a, b), np.array([[0., 1.], [2., 2.]]), np.array([[0., 1.]])),
    grads(lambda T, a, b: T.cdist(a, b, p=0.5), np.array([[0., 1.], [2., 2.]]),
          np.array([[0., 3.]])),
    grads(lambda T, a, b: T.cdist(a, b, p=float("inf")), np.array([[1., 1.], [2., -2.]]),
          np.array([[0., 0.]])),
    grads(lambda T, a: T.pdist(a), np.array([[0., 1.], [0., 1.], [2., 1.]])),
    grads(lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
          np.array([[0., 1.], [2., 2.]]), np.array([[0., 1.], [1., 1.]])),
    grads(lambda T, a, b: T.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
          R(30, 3), R(4, 3)),
    grads(lambda T, a, b: T.cdist(a, b), R(2, 30, 3), R(2, 4, 3)),
    grads(lambda T, a, b: T.cdist(a, b), R(30, 3), R(2, 4, 3)),
    grads(lambda T, a, b: T.cosine_similarity(a, b, dim=0), np.zeros(3), R(3)),
    grads(lambda T, c, a, b: T.addmm(c, a, b, beta=0), np.full((2, 2), np.nan), R(2, 3), R(3, 2)),
    grads(lambda T, c, a, b: T.addmv(c, a, b, beta=0), np.full(2, np.nan), R(2, 3), R(3)),
    grads(lambda T, c, a, b: T.addr(c, a, b, beta=0), np.full((2, 3), np.nan), R(2), R(3)),
    grads(lambda T, c, a, b: T.baddbmm(c, a, b, beta=0), np.full((2, 2), np.nan), R(2, 2, 3),
          R(2, 3, 2)),
    grads(lambda T, c, a, b: T.addbmm(c, a, b, beta=0, alpha=0), np.full((2, 2), np.nan),
          R(2, 2, 3), R(2, 3, 2)),
    grads(lambda T, a: T.matrix_power(a, 6), R(3, 3)),
    grads(lambda T, a: T.matrix_power(a, 7), R(2, 3, 3)),
    grads(lambda T, a: T.matrix_exp(a), R(3, 3) * 20),
])
def test_gradients(prog):
    same(prog, atol=1e-6, rtol=1e-6)


def test_matrix_exp_second_order():
    def prog(T):
        a = T.tensor(R(3, 3) * 0.7, requires_grad=True)
        g, = T.autograd.grad(T.matrix_exp(a).sum(), a, create_graph=True)
        return g, T.autograd.grad((g * g).sum(), a)
    same(prog)


def test_cdist_double_backward_runs():
    # PyTorch's _cdist_backward has no derivative; ours is differentiable: check it by
    # finite differences instead
    x1 = chainrule.tensor(R(3, 2), requires_grad=True)
    x2 = chainrule.tensor(R(4, 2), requires_grad=True)
    for p in (1.0, 1.5, 2.0, 3.0):
        assert chainrule.autograd.gradgradcheck(lambda a, b: chainrule.cdist(a, b, p=p), (x1, x2))


# ---- in-place variants --------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.tensor(R(3)).addmv_(T.tensor(R(3, 4)), T.tensor(R(4)), beta=2),
    lambda T: T.addmv_(T.tensor(R(3)), T.tensor(R(3, 4)), T.tensor(R(4)), alpha=0.5),
    lambda T: T.tensor(R(3, 4)).addr_(T.tensor(R(3)), T.tensor(R(4)), beta=0.5),
    lambda T: T.tensor(INT).addr_(T.tensor(INT[:, 0]), T.tensor(INT[0])),
    lambda T: T.tensor(R(2, 3, 5)).baddbmm_(T.tensor(R(2, 3, 4)), T.tensor(R(2, 4, 5))),
    lambda T: T.tensor(R(3, 5)).addbmm_(T.tensor(R(2, 3, 4)), T.tensor(R(2, 4, 5)), beta=0),
    grads(lambda T, c, a, b: c * 1 + c.clone().addmv_(a, b), R(3), R(3, 4), R(4)),
    grads(lambda T, c, a, b: c.clone().addr_(a, b, alpha=2), R(3, 4), R(3), R(4)),
], ids=lambda f: f.__code__.co_firstlineno)
def test_inplace(prog):
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(1).addmv_(T.ones(3, 4), T.ones(4)),
    lambda T: T.zeros(3, 1).addr_(T.ones(3), T.ones(4)),
    lambda T: T.zeros(3, 4, dtype=T.long).addr_(T.ones(3), T.ones(4)),
    lambda T: T.zeros(1, 3, 5).baddbmm_(T.ones(2, 3, 4), T.ones(2, 4, 5)),
    lambda T: T.zeros(3, dtype=T.long).addmv_(T.ones(3, 4), T.ones(4)),
    lambda T: T.tensor(R(3), requires_grad=True).addmv_(T.ones(3, 4).double(),
                                                        T.ones(4).double()),
], ids=lambda f: f.__code__.co_firstlineno)
def test_inplace_errors(prog):
    same_error(prog)


# ---- out= ---------------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.tensordot(T.tensor(R(2, 3)), T.tensor(R(3, 2)), 1, out=T.empty(0).double()),
    lambda T: T.inner(T.tensor(R(2, 3)), T.tensor(R(2, 3)), out=T.empty(2, 2).double()),
    lambda T: T.kron(T.tensor(R(2, 2)), T.tensor(R(2)), out=T.empty(0).double()),
    lambda T: T.addmv(T.tensor(R(3)), T.tensor(R(3, 4)), T.tensor(R(4)), out=T.empty(3).double()),
    lambda T: T.chain_matmul(T.tensor(R(2, 3)), T.tensor(R(3, 2)), out=T.empty(0).double()),
    lambda T: T.chain_matmul(T.tensor(R(2, 3)), out=T.empty(0, dtype=T.int32)),
    lambda T: T.matrix_power(T.tensor(R(3, 3)), 3, out=T.empty(3, 3).double()),
    lambda T: T.cross(T.tensor(R(3)), T.tensor(R(3)), dim=0, out=T.empty(3).double()),
], ids=lambda f: f.__code__.co_firstlineno)
def test_out(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)


def test_tensordot_out_with_grad_records_the_copy():
    def prog(T):
        a = T.tensor(R(2, 3), requires_grad=True)
        out = T.empty(2, 2).double()
        r = T.tensordot(a, T.tensor(R(3, 2)), 1, out=out)
        return r is out, out, T.autograd.grad(out.sum(), a)
    same(prog)


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2).long(), 1),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), -1),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), 3),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), ([0], [1])),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), ([0, 1], [0])),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), "a"),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), T.tensor([[0, 1]])),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(2, 3), T.tensor(-1)),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), 1, out=T.empty(0).long()),
    lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 2), 1, out=T.empty(0, requires_grad=True)),
    lambda T: T.kron(T.ones(2, 2).t(), T.ones(2)),
    lambda T: T.cross(T.ones(3), T.ones(3).long(), dim=0),
    lambda T: T.cross(T.ones(3) > 0, T.ones(3) > 0, dim=0),
    lambda T: T.cross(T.ones(2, 3), T.ones(4, 1, 3), dim=-1),
    lambda T: T.cross(T.ones(2, 4), T.ones(2, 4), dim=1),
    lambda T: T.cross(T.ones(2, 3), T.ones(2, 3), dim=2),
    lambda T: T.cross(T.ones(3, 2), T.ones(1, 2), dim=0),
    lambda T: T.inner(T.ones(2, 3), T.ones(2, 4)),
    lambda T: T.inner(T.ones(2, 3), T.ones(2, 3).long()),
    lambda T: T.inner(T.ones(2, 3) > 0, T.ones(2, 3) > 0),
    lambda T: T.vdot(T.ones(3), T.ones(4)),
    lambda T: T.vdot(T.ones(3, 1), T.ones(3, 1)),
    lambda T: T.vdot(T.ones(3).long(), T.ones(3)),
    lambda T: T.vdot(T.ones(3) > 0, T.ones(3) > 0),
    lambda T: T.cdist(T.ones(2, 3).long(), T.ones(2, 3).long()),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3).double()),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1),
    lambda T: T.cdist(T.ones(3), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode="x"),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.complex128), T.ones(2, 3, dtype=T.complex128)),
    lambda T: T.pdist(T.ones(2, 3).long()),
    lambda T: T.pdist(T.ones(3)),
    lambda T: T.pdist(T.ones(2, 3), -1),
    lambda T: T.addmv(T.ones(3), T.ones(3, 4).long(), T.ones(4).long()),
    lambda T: T.addmv(T.ones(3), T.ones(3, 4), T.ones(5)),
    lambda T: T.addmv(T.ones(4), T.ones(3, 4), T.ones(4)),
    lambda T: T.addmv(T.ones(3), T.ones(3, 4), T.ones(4).double()),
    lambda T: T.addmv(T.ones(3) > 0, T.ones(3, 4) > 0, T.ones(4) > 0),
    lambda T: T.addmv(T.ones(3).long(), T.ones(3, 4).long(), T.ones(4).long(), beta=1j),
    lambda T: T.addr(T.ones(3, 4), T.ones(3, 1), T.ones(4)),
    lambda T: T.addr(T.ones(2, 4), T.ones(3), T.ones(4)),
    lambda T: T.addr(T.ones(3, 4).long(), T.ones(3).long(), T.ones(4).long(), beta=1.5),
    lambda T: T.addr(T.ones(3, 4).long(), T.ones(3).long(), T.ones(4).long(), alpha=True),
    lambda T: T.addr(T.ones(3, 4), T.ones(3), T.ones(4), beta=1j),
    lambda T: T.baddbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(2, 4, 5).double()),
    lambda T: T.baddbmm(T.zeros(5).double(), T.ones(2, 3, 4), T.ones(2, 4, 5)),
    lambda T: T.baddbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(2, 3, 5)),
    lambda T: T.baddbmm(T.zeros(5), T.ones(3, 4), T.ones(2, 4, 5)),
    lambda T: T.baddbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(4, 5)),
    lambda T: T.baddbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(5)),
    lambda T: T.baddbmm(T.zeros(2, 3, 5) > 0, T.ones(2, 3, 4) > 0, T.ones(2, 4, 5) > 0),
    lambda T: T.addbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(2, 4, 5).double()),
    lambda T: T.addbmm(T.zeros(5).double(), T.ones(2, 3, 4), T.ones(2, 4, 5)),
    lambda T: T.addbmm(T.zeros(5), T.ones(2, 3, 4), T.ones(2, 3, 5)),
    lambda T: T.addbmm(T.zeros(5), T.ones(3, 4), T.ones(2, 4, 5)),
    lambda T: T.addbmm(T.zeros(3, 5) > 0, T.ones(2, 3, 4) > 0, T.ones(2, 4, 5) > 0),
    lambda T: T.chain_matmul(),
    lambda T: T.chain_matmul(T.ones(3, 4), T.ones(3, 4)),
    lambda T: T.chain_matmul(T.ones(3, 4), T.ones(4)),
    lambda T: T.chain_matmul(T.ones(3, 4), T.ones(4, 2).long()),
    lambda T: T.chain_matmul(T.ones(3, 4), T.ones(4, 2), out=T.empty(0).long()),
    lambda T: T.matrix_power(T.ones(3, 4), 2),
    lambda T: T.matrix_power(T.ones(3), 2),
    lambda T: T.matrix_power(T.ones(3, 3).long(), -1),
    lambda T: T.matrix_power(T.ones(3, 3) > 0, 2),
    lambda T: T.matrix_power(T.ones(3, 3), -1),
    lambda T: T.matrix_power(T.ones(2, 3, 3), -2),
    lambda T: T.matrix_exp(T.ones(3, 3).long()),
    lambda T: T.matrix_exp(T.ones(3, 4)),
    lambda T: T.matrix_exp(T.ones(3)),
    lambda T: T.cosine_similarity(T.ones(2, 3).long(), T.ones(2, 3).long()),
    lambda T: T.cosine_similarity(T.ones(2, 3), T.ones(2, 4)),
], ids=lambda f: f.__code__.co_firstlineno)
def test_errors(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(prog)


# ---- warnings -----------------------------------------------------------------------------

def _torch_warnings(code):
    """The warnings PyTorch emits running `code` in a fresh process (TORCH_WARN_ONCE fires once
    per process, so a warning already seen here would not show)."""
    src = ("import torch, warnings\nwarnings.simplefilter('always')\n"
           "with warnings.catch_warnings(record=True) as w:\n"
           f"    {code}\n"
           "print(repr([str(x.message).split(' (Triggered internally at ')[0] for x in w]))")
    out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True)
    return eval(out.stdout)


@pytest.mark.parametrize("code", [
    "torch.cross(torch.ones(3, 2), torch.ones(3, 2)); torch.cross(torch.ones(3), torch.ones(3))",
    "torch.chain_matmul(torch.ones(2, 3), torch.ones(3, 2)); torch.chain_matmul(torch.ones(2, 2))",
])
def test_warn_once(code):
    theirs = _torch_warnings(code)
    assert len(theirs) == 1
    _shape._warned.clear()
    ours = [m for _, m in warnings_of(lambda: exec(code, {"torch": chainrule}))]
    assert ours == theirs


def test_cross_default_dim():
    # the first dim of size 3 of input, not linalg.cross's last
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda T: T.cross(T.tensor(R(3, 3, 2)), T.tensor(R(3, 3, 2))))
        same_error(lambda T: T.cross(T.ones(2, 4), T.ones(2, 4)))


def test_top_level_distances_are_functionals():
    # torch.nn.functional.cosine_similarity / pairwise_distance are these very functions
    assert torch.nn.functional.cosine_similarity is torch.cosine_similarity
    assert torch.nn.functional.pairwise_distance is torch.pairwise_distance
    same(lambda T: (T.cosine_similarity(T.tensor(R(2, 3)), T.tensor(R(2, 3, seed=1)), eps=1e-3),
                    T.pairwise_distance(T.tensor(R(2, 3)), T.tensor(R(2, 3, seed=1)), p=0.5)))


# ==== decompositions and solvers ===========================================================

def _wc(*shape, seed=0):
    return R(*shape, seed=seed) + 3 * np.eye(shape[-1])


def _spd(*shape, seed=0):
    a = R(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


SINGULAR = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]])


@pytest.mark.parametrize("prog", [
    lambda T: T.det(T.tensor(_wc(3, 3)).float()),
    lambda T: T.det(T.tensor(C(2, 3, 3))),
    lambda T: T.det(T.tensor(R(0, 0))),
    lambda T: T.det(T.tensor(R(2, 0, 0))),
    lambda T: T.det(T.tensor(SINGULAR)),
    lambda T: T.slogdet(T.tensor(SINGULAR)),
    lambda T: T.slogdet(T.tensor(-_spd(2, 3, 3))),
    lambda T: T.slogdet(T.tensor(C(3, 3))),
    lambda T: T.logdet(T.tensor(-_spd(3, 3))),
    lambda T: T.logdet(T.tensor(C(3, 3))),
    lambda T: T.inverse(T.tensor(C(2, 3, 3))),
    lambda T: T.inverse(T.tensor(R(0, 0))),
    lambda T: T.tensor(_wc(3, 3)).float().inverse(),
    lambda T: T.pinverse(T.tensor(R(4, 3)), rcond=0.5),
    lambda T: T.pinverse(T.tensor(C(3, 4))),
    lambda T: T.pinverse(T.tensor(np.zeros((3, 2)))),
    lambda T: T.pinverse(T.tensor(R(0, 3))),
    lambda T: T.cholesky(T.tensor(_spd(2, 3, 3)), upper=True),
    lambda T: T.cholesky_solve(T.tensor(R(3, 2)).float(), T.tensor(np.linalg.cholesky(_spd(3, 3))).float()),
    lambda T: T.cholesky_inverse(T.tensor(np.linalg.cholesky(_spd(2, 3, 3)))),
    lambda T: T.qr(T.tensor(R(4, 3))),
    lambda T: T.qr(T.tensor(R(4, 3)), some=False),
    lambda T: T.qr(T.tensor(R(2, 3, 5)).float()),
    lambda T: T.qr(T.tensor(C(4, 3))),
    lambda T: T.qr(T.tensor(R(0, 3))),
    lambda T: T.svd(T.tensor(R(4, 3)))[1],
    lambda T: [t.shape for t in T.svd(T.tensor(R(4, 3)), some=False)],
    lambda T: T.svd(T.tensor(R(2, 4, 3)), compute_uv=False),
    lambda T: T.svd(T.tensor(C(3, 4)))[1],
    lambda T: T.svd(T.tensor(R(0, 3))),
    lambda T: T.lu(T.tensor(R(4, 3))),
    lambda T: T.lu(T.tensor(R(2, 3, 5)), get_infos=True),
    lambda T: T.lu(T.tensor(SINGULAR), get_infos=True),
    lambda T: T.lu(T.tensor(np.array([[0., 1.], [1., 1.], [2., 1.]]))),
    lambda T: T.lu(T.tensor(C(3, 3))),
    lambda T: T.lu_unpack(*T.linalg.lu_factor(T.tensor(R(2, 4, 3)))),
    lambda T: T.lu_unpack(*T.linalg.lu_factor(T.tensor(R(3, 3))), unpack_data=False),
    lambda T: T.lu_unpack(*T.linalg.lu_factor(T.tensor(R(3, 3))), unpack_pivots=False),
    lambda T: T.lu_solve(T.tensor(R(3, 2)), *T.lu(T.tensor(_wc(3, 3)))),
    lambda T: T.lu_solve(T.tensor(C(3, 2)), *T.lu(T.tensor(C(3, 3)))),
    lambda T: T.triangular_solve(T.tensor(R(3, 2)), T.tensor(_wc(3, 3))),
    lambda T: T.triangular_solve(T.tensor(R(2, 3, 2)), T.tensor(_wc(3, 3)), upper=False,
                                 transpose=True, unitriangular=True),
    lambda T: T.triangular_solve(T.tensor(R(3, 2)), T.tensor(np.triu(np.ones((3, 3))) - np.eye(3))),
    lambda T: T.geqrf(T.tensor(R(4, 3))),
    lambda T: T.geqrf(T.tensor(C(2, 3, 3))),
    lambda T: T.orgqr(*T.geqrf(T.tensor(R(4, 3)))),
    lambda T: T.tensor(R(4, 3)).orgqr(T.tensor(R(2))),
    lambda T: T.ormqr(*T.geqrf(T.tensor(R(4, 3))), T.tensor(R(4, 2))),
    lambda T: T.ormqr(*T.geqrf(T.tensor(R(4, 3))), T.tensor(R(2, 4)), left=False, transpose=True),
    lambda T: T.tensor(R(4, 3)).geqrf()[0].ormqr(T.tensor(R(3)), T.tensor(R(4, 4)), transpose=True),
], ids=lambda f: f.__code__.co_firstlineno)
def test_decomposition_values(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("prog", [
    lambda T: (T.linalg.inv(T.tensor(_wc(3, 3))), T.linalg.inv_ex(T.tensor(_wc(3, 3)))),
    lambda T: (T.linalg.det(T.tensor(_wc(3, 3))), T.linalg.slogdet(T.tensor(_wc(3, 3)))),
    lambda T: (T.linalg.cholesky(T.tensor(_spd(3, 3))), T.linalg.cholesky_ex(T.tensor(_spd(3, 3)))),
    lambda T: T.linalg.qr(T.tensor(R(4, 3)), mode="r")[1],
    lambda T: (T.linalg.svd(T.tensor(R(4, 3)))[1], T.linalg.svdvals(T.tensor(R(4, 3)))),
    lambda T: (T.linalg.lu_factor(T.tensor(R(4, 3))), T.linalg.lu_factor_ex(T.tensor(SINGULAR))),
    lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(T.tensor(_wc(3, 3))), T.tensor(R(3, 2))),
    lambda T: T.linalg.solve_triangular(T.tensor(_wc(3, 3)), T.tensor(R(3, 2)), upper=True),
    lambda T: T.linalg.pinv(T.tensor(R(4, 3))),
    lambda T: T.linalg.householder_product(*T.geqrf(T.tensor(R(4, 3)))),
    lambda T: T.linalg.matrix_power(T.tensor(_wc(3, 3)), -2),
    lambda T: T.linalg.matrix_exp(T.tensor(R(3, 3))),
    lambda T: T.linalg.multi_dot([T.tensor(R(2, 3)), T.tensor(R(3, 4)), T.tensor(R(4))]),
    lambda T: T.linalg.cross(T.tensor(R(2, 3)), T.tensor(R(1, 3))),
    lambda T: T.linalg.vector_norm(T.tensor(R(2, 3)), 3, dim=1),
], ids=lambda f: f.__code__.co_firstlineno)
def test_linalg_namespace(prog):
    same(prog)


# ---- gradients: gauge-invariant losses, special points, batching --------------------------

def _svd_gauge(T, a):
    U, S, V = T.svd(a)
    return S, (U * S.unsqueeze(-2).to(U.dtype)) @ V.mH, (U @ U.mH).abs(), (V @ V.mH).abs()


@pytest.mark.parametrize("prog", [
    grads(_svd_gauge, R(2, 4, 3)),
    grads(_svd_gauge, R(3, 5)),
    grads(lambda T, a: tuple(t.abs() for t in _svd_gauge(T, a)), C(4, 3)),
    grads(lambda T, a: (lambda u, s, v: (u[..., 0:1] @ v[..., 0:1].mT, s))(*T.svd(a, some=False)),
          R(4, 3)),
    grads(lambda T, a: T.svd(a, compute_uv=False)[1], R(3, 4)),
    grads(lambda T, a: (lambda q, r: ((q @ r).abs(), (q @ q.mH).abs(), r.abs()))(*T.qr(a)),
          C(4, 3)),
    grads(lambda T, a: T.qr(a, some=False), R(3, 5)),
    grads(lambda T, a: T.det(a).abs(), C(3, 3)),
    grads(lambda T, a: T.det(a), SINGULAR),
    grads(lambda T, a: T.slogdet(a)[1], C(2, 3, 3)),
    grads(lambda T, a: (lambda s, l: (s.abs(), l))(*T.slogdet(a)), C(3, 3)),
    grads(lambda T, a: T.logdet(a), _spd(2, 3, 3)),
    grads(lambda T, a: T.inverse(a).abs(), C(3, 3)),
    grads(lambda T, a: T.pinverse(a).abs(), C(3, 4)),
    grads(lambda T, a: T.cholesky(a @ a.mH + 3 * T.eye(3, dtype=a.dtype)).abs(), C(3, 3)),
    grads(lambda T, b, l: T.cholesky_solve(b, l.tril()).abs(), C(3, 2), C(3, 3) + 3 * np.eye(3)),
    grads(lambda T, a: T.lu(a)[0], R(3, 5)),
    grads(lambda T, a: T.lu(a)[0].abs(), C(4, 3)),
    grads(lambda T, b, a: T.lu_solve(b, *T.lu(a)).abs(), C(3, 2), C(3, 3) + 3 * np.eye(3)),
    grads(lambda T, b, a: T.triangular_solve(b, a.triu()), R(2, 3, 2), _wc(2, 3, 3)),
    grads(lambda T, b, a: T.triangular_solve(b, a.tril(), upper=False, transpose=True), R(3, 2),
          _wc(3, 3)),
])
def test_decomposition_gradients(prog):
    same(prog, atol=1e-6, rtol=1e-6)


def test_det_second_order_at_a_singular_matrix():
    # PyTorch switches to the SVD formula under create_graph: the adjugate, not zero
    def prog(T):
        a = T.tensor(SINGULAR, requires_grad=True)
        g, = T.autograd.grad(T.det(a), a, create_graph=True)
        return g, T.autograd.grad(g[0, 0], a)
    same(prog)


def test_lowrank():
    def prog(T):
        T.manual_seed(3)
        a = T.tensor(R(7, 5), requires_grad=True)
        U, S, V = T.svd_lowrank(a, q=4, niter=3)
        Up, Sp, Vp = T.pca_lowrank(a, q=3)
        rec = (U * S.unsqueeze(-2)) @ V.mT
        return S, Sp, rec, (Up @ Up.mT), T.autograd.grad(rec.sum() + Sp.sum(), a)
    same(prog)


# ---- errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.inverse(T.zeros(2, 2)),
    lambda T: T.inverse(T.stack([T.eye(3), T.zeros(3, 3)])),
    lambda T: T.inverse(T.ones(2, 3)),
    lambda T: T.inverse(T.ones(3)),
    lambda T: T.inverse(T.ones(2, 2).long()),
    lambda T: T.linalg.inv_ex(T.zeros(2, 2), check_errors=True),
    lambda T: T.det(T.ones(2, 2).long()),
    lambda T: T.det(T.ones(2, 3)),
    lambda T: T.logdet(T.ones(2, 3)),
    lambda T: T.logdet(T.ones(2, 2).long()),
    lambda T: T.slogdet(T.ones(2)),
    lambda T: T.pinverse(T.ones(2).long()),
    lambda T: T.pinverse(T.ones(2, 3).long()),
    lambda T: T.cholesky(T.tensor([[1., 2.], [2., 1.]])),
    lambda T: T.cholesky(T.stack([T.eye(2), T.tensor([[1., 2.], [2., 1.]])])),
    lambda T: T.cholesky(T.ones(2, 3)),
    lambda T: T.linalg.cholesky(T.tensor([[1., 2.], [2., 1.]])),
    lambda T: T.linalg.cholesky_ex(T.tensor([[1., 2.], [2., 1.]]), check_errors=True),
    lambda T: T.cholesky_solve(T.ones(2, 1), T.ones(2, 2).long()),
    lambda T: T.cholesky_solve(T.ones(3, 1), T.eye(2)),
    lambda T: T.cholesky_inverse(T.ones(2, 3)),
    lambda T: T.qr(T.ones(3)),
    lambda T: T.linalg.qr(T.ones(3, 3), mode="x"),
    lambda T: T.svd(T.ones(3)),
    lambda T: T.linalg.svdvals(T.ones(3)),
    lambda T: T.lu(T.ones(3)),
    lambda T: T.linalg.lu_factor_ex(T.ones(3)),
    lambda T: T.geqrf(T.ones(3)),
    lambda T: T.svd(T.ones(3, 3).long()),
    lambda T: T.lu_unpack(T.ones(3, 3), T.ones(3).long()),
    lambda T: T.triangular_solve(T.ones(3, 2), T.ones(3, 3).double()),
    lambda T: T.triangular_solve(T.ones(2, 2), T.ones(3, 3)),
    lambda T: T.orgqr(T.ones(2, 3), T.ones(2)),
    lambda T: T.lstsq(T.ones(2, 2), T.ones(2, 2)),
    lambda T: T.ones(2, 2).lstsq(T.ones(2, 2)),
    lambda T: T.matrix_rank(T.ones(2, 2)),
    lambda T: T.symeig(T.ones(2, 2)),
    lambda T: T.ones(2, 2).symeig(eigenvectors=True),
    lambda T: T.eig(T.ones(2, 2)),
    lambda T: T.ones(2, 2).eig(),
    lambda T: T.pca_lowrank(T.ones(3, 2), q=3),
    lambda T: T.pca_lowrank(T.ones(3, 2), niter=-1),
    # gradients PyTorch refuses
    lambda T: T.linalg.qr(T.ones(4, 3, requires_grad=True), mode="complete")[0].sum().backward(),
    lambda T: T.linalg.qr(T.ones(3, 3, requires_grad=True), mode="r")[1].sum().backward(),
    lambda T: T.svd(T.tensor(C(3, 3), requires_grad=True))[0].sum().abs().backward(),
    lambda T: T.geqrf(T.ones(3, 3, requires_grad=True))[0].sum().backward(),
    lambda T: T.orgqr(*T.geqrf(T.tensor(R(4, 3), requires_grad=True))).sum().backward(),
], ids=lambda f: f.__code__.co_firstlineno)
def test_decomposition_errors(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(prog)


def test_linalg_error_class():
    assert chainrule.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__
    assert issubclass(chainrule.linalg.LinAlgError, RuntimeError)
    with pytest.raises(chainrule.linalg.LinAlgError):
        chainrule.inverse(chainrule.zeros(2, 2))


@pytest.mark.parametrize("code", [
    "torch.cholesky(torch.eye(2)); torch.cholesky(torch.eye(2))",
    "torch.qr(torch.eye(2)); torch.qr(torch.eye(2))",
    "torch.lu(torch.eye(2)); torch.lu(torch.eye(2))",
    "torch.lu_solve(torch.ones(2, 1), *torch.lu(torch.eye(2)))",
    "torch.triangular_solve(torch.ones(2, 1), torch.eye(2)); "
    "torch.triangular_solve(torch.ones(2, 1), torch.eye(2))",
])
def test_decomposition_warn_once(code):
    theirs = _torch_warnings(code)
    _shape._warned.clear()
    ours = [m for _, m in warnings_of(lambda: exec(code, {"torch": chainrule}))]
    assert ours == theirs


@pytest.mark.parametrize("prog", [
    lambda T: T.lu(T.tensor(R(3, 3)), out=(T.empty(0), T.empty(0, dtype=T.int32))),
    lambda T: T.qr(T.tensor(R(4, 3)), out=(T.empty(0).double(), T.empty(0).double())),
    lambda T: T.svd(T.tensor(R(4, 3)), out=tuple(T.empty(0).double() for _ in range(3)))[1],
    lambda T: T.triangular_solve(T.tensor(R(3, 2)), T.tensor(_wc(3, 3)),
                                 out=(T.empty(0).double(), T.empty(0).double())),
    lambda T: T.cholesky_solve(T.tensor(R(3, 2)), T.tensor(np.linalg.cholesky(_spd(3, 3))),
                               out=T.empty(3, 2).double()),
    lambda T: T.geqrf(T.tensor(R(4, 3)), out=(T.empty(0).double(), T.empty(0).double())),
    lambda T: T.inverse(T.tensor(_wc(3, 3)), out=T.empty(0).double()),
], ids=lambda f: f.__code__.co_firstlineno)
def test_decomposition_out(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)


@pytest.mark.parametrize("name", [
    "det", "slogdet", "logdet", "inverse", "pinverse", "cholesky", "qr", "svd", "lu",
    "geqrf", "cholesky_inverse"])
def test_half_is_refused(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda T: getattr(T, name)(T.eye(3).half()))


@pytest.mark.parametrize("prog", [
    lambda T: T.triangular_solve(T.eye(3).half(), T.eye(3).half()),
    lambda T: T.cholesky_solve(T.eye(3).half(), T.eye(3).half()),
    lambda T: T.orgqr(T.eye(3).half(), T.ones(3).half()),
    lambda T: T.lu_solve(T.eye(3).half(), T.eye(3).half(), T.ones(3, dtype=T.int32)),
    lambda T: T.linalg.cholesky(T.eye(3).half()),
], ids=lambda f: f.__code__.co_firstlineno)
def test_half_is_refused_by_solvers(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(prog)


# ---- vander, nuclear_norm -----------------------------------------------------------------

def test_vander_values_graph_and_pytorchs_broken_backward():
    def graph(fn, depth=6):
        if fn is None or depth == 0:
            return None if fn is None else fn.name()
        return (fn.name(), tuple(graph(f, depth - 1) for f, _ in fn.next_functions))

    def prog(T):
        v = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        r = T.vander(v, 4)
        return (r, graph(r.grad_fn), T.vander(v.detach(), increasing=True),
                T.vander(T.tensor([1, 2], dtype=T.int8)), T.vander(T.tensor([True, False])),
                T.vander(T.tensor([1.0, 2.0]), 0), T.vander(T.tensor([2.0], dtype=T.float16)))
    same(prog)
    # ATen overwrites the slice its cumprod saved: backward fails in PyTorch, and so here
    same_error(lambda T: T.vander(T.tensor([1.0, 2.0, 3.0], requires_grad=True), 4).sum()
               .backward())
    same_error(lambda T: T.vander(T.ones(2, 2)))
    same_error(lambda T: T.vander(T.ones(2), -1))


def test_nuclear_norm():
    a = np.random.default_rng(3).standard_normal((2, 3, 4))

    def prog(T):
        x = T.tensor(a, requires_grad=True)
        out = [T.nuclear_norm(x), T.nuclear_norm(x, True), T.nuclear_norm(x, (0, 2)),
               T.nuclear_norm(x, dim=(2, 0), keepdim=True)]
        return out + [T.autograd.grad(sum(o.sum() for o in out), x)[0],
                      T.nuclear_norm(x.detach()[0], out=T.empty(0, dtype=T.float64))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(prog)
        for call in (lambda T: T.nuclear_norm(T.ones(2, 3, 4), dim=(0,)),
                     lambda T: T.nuclear_norm(T.ones(2, 3, 4), dim=(1, 1)),
                     lambda T: T.nuclear_norm(T.ones(3)),
                     lambda T: T.nuclear_norm(T.ones(2, 2, dtype=T.int32)),
                     lambda T: T.nuclear_norm(T.ones(2, 2), out=T.empty(0, dtype=T.float64))):
            same_error(call)


def test_nuclear_norm_warns_once():
    code = ("import warnings, {lib} as T\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    T.nuclear_norm(T.ones(2, 2)); T.nuclear_norm(T.ones(2, 2))\n"
            "print(len(w), str(w[0].message).split(' (Triggered')[0])")
    out = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                          text=True, check=True).stdout for lib in ("torch", "chainrule")]
    assert out[0] == out[1] and out[0].startswith("1 ")
