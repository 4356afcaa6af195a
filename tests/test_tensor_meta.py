"""Tensor metadata and CPU-only methods against PyTorch: device flags, layout, memory formats
(channels_last strides), dim_order, storages, sharing and pinning, legacy types, Python
callbacks (apply_, map_, map2_), as_subclass, new, grad_dtype, volatile, record_stream,
module_load."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import chainrule
from helpers import same, same_error, same_warnings


def test_flags_and_simple_attributes():
    def prog(T):
        x = T.arange(6.0).reshape(2, 3)
        return [x.is_cpu, x.is_cuda, x.is_mps, x.is_xla, x.is_xpu, x.is_ipu, x.is_maia,
                x.is_mtia, x.is_vulkan, x.is_mkldnn, x.is_nested, x.is_meta, x.is_sparse,
                x.is_sparse_csr, x.is_quantized, repr(x.layout), str(x.layout), x.get_device(),
                x.nbytes, x.itemsize, x.element_size(), x[1].nbytes, x.name,
                x.storage_offset(), x[1].storage_offset(), x[:, 1:].storage_offset(),
                x.t().storage_offset(), x.data_ptr() == x.const_data_ptr(),
                T.ones(3, dtype=T.float64).itemsize, T.ones(2, dtype=T.int16).nbytes,
                repr(x.device)]
    same(prog)


def test_layout_and_memory_format_objects():
    def prog(T):
        objs = [T.strided, T.sparse_coo, T.sparse_csr, T.sparse_csc, T.sparse_bsr, T.sparse_bsc,
                T.jagged, T.contiguous_format, T.channels_last, T.channels_last_3d,
                T.preserve_format, T.legacy_contiguous_format]
        return [repr(o) for o in objs] + [str(o) for o in objs] + [
            type(T.strided).__name__, type(T.channels_last).__name__,
            T.legacy_contiguous_format is T.contiguous_format, T.strided == T.strided,
            pickle.loads(pickle.dumps(T.channels_last)) is T.channels_last,
            pickle.loads(pickle.dumps(T.strided)) is T.strided,
            isinstance(T.strided, T.layout), isinstance(T.channels_last, T.memory_format)]
    same(prog)
    same_error(lambda T: T.layout())
    same_error(lambda T: T.memory_format())


SHAPES_4D = [(2, 3, 4, 5), (2, 3, 1, 1), (1, 3, 4, 5), (2, 1, 4, 5), (0, 3, 2, 2)]


@pytest.mark.parametrize("shape", SHAPES_4D, ids=str)
def test_channels_last(shape):
    def prog(T):
        x = T.arange(float(np.prod(shape))).reshape(shape)
        y = x.contiguous(memory_format=T.channels_last)
        z = x.to(memory_format=T.channels_last)
        c = x.clone(memory_format=T.channels_last)
        return [y, y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=T.channels_last),
                # (NumPy lays out the result of an op on an empty tensor its own way)
                z.stride(), c.stride(), (y + 1).stride() if x.numel() else None,
                y.contiguous().stride(),
                y.contiguous() is y, y.contiguous(memory_format=T.channels_last) is y,
                x.is_contiguous(memory_format=T.channels_last), y.dim_order(),
                x.to(T.float64, memory_format=T.channels_last).stride(),
                z.to(memory_format=T.channels_last) is z,
                y.to(memory_format=T.contiguous_format).stride()]
    same(prog)


def test_channels_last_3d_and_errors():
    def prog(T):
        x = T.ones(2, 3, 4, 5, 6)
        y = x.contiguous(memory_format=T.channels_last_3d)
        return [y.stride(), y.is_contiguous(memory_format=T.channels_last_3d),
                y.is_contiguous(memory_format=T.channels_last), y.dim_order(),
                T.ones(2, 3, 4).is_contiguous(memory_format=T.channels_last),
                T.ones(2, 3, 4).is_contiguous(memory_format=T.preserve_format),
                T.ones(3, 4).t().is_contiguous(memory_format=T.preserve_format),
                T.ones(2, 3, 4).contiguous(memory_format=T.preserve_format).stride()]
    same(prog)
    for bad in (lambda T: T.ones(2, 3, 4).contiguous(memory_format=T.channels_last),
                lambda T: T.ones(2, 3, 4, 5).contiguous(memory_format=T.channels_last_3d),
                lambda T: T.ones(1, 2, 3, 4, 5).contiguous(memory_format=T.channels_last),
                lambda T: T.ones(2, 3, 4).to(memory_format=T.channels_last),
                lambda T: T.ones(2, 3, 4).transpose(0, 1).contiguous(
                    memory_format=T.preserve_format),
                lambda T: T.ones(2, 3).is_contiguous(memory_format=3),
                lambda T: T.ones(2, 3, 4, 5).contiguous(memory_format=T.channels_last).view(-1)):
        same_error(bad)


def test_channels_last_gradients():
    def prog(T):
        x = T.arange(24.0).reshape(1, 2, 3, 4).requires_grad_()
        y = x.to(memory_format=T.channels_last)
        c = x.contiguous(memory_format=T.channels_last)
        (y * 2 + c).sum().backward()
        return [y.grad_fn, c.grad_fn, x.grad, x.grad.stride()]
    same(prog)


DIM_ORDER_CASES = [
    lambda T: T.ones(2, 3, 5, 7),
    lambda T: T.ones(2, 3, 5, 7).transpose(1, 2),
    lambda T: T.ones(1, 2, 3, 4),
    lambda T: T.ones(2, 3, 4).permute(2, 0, 1),
    lambda T: T.ones(2, 1).expand(2, 3),
    lambda T: T.ones(2, 1, 4),
    lambda T: T.ones(6).as_strided((2, 2), (1, 1)),
    lambda T: T.ones(()),
    lambda T: T.ones(5),
    lambda T: T.ones(3, 4)[:, ::2],
]


@pytest.mark.parametrize("make", DIM_ORDER_CASES)
def test_dim_order(make):
    for kwargs in ({}, dict(ambiguity_check=True),
                   dict(ambiguity_check=[]),
                   dict(ambiguity_check=["contiguous_format", "channels_last"])):
        def prog(T, kwargs=kwargs):
            kw = dict(kwargs)
            if isinstance(kw.get("ambiguity_check"), list):
                kw["ambiguity_check"] = [getattr(T, f) for f in kw["ambiguity_check"]]
            return make(T).dim_order(**kw)
        try:
            theirs = prog(torch)
        except Exception:       # noqa: BLE001  (then ours must raise the same)
            same_error(prog)
        else:
            assert prog(chainrule) == theirs
    same_error(lambda T: make(T).dim_order(ambiguity_check="x"))
    same_error(lambda T: make(T).dim_order(ambiguity_check=[1]))


def test_storages():
    def prog(T):
        x = T.arange(6.0).reshape(2, 3)
        u = x.untyped_storage()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = x.storage()
            out = [type(u).__name__, u.size(), u.nbytes(), len(u), u.element_size(), u[4],
                   u.tolist()[:8], u.data_ptr() == x.data_ptr(),
                   x[1].untyped_storage().data_ptr() == x.data_ptr(), u.device, u.is_cuda,
                   type(s).__name__, s.size(), len(s), s[1], s.tolist(), s.nbytes(),
                   s.element_size(), s.dtype, s.device, s.data_ptr() == x.data_ptr(),
                   x.storage_type().__name__, u.is_shared(), u.is_pinned(), s.is_shared(),
                   T.is_storage(u), T.is_storage(s), T.is_storage(x), T.typename(u),
                   x.t().untyped_storage().nbytes(), str(s), str(u[:4])]
            s[0] = 7.0
            u2 = x[1].untyped_storage()
            out.append(x.tolist())
            out.append(u2.nbytes())
            fs = T.FloatStorage([1, 2, 3])
            out += [fs.tolist(), fs.dtype, len(T.DoubleStorage(4)), type(fs).__name__]
        return out
    same(prog)
    same_error(lambda T: T.ones(3).storage()[0:1])
    same_error(lambda T: T.ones(3).untyped_storage().pin_memory())


def test_share_memory():
    def prog(T):
        x = T.ones(4)
        before = x.is_shared()
        y = x.share_memory_()
        return [before, y is x, x.is_shared(), x.untyped_storage().is_shared(),
                T.ones(2).is_shared()]
    same(prog)


def test_legacy_type_names():
    def prog(T):
        x = T.ones(2)
        return [x.type(), x.type("torch.DoubleTensor").dtype, x.type(T.DoubleTensor).dtype,
                x.type(T.float64).dtype, x.type("torch.FloatTensor") is x,
                T.ones(2, dtype=T.int64).type(), T.ones(2, dtype=T.bool).type(),
                x.type(T.float64, non_blocking=True).dtype]
    same(prog)
    for bad in (lambda T: T.ones(2).type("torch.cuda.FloatTensor"),
                lambda T: T.ones(2).type("torch.Foo"), lambda T: T.ones(2).type("DoubleTensor"),
                lambda T: T.ones(2).type(3)):
        same_error(bad)


def test_apply_map_map2():
    def prog(T):
        a = T.arange(6.0).reshape(2, 3)
        b = a.clone().apply_(lambda v: v * 2)
        c = a.clone().map_(T.ones(3), lambda u, v: u + v)
        d = a.clone().map2_(T.ones(3), T.ones(2, 1), lambda u, v, w: u + v + w)
        e = T.arange(3).apply_(lambda v: v * 1.5)
        f = T.arange(3).apply_(lambda v: type(v).__name__ == "int")
        g = T.tensor([True, False]).apply_(lambda v: not v)
        h = T.tensor([1j]).apply_(lambda v: v * 2)
        z = T.zeros(2, 2)
        z[:, 0].apply_(lambda v: 5.0)
        v = T.ones(2)
        v.apply_(lambda t: t)
        return [b, c, d, e, f, g, h, z, v._version,
                T.ones(2, dtype=T.float16).apply_(lambda t: t / 3)]
    same(prog)
    for bad in (lambda T: T.ones(2, requires_grad=True).apply_(lambda v: v),
                lambda T: (T.ones(2, requires_grad=True) * 1)[0:1].apply_(lambda v: v),
                lambda T: T.ones(2).map_(T.ones(2, requires_grad=True), lambda u, v: u),
                lambda T: T.ones(2).map_(T.ones(3), lambda u, v: u),
                lambda T: T.ones(2, 1).map_(T.ones(3), lambda u, v: u),
                lambda T: T.ones(2).map_(T.ones(2, dtype=T.int64), lambda u, v: u),
                lambda T: T.ones(2, dtype=T.int64).map_(T.ones(2), lambda u, v: u),
                lambda T: T.ones(2).map2_(T.ones(3), T.ones(2), lambda u, v, w: u),
                lambda T: T.ones(2).map2_(T.ones(2, requires_grad=True), T.ones(2),
                                          lambda u, v, w: u),
                lambda T: T.arange(3.0).apply_(lambda v: None),
                lambda T: T.arange(3.0).apply_(lambda v: "x")):
        same_error(bad)


def test_as_subclass_new_is_set_to():
    def prog(T):
        class C(T.Tensor):
            pass
        x = T.ones(2, requires_grad=True)
        y = x.as_subclass(C)
        y.sum().backward()
        z = (x * 2).as_subclass(C)
        a = T.ones(2, 3)
        return [type(y).__name__, y.grad_fn, y.requires_grad, y.is_leaf, y._base is x,
                y.data_ptr() == x.data_ptr(), x.grad, z.grad_fn, z.is_leaf,
                type(x.as_subclass(T.Tensor)).__name__, a.new(2, 3).shape, a.new([1, 2]),
                a.new().shape, a.new(2).dtype, T.ones(2, dtype=T.int64).new([1.5]),
                a.is_set_to(a), a.is_set_to(a.view(6)), a.is_set_to(a.detach()),
                a.is_set_to(T.ones(2, 3)), a.is_set_to(a[:])]
    same(prog)
    for bad in (lambda T: T.ones(2).as_subclass(int),
                lambda T: T.ones(2).new(T.ones(3, dtype=T.int64)),
                lambda T: T.ones(2).new([1], device="cuda"),
                lambda T: T.ones(2).is_set_to(1)):
        same_error(bad)


def test_grad_dtype():
    def prog(T):
        x = T.ones(2, requires_grad=True)
        out = [x.grad_dtype, T.ones(2, dtype=T.int64).grad_dtype]
        x.grad_dtype = T.float64
        out.append(x.grad_dtype)
        (x * 2).sum().backward()
        out.append(x.grad)
        y = T.ones(2, requires_grad=True)
        y.grad_dtype = None
        out.append(y.grad_dtype)
        (y * 3).sum().backward()
        out.append(y.grad)
        y.grad = T.ones(2, dtype=T.float64)
        out.append(y.grad)
        return out
    same(prog)
    for bad in (lambda T: (T.ones(2, requires_grad=True) * 2).grad_dtype,
                lambda T: setattr(T.ones(2, requires_grad=True) * 2, "grad_dtype", T.float64),
                lambda T: setattr(T.ones(2, requires_grad=True), "grad_dtype", "float"),
                lambda T: (lambda v: (setattr(v, "grad_dtype", T.float64),
                                      setattr(v, "grad", T.ones(2))))(
                    T.ones(2, requires_grad=True)),
                lambda T: (lambda v: (setattr(v, "grad", T.ones(2)),
                                      setattr(v, "grad_dtype", T.float64)))(
                    T.ones(2, requires_grad=True))):
        same_error(bad)


def test_volatile_warns():
    same_warnings(lambda T: T.ones(2).volatile)
    same_warnings(lambda T: setattr(T.ones(2), "volatile", True))
    same(lambda T: T.ones(2).volatile)


def test_record_stream_and_module_load():
    same_error(lambda T: T.ones(2).record_stream(None))
    same_error(lambda T: T.ones(2).record_stream(T.Stream()))

    def prog(T):
        p = T.zeros(2, 3)
        loaded = p.module_load(T.ones(2, 3))
        assigned = p.module_load(T.ones(2, 3, dtype=T.float64), assign=True)
        return [loaded, p, assigned, loaded.requires_grad]
    same(prog)
    same_error(lambda T: T.ones(2).module_load(T.ones(3)))


def test_method_argument_errors_name_the_method():
    for bad in (lambda T: T.ones(2).cpu(foo=1), lambda T: T.ones(2).cuda(foo=1),
                lambda T: T.ones(2).pin_memory(x=1)):
        same_error(bad)
