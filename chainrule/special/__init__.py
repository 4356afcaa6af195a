"""torch.special: special functions, as PyTorch 2.13 has them.

Three kinds of functions, as in PyTorch:
- aliases of top-level ops (gammaln is lgamma, expit is sigmoid, gammainc is igamma, ...):
  they run the same op (same values, the same node, `LgammaBackward0`), and their argument
  errors name the special function (`special_gammaln(): argument 'input' ...`), as PyTorch's
  argument parser does;
- torch.special's own ops (erfcx, i0e, ndtri, zeta, ...), rows of ops/special.py with
  their derivatives, and the Bessel functions and orthogonal polynomials
  (ops/special_bessel.py, ops/special_polynomials.py), which PyTorch does not differentiate;
- ndtr, which PyTorch composes from erf (its graph has erf's nodes).
Kernels: NumPy only, following PyTorch's CPU kernels (see ops/special.py's docstring).
"""
import math
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..ops import registry as _registry
from ..ops import special as _special
from ..ops.nn_ops import add_scalar as _add_scalar, mul_scalar as _mul_scalar
from ..ops.pointwise import erf as _erf
from ..ops.special_polynomials import ROWS as _POLYNOMIAL_ROWS

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

# PyTorch's module exposes these docstring fragments (from torch._torch_docs)
common_args = {
    "input": "input (Tensor): the input tensor.",
    "generator": "generator (:class:`torch.Generator`, optional): a pseudorandom number "
                 "generator for sampling",
    "out": "out (Tensor, optional): the output tensor.",
    "memory_format": "memory_format (:class:`torch.memory_format`, optional): the desired "
                     "memory format of\n        returned tensor. Default: "
                     "``torch.preserve_format``."}
multi_dim_common = {
    **common_args,
    "dtype": "dtype (:class:`torch.dtype`, optional): the desired data type of returned "
             "tensor.\n        If specified, the input tensor is casted to :attr:`dtype` "
             "before the operation\n        is performed. This is useful for preventing data "
             "type overflows. Default: None.",
    "keepdim": "keepdim (bool): whether the output tensor has :attr:`dim` retained or not.",
    "opt_keepdim": "\n    keepdim (bool, optional): whether the output tensor has :attr:`dim` "
                   "retained or not. Default: ``False``.\n",
    "dim": "dim (int or tuple of ints): the dimension or dimensions to reduce.",
    "keepdim_details": "\nIf :attr:`keepdim` is ``True``, the output tensor is of the same "
                       "size\nas :attr:`input` except in the dimension(s) :attr:`dim` where "
                       "it is of size 1.\nOtherwise, :attr:`dim` is squeezed (see "
                       ":func:`torch.squeeze`), resulting in the\noutput tensor having 1 (or "
                       "``len(dim)``) fewer dimension(s).\n",
    "opt_dim": "\n    dim (int or tuple of ints, optional): the dimension or dimensions to "
               "reduce.\n",
    "opt_dim_all_reduce": "\n    dim (int or tuple of ints, optional): the dimension or "
                          "dimensions to reduce.\n        If ``None``, all dimensions are "
                          "reduced.\n"}


def __getattr__(name):
    # torch.special.torch is the torch module (PyTorch imports it there)
    if name == "torch":
        import chainrule
        return chainrule
    raise AttributeError(f"module 'chainrule.special' has no attribute '{name}'")


# ---- aliases of top-level ops ---------------------------------------------------------------

def _renamed(error, old, new):
    """PyTorch's argument-parser error under the special function's name."""
    text = str(error)
    if text.startswith(old + "("):
        return TypeError(new + text[len(old):])
    return error


def _alias(name, target, signature, call, doc, old=None, overloaded=False):
    """special_<name>(<signature>) calling `target(<call>)`: the top-level op itself, with
    its argument errors (naming `old`, default target's name) renamed; the tensor argument
    of a function without overloads is checked first, as PyTorch's parser does."""
    params = [p.strip() for p in signature.split(",")]
    check = "" if overloaded else (
        f"    if not isinstance(input, Tensor):\n"
        f"        raise TypeError('special_{name}(): argument \\'input\\' (position "
        f"{params.index('input') + 1}) must be Tensor, not ' + type(input).__name__)\n")
    src = (f"def special_{name}({signature}):\n"
           f"{check}"
           f"    try:\n"
           f"        return target({call})\n"
           f"    except TypeError as e:\n"
           f"        raise renamed(e, old, 'special_{name}') from None\n")
    ns = {"target": target, "renamed": _renamed, "old": old or target.__name__,
          "Tensor": Tensor, "__name__": __name__}
    exec(src, ns)
    f = ns[f"special_{name}"]
    f.__doc__ = doc
    return f


