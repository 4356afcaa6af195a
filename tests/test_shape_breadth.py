"""The breadth of the shape family, run on chainrule and PyTorch and compared: broadcasting,
grids, atleast_nd, the *stack and *split functions, unsafe_split, rot90, repeat_interleave,
block_diag, cartesian_prod, combinations, tril/triu_indices, unravel_index, nonzero_static;
views (unfold, view_as_real/complex, slice_inverse: shared memory and version counter, `_base`,
writes seen through them, in-place ops through them with autograd); the in-place view ops
(t_, squeeze_, ..., as_strided_) on leaves, non-leaves and views; resize_, set_ and the
deprecated resize; the *_copy and *_scatter functions and their out=; put and index_reduce.
Non-contiguous inputs, negative dims, 0-d and empty tensors, errors and warnings."""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule
from helpers import error_of, same, same_error


def same_or_error(prog, atol=1e-6, rtol=1e-6):
    """`prog(T)` returns the same on both libraries, or raises the same error."""
    if error_of(lambda: prog(torch)) is not None:
        return same_error(prog)
    return same(prog, atol, rtol)


def R(T, *shape, requires_grad=True):
    """A float64 tensor of `shape` with values fixed by the shape."""
    rng = np.random.default_rng(sum(shape) + 7 * len(shape))
    return T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=requires_grad)


def graph(fn):
    """A node and its inputs, recursively, by name: the graph's structure."""
    if fn is None:
        return None
    return [fn.name()] + [graph(n) for n, _ in fn.next_functions]


def view_info(t):
    return t, t.stride(), t.storage_offset(), t._is_view(), t._version


def quiet(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f()


def run(cases):
    """Parametrize a test over {id: prog}."""
    return pytest.mark.parametrize("prog", list(cases.values()), ids=list(cases))


# ---- broadcasting -------------------------------------------------------------------------

BROADCAST = {
    "shapes": lambda T: T.broadcast_shapes((2, 1), (3,)),
    "shapes int": lambda T: T.broadcast_shapes(2, (3, 1)),
    "shapes none": lambda T: T.broadcast_shapes(),
    "shapes Size and list": lambda T: T.broadcast_shapes(T.Size([2, 1]), [1, 3]),
    "shapes zero": lambda T: T.broadcast_shapes((0,), (1,)),
    "shapes mismatch": lambda T: T.broadcast_shapes((2, 3), (4,)),
    "shapes negative": lambda T: T.broadcast_shapes((-1,), (1,)),
    "shapes negative 2": lambda T: T.broadcast_shapes((-2,), (3,)),
    "shapes float": lambda T: T.broadcast_shapes(2.0),
    "tensors": lambda T: T.broadcast_tensors(R(T, 3, 4), R(T, 2, 1, 4)),
    "tensors same shape is input": lambda T: (lambda x: [t is x for t in T.broadcast_tensors(
        x, R(T, 1))])(R(T, 3)),
    "tensors views": lambda T: (lambda x: [view_info(t) + (t._base is x,) for t in
                                           T.broadcast_tensors(x, R(T, 2, 3))])(R(T, 3)),
    "tensors mismatch": lambda T: T.broadcast_tensors(R(T, 3, 4), R(T, 3)),
    "tensors none": lambda T: T.broadcast_tensors(),
    "tensors list": lambda T: T.broadcast_tensors([R(T, 3)]),
    "tensors number": lambda T: T.broadcast_tensors(R(T, 3), 1),
    "to": lambda T: view_info(T.broadcast_to(R(T, 3, 1), (2, 3, 4))),
    "to same shape is a view": lambda T: (lambda x: (view_info(T.broadcast_to(x, (3,))),
                                                     T.broadcast_to(x, (3,))._base is x))(R(T, 3)),
    "to method varargs": lambda T: R(T, 3, 1).broadcast_to(2, 3, 4),
    "to method -1": lambda T: R(T, 3, 1).broadcast_to((2, -1, 4)),
    "to 0-d": lambda T: T.broadcast_to(R(T), (2, 2)),
    "to non-contiguous": lambda T: view_info(T.broadcast_to(R(T, 1, 3).t(), (3, 2))),
    "to too few dims": lambda T: T.broadcast_to(R(T, 3, 4), (3,)),
    "to mismatch": lambda T: T.broadcast_to(R(T, 3, 4), (2, 4)),
    "to -1 leading": lambda T: T.broadcast_to(R(T, 3, 4), (-1, 3, 4)),
    "to int size": lambda T: T.broadcast_to(R(T, 4), 4),
    "expand -1 and new dims": lambda T: R(T, 3, 1).expand(2, -1, 5),
    "expanded write refused": lambda T: T.zeros(1).expand(3).add_(1),
    "expand negative size": lambda T: T.ones(3, 1).expand(3, -2),
    "expand negative new dim": lambda T: T.ones(3, 1).expand(-2, 3, 1),
    "expand zero": lambda T: (T.ones(3, 1).expand(0, 3, 1), T.ones(3, 1).expand(3, 0)),
    "expand Size": lambda T: view_info(R(T, 3, 1).expand(T.Size([3, 4]))),
    "expand_as": lambda T: view_info(R(T, 3, 1).expand_as(R(T, 2, 3, 4))),
}


@run(BROADCAST)
def test_broadcasting(prog):
    same_or_error(prog)


# ---- meshgrid, cartesian_prod, combinations -----------------------------------------------

GRIDS = {
    "ij": lambda T: T.meshgrid(R(T, 3), R(T, 4), indexing="ij"),
    "xy": lambda T: T.meshgrid(R(T, 3), R(T, 4), indexing="xy"),
    "xy three": lambda T: T.meshgrid(R(T, 3), R(T, 4), R(T, 2), indexing="xy"),
    "views": lambda T: (lambda a, b: [view_info(g) + (g._base is x,) for g, x in
                                      zip(T.meshgrid(a, b, indexing="ij"), (a, b))])(
        R(T, 3), R(T, 2)),
    "0-d": lambda T: T.meshgrid(R(T), R(T, 4), indexing="ij"),
    "list": lambda T: T.meshgrid([R(T, 3), R(T, 4)], indexing="ij"),
    "one xy": lambda T: T.meshgrid(R(T, 3), indexing="xy"),
    "integers": lambda T: T.meshgrid(T.arange(3), T.arange(2), indexing="ij"),
    "bad indexing": lambda T: T.meshgrid(R(T, 3), R(T, 4), indexing="ab"),
    "dtypes differ": lambda T: T.meshgrid(R(T, 3), T.arange(3), indexing="ij"),
    "2-d": lambda T: T.meshgrid(T.arange(12.).view(3, 4) / 7, indexing="ij"),
    "2-d integers": lambda T: T.meshgrid(T.arange(12).view(3, 4), indexing="ij"),
    "3-d": lambda T: T.meshgrid(T.arange(12.).view(3, 2, 2) - 5, indexing="ij"),
    "2-d large": lambda T: T.meshgrid(T.arange(12.).view(3, 4) * 1000.5, indexing="ij"),
    "2-d small": lambda T: T.meshgrid(T.arange(12.).view(3, 4) * 1e-4 + 1e-4, indexing="ij"),
    "none": lambda T: T.meshgrid(indexing="ij"),
    "cartesian_prod": lambda T: T.cartesian_prod(R(T, 3), R(T, 2)),
    "cartesian_prod three": lambda T: T.cartesian_prod(R(T, 3), R(T, 2), R(T, 2)),
    "cartesian_prod one is input": lambda T: (lambda x: T.cartesian_prod(x) is x)(R(T, 3)),
    "cartesian_prod dtypes": lambda T: T.cartesian_prod(T.tensor([1, 2]), T.tensor([3., 4.])),
    "cartesian_prod 2-d": lambda T: T.cartesian_prod(R(T, 2, 2)),
    "cartesian_prod 0-d": lambda T: T.cartesian_prod(R(T), R(T, 2)),
    "cartesian_prod none": lambda T: T.cartesian_prod(),
    "combinations": lambda T: T.combinations(R(T, 4)),
    "combinations r=3 with replacement": lambda T: T.combinations(R(T, 4), 3, True),
    "combinations r=0": lambda T: T.combinations(R(T, 4), 0),
    "combinations r=1": lambda T: T.combinations(R(T, 4), 1),
    "combinations r too large": lambda T: T.combinations(T.tensor([1, 2, 3]), 4),
    "combinations negative r": lambda T: T.combinations(R(T, 4), -1),
    "combinations 2-d": lambda T: T.combinations(R(T, 2, 2)),
    "combinations empty": lambda T: T.combinations(T.ones(0)),
    "combinations keyword": lambda T: T.combinations(T.arange(3), with_replacement=True),
}


@run(GRIDS)
def test_grids(prog):
    same_or_error(prog)


def _first_warnings(lib, code):
    """The warnings (class, text) a fresh process emits running `code` twice on `lib`."""
    script = (f"import warnings, json\nimport {lib} as T\nwarnings.simplefilter('always')\n"
              "out = []\nfor _ in range(2):\n    with warnings.catch_warnings(record=True) as w:\n"
              "        warnings.simplefilter('always')\n"
              f"        {code}\n"
              "    out.append([(x.category.__name__, str(x.message).split(' (Triggered')[0])"
              " for x in w])\nprint(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("code", [
    "T.meshgrid(T.ones(2), T.ones(3))",
    "T.meshgrid(T.ones(2))",
    "T.zeros(3).index_reduce(0, T.tensor([0]), T.ones(1), 'amax')",
])
def test_warned_once_per_process(code):
    ours, theirs = _first_warnings("chainrule", code), _first_warnings("torch", code)
    assert theirs[0] and not theirs[1]
    assert ours == theirs


