"""Op-database entries for the pointwise family: unary math, activations and their fused
backwards, clamping, rounding, fmod/remainder, lerp, and edge cases of the core arithmetic
rows (kinks, ties, zeros, integer and bool dtypes).

Samples at a kink or a tie cannot pass gradcheck; they live in entries with gradcheck=False
that compare with PyTorch exactly there.
"""
import numpy as np

from . import OpInfo, Sample, noncontiguous, positive, randn


def _uniform(low, high):
    return lambda rng, *shape: rng.uniform(low, high, shape)


def _scalar(rng, gen=randn):
    """A 0-d array drawn by gen."""
    return np.array(gen(rng))


def _array(gen):
    # NumPy returns a scalar, not a 0-d array, for shape (); the driver needs an array
    return lambda rng, *shape: np.asarray(gen(rng, *shape))


def _unary(gen=randn):
    """A (3, 4) tensor, a 0-d tensor and a non-contiguous one, drawn by gen(rng, *shape)."""
    gen = _array(gen)
    return lambda rng: [Sample(gen(rng, 3, 4)), Sample(gen(rng)),
                        Sample(noncontiguous(gen(rng, 2, 3)), name="non-contiguous")]


def _binary(gen=randn, gen_other=None):
    gen, gen_other = _array(gen), _array(gen_other or gen)
    return lambda rng: [
        Sample(gen(rng, 3, 4), gen_other(rng, 3, 4)),
        Sample(gen(rng, 3, 4), gen_other(rng, 4), name="broadcast (3,4)x(4)"),
        Sample(gen(rng, 2, 1, 3), gen_other(rng, 4, 1), name="broadcast both"),
        Sample(gen(rng), gen_other(rng, 3), name="0-d with 1-d"),
        Sample(noncontiguous(gen(rng, 3, 4)), gen_other(rng, 3, 4), name="non-contiguous"),
    ]


def _away_from_integers(rng, *shape):
    # rounding ops: gradcheck's finite differences must not straddle a jump
    return rng.integers(-3, 4, shape) + rng.uniform(0.2, 0.8, shape)


def _nonzero(rng, *shape):
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)


_KINKS = np.array([-1.5, -0.0, 0.0, 0.7, 2.0, np.inf, -np.inf])


def _fixed(*arrays, **kwargs):
    return lambda rng: [Sample(*arrays, **kwargs)]


def _first_grad(f):
    """d f(x) / dx applied to v, with create_graph: exercises a fused backward op's row."""
    def grad(lib, x, v):
        with lib.enable_grad():     # gradcheck's finite differences run under no_grad
            return lib.autograd.grad(f(lib, x), x, v, create_graph=True)[0]
    return grad


def _int_tensors(rng):
    return [Sample(rng.integers(-5, 6, (3, 4))), Sample(rng.integers(0, 3, (4,)).astype(bool))]


UNARY = [
    ("expm1", lambda lib, a: a.expm1(), randn),
    ("log2", lambda lib, a: a.log2(), positive),
    ("log10", lambda lib, a: lib.log10(a), positive),
    ("log1p", lambda lib, a: a.log1p(), _uniform(-0.5, 2.0)),
    ("sqrt", lambda lib, a: a.sqrt(), positive),
    ("rsqrt", lambda lib, a: lib.rsqrt(a), positive),
    ("sin", lambda lib, a: a.sin(), randn),
    ("cos", lambda lib, a: lib.cos(a), randn),
    ("tan", lambda lib, a: a.tan(), _uniform(-1.2, 1.2)),
    ("asin", lambda lib, a: a.asin(), _uniform(-0.9, 0.9)),
    ("acos", lambda lib, a: lib.arccos(a), _uniform(-0.9, 0.9)),
    ("atan", lambda lib, a: a.arctan(), randn),
    ("sinh", lambda lib, a: a.sinh(), randn),
    ("cosh", lambda lib, a: lib.cosh(a), randn),
    ("tanh", lambda lib, a: a.tanh(), randn),
    ("sigmoid", lambda lib, a: lib.sigmoid(a), randn),
    ("relu", lambda lib, a: a.relu(), _nonzero),
    ("erf", lambda lib, a: a.erf(), _uniform(-4.0, 4.0)),
    ("erfc", lambda lib, a: lib.erfc(a), _uniform(-4.0, 6.0)),
    ("abs", lambda lib, a: a.abs(), _nonzero),
    # PyTorch's gradient of real sgn is a ZeroTensor, which has no NumPy view: multiply
    ("sgn", lambda lib, a: a.sgn() * a, _nonzero),
    ("sign", lambda lib, a: lib.sign(a), _nonzero),
    ("floor", lambda lib, a: a.floor(), _away_from_integers),
    ("ceil", lambda lib, a: lib.ceil(a), _away_from_integers),
    ("trunc", lambda lib, a: a.trunc(), _away_from_integers),
    ("round", lambda lib, a: lib.round(a), _away_from_integers),
    ("frac", lambda lib, a: a.frac(), _away_from_integers),
]

# In-place variants on a non-leaf: the node replaces clone's as the tensor's grad_fn.
INPLACE = [
    ("sqrt", "sqrt_", positive), ("sin", "sin_", randn), ("cos", "cos_", randn),
    ("tanh", "tanh_", randn), ("sigmoid", "sigmoid_", randn), ("relu", "relu_", _nonzero),
    ("abs", "abs_", _nonzero), ("floor", "floor_", _away_from_integers),
    ("round", "round_", _away_from_integers), ("sign", "sign_", _nonzero),
    ("exp", "exp_", randn), ("log", "log_", positive), ("neg", "neg_", randn),
    ("reciprocal", "reciprocal_", positive), ("trunc", "fix_", _away_from_integers),
]


