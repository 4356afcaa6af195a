"""Advanced indexing, `x[idx]` and `x[idx] = v` with index tensors, lists, arrays, masks and
bools mixed with ints, slices, None and Ellipsis, and index_put(_): each case runs on
chainrule and PyTorch, which must agree on values, gradients, node names, next_functions,
saved indices, version counters, warnings and errors."""
import numpy as np
import pytest

from helpers import same, same_error, same_warnings


def graph(fn, depth=4):
    """Node names and next_functions (with input numbers), a few levels deep."""
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return (fn.name(), tuple((graph(f, depth - 1), nr) for f, nr in fn.next_functions))


def _data(shape):
    return np.arange(float(np.prod(shape, dtype=int))).reshape(shape) * 0.5 - 1


def _weights(shape):
    return np.cos(np.arange(float(np.prod(shape, dtype=int)))).reshape(shape)


MASK3 = [True, False, True]
MASK34 = [[True, False, True, True], [False, False, True, False], [True, True, False, True]]

# (id, index as a function of the library, shape of x)
GETITEM = [
    ("int", lambda T: 1, (3, 4)),
    ("negative-int", lambda T: -1, (3, 4)),
    ("slice", lambda T: slice(1, None), (3, 4)),
    ("slices-steps", lambda T: (slice(-2, None), slice(None, None, 3)), (3, 4)),
    ("none", lambda T: None, (3, 4)),
    ("ellipsis", lambda T: Ellipsis, (3, 4)),
    ("empty-tuple", lambda T: (), (3, 4)),
    ("basic-mix", lambda T: (None, 0, Ellipsis, None), (3, 4)),
    ("true", lambda T: True, (3, 4)),
    ("false", lambda T: False, (3, 4)),
    ("tensor-true", lambda T: T.tensor(True), (3, 4)),
    ("tensor-false", lambda T: T.tensor(False), (3, 4)),
    ("int,true", lambda T: (0, True), (3, 4)),
    ("true,tensor", lambda T: (True, T.tensor([0, 2])), (3, 4)),
    ("0d-x-true", lambda T: True, ()),
    ("0d-x-none,true", lambda T: (None, True), ()),
    ("0d-x-ellipsis,tensor-true", lambda T: (Ellipsis, T.tensor(True)), ()),
    ("0d-int-tensor", lambda T: T.tensor(1), (3, 4)),
    ("0d-int-tensor-in-tuple", lambda T: (slice(None), T.tensor(-1)), (3, 4)),
    ("tensor", lambda T: T.tensor([0, 2, 2]), (3, 4)),
    ("tensor-negative", lambda T: T.tensor([-1, -3, 0]), (3, 4)),
    ("tensor-int32", lambda T: T.tensor([2, 0], dtype=T.int32), (3, 4)),
    ("tensor-2d", lambda T: T.tensor([[0, 2], [1, 1]]), (3, 4)),
    ("tensor-empty", lambda T: T.tensor([], dtype=T.int64), (3, 4)),
    ("list", lambda T: [0, 0, 2], (3, 4)),
    ("list-empty", lambda T: [], (3, 4)),
    ("list-floats", lambda T: [0.5, 1.7], (3, 4)),
    ("list-bools", lambda T: [True, False, True], (3, 4)),
    ("list-nested", lambda T: [[0, 1], [2, 0]], (3, 4)),
    ("range", lambda T: range(2), (3, 4)),
    ("numpy", lambda T: np.array([2, 1]), (3, 4)),
    ("numpy-float", lambda T: np.array([2.5, 0.1]), (3, 4)),
    ("numpy-0d", lambda T: np.array(1), (3, 4)),
    ("numpy-0d-bool", lambda T: np.array(True), (3, 4)),
    ("numpy-mask", lambda T: np.array(MASK34), (3, 4)),
    ("tuple-of-tensors-in-tuple", lambda T: ((T.tensor(0), T.tensor(2)),), (3, 4)),
    ("i,j", lambda T: (T.tensor([0, 2, 1]), T.tensor([3, 3, 0])), (3, 4)),
    ("i,j-3d", lambda T: (T.tensor([0, 2, 1]), T.tensor([3, 3, 0])), (3, 4, 2)),
    ("i,j-broadcast", lambda T: (T.tensor([[0], [2]]), T.tensor([1, 3, 0])), (3, 4)),
    (":,i", lambda T: (slice(None), T.tensor([3, 0, 3])), (3, 4)),
    ("i,:,j", lambda T: (T.tensor([0, 2]), slice(None), T.tensor([1, 0])), (3, 4, 2)),
    ("i,1:,j", lambda T: (T.tensor([0, 2]), slice(1, None), T.tensor([1, 0])), (3, 4, 2)),
    ("...,i", lambda T: (Ellipsis, T.tensor([1, 0, 1])), (3, 4, 2)),
    ("...,i,:", lambda T: (Ellipsis, T.tensor([3, 0]), slice(None)), (3, 4, 2)),
    ("i,...", lambda T: (T.tensor([2, 0]), Ellipsis), (3, 4, 2)),
    ("none,i", lambda T: (None, T.tensor([1, 1])), (3, 4)),
    ("i,none", lambda T: (T.tensor([1, 1]), None), (3, 4)),
    ("i,none,j", lambda T: (T.tensor([0, 2]), None, T.tensor([1, 3])), (3, 4, 2)),
    ("i,int", lambda T: (T.tensor([0, 2]), 1), (3, 4)),
    ("numpy-int,i", lambda T: (np.int64(1), T.tensor([0, 2])), (3, 4)),
    ("i,int,j", lambda T: (T.tensor([0, 2]), -1, T.tensor([1, 0])), (3, 4, 2)),
    ("int,i,j", lambda T: (1, T.tensor([0, 2]), T.tensor([1, 0])), (3, 4, 2)),
    ("slices,i,step", lambda T: (slice(1, None), T.tensor([3, 1]), slice(None, None, 2)),
     (3, 4, 5)),
    ("i,slice,j,none", lambda T: (T.tensor([2]), slice(0, 3), T.tensor([[1], [0]]), None),
     (3, 4, 2)),
    ("mask", lambda T: T.tensor(MASK3), (3, 4)),
    ("mask-2d", lambda T: T.tensor(MASK34), (3, 4)),
    ("mask-2d-of-3d", lambda T: T.tensor(MASK34), (3, 4, 2)),
    ("mask,1:", lambda T: (T.tensor(MASK3), slice(1, None)), (3, 4)),
    ("mask-2d,1:", lambda T: (T.tensor(MASK34), slice(1, None)), (3, 4, 3)),
    (":,mask", lambda T: (slice(None), T.tensor([False, True, True, False])), (3, 4)),
    ("i,mask", lambda T: (T.tensor([1, 0]), T.tensor([False, True, True, False])), (3, 4)),
    ("mask,:,i", lambda T: (T.tensor(MASK3), slice(None), T.tensor([1, 0])), (3, 4, 2)),
    ("mask,none,mask", lambda T: (T.tensor([True, True, False]), None,
                                  T.tensor([False, True, True, False])), (3, 4)),
    ("mask-all-false", lambda T: T.tensor([False, False, False]), (3, 4)),
    ("mask-uint8", lambda T: T.tensor([1, 0, 1], dtype=T.uint8), (3, 4)),
    ("size-0-dim-empty-index", lambda T: T.tensor([], dtype=T.int64), (0, 3)),
    ("empty-result-out-of-bounds", lambda T: [5], (3, 0)),
]