def test_meshgrid_warning_points_at_the_caller():
    chainrule.ops.shape._warned.discard(chainrule.ops.joining._MESHGRID_WARNING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chainrule.meshgrid(chainrule.ones(2))
    assert caught and caught[0].filename == __file__


# ---- atleast_nd, *stack -------------------------------------------------------------------

STACKS = {}
for _n in ("atleast_1d", "atleast_2d", "atleast_3d"):
    STACKS.update({
        f"{_n} shapes": lambda T, n=_n: [getattr(T, n)(R(T, *s)) for s in
                                         [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]],
        f"{_n} views": lambda T, n=_n: (lambda x: (view_info(getattr(T, n)(x)),
                                                   getattr(T, n)(x)._base is x))(R(T, 3)),
        f"{_n} tuple": lambda T, n=_n: getattr(T, n)((R(T), R(T, 2))),
        f"{_n} list": lambda T, n=_n: getattr(T, n)([R(T)]),
        f"{_n} varargs": lambda T, n=_n: getattr(T, n)(R(T), R(T, 2, 3)),
        f"{_n} none": lambda T, n=_n: getattr(T, n)(),
        f"{_n} number": lambda T, n=_n: getattr(T, n)(3),
        f"{_n} is input": lambda T, n=_n: (lambda x: getattr(T, n)(x) is x)(R(T, 2, 3, 4)),
    })
for _n in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
    STACKS.update({
        f"{_n} empty": lambda T, n=_n: getattr(T, n)([]),
        f"{_n} tensor": lambda T, n=_n: getattr(T, n)(R(T, 3)),
        f"{_n} bad element": lambda T, n=_n: getattr(T, n)([R(T, 3), 3]),
        f"{_n} promotes": lambda T, n=_n: getattr(T, n)([T.arange(3), T.ones(3),
                                                         T.ones(3, dtype=T.float16)]),
        f"{_n} out": lambda T, n=_n: (lambda o: (getattr(T, n)([T.arange(3.), T.ones(3)], out=o),
                                                 o))(T.empty(0)),
        f"{_n} out requires grad": lambda T, n=_n: getattr(T, n)([R(T, 3)], out=T.empty(0)),
        f"{_n} out bad dtype": lambda T, n=_n: getattr(T, n)([R(T, 3).detach()],
                                                             out=T.empty(0, dtype=T.int64)),
    })
STACKS.update({
    "hstack 2-d": lambda T: T.hstack((R(T, 3, 4), R(T, 3, 2))),
    "hstack 1-d and 0-d": lambda T: T.hstack((R(T, 3), R(T, 2), R(T))),
    "vstack": lambda T: T.vstack((R(T, 3), R(T, 2, 3))),
    "vstack 0-d": lambda T: T.vstack((R(T), R(T))),
    "row_stack": lambda T: T.row_stack((R(T, 3), R(T, 2, 3))),
    "dstack": lambda T: T.dstack((R(T, 3), R(T, 1, 3), R(T, 1, 3, 2))),
    "column_stack": lambda T: T.column_stack((R(T, 4), R(T, 2, 2).t().reshape(4, 1),
                                              R(T).expand(4), R(T, 4, 2))),
    "column_stack 0-d": lambda T: T.column_stack((R(T),)),
    "column_stack 3-d": lambda T: T.column_stack([R(T, 1, 2, 3), R(T, 1, 2, 3)]),
    "hstack mismatch": lambda T: T.hstack([R(T, 3, 4), R(T, 3)]),
    "vstack mismatch": lambda T: T.vstack([R(T, 3, 4), R(T, 5)]),
})


@run(STACKS)
def test_atleast_and_stacks(prog):
    same_or_error(prog)


# ---- splitting ----------------------------------------------------------------------------

SPLITS = {}
for _args in [(2,), (3, 1), (5,), ([1, 5, 2],), ([-1],), ([-5, 2],), ([],), ((1, 2), -1), (0,),
              (-1,), (2, 3), (2, -3)]:
    SPLITS[f"tensor_split {_args}"] = lambda T, a=_args: T.tensor_split(R(T, 3, 4), *a)
    SPLITS[f"tensor_split method {_args}"] = lambda T, a=_args: R(T, 3, 4).tensor_split(*a)
for _n in ("hsplit", "vsplit", "dsplit"):
    for _arg in (2, 3, 0, -2, [1, 3], (1,), []):
        for _s in [(), (4,), (4, 6), (2, 4, 6)]:
            SPLITS[f"{_n} {_s} {_arg}"] = lambda T, n=_n, s=_s, a=_arg: getattr(T, n)(R(T, *s), a)
    SPLITS[f"{_n} tensor"] = lambda T, n=_n: getattr(T, n)(R(T, 2, 2, 2), T.tensor([1]))
    SPLITS[f"{_n} method"] = lambda T, n=_n: getattr(R(T, 2, 2, 2), n)(2)
SPLITS.update({
    "tensor_split 0-d": lambda T: T.tensor_split(R(T), 2),
    "tensor_split tensor indices": lambda T: T.tensor_split(R(T, 3, 4), T.tensor([1, 2]), 1),
    "tensor_split 0-d tensor": lambda T: T.tensor_split(R(T, 3, 4), T.tensor(2), 1),
    "tensor_split strided tensor": lambda T: T.tensor_split(R(T, 3, 4),
                                                            T.tensor([1, 0, 2])[::2], 1),
    "tensor_split empty tensor": lambda T: T.tensor_split(R(T, 3, 4),
                                                          T.tensor([], dtype=T.long)),
    "tensor_split float tensor": lambda T: T.tensor_split(R(T, 3, 4), T.tensor([1.])),
    "tensor_split int32 tensor": lambda T: T.tensor_split(R(T, 3, 4),
                                                          T.tensor([1], dtype=T.int32)),
    "tensor_split 2-d tensor": lambda T: T.tensor_split(R(T, 3, 4), T.tensor([[1]])),
    "tensor_split sections=": lambda T: T.tensor_split(R(T, 3, 4), sections=2),
    "tensor_split indices=": lambda T: T.tensor_split(R(T, 3, 4), indices=[1]),
    "tensor_split tensor=": lambda T: T.tensor_split(
        R(T, 3, 4), tensor_indices_or_sections=T.tensor([1])),
    "tensor_split dim=": lambda T: T.tensor_split(R(T, 3, 4), 2, dim=1),
    "tensor_split pieces are views": lambda T: (lambda x: [view_info(p) + (p._base is x,)
                                                           for p in x.tensor_split(3, 1)])(
        R(T, 3, 4)),
    "tensor_split piece written in place": lambda T: (lambda a: (a.tensor_split(2)[1].mul_(2),
                                                                 a))(R(T, 3, 4) * 1),
    "tensor_split non-contiguous": lambda T: T.tensor_split(R(T, 4, 3).t(), [1], 1),
    "unsafe_split": lambda T: T.unsafe_split(R(T, 3, 4), 2, 1),
    "unsafe_split method": lambda T: R(T, 3, 4).unsafe_split(3),
    "unsafe_split 0-d": lambda T: T.unsafe_split(R(T), 2),
    "unsafe_split list": lambda T: T.unsafe_split(R(T, 3, 4), [1, 3], 1),
    "unsafe_split not views": lambda T: [view_info(p) for p in T.arange(4.).unsafe_split(2)],
    "unsafe_split shares memory": lambda T: (lambda a: (a.unsafe_split(2)[1].mul_(2), a,
                                                        a._version))(T.arange(4.)),
    "unsafe_split_with_sizes": lambda T: T.unsafe_split_with_sizes(R(T, 3, 4), [1, 3], 1),
    "unsafe_split_with_sizes bad": lambda T: T.unsafe_split_with_sizes(R(T, 3, 4), [1, 1], 1),
    "unsafe_chunk": lambda T: T.unsafe_chunk(R(T, 3, 4), 3, 1),
    "unsafe_chunk zero": lambda T: T.unsafe_chunk(R(T, 3, 4), 0, 1),
    "unsafe_chunk empty": lambda T: T.unsafe_chunk(R(T, 0, 2), 3),
    "unsafe_chunk method": lambda T: R(T, 3, 4).unsafe_chunk(2),
    "unsafe_chunk 0-d": lambda T: T.unsafe_chunk(R(T), 2),
})


@run(SPLITS)
def test_splits(prog):
    same_or_error(prog)


# ---- rot90, repeat_interleave, block_diag -------------------------------------------------

MISC = {}
for _k in (-1, 0, 1, 2, 3, 5):
    MISC[f"rot90 k={_k}"] = lambda T, k=_k: (lambda r: (r, r.stride(), r._is_view()))(
        T.rot90(R(T, 3, 4), k))
    MISC[f"rot90 3-d k={_k}"] = lambda T, k=_k: (lambda r: (r, r.stride()))(
        T.rot90(R(T, 2, 3, 4), k, (2, 0)))
for _dims in ([0, 0], [0, -2], [0, 1, 1], [0, 5], [5, 5], [0], (-1, -2), [-3, 0]):
    MISC[f"rot90 dims {_dims}"] = lambda T, d=_dims: T.rot90(R(T, 3, 4), 1, d)
MISC.update({
    "rot90 1-d": lambda T: T.rot90(R(T, 3)),
    "rot90 integers": lambda T: T.rot90(T.arange(6).view(2, 3)),
    "rot90 method": lambda T: R(T, 3, 4).rot90(1, [1, 0]),
    "rot90 keywords": lambda T: T.rot90(R(T, 3, 4), k=2, dims=[1, 0]),
    "rot90 non-contiguous": lambda T: T.rot90(R(T, 4, 3).t()),
    "rot90 takes no out": lambda T: T.rot90(R(T, 3, 4).detach(), out=T.empty(0)),
    "repeat_interleave integers": lambda T: T.repeat_interleave(T.tensor([[1, 2], [3, 4]]), 2),
    "repeat_interleave": lambda T: T.repeat_interleave(R(T, 3, 4), 2),
    "repeat_interleave dim": lambda T: T.repeat_interleave(R(T, 3, 4), 2, 1),
    "repeat_interleave dim -1": lambda T: T.repeat_interleave(R(T, 3, 4), 3, dim=-1),
    "repeat_interleave zero": lambda T: T.repeat_interleave(R(T, 3, 4), 0, 0),
    "repeat_interleave 0-d": lambda T: T.repeat_interleave(R(T), 2),
    "repeat_interleave 0-d dim": lambda T: T.repeat_interleave(R(T), 2, 0),
    "repeat_interleave 0-d dim -1": lambda T: T.repeat_interleave(R(T), 2, -1),
    "repeat_interleave negative": lambda T: T.repeat_interleave(R(T, 3, 4), -1),
    "repeat_interleave tensor": lambda T: T.repeat_interleave(R(T, 3, 4), T.tensor([1, 2, 3]), 0),
    "repeat_interleave tensor no dim": lambda T: T.repeat_interleave(R(T, 3, 4), T.tensor([2])),
    "repeat_interleave tensor no dim bad": lambda T: T.repeat_interleave(R(T, 3, 4),
                                                                         T.tensor([2, 1])),
    "repeat_interleave 0-d tensor": lambda T: T.repeat_interleave(R(T, 3, 4), T.tensor(2), 1),
    "repeat_interleave tensor negative": lambda T: T.repeat_interleave(
        R(T, 3, 4), T.tensor([1, -1, 2]), 0),
    "repeat_interleave tensor length": lambda T: T.repeat_interleave(R(T, 3, 4),
                                                                     T.tensor([1, 2]), 0),
    "repeat_interleave float tensor": lambda T: T.repeat_interleave(
        R(T, 3, 4), T.tensor([1., 2., 3.]), 0),
    "repeat_interleave int32 tensor": lambda T: T.repeat_interleave(
        R(T, 3, 4), T.tensor([1, 2, 3], dtype=T.int32), 0),
    "repeat_interleave 2-d tensor": lambda T: T.repeat_interleave(R(T, 3, 4),
                                                                  T.tensor([[1, 2, 3]]), 0),
    "repeat_interleave output_size": lambda T: T.repeat_interleave(
        R(T, 3, 4), T.tensor([1, 2, 3]), 0, output_size=6),
    "repeat_interleave output_size bad": lambda T: T.repeat_interleave(
        R(T, 3, 4), T.tensor([1, 2, 3]), 0, output_size=5),
    "repeat_interleave int output_size": lambda T: T.repeat_interleave(R(T, 3, 4), 2, 0,
                                                                       output_size=6),
    "repeat_interleave int output_size bad": lambda T: T.repeat_interleave(R(T, 3, 4), 2, 0,
                                                                           output_size=5),
    "repeat_interleave(repeats)": lambda T: T.repeat_interleave(T.tensor([1, 2, 3])),
    "repeat_interleave(repeats) float": lambda T: T.repeat_interleave(T.tensor([1., 2.])),
    "repeat_interleave(repeats) 2-d": lambda T: T.repeat_interleave(T.tensor([[1, 2]])),
    "repeat_interleave(repeats) negative": lambda T: T.repeat_interleave(T.tensor([1, -2])),
    "repeat_interleave(repeats) output_size": lambda T: T.repeat_interleave(T.tensor([1, 2]),
                                                                            output_size=3),
    "repeat_interleave(repeats) int32": lambda T: T.repeat_interleave(
        T.tensor([1, 2], dtype=T.int32)),
    "repeat_interleave(repeats) 0-d": lambda T: T.repeat_interleave(T.tensor(3)),
    "repeat_interleave(repeats) empty": lambda T: T.repeat_interleave(
        T.tensor([], dtype=T.long)),
    "repeat_interleave method without repeats": lambda T: T.tensor([1, 2, 0]).repeat_interleave(),
    "repeat_interleave method": lambda T: R(T, 3, 4).repeat_interleave(2, dim=1),
    "repeat_interleave method keyword": lambda T: R(T, 3, 4).repeat_interleave(repeats=2),
    "repeat_interleave bad dim": lambda T: R(T, 3, 4).repeat_interleave(2, dim=2),
    "repeat_interleave empty": lambda T: T.repeat_interleave(T.zeros(0, 3), 2, 0),
    "repeat_interleave non-contiguous": lambda T: T.repeat_interleave(R(T, 3, 4).t(), 2, 0),
    "repeat_interleave result is a view": lambda T: view_info(T.repeat_interleave(R(T, 3, 4),
                                                                                  2, 1)),
    "block_diag": lambda T: T.block_diag(R(T, 3, 4), R(T, 2), R(T), R(T, 1, 1)),
    "block_diag integers": lambda T: T.block_diag(T.ones(2, 2), T.arange(3)),
    "block_diag none": lambda T: T.block_diag(),
    "block_diag 3-d": lambda T: T.block_diag(T.ones(2, 2, 2)),
    "block_diag bool": lambda T: T.block_diag(T.ones(1, 1, dtype=T.bool),
                                              T.ones(1, dtype=T.bool)),
    "block_diag promotes": lambda T: T.block_diag(T.ones(1, 1, dtype=T.int32), R(T, 2)),
    "block_diag empty blocks": lambda T: T.block_diag(T.ones(0, 2), T.ones(2, 0)),
    "block_diag empty 1-d": lambda T: T.block_diag(T.ones(0)),
    "block_diag list": lambda T: T.block_diag([T.ones(0)]),
    "block_diag takes no out": lambda T: T.block_diag(T.ones(2), out=T.empty(0)),
    "block_diag non-contiguous": lambda T: T.block_diag(R(T, 3, 2).t(), R(T, 2)),
})


@run(MISC)
def test_rot90_repeat_interleave_block_diag(prog):
    same_or_error(prog)


# ---- index helpers ------------------------------------------------------------------------

INDICES = {}
for _f in ("tril_indices", "triu_indices"):
    for _a in [(3, 4), (3, 4, 1), (3, 4, -5), (3, 4, -1), (3, 4, 9), (0, 4), (4, 0), (1, 1)]:
        INDICES[f"{_f} {_a}"] = lambda T, f=_f, a=_a: getattr(T, f)(*a)
    INDICES.update({
        f"{_f} negative row": lambda T, f=_f: getattr(T, f)(-1, 4),
        f"{_f} negative col": lambda T, f=_f: getattr(T, f)(1, -4),
        f"{_f} int32": lambda T, f=_f: getattr(T, f)(3, 3, dtype=T.int32),
        f"{_f} float": lambda T, f=_f: getattr(T, f)(3, 3, dtype=T.float32),
        f"{_f} bool": lambda T, f=_f: getattr(T, f)(3, 3, dtype=T.bool),
        f"{_f} uint8": lambda T, f=_f: getattr(T, f)(3, 3, dtype=T.uint8),
        f"{_f} keywords": lambda T, f=_f: getattr(T, f)(row=2, col=2, offset=0, dtype=T.long,
                                                        device="cpu", layout=T.strided,
                                                        pin_memory=False),
        f"{_f} requires grad": lambda T, f=_f: getattr(T, f)(3, 3, requires_grad=True),
    })
INDICES.update({
    "unravel_index": lambda T: T.unravel_index(T.tensor([4, 1]), (3, 2)),
    "unravel_index 0-d": lambda T: T.unravel_index(T.tensor(4), (3, 2)),
    "unravel_index int shape": lambda T: T.unravel_index(T.tensor([4]), 5),
    "unravel_index Size": lambda T: T.unravel_index(T.tensor([5]), T.Size([2, 3])),
    "unravel_index float": lambda T: T.unravel_index(T.tensor([4.]), 5),
    "unravel_index bool": lambda T: T.unravel_index(T.tensor([True]), 5),
    "unravel_index negative shape": lambda T: T.unravel_index(T.tensor([4]), (-1, 3)),
    "unravel_index float shape": lambda T: T.unravel_index(T.tensor([4]), 2.0),
    "unravel_index float in shape": lambda T: T.unravel_index(T.tensor([4]), (2.0,)),
    "unravel_index out of bounds": lambda T: T.unravel_index(T.tensor([7, -1]), (3, 2)),
    "unravel_index int32": lambda T: T.unravel_index(T.tensor([4], dtype=T.int32), (3, 2)),
    "unravel_index uint8": lambda T: T.unravel_index(T.tensor([4], dtype=T.uint8), (3, 2)),
    "unravel_index empty shape": lambda T: T.unravel_index(T.tensor([4]), ()),
    "unravel_index zero in shape": lambda T: T.unravel_index(T.tensor([4]), (0, 3)),
    "unravel_index zero in shape 2": lambda T: T.unravel_index(T.tensor([4]), (3, 0)),
    "unravel_index zero, no indices": lambda T: T.unravel_index(T.tensor([], dtype=T.long),
                                                                (3, 0)),
    "unravel_index 2-d": lambda T: (lambda r: (r, [t.stride() for t in r],
                                               [t._is_view() for t in r]))(
        T.unravel_index(T.tensor([[1234], [5678]]), (10, 10, 10, 10))),
    "nonzero_static": lambda T: T.nonzero_static(T.tensor([[0, 1], [2, 0]]), size=3),
    "nonzero_static cut": lambda T: T.nonzero_static(T.tensor([[0, 1], [2, 0]]), size=1),
    "nonzero_static fill_value": lambda T: T.nonzero_static(T.tensor([0, 1, 2]), size=4,
                                                            fill_value=7),
    "nonzero_static negative size": lambda T: T.nonzero_static(T.tensor([0, 1, 2]), size=-1),
    "nonzero_static 0-d": lambda T: T.nonzero_static(T.tensor(5), size=2),
    "nonzero_static 0-d zero": lambda T: T.nonzero_static(T.tensor(0), size=2),
    "nonzero_static method": lambda T: T.tensor([1.5, 0.]).nonzero_static(size=2),
    "nonzero_static out": lambda T: (lambda o: (T.nonzero_static(T.tensor([0, 1, 2]), size=4,
                                                                 out=o), o))(
        T.empty(0, dtype=T.long)),
    "nonzero_static float out": lambda T: T.nonzero_static(T.tensor([0, 1, 2]), size=4,
                                                           out=T.empty(0)),
    "nonzero_static requires grad": lambda T: T.nonzero_static(R(T, 3), size=4),
    "nonzero_static bool": lambda T: T.nonzero_static(T.tensor([[True, False], [True, True]]),
                                                      size=5),
    "nonzero_static empty": lambda T: T.nonzero_static(T.zeros(0, 3), size=2),
})


@run(INDICES)
def test_index_helpers(prog):
    same_or_error(prog)


# ---- views: unfold, view_as_real, view_as_complex, slice_inverse ---------------------------

def _complex(T):
    return T.tensor(np.arange(6).reshape(3, 2) + 1j * np.arange(6).reshape(3, 2),
                    dtype=T.complex64)


def _unfold_gradgrad(T):
    # the gradient's own graph is unfold_backward's node; its gradient unfolds again
    a, w = R(T, 3, 4), R(T, 3, 2, 3)
    (g,) = T.autograd.grad(a.unfold(1, 3, 1), a, w, create_graph=True)
    return g, graph(g.grad_fn), T.autograd.grad((g * g).sum(), w)


def _through_dtype_view(T, slice_first):
    c = T.tensor([1 + 2j, 3 + 4j, 5 - 1j], requires_grad=True)
    z = c * 1
    r = T.view_as_real(z[1:] if slice_first else z)
    r[0].mul_(T.tensor([2., 3.]))
    out = graph(z.grad_fn), graph(r.grad_fn), z
    (z * T.tensor([1 + 1j, 2 - 1j, 3j])).real.sum().backward()
    return out, c.grad


def _complex_view_inplace(T):
    f = T.arange(12.).view(3, 2, 2).requires_grad_()
    y = f * 1
    v = T.view_as_complex(y)
    v[1:].mul_(T.tensor(1j))
    out = graph(y.grad_fn), graph(v.grad_fn), y
    y.pow(2).sum().backward()
    return out, f.grad


def _stale_dtype_view(T):
    c = T.tensor([1 + 2j, 3 + 4j], requires_grad=True)
    z = c * 1
    r = T.view_as_real(z)
    z.mul_(2)
    return graph(r.grad_fn), T.autograd.grad(r.sum(), c)


VIEWS = {
    "unfold": lambda T: view_info(R(T, 3, 4).unfold(1, 2, 1)),
    "unfold base and version": lambda T: (lambda a: (a.unfold(1, 2, 1)._base is a,
                                                     a.unfold(0, 2, 1)._version))(R(T, 3, 4)),
    "unfold 0-d": lambda T: view_info(R(T).unfold(0, 1, 1)),
    "unfold 0-d size 2": lambda T: R(T).unfold(0, 2, 1),
    "unfold 0-d bad dim": lambda T: R(T).unfold(1, 1, 1),
    "unfold too large": lambda T: R(T, 3, 4).unfold(1, 5, 1),
    "unfold step 0": lambda T: R(T, 3, 4).unfold(1, 2, 0),
    "unfold negative size": lambda T: R(T, 3, 4).unfold(1, -1, 1),
    "unfold size 0": lambda T: R(T, 3, 4).unfold(1, 0, 1),
    "unfold negative dim": lambda T: view_info(R(T, 3, 4).unfold(-1, 2, 3)),
    "unfold non-contiguous": lambda T: view_info(R(T, 3, 4).t().unfold(0, 2, 2)),
    "unfold bad dim": lambda T: R(T, 3, 4).unfold(2, 2, 2),
    "unfold double backward": _unfold_gradgrad,
    "unfold written through": lambda T: (lambda a: (a.unfold(0, 2, 2).mul_(2), a, a._version))(
        T.arange(6.)),
    "unfold in place on a non-leaf": lambda T: (lambda u: (u.unfold(0, 2, 2).mul_(2),
                                                           graph(u.grad_fn)))(
        T.arange(6.).requires_grad_() * 1),
    "view_as_real": lambda T: view_info(T.view_as_real(_complex(T))),
    "view_as_real slice": lambda T: view_info(T.view_as_real(_complex(T)[1:])),
    "view_as_real transposed": lambda T: view_info(T.view_as_real(_complex(T).t())),
    "view_as_real 0-d": lambda T: view_info(T.view_as_real(_complex(T)[0, 0])),
    "view_as_real of a real tensor": lambda T: T.view_as_real(R(T, 3)),
    "view_as_real written through": lambda T: (lambda a: (T.view_as_real(a).mul_(2), a,
                                                          a._version))(_complex(T)),
    "view_as_real base": lambda T: (lambda a: T.view_as_real(a)._base is a)(_complex(T)),
    "view_as_complex": lambda T: view_info(T.view_as_complex(R(T, 3, 2))),
    "view_as_complex slice": lambda T: view_info(T.view_as_complex(T.arange(8.).view(4, 2)[1:])),
    "view_as_complex odd offset": lambda T: T.view_as_complex(T.arange(9.)[1:].view(4, 2)),
    "view_as_complex transposed": lambda T: T.view_as_complex(R(T, 3, 2).t()),
    "view_as_complex last dim 3": lambda T: T.view_as_complex(R(T, 3, 3)),
    "view_as_complex 1-d": lambda T: view_info(T.view_as_complex(R(T, 2))),
    "view_as_complex 0-d": lambda T: T.view_as_complex(R(T)),
    "view_as_complex last stride": lambda T: T.view_as_complex(R(T, 3, 4)[:, ::2]),
    "view_as_complex even stride": lambda T: view_info(T.view_as_complex(
        T.arange(8.).view(4, 2)[::2])),
    "view_as_complex odd stride": lambda T: T.view_as_complex(R(T, 3, 3)[:, :2]),
    "view_as_complex integers": lambda T: T.view_as_complex(T.ones(3, 2, dtype=T.int64)),
    "view_as_complex float32": lambda T: view_info(T.view_as_complex(T.ones(3, 2))),
    "view_as_complex complex": lambda T: T.view_as_complex(_complex(T)),
    "view_as_complex empty": lambda T: T.view_as_complex(T.ones(0, 2)),
    "view_as_complex float16": lambda T: quiet(lambda: (lambda r: (
        r.dtype, r.shape, view_info(T.view_as_real(r))))(T.view_as_complex(
            T.arange(6., dtype=T.float16).view(3, 2)))),
    "view_as_real complex32": lambda T: quiet(lambda: T.view_as_real(T.ones(3, dtype=T.complex32))),
    "view_as_complex bfloat16": lambda T: T.view_as_complex(T.ones(3, 2, dtype=T.bfloat16)),
    "view_as_complex written through": lambda T: (lambda a: (T.view_as_complex(a).mul_(2), a,
                                                             a._version))(
        T.arange(6.).view(3, 2)),
    "view_as_complex gradient": lambda T: (lambda a: T.autograd.grad(T.view_as_real(
        T.view_as_complex(a) * T.tensor(1 + 2j, dtype=T.complex128)).sum(), a))(R(T, 3, 2)),
    "in place through view_as_real": lambda T: _through_dtype_view(T, False),
    "in place through view_as_real of a slice": lambda T: _through_dtype_view(T, True),
    "in place through view_as_complex": _complex_view_inplace,
    "view_as_real after its base changed": _stale_dtype_view,
    "slice_inverse": lambda T: view_info(T.arange(12.).view(3, 4).slice_inverse(
        T.arange(12.).view(3, 4)[:, 1:3], 1, 1, 3)),
    "slice_inverse defaults": lambda T: (lambda a: view_info(T.slice_inverse(a[1:], a)))(
        T.arange(12.).view(3, 4)),
}


@run(VIEWS)
def test_views(prog):
    same_or_error(prog)


def test_is_view_and_detach_functions():
    def prog(T):
        x = R(T, 2, 3)
        y = x[0]
        d = T.detach(x)
        z = x * 1
        T.detach_(z)
        return (x._is_view(), y._is_view(), y._base is x, d._is_view(), d.requires_grad,
                d._version, z.requires_grad, z.is_leaf, T.detach_(z) is z)
    same(prog)
    same_error(lambda T: T.detach_(R(T, 2)[0] * 1)[0:1].detach_())


# ---- in-place view ops: t_, transpose_, swapaxes_, swapdims_, squeeze_, unsqueeze_, as_strided_

INPLACE_VIEW_CALLS = [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)),
                      ("swapdims_", (-1, 0)), ("unsqueeze_", (1,)), ("unsqueeze_", (-1,)),
                      ("squeeze_", ()), ("squeeze_", (0,)), ("squeeze_", ((0, 1),)),
                      ("as_strided_", ((2, 2), (1, 2), 1))]