def _top(name):
    return _registry.FUNCTIONS[name]


_UNARY = "input, *, out=None"
_UNARY_CALL = "input, out=out"

digamma = _alias("digamma", _top("digamma"), _UNARY, _UNARY_CALL,
                 "The logarithmic derivative of the gamma function (torch.digamma).")
psi = _alias("psi", _top("digamma"), _UNARY, _UNARY_CALL, "Alias for special.digamma.")
gammaln = _alias("gammaln", _top("lgamma"), _UNARY, _UNARY_CALL,
                 "log |Gamma(input)| (torch.lgamma).")
polygamma = _alias("polygamma", _top("polygamma"), "n, input, *, out=None", "n, input, out=out",
                   "The n-th derivative of the digamma function (torch.polygamma).")
multigammaln = _alias("multigammaln", _top("mvlgamma"), "input, p, *, out=None",
                      "input, p, out=out",
                      "The multivariate log-gamma function of dimension p (torch.mvlgamma).")
erf = _alias("erf", _top("erf"), _UNARY, _UNARY_CALL, "The error function (torch.erf).")
erfc = _alias("erfc", _top("erfc"), _UNARY, _UNARY_CALL,
              "The complementary error function (torch.erfc).")
erfinv = _alias("erfinv", _top("erfinv"), _UNARY, _UNARY_CALL,
                "The inverse error function (torch.erfinv).")
expm1 = _alias("expm1", _top("expm1"), _UNARY, _UNARY_CALL, "exp(input) - 1 (torch.expm1).")
exp2 = _alias("exp2", _top("exp2"), _UNARY, _UNARY_CALL, "2 ** input (torch.exp2).")
log1p = _alias("log1p", _top("log1p"), _UNARY, _UNARY_CALL, "log(1 + input) (torch.log1p).")
expit = _alias("expit", _top("sigmoid"), _UNARY, _UNARY_CALL,
               "The logistic sigmoid 1 / (1 + exp(-input)) (torch.sigmoid).")
i0 = _alias("i0", _top("i0"), _UNARY, _UNARY_CALL,
            "The modified Bessel function of the first kind of order 0 (torch.i0).")
sinc = _alias("sinc", _top("sinc"), _UNARY, _UNARY_CALL,
              "The normalized sinc function sin(pi x) / (pi x) (torch.sinc).")
logit = _alias("logit", _top("logit"), "input, eps=None, *, out=None", "input, eps, out=out",
               "log(input / (1 - input)), input clamped to [eps, 1 - eps] if eps is given "
               "(torch.logit).")
xlogy = _alias("xlogy", _top("xlogy"), "input, other, *, out=None", "input, other, out=out",
               "input * log(other), 0 where input is 0 (torch.xlogy).", overloaded=True)
gammainc = _alias("gammainc", _top("igamma"), "input, other, *, out=None",
                  "input, other, out=out",
                  "The regularized lower incomplete gamma function (torch.igamma).")
gammaincc = _alias("gammaincc", _top("igammac"), "input, other, *, out=None",
                   "input, other, out=out",
                   "The regularized upper incomplete gamma function (torch.igammac).")
# (PyTorch's parser takes softmax's dtype positionally too)
softmax = _alias("softmax", _top("softmax"), "input, dim, dtype=None", "input, dim, dtype",
                 "Softmax along dim (torch.softmax), computed in dtype if given.")
log_softmax = _alias("log_softmax", _top("log_softmax"), "input, dim, dtype=None",
                     "input, dim, dtype",
                     "Log-softmax along dim (torch.log_softmax), computed in dtype if given.")
logsumexp = _alias("logsumexp", _top("logsumexp"), "input, dim, keepdim=False, *, out=None",
                   "input, dim, keepdim, out=out",
                   "log(sum(exp(input))) along dim, computed stably (torch.logsumexp).")


def _round(input, decimals, out):
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError("special_round(): argument 'decimals' must be int, not "
                        f"{type(decimals).__name__}")
    return _top("round")(input, decimals=decimals, out=out)


round = _alias("round", _round, "input, *, decimals=0, out=None", "input, decimals, out",
               "Round half to even, to `decimals` decimal places (torch.round with decimals).",
               old="round")


# ---- torch.special's own rows ---------------------------------------------------------------

def _row_function(fn, doc, signature="self"):
    """The public function of a row declared with function=False: PyTorch's signature and
    out= (Note [out=]), named special_<name> in messages as PyTorch's."""
    row = fn.op
    row.out, row.out_name = True, row.name.split(".")[0]
    names = [n.strip() for n in signature.split(",")]
    f = _registry._make_wrapper(row, signature, names, with_out=True)
    f.op = row
    f.__doc__ = doc
    return f


