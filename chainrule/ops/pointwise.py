"""Pointwise ops: arithmetic, powers, unary math, activations, clamping, rounding,
comparisons.

Each row: name, node, signature, NumPy forward, one formula per input (see registry.py).
Formulas follow PyTorch's derivatives.yaml, including its choices at kinks and ties.
Activations whose backward is worth one NumPy pass (sigmoid, tanh, relu) call a fused
backward op that is itself a row with its own formulas, so double backward keeps working.
"""
import builtins
import cmath
import math
import warnings

import numpy as np

from .. import _dtype
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from . import registry
from .binding import Overloads, _bad_arguments, _not_tensor, declare, not_tensor_input
from .registry import (FLOAT, NOT_IMPLEMENTED, PROMOTE, PROMOTE_FLOAT, SAME_DTYPE,
                       no_derivative, op, out_cast, out_exact, out_without_derivative, public)

# ---- helpers --------------------------------------------------------------------------------

def _opmath(f):
    """`f` computed in float32 for float16 arrays, rounded once, as PyTorch's kernels do."""
    def g(a, *rest):
        if a.dtype == np.float16:
            return np.asarray(f(a.astype(np.float32), *rest)).astype(np.float16)
        return f(a, *rest)
    return g


def _not_for(a, kinds, kernel):
    """PyTorch's error for a dtype its kernel lacks ('"abs_cpu" not implemented for 'Bool'');
    "c" covers complex32 (kind W), which a complex number and a float16 tensor promote to."""
    k = a.dtype.kind
    if k in kinds or k == "W" and "c" in kinds:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{FROM_NP[a.dtype].legacy}'")


def _no_complex(a, message):
    kind = a.dtype.kind
    if kind == "c" or kind == "W" and FROM_NP[a.dtype].is_complex:     # W: complex32
        raise NotImplementedError(message)


def _promoted(*xs):
    """Arrays and numbers cast to PyTorch's result dtype (for forwards that check first)."""
    t = _dtype.result_type(xs).np
    return [x.astype(t) if type(x) is np.ndarray and x.dtype != t else x for x in xs]


def _conj(t):
    """conj(t) for a Tensor or a Python number (PyTorch conjugates both in formulas)."""
    # isinstance, not hasattr: on the hot path a Python number's failed attribute lookup
    # costs an exception raised and caught
    if isinstance(t, Tensor):
        return t.conj() if t._data.dtype.kind == "c" else t
    return t.conjugate() if type(t) is complex else t


def _zeros(grad):
    """zeros_like(grad): not grad * 0, which would keep inf and nan. Usable as a formula
    itself (it reads only `grad`)."""
    return make_tensor(np.zeros(grad._data.shape, grad._data.dtype))


_TENSOR_OR_NUMBER = ("(Tensor input, Tensor other, *, Tensor out = None)",
                     "(Tensor input, Number other, *, Tensor out = None)")


def _nonzero_divisor(a, b):
    # Integer division by zero is an error in PyTorch, not NumPy's 0 with a warning.
    # (an empty result divides nothing)
    if a.dtype.kind in "iu" and not np.all(b) and a.size:
        raise RuntimeError("ZeroDivisionError")


# ---- arithmetic ---------------------------------------------------------------------------

def _times_alpha(a, b, alpha):
    """b * alpha, alpha checked against and cast to the result dtype as in PyTorch."""
    dt = (a if type(a) is np.ndarray else b).dtype
    if isinstance(alpha, (bool, np.bool_)):
        if dt.kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif dt.kind in "biu" and not isinstance(alpha, (int, np.integer)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    elif isinstance(alpha, complex):
        dt = np.result_type(a, b)
        if dt.kind != "c":
            raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                               "complex number.")
    elif _complex(a, b):
        dt = np.result_type(a, b)
    if dt.kind == "c":     # b as a complex array or scalar, for a complex product
        b = b.astype(dt, copy=False) if type(b) is np.ndarray else dt.type(b)
    return np.multiply(b, dt.type(_checked_scalar(alpha, dt)))


def _complex(a, b):
    return (type(a) is np.ndarray and a.dtype.kind == "c" or type(b) is complex
            or type(b) is np.ndarray and b.dtype.kind == "c")


def _add(a, b, alpha):
    # PyTorch's complex kernels multiply other by alpha as complex numbers even for alpha = 1:
    # 1 * (inf+0j) is inf+nanj there
    if type(alpha) is int and alpha == 1:
        out = np.add(a, b)
        if out.dtype.kind != "c":     # (asked of the result: the common case pays one test)
            return out
    return np.add(a, _times_alpha(a, b, alpha))


def _is_bool(x):
    return x.dtype == np.bool_ if type(x) is np.ndarray else isinstance(x, (bool, np.bool_))


def _refuse_bool_sub(a, b):
    """PyTorch's refusal of bool operands of sub, which comes before any promotion."""
    _refuse_bools(_is_bool(a), _is_bool(b))


def _refuse_bools(a_bool, b_bool):
    if a_bool or b_bool:
        if a_bool and b_bool:
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _sub(a, b, alpha):
    if not (type(a) is np.ndarray and a.dtype.kind in "fc" and (
            type(b) is np.ndarray and b.dtype is a.dtype or type(b) is float or type(b) is int)):
        # (the common case skips both: nothing is bool, NumPy's result dtype is PyTorch's)
        _refuse_bool_sub(a, b)
        a, b = _promoted(a, b)
    if type(alpha) is int and alpha == 1:
        out = np.subtract(a, b)
        if out.dtype.kind != "c":
            return out
    return np.subtract(a, _times_alpha(a, b, alpha))