def _on_leaf(T, name, args):
    return getattr(R(T, 3, 4), name)(*args)


def _on_non_leaf(T, name, args):
    a = R(T, 3, 4)
    y = (a * 1).unsqueeze(0)
    r = getattr(y, name)(*args)
    return r is y, view_info(y), graph(y.grad_fn), T.autograd.grad((y * y).sum(), a)


def _on_view(T, name, args):
    a = R(T, 3, 4)
    z = a * 1
    v = z[1:]
    getattr(v, name)(*args)
    return (view_info(v), v._base is z, graph(v.grad_fn), graph(z.grad_fn),
            T.autograd.grad((v * 2).sum(), a))


def _on_view_of_leaf(T, name, args):
    return getattr(R(T, 3, 4)[1:], name)(*args)


def _under_no_grad(T, name, args):
    a = R(T, 3, 4)
    with T.no_grad():
        r = getattr(a, name)(*args)
    return r is a, view_info(a), a.grad_fn


def _on_integers(T, name, args):
    a = T.arange(12).view(3, 4)
    b = a[0:2]
    getattr(b, name)(*args)
    return view_info(b), view_info(a), b._base is a


def _on_no_grad_view(T, name, args):
    a = R(T, 3, 4) * 1
    with T.no_grad():
        v = a[0:2]
    return getattr(v, name)(*args)


