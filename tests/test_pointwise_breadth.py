"""The breadth of the pointwise family, run on chainrule and PyTorch and compared: predicates,
IEEE helpers (copysign, frexp, ldexp, nextafter), hypot, logaddexp, fmax/fmin, gcd/lcm,
shifts, heaviside, floor_divide, float_power, addcmul/addcdiv, angles, inverse hyperbolic
functions, conj_physical and identities, in-place variants of comparisons and logical ops,
top-level in-place functions, dunders; over every dtype, with Python numbers, special
values, broadcasting, errors and warnings."""
import math

import pytest
import torch

import chainrule
from helpers import error_of, same, same_error, same_warnings, warnings_of

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]

# values every dtype can hold, with the special ones each dtype has
_VALUES = {
    "bool": [True, False, True, False, True, True, False, False],
    "uint8": [3, 4, 0, 5, 7, 1, 2, 200],
    "int": [3, -4, 0, 5, 7, -1, 2, -8],
    "float": [1.5, -2.0, 0.0, -0.0, math.nan, math.inf, -math.inf, 3.25],
    "complex": [1 + 1j, -2 + 0j, 0j, 3 - 1j, complex(math.nan, 0), complex(math.inf, 1), -0.5j,
                2.5 + 2j],
}
_OTHER = {
    "bool": [False, False, True, True, True, False, True, False],
    "uint8": [2, 3, 7, 5, 0, 9, 1, 3],
    "int": [2, 3, 7, -5, 0, 9, -2, 3],
    "float": [0.5, 2.0, -0.0, 0.0, 1.0, math.inf, 2.0, -1.25],
    "complex": [2 + 0j, 1 - 1j, 1j, 3 - 1j, 1 + 0j, 2j, -0.5j, 1 + 0j],
}


def _kind(name):
    if name in ("bool", "uint8"):
        return name
    return name.rstrip("0123456789") if name[0] in "fc" else "int"


def make(T, name, other=False):
    """A tensor of dtype `name` holding values of its kind (8 elements)."""
    values = (_OTHER if other else _VALUES)[_kind(name)]
    return T.tensor(values, dtype=getattr(T, name))


def same_or_error(prog, atol=1e-6, rtol=1e-6):
    """`prog(T)` returns the same on both libraries, or raises the same error."""
    theirs = error_of(lambda: prog(torch))
    if theirs is not None:
        return same_error(prog)
    return same(prog, atol, rtol)


def _tol(*dtypes):
    # half precision: one rounding of a value computed in float32, as PyTorch's kernels
    return 1e-3 if "float16" in dtypes else 1e-6


# ---- unary ops over every dtype -----------------------------------------------------------

