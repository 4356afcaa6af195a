"""Every sampler of torch and torch.Tensor, bit for bit against PyTorch's CPU generator:
many seeds, sizes around torch's 16-element switch, dtypes, parameters, non-contiguous
targets (drawn in TensorIterator order), the generator's state afterwards, and PyTorch's
errors and warnings."""
import numpy as np
import pytest
import torch

import chainrule
from helpers import same_error, same_warnings

SEEDS = [0, 1, 42, 2**40 + 7]
SIZES = [0, 1, 5, 15, 16, 17, 33, 1000]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8", "bool"]


def raw(t):
    """A tensor's bytes and dtype, through its NumPy array (bfloat16 included)."""
    if isinstance(t, chainrule.Tensor):
        return str(t.dtype), tuple(t.shape), np.ascontiguousarray(t._data).tobytes()
    if t.dtype == torch.bfloat16:
        return str(t.dtype), tuple(t.shape), t.contiguous().view(torch.int16).numpy().tobytes()
    return str(t.dtype), tuple(t.shape), t.contiguous().numpy().tobytes()


def same_draws(prog, seed=0, generator=False):
    """prog(T, g) after seeding: identical bits, and identical draws afterwards."""
    results = []
    for T in (chainrule, torch):
        if generator:
            g = T.Generator().manual_seed(seed)
            T.manual_seed(seed + 1)
        else:
            g = None
            T.manual_seed(seed)
        r = prog(T, g)
        after = T.rand(3, generator=g) if generator else T.rand(3)
        results.append((r, after))
    (ours, ours_after), (theirs, theirs_after) = results
    ours = ours if isinstance(ours, (tuple, list)) else [ours]
    theirs = theirs if isinstance(theirs, (tuple, list)) else [theirs]
    for a, b in zip(ours, theirs, strict=True):
        assert raw(a) == raw(b), (a, b)
    assert raw(ours_after) == raw(theirs_after), "generator state differs afterwards"


def dt(T, name):
    return getattr(T, name)


# ---- in-place samplers over dtypes and sizes -----------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_continuous_samplers(seed, dtype):
    for n in SIZES:
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).uniform_(-2.5, 7.25), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).normal_(1.5, 0.3), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).exponential_(1.7), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).exponential_(), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).log_normal_(0.25, 0.7), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).log_normal_(), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).cauchy_(0.5, 1.3), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).geometric_(0.3), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).bernoulli_(0.37), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(-20, 90), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(100), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", INTS)
def test_integer_samplers(seed, dtype):
    high = 2 if dtype == "bool" else 100
    for n in SIZES:
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(high), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(0, high), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).random_(1 if dtype == "bool" else 7, None), seed)
        same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).bernoulli_(0.6), seed)
        if dtype != "bool":
            same_draws(lambda T, g: T.empty(n, dtype=dt(T, dtype)).geometric_(0.45), seed)


def test_random_full_and_wide_ranges():
    for dtype in ["int64", "float64", "float32", "bfloat16"]:
        same_draws(lambda T, g: T.empty(40, dtype=dt(T, dtype)).random_(-2**63, None))
    for lo, hi in [(0, 2**28 - 1), (0, 2**28), (0, 2**32), (-2**40, 2**40), (-2**63, 2**63 - 1)]:
        same_draws(lambda T, g: T.empty(37, dtype=T.int64).random_(lo, hi))
        same_draws(lambda T, g: T.randint(lo, hi, (37,), dtype=T.float64))
    same_draws(lambda T, g: T.empty(37, dtype=T.int32).random_(-2**31, 2**31 - 1))
    same_draws(lambda T, g: T.empty(37, dtype=T.int64).random_(5, None))


def test_complex_uniform_and_normal():
    for n in [1, 8, 9, 40]:
        same_draws(lambda T, g: T.empty(n, dtype=T.complex64).uniform_(-1, 2))
        same_draws(lambda T, g: T.empty(n, dtype=T.complex128).normal_(0.5, 2.0))
        same_draws(lambda T, g: T.randn(n, dtype=T.complex64))
        same_draws(lambda T, g: T.rand(n, dtype=T.complex128))