def _on_multi_output_view(T, name, args):
    return getattr((R(T, 3, 4) * 1).split(2)[0], name)(*args)


def _on_detached(T, name, args):
    y = R(T, 3, 4) * 1
    d = y.detach()
    getattr(d, name)(*args)
    return view_info(d), view_info(y)


@pytest.mark.parametrize("where", [_on_leaf, _on_non_leaf, _on_view, _on_view_of_leaf,
                                   _under_no_grad, _on_integers, _on_no_grad_view,
                                   _on_multi_output_view, _on_detached],
                         ids=lambda f: f.__name__[1:])
@pytest.mark.parametrize("name,args", INPLACE_VIEW_CALLS,
                         ids=[f"{n}{a}" for n, a in INPLACE_VIEW_CALLS])
def test_inplace_view_ops(name, args, where):
    same_or_error(lambda T: where(T, name, args))


def _view_then_base_changed(T):
    a = R(T, 3, 4)
    z = a * 1
    v = z[1:]
    v.t_()
    z.mul_(2)
    return graph(v.grad_fn), T.autograd.grad(v.sum(), a)


def _view_then_inplace(T):
    a = R(T, 3, 4)
    z = a * 1
    v = z[1:]
    v.t_()
    v.mul_(3)
    return graph(v.grad_fn), graph(z.grad_fn), T.autograd.grad(z.sum(), a)