def _index_prog(index, shape):
    def prog(T):
        x = T.tensor(_data(shape), requires_grad=True)
        b = x * 1
        y = b[index(T)]
        (y * T.tensor(_weights(tuple(y.shape)))).sum().backward()
        return (y, x.grad, graph(y.grad_fn), y._base is None, y._version, b._version,
                y.is_contiguous())
    return prog


@pytest.mark.parametrize("index, shape", [c[1:] for c in GETITEM], ids=[c[0] for c in GETITEM])
def test_getitem(index, shape):
    same(_index_prog(index, shape))


@pytest.mark.parametrize("index, shape", [c[1:] for c in GETITEM], ids=[c[0] for c in GETITEM])
def test_getitem_of_leaf(index, shape):
    def prog(T):
        x = T.tensor(_data(shape), requires_grad=True)
        y = x[index(T)]
        return y, graph(y.grad_fn), x[index(T)].detach().sum()
    same(prog)


@pytest.mark.parametrize("index", [
    lambda T: (slice(None), T.tensor([3, 0, 3])),
    lambda T: (T.tensor([0, 2]), slice(None), T.tensor([1, 0])),
    lambda T: T.tensor(MASK34),
    lambda T: (None, T.tensor([1, 1]), 0),
    lambda T: True,
], ids=[":,i", "i,:,j", "mask", "none,i,int", "true"])
def test_saved_indices(index):
    def prog(T):
        x = T.tensor(_data((3, 4, 2)), requires_grad=True)
        y = x[index(T)]
        return y.grad_fn._saved_indices, tuple(y.grad_fn._saved_self_sym_sizes)
    same(prog)


