"""Regression tests for the pointwise ops' disagreements with PyTorch found by the long fuzz
run (issue 12), each compared with PyTorch on the input that showed it."""
import pytest

import torch
from helpers import error_of, same, same_error

INF = float("inf")


def _grads(T, y, *xs):
    return T.autograd.grad(y, xs, T.ones_like(y))


def same_outcome(prog):
    """The same result, or the same exception, as PyTorch."""
    if error_of(lambda: prog(torch)) is None:
        same(prog)
    else:
        same_error(prog)


# ---- clamp ----------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda T, a, b: a.clamp(b, b), lambda T, a, b: a.clamp(0, 1),
    lambda T, a, b: a.clamp(True, True), lambda T, a, b: a.clamp(min=True),
    lambda T, a, b: a.clamp(max=True), lambda T, a, b: a.clamp_min(True),
    lambda T, a, b: a.clamp_max(False), lambda T, a, b: a.clone().clamp_(b, b),
    lambda T, a, b: a.clamp(T.tensor(True), T.tensor(False))])
def test_clamp_bool_kernels(call):
    # clamp's kernels (tensor and number bounds) lack bool; maximum / minimum have it
    def prog(T):
        return call(T, T.tensor([False, True, True]), T.tensor([True, False, True]))
    same_outcome(prog)


def test_clamp_bool_one_tensor_bound_runs():
    same(lambda T: T.stack([T.tensor([False, True]).clamp(min=T.tensor([True, False])),
                            T.tensor([False, True]).clamp_max(T.tensor([True, False]))]))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("bound", [complex(-INF, 0), 2 + 0j, complex(float("nan"), 0)])
def test_clamp_float_reads_real_complex_bound(dtype, bound):
    x = [[1e38, -2.5, 0.4], [1e-40, 3.3, INF]]
    same(lambda T: T.clamp(T.tensor(x, dtype=getattr(T, dtype)), min=bound))
    same(lambda T: T.clamp(T.tensor(x, dtype=getattr(T, dtype)), max=bound))
    same(lambda T: T.clamp(T.tensor(x, dtype=getattr(T, dtype)), bound, bound))


@pytest.mark.parametrize("prog", [
    lambda T: T.clamp(T.tensor([1.0, 2.0]), min=1.5 - 2j),      # read as a double first
    lambda T: T.clamp(T.tensor([1.0, 2.0]), max=1j),
    lambda T: T.clamp(T.tensor([1.0, 2.0]), min=1e300 + 0j),   # then as a float
    lambda T: T.clamp(T.tensor([1.0, 2.0]), max=-1e300),
    lambda T: T.clamp(T.tensor([1.0, 2.0], dtype=T.float16), 1e6),
    lambda T: T.clamp_min(T.tensor([1.0, 2.0]), 2 + 0j),
    lambda T: T.clamp(T.tensor([1, 2]), min=2 + 0j),            # promoted: complex result
    lambda T: T.clamp(T.tensor([1, 2], dtype=T.int32), max=-1e300),
    lambda T: T.clamp(T.tensor([True, False]), min=1e300)])
def test_clamp_number_bound_errors(prog):
    same_error(prog)


def test_clamp_number_bounds_promote():
    same(lambda T: T.clamp(T.tensor([1, -2, 3], dtype=T.uint8), -1e30, 2.5))
    same(lambda T: T.clamp(T.tensor([True, False]), min=-1e30, max=0))


# ---- lerp -----------------------------------------------------------------------------------

@pytest.mark.parametrize("weight", [
    ("complex128", 0.0520213 + 0j), ("complex64", 0.5 + 0.5j), ("int8", 0), ("bool", True),
    ("float32", 0.25), ("float64", 0.75)])
