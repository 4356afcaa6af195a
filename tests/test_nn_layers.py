"""LayerNorm, BatchNorm1d/2d, Embedding, Dropout and Bilinear (modules and nn.functional)
against PyTorch 2.13: seeded initial values, forward values, gradients of inputs and
parameters, grad_fn nodes, double backward, running statistics, eval mode, state_dict,
repr and errors. (Single-op values, gradcheck and gradgradcheck: the op database.)"""
import numpy as np
import pytest
import torch


from helpers import same, same_error

rng = np.random.default_rng(0)


def Bilinear(lib, *args, **kwargs):
    return lib.nn.Bilinear(*args, **kwargs)


def arr(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def grads_of(lib, out, inputs, seed=1):
    """Gradients of a fixed random projection of `out` w.r.t. `inputs` (None if unused)."""
    w = np.random.default_rng(seed).standard_normal(tuple(out.shape))
    loss = (out * lib.tensor(w, dtype=out.dtype)).sum()
    return list(lib.autograd.grad(loss, inputs, allow_unused=True))


def train_program(build, x, extra=()):
    """prog(T): build the module from seed 0, run it on x, return output, its node,
    gradients of x and of every parameter."""
    def prog(T):
        T.manual_seed(0)
        m = build(T)
        xt = T.tensor(x).requires_grad_()
        out = m(xt, *[T.tensor(e) for e in extra])
        params = [p for p in m.parameters()]
        return out, grads_of(T, out, [xt] + params)
    return prog


# ---- seeded construction, repr, state_dict --------------------------------------------------

MODULES = {
    "LayerNorm": lambda T: T.nn.LayerNorm(4),
    "LayerNorm 2-d no bias": lambda T: T.nn.LayerNorm([3, 4], eps=1e-3, bias=False),
    "LayerNorm no affine": lambda T: T.nn.LayerNorm((2, 4), elementwise_affine=False),
    "BatchNorm1d": lambda T: T.nn.BatchNorm1d(5),
    "BatchNorm1d no bias": lambda T: T.nn.BatchNorm1d(5, bias=False, momentum=None),
    "BatchNorm2d no affine": lambda T: T.nn.BatchNorm2d(3, affine=False, eps=1e-3),
    "BatchNorm2d untracked": lambda T: T.nn.BatchNorm2d(3, track_running_stats=False),
    "Embedding": lambda T: T.nn.Embedding(7, 3),
    "Embedding padding": lambda T: T.nn.Embedding(7, 3, padding_idx=2),
    "Embedding negative padding": lambda T: T.nn.Embedding(7, 3, padding_idx=-1, max_norm=1.5,
                                                           norm_type=1.0,
                                                           scale_grad_by_freq=True),
    "Embedding float64": lambda T: T.nn.Embedding(20, 4, dtype=T.float64),
    "Dropout": lambda T: T.nn.Dropout(),
    "Dropout inplace": lambda T: T.nn.Dropout(0.2, inplace=True),
    "Bilinear": lambda T: Bilinear(T, 3, 4, 5),
    "Bilinear no bias": lambda T: Bilinear(T, 2, 3, 4, bias=False),
    "Bilinear float64": lambda T: Bilinear(T, 6, 2, 3, dtype=T.float64),
}


@pytest.mark.parametrize("build", MODULES.values(), ids=MODULES.keys())
def test_seeded_init_repr_state_dict(build):
    def prog(T):
        T.manual_seed(7)
        m = build(T)
        sd = m.state_dict()
        return dict(sd), repr(m), dict(sd._metadata), [n for n, _ in m.named_parameters()], \
            [n for n, _ in m.named_buffers()], T.rand(2)   # the generator's state after
    same(prog, 0, 0)


def test_embedding_padding_row_zero_and_from_pretrained():
    weights = arr(4, 3)

    def prog(T):
        w = T.tensor(weights)
        frozen = T.nn.Embedding.from_pretrained(w)
        free = T.nn.Embedding.from_pretrained(w, freeze=False, padding_idx=-2)
        return (frozen.weight, frozen.weight.requires_grad, free.weight, free.padding_idx,
                repr(free), free(T.tensor([0, 2, 3])))
    same(prog, 0, 0)
    same_error(lambda T: T.nn.Embedding.from_pretrained(T.zeros(4)))
    same_error(lambda T: T.nn.Embedding(3, 2, padding_idx=3))
    same_error(lambda T: T.nn.Embedding(3, 2, padding_idx=-4))
    same_error(lambda T: T.nn.Embedding(3, 2, _weight=T.zeros(2, 2)))


def test_batchnorm_state_dict_round_trip():
    x = arr(6, 3, dtype=np.float32)

    def prog(T):
        T.manual_seed(0)
        a, b = T.nn.BatchNorm1d(3), T.nn.BatchNorm1d(3)
        a(T.tensor(x))
        result = b.load_state_dict(a.state_dict())
        return dict(b.state_dict()), repr(result)
    same(prog, 1e-7, 1e-6)


# ---- LayerNorm ------------------------------------------------------------------------------

LAYER_NORM = [
    ("2-d", lambda T, dt: T.nn.LayerNorm(4, dtype=dt), (3, 4)),
    ("3-d over 2 dims", lambda T, dt: T.nn.LayerNorm([3, 4], dtype=dt), (2, 3, 4)),
    ("no affine", lambda T, dt: T.nn.LayerNorm(4, elementwise_affine=False), (2, 5, 4)),
    ("no bias", lambda T, dt: T.nn.LayerNorm(4, bias=False, dtype=dt), (6, 4)),
    ("eps", lambda T, dt: T.nn.LayerNorm(5, eps=0.1, dtype=dt), (2, 5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("build,shape", [c[1:] for c in LAYER_NORM], ids=[c[0] for c in LAYER_NORM])
def test_layer_norm_module(build, shape, dtype):
    x = arr(*shape, dtype=dtype)
    same(train_program(lambda T: build(T, getattr(T, dtype)), x), 1e-5, 1e-5)


def test_layer_norm_stable_with_large_mean():
    # a mean of 1e6 and a spread of 1e-4: E[x^2] - E[x]^2 would lose all of it in float64
    x = 1e6 + 1e-4 * arr(4, 8)
    same(lambda T: T.nn.functional.layer_norm(T.tensor(x), (8,)), 1e-6, 1e-6)
    same(lambda T: T.nn.functional.batch_norm(T.tensor(x.T), None, None, training=True),
         1e-6, 1e-6)


def test_layer_norm_native_outputs():
    x, w, b = arr(2, 3, 4), arr(3, 4), arr(3, 4)
    same(lambda T: T.native_layer_norm(T.tensor(x).requires_grad_(), [3, 4],
                                       T.tensor(w).requires_grad_(), T.tensor(b), 1e-5), 1e-12)
    same(lambda T: T.layer_norm(T.tensor(x), (4,)), 1e-12)


def _double_backward(fn, arrays, grad=None, atol=1e-10):
    """fn(T, *tensors) on both libraries: output node, first-order gradients (nodes,
    next_functions, values) under create_graph, and second-order values."""
    grad = range(len(arrays)) if grad is None else grad

    def prog(T):
        ts = [None if a is None else T.tensor(a).requires_grad_(i in grad)
              for i, a in enumerate(arrays)]
        wrt = [t for t in ts if t is not None and t.requires_grad]
        out = fn(T, *ts)
        gs = grads_of_graph(T, out, wrt)
        nexts = [[None if n is None else n.name() for n, _ in g.grad_fn.next_functions]
                 for g in gs if g is not None and g.grad_fn is not None]
        v = np.random.default_rng(2)
        total = sum((g * T.tensor(v.standard_normal(tuple(g.shape)))).sum()
                    for g in gs if g is not None and g.requires_grad)
        return out, gs, nexts, list(T.autograd.grad(total, wrt, allow_unused=True))
    same(prog, atol, 1e-8)


def grads_of_graph(T, out, wrt):
    w = np.random.default_rng(1).standard_normal(tuple(out.shape))
    loss = (out.pow(2) * T.tensor(w)).sum()
    return list(T.autograd.grad(loss, wrt, create_graph=True, allow_unused=True))


# (bias without weight is left to the op database's gradgradcheck: PyTorch's
# layer_norm_double_backward adds an undefined tensor there and raises)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_double_backward(affine):
    w = arr(4) if affine in ("both", "weight") else None
    b = arr(4) if affine in ("both", "bias") else None
    _double_backward(lambda T, x, w, b: T.nn.functional.layer_norm(x, (4,), w, b),
                     [arr(3, 4), w, b])


def test_layer_norm_errors():
    x = lambda T: T.randn(3, 5)  # noqa: E731
    F = lambda T: T.nn.functional  # noqa: E731
    same_error(lambda T: F(T).layer_norm(x(T), (4,)))
    same_error(lambda T: F(T).layer_norm(x(T), (3, 5, 2)))
    same_error(lambda T: F(T).layer_norm(x(T), (5,), T.ones(4)))
    same_error(lambda T: F(T).layer_norm(x(T), (5,), None, T.ones(4)))
    same_error(lambda T: F(T).layer_norm(x(T), ()))
    same_error(lambda T: F(T).layer_norm(x(T), 5))
    same_error(lambda T: F(T).layer_norm(x(T), (5.0,)))
    same_error(lambda T: T.native_layer_norm(x(T), 5, None, None, 1e-5))
    same_error(lambda T: F(T).layer_norm(T.arange(6).view(2, 3), (3,)))
    same_error(lambda T: F(T).layer_norm(x(T), (5,), T.ones(5, dtype=T.float64)))
    same_error(lambda T: F(T).layer_norm(x(T).double(), (5,), T.ones(5)))


# ---- BatchNorm ------------------------------------------------------------------------------

BATCH_NORM = {
    "1d": (lambda T: T.nn.BatchNorm1d(3), (5, 3)),
    "1d 3-d input": (lambda T: T.nn.BatchNorm1d(3, momentum=0.3), (4, 3, 2)),
    "1d cumulative": (lambda T: T.nn.BatchNorm1d(3, momentum=None), (5, 3)),
    "2d": (lambda T: T.nn.BatchNorm2d(2), (3, 2, 2, 3)),
    "2d no affine": (lambda T: T.nn.BatchNorm2d(2, affine=False, momentum=None), (2, 2, 3, 2)),
    "2d untracked": (lambda T: T.nn.BatchNorm2d(2, track_running_stats=False), (2, 2, 2, 2)),
    "2d no bias float64": (lambda T: T.nn.BatchNorm2d(2, bias=False, dtype=T.float64),
                           (2, 2, 2, 2)),
}


@pytest.mark.parametrize("build,shape", BATCH_NORM.values(), ids=BATCH_NORM.keys())
def test_batch_norm_train_steps_then_eval(build, shape):
    dtype = np.float64 if "float64" in repr(build(torch).weight) else np.float32
    batches = [(arr(*shape) * (i + 1) + i).astype(dtype) for i in range(4)]
    last = arr(*shape).astype(dtype)

    def prog(T):
        T.manual_seed(0)
        m = build(T)
        outs = [m(T.tensor(b)) for b in batches]    # training mode: running stats move
        train_out = m(T.tensor(last).requires_grad_())
        train_grads = grads_of(T, train_out, list(m.parameters())) if m.affine else None
        m.eval()
        x = T.tensor(last).requires_grad_()
        out = m(x)
        return outs, train_grads, dict(m.state_dict()), out, \
            grads_of(T, out, [x] + list(m.parameters()))
    same(prog, 1e-5, 1e-5)


@pytest.mark.parametrize("build,shape", BATCH_NORM.values(), ids=BATCH_NORM.keys())
def test_batch_norm_gradients(build, shape):
    dtype = np.float64 if "float64" in repr(build(torch).weight) else np.float32
    same(train_program(build, arr(*shape).astype(dtype)), 1e-5, 1e-5)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_double_backward(training, affine):
    w, b = (arr(3), arr(3)) if affine else (None, None)
    rm, rv = arr(3), np.abs(arr(3)) + 0.5
    _double_backward(lambda T, x, rm, rv, w, b: T.nn.functional.batch_norm(
        x, rm, rv, w, b, training=training), [arr(4, 3, 2), rm, rv, w, b], grad=(0, 3, 4))


def test_batch_norm_native_and_namespace():
    x, w, b, rm, rv = arr(4, 3), arr(3), arr(3), arr(3), np.abs(arr(3)) + 0.5

    def prog(T):
        m, v = T.tensor(rm), T.tensor(rv)
        train = T.native_batch_norm(T.tensor(x).requires_grad_(), T.tensor(w), T.tensor(b), m,
                                    v, True, 0.2, 1e-5)
        ev = T.native_batch_norm(T.tensor(x), None, None, m, v, False, 0.2, 1e-5)
        return train, ev, m, v, m._version, T.batch_norm(T.tensor(x), None, None, m, v, False,
                                                         0.1, 1e-5, True)
    same(prog, 1e-12)


def test_batch_norm_empty_batch():
    same(lambda T: T.nn.functional.batch_norm(
        T.zeros(0, 3, requires_grad=True), None, None, T.ones(3, requires_grad=True),
        T.ones(3, requires_grad=True), training=True))


def test_batch_norm_saved_running_stats_version_check():
    # eval mode saves the running stats; modifying them in place breaks backward
    def prog(T):
        x = T.randn(4, 3, requires_grad=True)
        rm, rv = T.zeros(3), T.ones(3)
        y = T.nn.functional.batch_norm(x, rm, rv, T.ones(3, requires_grad=True))
        rm.add_(1)
        y.sum().backward()
    same_error(prog)


def test_batch_norm_errors():
    F = lambda T: T.nn.functional  # noqa: E731
    same_error(lambda T: T.nn.BatchNorm1d(3)(T.randn(1, 3)))
    same_error(lambda T: T.nn.BatchNorm2d(3)(T.randn(1, 3, 1, 1)))
    same_error(lambda T: F(T).batch_norm(T.randn(1, 3, 1), None, None, training=True))
    same_error(lambda T: T.nn.BatchNorm1d(3)(T.randn(2, 3, 4, 5)))
    same_error(lambda T: T.nn.BatchNorm1d(3)(T.randn(3)))
    same_error(lambda T: T.nn.BatchNorm2d(3)(T.randn(2, 3, 4)))
    same_error(lambda T: T.nn.BatchNorm1d(3)(T.randn(2, 4)))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), T.zeros(3), T.ones(4), training=True))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), None, None, T.ones(4), training=True))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), None, None, None, T.ones(2),
                                         training=True))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), None, None))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), T.zeros(3), None))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), None, None, training=True, eps=0))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), T.zeros(3), T.ones(3), eps=-1))
    same_error(lambda T: F(T).batch_norm(T.arange(6).view(2, 3), None, None, training=True))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3, dtype=T.float64), T.zeros(3), T.ones(3)))
    same_error(lambda T: F(T).batch_norm(T.randn(2, 3), T.zeros(3), T.ones(3),
                                         T.ones(3, dtype=T.float64)))


