"""Tensor: creation, attributes, conversions, autograd flags and repr, each compared with
PyTorch by running the same program on both libraries."""
import copy
import os
import warnings
import weakref

import numpy as np
import pytest
import torch

import chainrule

from helpers import same, same_error, same_warnings, warnings_of


def test_size():
    same(lambda T: (T.Size([2, 3]), repr(T.Size([2, 3])), str(T.Size([])), T.Size([2, 3])[1:],
                    T.Size([2, 3]) + (4,), (4,) + T.Size([2, 3]), T.Size([2, 3]).numel(),
                    T.Size([2, 3])[0], T.ones(2, 3).shape, T.ones(2, 3).size(), T.Size(),
                    T.Size([np.int64(2), True, T.tensor(3)]), T.Size((2,)) == (2,)))


# ---- creation -----------------------------------------------------------------------------

@pytest.mark.parametrize("data", [
    [1.5, 2], [1, 2], [True, False], 3, 2.5, True, [[1, 2], [3, 4]], [], [[]], [1 + 2j, 3],
    np.float64(2.0), np.arange(3, dtype=np.int32), [np.float32(1), 2], (1, 2.0)],
    ids=repr)
def test_tensor_infers_dtype(data):
    same(lambda T: T.tensor(data))


def test_tensor_from_tensors():
    same(lambda T: T.tensor([T.tensor(1.5), T.tensor(2)]))
    same(lambda T: T.tensor([[T.tensor(1)], [T.tensor(2)]]))
    same(lambda T: T.tensor([T.tensor(1.5, dtype=T.float64), 2.0]))
    same(lambda T: T.tensor([T.tensor(1, dtype=T.int8), 2]))
    same(lambda T: T.tensor([T.ones(1, dtype=T.float64)]))


@pytest.mark.parametrize("data", [
    [np.float64(1), np.float64(2)], [np.int16(1), np.int16(2)], [np.float32(1), 2],
    [np.int32(1), 2], [True, np.int8(1)], [[np.float16(1)], [2.0]], [True, 2],
    [np.float32(1.5), 1j], [2 ** 63 - 1]], ids=repr)
def test_tensor_infers_dtype_of_numpy_scalars(data):
    same(lambda T: T.tensor(data))


def test_tensor_of_a_list_of_arrays_warns_once():
    from chainrule import _creation
    _creation._warned_list_of_arrays = False
    previous = torch._C._get_warnAlways()
    torch._C._set_warnAlways(True)
    data = [np.arange(2, dtype=np.int32), np.arange(2, dtype=np.int32)]
    try:
        theirs = warnings_of(lambda: torch.tensor(data))   # (said at two places)
    finally:
        torch._C._set_warnAlways(previous)
    assert warnings_of(lambda: chainrule.tensor(data)) == theirs[:1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda T: T.tensor(data))
    assert warnings_of(lambda: chainrule.tensor(data)) == []


def test_tensor_options():
    same(lambda T: (T.tensor([1, 2], dtype=T.float64, requires_grad=True),
                    T.tensor([1.5, 2.5], dtype=T.int32), T.tensor(3, dtype=T.bool),
                    T.tensor([1.0], device="cpu")))


def test_tensor_copies():
    def prog(T):
        a = np.zeros(3)
        t = T.tensor(a)
        a[0] = 1
        return t
    same(prog)


def test_tensor_of_a_tensor_warns():
    same_warnings(lambda T: T.tensor(T.ones(2)))


def test_comparisons_return_bool():
    def prog(T):
        x, y = T.tensor([1., 2., 3.]), T.tensor([3., 2., 1.])
        return [x < y, x <= y, x > y, x >= y, x == y, x != y, x == 2, 2 < x, x.eq(y), x.lt(2.5)]
    same(prog)


def test_as_tensor_and_from_numpy_share_memory():
    def prog(T):
        a = np.arange(3.)
        t1, t2, t3 = T.as_tensor(a), T.from_numpy(a), T.as_tensor(a, dtype=T.float32)
        a[0] = 7
        t2.numpy()[2] = 9
        return t1, t2, t3, a, T.as_tensor([1, 2]), T.as_tensor(t1) is t1
    same(prog)


def test_from_numpy_errors():
    same_error(lambda T: T.from_numpy([1, 2]))
    same_error(lambda T: T.from_numpy(np.zeros(2, object)))
    same_error(lambda T: T.as_tensor(np.zeros(2, object)))