INPLACE_VIEW_MORE = {
    "t_ 3-d": lambda T: T.ones(2, 2, 2).t_(),
    "squeeze_ bad dim": lambda T: T.ones(2, 2).squeeze_(5),
    "unsqueeze_ bad dim": lambda T: T.ones(2, 2).unsqueeze_(5),
    "transpose_ bad dim": lambda T: T.ones(2, 2).transpose_(5, 0),
    "as_strided_ out of bounds": lambda T: T.ones(2, 2).as_strided_((3, 3), (1, 1), 3),
    "torch.as_strided_": lambda T: (lambda a: (T.as_strided_(a, (2, 2), (1, 2)) is a,
                                               view_info(a)))(T.arange(6.)),
    "view t_ then its base changed": _view_then_base_changed,
    "view t_ then mul_": _view_then_inplace,
    "squeeze_ 0-d": lambda T: view_info(T.tensor(2.).squeeze_()),
    "unsqueeze_ 0-d": lambda T: view_info(T.tensor(2.).unsqueeze_(-1)),
    "t_ 1-d": lambda T: view_info(T.arange(3.).t_()),
}


@run(INPLACE_VIEW_MORE)
def test_inplace_view_ops_more(prog):
    same_or_error(prog)


# ---- resize_, resize_as_, resize, set_, new_empty_strided ---------------------------------

def _info(t):
    return (tuple(t.shape), t.stride(), t.storage_offset(), t._version,
            t.tolist() if t.numel() < 13 else None, t._is_view())