def _neg(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return np.negative(a)


def _scaled(grad, alpha):
    return grad if alpha == 1 else grad * _conj(alpha)


add = op("add", "AddBackward0", "self, other, *, alpha=1", _add, promote=PROMOTE,
         numbers=True, dunders=("__add__", "__radd__"), idunders=("__iadd__",),
         inplace="add_", inplace_ufunc=(np.add, (1,)),
         self=lambda grad: grad,
         other=lambda grad, alpha: _scaled(grad, alpha))

# sub promotes inside its forward: the bool check must see the dtypes before promotion.
sub = op("sub", "SubBackward0", "self, other, *, alpha=1", _sub, numbers=True,
         method=("sub", "subtract"), function=("sub", "subtract"),
         dunders=("__sub__",), idunders=("__isub__",), inplace="sub_",
         inplace_ufunc=(np.subtract, (1,)),
         self=lambda grad: grad,
         other=lambda grad, alpha: -_scaled(grad, alpha))

rsub = op("rsub", "RsubBackward1", "self, other, alpha=1",
          lambda a, b, alpha: _sub(b, a, alpha), method=False, out=False,
          dunders=("__rsub__",), function=False,
          self=lambda grad, alpha: -_scaled(grad, alpha))

rsub_tensor = op("rsub.Tensor", "RsubBackward0", "self, other, *, alpha=1",
                 lambda a, b, alpha: _sub(b, a, alpha), promote=PROMOTE, method=False,
                 function=False, self=lambda grad, alpha: -_scaled(grad, alpha),
                 other=lambda grad: grad)


@public("rsub", method=False)
def _rsub_function(input, other, alpha=1):
    """other - alpha * input."""
    if isinstance(other, Tensor):
        # (the row's promotion would hide a bool operand from sub's refusal; asked of the
        # dtypes, which batched tensors under vmap have too)
        _refuse_bools(other.dtype is _dtype.bool, input.dtype is _dtype.bool
                      if isinstance(input, Tensor) else isinstance(input, (bool, np.bool_)))
        return rsub_tensor(input, other, alpha=alpha)
    return rsub(input, other, alpha=alpha)

mul = op("mul", "MulBackward0", "self, other", np.multiply, promote=PROMOTE,
         numbers=True, method=("mul", "multiply"), function=("mul", "multiply"),
         dunders=("__mul__", "__rmul__"), idunders=("__imul__",), inplace="mul_",
         inplace_ufunc=(np.multiply, ()),
         self=lambda grad, other: grad * _conj(other),
         other=lambda grad, self: grad * _conj(self))

true_divide = op(
    "div", "DivBackward0", "self, other", np.true_divide, promote=PROMOTE_FLOAT,
    numbers=True, method="true_divide", function="true_divide",
    dunders=("__truediv__",), idunders=("__itruediv__",), inplace="true_divide_",
    inplace_ufunc=(np.true_divide, ()),
    self=lambda grad, other: grad / _conj(other),
    other=lambda grad, self, other: -grad * _conj((self / other) / other))


def _div_mode(a, b, rounding_mode):
    if rounding_mode is None:
        out = np.true_divide(a, b)
        # int / int: PyTorch's true division gives the default float dtype
        return out if a.dtype.kind in "fc" else out.astype(_dtype.get_default_dtype().np)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    _not_for(a, "bc", f"div_{rounding_mode}_cpu")
    _nonzero_divisor(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    if a.dtype.kind in "iu":
        return (a - np.fmod(a, b)) // b     # exact: C's truncating integer division
    return np.trunc(np.true_divide(a, b))


div_mode = op(
    "div.Tensor_mode", "DivBackward2", "self, other, *, rounding_mode", _div_mode,
    promote=PROMOTE, numbers=True, function=False, method=False,
    # a rounded quotient is piecewise constant: zero gradients
    self=lambda grad, other, rounding_mode: (
        _zeros(grad) if rounding_mode is not None else grad / _conj(other)),
    other=lambda grad, self, other, rounding_mode: (
        _zeros(grad) if rounding_mode is not None else -grad * _conj((self / other) / other)))

_NO_MODE = object()   # div(a, b) and div(a, b, rounding_mode=None) are different overloads


@public("div", out=True)
def div(input, other, *, rounding_mode=_NO_MODE):
    """input / other; rounding_mode 'trunc' or 'floor' rounds the quotient."""
    if rounding_mode is _NO_MODE:
        return true_divide(input, other)
    return div_mode(input, other, rounding_mode=rounding_mode)


public("divide", out=True, out_name="div")(div)


@public("div_", function=False)
def div_(self, other, *, rounding_mode=_NO_MODE):
    from .inplace import dispatch_inplace
    if rounding_mode is _NO_MODE:
        return dispatch_inplace(true_divide.op, (self, other), ())
    return dispatch_inplace(div_mode.op, (self, other), (rounding_mode,))


public("divide_", function=False)(div_)

neg = op("neg", "NegBackward0", "self", _neg, method=("neg", "negative"),
         function=("neg", "negative"), dunders=("__neg__",), inplace="neg_", out=SAME_DTYPE,
         self=lambda grad: -grad)

def _reciprocal(a):
    # a complex zero (or a subnormal whose squared norm underflows) gives PyTorch's inf+nanj
    # through the complex division 1 / a; NumPy's reciprocal gives nan+nanj or inf-0j there
    return 1 / a if a.dtype.kind == "c" else np.reciprocal(a)


reciprocal = op("reciprocal", "ReciprocalBackward0", "self", _reciprocal, promote=FLOAT,
                inplace="reciprocal_",
                self=lambda grad, result: -grad * _conj(result * result))


@public("__rtruediv__", function=False)
def _rtruediv(self, other):
    # PyTorch computes `other / self` as self.reciprocal() * other (so grad_fn is MulBackward0).
    return reciprocal(self) * other


@public("__rdiv__", function=False)
def _rdiv(self, other):
    return reciprocal(self) * other


# ---- fmod and remainder -------------------------------------------------------------------

def _fmod(a, b):
    _not_for(a, "bc", "fmod_cpu")
    _nonzero_divisor(a, b)
    return np.fmod(a, b)


def _remainder(a, b):
    _not_for(a, "bc", "remainder_cpu")
    _nonzero_divisor(a, b)
    if a.dtype.kind != "f":
        return np.remainder(a, b)
    # PyTorch moves C's fmod to the divisor's sign only when nonzero: a zero keeps the sign of
    # the dividend (NumPy's remainder gives it the divisor's)
    r = np.fmod(a, b)
    return np.where((r != 0) & ((r < 0) != (np.asarray(b) < 0)), r + b, r)


fmod_scalar = op("fmod.Scalar", "FmodBackward0", "self, other", _fmod, promote=PROMOTE,
                 promote_with=("other",), function=False, method=False,
                 self=lambda grad: grad)

fmod_tensor = op("fmod.Tensor", "FmodBackward1", "self, other", _fmod, promote=PROMOTE,
                 function=False, method=False,
                 self=lambda grad: grad,
                 other=lambda grad, self, other: -grad * self.div(other, rounding_mode="trunc"))

remainder_scalar = op("remainder.Scalar", "RemainderBackward0", "self, other",
                      _remainder, promote=PROMOTE, promote_with=("other",),
                      function=False, method=False,
                      self=lambda grad: grad)

remainder_tensor = op(
    "remainder.Tensor", "RemainderBackward1", "self, other", _remainder, promote=PROMOTE,
    function=False, method=False,
    self=lambda grad: grad,
    other=lambda grad, self, other: -grad * self.div(other, rounding_mode="floor"))


@public("fmod", out=True)
def fmod(input, other):
    """C's remainder of input / other (the sign of input)."""
    if not isinstance(input, Tensor):
        raise _bad_arguments("fmod", (input, other), _TENSOR_OR_NUMBER)
    if isinstance(other, Tensor):
        return fmod_tensor(input, other)
    return fmod_scalar(input, other)


@public("remainder", dunders=("__mod__",), out=True)
def remainder(input, other):
    """Python's remainder of input / other (the sign of other)."""
    if not isinstance(input, Tensor):
        return remainder_scalar_tensor(input, other)
    if isinstance(other, Tensor):
        return remainder_tensor(input, other)
    return remainder_scalar(input, other)


def _binary_inplace(scalar_row, tensor_row):
    def inplace(self, other):
        from .inplace import dispatch_inplace
        if isinstance(other, Tensor):
            return dispatch_inplace(tensor_row.op, (self, other), ())
        return dispatch_inplace(scalar_row.op, (self,), (other,))
    return inplace


def _cast_checked(inplace):
    """An integer division in place: PyTorch refuses a result dtype self cannot hold before
    the kernel looks for a zero divisor."""
    def checked(self, other):
        _check_cast(_dtype.result_type((self, other)), self.dtype)
        return inplace(self, other)
    return checked


def _check_cast(result, dtype):
    if not _dtype.can_cast(result, dtype):
        raise RuntimeError(f"result type {result.legacy} can't be cast to the desired output "
                           f"type {dtype.legacy}")


public("fmod_", function=False)(_cast_checked(_binary_inplace(fmod_scalar, fmod_tensor)))
public("remainder_", function=False, dunders=("__imod__",))(
    _cast_checked(_binary_inplace(remainder_scalar, remainder_tensor)))


# ---- powers -------------------------------------------------------------------------------

def _int_pow(a, b):
    """Integer power with PyTorch's rule for negative exponents: 1 for 1, +-1 for -1, else 0."""
    neg = np.less(b, 0)
    if not neg.any():
        return np.power(a, b)
    out = np.power(a, np.where(neg, 0, b))
    odd = np.remainder(b, 2) == 1
    special = np.where(np.equal(a, 1), 1, np.where(np.equal(a, -1), np.where(odd, -1, 1), 0))
    return np.where(neg, special, out).astype(out.dtype, copy=False)


def _pow_tensor_scalar(a, exponent):
    _not_for(a, "W", "pow")
    if a.dtype == np.float16:
        _checked_scalar(exponent, a.dtype)      # the kernel converts it to the tensor's dtype
    if a.dtype.kind in "biu":
        if isinstance(exponent, (int, np.integer)) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if isinstance(exponent, (int, np.integer)) and exponent >= 2 ** 63:   # (toLong)
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if a.dtype.kind == "b":     # a bool exponent keeps bool (NumPy's power gives int8)
            return np.power(a, exponent).astype(np.bool_, copy=False)
        return np.power(a, _checked_scalar(exponent, a.dtype))
    # PyTorch's kernel special-cases these exponents; they differ from pow at -0.0 and -inf
    if a.dtype != np.float16:
        if exponent == 0.5:
            return np.sqrt(a)
        if exponent == -0.5:
            return 1 / np.sqrt(a)
        if exponent == -1:
            return _reciprocal(a)
        if exponent == 2:
            return a * a
        if exponent == 3:
            return a * a * a
        if exponent == -2:
            return 1 / (a * a)
    if a.dtype.kind == "c":
        # PyTorch fills for exponent 0, copies for 1, else exp(exponent * log(a))
        if exponent == 0:
            return np.ones_like(a)
        if exponent == 1:
            return a.copy()
        return np.exp(exponent * np.log(a))
    if a.dtype == np.float32 and type(exponent) is int and 4 <= exponent <= 16:
        return _float32_int_power(a, exponent)
    return np.power(a, exponent)


def _float32_int_power(a, n):
    """a ** n for float32 `a` and 4 <= n <= 16, by squaring in float64 and rounding once
    more: NumPy's float32 pow is a libm call per element (25x slower on 2,000 values), and
    the result is within one float32 rounding of pow's (the float64 products carry at most
    a few float64 ulps; PyTorch's own vectorised pow is a 1-ulp approximation)."""
    x = a.astype(np.float64)
    result = None
    while True:
        if n & 1:
            result = x if result is None else result * x
        n >>= 1
        if not n:
            break
        x = x * x
    return result.astype(np.float32)


def _pow_tensor_tensor(a, b):
    _not_for(a, "b", "pow")
    if a.dtype.kind == "c":
        return np.exp(b * np.log(a))     # as PyTorch's complex kernel (NaN bases stay NaN)
    return _int_pow(a, b) if a.dtype.kind in "iu" else np.power(a, b)


def _pow_scalar(exponent, base):
    # the tensor is the exponent: `base ** exponent`
    if exponent.dtype.kind == "b" and type(base) is bool:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if exponent.dtype.kind == "c":
        # PyTorch: ones for base 1, else the complex Tensor-Tensor kernel
        if base == 1:
            return np.ones_like(exponent)
        return np.exp(exponent * np.log(exponent.dtype.type(base)))
    if exponent.dtype.kind in "iu" and type(base) is int and -2 ** 63 <= base < 2 ** 64:
        # PyTorch casts the base to the exponent's integer dtype, wrapping around
        base = np.array(base % 2 ** 64, np.uint64).astype(exponent.dtype)
    return _int_pow(base, exponent) if exponent.dtype.kind in "biu" else np.power(base, exponent)


def _pow_scalar_grad(grad, self, exponent):
    # PyTorch's zero test is Scalar::equal(0.0), false for a bool: ** False differentiates
    # as 0 * self ** -1 (nan at 0)
    if exponent == 0 and type(exponent) is not bool:
        return _zeros(grad)
    e = exponent if isinstance(exponent, complex) else float(exponent)
    return grad * _conj(e * self.pow(e - 1))


pow_tensor_scalar = op("pow.Tensor_Scalar", "PowBackward0", "self, exponent",
                       _pow_tensor_scalar, promote=PROMOTE, promote_with=("exponent",),
                       function=False, method=False,
                       self=_pow_scalar_grad)

pow_tensor_tensor = op(
    "pow.Tensor_Tensor", "PowBackward1", "self, exponent", _pow_tensor_tensor,
    promote=PROMOTE, function=False, method=False,
    self=lambda grad, self, exponent: where(
        exponent == 0, 0.0, grad * _conj(exponent * self.pow(exponent - 1))),
    exponent=lambda grad, self, exponent, result: _pow_exponent_grad(grad, self, exponent,
                                                                     result))


def _pow_exponent_grad(grad, self, exponent, result):
    # 0 ** e has gradient 0 for real e >= 0 (a complex e: real part >= 0, imaginary part 0)
    if exponent._data.dtype.kind == "c":
        real_exponent = (exponent.imag == 0) & (exponent.real >= 0)
    else:
        real_exponent = exponent >= 0
    # (log of self promoted to the result's dtype: a float16 self's log is not rounded)
    return grad * where((self == 0) & real_exponent, 0.0,
                        _conj(result * self.to(result.dtype).log()))


def _scalar_log(x):
    if isinstance(x, complex):
        return cmath.log(x)
    return math.log(x) if x > 0 else (float("-inf") if x == 0 else float("nan"))


def _pow_base_scalar_grad(grad, self, exponent, result):
    if self == 0:
        if exponent.is_complex():   # zero where the exponent is real and not negative
            keep = (exponent.imag == 0) & (exponent.real >= 0)
            return grad * where(keep, 0.0, _conj(result * float("-inf")))
        return grad * where(exponent >= 0, 0.0, result * float("-inf"))
    # a negative base has a complex log when the result is complex: log(-2) = log(2) + pi*i
    return grad * _conj(result * _scalar_log(complex(self) if result.is_complex() else self))


pow_scalar = op("pow.Scalar", "PowBackward2", "exponent, self", _pow_scalar,
                promote=PROMOTE, promote_with=("self",), function=False, method=False,
                exponent=_pow_base_scalar_grad)


@public("pow", dunders=("__pow__",), out=True)
def pow(input, exponent):
    """input ** exponent, for tensor and/or number operands."""
    if not isinstance(input, Tensor):
        return pow_scalar(exponent, input)
    if isinstance(exponent, Tensor):
        return pow_tensor_tensor(input, exponent)
    return pow_tensor_scalar(input, exponent)


@public("__rpow__", function=False)
def _rpow(self, other):
    return pow_scalar(self, other)


@public("pow_", function=False, dunders=("__ipow__",))
def pow_(self, exponent):
    from .inplace import dispatch_inplace
    if isinstance(exponent, Tensor):
        return dispatch_inplace(pow_tensor_tensor.op, (self, exponent), ())
    return dispatch_inplace(pow_tensor_scalar.op, (self,), (exponent,))


@public("square", out=True, out_name="pow")
def square(input):
    """input ** 2 (PyTorch records it as pow, PowBackward0)."""
    return pow_tensor_scalar(input, 2)


@public("square_", function=False)
def square_(self):
    return pow_(self, 2)


# ---- exponentials and logarithms ----------------------------------------------------------

_LN2, _LN10 = math.log(2.0), math.log(10.0)

exp = op("exp", "ExpBackward0", "self", np.exp, promote=FLOAT, inplace="exp_",
         self=lambda grad, result: grad * _conj(result))

expm1 = op("expm1", "Expm1Backward0", "self", np.expm1, promote=FLOAT, inplace="expm1_",
           self=lambda grad, result: grad * (_conj(result) + 1))

log = op("log", "LogBackward0", "self", np.log, promote=FLOAT, inplace="log_",
         self=lambda grad, self: grad / _conj(self))


def _log_base(real_log, ln_base):
    """PyTorch's complex log2/log10 divide log's real and imaginary parts by ln(base) (NumPy
    multiplies by 1/ln(base): an ulp apart, and inf parts compare exactly)."""
    def forward(a):
        if a.dtype.kind != "c":
            return real_log(a)
        ln, base = np.log(a), a.real.dtype.type(ln_base)
        out = np.empty(ln.shape, ln.dtype)
        out.real, out.imag = ln.real / base, ln.imag / base
        return out
    return forward


log2 = op("log2", "Log2Backward0", "self", _log_base(np.log2, _LN2), promote=FLOAT,
          inplace="log2_", self=lambda grad, self: grad / (_conj(self) * _LN2))

log10 = op("log10", "Log10Backward0", "self", _log_base(np.log10, _LN10), promote=FLOAT,
           inplace="log10_", self=lambda grad, self: grad / (_conj(self) * _LN10))

log1p = op("log1p", "Log1PBackward0", "self", np.log1p, promote=FLOAT, inplace="log1p_",
           self=lambda grad, self: grad / _conj(self + 1))

sqrt = op("sqrt", "SqrtBackward0", "self", np.sqrt, promote=FLOAT, inplace="sqrt_",
          self=lambda grad, result: grad / (2 * _conj(result)))

rsqrt = op("rsqrt", "RsqrtBackward0", "self", _opmath(lambda a: 1 / np.sqrt(a)),
           promote=FLOAT, inplace="rsqrt_",
           self=lambda grad, result: -0.5 * grad * _conj(result.pow(3)))


# ---- trigonometric and hyperbolic ---------------------------------------------------------

sin = op("sin", "SinBackward0", "self", np.sin, promote=FLOAT, inplace="sin_",
         self=lambda grad, self: grad * _conj(self.cos()))

cos = op("cos", "CosBackward0", "self", np.cos, promote=FLOAT, inplace="cos_",
         self=lambda grad, self: grad * -_conj(self.sin()))

tan = op("tan", "TanBackward0", "self", np.tan, promote=FLOAT, inplace="tan_",
         self=lambda grad, result: grad * _conj(1 + result.pow(2)))

asin = op("asin", "AsinBackward0", "self", np.arcsin, promote=FLOAT, inplace="asin_",
          function=("asin", "arcsin"), method=("asin", "arcsin"),
          self=lambda grad, self: grad * _conj((-self * self + 1).rsqrt()))

acos = op("acos", "AcosBackward0", "self", np.arccos, promote=FLOAT, inplace="acos_",
          function=("acos", "arccos"), method=("acos", "arccos"),
          self=lambda grad, self: grad * -_conj((-self * self + 1).rsqrt()))

atan = op("atan", "AtanBackward0", "self", np.arctan, promote=FLOAT, inplace="atan_",
          function=("atan", "arctan"), method=("atan", "arctan"),
          self=lambda grad, self: grad / _conj(self * self + 1))


def _atan2(a, b):
    _not_for(a, "c", "atan2_cpu")
    return np.arctan2(a, b)


def _atan2_recip(self, other):
    # 0 at the origin, where atan2 has no derivative (PyTorch masks it the same way)
    denominator = self * self + other * other
    return where(denominator == 0, 0.0, denominator.reciprocal())


atan2 = op("atan2", "Atan2Backward0", "self, other", _atan2, promote=PROMOTE_FLOAT,
           inplace="atan2_", function=("atan2", "arctan2"), method=("atan2", "arctan2"),
           self=lambda grad, self, other: grad * other * _atan2_recip(self, other),
           other=lambda grad, self, other: grad * -self * _atan2_recip(self, other))

sinh = op("sinh", "SinhBackward0", "self", np.sinh, promote=FLOAT, inplace="sinh_",
          self=lambda grad, self: grad * _conj(self.cosh()))

cosh = op("cosh", "CoshBackward0", "self", np.cosh, promote=FLOAT, inplace="cosh_",
          self=lambda grad, self: grad * _conj(self.sinh()))


# ---- activations and their fused backwards ------------------------------------------------

def _one(dtype):
    """1 as a 0-d array of `dtype`: NumPy takes it faster than the Python number 1 (a
    backward formula's constant, on the hot path of tiny tensors); the values are the same."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype)
        one.flags.writeable = False
    return one


_ONES = {}


def _tanh_backward(grad_output, output):
    _not_for(output, "biu", "tanh_backward_cpu")
    if output.dtype.kind == "c":
        return grad_output * np.conj(1 - output * output)
    if output.dtype == np.float16:     # PyTorch's kernel: in float32, rounded once
        return _tanh_backward(grad_output.astype(np.float32),
                              output.astype(np.float32)).astype(np.float16)
    if output.dtype == np.float32:
        # the kernel's 1 - y * y is one fused multiply-add: y * y is exact in double
        return grad_output * (1 - np.square(output, dtype=np.float64)).astype(np.float32)
    return grad_output * (_one(output.dtype) - output * output)


def _sigmoid_backward(grad_output, output):
    if output.dtype.kind == "c":
        return grad_output * np.conj((1 - output) * output)
    return grad_output * (_one(output.dtype) - output) * output


tanh_backward = op(
    "tanh_backward", "TanhBackwardBackward0", "grad_output, output", _tanh_backward,
    promote=PROMOTE, function=False, method=False,
    grad_output=lambda grad, output: tanh_backward(grad, _conj(output)),
    output=lambda grad, grad_output, output: (
        _conj(grad) * _conj(-2 * _conj(output) * grad_output)))

sigmoid_backward = op(
    "sigmoid_backward", "SigmoidBackwardBackward0", "grad_output, output",
    _sigmoid_backward, function=False, method=False,
    grad_output=lambda grad, output: sigmoid_backward(grad, _conj(output)),
    output=lambda grad, grad_output, output: _conj(grad) * grad_output * (-2 * _conj(output) + 1))

_SINT = {2: np.int16, 4: np.int32, 8: np.int64}


def _zero_where(drop, g):
    """`0 where drop, else g` for a float g of drop's shape. np.where mispredicts branches on
    a data-dependent mask (about 10x slower on ReLU's random masks); ANDing g's bits with an
    all-zeros or all-ones mask is branchless and exact (+0.0 where dropped; -0.0, inf and
    nan kept elsewhere)."""
    s = _SINT.get(g.itemsize)
    if s is None or g.dtype.kind != "f" or g.shape != np.shape(drop) or g.size <= 4096:
        # (on small arrays np.where's branches cost less than the mask's five passes)
        return np.where(drop, g.dtype.type(0), g)
    # the mask is made in one byte per element (1 -> 0 drop, 0 -> 255 keep), then widened
    # with its sign to 0 or all ones (a quarter faster than widening first)
    keep = np.subtract(np.asarray(drop).view(np.uint8), 1)
    keep = np.asarray(keep).view(np.int8).astype(s)     # asarray: 0-d results are scalars
    return np.bitwise_and(g.view(s), keep, out=keep).view(g.dtype)


def _threshold_backward(g, s, threshold):
    # a nan in s passes the gradient, as `s <= threshold` is false
    if g.dtype.kind != "f" or g.shape != s.shape:
        return np.where(s <= threshold, 0, g)
    return _zero_where(s <= threshold, g)


threshold_backward = op(
    "threshold_backward", "ThresholdBackwardBackward0", "grad_output, self, threshold",
    _threshold_backward, function=False, method=False,
    grad_output=lambda grad, self, threshold: threshold_backward(grad, self, threshold),
    self=lambda grad: _zeros(grad))

tanh = op("tanh", "TanhBackward0", "self", np.tanh, promote=FLOAT, inplace="tanh_",
          self=lambda grad, result: tanh_backward(grad, result))

sigmoid = op("sigmoid", "SigmoidBackward0", "self",
             _opmath(lambda a: 1 / (1 + np.exp(-a))), promote=FLOAT, inplace="sigmoid_",
             self=lambda grad, result: sigmoid_backward(grad, result))


def _relu(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    _no_complex(a, "clamp is not supported for complex types")
    zero = _ZERO.get(a.dtype)
    if zero is None:    # a 0-d zero of a's dtype: NumPy compares with it 3x faster than with 0
        zero = _ZERO[a.dtype] = np.zeros((), a.dtype)
    return _zero_where(a < zero, a)     # -0.0 and NaN stay, as in PyTorch


_ZERO = {}


relu = op("relu", "ReluBackward0", "self", _relu, inplace="relu_", out=False,
          self=lambda grad, result: threshold_backward(grad, result, 0))


# ---- error function -----------------------------------------------------------------------

def _erf_series(x):
    # erf(x) = 2/sqrt(pi) x exp(-x^2) sum_n (2x^2)^n / (2n+1)!!: positive terms, for |x| < 2;
    # 7 + 11 max|x| terms reach full double precision.
    t = 2 * x * x
    s = np.ones_like(x)
    for n in range(int(7 + 11 * x.max(initial=0)), 0, -1):
        s = 1 + s * t / (2 * n + 1)
    return (2 / math.sqrt(math.pi)) * x * np.exp(-x * x) * s


def _erfc_fraction(x):
    # erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), for x >= 2;
    # 10 + 180/min(x)^2 levels reach full double precision.
    k = x.copy()
    for n in range(int(10 + 180 / x.min(initial=np.inf) ** 2), 0, -1):
        k = x + (n / 2) / k
    # exp(-x^2) as exp(-h^2) exp((h-x)(h+x)), h = x with 27 low bits cleared so h*h is
    # exact: the rounding error of x*x would be scaled by x^2 in the exponential
    h = (x.view(np.uint64) & np.uint64(0xFFFFFFFFF8000000)).view(np.float64)
    return np.exp(-h * h) * np.exp((h - x) * (h + x)) / (math.sqrt(math.pi) * k)


def _erf_erfc(a, kernel):
    """(erf(a), erfc(a)) in float64 with NumPy alone: to a few ulp, except erfc on (-2, 2),
    where it is 1 - erf (relative error up to about 1e-13)."""
    _not_for(a, "c", kernel)
    x = np.asarray(a, np.float64)
    ax = np.abs(x)
    small = ax < 2
    big = ~(small | np.isnan(ax))
    erf, erfc = np.full_like(x, np.nan), np.full_like(x, np.nan)
    erf[small] = _erf_series(ax[small])
    erfc[small] = 1 - erf[small]
    erfc[big] = _erfc_fraction(np.minimum(ax[big], 30.0))   # erfc(30) underflows to 0
    erf[big] = 1 - erfc[big]
    return np.copysign(erf, x), np.where(x < 0, 2 - erfc, erfc)


def _erf_accurate(a, complement):
    # within an ulp or two in float64 (ops/special.py's kernels, loaded after this module)
    from .special import erf_forward
    return erf_forward(a, complement)


erf = op("erf", "ErfBackward0", "self", lambda a: _erf_accurate(a, False),
         promote=FLOAT, inplace="erf_",
         self=lambda grad, self: 2.0 / math.sqrt(math.pi) * (-self.pow(2)).exp() * grad)

erfc = op("erfc", "ErfcBackward0", "self",
          lambda a: _erf_accurate(a, True), promote=FLOAT,
          inplace="erfc_",
          self=lambda grad, self: -2.0 / math.sqrt(math.pi) * (-self.pow(2)).exp() * grad)


# ---- sign and absolute value --------------------------------------------------------------

def _abs(a):
    _not_for(a, "b", "abs_cpu")
    return np.abs(a)


def _sign(a):
    if a.dtype == np.bool_:
        return a.copy()
    if a.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead.")
    # (0 < a) - (a < 0), as PyTorch computes it: nan has sign 0
    return np.subtract(a > 0, a < 0, dtype=a.dtype)


def _sgn(a):
    if a.dtype.kind != "c":
        return _sign(a)
    r = np.abs(a)
    return np.where(r == 0, 0, a / r).astype(a.dtype, copy=False)


def _sgn_grad(grad, self, result):
    if not self.is_complex():
        return _zeros(grad)
    # the component of grad along sgn's tangent, over |self| (0 where self is 0)
    along = result.conj() * grad
    out = (grad - result * ((along + along.conj()) / 2)) / self.abs()
    return where(self == 0, 0.0, out)


abs = op("abs", "AbsBackward0", "self", _abs, inplace="abs_", function=("abs", "absolute"),
         method=("abs", "absolute"), dunders=("__abs__",), out=SAME_DTYPE,
         self=lambda grad, self: grad * self.sgn())
_abs_inplace = Tensor.abs_


@public("abs_", function=False)
def abs_(self):
    # (a complex tensor cannot hold its real absolute value in place; out= can)
    if self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _abs_inplace(self)


sgn = op("sgn", "SgnBackward0", "self", _sgn, inplace="sgn_", out=SAME_DTYPE, self=_sgn_grad)

sign = op("sign", "SignBackward0", "self", _sign, inplace="sign_", out=SAME_DTYPE,
          self=lambda grad: _zeros(grad))


# ---- rounding -----------------------------------------------------------------------------

def _rounding(f, kernel, complex_message=None):
    def forward(a):
        if a.dtype.kind in "iu":
            return a.copy()
        if complex_message:
            _no_complex(a, complex_message)
        _not_for(a, "bc", kernel)
        return f(a)
    return forward


floor = op("floor", "FloorBackward0", "self",
           _rounding(np.floor, "floor_vml_cpu", "floor is not supported for complex inputs"),
           inplace="floor_", out=SAME_DTYPE, self=lambda grad: _zeros(grad))

ceil = op("ceil", "CeilBackward0", "self",
          _rounding(np.ceil, "ceil_vml_cpu", "ceil is not supported for complex inputs"),
          inplace="ceil_", out=SAME_DTYPE, self=lambda grad: _zeros(grad))

trunc = op("trunc", "TruncBackward0", "self",
           _rounding(np.trunc, "trunc_vml_cpu", "trunc is not supported for complex inputs"),
           inplace="trunc_", function=("trunc", "fix"), method=("trunc", "fix"), out=SAME_DTYPE,
           self=lambda grad: _zeros(grad))

for _alias, _name in (("fix_", "trunc_"), ("absolute_", "abs_"), ("arcsin_", "asin_"),
                      ("arccos_", "acos_"), ("arctan_", "atan_"), ("arctan2_", "atan2_")):
    setattr(Tensor, _alias, getattr(Tensor, _name))

round_half_even = op("round", "RoundBackward0", "self", _rounding(np.rint, "round_vml_cpu"),
                     function=False, method=False, self=lambda grad: _zeros(grad))


@_opmath
def _round_decimals(a, decimals):
    # decimals=0 runs the plain round kernel (and so names it)
    _not_for(a, "biuc", "round_cpu" if decimals else "round_vml_cpu")
    ten = a.dtype.type(10.0 ** builtins.abs(decimals))
    if decimals < 0:
        return np.rint(a / ten) * ten
    return np.rint(a * ten) / ten


round_decimals = op("round.decimals", "RoundBackward1", "self, *, decimals",
                    _round_decimals, function=False, method=False,
                    self=lambda grad: _zeros(grad))


@public("round", out=SAME_DTYPE)
def round(input, *, decimals=None):
    """Round half to even, to `decimals` decimal places if given."""
    if decimals is None:
        return round_half_even(input)
    return round_decimals(input, decimals=decimals)


@public("round_", function=False)
def round_inplace(self, *, decimals=None):
    from .inplace import dispatch_inplace
    if decimals is None:
        return dispatch_inplace(round_half_even.op, (self,), ())
    return dispatch_inplace(round_decimals.op, (self,), (decimals,))


def _frac(a):
    _not_for(a, "biuc", "frac_cpu")
    return a - np.trunc(a)


frac = op("frac", "FracBackward0", "self", _frac, inplace="frac_", out=SAME_DTYPE,
          self=lambda grad: grad)


# ---- maximum, minimum, clamp --------------------------------------------------------------

def _extremum(f, name):
    def forward(a, b):
        if a.dtype.kind in "cW":    # W: complex32
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return _first_on_tie(f(a, b), a)
    return forward


def _first_on_tie(result, a):
    """PyTorch's max/min kernels keep `a` when it ties with the other operand (0.0 and -0.0
    tie); which one NumPy's keep differs by dtype."""
    if result.dtype.kind != "f":
        return result
    return np.where(result == a, a, result)


# Ties split the gradient: grad / 2 to each side.
maximum = op("maximum", "MaximumBackward0", "self, other", _extremum(np.maximum, "maximum"),
             promote=PROMOTE,
             self=lambda grad, self, other: where(
                 self < other, 0.0, where(self == other, grad / 2, grad)),
             other=lambda grad, self, other: where(
                 self > other, 0.0, where(self == other, grad / 2, grad)))

minimum = op("minimum", "MinimumBackward0", "self, other", _extremum(np.minimum, "minimum"),
             promote=PROMOTE,
             self=lambda grad, self, other: where(
                 self > other, 0.0, where(self == other, grad / 2, grad)),
             other=lambda grad, self, other: where(
                 self < other, 0.0, where(self == other, grad / 2, grad)))


def _clamp(a, lo, hi):
    """min(max(a, lo), hi), either bound None; promotes like PyTorch (int tensor, float bound:
    the default float dtype)."""
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _no_complex(a, "clamp is not supported for complex types")
    t = _dtype.result_type([x for x in (a, lo, hi) if x is not None]).np
    a, lo, hi = (x.astype(t) if type(x) is np.ndarray and x.dtype != t else x for x in (a, lo, hi))
    r = a
    if lo is not None:
        r = np.maximum(r, lo)
    if hi is not None:
        r = np.minimum(r, hi)
    return _first_on_tie(r, a)


def _clamp_by_tensors(a, lo, hi):
    """clamp by tensor bounds: the kernel (clamp, or maximum / minimum for one bound) of the
    promoted dtype refuses complex; complex self is clamp.Tensor's own check, before."""
    t = _dtype.result_type([x for x in (a, lo, hi) if x is not None])
    both = lo is not None and hi is not None
    # maximum / minimum take bools; clamp's own kernel does not. (Shapes are checked first.)
    if t.np.kind in "cW" or both and t.np.kind == "b":     # W: complex32
        registry.check_broadcast((a, lo, hi))
        kernel = "clamp_cpu" if both else "maximum_cpu" if lo is not None else "minimum_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.legacy}'")
    return _clamp(a, lo, hi)


def _in_place_mask(mask, other, combine):
    """combine(mask, other) as PyTorch's clamp backward computes it, in place in `mask`:
    `other` may not broadcast it to a larger shape (a 0-d self with tensor bounds)."""
    shape = np.broadcast_shapes(mask.shape, other.shape)
    if shape != mask.shape:
        from .._dims import sizes_str
        raise RuntimeError(f"output with shape {sizes_str(mask.shape)} doesn't match the "
                           f"broadcast shape {sizes_str(shape)}")
    return combine(mask, other)


def _clamp_grad(grad, self, min, max):
    # The boundary passes the gradient: self >= min and self <= max.
    if min is None:
        mask = self <= max
    elif max is None:
        mask = self >= min
    else:
        mask = _in_place_mask(self >= min, self <= max, Tensor.logical_and)
    return where(mask, grad, 0.0)


def _clamp_min_grad(grad, self, min, max):
    # a bound gets the gradient where it clamped; with min > max, max wins
    if max is None:
        return where(self < min, grad, 0.0)
    return where(_in_place_mask(self < min, min < max, Tensor.logical_and), grad, 0.0)


def _clamp_max_grad(grad, self, min, max):
    if min is None:
        return where(self > max, grad, 0.0)
    return where(_in_place_mask(self > max, max < min, Tensor.logical_or), grad, 0.0)


def _clamp_by_numbers(a, lo, hi, one_bound=False):
    """Number bounds. A floating self keeps its dtype and reads each bound as it (a complex
    bound must be real: it is read as a double first); another self promotes with the bounds
    and refuses a complex result. clamp_min / clamp_max refuse any complex bound."""
    if one_bound and any(isinstance(b, complex) for b in (lo, hi)):
        raise NotImplementedError("clamp is not supported for complex types")
    if a.dtype.kind == "f":
        dt = a.dtype
        lo, hi = (_checked_scalar(b, np.dtype(np.float64)) if isinstance(b, complex) else b
                  for b in (lo, hi))
    else:
        dt = _dtype.result_type([x for x in (a, lo, hi) if x is not None]).np
        if dt.kind == "c":
            raise NotImplementedError("clamp is not supported for complex types")
        if dt.kind == "b" and (lo is not None or hi is not None):
            kernel = "clamp_max" if lo is None else "clamp_min" if hi is None else "clamp"
            raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
    lo, hi = (None if b is None else _checked_scalar(b, dt) for b in (lo, hi))
    return _clamp(a, lo, hi)


clamp_scalar = op("clamp", "ClampBackward1", "self, min=None, max=None", _clamp_by_numbers,
                  function=False, method=False, self=_clamp_grad)

# (a complex self is refused by clamp() and clamp_(), before the bounds' shapes are checked)
clamp_tensor = op("clamp.Tensor", "ClampBackward0", "self, min=None, max=None",
                  _clamp_by_tensors, numbers=True, function=False, method=False,
                  self=_clamp_grad, min=_clamp_min_grad, max=_clamp_max_grad)

clamp_min_scalar = op("clamp_min", "ClampMinBackward0", "self, min",
                      lambda a, lo: _clamp_by_numbers(a, lo, None, True), function=False,
                      method=False, self=lambda grad, self, min: where(self >= min, grad, 0.0))

clamp_min_tensor = op("clamp_min.Tensor", "ClampMinBackward1", "self, min",
                      lambda a, lo: _clamp_by_tensors(a, lo, None), function=False, method=False,
                      self=lambda grad, self, min: where(self >= min, grad, 0.0),
                      min=lambda grad, self, min: where(self < min, grad, 0.0))

clamp_max_scalar = op("clamp_max", "ClampMaxBackward0", "self, max",
                      lambda a, hi: _clamp_by_numbers(a, None, hi, True), function=False,
                      method=False, self=lambda grad, self, max: where(self <= max, grad, 0.0))

clamp_max_tensor = op("clamp_max.Tensor", "ClampMaxBackward1", "self, max",
                      lambda a, hi: _clamp_by_tensors(a, None, hi), function=False, method=False,
                      self=lambda grad, self, max: where(self <= max, grad, 0.0),
                      max=lambda grad, self, max: where(self > max, grad, 0.0))


def _clamp_row(min, max):
    """The clamp overload for these bounds: tensors (ClampBackward0) or numbers (...1)."""
    tensors = isinstance(min, Tensor), isinstance(max, Tensor)
    if not any(tensors):
        return clamp_scalar
    if (min is not None and not tensors[0]) or (max is not None and not tensors[1]):
        if all(_as_number(b) is not None for b in (min, max) if isinstance(b, Tensor)):
            return clamp_scalar
        got = ", ".join(type(x).__name__ for x in (min, max))
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got (Tensor, {got}), but "
            "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, "
            "Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, "
            "Tensor out = None)\n")
    return clamp_tensor


