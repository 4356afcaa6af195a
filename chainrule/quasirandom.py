"""torch.quasirandom: SobolEngine, drawing (scrambled) Sobol sequences bit for bit as PyTorch's
CPU kernels (aten/src/ATen/native/SobolEngineOps.cpp) draw them.

The direction numbers are Joe and Kuo's (new-joe-kuo-6.21201), the table PyTorch compiles in;
chainrule ships them packed in _sobol.npz (written by tools/make_sobol_data.py, which checks
them against torch's). Point i of the sequence is the XOR of the direction numbers picked by
the Gray code of i: each draw XORs, into the running state, the column indexed by the
rightmost zero bit of the previous point's index, which is a cumulative XOR over the draws.
"""
import os

import numpy as np

from . import _creation, _dtype
from ._tensor import make_tensor

__all__ = ["SobolEngine"]

_MAXDIM = 21201
_MAXBIT = 30
_MAXDEG = 18
_packed = None     # the packed tables, loaded on first use


def _unpack(z, dimension=_MAXDIM):
    """(poly, m) of the first `dimension` dimensions: each one's primitive polynomial and
    initial direction numbers (m[d, j] for j below the degree), from the packed file (see
    tools/make_sobol_data.py)."""
    s = z["degree"][:dimension].astype(np.int64)
    n_fields = np.where(s >= 2, s, 0)      # the polynomial's inner bits, then m_1..m_{s-1}
    dims = np.repeat(np.arange(dimension), n_fields)
    starts = np.cumsum(n_fields) - n_fields
    i = np.arange(len(dims)) - starts[dims]
    widths = np.where(i == 0, s[dims] - 1, i)
    offsets = np.cumsum(widths) - widths
    n_bits = int(offsets[-1] + widths[-1]) if len(dims) else 0
    bits = np.unpackbits(z["bits"][:(n_bits + 7) // 8]).astype(np.int64)
    k = np.arange(_MAXDEG)
    take = k < widths[:, None]
    field_bits = bits[np.where(take, offsets[:, None] + k, 0)] * take
    values = (field_bits << np.maximum(widths[:, None] - 1 - k, 0)).sum(1)
    poly = np.where(s == 0, 1, np.where(s == 1, 3, (1 << s) | 1))
    inner = i == 0
    poly[dims[inner]] |= values[inner] << 1
    m = np.zeros((dimension, _MAXDEG), np.int64)
    m[:, 0] = 1
    m[dims[~inner], i[~inner]] = (values[~inner] << 1) | 1
    return poly, m


def _direction_numbers(dimension):
    """_sobol_engine_initialize_state_: the (dimension, 30) direction numbers, column j
    shifted to bit 29 - j, by the Joe-Kuo recurrence run for all dimensions at once."""
    global _packed
    if _packed is None:
        with np.load(os.path.join(os.path.dirname(__file__), "_sobol.npz")) as z:
            _packed = {"degree": z["degree"], "bits": z["bits"]}
    poly, m = _unpack(_packed, dimension)
    s = np.frexp(poly)[1].astype(np.int64) - 1      # the degree: bit_length(poly) - 1
    v = np.zeros((dimension, _MAXBIT), np.int64)
    v[:, :_MAXDEG] = np.where(np.arange(_MAXDEG) < s[:, None], m, 0)
    v[0] = 1
    rows = np.arange(dimension)
    for j in range(1, _MAXBIT):
        todo = (s <= j) & (s > 0)
        new = v[rows, np.maximum(j - s, 0)]
        for k in range(_MAXDEG):
            tap = todo & (k < s) & ((poly >> np.maximum(s - 1 - k, 0)) & 1 == 1) & (j - k - 1 >= 0)
            new = np.where(tap, new ^ (v[rows, max(j - k - 1, 0)] << (k + 1)), new)
        v[:, j] = np.where(todo, new, v[:, j])
    return v << np.arange(_MAXBIT - 1, -1, -1)


def _rightmost_zero(n):
    """Index of the rightmost zero bit of each n (C++'s loop: 0 for negative n)."""
    n = np.asarray(n, np.int64)
    low = (~n) & (n + 1)        # the lowest zero bit, as a power of two
    return np.where(n < 0, 0, np.log2(np.maximum(low, 1)).astype(np.int64))


def _check_int(name, arg, position, value):
    """value as the int PyTorch's parser makes of it (0-d integer tensors too)."""
    n = None if getattr(value, "ndim", 0) else _creation._as_index(value)
    if n is None:
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be int, not "
                        f"{_creation._arg_type(value)}")
    return n


def _draw(quasi, n, sobolstate, dimension, num_generated, dtype):
    """_sobol_engine_draw: n points after point num_generated, and the new state."""
    n = _check_int("_sobol_engine_draw", "n", 2, n)
    num_generated = _check_int("_sobol_engine_draw", "num_generated", 5, num_generated)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                           f"[{n}, {dimension}]")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f"\"_sobol_engine_draw\" not implemented for '{dtype.legacy}'")
    columns = _rightmost_zero(num_generated + np.arange(n))
    points = np.bitwise_xor.accumulate(sobolstate._data[:, columns].T, axis=0) ^ quasi._data
    new_quasi = points[-1].copy() if n else quasi._data.copy()
    # result.mul_(RECIPD): the integers converted to the dtype, times 2**-30 (exact)
    result = points.astype(dtype.np) * dtype.np.type(2.0 ** -_MAXBIT)
    return make_tensor(result.reshape(n, dimension)), make_tensor(new_quasi)


