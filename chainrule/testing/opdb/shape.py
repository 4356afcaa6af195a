"""Op-database entries for the shape family: transposes, repeat/flip/roll, select/slice/narrow,
split/chunk/unbind, cat/stack, basic indexing, and the composites built on them; joining and
splitting (ops/joining.py: broadcasting, meshgrid, atleast_nd, the *stack and *split
functions, unsafe_split, rot90, repeat_interleave, block_diag, cartesian_prod, combinations);
put and index_reduce (ops/indexing.py)."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn


def _nc(rng, *shape):
    return noncontiguous(randn(rng, *shape))


def _grad_of(lib, op, wrt, weight):
    """d<op(wrt), weight>/d wrt with create_graph: the output of the op's backward op
    (grad mode on, as gradcheck runs its numerical pass under no_grad)."""
    with lib.enable_grad():
        return lib.autograd.grad(op(wrt), wrt, weight, create_graph=True)[0]


def _indexing(rng):
    x = randn(rng, 3, 4, 5)
    indices = [0, -1, slice(1, 3), slice(None, None, 2), slice(-2, None), slice(5, 10), None,
               Ellipsis, (), (0, slice(1, None)), (Ellipsis, 1), (0, 1, 2), (slice(None), None, 1),
               (slice(1, 2), None, Ellipsis, 0), (slice(0, 3), 1), (slice(-3, None), 1),
               (slice(None), slice(None)), (Ellipsis, None), (None, None), (-1, slice(None, -1), 3),
               (slice(None), slice(1, 4, 2), slice(0, 100))]
    samples = [Sample(x, i, name=f"x[{i!r}]") for i in indices]
    samples += [Sample(_nc(rng, 3, 4), (slice(1, None), 2), name="non-contiguous[1:, 2]"),
                Sample(randn(rng), None, name="0-d[None]"), Sample(randn(rng), Ellipsis, name="0-d[...]")]
    return samples


def _views_of_views(lib, a):
    # views of views: each node must chain to the previous one as in PyTorch
    return a[1:].transpose(0, 1)[..., None].select(1, 0).flatten()


def _index_reduce(reduce):
    def samples(rng):
        index = np.array([0, 2, 0, 3])
        out = []
        for include_self in (True, False):
            out += [Sample(randn(rng, 4, 3), 0, index, randn(rng, 4, 3), reduce,
                           include_self=include_self),
                    Sample(noncontiguous(randn(rng, 3, 4)), 1, index, randn(rng, 3, 4), reduce,
                           include_self=include_self, name=f"non-contiguous, dim 1, {include_self}"),
                    Sample(randn(rng, 5), -1, index, randn(rng, 4), reduce,
                           include_self=include_self)]
        return out
    return samples


def _index_reduce_edges(rng):
    # ties with self and among sources, and zeros (one and two per position, for prod)
    x = np.array([[1., 0., 2.], [3., 3., 0.], [5., 6., 7.]])
    s = np.array([[1., 0., 4.], [1., 0., 0.], [5., 6., 7.], [2., 8., 0.]])
    index = np.array([0, 0, 2, 1])
    return [Sample(x, 0, index, s, r, include_self=inc)
            for r in ("prod", "amax", "amin", "mean") for inc in (True, False)]


def _put(rng):
    index = np.array([[0, 5], [-1, 7]])
    return [Sample(randn(rng, 3, 4), index, randn(rng, 2, 2)),
            Sample(randn(rng, 3, 4), index, randn(rng, 2, 2), True, name="accumulate"),
            Sample(randn(rng, 3, 4), np.array([1, 1, 2]), randn(rng, 3), True,
                   name="accumulate repeats"),
            Sample(noncontiguous(randn(rng, 3, 4)), index, randn(rng, 4), name="non-contiguous"),
            Sample(randn(rng), np.array([0]), randn(rng, 1), name="0-d")]


def _inplace(name):
    def fn(lib, a, *args, **kwargs):
        b = a * 1
        getattr(b, name)(*args, **kwargs)
        return b
    return fn


def _grid(lib, *tensors, indexing="ij"):
    return lib.meshgrid(*tensors, indexing=indexing)


def _repeat_interleave_tensor(lib, a, repeats, *dim):
    return a.repeat_interleave(lib.tensor(repeats), *dim)


OPS_DB = [
    # ---- transposes ----
    OpInfo("transpose", lambda lib, a, d0, d1: a.transpose(d0, d1),
           lambda rng: [Sample(randn(rng, 2, 3, 4), 0, 2), Sample(randn(rng, 3, 4), -1, 0),
                        Sample(randn(rng, 3, 4), 1, 1), Sample(randn(rng), 0, -1),
                        Sample(_nc(rng, 3, 4), 0, 1)], ops=("transpose.int",)),
    OpInfo("swapaxes", lambda lib, a: lib.swapaxes(a, 0, 1).swapdims(0, -1),
           lambda rng: [Sample(randn(rng, 2, 3, 4))], ops=("transpose.int",)),
    OpInfo("permute", lambda lib, a, dims: a.permute(dims),
           lambda rng: [Sample(randn(rng, 2, 3, 4), (2, 0, 1)), Sample(randn(rng, 2, 3, 4), [-1, 0, 1]),
                        Sample(randn(rng, 3, 4), (0, 1)), Sample(randn(rng), ()),
                        Sample(_nc(rng, 3, 4), (1, 0))]),
    OpInfo("permute.varargs", lambda lib, a: lib.permute(a, [1, 2, 0]).permute(2, 1, 0),
           lambda rng: [Sample(randn(rng, 2, 3, 4))], ops=("permute",)),
    OpInfo("t", lambda lib, a: a.t(),
           lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng, 4)), Sample(randn(rng)),
                        Sample(_nc(rng, 3, 4))]),
    OpInfo("T", lambda lib, a: a.T, lambda rng: [Sample(randn(rng, 3, 4)), Sample(_nc(rng, 2, 3))],
           ops=("permute",)),
    OpInfo("mT", lambda lib, a: a.mT, lambda rng: [Sample(randn(rng, 2, 3, 4)), Sample(randn(rng, 3, 4))],
           ops=("transpose.int",)),
    OpInfo("mH", lambda lib, a: a.mH, lambda rng: [Sample(randn(rng, 2, 3, 4))], ops=("transpose.int",)),
    OpInfo("H", lambda lib, a: a.H, lambda rng: [Sample(randn(rng, 3, 4))], ops=("transpose.int",)),
    OpInfo("adjoint", lambda lib, a: lib.adjoint(a), lambda rng: [Sample(randn(rng, 2, 3, 4))],
           ops=("transpose.int",)),
    OpInfo("movedim", lambda lib, a, src, dst: a.movedim(src, dst),
           lambda rng: [Sample(randn(rng, 2, 3, 4), 0, 2), Sample(randn(rng, 2, 3, 4), (0, 1), (2, 0)),
                        Sample(randn(rng, 2, 3, 4), -1, 0), Sample(randn(rng, 2, 3), 0, 0)],
           ops=("permute",)),
    OpInfo("movedim.0-d", lambda lib, a: lib.moveaxis(a, 0, -1), lambda rng: [Sample(randn(rng))],
           ops=("alias",)),

    # ---- reshapes ----
    OpInfo("flatten", lambda lib, a, *dims: a.flatten(*dims),
           lambda rng: [Sample(randn(rng, 2, 3, 4)), Sample(randn(rng, 2, 3, 4), 1),
                        Sample(randn(rng, 2, 3, 4), 0, 1), Sample(randn(rng), name="0-d"),
                        Sample(randn(rng, 2, 3, 4), 1, 1, name="nothing to merge")],
           ops=("view",)),
    OpInfo("flatten.copy", lambda lib, a: lib.flatten(a), lambda rng: [Sample(_nc(rng, 3, 4))],
           ops=("_unsafe_view", "clone")),
    OpInfo("unflatten", lambda lib, a, dim, sizes: a.unflatten(dim, sizes),
           lambda rng: [Sample(randn(rng, 2, 6), 1, (2, 3)), Sample(randn(rng, 2, 6), -1, (-1, 2)),
                        Sample(_nc(rng, 6, 2), 0, (3, 2)), Sample(randn(rng, 4), 0, (4,))],
           ops=("view",)),
    OpInfo("ravel", lambda lib, a: a.ravel(), lambda rng: [Sample(randn(rng, 3, 4)), Sample(_nc(rng, 3, 4))],
           ops=("view", "clone")),
    OpInfo("view_as", lambda lib, a, b: a.view_as(b).reshape_as(a),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 2, 6), grad=(0,))], ops=("view",)),
    OpInfo("reshape.noncontiguous", lambda lib, a, shape: a.reshape(shape),
           lambda rng: [Sample(_nc(rng, 3, 4), (4, 3)), Sample(_nc(rng, 3, 4), (3, 4)),
                        Sample(_nc(rng, 3, 4), (-1,)), Sample(_nc(rng, 2, 3, 4), (2, 12)),
                        Sample(_nc(rng, 3, 4), (3, 1, 4))],
           ops=("_unsafe_view", "clone", "_reshape_alias")),
    OpInfo("contiguous", lambda lib, a: a.contiguous(),
           lambda rng: [Sample(_nc(rng, 3, 4)), Sample(randn(rng, 3, 4), name="already contiguous")],
           ops=("clone",)),
    OpInfo("squeeze.dims", lambda lib, a, dims: a.squeeze(dims),
           lambda rng: [Sample(randn(rng, 3, 1, 4, 1), (1, 3)), Sample(randn(rng, 3, 1, 4), (0, 1)),
                        Sample(randn(rng, 1, 2), (-2,)), Sample(randn(rng, 2, 3), ()),
                        Sample(randn(rng), (0,))]),
    OpInfo("squeeze.edge", lambda lib, a: a.squeeze(), lambda rng: [Sample(randn(rng, 2, 3)), Sample(randn(rng)),
                                                                    Sample(randn(rng, 1, 1))],
           ops=("squeeze",)),
    OpInfo("expand.more", lambda lib, a, *size: a.expand(*size),
           lambda rng: [Sample(randn(rng, 1, 3), 2, -1, 3), Sample(randn(rng), 2, 3),
                        Sample(_nc(rng, 3, 1), 3, 2)], ops=("expand",)),

    # ---- repeat, flip, roll ----
    OpInfo("repeat", lambda lib, a, *r: a.repeat(*r),
           lambda rng: [Sample(randn(rng, 2, 3), 2, 1), Sample(randn(rng, 2, 3), 2, 1, 3),
                        Sample(randn(rng, 2, 3), 1, 1), Sample(randn(rng, 2, 3), (0, 2)),
                        Sample(randn(rng), 2, 3), Sample(randn(rng), ()), Sample(_nc(rng, 2, 3), 2, 2)]),
    OpInfo("tile", lambda lib, a, dims: lib.tile(a, dims),
           lambda rng: [Sample(randn(rng, 2, 3), (2,)), Sample(randn(rng, 2, 3), (2, 1, 2)),
                        Sample(randn(rng), ())], ops=("repeat",)),
    OpInfo("flip", lambda lib, a, *dims: a.flip(*dims),
           lambda rng: [Sample(randn(rng, 2, 3, 4), 0), Sample(randn(rng, 2, 3, 4), -1, 0),
                        Sample(randn(rng, 2, 3), ()), Sample(randn(rng), 0), Sample(_nc(rng, 3, 4), 1)]),
    OpInfo("fliplr_flipud", lambda lib, a: lib.fliplr(a).flipud(), lambda rng: [Sample(randn(rng, 3, 4))],
           ops=("flip",)),
    OpInfo("roll", lambda lib, a, shifts, dims: a.roll(shifts, dims),
           lambda rng: [Sample(randn(rng, 3, 4), 1, 0), Sample(randn(rng, 3, 4), 1, None),
                        Sample(randn(rng, 3, 4), (1, -2), (0, 1)), Sample(randn(rng, 3, 4), 7, -1),
                        Sample(randn(rng), 1, None), Sample(_nc(rng, 3, 4), -1, None)]),

    # ---- select, slice, narrow ----
    OpInfo("select", lambda lib, a, dim, index: a.select(dim, index),
           lambda rng: [Sample(randn(rng, 3, 4), 0, 1), Sample(randn(rng, 3, 4), -1, -1),
                        Sample(randn(rng, 3), 0, 2), Sample(_nc(rng, 3, 4), 1, 0)], ops=("select.int",)),
    OpInfo("narrow", lambda lib, a, dim, start, length: a.narrow(dim, start, length),
           lambda rng: [Sample(randn(rng, 3, 4), 1, 1, 2), Sample(randn(rng, 3, 4), 0, -2, 2),
                        Sample(randn(rng, 3, 4), 1, 4, 0), Sample(_nc(rng, 3, 4), 0, 0, 2)],
           ops=("slice.Tensor",)),
    OpInfo("getitem", lambda lib, a, index: a[index], _indexing,
           ops=("select.int", "slice.Tensor", "unsqueeze", "alias")),
    OpInfo("getitem.tensor_index", lambda lib, a: a[lib.tensor(1), ..., lib.tensor(-1)],
           lambda rng: [Sample(randn(rng, 3, 4))], ops=("select.int",)),
    OpInfo("views_of_views", _views_of_views, lambda rng: [Sample(randn(rng, 3, 4, 2))],
           ops=("slice.Tensor", "transpose.int", "unsqueeze", "select.int", "view")),
    OpInfo("select_backward", lambda lib, a, w: _grad_of(lib, lambda a: a.select(1, -1), a, w),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3))]),
    OpInfo("slice_backward", lambda lib, a, w: _grad_of(lib, lambda a: a[:, 1::2], a, w),
           lambda rng: [Sample(randn(rng, 3, 5), randn(rng, 3, 2))]),

    # ---- split, chunk, unbind ----
    OpInfo("split", lambda lib, a, size, dim=0: a.split(size, dim),
           lambda rng: [Sample(randn(rng, 5, 2), 2), Sample(randn(rng, 3, 4), 2, -1),
                        Sample(randn(rng, 3, 2), 10), Sample(_nc(rng, 4, 3), 3, 0)],
           ops=("split.Tensor",)),
    OpInfo("split.partial", lambda lib, a: lib.split(a, 2)[1], lambda rng: [Sample(randn(rng, 5, 2))],
           ops=("split.Tensor",)),
    OpInfo("split_with_sizes", lambda lib, a, sizes, dim=0: a.split(sizes, dim),
           lambda rng: [Sample(randn(rng, 5, 2), [2, 3]), Sample(randn(rng, 3, 4), (1, 0, 3), 1),
                        Sample(_nc(rng, 4, 3), [1, 3])]),
    OpInfo("split_with_sizes.partial", lambda lib, a: lib.split_with_sizes(a, [1, 2, 2])[2],
           lambda rng: [Sample(randn(rng, 5, 2))], ops=("split_with_sizes",)),
    OpInfo("chunk", lambda lib, a, chunks, dim=0: a.chunk(chunks, dim),
           lambda rng: [Sample(randn(rng, 5, 2), 2), Sample(randn(rng, 5), 4), Sample(randn(rng, 2, 3), 5, 1),
                        Sample(randn(rng, 2, 0), 3, 1)],
           ops=("split.Tensor", "split_with_sizes")),
    OpInfo("unbind", lambda lib, a, dim=0: a.unbind(dim),
           lambda rng: [Sample(randn(rng, 3, 2)), Sample(randn(rng, 3, 2), -1), Sample(randn(rng, 3)),
                        Sample(_nc(rng, 2, 3), 1)], ops=("unbind.int",)),
    OpInfo("unbind.partial", lambda lib, a: list(a)[1], lambda rng: [Sample(randn(rng, 3, 2))],
           ops=("unbind.int",)),

    # ---- cat, stack ----
    OpInfo("cat", lambda lib, *args, dim=0: lib.cat(args, dim),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 1, 3)),
                        Sample(randn(rng, 2, 3), randn(rng, 2, 1), randn(rng, 2, 2), dim=-1),
                        Sample(randn(rng, 2, 3), randn(rng, 2, 3), grad=(1,), name="one requires grad"),
                        Sample(randn(rng, 2), np.zeros(0), randn(rng, 3), name="legacy empty"),
                        Sample(randn(rng, 3, 0), randn(rng, 3, 2), dim=1, name="empty"),
                        Sample(_nc(rng, 3, 2), randn(rng, 3, 2), dim=1)]),
    OpInfo("cat.promote", lambda lib, a, b: lib.cat([a, b]),
           lambda rng: [Sample(randn(rng, 2, 3), np.arange(3).reshape(1, 3)),
                        Sample(randn(rng, 2, 3).astype(np.float32), randn(rng, 1, 3))],
           ops=("cat",), gradcheck=False, compare_atol=1e-6),
    OpInfo("stack", lambda lib, *args, dim=0: lib.stack(args, dim),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 2, 3)),
                        Sample(randn(rng, 2, 3), randn(rng, 2, 3), randn(rng, 2, 3), dim=-1),
                        Sample(randn(rng), randn(rng), name="0-d"),
                        Sample(randn(rng, 3), randn(rng, 3), grad=(0,), dim=1),
                        Sample(_nc(rng, 2, 3), randn(rng, 2, 3), dim=1)]),
    OpInfo("stack.promote", lambda lib, a, b: lib.stack([a, b]),
           lambda rng: [Sample(randn(rng, 2, 3).astype(np.float32), randn(rng, 2, 3))],
           ops=("stack",), gradcheck=False, compare_atol=1e-6),

    # ---- dtype conversion ----
    OpInfo("to.copy", lambda lib, a: a.to(a.dtype, copy=True), lambda rng: [Sample(randn(rng, 3))],
           ops=("_to_copy",)),
    OpInfo("to.int", lambda lib, a: a.to(lib.int64) + a.long(), lambda rng: [Sample(randn(rng, 3) * 4)],
           ops=("_to_copy", "add"), gradcheck=False),

    # ---- broadcasting, grids ----
    OpInfo("broadcast_to", lambda lib, a, size: lib.broadcast_to(a, size),
           lambda rng: [Sample(randn(rng, 3, 1), (2, 3, 4)), Sample(randn(rng, 3), (2, -1)),
                        Sample(randn(rng), (2, 2)), Sample(randn(rng, 2, 3), (2, 3)),
                        Sample(_nc(rng, 3, 1), (3, 2))], ops=("expand",)),
    OpInfo("broadcast_tensors", lambda lib, *ts: lib.broadcast_tensors(*ts),
           lambda rng: [Sample(randn(rng, 3, 1), randn(rng, 4), randn(rng, 2, 1, 1)),
                        Sample(randn(rng, 2, 3), randn(rng, 2, 3), name="same shape"),
                        Sample(randn(rng), randn(rng, 2), name="0-d")], ops=("expand",)),
    OpInfo("meshgrid", _grid,
           lambda rng: [Sample(randn(rng, 3), randn(rng, 4)), Sample(randn(rng, 2), randn(rng),
                                                                   randn(rng, 3)),
                        Sample(randn(rng, 3), randn(rng, 4), randn(rng, 2), indexing="xy"),
                        Sample(randn(rng, 3), indexing="xy", name="one tensor"),
                        Sample(randn(rng, 6)[::2], randn(rng, 2), name="non-contiguous")],
           ops=("view", "expand")),
    OpInfo("cartesian_prod", lambda lib, *ts: lib.cartesian_prod(*ts),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 2)),
                        Sample(randn(rng, 2), randn(rng, 2), randn(rng, 3))],
           ops=("stack", "_unsafe_view", "clone", "expand", "view")),
    OpInfo("combinations", lambda lib, a, *args, **kw: lib.combinations(a, *args, **kw),
           lambda rng: [Sample(randn(rng, 4)), Sample(randn(rng, 4), 3),
                        Sample(randn(rng, 3), 2, with_replacement=True), Sample(randn(rng, 3), 1)],
           ops=("stack", "masked_select", "expand", "view")),

    # ---- atleast_nd, *stack ----
    OpInfo("atleast_nd", lambda lib, *ts: (lib.atleast_1d(ts), lib.atleast_2d(*ts),
                                           lib.atleast_3d(ts[0]), lib.atleast_3d(ts[1])),
           lambda rng: [Sample(randn(rng), randn(rng, 3), randn(rng, 2, 3)),
                        Sample(randn(rng, 2), randn(rng, 1, 2), randn(rng, 2, 1, 2))],
           ops=("view", "unsqueeze")),
    OpInfo("hstack", lambda lib, *ts: lib.hstack(ts),
           lambda rng: [Sample(randn(rng, 3, 2), randn(rng, 3, 1)),
                        Sample(randn(rng, 2), randn(rng), randn(rng, 3), name="1-d and 0-d")],
           ops=("cat", "view")),
    OpInfo("vstack", lambda lib, *ts: (lib.vstack(ts), lib.row_stack(ts)),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 2, 3)), Sample(randn(rng), randn(rng))],
           ops=("cat", "unsqueeze", "view")),
    OpInfo("dstack", lambda lib, *ts: lib.dstack(ts),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 1, 3), randn(rng, 1, 3, 2)),
                        Sample(randn(rng), randn(rng))], ops=("cat", "unsqueeze", "view")),
    OpInfo("column_stack", lambda lib, *ts: lib.column_stack(ts),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 3, 2), randn(rng, 3)),
                        Sample(randn(rng), randn(rng)), Sample(_nc(rng, 3, 2), randn(rng, 3))],
           ops=("cat", "view")),

    # ---- splitting ----
    OpInfo("tensor_split", lambda lib, a, arg, *dim: a.tensor_split(arg, *dim),
           lambda rng: [Sample(randn(rng, 7, 2), 3), Sample(randn(rng, 3, 4), [1, 3], 1),
                        Sample(randn(rng, 3, 4), [-1, 5, 2], -1), Sample(randn(rng, 2, 5), 5, 0),
                        Sample(_nc(rng, 4, 3), 2)], ops=("slice.Tensor",)),
    OpInfo("tensor_split.tensor", lambda lib, a, arg: lib.tensor_split(a, lib.tensor(arg), 1),
           lambda rng: [Sample(randn(rng, 2, 5), [1, 3]), Sample(randn(rng, 2, 5), 2)],
           ops=("slice.Tensor",)),
    OpInfo("hsplit_vsplit_dsplit", lambda lib, a: lib.hsplit(a, 2) + lib.vsplit(a, [1])
           + lib.dsplit(a, 3), lambda rng: [Sample(randn(rng, 2, 4, 3))], ops=("slice.Tensor",)),
    OpInfo("unsafe_split", lambda lib, a, size, dim=0: lib.unsafe_split(a, size, dim),
           lambda rng: [Sample(randn(rng, 5, 2), 2), Sample(randn(rng, 3, 4), 3, -1),
                        Sample(_nc(rng, 4, 3), 3)], ops=("unsafe_split.Tensor",)),
    OpInfo("unsafe_split.partial", lambda lib, a: a.unsafe_split(2)[1],
           lambda rng: [Sample(randn(rng, 5, 2))], ops=("unsafe_split.Tensor",)),
    OpInfo("unsafe_split_with_sizes", lambda lib, a, sizes, dim=0: a.unsafe_split_with_sizes(
        sizes, dim), lambda rng: [Sample(randn(rng, 5, 2), [2, 3]),
                                  Sample(randn(rng, 3, 4), [1, 0, 3], 1)]),
    OpInfo("unsafe_chunk", lambda lib, a, chunks, dim=0: lib.unsafe_chunk(a, chunks, dim),
           lambda rng: [Sample(randn(rng, 5, 2), 2), Sample(randn(rng, 2, 0), 3, 1)],
           ops=("unsafe_split.Tensor", "unsafe_split_with_sizes")),

    # ---- rot90, repeat_interleave, block_diag ----
    OpInfo("rot90", lambda lib, a, *args: a.rot90(*args),
           lambda rng: [Sample(randn(rng, 3, 4)), *[Sample(randn(rng, 3, 4), k) for k in
                                                    (-1, 0, 2, 3, 5)],
                        Sample(randn(rng, 2, 3, 4), 1, (2, 0)),
                        Sample(randn(rng, 2, 3, 4), 3, [-1, 1]),
                        Sample(_nc(rng, 3, 4), 1)]),
    OpInfo("repeat_interleave", lambda lib, a, *args: lib.repeat_interleave(a, *args),
           lambda rng: [Sample(randn(rng, 2, 3), 2), Sample(randn(rng, 2, 3), 3, 1),
                        Sample(randn(rng, 2, 3), 2, -2), Sample(randn(rng), 3),
                        Sample(_nc(rng, 2, 3), 2, 0), Sample(randn(rng, 2, 3), 0, 1)],
           ops=("view", "clone", "expand", "unsqueeze")),
    OpInfo("repeat_interleave.tensor", _repeat_interleave_tensor,
           lambda rng: [Sample(randn(rng, 3, 2), [1, 0, 2], 0), Sample(randn(rng, 3, 2), [2]),
                        Sample(randn(rng, 3, 2), 2, 1)], ops=("index_select", "view")),
    OpInfo("block_diag", lambda lib, *ts: lib.block_diag(*ts),
           lambda rng: [Sample(randn(rng, 2, 3), randn(rng, 2), randn(rng), randn(rng, 1, 1)),
                        Sample(randn(rng, 2, 2), np.arange(3), name="with integers"),
                        Sample(randn(rng, 0, 2), randn(rng, 2, 0), np.zeros(0), name="empty"),
                        Sample(_nc(rng, 2, 3), name="one")]),

    # ---- put, index_reduce ----
    OpInfo("put", lambda lib, a, index, source, *acc: a.put(index, source, *acc), _put),
    OpInfo("put_", lambda lib, a, index, source, *acc: _inplace("put_")(
        lib, a, index, source, *acc), _put, ops=("put",)),
    *[OpInfo(f"index_reduce.{r}", lambda lib, a, *args, **kw: a.index_reduce(*args, **kw),
             _index_reduce(r), ops=("index_reduce",), atol=1e-4)
      for r in ("prod", "mean", "amax", "amin")],
    OpInfo("index_reduce_", _inplace("index_reduce_"), _index_reduce("mean"),
           ops=("index_reduce",)),
    OpInfo("index_reduce.ties_and_zeros", lambda lib, a, *args, **kw: a.index_reduce(
        *args, **kw), _index_reduce_edges, ops=("index_reduce",), gradcheck=False),
]