# ---- iteration order: non-contiguous targets -------------------------------------------------

VIEWS = [lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[::2], lambda t: t.t()[1:],
         lambda t: t.unsqueeze(1).transpose(0, 2)]


@pytest.mark.parametrize("view", range(len(VIEWS)))
def test_noncontiguous_targets(view):
    v = VIEWS[view]
    for shape in [(4, 6), (8, 10), (20, 7)]:
        for name, args in [("uniform_", ()), ("normal_", (0.5, 2.0)), ("exponential_", ()),
                           ("bernoulli_", (0.5,)), ("random_", (10,)), ("cauchy_", ()),
                           ("log_normal_", ()), ("geometric_", (0.2,))]:
            def prog(T, g):
                base = T.zeros(shape, dtype=T.float64)
                getattr(v(base), name)(*args)
                return base
            same_draws(prog)


def test_bernoulli_tensor_p_order_and_broadcast():
    for dtype in ["float32", "float64", "float16", "bfloat16"]:
        def prog(T, g):
            p = T.linspace(0, 1, 24, dtype=dt(T, dtype)).reshape(4, 6)
            out = T.empty(6, 4).t().bernoulli_(p)
            row = T.empty(5, 6, dtype=T.int32).bernoulli_(p[1])
            return out, row, T.bernoulli(p.t()), p.bernoulli(), p.bernoulli(0.25)
        same_draws(prog)


def test_factories_with_generator():
    same_draws(lambda T, g: (T.rand(20, generator=g), T.randn(7, generator=g),
                             T.randint(3, 9, (5,), generator=g), T.randperm(9, generator=g),
                             T.normal(1.0, 2.0, (17,), generator=g),
                             T.empty(9).exponential_(generator=g),
                             T.bernoulli(T.full((6,), 0.5), generator=g),
                             T.multinomial(T.ones(7), 3, generator=g),
                             T.rand_like(T.empty(3, 4), generator=g),
                             T.randn_like(T.empty(18), generator=g),
                             T.randint_like(T.empty(5), 4, generator=g),
                             T.poisson(T.full((4,), 3.0), generator=g)), 5, generator=True)


def test_like_samplers_follow_input_layout():
    for dtype in ["float32", "float64"]:
        same_draws(lambda T, g: (T.rand_like(T.empty(5, 4, dtype=dt(T, dtype)).t()),
                                 T.randn_like(T.empty(6, 5, dtype=dt(T, dtype)).t()),
                                 T.randint_like(T.empty(3, 4).t(), 2, 50),
                                 T.randn_like(T.empty(40), dtype=T.float16)))


# ---- normal's overloads --------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_normal_overloads(seed):
    for n in [1, 15, 16, 17, 40]:
        same_draws(lambda T, g: T.normal(T.linspace(-1, 1, n), 0.5), seed)
        same_draws(lambda T, g: T.normal(2.0, T.linspace(0, 1, n, dtype=T.float64)), seed)
        same_draws(lambda T, g: T.normal(T.linspace(-1, 1, n), T.linspace(0, 2, n)), seed)
        same_draws(lambda T, g: T.normal(T.zeros(n, 1), T.ones(3, dtype=T.float64)), seed)
        same_draws(lambda T, g: T.normal(0.5, 1.5, (n,), dtype=T.float64), seed)
        same_draws(lambda T, g: T.normal(0.5, 1.5, size=(n, 2)), seed)


def test_normal_out_and_grad():
    same_draws(lambda T, g: T.normal(T.zeros(3), T.ones(3), out=T.empty(3, dtype=T.float64)))
    same_draws(lambda T, g: T.normal(T.zeros(4), 2.0, out=T.empty(4, dtype=T.float64)))
    # PyTorch broadcasts mean against out's shape there
    same_error(lambda T: T.normal(T.zeros(4), 2.0, out=T.empty(0)))
    same_draws(lambda T, g: T.normal(1.0, 2.0, (3, 5), out=T.empty(5, 3).t()))
    for T in (chainrule, torch):
        m = T.zeros(3, requires_grad=True)
        s = T.ones(3, requires_grad=True)
        names = [type(r.grad_fn).__name__ for r in (T.normal(m, 1.0), T.normal(1.0, s),
                                                     T.normal(m, s), T.bernoulli(m),
                                                     T.poisson(s))]
        assert names == ["NormalBackward1", "NormalBackward2", "NormalBackward3",
                         "BernoulliBackward0", "PoissonBackward0"]
        T.normal(m * 2, s).sum().backward()
        assert m.grad.tolist() == [0.0] * 3 and s.grad.tolist() == [0.0] * 3


