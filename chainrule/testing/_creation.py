"""make_tensor: PyTorch's test-tensor factory (torch/testing/_creation.py) on chainrule, so
the same seed gives the same values."""
import collections.abc
import functools
import math
import warnings

__all__ = ["make_tensor"]


def _dtypes():
    import chainrule as T
    integral = [T.uint8, T.int8, T.int16, T.int32, T.int64, T.uint16, T.uint32, T.uint64]
    floating = [T.float16, T.bfloat16, T.float32, T.float64]
    float8 = [T.float8_e4m3fn, T.float8_e5m2, T.float8_e4m3fnuz, T.float8_e5m2fnuz]
    complex_ = [T.complex32, T.complex64, T.complex128]
    return integral, floating, float8, complex_


def _uniform_random_(t, low, high):
    import chainrule as T
    if high - low >= T.finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of `shape` and `dtype` with values uniform in [low, high) (defaults by dtype,
    as PyTorch's: -9..9 for floating and complex, -9..10 for signed integers, 0..10 for
    unsigned, 0..2 for bool)."""
    import chainrule as T
    integral, floating, float8, complex_ = _dtypes()
    boolean_or_integral = [T.bool, *integral]
    floating_or_complex = [*floating, *complex_]

    def modify_low_high(low, high, *, lowest_inclusive, highest_exclusive, default_low,
                        default_high):
        def clamp(a, lo, hi):
            return min(max(a, lo), hi)
        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(value, float) and math.isnan(value) for value in [low, high]):
            raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
        elif low == high and dtype in floating_or_complex:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                          "complex types is deprecated since 2.1 and will be removed in 2.3. "
                          "Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, "
                             f"{high}), but {dtype} only supports [{lowest_inclusive}, "
                             f"{highest_exclusive})")
        low = clamp(low, lowest_inclusive, highest_exclusive)
        high = clamp(high, lowest_inclusive, highest_exclusive)
        if dtype in boolean_or_integral:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in boolean_or_integral:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got {dtype=}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is T.bool:
        low, high = modify_low_high(low, high, lowest_inclusive=0, highest_exclusive=2,
                                    default_low=0, default_high=2)
        result = T.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in boolean_or_integral:
        low, high = modify_low_high(
            low, high, lowest_inclusive=T.iinfo(dtype).min,
            # randint takes its bounds as int64, so int64's maximum cannot be sampled
            highest_exclusive=T.iinfo(dtype).max + (1 if dtype is not T.int64 else 0),
            default_low=-9, default_high=10)
        result = T.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in floating_or_complex:
        low, high = modify_low_high(low, high, lowest_inclusive=T.finfo(dtype).min,
                                    highest_exclusive=T.finfo(dtype).max, default_low=-9,
                                    default_high=9)
        result = T.empty(shape, device=device, dtype=dtype)
        _uniform_random_(T.view_as_real(result) if dtype in complex_ else result, low, high)
    elif dtype in float8:
        low, high = modify_low_high(low, high, lowest_inclusive=T.finfo(dtype).min,
                                    highest_exclusive=T.finfo(dtype).max, default_low=-9,
                                    default_high=9)
        result = T.empty(shape, device=device, dtype=T.float32)
        _uniform_random_(result, low, high)
        result = result.to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]     # offset by 1 to also catch offsetting issues
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in boolean_or_integral else T.finfo(dtype).tiny
    if dtype in floating_or_complex:
        result.requires_grad = requires_grad
    return result