def _as_number(bound):
    """PyTorch's argument parser reads a 0-d tensor that does not require grad as a Number."""
    if isinstance(bound, Tensor):
        return bound.item() if bound.dim() == 0 and not bound.requires_grad else None
    return bound


def _clamp_bounds(input, min, max):
    row = _clamp_row(min, max)
    if row is clamp_scalar:
        min, max = _as_number(min), _as_number(max)
    elif isinstance(input, Tensor) and input.is_complex():     # (vmap's tensors: no _data)
        raise NotImplementedError("clamp is not supported for complex types")
    return row, min, max


@public("clamp", out=True)
def clamp(input, min=None, max=None):
    """input limited to [min, max]; min and max are numbers or tensors, either may be None."""
    row, min, max = _clamp_bounds(input, min, max)
    return row(input, min, max)


public("clip", out=True, out_name="clamp")(clamp)


def _check_clamp_(self, *bounds, one_bound=False):
    # With number bounds PyTorch names self's C++ type in this message ('long int').
    if self.is_floating_point() or one_bound and any(isinstance(b, complex) for b in bounds):
        return  # the kernel reads the bounds as self's dtype / refuses a complex bound first
    result = _dtype.result_type([self] + [b for b in bounds if b is not None])
    if not _dtype.can_cast(result, self.dtype):
        raise RuntimeError(f"result type {result.legacy} can't be cast to the desired output "
                           f"type {self.dtype.cpp}")