# ---- in-place samplers and autograd --------------------------------------------------------

def test_inplace_nodes():
    cases = [("uniform_", (), "UniformBackward0"), ("normal_", (), "NormalBackward0"),
             ("bernoulli_", (0.5,), "BernoulliBackward2"), ("random_", (), "RandomBackward2"),
             ("random_", (5,), "RandomBackward1"), ("random_", (1, 5), "RandomBackward0"),
             ("exponential_", (), "ExponentialBackward0"),
             ("geometric_", (0.5,), "GeometricBackward0"),
             ("log_normal_", (), "LogNormalBackward0"), ("cauchy_", (), "CauchyBackward0")]
    for name, args, node in cases:
        for T in (chainrule, torch):
            x = T.ones(3, requires_grad=True)
            y = x * 2
            getattr(y, name)(*args)
            assert type(y.grad_fn).__name__ == node
            assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
            y.sum().backward()
            assert x.grad.tolist() == [0.0, 0.0, 0.0]
        same_error(lambda T: getattr(T.ones(3, requires_grad=True), name)(*args))
    for T in (chainrule, torch):
        y = T.ones(3, requires_grad=True) * 1
        p = T.full((3,), 0.5, requires_grad=True)
        y.bernoulli_(p)
        assert type(y.grad_fn).__name__ == "BernoulliBackward1"
        assert len(y.grad_fn.next_functions) == 2
        with T.no_grad():
            w = T.ones(3, requires_grad=True)
            w.uniform_()     # nn.init's pattern
        assert w.requires_grad and w.grad_fn is None
        base = T.zeros(4, 3)
        v = base[1]
        v.normal_()
        assert base._version == v._version == 1


