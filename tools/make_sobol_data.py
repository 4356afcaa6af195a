"""Write chainrule/_sobol.npz: the Joe-Kuo direction numbers (new-joe-kuo-6.21201, search
criterion D(6)) that torch.quasirandom.SobolEngine embeds, packed to about 400 KB.

PyTorch keeps them as two C++ tables (SobolEngineOpsUtils.cpp: poly[21201] and
initsobolstate[21201][18]) that Python cannot read; SciPy ships the same Joe-Kuo data in
scipy/stats/_sobol_direction_numbers.npz. This script reads SciPy's file, checks that the
direction numbers chainrule derives from it equal torch's _sobol_engine_initialize_state_
for all 21201 dimensions, and writes the packed file. Run once, from the repository root,
in the test environment (numpy, scipy, torch):

    python tools/make_sobol_data.py

Packing: each dimension d has a primitive polynomial of degree s_d (poly[d], s_d + 1 bits,
the top and bottom ones always set) and s_d initial direction numbers m_0..m_{s_d-1}, m_j
odd and below 2**(j+1). The file stores `degree` (uint8 per dimension) and one bit stream
holding, per dimension, the s_d - 1 inner bits of poly[d] and then m_j >> 1 in j bits each.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def main():
    import scipy.stats
    import torch

    from chainrule.quasirandom import _MAXDIM, _direction_numbers, _unpack

    source = os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz")
    z = np.load(source)
    poly, vinit = z["poly"].astype(np.int64), z["vinit"].astype(np.int64)
    assert poly.shape == (_MAXDIM,) and vinit.shape == (_MAXDIM, 18)
    degree = np.array([int(p).bit_length() - 1 for p in poly], np.uint8)

    widths, values = [], []
    for d in range(_MAXDIM):
        s = int(degree[d])
        p = int(poly[d])
        assert s == 0 or (p >> s) & 1 and p & 1
        if s > 1:
            widths.append(s - 1)
            values.append((p >> 1) & ((1 << (s - 1)) - 1))
        for j in range(s):
            m = int(vinit[d, j])
            assert m & 1 and m < 1 << (j + 1)
            if j:
                widths.append(j)
                values.append(m >> 1)
    widths = np.array(widths, np.int64)
    values = np.array(values, np.int64)
    # the bits of every field, most significant first
    k = np.arange(widths.max())
    bits = (values[:, None] >> (widths[:, None] - 1 - k)) & 1
    stream = bits[k < widths[:, None]].astype(np.uint8)
    out = os.path.join(os.path.dirname(__file__), "..", "chainrule", "_sobol.npz")
    np.savez_compressed(out, degree=degree, bits=np.packbits(stream))

    # check: unpacking gives SciPy's tables, and the direction numbers equal torch's
    p2, m2 = _unpack(np.load(out))
    assert (p2 == poly).all() and (m2[:, :18] == vinit).all()
    state = torch.zeros(_MAXDIM, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(state, _MAXDIM)
    assert (_direction_numbers(_MAXDIM) == state.numpy()).all()
    print(f"wrote {os.path.normpath(out)} ({os.path.getsize(out)} bytes); direction numbers "
          f"equal torch's for all {_MAXDIM} dimensions")


if __name__ == "__main__":
    main()