def test_lerp_zero_dim_weight_promotes(weight):
    # a 0-d weight takes part in type promotion: the result may be complex
    dtype, w = weight
    same(lambda T: T.tensor(0.39512206, dtype=T.float64).lerp(
        T.tensor([1e38, 1.0, -1e38], dtype=T.float64), T.tensor(w, dtype=getattr(T, dtype))))
    # (float16 with a complex weight: ComplexHalf, which lerp's kernel lacks)
    same_outcome(lambda T: T.tensor([1.0, 2.0]).half().lerp(
        T.tensor([3.0, 4.0]).half(), T.tensor(w, dtype=getattr(T, dtype))))
    same(lambda T: T.tensor([-0.537, 0.581, 0.365], dtype=T.float64).clone().lerp_(
        T.tensor([1.0, 0.028, 0.547], dtype=T.float64), T.tensor(0, dtype=T.int8)))


def test_lerp_zero_dim_complex32_weight():
    same(lambda T: T.tensor([1.0]).lerp(T.tensor([2.0]), T.tensor(0.5 + 1j, dtype=T.complex32)))


def test_lerp_zero_dim_weight_grads():
    def prog(T):
        a = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
        e = T.tensor([2.0, 3.0], dtype=T.float64, requires_grad=True)
        y = a.lerp(e, T.tensor(0.3, dtype=T.float32))
        return y, _grads(T, y, a, e)
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1.0]).lerp(T.tensor([2.0]), T.tensor([0.5], dtype=T.float64)),
    lambda T: T.tensor([1.0]).lerp(T.tensor(2.0, dtype=T.float64), T.tensor(0.5)),
    lambda T: T.tensor([1, 2]).lerp(T.tensor([1, 2]), T.tensor(2)),
    lambda T: T.tensor([1.0, 2.0]).lerp_(T.tensor([1.0, 2.0]), T.tensor(0.5 + 0j))])
def test_lerp_weight_errors(prog):
    same_error(prog)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex64", "int32"])
@pytest.mark.parametrize("weight", [1.5 - 2j, 1e300, 2 ** 40, True, float("nan")])
def test_lerp_number_weight_read_as_kernel_type(dtype, weight):
    def prog(T):
        x = T.tensor([3.0, 4.0]).to(getattr(T, dtype))
        return x.lerp(x, weight)
    same_outcome(prog)


# ---- add / sub ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "float16", "float32", "complex64"])
@pytest.mark.parametrize("alpha", [-3, -300, 1000, 2 ** 40, 2 ** 70, 1e300, 1e6])
def test_alpha_checked_against_the_dtype(dtype, alpha):
    def prog(T):
        a = T.tensor([1, 2, 3]).to(getattr(T, dtype))
        return T.add(a, a, alpha=alpha), T.sub(a, a, alpha=alpha)
    same_outcome(prog)


def test_add_uint8_negative_alpha_wraps():
    same(lambda T: T.add(T.tensor([0, 0, 0], dtype=T.uint8), T.tensor([3, 2, 5], dtype=T.uint8),
                         alpha=-3))


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1 + 0j, 2 + 0j]) + INF,
    lambda T: T.tensor([1 + 0j, 2 + 0j]) - T.tensor([INF, -INF]),
    lambda T: T.tensor([1 + 0j, 2 + 0j]).add(T.tensor([INF, 1.0]), alpha=2),
    lambda T: T.tensor([INF, -INF]) + T.tensor([1 + 0j, 2 + 0j]),
    lambda T: 2.5 - T.tensor([complex(-INF, 0)], dtype=T.complex64),
    lambda T: T.rsub(T.tensor([1 + 0j]), INF),
    lambda T: T.tensor([1.0, INF]) + complex(INF, 0),
    lambda T: T.tensor([1.0, INF]).add(2j, alpha=2),
    lambda T: T.tensor([1 + 0j, 2 + 0j]).clone().add_(T.tensor([INF, -INF])),
    lambda T: T.sub(T.tensor([[0.35, -INF]], dtype=T.float64),
                    T.tensor([-1 + 0j, 0.6 + 0j], dtype=T.complex64), alpha=0.5)
    + T.tensor([[0.35, -INF]], dtype=T.float64).subtract(1, alpha=2)])
def test_complex_add_multiplies_other_by_alpha(prog):
    # PyTorch computes self + alpha * other with a complex product, also for alpha = 1:
    # 1 * (inf+0j) is inf+nanj
    same(lambda T: T.view_as_real(prog(T)))