def test_factories():
    def prog(T):
        x = T.tensor([[1, 2, 3]], dtype=T.int32)
        return [
            T.zeros(2, 3), T.zeros((2, 3)), T.zeros([2]), T.zeros(T.Size([1, 2])), T.zeros(()),
            T.ones(2, dtype=T.int64), T.ones(0), T.empty(2, 3).shape, T.empty(2).dtype,
            T.full((2, 2), 7), T.full((2,), 1.5), T.full((2,), True), T.full((1,), 2, dtype=T.float64),
            T.zeros(2, requires_grad=True), T.ones(1, 1, dtype=T.float64, requires_grad=True),
            T.arange(5), T.arange(1, 4), T.arange(0, 1, 0.25), T.arange(5.), T.arange(5, dtype=T.float32),
            T.arange(10, 0, -3), T.arange(T.tensor(3)), T.arange(0, 1, 0.1), T.arange(1, 2.5, 0.5),
            T.linspace(0, 1, 7), T.linspace(-1, 1, 1), T.linspace(0, 10, 5, dtype=T.int64),
            T.linspace(0, 1, 0), T.linspace(2, 3, 4, dtype=T.float64),
            T.eye(3), T.eye(2, 3), T.eye(2, dtype=T.int64),
            T.zeros_like(x), T.ones_like(x), T.full_like(x, 4), T.full_like(x, 2.5),
            T.empty_like(x).shape, T.zeros_like(x, dtype=T.float64), T.ones_like(x, dtype=T.float32,
                                                                                 requires_grad=True),
        ]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(2, -1), lambda T: T.ones(-2), lambda T: T.zeros(2, 1.5),
    lambda T: T.arange(0, 5, -1), lambda T: T.arange(0, 5, 0), lambda T: T.linspace(0, 1, -1),
    lambda T: T.tensor([[1, 2], [3]]), lambda T: T.tensor("a"), lambda T: T.tensor([1, 2], requires_grad=True),
    lambda T: T.ones(2, dtype=T.int64, requires_grad=True), lambda T: T.empty(-1),
    lambda T: T.zeros(2.5), lambda T: T.zeros((2, -1)), lambda T: T.full((2, -1), 1.),
    lambda T: T.tensor([[1, 2], 3]), lambda T: T.tensor([[[1], [2]], [[3]]]),
    lambda T: T.tensor([1, None]), lambda T: T.tensor(None), lambda T: T.tensor(["a"]),
    lambda T: T.tensor([T.ones(2), T.ones(2)]), lambda T: T.tensor([T.tensor([1, 2])]),
    lambda T: T.tensor([2 ** 70]), lambda T: T.tensor(2 ** 70), lambda T: T.eye(-1),
    lambda T: T.eye(2, -1), lambda T: T.arange(0.5, float("inf")),
    lambda T: T.arange(1., float("nan")), lambda T: T.Size([1, 2.0]), lambda T: T.Size(3),
], ids=range(29))
def test_factory_errors(prog):
    same_error(prog)


def test_legacy_constructors():
    def prog(T):
        return [T.Tensor(3, 5).shape, T.Tensor(3, 5).dtype, T.Tensor([1, 2]), T.Tensor([[1.5]]),
                T.Tensor(), T.Tensor(T.Size([2, 1])).shape, T.FloatTensor([1, 2]),
                T.DoubleTensor([1, 2]), T.LongTensor([1, 2]), T.LongTensor(2).shape,
                T.LongTensor([1.5, -2.7]), T.IntTensor([1]), T.BoolTensor([1, 0]),
                T.ByteTensor([1]), T.FloatTensor(2, 3).dtype, T.DoubleTensor(2).dtype,
                isinstance(T.FloatTensor([1]), T.Tensor)]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.Tensor(2.5), lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    lambda T: T.Tensor("ab"),
], ids=range(3))
def test_legacy_constructor_errors(prog):
    same_error(prog)


def test_legacy_constructor_of_a_tensor_aliases_it():
    def prog(T):
        x = T.ones(2)
        a, b, c = T.Tensor(x), T.FloatTensor(x), T.Tensor(T.ones(2, dtype=T.float64))
        a.add_(1)
        return a is x, b is x, x, b, c, x._version
    same(prog)


@pytest.mark.skipif(not os.path.exists(os.path.join(os.path.dirname(chainrule.__file__),
                                                    "_random.py")), reason="no chainrule._random")
