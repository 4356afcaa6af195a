"""Regression tests for the run-7 fuzz mismatches (group b) that were chainrule's to fix."""
import numpy as np
import pytest

from helpers import same

F32 = np.float32


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d_reflects_a_huge_float32_coordinate_in_float32(mode, align_corners):
    # (-1e38 + 1) * 3 - 1) / 2 in float32 reflects to x = 0.5, in float64 to another place
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4, 3)).astype(F32)
    grid = np.array([[[[[-1e38, -0.22332528, -1.1992784], [0.5, 1e38, 0.3]]]]], F32)

    def prog(T):
        xt, g = T.tensor(x, requires_grad=True), T.tensor(grid, requires_grad=True)
        out = T.nn.functional.grid_sample(xt, g, mode=mode, padding_mode="reflection",
                                          align_corners=align_corners)
        return (out,) + T.autograd.grad(out.sum(), [xt, g])
    same(prog, atol=1e-4, rtol=1e-4)