# ---- pow ------------------------------------------------------------------------------------

def test_pow_bool_false_exponent_grad():
    # PyTorch's zero-exponent shortcut misses a bool: 0 * x ** -1 (nan at 0)
    def prog(T):
        x = T.tensor([0.0, 0.0, INF, 2.0, -2.0], dtype=T.float64, requires_grad=True)
        return [_grads(T, x ** e, x) for e in (False, True, 0, 0.0)]
    same(prog)


def test_pow_exponent_grad_takes_log_in_result_dtype():
    # a float16 base's log is taken in the promoted dtype, not rounded to float16
    def prog(T):
        a = T.tensor([0.6284, 0.855, 1.702, 1.373], dtype=T.float16, requires_grad=True)
        b = T.tensor([-0.2813, -0.668, -1.0552, 0.4819], dtype=T.float64, requires_grad=True)
        return _grads(T, a ** b, a, b)
    same(prog, atol=1e-12, rtol=1e-12)


def test_pow_complex_exponent_grad():
    # 0 ** e: gradient 0 for a real e >= 0 (complex e: imaginary part 0); complex has no >=
    def prog(T):
        a = T.tensor([0.89 + 0j, 0.5 + 0j, 0j, 0j, 0j])
        b = T.tensor([0.3, -0.2, 0.5 + 0j, 0.5 + 1j, 0], requires_grad=True)
        c = T.tensor([0.3, -0.2], dtype=T.float64, requires_grad=True)
        return (T.view_as_real(_grads(T, a ** b, b)[0]),
                _grads(T, T.float_power(a[:2].to(T.complex128), c).real, c))
    same(prog)


# ---- addcdiv ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int64", "int8", "bool"])
def test_addcdiv_integer_tensor2_refuses_tensor1_grad(dtype):
    # PyTorch's formula divides in a tensor of tensor2's dtype, which cannot hold the quotient
    def prog(T):
        t1 = T.tensor([-0.05, 1.4, 0.7], dtype=T.float64, requires_grad=True)
        y = T.addcdiv(T.zeros(3, dtype=T.float64), t1, T.tensor([1, -1, 2]).to(getattr(T, dtype)),
                      value=-0.5)
        return _grads(T, y, t1)
    same_error(prog)


def test_addcdiv_integer_tensor1_tensor2_grad():
    def prog(T):
        t2 = T.tensor([0.5, 1.4, -0.7], dtype=T.float64, requires_grad=True)
        y = T.addcdiv(T.zeros(3, dtype=T.float64), T.tensor([1, -1, 2]), t2, value=-0.5)
        return _grads(T, y, t2)
    same(prog)


# ---- ldexp, abs_, rsub, complex32 -----------------------------------------------------------

@pytest.mark.parametrize("shapes", [((3, 4), (0, 4)), ((0, 4), (3, 4)), ((3, 4), (2, 4))])
def test_ldexp_integer_exponent_shape_mismatch(shapes):
    same_error(lambda T: T.ldexp(T.zeros(shapes[0], dtype=T.float64),
                                 T.zeros(shapes[1], dtype=T.int64)))


@pytest.mark.parametrize("call", [lambda T, a: a.abs_(), lambda T, a: T.abs_(a),
                                  lambda T, a: a.absolute_()])
def test_abs_inplace_refuses_complex(call):
    same_error(lambda T: call(T, T.tensor([0.6 + 0j, -0.4 + 0j], dtype=T.complex64)))


def test_abs_inplace_real():
    same(lambda T: T.tensor([-1.0, 2.0], requires_grad=True).clone().abs_())


@pytest.mark.parametrize("prog", [
    lambda T: T.rsub(T.tensor([[0.9, 0.1], [-0.7, -0.9]], dtype=T.float64),
                     T.tensor([False, True]), alpha=2),
    lambda T: T.rsub(T.tensor([True, False]), T.tensor([1.0, 2.0])),
    lambda T: T.rsub(T.tensor([1.0, 2.0]), T.tensor(True))])
def test_rsub_tensor_refuses_bool_before_promotion(prog):
    same_error(prog)