@public("clamp_", function=False)
def clamp_(self, min=None, max=None):
    from .inplace import dispatch_inplace
    row, min, max = _clamp_bounds(self, min, max)
    if row is clamp_tensor:
        return dispatch_inplace(clamp_tensor.op, (self, min, max), ())
    _check_clamp_(self, min, max)
    return dispatch_inplace(clamp_scalar.op, (self,), (min, max))


public("clip_", function=False)(clamp_)


@public("clamp_min", out=True)
def clamp_min(input, min):
    """input limited from below by min (a number or a tensor)."""
    return (clamp_min_tensor if isinstance(min, Tensor) else clamp_min_scalar)(input, min)


@public("clamp_max", out=True)
def clamp_max(input, max):
    """input limited from above by max (a number or a tensor)."""
    return (clamp_max_tensor if isinstance(max, Tensor) else clamp_max_scalar)(input, max)


@public("clamp_min_", function=False)
def clamp_min_(self, min):
    from .inplace import dispatch_inplace
    if isinstance(min, Tensor):
        return dispatch_inplace(clamp_min_tensor.op, (self, min), ())
    _check_clamp_(self, min, one_bound=True)
    return dispatch_inplace(clamp_min_scalar.op, (self,), (min,))


@public("clamp_max_", function=False)
def clamp_max_(self, max):
    from .inplace import dispatch_inplace
    if isinstance(max, Tensor):
        return dispatch_inplace(clamp_max_tensor.op, (self, max), ())
    _check_clamp_(self, max, one_bound=True)
    return dispatch_inplace(clamp_max_scalar.op, (self,), (max,))


# ---- lerp ---------------------------------------------------------------------------------

def _lerp(a, end, weight):
    tensor_weight = type(weight) is np.ndarray
    # a 0-d weight tensor of any dtype takes part in type promotion (1-element weights are
    # common); any other weight, and end, must have self's dtype
    promoted = tensor_weight and weight.ndim == 0
    checked = (("end", end), ("weight", weight)) if tensor_weight and not promoted else (
        ("end", end),)
    for name, x in checked:
        if x.dtype != a.dtype:
            raise RuntimeError(f"expected dtype {FROM_NP[a.dtype].cpp} for `{name}` but got "
                               f"dtype {FROM_NP[x.dtype].cpp}")
    if promoted:
        t = _dtype.result_type([a, end, weight])
        if t.np.isbuiltin != 1:     # complex32
            raise NotImplementedError(f"\"lerp_kernel_tensor\" not implemented for '{t.legacy}'")
        a, end, weight = (x.astype(t.np, copy=False) for x in (a, end, weight))
    if a.dtype.kind in "biu":   # refused by the kernel, after the shapes are checked
        registry.check_broadcast((a, end, weight))
        _not_for(a, "biu", "lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar")
    if not tensor_weight:   # a number weight is read as the kernel's (opmath) type, checked
        weight = _checked_scalar(weight, np.dtype(np.float32) if a.dtype == np.float16
                                 else a.dtype)
    if a.dtype == np.float16:   # computed in float32, rounded once
        a, end = a.astype(np.float32), end.astype(np.float32)
        weight = weight.astype(np.float32) if tensor_weight else weight
        return np.asarray(_lerp_values(a, end, weight)).astype(np.float16)
    return _lerp_values(a, end, weight)