def _bessel(name, doc, argument="self"):
    from ..ops import special_bessel
    return _row_function(getattr(special_bessel, f"special_{name}"), doc, argument)


erfcx = _row_function(_special.special_erfcx, "The scaled complementary error function "
                      "exp(input^2) erfc(input).")
ndtri = _row_function(_special.special_ndtri, "The inverse of the standard normal cumulative "
                      "distribution function (the normal quantile function).")
log_ndtr = _row_function(_special.special_log_ndtr, "log of the standard normal cumulative "
                         "distribution function, accurate far into the lower tail.")
i0e = _row_function(_special.special_i0e, "exp(-|input|) i0(input): the exponentially "
                    "scaled modified Bessel function of order 0.")
i1 = _row_function(_special.special_i1, "The modified Bessel function of the first kind of "
                   "order 1.")
i1e = _row_function(_special.special_i1e, "exp(-|input|) i1(input): the exponentially scaled "
                    "modified Bessel function of order 1.")
entr = _row_function(_special.special_entr, "The elementwise entropy -input log(input) "
                     "(0 at 0, -inf for negative input).")
airy_ai = _bessel("airy_ai", "The Airy function Ai.", "x")
bessel_j0 = _bessel("bessel_j0", "The Bessel function of the first kind of order 0.")
bessel_j1 = _bessel("bessel_j1", "The Bessel function of the first kind of order 1.")
bessel_y0 = _bessel("bessel_y0", "The Bessel function of the second kind of order 0.")
bessel_y1 = _bessel("bessel_y1", "The Bessel function of the second kind of order 1.")
modified_bessel_i0 = _bessel("modified_bessel_i0",
                             "The modified Bessel function of the first kind of order 0.")
modified_bessel_i1 = _bessel("modified_bessel_i1",
                             "The modified Bessel function of the first kind of order 1.")
modified_bessel_k0 = _bessel("modified_bessel_k0",
                             "The modified Bessel function of the second kind of order 0.")
modified_bessel_k1 = _bessel("modified_bessel_k1",
                             "The modified Bessel function of the second kind of order 1.")
scaled_modified_bessel_k0 = _bessel("scaled_modified_bessel_k0",
                                    "exp(x) K0(x), the scaled modified Bessel function of the "
                                    "second kind of order 0.", "x")
scaled_modified_bessel_k1 = _bessel("scaled_modified_bessel_k1",
                                    "exp(x) K1(x), the scaled modified Bessel function of the "
                                    "second kind of order 1.", "x")
spherical_bessel_j0 = _bessel("spherical_bessel_j0",
                              "The spherical Bessel function of the first kind of order 0, "
                              "sin(x) / x.", "x")


# ---- overloaded functions: a row per overload, picked by the operands' types ---------------

_NUMBER = (bool, int, float, complex)


def _overloads(names):
    # PyTorch's three overloads, as its parser lists them
    first, second = names
    return ((f"Tensor {first}, Tensor {second}, *, Tensor out = None", ()),
            (f"Number {'self' if first == 'input' else first}, Tensor {second}, *, "
             "Tensor out = None", ()),
            (f"Tensor {first}, Number {second}, *, Tensor out = None", ()))


def _pick(name, rows, names, a, b):
    """The result of the overload (tensor-tensor, number-tensor, tensor-number) the operands
    select, or PyTorch's TypeError."""
    both, number_first, number_second = rows
    a_tensor, b_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_tensor and b_tensor:
        return both(a, b)
    if b_tensor and _is_number(a):
        return number_first(b, a)
    if a_tensor and _is_number(b):
        return number_second(a, b)
    raise _special._xlogy_type_error(name, (a, b), _overloads(names))


def _bad_out(name, names, args, out):
    # an out that is no Tensor matches none of the overloads
    text = str(_special._xlogy_type_error(name, args, _overloads(names)))
    head, _, rest = text.partition("), but expected")
    return TypeError(f"{head}, out={type(out).__name__}), but expected{rest}")


def _is_number(value):
    return isinstance(value, _NUMBER) or isinstance(value, (np.number, np.bool_))


