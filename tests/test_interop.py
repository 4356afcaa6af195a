"""Interop against PyTorch: asarray, frombuffer, from_file, DLPack both ways (from_dlpack,
Tensor.__dlpack__, torch.utils.dlpack), the NumPy protocol (ufuncs on tensors, arrays and
NumPy scalars in operators), from_numpy/tensor/as_tensor checks, empty_strided and
empty_permuted, complex/polar, and the number checks of tensor(), full() and scalar_tensor().
Memory sharing is checked by writing through one side and reading the other."""
import array
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import chainrule
import chainrule.utils.dlpack
from helpers import same, same_error, same_warnings


def outcome(prog, T):
    """What prog(T) gives: its value (tensors as dtype, shape, values, requires_grad,
    node), or its exception's class and message; and the warnings it emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = describe(prog(T))
        except Exception as e:      # noqa: BLE001  (compared)
            value = ("raised", type(e).__name__, str(e).split(" (Triggered internally")[0])
    return value, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0])
                   for w in caught]


def describe(r):
    if isinstance(r, (torch.Tensor, chainrule.Tensor)):
        d = r.detach()
        if d.dtype in (torch.bfloat16, chainrule.bfloat16):
            d = d.float()
        return ("tensor", str(r.dtype), tuple(r.shape), r.requires_grad,
                None if r.grad_fn is None else r.grad_fn.name(),
                np.asarray(d.numpy()).tobytes())
    if isinstance(r, np.ndarray):
        return ("array", str(r.dtype), r.shape, r.tobytes())
    if isinstance(r, (tuple, list)):
        return [describe(x) for x in r]
    if isinstance(r, torch.Size):
        return tuple(r)
    if isinstance(r, (chainrule.dtype, torch.dtype)):
        return str(r)
    return r


def alike(prog):
    ours, theirs = outcome(prog, chainrule), outcome(prog, torch)
    assert ours == theirs, (ours, theirs)


def all_alike(progs):
    for prog in progs:
        alike(prog)


# ---- asarray --------------------------------------------------------------------------------

def shared(make, write, read):
    """Whether writing through the result of make() shows in read() of its source."""
    def prog(T):
        source, result = make(T)
        before = read(source)
        write(result)
        return before != read(source)
    return prog


def test_asarray_sharing():
    a = lambda: np.arange(6.)       # noqa: E731
    progs = [
        lambda T: (lambda x: (x, T.asarray(x)))(a()),
        lambda T: (lambda x: (x, T.asarray(x, dtype=T.float64)))(a()),
        lambda T: (lambda x: (x, T.asarray(x, dtype=T.float32)))(a()),
        lambda T: (lambda x: (x, T.asarray(x, copy=True)))(a()),
        lambda T: (lambda x: (x, T.asarray(x[::2])))(a()),
        lambda T: (lambda x: (x, T.asarray(x.reshape(2, 3).T)))(a()),
        lambda T: (lambda x: (x, T.asarray(x, requires_grad=False)))(a()),
        lambda T: (lambda x: (x, T.asarray(np.asarray(x[0]))))(a()),
    ]
    for make in progs:
        alike(shared(make, lambda r: r.detach().add_(1), lambda s: s.tolist()))
    tensors = [
        lambda T: (lambda t: (t, T.asarray(t)))(T.arange(4.)),
        lambda T: (lambda t: (t, T.asarray(t, dtype=T.float64)))(T.arange(4.)),
        lambda T: (lambda t: (t, T.asarray(t, copy=True)))(T.arange(4.)),
        lambda T: (lambda t: (t, T.asarray(t, copy=False, dtype=T.float32)))(T.arange(4.)),
        lambda T: (lambda t: (t, T.asarray(t, device="cpu:0")))(T.arange(4.)),
    ]
    for make in tensors:
        alike(shared(make, lambda r: r.add_(1), lambda s: s.tolist()))
    buffers = [
        lambda T: (lambda b: (b, T.asarray(b, dtype=T.uint8)))(bytearray(b"\x01\x02")),
        lambda T: (lambda b: (b, T.asarray(b, dtype=T.uint8, copy=True)))(bytearray(b"\x01")),
        lambda T: (lambda b: (b, T.asarray(b, dtype=T.int32)))(array.array("i", [1, 2])),
        lambda T: (lambda b: (b, T.asarray(memoryview(b), dtype=T.uint8)))(bytearray(2)),
    ]
    for make in buffers:
        alike(shared(make, lambda r: r.add_(1), lambda s: bytes(s)))
    alike(lambda T: (lambda t: T.asarray(t) is t)(T.arange(3.)))
    alike(lambda T: (lambda t: T.asarray(t, dtype=T.float32, copy=False) is t)(T.arange(3.)))


def test_asarray_values_and_dtypes():
    all_alike([
        lambda T: T.asarray([1, 2]), lambda T: T.asarray([1., 2]), lambda T: T.asarray(3),
        lambda T: T.asarray(3.5), lambda T: T.asarray(True), lambda T: T.asarray(1j),
        lambda T: T.asarray((1, 2.5)), lambda T: T.asarray([]),
        lambda T: T.asarray([[1, 2], [3, 4]], dtype=T.float64),
        lambda T: T.asarray([True, False], dtype=T.float32),
        lambda T: T.asarray(3, dtype=T.float64), lambda T: T.asarray([1, 2], dtype=T.float16),
        lambda T: T.asarray([T.tensor(1.), T.tensor(2.)]),
        lambda T: T.asarray(np.float64(2)), lambda T: T.asarray(np.float32(2)),
        lambda T: T.asarray(np.arange(3, dtype=np.uint16)),
        lambda T: T.asarray(np.arange(3, dtype=np.uint64)),
        lambda T: T.asarray(np.arange(6.), dtype=T.int64),
        lambda T: T.asarray(array.array("d", [1., 2.])),       # read as the default dtype
        lambda T: T.asarray(memoryview(array.array("f", [1., 2.]))),
        lambda T: T.asarray(bytearray(b"\x80\x3f"), dtype=T.bfloat16),
        lambda T: T.asarray(bytearray(16), dtype=T.float64),
        lambda T: T.asarray(np.arange(3.).__dlpack__()),
        lambda T: T.asarray(np.arange(6.).reshape(2, 3).T).stride(),
    ])


def test_asarray_requires_grad():
    all_alike([
        lambda T: T.asarray(T.arange(3., requires_grad=True), requires_grad=False),
        lambda T: T.asarray(T.arange(3.), requires_grad=True),
        lambda T: (lambda t: (T.asarray(t, requires_grad=True) is t, t.requires_grad))(
            T.arange(3.)),
        lambda T: (lambda t: (T.asarray(t, requires_grad=False), t.requires_grad))(
            T.arange(3., requires_grad=True)),
        lambda T: T.asarray(T.ones(2, requires_grad=True) * 2, requires_grad=False),
        lambda T: T.asarray(T.ones(2, requires_grad=True) * 2, requires_grad=True),
        lambda T: T.asarray(T.ones(2, requires_grad=True) * 2, copy=True, requires_grad=True),
        lambda T: T.asarray(T.ones(2, requires_grad=True) * 2, dtype=T.float64,
                            requires_grad=True),
        lambda T: T.asarray(T.ones(2, requires_grad=True), dtype=T.float64, copy=True,
                            requires_grad=True),
        lambda T: T.asarray([1., 2.], requires_grad=True),
        lambda T: T.asarray(np.arange(2.), requires_grad=True),
        lambda T: T.asarray(bytearray(8), requires_grad=True),
    ])
    # without requires_grad, a tensor's flag is kept: PyTorch warns once per process
    code = ("import warnings, {0} as T\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    a = T.asarray(T.ones(2, requires_grad=True))\n"
            "    b = T.asarray(T.ones(2, requires_grad=True))\n"
            "print(a.requires_grad, b.requires_grad, [str(x.message).split(' (Trig')[0] "
            "for x in w])\n")
    assert run(code.format("chainrule")) == run(code.format("torch"))


def run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=os.path.dirname(__file__))
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_asarray_errors():
    for prog in [
            lambda T: T.asarray(np.arange(6.), copy=False, dtype=T.float32),
            lambda T: T.asarray(T.arange(6.), copy=False, dtype=T.float64),
            lambda T: T.asarray([1, 2], copy=False),
            lambda T: T.asarray(np.float64(2.), copy=False),
            lambda T: T.asarray(np.arange(6, dtype=np.int64), requires_grad=True),
            lambda T: T.asarray(T.tensor([1, 2]), requires_grad=True),
            lambda T: T.asarray([1, 2], requires_grad=True),
            lambda T: T.asarray(bytearray(8), dtype=T.int32, requires_grad=True),
            lambda T: T.asarray(bytearray(3)),
            lambda T: T.asarray(memoryview(bytearray(8))[::2]),
            lambda T: T.asarray(np.arange(6.), device="cuda"),
            lambda T: T.asarray(T.arange(6.), device="cuda"),
            lambda T: T.asarray(T.arange(6.), device="cuda", copy=False),
            lambda T: T.asarray(T.arange(6.), device="cpu:0", copy=False),
            lambda T: T.asarray([1.], device="cuda"),
            lambda T: T.asarray(np.arange(3.)[::-1]),
            lambda T: T.asarray(np.arange(3, dtype=">f8")),
            lambda T: T.asarray("abc"), lambda T: T.asarray(None),
            lambda T: T.asarray(object()), lambda T: T.asarray([2 ** 63]),
            lambda T: T.asarray(2 ** 63), lambda T: T.asarray([[1, 2], [3]]),
            lambda T: T.asarray([1], T.float32)]:
        same_error(prog)


# ---- frombuffer -------------------------------------------------------------------------------

def test_frombuffer():
    all_alike([
        lambda T: T.frombuffer(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"), dtype=T.int32),
        lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=3),
        lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=2),
        lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=1, count=3),
        lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=-2),
        lambda T: T.frombuffer(np.arange(4, dtype=np.int32), dtype=T.int32),
        lambda T: T.frombuffer(np.zeros((2, 2), np.int8), dtype=T.int8),
        lambda T: T.frombuffer(array.array("i", [1, 2, 3]), dtype=T.int32),
        lambda T: T.frombuffer(memoryview(bytearray(b"\x01\x02")), dtype=T.uint8),
        lambda T: T.frombuffer(bytearray(8), dtype=T.float32, requires_grad=True),
        lambda T: T.frombuffer(bytearray(b"\x80\x3f"), dtype=T.bfloat16),
        lambda T: T.frombuffer(bytearray(b"\x01\x00"), dtype=T.bool),
        lambda T: T.frombuffer(bytearray(8), dtype=T.complex64),
        lambda T: T.frombuffer(bytearray(4), dtype=T.uint16),
    ])
    alike(shared(lambda T: (lambda b: (b, T.frombuffer(b, dtype=T.uint8)))(bytearray(b"\x01")),
                 lambda r: r.add_(1), lambda s: bytes(s)))
    alike(shared(lambda T: (lambda b: (b, T.frombuffer(b, dtype=T.int32)))(
        array.array("i", [1, 2])), lambda r: r.add_(1), lambda s: s.tolist()))
    for prog in [lambda T: T.frombuffer(bytearray(8)),
                 lambda T: T.frombuffer(bytearray(8), T.int16),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, device="cpu"),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=5),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=1),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=8),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, offset=-1),
                 lambda T: T.frombuffer(bytearray(0), dtype=T.int16),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=0),
                 lambda T: T.frombuffer(bytearray(7), dtype=T.int16),
                 lambda T: T.frombuffer([1, 2], dtype=T.int16),
                 lambda T: T.frombuffer("ab", dtype=T.int8),
                 lambda T: T.frombuffer(np.arange(8, dtype=np.int32)[::2], dtype=T.int32),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int16, count=2.0),
                 lambda T: T.frombuffer(bytearray(8), dtype=T.int32, requires_grad=True)]:
        same_error(prog)


def test_read_only_warnings_once_per_process():
    code = ("import warnings, numpy as np, {0} as T\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    for i in range(2):\n"
            "        T.frombuffer(b'\\x01\\x02', dtype=T.uint8)\n"
            "        T.from_numpy(np.frombuffer(b'\\x00' * 8, dtype=np.int64))\n"
            "        T.as_tensor(np.frombuffer(b'\\x00' * 8, dtype=np.int64))\n"
            "        T.tensor(np.frombuffer(b'\\x00' * 8, dtype=np.int64))\n"
            "print([str(x.message).split(' (Trig')[0] for x in w])\n")
    assert run(code.format("chainrule")) == run(code.format("torch"))
    code = ("import warnings, numpy as np, {0} as T\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    T.tensor(np.frombuffer(b'\\x00' * 8, dtype=np.int64))\n"
            "    T.asarray(np.frombuffer(b'\\x00' * 8, dtype=np.int64), dtype=T.float64)\n"
            "    T.asarray(np.frombuffer(b'\\x00' * 8, dtype=np.int64))\n"
            "print([str(x.message).split(' (Trig')[0] for x in w])\n")
    assert run(code.format("chainrule")) == run(code.format("torch"))


# ---- from_file --------------------------------------------------------------------------------

@pytest.fixture
def binfile(tmp_path):
    path = str(tmp_path / "data.bin")

    def reset():
        np.arange(10, dtype=np.float32).tofile(path)
        return path
    return reset


def test_from_file(binfile, tmp_path):
    def content(path):
        return np.fromfile(path, dtype=np.float32).tolist()

    all_alike([
        lambda T: T.from_file(binfile()),
        lambda T: T.from_file(binfile(), size=5),
        lambda T: T.from_file(binfile(), size=10),
        lambda T: T.from_file(binfile(), size=5, dtype=T.float64),
        lambda T: T.from_file(binfile(), size=3, dtype=T.int32),
        lambda T: T.from_file(binfile(), True, 3),
        lambda T: T.from_file(binfile(), size=3, requires_grad=True),
        lambda T: T.from_file(binfile(), size=3, dtype=T.bfloat16),
        lambda T: T.from_file(binfile().encode(), size=2),
        lambda T: T.from_file(binfile(), size=2, device="cpu"),
        lambda T: T.from_file(binfile(), size=0, shared=True),
        # private maps leave the file alone, shared ones write to it
        lambda T: (lambda p: (T.from_file(p, shared=False, size=10).add_(1), content(p))[1])(
            binfile()),
        lambda T: (lambda p: (T.from_file(p, size=4).fill_(7), content(p))[1])(binfile()),
        lambda T: (lambda p: (T.from_file(p, shared=True, size=10).add_(1), content(p))[1])(
            binfile()),
        # a shared map grows the file, or makes it
        lambda T: (lambda p: (T.from_file(p, shared=True, size=12), os.path.getsize(p)))(
            binfile()),
    ])
    for name in ("new1.bin", "new2.bin"):
        path = str(tmp_path / name)
        ours = chainrule.from_file(path, shared=True, size=3) if name == "new1.bin" else \
            torch.from_file(path, shared=True, size=3)
        assert ours.tolist() == [0.0, 0.0, 0.0] and os.path.getsize(path) == 12
    missing = str(tmp_path / "missing.bin")
    for prog in [lambda T: T.from_file(binfile(), size=11),
                 lambda T: T.from_file(missing, size=3),
                 lambda T: T.from_file(binfile(), size=-1),
                 lambda T: T.from_file(binfile(), size=2.0),
                 lambda T: T.from_file(binfile(), size=2, pin_memory=True),
                 lambda T: T.from_file(__import__("pathlib").Path(binfile()), size=2),
                 lambda T: T.from_file(str(tmp_path), size=2)]:
        same_error(prog)


# ---- DLPack -----------------------------------------------------------------------------------

def dlpack(T):
    return T.utils.dlpack


def capsule_name(capsule):
    import ctypes
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype, get.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return get(capsule).decode()


def test_dlpack_zero_copy():
    # NumPy reads tensors, tensors read NumPy arrays, both sharing memory
    for make in [lambda T: (lambda a: (a, T.from_dlpack(a)))(np.arange(3.)),
                 lambda T: (lambda t: (t, T.from_dlpack(t)))(T.arange(3.)),
                 lambda T: (lambda t: (t, dlpack(T).from_dlpack(dlpack(T).to_dlpack(t))))(
                     T.arange(3.)),
                 lambda T: (lambda a: (a, T.from_dlpack(a, copy=True)))(np.arange(3.)),
                 lambda T: (lambda a: (a, T.from_dlpack(a, device="cpu")))(np.arange(3.))]:
        alike(shared(make, lambda r: r.add_(1), lambda s: s.tolist()))
    alike(shared(lambda T: (lambda t: (t, np.from_dlpack(t)))(T.arange(3.)),
                 lambda r: r.__iadd__(1), lambda s: s.tolist()))
    alike(shared(lambda T: (lambda t: (t, np.from_dlpack(t, copy=True)))(T.arange(3.)),
                 lambda r: r.__iadd__(1), lambda s: s.tolist()))
    # torch itself reads chainrule tensors and the other way round
    t = chainrule.arange(3.)
    torch.from_dlpack(t).add_(1)
    assert t.tolist() == [1.0, 2.0, 3.0]
    u = torch.arange(3.)
    chainrule.from_dlpack(u).add_(1)
    assert u.tolist() == [1.0, 2.0, 3.0]


def test_dlpack_values_and_protocol():
    all_alike([
        lambda T: np.from_dlpack(T.arange(3.)),
        lambda T: np.from_dlpack(T.arange(6.).reshape(2, 3).T).strides,
        lambda T: np.from_dlpack(T.tensor([True])),
        lambda T: np.from_dlpack(T.tensor([1j])),
        lambda T: np.from_dlpack(T.tensor(2, dtype=T.int16)),
        lambda T: T.arange(3.).__dlpack_device__(),
        lambda T: type(T.arange(3.).__dlpack_device__()[0]).__name__,
        lambda T: capsule_name(T.arange(3.).__dlpack__()),
        lambda T: capsule_name(T.arange(3.).__dlpack__(max_version=(1, 0))),
        lambda T: capsule_name(T.arange(3.).__dlpack__(stream=None)),
        lambda T: capsule_name(T.arange(3.).__dlpack__(copy=False)),
        lambda T: capsule_name(T.arange(3.).__dlpack__(dl_device=(1, 0))),
        lambda T: capsule_name(dlpack(T).to_dlpack(T.arange(3.))),
        lambda T: capsule_name(T.to_dlpack(T.arange(3.))),
        lambda T: np.from_dlpack(T.arange(4.)).tolist() == T.from_dlpack(
            T.to_dlpack(T.arange(4.))).tolist(),
        lambda T: capsule_name(dlpack(T).to_dlpack(T.arange(3., requires_grad=True))),
        lambda T: T.from_dlpack(T.arange(3.)),
        lambda T: (lambda t: T.from_dlpack(t) is t)(T.arange(3.)),
        lambda T: T.from_dlpack(np.frombuffer(b"\x00" * 8, dtype=np.float64)),
        lambda T: T.from_dlpack(np.array([True, False])),
        lambda T: T.from_dlpack(np.array([1.5], np.float16)),
        lambda T: T.from_dlpack(np.array([1], np.uint16)),
        lambda T: T.from_dlpack(np.array(1.5)),
        lambda T: T.from_dlpack(np.array([1j])),
        lambda T: T.from_dlpack(np.arange(12.).reshape(3, 4)[:, ::2]).stride(),
        lambda T: T.from_dlpack(np.asfortranarray(np.ones((2, 3)))).stride(),
        lambda T: sorted(dlpack(T).__all__),
        lambda T: [(x.name, int(x)) for x in dlpack(T).DLDeviceType],
    ])
    for prog in [lambda T: np.from_dlpack(T.arange(3., requires_grad=True)),
                 lambda T: T.arange(3., requires_grad=True).__dlpack__(),
                 lambda T: T.arange(3.).__dlpack__(stream=1),
                 lambda T: T.arange(3.).__dlpack__(stream="a"),
                 lambda T: T.arange(3.).__dlpack__(None),
                 lambda T: (lambda c: (T.from_dlpack(c), T.from_dlpack(c)))(
                     dlpack(T).to_dlpack(T.arange(3.))),
                 lambda T: T.from_dlpack([1, 2]), lambda T: T.from_dlpack(3),
                 lambda T: T.from_dlpack(dlpack(T).to_dlpack(T.arange(3.)), copy=True),
                 lambda T: T.from_dlpack(T.arange(3., requires_grad=True)),
                 lambda T: T.from_dlpack(np.arange(3, dtype=">i4")),
                 lambda T: T.from_dlpack(np.array([1], dtype=object))]:
        same_error(prog)


# ---- the NumPy protocol -----------------------------------------------------------------------

def test_numpy_functions_on_tensors():
    all_alike([
        lambda T: np.exp(T.tensor([1., 2., 3.])), lambda T: np.add(T.tensor([1., 2.]), 1),
        lambda T: np.add(T.tensor([1, 2]), 1), lambda T: np.sqrt(T.tensor([1., 2.])),
        lambda T: np.exp(T.tensor(1.)), lambda T: np.logical_not(T.tensor([True, False])),
        lambda T: np.exp(T.tensor([1.], dtype=T.float16)),
        lambda T: np.add(T.tensor([1.]), 1, out=np.empty(1)),
        lambda T: np.asarray(T.tensor([1., 2.])), lambda T: np.asarray(T.tensor([1.]), np.int64),
        lambda T: np.concatenate([T.tensor([1.]), T.tensor([2.])]),
        lambda T: np.stack([T.tensor([1.]), T.tensor([2.])]),
        lambda T: np.where(T.tensor([1., 2.]) > 1, T.tensor([1., 2.]), 0),
        lambda T: np.dot(T.tensor([1., 2.]), T.tensor([1., 2.])),
        lambda T: np.sum(T.tensor([1., 2.])), lambda T: np.mean(T.tensor([1., 2.])),
        lambda T: np.asarray(T.tensor([1.], requires_grad=True)),
        lambda T: np.exp(T.tensor([1.], requires_grad=True)),
        lambda T: np.array(T.tensor([1.], requires_grad=True)),
        lambda T: np.array(T.tensor([1.]), copy=False),
        lambda T: np.asarray(T.tensor([1.], dtype=T.bfloat16)),
        lambda T: np.exp(T.tensor([1.], dtype=T.bfloat16)),
        lambda T: T.tensor([1.], requires_grad=True).numpy(force=True),
        lambda T: T.tensor([1.], dtype=T.bfloat16).numpy(),
        lambda T: T.Tensor.__array_priority__,
        lambda T: hasattr(T.Tensor, "__array_ufunc__"),
        lambda T: hasattr(T.Tensor, "__array_function__"),
    ])
    alike(shared(lambda T: (lambda t: (t, np.asarray(t)))(T.arange(3.)),
                 lambda r: r.__iadd__(1), lambda s: s.tolist()))


NUMPY_OPERANDS = {"arr": np.array([1., 5., 3.]), "ai": np.array([1, 5, 3]),
                  "a0d": np.array(2.), "f64": np.float64(2), "f32": np.float32(2),
                  "f16": np.float16(2), "i64": np.int64(2), "i32": np.int32(2),
                  "u8": np.uint8(200), "b": np.bool_(True), "c128": np.complex128(1j),
                  "c64": np.complex64(1j)}
OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge",
             "eq", "ne", "and_", "or_", "xor", "lshift", "rshift", "matmul"]


@pytest.mark.parametrize("operator", OPERATORS)
def test_numpy_operands(operator):
    import operator as O
    f = getattr(O, operator)
    for name, y in NUMPY_OPERANDS.items():
        for left in ("float", "int", "bool"):
            def x(T):
                return {"float": T.tensor([1., 2., 4.]), "int": T.tensor([1, 2, 4]),
                        "bool": T.tensor([True, False, True])}[left]
            alike(lambda T: f(x(T), y))
            alike(lambda T: f(y, x(T)))


@pytest.mark.parametrize("operator", ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod",
                                      "ipow", "iand", "ior", "ixor", "ilshift", "irshift"])
def test_numpy_operands_in_place(operator):
    import operator as O
    f = getattr(O, operator)
    for name, y in NUMPY_OPERANDS.items():
        for left in ("float", "int"):
            def prog(T):
                x = T.tensor([1., 2., 4.]) if left == "float" else T.tensor([1, 2, 4])
                r = f(x, y)
                return r, r is x
            alike(prog)


def test_numpy_scalars_in_functions():
    all_alike([
        lambda T: T.add(T.tensor([1., 2.]), np.float64(2)),
        lambda T: T.tensor([1., 2.]).add(np.bool_(True)),
        lambda T: T.mul(T.tensor([1, 2]), np.float32(2)),
        lambda T: T.tensor([1., 2.]).sub(np.int64(1), alpha=2),
        lambda T: T.where(T.tensor([True, False]), T.tensor([1., 2.]), np.float64(0)),
        lambda T: T.tensor([1., 2.], requires_grad=True) * np.float64(2),
    ])


# ---- tensor(), from_numpy, as_tensor: PyTorch's checks -----------------------------------------

def test_numpy_array_checks():
    for prog in [lambda T: T.from_numpy(np.arange(3.)[::-1]),
                 lambda T: T.tensor(np.arange(3.)[::-1]),
                 lambda T: T.as_tensor(np.arange(3.)[::-1]),
                 lambda T: T.from_numpy(np.arange(3, dtype=">i4")),
                 lambda T: T.tensor(np.arange(3, dtype=">i4")),
                 lambda T: T.from_numpy(np.zeros(3, dtype=[("a", "i4"), ("b", "i1")])["a"]),
                 lambda T: T.from_numpy(np.array([1, "a"], dtype=object)),
                 lambda T: T.from_numpy(np.array(["a"])),
                 lambda T: T.from_numpy(np.array([1.], dtype=np.longdouble)),
                 lambda T: T.from_numpy([1, 2])]:
        same_error(prog)
    all_alike([
        lambda T: T.from_numpy(np.arange(3, dtype=np.uint16)),
        lambda T: T.from_numpy(np.arange(3, dtype=np.uint32)),
        lambda T: T.from_numpy(np.array([2 ** 64 - 1], dtype=np.uint64)),
        lambda T: T.from_numpy(np.arange(12.).reshape(3, 4)[:, ::2]).stride(),
        lambda T: T.from_numpy(np.array(3.5)),
        lambda T: T.from_numpy(np.broadcast_to(np.arange(3.), (2, 3))).stride(),
        lambda T: T.tensor(np.arange(3, dtype=np.uint16)),
    ])
    for dtype in (np.int8, np.uint16, np.uint32, np.uint64, np.float16, np.complex64):
        alike(shared(lambda T: (lambda a: (a, T.from_numpy(a)))(np.arange(3).astype(dtype)),
                     lambda r: r.fill_(7), lambda s: s.tolist()))


def test_tensor_number_checks():
    for prog in [lambda T: T.tensor([2 ** 63]), lambda T: T.tensor(2 ** 63),
                 lambda T: T.tensor(-2 ** 63 - 1), lambda T: T.as_tensor(2 ** 63),
                 lambda T: T.tensor([1, 2 ** 63]), lambda T: T.tensor([[1], [2 ** 64]]),
                 lambda T: T.tensor([2 ** 64], dtype=T.uint64),
                 lambda T: T.tensor([-1], dtype=T.uint64),
                 lambda T: T.tensor([300], dtype=T.uint8), lambda T: T.tensor(128, dtype=T.int8),
                 lambda T: T.tensor([2 ** 40], dtype=T.int32),
                 lambda T: T.tensor([1e10], dtype=T.int32),
                 lambda T: T.tensor([float("nan")], dtype=T.int64),
                 lambda T: T.tensor([1 + 1j], dtype=T.int64),
                 lambda T: T.tensor(np.uint64(5)), lambda T: T.tensor([np.uint64(5)]),
                 lambda T: T.tensor(np.int64(5), dtype=T.uint64),
                 lambda T: T.tensor([np.int64(5)], dtype=T.uint64),
                 lambda T: T.tensor(5.0, dtype=T.uint64),
                 lambda T: T.zeros(1, dtype=T.int64).new_tensor(2 ** 63)]:
        same_error(prog)
    all_alike([
        lambda T: T.tensor([2 ** 63], dtype=T.uint64), lambda T: T.tensor([-1], dtype=T.uint8),
        lambda T: T.tensor([2 ** 63], dtype=T.float32), lambda T: T.tensor(2 ** 70),
        lambda T: T.tensor([2 ** 64], dtype=T.float64), lambda T: T.tensor([1e300], T.float32)
        if False else T.tensor([1e300], dtype=T.float32),
        lambda T: T.tensor([70000.], dtype=T.float16), lambda T: T.tensor([True, 2]),
        lambda T: T.tensor(np.uint64(5), dtype=T.float32),
        lambda T: T.tensor(np.array([2 ** 63], dtype=np.uint64)),
        lambda T: T.tensor([np.uint32(5)]),
    ])


def test_full_and_scalar_tensor_numbers():
    values = [True, 3, 3.5, 1j, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -1, -255, -256, 300, 1e10, 1e300,
              float("nan"), float("inf"), 2.5, -2.7, 2 + 0j, 2 + 1j, 65504.9, 65520., 1e39,
              np.float32(1.5), np.int32(1), np.bool_(True), np.complex64(1j),
              np.complex128(1 + 1j), np.float16(1.5), np.uint8(5), np.uint64(5),
              np.uint64(2 ** 63), np.int64(300), np.int64(2 ** 62)]
    dtypes = [None, "float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8",
              "int8", "bool", "complex64", "uint16", "uint64"]
    for v in values:
        for d in dtypes:
            def kw(T):
                return {} if d is None else {"dtype": getattr(T, d)}
            alike(lambda T: T.full((2,), v, **kw(T)))
            alike(lambda T: T.scalar_tensor(v, **kw(T)))
            alike(lambda T: T.full_like(T.zeros(2, dtype=getattr(T, d or "float32")), v))
            alike(lambda T: T.zeros(2, dtype=getattr(T, d or "float32")).new_full((2,), v))
    all_alike([
        lambda T: T.full((2,), T.tensor(3)), lambda T: T.full((2,), T.tensor(3.5, dtype=T.float64)),
        lambda T: T.full((2,), T.tensor([3.])), lambda T: T.full((2,), T.tensor(True)),
        lambda T: T.full((2,), T.tensor(1., requires_grad=True)),
        lambda T: T.full((2,), np.array(3.)), lambda T: T.full((2,), "a"),
        lambda T: T.full((2,), None), lambda T: T.full((2,), 3, requires_grad=True),
        lambda T: T.full((2,), 3., requires_grad=True), lambda T: T.full(2, 3.),
        lambda T: T.full((2,), 300, out=T.empty(2, dtype=T.uint8)),
        lambda T: T.full((2,), 1j, out=T.empty(2)),
        lambda T: T.full((2,), True, out=T.empty(2)),
        lambda T: T.full((2,), 1j, dtype=T.complex32),
        lambda T: T.scalar_tensor(T.tensor([3.])), lambda T: T.scalar_tensor(None),
        lambda T: T.scalar_tensor("a"), lambda T: T.scalar_tensor(3, layout=T.strided),
        lambda T: T.scalar_tensor(3, pin_memory=False), lambda T: T.scalar_tensor(3, out=None),
        lambda T: T.scalar_tensor(1, requires_grad=True),
        lambda T: T.scalar_tensor(1, dtype=T.int64, requires_grad=True),
        lambda T: T.full_like(T.zeros(2), "a"), lambda T: T.full_like(T.zeros(2), T.tensor(2.)),
        lambda T: T.zeros(2).new_full((2,), "a"),
    ])


# ---- empty_strided, empty_permuted, *_like layouts ---------------------------------------------

def test_strided_factories():
    def layout(t):
        return tuple(t.shape), t.stride(), str(t.dtype), t.requires_grad

    all_alike([
        lambda T: layout(T.empty_strided((2, 3), (1, 2))),
        lambda T: layout(T.empty_strided((2, 3), (3, 1), dtype=T.float64)),
        lambda T: layout(T.empty_strided((2, 3), (0, 1))),
        lambda T: layout(T.empty_strided((0, 3), (5, 1))),
        lambda T: layout(T.empty_strided((2,), (1,), requires_grad=True)),
        lambda T: layout(T.empty_strided((), ())),
        lambda T: T.empty_strided((2, 3), (1, 2)).untyped_storage().nbytes(),
        lambda T: T.empty_strided((2, 3), (10, 2)).untyped_storage().nbytes(),
        lambda T: layout(T.empty_strided((2,), (1,), layout=T.strided)),
        lambda T: layout(T.empty_permuted((2, 3, 4), (0, 2, 1))),
        lambda T: layout(T.empty_permuted((2, 3, 4), (2, 0, 1))),
        lambda T: layout(T.empty_permuted((2, 3), (1, 0), dtype=T.float64, requires_grad=True)),
        lambda T: layout(T.ones(2, dtype=T.int32).new_empty_strided((2, 3), (1, 2))),
        lambda T: layout(T.ones(2).new_empty_strided((2, 3), (1, 2), dtype=T.float64)),
    ])
    for prog in [lambda T: T.empty_strided((2, 3), (1,)),
                 lambda T: T.empty_strided((-1, 3), (1, 1)),
                 lambda T: T.empty_strided((2, 3), (-1, 1)),
                 lambda T: T.empty_strided(3, (1,)),
                 lambda T: T.empty_strided((2,), (1.0,)),
                 lambda T: T.empty_strided((2,), (1,), device="cuda"),
                 lambda T: T.empty_strided((2,), (1,), pin_memory=True),
                 lambda T: T.empty_strided((2,), (1,), out=T.empty(2)),
                 lambda T: T.empty_permuted((2, 3, 4), (0, 1)),
                 lambda T: T.empty_permuted((2, 3, 4), (0, 1, 1)),
                 lambda T: T.empty_permuted((2, 3, 4), (0, 1, 3)),
                 lambda T: T.empty_permuted((2, 3, 4), (0, 1, -1)),
                 lambda T: T.empty_permuted((2, -3, 4), (0, 1, 2)),
                 lambda T: T.empty_permuted(3, (0,))]:
        same_error(prog)


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                  "randn_like", "full_like"])
def test_like_layouts(name):
    def make(T, x, **kw):
        if name == "full_like":
            return T.full_like(x, 2, **kw)
        return getattr(T, name)(x, **kw)

    def layout(T, x, **kw):
        t = make(T, x, **kw)
        return tuple(t.shape), t.stride(), str(t.dtype)

    for source in [lambda T: T.empty(2, 3).t(), lambda T: T.empty(4, 6)[::2, ::3],
                   lambda T: T.empty(2, 3, 4, 5).permute(0, 2, 3, 1),
                   lambda T: T.empty(2, 3, 4, 5).contiguous(memory_format=T.channels_last),
                   lambda T: T.empty(2, 1, 4, 5).permute(0, 2, 3, 1),
                   lambda T: T.empty(0, 3), lambda T: T.empty(3, 1).expand(3, 4)]:
        alike(lambda T: layout(T, source(T)))
        alike(lambda T: layout(T, source(T), dtype=T.float64))
        alike(lambda T: layout(T, source(T), memory_format=T.contiguous_format))
        alike(lambda T: layout(T, source(T), memory_format=T.preserve_format))
    alike(lambda T: layout(T, T.empty(2, 3, 4, 5), memory_format=T.channels_last))
    same_error(lambda T: make(T, T.empty(2, 3), memory_format=T.channels_last))
    if name not in ("rand_like", "randn_like"):     # theirs: two overloads, another message
        same_error(lambda T: make(T, T.empty(2, 3), memory_format=3))
    if name in ("zeros_like", "ones_like", "full_like"):
        same(lambda T: make(T, T.arange(6.).reshape(2, 3).t()))


# ---- complex and polar ------------------------------------------------------------------------

def grads(T, f, *shapes, dtype="float64"):
    xs = [T.tensor(np.linspace(0.5, 2, int(np.prod(s))).reshape(s), dtype=getattr(T, dtype),
                   requires_grad=True) for s in shapes]
    r = f(*xs)
    (r.abs() ** 2).sum().backward()
    return [r] + [x.grad for x in xs]


def test_complex():
    all_alike([
        lambda T: T.complex(T.tensor([1., 2.]), T.tensor([3., 4.])),
        lambda T: T.complex(T.tensor([1., 2.], dtype=T.float64),
                            T.tensor([3., 4.], dtype=T.float64)),
        lambda T: T.complex(T.tensor([1., 2.], dtype=T.float16),
                            T.tensor([3., 4.], dtype=T.float16)).to(T.complex64),
        lambda T: T.complex(T.ones(2, 1), T.zeros(3)),
        lambda T: T.complex(T.tensor(1.), T.tensor(2.)),
        lambda T: T.complex(T.tensor([float("nan"), float("inf"), -0.0]),
                            T.tensor([-0.0, float("-inf"), float("nan")])),
        lambda T: T.complex(T.ones(0), T.ones(0)),
        lambda T: T.complex(T.ones(3, 2).t(), T.zeros(2, 3)).stride(),
        lambda T: T.complex(T.zeros(2, 3), T.ones(3, 2).t()).stride(),
        lambda T: T.complex(real=T.ones(2), imag=T.zeros(2)),
        lambda T: T.complex(T.tensor([1.]), T.tensor([2.]),
                            out=T.empty(1, dtype=T.complex64)),
        lambda T: T.complex(T.tensor([1., 2]), T.tensor([2., 3]),
                            out=T.empty(0, dtype=T.complex64)),
        lambda T: grads(T, T.complex, (3,), (3,)),
        lambda T: grads(T, T.complex, (2, 1), (3,)),
        lambda T: grads(T, T.complex, (3,), (3,), dtype="float32"),
    ])
    for prog in [lambda T: T.complex(T.tensor([1.], dtype=T.bfloat16),
                                     T.tensor([3.], dtype=T.bfloat16)),
                 lambda T: T.complex(T.tensor([1.]), T.tensor([3.], dtype=T.float64)),
                 lambda T: T.complex(T.tensor([1]), T.tensor([3])),
                 lambda T: T.complex(T.tensor([1j]), T.tensor([1j])),
                 lambda T: T.complex(T.ones(2), T.zeros(3)),
                 lambda T: T.complex(1.0, T.zeros(3)), lambda T: T.complex(T.zeros(3), 1.0),
                 lambda T: T.complex(T.tensor([1.]), T.tensor([2.]),
                                     out=T.empty(1, dtype=T.complex128)),
                 lambda T: T.complex(T.tensor([1.]), T.tensor([2.]), out=T.empty(1)),
                 lambda T: T.tensor([1.]).complex(T.tensor([1.]))]:
        same_error(prog)


def test_polar():
    angles = np.linspace(-7, 7, 50)
    all_alike([
        lambda T: T.polar(T.tensor([1., 2.], dtype=T.float64),
                          T.tensor([0.5, 3.], dtype=T.float64)),
        lambda T: T.polar(T.tensor(np.linspace(0, 5, 50)), T.tensor(angles)),
        lambda T: T.polar(T.tensor([-1.], dtype=T.float64), T.tensor([0.5], dtype=T.float64)),
        lambda T: T.polar(abs=T.ones(2), angle=T.zeros(2)),
        lambda T: T.polar(T.tensor([1.]), T.tensor([2.]), out=T.empty(1, dtype=T.complex64)),
    ])
    # float32: std::cos/std::sin in the kernel's vectorized loop; within an ulp of ours
    same(lambda T: T.polar(T.tensor(np.linspace(0, 5, 50), dtype=T.float32),
                           T.tensor(angles, dtype=T.float32)), atol=1e-6, rtol=1e-6)
    # gradients: PolarBackward0's formulas, equal up to rounding of terms that cancel
    for shapes in [((3,), (3,)), ((2, 1), (3,))]:
        same(lambda T: grads(T, T.polar, *shapes), atol=1e-12, rtol=1e-12)
        same(lambda T: grads(T, T.polar, *shapes, dtype="float32"), atol=1e-6, rtol=1e-6)
    for prog in [lambda T: T.polar(T.tensor([1.], dtype=T.float16),
                                   T.tensor([0.5], dtype=T.float16)),
                 lambda T: T.polar(T.tensor([1.]), T.tensor([0.5], dtype=T.float64)),
                 lambda T: T.polar(T.tensor([1]), T.tensor([0])),
                 lambda T: T.polar(T.ones(2), 1.0),
                 lambda T: T.polar(T.tensor([1.]), T.tensor([2.]),
                                   out=T.empty(1, dtype=T.complex128))]:
        same_error(prog)


def test_complex_polar_gradcheck():
    # through view_as_real: chainrule's gradcheck takes real outputs
    for f in (chainrule.complex, chainrule.polar):
        args = [chainrule.tensor([0.5, 1.5, 2.0], dtype=chainrule.float64, requires_grad=True),
                chainrule.tensor([0.3, -1.0, 2.5], dtype=chainrule.float64, requires_grad=True)]

        def real_view(a, b):
            return chainrule.view_as_real(f(a, b))
        assert chainrule.autograd.gradcheck(real_view, args)
        assert chainrule.autograd.gradgradcheck(real_view, args)


def test_protocol_names():
    for T in (chainrule, torch):
        t = T.arange(3.)
        assert t.__array__().tolist() == [0.0, 1.0, 2.0]
        assert isinstance(t.__array_wrap__(np.arange(2)), T.Tensor)
        assert T.Tensor.__dlpack__.__qualname__ == "Tensor.__dlpack__"
        assert T.Tensor.__dlpack_device__.__qualname__ == "Tensor.__dlpack_device__"
        assert T.utils.dlpack.DLDeviceType.kDLCPU == 1


def test_read_only_memory_is_aliased_writable():
    # PyTorch has no read-only tensors: it writes through (after its warning)
    def read_only_array(b):
        a = np.frombuffer(b, dtype=np.uint8)
        a.flags.writeable = False
        return a

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in [lambda T, b: T.from_numpy(read_only_array(b)),
                     lambda T, b: T.as_tensor(read_only_array(b)),
                     lambda T, b: T.asarray(read_only_array(b)),
                     lambda T, b: T.frombuffer(memoryview(b).toreadonly(), dtype=T.uint8),
                     lambda T, b: T.from_dlpack(read_only_array(b))]:
            alike(lambda T: (lambda b: (make(T, b).add_(1), bytes(b))[1])(bytearray(b"\x01\x02")))


def test_numpy_of_a_tensor_requiring_grad_follows_grad_mode():
    # PyTorch refuses numpy() (and __array__) only while grad mode is on
    def prog(T):
        x = T.ones(2, requires_grad=True)
        with T.no_grad():
            a = x.numpy().copy()
            b = np.asarray(x * 2).copy()
        try:
            x.numpy()
            refused = None
        except RuntimeError as e:
            refused = str(e)
        return T.tensor(a), T.tensor(b), refused
    same(prog)
