"""dtypes as PyTorch names them, the default dtype, and PyTorch's type promotion (0-d vs
dimensioned tensors vs Python numbers), compared with PyTorch."""
import copy

import pytest

import chainrule

from helpers import same, same_error


def test_default_dtype():
    def prog(T):
        out = [T.get_default_dtype()]
        T.set_default_dtype(T.float64)
        out += [T.get_default_dtype(), T.tensor([1.5]), T.tensor([1j]), T.zeros(2), T.arange(2.),
                T.ones(2, dtype=T.int64) * 1.5, T.ones(1, dtype=T.int32) * 1j, T.Tensor(2).dtype,
                T.linspace(0, 1, 3), T.eye(2), T.full((2,), 1.5)]
        T.set_default_dtype(T.float32)
        return out + [T.get_default_dtype(), T.tensor([1.5])]
    same(prog)


def test_set_default_dtype_rejects_integers():
    same_error(lambda T: T.set_default_dtype(T.int64))


def test_dtypes():
    names = ["float16", "half", "float32", "float", "float64", "double", "int8", "int16",
             "short", "int32", "int", "int64", "long", "uint8", "bool", "complex64", "cfloat",
             "complex128", "cdouble"]
    same(lambda T: [(repr(getattr(T, n)), str(getattr(T, n)), getattr(T, n).is_floating_point,
                     getattr(T, n).is_complex, getattr(T, n).is_signed, getattr(T, n).itemsize)
                    for n in names])
    assert chainrule.float is chainrule.float32 and chainrule.long is chainrule.int64
    assert chainrule.double == chainrule.float64 and chainrule.float32 != chainrule.float64
    assert copy.deepcopy(chainrule.float64) is chainrule.float64


_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
           "float64", "complex64", "complex128"]


@pytest.mark.parametrize("a", _DTYPES)
@pytest.mark.parametrize("b", _DTYPES)
def test_promote_types(a, b):
    same(lambda T: T.promote_types(getattr(T, a), getattr(T, b)))


def _promotion_operands(T):
    t = lambda dt, shape=(2,): T.ones(shape, dtype=getattr(T, dt))     # noqa: E731
    return [
        (t("float32"), 2.5), (t("float32"), 2), (t("int64"), 2.5), (t("int32"), 2),
        (t("int32"), True), (t("bool"), True), (t("bool"), 1), (t("uint8"), 7),
        (t("int8"), t("uint8")), (t("int32"), t("float64", ())), (t("float32"), t("float64", ())),
        (t("float16"), t("float32", ())), (t("int8"), t("int64", ())), (t("int64", ()), 2.5),
        (t("float64", ()), t("float32", ())), (t("int32", ()), t("int64", ())),
        (t("float32"), 1j), (t("float64"), 1j), (t("int64"), 1j), (t("float32"), t("complex128", ())),
        (t("bool", ()), 2.5), (2.5, t("int64")), (t("float16"), t("int64")),
        (t("bool"), t("float16", ())), (t("complex64"), t("float64")),
    ]


def test_type_promotion():
    same(lambda T: [T.result_type(a, b) for a, b in _promotion_operands(T)])
    same(lambda T: [(a + b, a * b, a == b) for a, b in _promotion_operands(T)])


def test_true_division_of_integers_is_float():
    same(lambda T: (T.tensor([1, 2]) / 2, T.tensor([3]) / T.tensor([2]), 1 / T.tensor([4])))
