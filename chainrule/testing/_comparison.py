"""assert_close and assert_allclose: PyTorch's comparison (torch/testing/_comparison.py) for
chainrule tensors, with its pairs, tolerances and messages. Values are compared in NumPy
with PyTorch's isclose rule and the differences reported as PyTorch reports them."""
import cmath
import collections.abc
import contextlib
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, strided

__all__ = ["assert_close", "assert_allclose"]


class ErrorMeta(Exception):
    """An error found by a comparison, raised to the user as `type(msg)`."""

    def __init__(self, type, msg, *, id=()):
        super().__init__("If you are a user and see this message during normal operation please "
                         "file an issue at https://github.com/pytorch/pytorch/issues. If you are "
                         "a developer and working on the comparison functions, please `raise "
                         "ErrorMeta.to_error()` for user facing errors.")
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated_msg = self.msg
            if self.id:
                generated_msg += ("\n\nThe failure occurred for item "
                                  f"{''.join(str([item]) for item in self.id)}")
            msg = msg(generated_msg) if callable(msg) else generated_msg
        return self.type(msg)


def _precisions():
    d = _dtype
    table = {d.float16: (0.001, 1e-5), d.bfloat16: (0.016, 1e-5), d.float32: (1.3e-6, 1e-5),
             d.float64: (1e-7, 1e-7), d.complex32: (0.001, 1e-5), d.complex64: (1.3e-6, 1e-5),
             d.complex128: (1e-7, 1e-7)}
    # quantized dtypes compare dequantized, with float32's tolerances
    for name in ("quint8", "quint2x4", "quint4x2", "qint8", "qint32"):
        table[getattr(d, name)] = table[d.float32]
    return table


_DTYPE_PRECISIONS = _precisions()


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) of the inputs' dtypes."""
    dtypes = []
    for input in inputs:
        if isinstance(input, Tensor):
            dtypes.append(input.dtype)
        elif isinstance(input, _dtype.dtype):
            dtypes.append(input)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(input)} "
                            "instead.")
    dtype_precisions = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[dtype_precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()):
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None and atol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _identifier(default, identifier):
    if identifier is None:
        return default
    return identifier(default) if callable(identifier) else identifier


def _make_bitwise_mismatch_msg(*, default_identifier, identifier=None, extra=None,
                               first_mismatch_idx=None):
    msg = f"{_identifier(default_identifier, identifier)} are not 'equal'!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    if first_mismatch_idx is not None:
        msg += f"The first mismatched element is at index {first_mismatch_idx}.\n"
    return msg.strip()