def _backward_then(T, y, then):
    y.sum().backward()
    return then(y)


@pytest.mark.parametrize("prog", [
    lambda T: _backward_then(T, T.ones(3, requires_grad=True)[T.tensor([0, 0])],
                             lambda y: y.sum().backward()),
    lambda T: _backward_then(T, T.ones(3, requires_grad=True)[T.tensor([0, 0])],
                             lambda y: y.grad_fn._saved_indices),
    lambda T: _backward_then(T, T.index_put(T.ones(3, requires_grad=True), (T.tensor([1]),),
                                            T.tensor(2.)), lambda y: y.grad_fn._saved_indices),
], ids=["backward-twice", "saved-indices-after-backward", "index-put-saved-indices"])
def test_saved_indices_are_freed(prog):
    same_error(prog)


def test_backward_twice_with_retain_graph():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        y = x[T.tensor([0, 0, 2])]
        y.sum().backward(retain_graph=True)
        saved = y.grad_fn._saved_indices
        y.sum().backward()
        return x.grad, saved, tuple(y.grad_fn._saved_self_sym_sizes)
    same(prog)


@pytest.mark.parametrize("index", [
    lambda T: T.tensor([0, 0, 2, 0]),
    lambda T: (T.tensor([[0, 2], [2, 2]]), slice(None), T.tensor([1, 1])),
    lambda T: (T.tensor(MASK3), T.tensor([1, 1])),
], ids=["repeated", "repeated-non-adjacent", "mask,i"])
def test_second_derivative(index):
    def prog(T):
        x = T.tensor(_data((3, 4, 2)) + 2, requires_grad=True)
        y = x[index(T)]
        g, = T.autograd.grad((y ** 3).sum(), x, create_graph=True)
        (g * T.tensor(_weights((3, 4, 2)))).sum().backward()
        return g, x.grad
    same(prog)


def test_uint8_mask_warns():
    same_warnings(lambda T: T.ones(3, 2)[T.tensor([1, 0, 1], dtype=T.uint8)])