def _inplace(method):
    return lambda lib, a: getattr(a.clone(), method)()


OPS_DB = [OpInfo(name, fn, _unary(gen)) for name, fn, gen in UNARY] + [
    OpInfo(f"{method}.inplace", _inplace(method), _unary(gen), ops=(row, "clone"))
    for row, method, gen in INPLACE] + [

    # ---- kinks and edge values, against PyTorch exactly ----
    OpInfo("relu.kink", lambda lib, a: a.relu(), _fixed(_KINKS), ops=("relu",), gradcheck=False),
    OpInfo("relu_.kink", lambda lib, a: a.clone().relu_(), _fixed(_KINKS),
           ops=("relu", "clone"), gradcheck=False),
    OpInfo("abs.kink", lambda lib, a: a.abs(), _fixed(_KINKS), ops=("abs",), gradcheck=False),
    OpInfo("sign.kink", lambda lib, a: a.sign(), _fixed(np.append(_KINKS, np.nan)),
           ops=("sign",), gradcheck=False),
    OpInfo("sgn.kink", lambda lib, a: a.sgn() * a, _fixed(_KINKS), ops=("sgn", "mul"),
           gradcheck=False),
    OpInfo("sgn.complex", lambda lib, a: a.sgn(),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j, 0j, -3 + 0j])), ops=("sgn",), gradcheck=False),
    # abs of a complex tensor is real, so its complex gradient (through sgn's) is compared
    OpInfo("abs.complex", lambda lib, a: a.abs(),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j, 0j, -3 + 0j]), grad=(0,)), ops=("abs",),
           gradcheck=False),
    OpInfo("sqrt.zero", lambda lib, a: a.sqrt(), _fixed(np.array([0.0, 4.0, -1.0, np.inf])),
           ops=("sqrt",), gradcheck=False),
    OpInfo("rsqrt.zero", lambda lib, a: a.rsqrt(), _fixed(np.array([0.0, 4.0, -1.0])),
           ops=("rsqrt",), gradcheck=False),
    OpInfo("log.edges", lambda lib, a: lib.stack([a.log(), a.log2(), a.log10(), a.log1p()]),
           _fixed(np.array([0.0, -1.0, 1.0, np.inf])),
           ops=("log", "log2", "log10", "log1p", "stack"), gradcheck=False),
    OpInfo("asin.edges", lambda lib, a: a.asin() + a.acos(),
           _fixed(np.array([-1.0, 1.0, 1.5, 0.0])), ops=("asin", "acos", "add"), gradcheck=False),
    OpInfo("exp.overflow", lambda lib, a: a.exp() + a.expm1() + a.sinh() + a.cosh(),
           _fixed(np.array([800.0, -800.0, 0.0])), ops=("exp", "expm1", "sinh", "cosh", "add"),
           gradcheck=False),
    OpInfo("sigmoid.saturated", lambda lib, a: lib.sigmoid(a) + lib.tanh(a),
           _fixed(np.array([-800.0, 800.0, 0.0, 40.0])), ops=("sigmoid", "tanh", "add"),
           gradcheck=False),
    OpInfo("erf.tails", lambda lib, a: lib.stack([a.erf(), a.erfc()]),
           _fixed(np.array([0.0, -0.0, 1e-300, 1.9999, 2.0, -2.5, 5.9, 27.0, -30.0, np.inf,
                            -np.inf, np.nan])),
           ops=("erf", "erfc", "stack"), gradcheck=False),
    OpInfo("rounding.halves", lambda lib, a: lib.stack([a.floor(), a.ceil(), a.round(), a.trunc(),
                                                        a.frac()]),
           _fixed(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, 3.0])),
           ops=("floor", "ceil", "round", "trunc", "frac", "stack"), gradcheck=False),
    OpInfo("round.decimals", lambda lib, a, **kw: a.round(**kw),
           lambda rng: [Sample(randn(rng, 3, 4) * 100, decimals=2),
                        Sample(randn(rng, 5) * 1000, decimals=-2),
                        Sample(np.array(randn(rng) * 10), decimals=0)],
           gradcheck=False),
    OpInfo("round_.decimals", lambda lib, a: a.clone().round_(decimals=1),
           _unary(randn), ops=("round.decimals", "clone"), gradcheck=False),

    # ---- integer and bool inputs: dtypes as PyTorch ----
    OpInfo("unary.int", lambda lib, a: lib.stack([a.sin(), a.sqrt(), a.sigmoid(), a.erf(),
                                                  a.exp(), a.log1p()]),
           _int_tensors, ops=("sin", "sqrt", "sigmoid", "erf", "exp", "log1p"),
           gradcheck=False, compare_rtol=1e-6),
    OpInfo("unary.int.same_dtype", lambda lib, a: lib.stack([a.sign(), a.square(), a.floor()]),
           lambda rng: [Sample(rng.integers(-5, 6, (3, 4)))],
           ops=("sign", "floor", "pow.Tensor_Scalar"), gradcheck=False),
    OpInfo("relu.int", lambda lib, a: a.relu() + a.abs(),
           lambda rng: [Sample(rng.integers(-5, 6, (3, 4)).astype(np.int8))],
           ops=("relu", "abs"), gradcheck=False),

    # ---- binary ----
    OpInfo("atan2", lambda lib, a, b: lib.atan2(a, b), _binary(randn, _nonzero)),
    OpInfo("atan2.quadrants", lambda lib, a, b: a.arctan2(b),
           _fixed(np.array([1.0, 0.0, 0.0, -0.0, -1.0, 1.0]),
                  np.array([0.0, 0.0, -0.0, -1.0, -1.0, np.inf])),
           ops=("atan2",), gradcheck=False),
    OpInfo("atan2.int", lambda lib, a, b: lib.atan2(a, b),
           lambda rng: [Sample(rng.integers(-3, 4, (3,)), rng.integers(1, 4, (3,)))],
           ops=("atan2",), gradcheck=False, compare_rtol=1e-6),
    OpInfo("atan2_", lambda lib, a, b: a.clone().atan2_(b),
           lambda rng: [Sample(randn(rng, 3, 4), _nonzero(rng, 3, 4)),
                        Sample(randn(rng, 3, 4), _nonzero(rng, 4))],
           ops=("atan2", "clone")),
    OpInfo("rsub.Tensor", lambda lib, a, b: lib.rsub(a, b, alpha=2), _binary(),
           ops=("rsub.Tensor",)),
    OpInfo("maximum", lambda lib, a, b: lib.maximum(a, b), _binary()),
    OpInfo("minimum", lambda lib, a, b: a.minimum(b), _binary()),
    OpInfo("maximum.ties", lambda lib, a, b: lib.stack([lib.maximum(a, b), lib.minimum(a, b)]),
           _fixed(np.array([1.0, 2.0, -1.0, 0.0, np.nan, 3.0]),
                  np.array([1.0, 1.0, -1.0, 0.5, 1.0, np.nan])),
           ops=("maximum", "minimum", "stack"), gradcheck=False),
    OpInfo("maximum.ties.broadcast", lambda lib, a, b: lib.maximum(a, b),
           _fixed(np.array([[0.5, 1.0], [1.0, 2.0]]), np.array([1.0, 1.0])),
           ops=("maximum",), gradcheck=False),
    OpInfo("maximum.promote", lambda lib, a, b: lib.maximum(a, b),
           lambda rng: [Sample(rng.integers(-3, 4, (3,)), randn(rng, 3)),
                        Sample(rng.integers(-3, 4, (3,)), _scalar(rng)),
                        Sample(np.array([True, False]), np.array([False, False]))],
           ops=("maximum",), gradcheck=False),
    OpInfo("fmod.Scalar", lambda lib, a, b: lib.fmod(a, b),
           lambda rng: [Sample(_away_from_integers(rng, 3, 4) * 3, 1.5),
                        Sample(np.array(_away_from_integers(rng) * 3), -2),
                        Sample(noncontiguous(_away_from_integers(rng, 2, 3)), 0.7)]),
    OpInfo("fmod.Tensor", lambda lib, a, b: a.fmod(b),
           _binary(lambda rng, *s: _away_from_integers(rng, *s) * 3,
                   lambda rng, *s: rng.uniform(1.1, 1.9, s) * rng.choice([-1, 1], s))),
    OpInfo("remainder.Scalar", lambda lib, a, b: a % b,
           lambda rng: [Sample(_away_from_integers(rng, 3, 4) * 3, 1.5),
                        Sample(np.array(_away_from_integers(rng) * 3), -2),
                        Sample(noncontiguous(_away_from_integers(rng, 2, 3)), 0.7)]),
    OpInfo("remainder.Tensor", lambda lib, a, b: lib.remainder(a, b),
           _binary(lambda rng, *s: _away_from_integers(rng, *s) * 3,
                   lambda rng, *s: rng.uniform(1.1, 1.9, s) * rng.choice([-1, 1], s))),
    OpInfo("fmod_", lambda lib, a, b: a.clone().fmod_(b),
           lambda rng: [Sample(_away_from_integers(rng, 3) * 3, 1.5),
                        Sample(_away_from_integers(rng, 3) * 3, positive(rng, 3) + 1)],
           ops=("fmod.Scalar", "fmod.Tensor", "clone")),
    OpInfo("remainder_", lambda lib, a, b: a.clone().remainder_(b),
           lambda rng: [Sample(_away_from_integers(rng, 3) * 3, -1.5),
                        Sample(_away_from_integers(rng, 3) * 3, positive(rng, 3) + 1)],
           ops=("remainder.Scalar", "remainder.Tensor", "clone")),
    OpInfo("fmod.edges", lambda lib, a, b: lib.stack([lib.fmod(a, b), a % b]),
           _fixed(np.array([5.0, -5.0, 0.0, 3.0, -3.0, 5.0]),
                  np.array([0.0, 3.0, 2.0, -3.0, 3.0, np.inf])),
           ops=("fmod.Tensor", "remainder.Tensor", "stack"), gradcheck=False),
    OpInfo("fmod.int", lambda lib, a, b: lib.stack([lib.fmod(a, b), a % b]),
           lambda rng: [Sample(np.array([5, -5, 7, -7]), np.array([3, 3, -2, -2])),
                        Sample(np.array([5, -5, 7, -7]), 3)],
           ops=("fmod.Tensor", "remainder.Tensor", "fmod.Scalar", "remainder.Scalar"),
           gradcheck=False),
    OpInfo("div.Tensor_mode", lambda lib, a, b, **kw: lib.div(a, b, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), _nonzero(rng, 4), rounding_mode=None),
                        Sample(randn(rng, 3, 4) * 3, _nonzero(rng, 3, 4), rounding_mode="floor"),
                        Sample(np.array(randn(rng) * 3), 0.7, rounding_mode="trunc")]),
    OpInfo("div.Tensor_mode.edges", lambda lib, a, b, **kw: a.div(b, **kw),
           lambda rng: [Sample(np.array([5.0, -5.0, 0.0, 7.5, -7.5]),
                               np.array([0.0, 0.0, 0.0, 2.5, 2.0]), rounding_mode="floor"),
                        Sample(np.array([5.0, -5.0, 0.0, 7.5, -7.5]),
                               np.array([0.0, 0.0, 0.0, 2.5, 2.0]), rounding_mode="trunc"),
                        Sample(np.array([5, -5, 7, -7]), np.array([2, 2, -3, -3]),
                               rounding_mode="trunc"),
                        Sample(np.array([5, -5, 7, -7]), 2, rounding_mode="floor"),
                        Sample(np.array([5, -5, 7, -7]), 2, rounding_mode=None)],
           ops=("div.Tensor_mode",), gradcheck=False),
    OpInfo("div_.mode", lambda lib, a, b: a.clone().div_(b, rounding_mode="floor"),
           lambda rng: [Sample(randn(rng, 3) * 3, 0.7)], ops=("div.Tensor_mode", "clone")),

    # ---- clamp ----
    OpInfo("clamp", lambda lib, a, **kw: lib.clamp(a, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), min=-0.5, max=0.5),
                        Sample(randn(rng, 3, 4), min=0.1),
                        Sample(_scalar(rng), max=-0.2),
                        Sample(noncontiguous(randn(rng, 2, 3)), min=-1, max=1)]),
    OpInfo("clamp.Tensor", lambda lib, a, lo, hi: a.clamp(lo, hi),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4) - 1, randn(rng, 4) + 1),
                        Sample(randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4),
                               name="min > max somewhere"),
                        # (bounds of different shapes break PyTorch's own backward)
                        Sample(_scalar(rng), randn(rng, 2, 3) - 1, randn(rng, 2, 3) + 1,
                               name="0-d, broadcast bounds")]),
    OpInfo("clamp.Tensor.one_bound", lambda lib, a, b, **kw: lib.clamp(a, **{kw["which"]: b}),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4), which="min"),
                        Sample(randn(rng, 3, 4), _scalar(rng), which="max")],
           ops=("clamp.Tensor",)),
    OpInfo("clamp_min", lambda lib, a, m: lib.clamp_min(a, m),
           lambda rng: [Sample(randn(rng, 3, 4), 0.2), Sample(_scalar(rng), -0.3)]),
    OpInfo("clamp_min.Tensor", lambda lib, a, m: a.clamp_min(m), _binary()),
    OpInfo("clamp_max", lambda lib, a, m: a.clamp_max(m),
           lambda rng: [Sample(randn(rng, 3, 4), 0.2), Sample(_scalar(rng), -0.3)]),
    OpInfo("clamp_max.Tensor", lambda lib, a, m: lib.clamp_max(a, m), _binary()),
    OpInfo("clip", lambda lib, a: lib.clip(a, -0.5, 0.5) + a.clip(max=0.1),
           _unary(), ops=("clamp", "add")),
    OpInfo("clamp.boundary", lambda lib, a: lib.stack([a.clamp(-1.5, 0.7), a.clamp(min=0.0),
                                                       a.clamp(max=-0.0), a.clamp(2.0, 1.0),
                                                       a.clamp_min(0.7), a.clamp_max(2.0)]),
           _fixed(_KINKS), ops=("clamp", "clamp_min", "clamp_max", "stack"), gradcheck=False),
    OpInfo("clamp.Tensor.boundary", lambda lib, a, lo, hi: lib.stack(
               [a.clamp(lo, hi), a.clamp(min=lo), a.clamp(max=hi), a.clamp_min(lo),
                a.clamp_max(hi)]),
           _fixed(np.array([0.0, 1.0, 2.0, 0.5, 3.0, np.nan]),
                  np.array([0.0, 0.0, 2.5, 1.0, 1.0, 0.0]),
                  np.array([1.0, 1.0, 2.0, 0.5, 2.0, 1.0])),
           ops=("clamp.Tensor", "clamp_min.Tensor", "clamp_max.Tensor", "stack"),
           gradcheck=False),
    OpInfo("clamp.promote", lambda lib, a: lib.stack([a.clamp(1.5), a.clamp(0, 2) * 1.0,
                                                      lib.clamp_max(a, 0.5)]),
           lambda rng: [Sample(rng.integers(-3, 4, (5,)))],
           ops=("clamp", "clamp_max"), gradcheck=False),
    OpInfo("clamp_", lambda lib, a: a.clone().clamp_(-0.5, 0.5), _unary(), ops=("clamp", "clone")),
    OpInfo("clamp_.Tensor", lambda lib, a, b: a.clone().clamp_(min=b),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4))], ops=("clamp.Tensor", "clone")),
    OpInfo("clip_", lambda lib, a: a.clone().clip_(max=0.3), _unary(), ops=("clamp", "clone")),
    OpInfo("clamp_min_", lambda lib, a, b: a.clone().clamp_min_(b),
           lambda rng: [Sample(randn(rng, 3, 4), 0.1), Sample(randn(rng, 3, 4), randn(rng, 4))],
           ops=("clamp_min", "clamp_min.Tensor", "clone")),
    OpInfo("clamp_max_", lambda lib, a, b: a.clone().clamp_max_(b),
           lambda rng: [Sample(randn(rng, 3, 4), 0.1), Sample(randn(rng, 3, 4), randn(rng, 4))],
           ops=("clamp_max", "clamp_max.Tensor", "clone")),

    # ---- lerp ----
    OpInfo("lerp.Scalar", lambda lib, a, b, w: lib.lerp(a, b, w),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), 0.3),
                        Sample(randn(rng, 3, 4), randn(rng, 4), 0.8),
                        Sample(_scalar(rng), randn(rng, 3), -1.5)]),
    OpInfo("lerp.Tensor", lambda lib, a, b, w: a.lerp(b, w),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), rng.uniform(0, 1, (3, 4))),
                        Sample(randn(rng, 3, 4), randn(rng, 4), rng.uniform(-1, 2, (3, 1))),
                        Sample(_scalar(rng), randn(rng, 3), _scalar(rng, _uniform(0, 1)))]),
    OpInfo("lerp_", lambda lib, a, b, w: a.clone().lerp_(b, w),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 3), 0.7),
                        Sample(randn(rng, 3), randn(rng, 3), rng.uniform(0, 1, (3,)))],
           ops=("lerp.Scalar", "lerp.Tensor", "clone")),

    # ---- fused backwards, reached through a create_graph backward ----
    OpInfo("sigmoid_backward", _first_grad(lambda lib, x: lib.sigmoid(x)),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(_scalar(rng), _scalar(rng))],
           ops=("sigmoid_backward", "sigmoid")),
    OpInfo("tanh_backward", _first_grad(lambda lib, x: lib.tanh(x)),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(_scalar(rng), _scalar(rng))],
           ops=("tanh_backward", "tanh")),
    OpInfo("threshold_backward", _first_grad(lambda lib, x: lib.relu(x)),
           lambda rng: [Sample(_nonzero(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(_scalar(rng, _nonzero), _scalar(rng))],
           ops=("threshold_backward", "relu")),
    OpInfo("threshold_backward.kink", _first_grad(lambda lib, x: lib.relu(x)),
           _fixed(_KINKS[:5], np.arange(5.0)), ops=("threshold_backward", "relu"),
           gradcheck=False),
    OpInfo("sigmoid_backward.grad_only", _first_grad(lambda lib, x: lib.sigmoid(x)),
           lambda rng: [Sample(randn(rng, 3), randn(rng, 3), grad=(0,))],
           ops=("sigmoid_backward", "sigmoid")),

    # ---- core arithmetic rows: promotion, zeros, integer and bool dtypes ----
    OpInfo("arith.int_float_scalar", lambda lib, a: lib.stack([a + 2.5, a * 2.5, a - 2.5,
                                                               2.5 - a, a / 2]),
           lambda rng: [Sample(rng.integers(-5, 6, (4,))), Sample(rng.integers(-5, 6, ()))],
           ops=("add", "mul", "sub", "rsub", "div"), gradcheck=False),
    OpInfo("add.alpha.promote", lambda lib, a, b, **kw: lib.add(a, b, **kw),
           lambda rng: [Sample(randn(rng, 3).astype(np.float32), 1, alpha=2),
                        Sample(np.array([True, False]), np.array([True, True]), alpha=2),
                        Sample(rng.integers(-5, 6, (3,)), rng.integers(-5, 6, (3,)), alpha=-3)],
           ops=("add",), gradcheck=False),
    OpInfo("sub.alpha", lambda lib, a, b: lib.sub(a, b, alpha=0.5) + a.subtract(1, alpha=2),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4))], ops=("sub", "add")),
    OpInfo("div.by_zero", lambda lib, a, b: a / b,
           _fixed(np.array([1.0, -2.0, 0.0, 3.0]), np.array([0.0, 0.0, 0.0, -0.0])),
           ops=("div",), gradcheck=False),
    OpInfo("div.int", lambda lib, a, b: a / b,
           lambda rng: [Sample(np.array([1, -2, 0, 3]), np.array([2, 0, 0, 4])),
                        Sample(np.array([1, -2, 0, 3]), 0)],
           ops=("div",), gradcheck=False),
    OpInfo("reciprocal.zero", lambda lib, a: a.reciprocal(), _fixed(np.array([0.0, -0.0, 2.0])),
           ops=("reciprocal",), gradcheck=False),
    OpInfo("pow.int", lambda lib, a, b: a ** b,
           lambda rng: [Sample(np.array([1, 2, 3, -1]), 2),
                        Sample(np.array([-1, -1, 1, 2, 0, 3]), np.array([-3, -2, -1, -1, -1, 2])),
                        Sample(2, np.array([-1, 0, 3])), Sample(-1, np.array([-1, -2, 3])),
                        Sample(np.array([True, False]), 2)],
           ops=("pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar"),
           gradcheck=False),
    OpInfo("pow.zero", lambda lib, a: lib.stack([a ** 2, a ** 0, a ** 0.5, a ** -1.0]),
           _fixed(np.array([0.0, 1.0, 2.0, -1.0])),
           ops=("pow.Tensor_Scalar", "stack"), gradcheck=False),
    # exponents PyTorch's kernel special-cases (sqrt, rsqrt, reciprocal, x*x, ...)
    OpInfo("pow.special_exponents", lambda lib, a: lib.stack(
               [a ** 0.5, a ** -0.5, a ** -1, a ** 2, a ** 3, a ** -2, a ** 1.5]),
           _fixed(np.array([-np.inf, -2.0, -0.0, 0.0, 2.0, np.inf, np.nan])),
           ops=("pow.Tensor_Scalar", "stack"), gradcheck=False),
    OpInfo("pow.Tensor_Tensor.zero", lambda lib, a, b: a ** b,
           _fixed(np.array([0.0, 0.0, 0.0, 2.0, -2.0]), np.array([0.0, 2.0, -1.0, 0.0, 2.0])),
           ops=("pow.Tensor_Tensor",), gradcheck=False),
    OpInfo("pow.Scalar.zero_base", lambda lib, e: lib.stack([0.0 ** e, (-2.0) ** e]),
           _fixed(np.array([0.0, 1.0, -1.0, 2.0])), ops=("pow.Scalar", "stack"),
           gradcheck=False),
    OpInfo("square", lambda lib, a: a.square() + lib.square(a).clone().square_(),
           _unary(), ops=("pow.Tensor_Scalar", "clone", "add")),
    OpInfo("where.numbers", lambda lib, c: lib.where(c, 1, 2.5),
           lambda rng: [Sample(randn(rng, 3) > 0)], ops=("where.self",),
           gradcheck=False),
]

