"""Op-database entries for the differentiable creation ops (chainrule/_creation.py): complex
and polar, which make complex tensors from real ones. Their results are viewed as real
(view_as_real, a differentiable view) so gradcheck sees real outputs and the real and
imaginary parts of the gradient are both checked."""
from . import OpInfo, Sample, noncontiguous, positive, randn


def _complex(lib, re, im):
    return lib.view_as_real(lib.complex(re, im))


def _polar(lib, abs, angle):
    return lib.view_as_real(lib.polar(abs, angle))


def _pairs(rng, first):
    return [Sample(first(rng, 3, 4), randn(rng, 3, 4)),
            Sample(first(rng, 2, 1, 3), randn(rng, 4, 1), name="broadcast"),
            Sample(first(rng), randn(rng), name="0-d"),
            Sample(noncontiguous(first(rng, 3, 4)), randn(rng, 3, 4), name="non-contiguous"),
            Sample(first(rng, 5), randn(rng, 5), grad=(1,), name="only the second")]


OPS_DB = [
    OpInfo("complex", _complex, lambda rng: _pairs(rng, randn)),
    # polar_backward's terms cancel where the result is real: compared to rounding
    OpInfo("polar", _polar, lambda rng: _pairs(rng, positive), compare_atol=1e-12,
           compare_rtol=1e-12),
]
