"""Ops on the dtypes NumPy does not compute as PyTorch does: the reduced floating types
(bfloat16, the float8 types, complex32) and PyTorch's limited unsigned types (uint16,
uint32, uint64).

Note [Reduced and limited dtypes]
registry.dispatch (and the in-place path) send an op here when its first tensor input has
one of these dtypes (`_dtype.SPECIAL_NP`). Two things happen:

1. Kernels PyTorch lacks are refused. PyTorch's CPU kernels are compiled for a list of
   dtypes each: uint16/32/64 get only a few (mul, eq, sum, sort, ...), the float8 types
   fewer (conversion, mul, abs, eq, indexing), complex32 a handful. `_KERNELS` lists, per
   table row, the kernel name PyTorch's NotImplementedError names and which of these
   dtypes it has; rows not listed run for all of them (views, indexing, cat, ...).
   The check is on the dtype the op computes in: `uint16_tensor.exp()` computes in float32
   and runs; `uint16_tensor + 1` computes in uint16 and is refused as PyTorch refuses it.
2. Reduced floating types compute as PyTorch's "opmath": their arrays are widened to
   float32 (complex64 for complex32), the NumPy forward runs once, and the float results
   are rounded back once. Sums and products therefore accumulate in float32, as PyTorch's
   CPU reductions and matmul do. A Python number taking part is first rounded to the
   tensor's dtype (TensorIterator casts CPU scalars to the common dtype), except for mul
   and div, whose reduced-float kernels read the number at full precision
   (original_scalar_value<opmath_t>). Views keep their arrays (they must share memory),
   and a row given an explicit `dtype=` returns what that dtype says.
float16 is not here: NumPy's float16 ufuncs already compute in float32 and round once,
with weak Python scalars, and composite forwards use pointwise._opmath.
"""
import numpy as np

from .. import _dtype
from .._dtype import FROM_NP, OPMATH
from .registry import FLOAT, NONE, PROMOTE_FLOAT

__all__ = ["prepare"]

_U, _F8, _E8, _C32 = "u", "f", "e", "c"    # uint16/32/64, float8 (but e8m0), e8m0fnu, complex32


def _group(d):
    if d.group == _dtype._UNSIGNED:
        return _U
    if d is _dtype.float8_e8m0fnu:
        return _E8
    if d.group == _dtype._FLOAT8:
        return _F8
    if d is _dtype.complex32:
        return _C32
    return None      # bfloat16: PyTorch's CPU kernels cover it