def test_sequence_as_tuple_warns():
    same_warnings(lambda T: T.ones(3, 4)[[[0, 1], [1, 2]]])


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(2, 3, 4)[T.tensor([5])],
    lambda T: T.zeros(2, 3, 4)[:, [5]],
    lambda T: T.zeros(2, 3, 4)[:, :, [-7]],
    lambda T: T.zeros(2, 3, 4)[[0], :, [7]],
    lambda T: T.zeros(2, 3, 4)[[1, 0], :, [1, 9]],
    lambda T: T.zeros(2, 3)[T.tensor([[5], [0]]), T.tensor([0, 7])],
    lambda T: T.zeros(2, 3)[[0, 1], 5],
    lambda T: T.zeros(2, 3, 4)[0, 0, 0, T.tensor([0])],
    lambda T: T.zeros(2, 3, 4)[T.ones(2, 3, 4, 1, dtype=T.bool)],
    lambda T: T.zeros(3)[T.tensor([0])][T.tensor(0)][T.tensor([0])],
    lambda T: T.zeros(3)[np.ones((3, 4), bool)],
    lambda T: T.zeros(2, 3, 4)[T.tensor([True, False, True])],
    lambda T: T.zeros(2, 3, 4)[T.ones(2, 4, dtype=T.bool)],
    lambda T: T.zeros(2, 3, 4)[:, T.ones(3, 5, dtype=T.bool)],
    lambda T: T.zeros(2, 3, 4)[[[True, False, True]] * 2],
    lambda T: T.zeros(2, 3, 4)[T.tensor([0, 1]), T.tensor([0, 1, 2])],
    lambda T: T.zeros(2, 3, 4)[T.tensor([0, 1]), T.tensor([0, 1, 2]), T.tensor([[0]])],
    lambda T: T.zeros(2, 3, 4)[False, T.tensor([0, 1])],
    lambda T: T.zeros(3, 4)[T.tensor([True]), T.tensor([0, 1, 1])],
    lambda T: T.zeros(0, 3)[[0]],
    lambda T: T.zeros(0, 4)[T.tensor([0, 1]), T.tensor([0, 1, 1])],
    lambda T: T.zeros(3)[T.tensor([0.])],
    lambda T: T.zeros(3)[T.tensor([])],
    lambda T: T.zeros(3)[T.tensor(1.)],
    lambda T: T.zeros(3, 4)[0, T.tensor(1.)],
    lambda T: T.zeros(3)[T.tensor([0], dtype=T.int16)],
    lambda T: T.zeros(3, 4)[T.tensor([True]), T.tensor([0.])],
    lambda T: T.zeros(3)[np.True_],
    lambda T: T.zeros(3)[1.5],
    lambda T: T.zeros(3)[object()],
    lambda T: T.zeros(3)["a"],
    lambda T: T.zeros(3)[::-1],
    lambda T: T.zeros(3)[T.tensor([0]), ::-1],
    lambda T: T.tensor(3.)[[0]],
    lambda T: T.tensor(3.)[T.tensor([True])],
], ids=["oob", "oob-dim1", "oob-negative", "oob-second-index", "oob-first-element",
        "oob-broadcast", "oob-select-after-index", "too-many", "too-many-mask",
        "0d-after-select", "mask-dims-out-of-range", "mask-shape", "mask-2d-shape",
        "mask-2d-shape-at-1", "mask-list-shape", "broadcast", "broadcast-3", "false-broadcast",
        "mask-then-broadcast", "size-0", "broadcast-before-size-0", "float-index", "float-empty",
        "0d-float", "0d-float-in-tuple", "int16", "dtype-before-mask", "numpy-bool", "float",
        "object", "str", "negative-step", "negative-step-after-index", "0d-list",
        "0d-mask"])
def test_getitem_errors(prog):
    same_error(prog)


# ---- setitem ------------------------------------------------------------------------------

SETITEM = [c for c in GETITEM if c[0] not in (
    "false", "empty-result-out-of-bounds", "size-0-dim-empty-index")] + [
    ("false", lambda T: False, (3, 4)),
    ("tuple-false", lambda T: (False,), (3, 4)),
    ("repeated", lambda T: T.tensor([2, 0, 2]), (3, 4)),
]


@pytest.mark.parametrize("value", ["number", "0d", "full", "row", "leading-ones"])
@pytest.mark.parametrize("name, index, shape", SETITEM, ids=[c[0] for c in SETITEM])
def test_setitem(name, index, shape, value):
    def prog(T):
        x = T.tensor(_data(shape), requires_grad=True)
        b = x * 1
        target = tuple(b[index(T)].shape)
        if value == "number":
            v = 2.5
        else:
            vshape = {"0d": (), "full": target, "row": target[-1:],
                      "leading-ones": (1, 1) + target}[value]
            v = T.tensor(_weights(vshape) + 3, requires_grad=True)
        b[index(T)] = v
        (b * T.tensor(_weights(shape))).sum().backward()
        vgrad = v.grad if isinstance(v, T.Tensor) else None
        return b, x.grad, vgrad, graph(b.grad_fn), b._version, x._version
    if name == "mask-uint8" and value in ("number", "0d"):
        same_error(prog)       # one value through a mask: masked_fill_, which takes bool only
    else:
        same(prog)