def _lerp_values(a, end, weight):
    # PyTorch picks between two forms, each exact at its end
    if type(weight) is np.ndarray:
        return np.where(np.abs(weight) < 0.5, a + weight * (end - a),
                        end - (end - a) * (1 - weight))
    if builtins.abs(weight) < 0.5:
        return a + weight * (end - a)
    return end - (end - a) * (1 - weight)


lerp_scalar = op("lerp.Scalar", "LerpBackward0", "self, end, weight", _lerp,
                 function=False, method=False,
                 self=lambda grad, weight: grad * _conj(1 - weight),
                 end=lambda grad, weight: grad * _conj(weight))

lerp_tensor = op("lerp.Tensor", "LerpBackward1", "self, end, weight", _lerp,
                 function=False, method=False,
                 self=lambda grad, weight: grad * _conj(1 - weight),
                 end=lambda grad, weight: grad * _conj(weight),
                 weight=lambda grad, self, end: grad * _conj(end - self))


@public("lerp", out=SAME_DTYPE)
def lerp(input, end, weight):
    """input + weight * (end - input)."""
    if isinstance(weight, Tensor):
        return lerp_tensor(input, end, weight)
    return lerp_scalar(input, end, weight)


@public("lerp_", function=False)
def lerp_(self, end, weight):
    from .inplace import dispatch_inplace
    if isinstance(end, Tensor) and (end._data.shape != self._data.shape or isinstance(
            weight, Tensor) and weight._data.shape != self._data.shape):
        _check_lerp_output(self, end, weight)
    if isinstance(weight, Tensor):
        return dispatch_inplace(lerp_tensor.op, (self, end, weight), ())
    return dispatch_inplace(lerp_scalar.op, (self, end), (weight,))


def _check_lerp_output(self, end, weight):
    """PyTorch's order for lerp_ with broadcasting operands: the dtypes, then the shapes
    (self must hold the broadcast result), then the kernel (which refuses integer dtypes and
    reads a number weight); the forward checks the rest."""
    dt = self._data.dtype
    tensor_weight = isinstance(weight, Tensor)
    if end._data.dtype != dt or tensor_weight and weight.dim() and weight._data.dtype != dt:
        return
    arrays = (self._data, end._data) + ((weight._data,) if tensor_weight else ())
    registry.check_broadcast(arrays)
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    if shape != self._data.shape:
        from .._dims import sizes_str
        raise RuntimeError(f"output with shape {sizes_str(self._data.shape)} doesn't match "
                           f"the broadcast shape {sizes_str(shape)}")


# ---- selection ----------------------------------------------------------------------------

def _where(condition, self, other):
    return np.where(condition, self, other)


def _check_condition(condition, stacklevel):
    # before promotion, which would cast the condition to the values' dtype
    dtype = condition._data.dtype if isinstance(condition, Tensor) else np.bool_
    if dtype != np.bool_:
        if dtype != np.uint8:
            raise RuntimeError("where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {FROM_NP[dtype].legacy}")
        if not _WARNED_UINT8_CONDITION:     # PyTorch warns once per process
            _WARNED_UINT8_CONDITION.append(True)
            warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                          "and will be removed in a future version of PyTorch. Use a boolean "
                          "condition instead.", UserWarning, stacklevel=stacklevel)


_WARNED_UINT8_CONDITION = []


where_ = op("where.self", "WhereBackward0", "condition, self, other", _where, promote=PROMOTE,
            numbers=True, function=False, method=False,
            condition=None,
            self=lambda grad, condition: where(condition, grad, 0.0),
            other=lambda grad, condition: where(condition, 0.0, grad))


@public("where", method=False, out=True)
def where(condition, input=None, other=None):
    """Elements of `input` where `condition` holds, else of `other`."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # two numbers: the result has their promoted dtype, which NumPy would not pick
        t = _dtype.result_type((input, other)).np
        input, other = make_tensor(np.asarray(input, t)), make_tensor(np.asarray(other, t))
    _check_condition(condition, 4)     # the user's line: above where's out= wrapper
    return where_(condition, *_number_overload(input, other))


def _number_overload(input, other):
    """where's overloads taking a number cast the tensor to the result dtype first (a
    recorded copy, ToCopyBackward0, whose gradient takes a complex gradient's real part)."""
    if isinstance(input, Tensor) != isinstance(other, Tensor):
        dt = _dtype.result_type((input, other))
        # the number is converted to an integer result with c10's overflow check
        checked = (lambda v: _checked_scalar(v, dt.np) if dt.np.kind in "iu"
                   and type(v) is builtins.int else v)
        if isinstance(input, Tensor):
            input, other = input.to(dt) if input.dtype is not dt else input, checked(other)
        else:
            input, other = checked(input), other.to(dt) if other.dtype is not dt else other
    return input, other


@public("where", function=False)
def _where_method(self, condition, y):
    _check_condition(condition, 3)
    return where_(condition, *_number_overload(self, y))


# ---- comparisons -------------------------------------------------------------------------

def _comparison(f, name, ordered):
    def forward(a, b):
        if type(a) is not np.ndarray:     # torch.eq(2, x): no overload takes a number first
            raise _bad_arguments(name, (a, make_tensor(b)), _TENSOR_OR_NUMBER)
        if ordered:
            _not_for(a, "c", f"{name}_cpu")     # complex numbers have no order
        return f(a, b)
    return forward


def _comparison_inplace(name, inplace):
    if name in ("eq", "ne"):
        return inplace

    def ordered_inplace(self, other):
        # no cast check comes first for comparisons: complex operands meet the kernel's error
        if self._data.dtype.kind == "c" or getattr(other, "dtype", None) in (
                _dtype.complex64, _dtype.complex128) or isinstance(other, builtins.complex):
            common = _dtype.result_type((self, other))
            if isinstance(other, Tensor):     # TensorIterator's shapes come first
                from .inplace import _check_output_shape
                _check_output_shape((self._data, other._data), self._data)
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{common.legacy}'")
        return inplace(self, other)
    return ordered_inplace


def _zeros_of(grad, shape):
    """zeros_like(an input of this shape), in grad's dtype."""
    return make_tensor(np.zeros(shape, grad._data.dtype))


for _name, _fn, _dunder, _alias in (
        ("eq", np.equal, "__eq__", None), ("ne", np.not_equal, "__ne__", "not_equal"),
        ("lt", np.less, "__lt__", "less"), ("le", np.less_equal, "__le__", "less_equal"),
        ("gt", np.greater, "__gt__", "greater"),
        ("ge", np.greater_equal, "__ge__", "greater_equal")):
    _names = (_name,) if _alias is None else (_name, _alias)
    _fn = _comparison(_fn, _name, _name not in ("eq", "ne"))
    op(_name, None, "self, other", _fn, promote=PROMOTE, numbers=True, function=_names,
       method=_names, dunders=(_dunder,), self=None, other=None)
    # In place the result is cast into self; PyTorch gives those a node with zero gradients
    # (EqBackward0 for a number, EqBackward1 for a tensor).
    _node = _name.capitalize()
    _inplace = _comparison_inplace(_name, _binary_inplace(
        op(f"{_name}_.Scalar", f"{_node}Backward0", "self, other", _fn, promote=PROMOTE,
           promote_with=("other",), function=False, method=False, self=_zeros),
        op(f"{_name}_.Tensor", f"{_node}Backward1", "self, other", _fn, promote=PROMOTE,
           function=False, method=False, self=_zeros,
           other=lambda grad, other_shape: _zeros_of(grad, other_shape))))
    for _n in _names:
        public(_n + "_", function=False)(_inplace)


# ---- logical and bitwise (not differentiable) ---------------------------------------------

def _bitwise(f, kernel):
    def forward(a, b):
        _not_for(a if type(a) is np.ndarray else b, "fc", kernel)
        return f(a, b)
    return forward


for _name, _fn, _dunders, _rdunders, _idunders, _numbers in (
        ("logical_and", np.logical_and, (), (), (), False),
        ("logical_or", np.logical_or, (), (), (), False),
        ("logical_xor", np.logical_xor, (), (), (), False),
        ("bitwise_and", _bitwise(np.bitwise_and, "bitwise_and_cpu"), ("__and__",),
         ("__rand__",), ("__iand__",), True),
        ("bitwise_or", _bitwise(np.bitwise_or, "bitwise_or_cpu"), ("__or__",), ("__ror__",),
         ("__ior__",), True),
        ("bitwise_xor", _bitwise(np.bitwise_xor, "bitwise_xor_cpu"), ("__xor__",),
         ("__rxor__",), ("__ixor__",), True)):
    op(_name, None, "self, other", _fn, promote=PROMOTE, numbers=_numbers, dunders=_dunders,
       rdunders=_rdunders, inplace=_name + "_", idunders=_idunders, self=None, other=None)


def _bitwise_not(a):
    _not_for(a, "fc", "bitwise_not_cpu")
    return np.invert(a)


logical_not = op("logical_not", None, "self", np.logical_not, inplace="logical_not_", self=None)
bitwise_not = op("bitwise_not", None, "self", _bitwise_not, inplace="bitwise_not_",
                 out=SAME_DTYPE, self=None)


@public("__invert__", function=False)
def _invert(self):
    if self._data.dtype.kind in "fc":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)


def _shift(f, kernel):
    """PyTorch's shifts: a shift by a negative amount or by the width or more gives 0 (left),
    or fills with the sign bit (right); NumPy leaves a negative shift undefined."""
    def forward(a, b):
        t = a if type(a) is np.ndarray else b
        _not_for(t, "bfc", kernel)
        dt = t.dtype
        a, b = (x if type(x) is np.ndarray else np.asarray(x).astype(dt) for x in (a, b))
        if dt.kind == "i":
            b = np.where(b < 0, dt.itemsize * 8, b)   # NumPy's result for too wide a shift
        return f(a, b)
    return forward


bitwise_left_shift = op(
    "bitwise_left_shift", None, "self, other", _shift(np.left_shift, "lshift_cpu"),
    promote=PROMOTE, numbers=True, dunders=("__lshift__",), rdunders=("__rlshift__",),
    inplace="bitwise_left_shift_", idunders=("__ilshift__",), self=None, other=None)

bitwise_right_shift = op(
    "bitwise_right_shift", None, "self, other", _shift(np.right_shift, "rshift_cpu"),
    promote=PROMOTE, numbers=True, dunders=("__rshift__",), rdunders=("__rrshift__",),
    inplace="bitwise_right_shift_", idunders=("__irshift__",), self=None, other=None)


# ---- filling (in place only, as people use them) ------------------------------------------

zero = op("zero", "ZeroBackward0", "self", np.zeros_like, function=False, method=False,
          inplace="zero_", self=_zeros)


# The C++ type names of PyTorch's "value cannot be converted" message.
_C10_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "int8_t",
              "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
              "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _fill(a, value):
    dt = a.dtype
    if isinstance(value, np.ndarray):    # a 0-d tensor: cast as .to() casts
        if value.dtype.kind == "c" and dt.kind not in "cb":
            from .shape import _warn_once
            _warn_once("Casting complex values to real discards the imaginary part")
            value = value.real
        return np.full_like(a, value)
    return np.full_like(a, _checked_scalar(value, dt))