def test_random_matches_torch_after_manual_seed():
    def prog(T):
        T.manual_seed(0)
        return [T.rand(3), T.randn(2, 3), T.randint(0, 10, (5,)), T.randperm(6),
                T.normal(0.0, 2.0, size=(3,)), T.rand(2, dtype=T.float64), T.randn(4)]
    same(prog)


# ---- attributes and conversions -----------------------------------------------------------

def test_metadata():
    def prog(T):
        x = T.ones(2, 3, 4)
        s = T.tensor(1.5)
        return [x.shape, x.size(), x.size(1), x.size(-1), x.dim(), x.ndim, x.numel(), x.dtype,
                x.device, str(x.device), s.dim(), s.shape, s.numel(), T.numel(x), x.ndimension(),
                x.nelement(), x.is_floating_point(), T.ones(2, dtype=T.int64).is_floating_point(),
                x.is_leaf, x.requires_grad, x.grad_fn, x.grad, x.is_cuda, x.element_size(),
                x.stride(), x.is_contiguous(), x.type(), T.ones(2, dtype=T.int64).type(),
                T.is_tensor(x), T.is_tensor(3)]
    same(prog)
    same_error(lambda T: T.ones(2).size(2))
    same_error(lambda T: T.ones(2).size(-2))


def test_python_conversions():
    def prog(T):
        f, i, b = T.tensor(2.5), T.tensor([7]), T.tensor(True)
        return [f.item(), i.item(), b.item(), T.tensor([[3]]).item(), float(f), int(f), float(i),
                int(i), bool(b), bool(T.tensor([0.])), [10, 20, 30][T.tensor(1)], complex(f),
                T.tensor([[1, 2], [3, 4]]).tolist(), T.tensor(2.5).tolist(), T.tensor([]).tolist(),
                T.tensor([1.5, 2]).numpy(), np.asarray(T.tensor([1, 2])), len(T.ones(4, 2)),
                np.asarray(T.tensor([1, 2]), dtype=np.float32), f"{T.tensor(2.5):.2f}",
                T.tensor([1.5]).tolist(), type(T.tensor([True]).tolist()[0]).__name__,
                int(T.tensor(-2.7)), range(5)[T.tensor(3)]]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(2).item(), lambda T: float(T.ones(2)), lambda T: int(T.ones(0)),
    lambda T: bool(T.ones(2)), lambda T: bool(T.ones(0)), lambda T: [1][T.tensor(0.)],
    lambda T: [1, 2][T.tensor([0, 1])], lambda T: len(T.tensor(1.)), lambda T: iter(T.tensor(1.)),
    lambda T: T.ones(2, requires_grad=True).numpy(), lambda T: np.asarray(T.ones(2, requires_grad=True)),
], ids=range(11))
def test_conversion_errors(prog):
    same_error(prog)


def test_numpy_shares_memory():
    def prog(T):
        x = T.zeros(3)
        x.numpy()[0] = 5
        a = x.numpy()
        x2 = T.ones(2, requires_grad=True)
        return x, a, x2.detach().numpy(), x2.numpy(force=True)
    same(prog)


def test_iteration():
    def prog(T):
        x = T.arange(6.).reshape(2, 3).requires_grad_()
        rows = list(x)
        return rows, [r.grad_fn.name() for r in rows], [float(v) for v in T.tensor([1., 2.])]
    same(prog)


def test_hash_is_identity():
    for T in (chainrule, torch):
        x, y = T.ones(2), T.ones(2)
        assert hash(x) == id(x)
        assert len({x, y, x}) == 2 and {x: 1, y: 2}[x] == 1


def test_clone_detach_data():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        c, d, dy = x.clone(), x.detach(), y.detach()
        data = y.data
        d.add_(10)
        out = [c, d, dy, data, x, c.is_leaf, d.is_leaf, d.requires_grad, data.requires_grad,
               data.is_leaf, x._version, d._version, y.clone().grad_fn.next_functions[0][0]]
        data.mul_(7)        # .data shares memory but not the version counter
        out += [y, y._version, data._version]
        return out
    same(prog)


def test_detach_in_place():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 2
        r = y.detach_()
        return r is y, y, y.is_leaf, y.requires_grad, y.grad_fn
    same(prog)
    same_error(lambda T: T.ones(3).unsqueeze(0).detach_())


def test_data_setter():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        x.data = T.tensor([5., 6., 7.])
        y = (x * x).sum()
        y.backward()
        return x, x.grad, x.requires_grad, x.is_leaf
    same(prog)


