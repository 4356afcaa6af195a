"""chainrule._random must reproduce torch's CPU generator bit for bit."""
import re

import numpy as np
import pytest
import torch

import chainrule
from chainrule import _random

SEEDS = [0, 1, 6, 42, 12345]
SIZES = [(n,) for n in range(41)] + [(1000,), (4096,), (3, 5), (4, 4), (128, 784)]
FLOATS = {np.float32: torch.float32, np.float64: torch.float64, np.float16: torch.float16}
TORCH = {**FLOATS, np.int64: torch.int64, np.int32: torch.int32, np.int16: torch.int16,
         np.uint8: torch.uint8, np.bool_: torch.bool}

def same(ours, theirs):
    ours = getattr(ours, "_data", ours)  # get_state() gives a chainrule tensor
    theirs = theirs.numpy()
    np.testing.assert_array_equal(ours, theirs, strict=True)
    assert ours.tobytes() == theirs.tobytes()  # signed zeros too


def seeded(seed):
    torch.manual_seed(seed)
    return _random.manual_seed(seed)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", SEEDS)
def test_randn_normal_rand_uniform(seed, dtype):
    td = FLOATS[dtype]
    for shape in SIZES:
        g = seeded(seed)
        same(g.randn(shape, dtype), torch.randn(shape, dtype=td))
        same(g.rand((7,), dtype), torch.rand(7, dtype=td))
        same(g.normal(shape, 1.5, 0.3, dtype), torch.empty(shape, dtype=td).normal_(1.5, 0.3))
        same(g.uniform(shape, -2.5, 7.1, dtype), torch.empty(shape, dtype=td).uniform_(-2.5, 7.1))
        same(g.randn(shape, dtype), torch.randn(shape, dtype=td))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cached_normal_sample(dtype):
    td = FLOATS[dtype]
    g = seeded(6)
    twice = np.concatenate([g.randn((1,), dtype), g.randn((1,), dtype)])
    same(twice, torch.cat([torch.randn(1, dtype=td), torch.randn(1, dtype=td)]))
    seeded(6)
    same(twice, torch.randn(2, dtype=td))
    g.randn((1,), dtype)
    g.manual_seed(6)  # drops the cached sample, as torch does
    torch.manual_seed(6)
    same(g.randn((3,), dtype), torch.randn(3, dtype=td))


def test_uniform_never_returns_high():
    for dtype, high in [(np.float32, 1 + 2**-23), (np.float64, 1 + 2**-52)]:
        g = seeded(0)
        same(g.uniform((1000,), 1, high, dtype), torch.empty(1000, dtype=FLOATS[dtype]).uniform_(1, high))


@pytest.mark.parametrize("seed", SEEDS)
def test_mixed_sequence(seed):
    g = seeded(seed)
    assert g is _random.default_generator and _random.initial_seed() == seed
    for dtype, td in [(np.float32, torch.float32), (np.float64, torch.float64)]:
        same(g.randn((3,), dtype), torch.randn(3, dtype=td))
        same(g.rand((20,), dtype), torch.rand(20, dtype=td))
        same(g.randn((17,), dtype), torch.randn(17, dtype=td))
        same(g.randint(0, 10, (5,)), torch.randint(0, 10, (5,)))
        same(g.randn((4, 4), dtype), torch.randn(4, 4, dtype=td))
        same(g.randperm(10), torch.randperm(10))
        same(g.randn((1,), dtype), torch.randn(1, dtype=td))
        same(g.normal((5,), 2.0, 3.0, dtype), torch.normal(2.0, 3.0, (5,), dtype=td))
        same(_random.get_rng_state(), torch.get_rng_state())


@pytest.mark.parametrize("seed", SEEDS)
def test_separate_generator(seed):
    tg, ours = torch.Generator().manual_seed(seed), _random.Generator().manual_seed(seed)
    seeded(999)  # the default generators must not interfere
    same(ours.randn((3,)), torch.randn(3, generator=tg))
    same(ours.randint(0, 100, (9,)), torch.randint(0, 100, (9,), generator=tg))
    same(ours.randperm(33), torch.randperm(33, generator=tg))
    same(ours.rand((50,), np.float64), torch.rand(50, generator=tg, dtype=torch.float64))
    same(ours.randn((16,)), torch.randn(16, generator=tg))
    same(_random.default_generator.randn((20,)), torch.randn(20))
    same(ours.get_state(), tg.get_state())