def _checked_scalar(value, dt):
    """A Python number converted for NumPy dtype `dt` with c10's checked_convert: integers
    past [-2**63, 2**64) and values out of dt's range raise (inf fits floats; unsigned dtypes
    take negative integers down to -max, two's complement)."""
    if isinstance(value, builtins.int) and not -2**63 <= value < 2**64:
        raise OverflowError("int too big to convert" if value > 0 else
                            "can't convert negative int to unsigned")
    if dt.kind == "b" or isinstance(value, (builtins.bool, np.bool_)):
        return value
    parts = (value.real, value.imag) if isinstance(value, builtins.complex) else (value,)
    bad = dt.kind != "c" and len(parts) == 2 and parts[1] != 0
    if dt.kind in "iu":
        info = np.iinfo(dt)
        for p in parts[:1]:
            low = -info.max if info.min == 0 and isinstance(p, builtins.int) else info.min
            bad = bad or p != p or not low <= p <= info.max
        if dt.kind == "u" and parts[0] < 0 and not bad:
            return parts[0] % (info.max + 1)
    else:
        big = _dtype.float_max(dt)
        bad = bad or any(builtins.abs(p) > big and not math.isinf(p) for p in parts)
    if bad:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{_C10_NAMES.get(dt.name) or FROM_NP[dt].cpp} without "
                           "overflow")
    return value if dt.kind == "c" or len(parts) == 1 else parts[0]


_fill_scalar_ = op("fill_.Scalar", "FillBackward2", "self, value", _fill, function=False,
                   method=False, self=_zeros)
_fill_tensor_ = op("fill_.Tensor", "FillBackward3", "self, value", _fill, function=False,
                   method=False, self=_zeros, value=lambda grad: grad.sum())


@public("fill_", function=False)
def fill_(self, value):
    """Fill with a number or a 0-d tensor, in place."""
    from .inplace import dispatch_inplace
    if hasattr(value, "_data"):
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return dispatch_inplace(_fill_tensor_.op, (self, value), ())
    return dispatch_inplace(_fill_scalar_.op, (self,), (value,))


def _fill_out_of_place(a, value):
    return _fill(a.copy(), value)


_fill_scalar = op("fill.Scalar", "FillBackward0", "self, value", _fill_out_of_place,
                  function=False, method=False, self=_zeros)
_fill_tensor = op("fill.Tensor", "FillBackward1", "self, value", _fill_out_of_place,
                  function=False, method=False, self=_zeros, value=lambda grad: grad.sum())


@public("fill", method=False)
def fill(input, value):
    """A tensor like input filled with value (a number or a 0-d tensor)."""
    if hasattr(value, "_data"):
        if value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return _fill_tensor(input, value)
    return _fill_scalar(input, value)


# ---- predicates (not differentiable) --------------------------------------------------------

def _float_only(test, default):
    """A predicate of floating values; integers and bools are all `default`."""
    def forward(a):
        if a.dtype.kind in "fc":
            return test(a)
        return np.full(a.shape, default)
    return forward


def _real_only(test, message, error=RuntimeError, integers=None):
    """A predicate PyTorch refuses for complex tensors; integers and bools are all False
    unless `integers` says otherwise."""
    def forward(a):
        if a.dtype.kind == "c":
            raise error(message)
        if a.dtype.kind == "f":
            return test(a)
        return integers(a) if integers is not None else np.zeros(a.shape, np.bool_)
    return forward


isfinite = op("isfinite", None, "self", _float_only(np.isfinite, True), out=False, self=None)
isnan = op("isnan", None, "self", _float_only(np.isnan, False), out=False, self=None)
isinf = op("isinf", None, "self", _float_only(np.isinf, False), out=False, self=None)
isposinf = op("isposinf", None, "self",
              _real_only(lambda a: a == np.inf, "isposinf does not support complex inputs."),
              out=out_exact("isposinf does not support non-boolean outputs."), self=None)
isneginf = op("isneginf", None, "self",
              _real_only(lambda a: a == -np.inf, "isneginf does not support complex inputs."),
              out=out_exact("isneginf does not support non-boolean outputs."), self=None)
signbit = op("signbit", None, "self",
             _real_only(np.signbit, "signbit is not implemented for complex tensors.",
                        NotImplementedError, integers=lambda a: a < 0),
             out=out_exact("signbit does not support non-boolean outputs."), self=None)
isreal = op("isreal", None, "self",
            lambda a: a.imag == 0 if a.dtype.kind == "c" else np.ones(a.shape, np.bool_),
            out=False, self=None)


def _cpp_double(x):
    """A double as C++ streams print it (six significant digits)."""
    return f"{x:g}"


def _check_tensors(name, input, other, method=False):
    # positions as PyTorch counts them: a method's `other` is its first argument
    if not isinstance(input, Tensor):
        raise _not_tensor(name, "input", 1, input)
    if not isinstance(other, Tensor):
        raise _not_tensor(name, "other", 1 if method else 2, other)


@public("isclose", method=False)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise; NaNs equal when equal_nan."""
    from .registry import check_broadcast
    _check_tensors("isclose", input, other)
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{FROM_NP[a.dtype].legacy} did not match {FROM_NP[b.dtype].legacy}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_cpp_double(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_cpp_double(atol)}")
    check_broadcast((a, b))
    with np.errstate(all="ignore"):
        close = np.equal(a, b)
        if equal_nan and a.dtype.kind in "fc":
            close |= np.isnan(a) & np.isnan(b)
        if rtol == 0 and atol == 0:
            return make_tensor(np.asarray(close))
        if a.dtype == np.bool_:
            a, b = (x.astype(_dtype.get_default_dtype().np) for x in (a, b))
        # as PyTorch: rtol * other is floating (the default dtype for integers), and the
        # integer |input - other| is compared in that dtype
        scaled = b if b.dtype.kind in "fc" else b.astype(_dtype.get_default_dtype().np)
        allowed = atol + np.abs(rtol * scaled)
        actual = np.abs(a - b)
        if actual.dtype.kind in "iu":
            actual = actual.astype(allowed.dtype)
        close |= np.isfinite(actual) & (actual <= allowed)
    return make_tensor(np.asarray(close))


@public("allclose", method=False)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere (a Python bool)."""
    _check_tensors("allclose", input, other)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@public("equal", method=False)
def equal(input, other):
    """Whether the tensors have the same size and elements (a Python bool)."""
    _check_tensors("equal", input, other)
    if input._data.shape != other._data.shape:
        return False
    return bool(input.eq(other)._data.all())


def _method_checking_other(f, name):
    def method(self, other, *args, **kwargs):
        _check_tensors(name, self, other, method=True)
        return f(self, other, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f.__doc__
    return method


for _f in (isclose, allclose, equal):
    setattr(Tensor, _f.__name__, _method_checking_other(_f, _f.__name__))


def _nan_to_num(a, nan, posinf, neginf):
    if a.dtype.kind not in "fc":
        return a.copy()
    return np.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


nan_to_num = op("nan_to_num", "NanToNumBackward0", "self, nan=0.0, posinf=None, neginf=None",
                _nan_to_num, inplace="nan_to_num_",
                out=out_exact("nan_to_num: dtype of out: {got} should be same as input: "
                              "{expected}"),
                self=lambda grad, self: grad * isfinite(self))


# ---- sign manipulation and IEEE helpers ---------------------------------------------------

def _copysign(a, b):
    _not_for(a if type(a) is np.ndarray else b, "c", "copysign_cpu")
    return np.copysign(a, b)


def _copysign_self_grad(grad, self, result):
    # result / self is the sign flip, 0 where self is 0
    return grad * where(self == 0, 0.0, result / self)


copysign_tensor = op("copysign.Tensor", "CopysignBackward0", "self, other", _copysign,
                     promote=PROMOTE_FLOAT, function=False, method=False,
                     self=_copysign_self_grad,
                     other=lambda grad, other_shape: _zeros_of(grad, other_shape))

copysign_scalar = op("copysign.Scalar", "CopysignBackward1", "self, other", _copysign,
                     promote=PROMOTE_FLOAT, promote_with=("other",), function=False,
                     method=False, self=_copysign_self_grad)


@public("copysign", out=True)
def copysign(input, other):
    """input's magnitude with other's sign (other a tensor or a number)."""
    if not isinstance(input, Tensor):
        raise _bad_arguments("copysign", (input, other), _TENSOR_OR_NUMBER)
    if isinstance(other, Tensor):
        return copysign_tensor(input, other)
    return copysign_scalar(input, other)


public("copysign_", function=False)(_binary_inplace(copysign_scalar, copysign_tensor))


def _frexp(a):
    if a.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(a)
    return mantissa, exponent.astype(np.int32, copy=False)


frexp = op("frexp", "FrexpBackward0", "self", _frexp, returns=("mantissa", "exponent"),
           differentiable_outputs=(0,),
           out=(out_exact("torch.frexp() expects mantissa to have dtype {expected_cpp} but got "
                          "{got_cpp}"),
                out_exact("torch.frexp() expects exponent to have int dtype but got {got_cpp}")),
           self=lambda grads, result1: grads[0] / result1.exp2())   # result1: exponent


def _ldexp(a, e):
    t = _dtype.result_type((a, e))
    t = (_dtype.get_default_dtype() if t.category < 2 else t).np
    if a.dtype.kind == "f" and e.dtype.kind in "biu":
        # PyTorch's exact kernel for a floating input and an integer exponent, which it
        # takes as a 32-bit int
        if e.dtype == np.bool_:
            registry.check_broadcast((a, e))    # shapes first
            raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
        return np.ldexp(a.astype(t, copy=False), e.astype(np.int32))
    # otherwise self * pow(2.0, other), the power in other's floating dtype (its complex
    # counterpart for a complex self: complex32 for float16, which pow lacks); for a 0-d
    # other and a double or complex result, PyTorch's power is not rounded to other's dtype
    if e.ndim == 0 and (t.kind == "c" or t == np.float64):
        p = np.exp2(e, dtype=np.complex128 if e.dtype.kind == "c" else np.float64)
    elif a.dtype.kind == "c" and e.dtype == np.float16:
        raise NotImplementedError("\"pow\" not implemented for 'ComplexHalf'")
    else:
        p = _opmath(np.exp2)(e) if e.dtype.kind in "fc" else np.exp2(e, dtype=np.float64)
    return np.multiply(a.astype(t, copy=False), p.astype(t, copy=False))


_ldexp_row = op("ldexp.Tensor", "LdexpBackward0", "self, other", _ldexp, function=False,
                method=False,
                self=lambda grad, other: grad * _conj(pow(2, other)),
                other=lambda grad, result: grad * _conj(result) * _LN2)


@public("ldexp", out=out_cast("ldexp can't be cast to the desired output type {got}"))
def ldexp(input, other):
    """input * 2 ** other."""
    from .registry import _OUT_RESIZED
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        a, e = input._data, other._data
        if a.dtype.kind == "f" and e.dtype.kind in "iu" and a.size:
            # PyTorch's integer-exponent kernel writes into a tensor shaped like input
            registry.check_broadcast((a, e))
            shape = np.broadcast_shapes(a.shape, e.shape)
            if shape != a.shape:
                import warnings
                from .._dims import sizes_str
                warnings.warn(_OUT_RESIZED.format(sizes_str(a.shape), sizes_str(shape)),
                              UserWarning, stacklevel=2)
    return _ldexp_row(input, other)


@public("ldexp_", function=False)
def ldexp_(self, other):
    from .inplace import dispatch_inplace
    if not isinstance(other, Tensor):
        raise _not_tensor("ldexp_", "other", 1, other)
    if self._data.dtype.kind not in "fc":
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self.dtype.legacy}")
    if self._data.dtype.kind == "f" and other._data.dtype.kind in "biu":
        # the integer-exponent kernel is a TensorIterator writing into self: its shapes first
        from .inplace import _check_output_shape
        _check_output_shape((self._data, other._data), self._data)
    return dispatch_inplace(_ldexp_row.op, (self, other), ())


def _nextafter(a, b):
    _not_for(a, "biuc", "nextafter_cpu")
    return np.nextafter(a, b)


nextafter = op("nextafter", "NextafterBackward0", "self, other", _nextafter, promote=PROMOTE,
               inplace="nextafter_",
               self=lambda grad, self, other: where(self != other, grad, 0.0),
               other=lambda grad, other_shape: _zeros_of(grad, other_shape))


def _heaviside(a, values):
    if a.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return np.where(a == 0, values, a > 0).astype(a.dtype, copy=False)


heaviside = op("heaviside", NOT_IMPLEMENTED, "self, values", _heaviside, function=False,
               self=no_derivative("aten::heaviside"), values=no_derivative("aten::heaviside"))
out_without_derivative(
    "heaviside", heaviside,
    out_exact("heaviside is not yet implemented for tensors with different dtypes."))
