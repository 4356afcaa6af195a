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
], ids=lambda f: str(f))
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