def _deprecated(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = f()
    return r, [(w.category.__name__, str(w.message)) for w in caught]


def _set_tensor(T):
    a, s = T.zeros(3), T.arange(6.).view(2, 3)
    r = a.set_(s)
    a[0, 0] = 100
    return r is a, _info(a), _info(s), a.is_set_to(s), a._base is None


STORAGE = {
    "resize_ smaller": lambda T: (lambda a: (_info(a.resize_(2, 3)), _info(a)))(T.arange(12.)),
    "resize_ view": lambda T: (lambda a: (lambda v: (_info(v.resize_(2, 2)), _info(a),
                                                     v._base is a))(a[2:]))(T.arange(12.)),
    "resize_ view larger": lambda T: (lambda a: (lambda v: (_info(v.resize_(3, 5))[:4], _info(a),
                                                            v._base is a))(a[2:]))(T.arange(12.)),
    "resize_ larger keeps values": lambda T: (lambda a: (_info(a.resize_(4, 4))[:4], a[:1, :2]))(
        T.arange(6.)),
    "resize_ negative": lambda T: T.ones(3).resize_(-1),
    "resize_ negative 2": lambda T: T.ones(3).resize_(2, -3),
    "resize_ requires grad": lambda T: T.ones(3, requires_grad=True).resize_(2),
    "resize_ requires grad, same shape": lambda T: T.ones(3, requires_grad=True).resize_(3),
    "resize_ non-leaf": lambda T: (T.ones(3, requires_grad=True) * 2).resize_(2),
    "resize_ tuple": lambda T: _info(T.ones(3).resize_((1, 3))),
    "resize_ list": lambda T: _info(T.ones(3).resize_([3, 1])),
    "resize_ Size": lambda T: _info(T.ones(3).resize_(T.Size([3, 1]))),
    "resize_ empty": lambda T: _info(T.ones(3).resize_(0))[:1],
    "resize_ 0-d": lambda T: _info(T.ones(3).resize_(())),
    "resize_ non-contiguous, same shape": lambda T: _info(
        T.arange(6.).view(2, 3).t().resize_(3, 2)),
    "resize_ non-contiguous": lambda T: _info(T.arange(6.).view(2, 3).t().resize_(2, 3)),
    "resize_ expanded, same shape": lambda T: _info(T.ones(1).expand(3).resize_(3)),
    "resize_ channels_last": lambda T: _info(T.arange(24.).resize_(
        2, 3, 2, 2, memory_format=T.channels_last))[:4],
    "resize_ contiguous_format": lambda T: _info(T.arange(24.).resize_(
        2, 3, 2, 2, memory_format=T.contiguous_format))[:4],
    "resize_as_": lambda T: _info(T.arange(6.).resize_as_(T.ones(2, 2))),
    "torch.resize_as_": lambda T: _info(T.resize_as_(T.arange(6.), T.ones(2, 2))),
    "resize": lambda T: _deprecated(lambda: T.arange(6.).resize(2, 3)),
    "resize other numel": lambda T: _deprecated(lambda: T.arange(6.).resize(2, 2)),
    "resize records ResizeBackward": lambda T: _deprecated(lambda: (lambda r: (r, graph(
        r.grad_fn)))(R(T, 6).resize(3, 2))),
    "resize gradient": lambda T: quiet(lambda: (lambda a: T.autograd.grad(
        a.resize(3, 2).pow(2).sum(), a))(R(T, 6))),
    "resize shares memory": lambda T: _deprecated(lambda: (lambda a: (a.resize(2, 3).mul_(2),
                                                                      a))(T.arange(6.))),
    "resize_as": lambda T: _deprecated(lambda: T.arange(6.).resize_as(T.ones(3, 2))),
    "resize_as other numel": lambda T: _deprecated(lambda: T.arange(6.).resize_as(T.ones(2, 2))),
    "set_ tensor": _set_tensor,
    "set_ slice": lambda T: (lambda a, s: (_info(a.set_(s[1:])), a.is_set_to(s[1:])))(
        T.zeros(3), T.arange(6.).view(2, 3)),
    "set_ nothing": lambda T: _info(T.ones(3).set_())[:1],
    "set_ untyped storage": lambda T: _info(T.zeros(1).set_(T.arange(6.).untyped_storage())),
    "set_ storage with geometry": lambda T: _info(T.zeros(1).set_(
        T.arange(6.).untyped_storage(), 1, (2, 2), (2, 1))),
    "set_ storage keywords": lambda T: _info(T.zeros(1).set_(
        T.arange(6.).untyped_storage(), storage_offset=1, size=(2, 2), stride=(2, 1))),
    "set_ tensor with geometry": lambda T: _info(T.zeros(1).set_(T.arange(6.), 1, (2, 2))),
    "set_ other dtype": lambda T: T.zeros(1, dtype=T.float64).set_(T.arange(6.)),
    "set_ leaf requiring grad": lambda T: T.zeros(1, requires_grad=True).set_(T.arange(6.)),
    "set_ non-leaf": lambda T: (lambda a: (_info(a.set_(T.arange(6.))), graph(a.grad_fn)))(
        T.zeros(1, requires_grad=True) * 2),
    "set_ source requiring grad": lambda T: (lambda t: (graph(t.grad_fn), t.requires_grad,
                                                        t.is_leaf))(
        T.zeros(1, dtype=T.float64).set_(R(T, 6))),
    "set_ backward": lambda T: T.zeros(1, dtype=T.float64).set_(R(T, 6) * 1).sum().backward(),
    "set_ bad source": lambda T: T.zeros(1).set_(3),
    "set_ view": lambda T: _info(T.zeros(3)[1:].set_(T.arange(6.))),
    "set_ integer storage": lambda T: _info(T.zeros(1, dtype=T.int64).set_(
        T.arange(3).untyped_storage())),
    "new_empty_strided": lambda T: (lambda r: (r.shape, r.stride(), r.dtype, r.requires_grad))(
        R(T, 3, 4).new_empty_strided((2, 3), (1, 2))),
    "new_empty_strided dtype": lambda T: (lambda r: (r.shape, r.stride(), r.dtype))(
        R(T, 3, 4).new_empty_strided((2, 3), (3, 1), dtype=T.int32)),
    "new_empty_strided requires_grad": lambda T: R(T, 3).new_empty_strided(
        (2, 3), (3, 1), requires_grad=True).requires_grad,
    "new_empty_strided mismatch": lambda T: R(T, 3).new_empty_strided((2, 3), (3,)),
}


@run(STORAGE)
def test_resize_and_set(prog):
    same_or_error(prog)


# ---- *_copy -------------------------------------------------------------------------------

def _copy_info(r):
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return [(t, t.stride(), t._is_view(), graph(t.grad_fn)) for t in rs]


COPY_CALLS = [("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 2))),
              ("as_strided_copy", ((2, 2), (1, 2), 3)), ("detach_copy", ()),
              ("expand_copy", ((2, 4, 3),)), ("expand_copy", ((2, -1, 3),)),
              ("narrow_copy", (1, 1, 2)), ("narrow_copy", (0, -2, 2)), ("permute_copy", ((1, 0),)),
              ("select_copy", (1, 0)), ("select_copy", (0, -1)), ("slice_copy", (1, 0, 4, 2)),
              ("slice_copy", ()), ("split_copy", (2, 1)), ("split_with_sizes_copy", ([1, 3], 0)),
              ("squeeze_copy", ()), ("squeeze_copy", (0,)), ("squeeze_copy", ((0, 1),)),
              ("t_copy", ()), ("transpose_copy", (0, 1)), ("unbind_copy", (1,)),
              ("unfold_copy", (1, 2, 1)), ("unsqueeze_copy", (1,)), ("view_copy", ((4, 3),)),
              ("view_copy", ((-1,),)), ("diagonal_copy", ())]


@pytest.mark.parametrize("grad", [True, False], ids=["requires grad", "no grad"])
@pytest.mark.parametrize("name,args", COPY_CALLS, ids=[f"{n}{a}" for n, a in COPY_CALLS])
def test_copies(name, args, grad):
    # on a transposed input: values copied into fresh contiguous memory, the view's node
    same_or_error(lambda T: _copy_info(getattr(T, name)(R(T, 3, 4, requires_grad=grad).t(),
                                                        *args)))


def _list_out(T, f, *args, out):
    return f(*args, out=out), out


COPIES = {
    "by name": lambda T: _copy_info([
        T.alias_copy(R(T, 3, 4)), T.as_strided_copy(R(T, 3, 4), (2, 2), (1, 2)),
        T.permute_copy(R(T, 2, 3, 4), (2, 0, 1)), T.select_copy(R(T, 3, 4), 1, -1),
        T.slice_copy(R(T, 3, 4), 1, 1, None, 2), T.squeeze_copy(R(T, 3, 1), -1),
        T.transpose_copy(R(T, 3, 4), 1, 0), T.unfold_copy(R(T, 3, 4), 1, 2, 2),
        T.unsqueeze_copy(R(T, 3), 0)]),
    "swapaxes_ and swapdims_": lambda T: (lambda y: (y.swapaxes_(0, 1), y.swapdims_(1, 2),
                                                     graph(y.grad_fn)))(R(T, 2, 3, 4) * 1),
    "tril_indices and triu_indices": lambda T: (T.tril_indices(3, 2, -1),
                                                T.triu_indices(2, 3, 1, dtype=T.int32)),
    "expand_copy implicit": lambda T: _copy_info(T.expand_copy(R(T, 3, 4)[:1], (3, 4),
                                                               implicit=True)),
    "view_copy int size": lambda T: T.view_copy(R(T, 3, 4), 12),
    "view_copy non-contiguous": lambda T: _copy_info(T.view_copy(R(T, 3, 4).t(), (12,))),
    "view_as_real_copy": lambda T: _copy_info(T.view_as_real_copy(T.ones(3, dtype=T.complex64))),
    "view_as_real_copy requires grad": lambda T: _copy_info(T.view_as_real_copy(
        T.ones(3, dtype=T.complex64, requires_grad=True))),
    "view_as_complex_copy": lambda T: _copy_info(T.view_as_complex_copy(T.ones(3, 2))),
    "view_as_complex_copy requires grad": lambda T: T.view_as_complex_copy(
        T.ones(3, 2, requires_grad=True)),
    "view_as_complex_copy no_grad": lambda T: T.no_grad()(T.view_as_complex_copy)(
        T.ones(3, 2, requires_grad=True)),
    "t_copy 3-d": lambda T: T.t_copy(T.ones(2, 2, 2)),
    "narrow_copy past the end": lambda T: T.narrow_copy(R(T, 3, 4), 1, 3, 2),
    "narrow_copy negative length": lambda T: T.narrow_copy(R(T, 3, 4), 1, 0, -1),
    "narrow_copy start out of range": lambda T: T.narrow_copy(R(T, 3, 4), 1, 5, 0),
    "narrow_copy 0-d": lambda T: T.narrow_copy(R(T), 0, 0, 1),
    "narrow_copy tensor start": lambda T: T.narrow_copy(R(T, 3, 4), 1, T.tensor(1), 2),
    "narrow_copy method": lambda T: _copy_info(R(T, 3, 4).narrow_copy(1, 1, 2)),
    # PyTorch's backward slices from a negative start as given, and fails
    "narrow_copy negative start backward": lambda T: T.narrow_copy(R(T, 3, 4), 0, -2, 2).sum(
        ).backward(),
    "narrow_copy negative start dim 1": lambda T: T.narrow_copy(R(T, 3, 4), 1, -3, 2).sum(
        ).backward(),
    "detach_copy backward": lambda T: T.detach_copy(T.ones(2, requires_grad=True)).sum(
        ).backward(),
    "split_copy out": lambda T: _list_out(T, T.split_copy, R(T, 3, 4).detach(), 2, 1, out=[
        T.empty(3, 2, dtype=T.float64), T.empty(3, 2, dtype=T.float64)]),
    "split_copy out casts": lambda T: _list_out(T, T.split_copy, R(T, 3, 4).detach(), 2, 1,
                                                out=[T.empty(3, 2), T.empty(3, 2)]),
    "split_copy out requires grad": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1, out=[
        T.empty(3, 2), T.empty(3, 2, requires_grad=True)]),
    "split_copy out short": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1,
                                                out=[T.empty(3, 2)]),
    "split_copy out broadcasts": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1, out=[
        T.empty(1, 2), T.empty(3, 2)]),
    "split_copy out too many dims": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1, out=[
        T.empty(3, 2, 1), T.empty(3, 2)]),
    "split_copy out empty": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1, out=[
        T.empty(0), T.empty(0)]),
    "split_copy out tensor": lambda T: _list_out(T, T.split_copy, R(T, 3, 4), 2, 1,
                                                 out=T.empty(3)),
    "unbind_copy out": lambda T: _list_out(T, T.unbind_copy, R(T, 3, 4), 0,
                                           out=[T.empty(4, dtype=T.float64)] * 3),
    "unbind_copy out empty resized": lambda T: _list_out(T, T.unbind_copy, R(T, 3, 4), 0, out=[
        T.empty(0, dtype=T.float64) for _ in range(3)]),
    "unbind_copy out dtype": lambda T: _list_out(T, T.unbind_copy, R(T, 3, 4), 0,
                                                 out=[T.empty(4)] * 3),
    "unbind_copy out requires grad": lambda T: _list_out(T, T.unbind_copy, R(T, 3, 4).detach(),
                                                         0, out=[R(T, 4), R(T, 4), R(T, 4)]),
    "unbind_copy out short": lambda T: _list_out(T, T.unbind_copy, R(T, 3, 4), 0,
                                                 out=[T.empty(4)]),
    "split_with_sizes_copy out": lambda T: _list_out(
        T, T.split_with_sizes_copy, R(T, 3, 4), [1, 3], 1,
        out=[T.empty(3, 1, dtype=T.float64), T.empty(3, 3, dtype=T.float64)]),
    "split_with_sizes_copy out requires grad": lambda T: _list_out(
        T, T.split_with_sizes_copy, R(T, 3, 4).detach(), [1, 3], 1,
        out=[R(T, 3, 1), T.empty(3, 3, dtype=T.float64)]),
    "split_with_sizes_copy out short": lambda T: _list_out(
        T, T.split_with_sizes_copy, R(T, 3, 4), [1, 3], 1, out=[T.empty(3, 1)]),
}


