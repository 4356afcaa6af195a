"""Regression tests for what the long fuzz run (issue 12) found in the shape, reduction,
normalization and aliasing families, each compared with PyTorch on the input it drew."""
import numpy as np
import pytest

from helpers import same, same_error


# ---- shape --------------------------------------------------------------------------------

@pytest.mark.parametrize("dims", [-1, 0, (0,)])
def test_roll_0d_refuses_dims(dims):
    same_error(lambda T: T.roll(T.tensor(-0.17, dtype=T.float64), 7, dims))


def test_roll_0d_and_empty():
    same(lambda T: T.roll(T.tensor(2.0), 1))
    # an empty tensor is not rolled: its dims are not checked
    same(lambda T: T.roll(T.ones(0, 4, requires_grad=True), 7, 2))
    same_error(lambda T: T.roll(T.ones(0, 4), (1, 2), (0,)))


@pytest.mark.parametrize("sizes", [(True, 3), (True,), (2.0, 3), (None,), ()])
def test_expand_first_size_not_an_int(sizes):
    same_error(lambda T: T.tensor(-2.44, dtype=T.float64).expand(*sizes))


def test_expand_sizes_that_pass():
    same(lambda T: T.ones(1, requires_grad=True).expand(2, True))
    same(lambda T: T.ones(1).expand(T.tensor(2), 3))
    same(lambda T: T.ones(3).expand(2, -1))


@pytest.mark.parametrize("sizes", [(2, -1, 3), (-1,), (3, -1)])
def test_expand_0d_minus_one(sizes):
    # a 0-d tensor's leading -1 reaches numel's check, not the leading-dim one
    same_error(lambda T: T.tensor(0.3 + 0j).expand(*sizes))
    same_error(lambda T: T.ones(2).expand(-1, 2))


def test_tensordot_size_one_sum_keeps_integer_dtype():
    a = np.array([[0], [3]], dtype=np.int8)
    b = np.array([[0, -2, 1, -1, 2], [0, 1, -1, 0, -1], [0, 0, 0, 0, 1]], dtype=np.int8)
    same(lambda T: T.tensordot(T.tensor(a), T.tensor(b), ([1], [0])))
    same(lambda T: T.tensordot(T.tensor(b.T.copy()), T.tensor(a.T.copy()), ([1], [0])))


def _kron_operand(T, shape, perm):
    base = T.arange(float(np.prod(shape))).reshape([shape[p] for p in perm])
    return base.permute(*np.argsort(perm).tolist())


@pytest.mark.parametrize("a, b", [
    (((2, 3), (1, 0)), ((3, 2), (1, 0))),      # both transposed: the product views
    (((3, 2), (1, 0)), ((3, 2), (1, 0))),
    (((2, 3), (1, 0)), ((3, 2), (0, 1))),      # one transposed: PyTorch refuses
    (((2, 2), (1, 0)), ((2,), (0,))),
    (((2,), (0,)), ((2, 2), (1, 0))),
    (((2, 3), (1, 0)), ((1,), (0,))),
    (((2, 3), (1, 0)), ((0, 2), (0, 1))),
])
def test_kron_layouts(a, b):
    def prog(T):
        x, y = _kron_operand(T, *a), _kron_operand(T, *b)
        try:
            return T.kron(x, y)
        except RuntimeError as e:
            return str(e)
    same(prog)


def test_kron_transposed_gradient():
    def prog(T):
        x = T.tensor([[0.19, -0.52, -0.41], [-2.44, -1.0, 1.14]], dtype=T.float64)
        y = T.tensor([[-0.33, 0.77], [0.28, -0.55], [-1.0, -0.31]], dtype=T.float64)
        x = x.t().contiguous().requires_grad_()
        y = y.t().contiguous().requires_grad_()
        out = T.kron(x.t(), y.t())
        return out, T.autograd.grad(out.sum(), (x, y))
    same(prog)


# ---- normalization ------------------------------------------------------------------------