# ---- Embedding ------------------------------------------------------------------------------

INDICES = np.array([[1, 2, 1], [0, 1, 6]])

EMBEDDING = {
    "plain": lambda T: T.nn.Embedding(7, 3),
    "padding": lambda T: T.nn.Embedding(7, 3, padding_idx=1),
    "negative padding": lambda T: T.nn.Embedding(7, 3, padding_idx=-1),
    "scale_grad_by_freq": lambda T: T.nn.Embedding(7, 3, padding_idx=0,
                                                   scale_grad_by_freq=True),
    "max_norm": lambda T: T.nn.Embedding(7, 3, max_norm=1.0),
    "max_norm p=1": lambda T: T.nn.Embedding(7, 3, max_norm=0.5, norm_type=1.0),
}


@pytest.mark.parametrize("build", EMBEDDING.values(), ids=EMBEDDING.keys())
def test_embedding_module(build):
    def prog(T):
        T.manual_seed(3)
        m = build(T)
        idx = T.tensor(INDICES)
        out = m(idx)
        out2 = m(idx[0])         # max_norm has renormalized the used rows in place
        (out.pow(2).sum() + out2.sum()).backward()
        return out, out2, m.weight.detach(), m.weight.grad, m.weight._version
    same(prog, 1e-6, 1e-6)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_double_backward(padding_idx):
    _double_backward(lambda T, w: T.nn.functional.embedding(
        T.tensor(INDICES), w, padding_idx=padding_idx), [arr(7, 3)])