@run(COPIES)
def test_copies_more(prog):
    same_or_error(prog)


# out= of the copies: PyTorch writes out and gives it a NotImplemented node when the input
# requires grad (backward then fails), and refuses an out that requires grad
COPY_OUT = ["alias_copy", "t_copy", "permute_copy", "expand_copy", "view_copy",
            "slice_scatter", "as_strided_copy", "unfold_copy", "squeeze_copy", "select_copy",
            "detach_copy", "transpose_copy", "unsqueeze_copy", "narrow_copy", "diagonal_copy"]
_COPY_OUT_ARGS = {"permute_copy": ((1, 0),), "expand_copy": ((2, 2, 3),),
                  "view_copy": ((3, 2),), "slice_scatter": (None,),
                  "as_strided_copy": ((2, 2), (1, 1)), "unfold_copy": (1, 2, 1),
                  "select_copy": (0, 0), "transpose_copy": (0, 1), "unsqueeze_copy": (0,),
                  "narrow_copy": (1, 0, 2)}


def _copy_out(T, name, input_grad, out_grad):
    x = R(T, 2, 3, requires_grad=input_grad)
    args = tuple(T.ones(2, 3, dtype=T.float64) if a is None else a
                 for a in _COPY_OUT_ARGS.get(name, ()))
    o = T.empty(0, dtype=T.float64, requires_grad=out_grad)
    r = getattr(T, name)(x, *args, out=o)
    result = r is o, o.requires_grad, graph(o.grad_fn), o._version, o.detach()
    return result, error_of(lambda: o.sum().backward()) is not None


@pytest.mark.parametrize("grads", [(True, False), (False, True), (False, False)],
                         ids=["input requires grad", "out requires grad", "none"])
@pytest.mark.parametrize("name", COPY_OUT)
def test_copy_out_and_autograd(name, grads):
    if name == "diagonal_copy" and grads[0]:
        pytest.skip("diagonal_copy(out=) refuses an input that requires grad "
                    "(tests/test_out.py GRAD_UNCOMPARED)")
    same_or_error(lambda T: _copy_out(T, name, *grads))


def test_copy_out_backward_message():
    same_error(lambda T: (lambda o: (T.t_copy(R(T, 2, 3), out=o), o.sum().backward()))(
        T.empty(0, dtype=T.float64)))


# ---- *_scatter ----------------------------------------------------------------------------

SCATTER_CALLS = [
    ("slice", "slice_scatter", (3, 2), (1, 0, 2)), ("slice all", "slice_scatter", (3, 4), ()),
    ("slice step", "slice_scatter", (3, 2), (1, None, None, 2)),
    ("slice bad shape", "slice_scatter", (3, 3), (1, 0, 2)),
    ("slice negative", "slice_scatter", (3, 2), (1, -2)),
    ("slice step 0", "slice_scatter", (3, 2), (1, 0, 2, 0)),
    ("slice no broadcasting", "slice_scatter", (2,), (1, 0, 2)),
    ("select", "select_scatter", (4,), (0, 1)), ("select negative", "select_scatter", (3,), (1, -1)),
    ("select out of range", "select_scatter", (3,), (1, 4)),
    ("select bad shape", "select_scatter", (4,), (1, 0)),
    ("diagonal", "diagonal_scatter", (3,), ()), ("diagonal offset", "diagonal_scatter", (3,), (1,)),
    ("diagonal dims", "diagonal_scatter", (3,), (0, 1, 0)),
    ("diagonal bad shape", "diagonal_scatter", (2,), ()),
    ("diagonal same dims", "diagonal_scatter", (3,), (0, 1, 1)),
    ("as_strided", "as_strided_scatter", (2, 2), ((2, 2), (1, 2))),
    ("as_strided offset", "as_strided_scatter", (2, 2), ((2, 2), (1, 2), 3)),
    ("as_strided bad shape", "as_strided_scatter", (2, 3), ((2, 2), (1, 2))),
    ("as_strided out of bounds", "as_strided_scatter", (2, 2), ((2, 2), (10, 2)))]


def _base(T):
    return T.arange(12., dtype=T.float64).view(3, 4)


def _scatter_grads(T, f, sshape, args):
    a, s = R(T, 3, 4), R(T, *sshape)
    out = getattr(T, f)(a, s, *args)
    return _copy_info(out), T.autograd.grad((out * R(T, 3, 4, requires_grad=False)).sum(), (a, s))


@pytest.mark.parametrize("kind", ["values", "gradients", "method", "src dtype cast",
                                  "non-contiguous self"])
@pytest.mark.parametrize("label,f,sshape,args", SCATTER_CALLS, ids=[c[0] for c in SCATTER_CALLS])
def test_scatters(label, f, sshape, args, kind):
    progs = {
        "values": lambda T: _copy_info(getattr(T, f)(_base(T), T.ones(*sshape, dtype=T.float64),
                                                     *args)),
        "gradients": lambda T: _scatter_grads(T, f, sshape, args),
        "method": lambda T: _copy_info(getattr(_base(T), f)(T.ones(*sshape, dtype=T.float64),
                                                           *args)),
        "src dtype cast": lambda T: _copy_info(getattr(T, f)(_base(T), T.ones(*sshape,
                                                                              dtype=T.int64),
                                                             *args)),
        "non-contiguous self": lambda T: _copy_info(getattr(T, f)(
            _base(T).t().contiguous().t(), T.ones(*sshape, dtype=T.float64), *args)),
    }
    same_or_error(progs[kind])