OPS_DB += [
    OpInfo("zero_", lambda lib, x: (x * 1).zero_(), lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng))],
           ops=("zero", "mul")),
    OpInfo("fill_.Scalar", lambda lib, x: (x * 1).fill_(2.5), lambda rng: [Sample(randn(rng, 3, 4))],
           ops=("fill_.Scalar", "mul")),
    OpInfo("fill_.Tensor", lambda lib, x, v: (x * 1).fill_(v), lambda rng: [Sample(randn(rng, 3, 4), randn(rng))],
           ops=("fill_.Tensor", "mul")),
]


# ---- breadth: predicates' neighbours, IEEE helpers, more binary ops -----------------------

def _inplace_cmp(method):
    # (x * 1) makes a non-leaf; the comparison's in-place node replaces MulBackward0
    return lambda lib, a, b: getattr(a * 1, method)(b)


def _cmp_samples(rng):
    a = np.round(randn(rng, 3, 4), 1)
    return [Sample(randn(rng, 3, 4), randn(rng, 4)),
            Sample(randn(rng, 3, 4), 0.25, name="number"),
            Sample(randn(rng, 2, 3), np.array(0.5), name="0-d other")]


def _positive_pairs(rng):
    return [Sample(positive(rng, 3, 4), positive(rng, 3, 4)),
            Sample(positive(rng, 3, 4), positive(rng, 4), name="broadcast"),
            Sample(np.array(positive(rng)), positive(rng, 3), name="0-d with 1-d")]