def test_embedding_namespace_and_int32():
    w = arr(5, 2)
    same(lambda T: T.embedding(T.tensor(w).requires_grad_(),
                               T.tensor(np.array([4, 0], np.int32)), 4), 0, 0)
    same(lambda T: T.nn.functional.embedding(T.tensor(3), T.tensor(w)), 0, 0)


def test_embedding_saved_indices_version_check():
    def prog(T):
        idx = T.tensor([1, 2])
        y = T.nn.functional.embedding(idx, T.ones(3, 2, requires_grad=True))
        idx.add_(0)
        y.sum().backward()
    same_error(prog)


def test_embedding_errors():
    F = lambda T: T.nn.functional  # noqa: E731
    w = lambda T: T.randn(5, 3, requires_grad=True)  # noqa: E731
    same_error(lambda T: F(T).embedding(T.tensor([5]), w(T)))
    same_error(lambda T: F(T).embedding(T.tensor([[0, -1]]), w(T)))
    same_error(lambda T: T.nn.Embedding(5, 3)(T.tensor([7])))
    same_error(lambda T: F(T).embedding(T.tensor([1.0]), w(T)))
    same_error(lambda T: F(T).embedding(T.tensor([1]), w(T), padding_idx=5))
    same_error(lambda T: F(T).embedding(T.tensor([1]), w(T), padding_idx=-6))
    same_error(lambda T: F(T).embedding(T.tensor([1]), T.randn(5)))


