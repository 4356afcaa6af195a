"""PyTorch-compatible CPU random number generation on NumPy.

Reproduces ``at::CPUGeneratorImpl`` (mt19937) and the PyTorch 2.13 CPU
sampling kernels bit for bit, so ``manual_seed(6); randn((4, 4))`` yields
exactly the numbers ``torch.manual_seed(6); torch.randn(4, 4)`` does.

Platform notes (matching what torch itself does on the same machine):

* float32/float16 ``randn``/``normal`` with >= 16 elements emulate torch's
  AVX2 kernel (``avx_mathfun.h`` with GCC's FMA contraction), which x86-64
  CPUs with AVX2 or AVX-512 run.  Torch on CPUs without AVX2 or on ARM
  computes these with libm instead, so they differ there.
* float64 normals and all < 16-element normals call libm's ``log``/``log1p``
  through :mod:`math`, because NumPy's SIMD versions differ in the last bit
  from the libm that torch calls.
* ``bernoulli`` with a float ``p`` is what ``bernoulli_(p)`` and dropout use:
  one 53-bit uniform per element.  Checked against torch 2.13 on both AMD and
  Intel x86-64 CPUs (torch's MKL bernoulli kernel is not taken on either).
"""
import contextlib
import math
import os

import numpy as np

_DEFAULT_SEED = 67280421310721
_MT_N = 624
_RANDPERM_SMALL = (2**32 - 1) // 20  # randperm switches to random64() here

# Byte layout of torch.get_rng_state() (CPUGeneratorImplState).
_STATE = np.dtype({
    'names': ['seed', 'left', 'seeded', 'next', 'key', 'normal_y', 'normal_valid',
              'float_normal', 'float_valid'],
    'formats': ['<u8', '<i4', '<i4', '<u8', ('<u8', _MT_N), '<f8', '<i4', '<f4', 'u1'],
    'offsets': [0, 8, 12, 16, 24, 5024, 5040, 5048, 5052], 'itemsize': 5056})


# libm through math: NumPy's own log/log1p differ from libm in the last bit.
_LOG, _LOG1P = np.frompyfunc(math.log, 1, 1), np.frompyfunc(math.log1p, 1, 1)
_EXP, _TAN = np.frompyfunc(math.exp, 1, 1), np.frompyfunc(math.tan, 1, 1)


# ---------------------------------------------------------------- exact FMA

def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, err):
    """Turn round-to-nearest ``s`` (exact value ``s + err``) into round-to-odd."""
    even = (s.view(np.int64) & 1) == 0
    return np.where((err != 0) & even, np.nextafter(s, np.copysign(np.inf, err)), s)


def _fma32(a, b, c):
    """Single-rounded float32 ``a*b + c``.

    The product is exact in float64, so the float64 sum can only round wrong
    when it lands exactly on a float32 rounding midpoint; nudge those (the
    operands of the few are gathered again).  One float64 temporary, written
    in place: the samplers call this some twenty times per value.
    """
    if np.ndim(b) == 0 and np.ndim(c) == 0 and b == 1 and c == 0 and np.ndim(a):
        return np.add(a, _F(0), dtype=np.float32)   # randn's: exact; -0 becomes +0 as in FMA
    s = np.multiply(a, b, dtype=np.float64)
    if type(s) is np.ndarray and (np.ndim(c) == 0 or np.shape(c) == s.shape):
        np.add(s, c, out=s)
    else:
        s = np.add(s, c, dtype=np.float64)
    tie = np.bitwise_and(s.view(np.int64), 0x1FFFFFFF) == 0x10000000
    if tie.any():
        a, b, c = (np.broadcast_to(v, s.shape)[tie].astype(np.float64) for v in (a, b, c))
        s[tie] = _round_to_odd(*_two_sum(a * b, c))
    return s.astype(np.float32)


def _fma64(a, b, c):
    """Single-rounded float64 ``a*b + c`` (Boldo-Melquiond, via round-to-odd)."""
    if np.ndim(c) == 0 and b == 1 and c == 0:
        return a + 0.0  # the common randn/rand case; + 0.0 turns -0 into +0 as FMA does
    a = np.asarray(a, np.float64)
    p = a * b
    ah = a * 134217729.0
    ah -= ah - a
    bh = b * 134217729.0
    bh -= bh - b
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + e == a*b exactly
    s, t = _two_sum(p, np.float64(c))
    return s + _round_to_odd(*_two_sum(t, e))


