"""Op-database entries for the matrix products: mm, bmm, mv, dot, addmm, outer, every form
of matmul (each reaches PyTorch's nodes: dot/mv/mm/bmm inside views, expands and copies),
and einsum (one row, so its node names differ from PyTorch's decomposition)."""
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
    _matmul_entry("1d@2d", ("squeeze_.dim", "mm", "unsqueeze"), ((4,), (4, 3))),
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
