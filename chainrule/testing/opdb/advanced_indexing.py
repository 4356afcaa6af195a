"""Op-database entries for advanced indexing: `x[idx]` with index tensors, lists, arrays and
masks mixed with ints, slices, None and Ellipsis (the `index` op behind views), index_put
with and without accumulate, and `x[idx] = v` on non-leaf tensors. Repeated indices are on
purpose: their gradients must accumulate."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, randn

_I = np.array([0, 2, 2, 1])
_J = np.array([3, 0, 1, 3])


def _mask(*shape, seed=3):
    m = np.random.default_rng(seed).random(shape) > 0.4
    m.flat[0] = True      # never empty
    return m


def _getitem(name, index, samples):
    """An entry for x[index(lib, *index_args)]."""
    return OpInfo(f"index.{name}", lambda lib, x, *a: x[index(lib, *a)], samples, ops=("index",))


def _put(lib, x, v, *indices, accumulate=False):
    return x.index_put(tuple(indices), v, accumulate=accumulate)


def _setitem(index):
    def fn(lib, x, v, *a):
        b = x * 1
        b[index(lib, *a)] = v
        return b
    return fn


def _index_grad(lib, x, *i):
    with lib.enable_grad():     # gradcheck's finite differences run under no_grad
        return lib.autograd.grad((x[i] ** 2).sum(), x, create_graph=True)[0]


OPS_DB = [
    _getitem("i,j", lambda lib, i, j: (i, j),
             lambda rng: [Sample(randn(rng, 3, 4), _I, _J), Sample(randn(rng, 3, 4, 2), _I, _J),
                          Sample(randn(rng, 3, 4), _I.reshape(2, 2), _J[:2], name="broadcast"),
                          Sample(noncontiguous(randn(rng, 4, 3)), _J, _I[:1],
                                 name="non-contiguous")]),
    _getitem(":,i", lambda lib, i: (slice(None), i),
             lambda rng: [Sample(randn(rng, 2, 4), _J), Sample(randn(rng, 2, 4, 3), -_I - 1)]),
    _getitem("i,:,j", lambda lib, i, j: (i, slice(None), j),
             lambda rng: [Sample(randn(rng, 3, 2, 4), _I, _J),
                          Sample(randn(rng, 3, 2, 4, 2), _I[:, None], _J, name="broadcast 2-d")]),
    _getitem("...,i", lambda lib, i: (Ellipsis, i),
             lambda rng: [Sample(randn(rng, 2, 3, 4), _J), Sample(randn(rng, 4), _J)]),
    _getitem("None,i", lambda lib, i: (None, i),
             lambda rng: [Sample(randn(rng, 3, 2), _I), Sample(randn(rng, 3), _I)]),
    _getitem("i,None,j", lambda lib, i, j: (i, None, j),
             lambda rng: [Sample(randn(rng, 3, 4, 2), _I, _J)]),
    _getitem("slices,i", lambda lib, i: (slice(1, None), i, slice(None, None, 2)),
             lambda rng: [Sample(randn(rng, 3, 4, 5), _J),
                          Sample(randn(rng, 3, 4, 5), -_J - 1, name="negative")]),
    _getitem("int,i", lambda lib, i: (-1, slice(None), i),
             lambda rng: [Sample(randn(rng, 2, 3, 4), _J)]),
    _getitem("i,int,j", lambda lib, i, j: (i, 1, j),
             lambda rng: [Sample(randn(rng, 3, 2, 4), _I, _J)]),
    _getitem("mask", lambda lib, m: m,
             lambda rng: [Sample(randn(rng, 3, 4), _mask(3, 4), name="2-d mask"),
                          Sample(randn(rng, 3, 4, 2), _mask(3, 4), name="2-d mask of 3-d"),
                          Sample(randn(rng, 4, 2), _mask(4), name="1-d mask")]),
    _getitem("mask,1:", lambda lib, m: (m, slice(1, None)),
             lambda rng: [Sample(randn(rng, 4, 3), _mask(4)),
                          Sample(randn(rng, 3, 4, 3), _mask(3, 4))]),
    _getitem("i,mask", lambda lib, i, m: (i, m),
             lambda rng: [Sample(randn(rng, 3, 4), _I[:1], _mask(4))]),
    _getitem(":,mask,i", lambda lib, m, i: (slice(None), m, i),
             lambda rng: [Sample(randn(rng, 2, 4, 3), _mask(4), np.array([2]))]),
    _getitem("list", lambda lib: [0, 0, 2],
             lambda rng: [Sample(randn(rng, 3, 2)), Sample(randn(rng, 3))]),
    _getitem("lists", lambda lib: ([0, 2, 0], slice(None), [[1], [0]]),
             lambda rng: [Sample(randn(rng, 3, 2, 2))]),
    _getitem("numpy", lambda lib: (np.array([2, 0, 2]), np.array(1)),
             lambda rng: [Sample(randn(rng, 3, 2))]),
    _getitem("i2d", lambda lib, i: i,
             lambda rng: [Sample(randn(rng, 4, 3), _I.reshape(2, 2)),
                          Sample(randn(rng, 4), _J.reshape(2, 1, 2)),
                          Sample(randn(rng, 4, 3), _I.astype(np.int32), name="int32")]),
    _getitem("bool", lambda lib, b: (b, True),
             lambda rng: [Sample(randn(rng, 3), np.array(True)),
                          Sample(randn(rng, 2, 3), np.array(False)),
                          Sample(randn(rng), np.array(True), name="0-d")]),
    _getitem("empty", lambda lib, i: (slice(None), i),
             lambda rng: [Sample(randn(rng, 3, 2), np.zeros(0, np.int64))]),
    # index's gradient as a function: _index_put_impl_ with accumulate into zeros
    OpInfo("index.backward", _index_grad,
           lambda rng: [Sample(randn(rng, 4, 3), _I), Sample(randn(rng, 3, 4, 2), _I[:2], _J[:2]),
                        Sample(randn(rng, 4, 3), _mask(4, 3), name="mask")],
           ops=("_index_put_impl_",)),
    OpInfo("index_put", _put,
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 2, 3), np.array([3, 0])),
                        Sample(randn(rng, 4, 3), randn(rng, 3), np.array([3, 0]),
                               name="broadcast values"),
                        Sample(randn(rng, 4, 3), randn(rng, 2), np.array([3, 0]), np.array([2, 0]),
                               name="i,j"),
                        Sample(randn(rng, 4, 3, 2), randn(rng, 3, 1), np.array([[1], [3]]),
                               np.array([1, 2, 0]), name="broadcast indices"),
                        Sample(randn(rng, 4), randn(rng), np.array([True, False, True, True]),
                               name="mask"),
                        Sample(randn(rng, 3, 4), randn(rng, 1), _mask(3, 4), name="mask fill"),
                        Sample(noncontiguous(randn(rng, 3, 4)), randn(rng, _mask(3, 4).sum()),
                               _mask(3, 4), name="mask non-contiguous")]),
    OpInfo("index_put.accumulate", lambda lib, *a: _put(lib, *a, accumulate=True),
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 4, 3), _I),
                        Sample(randn(rng, 4, 3), randn(rng, 3), _I, name="broadcast values"),
                        Sample(randn(rng, 4, 3), randn(rng, 4), _I, _J[[0, 1, 1, 1]] % 3,
                               name="i,j"),
                        Sample(randn(rng, 4, 3, 2), randn(rng, 2), _I[:, None], _J[None, :3] % 3,
                               name="broadcast indices"),
                        Sample(randn(rng, 4, 3), randn(rng), _mask(4, 3), name="mask")],
           ops=("index_put",)),
    # without accumulate, a repeated index keeps one value but every copy gets its gradient
    # (PyTorch's formula): compared with PyTorch, not gradchecked
    OpInfo("index_put.repeated", _put,
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 4, 3), _I)], ops=("index_put",),
           gradcheck=False),
    OpInfo("index_put_", lambda lib, x, v, i: (x * 1).index_put_((i,), v),
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 3), np.array([1, 3]))],
           ops=("index_put", "mul")),
    OpInfo("setitem.i,:,j", _setitem(lambda lib, i, j: (i, slice(None), j)),
           lambda rng: [Sample(randn(rng, 3, 2, 4), randn(rng, 2, 2), _I[:2], _J[:2]),
                        Sample(randn(rng, 3, 2, 4), randn(rng), _I[:2], _J[:2], name="0-d value")],
           ops=("index_put", "mul")),
    OpInfo("setitem.mask", _setitem(lambda lib, m: m),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 1, 1), _mask(3, 4), name="one value"),
                        Sample(randn(rng, 3, 4, 2), randn(rng, 1, 2), _mask(3, 4), name="row")],
           ops=("index_put", "mul")),
    OpInfo("setitem.int,i", _setitem(lambda lib, i: (1, i)),
           lambda rng: [Sample(randn(rng, 2, 4, 3), randn(rng, 3), np.array([3, 0]))],
           ops=("index_put", "mul", "as_strided")),
    OpInfo("setitem.None,mask,1:", _setitem(lambda lib, m: (None, m, slice(1, None))),
           lambda rng: [Sample(randn(rng, 4, 3), randn(rng, 2), _mask(4))],
           ops=("index_put", "mul", "as_strided")),
    OpInfo("setitem.list", _setitem(lambda lib: [2, 0]),
           lambda rng: [Sample(randn(rng, 3, 2), randn(rng, 2, 2))], ops=("index_put", "mul")),
]
