"""Op-database entries for the attention rows (ops/attention.py), called through
nn.functional.scaled_dot_product_attention: 4-D inputs of one head size take the CPU flash
kernel (whose backward has no derivative, so no gradgradcheck), others the math composition
with _safe_softmax."""
import numpy as np

from . import OpInfo, Sample, randn


def _sdpa(lib, q, k, v, *mask, **kw):
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, *mask, **kw)


def _flash_samples(rng):
    mask = rng.random((4, 6)) > 0.3
    mask[1] = False
    return [Sample(randn(rng, 2, 3, 4, 5), randn(rng, 2, 3, 6, 5), randn(rng, 2, 3, 6, 5)),
            Sample(randn(rng, 1, 2, 4, 3), randn(rng, 1, 2, 4, 3), randn(rng, 1, 2, 4, 3),
                   is_causal=True, scale=0.7),
            Sample(randn(rng, 2, 3, 4, 5), randn(rng, 2, 3, 6, 5), randn(rng, 2, 3, 6, 5), mask,
                   name="bool mask with a fully masked row"),
            Sample(randn(rng, 2, 3, 4, 5), randn(rng, 2, 3, 6, 5), randn(rng, 2, 3, 6, 5),
                   randn(rng, 2, 1, 4, 6), grad=(0, 1, 2), name="float mask"),
            Sample(randn(rng, 2, 4, 3, 5), randn(rng, 2, 2, 6, 5), randn(rng, 2, 2, 6, 5),
                   enable_gqa=True, name="grouped-query")]


def _math_samples(rng):
    mask = rng.random((3, 4, 6)) > 0.3
    mask[:, 2] = False
    return [Sample(randn(rng, 3, 4, 5), randn(rng, 3, 6, 5), randn(rng, 3, 6, 2)),
            Sample(randn(rng, 3, 4, 5), randn(rng, 3, 6, 5), randn(rng, 3, 6, 5), mask,
                   name="bool mask with a fully masked row"),
            Sample(randn(rng, 4, 5), randn(rng, 6, 5), randn(rng, 6, 5), randn(rng, 4, 6),
                   is_causal=False, scale=-0.3, name="2-D, float mask with grad"),
            Sample(randn(rng, 2, 4, 3, 5), randn(rng, 2, 2, 6, 5), randn(rng, 2, 1, 6, 4),
                   enable_gqa=True, name="grouped-query"),
            Sample(randn(rng, 3, 4, 5), randn(rng, 3, 6, 5), randn(rng, 3, 6, 5),
                   is_causal=True)]


def _safe_softmax(lib, a, dim):
    if lib.__name__ == "torch":
        return lib._safe_softmax(a, dim)
    return lib.ops.attention.safe_softmax(a, dim)


def _safe_softmax_samples(rng):
    masked = randn(rng, 3, 4)
    masked[1] = -np.inf
    masked[2, 1] = -np.inf
    return [Sample(randn(rng, 3, 4), 1), Sample(randn(rng, 2, 3, 4), 0),
            Sample(masked, 1, name="fully and partly masked rows")]


OPS_DB = [
    OpInfo("scaled_dot_product_attention (flash)", _sdpa, _flash_samples,
           ops=("_scaled_dot_product_flash_attention_for_cpu",
                "_scaled_dot_product_flash_attention_for_cpu_backward"),
           gradgradcheck=False, compare_atol=1e-12, compare_rtol=1e-10),
    OpInfo("scaled_dot_product_attention (math)", _sdpa, _math_samples,
           ops=("_safe_softmax", "mul.Scalar"), compare_atol=1e-12, compare_rtol=1e-10),
    OpInfo("_safe_softmax", _safe_softmax, _safe_softmax_samples,
           ops=("_safe_softmax", "_softmax_backward_data")),
]