UNARY = {
    "isfinite": lambda T, x: T.isfinite(x), "isnan": lambda T, x: x.isnan(),
    "isinf": lambda T, x: T.isinf(x), "isposinf": lambda T, x: T.isposinf(x),
    "isneginf": lambda T, x: x.isneginf(), "isreal": lambda T, x: T.isreal(x),
    "signbit": lambda T, x: T.signbit(x),
    "nan_to_num": lambda T, x: T.nan_to_num(x),
    "nan_to_num.args": lambda T, x: x.nan_to_num(nan=2.0, posinf=1e300, neginf=-5),
    "frexp": lambda T, x: tuple(T.frexp(x)),
    "deg2rad": lambda T, x: T.deg2rad(x), "rad2deg": lambda T, x: x.rad2deg(),
    "exp2": lambda T, x: T.exp2(x), "angle": lambda T, x: T.angle(x),
    "asinh": lambda T, x: T.asinh(x), "acosh": lambda T, x: x.acosh(),
    "atanh": lambda T, x: T.atanh(x), "arcsinh": lambda T, x: T.arcsinh(x),
    "arccosh": lambda T, x: T.arccosh(x), "arctanh": lambda T, x: x.arctanh(),
    "conj_physical": lambda T, x: T.conj_physical(x), "positive": lambda T, x: T.positive(x),
    "pos": lambda T, x: +x,
    "resolve_conj": lambda T, x: T.resolve_conj(x), "resolve_neg": lambda T, x: x.resolve_neg(),
    "is_conj": lambda T, x: (T.is_conj(x), x.is_conj()),
    "is_neg": lambda T, x: (T.is_neg(x), x.is_neg()),
    "bitwise_not": lambda T, x: T.bitwise_not(x), "invert": lambda T, x: ~x,
    "logical_not": lambda T, x: T.logical_not(x),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_dtypes(name, dtype):
    same_or_error(lambda T: UNARY[name](T, make(T, dtype)), rtol=_tol(dtype), atol=_tol(dtype))


UNARY_INPLACE = ["nan_to_num_", "deg2rad_", "rad2deg_", "exp2_", "asinh_", "acosh_", "atanh_",
                 "arcsinh_", "arccosh_", "arctanh_", "conj_physical_", "bitwise_not_",
                 "logical_not_"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", UNARY_INPLACE)
def test_unary_inplace_dtypes(method, dtype):
    def prog(T):
        x = make(T, dtype)
        before = x._version
        y = getattr(x, method)()
        return x, y is x, x._version - before
    same_or_error(prog, rtol=_tol(dtype), atol=_tol(dtype))


# ---- binary ops over dtype pairs and Python numbers ---------------------------------------

BINARY = {
    "copysign": lambda T, a, b: T.copysign(a, b), "hypot": lambda T, a, b: T.hypot(a, b),
    "logaddexp": lambda T, a, b: T.logaddexp(a, b), "logaddexp2": lambda T, a, b: a.logaddexp2(b),
    "float_power": lambda T, a, b: T.float_power(a, b),
    "floor_divide": lambda T, a, b: T.floor_divide(a, b), "floordiv": lambda T, a, b: a // b,
    "rfloordiv": lambda T, a, b: b // a,
    "gcd": lambda T, a, b: T.gcd(a, b), "lcm": lambda T, a, b: a.lcm(b),
    "lshift": lambda T, a, b: T.bitwise_left_shift(a, b), "rshift": lambda T, a, b: a >> b,
    "rlshift": lambda T, a, b: b << a,
    "heaviside": lambda T, a, b: T.heaviside(a, b), "ldexp": lambda T, a, b: T.ldexp(a, b),
    "nextafter": lambda T, a, b: T.nextafter(a, b),
    "fmax": lambda T, a, b: T.fmax(a, b), "fmin": lambda T, a, b: a.fmin(b),
    "isclose": lambda T, a, b: T.isclose(a, b),
    "isclose.equal_nan": lambda T, a, b: a.isclose(b, rtol=0.1, atol=0.5, equal_nan=True),
    "allclose": lambda T, a, b: (T.allclose(a, b), a.allclose(a, equal_nan=True)),
    "equal": lambda T, a, b: (T.equal(a, b), a.equal(a), T.equal(a, a.clone())),
    "bitwise_and": lambda T, a, b: a & b, "bitwise_or": lambda T, a, b: T.bitwise_or(a, b),
    "bitwise_xor": lambda T, a, b: b ^ a,
    "logical_and": lambda T, a, b: T.logical_and(a, b), "logical_xor": lambda T, a, b: a.logical_xor(b),
    "lt": lambda T, a, b: a < b, "ge": lambda T, a, b: T.ge(a, b), "eq": lambda T, a, b: a == b,
    "remainder": lambda T, a, b: T.remainder(a, b),
    "addcmul": lambda T, a, b: T.addcmul(a, b, a, value=2),
    "addcdiv": lambda T, a, b: T.addcdiv(a, a, b, value=2),
}

PAIRS = [(d, d) for d in DTYPES] + [
    ("int64", "float32"), ("float32", "int64"), ("float32", "float64"), ("float16", "float32"),
    ("bool", "int64"), ("uint8", "int8"), ("int8", "int64"), ("float64", "complex64"),
    ("complex64", "float32"), ("int32", "bool"), ("float16", "int64")]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_dtypes(name, pair):
    same_or_error(lambda T: BINARY[name](T, make(T, pair[0]), make(T, pair[1], other=True)),
                  rtol=_tol(*pair), atol=_tol(*pair))


NUMBERS = [2, -3, 2.5, -0.0, True, 1j, 70]
# function forms: a method's TypeError counts `other` as position 1, which the generated
# methods do not yet tell apart from functions (see the report)
_FUNCTION_FORMS = {
    "logaddexp2": lambda T, a, b: T.logaddexp2(a, b), "lcm": lambda T, a, b: T.lcm(a, b),
    "fmin": lambda T, a, b: T.fmin(a, b), "logical_xor": lambda T, a, b: T.logical_xor(a, b)}


@pytest.mark.parametrize("number", NUMBERS, ids=[repr(n) for n in NUMBERS])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float32", "complex64"])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_with_number(name, dtype, number):
    """Python numbers on either side (the Scalar overloads, or PyTorch's TypeError)."""
    if dtype == "uint8" and number == -3 or dtype == "float16" and number == 1j:
        pytest.skip("a negative number wrapped into uint8, and float16 with a complex number "
                    "(complex32), are the dispatcher's (see the report)")
    f = _FUNCTION_FORMS.get(name, BINARY[name])
    tol = _tol(dtype)
    same_or_error(lambda T: f(T, make(T, dtype), number), rtol=tol, atol=tol)
    same_or_error(lambda T: f(T, number, make(T, dtype)), rtol=tol, atol=tol)


def test_method_type_errors_count_other_first():
    for name in ("isclose", "allclose", "equal"):
        same_error(lambda T: getattr(T.ones(2), name)(1.0))
    for name in ("hypot_", "nextafter_", "gcd_", "logical_and_", "ldexp_", "heaviside_"):
        same_error(lambda T: getattr(T.ones(2), name)(2))


BINARY_INPLACE = ["copysign_", "hypot_", "float_power_", "floor_divide_", "gcd_", "lcm_",
                  "bitwise_left_shift_", "bitwise_right_shift_", "heaviside_", "ldexp_",
                  "nextafter_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "logical_and_",
                  "logical_or_", "logical_xor_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_",
                  "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_",
                  "multiply_", "subtract_", "__ifloordiv__", "__ilshift__", "__irshift__",
                  "__iand__", "__ior__", "__ixor__", "__idiv__", "__imod__"]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
@pytest.mark.parametrize("method", BINARY_INPLACE)
def test_binary_inplace_dtypes(method, pair):
    def prog(T):
        x = make(T, pair[0])
        before = x._version
        y = getattr(x, method)(make(T, pair[1], other=True))
        return x, y is x, x._version - before
    same_or_error(prog, rtol=_tol(*pair), atol=_tol(*pair))


@pytest.mark.parametrize("number", NUMBERS, ids=[repr(n) for n in NUMBERS])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("method", BINARY_INPLACE)
def test_binary_inplace_with_number(method, dtype, number):
    def prog(T):
        x = make(T, dtype)
        y = getattr(x, method)(number)
        return x, y is x
    same_or_error(prog)


def test_negative_and_wide_shifts():
    def prog(T):
        out = []
        for dt in ("uint8", "int8", "int16", "int32", "int64"):
            a = T.tensor([1, 5, 100, 7, 3, 1], dtype=getattr(T, dt))
            s = T.tensor([-1, 0, 7, 8, 63, 200 if dt == "uint8" else -100], dtype=getattr(T, dt))
            out += [a << s, a >> s, (-a if dt != "uint8" else a) >> s, a << 7, a >> 9]
        return out
    same(prog)


def test_shift_scalar_first_and_promotion():
    same(lambda T: (2 << T.tensor([0, 3, 62]), 1024 >> T.tensor([1, 2, 70]),
                    T.bitwise_left_shift(3, T.tensor([1, 2], dtype=T.int8)),
                    T.tensor([1, 2], dtype=T.int8) << T.tensor(1),
                    T.tensor([1, 2], dtype=T.int8) << T.tensor([1, 2])))


# ---- predicates, closeness, equality ------------------------------------------------------

def test_isclose_rules():
    same(lambda T: (
        T.isclose(T.tensor([1.0, 1.0 + 1e-6, 2.0, math.nan]), T.tensor([1.0, 1.0, 2.1, math.nan])),
        T.isclose(T.tensor([1, 2, 3]), T.tensor([2, 2, 5]), rtol=0, atol=1),
        T.isclose(T.tensor([1, 2, 3]), T.tensor([2, 2, 5]), rtol=0.5, atol=0),
        T.isclose(T.tensor([1, 2]), T.tensor([1, 3]), rtol=0, atol=0),
        T.isclose(T.tensor([True, False]), T.tensor([False, False]), atol=1),
        T.isclose(T.tensor([1e20], dtype=T.float64), T.tensor([1e20 + 1e10], dtype=T.float64)),
        T.isclose(T.tensor([[1.0], [2.0]]), T.tensor([1.0, 1.5]), rtol=0.3),
        T.isclose(T.tensor(math.inf), T.tensor(math.inf)),
        T.isclose(T.tensor([1 + 1j, complex(math.nan, 0)]), T.tensor([1 + 1.001j, math.nan]),
                  rtol=0.01, equal_nan=True),
        T.isclose(T.tensor([1.0, 2.0], dtype=T.float16), T.tensor([1.001, 2.01], dtype=T.float16),
                  rtol=1e-3),
    ))


@pytest.mark.parametrize("prog", [
    lambda T: T.isclose(T.tensor([1]), T.tensor([1.0])),
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64)),
    lambda T: T.isclose(T.tensor([1.0]), 1.0),
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), rtol=-1e-5),
    lambda T: T.isclose(T.tensor([1.0]), T.tensor([1.0]), atol=-0.12345678),
    lambda T: T.isclose(T.ones(3), T.ones(2)),
    lambda T: T.allclose(T.tensor([1]), T.tensor([1.0])),
    lambda T: T.allclose(T.ones(3), T.ones(2)),
    lambda T: T.equal(T.ones(3), 1),
    lambda T: T.isnan(3.0),
    lambda T: T.isposinf(T.tensor([1j])),
    lambda T: T.signbit(T.tensor([1j])),
], ids=["dtypes", "float-double", "number", "rtol", "atol", "broadcast", "allclose-dtypes",
        "allclose-broadcast", "equal-number", "isnan-number", "isposinf-complex",
        "signbit-complex"])