@pytest.mark.parametrize("x_dtype", ["uint8", "int64", "complex64"])
@pytest.mark.parametrize("w_dtype", ["float32", "float64"])
def test_norms_check_parameter_dtype_before_kernel(x_dtype, w_dtype):
    def x_w(T):
        return T.ones(2, 4, dtype=getattr(T, x_dtype)), T.ones(4, dtype=getattr(T, w_dtype))
    same_error(lambda T: T.nn.functional.layer_norm(x_w(T)[0], (4,), x_w(T)[1]))
    same_error(lambda T: T.native_layer_norm(x_w(T)[0], (4,), None, x_w(T)[1], 1e-5))
    same_error(lambda T: T.nn.functional.group_norm(x_w(T)[0], 2, x_w(T)[1]))
    same_error(lambda T: T.native_group_norm(x_w(T)[0], x_w(T)[1], None, 2, 4, 1, 2, 1e-5))


def _nbn(T, x, training, stats=True, weight=None):
    rm = T.zeros(3) if stats else None
    rv = T.ones(3) if stats else None
    return T.native_batch_norm(x, weight, None, rm, rv, training, 0.1, 1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_0d_and_1d(training):
    same_error(lambda T: _nbn(T, T.tensor(-1.01), training, stats=False))
    same_error(lambda T: _nbn(T, T.tensor(-1.01, dtype=T.int64), training))
    same_error(lambda T: _nbn(T, T.ones(3), training))
    same_error(lambda T: _nbn(T, T.ones(3, dtype=T.int64), training))


def test_native_batch_norm_empty():
    # evaluation of nothing reads no channel count; training refuses it
    same(lambda T: _nbn(T, T.ones(0), False))
    same(lambda T: _nbn(T, T.ones(2, 0), False))
    same(lambda T: _nbn(T, T.ones(0, 3, 2), False))
    same_error(lambda T: _nbn(T, T.ones(0), True))
    same_error(lambda T: _nbn(T, T.ones(2, 0), True))
    same_error(lambda T: _nbn(T, T.ones(0, 3, 2), True))


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_half_statistics_dtype(training):
    # a half input's statistics take its float parameters' dtype
    same(lambda T: _nbn(T, T.ones(2, 3, dtype=T.float16), training))
    same(lambda T: _nbn(T, T.ones(0, 3, dtype=T.float16), False))
    same(lambda T: _nbn(T, T.ones(2, 3, dtype=T.float16), True, stats=False,
                        weight=T.ones(3, dtype=T.float16)))


@pytest.mark.parametrize("layout", ["weight", "input", "bias"])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_strided_operands_normalize_before_scaling(layout, training):
    # PyTorch's element-wise path for strided operands computes ((x - mean) * invstd) * w + b:
    # an infinite weight gives +-inf where the contiguous kernel's x * alpha + beta gives nan
    def prog(T):
        x = T.tensor([[0.1, -0.24, 1.5], [0.74, -0.28, 0.58], [-2.0, 0.31, 0.87],
                      [-0.18, -0.71, 0.57]], dtype=T.float64)
        w = T.tensor([1.3, -float("inf"), -1e38], dtype=T.float64)
        b = T.tensor([-1.9, -0.3, 1.3], dtype=T.float64)
        if layout == "input":
            x = x.t().contiguous().t()
        elif layout == "weight":
            w = w.repeat_interleave(2)[::2]
        else:
            b = b.repeat_interleave(2)[::2]
        return T.nn.functional.batch_norm(x, T.zeros(3, dtype=T.float64),
                                          T.ones(3, dtype=T.float64), w, b, training=training)
    same(prog)


def test_norms_mixed_types_follow_the_first_parameter():
    # types are mixed only when the first parameter given has another dtype than the input;
    # otherwise the kernel's dtype check comes first, then each parameter's
    for w, b in (("int16", "int32"), ("float32", "float64"), (None, "float64")):
        def prog(T, w=w, b=b):
            x = T.ones(2, 4, dtype=T.int16 if w == "int16" else T.float32)
            weight = None if w is None else T.ones(4, dtype=getattr(T, w))
            return x, weight, T.ones(4, dtype=getattr(T, b))
        same_error(lambda T: T.nn.functional.layer_norm(prog(T)[0], (4,), *prog(T)[1:]))
        same_error(lambda T: T.nn.functional.group_norm(prog(T)[0], 2, *prog(T)[1:]))
        same_error(lambda T: T.native_batch_norm(*prog(T), None, None, True, 0.1, 1e-5))
    same(lambda T: T.batch_norm_update_stats(T.ones(2, 4, dtype=T.float16), None, T.ones(4),
                                             0.1))


def test_native_batch_norm_one_running_stat():
    same_error(lambda T: T.native_batch_norm(T.ones(2, 3), None, None, T.ones(3), None, True,
                                             0.1, 1e-5))


@pytest.mark.parametrize("params", ["none", "same", "mixed"])
def test_native_batch_norm_strided_integer_input(params):
    # training statistics of a strided input come from mean(), refusing integers before the
    # kernel does, unless the types are mixed
    def prog(T):
        x = T.ones(4, 3, dtype=T.int16).t().contiguous().t()
        w = {"none": None, "same": T.ones(3, dtype=T.int16), "mixed": T.ones(3)}[params]
        return T.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5)
    same_error(prog)


