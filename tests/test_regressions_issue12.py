"""Regression tests for the op-level defects of issue 12 (wrong values, NumPy errors reaching
users), each compared with PyTorch. A signed zero is compared through 1 / x (-inf vs inf)."""
import pytest

from helpers import same, same_error

NEG_ZEROS = ([-0.0, 0.0, -0.0, 2.0], [0.0, -0.0, -0.0, -1.0])


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "remainder"])
def test_signed_zero_binary(name):
    # small tensors: PyTorch's scalar loop (its SIMD body may pick the other zero on ties)
    same(lambda T: 1 / getattr(T, name)(T.tensor(NEG_ZEROS[0]), T.tensor(NEG_ZEROS[1])))
    same(lambda T: 1 / getattr(T, name)(T.tensor(NEG_ZEROS[1]), T.tensor(NEG_ZEROS[0])))


def test_signed_zero_remainder_keeps_dividend_sign():
    same(lambda T: 1 / T.remainder(T.tensor([-0.0, 0.0, -2.0, 2.0]),
                                   T.tensor([1.0, -1.0, 1.0, -1.0])))
    same(lambda T: 1 / (T.tensor([-0.0, -4.0, 4.0], dtype=T.float64) % 2))
    same(lambda T: 5.0 % T.tensor([-5.0, 5.0, 2.0]))


def test_signed_zero_relu_clamp():
    same(lambda T: 1 / T.relu(T.tensor([-0.0, 0.0, -1.0])))
    same(lambda T: 1 / T.clamp(T.tensor([-0.0, 0.0]), 0.0, 1.0))
    same(lambda T: 1 / T.clamp(T.tensor([-0.0, 0.0]), -0.0, 1.0))
    same(lambda T: 1 / T.clamp(T.tensor([-0.0, 0.0, -1.0]), max=-0.0))
    same(lambda T: 1 / T.clamp(T.tensor([-0.0, 0.0]), T.tensor(0.0), T.tensor(1.0)))


def test_clamp_tensor_and_number_bounds():
    same(lambda T: T.clamp(T.tensor([0.0, 3.0]), T.tensor(1.0), 2))
    same(lambda T: T.clamp(T.tensor([0.0, 3.0]), 1, T.tensor(2.0)))
    same(lambda T: T.clamp(T.tensor([1, 5]), T.tensor(1.5), 4))
    same(lambda T: T.tensor([0.0, 3.0]).clamp_(T.tensor(1), 2.5))
    # the 0-d tensor is read as a number (ClampBackward1); tensors only: ClampBackward0
    same(lambda T: T.clamp(T.tensor([0.0, 3.0], requires_grad=True), T.tensor(1.0), 2))
    same(lambda T: T.clamp(T.tensor([0.0, 3.0], requires_grad=True), T.tensor(1.0),
                           T.tensor(2.0)))
    # only a 0-d tensor that does not require grad passes for a number
    same_error(lambda T: T.clamp(T.tensor([0.0, 3.0]), T.tensor([1.0]), 2))
    same_error(lambda T: T.clamp(T.tensor([0.0]), T.tensor(1.0, requires_grad=True), 2.0))


WRAPPING = [
    lambda T: T.tensor([0], dtype=T.int32) == 2 ** 40,
    lambda T: T.tensor([0, 1], dtype=T.uint8) < 256,
    lambda T: T.tensor([3], dtype=T.uint8) * 300,
    lambda T: T.tensor([1], dtype=T.int32) + 2 ** 40,
    lambda T: T.tensor([1], dtype=T.int32) + 2 ** 63,
    lambda T: T.tensor([5], dtype=T.int64) + 2 ** 63,
    lambda T: 300 - T.tensor([3], dtype=T.int8),
    lambda T: T.tensor([3], dtype=T.int8) & 257,
    lambda T: T.tensor([3], dtype=T.int8) // 300,
    lambda T: T.tensor([3], dtype=T.int8) % 300,
    lambda T: T.remainder(300, T.tensor([7], dtype=T.int8)),
    lambda T: T.tensor([1], dtype=T.int8) << 300,
    lambda T: T.tensor([1], dtype=T.int8).sub(300),
    lambda T: T.tensor([1], dtype=T.int8).fmod(300),
    lambda T: T.tensor([1], dtype=T.int16) + T.tensor([1], dtype=T.int8) + 2 ** 40,
    lambda T: T.tensor([1], dtype=T.int8).mul_(300),
    lambda T: T.tensor([1], dtype=T.int8).add_(257),
    lambda T: T.tensor([1], dtype=T.int8).eq_(257),
    lambda T: T.div(T.tensor([1], dtype=T.int8), 300, rounding_mode="trunc"),
    lambda T: T.tensor([1], dtype=T.int8) / 300,     # true division: no wrapping
]


@pytest.mark.parametrize("prog", WRAPPING, ids=range(len(WRAPPING)))
def test_python_int_wraps_to_integer_dtype(prog):
    same(prog)


def test_python_int_out_of_int64_range():
    same_error(lambda T: T.tensor([1], dtype=T.int32) + (2 ** 64))
    same_error(lambda T: T.tensor([1], dtype=T.int32) + (-2 ** 63 - 1))


HALF_OPMATH = [
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16) * 1e-8,
    lambda T: 1e-8 * T.tensor([1000.0, 0.0, 3.0], dtype=T.float16),
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16) / 1e8,
    lambda T: 1e-8 / T.tensor([1000.0, 0.0, 3.0], dtype=T.float16),
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16) // 1e-8,
    lambda T: T.div(T.tensor([1000.0, 0.0], dtype=T.float16), 1e-8, rounding_mode="floor"),
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16).mul_(1e-8),
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16).div_(1e8),
    lambda T: T.tensor([1000.0, 0.0, 3.0], dtype=T.float16).floor_divide_(1e-8),
    lambda T: T.mul(T.tensor([1000.0, 3.0], dtype=T.float16), T.tensor(1e-8, dtype=T.float64)),
    # a 0-d tensor first, and add, are rounded to float16 first
    lambda T: T.mul(T.tensor(1e-8), T.tensor([1000.0, 3.0], dtype=T.float16)),
    lambda T: T.tensor([2048.0], dtype=T.float16) + 1.0001,
]


@pytest.mark.parametrize("prog", HALF_OPMATH, ids=range(len(HALF_OPMATH)))
def test_half_with_scalar_at_opmath_precision(prog):
    same(prog, atol=0, rtol=0)


def test_half_with_scalar_gradient():
    def prog(T):
        x = T.tensor([1000.0, 3.0], dtype=T.float16, requires_grad=True)
        (x * 1e-8).backward(T.tensor([1000.0, 1.0], dtype=T.float16))
        return x.grad
    same(prog, atol=0, rtol=0)


ACCUMULATION = [
    lambda T: T.tensor([65504.0, 65504.0], dtype=T.float16).mean(),
    lambda T: T.tensor([[65504.0, 65504.0]], dtype=T.float16).mean(1, keepdim=True),
    lambda T: T.tensor([65504.0, 65504.0], dtype=T.float16).sum(),      # still inf
    lambda T: T.tensor([1e30, -1e30]).std(),
    lambda T: T.tensor([1e30, -1e30]).var(),      # inf in float32, as in PyTorch
    lambda T: T.std_mean(T.tensor([[1e30, -1e30]]), 1),
    lambda T: T.var_mean(T.tensor([1e20, -1e20])),
    lambda T: T.tensor([65504.0, -65504.0], dtype=T.float16).std(),
    lambda T: T.tensor([1e30j, -1e30j]).std(),      # complex64 accumulates in float32
]