def _fast_forward(quasi, n, sobolstate, num_generated):
    """_sobol_engine_ff_: quasi advanced by n points in place. A column is XORed once per
    index in [num_generated, num_generated + n) whose rightmost zero bit it is: only the
    parity of that count matters."""
    n = _check_int("_sobol_engine_ff_", "n", 2, n)
    num_generated = _check_int("_sobol_engine_ff_", "num_generated", 5, num_generated)
    if n <= 0:
        return
    first, stop = num_generated, num_generated + n
    if first < 0:   # negative indices pick column 0 (C++'s rightmost_zero)
        negatives = min(stop, 0) - first
        quasi._data ^= sobolstate._data[:, 0] * (negatives & 1)
        first = max(first, 0)
    bit = np.arange(_MAXBIT, dtype=np.int64)
    period = np.int64(2) << bit     # indices with rightmost zero at bit l: (2**l - 1) mod 2**(l+1)
    offset = (np.int64(1) << bit) - 1

    def count(upto):                # how many such indices lie in [0, upto)
        return np.where(upto > offset, (upto - offset - 1) // period + 1, 0)
    odd = ((count(stop) - count(first)) & 1).astype(bool)
    if odd.any():
        quasi._data ^= np.bitwise_xor.reduce(sobolstate._data[:, odd], axis=1)


def _scramble(sobolstate, ltm):
    """_sobol_engine_scramble_: each direction number's bits (bit 29 - k at column k)
    multiplied over GF(2) by the dimension's random lower-triangular bit matrix with a unit
    diagonal, the product's bit 29 - p coming from row p; as XORs of the matrix's columns
    (column k as an integer) selected by the direction number's bits."""
    lower = ltm.astype(np.uint8)
    lower[:, np.arange(_MAXBIT), np.arange(_MAXBIT)] = 1
    packed = np.packbits(lower, axis=1)                      # (d, 4, k): rows p, high first
    columns = (packed.astype(np.int64) << np.array([24, 16, 8, 0])[:, None]).sum(1) >> 2
    v = sobolstate._data
    scrambled = np.zeros_like(v)
    for k in range(_MAXBIT):
        scrambled ^= ((v >> (_MAXBIT - 1 - k)) & 1) * columns[:, k, None]
    v[...] = scrambled


class SobolEngine:
    r"""An engine for (scrambled) Sobol sequences, low-discrepancy quasi-random points in
    [0, 1)^dimension, up to 21201 dimensions (Joe and Kuo's direction numbers).

    Args:
        dimension (int): the dimensionality of the sequence
        scramble (bool): scramble the sequence (Owen's linear matrix scrambling and a
            random digital shift), default False
        seed (int, optional): the seed of the scrambling's generator; the default generator
            when None
    """

    MAXBIT = _MAXBIT
    MAXDIM = _MAXDIM

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality "
                             f"for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self.sobolstate = _creation.zeros(dimension, self.MAXBIT, dtype=_dtype.int64)
        self.sobolstate._data[...] = _direction_numbers(dimension)
        if not self.scramble:
            self.shift = _creation.zeros(self.dimension, dtype=_dtype.int64)
        else:
            self._scramble()
        self.quasi = self.shift.clone()
        self._first_point = (self.quasi / 2 ** self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def draw(self, n=1, out=None, dtype=None):
        """The next n points, an (n, dimension) tensor (of dtype, default the default float
        dtype); written into out when given."""
        if dtype is None:
            dtype = _dtype.get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                result, self.quasi = _draw(self.quasi, n - 1, self.sobolstate, self.dimension,
                                           self.num_generated, dtype)
                first = self._first_point.to(dtype)._data
                result = make_tensor(np.concatenate([first, result._data]))
        else:
            result, self.quasi = _draw(self.quasi, n, self.sobolstate, self.dimension,
                                       self.num_generated - 1, dtype)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points; the total drawn must stay a power of two."""
        n = 2 ** m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError("The balance properties of Sobol' points require "
                             f"n to be a power of 2. {self.num_generated} points have been "
                             f"previously generated, then: n={self.num_generated}+2**{m}="
                             f"{total_n}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip n points, as drawing them would."""
        if self.num_generated == 0:
            _fast_forward(self.quasi, n - 1, self.sobolstate, self.num_generated)
        else:
            _fast_forward(self.quasi, n, self.sobolstate, self.num_generated - 1)
        self.num_generated += n
        return self

    def _scramble(self):
        g = None
        if self.seed is not None:
            from ._random import Generator
            g = Generator()
            g.manual_seed(self.seed)
        # the random digital shift, then one lower-triangular bit matrix per dimension
        shift_ints = _creation.randint(2, (self.dimension, self.MAXBIT), generator=g)
        self.shift = make_tensor(shift_ints._data @ (np.int64(1) << np.arange(self.MAXBIT)))
        ltm = _creation.randint(2, (self.dimension, self.MAXBIT, self.MAXBIT), generator=g)
        _scramble(self.sobolstate, np.tril(ltm._data))

    def __repr__(self):
        fmt_string = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt_string += ["scramble=True"]
        if self.seed is not None:
            fmt_string += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt_string) + ")"