def test_native_batch_norm_strided_path_wants_1d_parameters():
    same_error(lambda T: T.native_batch_norm(
        T.ones(4, 3, 2, dtype=T.float64).transpose(0, 2).contiguous().transpose(0, 2),
        T.ones(3, dtype=T.float64), T.tensor(-0.9, dtype=T.float64), None, None, True, 0.1,
        1e-5))


@pytest.mark.parametrize("shape", [(), (3,), (0,), (2, 0)])
@pytest.mark.parametrize("training", [True, False])
def test_functional_batch_norm_counts_no_features_below_2d(shape, training):
    def prog(T):
        x = T.ones(shape)
        try:
            return T.nn.functional.batch_norm(x, T.zeros(3), T.ones(3), training=training)
        except (RuntimeError, IndexError) as e:
            return type(e).__name__ + str(e)
    same(prog)


# ---- reduction ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "float64"])
@pytest.mark.parametrize("correction", [3, 4])
def test_std_var_no_degrees_of_freedom(dtype, correction):
    # a complex variance is its real part's plus its imaginary part's: 0 / 0 makes it nan
    def prog(T):
        x = T.tensor([0.189, -0.523, -0.413], dtype=getattr(T, dtype))
        return (T.std(x, correction=correction), T.var(x, correction=correction),
                T.var(x.reshape(1, 3), 1, correction=correction))
    with pytest.warns(UserWarning):
        same(prog)


def test_complex_var_sums_its_parts_in_their_dtype():
    same(lambda T: T.var(T.tensor([0.18 + 1j, -0.52, -0.41], dtype=T.complex64)), atol=0,
         rtol=1e-7)


@pytest.mark.parametrize("shape, args", [((0, 3), (1,)), ((0, 3), (1, True)), ((3, 0), (0,)),
                                         ((0, 3), (0,)), ((3, 0), ((0, 1),)), ((0, 3), ())])
def test_amin_amax_empty_complex_runs_no_kernel(shape, args):
    def prog(T):
        x = T.ones(shape, dtype=T.complex64)
        try:
            return T.amin(x, *args), T.amax(x, *args)
        except (RuntimeError, IndexError) as e:
            return type(e).__name__ + str(e)
    same(prog)
    same_error(lambda T: T.amin(T.ones(2, 3, dtype=T.complex128), 1))


def test_cumprod_backward_at_the_first_zero():
    # the product before the first zero times the sum after it; terms past a second zero
    # vanish even before an infinity
    inf = float("inf")

    def prog(T):
        x = T.tensor([[1.04, -inf, 0.0, -0.665], [0.0, 1.3, 0.95, 0.0], [1.0, 0.0, 2.0, 0.0],
                      [2.0, 3.0, 0.0, 5.0], [0.0, 1.3, 0.0, inf]], dtype=T.float64,
                     requires_grad=True)
        g = T.tensor([0.3, 0.5, 0.7, 0.11], dtype=T.float64).expand(5, 4)
        return T.autograd.grad(x.cumprod(1), x, g)[0]
    same(prog)