def test_requires_grad_flags():
    def prog(T):
        x = T.ones(2)
        out = [x.requires_grad]
        x.requires_grad = True
        out.append(x.requires_grad)
        r = x.requires_grad_(False)
        out += [r is x, x.requires_grad, x.requires_grad_() is x, x.requires_grad]
        z = T.ones(2, dtype=T.complex64).requires_grad_()
        y = x * 2
        return out + [z.requires_grad, y.requires_grad, y.requires_grad_() is y, y.requires_grad_(True)]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1, 2]).requires_grad_(),
    lambda T: setattr(T.tensor([1, 2]), "requires_grad", True),
    lambda T: T.tensor([True]).requires_grad_(),
    lambda T: (T.ones(2, requires_grad=True) * 2).requires_grad_(False),
    lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", False),
    lambda T: setattr(T.ones(2, requires_grad=True) * 2, "requires_grad", True),
    lambda T: setattr(T.ones(2, requires_grad=True), "is_leaf", False),
    lambda T: setattr(T.ones(2, requires_grad=True), "grad_fn", None),
], ids=range(8))
def test_requires_grad_errors(prog):
    same_error(prog)


def test_grad_get_set():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        out = [x.grad]
        x.grad = T.tensor([1., 2., 3.])
        out.append(x.grad)
        (x * 2).sum().backward()
        out.append(x.grad)
        x.grad = None
        out.append(x.grad)
        (x * 3).sum().backward()
        out.append(x.grad)
        del x.grad
        return out + [x.grad]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(4)),
    lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(3, dtype=T.float64)),
    lambda T: setattr(T.ones(3, dtype=T.float64, requires_grad=True), "grad", T.ones(3)),
    lambda T: setattr(T.ones(3, requires_grad=True), "grad", 3),
    lambda T: setattr(T.ones(3, requires_grad=True), "grad", T.ones(3, dtype=T.int64)),
], ids=range(5))
def test_grad_setter_errors(prog):
    same_error(prog)


def test_grad_of_non_leaf_warns():
    def prog(T):
        y = T.ones(2, requires_grad=True) * 2
        return y.grad
    same_warnings(prog)
    # no warning once it retains grad, nor for leaves
    for T in (chainrule, torch):
        x = T.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        assert warnings_of(lambda: (x.grad, y.grad)) == []


def test_retain_grad():
    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        y = x * 3
        z = y.exp()
        out = [y.retains_grad, x.retains_grad]
        y.retain_grad()
        y.retain_grad()
        x.retain_grad()           # a no-op on leaves
        z.sum().backward()
        return out + [y.retains_grad, x.retains_grad, y.grad, x.grad, z.retains_grad, y.is_leaf]
    same(prog)
    same_error(lambda T: T.ones(2).retain_grad())


def test_version_counter():
    def prog(T):
        x = T.ones(3)
        v = [x._version]
        x.add_(1)
        v.append(x._version)
        x.mul_(2)
        x += 1
        v.append(x._version)
        d = x.detach()
        d.add_(1)
        v += [x._version, d._version]
        x.exp_()
        v.append(x._version)
        x.unsqueeze(0).add_(1)      # a view shares the counter
        return v, x, x._version
    same(prog)


def test_setitem_bumps_version():
    def prog(T):
        x = T.ones(3)
        x[0] = 5
        v = x._version
        x[1:] = T.tensor([2., 3.])
        return x, v, x._version
    same(prog)


def test_zero_():
    def prog(T):
        x = T.ones(3)
        r = x.zero_()
        y = T.ones(2, requires_grad=True)
        (y * 2).sum().backward()
        y.grad.zero_()
        return r is x, x, x._version, y.grad
    same(prog)


def test_dtype_conversions():
    def prog(T):
        x = T.tensor([1.5, -2.7])
        i = T.tensor([1, 0])
        return [x.to(T.float64), x.to(T.int32), x.float() is x, x.double(), x.long(), x.int(),
                x.bool(), x.half(), i.float(), i.bool(), x.type_as(i), i.type_as(x),
                x.to(T.float32) is x, x.to(T.float32, copy=True) is x, x.to(i), x.to("cpu") is x,
                x.to("cpu", T.float64), x.to(dtype=T.int64), x.type(T.float64), x.short(), x.char(),
                x.byte()]
    same(prog)