# ---- Dropout --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.75])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_dropout_draws_as_pytorch(p, dtype, layout):
    x = arr(6, 5, 4).astype(dtype)
    view = {"contiguous": lambda t: t, "transposed": lambda t: t.permute(2, 0, 1),
            "strided": lambda t: t[:, ::2]}[layout]

    def prog(T):
        T.manual_seed(11)
        xt = T.tensor(x).requires_grad_()
        out = T.nn.functional.dropout(view(xt), p)
        out2 = T.nn.Dropout(p)(xt)
        return out, out2, grads_of(T, out, [xt]), T.rand(3)
    same(prog, 0, 0)


def test_dropout_modes_and_nodes():
    x = arr(3, 4)

    def prog(T):
        T.manual_seed(0)
        xt = T.tensor(x).requires_grad_()
        m = T.nn.Dropout(0.4)
        train = m(xt)
        m.eval()
        ev = m(xt)
        F = T.nn.functional
        return (train, train.grad_fn.next_functions[1][0] is None, ev is xt,
                F.dropout(xt, 0.0) is xt, F.dropout(xt, 0.3, training=False) is xt,
                F.dropout(xt, 1.0), T.dropout(xt, 0.5, True), T.rand(3))
    same(prog, 0, 0)


def test_dropout_inplace():
    x = arr(4, 5)

    def prog(T):
        T.manual_seed(5)
        leaf = T.tensor(x).requires_grad_()
        y = leaf * 1
        out = T.nn.functional.dropout(y, 0.5, inplace=True)
        return out is y, y._version, out, grads_of(T, out, [leaf]), \
            T.nn.Dropout(0.3, inplace=True)(T.tensor(x)), T.dropout_(T.tensor(x), 0.2, True)
    same(prog, 0, 0)
    same_error(lambda T: T.nn.functional.dropout(T.ones(2, requires_grad=True), inplace=True))