@pytest.mark.parametrize("p", [1.5 - 2j, 1j, 2 + 0j])
def test_vector_norm_refuses_a_complex_order(p):
    same_error(lambda T: T.norm(T.ones(2, 3), p, 1))
    same_error(lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.complex64), p))
    same_error(lambda T: T.norm(T.ones(2, 3, dtype=T.int32), p, 1))


def test_half_norm_rounds_once():
    a = [[-1.011, 0.783, 2.057, -1.639], [-1.7295, -1.505, 0.8413, 0.1287],
         [1.078, 0.7227, 0.2106, 0.284]]
    same(lambda T: T.linalg.vector_norm(T.tensor(a, dtype=T.float16), 2, 0), atol=0, rtol=0)
    same(lambda T: T.cosine_similarity(T.tensor(a, dtype=T.float16),
                                       T.tensor(a, dtype=T.float64).flip(0), 0))


# ---- aliasing -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 4), (3, 4)])
@pytest.mark.parametrize("dim", [2, 5, -3])
def test_narrow_copy_dim_out_of_range(shape, dim):
    # a positive dim is checked against the rank before wrapping (RuntimeError); a negative
    # one is wrapped (IndexError)
    same_error(lambda T: T.narrow_copy(T.ones(shape, dtype=T.bool), dim, 1, 2))


def test_view_as_complex_empty_view_with_strides():
    # an empty view of a non-empty tensor keeps its strides: they are checked
    same_error(lambda T: T.view_as_complex(T.ones(3, 4)[:0, ::2]))
    same_error(lambda T: T.view_as_complex(T.ones(2, 3).t()[:0]))
    same(lambda T: T.view_as_complex(T.ones(6)[2:2].view(0, 2)))
    same(lambda T: T.view_as_complex(T.ones(0, 2, requires_grad=True)))


@pytest.mark.parametrize("shape, normalized", [((), (3, 4)), ((), (4,)), ((4,), (3, 4)),
                                               ((2, 4), (3, 4))])
def test_rms_norm_input_rank(shape, normalized):
    same_error(lambda T: T.nn.functional.rms_norm(T.ones(shape), normalized))


def test_layer_norm_backward_as_pytorch_kernel_with_infinite_weight():
    # dx = rstd * g * w + b * x + c from the row sums of g * w * x and g * w: an infinite
    # weight makes the whole row nan, as PyTorch's kernel does
    def prog(T):
        x = T.tensor([[-0.53, -1.35, -0.59], [-0.09, 0.69, 1.32]], dtype=T.float64,
                     requires_grad=True)
        w = T.tensor([-0.94, -0.81, -float("inf")], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.layer_norm(x, (3,), w, T.tensor([-0.38, 0.35, 1.0],
                                                            dtype=T.float64))
        return T.autograd.grad(y, (x, w), T.tensor([[0.3, -1.2, 0.5], [1.1, 0.4, -0.7]],
                                                   dtype=T.float64))
    same(prog)


def test_group_norm_half_backward_in_float():
    # one-element groups: rstd is 1 / sqrt(eps), whose cube overflows half
    def prog(T):
        x = T.tensor([[1.682, 0.753, 0.7534, 1.138], [0.349, -0.639, -0.8003, -0.8003]],
                     dtype=T.float16, requires_grad=True)
        w = T.tensor([0.5, -1.0, 2.0, 1.0], dtype=T.float16, requires_grad=True)
        y = T.nn.functional.group_norm(x, 4, w)
        return T.autograd.grad(y, (x, w), T.ones(2, 4, dtype=T.float16))
    same(prog)


def test_native_batch_norm_parameter_dtype_checked_after_shapes():
    # types not mixed: each parameter's dtype is checked after the empty-evaluation return
    # and the input's shape checks
    def call(T, x, training):
        return T.native_batch_norm(x, T.ones(3), T.ones(3, dtype=T.float64) if training else
                                   None, T.ones(3), T.ones(3, dtype=T.int32), training, 0.1,
                                   1e-5)
    same(lambda T: call(T, T.ones(0, 3), False))
    same_error(lambda T: call(T, T.ones(2, 0), True))
    same_error(lambda T: call(T, T.ones(3), True))
    same_error(lambda T: call(T, T.ones(2, 3), True))
    same_error(lambda T: call(T, T.ones(2, 3), False))