@pytest.mark.parametrize("prog", ACCUMULATION, ids=range(len(ACCUMULATION)))
def test_reductions_accumulate_as_pytorch(prog):
    same(prog)


def test_std_of_large_values_gradient():
    def prog(T):
        x = T.tensor([1e30, -1e30, 0.0], requires_grad=True)
        y = x.std()
        y.backward()
        return y, x.grad
    same(prog)


@pytest.mark.parametrize("base", [-2.0, -2, 0.5, 3])
def test_pow_number_base_complex_exponent_gradient(base):
    def prog(T):
        y = T.tensor([1.5j, 2 - 1j], requires_grad=True)
        r = base ** y
        r.backward(T.tensor([1 + 0j, 1j]))
        return r, y.grad
    same(prog)


def test_complex_python_scalar_gradients():
    # conjugates of Python complex numbers in mul / div / sub / add formulas
    def prog(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        g = T.tensor([1j, 1j])
        outs = [x * 2j, 2j * x, x / 2j, 2j / x, T.add(x, 2j, alpha=1j), T.sub(x, 2j, alpha=1j),
                x ** (1 + 2j), (1 - 1j) - x, T.add(T.tensor([1j]), x, alpha=1j)]
        return [T.autograd.grad(o, x, g)[0] for o in outs]
    same(prog)
    same_error(lambda T: T.sub(T.tensor([1.0]), 1, alpha=1j))
    same_error(lambda T: T.add(T.tensor([1.0]), 1, alpha=1j))


def test_rsub_tensor_overload():
    def prog(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, 5.0], requires_grad=True)
        r = T.rsub(a, b, alpha=2)
        r.backward(T.tensor([1.0, 2.0]))
        return r, a.grad, b.grad, T.rsub(a, 3), T.rsub(a, T.tensor(3.0))
    same(prog)


def test_lerp_complex_scalar_weight_gradient():
    def prog(T):
        a = T.tensor([1 + 1j, 2j], requires_grad=True)
        b = T.tensor([3 - 1j, 1.0 + 0j], requires_grad=True)
        return T.autograd.grad(T.lerp(a, b, 0.5 + 1.5j), (a, b), T.tensor([1j, 2 + 0j]))
    same(prog)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bad", [float("-inf"), float("nan")])
def test_cross_entropy_ignored_rows_do_not_contribute(reduction, bad):
    def prog(T):
        x = T.tensor([[1.0, 2, 0], [bad] * 3, [0.5, 0.1, 0.2]], requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor([1, -100, 2]), reduction=reduction)
        grad, = T.autograd.grad(loss.sum(), x)
        nll = T.nn.functional.nll_loss(x, T.tensor([1, -100, 2]), reduction=reduction,
                                       weight=T.tensor([1.0, 2.0, 3.0]))
        return loss, grad[0], nll
    same(prog)


@pytest.mark.parametrize("shape", [(1, 2), (2,), (1, 2, 2), (1, 2, 2, 2)])
@pytest.mark.parametrize("dtype", ["int64", "bool", "complex64"])
def test_nll_loss_refuses_non_floating_input(shape, dtype):
    same_error(lambda T: T.nn.functional.nll_loss(
        T.ones(shape).to(getattr(T, dtype)),
        T.zeros(shape[:1] + shape[2:] if len(shape) > 1 else (), dtype=T.int64)))


@pytest.mark.parametrize("weight", ["float16", "float32", "int64"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3, 3)])
def test_nll_loss_weight_of_another_dtype(weight, shape):
    # checked before the targets' bounds (target 9 is out of bounds)
    same_error(lambda T: T.nn.functional.nll_loss(
        T.zeros(shape, dtype=T.float64), T.full(shape[:1] + shape[2:], 9),
        weight=T.ones(4, dtype=getattr(T, weight))))


@pytest.mark.parametrize("target", ["int64", "int32", "bool"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_cross_entropy_class_probabilities_must_be_floating(target, shape):
    same_error(lambda T: T.nn.functional.cross_entropy(
        T.ones(shape, dtype=T.int64), T.zeros(shape, dtype=getattr(T, target))))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_empty_probability_targets(reduction, weighted):
    def prog(T):
        x = T.zeros(0, 3, requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.zeros(0, 3), reduction=reduction,
                                             weight=T.ones(3) if weighted else None)
        loss.sum().backward()
        node = loss.grad_fn
        return loss, x.grad, node, node.next_functions[0][0]
    same(prog)


REFUSED = [
    lambda T: T.where(T.tensor([1.0, 0.0]), T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])),
    lambda T: T.where(T.tensor([1, 0]), 1.0, 0.0),
    lambda T: T.tensor([1.0, 2.0]).where(T.tensor([1j, 0]), 0.0),
    lambda T: T.tensor([1j]) < T.tensor([2j]),
    lambda T: T.tensor([1j]) >= 1,
    lambda T: T.softmax(T.tensor([1, 2]), 0),
    lambda T: T.nn.functional.softmax(T.tensor([1, 2]), 0),
    lambda T: T.log_softmax(T.tensor([[1, 2]]), 1),
    lambda T: T.pow(T.tensor([True]), T.tensor([True])),
    lambda T: T.nn.functional.cross_entropy(T.ones(1, 2, dtype=T.int64),
                                            T.zeros(1, dtype=T.int64)),
]


@pytest.mark.parametrize("prog", REFUSED, ids=range(len(REFUSED)))
def test_refused_as_pytorch(prog):
    same_error(prog)


def test_where_uint8_condition_still_works():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda T: T.where(T.tensor([1, 0], dtype=T.uint8), T.tensor([1.0, 2.0]),
                               T.tensor([3.0, 4.0])))
        same(lambda T: T.where(T.tensor([1, 0], dtype=T.uint8)))


POOLS = [
    # windows wholly in the padding (dilation): PyTorch's start index, no size mismatch
    ((1, 1, 3, 1), 2, dict(padding=1, dilation=2)),
    ((1, 2, 2, 4), 2, dict(stride=3, padding=1, dilation=3)),
    ((2, 1, 5), 2, dict(stride=3, padding=1, dilation=2)),
    ((1, 1, 2, 3, 1), 2, dict(padding=1, dilation=2)),
]


@pytest.mark.parametrize("shape, kernel, kwargs", POOLS)
def test_max_pool_windows_in_padding(shape, kernel, kwargs):
    def prog(T):
        x = T.arange(float(np_prod(shape))).reshape(shape).requires_grad_()
        f = getattr(T.nn.functional, f"max_pool{len(shape) - 2}d")
        y, i = f(x, kernel, return_indices=True, **kwargs)
        if i.numel() and i.max() >= np_prod(shape[2:]):
            return y, i      # PyTorch's backward writes outside the input there
        y.backward(T.ones_like(y))
        return y, i, x.grad
    same(prog)


def np_prod(shape):
    out = 1
    for n in shape:
        out *= n
    return out


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_signed_zero(nd):
    def prog(T):
        x = T.tensor([-0.0, 0.0, 0.0, -0.0, -1.0, -0.0]).reshape((1, 1) + (6,) + (1,) * (nd - 1))
        f = getattr(T.nn.functional, f"max_pool{nd}d")
        return 1 / f(x, (2,) + (1,) * (nd - 1))
    same(prog)
    same(lambda T: 1 / T.nn.functional.max_pool2d(T.tensor([[[[-0.0, 0.0], [0.0, -0.0]]]]), 2))


