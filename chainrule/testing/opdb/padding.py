"""Op-database entries for padding (ops/padding.py): constant_pad_nd, and nn.functional.pad in
each mode. Backward rows are reached by gradgradcheck of their forward."""
from . import OpInfo, Sample, noncontiguous, randn


def _pad(lib):
    return lib.nn.functional.pad


def _constant_samples(rng):
    return [Sample(randn(rng, 2, 3), (1, 2)),
            Sample(randn(rng, 2, 3, 4), (1, -2, 0, 1), 1.5, name="crop and pad, value"),
            Sample(randn(rng, 3, 4), (-1, -2, -1, 0), name="crop only"),
            Sample(randn(rng, 2, 3), (0, 0, 1, 1), name="leading dim only"),
            Sample(randn(rng), (), name="0-d"),
            Sample(noncontiguous(randn(rng, 3, 4)), (2, 1), name="non-contiguous")]


def _samples(n):
    """Inputs with n padded dims: unbatched and batched, negative pads, non-contiguous."""
    def samples(rng):
        sp = (3, 4, 3)[-n:]
        return [Sample(randn(rng, 2, *sp), (1, 2) * n),
                Sample(randn(rng, 2, 2, *sp), (2, 1, 0, 3, 1, 1)[:2 * n], name="batched"),
                Sample(randn(rng, 1, 2, *sp), (-1, 2, 1, -2, 2, 0)[:2 * n], name="negative pads"),
                Sample(noncontiguous(randn(rng, 2, *sp)), (1, 0, 0, 1, 1, 1)[:2 * n],
                       name="non-contiguous")]
    return samples


def _circular_samples(rng):
    return [Sample(randn(rng, 2, 4), (1, 2)),
            Sample(randn(rng, 1, 2, 3, 4), (2, -1, 3, 1), name="2-d, negative pad"),
            Sample(randn(rng, 1, 1, 2, 2, 3), (1, 1, 2, 0, 1, 2), name="3-d")]


OPS_DB = [
    OpInfo("constant_pad_nd", lambda lib, a, *args: lib.constant_pad_nd(a, *args),
           _constant_samples),
    OpInfo("pad.constant", lambda lib, a, p, *args: _pad(lib)(a, p, "constant", *args),
           lambda rng: [Sample(randn(rng, 2, 3, 4), (1, 2, -1, 1), 2.0)], ops=("constant_pad_nd",)),
] + [
    OpInfo(f"pad.{mode}{n}d", lambda lib, a, p, mode=mode: _pad(lib)(a, p, mode), _samples(n),
           ops=(f"{kind}_pad{n}d", f"{kind}_pad{n}d_backward"))
    for mode, kind in (("reflect", "reflection"), ("replicate", "replication"))
    for n in (1, 2, 3)
] + [
    # A composition of slices and in-place copies (no row of its own), as PyTorch's
    OpInfo("pad.circular", lambda lib, a, p: _pad(lib)(a, p, "circular"), _circular_samples,
           ops=("slice.Tensor", "copy")),
]
