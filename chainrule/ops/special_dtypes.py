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
with weak Python scalars, and composite forwards use pointwise._opmath. NumPy rounds such a
scalar to float16 first, though: mul, div and floor_divide, which read it at full precision
in PyTorch, go through registry.half_opmath instead.
"""
import numpy as np

from .. import _dtype
from .._dtype import FROM_NP, OPMATH, SPECIAL_NP
from .registry import FLOAT, NONE, PROMOTE_FLOAT

__all__ = ["prepare"]

# Groups of dtypes by the kernels PyTorch compiles for them: u uint16/32/64, f float8_e4m3fn
# and _e4m3fnuz, g float8_e5m2 and _e5m2fnuz (they have inf), e float8_e8m0fnu, c complex32,
# b bfloat16 (only LAPACK-backed and a few other kernels lack it).
_F8_GROUPS = {"float8_e4m3fn": "f", "float8_e4m3fnuz": "f", "float8_e5m2": "g",
              "float8_e5m2fnuz": "g", "float8_e8m0fnu": "e", "complex32": "c"}


def _group(d):
    if d.group == _dtype._UNSIGNED:
        return "u"
    if d.np.isbuiltin != 2:
        return "-"      # a NumPy dtype an op computes in (uint16.erfcx() in float32): no group
    return _F8_GROUPS.get(d.name, "b")     # b: bfloat16, which most CPU kernels cover


# row -> ((kernel, groups), ...): the NotImplementedError PyTorch 2.13 raises for the groups
# of dtypes its kernel lacks (a kernel given as a function of the row's params names the
# kernel those params pick, None when they pick one the group has). Found by running
# PyTorch over the op database and the rows' public functions; rows not listed run for
# every dtype (views, indexing, cat, where, eq, ...). The float8 kernels also lack a
# Python-number (or one-element) second operand for mul and div (_SCALAR_KERNELS).
_KERNELS = {
    "_adaptive_avg_pool2d": (("sum_cpu", "fgec"),),
    "_cdist_forward": (("cdist", "fgeb"),),
    "_euclidean_dist": (("pow", "fge"),),
    "_log_softmax": (("log_softmax_lastdim_kernel_impl", "ufgec"),),
    "_pdist_forward": (("pdist", "fgeb"),),
    "_softmax": (("softmax_lastdim_kernel_impl", "ufgec"),),
    "_trilinear": (("bmm", "ufgec"),),
    "_unique2": (("unique", "fgec"),),
    "abs": (("abs_cpu", "ue"),),
    "acos": (("acos_vml_cpu", "fgec"),),
    "acosh": (("acosh_cpu", "fgec"),),
    "acosh_": (("acosh_cpu", "fgec"),),
    "add": (("add_stub", "ufge"),),
    "add.Scalar": (("add_stub", "ufge"),),
    "addbmm": (("addmm_impl_cpu_", "uec"),),
    "addcdiv": (("addcdiv_cpu_out", "fgec"),),
    "addcmul": (("addcmul_cpu_out", "ufge"),),
    "addmm": (("addmm_impl_cpu_", "uec"),),
    "addmv": (("addmv_impl_cpu", "ufgec"),),
    "addr": (("addr_cpu", "ufgec"),),
    "amax": (("max_values_cpu", "ufgec"),),
    "amin": (("min_values_cpu", "ufgec"),),
    "angle": (("angle_cpu", "fgec"),),
    "argmax": (("argmax_cpu", "ufge"),),
    "argmin": (("argmin_cpu", "ufge"),),
    "argsort": (("sorting_kernel_method_name", "fge"),),
    "asin": (("asin_vml_cpu", "fgec"),),
    "asinh": (("asinh_cpu", "fgec"),),
    "asinh_": (("asinh_cpu", "fgec"),),
    "atan": (("atan_vml_cpu", "fgec"),),
    "atan2": (("atan2_cpu", "fgec"),),
    "atanh": (("atanh_cpu", "fgec"),),
    "atanh_": (("atanh_cpu", "fgec"),),
    "avg_pool2d": (("avg_pool2d", "ufgec"),),
    "baddbmm": (("baddbmm", "ufgec"),),
    "binary_cross_entropy": (("div_cpu_reduced_float", "fge"), ("div_cpu", "c"),),
    "binary_cross_entropy_with_logits": (("log_sigmoid_cpu", "ufgec"),),
    "bitwise_and": (("bitwise_and_cpu", "fgec"),),
    "bitwise_left_shift": (("lshift_cpu", "ufgec"),),
    "bitwise_not": (("bitwise_not_cpu", "u"),),
    "bitwise_or": (("bitwise_or_cpu", "fgec"),),
    "bitwise_right_shift": (("rshift_cpu", "ufgec"),),
    "bitwise_xor": (("bitwise_xor_cpu", "fgec"),),
    "bmm": (("bmm", "ufgec"),),
    "ceil": (("ceil_vml_cpu", "fge"),),
    "clamp_max": (("clamp_max_scalar_cpu", "ufge"),),
    "clamp_max.Tensor": (("minimum_cpu", "ufgec"),),
    "clamp_min": (("clamp_min_scalar_cpu", "ufge"),),
    "clamp_min.Tensor": (("maximum_cpu", "ufgec"),),
    "convolution": (("slow_conv2d_cpu", "ufge"),),
    "copysign.Scalar": (("copysign_cpu", "fgec"),),
    "copysign.Tensor": (("copysign_cpu", "fgec"),),
    "cos": (("cos_vml_cpu", "fgec"),),
    "cosh": (("cosh_cpu", "fgec"),),
    "cumprod": (("cumprod_out_cpu", "fgec"),),
    "cumsum": (("cumsum_out_cpu", "fgec"),),
    "deg2rad": (("mul_cpu_reduced_float", "fge"),),
    "div.Scalar": (("div_cpu_reduced_float", "fge"), ("div_cpu", "c"),),
    "dot": (("dot", "ufgec"),),
    "einsum": (("bmm", "ufgec"),),
    "elu": (("elu_cpu", "ufgec"),),
    "elu_backward": (("elu_backward_cpu", "ufgec"),),
    "erf": (("erf_vml_cpu", "fgec"),),
    "erfc": (("erfc_vml_cpu", "fgec"),),
    "exp": (("exp_vml_cpu", "fgec"),),
    "exp2": (("exp2", "fgec"),),
    "expm1": (("expm1_vml_cpu", "fgec"),),
    "flip": (("flip_cpu", "ufgec"),),
    "floor": (("floor_vml_cpu", "fge"),),
    "floor_divide": (("div_floor_cpu", "ufgec"),),
    "fmax": (("maximum_cpu", "u"), ("fmax_cpu", "fge"),),
    "fmin": (("minimum_cpu", "u"), ("fmin_cpu", "fge"),),
    "fmod.Scalar": (("fmod_cpu", "ufgec"),),
    "fmod.Tensor": (("fmod_cpu", "ufgec"),),
    "frac": (("frac_cpu", "ufgec"),),
    "frexp": (("frexp_cpu", "fge"),),
    "gather": (("scatter_gather_tensor_cpu", "ufgec"),),
    "gcd": (("gcd_cpu", "ufgec"),),
    "ge": (("ge_cpu", "ufgec"),),
    "gelu": (("GeluKernelImpl", "ufgec"),),
    "gelu_backward": (("GeluBackwardKernelImpl", "ufgec"),),
    "glu": (("glu_cpu", "fge"),),
    "gt": (("gt_cpu", "ufgec"),),
    "hardsigmoid": (("hardsigmoid_cpu", "fge"),),
    "hardswish": (("hardswish_cpu", "fge"),),
    "hardtanh": (("clamp_scalar_cpu", "ufge"),),
    "heaviside": (("heaviside_cpu", "ufge"),),
    "huber_loss": (("huber_cpu", "ufgec"),),
    "huber_loss_backward": (("huber_backward_cpu_out", "ufgec"),),
    "hypot": (("hypot_cpu", "ufgec"),),
    "index_copy": (("index_copy_cpu", "ufge"),),
    "index_fill.int_Scalar": (("index_fill_cpu", "ufge"),),
    "index_fill.int_Tensor": (("index_fill_cpu", "ufge"),),
    "isneginf": (("isneginf_cpu", "fge"),),
    "isposinf": (("isposinf_cpu", "fge"),),
    "lcm": (("lcm_cpu", "ufgec"),),
    "ldexp.Tensor": (("ldexp_cpu", "fge"), ("pow", "c"),),
    "le": (("le_cpu", "ufgec"),),
    "leaky_relu": (("leaky_relu_cpu", "ufgec"),),
    "leaky_relu_backward": (("leaky_relu_backward_cpu", "ufgec"),),
    "lerp.Scalar": (("lerp_kernel_scalar", "ufgec"),),
    "lerp.Tensor": (("lerp_kernel_tensor", "ufgec"),),
    "linalg_cross": (("cross", "ufgec"),),
    "linalg_vector_norm": (("norm_cpu", "fge"),),
    "log": (("log_vml_cpu", "fgec"),),
    "log10": (("log10_vml_cpu", "fgec"),),
    "log1p": (("log1p_vml_cpu", "fgec"),),
    "log2": (("log2_vml_cpu", "fgec"),),
    "logaddexp": (("logaddexp_cpu", "ufgec"),),
    "logaddexp2": (("logaddexp2_cpu", "ufgec"),),
    "logical_and": (("logical_and_cpu", "ufgec"),),
    "logical_not": (("logical_not_cpu", "ufgec"),),
    "logical_or": (("logical_or_cpu", "ufgec"),),
    "logical_xor": (("logical_xor_cpu", "ufgec"),),
    "logsumexp": (("max_values_cpu", "fge"), ("exp_vml_cpu", "c"),),
    "lt": (("lt_cpu", "ufgec"),),
    "masked_fill.Scalar": (("masked_fill", "ufge"),),
    "masked_fill.Tensor": (("masked_fill", "ufge"),),
    "masked_scatter": (("masked_scatter", "ufgec"),),
    "masked_select": (("masked_select", "u"),),
    "max": (("max_all", "ufgec"),),
    "max.dim": (("max_cpu", "ufge"),),
    "max_pool2d_with_indices": (("max_pool2d", "ufgec"),),
    "maximum": (("maximum_cpu", "ufge"),),
    "mean": (("sum_cpu", "fgec"),),
    "mean.dim": (("sum_cpu", "fgec"),),
    "min": (("min_all", "ufgec"),),
    "min.dim": (("min_cpu", "ufge"),),
    "minimum": (("minimum_cpu", "ufge"),),
    "mish": (("mish_cpu", "fge"),),
    "mm": (("addmm_impl_cpu_", "uec"),),
    "mse_loss": (("mse_cpu", "ufgec"),),
    "mse_loss_backward": (("mse_backward_cpu_out", "ufgec"),),
    "mul.Scalar": (("mul_cpu_reduced_float", "fge"),),
    "mv": (("addmv_impl_cpu", "ufgec"),),
    "nan_to_num": (("nan_to_num", "fgec"),),
    "native_batch_norm": (("batch_norm", "ufgec"),),
    "native_layer_norm": (("LayerNormKernelImpl", "ufgec"),),
    "neg": (("neg_cpu", "ufge"),),
    "nextafter": (("nextafter_cpu", "ufgec"),),
    "nll_loss": (("nll_loss_out_frame", "ufgec"),),
    "nonzero": (("nonzero_count_cpu", "ufge"),),
    "norm.ScalarOpt_dim": (("norm_cpu", "fge"),),
    "pow.Scalar": (("pow", "fgec"),),
    "pow.Tensor_Scalar": (("pow", "ufgec"),),
    "pow.Tensor_Tensor": (("pow", "ufgec"),),
    "prod": (("prod_out_cpu", "fgec"),),
    "prod.dim_int": (("prod_out_cpu", "fgec"),),
    "rad2deg": (("mul_cpu_reduced_float", "fge"),),
    "reciprocal": (("reciprocal_cpu", "fgec"),),
    "reflection_pad1d": (("reflection_pad1d", "ufgec"),),
    "reflection_pad2d": (("reflection_pad2d", "ufgec"),),
    "relu": (("clamp_min_scalar_cpu", "ufge"),),
    "remainder.Scalar": (("remainder_cpu", "ufgec"),),
    "remainder.Scalar_Tensor": (("remainder_cpu", "fgec"),),
    "remainder.Tensor": (("remainder_cpu", "ufgec"),),
    "replication_pad1d": (("replication_pad1d", "ufgec"),),
    "replication_pad2d": (("replication_pad2d", "ufgec"),),
    "rot90": (("flip_cpu", "ufgec"),),
    "round": (("round_vml_cpu", "fgec"),),
    "round.decimals": (("round_cpu", "ufgec"),),
    "rsqrt": (("rsqrt_cpu", "fgec"),),
    "rsub": (("add_stub", "fge"),),
    "rsub.Tensor": (("add_stub", "ufge"),),
    "scatter.reduce": (("scatter_gather_tensor_cpu", "ufgec"),),
    "scatter.src": (("scatter_gather_tensor_cpu", "ufgec"),),
    "scatter.value": (("scatter_gather_scalar_cpu", "ufgec"),),
    "scatter.value_reduce": (("scatter_gather_scalar_cpu", "ufgec"),),
    "scatter_add": (("scatter_gather_tensor_cpu", "ufgec"),),
    "searchsorted": (("searchsorted_out_cpu", "ufgec"),),
    "sgn": (("sign_cpu", "ufge"),),
    "sigmoid": (("sigmoid_cpu_reduced_float", "fge"), ("sigmoid_cpu", "c"),),
    "sigmoid_backward": (("sigmoid_backward_cpu", "ufgec"),),
    "sign": (("sign_cpu", "ufge"),),
    "signbit": (("signbit_cpu", "fge"),),
    "silu": (("silu_cpu", "ufgec"),),
    "sin": (("sin_vml_cpu", "fgec"),),
    "sinh": (("sinh_cpu", "fgec"),),
    "smooth_l1_loss": (("smooth_l1_cpu", "ufgec"),),
    "smooth_l1_loss_backward": (("smooth_l1_backward_cpu_out", "ufgec"),),
    "soft_margin_loss": (("neg_cpu", "ufge"),),
    "softplus": (("softplus_cpu", "ufgec"),),
    "softplus_backward": (("softplus_backward_cpu", "ufgec"),),
    "softshrink": (("softshrink_check", "fge"),),
    "sort": (("sorting_kernel_method_name", "fge"),),
    "sort.stable": (("sorting_kernel_method_name", "fge"),),
    "sqrt": (("sqrt_vml_cpu", "fgec"),),
    "std.correction": ((lambda dim: "std_cpu" if dim is not None else
                        "!std_var_all: Unsupported dtype", "fge"),),
    "sub": (("add_stub", "ufge"),),
    "sum": (("sum_cpu", "fgec"),),
    "sum.dim_IntList": (("sum_cpu", "fgec"),),
    "take": (("take_cpu", "ufgec"),),
    "tan": (("tan_vml_cpu", "fgec"),),
    "tanh": (("tanh_vml_cpu", "fgec"),),
    "tanh_backward": (("tanh_backward_cpu", "ufgec"),),
    "threshold_backward": (("threshold_cpu", "ufgec"),),
    "topk": (("topk_cpu", "ufge"),),
    "trace": (("trace", "ufgec"),),
    "tril": (("tril", "ufge"),),
    "triu": (("triu", "ufge"),),
    "trunc": (("trunc_vml_cpu", "fge"),),
    "unique_dim": (("unique_dim", "fgec"),),
    "var.correction": ((lambda dim: "std_cpu" if dim is not None else
                        "!std_var_all: Unsupported dtype", "fge"),),
    "vdot": (("dot", "ufge"), ("vdot", "c"),),
    "_index_put_impl_": (("index_put", "ue"),),
    # bfloat16: the kernels PyTorch's CPU build lacks for it
    "cholesky": (("cholesky_cpu", "b"),), "linalg_cholesky_ex": (("cholesky_cpu", "b"),),
    "cholesky_inverse": (("cholesky_inverse_out_cpu", "b"),),
    "cholesky_solve": (("cholesky_solve_cpu", "b"),),
    "geqrf": (("geqrf_cpu", "b"),), "linalg_qr": (("geqrf_cpu", "b"),),
    "histogram": (("histogramdd", "b"),), "_linalg_svd": (("linalg_svd_cpu", "b"),),
    "linalg_det": (("lu_cpu", "b"),), "linalg_lu_factor_ex": (("lu_cpu", "b"),),
    "linalg_lu_solve": (("lu_cpu", "b"),),
    "linalg_householder_product": (("orgqr_cpu", "b"),), "ormqr": (("ormqr_cpu", "b"),),
    "linalg_solve_triangular": (("triangular_solve_cpu", "b"),),
    "triangular_solve": (("triangular_solve_cpu", "b"),),
    "floor_divide_": (("div_floor_cpu", "ufgec"),),
    "heaviside_": (("heaviside_cpu", "ufge"),),
    "scatter_reduce.two": ((lambda reduce: "scatter_gather_tensor_cpu" if reduce in ("sum", "prod")
                            else f"scatter_gather_tensor_cpu_reduce_{reduce}", "ufgec"),),
    "lt_.Scalar": (("lt_cpu", "ufgec"),), "lt_.Tensor": (("lt_cpu", "ufgec"),),
    "le_.Scalar": (("le_cpu", "ufgec"),), "le_.Tensor": (("le_cpu", "ufgec"),),
    "gt_.Scalar": (("gt_cpu", "ufgec"),), "gt_.Tensor": (("gt_cpu", "ufgec"),),
    "ge_.Scalar": (("ge_cpu", "ufgec"),), "ge_.Tensor": (("ge_cpu", "ufgec"),),
    "index_put": (("index_put", "ue"),),
    "index_add": (("scatter_gather_tensor_cpu", "ufge"),),
    "div": (("div_cpu", "fgec"),),
    "isinf": (("isinf", "fe"),),
    "isfinite": (("isfinite", "f"),),
    "clamp": ((lambda min, max: "clamp_scalar_cpu" if min is not None and max is not None
               else "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu",
               "ufge"),),
    "clamp.Tensor": ((lambda min, max: "clamp_cpu" if min is not None and max is not None
                      else "maximum_cpu" if min is not None else "minimum_cpu", "ufge"),),
    "div.Tensor_mode": ((lambda rounding_mode: {"floor": "div_floor_cpu",
                                                "trunc": "div_trunc_cpu"}.get(rounding_mode),
                         "u"),
                        (lambda rounding_mode: {"floor": "div_floor_cpu", "trunc":
                                                "div_trunc_cpu"}.get(rounding_mode, "div_cpu"),
                         "fgec")),
}

# Reduced floats: rows whose PyTorch kernels accumulate or compute in float32 (opmath) and
# round once; the others compute in the reduced type, rounding after each NumPy step as
# PyTorch's scalar_t kernels do after each operation (float16 works this way in NumPy).
_NATIVE_ROWS = frozenset((
    "prod", "prod.dim_int", "index_add", "index_put", "_index_put_impl_", "scatter_add",
    "rsqrt", "acos", "asin", "acosh", "asinh", "nextafter", "huber_loss",
))
# Rows whose dtype param is the computed result dtype, not a conversion asked for.
_DTYPE_IS_RESULT = frozenset(("einsum", "_to_copy"))
# The reduced-float kernels of these read a Python number at full precision
# (original_scalar_value<opmath_t>); elsewhere it is rounded to the tensor's dtype first.
_UNROUNDED_NUMBERS = frozenset(("mul", "mul.Scalar", "div", "div.Scalar", "lerp.Scalar"))
# Scalar parameters that take part as an operand (a wrapped number in PyTorch), rounded too.
_NUMBER_PARAMS = {"fmod.Scalar": ("other",), "remainder.Scalar": ("other",),
                  "pow.Tensor_Scalar": ("exponent",), "pow.Scalar": ("self",),
                  "add.Scalar": ("other",), "rsub": ("other",), "clamp": ("min", "max"),
                  "clamp_min": ("min",), "clamp_max": ("max",)}
# A Python number operand gives these float8 kernels another name, and no support.
_SCALAR_KERNELS = {"mul": "mul_cpu_reduced_float", "mul.Scalar": "mul_cpu_reduced_float",
                   "div": "div_cpu_reduced_float", "div.Scalar": "div_cpu_reduced_float"}


def _check_kernel(op, target, inputs, params):
    group = _group(target)
    if group == "u" and "alpha" in op.params and isinstance(params[op.params.index("alpha")],
                                                             float):
        return      # PyTorch refuses a float alpha for integers first (the forward does too)
    kernel = None
    if group in "fge" and op.name in _SCALAR_KERNELS and len(inputs) > 1 and (
            not hasattr(inputs[1], "_data") or inputs[1]._data.size == 1):
        kernel = _SCALAR_KERNELS[op.name]
    for name, groups in _KERNELS.get(op.name, ()):
        if kernel is None and group in groups:
            kernel = name(*(_argument(op, p, inputs, params) for p in
                            name.__code__.co_varnames[:name.__code__.co_argcount])) \
                if callable(name) else name
    if kernel is not None and op.name == "div.Tensor_mode" and group in "fge" and (
            not hasattr(inputs[1], "_data") or inputs[1]._data.size == 1):
        kernel += "_reduced_float"
    if kernel is not None and kernel.startswith("!"):       # not a missing kernel: a check
        raise RuntimeError(f"{kernel[1:]} {target.legacy}")
    if kernel is not None:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{target.legacy}'")


def _explicit_dtype(op, params):
    if "dtype" in op.params and op.name not in _DTYPE_IS_RESULT:
        return params[op.params.index("dtype")]
    return None


def _argument(op, name, inputs, params):
    return inputs[op.inputs.index(name)] if name in op.inputs else params[op.params.index(name)]


def _target(op, inputs, arrays, params):
    """The dtype `op` computes in, as registry._promote finds it (an explicit dtype= first:
    PyTorch converts the input to it before the kernel runs)."""
    d = _explicit_dtype(op, params)
    if d is not None:
        return d
    kind = op.promote
    if kind is NONE and op.name != "sub":     # sub promotes in its forward (its bool check)
        first = FROM_NP[next(a for a in arrays if type(a) is np.ndarray).dtype]
        bounds = [b for b in (_argument(op, p, inputs, params) for p in _NUMBER_PARAMS.get(
            op.name, ())) if b is not None]
        # a float number operand makes an integer op compute in float (uint16.clamp(0.5))
        return _dtype.result_type([arrays[0]] + bounds) if bounds else first
    if kind is FLOAT:
        target = FROM_NP[arrays[0].dtype]
    else:
        # where's condition takes no part in promotion
        operands = inputs if op.inputs[0] != "condition" else inputs[1:]
        if op.promote_with:
            operands = tuple(inputs) + tuple(params[i] for i in op.promote_with)
        target = _dtype.result_type(operands)
    if target.category < 2 and (kind is FLOAT or kind is PROMOTE_FLOAT):
        target = _dtype.get_default_dtype()
    return target


def prepare(op, inputs, arrays, params):
    """(arrays, forward) for `op` over inputs of special dtypes: PyTorch's refusal for a
    kernel it lacks, else the arrays to compute on and the forward to call, which takes
    (*arrays, *params) as the row's own (Note [Reduced and limited dtypes])."""
    if op.name in ("sub", "rsub.Tensor"):
        from .pointwise import _refuse_bool_sub     # before promotion refuses uint16 with bool
        _refuse_bool_sub(*arrays[:2])
    target = _target(op, inputs, arrays, params)
    _check_kernel(op, target, inputs, params)
    t = target.np
    if _explicit_dtype(op, params) is not None and t.isbuiltin != 2:
        # an explicit dtype= (sum, norm, cumsum of bfloat16 as float64): converted first
        if t.kind != "c" and any(type(a) is np.ndarray and a.dtype.kind == "W" for a in arrays):
            from .shape import _warn_once
            _warn_once("Casting complex values to real discards the imaginary part")
        return [_dtype.cast(a, t) if type(a) is np.ndarray and a.dtype.isbuiltin == 2 else a
                for a in arrays], op.forward
    promoted = op.promote is not NONE
    if promoted:
        arrays = [a.astype(t) if type(a) is np.ndarray and a.dtype != t else a for a in arrays]
    if op.view and t.isbuiltin == 2:
        return _view_of_bits(op, arrays, t)
    wide = OPMATH.get(t)
    if wide is None or op.view:
        return arrays, op.forward
    name = op.name
    wide_mode = name not in _NATIVE_ROWS
    if wide_mode:
        arrays = [_widen(a, wide) if type(a) is np.ndarray and a.dtype == t else a
                  for a in arrays]
    if name not in _UNROUNDED_NUMBERS:
        arrays = [_rounded_number(a, t) for a in arrays]
    n = 1 if op.list_input else len(arrays)
    replace = {n + op.params.index(p): None for p in _NUMBER_PARAMS.get(name, ())}
    keep_dtype = False
    if "dtype" in op.params:
        i = op.params.index("dtype")
        if params[i] is target:       # computed in the wider type, rounded below
            replace[n + i] = FROM_NP[wide] if wide_mode else target
        else:                         # another dtype= says what the result is
            keep_dtype = params[i] is not None
    forward = op.forward

    def compute(*args):
        if replace:
            args = list(args)
            for i, value in replace.items():
                args[i] = _rounded_number(args[i], t) if value is None else value
        result = forward(*args)
        if keep_dtype:
            return result
        if isinstance(result, tuple):
            return tuple(_round(r, t) for r in result)
        return _round(result, t)
    return arrays, compute