def test_setitem_without_grad():
    def prog(T):
        x = T.zeros(3, 4)
        x[T.tensor([0, 2]), 1:] = T.tensor([1., 2., 3.])
        x[T.tensor(MASK34)] += 1
        x[[1, 1], [0, 3]] = 7
        x[:, T.tensor([True, False, False, True])] = T.tensor(-1.)
        return x, x._version
    same(prog)


def test_setitem_integer_tensor():
    def prog(T):
        x = T.zeros(3, 4, dtype=T.int64)
        x[T.tensor([0, 2])] = 2.7
        x[1, [1, 3]] = T.tensor([5, 6])
        x[T.tensor(MASK34)] = T.tensor(9.5, dtype=T.float64)
        return x, x._version
    same(prog)


def test_setitem_value_requiring_grad_into_plain_tensor():
    def prog(T):
        w = T.tensor([1., 2.], requires_grad=True)
        b = T.zeros(3, 2)
        b[T.tensor([2, 0])] = w * 3
        (b * b).sum().backward()
        return b, w.grad, graph(b.grad_fn), b.requires_grad, b.is_leaf
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3, 2, requires_grad=True).__setitem__(T.tensor([0]), 1.),
    lambda T: T.ones(3, 2, requires_grad=True).__setitem__((0, T.tensor([0])), 1.),
    lambda T: T.ones(3, 2, requires_grad=True).__setitem__(T.tensor([True, False, True]), 1.),
    lambda T: T.ones(3, 2, requires_grad=True).__setitem__(True, 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([0, 1]), T.ones(5)),
    lambda T: (T.ones(2, 3, 4) * 1).__setitem__(T.tensor([0, 1]), T.ones(2, 1, 1, 4)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([0, 1]), T.tensor(1., dtype=T.float64)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([0, 1]), T.tensor(1)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([True, False, True]),
                                             T.ones(2, dtype=T.float64)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([1, 0, 1], dtype=T.uint8), 5.),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([5]), 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__((slice(None), T.tensor([2])), 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__((T.tensor([0]),) * 3, 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([0.]), 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([True, False]), 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__((T.tensor([0, 1]), T.tensor([0, 1, 0])), 1.),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, [1., 2.]),
    lambda T: (T.ones(3, 2) * 1).__setitem__(T.tensor([0]), [1., 2.]),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, np.ones(2)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, "a"),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, None),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, np.float32(1)),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, np.True_),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, 1j),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, 1e300),
    lambda T: (T.ones(3, 2) * 1).__setitem__(0, 2 ** 70),
    lambda T: T.zeros(3, dtype=T.int64).__setitem__(0, 1e30),
    lambda T: T.zeros(3, dtype=T.int64).__setitem__(T.tensor([0]), float("nan")),
    lambda T: T.zeros(3, dtype=T.int32).__setitem__(0, 2 ** 40),
    lambda T: T.zeros(3, dtype=T.uint8).__setitem__(0, 300),
    lambda T: T.zeros(3, dtype=T.uint8).__setitem__(0, -256),
    lambda T: T.zeros(3, dtype=T.int8).__setitem__(0, 127.5),
    lambda T: T.zeros(3, dtype=T.float64).__setitem__(0, 1j),
    lambda T: (T.ones(3) * 1).__setitem__(slice(0, 2), T.ones(3)),
    lambda T: (T.ones(2, 3) * 1).__setitem__(0, T.ones(2, 3)),
], ids=["leaf", "view-of-leaf", "leaf-mask", "leaf-true", "value-shape", "value-shape-4d",
        "value-dtype", "value-long", "mask-value-dtype", "uint8-mask-fill", "oob", "oob-dim1",
        "too-many", "float-index", "mask-shape", "broadcast", "list-value",
        "list-value-advanced", "numpy-value", "str-value", "none-value", "numpy-float32-value",
        "numpy-bool-value", "complex-into-float", "float32-overflow", "huge-int",
        "int64-overflow", "nan-into-int", "int32-overflow", "uint8-overflow",
        "uint8-negative-overflow", "int8-float-overflow", "complex-into-double",
        "basic-value-shape", "basic-value-ndim"])