def _make_mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff,
                       abs_diff_idx=None, atol, rel_diff, rel_diff_idx=None, rtol):
    equality = rtol == 0 and atol == 0

    def make_diff_msg(*, type, diff, idx, tol):
        if idx is None:
            msg = f"{type.title()} difference: {diff}"
        else:
            msg = f"Greatest {type} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    msg = (f"{_identifier(default_identifier, identifier)} are not "
           f"{'equal' if equality else 'close'}!\n\n")
    if extra:
        msg += f"{extra.strip()}\n"
    msg += make_diff_msg(type="absolute", diff=abs_diff, idx=abs_diff_idx, tol=atol)
    msg += make_diff_msg(type="relative", diff=rel_diff, idx=rel_diff_idx, tol=rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _make_mismatch_msg(default_identifier="Scalars", identifier=identifier,
                              extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                              atol=atol, rel_diff=rel_diff, rtol=rtol)


def _unravel(flat_index, shape):
    if not shape:
        return ()
    return tuple(int(i) for i in np.unravel_index(flat_index, shape))


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    """The message for tensors whose values differ: counts, greatest differences and where."""
    number_of_elements = matches.size
    total_mismatches = number_of_elements - int(matches.sum())
    extra = (f"Mismatched elements: {total_mismatches} / {number_of_elements} "
             f"({total_mismatches / number_of_elements:.1%})")
    dt = actual.dtype
    if dt.is_floating_point and dt.itemsize == 1:
        first = tuple(int(i) for i in np.argwhere(~matches)[0])
        return _make_bitwise_mismatch_msg(default_identifier="Tensor-likes", identifier=identifier,
                                          extra=extra, first_mismatch_idx=first)
    a = actual._data.reshape(-1)
    e = expected._data.reshape(-1)
    m = matches.reshape(-1)
    if not dt.is_floating_point and not dt.is_complex:
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        i = _first_max(abs_diff)
        if abs_diff.dtype.kind in "iu":
            # PyTorch's true division of integer tensors computes in the default dtype
            work = _dtype.get_default_dtype().np
            rel_diff = abs_diff.astype(work) / np.abs(e).astype(work)
        else:
            rel_diff = abs_diff / np.abs(e)
        rel_diff[m] = 0
        j = _first_max(rel_diff)
    return _make_mismatch_msg(default_identifier="Tensor-likes", identifier=identifier,
                              extra=extra, abs_diff=abs_diff[i].item(),
                              abs_diff_idx=_unravel(i, matches.shape), atol=atol,
                              rel_diff=rel_diff[j].item(), rel_diff_idx=_unravel(j, matches.shape),
                              rtol=rtol)


def _first_max(a):
    # torch.max(dim=0): the first greatest value, NaN being greatest
    nan = np.isnan(a)
    return int(np.argmax(nan)) if nan.any() else int(np.argmax(a))


def _isclose(a, e, rtol, atol, equal_nan):
    """torch.isclose on arrays of one dtype."""
    with np.errstate(all="ignore"):
        close = a == e
        if a.dtype.kind in "fc" and equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind not in "fc":
            # integer and bool tensors: PyTorch computes the tolerance in the default dtype
            work = _dtype.get_default_dtype().np
            a, e = a.astype(work), e.astype(work)
        allowed = atol + np.abs(rtol * e)
        error = np.abs(a - e)
        close |= np.isfinite(error) & (error <= allowed)
    return close


class UnsupportedInputs(Exception):
    """A pair type does not handle the inputs; the next is tried."""


class Pair:
    def __init__(self, actual, expected, *, id=(), **unknown_parameters):
        self.actual = actual
        self.expected = expected
        self.id = id
        self._unknown_parameters = unknown_parameters

    @staticmethod
    def _inputs_not_supported():
        raise UnsupportedInputs

    @staticmethod
    def _check_inputs_isinstance(*inputs, cls):
        if not all(isinstance(input, cls) for input in inputs):
            Pair._inputs_not_supported()

    def _fail(self, type, msg, *, id=()):
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    def compare(self):
        raise NotImplementedError

    def extra_repr(self):
        return []

    def __repr__(self):
        body = [f"    {name}={value!s}," for name, value in [
            ("id", self.id), ("actual", self.actual), ("expected", self.expected),
            *[(extra, getattr(self, extra)) if isinstance(extra, str) else extra
              for extra in self.extra_repr()]]]
        return "\n".join((f"{type(self).__name__}(", *body, ")"))


class ObjectPair(Pair):
    """Any inputs, compared with ==."""

    def compare(self):
        try:
            equal = self.actual == self.expected
        except Exception as error:
            raise ErrorMeta(ValueError, f"{self.actual} == {self.expected} failed with:\n{error}.",
                            id=self.id) from error
        if not equal:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class NonePair(Pair):
    def __init__(self, actual, expected, **other_parameters):
        if not (actual is None or expected is None):
            self._inputs_not_supported()
        super().__init__(actual, expected, **other_parameters)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    def __init__(self, actual, expected, *, id, **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = (bool(x) for x in (actual, expected))
        super().__init__(actual, expected, **other_parameters)

    def compare(self):
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    """Python numbers (and NumPy scalars): int as int64, float as float64, complex as
    complex128."""
    _TYPE_TO_DTYPE = {int: "int64", float: "float64", complex: "complex128"}

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **other_parameters):
        self._check_inputs_isinstance(actual, expected, cls=(int, float, complex, np.number))
        actual, expected = (x.item() if isinstance(x, np.number) else x
                            for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(
            *[getattr(_dtype, self._TYPE_TO_DTYPE[type(x)]) for x in (actual, expected)],
            rtol=rtol, atol=atol, id=id)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            self._fail(AssertionError, f"The (d)types do not match: {type(self.actual)} != "
                                       f"{type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        tolerance = self.atol + self.rtol * abs(self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= tolerance:
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(self.actual, self.expected,
                                                            rtol=self.rtol, atol=self.atol))

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_dtype")


class TensorLikePair(Pair):
    """Tensors, and inputs chainrule.as_tensor converts (arrays, ...) of related types."""

    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **other_parameters):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            self._inputs_not_supported()
        actual, expected = (self._to_tensor(x) for x in (actual, expected))
        super().__init__(actual, expected, id=id, **other_parameters)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=self.id)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    def _to_tensor(self, tensor_like):
        if isinstance(tensor_like, Tensor):
            return tensor_like
        from .._creation import as_tensor
        try:
            return as_tensor(tensor_like)
        except Exception:
            self._inputs_not_supported()

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        actual, expected = self._equalize_attributes(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual, expected):
        def mismatch(name, a, e):
            self._fail(AssertionError,
                       f"The values for attribute '{name}' do not match: {a} != {e}.")
        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if actual.layout is strided and self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_dtype and actual.dtype is not expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    def _equalize_attributes(self, actual, expected):
        if actual.dtype is not expected.dtype:
            unsigned = (_dtype.uint64, _dtype.uint32, _dtype.uint16)
            a = _dtype.int64 if actual.dtype in unsigned else actual.dtype
            e = _dtype.int64 if expected.dtype in unsigned else expected.dtype
            d = _dtype.promote_types(a, e)
            actual, expected = actual.to(d), expected.to(d)
        return actual, expected

    def _compare_values(self, actual, expected):
        d = actual.dtype
        if d.is_floating_point and d.itemsize == 1 and (self.rtol != 0.0 or self.atol != 0.0):
            raise ErrorMeta(AssertionError, f"Rtol={self.rtol} and atol={self.atol} are not "
                                            "supported for bitwise comparison of low dimensional "
                                            "floats. Please use rtol=0.0 and atol=0.0.")
        self._compare_regular_values_close(actual, expected, rtol=self.rtol, atol=self.atol,
                                           equal_nan=self.equal_nan)

    def _compare_regular_values_close(self, actual, expected, *, rtol, atol, equal_nan,
                                      identifier=None):
        a, e = actual._data, expected._data
        if a.dtype.kind not in "biufc":     # ml_dtypes (bfloat16, float8): compare in float32
            a, e = a.astype(np.float32), e.astype(np.float32)
        matches = _isclose(a, e, rtol, atol, equal_nan)
        if matches.all():
            return
        if actual.shape == ():
            msg = make_scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol,
                                           identifier=identifier)
        else:
            msg = make_tensor_mismatch_msg(_Values(actual, a), _Values(expected, e), matches,
                                           rtol=rtol, atol=atol, identifier=identifier)
        self._fail(AssertionError, msg)

    def extra_repr(self):
        return ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout",
                "check_stride")