# ------------------------------------------------- torch's AVX2 Box-Muller

_F = np.float32
_LOG_P = [_F(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                          -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                          2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)]
_DP = [_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8)]


def _log_avx(x):
    """``log256_ps`` for x in (0, 1], with the FMAs GCC contracts it into."""
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7e).astype(np.float32)
    x = ((bits & ~0x7f800000) | 0x3f000000).view(np.float32)  # mantissa in [0.5, 1)
    small = x < _F(0.707106781186547524)
    e = e - small.astype(np.float32)
    x = (x - _F(1)) + x * small     # x * small: np.where(small, x, 0), without branches
    z = x * x
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = _fma32(y * x, z, e * _F(-2.12194440e-4))
    y = y - z * _F(0.5)
    return (x + y) + e * _F(0.693359375)


def _sincos_avx(x):
    """``sincos256_ps`` for x >= 0, with GCC's FMA contraction."""
    j = ((x * _F(1.27323954473516)).astype(np.int32) + 1) & ~1
    y = j.astype(np.float32)
    for dp in _DP:
        x = _fma32(y, dp, x)
    z = x * x
    c = _fma32(_fma32(_F(2.443315711809948e-5), z, _F(-1.388731625493765e-3)),
               z, _F(4.166664568298827e-2))
    c = _fma32(c * z, z, -(z * _F(0.5))) + _F(1)
    s = _fma32(_F(-1.9515295891e-4), z, _F(8.3321608736e-3))
    s = _fma32(_fma32(s, z, _F(-1.6666654611e-1)) * z, x, x)
    # the quadrant's swap and signs on the bits: np.where mispredicts on random quadrants
    j = j.view(np.uint32)
    c, s = c.view(np.uint32), s.view(np.uint32)
    swap = (c ^ s) & (np.uint32(0) - ((j >> 1) & 1))    # c ^ s where j & 2, else 0
    sin = s ^ swap ^ ((j & 4) << 29)                    # negated where j & 4
    cos = c ^ swap ^ ((~(j - 2) & 4) << 29)             # negated where not (j - 2) & 4
    return sin.view(np.float32), cos.view(np.float32)


def _box_muller_f32(u, mean, std):
    """NormalFill16<float>: (blocks, 16) float32 uniforms -> normals."""
    radius = np.sqrt(_F(-2) * _log_avx(_F(1) - u[:, :8]))
    sin, cos = _sincos_avx(_F(2 * math.pi) * u[:, 8:])
    mean, std = _F(mean), _F(std)
    return np.concatenate([_fma32(radius * cos, std, mean),
                           _fma32(radius * sin, std, mean)], axis=1)


def _box_muller_f64(u, mean, std):
    """NormalFill16<double>: (blocks, 16) float64 uniforms -> normals."""
    radius = np.sqrt(-2 * _LOG(1 - u[:, :8]).astype(np.float64))
    theta = 2 * math.pi * u[:, 8:]
    return np.concatenate([_fma64(radius * np.cos(theta), std, mean),
                           _fma64(radius * np.sin(theta), std, mean)], axis=1)


_FILL_CHUNK = 4096     # 16-value blocks per call of a Box-Muller fill


# ------------------------------------------------------ randperm helpers

def _occurrences(v, size):
    """Previous index holding the same value (-1 if none), and last index per value."""
    order = np.argsort(v, kind='stable')
    sv = v[order]
    same = sv[1:] == sv[:-1]
    prev = np.full(len(v), -1, np.int64)
    prev[order[1:][same]] = order[:-1][same]
    last = np.full(size, -1, np.int64)
    ends = np.append(~same, True)
    last[sv[ends]] = order[ends]
    return prev, last


def _roots(parent):
    """Follow ``parent`` pointers to their fixed points by pointer doubling."""
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            return parent
        parent = grand


def _forward_swaps(j):
    """Identity permutation after swapping positions i and j[i] >= i in turn."""
    n = len(j) + 1
    idx = np.arange(n)
    prev, last = _occurrences(j, n)
    # Position i, just before step i, holds what position k held before step
    # k, where k < i is the last step that swapped with i.
    k = np.where(last == idx, np.append(prev, -1), last)
    held = _roots(np.where(k >= 0, k, idx))
    return np.append(np.where(prev >= 0, held[prev], j), held[-1])