# row -> (kernel name, or a function of the params giving it; the groups it supports).
# Found by running PyTorch 2.13 over the op database (tests/test_dtypes_extended.py checks
# every entry against it).
_KERNELS = {
    "add": ("add_stub", _C32),
    "sub": ("add_stub", _C32),
    "rsub": ("add_stub", _U + _C32),
    "neg": ("neg_cpu", _C32),
    "abs": ("abs_cpu", _F8 + _C32),
    "sgn": ("sign_cpu", _C32),
    "sign": ("sign_cpu", _C32),
    "reciprocal": ("reciprocal_cpu", _U),
    "div": ("div_cpu", _U),
    "div.Scalar": ("div_cpu", _U),
    "div.Tensor_mode": (lambda rounding_mode: {"floor": "div_floor_cpu", "trunc":
                                               "div_trunc_cpu"}.get(rounding_mode, "div_cpu"),
                        ""),
    "pow.Tensor_Tensor": ("pow", ""),
    "pow.Tensor_Scalar": ("pow", ""),
    "pow.Scalar": ("pow", _U),
    "fmod.Scalar": ("fmod_cpu", ""),
    "fmod.Tensor": ("fmod_cpu", ""),
    "remainder.Scalar": ("remainder_cpu", ""),
    "remainder.Tensor": ("remainder_cpu", ""),
    "frac": ("frac_cpu", ""),
    "lerp.Scalar": ("lerp_kernel_scalar", ""),
    "lerp.Tensor": ("lerp_kernel_tensor", ""),
    "atan2": ("atan2_cpu", _U),
    "clamp": (lambda min, max: "clamp_scalar_cpu" if min is not None and max is not None
              else "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu", ""),
    "clamp.Tensor": (lambda min, max: "clamp_cpu" if min is not None and max is not None
                     else "maximum_cpu" if min is not None else "minimum_cpu", ""),
    "clamp_min": ("clamp_min_scalar_cpu", _U),
    "clamp_max": ("clamp_max_scalar_cpu", _U),
    "clamp_min.Tensor": ("maximum_cpu", ""),
    "clamp_max.Tensor": ("minimum_cpu", ""),
    "relu": ("clamp_min_scalar_cpu", ""),
    "maximum": ("maximum_cpu", ""),
    "minimum": ("minimum_cpu", ""),
    "lt": ("lt_cpu", ""), "le": ("le_cpu", ""), "gt": ("gt_cpu", ""), "ge": ("ge_cpu", ""),
    "bitwise_not": ("bitwise_not_cpu", ""),
    "bitwise_and": ("bitwise_and_cpu", _U),
    "bitwise_or": ("bitwise_or_cpu", _U),
    "bitwise_xor": ("bitwise_xor_cpu", _U),
    "sigmoid": ("sigmoid_cpu", _U),
    "round.decimals": ("round_cpu", ""),
    # reductions and scans
    "sum": ("sum_cpu", _U), "sum.dim_IntList": ("sum_cpu", _U),
    "mean": ("sum_cpu", _U), "mean.dim": ("sum_cpu", _U),
    "prod": ("prod_out_cpu", _U), "prod.dim_int": ("prod_out_cpu", _U),
    "cumsum": ("cumsum_out_cpu", _U), "cumprod": ("cumprod_out_cpu", _U),
    "max": ("max_all", ""), "min": ("min_all", ""),
    "max.dim": ("max_cpu", ""), "min.dim": ("min_cpu", ""),
    "amax": ("max_values_cpu", ""), "amin": ("min_values_cpu", ""),
    "argmax": ("argmax_cpu", _C32), "argmin": ("argmin_cpu", _C32),
    "logsumexp": ("max_values_cpu", _U),
    "var.correction": ("std_cpu", _U + _C32), "std.correction": ("std_cpu", _U + _C32),
    "linalg_vector_norm": ("norm_cpu", _U + _C32),
    "trace": ("trace", ""),
    # linear algebra
    "mm": ("addmm_impl_cpu_", _F8), "addmm": ("addmm_impl_cpu_", _F8),
    "mv": ("addmv_impl_cpu", ""), "bmm": ("bmm", ""), "dot": ("dot", ""),
    # indexing, sorting, shapes
    "flip": ("flip_cpu", ""),
    "gather": ("scatter_gather_tensor_cpu", ""),
    "scatter.src": ("scatter_gather_tensor_cpu", ""),
    "scatter_add": ("scatter_gather_tensor_cpu", ""),
    "scatter.value": ("scatter_gather_scalar_cpu", ""),
    "index_copy": ("index_copy_cpu", _C32),
    "index_fill.int_Scalar": ("index_fill_cpu", _C32),
    "index_fill.int_Tensor": ("index_fill_cpu", _C32),
    "index_put": ("index_put", _F8 + _C32),
    "_index_put_impl_": ("index_put", _F8 + _C32),
    "masked_fill.Scalar": ("masked_fill", _C32),
    "masked_fill.Tensor": ("masked_fill", _C32),
    "masked_scatter": ("masked_scatter", ""),
    "masked_select": ("masked_select", _F8 + _E8 + _C32),
    "take": ("take_cpu", ""),
    "tril": ("tril", _C32), "triu": ("triu", _C32),
    "topk": ("topk_cpu", _C32),
    "sort": ("sorting_kernel_method_name", _U + _C32),
    "sort.stable": ("sorting_kernel_method_name", _U + _C32),
    "_unique2": ("unique", _U), "unique_dim": ("unique_dim", _U),
    "nonzero": ("nonzero_count_cpu", _C32), "nonzero_numpy": ("nonzero_count_cpu", _C32),
    # nn
    "native_batch_norm": ("batch_norm", ""),
    "native_layer_norm": ("LayerNormKernelImpl", ""),
    "convolution": ("slow_conv2d_cpu", ""),
    "max_pool2d_with_indices": ("max_pool2d", ""),
    "avg_pool2d": ("avg_pool2d", ""),
    "_adaptive_avg_pool2d": ("adaptive_avg_pool2d", ""),
    "binary_cross_entropy_with_logits": ("log_sigmoid_cpu", ""),
}
# Unary math computing in float for integer inputs: refused for the reduced types only.
for _name in ("acos", "asin", "atan", "cos", "sin", "tan", "tanh", "exp", "expm1", "log",
              "log10", "log1p", "log2", "sqrt", "erf", "erfc", "ceil", "floor", "trunc",
              "round"):
    _KERNELS[_name] = (f"{_name}_vml_cpu", _U)