def _distinct_pairs(rng):
    # fmax/fmin: ties and NaNs are compared in their own entry
    a = randn(rng, 3, 4)
    return [Sample(a, a + _nonzero(rng, 3, 4)), Sample(randn(rng, 3, 4), randn(rng, 4) + 5),
            Sample(np.array(randn(rng)), randn(rng, 3) + 5, name="0-d with 1-d")]


_CMP_ROWS = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
             "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
             "greater_equal": "ge"}
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0])

OPS_DB += [
    *[OpInfo(f"{m}_", _inplace_cmp(m + "_"), _cmp_samples,
             ops=(f"{r}_.Scalar", f"{r}_.Tensor", "mul"))
      for m, r in _CMP_ROWS.items()],
    OpInfo("comparison_.ties", lambda lib, a, b: lib.stack(
               [getattr(a * 1, m + "_")(b) for m in _CMP_ROWS]),
           _fixed(np.array([1.0, 2.0, -0.0, np.nan, np.inf]),
                  np.array([1.0, 3.0, 0.0, np.nan, np.inf])),
           ops=("eq_.Tensor", "stack"), gradcheck=False),
    OpInfo("nan_to_num", lambda lib, a, **kw: lib.nan_to_num(a, **kw),
           lambda rng: [Sample(randn(rng, 3, 4)), Sample(randn(rng), nan=1.0),
                        Sample(noncontiguous(randn(rng, 2, 3)), posinf=1.0, neginf=-1.0)]),
    OpInfo("nan_to_num.special", lambda lib, a, **kw: a.nan_to_num(**kw),
           lambda rng: [Sample(_SPECIAL), Sample(_SPECIAL, nan=2.0, posinf=3.0, neginf=-4.0),
                        Sample(_SPECIAL.astype(np.float32), posinf=1e300)],
           ops=("nan_to_num",), gradcheck=False),
    OpInfo("nan_to_num_", lambda lib, a: (a * 1).nan_to_num_(nan=0.5),
           _fixed(_SPECIAL), ops=("nan_to_num", "mul"), gradcheck=False),
    OpInfo("copysign.Tensor", lambda lib, a, b: lib.copysign(a, b), _binary(_nonzero)),
    OpInfo("copysign.Scalar", lambda lib, a, b: a.copysign(b),
           lambda rng: [Sample(_nonzero(rng, 3, 4), -1.0), Sample(np.array(_nonzero(rng)), 2),
                        Sample(_nonzero(rng, 3), -0.0)]),
    OpInfo("copysign.zeros", lambda lib, a, b: lib.copysign(a, b),
           _fixed(_SPECIAL, np.array([-1.0, -1.0, 1.0, -1.0, 1.0, -0.0, np.nan])),
           ops=("copysign.Tensor",), gradcheck=False),
    OpInfo("copysign_", lambda lib, a, b: (a * 1).copysign_(b),
           lambda rng: [Sample(_nonzero(rng, 3, 4), _nonzero(rng, 4)),
                        Sample(_nonzero(rng, 3), -2.5)],
           ops=("copysign.Tensor", "copysign.Scalar", "mul")),
    OpInfo("frexp", lambda lib, a: lib.frexp(a), _unary(_nonzero)),
    OpInfo("frexp.method", lambda lib, a: a.frexp().mantissa * 1, _fixed(_SPECIAL),
           ops=("frexp", "mul"), gradcheck=False),
    OpInfo("ldexp.Tensor", lambda lib, a, b: lib.ldexp(a, b),
           lambda rng: [Sample(randn(rng, 3, 4), rng.integers(0, 4, (3, 4))),
                        Sample(randn(rng, 3, 4), randn(rng, 4), name="float exponent"),
                        Sample(randn(rng, 3, 4), rng.integers(0, 4, (4,)), name="broadcast")]),
    # an integer exponent's pow(2, other) is an integer power: 0 for negative exponents, so
    # PyTorch's gradient there is 0
    OpInfo("ldexp.negative_exponents", lambda lib, a, b: lib.ldexp(a, b),
           lambda rng: [Sample(randn(rng, 3, 4), rng.integers(-3, 4, (3, 4)))],
           ops=("ldexp.Tensor",), gradcheck=False),
    OpInfo("ldexp_", lambda lib, a, b: (a * 1).ldexp_(b),
           lambda rng: [Sample(randn(rng, 3, 4), rng.integers(0, 4, (4,))),
                        Sample(randn(rng, 3), randn(rng, 3))],
           ops=("ldexp.Tensor", "mul")),
    OpInfo("nextafter", lambda lib, a, b: lib.nextafter(a, b),
           _fixed(np.array([1.0, 2.0, -3.0, 0.0]), np.array([1.0, 5.0, -4.0, -1.0])),
           gradcheck=False),
    OpInfo("nextafter_", lambda lib, a, b: (a * 1).nextafter_(b),
           _fixed(np.array([1.0, 2.0, -3.0]), np.array([1.0, 5.0, -4.0])),
           ops=("nextafter", "mul"), gradcheck=False),
    # PyTorch has no derivative for these: values and NotImplemented nodes only
    OpInfo("heaviside", lambda lib, a, b: lib.heaviside(a, b),
           _fixed(np.array([-1.0, 0.0, 2.0, np.nan, -0.0]), np.array([0.5, 0.25, 0.5, 0.5, 0.75]),
                  grad=()), gradcheck=False),
    OpInfo("floor_divide", lambda lib, a, b: a // b,
           lambda rng: [Sample(randn(rng, 3, 4) * 3, _nonzero(rng, 4), grad=()),
                        Sample(randn(rng, 3) * 3, 0.7, grad=())], gradcheck=False),
    OpInfo("floor_divide.reflected", lambda lib, a: 7.0 // a,
           lambda rng: [Sample(_nonzero(rng, 3, 4), grad=())], ops=("floor_divide",),
           gradcheck=False),
    OpInfo("floor_divide_", lambda lib, a, b: a.clone().floor_divide_(b),
           lambda rng: [Sample(randn(rng, 3, 4) * 3, _nonzero(rng, 4), grad=()),
                        Sample(randn(rng, 3) * 3, 0.7, grad=())], gradcheck=False),
    OpInfo("heaviside_", lambda lib, a, b: a.clone().heaviside_(b),
           _fixed(np.array([-1.0, 0.0, 2.0, np.nan]), np.array([0.5, 0.25, 0.5, 0.5]), grad=()),
           gradcheck=False),
    OpInfo("remainder.Scalar_Tensor", lambda lib, a: 3.5 % a,
           lambda rng: [Sample(_nonzero(rng, 3, 4), grad=())], gradcheck=False),
    OpInfo("hypot", lambda lib, a, b: lib.hypot(a, b), _binary(_nonzero)),
    OpInfo("hypot_", lambda lib, a, b: (a * 1).hypot_(b),
           lambda rng: [Sample(_nonzero(rng, 3, 4), _nonzero(rng, 4))], ops=("hypot", "mul")),
    OpInfo("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), _binary()),
    OpInfo("logaddexp2", lambda lib, a, b: a.logaddexp2(b), _binary()),
    OpInfo("logaddexp.special", lambda lib, a, b: lib.stack([lib.logaddexp(a, b),
                                                             lib.logaddexp2(a, b)]),
           _fixed(np.array([np.inf, -np.inf, np.inf, np.nan, 800.0, -800.0]),
                  np.array([np.inf, -np.inf, -np.inf, 1.0, 800.0, -801.0])),
           ops=("logaddexp", "logaddexp2", "stack"), gradcheck=False),
    OpInfo("fmax", lambda lib, a, b: lib.fmax(a, b), _distinct_pairs),
    OpInfo("fmin", lambda lib, a, b: a.fmin(b), _distinct_pairs),
    OpInfo("fmax.ties_nan", lambda lib, a, b: lib.stack([lib.fmax(a, b), lib.fmin(a, b)]),
           _fixed(np.array([1.0, np.nan, 2.0, np.nan, 0.0]),
                  np.array([1.0, 2.0, np.nan, np.nan, -0.0])),
           ops=("fmax", "fmin", "stack"), gradcheck=False),
    OpInfo("addcmul", lambda lib, a, b, c, **kw: lib.addcmul(a, b, c, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(randn(rng, 4), randn(rng, 3, 1), randn(rng, 4), value=-0.5),
                        Sample(np.array(randn(rng)), randn(rng, 3), randn(rng, 3), value=2)]),
    OpInfo("addcmul_", lambda lib, a, b, c: (a * 1).addcmul_(b, c, value=1.5),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4), randn(rng, 3, 4))],
           ops=("addcmul", "mul")),
    OpInfo("addcdiv", lambda lib, a, b, c, **kw: a.addcdiv(b, c, **kw),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 3, 4), _nonzero(rng, 3, 4)),
                        Sample(randn(rng, 4), randn(rng, 3, 1), _nonzero(rng, 4), value=-0.5),
                        Sample(np.array(randn(rng)), randn(rng, 3), _nonzero(rng, 3), value=2)]),
    OpInfo("addcdiv_", lambda lib, a, b, c: (a * 1).addcdiv_(b, c, value=0.5),
           lambda rng: [Sample(randn(rng, 3, 4), randn(rng, 4), _nonzero(rng, 3, 4))],
           ops=("addcdiv", "mul")),
    OpInfo("float_power", lambda lib, a, b: lib.float_power(a, b),
           lambda rng: [Sample(positive(rng, 3, 4), randn(rng, 3, 4)),
                        Sample(positive(rng, 3, 4), 2), Sample(2, randn(rng, 3))],
           ops=("pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar")),
    # from float32: converted first (ToCopyBackward0 under pow's node)
    OpInfo("float_power.float32", lambda lib, a, b: lib.float_power(a, b),
           lambda rng: [Sample(positive(rng, 3, 4).astype(np.float32), 2, grad=(0,)),
                        Sample(2, randn(rng, 3).astype(np.float32), grad=(1,)),
                        Sample(positive(rng, 3).astype(np.float32), randn(rng, 3).astype(np.float32),
                               grad=(0, 1))],
           ops=("pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar", "_to_copy"),
           gradcheck=False, compare_rtol=1e-6),
    OpInfo("float_power_", lambda lib, a, b: (a * 1).float_power_(b),
           lambda rng: [Sample(positive(rng, 3), 1.5), Sample(positive(rng, 3), randn(rng, 3))],
           ops=("pow.Tensor_Tensor", "pow.Tensor_Scalar", "mul")),
    OpInfo("deg2rad", lambda lib, a: lib.deg2rad(a), _unary()),
    OpInfo("rad2deg", lambda lib, a: a.rad2deg(), _unary()),
    OpInfo("exp2", lambda lib, a: lib.exp2(a), _unary()),
    OpInfo("angle", lambda lib, a: lib.angle(a), _unary(_nonzero)),
    OpInfo("angle.special", lambda lib, a: a.angle(), _fixed(_SPECIAL), ops=("angle",),
           gradcheck=False),
    OpInfo("angle.complex", lambda lib, a: lib.angle(a),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j, 0j, -3 + 0j, -1j]), grad=(0,)), ops=("angle",),
           gradcheck=False),
    OpInfo("asinh", lambda lib, a: lib.asinh(a), _unary()),
    OpInfo("acosh", lambda lib, a: a.acosh(), _unary(_uniform(1.2, 4.0))),
    OpInfo("atanh", lambda lib, a: lib.arctanh(a), _unary(_uniform(-0.9, 0.9))),
    OpInfo("arcsinh", lambda lib, a: a.arcsinh() + lib.arccosh(a * a + 1.5),
           _unary(), ops=("asinh", "acosh", "mul", "add")),
    OpInfo("inverse_hyperbolic.edges", lambda lib, a: lib.stack([a.asinh(), a.acosh(), a.atanh()]),
           _fixed(np.array([-1.0, 1.0, 0.0, 2.0, np.inf, -np.inf])),
           ops=("asinh", "acosh", "atanh", "stack"), gradcheck=False),
    *[OpInfo(f"{m}.inplace", _inplace(m), _unary(gen), ops=(row, "clone"))
      for row, m, gen in (("exp2", "exp2_", randn), ("deg2rad", "deg2rad_", randn),
                          ("rad2deg", "rad2deg_", randn))],
    # PyTorch's in-place inverse hyperbolic nodes raise in backward: values only here
    *[OpInfo(f"{m}.inplace", _inplace(m),
             lambda rng, gen=gen: [Sample(gen(rng, 3, 4), grad=())], ops=(row,),
             gradcheck=False)
      for row, m, gen in (("asinh_", "asinh_", randn), ("acosh_", "arccosh_", _uniform(1.2, 4.0)),
                          ("atanh_", "atanh_", _uniform(-0.9, 0.9)))],
    OpInfo("conj_physical", lambda lib, a: lib.conj_physical(a) * 1,
           _fixed(np.array([1 + 2j, -0.5 + 0.1j]), grad=(0,)), ops=("conj_physical", "mul"),
           gradcheck=False),
    OpInfo("conj_physical_", lambda lib, a: (a * 1).conj_physical_(),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j]), grad=(0,)), ops=("conj_physical_", "mul"),
           gradcheck=False),
    # out= records PyTorch's NotImplemented node (values here; nodes in the breadth tests)
    OpInfo("conj_physical out=", lambda lib, a: lib.conj_physical(a, out=lib.empty(0, dtype=a.dtype)),
           _fixed(np.array([1 + 2j, -0.5 + 0.1j]), grad=()), ops=("conj_physical",),
           gradcheck=False),
    OpInfo("fill.Scalar", lambda lib, a: lib.fill(a, 2.5), _unary()),
    OpInfo("fill.Tensor", lambda lib, a, v: lib.fill(a, v),
           lambda rng: [Sample(randn(rng, 3, 4), np.array(randn(rng)))]),
]