def _overloaded(name, rows, names, doc, differentiable=True):
    """special_<name>(<first>, <second>, *, out=None) over PyTorch's three overloads."""
    first, second = names
    fname = f"special_{name}"
    src = (f"def {fname}({first}, {second}, *, out=None):\n"
           f"    if out is not None and not isinstance(out, Tensor):\n"
           f"        raise bad_out({fname!r}, names, ({first}, {second}), out)\n"
           f"    result = pick({fname!r}, rows, names, {first}, {second})\n"
           f"    if out is None:\n"
           f"        return result\n"
           f"    return write({fname!r}, result, out, ({first}, {second}), differentiable)\n")
    ns = {"pick": _pick, "rows": rows, "names": names, "write": _write_out,
          "bad_out": _bad_out, "Tensor": Tensor, "differentiable": differentiable,
          "__name__": __name__}
    exec(src, ns)
    f = ns[fname]
    f.__doc__ = doc
    return f


def _write_out(name, result, out, inputs, differentiable):
    # out= as Note [out=]; PyTorch writes a non-differentiable op's result into an out that
    # requires grad without complaint
    if differentiable:
        _registry.check_out_grad(name, result, out)
    return _registry.write_out(name, result, out, True, inputs, stacklevel=5)


xlog1py = _overloaded("xlog1py", (_special.special_xlog1py, _special._xlog1py_self_scalar,
                                  _special._xlog1py_other_scalar), ("input", "other"),
                      "input * log1p(other), 0 where input is 0 (unless other is nan).")
zeta = _overloaded("zeta", (_special.special_zeta, _special._zeta_self_scalar,
                            _special._zeta_other_scalar), ("input", "other"),
                   "The Hurwitz zeta function sum_k (k + other)^-input.")

_POLYNOMIAL_DOCS = {
    "chebyshev_polynomial_t": "The Chebyshev polynomial of the first kind T_n(x).",
    "chebyshev_polynomial_u": "The Chebyshev polynomial of the second kind U_n(x).",
    "chebyshev_polynomial_v": "The Chebyshev polynomial of the third kind V_n(x).",
    "chebyshev_polynomial_w": "The Chebyshev polynomial of the fourth kind W_n(x).",
    "shifted_chebyshev_polynomial_t": "The shifted Chebyshev polynomial T*_n(x) = "
                                      "T_n(2x - 1).",
    "shifted_chebyshev_polynomial_u": "The shifted Chebyshev polynomial U*_n(x) = "
                                      "U_n(2x - 1).",
    "shifted_chebyshev_polynomial_v": "The shifted Chebyshev polynomial V*_n(x) = "
                                      "V_n(2x - 1).",
    "shifted_chebyshev_polynomial_w": "The shifted Chebyshev polynomial W*_n(x) = "
                                      "W_n(2x - 1).",
    "hermite_polynomial_h": "The physicists' Hermite polynomial H_n(x).",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial He_n(x).",
    "laguerre_polynomial_l": "The Laguerre polynomial L_n(x).",
    "legendre_polynomial_p": "The Legendre polynomial P_n(x).",
}
for _name, _rows in _POLYNOMIAL_ROWS.items():
    globals()[_name] = _overloaded(_name, _rows, ("x", "n"),
                                   _POLYNOMIAL_DOCS[_name] + " The degree n is truncated to "
                                   "an integer; no gradients (PyTorch defines none).", False)


# ---- ndtr: composed from erf, as ATen's special_ndtr ---------------------------------------

def _ndtr(input):
    # (1 + erf(x / sqrt(2))) * 0.5 with C++'s Tensor-Scalar ops (their nodes: MulBackward1,
    # AddBackward1)
    return _mul_scalar(_add_scalar(_erf(_mul_scalar(input, math.sqrt(0.5))), 1), 0.5)


def ndtr(input, *, out=None):
    """The standard normal cumulative distribution function."""
    if not isinstance(input, Tensor):
        raise TypeError("special_ndtr(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    result = _ndtr(input)
    if out is None:
        return result
    # ATen's special_ndtr_out: a cast check, resize_output, then out.copy_(result), which
    # records out's history when result has one
    _registry.check_out_kind("special_ndtr", out)
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {result.dtype.legacy} can't be cast to the desired "
                           f"output type {out.dtype.legacy}")
    data = out._data
    if data.shape != result._data.shape:
        # resize_output works below autograd (a leaf that requires grad is refused by copy_)
        if data.size:
            from .._dims import sizes_str
            warnings.warn(_registry._OUT_RESIZED.format(sizes_str(data.shape),
                                                        sizes_str(result._data.shape)),
                          UserWarning, stacklevel=2)
        size = result._data.size
        out._data = data.reshape(result._data.shape) if (
            data.size == size and data.flags.c_contiguous) else np.empty(result._data.shape,
                                                                          data.dtype)
    return out.copy_(result)


ndtr.__name__ = ndtr.__qualname__ = "special_ndtr"