def _inside_out(z):
    """torch's inside-out Fisher-Yates: r[i] = r[z[i]]; r[z[i]] = i."""
    n = len(z)
    idx = np.arange(n)
    prev, last = _occurrences(z, n)
    # Step p copies position z[p]: the step that last wrote it, or (if only
    # step z[p] itself wrote it) whatever step z[p] copied in turn.
    chained = (z != idx) & (prev < 0)
    root = _roots(np.where(chained, z, idx))
    copied = np.where(z == idx, idx, prev)[root]
    return np.where(last >= 0, last, copied)


def _nudge(bound, step, dtype):
    """torch's update_from (step 1) / update_to (step -1) for float randint."""
    with np.errstate(over='ignore'):
        near = dtype.type(bound + step)
    # static_cast<int64_t> of an infinity is INT64_MIN on x86-64
    near = int(near) if np.isfinite(near) else -2**63
    if (near < bound) if step > 0 else (near >= bound):
        bound = near + step * (1 << (abs(bound + step).bit_length() - _nmant(dtype) - 1))
    return bound


def _is_float(dtype):
    return dtype.kind == 'f' or dtype.isbuiltin == 2       # bfloat16 is an ml_dtypes type


def _narrow(a, dtype):
    """``static_cast<dtype>`` of double or int64 values: half and bfloat16 through float, as
    their C++ constructors take a float."""
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    if dtype.itemsize == 2 and _is_float(dtype):
        a = a.astype(np.float32)
    with np.errstate(invalid='ignore', over='ignore'):
        return a.astype(dtype)


def _nmant(dtype):
    if dtype.isbuiltin == 2:      # bfloat16 (ml_dtypes): np.finfo refuses it
        import ml_dtypes
        return ml_dtypes.finfo(dtype).nmant
    return np.finfo(dtype).nmant


def _size(shape):
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    return shape, math.prod(shape)