def test_integer_target_of_a_requires_grad_source_records_nothing():
    def prog(T):
        y = T.zeros(3, dtype=T.int8)
        y[0] = T.tensor(2.5, requires_grad=True)
        z = T.zeros(3, dtype=T.int32)
        z.copy_(T.tensor([2.5, 1.0, 1.0], requires_grad=True))
        w = T.zeros(3, dtype=T.bool)
        w[:2].copy_(T.tensor([2.5, 0.0], requires_grad=True))
        return y, z, w
    same(prog)


EMPTY = [
    lambda T: T.nn.functional.softmax(T.zeros(0, 3), 0),
    lambda T: T.nn.functional.log_softmax(T.zeros(2, 0), 1),
    lambda T: T.nn.functional.softmax(T.zeros(0, 3, dtype=T.float16), 1),
    lambda T: T.softmax(T.zeros(0, 3, dtype=T.int64), 0),
    lambda T: T.div(T.zeros(0, dtype=T.int8), T.tensor([0], dtype=T.int8), rounding_mode="floor"),
    lambda T: T.div(T.zeros(1, dtype=T.int8), T.zeros(0, dtype=T.int8), rounding_mode="trunc"),
    lambda T: T.zeros(0, dtype=T.int8) // 0,
    lambda T: T.zeros(0, dtype=T.int8) % 0,
    lambda T: T.remainder(5, T.zeros(0, dtype=T.int8)),
]


@pytest.mark.parametrize("prog", EMPTY, ids=range(len(EMPTY)))
def test_empty_tensors(prog):
    same(prog)


def test_empty_softmax_gradient():
    def prog(T):
        x = T.zeros(0, 3, requires_grad=True)
        y = T.softmax(x, 0)
        y.sum().backward()
        return y, x.grad
    same(prog)


NUMPY_ERRORS = [
    lambda T: T.zeros(4).add_(T.zeros(3)),
    lambda T: T.zeros(4).mul_(T.zeros(2, 1)),
    lambda T: T.tensor([1], dtype=T.uint8) | 2.5,
    lambda T: T.tensor([1, "a"]),
    lambda T: T.tensor([[1, "a"]]),
    lambda T: T.tensor(["a", 1]),
    lambda T: T.tensor([1, b"a"]),
    lambda T: T.from_numpy(__import__("numpy").arange(3, dtype=">f4")),
    lambda T: T.zeros(3, dtype=T.complex64) + T.zeros(4, dtype=T.complex64),
    lambda T: T.zeros(3, dtype=T.complex64) * T.zeros(4),
    lambda T: T.zeros(3, dtype=T.complex128).sub_(T.zeros(2, dtype=T.complex128)),
]


@pytest.mark.parametrize("prog", NUMPY_ERRORS, ids=range(len(NUMPY_ERRORS)))
def test_pytorch_errors_not_numpy_errors(prog):
    same_error(prog)


ACCEPTED = [
    lambda T: T.tensor([5.0, -3.0]) // 2,
    lambda T: 5 % T.tensor([3.0, -2.0]),
    lambda T: 5 // T.tensor([3.0, -2.0]),
    lambda T: T.tensor([5, -3]) // 2,
    lambda T: 5 % T.tensor([3, -2]),
]


@pytest.mark.parametrize("prog", ACCEPTED, ids=range(len(ACCEPTED)))
def test_number_operands_accepted(prog):
    same(prog)


LIMITED_SUB = [
    lambda T: T.tensor([1], dtype=T.uint16) - T.tensor([1.0]),
    lambda T: T.tensor([1], dtype=T.uint16) - 1.5,
    lambda T: T.tensor([1], dtype=T.uint32).sub(T.tensor([1.0]), alpha=2),
    lambda T: 1.5 - T.tensor([1], dtype=T.uint16),
]


@pytest.mark.parametrize("prog", LIMITED_SUB, ids=range(len(LIMITED_SUB)))
def test_limited_unsigned_sub_computes_in_the_promoted_dtype(prog):
    same(prog)


@pytest.mark.parametrize("dtype", ["uint16", "uint64"])
def test_limited_unsigned_sub_kernel_still_refused(dtype):
    same_error(lambda T: T.tensor([1], dtype=getattr(T, dtype))
               - T.tensor([1], dtype=getattr(T, dtype)))


BOOL_SUB = [
    lambda T: T.tensor([True]) - T.tensor([1], dtype=T.uint16),
    lambda T: T.tensor([True]) - T.tensor([1], dtype=T.uint32),
    lambda T: T.tensor([1], dtype=T.uint16) - True,
    lambda T: T.sub(T.tensor([True]), T.tensor([1], dtype=T.uint64), alpha=2),
    lambda T: T.rsub(T.tensor([True]), T.tensor([1], dtype=T.uint16)),
]


@pytest.mark.parametrize("prog", BOOL_SUB, ids=range(len(BOOL_SUB)))
def test_bool_sub_refused_before_limited_unsigned_promotion(prog):
    same_error(prog)


AS_STRIDED_BOUNDS = [
    lambda T: T.zeros(3, 4).as_strided((2, 2), (1, 2), -1),
    lambda T: T.as_strided_scatter(T.zeros(3, 4), T.zeros(2, 2), (2, 2), (1, 2), -1),
    lambda T: T.as_strided_copy(T.zeros(3, 4), (2, -2), (1, 2)),
    lambda T: T.zeros(3, 4).as_strided((2,), (1, 2)),
    lambda T: T.as_strided_scatter(T.zeros(3, 4), T.zeros(2, 2), (2, 2), (1, 2), 12),
]


@pytest.mark.parametrize("prog", AS_STRIDED_BOUNDS, ids=range(len(AS_STRIDED_BOUNDS)))
def test_as_strided_geometry_checked_against_storage(prog):
    # NumPy's as_strided would read past the storage (the fuzzer's segfault)
    same_error(prog)


def _as_strided_scatter_of_views(T):
    base = T.arange(24.).reshape(3, 8)
    strided = T.as_strided_scatter(base[:, 1::2], T.full((20, 2), -1.), (20, 2), (1, 2))
    transposed = T.as_strided_scatter(T.arange(12.).reshape(4, 3).t(), -T.ones(2, 2), (2, 2),
                                      (1, 2), 1)
    return strided, strided.stride(), strided.storage_offset(), transposed


def test_as_strided_scatter_addresses_the_input_storage():
    same(_as_strided_scatter_of_views)


def test_as_strided_scatter_backward_checks_the_gradient_storage():
    def prog(T):
        y = T.randn(3, 4, dtype=T.float64, requires_grad=True)
        out = T.as_strided_scatter(y[1:], T.ones(2, 2, dtype=T.float64), (2, 2), (1, 2), 5)
        return T.autograd.grad(out, y, T.ones_like(out))
    same_error(prog)


def _x(T, dtype):
    return T.tensor([[0.5, -1.0], [2.0, 0.0]]).to(getattr(T, dtype))