# the in-place node's error names heaviside_
_heaviside_ = op("heaviside_", NOT_IMPLEMENTED, "self, values", _heaviside, function=False,
                 method=False, inplace="heaviside_", self=no_derivative("aten::heaviside_"),
                 values=no_derivative("aten::heaviside_"))


# ---- more arithmetic ----------------------------------------------------------------------

def _floor_divide(a, b):
    t = a if type(a) is np.ndarray else b
    _not_for(t, "bc", "div_floor_cpu")
    _nonzero_divisor(t, b)
    return np.floor_divide(a, b)


floor_divide = op("floor_divide", NOT_IMPLEMENTED, "self, other", _floor_divide,
                  promote=PROMOTE, numbers=True, dunders=("__floordiv__",),
                  rdunders=("__rfloordiv__",), function=False,
                  self=no_derivative("aten::floor_divide"),
                  other=no_derivative("aten::floor_divide"))
out_without_derivative("floor_divide", floor_divide)
_floor_divide_ = op("floor_divide_", NOT_IMPLEMENTED, "self, other", _floor_divide,
                    promote=PROMOTE, numbers=True, function=False, method=False,
                    self=no_derivative("aten::floor_divide_"),
                    other=no_derivative("aten::floor_divide_"))


@public("floor_divide_", function=False, dunders=("__ifloordiv__",))
def floor_divide_(self, other):
    from .inplace import dispatch_inplace
    _check_cast(_dtype.result_type((self, other)), self.dtype)
    return dispatch_inplace(_floor_divide_.op, (self, other), ())

# `3 % x`: remainder with a number first has no derivative in PyTorch
remainder_scalar_tensor = op(
    "remainder.Scalar_Tensor", NOT_IMPLEMENTED, "self, other",
    lambda a, b: _remainder(np.asarray(a, b.dtype), b), promote=PROMOTE, numbers=True,
    function=False, method=False, rdunders=("__rmod__",),
    self=None, other=no_derivative("aten::remainder"))


def _hypot(a, b):
    _not_for(a, "biuc", "hypot_cpu")
    return np.hypot(a, b)


hypot = op("hypot", "HypotBackward0", "self, other", _hypot, promote=PROMOTE, inplace="hypot_",
           self=lambda grad, self, result: grad * self / result,
           other=lambda grad, other, result: grad * other / result)


def _logaddexp(a, b):
    _not_for(a, "biu", "logaddexp_cpu")
    if a.dtype.kind == "c":
        return _logaddexp_complex(*np.broadcast_arrays(a, b))
    return _opmath(np.logaddexp)(a, b)


def _logaddexp_complex(a, b):
    # as PyTorch: the operand of larger real part factored out, NaN infectious, and equal
    # infinite real parts handled apart
    first = a.real < b.real
    low, high = np.where(first, a, b), np.where(first, b, a)
    out = np.log1p(np.exp(low - high)) + high
    inf = ~np.isfinite(low.real) & (low.real == high.real)
    out = np.where(inf & (low.real < 0), low, out)
    out = np.where(inf & (low.real > 0), np.log(np.exp(low) + np.exp(high)), out)
    nan = np.isnan(a.real) | np.isnan(a.imag) | np.isnan(b.real) | np.isnan(b.imag)
    return np.where(nan, complex(np.nan, np.nan), out).astype(a.dtype, copy=False)


def _logaddexp2(a, b):
    _not_for(a, "biuc", "logaddexp2_cpu")
    return _opmath(np.logaddexp2)(a, b)


logaddexp = op("logaddexp", "LogaddexpBackward0", "self, other", _logaddexp, promote=PROMOTE,
               self=lambda grad, self, other: grad / _conj(1 + (other - self).exp()),
               other=lambda grad, self, other: grad / _conj(1 + (self - other).exp()))

logaddexp2 = op("logaddexp2", "Logaddexp2Backward0", "self, other", _logaddexp2,
                promote=PROMOTE,
                self=lambda grad, self, other: grad / (1 + 2 ** (other - self)),
                other=lambda grad, self, other: grad / (1 + 2 ** (self - other)))


def _fmax_fmin(f, name):
    def forward(a, b):
        if a.dtype.kind in "cW":    # W: complex32
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return _first_on_tie(f(a, b), a)
    return forward


def _fmax_self(grad, self, other):
    # the gradient goes where the result came from: self on ties and where other is NaN
    return where((self >= other).logical_or(other.isnan()), grad, 0.0)


def _fmin_self(grad, self, other):
    return where((self <= other).logical_or(other.isnan()), grad, 0.0)


fmax = op("fmax", "FmaxBackward0", "self, other", _fmax_fmin(np.fmax, "fmax"), promote=PROMOTE,
          self=_fmax_self,
          other=lambda grad, self, other: grad - _fmax_self(grad, self, other))

fmin = op("fmin", "FminBackward0", "self, other", _fmax_fmin(np.fmin, "fmin"), promote=PROMOTE,
          self=_fmin_self,
          other=lambda grad, self, other: grad - _fmin_self(grad, self, other))


def _gcd_lcm(f, kernel):
    def forward(a, b):
        _not_for(a, "bfc", kernel)
        return f(a, b)
    return forward


gcd = op("gcd", None, "self, other", _gcd_lcm(np.gcd, "gcd_cpu"), promote=PROMOTE,
         inplace="gcd_", self=None, other=None)
lcm = op("lcm", None, "self, other", _gcd_lcm(np.lcm, "lcm_cpu"), promote=PROMOTE,
         inplace="lcm_", self=None, other=None)


def _addc(a, t1, t2, value, kernel, combine):
    _not_for(a, "b" if combine is np.multiply else "bW", kernel)    # W: complex32
    v = _checked_scalar(value, a.dtype)
    if a.dtype.kind in "iu":
        v = builtins.int(v)     # PyTorch casts value to the integer dtype: 2.5 counts as 2
    if a.dtype == np.float16:   # computed in float32, rounded once
        a, t1, t2 = (x.astype(np.float32) for x in (a, t1, t2))
        return (a + combine(v * t1, t2)).astype(np.float16)
    return a + combine(a.dtype.type(v) * t1, t2)


_addcmul_row = op(
    "addcmul", "AddcmulBackward0", "self, tensor1, tensor2, *, value=1",
    lambda a, t1, t2, value: _addc(a, t1, t2, value, "addcmul_cpu_out", np.multiply),
    promote=PROMOTE, function=False, method=False,
    self=lambda grad: grad,
    tensor1=lambda grad, tensor2, value: grad * _conj(tensor2 * value),
    tensor2=lambda grad, tensor1, value: grad * _conj(tensor1 * value))

def _addcdiv_tensor1_grad(grad, tensor2, value):
    # PyTorch computes value / tensor2 in a tensor of tensor2's dtype (filled with value,
    # divided in place), which cannot hold an integer or bool tensor2's float quotient
    if tensor2._data.dtype.kind in "biu":
        raise RuntimeError(f"result type {_dtype.get_default_dtype().legacy} can't be cast to "
                           f"the desired output type {FROM_NP[tensor2._data.dtype].legacy}")
    return grad * _conj(value / tensor2)


_addcdiv_row = op(
    "addcdiv", "AddcdivBackward0", "self, tensor1, tensor2, *, value=1",
    lambda a, t1, t2, value: _addc(a, t1, t2, value, "addcdiv_cpu_out", np.true_divide),
    promote=PROMOTE, function=False, method=False,
    self=lambda grad: grad,
    tensor1=_addcdiv_tensor1_grad,
    tensor2=lambda grad, tensor1, tensor2, value: -grad * _conj(value * tensor1 / (tensor2 * tensor2)))

_ADDCDIV_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")

_DEFAULT_VALUE = object()   # tells `value=1` given from not given (the deprecated order)


def _addc_arguments(name, tensor1, tensor2, deprecated, value, function):
    """(tensor1, tensor2, value) from PyTorch's order, or its deprecated one with the value
    first (`addcmul(input, 2, t1, t2)`, a hidden declaration), which warns once."""
    if not deprecated:
        return tensor1, tensor2, 1 if value is _DEFAULT_VALUE else value
    if function:
        old = (f"{name}(Tensor input, Number value, Tensor tensor1, Tensor tensor2, *, "
               "Tensor out = None)")
        new = (f"{name}(Tensor input, Tensor tensor1, Tensor tensor2, *, Number value = 1, "
               "Tensor out = None)")
    else:
        old = f"{name}(Number value, Tensor tensor1, Tensor tensor2)"
        new = f"{name}(Tensor tensor1, Tensor tensor2, *, Number value = 1)"
    if not _deprecated_warned:
        # PyTorch's argument parser warns once per process, for whichever overload comes first
        _deprecated_warned.append(True)
        from .shape import _warn_once
        _warn_once(f"This overload of {name} is deprecated:\n\t{old}\nConsider using one of "
                   f"the following signatures instead:\n\t{new}")
    return tensor2, deprecated[0], tensor1


_deprecated_warned = []


def _addc_variants(name, row, integer_check):
    """The function, method and in-place method of addcmul / addcdiv."""
    from .inplace import dispatch_inplace

    def check(tensor1, tensor2):
        if integer_check and all(isinstance(t, Tensor) and t._data.dtype.kind in "biu"
                                 for t in (tensor1, tensor2)):
            raise RuntimeError(_ADDCDIV_INTEGERS)

    def function(input, tensor1, tensor2, *deprecated, value=_DEFAULT_VALUE):
        tensor1, tensor2, value = _addc_arguments(name, tensor1, tensor2, deprecated, value, True)
        check(tensor1, tensor2)
        return row(input, tensor1, tensor2, value=value)

    def method(self, tensor1, tensor2, *deprecated, value=_DEFAULT_VALUE):
        tensor1, tensor2, value = _addc_arguments(name, tensor1, tensor2, deprecated, value, False)
        check(tensor1, tensor2)
        return row(self, tensor1, tensor2, value=value)

    def inplace(self, tensor1, tensor2, *deprecated, value=_DEFAULT_VALUE):
        tensor1, tensor2, value = _addc_arguments(name + "_", tensor1, tensor2, deprecated, value,
                                                  False)
        check(tensor1, tensor2)
        return dispatch_inplace(row.op, (self, tensor1, tensor2), (value,))

    verb = "*" if name == "addcmul" else "/"
    function.__doc__ = f"input + value * tensor1 {verb} tensor2."
    for f, n in ((function, name), (method, name), (inplace, name + "_")):
        f.__name__ = f.__qualname__ = n
    public(name, method=False, out=True)(function)
    public(name, function=False)(method)
    public(name + "_", function=False)(inplace)
    return function


addcmul = _addc_variants("addcmul", _addcmul_row, False)
addcdiv = _addc_variants("addcdiv", _addcdiv_row, True)


# float_power: pow computed in double precision (complex128 when a complex number is
# involved), the operands converted first; PyTorch records pow's nodes after the conversion.

def _power_dtype(*xs):
    complex_ = any(x._data.dtype.kind == "c" if isinstance(x, Tensor)
                   else isinstance(x, builtins.complex) for x in xs)
    return _dtype.complex128 if complex_ else _dtype.float64


@public("float_power", out=out_exact("the output given to float_power has dtype {got} but "
                                     "the operation's result requires dtype {expected}"),
        out_name="pow")