class _Values:
    """A tensor's dtype with the array its values are compared in."""
    __slots__ = ("dtype", "_data")

    def __init__(self, t, a):
        self.dtype = t.dtype
        self._data = a


def originate_pairs(actual, expected, *, pair_types,
                    sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id=(), **options):
    """The pairs to compare, recursing through sequences and mappings."""
    if (isinstance(actual, sequence_types) and not isinstance(actual, str)
            and isinstance(expected, sequence_types) and not isinstance(expected, str)):
        actual_len, expected_len = len(actual), len(expected)
        if actual_len != expected_len:
            raise ErrorMeta(AssertionError, "The length of the sequences mismatch: "
                                            f"{actual_len} != {expected_len}", id=id)
        pairs = []
        for idx in range(actual_len):
            pairs.extend(originate_pairs(actual[idx], expected[idx], pair_types=pair_types,
                                         sequence_types=sequence_types,
                                         mapping_types=mapping_types, id=(*id, idx), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError,
                            "The keys of the mappings do not match:\nMissing keys in the actual "
                            f"mapping: {sorted(expected_keys - actual_keys)}\nAdditional keys in "
                            f"the actual mapping: {sorted(actual_keys - expected_keys)}", id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                         sequence_types=sequence_types,
                                         mapping_types=mapping_types, id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
        except ErrorMeta:
            raise
        except Exception as error:
            raise RuntimeError(
                f"Originating a {pair_type.__name__}() at item "
                f"{''.join(str([item]) for item in id)} with\n\n{type(actual).__name__}(): "
                f"{actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\nresulted in the "
                "unexpected exception above. If you are a user and see this message during "
                "normal operation please file an issue at "
                "https://github.com/pytorch/pytorch/issues. If you are a developer and working "
                "on the comparison functions, please except the previous error and raise an "
                "expressive `ErrorMeta` instead.") from error
    raise ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type "
                               f"{type(actual)} and {type(expected)}.", id=id)


def not_close_error_metas(actual, expected, *, pair_types=(ObjectPair,),
                          sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options):
    __tracebackhide__ = True
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types,
                                sequence_types=sequence_types, mapping_types=mapping_types,
                                **options)
    except ErrorMeta as error_meta:
        raise error_meta.to_error() from None
    error_metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error_meta:
            error_metas.append(error_meta)
    return error_metas


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that `actual` and `expected` are close: tensors, numbers, arrays, or sequences
    and mappings of them, with PyTorch's per-dtype default tolerances, checks and messages."""
    __tracebackhide__ = True
    error_metas = not_close_error_metas(
        actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
        check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
        check_stride=check_stride, msg=msg)
    if error_metas:
        raise error_metas[0].to_error(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since PyTorch 1.12: use assert_close."""
    from .._creation import tensor
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed "
                  "in a future release. Please use `torch.testing.assert_close()` instead. You "
                  "can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            _dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5),
            _dtype.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