def test_dropout_errors():
    same_error(lambda T: T.nn.functional.dropout(T.ones(3), 1.5))
    same_error(lambda T: T.nn.functional.dropout(T.ones(3), -0.1))
    same_error(lambda T: T.nn.Dropout(1.5))
    same_error(lambda T: T.dropout(T.ones(3), 1.5, True))


# ---- Bilinear -------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((4, 3), (4, 2)), ((2, 3, 3), (2, 3, 2)), ((3,), (2,))],
                         ids=["2-d", "3-d", "1-d"])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_module(shapes, bias):
    s1, s2 = shapes
    same(train_program(lambda T: Bilinear(T, 3, 2, 5, bias=bias), arr(*s1, dtype=np.float32),
                       [arr(*s2, dtype=np.float32)]), 1e-5, 1e-5)


def test_bilinear_nodes_and_double_backward():
    def graph(T):
        x1, x2 = T.randn(4, 3, requires_grad=True), T.randn(4, 2, requires_grad=True)
        out = T.nn.functional.bilinear(x1, x2, T.randn(5, 3, 2, requires_grad=True),
                                       T.randn(5, requires_grad=True))
        tri = out.grad_fn.next_functions[0][0].next_functions[0][0]
        return out.grad_fn, out.grad_fn.next_functions[0][0], tri, \
            [n for n, _ in tri.next_functions]
    same(graph)
    _double_backward(lambda T, a, b, w, bias: T.bilinear(a, b, w, bias),
                     [arr(4, 3), arr(4, 2), arr(5, 3, 2), arr(5)])


def test_bilinear_errors():
    F = lambda T: T.nn.functional  # noqa: E731
    same_error(lambda T: F(T).bilinear(T.randn(3, 2), T.randn(3, 3, 4), T.randn(5, 2, 4)))
    same_error(lambda T: F(T).bilinear(T.randn(3, 2), T.randn(4, 4), T.randn(5, 2, 4)))
    same_error(lambda T: F(T).bilinear(T.randn(3, 3), T.randn(3, 4), T.randn(5, 2, 4)))
    same_error(lambda T: F(T).bilinear(T.randn(3, 2), T.randn(3, 3), T.randn(5, 2, 4)))
    same_error(lambda T: F(T).bilinear(T.randn(3, 2), T.randn(3, 4), T.randn(5, 2, 4),
                                       T.randn(4)))
    same_error(lambda T: Bilinear(T, 0, 2, 3))