def test_predicate_errors(prog):
    same_error(prog)


def test_allclose_and_equal_are_python_bools():
    def prog(T):
        x = T.tensor([1.0, 2.0, math.nan])
        results = (T.allclose(x, x), T.allclose(x, x, equal_nan=True),
                   T.allclose(x[:1], x[:2] + 1e-9), x.allclose(x + 1, atol=1.0, equal_nan=True),
                   T.equal(x, x), T.equal(x[:2], x[:2].clone()), T.equal(x[:1], x[:2]),
                   T.equal(T.tensor([1, 2]), T.tensor([1.0, 2.0])),
                   T.equal(T.ones(2, 1), T.ones(1, 2)), T.equal(T.tensor([]), T.tensor([])))
        assert all(type(r) is bool for r in results)
        return results
    same(prog)


def test_predicates_do_not_record():
    same(lambda T: [f(T.tensor([1.0, math.nan], requires_grad=True))
                    for f in (T.isnan, T.isfinite, T.isinf, T.isposinf, T.isneginf, T.signbit,
                              T.isreal)])


def test_predicates_have_no_out():
    for name in ("isfinite", "isnan", "isinf", "isreal", "isclose"):
        same_error(lambda T: getattr(T, name)(T.ones(2), T.ones(2), out=T.ones(2)) if name ==
                   "isclose" else getattr(T, name)(T.ones(2), out=T.ones(2, dtype=T.bool)))


def test_out_variants():
    def prog(T):
        x, y = T.tensor([1.5, -2.0, 0.25]), T.tensor([-1.0, 3.0, 2.0])
        outs = [T.empty(3) for _ in range(12)]
        T.copysign(x, y, out=outs[0])
        T.hypot(x, y, out=outs[1])
        T.logaddexp(x, y, out=outs[2])
        T.fmax(x, y, out=outs[3])
        T.nextafter(x, y, out=outs[4])
        T.exp2(x, out=outs[5])
        T.deg2rad(x, out=outs[6])
        T.angle(x, out=outs[7])
        T.asinh(x, out=outs[8])
        T.addcmul(x, x, y, value=2, out=outs[9])
        T.nan_to_num(x, out=outs[10])
        T.ldexp(x, T.tensor([1, 2, 3]), out=outs[11])
        ints = T.empty(3, dtype=T.int64)
        T.gcd(T.tensor([4, 6, 9]), T.tensor([6, 4, 3]), out=ints)
        bools = T.empty(3, dtype=T.bool)
        T.signbit(x, out=bools)
        m, e = T.empty(3), T.empty(3, dtype=T.int32)
        T.frexp(x, out=(m, e))
        f64 = T.empty(3, dtype=T.float64)
        T.float_power(x, 2, out=f64)
        return outs, ints, bools, m, e, f64
    same(prog)


# ---- nan_to_num ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_nan_to_num_defaults_per_dtype(dtype):
    def prog(T):
        values = [math.nan, math.inf, -math.inf, 1.0, -0.0]
        if dtype.startswith("complex"):
            values = [complex(r, i) for r, i in zip(values, [math.inf, math.nan, 1.0, -math.inf,
                                                              math.nan])]
        x = T.tensor(values, dtype=getattr(T, dtype))
        return (T.nan_to_num(x), T.nan_to_num(x, nan=None), x.nan_to_num(1.0, 2.0, -3.0),
                T.nan_to_num(x, posinf=1e300, neginf=-1e300))
    same(prog)