def _view_of_bits(op, arrays, t):
    """A view row over an ml_dtypes array. NumPy's as_strided goes through
    __array_interface__, whose type string for float8_e5m2 ('<f1') and complex32 ('<W4')
    NumPy cannot read back: when it fails so, the row runs on the array's bits (an unsigned
    integer view of the same itemsize) and its result is viewed back."""
    bits = np.dtype(f"u{t.itemsize}")
    forward = op.forward

    def compute(*args):
        try:
            return forward(*args)
        except TypeError as e:
            if "not understood" not in str(e):
                raise
        args = [a.view(bits) if type(a) is np.ndarray and a.dtype == t else a for a in args]
        result = forward(*args)
        if isinstance(result, (tuple, list)):
            return type(result)(r.view(t) if r.dtype == bits else r for r in result)
        return result.view(t) if result.dtype == bits else result
    return arrays, compute


def involved(arrays):
    """Whether an op over several dtypes has an array of a special dtype (registry asks
    only when the first tensor's dtype is not one)."""
    return any(type(a) is np.ndarray and a.dtype in SPECIAL_NP for a in arrays)


def _widen(a, wide):
    """`a` in the wider dtype, keeping its broadcast (stride 0) dims: some forwards read
    them (sort leaves indices in order along one)."""
    if 0 not in a.strides or a.size == 0:
        return a.astype(wide)
    compact = a[tuple(slice(0, 1) if st == 0 else slice(None) for st in a.strides)]
    return np.broadcast_to(compact.astype(wide), a.shape)


def _rounded_number(x, t):
    """A Python number as the reduced-float tensor's dtype rounds it (still a Python
    number); anything else as it is."""
    if type(x) in (int, float, complex) or isinstance(x, np.number):
        return np.asarray(x, t).item()
    return x


def _round(a, t):
    """A float result of a forward over reduced floats, in the reduced dtype (a real
    result over complex32, abs or a norm, in float16)."""
    a = np.asarray(a)
    if a.dtype == t or a.dtype.kind not in "fcVW":
        return a
    if t.kind == "W" and a.dtype.kind == "f":
        return a.astype(np.float16)
    return _dtype.cast(a, t)