# ---- multinomial, poisson, binomial --------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_multinomial(seed, dtype):
    for shape in [(1,), (7,), (16,), (17,), (50,), (3, 9), (4, 40)]:
        def probs(T):
            return T.linspace(0.05, 1, int(np.prod(shape)), dtype=dt(T, dtype)).reshape(shape)
        k = shape[-1]
        same_draws(lambda T, g: T.multinomial(probs(T), 1), seed)
        same_draws(lambda T, g: T.multinomial(probs(T), k), seed)
        same_draws(lambda T, g: T.multinomial(probs(T), max(k // 2, 1)), seed)
        same_draws(lambda T, g: T.multinomial(probs(T), 25, True), seed)
        same_draws(lambda T, g: probs(T).multinomial(3, replacement=True), seed)
    same_draws(lambda T, g: T.multinomial(T.tensor([0.0, 1.0, 0.0, 3.0]), 2))
    same_draws(lambda T, g: T.multinomial(T.tensor([[0.0, 1.0], [2.0, 0.0]]), 40, True))


def test_multinomial_out_and_errors():
    same_draws(lambda T, g: T.multinomial(T.ones(5), 3, out=T.empty(7, dtype=T.long)))
    same_draws(lambda T, g: T.multinomial(T.ones(2, 5), 8, True, out=T.empty(0, dtype=T.long)))
    for prog in [lambda T: T.multinomial(T.ones(2, 2, 2), 1),
                 lambda T: T.multinomial(T.ones(3, dtype=T.int64), 1),
                 lambda T: T.multinomial(T.ones(3), 1, out=T.empty(1)),
                 lambda T: T.multinomial(T.ones(3), 0),
                 lambda T: T.multinomial(T.ones(3), 4),
                 lambda T: T.multinomial(T.tensor([1.0, -1.0]), 1),
                 lambda T: T.multinomial(T.tensor([1.0, float("nan")]), 2, True),
                 lambda T: T.multinomial(T.tensor([1.0, float("inf")]), 2, True),
                 lambda T: T.multinomial(T.tensor([1.0, -1.0]), 2, True),
                 lambda T: T.multinomial(T.tensor([[1.0, 1.0], [0.0, 0.0]]), 2, True),
                 lambda T: T.multinomial(T.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
                 lambda T: T.multinomial(T.empty(0), 1)]:
        same_error(prog)


@pytest.mark.parametrize("seed", SEEDS)
def test_poisson(seed):
    for dtype in FLOATS:
        rates = [0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 400.0, 1e5]
        same_draws(lambda T, g: T.poisson(T.tensor(rates * 3, dtype=dt(T, dtype))), seed)
        same_draws(lambda T, g: T.poisson(T.tensor(rates * 4, dtype=dt(T, dtype))
                                          .reshape(4, 8).t()), seed)
    same_error(lambda T: T.poisson(T.tensor([1.0, -1.0])))
    same_error(lambda T: T.poisson(T.tensor([1, 2])))


@pytest.mark.parametrize("seed", SEEDS)
def test_binomial(seed):
    for dtype in ["float32", "float64"]:
        count = [0.0, 5.0, 10.0, 20.0, 100.0, 1000.0, 37.0, 50.0, 3.0, 1e4]
        prob = [0.3, 0.0, 1.0, 0.5, 0.1, 0.9, 0.73, 0.05, 0.6, 0.25]
        same_draws(lambda T, g: T.binomial(T.tensor(count * 3, dtype=dt(T, dtype)),
                                           T.tensor(prob * 3, dtype=dt(T, dtype))), seed)


# ---- errors and warnings -------------------------------------------------------------------

def test_sampler_errors():
    progs = [lambda T: T.empty(3).uniform_(2, 1),
             lambda T: T.empty(3, dtype=T.float16).uniform_(-70000.0, 0),
             lambda T: T.empty(3, dtype=T.float16).uniform_(-60000.0, 60000),
             lambda T: T.empty(3).uniform_(-3e38, 3e38),
             lambda T: T.empty(3, dtype=T.int64).uniform_(),
             lambda T: T.empty(3).normal_(0, -1),
             lambda T: T.empty(3, dtype=T.int32).normal_(),
             lambda T: T.empty(3).exponential_(0),
             lambda T: T.empty(3, dtype=T.int64).exponential_(),
             lambda T: T.empty(3, dtype=T.complex64).exponential_(),
             lambda T: T.empty(3).geometric_(1),
             lambda T: T.empty(3).geometric_(0),
             lambda T: T.empty(3, dtype=T.bool).geometric_(0.5),
             lambda T: T.empty(3).log_normal_(0, 0),
             lambda T: T.empty(3, dtype=T.int64).log_normal_(),
             lambda T: T.empty(3).cauchy_(0, -1),
             lambda T: T.empty(3, dtype=T.int8).cauchy_(),
             lambda T: T.empty(3).bernoulli_(1.5),
             lambda T: T.empty(3).bernoulli_(T.tensor([0.5, 2.0, 0.1])),
             lambda T: T.empty(3).bernoulli_(T.tensor([1, 0, 1])),
             lambda T: T.empty(3).bernoulli_(T.rand(4)),
             lambda T: T.empty(3, dtype=T.complex64).bernoulli_(0.5),
             lambda T: T.bernoulli(T.tensor([1, 0, 1])),
             lambda T: T.zeros(1).expand(3).uniform_(),
             lambda T: T.zeros(1).expand(3).random_(),
             lambda T: T.empty(3).random_(5, 2),
             lambda T: T.empty(3, dtype=T.float16).random_(0, 70000),
             lambda T: T.empty(3, dtype=T.int8).random_(0, 200),
             lambda T: T.empty(3, dtype=T.int8).random_(-200, 0),
             lambda T: T.empty(3, dtype=T.uint8).random_(-1, 3),
             lambda T: T.empty(3, dtype=T.bool).random_(0, 3),
             lambda T: T.empty(3).random_(2**40, None),
             lambda T: T.empty(3, dtype=T.float16).random_(70000, None),
             lambda T: T.empty(3, dtype=T.int8).random_(-2**63, None),
             lambda T: T.empty(3, dtype=T.float16).random_(-2**63, None),
             lambda T: T.empty(3, dtype=T.complex64).random_(),
             lambda T: T.empty(3, dtype=T.complex64).random_(0, 3),
             lambda T: T.empty(3, dtype=T.uint16).random_(),
             lambda T: T.empty(3, dtype=T.uint64).random_(5, None),
             lambda T: T.empty(0, dtype=T.int8).random_(0, 300),
             lambda T: T.randint(5, 2, (3,)),
             lambda T: T.randint(0, 3, (2,), dtype=T.complex64),
             lambda T: T.randint(3, (2,), dtype=T.float8_e4m3fn),
             lambda T: T.normal(T.zeros(3), -1.0),
             lambda T: T.normal(T.zeros(3), T.tensor([1.0, -1.0, 1.0])),
             lambda T: T.normal(T.zeros(3), T.tensor([1.0, 1.0, 1j])),
             lambda T: T.normal(T.zeros(3, dtype=T.int64), 1.0),
             lambda T: T.normal(T.zeros(3), T.ones(4)),
             lambda T: T.normal(2.0, 3.0, (2,), dtype=T.int64)]
    for prog in progs:
        same_error(prog)


def test_randint_warnings():
    same_warnings(lambda T: T.empty(3).random_(2**30, 2**31))
    same_warnings(lambda T: T.empty(3, dtype=T.float16).random_(3000))
    same_warnings(lambda T: T.randint(-2**25, 0, (3,), dtype=T.float32))


# ---- generators and torch.random -----------------------------------------------------------

def test_generator_methods():
    for T in (chainrule, torch):
        g = T.Generator()
        assert g.initial_seed() == 67280421310721
        assert g.manual_seed(-1).initial_seed() == 2**64 - 1
        assert str(g.device) == "cpu" and g.device == T.device("cpu")
        clone = g.clone_state()
        assert isinstance(clone, T.Generator) and clone is not g
        assert T.equal(clone.get_state(), g.get_state())
        a = T.rand(4, generator=g)
        b = T.rand(4, generator=clone)
        assert T.equal(a, b)
        s = g.seed()
        assert s == g.initial_seed() and 0 <= s < 2**64
        assert isinstance(T.default_generator, T.Generator)
    for prog in [lambda T: T.Generator().get_offset(), lambda T: T.Generator().set_offset(3),
                 lambda T: T.Generator().graphsafe_get_state(),
                 lambda T: T.Generator().graphsafe_set_state(T.Generator()),
                 lambda T: T.Generator().manual_seed(2**64),
                 lambda T: T.Generator().manual_seed(1.5),
                 lambda T: T.Generator().manual_seed("a"),
                 lambda T: T.Generator().manual_seed(True),
                 lambda T: T.Generator().set_state(T.zeros(5, dtype=T.uint8)),
                 lambda T: T.Generator().set_state(T.zeros(5056)),
                 lambda T: T.Generator(device="meta"),
                 lambda T: T.manual_seed(-2**63 - 1)]:
        same_error(prog)


def test_torch_random_module():
    for T in (chainrule, torch):
        assert T.random.manual_seed(5) is T.random.default_generator
        assert T.random.initial_seed() == 5
        assert T.manual_seed(1.5).initial_seed() == 1     # int(seed), as torch.manual_seed
        state = T.random.get_rng_state()
        first = T.rand(5)
        with T.random.fork_rng():
            T.rand(100)
        with T.random.fork_rng(devices=[], enabled=True):
            T.randn(7)
        with T.random.fork_rng(enabled=False):
            pass
        assert not T.equal(T.rand(5), first)
        T.random.set_rng_state(state)
        assert T.equal(T.rand(5), first)
        s = T.random.seed()
        assert s == T.random.initial_seed()
        assert T.random.thread_safe_generator() is None
    assert sorted(chainrule.random.__all__) == sorted(torch.random.__all__)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint8"])
def test_random_bounds_errors_name_the_cpp_type(dtype):
    same_error(lambda T: T.empty(3, dtype=getattr(T, dtype)).random_(-1, 5))