# found by the long fuzz run: kernels refusing dtypes, dtype rules of mixed operands
KERNEL_DTYPES = [
    lambda T: T.lerp(_x(T, "float64"), _x(T, "complex64"), 0.5),
    lambda T: T.lerp(_x(T, "float64"), _x(T, "float64"), _x(T, "int32")),
    lambda T: T.cdist(_x(T, "float16"), _x(T, "float16")),
    lambda T: T.cdist(_x(T, "float16"), _x(T, "float64"), 1.0),
    lambda T: T.pdist(_x(T, "float16")),
    lambda T: T.nn.functional.softplus(_x(T, "int64")),
    lambda T: T.nn.functional.softplus(_x(T, "complex64")[:0]),
    lambda T: T.nn.functional.gelu(_x(T, "bool"), approximate="tanh"),
    lambda T: T.nn.functional.silu(_x(T, "uint8")),
    lambda T: T.nn.functional.huber_loss(_x(T, "int64"), _x(T, "int64")),
    lambda T: T.nn.functional.huber_loss(_x(T, "int64"), _x(T, "float32")),
    lambda T: T.nn.functional.huber_loss(_x(T, "complex64"), _x(T, "float64")),
    lambda T: T.nn.functional.smooth_l1_loss(_x(T, "bool"), _x(T, "int8")),
    lambda T: (lambda t: T.autograd.grad(T.nn.functional.huber_loss(_x(T, "float64"), t), t))(
        _x(T, "float16").requires_grad_()),
]


@pytest.mark.parametrize("prog", KERNEL_DTYPES, ids=range(len(KERNEL_DTYPES)))
def test_kernel_dtype_errors(prog):
    same_error(prog)


MIXED_DTYPES = [
    lambda T: T.nn.functional.huber_loss(_x(T, "float16"), _x(T, "float64"), reduction="none"),
    lambda T: T.nn.functional.huber_loss(_x(T, "float32"), _x(T, "int64")),
    lambda T: T.nn.functional.smooth_l1_loss(_x(T, "float32"), _x(T, "int64"), reduction="none"),
    lambda T: T.cdist(_x(T, "float16")[:0], _x(T, "float16")),
    lambda T: T.cdist(T.ones(30, 2, dtype=T.float16), T.ones(30, 2, dtype=T.float16)),
    lambda T: T.pdist(_x(T, "float16")[:1]),
]


@pytest.mark.parametrize("prog", MIXED_DTYPES, ids=range(len(MIXED_DTYPES)))
def test_mixed_dtype_results(prog):
    same(prog)


@pytest.mark.parametrize("loss", ["huber_loss", "smooth_l1_loss"])
def test_loss_target_gradient_node(loss):
    # the target's gradient is the backward with input and target swapped (no NegBackward0)
    def prog(T):
        x = T.tensor([0.5, -2.0, 0.1], dtype=T.float64, requires_grad=True)
        t = T.tensor([0.0, 1.0, 0.3], dtype=T.float64, requires_grad=True)
        g = T.autograd.grad(getattr(T.nn.functional, loss)(x, t), t, create_graph=True)[0]
        return g, g.grad_fn, T.autograd.grad(g.sum(), x)
    same(prog)


def _p(T, dtype="float32", scale=1.0):
    return (T.tensor([0.2, 0.5, 0.9]) * scale).to(getattr(T, dtype))


BCE = [
    lambda T: T.nn.functional.binary_cross_entropy(_p(T, "uint8"), _p(T, "uint8")),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T, "uint8"), _p(T)),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T), _p(T, "float64")),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T, scale=2.0), _p(T)),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T, scale=float("nan")), _p(T)),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T), _p(T, scale=-1.0)),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T), _p(T), T.ones(2)),
    lambda T: T.nn.functional.binary_cross_entropy(_p(T), _p(T), T.ones(2, 1)),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(_p(T), _p(T, "uint8")),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(_p(T, "int64"), _p(T, "bool")),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(_p(T), _p(T, "bool")),
    lambda T: T.binary_cross_entropy_with_logits(_p(T)[0], _p(T)[0], T.ones(3), None, 2),
]


@pytest.mark.parametrize("prog", BCE, ids=range(len(BCE)))
def test_binary_cross_entropy_errors(prog):
    same_error(prog)


def test_binary_cross_entropy_with_logits_has_the_targets_dtype():
    same(lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        _p(T, "float64").requires_grad_(), _p(T, "float16"), reduction="none"))


def _m(T, dtype, shape=(3, 3)):
    return (T.eye(3) + 1).expand(shape).to(getattr(T, dtype)) if 0 not in shape else T.zeros(
        shape, dtype=getattr(T, dtype))


LINALG_DTYPES = [
    lambda T: T.cholesky(_m(T, "int32")),
    lambda T: T.linalg.lu_factor(_m(T, "int16")),
    lambda T: T.geqrf(_m(T, "int32")),
    lambda T: T.cholesky_inverse(_m(T, "int32")),
    lambda T: T.triangular_solve(_m(T, "float32"), T.ones(2, 3)),
    lambda T: T.linalg.solve_triangular(_m(T, "float16", (0, 3, 3)), _m(T, "float16", (0, 3, 3)),
                                        upper=True),
    lambda T: T.ormqr(_m(T, "float16"), T.ones(3, dtype=T.float16), _m(T, "float16")),
    lambda T: T.ormqr(_m(T, "int32"), T.ones(3, dtype=T.int32), _m(T, "int32")),
    lambda T: T.nuclear_norm(_m(T, "float16")),
    lambda T: T.linalg.lu_solve(_m(T, "int32"), T.ones(3, dtype=T.int32), _m(T, "int32")),
    lambda T: T.linalg.lu_solve(T.ones(2, 3), T.ones(2, dtype=T.int32), T.ones(2, 3)),
]


@pytest.mark.parametrize("prog", LINALG_DTYPES, ids=range(len(LINALG_DTYPES)))
def test_linalg_kernel_dtype_errors(prog):
    same_error(prog)


LINALG_EMPTY = [
    lambda T: T.linalg.det(_m(T, "float16", (0, 3, 3))),
    lambda T: T.linalg.cholesky(_m(T, "float16", (0, 3, 3))),
    lambda T: T.cholesky(_m(T, "float64", (0, 3))),
    lambda T: T.linalg.lu_factor(_m(T, "float64", (0, 3))),
    lambda T: T.linalg.lu_factor(_m(T, "float16", (3, 0))),
    lambda T: T.linalg.svdvals(_m(T, "float16", (0, 3))),
    lambda T: T.linalg.eigh(_m(T, "float16", (0, 3, 3))),
    lambda T: T.linalg.solve(_m(T, "float16", (0, 3, 3)), _m(T, "float16", (0, 3, 3))),
    lambda T: T.linalg.ldl_factor(_m(T, "float16", (0, 3, 3))),
    lambda T: T.linalg.solve_triangular(_m(T, "float64"), T.ones(3, 2, dtype=T.bool),
                                        upper=True),
    lambda T: T.linalg.solve_triangular(_m(T, "float32"), T.ones(3, 2, dtype=T.float64),
                                        upper=False),
]


@pytest.mark.parametrize("prog", LINALG_EMPTY, ids=range(len(LINALG_EMPTY)))
def test_linalg_empty_and_mixed_inputs(prog):
    same(prog)


EMPTY_PRODUCTS = [
    lambda T: T.bmm(T.ones(0, 3, 4, dtype=T.float16), T.ones(0, 4, 5, dtype=T.float64)),
    lambda T: T.bmm(T.ones(2, 3, 0, dtype=T.float64), T.ones(2, 0, 5, dtype=T.float16)),
    lambda T: T.bmm(T.ones(0, 3, 4, dtype=T.bool), T.ones(0, 4, 5, dtype=T.bool)),
    lambda T: T.einsum("bij,bjk->bik", T.ones(0, 3, 4, dtype=T.int8),
                       T.ones(0, 4, 5, dtype=T.float16)),
    lambda T: T.einsum("i,i->", T.ones(0, dtype=T.float64), T.ones(0, dtype=T.float16)),
]