def test_nan_to_num_gradient_and_inplace():
    def prog(T):
        x = T.tensor([1.0, math.nan, math.inf, -math.inf, 2.0], requires_grad=True)
        y = x * 1
        before = y._version
        y.nan_to_num_(nan=0.5)
        (y * T.arange(5.0)).sum().backward()
        return y, x.grad, y._version - before, y.grad_fn
    same(prog)


# ---- IEEE helpers --------------------------------------------------------------------------

def test_copysign_gradients_at_zero():
    def prog(T):
        x = T.tensor([0.0, -0.0, 2.0, -3.0, math.inf], requires_grad=True)
        y = T.tensor([-1.0, 1.0, -0.0, 2.0, -1.0], requires_grad=True)
        r = T.copysign(x, y)
        r.sum().backward()
        s = T.copysign(x, -2.0)
        return r, s, x.grad, y.grad, r.grad_fn, s.grad_fn, r.grad_fn.next_functions
    same(prog)


def test_frexp_and_ldexp():
    def prog(T):
        x = T.tensor([1.5, -3.0, 0.0, 1e-40, math.inf, math.nan, 6e4], requires_grad=True)
        m, e = T.frexp(x)
        saved = m.grad_fn._saved_exponent
        back = T.ldexp(m, e)
        (m * T.arange(7.0)).sum().backward()
        h = T.frexp(x.detach().half())
        return (m, e, back, x.grad, m.grad_fn, e.grad_fn, type(T.frexp(x)).__name__, h.mantissa,
                h.exponent, saved)
    same(prog)


def test_ldexp_exponents():
    def prog(T):
        x = T.tensor([1.5, -2.0, 1e-30])
        return (T.ldexp(x, T.tensor([1100, -1100, 150])),
                T.ldexp(x, T.tensor([2 ** 32 + 3, 2 ** 40, -(2 ** 40)])),
                T.ldexp(x, T.tensor([3.5, -1.0, 150.0])),
                T.ldexp(x.half(), T.tensor([-20, 3, 1])),
                T.ldexp(T.tensor([1, 2, 3]), T.tensor([3, -1, 0])),
                T.ldexp(x.double(), T.tensor([3, 2, 1], dtype=T.int8)),
                T.ldexp(x + 1j, T.tensor([3, 1, 0])))
    same(prog)


def test_ldexp_warns_as_pytorch_when_input_broadcasts():
    same_warnings(lambda T: T.ldexp(T.tensor([1.5]), T.tensor([3, 4])))
    same_warnings(lambda T: T.ldexp(T.tensor([[1.5], [2.0]]), T.tensor([3, 4])))
    for prog in (lambda T: T.ldexp(T.tensor([1.5, 2.0]), T.tensor(3)),
                 lambda T: T.ldexp(T.tensor([1.5]), T.tensor([3.0, 4.0])),
                 lambda T: T.ldexp(T.tensor([1, 2]), T.tensor([[3], [4]]))):
        assert warnings_of(lambda: prog(torch)) == warnings_of(lambda: prog(chainrule)) == []


def test_ldexp_errors():
    same_error(lambda T: T.ldexp(T.tensor([1.5]), 2))
    same_error(lambda T: T.ldexp(T.tensor([1.5]), T.tensor([True])))
    same_error(lambda T: T.tensor([1, 2]).ldexp_(T.tensor([3, 4])))
    same_error(lambda T: T.tensor([1.5]).ldexp_(T.tensor([3, 4])))


def test_nextafter_gradient():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([1.0, 5.0, -3.0], dtype=T.float64, requires_grad=True)
        r = T.nextafter(x, y)
        r.sum().backward()
        z = T.nextafter(x, T.tensor(0.0, dtype=T.float64))
        return r, x.grad, y.grad, r.grad_fn, z.grad_fn.next_functions
    same(prog)


def test_fmax_fmin_gradients_ties_and_nan():
    def prog(T):
        x = T.tensor([1.0, math.nan, 2.0, math.nan, 0.0, 5.0], requires_grad=True)
        y = T.tensor([1.0, 2.0, math.nan, math.nan, -0.0, 3.0], requires_grad=True)
        g = T.autograd.grad((T.fmax(x, y) + 2 * T.fmin(x, y)).sum(), (x, y))
        return T.fmax(x, y), T.fmin(x, y), g
    same(prog)


# ---- ops whose derivative PyTorch does not implement --------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T, x, y: T.floor_divide(x, y), lambda T, x, y: x // 2, lambda T, x, y: 2 // x,
    lambda T, x, y: y // x, lambda T, x, y: T.heaviside(x, y), lambda T, x, y: 3 % x,
    lambda T, x, y: T.remainder(2.5, x), lambda T, x, y: (x * 1).floor_divide_(y),
    lambda T, x, y: (x * 1).heaviside_(y), lambda T, x, y: y.clone().floor_divide_(x),
], ids=["floor_divide", "floordiv", "rfloordiv", "other", "heaviside", "rmod", "remainder",
        "floor_divide_", "heaviside_", "floor_divide_other"])
def test_not_implemented_nodes(prog):
    def run(T):
        x = T.tensor([1.5, -2.5, 3.0], requires_grad=True)
        y = T.tensor([0.5, 2.0, -1.0])
        r = prog(T, x, y)
        return r, r.grad_fn, r.grad_fn.next_functions, r.grad_fn.name()
    same(run)
    same_error(lambda T: prog(T, T.tensor([1.5, -2.5, 3.0], requires_grad=True),
                              T.tensor([0.5, 2.0, -1.0])).sum().backward())


