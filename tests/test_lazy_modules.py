"""Lazy modules (LazyLinear, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d) and BatchNorm3d
against PyTorch: reprs and state_dict keys before and after the first call, the class they
become, seeded initialisation bit for bit, outputs, gradients, running statistics, loading a
state_dict into a lazy module, and errors."""
import numpy as np
import pytest

from helpers import same, same_error

LAZY = [
    (lambda nn: nn.LazyLinear(4), (3, 5)),
    (lambda nn: nn.LazyLinear(2, bias=False), (2, 3, 6)),
    (lambda nn: nn.LazyLinear(3), (7,)),
    (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    (lambda nn: nn.LazyBatchNorm1d(momentum=None, eps=1e-3), (4, 3, 5)),
    (lambda nn: nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4)),
    (lambda nn: nn.LazyBatchNorm2d(track_running_stats=False, bias=False), (2, 3, 4, 4)),
    (lambda nn: nn.LazyBatchNorm3d(), (2, 3, 2, 3, 2)),
    (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    (lambda nn: nn.LazyInstanceNorm1d(affine=False, track_running_stats=False), (3, 5)),
    (lambda nn: nn.LazyInstanceNorm2d(), (2, 3, 4, 4)),
    (lambda nn: nn.LazyInstanceNorm3d(momentum=0.3), (2, 2, 3, 3, 3)),
]


@pytest.mark.parametrize("i", range(len(LAZY)))
def test_lazy_modules(i):
    build, shape = LAZY[i]
    a = np.random.default_rng(i).standard_normal(shape)

    def prog(T):
        T.manual_seed(i)
        m = build(T.nn)
        before = (type(m).__name__, repr(m), m.has_uninitialized_params(),
                  list(m.state_dict()), [repr(p) for p in m.parameters()],
                  [type(b).__name__ for b in m.buffers()])
        x = T.tensor(a, dtype=T.float32, requires_grad=True)
        y = m(x)
        after = (type(m).__name__, repr(m), hasattr(m, "_initialize_hook"),
                 list(m.state_dict()), [type(p).__name__ for p in m.parameters()])
        grads = T.autograd.grad(y.sum() + (y * y).sum(), [x] + list(m.parameters()))
        y2 = m(x * 2)     # a second call: a regular module now
        return before, after, dict(m.named_parameters()), m.state_dict(), y, y2, grads
    ours, theirs = same(prog, atol=1e-5, rtol=1e-5)
    for key in theirs[2]:          # PyTorch's seeded values, bit for bit
        np.testing.assert_array_equal(ours[2][key].detach().numpy(),
                                      theirs[2][key].detach().numpy())


def test_lazy_linear_dtype_and_classes():
    def prog(T):
        T.manual_seed(3)
        m = T.nn.LazyLinear(2, dtype=T.float64)
        kinds = (isinstance(m, T.nn.Linear), isinstance(m, T.nn.modules.lazy.LazyModuleMixin),
                 m.weight.dtype, m.cls_to_become.__name__)
        y = m(T.ones(1, 3, dtype=T.float64))
        return kinds, isinstance(m, T.nn.modules.lazy.LazyModuleMixin), m.weight, y
    same(prog)


def test_batchnorm3d():
    a = np.random.default_rng(0).standard_normal((3, 2, 2, 3, 2))

    def prog(T):
        m = T.nn.BatchNorm3d(2, momentum=0.2)
        x = T.tensor(a, dtype=T.float32, requires_grad=True)
        y = m(x)
        g = T.autograd.grad((y * y.detach().exp()).sum(), (x, m.weight, m.bias))
        m.eval()
        return repr(m), y, g, m(x), m.state_dict()
    same(prog)


def test_lazy_load_state_dict_materializes():
    def prog(T):
        T.manual_seed(0)
        src = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2))
        src(T.randn(4, 3))
        m = T.nn.Sequential(T.nn.LazyLinear(2), T.nn.LazyBatchNorm1d())
        m.load_state_dict(src.state_dict())
        kinds = [type(c).__name__ for c in m]
        y = m(T.ones(4, 3))
        inorm = T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
        inorm(T.randn(2, 3, 4, 4))
        lazy = T.nn.LazyInstanceNorm2d()
        lazy.load_state_dict(inorm.state_dict())
        return kinds, [type(c).__name__ for c in m], m.state_dict(), y, lazy.state_dict(), \
            repr(lazy)
    same(prog)


def test_lazy_deepcopy_and_second_forward_shapes():
    def prog(T):
        import copy
        T.manual_seed(1)
        m = T.nn.LazyLinear(2)
        c = copy.deepcopy(m)
        y = c(T.ones(2, 4))
        return type(m).__name__, type(c).__name__, repr(c), y.shape, m.has_uninitialized_params()
    same(prog)


LAZY_ERRORS = [
    lambda T: T.nn.LazyLinear(3)(T.ones(2, 4)) + T.nn.LazyLinear(3).weight.shape[0],
    lambda T: T.nn.LazyBatchNorm2d()(T.ones(2, 3, 4)),
    lambda T: T.nn.LazyBatchNorm3d()(T.ones(2, 3, 4, 4)),
    lambda T: T.nn.BatchNorm3d(3)(T.ones(2, 3, 4, 4)),
    lambda T: T.nn.LazyInstanceNorm2d()(T.ones(2, 3)),
    lambda T: T.nn.LazyInstanceNorm1d()(T.ones(2, 3, 4, 5)),
    lambda T: (lambda m: (m(T.ones(2, 3)), m(T.ones(2, 4))))(T.nn.LazyLinear(2)),
    lambda T: (lambda m: (m(T.ones(2, 3)), m(T.ones(2, 4, 5))))(T.nn.LazyBatchNorm1d()),
    # loading materializes the parameters but leaves num_features 0, as in PyTorch
    lambda T: (lambda m: (m.load_state_dict(T.nn.InstanceNorm2d(3, affine=True).state_dict(),
                                            strict=False),
                          m(T.ones(1, 3, 2, 2))))(T.nn.LazyInstanceNorm2d()),
]


@pytest.mark.parametrize("i", range(len(LAZY_ERRORS)))
def test_lazy_errors(i):
    same_error(LAZY_ERRORS[i])