@pytest.mark.parametrize("prog", EMPTY_PRODUCTS, ids=range(len(EMPTY_PRODUCTS)))
def test_empty_batched_products_skip_dtype_checks(prog):
    same(prog)


MISC = [
    lambda T: T.special.xlog1py(T.tensor(2., dtype=T.float16), 0.5),
    lambda T: T.special.xlog1py(0.5, T.tensor(2., dtype=T.float16)),
    lambda T: T.nn.functional.fractional_max_pool2d(T.zeros(0, 2, 8, 6), 2, output_size=(4, 3),
                                                    _random_samples=T.rand(0, 2, 2)),
]


@pytest.mark.parametrize("prog", MISC, ids=range(len(MISC)))
def test_scalar_and_empty_inputs(prog):
    same(prog)


MISC_ERRORS = [
    lambda T: T.batch_norm_update_stats(T.zeros(0, 3, 2), T.zeros(3), T.ones(3), 0.1),
    lambda T: T.trace(T.tensor(True)),
    lambda T: T.ones(2, 2).renorm(2, 0, 1j),
    lambda T: T.ones(2, 2).renorm(1j, 0, 1),
]


@pytest.mark.parametrize("prog", MISC_ERRORS, ids=range(len(MISC_ERRORS)))
def test_checks_before_computing(prog):
    same_error(prog)


DTYPE_CHECK_ORDER = [
    lambda T: T._prelu_kernel(T.rand(2, 3, dtype=T.float64), T.ones(1, 3, dtype=T.int64)),
    lambda T: T._prelu_kernel(T.rand(2, 3).long(), T.ones(1, 3, dtype=T.float64)),
    lambda T: T._dirichlet_grad(T.ones(3, dtype=T.int16), T.ones(3, dtype=T.float64),
                                T.ones(3, dtype=T.float64)),
    lambda T: T._standard_gamma_grad(T.ones(3, dtype=T.int32), T.ones(3, dtype=T.int64)),
    lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 3, 3, dtype=T.int64),
                                          T.zeros(1, 2, 2, 2, dtype=T.float64),
                                          align_corners=False),
]


@pytest.mark.parametrize("prog", DTYPE_CHECK_ORDER, ids=range(len(DTYPE_CHECK_ORDER)))
def test_dtype_checks_in_pytorchs_order(prog):
    same_error(prog)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumulative_extremes_of_complex_without_elements_to_scan(name):
    same(lambda T: (getattr(T, name)(T.tensor(1 + 1j), 0),
                    getattr(T, name)(T.zeros(2, 0, dtype=T.complex64), 1)))


def test_mode_of_complex_without_elements_to_compare():
    same(lambda T: (T.mode(T.tensor(2 + 0j)), T.mode(T.zeros(3, 0, dtype=T.complex64), 0)))


COMPLEX_CLAMP = [
    lambda T: T.clamp_min(T.ones(3, dtype=T.complex64), T.zeros(3)),
    lambda T: T.clamp_max(T.ones(3), T.zeros(3, dtype=T.complex64)),
    lambda T: T.clamp(T.ones(3), T.zeros(3, dtype=T.complex64), T.ones(3)),
    lambda T: T.clamp(T.ones(3), None, T.zeros(3, dtype=T.complex64)),
    lambda T: T.clamp(T.ones(3, dtype=T.complex64), T.zeros(3), T.ones(3)),
]


@pytest.mark.parametrize("prog", COMPLEX_CLAMP, ids=range(len(COMPLEX_CLAMP)))
def test_clamp_by_tensors_refuses_complex(prog):
    same_error(prog)


NAN_P_AND_KERNELS = [
    lambda T: T.nn.functional.dropout(T.ones(4, 3), float("nan")),
    lambda T: T.nn.functional.dropout(T.ones(4, 3), float("nan"), training=False),
    lambda T: T.native_dropout(T.ones(4, 3), float("nan"), True),
    lambda T: T._weight_norm(T.ones(4, 3, dtype=T.int16), T.ones(4, 1, dtype=T.int16), 0),
    lambda T: T._weight_norm(T.ones(4, 3, dtype=T.float64), T.ones(4, 1), 0),
]


@pytest.mark.parametrize("prog", NAN_P_AND_KERNELS, ids=range(len(NAN_P_AND_KERNELS)))
def test_dropout_nan_probability_and_weight_norm_dtypes(prog):
    same_error(prog)


COMPLEX_BOUNDS_AND_MSE = [
    lambda T: T.clamp_max(T.ones(3), 1j),
    lambda T: T.clamp_min(T.ones(3), 1j),
    lambda T: T.clamp(T.ones(3), 0, 1j),
    lambda T: T.nn.functional.mse_loss(T.ones(3, dtype=T.complex64), T.ones(3)),
    lambda T: T.nn.functional.mse_loss(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    lambda T: T.nn.functional.mse_loss(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool)),
]


@pytest.mark.parametrize("prog", COMPLEX_BOUNDS_AND_MSE, ids=range(len(COMPLEX_BOUNDS_AND_MSE)))
def test_complex_bounds_and_mse_dtypes(prog):
    same_error(prog)


def test_mse_loss_promotes_as_pytorch():
    same(lambda T: (T.nn.functional.mse_loss(T.ones(3, dtype=T.int64), T.zeros(3)),
                    T.nn.functional.mse_loss(T.ones(3, dtype=T.float16), T.zeros(3,
                                                                                dtype=T.float64))))


BOOL_PRODUCTS = [
    lambda T: T.bmm(T.ones(2, 3, 3, dtype=T.bool), T.ones(2, 3, 3, dtype=T.float64)),
    lambda T: T.matmul(T.ones(2, 3, 3, dtype=T.bool), T.ones(2, 3, 3)),
    lambda T: T.einsum("bij,bjk->bik", T.ones(2, 3, 3, dtype=T.bool), T.ones(2, 3, 3)),
    lambda T: T.cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3), dim=1),
]


@pytest.mark.parametrize("prog", BOOL_PRODUCTS, ids=range(len(BOOL_PRODUCTS)))
def test_bool_products_refused_before_dtype_checks(prog):
    same_error(prog)


CONV_KERNEL_FIRST = [
    lambda T: T.nn.functional.conv2d(T.ones(1, 2, 4, 4, dtype=T.bool),
                                     T.ones(2, 2, 3, 3, dtype=T.float64)),
    lambda T: T.nn.functional.conv_transpose1d(T.ones(1, 2, 4, dtype=T.int16),
                                               T.ones(2, 2, 3, dtype=T.float64)),
]


@pytest.mark.parametrize("prog", CONV_KERNEL_FIRST, ids=range(len(CONV_KERNEL_FIRST)))
def test_convolution_kernel_refusal_before_dtype_check(prog):
    same_error(prog)


SIZES_READ_FIRST = [
    lambda T: T.baddbmm(T.ones(2, 3, 5), T.tensor(1.), T.ones(2, 4, 5)),
    lambda T: T.baddbmm(T.ones(2, 3, 5), T.ones(2, 3, 4), T.tensor(1.)),
    lambda T: T.addbmm(T.ones(3, 5), T.tensor(1.), T.ones(2, 4, 5)),
    lambda T: T.addbmm(T.ones(3, 5), T.ones(2, 3, 4), T.tensor(1.)),
    lambda T: T.mv(T.tensor(1.), T.ones(4)),
]


