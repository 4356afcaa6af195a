"""Op-database entries for the matrix products: mm, bmm, mv, dot, addmm, outer, every form
of matmul (each reaches PyTorch's nodes: dot/mv/mm/bmm inside views, expands and copies),
einsum (one row, so its node names differ from PyTorch's decomposition), and the other
products and distances: vdot, cross, addmv, addr, baddbmm, addbmm, tensordot, inner, kron,
chain_matmul, matrix_power, matrix_exp, cdist, pdist, cosine_similarity, pairwise_distance."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn


def _mm(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 4, 5)),
            Sample(noncontiguous(randn(rng, 3, 4)), noncontiguous(randn(rng, 4, 2)),
                   name="non-contiguous"),
            Sample(randn(rng, 1, 4), randn(rng, 4, 1), name="row times column"),
            Sample(randn(rng, 3, 4), randn(rng, 4, 5), grad=(1,), name="mat2 only")]


def _bmm(rng):
    return [Sample(randn(rng, 2, 3, 4), randn(rng, 2, 4, 5)),
            Sample(noncontiguous(randn(rng, 2, 3, 4)), randn(rng, 2, 4, 2), name="non-contiguous"),
            Sample(randn(rng, 1, 2, 3), randn(rng, 1, 3, 1), name="batch of one")]


def _mv(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 4)),
            Sample(noncontiguous(randn(rng, 4, 3)), randn(rng, 6)[::2], name="non-contiguous"),
            Sample(randn(rng, 1, 1), randn(rng, 1), name="1x1")]


def _dot(rng):
    return [Sample(randn(rng, 5), randn(rng, 5)),
            Sample(randn(rng, 8)[::2], randn(rng, 4), name="strided"),
            Sample(randn(rng, 3) * 0, randn(rng, 3), name="zeros")]


def _addmm(rng):
    return [Sample(randn(rng, 3, 5), randn(rng, 3, 4), randn(rng, 4, 5)),
            Sample(randn(rng, 5), randn(rng, 3, 4), randn(rng, 4, 5), name="broadcast self (5)"),
            Sample(randn(rng, 3, 1), randn(rng, 3, 4), randn(rng, 4, 5), name="broadcast self (3,1)"),
            Sample(randn(rng), randn(rng, 3, 4), randn(rng, 4, 5), name="0-d self"),
            Sample(randn(rng, 3, 5), noncontiguous(randn(rng, 3, 4)), randn(rng, 4, 5),
                   beta=0.5, alpha=-2.0, name="beta, alpha, non-contiguous"),
            Sample(randn(rng, 3, 5), randn(rng, 3, 4), randn(rng, 4, 5), beta=0, alpha=0,
                   name="beta=alpha=0"),
            Sample(randn(rng, 3, 5), randn(rng, 3, 4), randn(rng, 4, 5), grad=(1, 2),
                   name="self without grad")]


def _matmul(*pairs):
    """Samples of matmul on shape pairs; a third item lists the args requiring grad."""
    def samples(rng):
        return [Sample(randn(rng, *p[0]), randn(rng, *p[1]), grad=p[2] if len(p) > 2 else None,
                       name=f"{p[0]}@{p[1]}" + (f" grad={p[2]}" if len(p) > 2 else ""))
                for p in pairs]
    return samples


def _matmul_entry(name, ops, *pairs):
    return OpInfo(f"matmul.{name}", lambda lib, a, b: a @ b, _matmul(*pairs), ops=ops)


def _einsum(equation, *shapes, name=None):
    # check_node=False: PyTorch decomposes einsum into permutes, views and bmm/mul nodes
    return OpInfo(f"einsum.{name or equation}", lambda lib, *xs: lib.einsum(equation, *xs),
                  lambda rng: [Sample(*(randn(rng, *s) for s in shapes))], ops=("einsum",),
                  check_node=False)


def _vander_samples(rng):
    # values and graph only: PyTorch's vander saves the slice its in-place cumprod then
    # overwrites, so its backward fails (test_linalg_breadth.py checks that it does here too)
    return [Sample(randn(rng, 4), grad=()), Sample(randn(rng, 3), 5, grad=()),
            Sample(randn(rng, 3), 2, True, grad=()), Sample(randn(rng, 3), 1, grad=())]


def _nuclear_norm_samples(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng, 4, 3), True),
            Sample(randn(rng, 2, 3, 4), (0, 2)), Sample(randn(rng, 2, 3, 4), (2, 1), True)]


OPS_DB = [
    OpInfo("mm", lambda lib, a, b: a.mm(b), _mm),
    OpInfo("bmm", lambda lib, a, b: lib.bmm(a, b), _bmm),
    OpInfo("mv", lambda lib, a, b: a.mv(b), _mv),
    OpInfo("dot", lambda lib, a, b: lib.dot(a, b), _dot),
    OpInfo("addmm", lambda lib, c, a, b, **kw: lib.addmm(c, a, b, **kw), _addmm),
    OpInfo("addmm_", lambda lib, c, a, b: c.clone().addmm_(a, b, beta=2.0),
           lambda rng: [Sample(randn(rng, 3, 5), randn(rng, 3, 4), randn(rng, 4, 5))],
           ops=("addmm", "clone")),
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 4)), Sample(randn(rng, 1), randn(rng, 2))],
           ops=("view", "mul")),
    OpInfo("ger", lambda lib, a, b: a.ger(b), lambda rng: [Sample(randn(rng, 3), randn(rng, 2))],
           ops=("view", "mul")),
    _matmul_entry("1d@1d", ("dot",), ((4,), (4,))),
    _matmul_entry("2d@1d", ("mv",), ((3, 4), (4,))),
    _matmul_entry("1d@2d", ("squeeze_.int", "mm", "unsqueeze"), ((4,), (4, 3))),
    _matmul_entry("2d@2d", ("mm",), ((3, 4), (4, 2))),
    # folded into mm/mv (the smaller operand requires grad, or the larger one is contiguous)
    _matmul_entry("fold", ("_unsafe_view", "mm", "mv", "view"),
                  ((2, 3, 4), (4, 5)), ((2, 3, 4), (4,)), ((2, 2, 3, 4), (4, 2)),
                  ((2, 3, 4), (4, 5), (0,)), ((2, 2, 3, 4), (4,), (0,))),
    _matmul_entry("fold.transposed", ("_unsafe_view", "mm", "mv", "clone", "transpose.int", "t"),
                  ((4,), (2, 4, 3)), ((3, 4), (2, 4, 5)), ((4,), (2, 2, 4, 3)),
                  ((3, 4), (2, 2, 4, 5))),
    # batched: bmm on expanded operands
    _matmul_entry("batched", ("_unsafe_view", "bmm", "view", "expand"),
                  ((2, 3, 4), (2, 4, 5)), ((2, 2, 3, 4), (2, 2, 4, 5)),
                  ((3, 4), (2, 4, 5), (1,)), ((4,), (2, 4, 3), (1,))),
    _matmul_entry("broadcast", ("_unsafe_view", "bmm", "clone", "expand"),
                  ((2, 1, 3, 4), (5, 4, 2)), ((3, 1, 3, 4), (1, 2, 4, 2))),
    # a batch of one that requires grad is squeezed away, then folded
    _matmul_entry("batch of one", ("squeeze.dim", "_unsafe_view", "mm", "clone", "transpose.int",
                                   "t", "view"),
                  ((1, 3, 4), (2, 4, 5)), ((2, 3, 4), (1, 4, 5))),
    OpInfo("rmatmul", lambda lib, a, b: a.__rmatmul__(b), _matmul(((4, 2), (3, 4))), ops=("mm",)),
    OpInfo("matmul.function", lambda lib, a, b: lib.matmul(a, b),
           _matmul(((2, 3, 4), (4, 2)), ((3,), (3,))), ops=("dot", "view", "mm", "_unsafe_view")),
    _einsum("ij,jk->ik", (3, 4), (4, 5)),
    _einsum("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    _einsum("i,i->", (4,), (4,)),
    _einsum("ij->ji", (3, 4)),
    _einsum("ii->i", (3, 3)),
    _einsum("ii", (3, 3)),
    _einsum("ij,ij->ij", (3, 4), (3, 4)),
    _einsum("bhqd,bhkd->bhqk", (2, 2, 3, 4), (2, 2, 5, 4)),
    _einsum("ij,jk", (3, 4), (4, 2)),
    _einsum("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),
    _einsum("ij->i", (3, 4)),
    _einsum("ij,k->ikj", (2, 3), (4,)),
    _einsum("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 2)),
    _einsum("bij,bjk->bik", (1, 3, 4), (2, 4, 5), name="broadcast batch"),
    _einsum("iij,kk->ij", (3, 3, 2), (2, 2)),
    _einsum("iji->j", (3, 2, 3)),
    _einsum("ij,ij->", (3, 4), (1, 4), name="size-1 label"),
    _einsum(",i->i", (), (3,)),
]


def _complex(rng, *shape):
    return randn(rng, *shape) + 1j * randn(rng, *shape)


def _baddbmm(rng):
    return [Sample(randn(rng, 2, 3, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5)),
            Sample(randn(rng, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5), beta=0.5, alpha=-2.0,
                   name="broadcast self, beta, alpha"),
            Sample(randn(rng, 2, 3, 5), noncontiguous(randn(rng, 2, 3, 4)), randn(rng, 2, 4, 5),
                   beta=0, name="beta=0"),
            Sample(randn(rng, 2, 3, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5), grad=(1,),
                   name="batch1 only")]


def _addbmm(rng):
    return [Sample(randn(rng, 3, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5)),
            Sample(randn(rng, 1, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5), beta=2.0,
                   alpha=0.5, name="broadcast self, beta, alpha"),
            Sample(randn(rng), randn(rng, 1, 3, 4), randn(rng, 1, 4, 5), beta=0, name="beta=0")]


def _addmv(rng):
    return [Sample(randn(rng, 3), randn(rng, 3, 4), randn(rng, 4)),
            Sample(randn(rng, 1), noncontiguous(randn(rng, 3, 4)), randn(rng, 4), beta=0.5,
                   alpha=2.0, name="broadcast self, beta, alpha"),
            Sample(randn(rng), randn(rng, 3, 4), randn(rng, 4), beta=0, alpha=-1.0,
                   name="0-d self, beta=0")]


def _addr(rng):
    return [Sample(randn(rng, 3, 4), randn(rng, 3), randn(rng, 4)),
            Sample(randn(rng, 4), randn(rng, 3), randn(rng, 4), beta=0.5, alpha=2.0,
                   name="broadcast self, beta, alpha"),
            Sample(randn(rng, 3, 1), randn(rng, 3), randn(rng, 4), beta=0, name="beta=0")]


def _cross(rng):
    return [Sample(randn(rng, 3), randn(rng, 3), dim=0),
            Sample(randn(rng, 4, 3), randn(rng, 4, 3), dim=-1),
            Sample(randn(rng, 3, 2), randn(rng, 3, 1), dim=0, name="broadcast"),
            Sample(randn(rng, 2, 3, 4), randn(rng, 2, 3, 4), dim=1)]


def _cdist(p, **kw):
    def samples(rng):
        return [Sample(randn(rng, 3, 4), randn(rng, 5, 4), p=p, **kw),
                Sample(randn(rng, 2, 3, 4), randn(rng, 2, 2, 4), p=p, **kw),
                Sample(randn(rng, 2, 1, 3, 2), randn(rng, 3, 4, 2), p=p, name=f"broadcast p={p}",
                       **kw)]
    return samples


def _pdist(p):
    return lambda rng: [Sample(randn(rng, 5, 3), p=p), Sample(noncontiguous(randn(rng, 3, 4)), p=p,
                                                              name=f"non-contiguous p={p}")]


def _square(rng):
    return [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 4, 4) * 0.5, name="batched")]


def _matrix_exp(rng):
    return [Sample(randn(rng, 3, 3)), Sample(randn(rng, 2, 3, 3) * 2, name="batched, scaled"),
            Sample(randn(rng, 1, 1), name="1x1"),
            Sample(randn(rng, 4, 4) * 0.01, name="small norm")]


def _well_conditioned(rng, *shape):
    n = shape[-1]
    return randn(rng, *shape) + 3 * np.eye(n)


OPS_DB += [
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b),
           lambda rng: [Sample(randn(rng, 5), randn(rng, 5)), Sample(randn(rng, 8)[::2], randn(rng, 4))]),
    OpInfo("vdot.complex", lambda lib, a, b: lib.vdot(a, b),
           lambda rng: [Sample(_complex(rng, 4), _complex(rng, 4))], ops=("vdot",), gradcheck=False),
    OpInfo("cross", lambda lib, a, b, **kw: lib.cross(a, b, **kw), _cross, ops=("linalg_cross",)),
    OpInfo("cross.method", lambda lib, a, b: a.cross(b, dim=-1),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 2, 3))], ops=("linalg_cross",)),
    OpInfo("addmv", lambda lib, c, a, b, **kw: lib.addmv(c, a, b, **kw), _addmv),
    OpInfo("addmv_", lambda lib, c, a, b: c.clone().addmv_(a, b, beta=2.0),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 3, 4), randn(rng, 4))], ops=("addmv", "clone")),
    OpInfo("addr", lambda lib, c, a, b, **kw: lib.addr(c, a, b, **kw), _addr),
    OpInfo("addr_", lambda lib, c, a, b: c.clone().addr_(a, b, alpha=3.0),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3), randn(rng, 4))], ops=("addr", "clone")),
    OpInfo("baddbmm", lambda lib, c, a, b, **kw: lib.baddbmm(c, a, b, **kw), _baddbmm),
    OpInfo("baddbmm_", lambda lib, c, a, b: c.clone().baddbmm_(a, b, alpha=0.5),
           lambda rng: [Sample(randn(rng, 2, 3, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5))],
           ops=("baddbmm", "clone")),
    OpInfo("addbmm", lambda lib, c, a, b, **kw: lib.addbmm(c, a, b, **kw), _addbmm),
    OpInfo("addbmm_", lambda lib, c, a, b: c.clone().addbmm_(a, b, beta=-1.0),
           lambda rng: [Sample(randn(rng, 3, 5), randn(rng, 2, 3, 4), randn(rng, 2, 4, 5))],
           ops=("addbmm", "clone")),
    OpInfo("tensordot", lambda lib, a, b, dims: lib.tensordot(a, b, dims),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4, 5), 1),
                        Sample(randn(rng, 2, 3, 4), randn(rng, 3, 4, 2), 2),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), 2, name="full contraction (dot)"),
                        Sample(randn(rng, 2), randn(rng, 3), 0, name="dims=0 (outer)"),
                        Sample(randn(rng, 2, 3, 4), randn(rng, 4, 2), ([0, 2], [1, 0]), name="lists"),
                        Sample(randn(rng, 2, 1), randn(rng, 3, 5), ([1], [0]), name="size-1 summed")],
           ops=("view", "mm", "dot", "permute", "sum.dim_IntList", "_reshape_alias", "clone",
                "_unsafe_view")),
    OpInfo("inner", lambda lib, a, b: lib.inner(a, b),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 2, 4)), Sample(randn(rng, 4), randn(rng, 4)),
                        Sample(randn(rng), randn(rng, 2, 3), name="0-d")],
           ops=("view", "mm", "dot", "permute", "mul", "_reshape_alias", "clone", "_unsafe_view")),
    OpInfo("kron", lambda lib, a, b: lib.kron(a, b),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 3, 2)), Sample(randn(rng, 3), randn(rng, 2, 2))],
           ops=("_unsafe_view", "mul")),
    OpInfo("chain_matmul", lambda lib, *ms: lib.chain_matmul(*ms),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4, 2)),
                        Sample(randn(rng, 3, 4), randn(rng, 4, 5), randn(rng, 5, 2)),
                        Sample(randn(rng, 2, 4), randn(rng, 4, 5), randn(rng, 5, 2), randn(rng, 2, 6)),
                        Sample(randn(rng, 3, 4))],
           ops=("view", "mm", "clone")),
    OpInfo("matrix_power", lambda lib, a, n: lib.matrix_power(a, n),
           lambda rng: [Sample(randn(rng, 3, 3), n) for n in (0, 1, 2, 3, 4, 5)]
           + [Sample(_well_conditioned(rng, 2, 3, 3), n, name=f"n={n}") for n in (-1, -2, -3)],
           ops=("copy", "clone", "mm", "bmm", "linalg_inv_ex", "view", "_unsafe_view", "expand")),
    OpInfo("matrix_exp", lambda lib, a: lib.matrix_exp(a), _matrix_exp, ops=("linalg_matrix_exp",)),
    OpInfo("matrix_exp.method", lambda lib, a: a.matrix_exp(),
           lambda rng: [Sample(_complex(rng, 3, 3))], ops=("linalg_matrix_exp",), gradcheck=False),
    OpInfo("cdist", lambda lib, a, b, **kw: lib.cdist(a, b, **kw), _cdist(2.0),
           ops=("_cdist_forward",)),
    *(OpInfo(f"cdist.p={p}", lambda lib, a, b, **kw: lib.cdist(a, b, **kw), _cdist(p),
             ops=("_cdist_forward",)) for p in (0.0, 0.5, 1.0, 1.5, 3.0, float("inf"))),
    OpInfo("cdist.mm", lambda lib, a, b, **kw: lib.cdist(a, b, **kw),
           _cdist(2.0, compute_mode="use_mm_for_euclid_dist"),
           ops=("_euclidean_dist", "view", "expand", "clone"), compare_atol=1e-6),
    OpInfo("cdist.large", lambda lib, a, b: lib.cdist(a, b),
           lambda rng: [Sample(randn(rng, 27, 3), randn(rng, 4, 3))],
           ops=("_euclidean_dist", "view"), compare_atol=1e-6),
    *(OpInfo(f"pdist.p={p}", lambda lib, a, **kw: lib.pdist(a, **kw), _pdist(p),
             ops=("_pdist_forward", "clone")) for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf"))),
    OpInfo("cosine_similarity", lambda lib, a, b, **kw: lib.cosine_similarity(a, b, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(randn(rng, 3, 4), randn(rng, 2, 1, 4), dim=-1, name="broadcast"),
                        Sample(randn(rng, 5), randn(rng, 5), dim=0)],
           ops=("linalg_vector_norm", "clone", "div", "mul", "sum.dim_IntList", "expand")),
    OpInfo("pairwise_distance", lambda lib, a, b, **kw: lib.pairwise_distance(a, b, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(randn(rng, 3, 4), randn(rng, 4), p=1.0, keepdim=True),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), p=3.0),
                        Sample(randn(rng, 5), randn(rng, 5), p=float("inf"))],
           ops=("norm.ScalarOpt_dim", "sub", "add")),
    # ATen's vander: ones, a broadcast copy of x, an in-place cumprod, a flip
    OpInfo("vander", lambda lib, x, *args: lib.vander(x, *args), _vander_samples,
           ops=("copy", "cumprod", "flip", "unsqueeze"), gradcheck=False),
    OpInfo("nuclear_norm", lambda lib, x, *args: lib.nuclear_norm(x, *args),
           _nuclear_norm_samples, ops=("_linalg_svd", "permute", "sum.dim_IntList")),
]