def test_seeds_and_state():
    fresh = _random.Generator()
    assert fresh.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    same(fresh.get_state(), torch.Generator().get_state())
    for s in [-1, 2**63, -2**63, 2**64 - 1, 2**32 + 5]:
        same(seeded(s).rand((4,)), torch.rand(4))
        assert _random.initial_seed() == torch.initial_seed()
    with pytest.raises(ValueError):
        _random.manual_seed(2**64)
    assert _random.seed() == _random.initial_seed()

    torch.manual_seed(3)
    torch.randn(5)  # leaves a cached normal in the state
    _random.set_rng_state(chainrule.from_numpy(torch.get_rng_state().numpy()))
    same(_random.default_generator.randn((3,)), torch.randn(3))
    state = _random.get_rng_state()
    first = _random.default_generator.randn((33,))
    _random.set_rng_state(state)
    np.testing.assert_array_equal(_random.default_generator.randn((33,)), first)
    torch.set_rng_state(torch.from_numpy(state.numpy()))
    same(first, torch.randn(33))


def test_rng_state_is_a_byte_tensor():
    state = chainrule.get_rng_state()
    assert type(state) is chainrule.Tensor and state.dtype is chainrule.uint8
    assert state.shape == torch.get_rng_state().shape and not state.requires_grad
    assert chainrule.set_rng_state(state) is None
    assert _random.Generator().get_state().dtype is chainrule.uint8
    torch_state = torch.get_rng_state()
    for ours, theirs in [(state.numpy(), torch_state.numpy()), (state.float(), torch_state.float()),
                         (state[:10], torch_state[:10]), (state.tolist(), torch_state.tolist())]:
        with pytest.raises(Exception) as want:
            torch.set_rng_state(theirs)
        with pytest.raises(want.type, match=f"^{re.escape(str(want.value))}$"):
            chainrule.set_rng_state(ours)
    chainrule.set_rng_state(state.view(2, -1))  # any shape, like torch
    torch.set_rng_state(torch_state.view(2, -1))


@pytest.mark.filterwarnings("ignore:.* is out of bounds")  # float dtypes, huge ranges
@pytest.mark.parametrize("seed", SEEDS)
def test_randint(seed):
    small = [(0, 10), (3, 4), (-5, 5)]
    wide = small + [(0, 2**28 - 1), (0, 2**28), (0, 2**31)]  # 2**28 switches to random64
    huge = wide + [(0, 2**32 - 1), (0, 2**32), (-2**40, 2**40), (-2**63, 2**63 - 1)]
    cases = {np.int64: huge, np.float64: huge, np.float32: huge, np.int32: wide,
             np.int16: small, np.float16: small, np.uint8: small[:2], np.bool_: [(0, 2)]}
    for dtype, ranges in cases.items():
        for low, high in ranges:
            g = seeded(seed)
            same(g.randint(low, high, (37,), dtype), torch.randint(low, high, (37,), dtype=TORCH[dtype]))
            same(g.rand((3,)), torch.rand(3))


@pytest.mark.parametrize("seed", SEEDS)
def test_randperm(seed):
    for n in list(range(41)) + [1000, 100_000]:
        g = seeded(seed)
        same(g.randperm(n), torch.randperm(n))
        same(g.rand((3,)), torch.rand(3))
    g = seeded(seed)
    for dtype in [np.int32, np.float32, np.float64]:
        same(g.randperm(50, dtype), torch.randperm(50, dtype=TORCH[dtype]))


def test_randperm_large_n_algorithm():
    """n >= 2**32 // 20 takes the inside-out shuffle; check it against torch's loop."""
    rng = np.random.default_rng(0)
    for n in range(1, 60):
        z = np.array([rng.integers(0, i + 1) for i in range(n)])
        r = np.zeros(n, np.int64)
        for i in range(n):
            r[i] = r[z[i]]
            r[z[i]] = i
        np.testing.assert_array_equal(_random._inside_out(z), r)


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_scalar_p(seed):
    for shape in [(0,), (1,), (5,), (37,), (128, 784)]:
        for p in [0.0, 0.3, 0.5, 1.0]:
            g = seeded(seed)
            same(g.bernoulli(p, shape), torch.empty(shape).bernoulli_(p))
            same(g.rand((3,)), torch.rand(3))
            same(g.bernoulli(p, shape, np.bool_), torch.empty(shape, dtype=torch.bool).bernoulli_(p))
            same(g.bernoulli(p, shape, np.float64),
                 torch.bernoulli(torch.zeros(shape, dtype=torch.float64), p))
    for p in [0.1, 0.5, 0.8]:
        g = seeded(seed)
        dropped = torch.nn.functional.dropout(torch.ones(64, 33), p, training=True)
        same(g.bernoulli(1 - p, (64, 33)) / np.float32(1 - p), dropped)


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_tensor_p(seed):
    for shape in [(0,), (1,), (37,), (128, 784)]:
        for dtype in FLOATS:
            p = np.random.default_rng(seed).random(shape).astype(dtype)
            g = seeded(seed)
            same(g.bernoulli(p), torch.bernoulli(torch.from_numpy(p)))
            same(g.rand((3,)), torch.rand(3))
    p = np.random.default_rng(seed).random(7).astype(np.float32)
    g = seeded(seed)
    same(g.bernoulli(p, (3, 7), np.float32), torch.empty(3, 7).bernoulli_(torch.from_numpy(p)))