@pytest.mark.parametrize("prog", SIZES_READ_FIRST, ids=range(len(SIZES_READ_FIRST)))
def test_products_of_0d_operands(prog):
    same_error(prog)


KTH_AND_AMINMAX = [
    lambda T: T.kthvalue(T.ones(3, dtype=T.bool), 5),
    lambda T: T.aminmax(T.tensor(1j), dim=1),
]


@pytest.mark.parametrize("prog", KTH_AND_AMINMAX, ids=range(len(KTH_AND_AMINMAX)))
def test_argument_checks_before_dtype_refusals(prog):
    same_error(prog)


def test_kthvalue_of_0d_bool():
    same(lambda T: T.kthvalue(T.tensor(True), 1))


def test_broadcast_error_carries_a_zero_size_forward():
    # (), (0,), (3,): the broadcast shape after the first two is (0,), which does not
    # broadcast with (3,); a 1 taken against 0 must stay 0 (NumPy's ValueError reached users)
    same_error(lambda T: T.zeros(()).addcmul_(T.zeros(0), T.zeros(3)))
    same_error(lambda T: T.lerp(T.zeros(()), T.zeros(0), T.zeros(3)))


def test_clamp_min_max_wrap_python_ints_to_integer_dtypes():
    # clamp_min/clamp_max take a Python int as PyTorch's Scalar cast to the tensor's dtype:
    # -1 is 255 for uint8 (clamp itself refuses out-of-range bounds instead)
    same(lambda T: (T.clamp_max(T.tensor([3], dtype=T.uint8), -1),
                    T.clamp_min(T.tensor([3], dtype=T.uint8), -1),
                    T.tensor([3, 200], dtype=T.uint8).clamp_max(-2)))


def test_uint16_minus_bool_is_the_bool_subtraction_error():
    # the wrapping of Python ints must not compute the (refused) uint16/bool result type
    # first when there is no Python int
    same_error(lambda T: T.tensor([1], dtype=T.uint16) - T.tensor([True]))
    same_error(lambda T: T.tensor([True]) - T.tensor([1], dtype=T.uint16))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("bounds", [(-1, None), (None, 300), (2 ** 40, None), (1.5, None),
                                    (-2 ** 31 - 1, None), (-255, None), (-256, None),
                                    (None, -1)])
def test_clamp_integer_bounds_as_pytorch_converts_them(dtype, bounds):
    # c10's checked Scalar cast: out of range refused ("value cannot be converted to type
    # uint8_t without overflow"), negatives down to -max taken by unsigned types, wrapped
    def prog(T):
        try:
            return T.clamp(T.tensor([3, 100], dtype=getattr(T, dtype)), *bounds)
        except RuntimeError as e:
            return str(e)
    same(prog)


@pytest.mark.parametrize("loss", ["binary_cross_entropy", "mse_loss", "l1_loss",
                                  "smooth_l1_loss", "huber_loss", "soft_margin_loss",
                                  "binary_cross_entropy_with_logits", "poisson_nll_loss",
                                  "hinge_embedding_loss"])
def test_mean_losses_of_empty_inputs_are_nan_without_numpy_warnings(loss):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)     # NumPy's "Mean of empty slice"
        same(lambda T: getattr(T.nn.functional, loss)(T.zeros(0), T.zeros(0)))


# ---- the dispatch layer: what may be recorded, and gradients' dtypes --------------------------

@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(3, dtype=T.int64).masked_fill(T.tensor([True, False, True]),
                                                   T.tensor(2.5, requires_grad=True)),
    lambda T: T.zeros(3, 3, dtype=T.int8).diagonal_scatter(T.ones(3, requires_grad=True)),
    lambda T: T.zeros(3, dtype=T.int64).select_scatter(T.tensor(1.0, requires_grad=True), 0, 0),
    lambda T: T.fill(T.zeros(3, dtype=T.uint8), T.tensor(2.5, requires_grad=True)),
], ids=["masked_fill", "diagonal_scatter", "select_scatter", "fill"])
def test_integer_result_of_a_recorded_op_is_refused(prog):
    same_error(prog)     # "Autograd not support dtype: Long"


def test_casts_to_integers_record_nothing():
    def prog(T):
        x = T.randn(3, requires_grad=True)
        return [(t.dtype, t.requires_grad, t.grad_fn is None)
                for t in (x.int(), x.to(T.int64), x.long(), x.type_as(T.zeros(1, dtype=T.int8)))]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.where(T.tensor([True, False]), T.tensor([1.0, 2.0], requires_grad=True),
                      T.tensor([1j, 2j])).sum().abs().backward(),
    lambda T: T.zeros(2, dtype=T.complex128).masked_fill(
        T.tensor([True, False]), T.tensor(2.0, dtype=T.float64, requires_grad=True)
    ).sum().abs().backward(),
], ids=["where", "masked_fill"])
def test_complex_gradient_for_a_real_input_is_refused(prog):
    same_error(prog)


def test_promoting_ops_take_the_real_part_of_complex_gradients():
    def prog(T):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        z = T.tensor([1 + 2j, 3 - 1j, 0.5j], dtype=T.complex128)
        outs = [x * z, z - x, x - z, T.cat([x, z]), T.zeros(3, dtype=T.complex128).copy_(x) * z,
                T.einsum("i,i->i", x, z), T.addcmul(z, x, x)]
        return [T.autograd.grad(o.abs().sum(), x)[0] for o in outs]
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.zeros(3, 4, dtype=T.complex128).select_scatter(
        T.ones(4, dtype=T.complex128, requires_grad=True), 0, 0),
    lambda T: T.nn.functional.silu(T.ones(3, dtype=T.complex128, requires_grad=True)),
    lambda T: T.nan_to_num(T.ones(3, dtype=T.complex64, requires_grad=True)),
    lambda T: T.nn.functional.log_softmax(T.zeros(0, 3, dtype=T.complex64, requires_grad=True), 1),
    lambda T: T.zeros(0, 3, dtype=T.complex64, requires_grad=True).amax(0),
    lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.randn(3, requires_grad=True), T.randn(3, dtype=T.complex64)),
], ids=["select_scatter", "silu", "nan_to_num", "log_softmax", "amax", "bce_with_logits"])
def test_ops_off_the_complex_autograd_list_refuse_complex_outputs(prog):
    same_error(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.bitwise_and(T.ones(3), T.ones(4)),
    lambda T: T.xlogy(T.ones(3, dtype=T.complex64), T.ones(4)),
    lambda T: T.ones(3).bitwise_or_(T.ones(4)),
    lambda T: T.remainder(T.ones(3, dtype=T.complex128), T.ones(2)),
    lambda T: T.ones(3).hypot_(T.ones(4, dtype=T.complex64)),
], ids=["bitwise_and", "xlogy", "bitwise_or_", "remainder", "hypot_"])
def test_elementwise_ops_check_shapes_before_dtypes(prog):
    same_error(prog)     # TensorIterator's order: the broadcast error, not the kernel's dtype


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(()).atan2_(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(()).xlogy_(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(2, dtype=T.complex64).igamma_(T.ones(3, 2)),
    lambda T: T.ones(()).bitwise_and_(T.ones(3)),
    lambda T: T.ones(1, dtype=T.int64).add_(T.ones(3)),
], ids=["atan2_", "xlogy_", "igamma_", "bitwise_and_", "add_"])
def test_inplace_elementwise_ops_check_self_shape_before_dtypes(prog):
    same_error(prog)     # "output with shape [] doesn't match the broadcast shape [3]"


