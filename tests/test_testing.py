"""chainrule.testing.assert_close / assert_allclose / make_tensor against torch.testing: the
same passes, the same exception classes and the same messages."""
import collections

import numpy as np
import pytest
import torch

import chainrule
from helpers import same, same_error, warnings_of


def both_pass(prog):
    """`prog(T)` passes on both libraries."""
    assert prog(torch) is None
    assert prog(chainrule) is None


PASSING = [
    lambda T: T.testing.assert_close(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0 + 1e-7])),
    lambda T: T.testing.assert_close(T.tensor(1.0), T.tensor(1.0 + 1e-6)),
    lambda T: T.testing.assert_close(1.0, 1.0 + 1e-8),
    lambda T: T.testing.assert_close(1, 1),
    lambda T: T.testing.assert_close(1.0, 1, check_dtype=False),
    lambda T: T.testing.assert_close(True, True),
    lambda T: T.testing.assert_close(None, None),
    lambda T: T.testing.assert_close(np.float32(1.0), 1.0),
    lambda T: T.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0])),
    lambda T: T.testing.assert_close([T.tensor([1.0]), 2.0, np.array(3.0)],
                                     (T.tensor([1.0]), 2.0, np.array(3.0))),
    lambda T: T.testing.assert_close({"a": T.ones(2), "b": 2.0},
                                     collections.OrderedDict([("b", 2.0), ("a", T.ones(2))])),
    lambda T: T.testing.assert_close(T.tensor(float("nan")), T.tensor(float("nan")),
                                     equal_nan=True),
    lambda T: T.testing.assert_close(T.tensor([1, 2]), T.tensor([1, 2])),
    lambda T: T.testing.assert_close(T.tensor([1, 2]), T.tensor([1.0, 2.0]), check_dtype=False),
    lambda T: T.testing.assert_close(T.tensor([1.0, 2.0]), T.tensor([1.1, 2.1]), rtol=0.1,
                                     atol=0.0),
    lambda T: T.testing.assert_close(T.nn.Parameter(T.ones(2)), T.ones(2)),
    lambda T: T.testing.assert_close(T.tensor([float("inf")]), T.tensor([float("inf")])),
    lambda T: T.testing.assert_close(T.ones(2, 3).t(), T.ones(3, 2)),
    lambda T: T.testing.assert_close(T.tensor([1 + 1j]), T.tensor([1 + 1j])),
    lambda T: T.testing.assert_close(T.tensor([True, False]), T.tensor([True, False])),
    lambda T: T.testing.assert_close(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16) +
                                     0.0004),
]


@pytest.mark.parametrize("prog", PASSING)
def test_assert_close_passes(prog):
    both_pass(prog)


FAILING = [
    lambda T: T.testing.assert_close(T.tensor([1.0, 2.0, 3.0]), T.tensor([1.0, 4.0, 5.0])),
    lambda T: T.testing.assert_close(T.tensor([1.0, 4.0, 5.0]), T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.testing.assert_close(T.tensor([[1.0, 2.0], [3.0, 4.0]]),
                                     T.tensor([[1.0, 2.0], [3.5, 4.0]])),
    lambda T: T.testing.assert_close(T.tensor(1.0), T.tensor(2.0)),
    lambda T: T.testing.assert_close(T.tensor(float("nan")), T.tensor(float("nan"))),
    lambda T: T.testing.assert_close(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.0])),
    lambda T: T.testing.assert_close(T.tensor([1.0, float("nan")]), T.tensor([2.0, 1.0])),
    lambda T: T.testing.assert_close(T.tensor([1, 2, 3]), T.tensor([1, 5, 3])),
    lambda T: T.testing.assert_close(T.tensor([True, False]), T.tensor([True, True])),
    lambda T: T.testing.assert_close(T.tensor([1 + 1j, 2j]), T.tensor([1 + 2j, 2j])),
    lambda T: T.testing.assert_close(T.ones(2), T.ones(3)),
    lambda T: T.testing.assert_close(T.ones(2), T.ones(2, dtype=T.float64)),
    lambda T: T.testing.assert_close(T.ones(2, 3).t(), T.ones(3, 2), check_stride=True),
    lambda T: T.testing.assert_close(T.ones(2), T.ones(2) * 2, rtol=0, atol=0),
    lambda T: T.testing.assert_close(T.ones(2), T.ones(2), rtol=0.1),
    lambda T: T.testing.assert_close(T.ones(2), T.ones(2), atol=0.1),
    lambda T: T.testing.assert_close(1e-9, 1e-10, rtol=0, atol=0),
    lambda T: T.testing.assert_close(1.0, 2.0),
    lambda T: T.testing.assert_close(1, 2),
    lambda T: T.testing.assert_close(1.0, 0.0),
    lambda T: T.testing.assert_close(1.0, 1),
    lambda T: T.testing.assert_close(1 + 1j, 1 + 2j),
    lambda T: T.testing.assert_close(True, False),
    lambda T: T.testing.assert_close(None, 1),
    lambda T: T.testing.assert_close([1.0, 2.0], [1.0]),
    lambda T: T.testing.assert_close({"a": 1}, {"b": 1}),
    lambda T: T.testing.assert_close([T.ones(2), T.ones(2)], [T.ones(2), T.zeros(2)]),
    lambda T: T.testing.assert_close({"a": T.ones(2)}, {"a": T.zeros(2)}),
    lambda T: T.testing.assert_close(T.ones(2).numpy(), T.ones(2)),
    lambda T: T.testing.assert_close(T.nn.Parameter(T.ones(2)), T.ones(2), allow_subclasses=False),
    lambda T: T.testing.assert_close("a", "b"),
    lambda T: T.testing.assert_close(T.tensor([1.0, 2.0]), T.tensor([1.0, 3.0]), msg="custom"),
    lambda T: T.testing.assert_close(T.tensor([1.0, 2.0]), T.tensor([1.0, 3.0]),
                                     msg=lambda m: f"Header\n\n{m}\n\nFooter"),
    lambda T: T.testing.assert_close([T.tensor([1.0])], [T.tensor([2.0])],
                                     msg=lambda m: m.upper()),
    lambda T: T.testing.assert_close(T.arange(12.0).reshape(3, 4), T.arange(12.0).reshape(3, 4) +
                                     T.eye(3, 4)),
    lambda T: T.testing.assert_close(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16) * 1.5),
    lambda T: T.testing.assert_close(T.tensor([1, 2], dtype=T.uint8), T.tensor([2, 1],
                                                                             dtype=T.uint8)),
    lambda T: T.testing.assert_close(T.tensor([], dtype=T.float32), T.tensor([1.0])),
    lambda T: T.testing.assert_close(T.tensor([float("inf")]), T.tensor([-float("inf")])),
]