class Generator:
    """NumPy twin of ``torch.Generator(device='cpu')``."""

    def __init__(self, device='cpu'):
        from ._device import as_device, use
        d = as_device(device)
        if d.type != 'cpu':
            if d.type == 'meta':
                raise RuntimeError("META device type not an accelerator.")
            use(d)      # PyTorch's CPU-build error for that device
        self._device = d
        self.manual_seed(_DEFAULT_SEED)

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Seed like torch: any int in [-2**63, 2**64), taken modulo 2**64."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            name = {float: 'float', str: 'str', bool: 'bool'}.get(type(seed), type(seed).__name__)
            raise RuntimeError(f"manual_seed expected a long, but got {name}")
        seed = int(seed)
        if not -2**63 <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._bg = np.random.MT19937(0)
        self._bg._legacy_seeding(self._seed & 0xFFFFFFFF)  # init_genrand
        self._normal = None        # next_double_normal_sample
        self._float_normal = None  # next_float_normal_sample, kept for state only
        return self

    def seed(self):
        """Seed from OS entropy and return the seed."""
        seed = int.from_bytes(os.urandom(8), 'little')
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor in torch.get_rng_state()'s 5056-byte layout."""
        from ._tensor import make_tensor
        st = self._bg.state['state']
        s = np.zeros((), _STATE)
        s['seed'], s['seeded'], s['key'] = self._seed, 1, st['key']
        s['left'], s['next'] = _MT_N + 1 - st['pos'], st['pos'] % _MT_N
        if self._normal is not None:
            s['normal_y'], s['normal_valid'] = self._normal, 1
        if self._float_normal is not None:
            s['float_normal'], s['float_valid'] = self._float_normal, 1
        return make_tensor(np.frombuffer(s.tobytes(), np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from :meth:`get_state` (a uint8 tensor, of any shape)."""
        raw = getattr(new_state, '_data', None)
        if raw is None:
            t = type(new_state)
            name = t.__name__ if t.__module__ == 'builtins' else f"{t.__module__}.{t.__qualname__}"
            raise TypeError(f"expected a torch.ByteTensor, but got {name}")
        if raw.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if raw.size != _STATE.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE.itemsize} but "
                               f"found the input RNG state size to be {raw.size}")
        s = np.ascontiguousarray(raw).reshape(-1).view(_STATE)[0]
        self._seed = int(s['seed'])
        self._bg.state = {'bit_generator': 'MT19937', 'state': {
            'key': (s['key'] & 0xFFFFFFFF).astype(np.uint32),
            'pos': _MT_N + 1 - int(s['left'])}}
        self._normal = float(s['normal_y']) if s['normal_valid'] else None
        self._float_normal = float(s['float_normal']) if s['float_valid'] else None
        return self

    def clone_state(self):
        """A new generator in this one's state."""
        g = Generator.__new__(Generator)
        g._device = self._device
        g._bg = np.random.MT19937(0)
        g._bg.state = self._bg.state
        g._seed, g._normal, g._float_normal = self._seed, self._normal, self._float_normal
        return g

    def get_offset(self):
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise RuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __deepcopy__(self, memo):
        return self.clone_state()

    def __reduce__(self):
        return _rebuild_generator, (str(self._device), self.get_state()._data.copy())

    # -- raw draws: random() and random64() = (first << 32) | second
    def _random(self, n):
        return self._bg.random_raw(n)

    def _random64(self, n):
        r = self._bg.random_raw(2 * n).reshape(n, 2)
        return (r[:, 0] << np.uint64(32)) | r[:, 1]

    def _unit(self, n, double):
        """uniform_real_distribution(0, 1): 53 bits of random64 or 24 of random."""
        if double:
            return (self._random64(n) & np.uint64(2**53 - 1)) * 2.0**-53
        return (self._random(n) & np.uint64(2**24 - 1)).astype(np.float32) * _F(2**-24)

    # -- samplers
    def rand(self, shape, dtype=np.float32):
        """torch.rand."""
        return self.uniform(shape, 0.0, 1.0, dtype)

    def uniform(self, shape, low=0.0, high=1.0, dtype=np.float32):
        """tensor.uniform_(low, high): ``x * (high - low) + low`` as one FMA."""
        shape, n = _size(shape)
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            low, high = float(low), float(high)
            out = _fma64(self._unit(n, True), high - low, low)
        else:  # float32, and half which computes in float32
            low, high = _F(low), _F(high)
            out = _fma32(self._unit(n, False), high - low, low).astype(dtype)
        # torch maps values that rounded up to `high` back to `low`
        return np.where(out == dtype.type(high), dtype.type(low), out).reshape(shape)

    def randn(self, shape, dtype=np.float32):
        """torch.randn."""
        return self.normal(shape, 0.0, 1.0, dtype)

    def normal(self, shape, mean=0.0, std=1.0, dtype=np.float32):
        """tensor.normal_(mean, std)."""
        shape, n = _size(shape)
        dtype = np.dtype(dtype)
        if std < 0:
            raise ValueError(f"normal expects std >= 0.0, but found std {std}")
        if n < 16:
            return self.normal_serial(n, mean, std, dtype).reshape(shape)
        blocks, tail = divmod(n, 16)
        double = dtype == np.float64
        fill = _box_muller_f64 if double else _box_muller_f32
        # float32/64 draw n uniforms in place (the last n % 16 get overwritten
        # below); half works through a 16-value buffer and draws whole blocks.
        drawn = n if dtype in (np.float32, np.float64) else 16 * blocks
        u = self._unit(drawn + 16 * (tail > 0), double)
        out = np.empty(n, dtype)
        # in chunks whose temporaries stay in cache (the fill is some hundred passes)
        for i in range(0, blocks, _FILL_CHUNK):
            rows = min(_FILL_CHUNK, blocks - i)
            out[16 * i:16 * (i + rows)] = fill(u[16 * i:16 * (i + rows)].reshape(rows, 16),
                                               mean, std).reshape(-1)
        if tail:  # torch recomputes the last 16 values from fresh uniforms
            out[n - 16:] = fill(u[-16:].reshape(1, 16), mean, std).reshape(-1)
        return out.reshape(shape)

    def _normal_scalar(self, n):
        """n draws of normal_distribution<double>, sharing the cached sample."""
        if n == 0:
            return np.empty(0)
        head = [] if self._normal is None else [self._normal]
        pairs = (n - len(head) + 1) // 2
        u = self._unit(2 * pairs, True).reshape(pairs, 2)
        r = np.sqrt(-2 * _LOG1P(-u[:, 1]).astype(np.float64))
        theta = 2 * math.pi * u[:, 0]
        vals = np.stack([r * np.cos(theta), r * np.sin(theta)], 1).reshape(-1)
        vals = np.concatenate([head, vals])
        self._normal = vals[n] if len(vals) > n else None
        return vals[:n]

    def randint(self, low, high, shape, dtype=np.int64):
        """torch.randint: ``(draw % (high - low)) + low``."""
        shape, n = _size(shape)
        dtype = np.dtype(dtype)
        low, high = int(low), int(high)
        if _is_float(dtype):  # nudge bounds the float type can't hold
            low, high = _nudge(low, 1, dtype), _nudge(high, -1, dtype)
        if high <= low:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        return self.random_from_to(n, high - low, low, dtype).reshape(shape)

    def random_from_to(self, n, span, base, dtype):
        """n draws of uniform_int_from_to_distribution: ``draw % span + base`` (wrapping
        in int64), span in [1, 2**64)."""
        # torch accepts ~5% modulo skew before switching to 64-bit draws
        draws = self._random64(n) if span >= 2**28 else self._random(n)
        vals = (draws % np.uint64(span) + np.uint64(base % 2**64)).view(np.int64)
        return _narrow(vals, dtype)

    def random_bits(self, n, dtype):
        """n draws of random_() without bounds: uniform_int_distribution<dtype>, i.e.
        random64() for int64 and double, random() otherwise, modulo the dtype's max + 1
        (2**digits + 1 for floating dtypes; the low bit for bool)."""
        dtype = np.dtype(dtype)
        wide = dtype in (np.int64, np.float64)
        draws = self._random64(n) if wide else self._random(n)
        if dtype == np.bool_:
            return (draws & np.uint64(1)).astype(np.bool_)
        if _is_float(dtype):
            span = 2**(_nmant(dtype) + 1) + 1
        else:
            span = int(np.iinfo(dtype).max) + 1
        return _narrow((draws % np.uint64(span)).view(np.int64), dtype)

    def random_full64(self, n, dtype):
        """random_(-2**63): every int64, from one random64() each."""
        return _narrow(self._random64(n).view(np.int64), dtype)

    # -- serial samplers over double draws, cast to the tensor's dtype at the end
    def normal_serial(self, n, mean, std, dtype):
        """n draws of normal_distribution<double>(mean, std) (the non-contiguous path)."""
        return _narrow(_fma64(self._normal_scalar(n), float(std), float(mean)), dtype)

    def exponential(self, n, lambd, dtype):
        """exponential_(lambd): ``-1 / lambd * log1p(-u)``."""
        return _narrow((-1.0 / lambd) * _LOG1P(-self._unit(n, True)).astype(np.float64), dtype)

    def geometric(self, n, p, dtype):
        """geometric_(p): ``ceil(log(u) / log1p(-p))``."""
        return _narrow(np.ceil(_LOG(self._unit(n, True)).astype(np.float64)
                               / math.log1p(-p)), dtype)

    def log_normal(self, n, mean, std, dtype):
        """log_normal_(mean, std): ``exp(normal(mean, std))``."""
        z = _fma64(self._normal_scalar(n), float(std), float(mean))
        big = z > 709.78    # math.exp raises where exp overflows
        out = _EXP(np.where(big, 0.0, z)).astype(np.float64)
        out[big] = np.exp(z[big])
        return _narrow(out, dtype)

    def cauchy(self, n, median, sigma, dtype):
        """cauchy_(median, sigma): ``median + sigma * tan(pi * (u - 0.5))``, one FMA."""
        t = _TAN(math.pi * (self._unit(n, True) - 0.5)).astype(np.float64)
        return _narrow(_fma64(t, float(sigma), float(median)), dtype)

    def randperm(self, n, dtype=np.int64):
        """torch.randperm (CPU): swap shuffle for small n, inside-out for large."""
        n = int(n)
        if n < _RANDPERM_SMALL:
            if n < 2:
                return np.arange(n).astype(dtype)
            i = np.arange(n - 1)
            perm = _forward_swaps(i + (self._random(n - 1) % (n - i).astype(np.uint64)).astype(np.int64))
        else:
            perm = _inside_out((self._random64(n) % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64))
        return perm.astype(dtype)

    def bernoulli(self, p, shape=None, dtype=None):
        """Bernoulli draws: ``uniform < p``.

        A Python/NumPy scalar ``p`` follows ``tensor.bernoulli_(p)`` (used by
        dropout with ``1 - p``): one 53-bit uniform per element.  An array ``p`` follows
        ``torch.bernoulli(p)``: 53-bit uniforms for float64 ``p``, else
        24-bit uniforms compared in float32.  ``shape`` defaults to
        ``p``'s shape and ``dtype`` to ``p``'s dtype (float32 for scalars).
        """
        if isinstance(p, np.ndarray):
            shape, n = _size(p.shape if shape is None else shape)
            dtype = p.dtype if dtype is None else dtype
            double = p.dtype == np.float64
            p = np.broadcast_to(p.astype(np.float64 if double else np.float32), shape)
            hits = self._unit(n, double).reshape(shape) < p
        else:
            shape, n = _size(() if shape is None else shape)
            hits = self._unit(n, True) < p
        return hits.astype(np.float32 if dtype is None else dtype).reshape(shape)


    # -- rejection samplers: each element draws until it accepts, so they walk the elements
    def poisson(self, rates, dtype):
        """sample_poisson for each rate (float64 array, iteration order)."""
        with _Draws(self) as u:
            return _narrow(np.array([_poisson(lam, u) for lam in rates.tolist()], np.float64),
                           dtype)

    def binomial(self, count, prob, dtype):
        """sample_binomial for each (count, prob) (arrays of dtype float32 or float64)."""
        with _Draws(self) as u:
            out = [_binomial(c, p, u) for c, p in zip(count, prob)]
        return np.array(out, dtype)

    def standard_gamma(self, alpha):
        """_standard_gamma: sample_gamma for each alpha (a flat float32 or float64 array, in
        iteration order), at least the dtype's smallest normal number."""
        f32 = alpha.dtype == np.float32
        with _Draws(self) as u:
            normal = _Normals(self, u)
            out = np.array([_gamma(a, u, normal, f32) for a in alpha.tolist()], alpha.dtype)
        return np.maximum(out, np.finfo(alpha.dtype).tiny)   # NaN becomes tiny, as std::max

    def dirichlet(self, alpha):
        """_sample_dirichlet of alpha (float32 or float64, last axis the event): gammas drawn
        in double, normalized, then clamped to [tiny, nextafter(1, 0)] in alpha's dtype."""
        with _Draws(self) as u:
            normal = _Normals(self, u)
            g = np.array([_gamma(a, u, normal, False) for a in alpha.reshape(-1).tolist()])
        g = np.maximum(g, np.finfo(np.float64).tiny).reshape(alpha.shape)
        t = alpha.dtype.type
        x = (g / g.sum(-1, keepdims=True)).astype(t)
        return np.minimum(np.maximum(x, np.finfo(t).tiny), np.nextafter(t(1), t(0)))


class _Draws:
    """53-bit uniforms for a sampler that consumes an unknown number: drawn ahead in
    chunks, and the generator left exactly past those consumed."""

    def __init__(self, gen):
        self.gen = gen
        self.state = gen._bg.state
        self.buf, self.pos, self.used = [], 0, 0

    def __call__(self):
        if self.pos == len(self.buf):
            self.used += self.pos
            self.buf, self.pos = self.gen._unit(max(64, self.used), True).tolist(), 0
        self.pos += 1
        return self.buf[self.pos - 1]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.gen._bg.state = self.state
        self.gen._bg.random_raw(2 * (self.used + self.pos))


class _Normals:
    """normal_distribution<double>(0, 1) over a _Draws stream: a Box-Muller pair from two
    uniforms, its second value kept in the generator's next_double_normal_sample."""

    def __init__(self, gen, uniform):
        self.gen, self.uniform = gen, uniform

    def __call__(self):
        cached = self.gen._normal
        if cached is not None:
            self.gen._normal = None
            return cached
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self.gen._normal = r * math.sin(theta)
        return r * math.cos(theta)


_THIRD_F = float(_F(1) / _F(3))     # the float constant 1.0f / 3.0f
_C0331_F = float(_F(0.0331))        # 0.0331f


def _logm(v):
    """std::log over doubles: -inf at 0 (math.log raises there)."""
    return math.log(v) if v > 0 or v != v else (-math.inf if v == 0 else math.nan)


def _gamma(alpha, uniform, normal, f32):
    """ATen's sample_gamma (Marsaglia and Tsang) for one alpha of scalar_t float (f32) or
    double, drawing in double: the boost for alpha < 1 and d = alpha - 1.0f/3.0f are
    computed in scalar_t, as the C++ code does."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F(1) / _F(alpha)) if f32 else 1.0 / alpha
        scale *= (1 - uniform()) ** inv
        alpha = float(_F(alpha) + _F(1)) if f32 else alpha + 1.0
    d = float(_F(alpha) - _F(_THIRD_F)) if f32 else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d) if d >= 0 else math.nan
    while True:
        while True:
            x = normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if _logm(u) < 0.5 * xx + d * (1.0 - v + _logm(v)):
            return scale * d * v


def _to_int64(x):
    """``(int64_t)std::floor(x)`` as x86-64 computes it: INT64_MIN when out of range."""
    return math.floor(x) if -2.0**63 <= x < 2.0**63 else -2**63


def _poisson(lam, uniform):
    """ATen's sample_poisson: transformed rejection (Hoermann) for lam >= 10, else products
    of uniforms."""
    if not lam >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            U = uniform() - 0.5
            V = uniform()
            us = 0.5 - abs(U)
            k = _to_int64((2 * a / us + b) * U + lam + 0.43)
            if us >= 0.07 and V <= vr:
                return k
            if k < 0 or (us < 0.013 and V > us):
                continue
            if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            x += 1
        else:
            return x


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial(count, prob, uniform):
    """ATen's sample_binomial for one (count, prob) of a NumPy float type T: arithmetic on
    T where the C++ code computes in scalar_t, in double where it widens."""
    T = type(count)
    if count <= 0.0 or prob <= 0.0:
        return T(0)
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(count * prob) >= 10.0:
            return _btrs(count, prob, uniform)
        return _binomial_inversion(count, prob, uniform)
    if prob > 0.5:
        qprob = T(1.0 - float(prob))
        if float(count * qprob) >= 10.0:
            return count - _btrs(count, qprob, uniform)
        return count - _binomial_inversion(count, qprob, uniform)
    return T(np.nan)


def _log1p_t(x):
    """std::log1p on x's own float type."""
    return type(x)(math.log1p(float(x)))


def _binomial_inversion(count, prob, uniform):
    T = type(count)
    geom_sum = 0.0
    num_geom = T(0)
    logprob = float(_log1p_t(-prob))
    while True:
        geom = math.ceil(math.log(uniform()) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom = num_geom + T(1)


def _btrs(count, prob, uniform):
    T = type(count)
    one = T(1)
    stddev = float(T(math.sqrt(float(count * prob * (one - prob)))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (one - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(T(math.floor(float((count + one) * prob))))
    countd = float(count)
    while True:
        U = uniform() - 0.5
        V = uniform()
        us = 0.5 - abs(U)
        k = T(math.floor((2 * a / us + b) * U + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        V = math.log(V * alpha / (a / (us * us) + b))
        kd = float(k)
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (countd - m + 1)))
                      + float(count + one) * math.log((countd - m + 1) / float(count - k + one))
                      + (kd + 0.5) * math.log(r * float(count - k + one) / float(k + one))
                      + _stirling_tail(kd) + _stirling_tail(float(count - k))
                      - _stirling_tail(m) - _stirling_tail(countd - m))
        if V <= upperbound:
            return k


def _rebuild_generator(device, state):
    from ._tensor import make_tensor
    return Generator(device).set_state(make_tensor(state))


# torch.random: chainrule.random is this module
__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]

default_generator = Generator()
default_generator.seed()  # torch seeds its default CPU generator from entropy
seed = default_generator.seed
initial_seed = default_generator.initial_seed
get_rng_state = default_generator.get_state


def manual_seed(seed):
    """Seed the default generator (torch.manual_seed takes int(seed)); returns it."""
    return default_generator.manual_seed(int(seed))


def set_rng_state(new_state):
    """Restore the default generator's state from a get_rng_state() tensor."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Restore the CPU generator's state on exit (a CPU build has no other devices)."""
    if not enabled or device_type == "meta":
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """The generator of a DataLoader thread worker: None here (no thread workers), so
    samplers use the default generator."""
    return None
