"""Op-database entries for the core arithmetic, sum/mean and basic shape rows."""
import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _binary(rng):
    return [
        Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
        Sample(randn(rng, 3, 4), randn(rng, 4), name="broadcast (3,4)x(4)"),
        Sample(randn(rng, 2, 1, 3), randn(rng, 4, 1), name="broadcast both"),
        Sample(randn(rng), randn(rng, 3), name="0-d with 1-d"),
        Sample(noncontiguous(randn(rng, 3, 4)), randn(rng, 3, 4), name="non-contiguous"),
        Sample(randn(rng, 3), 2.5, name="tensor-scalar"),
    ]


def _div_samples(rng):
    return [
        Sample(randn(rng, 3, 4), positive(rng, 3, 4)),
        Sample(randn(rng, 3, 4), -positive(rng, 4), name="broadcast"),
        Sample(randn(rng, 3), 2.5, name="tensor-scalar"),
    ]


def _unary(rng):
    return [Sample(randn(rng, 3, 4)), Sample(randn(rng)), Sample(noncontiguous(randn(rng, 2, 3)))]


def _positive_unary(rng):
    return [Sample(positive(rng, 3, 4)), Sample(positive(rng)), Sample(noncontiguous(positive(rng, 2, 3)))]


OPS_DB = [
    OpInfo("add", lambda lib, a, b: a + b, _binary),
    OpInfo("add.alpha", lambda lib, a, b: lib.add(a, b, alpha=2.0), lambda rng: [Sample(randn(rng, 3), randn(rng, 2, 3))], ops=("add",)),
    OpInfo("sub", lambda lib, a, b: a - b, _binary),
    OpInfo("rsub", lambda lib, a: 2.0 - a, _unary),
    OpInfo("mul", lambda lib, a, b: a * b, _binary),
    OpInfo("div", lambda lib, a, b: a / b, _div_samples),
    OpInfo("rdiv", lambda lib, a: 2.0 / a, _positive_unary, ops=("reciprocal", "mul")),
    OpInfo("neg", lambda lib, a: -a, _unary),
    OpInfo("reciprocal", lambda lib, a: a.reciprocal(), _positive_unary),
    OpInfo("pow.Tensor_Scalar", lambda lib, a, e: a ** e,
           lambda rng: [Sample(positive(rng, 3, 4), 2.5), Sample(randn(rng, 3), 2), Sample(randn(rng, 3), 0),
                        Sample(positive(rng, 3), -1.5)]),
    OpInfo("pow.Tensor_Tensor", lambda lib, a, e: a ** e,
           lambda rng: [Sample(positive(rng, 3, 4), randn(rng, 3, 4)), Sample(positive(rng, 2, 3), randn(rng, 3))]),
    OpInfo("pow.Scalar", lambda lib, e: 2.0 ** e, _unary),
    OpInfo("exp", lambda lib, a: a.exp(), _unary),
    OpInfo("log", lambda lib, a: a.log(), _positive_unary),
    OpInfo("where.self", lambda lib, c, a, b: lib.where(c, a, b),
           lambda rng: [Sample(randn(rng, 3, 4) > 0, randn(rng, 3, 4), randn(rng, 4)),
                        Sample(randn(rng, 3) > 0, randn(rng, 3), 0.5)]),
    OpInfo("sum", lambda lib, a: a.sum(), _unary),
    OpInfo("sum.dim_IntList", lambda lib, a, **kw: a.sum(**kw),
           lambda rng: [Sample(randn(rng, 3, 4), dim=0), Sample(randn(rng, 3, 4), dim=-1, keepdim=True),
                        Sample(randn(rng, 2, 3, 4), dim=(0, 2)), Sample(randn(rng), dim=0)]),
    OpInfo("mean", lambda lib, a: a.mean(), _unary),
    OpInfo("mean.dim", lambda lib, a, **kw: a.mean(**kw),
           lambda rng: [Sample(randn(rng, 3, 4), dim=1), Sample(randn(rng, 2, 3, 4), dim=(0, 1), keepdim=True)]),
    OpInfo("view", lambda lib, a: a.view(4, 3), lambda rng: [Sample(randn(rng, 3, 4))]),
    OpInfo("reshape.copy", lambda lib, a: a.expand(2, 3).reshape(6),
           lambda rng: [Sample(randn(rng, 3))], ops=("_unsafe_view", "clone", "expand")),
    OpInfo("reshape", lambda lib, a: a.reshape(-1, 2), lambda rng: [Sample(randn(rng, 3, 4))], ops=("view",)),
    OpInfo("expand", lambda lib, a: a.expand(2, 3, 4), lambda rng: [Sample(randn(rng, 3, 1)), Sample(randn(rng, 4))]),
    OpInfo("unsqueeze", lambda lib, a: a.unsqueeze(-1), lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng))]),
    OpInfo("squeeze", lambda lib, a: a.squeeze(), lambda rng: [Sample(randn(rng, 3, 1, 4))]),
    OpInfo("squeeze.dim", lambda lib, a: a.squeeze(1), lambda rng: [Sample(randn(rng, 3, 1, 4)), Sample(randn(rng, 3, 2))]),
    OpInfo("clone", lambda lib, a: a.clone(), _unary),
    # complex: values and node names only (gradcheck here is real-valued)
    OpInfo("conj", lambda lib, a: a.conj() * 1, lambda rng: [Sample(randn(rng, 3) + 1j * randn(rng, 3))],
           ops=("conj", "mul"), gradcheck=False),
    OpInfo("_to_copy", lambda lib, a: a.to(lib.float32).to(lib.float64) * 1, _unary,
           ops=("_to_copy", "mul"), gradcheck=False, compare_atol=1e-6),
]