@pytest.mark.parametrize("prog", FAILING)
def test_assert_close_fails_as_pytorch(prog):
    same_error(prog)


def test_default_tolerances_per_dtype():
    # just inside and just outside each dtype's default tolerance
    for dtype, rtol, atol in (("float32", 1.3e-6, 1e-5), ("float64", 1e-7, 1e-7),
                              ("float16", 1e-3, 1e-5), ("complex64", 1.3e-6, 1e-5),
                              ("complex128", 1e-7, 1e-7)):
        inside = lambda T: T.testing.assert_close(   # noqa: E731
            T.tensor([100.0], dtype=getattr(T, dtype)),
            T.tensor([100.0 + 0.5 * (atol + rtol * 100)], dtype=getattr(T, dtype)))
        outside = lambda T: T.testing.assert_close(   # noqa: E731
            T.tensor([100.0], dtype=getattr(T, dtype)),
            T.tensor([100.0 + 8 * (atol + rtol * 100)], dtype=getattr(T, dtype)))
        both_pass(inside)
        same_error(outside)


def test_assert_allclose():
    def prog(T):
        T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.0, 2.00001])
    assert warnings_of(lambda: prog(chainrule)) == warnings_of(lambda: prog(torch))
    same_error(lambda T: T.testing.assert_allclose(T.tensor([1.0, 2.0]), [1.0, 2.1]))
    same_error(lambda T: T.testing.assert_allclose(T.tensor([1.0]), [2.0], msg="nope"))
    same_error(lambda T: T.testing.assert_allclose([1, 2], [1, 3]))
    both_pass(lambda T: T.testing.assert_allclose(T.tensor([float("nan")]), [float("nan")]))


def test_make_tensor_integers_and_errors():
    def prog(T):
        T.manual_seed(0)
        return [T.testing.make_tensor(5, dtype=T.int64, device="cpu"),
                T.testing.make_tensor((2, 3), dtype=T.uint8, device="cpu"),
                T.testing.make_tensor(4, dtype=T.bool, device="cpu"),
                T.testing.make_tensor(3, dtype=T.int32, device="cpu", low=2, high=5,
                                      exclude_zero=True),
                T.testing.make_tensor(2, 3, dtype=T.int16, device="cpu",
                                      noncontiguous=True).stride()]
    same(prog)
    for bad in (lambda T: T.testing.make_tensor(2, dtype=T.int64, device="cpu", low=5, high=5),
                lambda T: T.testing.make_tensor(2, dtype=T.int64, device="cpu", low=float("nan")),
                lambda T: T.testing.make_tensor(2, dtype=T.uint8, device="cpu", low=300, high=400),
                lambda T: T.testing.make_tensor(2, dtype=T.int64, device="cpu",
                                                requires_grad=True),
                lambda T: T.testing.make_tensor(2, dtype=T.float32, device="cpu",
                                                noncontiguous=True,
                                                memory_format=T.channels_last),
                lambda T: T.testing.make_tensor(2, dtype=T.int64, device="cuda")):
        same_error(bad)


@pytest.mark.skipif(not hasattr(chainrule.Tensor, "uniform_"), reason="Tensor.uniform_ is "
                    "another helper's (random sampling); make_tensor's floats need it")
def test_make_tensor_floats():
    def prog(T):
        T.manual_seed(0)
        return [T.testing.make_tensor(5, dtype=T.float32, device="cpu"),
                T.testing.make_tensor(2, 3, dtype=T.float64, device="cpu", low=-1, high=1,
                                      requires_grad=True),
                T.testing.make_tensor(3, dtype=T.complex64, device="cpu"),
                T.testing.make_tensor(1, 2, 3, 4, dtype=T.float32, device="cpu",
                                      memory_format=T.channels_last).stride()]
    same(prog)