def float_power(input, exponent):
    """input ** exponent in double precision."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(
            "float_power() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(exponent).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
            " * (Number self, Tensor exponent, *, Tensor out = None)\n"
            " * (Tensor input, Number exponent, *, Tensor out = None)\n")
    dt = _power_dtype(input, exponent)
    cast = builtins.complex if dt is _dtype.complex128 else builtins.float
    input = input.to(dt) if isinstance(input, Tensor) else cast(input)
    exponent = exponent.to(dt) if isinstance(exponent, Tensor) else cast(exponent)
    return pow(input, exponent)


@public("float_power_", function=False)
def float_power_(self, exponent):
    dt = _power_dtype(self, exponent)
    if self.dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.legacy} but "
                           f"the operation's result requires dtype {dt.legacy}")
    if isinstance(exponent, Tensor):
        return pow_(self, exponent.to(dt))
    return pow_(self, builtins.complex(exponent) if dt is _dtype.complex128
                else builtins.float(exponent))


# ---- angles and powers of two -------------------------------------------------------------

_DEG2RAD, _RAD2DEG = math.pi / 180, 180 / math.pi


def _scale_real(factor, name):
    @_opmath
    def forward(a):
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return a * factor
    return forward


deg2rad = op("deg2rad", "Deg2RadBackward0", "self", _scale_real(_DEG2RAD, "deg2rad"),
             promote=FLOAT, inplace="deg2rad_", self=lambda grad: grad * _DEG2RAD)

rad2deg = op("rad2deg", "Rad2DegBackward0", "self", _scale_real(_RAD2DEG, "rad2deg"),
             promote=FLOAT, inplace="rad2deg_", self=lambda grad: grad * _RAD2DEG)

exp2 = op("exp2", "Exp2Backward0", "self", _opmath(np.exp2), promote=FLOAT, inplace="exp2_",
          self=lambda grad, result: grad * _conj(result) * _LN2)


def _angle(a):
    if a.dtype.kind == "c":
        return np.angle(a)
    # pi for negatives, 0 otherwise (-0.0 included), NaN kept
    return np.where(np.isnan(a), a, np.where(a < 0, math.pi, 0.0)).astype(a.dtype, copy=False)


def _angle_grad(grad, self):
    if self._data.dtype.kind != "c":
        return _zeros(grad)
    return where(self == 0, 0.0, grad * self / self.abs().pow(2) * 1j)


angle = op("angle", "AngleBackward0", "self", _angle, promote=FLOAT, self=_angle_grad)


# ---- inverse hyperbolic functions ---------------------------------------------------------

asinh = op("asinh", "AsinhBackward0", "self", _opmath(np.arcsinh), promote=FLOAT,
           function=("asinh", "arcsinh"), method=("asinh", "arcsinh"),
           self=lambda grad, self: grad * _conj((self.pow(2) + 1).rsqrt()))

acosh = op("acosh", "AcoshBackward0", "self", _opmath(np.arccosh), promote=FLOAT,
           function=("acosh", "arccosh"), method=("acosh", "arccosh"),
           self=lambda grad, self: grad * _conj((self.pow(2) - 1).rsqrt()))

atanh = op("atanh", "AtanhBackward0", "self", _opmath(np.arctanh), promote=FLOAT,
           function=("atanh", "arctanh"), method=("atanh", "arctanh"),
           self=lambda grad, self: grad * (1 / _conj(1 - self.pow(2))))


def _no_inplace_derivative(name):
    def formula(grad):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  "implemented.")
    return formula


# PyTorch gives the in-place versions their own nodes, whose backward raises
for _row, _alias in ((asinh, "arcsinh_"), (acosh, "arccosh_"), (atanh, "arctanh_")):
    _name = _row.op.name
    _inplace_row = op(_name + "_", f"{_name.capitalize()}Backward1", "self", _row.op.forward,
                      promote=FLOAT, function=False, method=False, inplace=_name + "_",
                      self=_no_inplace_derivative(_name))
    getattr(Tensor, _name + "_").__name__ = _name + "_"
    setattr(Tensor, _alias, getattr(Tensor, _name + "_"))


# ---- conjugation and identities -----------------------------------------------------------
# chainrule has no lazy conjugate or negative bit: conj() conjugates at once, so no tensor is
# ever a "conjugate view"; is_conj/is_neg are False and resolve_conj/resolve_neg return their
# input, which is what PyTorch does for every tensor whose bits are not set.

def _conj_physical(a):
    return np.conj(a) if a.dtype.kind == "c" else a.copy()   # (NumPy's conj of bool is int8)


_conj_physical_row = op("conj_physical", "ConjPhysicalBackward0", "self", _conj_physical,
                        function=False, method=False, self=lambda grad: conj_physical(grad))
_conj_physical_inplace = op("conj_physical_", "ConjPhysicalBackward1", "self", _conj_physical,
                            function=False, method=False, self=lambda grad: conj_physical(grad))


@public("conj_physical", function=False)
def conj_physical(input):
    """The complex conjugate, computed (real tensors are returned as they are)."""
    if input._data.dtype.kind != "c":
        return input
    return _conj_physical_row(input)


# PyTorch's conj_physical.out has no derivative formula: out= records a NotImplemented node
out_without_derivative("conj_physical", conj_physical, SAME_DTYPE)


@public("conj_physical_", function=False)
def conj_physical_(self):
    # a real tensor is left as it is, but PyTorch still records the op and bumps the version
    from .inplace import dispatch_inplace
    return dispatch_inplace(_conj_physical_inplace.op, (self,), ())


@public("positive", dunders=("__pos__",))
def positive(input):
    """input itself (refused for bool tensors, as unary + is)."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@public("resolve_conj")
def resolve_conj(input):
    """input itself: chainrule's conj() is never lazy."""
    return input


@public("resolve_neg")
def resolve_neg(input):
    """input itself: chainrule has no lazy negation."""
    return input


@public("is_conj")
def is_conj(input):
    """False: chainrule's conj() is never lazy."""
    return False


@public("is_neg")
def is_neg(input):
    """False: chainrule has no lazy negation."""
    return False


# ---- aliases --------------------------------------------------------------------------------

for _alias, _name in (("multiply_", "mul_"), ("subtract_", "sub_"), ("negative_", "neg_"),
                      ("__div__", "__truediv__"), ("__idiv__", "__itruediv__")):
    setattr(Tensor, _alias, getattr(Tensor, _name))


# ---- top-level in-place functions (torch.abs_(x), ...) --------------------------------------
# REGISTRY FEATURE WANTED (the lead owns registry.py): a row option, e.g.
# op(..., inplace="abs_", inplace_function=True), that also installs the in-place variant as
# FUNCTIONS["abs_"] = generate("abs_", "input" + signature[4:], row, dispatch_inplace,
# {"self": "input"}). Until then these wrappers forward to the Tensor methods, with the
# methods' signatures (first argument renamed `input`, as PyTorch's functions call it).

def _function_of_method(name):
    import inspect
    method = getattr(Tensor, name)

    def function(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    params = list(inspect.signature(method).parameters.values())
    function.__signature__ = inspect.Signature([params[0].replace(name="input")] + params[1:])
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"In-place {name[:-1]}: `input` is modified and returned."
    return function


for _name in ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
              "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
              "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_",
              "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_",
              "gcd_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "nan_to_num_",
              "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
              "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_",
              "zero_"):
    public(_name, method=False)(_function_of_method(_name))


# ---- real and imag: views of a complex tensor ---------------------------------------------
# As in PyTorch: view_as_real(x).select(-1, 0 or 1), so they share x's memory and version
# counter (`x.real.mul_(2)` changes x) and their graph is SelectBackward0 over
# ViewAsRealBackward0. A real tensor is its own real part and has no imaginary one.

def _complex_part(index):
    def part(input):
        from .aliasing import view_as_real
        return view_as_real(input).select(-1, index)
    return part


_real_part, _imag_part = _complex_part(0), _complex_part(1)


@public("real", method=False)
def real(input):
    """The real part of input: a view when input is complex, input itself otherwise."""
    # (is_complex, not _data: a vmap-batched tensor has none)
    try:
        return _real_part(input) if input.is_complex() else input
    except AttributeError:
        raise not_tensor_input("real", input) from None


@public("imag", method=False)
def imag(input):
    """The imaginary part of a complex input, as a view."""
    if input._data.dtype.kind not in "cW":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _imag_part(input)


def _set_real(self, value):
    real(self).copy_(value)


def _set_imag(self, value):
    imag(self).copy_(value)


Tensor.real = property(real, _set_real, doc="The real part (a view of a complex tensor).")
Tensor.imag = property(imag, _set_imag, doc="The imaginary part (a view of a complex tensor).")


# Note [Argument parser checks]: the functions above that PyTorch binds by declaration; a
# non-Tensor input is the parser's TypeError, not an AttributeError from inside
declare("abs_(Tensor input)", "positive(Tensor input)", "resolve_conj(Tensor input)",
        "resolve_neg(Tensor input)", "imag(Tensor input)",
        "conj_physical(Tensor input, *, Tensor? out=None)",
        Overloads("where", ["(Tensor condition)",
                            "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
                            "(Tensor condition, Number self, Tensor other)",
                            "(Tensor condition, Tensor input, Number other)",
                            "(Tensor condition, Number self, Number other)"], fast=(1, 0)),
        method=False)
# clamp's and clip's bounds are numbers or tensors (declared in that order by PyTorch)
_BOUNDS = "(Tensor input, {0} min = None, {0} max = None{1})"
_BOUND = "(Tensor input, {0} {1}{2})"
_OUT = ", *, Tensor out = None"
declare(*(Overloads(name, [_BOUNDS.format(kind, out) for kind in ("Tensor", "Number")],
                    fast=(1,))
          for name, out in (("clamp", _OUT), ("clip", _OUT), ("clamp_", ""), ("clip_", ""))),
        *(Overloads(name, [_BOUND.format(kind, name[6:], _OUT) for kind in ("Tensor", "Number")],
                    fast=(1, 0)) for name in ("clamp_min", "clamp_max")))
declare(*(Overloads(name, [_BOUND.format(kind, name[6:9], "") for kind in ("Tensor", "Number")],
                    fast=(1, 0)) for name in ("clamp_min_", "clamp_max_")), function=False)
# addcmul and addcdiv: the deprecated order (value first) is a hidden declaration, so a call
# that fits neither gets the parser's listing of the printed one
_ADDC = "(Tensor input, Tensor tensor1, Tensor tensor2, *, Number value = 1{})"
_ADDC_DEPRECATED = "(Tensor input, Number value, Tensor tensor1, Tensor tensor2{})"
declare(*(Overloads(name, [_ADDC.format(out)], hidden=[_ADDC_DEPRECATED.format(out)])
          for name, out in (("addcmul", ", Tensor out = None"),
                            ("addcdiv", ", Tensor out = None"))))
declare(*(Overloads(name, [_ADDC.format("")], hidden=[_ADDC_DEPRECATED.format("")])
          for name in ("addcmul_", "addcdiv_")), function=False)
# an alias's own name is the one PyTorch's parser reports (the row's is the op's)
declare(*(f"{name}(Tensor input, *, Tensor? out=None)" for name in (
            "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "fix",
            "negative", "square")),
        *(f"{name}_(Tensor input)" for name in (
            "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "fix", "negative",
            "square")), method=False)


# Note [Argument parser checks]: the methods' declarations (the method numbers its
# arguments after self; a registry row's or hand-written function's own message would not)
declare("arctan2(Tensor input, Tensor other)", "arctan2_(Tensor input, Tensor other)",
        "heaviside(Tensor input, Tensor values)", "heaviside_(Tensor input, Tensor values)",
        "ldexp(Tensor input, Tensor other)",
        *(f"{name}(Tensor input, float? nan=None, float? posinf=None, float? neginf=None)"
          for name in ("nan_to_num", "nan_to_num_")),
        *(Overloads(name, [f"(Tensor input, {kind} exponent)" for kind in ("Tensor", "Number")],
                    fast=(0, 1)) for name in ("float_power", "float_power_")),
        *(Overloads(name, [f"(Tensor input, Tensor end, {kind} weight)"
                           for kind in ("Tensor", "Number")], fast=(0, 1))
          for name in ("lerp", "lerp_")),
        Overloads("where", [], method_lines=["(Tensor condition, Tensor other)",
                                             "(Tensor condition, Number other)"],
                  fast=(), method_fast=(0, 1)),
        *(Overloads(name, ["(Tensor input)", "(Tensor input, *, int decimals)"], fast=(0, 1))
          for name in ("round", "round_")), function=False)
# binary ops PyTorch declares with a Tensor or a Number: their methods list both when given
# neither (not the hot ones, add, sub, mul, div and the comparisons, whose registry rows refuse
# it by name: a wrapper would cost every call; their aliases' methods are bound)
declare(*(Overloads(name + suffix, ["(Tensor input, Tensor other)",
                                     "(Tensor input, Number other)"], fast=(0, 1))
          for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                       "bitwise_right_shift", "copysign", "fmod", "remainder", "floor_divide",
                       "multiply", "true_divide", "greater", "greater_equal", "less",
                       "less_equal", "not_equal")
          for suffix in ("", "_")),
        *(Overloads(name, ["(Tensor input, Tensor other)",
                           "(Tensor input, Tensor other, *, str? rounding_mode)",
                           "(Tensor input, Number other)",
                           "(Tensor input, Number other, *, str? rounding_mode)"], fast=(0, 2))
          for name in ("divide", "divide_")),
        *(Overloads(name, ["(Tensor input, Tensor other, *, Number alpha = 1)",
                           "(Tensor input, Number other, Number alpha = 1)"], fast=(0, 1))
          for name in ("subtract", "subtract_")), function=False)