def test_float16_sums_accumulate_in_float32():
    def prog(T):
        x = T.tensor([2048.0] + [1.0] * 15, dtype=T.float16)
        y = T.tensor([[0.1] * 3] * 100, dtype=T.float16)
        return x.sum(), x.reshape(4, 4).sum(0), y.sum(0), y.sum(), y.sum(1, keepdim=True)
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor([1, 2], dtype=T.int32).clamp_max(2 ** 40),
    lambda T: T.tensor([1, 2], dtype=T.int32).clamp_min(-2 ** 40),
    lambda T: T.tensor([1, 2], dtype=T.uint8).clamp_min(300),
    lambda T: T.ones(2, dtype=T.complex32).clamp(T.ones(2), T.ones(2)),
], ids=["clamp_max", "clamp_min", "clamp_min_uint8", "clamp_complex32"])
def test_clamp_bounds_out_of_range_are_refused(prog):
    same_error(prog)


def test_clamp_bounds_unsigned_take_negatives_as_pytorch():
    same(lambda T: (T.tensor([1, 200], dtype=T.uint8).clamp_max(-56),
                    T.tensor([1, 2], dtype=T.uint8).clamp_max(-1)))


def test_root_gradients_are_cast_to_the_outputs_dtype_first():
    def prog(T):
        x = T.tensor([1.0, 2.0], dtype=T.float16, requires_grad=True)
        g, = T.autograd.grad((x * 0).sum(), x, T.tensor(1e38, dtype=T.float64))   # inf * 0
        y = T.tensor([0.5, 0.3], requires_grad=True)
        h, = T.autograd.grad(y * y, y, T.tensor([1 / 3, 1e-3], dtype=T.float64),
                             create_graph=True)
        return g, h, h.grad_fn.name()
    same(prog)


def test_addr_refuses_a_complex_gradient_for_real_vectors():
    same_error(lambda T: T.addr(T.ones(2, 2), T.ones(2, requires_grad=True),
                                T.ones(2, dtype=T.complex64)).abs().sum().backward())


def test_an_ops_own_value_error_is_not_taken_for_numpys_broadcast_error():
    same_error(lambda T: T.native_batch_norm(T.ones(2, 3), T.ones(3), T.ones(3), T.ones(4), None,
                                             False, 0.1, 1e-5))


def test_unsqueeze_strides_as_pytorch():
    same(lambda T: [T.atleast_2d(T.zeros(3)).stride(), T.zeros(3).unsqueeze(0).stride(),
                    T.zeros(2, 3).t().unsqueeze(1).stride(), T.zeros(4, 4).unsqueeze(2).stride()])


def test_unfold_backward_sums_windows_in_pytorchs_order():
    import numpy as np
    g = (np.random.default_rng(0).standard_normal((17, 4)) * 100).astype(np.float16)

    def prog(T):
        x = T.zeros(20, dtype=T.float16, requires_grad=True)
        return T.autograd.grad(x.unfold(0, 4, 1), x, T.tensor(g))[0]
    same(prog, atol=0, rtol=0)


@pytest.mark.parametrize("ord", [1j, 2 + 0j])
def test_matrix_norm_refuses_complex_orders(ord):
    same_error(lambda T: T.linalg.matrix_norm(T.ones(2, 2), ord))


def test_pad_takes_numpy_numbers_as_its_value():
    import numpy as np
    same(lambda T: [T.nn.functional.pad(T.ones(2, 2), (1, 1), value=v)
                    for v in (np.float32(2.0), np.int64(3), np.float16(0.5), True)])


@pytest.mark.parametrize("prog", [
    lambda T: T.tensor(1.).lt_(T.ones(4, dtype=T.complex128)),
    lambda T: T.tensor(1.).le_(T.ones(0, dtype=T.complex128)),
    lambda T: T.tensor(1.).clamp_max_(T.ones(4, dtype=T.complex128)),
    lambda T: T.stack([T.tensor(1.), T.ones(3, 5)], 1),
    lambda T: T.bincount(T.tensor([2 ** 63 - 1, 0])),
], ids=["lt_", "le_", "clamp_max_", "stack", "bincount"])
def test_checks_in_pytorchs_order(prog):
    same_error(prog)


def test_diff_of_order_zero_checks_no_dim():
    same(lambda T: T.diff(T.ones(3, 5), 0, 2))


def test_complex_base_written_through_a_view_gives_real_inputs_real_gradients():
    def prog(T):
        x = T.tensor(0.5, dtype=T.float64, requires_grad=True)
        b = T.zeros(3, 4, dtype=T.complex64)
        b.diagonal().copy_(x.expand(3))
        y = T.ones(2, dtype=T.float64, requires_grad=True)
        c = T.zeros(3, 4, dtype=T.complex64)
        c[0, :2].mul_(y)
        return T.autograd.grad((b.abs().sum(), c.abs().sum()), (x, y))
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.nansum(T.zeros(0, 3, dtype=T.complex128), 2),
    lambda T: T.dist(T.ones(3, requires_grad=True, dtype=T.float64),
                     T.ones(3, dtype=T.complex128) * 1j).backward(),
], ids=["nansum_dim_first", "dist_complex_gradient"])
def test_more_checks_in_pytorchs_order(prog):
    same_error(prog)


def test_sinc_gradient_at_huge_float32_inputs():
    # the quotient before the product with grad, as PyTorch's formula (no inf / inf)
    def prog(T):
        x = T.tensor([-1.9768496, 9.9999997e37, -2.9444225], requires_grad=True)
        return T.autograd.grad(T.sinc(x), x, T.full((3,), 3.0))[0]
    same(prog)


def _rg(T):
    return T.tensor(2.5, requires_grad=True)


INT_SELF_HISTORY = {
    "lt_": lambda T: type(T.zeros(3, dtype=T.int16).lt_(_rg(T)).grad_fn).__name__,
    "eq_ bool": lambda T: type(T.zeros(3, dtype=T.bool).eq_(_rg(T)).grad_fn).__name__,
    "fill_": lambda T: type(T.zeros(3, dtype=T.int16).fill_(_rg(T)).grad_fn).__name__,
    "masked_fill_": lambda T: type(T.zeros(3, dtype=T.int16).masked_fill_(
        T.tensor([True, False, True]), _rg(T)).grad_fn).__name__,
    "index_fill_": lambda T: type(T.zeros(3, dtype=T.int16).index_fill_(
        0, T.tensor([1]), _rg(T)).grad_fn).__name__,
    "through a view": lambda T: (lambda b: (b[0].lt_(_rg(T)), type(b.grad_fn).__name__,
                                            b.requires_grad)[1:])(T.zeros(2, 3, dtype=T.int8)),
    "copy_ records nothing": lambda T: T.zeros(3, dtype=T.int16).copy_(_rg(T)).requires_grad,
    "setitem records nothing": lambda T: (lambda y: (y.__setitem__(0, _rg(T)),
                                                     y.requires_grad)[1])(T.zeros(3, dtype=T.int8)),
}


@pytest.mark.parametrize("prog", INT_SELF_HISTORY.values(), ids=INT_SELF_HISTORY)
def test_inplace_op_into_integer_tensor_records_as_pytorch(prog):
    same(prog)