SCATTERS = {
    "slice_scatter 0-d": lambda T: T.slice_scatter(T.tensor(1.), T.tensor(2.)),
    "select_scatter 0-d": lambda T: T.select_scatter(T.tensor(1.), T.tensor(2.), 0, 0),
    "select_scatter 0-d src": lambda T: _copy_info(T.select_scatter(T.ones(3), T.tensor(2.),
                                                                    0, 0)),
    "diagonal_scatter 1-d": lambda T: T.diagonal_scatter(T.ones(3), T.ones(2)),
    "slice_scatter transposed keeps layout": lambda T: _copy_info(T.slice_scatter(
        _base(T).t(), T.ones(4, 2, dtype=T.float64), 1, 0, 2)),
    "as_strided_scatter transposed": lambda T: _copy_info(T.as_strided_scatter(
        _base(T).t(), T.ones(2, 2, dtype=T.float64), (2, 2), (1, 2))),
    "as_strided_scatter slice": lambda T: _copy_info(T.as_strided_scatter(
        _base(T)[1:], T.ones(2, 2, dtype=T.float64), (2, 2), (1, 2))),
    "as_strided_scatter overlapping": lambda T: _copy_info(T.as_strided_scatter(
        T.zeros(4), T.arange(6.).view(3, 2), (3, 2), (1, 1))),
    "as_strided_scatter non-contiguous requiring grad": lambda T: T.as_strided_scatter(
        R(T, 3, 4).t(), T.ones(2, 2), (2, 2), (1, 2)),
    "as_strided_scatter takes no out": lambda T: T.as_strided_scatter(
        _base(T), T.ones(2, 2), (2, 2), (1, 2), out=T.empty(0)),
    "select_scatter takes no out": lambda T: T.select_scatter(_base(T), T.ones(4), 0, 0,
                                                              out=T.empty(0)),
    "diagonal_scatter takes no out": lambda T: T.diagonal_scatter(_base(T), T.ones(3),
                                                                  out=T.empty(0)),
    "slice_scatter out": lambda T: (lambda o: (T.slice_scatter(_base(T), T.ones(3, 2), 1, 0, 2,
                                                               out=o), o))(T.empty(0)),
    "slice_scatter out dtype": lambda T: T.slice_scatter(_base(T), T.ones(3, 2), 1, 0, 2,
                                                         out=T.empty(0, dtype=T.float32)),
}


@run(SCATTERS)
def test_scatters_more(prog):
    same_or_error(prog)


# ---- put, index_reduce --------------------------------------------------------------------

def _put_grads(T, accumulate):
    a, s = R(T, 3, 4), R(T, 2, 2)
    out = a.put(T.tensor([[0, 5], [-1, 0]]), s, accumulate)
    return out, graph(out.grad_fn), T.autograd.grad(out, (a, s), R(T, 3, 4, requires_grad=False))


def _index_reduce_grads(T, reduce, include_self):
    a, s = R(T, 3, 4), R(T, 3, 4)
    out = a.index_reduce(0, T.tensor([0, 2, 0]), s, reduce, include_self=include_self)
    return out, graph(out.grad_fn), T.autograd.grad(out, (a, s), R(T, 3, 4, requires_grad=False))


def _prod_zeros_double_backward(T):
    a = R(T, 3, 4)
    s = T.tensor([[0., 1, 2, 3], [4, 5, 6, 7], [0., 1, 2, 3]], dtype=T.float64,
                 requires_grad=True)
    out = a.index_reduce(0, T.tensor([0, 2, 0]), s, "prod")
    gs, = T.autograd.grad(out.sum(), s, create_graph=True)
    return gs.detach(), str(error_of(lambda: T.autograd.grad(gs.sum(), s)))


def _x(T):
    return T.arange(1., 13.).view(3, 4)


def _source(T):
    return T.arange(10., 22.).view(3, 4)


def _i(T):
    return T.tensor([0, 2, 0])


PUT_REDUCE = {
    "put": lambda T: _base(T).put(T.tensor([0, -1]), T.tensor([9., 8.], dtype=T.float64)),
    "put accumulate": lambda T: _x(T).put(T.tensor([0, 0]), T.tensor([9., 8.]), accumulate=True),
    "put repeated index": lambda T: _x(T).put(T.tensor([0, 0]), T.tensor([9., 8.])),
    "put out of range": lambda T: _x(T).put(T.tensor([12]), T.tensor([9.])),
    "put out of range negative": lambda T: _x(T).put(T.tensor([-13]), T.tensor([9.])),
    "put lengths differ": lambda T: _x(T).put(T.tensor([1, 2]), T.tensor([9.])),
    "put shapes differ": lambda T: _x(T).put(T.tensor([[1, 2]]), T.tensor([9., 3.])),
    "put dtypes differ": lambda T: _x(T).put(T.tensor([1]), T.tensor([9.], dtype=T.float64)),
    "put int32 index": lambda T: _x(T).put(T.tensor([1], dtype=T.int32), T.tensor([9.])),
    "put into empty": lambda T: T.zeros(0).put(T.tensor([0]), T.tensor([9.])),
    "put nothing into empty": lambda T: T.zeros(0).put(T.tensor([], dtype=T.long), T.tensor([])),
    "put 0-d": lambda T: T.tensor(1.).put(T.tensor([-1]), T.tensor([9.])),
    "torch.put": lambda T: T.put(_x(T), T.tensor([1]), T.tensor([9.])),
    "put_": lambda T: (lambda a: (a.put_(T.tensor([1]), T.tensor([9.]), True), a._version))(
        _x(T)),
    "put non-contiguous keeps layout": lambda T: (lambda r: (r, r.stride()))(
        _x(T).t().put(T.tensor([1]), T.tensor([9.]))),
    "put_ through a transposed view": lambda T: (lambda a: (a.t().put_(
        T.tensor([1, 5]), T.tensor([9., 7.])), a))(_x(T)),
    "put integers": lambda T: T.arange(6).put(T.tensor([1]), T.tensor([-5]), accumulate=True),
    "put gradients": lambda T: _put_grads(T, False),
    "put gradients accumulate": lambda T: _put_grads(T, True),
    "index_reduce bad reduce": lambda T: _x(T).index_reduce(0, _i(T), _source(T), "sum"),
    "index_reduce bool": lambda T: T.ones(3, dtype=T.bool).index_reduce(
        0, T.tensor([0]), T.zeros(1, dtype=T.bool), "amax"),
    "index_reduce complex": lambda T: T.ones(3, dtype=T.complex64).index_reduce(
        0, T.tensor([0]), T.zeros(1, dtype=T.complex64), "prod"),
    "index_reduce out of range": lambda T: _x(T).index_reduce(0, T.tensor([0, 3, 0]), _source(T),
                                                              "prod"),
    "index_reduce negative index": lambda T: _x(T).index_reduce(0, T.tensor([0, -1, 0]),
                                                                _source(T), "prod"),
    "index_reduce int32 index": lambda T: _x(T).index_reduce(0, _i(T).int(), _source(T), "prod"),
    "index_reduce float index": lambda T: _x(T).index_reduce(0, _i(T).float(), _source(T),
                                                             "prod"),
    "index_reduce 2-d index": lambda T: _x(T).index_reduce(0, _i(T).view(3, 1), _source(T),
                                                           "prod"),
    "index_reduce dtypes differ": lambda T: _x(T).index_reduce(0, _i(T), _source(T).double(),
                                                               "prod"),
    "index_reduce index length": lambda T: _x(T).index_reduce(0, _i(T)[:2], _source(T), "prod"),
    "index_reduce source shape": lambda T: _x(T).index_reduce(0, _i(T), _source(T)[:, :3],
                                                              "prod"),
    "index_reduce 0-d": lambda T: T.tensor(2.).index_reduce(0, T.tensor([0]), T.tensor([3.]),
                                                            "prod"),
    "index_reduce 0-d source": lambda T: T.tensor([2., 1.]).index_reduce(
        0, T.tensor(0), T.tensor(3.), "prod"),
    "index_reduce bad dim": lambda T: _x(T).index_reduce(2, _i(T), _source(T), "prod"),
    "torch.index_reduce": lambda T: T.index_reduce(_x(T), 0, _i(T), _source(T), "amax"),
    "index_reduce out": lambda T: (lambda o: (T.index_reduce(_x(T), 0, _i(T), _source(T), "amax",
                                                             out=o), o))(T.empty(0)),
    "index_reduce_": lambda T: (lambda a: (a.index_reduce_(0, _i(T), _source(T), "amax"),
                                           a._version))(_x(T)),
    "index_reduce_ records": lambda T: (lambda b: (b.index_reduce_(0, _i(T), _source(T).double(),
                                                                   "mean"), graph(b.grad_fn)))(
        R(T, 3, 4) * 1),
    "index_reduce no indices": lambda T: _x(T).index_reduce(0, T.tensor([], dtype=T.long),
                                                            T.ones(0, 4), "prod"),
    "index_reduce prod zeros double backward": _prod_zeros_double_backward,
}
for _r in ("prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        PUT_REDUCE.update({
            f"index_reduce {_r} {_inc}": lambda T, r=_r, inc=_inc: _x(T).index_reduce(
                0, _i(T), _source(T), r, include_self=inc),
            f"index_reduce {_r} {_inc} gradients": lambda T, r=_r, inc=_inc: _index_reduce_grads(
                T, r, inc),
            f"index_reduce {_r} {_inc} dim 1": lambda T, r=_r, inc=_inc: _x(T).index_reduce(
                1, T.tensor([0, 0]), T.ones(3, 2) * 3, r, include_self=inc),
            f"index_reduce {_r} {_inc} integers": lambda T, r=_r, inc=_inc: T.arange(12).view(
                3, 4).index_reduce(0, _i(T), T.arange(12).view(3, 4) * 3 - 7, r,
                                   include_self=inc),
        })


@run(PUT_REDUCE)
def test_put_and_index_reduce(prog):
    same_or_error(lambda T: quiet(lambda: prog(T)))


# ---- copy_ into a smaller tensor ----------------------------------------------------------

def test_copy_into_a_tensor_it_does_not_fit():
    same_error(lambda T: T.empty(1, 2).copy_(T.ones(3, 2)))