for _name in ("cosh", "sinh", "rsqrt"):
    _KERNELS[_name] = (f"{_name}_cpu", _U)

# The reduced-float kernels of these read a Python number at full precision.
_UNROUNDED_NUMBERS = frozenset(("mul", "mul.Scalar", "div", "div.Scalar"))
# A Python number operand gives these float8 kernels another name, and no support.
_SCALAR_KERNELS = {"mul": "mul_cpu_reduced_float", "mul.Scalar": "mul_cpu_reduced_float",
                   "div": "div_cpu_reduced_float", "div.Scalar": "div_cpu_reduced_float"}


def _check_kernel(op, target, inputs, params):
    group = _group(target)
    if group is None:
        return
    if group in (_F8, _E8) and op.name in _SCALAR_KERNELS and any(
            not hasattr(x, "_data") and x is not None for x in inputs):
        kernel = _SCALAR_KERNELS[op.name]
    else:
        entry = _KERNELS.get(op.name)
        if entry is None or group in entry[1]:
            return
        kernel = entry[0]
        if callable(kernel):
            kernel = kernel(*(params[op.params.index(n)] for n in
                              kernel.__code__.co_varnames[:kernel.__code__.co_argcount]))
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{target.legacy}'")


def _target(op, inputs, arrays, params):
    """The dtype `op` computes in, as registry._promote finds it."""
    kind = op.promote
    if kind is NONE:
        return FROM_NP[next(a for a in arrays if type(a) is np.ndarray).dtype]
    if kind is FLOAT:
        target = FROM_NP[arrays[0].dtype]
    else:
        operands = inputs
        if op.promote_with:
            operands = tuple(inputs) + tuple(params[i] for i in op.promote_with)
        target = _dtype.result_type(operands)
    if target.category < 2 and (kind is FLOAT or kind is PROMOTE_FLOAT):
        target = _dtype.get_default_dtype()
    return target


def prepare(op, inputs, arrays, params):
    """(arrays, forward) for `op` over inputs of special dtypes: PyTorch's refusal for a
    kernel it lacks, else the arrays in the dtype to compute in and the forward to call
    (Note [Reduced and limited dtypes])."""
    target = _target(op, inputs, arrays, params)
    _check_kernel(op, target, inputs, params)
    t = target.np
    wide = OPMATH.get(t)
    if wide is None or op.view:
        if op.promote is not NONE:
            arrays = [a.astype(t) if type(a) is np.ndarray and a.dtype != t else a
                      for a in arrays]
        return arrays, op.forward
    promoted = op.promote is not NONE
    narrow = op.name not in _UNROUNDED_NUMBERS
    out = []
    for a in arrays:
        if type(a) is np.ndarray:
            if a.dtype == t or (promoted and a.dtype != wide):
                a = a.astype(t).astype(wide) if a.dtype != t else a.astype(wide)
        elif narrow and promoted and a is not None and not isinstance(a, (bool, np.bool_)):
            a = np.asarray(a, t).astype(wide)[()].item()
        out.append(a)
    if "dtype" in op.params and params[op.params.index("dtype")] is not None:
        return out, op.forward
    forward = op.forward

    def rounded(*args):
        result = forward(*args)
        if isinstance(result, tuple):
            return tuple(_round(r, wide, t) for r in result)
        return _round(result, wide, t)
    return out, rounded


def _round(a, wide, t):
    a = np.asarray(a) if not isinstance(a, np.ndarray) else a
    return a.astype(t) if a.dtype == wide else a