def test_inplace_inverse_hyperbolic_backward_raises():
    for method in ("asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_", "arctanh_"):
        def prog(T):
            x = T.tensor([0.25, 0.5], requires_grad=True)
            y = (x * 3 if "cosh" in method else x * 1)
            getattr(y, method)()
            return y, y.grad_fn
        same(prog)
        same_error(lambda T: getattr(T.tensor([0.25, 0.5], requires_grad=True) * (
            3 if "cosh" in method else 1), method)().sum().backward())


# ---- float_power --------------------------------------------------------------------------

def test_float_power_dtypes_and_graph():
    def prog(T):
        x = T.tensor([1.5, 2.0, 0.5], requires_grad=True)
        a = T.float_power(x, 2)
        b = T.float_power(x, T.tensor([1, 2, 3]))
        c = T.float_power(2, x)
        d = T.float_power(T.tensor([1, 2, 3]), 0.5)
        e = T.float_power(x, 1j)
        f = x.float_power(T.tensor([1j, 2, 0]))
        (a.sum() + b.sum() + c.sum()).backward()
        return (a, b, c, d, e, f, x.grad, a.grad_fn.next_functions, b.grad_fn.next_functions,
                c.grad_fn.next_functions, a.grad_fn._saved_exponent)
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1.0]).float_power_(2),
    lambda T: T.tensor([1.0], dtype=T.float64).float_power_(2j),
    lambda T: T.tensor([1.0], dtype=T.float64).float_power_(T.tensor([2j])),
    lambda T: T.tensor([1]).float_power_(T.tensor([2.0])),
    lambda T: T.float_power(2, 3),
])
def test_float_power_errors(prog):
    same_error(prog)


def test_float_power_inplace():
    def prog(T):
        x = T.tensor([1.5, 2.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        y.float_power_(T.tensor([2, 3]))
        z = (x * 1).float_power_(0.5)
        (y.sum() + z.sum()).backward()
        c = T.tensor([1 + 1j], dtype=T.complex128).float_power_(2)
        return y, z, c, x.grad, y.grad_fn, z.grad_fn, y.grad_fn.next_functions
    same(prog)


# ---- addcmul and addcdiv ------------------------------------------------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.addcdiv(T.tensor([1]), T.tensor([1]), T.tensor([2])),
    lambda T: T.addcdiv(T.tensor([1.0]), T.tensor([1]), T.tensor([True])),
    lambda T: T.tensor([1.0]).addcdiv_(T.tensor([1]), T.tensor([2])),
    lambda T: T.addcmul(T.tensor([True]), T.tensor([True]), T.tensor([True])),
    lambda T: T.addcmul(T.tensor([1.0]), T.tensor([1.0]), T.tensor([1.0]), value=1j),
    lambda T: T.addcmul(T.tensor([1.0]), T.tensor([1.0]), T.tensor([1.0]), 2),
    lambda T: T.addcmul(T.ones(3), T.ones(2), T.ones(3)),
    lambda T: T.tensor([1]).addcmul_(T.tensor([1.0]), T.tensor([1.0])),
    lambda T: T.ones(1).addcmul_(T.ones(3), T.ones(3)),
], ids=["int-div", "int-bool-div", "int-div_", "bool", "complex-value", "positional-value",
        "broadcast", "cast", "inplace-broadcast"])
def test_addc_errors(prog):
    same_error(prog)


def test_addc_values_and_gradients():
    def prog(T):
        a = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        b = T.tensor([[0.5], [2.0]], requires_grad=True)
        c = T.tensor([3.0, -1.0, 4.0], requires_grad=True)
        r = T.addcmul(a, b, c, value=-1.5) + T.addcdiv(a, b, c, value=0.25)
        r.sum().backward()
        i = T.tensor([3, -4, 5])
        return (r, a.grad, b.grad, c.grad, r.grad_fn.next_functions,
                T.addcmul(i, i, i, value=2.5), T.addcmul(i, i, i, value=True),
                T.addcdiv(i, T.tensor([1.0, 2.0, 0.0]), T.tensor([2.0, 0.0, 0.0])),
                T.addcmul(a.detach().half(), b.detach().half(), c.detach().half(), value=0.1))
    same(prog, atol=1e-3, rtol=1e-3)


# ---- identities and conjugation ------------------------------------------------------------

def test_identities_return_their_input():
    def prog(T):
        x = T.tensor([1.0, -2.0], requires_grad=True)
        i = T.tensor([1, 2])
        c = T.tensor([1 + 2j])
        return (T.positive(x) is x, +x is x, T.resolve_conj(x) is x, x.resolve_neg() is x,
                T.conj_physical(x) is x, i.conj_physical_() is i, T.conj_physical(c),
                T.is_conj(c), x.is_neg())
    same(prog)


def test_conj_physical_inplace():
    def prog(T):
        x = T.tensor([1 + 2j, -3j], requires_grad=True)
        y = x * 1
        before = y._version
        y.conj_physical_()
        z = T.conj_physical_(x.detach().clone())
        return y, z, y.grad_fn, y.grad_fn.next_functions, y._version - before
    same(prog)