@pytest.mark.parametrize("consumer", [lambda T, y: T.stack([y]), lambda T, y: y.sum(),
                                      lambda T, y: y * 2])
def test_integer_tensor_with_history_refuses_to_record(consumer):
    same_error(lambda T: consumer(T, T.zeros(3, dtype=T.int16).lt_(_rg(T))))


def test_copy_casts_a_broadcast_sources_gradient_before_summing_it():
    # a float16 gradient summed over 200 rows into a float32 src: summed in float32
    def prog(T):
        src = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = T.zeros(200, 3, dtype=T.float16).copy_(src)
        y.backward(T.linspace(-3, 3, 600).reshape(200, 3).to(T.float16).cos())
        return src.grad
    same(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.dist(T.tensor([True, False]), T.tensor([False, False])),
    lambda T: T.dist(T.tensor([True, False]), T.tensor([0.0, 1.0])),
    lambda T: T.slice_copy(T.ones(3), 5, 0, 2, 0),
], ids=["dist two bools", "dist bool and float", "slice_copy checks dim before step"])
def test_refused_in_pytorchs_order(prog):
    same_error(prog)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_result_is_contiguous(mode):
    same(lambda T: T.nn.functional.pad(T.arange(6.).reshape(1, 2, 3), (1, 1), mode=mode).stride())


def test_logaddexp_refuses_a_complex_gradient_for_a_real_input():
    # its formula does not take the real part (no handle_r_to_c), so the engine refuses
    def prog(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        T.logaddexp(x, T.tensor([1 + 1j, 2j])).abs().sum().backward()
    same_error(prog)


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_"])
def test_complex_inplace_arithmetic_with_an_infinite_part(name):
    # alpha multiplies other as a complex number even when it is 1: inf+1j -> inf+nanj
    same(lambda T: getattr(T.ones(2, dtype=T.complex64), name)(
        T.tensor([complex("inf+1j"), 1j], dtype=T.complex64)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rms_norm_adds_eps_in_the_computing_type(dtype):
    # eps is added to the float32 mean of squares, not rounded to the half input's dtype
    def prog(T):
        x = T.tensor([[1e-3, 2e-3, 1e-4], [0.5, -1.0, 2.0]], dtype=getattr(T, dtype))
        w = T.tensor([0.5, -1.5, 2.0], dtype=T.float64, requires_grad=True)
        y = T.rms_norm(x, [3], w, eps=0.01)
        y.backward(T.ones_like(y))
        return T.rms_norm(x, [3], eps=1e-9).float(), y.float(), w.grad
    same(prog)


def test_integer_promoted_to_float16_overflows_silently():
    import chainrule
    import torch
    from helpers import warnings_of
    for T in (torch, chainrule):
        assert warnings_of(lambda: T.tensor([2147483647], dtype=T.int32)
                           * T.ones(1, dtype=T.float16)) == []
    same(lambda T: T.tensor([2147483647, 3], dtype=T.int32) * T.ones(2, dtype=T.float16))


@pytest.mark.parametrize("prog", [
    lambda T: T.polar(T.ones(5, dtype=T.float16), T.ones(0, dtype=T.float16)),
    lambda T: T.pairwise_distance(T.ones(3), 1),
    lambda T: T.pairwise_distance(T.ones(3), T.ones(3), 2, 1e-6, 1),
], ids=["polar shapes before half", "pairwise_distance number", "pairwise_distance keepdim"])
def test_fifth_run_refusals(prog):
    same_error(prog)


def test_binary_cross_entropy_checks_the_weight_shape_before_the_dtype():
    same_error(lambda T: T.nn.functional.binary_cross_entropy(
        T.zeros(3, 4, dtype=T.int8), T.ones(3, 4, dtype=T.int8), T.ones(0, dtype=T.float16)))


@pytest.mark.parametrize("prog", [
    lambda T: T.ones(3).norm(2, True), lambda T: T.ones(3).norm(2, (0, True)),
    lambda T: T.linalg.vector_norm(T.ones(3), 2, True),
    lambda T: T.linalg.vector_norm(T.ones(3), dim=True),
    lambda T: T.linalg.vector_norm(T.ones(3), 2, 0, 1),
], ids=["norm bool dim", "norm later bool", "vector_norm bool dim", "keyword", "keepdim int"])
def test_vector_norm_binding(prog):
    same_error(prog)


def test_addr_promotes_a_0d_self_as_expanded():
    # PyTorch's kernel expands self to the outer product's shape before promoting
    same(lambda T: T.addr(T.tensor(1.5, dtype=T.float64), T.ones(2, dtype=T.float16),
                          T.full((3,), 2.0, dtype=T.float16)))
    same(lambda T: T.addr(T.tensor(1.5, dtype=T.float64), T.zeros(0, dtype=T.uint8),
                          T.zeros(0, dtype=T.float16)))


@pytest.mark.parametrize("name", ["div", "logaddexp", "pow", "xlogy"])
def test_promotion_into_complex32_takes_its_kernel_table(name):
    # a complex 0-d with half tensors promotes to complex32, which these kernels lack
    same_error(lambda T: getattr(T, name)(T.tensor(-0.2 + 0j), T.ones(3, dtype=T.float16)))


@pytest.mark.parametrize("prog", [
    lambda T: T.polygamma(-1, 2.0), lambda T: T.polygamma(1.5, 2.0),
    lambda T: T.istft(T.ones(5, 3, dtype=T.complex64), 8, window=1),
], ids=["polygamma input before n's value", "polygamma n's type first", "istft window"])
def test_seventh_run_refusals(prog):
    same_error(prog)


@pytest.mark.parametrize("prog", [
    lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.int32), 2 ** 40),
    lambda T: T.where(T.tensor([True, False]), 2 ** 40, T.tensor([1, 2], dtype=T.int32)),
], ids=["other", "input"])
def test_where_number_overflowing_an_integer_result(prog):
    same_error(prog)


def test_where_number_wraps_into_uint8_as_pytorch():
    same(lambda T: T.where(T.tensor([True, False]), T.tensor([1, 2], dtype=T.uint8), -1))


@pytest.mark.parametrize("prog", [
    lambda T: T.tensordot(T.ones(2, 3), 1.0, dims=([0], [0])),
    lambda T: T.tensordot(1.0, T.ones(2, 3), dims=([0], [0])),
    lambda T: T.ones(2, 3).as_strided_((2, 2), (1, 2), True),
    lambda T: T.ones(2, 3).as_strided_((2, 2), (1, 2), storage_offset=True),
    lambda T: T.as_strided_(T.ones(2, 3), (2, 2), (1, 2), True),
], ids=["tensordot other", "tensordot input", "as_strided_ method", "keyword", "function"])
def test_tensordot_and_as_strided__binding(prog):
    same_error(prog)


def test_ldexp__checks_self_shape_before_the_kernel_dtype():
    same_error(lambda T: T.tensor(float("nan")).ldexp_(T.zeros(0, dtype=T.bool)))


@pytest.mark.parametrize("name", ["relu", "silu", "mish"])
def test_none_for_the_input_tensor(name):
    same_error(lambda T: getattr(T.nn.functional, name)(None))


def test_ldexp_complex_self_refuses_complex32_before_shapes():
    # self * pow(2, other): pow refuses ComplexHalf before the product's shapes are checked
    same_error(lambda T: T.ldexp(T.ones(3, 4, dtype=T.complex64), T.ones(0, 4, dtype=T.float16)))