def test_setitem_errors(prog):
    same_error(prog)


def test_setitem_number_conversions():
    def prog(T):
        u = T.zeros(3, dtype=T.uint8)
        u[0], u[1] = -1, -255
        h = T.zeros(2, dtype=T.float16)
        h[0] = 1e300
        f = T.zeros(2)
        f[0], f[1] = np.int8(3), np.float64(0.25)
        c = T.zeros(2, dtype=T.complex64)
        c[T.tensor([1])] = 1 + 2j
        d = T.zeros(2, dtype=T.float64)
        d[0] = 0j
        bo = T.zeros(2, dtype=T.bool)
        bo[0] = 2.5
        return u, h, f, c, d, bo
    same(prog)


# ---- index_put ----------------------------------------------------------------------------

@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("case", [
    lambda T: ((T.tensor([0, 0, 2]),), T.tensor([1., 2., 3.])[:, None]),
    lambda T: ((T.tensor([0, 0, 2]),), T.tensor(5.)),
    lambda T: ((T.tensor([[0], [2]]), T.tensor([3, 1, 3])), T.tensor([1., 2., 3.])),
    lambda T: ((T.tensor(MASK34),), T.tensor(4.)),
    lambda T: ((T.tensor(MASK34),), T.tensor([4.])),
    lambda T: ((T.tensor(MASK3), T.tensor([1, 1])), T.tensor([4., 5.])),
    lambda T: ((T.tensor([1, 0], dtype=T.int32),), T.tensor([4., 5., 6., 7.])),
    lambda T: ((T.tensor(MASK3),), T.tensor(4., dtype=T.float64)),
], ids=["repeated", "0d-value", "broadcast-indices", "mask-fill", "mask-fill-1d", "mask,i",
        "int32", "mask-fill-other-dtype"])
def test_index_put(case, accumulate):
    def prog(T):
        x = T.tensor(_data((3, 4)), dtype=T.float32, requires_grad=True)
        indices, values = case(T)
        if values.dtype == T.float64 and accumulate:
            return None
        values.requires_grad_()
        y = T.index_put(x * 1, indices, values, accumulate=accumulate)
        z = (x * 1).index_put(indices, values, accumulate)
        b = x * 1
        b.index_put_(indices, values, accumulate=accumulate)
        saved = y.grad_fn._saved_indices, y.grad_fn._saved_accumulate
        ((y + z + b) * T.tensor(_weights((3, 4)), dtype=T.float32)).sum().backward()
        return (y, z, b, x.grad, values.grad, graph(y.grad_fn), graph(b.grad_fn), b._version,
                saved, y.grad_fn._saved_accumulate)
    same(prog)


@pytest.mark.parametrize("dtype", ["int64", "bool", "complex64", "float16"])
def test_index_put_accumulate_dtypes(dtype):
    def prog(T):
        d = getattr(T, dtype)
        x = T.zeros(4, 2, dtype=d)
        v = T.ones(2, dtype=d) if dtype != "complex64" else T.tensor([1 + 1j, 2j], dtype=d)
        return x.index_put((T.tensor([0, 0, 3, 0]),), v, accumulate=True)
    same(prog)