def test_angle_complex_gradient():
    def prog(T):
        z = T.tensor([1 + 2j, -0.5 + 0.1j, 0j, -3 + 0j], requires_grad=True)
        a = T.angle(z)
        (a * T.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return a, z.grad, a.grad_fn
    same(prog)


# ---- in-place comparisons and logical ops -------------------------------------------------

def test_inplace_comparison_records_zero_gradients():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = T.tensor([2.0, 2.0, 2.0], requires_grad=True)
        y = x * 1
        y.lt_(w)
        z = x * 1
        z.ge_(2.5)
        (y * x).sum().backward()
        (z * x).sum().backward()
        return y, z, x.grad, w.grad, y.grad_fn, z.grad_fn, y.grad_fn.next_functions
    same(prog)


def test_inplace_comparison_on_leaf_requiring_grad_is_refused():
    same_error(lambda T: T.ones(2, requires_grad=True).eq_(T.ones(2)))
    same_error(lambda T: T.ones(2, requires_grad=True).gt_(0.5))
    same_error(lambda T: T.ones(2, 1).eq_(T.ones(3)))
    same_error(lambda T: T.ones(2).eq_(T.ones(3)))


def test_inplace_logical_ops_do_not_record():
    def prog(T):
        x = T.tensor([1.0, 0.0, 3.0], requires_grad=True)
        y = x * 1
        y.logical_and_(T.tensor([1.0, 1.0, 0.0]))
        x.logical_not_()        # not recorded: allowed even on a leaf that requires grad
        return y, y.grad_fn, x, x.grad_fn, x.requires_grad, x._version
    same(prog)


def test_logical_ops_take_tensors_only():
    same_error(lambda T: T.logical_and(T.ones(2), 1))
    same_error(lambda T: T.ones(2).logical_or_(1.0))
    same_error(lambda T: T.logical_xor(T.ones(2), True))


def test_comparisons_of_complex_tensors():
    for op in ("lt", "le", "gt", "ge"):
        same_error(lambda T: getattr(T, op)(T.tensor([1j]), T.tensor([2j])))
        same_error(lambda T: getattr(T, op)(T.tensor([1j]), 1))
    same(lambda T: (T.tensor([1j, 2]) == T.tensor([1j, 3]), T.ne(T.tensor([1j]), 1j)))


# ---- in-place variants: version counter, grad_fn, views, leaf errors ----------------------

INPLACE_FLOAT = {
    "copysign_": lambda x: x.copysign_(-1.0), "hypot_": lambda x: x.hypot_(x.detach()),
    "nan_to_num_": lambda x: x.nan_to_num_(), "deg2rad_": lambda x: x.deg2rad_(),
    "rad2deg_": lambda x: x.rad2deg_(), "exp2_": lambda x: x.exp2_(),
    "ldexp_": lambda x: x.ldexp_(chainrule_or_torch_int(x)),
    "addcmul_": lambda x: x.addcmul_(x.detach(), x.detach(), value=0.5),
    "addcdiv_": lambda x: x.addcdiv_(x.detach(), x.detach() + 3),
    "nextafter_": lambda x: x.nextafter_(x.detach() + 1),
    "float_power_": lambda x: x.float_power_(2),
    "eq_": lambda x: x.eq_(0.5), "ne_": lambda x: x.ne_(x.detach()),
}


def chainrule_or_torch_int(x):
    lib = torch if isinstance(x, torch.Tensor) else chainrule
    return lib.tensor([1, 2, 3])


@pytest.mark.parametrize("name", list(INPLACE_FLOAT))
def test_inplace_variants(name):
    f = INPLACE_FLOAT[name]

    def prog(T):
        x = T.tensor([0.25, 0.5, 0.75], dtype=T.float64, requires_grad=True)
        y = x * 2
        before = y._version
        r = f(y)
        (y * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum().backward()
        return r is y, y, y._version - before, y.grad_fn, y.grad_fn.next_functions, x.grad
    same(prog)
    same_error(lambda T: f(T.tensor([0.25, 0.5, 0.75], dtype=T.float64, requires_grad=True)))

    def view(T):
        x = T.tensor([[0.25, 0.5, 0.75], [1.0, 1.25, 1.5]], dtype=T.float64, requires_grad=True)
        b = x * 1
        f(b[1])
        (b * b).sum().backward()
        return b, b.grad_fn, x.grad, b._version
    same(view)


def test_inplace_saved_tensor_is_stale():
    same_error(lambda T: _stale(T))


def _stale(T):
    x = T.tensor([0.5, 1.5], requires_grad=True)
    y = x * 1
    z = T.hypot(y, T.tensor([1.0, 2.0]))
    y.copysign_(-1.0)
    z.sum().backward()


# ---- top-level in-place functions ---------------------------------------------------------

TOP_LEVEL_INPLACE = {
    "abs_": (), "acos_": (), "acosh_": (), "arccos_": (), "arccosh_": (), "arcsin_": (),
    "arcsinh_": (), "arctan_": (), "arctanh_": (), "asin_": (), "asinh_": (), "atan_": (),
    "atanh_": (), "ceil_": (), "clamp_": (0.3, 0.6), "clamp_max_": (0.4,), "clamp_min_": (0.4,),
    "clip_": (0.3, 0.6), "conj_physical_": (), "cos_": (), "cosh_": (), "deg2rad_": (),
    "erf_": (), "erfc_": (), "exp2_": (), "exp_": (), "expm1_": (), "fill_": (2.5,), "fix_": (),
    "floor_": (), "frac_": (), "log10_": (), "log1p_": (), "log2_": (), "log_": (),
    "nan_to_num_": (), "neg_": (), "negative_": (), "rad2deg_": (), "reciprocal_": (),
    "relu_": (), "round_": (), "rsqrt_": (), "sigmoid_": (), "sin_": (), "sinh_": (),
    "sqrt_": (), "square_": (), "tan_": (), "tanh_": (), "trunc_": (), "zero_": (),
}


@pytest.mark.parametrize("name", list(TOP_LEVEL_INPLACE))
def test_top_level_inplace_functions(name):
    args = TOP_LEVEL_INPLACE[name]

    def prog(T):
        x = T.tensor([0.2, 0.5, -0.7, 1.6])
        if "cosh" in name:
            x = x.abs() + 1
        r = getattr(T, name)(x, *args)
        s = T.tensor([0.3, 0.9]) + ("cosh" in name)
        if not args:
            getattr(T, name)(input=s)
        y = T.tensor([0.4, 0.8], requires_grad=True) * 1
        getattr(T, name)(y, *args)
        return r is x, x, s, x._version, y.grad_fn
    same(prog, atol=1e-6, rtol=1e-6)


def test_top_level_integer_inplace_functions():
    def prog(T):
        a, b = T.tensor([4, 6, -9]), T.tensor([6, 4, 3])
        T.gcd_(a, b)
        c = T.tensor([4, 6, -9])
        T.lcm_(c, b)
        d = T.tensor([1.5, 2.0])
        T.ldexp_(d, T.tensor([1, -1]))
        return a, c, d, T.round_(T.tensor([1.25, 2.5]), decimals=1)
    same(prog)


def test_top_level_inplace_errors():
    same_error(lambda T: T.abs_(T.ones(2, requires_grad=True)))
    same_error(lambda T: T.sqrt_(T.tensor([1, 2])))
    same_error(lambda T: T.gcd_(T.tensor([1.0]), T.tensor([2.0])))


# ---- fill ----------------------------------------------------------------------------------

def test_fill_out_of_place():
    def prog(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        v = T.tensor(3.0, requires_grad=True)
        a = T.fill(x, 2)
        b = T.fill(x, v)
        c = T.fill(input=T.tensor([1, 2]), value=7)
        (a.sum() + b.sum()).backward()
        return a, b, c, x.grad, v.grad, a.grad_fn, b.grad_fn.next_functions
    same(prog)
    same_error(lambda T: T.fill(T.ones(2), T.ones(2)))
    same_error(lambda T: T.fill(T.ones(2, dtype=T.int8), 300))


# ---- dunders ------------------------------------------------------------------------------

def test_dunders():
    def prog(T):
        i = T.tensor([7, -7, 5])
        f = T.tensor([7.5, -7.5, 5.0])
        j = i.clone()
        j //= 2
        k = i.clone()
        k <<= 2
        m = i.clone()
        m >>= 1
        n = i.clone()
        n &= 6
        n |= 1
        n ^= T.tensor(3)
        g = f.clone()
        g //= 2
        h = f.clone()
        h.__idiv__(4)
        return (i // 2, 17 // i, f // -2, 9.5 // f, i << 1, 1 << T.tensor([0, 3]), i >> 1,
                256 >> T.tensor([1, 4]), 3 % i, 3.5 % i, +i, i.__div__(2), j, k, m, n, g, h,
                3 & i, 6 | i, 5 ^ i)
    same(prog)


def test_dunder_errors():
    same_error(lambda T: T.tensor([1.0]) << 1)
    same_error(lambda T: T.tensor([1]) >> 1.5)
    same_error(lambda T: +T.tensor([True]))
    same_error(lambda T: T.tensor([1, 2]) // 0)
    same_error(lambda T: T.tensor([True]) // T.tensor([True]))
    same_error(lambda T: T.tensor([1]).__idiv__(2))
    same_error(lambda T: T.tensor([1.0]).__iand__(1))


# ---- special values, broadcasting, empty and 0-d ------------------------------------------

def test_special_values():
    def prog(T):
        x = T.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e308, 5e-324],
                     dtype=T.float64)
        y = T.tensor([math.inf, 1.0, 0.0, -0.0, 0.0, 1e308, -5e-324], dtype=T.float64)
        return (T.hypot(x, y), T.logaddexp(x, y), T.logaddexp2(x, y), T.copysign(x, y),
                T.nextafter(x, y), T.fmax(x, y), T.fmin(x, y), T.heaviside(x, y),
                T.floor_divide(x, y), T.exp2(x), T.deg2rad(x), T.angle(x), T.asinh(x),
                T.atanh(x), T.acosh(x), T.signbit(x), T.isposinf(x), T.isneginf(x))
    same(prog)


def test_complex_values():
    def prog(T):
        z = T.tensor([1 + 1j, -2 + 0.5j, 0j, complex(math.inf, 0), complex(0, math.nan),
                      complex(-math.inf, 1), 3 - 4j])
        w = T.tensor([2 - 1j, complex(math.inf, 0), 1j, complex(math.inf, 0), 1 + 0j,
                      complex(-math.inf, 2), 0.5 + 0j])
        return (T.logaddexp(z, w), T.exp2(z), T.asinh(z), T.acosh(z), T.atanh(z), T.angle(z),
                T.isfinite(z), T.isinf(z), T.isnan(z), T.isreal(z), T.nan_to_num(z),
                T.ldexp(z, T.tensor(2)))
    same(prog, atol=1e-5, rtol=1e-5)


def test_empty_and_zero_dim():
    def prog(T):
        e = T.tensor([])
        s = T.tensor(2.5)
        return (T.hypot(e, e), T.frexp(e), T.isclose(e, e), T.allclose(e, e), T.equal(e, e),
                T.copysign(s, -1), T.ldexp(s, T.tensor(3)), T.frexp(s), T.nan_to_num(s),
                T.logaddexp(s, e), T.gcd(T.tensor(4), T.tensor([6, 8])))
    same(prog)


@pytest.mark.parametrize("name", ["copysign", "hypot", "logaddexp", "logaddexp2", "nextafter",
                                  "fmax", "fmin", "heaviside", "ldexp", "floor_divide",
                                  "float_power", "isclose"])
def test_broadcast_errors(name):
    same_error(lambda T: getattr(T, name)(T.ones(2, 3), T.ones(4)))


def test_noncontiguous_inputs():
    def prog(T):
        x = T.arange(12.0).reshape(3, 4).t() - 5
        y = T.arange(12.0).reshape(4, 3) / 7
        return (T.hypot(x, y), T.copysign(x, y), T.logaddexp(x, y), T.fmax(x, y[:, :1]),
                T.frexp(x), T.ldexp(x, T.tensor([1, 2, 3])), T.nan_to_num(x / 0))
    same(prog)


# ---- real and imag --------------------------------------------------------------------------

def _graph(fn, depth=3):
    if fn is None or depth == 0:
        return None if fn is None else fn.name()
    return (fn.name(), tuple(_graph(f, depth - 1) for f, _ in fn.next_functions))


def test_real_imag_are_views_with_pytorchs_graph():
    def prog(T):
        x = T.tensor([1 + 2j, -3 + 0.5j], requires_grad=True)
        r, i = x.real, T.imag(x)
        (r * 2 + i * 3).sum().backward()
        return (r, i, _graph(r.grad_fn), _graph(i.grad_fn), x.grad, r._base is x,
                T.real(x)._base is x, r.stride(), i.storage_offset())
    same(prog)


def test_real_imag_write_through():
    def prog(T):
        x = T.tensor([1 + 2j, -3 + 0.5j], dtype=T.complex64)
        x.real.mul_(2)
        v = x._version
        x.imag = T.tensor([5.0, 6.0])
        T.imag(x)[0] = -1.0
        x.real = 7
        return x, v, x._version, x.real.dtype, x.imag.dtype
    same(prog)


def test_real_of_a_real_tensor_is_itself():
    same(lambda T: (T.real(T.tensor([1.0, 2.0])), T.tensor([1, 2]).real,
                    (lambda t: t.real is t)(T.ones(2)), (lambda t: T.real(t) is t)(T.ones(2))))
    same_error(lambda T: T.imag(T.tensor([1.0])))
    same_error(lambda T: T.tensor([1]).imag)


# ---- out= of ops without a derivative ------------------------------------------------------

def test_out_of_ops_without_derivative_records_their_node():
    def prog(T):
        x = T.tensor([1.5, 0.0, -1.0], dtype=T.float64, requires_grad=True)
        outs = [T.empty(0, dtype=T.float64) for _ in range(3)]
        T.heaviside(x, T.tensor([0.5], dtype=T.float64), out=outs[0])
        T.floor_divide(x, T.tensor(2.0, dtype=T.float64), out=outs[1])
        T.conj_physical(x, out=outs[2])
        return [(o, o.grad_fn, o.grad_fn.next_functions, o._version) for o in outs]
    same(prog)
    same_error(lambda T: T.heaviside(T.ones(2), T.ones(2),
                                     out=T.empty(0, requires_grad=True)))
    same_error(lambda T: T.floor_divide(T.ones(2), T.ones(2), out=T.empty(2, dtype=T.int64)))


def test_deprecated_value_first_overloads():
    for prog in (lambda T: T.addcmul(T.ones(2), 2, T.ones(2), T.tensor([3.0, 4.0])),
                 lambda T: T.ones(2).addcdiv(0.5, T.ones(2), T.tensor([2.0, 4.0])),
                 lambda T: T.ones(2).addcmul_(2, T.ones(2), T.ones(2))):
        same(prog)
    same_error(lambda T: T.addcmul(T.ones(2), T.ones(2), T.ones(2), 2))
    same_error(lambda T: T.addcdiv(T.ones(2), 2, T.ones(2), T.ones(2), value=3))


def test_deprecated_overload_warns():
    # PyTorch warns once per process; a fresh interpreter for each library
    import subprocess
    import sys
    code = ("import warnings, {lib} as T\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    T.addcmul(T.ones(2), 2, T.ones(2), T.ones(2))\n"
            "    T.addcmul(T.ones(2), 2, T.ones(2), T.ones(2))\n"
            "    T.ones(2).addcdiv_(2, T.ones(2), T.ones(2))\n"
            "print([(x.category.__name__, str(x.message).split(' (Triggered')[0]) for x in w])\n")
    outputs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                              text=True, check=True).stdout for lib in ("torch", "chainrule")]
    assert outputs[0] == outputs[1] and "deprecated" in outputs[0]


# ---- every name spelled out once (the parametrized tests above reach them by getattr) ------

def test_inplace_functions_spelled_out():
    def prog(T):
        def x():
            return T.tensor([0.25, 0.5, 0.75])

        def big():
            return T.tensor([1.25, 1.5, 2.0])
        return (T.acos_(x()), T.arccos_(x()), T.arcsin_(x()), T.arctan_(x()), T.asin_(x()),
                T.atan_(x()), T.ceil_(x()), T.cos_(x()), T.cosh_(x()), T.erf_(x()),
                T.erfc_(x()), T.expm1_(x()), T.fix_(x()), T.floor_(x()), T.frac_(x()),
                T.log10_(x()), T.log1p_(x()), T.log2_(x()), T.log_(x()), T.neg_(x()),
                T.negative_(x()), T.reciprocal_(x()), T.rsqrt_(x()), T.sigmoid_(x()),
                T.sin_(x()), T.sinh_(x()), T.tan_(x()), T.tanh_(x()), T.trunc_(x()),
                T.asinh_(x()), T.acosh_(big()), T.atanh_(x()), T.arcsinh_(x()),
                T.arccosh_(big()), T.arctanh_(x()), x().asinh_(), big().acosh_(), x().atanh_(),
                x().arcsinh_(), big().arccosh_(), x().arctanh_(), x().negative_(),
                x().multiply_(2), x().subtract_(1, alpha=2))
    same(prog)


def test_integer_methods_spelled_out():
    def prog(T):
        def i():
            return T.tensor([12, -7, 5])
        j = T.tensor([1, 2, 3])
        return (T.bitwise_right_shift(i(), j), i().bitwise_left_shift_(j),
                i().bitwise_right_shift_(1), i().bitwise_and_(j), i().bitwise_or_(6),
                i().bitwise_xor_(j), i().bitwise_not_(), i().__floordiv__(2),
                i().__rfloordiv__(50), i().__ifloordiv__(j), i().__lshift__(1),
                i().__rlshift__(1), i().__ilshift__(j), i().__rshift__(1), i().__rrshift__(64),
                i().__irshift__(j), i().__ior__(j), i().__ixor__(3), i().__rmod__(9),
                i().__pos__())
    same(prog)


def test_comparison_methods_spelled_out():
    def prog(T):
        def x():
            return T.tensor([0.5, 1.0, 2.0])
        y = T.tensor([1.0, 1.0, 1.0])
        return (x().le_(y), x().greater_(y), x().greater_equal_(1.0), x().less_(y),
                x().less_equal_(y), x().not_equal_(1.0), x().logical_xor_(y))
    same(prog)
