"""Pointwise ops: arithmetic, unary math, comparisons.

Each row: name, node, signature, NumPy forward, one formula per input (see registry.py).
Formulas follow PyTorch's derivatives.yaml, including its choices at kinks and ties.
"""
import numpy as np

from .registry import FLOAT, PROMOTE, PROMOTE_FLOAT, op, public

# ---- arithmetic ---------------------------------------------------------------------------


def _add(a, b, alpha):
    return np.add(a, b) if alpha == 1 else np.add(a, np.multiply(b, alpha))


def _sub(a, b, alpha):
    return np.subtract(a, b) if alpha == 1 else np.subtract(a, np.multiply(b, alpha))


def _scaled(grad, alpha):
    return grad if alpha == 1 else grad * alpha


add = op("add", "AddBackward0", "self, other, *, alpha=1", _add, promote=PROMOTE, numbers=True,
         dunders=("__add__",), rdunders=("__radd__",), idunders=("__iadd__",), inplace="add_",
         self=lambda grad: grad,
         other=lambda grad, alpha: _scaled(grad, alpha))

sub = op("sub", "SubBackward0", "self, other, *, alpha=1", _sub, promote=PROMOTE, numbers=True,
         method=("sub", "subtract"), function=("sub", "subtract"),
         dunders=("__sub__",), idunders=("__isub__",), inplace="sub_",
         self=lambda grad: grad,
         other=lambda grad, alpha: -_scaled(grad, alpha))

rsub = op("rsub", "RsubBackward1", "self, other, alpha=1",
          lambda a, b, alpha: _sub(b, a, alpha), promote=PROMOTE, promote_with=("other",),
          method=False,
          dunders=("__rsub__",),
          self=lambda grad, alpha: -_scaled(grad, alpha))

mul = op("mul", "MulBackward0", "self, other", np.multiply, promote=PROMOTE, numbers=True,
         method=("mul", "multiply"), function=("mul", "multiply"),
         dunders=("__mul__",), rdunders=("__rmul__",), idunders=("__imul__",), inplace="mul_",
         self=lambda grad, other: grad * _conj(other),
         other=lambda grad, self: grad * _conj(self))

div = op("div", "DivBackward0", "self, other", np.true_divide, promote=PROMOTE_FLOAT, numbers=True,
         method=("div", "divide", "true_divide"), function=("div", "divide", "true_divide"),
         dunders=("__truediv__",), idunders=("__itruediv__",), inplace="div_",
         self=lambda grad, other: grad / _conj(other),
         other=lambda grad, self, other: -grad * _conj((self / other) / other))

neg = op("neg", "NegBackward0", "self", np.negative, method=("neg", "negative"),
         function=("neg", "negative"), dunders=("__neg__",), inplace="neg_",
         self=lambda grad: -grad)

reciprocal = op("reciprocal", "ReciprocalBackward0", "self", np.reciprocal, promote=FLOAT,
                inplace="reciprocal_",
                self=lambda grad, result: -grad * _conj(result * result))


@public("__rtruediv__", function=False)
def _rtruediv(self, other):
    # PyTorch computes `other / self` as self.reciprocal() * other (so grad_fn is MulBackward0).
    return reciprocal(self) * other


@public("__rdiv__", function=False)
def _rdiv(self, other):
    return reciprocal(self) * other


def _conj(t):
    return t.conj() if hasattr(t, "_data") and t._data.dtype.kind == "c" else t


# ---- powers -------------------------------------------------------------------------------

def _pow_scalar_grad(grad, self, exponent):
    if exponent == 0:
        return grad * 0
    return grad * _conj(exponent * self.pow(exponent - 1))


pow_tensor_scalar = op("pow.Tensor_Scalar", "PowBackward0", "self, exponent", np.power,
                       promote=PROMOTE, promote_with=("exponent",), function=False, method=False,
                       self=_pow_scalar_grad)

pow_tensor_tensor = op(
    "pow.Tensor_Tensor", "PowBackward1", "self, exponent", np.power, promote=PROMOTE,
    function=False, method=False,
    self=lambda grad, self, exponent: grad * _conj(
        where(exponent == 0, 0.0, exponent * self.pow(exponent - 1))),
    exponent=lambda grad, self, exponent, result: grad * _conj(
        where((self == 0) & (exponent >= 0), 0.0, result * self.log())))