def test_rsub_tensor_promotes():
    def prog(T):
        a = T.tensor([1.0, 2.0], dtype=T.float16, requires_grad=True)
        y = T.rsub(a, T.tensor([3, 4]), alpha=2)
        return y, _grads(T, y, a)
    same(prog)


@pytest.mark.parametrize("name", ["remainder", "fmod", "minimum", "maximum"])
def test_complex32_promotion_refused(name):
    # a complex 0-d tensor with a float16 tensor computes in complex32
    same_error(lambda T: getattr(T, name)(T.tensor(-7.28 + 0j, dtype=T.complex64),
                                          T.tensor([-1.896, 1.859], dtype=T.float16)))


def test_complex_of_float16_grads():
    def prog(T):
        r = T.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=T.float16, requires_grad=True)
        i = T.tensor([[3.0, 4.0], [-2.0, 0.25]], dtype=T.float16, requires_grad=True)
        z = T.complex(r.t(), i.t())
        g = T.tensor([[1 + 2j, 3 + 4j], [0.5j, -1]]).to(T.complex32)
        return T.view_as_real(z), T.autograd.grad(z, (r, i), g), z.real, z.imag
    same(prog)


# ---- second round: orders of checks, clamp's in-place masks --------------------------------

@pytest.mark.parametrize("case", [
    ((), (2, 3), (), (0, 1, 2)), ((), (), (2, 3), (0,)), ((), (), (2, 3), (1,)),
    ((), (), (2, 3), (2,)), ((3,), (2, 3), (3,), (1,)), ((3,), (2, 3), (3,), (2,)),
    ((3,), (3,), (2, 3), (0,)), ((), (2, 3), (), (1,))])
def test_clamp_tensor_backward_masks_in_place(case):
    # PyTorch combines the masks of clamp's backward in place: a mask of a smaller shape
    # than the bounds' broadcast raises
    def prog(T):
        s_shape, lo_shape, hi_shape, wanted = case
        s = T.full(s_shape, 0.5, dtype=T.float64).requires_grad_(0 in wanted)
        lo = T.zeros(lo_shape, dtype=T.float64).requires_grad_(1 in wanted)
        hi = T.ones(hi_shape, dtype=T.float64).requires_grad_(2 in wanted)
        y = s.clamp(lo, hi)
        return _grads(T, y, *[t for i, t in enumerate((s, lo, hi)) if i in wanted])
    same_outcome(prog)


@pytest.mark.parametrize("call", [
    lambda a, lo, hi: a.clamp(lo, hi), lambda a, lo, hi: a.clamp(min=lo),
    lambda a, lo, hi: a.clamp(max=hi), lambda a, lo, hi: a.clamp_min(lo),
    lambda a, lo, hi: a.clamp_max(hi), lambda a, lo, hi: a.clamp_min(hi),
    lambda a, lo, hi: a.clone().clamp_(lo, hi), lambda a, lo, hi: a.clone().clamp_min_(hi),
    lambda a, lo, hi: lo.clamp_min(hi.to(hi.dtype.to_complex())),
    lambda a, lo, hi: lo.clamp(hi, hi.to(hi.dtype.to_complex()))])
def test_clamp_complex_refusals_and_shapes_in_order(call):
    # clamp refuses a complex self before the shapes; the kernels' complex refusals come after
    same_error(lambda T: call(T.zeros(0, dtype=T.complex128), T.zeros(0, dtype=T.float64),
                              T.ones(6, dtype=T.float64)))