def test_conversion_records_to_copy():
    def prog(T):
        x = T.tensor([1.5, -2.7], requires_grad=True)
        y = x.double()
        (y * y).sum().backward()
        return y, y.grad_fn.next_functions[0][0], x.grad, x.float() is x, x.long().requires_grad
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1.5, 2.0]),
    lambda T: T.tensor([1.5, 2.0], requires_grad=True),
    lambda T: T.tensor([1.5, 2.0], requires_grad=True).exp(),
    lambda T: T.tensor([3.0], dtype=T.float64, requires_grad=True) * 2,
    lambda T: T.tensor([3.0], dtype=T.float64, requires_grad=True),
    lambda T: T.tensor([3.0], dtype=T.float64, requires_grad=True).detach(),
    lambda T: T.tensor([1, 2]),
    lambda T: T.tensor([], dtype=T.int64),
    lambda T: T.tensor(2.5, requires_grad=True) * 2,
    lambda T: T.tensor([1.5, 2.0], requires_grad=True).sum(),
    lambda T: T.tensor([1 + 1j], requires_grad=True) * 2,
], ids=range(11))
def test_repr(prog):
    ours, theirs = prog(chainrule), prog(torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


def test_repr_with_float64_default():
    def prog(T):
        T.set_default_dtype(T.float64)
        r = [repr(T.tensor([1.5])), repr(T.tensor([1.5], dtype=T.float32)), repr(T.tensor([1j]))]
        T.set_default_dtype(T.float32)
        return r
    same(prog)


def test_type_prints_as_torch_tensor():
    assert repr(type(chainrule.ones(1))) == repr(type(torch.ones(1)))
    assert isinstance(chainrule.ones(1), chainrule.Tensor)


def test_deepcopy_and_pickle():
    import pickle

    def prog(T):
        x = T.tensor([1., 2.], requires_grad=True)
        (x * 2).sum().backward()
        c = copy.deepcopy(x)
        p = pickle.loads(pickle.dumps(T.tensor([[1, 2]])))
        return c, c.grad, c is x, c.is_leaf, p
    same(prog)
    same_error(lambda T: copy.deepcopy(T.ones(2, requires_grad=True) * 2))


def test_weakref_to_tensor():
    for T in (chainrule, torch):
        x = T.ones(2)
        r = weakref.ref(x)
        del x
        assert r() is None


def test_requires_grad_is_contagious():
    def prog(T):
        a = T.ones(2, requires_grad=True)
        b = T.ones(2)
        c = a * b
        d = b + 1
        e = c.sum() + d.sum()
        return [t.requires_grad for t in (a, b, c, d, e)], [t.is_leaf for t in (a, b, c, d, e)]
    same(prog)


def test_new_factories():
    def prog(T):
        x, i = T.ones(2, dtype=T.float64), T.ones(2, dtype=T.int64)
        return [x.new_zeros(2, 3), x.new_zeros((2, 3)), x.new_zeros([2], dtype=T.int32),
                x.new_zeros(T.Size([2])), x.new_ones(2, requires_grad=True), i.new_ones(2),
                x.new_empty((2, 0)), x.new_empty(3).shape, x.new_full((2,), 3),
                i.new_full([2, 1], 3.7), x.new_full((2,), 7, dtype=T.int8),
                x.new_tensor([1, 2]), x.new_tensor([0.1, 2]), i.new_tensor([0.5, 2]),
                x.new_tensor([1.], requires_grad=True), x.new_tensor(3, dtype=T.int16),
                i.new_tensor(0.1), T.ones(2, requires_grad=True).new_zeros(2)]
    same(prog, atol=0, rtol=0)
    for bad in [lambda T: T.ones(1).new_zeros(), lambda T: T.ones(1).new_ones(-1),
                lambda T: T.ones(1).new_empty(2.5), lambda T: T.ones(1).new_zeros((2, 2.5)),
                lambda T: T.ones(1).new_full(2, 3), lambda T: T.ones(1).new_full([2], 1 + 2j),
                lambda T: T.ones(1).new_full((-1,), 2), lambda T: T.full(2, 3),
                lambda T: T.ones(1, dtype=T.int64).new_ones(2, requires_grad=True),
                lambda T: T.ones(1, dtype=T.int64).new_tensor([2**63]),
                lambda T: T.ones(1).new_tensor("a")]:
        same_error(bad)


def test_new_tensor_copies_and_warns():
    same_warnings(lambda T: T.ones(2, dtype=T.float64).new_tensor(T.ones(2, requires_grad=True)))
    src = chainrule.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy_ = src.new_tensor(src)
    assert copy_.grad_fn is None and not copy_.requires_grad
    copy_.add_(1)
    assert src.tolist() == [1.0, 1.0]


def test_tensor_converts_python_numbers_straight_to_dtype():
    same(lambda T: [T.tensor([0.1, 0.2, 0.3], dtype=T.float64), T.tensor(1e300, dtype=T.float64),
                    T.tensor([1e-320], dtype=T.float64), T.tensor(0.1, dtype=T.complex128),
                    T.tensor([[0.1, 1]], dtype=T.float64), T.tensor(2**70, dtype=T.float64),
                    T.tensor([1e300], dtype=T.float16), T.tensor(-1, dtype=T.uint8),
                    T.tensor([-255, 255], dtype=T.uint8), T.tensor([-3.7, 2.5], dtype=T.int32),
                    T.tensor([0.5, 2, 1 + 2j], dtype=T.bool), T.DoubleTensor([0.1]),
                    T.as_tensor([0.1], dtype=T.float64), T.tensor([T.tensor(0.1), 0.1],
                                                                  dtype=T.float64)],
         atol=0, rtol=0)
    for data, d in [(300, "uint8"), ([-256], "uint8"), ([2**63], "int64"), ([2**64 - 1], "uint8"),
                    (1e20, "int32"), (float("nan"), "int64"), ([float("inf")], "int64"),
                    (-0.5, "uint8"), (1 + 2j, "float32"), ([1 + 2j], "int64"), (70000, "int16")]:
        same_error(lambda T: T.tensor(data, dtype=getattr(T, d)))
    same_error(lambda T: T.ByteTensor([300]))
    same_error(lambda T: T.as_tensor(300, dtype=T.uint8))
    same_error(lambda T: T.Tensor([1 + 2j]))


@pytest.mark.parametrize("dtype, value", [
    ("float32", 1 + 2j), ("int64", 1 + 2j), ("float64", 1 + 1j), ("float16", 1e5),
    ("float16", 70000), ("float32", 1e300), ("complex64", 1e300), ("complex64", 1e300j),
    ("int64", 2**63), ("int32", 2**31), ("uint8", 300), ("uint8", -256), ("int8", 127.9),
    ("int64", float("nan")), ("int64", float("inf")), ("uint8", -0.5), ("int8", -129),
    ("float32", 2**70), ("int64", 2**64), ("int64", -2**63 - 1), ("bool", 10**400)])
def test_fill_value_overflow(dtype, value):
    same_error(lambda T: T.ones(2, dtype=getattr(T, dtype)).fill_(value))


def test_fill_values_that_fit():
    same(lambda T: [T.ones(2, dtype=getattr(T, d)).fill_(v) for d, v in [
        ("float32", 1 + 0j), ("int64", 1 + 0j), ("bool", 1 + 2j), ("float16", float("inf")),
        ("uint8", -1), ("uint8", -255), ("uint8", 255.0), ("bool", 5), ("float32", True),
        ("complex128", 1e300j), ("float32", -2**63), ("int64", 2**63 - 1)]], atol=0, rtol=0)
    same(lambda T: [T.ones(2, dtype=T.int64).fill_(T.tensor(2.5)),
                    T.ones(2, dtype=T.float16).fill_(T.tensor(1e300, dtype=T.float64))])


def test_type_names_in_messages():
    for d in ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
              "bool", "complex64", "complex128"]:
        same_error(lambda T: T.ones(2, 3, 4).to(getattr(T, d)).expand(3, 4))
        same(lambda T: T.ones(2).to(getattr(T, d)).type())


def test_utils_submodules():
    from chainrule.utils.data import DataLoader
    from chainrule.utils.hooks import RemovableHandle
    assert chainrule.utils.data.DataLoader is DataLoader
    assert chainrule.utils.hooks.RemovableHandle is RemovableHandle


@pytest.mark.parametrize("data", [
    [1.5, 2.0], [1, 2], [True, False], [1j, 2j], [[1, 2], [3, 4]], [[1.5], [2.5]],
    ([1, 2], [3, 4]), [1, 2.5], [True, 2], [1, 2j], [[1, 2], [3.5, 4]], [2 ** 62, 1],
    [-1, 5], [[True], [False]],
], ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "uint8", "bool", "complex64"])
def test_tensor_from_lists_of_numbers(data, dtype):
    # the one-kind fast path (_plain_numbers) and the general path agree with PyTorch,
    # values or errors (complex into real dtypes, overflow)
    def prog(T):
        return T.tensor(data, dtype=None if dtype is None else getattr(T, dtype))
    try:
        prog(torch)
    except (TypeError, RuntimeError):
        same_error(prog)
    else:
        same(prog)