def _pow_base_scalar_grad(grad, self, exponent, result):
    if self == 0:
        return grad * where(exponent >= 0, 0.0, result * float("-inf"))
    return grad * _conj(result * float(np.log(self)) if not isinstance(self, complex)
                        else result * complex(np.log(self)))


pow_scalar = op("pow.Scalar", "PowBackward2", "exponent, self", lambda e, s: np.power(s, e),
                promote=PROMOTE, promote_with=("self",), function=False, method=False,
                exponent=_pow_base_scalar_grad)


@public("pow", dunders=("__pow__",))
def pow(input, exponent):
    """input ** exponent, for tensor and/or number operands."""
    if not hasattr(input, "_data"):
        return pow_scalar(exponent, input)
    if hasattr(exponent, "_data"):
        return pow_tensor_tensor(input, exponent)
    return pow_tensor_scalar(input, exponent)


@public("__rpow__", function=False)
def _rpow(self, other):
    return pow_scalar(self, other)


@public("pow_", function=False, dunders=("__ipow__",))
def pow_(self, exponent):
    from .inplace import dispatch_inplace
    if hasattr(exponent, "_data"):
        return dispatch_inplace(pow_tensor_tensor.op, (self, exponent), ())
    return dispatch_inplace(pow_tensor_scalar.op, (self,), (exponent,))


# ---- unary math ---------------------------------------------------------------------------

exp = op("exp", "ExpBackward0", "self", np.exp, promote=FLOAT, inplace="exp_",
         self=lambda grad, result: grad * _conj(result))

log = op("log", "LogBackward0", "self", np.log, promote=FLOAT, inplace="log_",
         self=lambda grad, self: grad / _conj(self))


# ---- selection ----------------------------------------------------------------------------

def _where(condition, self, other):
    return np.where(condition, self, other)


where_ = op("where.self", "WhereBackward0", "condition, self, other", _where, promote=PROMOTE,
            numbers=True, function=False, method=False,
            condition=None,
            self=lambda grad, condition: where(condition, grad, 0.0),
            other=lambda grad, condition: where(condition, 0.0, grad))


@public("where", method=False)
def where(condition, input=None, other=None):
    """Elements of `input` where `condition` holds, else of `other`."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return where_(condition, input, other)


@public("where", function=False)
def _where_method(self, condition, y):
    return where_(condition, self, y)


# ---- comparisons (not differentiable) -----------------------------------------------------

for _name, _fn, _dunder, _alias in (
        ("eq", np.equal, "__eq__", None), ("ne", np.not_equal, "__ne__", "not_equal"),
        ("lt", np.less, "__lt__", "less"), ("le", np.less_equal, "__le__", "less_equal"),
        ("gt", np.greater, "__gt__", "greater"), ("ge", np.greater_equal, "__ge__", "greater_equal")):
    _names = (_name,) if _alias is None else (_name, _alias)
    op(_name, None, "self, other", _fn, promote=PROMOTE, numbers=True, function=_names,
       method=_names, dunders=(_dunder,), self=None, other=None)


# ---- logical and bitwise (not differentiable) ---------------------------------------------

for _name, _fn, _dunders, _rdunders in (
        ("logical_and", np.logical_and, (), ()), ("logical_or", np.logical_or, (), ()),
        ("logical_xor", np.logical_xor, (), ()),
        ("bitwise_and", np.bitwise_and, ("__and__",), ("__rand__",)),
        ("bitwise_or", np.bitwise_or, ("__or__",), ("__ror__",)),
        ("bitwise_xor", np.bitwise_xor, ("__xor__",), ("__rxor__",))):
    op(_name, None, "self, other", _fn, promote=PROMOTE, numbers=True, dunders=_dunders,
       rdunders=_rdunders, self=None, other=None)

logical_not = op("logical_not", None, "self", np.logical_not, self=None)
bitwise_not = op("bitwise_not", None, "self", np.invert, dunders=("__invert__",), self=None)