@pytest.mark.parametrize("weight", [lambda T: T.zeros(3, 1, dtype=T.int16), lambda T: 0.5])
def test_lerp_integer_shapes_before_kernel(weight):
    same_error(lambda T: T.zeros(3, 4, dtype=T.int16).lerp(T.zeros(0, 4, dtype=T.int16),
                                                           weight(T)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_ldexp_complex_with_float16_exponent(dtype):
    same_error(lambda T: T.ldexp(T.tensor([1.5 + 0j, -2]).to(getattr(T, dtype)),
                                 T.tensor([2.0, -1.0], dtype=T.float16)))


def test_rsub_complex_self_real_other_grad():
    # other's gradient is the real part of the complex one (promoting op)
    def prog(T):
        other = T.tensor([float("nan"), 0.584, 0.5825], dtype=T.float64, requires_grad=True)
        y = T.rsub(T.tensor(-0.2055 + 0j, dtype=T.complex128), other, alpha=2)
        return T.view_as_real(y), _grads(T, T.view_as_real(y), other)
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([True, False]) ** False, lambda T: T.tensor([True, False]) ** True,
    lambda T: T.tensor([True, False]).clone().pow_(False),
    lambda T: T.tensor([True, False]) ** 2, lambda T: T.pow(2, T.tensor([True, False])),
    lambda T: T.pow(True, T.tensor([True, False])),
    lambda T: T.pow(False, T.tensor([1, 2]))])
def test_pow_bool(prog):
    # a bool tensor to a bool power stays bool; a bool base to a bool tensor power is refused
    same_outcome(prog)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_complex32(name):
    same_outcome(lambda T: T.view_as_real(getattr(T, name)(
        T.tensor(0.5 + 0j, dtype=T.complex64), T.tensor([1.0, 2.0], dtype=T.float16),
        T.tensor([1.0, 2.0], dtype=T.float16))))


def test_ldexp_bool_exponent_shapes_first():
    same_error(lambda T: T.ldexp(T.zeros(0, 4, dtype=T.float64), T.zeros(3, 4, dtype=T.bool)))
    same_error(lambda T: T.ldexp(T.zeros(3, 4, dtype=T.float64), T.zeros(3, 4, dtype=T.bool)))


@pytest.mark.parametrize("call", [
    lambda T, i, e, f0, f3: i.clone().lerp_(e, 1j), lambda T, i, e, f0, f3: i.clone().lerp_(e, 0.5),
    lambda T, i, e, f0, f3: f0.clone().lerp_(f3, 1j),
    lambda T, i, e, f0, f3: f0.clone().lerp_(f3.double(), 0.5),
    lambda T, i, e, f0, f3: f0.clone().lerp_(f3, f3.double()),
    lambda T, i, e, f0, f3: f0.clone().lerp_(f3, T.tensor(0.5, dtype=T.float64)),
    lambda T, i, e, f0, f3: f3.clone().lerp_(T.zeros(2), 0.5),
    lambda T, i, e, f0, f3: T.zeros(1, 3).lerp_(f3, T.zeros(2, 1))])
def test_lerp_inplace_output_shape_before_kernel(call):
    same_error(lambda T: call(T, T.tensor(2, dtype=T.int8), T.tensor([127, 1, 0], dtype=T.int8),
                              T.tensor(0.5), T.tensor([1.0, 2.0, 3.0])))


def test_lerp_inplace_broadcasting_operands():
    same(lambda T: (T.tensor([1.0, 2.0, 3.0]).lerp_(T.tensor(0.5), 0.5),
                    T.zeros(2, 3).lerp_(T.tensor([1.0, 2.0, 3.0]), T.full((2, 1), 0.25))))


@pytest.mark.parametrize("call", [
    lambda T, h, c: T.clamp(h, min=c), lambda T, h, c: T.clamp(h, max=c),
    lambda T, h, c: T.clamp(h, c, c), lambda T, h, c: h.clamp_min(c)])
def test_clamp_complex32_bounds_refused(call):
    same_error(lambda T: call(T, T.tensor([0.3, 0.8], dtype=T.float16),
                              T.tensor(-0.7 + 0j, dtype=T.complex64)))


@pytest.mark.parametrize("self_dtype", ["float16", "float32", "float64", "complex64",
                                        "complex128"])
@pytest.mark.parametrize("exponent_dtype", ["float16", "float32", "float64"])
def test_ldexp_zero_dim_float_exponent(self_dtype, exponent_dtype):
    # the power of a 0-d exponent is rounded to its dtype only for a float16/32 result
    same(lambda T: T.ldexp(T.tensor([0.7, 3.3]).to(getattr(T, self_dtype)),
                           T.tensor(-0.886, dtype=getattr(T, exponent_dtype))).abs(),
         atol=0, rtol=1e-13)