def test_index_put_inplace_on_view():
    def prog(T):
        x = T.tensor(_data((3, 4)), dtype=T.float32, requires_grad=True)
        w = T.tensor([1., 2.], requires_grad=True)
        b = x * 1
        b[1:].index_put_((T.tensor([0, 1]), T.tensor([3, 3])), w, accumulate=True)
        (b * T.tensor(_weights((3, 4)), dtype=T.float32)).sum().backward()
        return b, x.grad, w.grad, graph(b.grad_fn), b._version
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.index_put(T.zeros(3, 4), (None, T.tensor([0])), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((None, T.tensor([0])), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put_((T.tensor([0]), [0]), T.tensor(1.)),
    lambda T: T.index_put(T.zeros(3, 4), T.tensor([0]), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put_(T.tensor([0]), T.tensor(1.)),
    lambda T: T.index_put(T.zeros(3, 4), (T.tensor([0]),), 1.),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0]),), 1),
    lambda T: T.zeros(3, 4).index_put_((T.tensor([0]),), T.tensor(1.), accumulate=1),
    lambda T: T.index_put(T.zeros(3, 4), (T.tensor([0]),), T.tensor(1.), True, 3),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0]),) * 3, T.tensor(1.)),
    lambda T: T.zeros(()).index_put((T.tensor(True),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([3]),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([3]),), T.tensor(1.), accumulate=True),
    lambda T: T.zeros(3, 4).index_put((T.tensor([-4]),), T.tensor(1.), accumulate=True),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0, 0, 2]),), T.ones(2)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0, 0, 2]),), T.ones(2), accumulate=True),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0]),), T.ones(1, 1, 1)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0]),), T.tensor(1., dtype=T.float64)),
    lambda T: T.zeros(3, 4).index_put((T.tensor(MASK3),), T.tensor(1., dtype=T.float64),
                                      accumulate=True),
    lambda T: T.zeros(3).index_put((T.tensor([0]),), T.ones(5, dtype=T.float64)),
    lambda T: T.zeros(3).index_put((T.tensor([7]),), T.ones(5)),
    lambda T: T.zeros(0, 3).index_put((T.tensor([0]),), T.ones(5)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0.]),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0], dtype=T.int16),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([True, False]),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([True, False]),), T.ones(4), accumulate=True),
    lambda T: T.zeros(3).index_put((T.ones(3, 4, dtype=T.bool),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([0, 1]), T.tensor([0, 1, 2])), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor([1, 0], dtype=T.uint8),), T.tensor(1.)),
    lambda T: T.zeros(3, 4).index_put((T.tensor(MASK3),),
                                      T.ones(1, 1, 1, requires_grad=True)).sum().backward(),
    lambda T: T.ones(3, requires_grad=True).index_put_((T.tensor([0]),), T.tensor(1.)),
], ids=["none-in-indices", "none-in-indices-method", "list-in-indices", "tensor-indices",
        "tensor-indices-inplace", "number-values", "number-values-method", "int-accumulate",
        "too-many-arguments", "too-many-indices", "0d-self", "oob", "oob-accumulate",
        "oob-negative-accumulate", "values-shape", "values-shape-accumulate",
        "values-more-dims", "values-dtype", "mask-accumulate-dtype", "shape-before-dtype",
        "shape-before-oob", "size-0-before-shape", "float-index", "int16-index", "mask-shape",
        "mask-shape-accumulate", "mask-dims-out-of-range", "broadcast", "uint8-mask-fill",
        "mask-fill-values-more-dims-backward", "leaf"])
def test_index_put_errors(prog):
    same_error(prog)


def test_index_put_mask_fill_conversions():
    def prog(T):
        m = T.tensor(MASK3)
        return (T.zeros(3).index_put((m,), T.tensor(2 + 0j)),
                T.zeros(3).index_put((m,), T.tensor(float("nan"), dtype=T.float64)),
                T.zeros(3, dtype=T.int64).index_put((m,), T.tensor(2.7)),
                T.zeros(3, dtype=T.uint8).index_put((m,), T.tensor(-1)),
                T.zeros(3, dtype=T.bool).index_put((m,), T.tensor(0.5)))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(3).index_put((T.tensor(MASK3),), T.tensor(1 + 1j)),
    lambda T: T.zeros(3).index_put((T.tensor(MASK3),), T.tensor(np.array(1e300))),
    lambda T: T.zeros(3, dtype=T.int64).index_put((T.tensor(MASK3),), T.tensor(float("nan"))),
    lambda T: T.zeros(3, dtype=T.uint8).index_put((T.tensor(MASK3),), T.tensor(300)),
], ids=["complex-into-float", "float32-overflow", "nan-into-int", "uint8-overflow"])
def test_index_put_mask_fill_overflow(prog):
    same_error(prog)


def test_index_put_uint8_mask_warns():
    same_warnings(lambda T: T.zeros(3, 2).index_put((T.tensor([1, 0, 1], dtype=T.uint8),),
                                                     T.ones(2, 2)))
