"""nn's activations, losses, padding, distance and normalization layers beyond the core set
(Hardtanh ... GLU, the margin losses, the Pad modules, CrossMapLRN2d, SyncBatchNorm, nn.grad),
as modules and functions, against PyTorch: values, gradients, nodes, reprs, errors, warnings.
The single ops themselves are in the op database (chainrule/testing/opdb/nn_ops.py)."""
import numpy as np
import pytest

from helpers import same, same_error, same_warnings

X = np.random.default_rng(0).standard_normal((2, 5, 3, 4))


def _grads(T, m, *inputs, weight_seed=1):
    """m(*inputs), and the gradients of a weighted sum of it for the inputs needing one."""
    out = m(*inputs)
    w = T.tensor(np.random.default_rng(weight_seed).standard_normal(tuple(out.shape)))
    need = [x for x in inputs if isinstance(x, T.Tensor) and x.requires_grad]
    return out, T.autograd.grad((out * w.to(out.dtype)).sum(), need)


@pytest.mark.parametrize("make", [
    lambda T: T.nn.Hardtanh(), lambda T: T.nn.Hardtanh(-0.5, 2.0),
    lambda T: T.nn.ReLU6(), lambda T: T.nn.Hardsigmoid(), lambda T: T.nn.Hardswish(),
    lambda T: T.nn.Mish(), lambda T: T.nn.Softshrink(), lambda T: T.nn.Softshrink(1.0),
    lambda T: T.nn.Softsign(), lambda T: T.nn.Tanhshrink(), lambda T: T.nn.Softmin(1),
    lambda T: T.nn.Softmax2d(), lambda T: T.nn.GLU(), lambda T: T.nn.GLU(0),
    lambda T: T.nn.LocalResponseNorm(3), lambda T: T.nn.LocalResponseNorm(2, 1e-2, 0.5, 2.0),
    lambda T: T.nn.CrossMapLRN2d(3), lambda T: T.nn.CrossMapLRN2d(5, 0.1, 0.75, 2),
], ids=lambda f: "")
def test_activation_modules(make):
    def prog(T):
        x = T.tensor(X * 3, requires_grad=True)
        m = make(T)
        return repr(m), _grads(T, m, x)
    same(prog)


@pytest.mark.parametrize("name", ["Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish"])
def test_inplace_activation_modules(name):
    def prog(T):
        x = T.tensor(X * 3, requires_grad=True)
        m = getattr(T.nn, name)(inplace=True)
        y = x * 1
        out = m(y)
        g, = T.autograd.grad(out.sum(), x, create_graph=True)
        return repr(m), out is y, out, g, y._version
    same(prog)


def test_activation_module_arguments():
    same(lambda T: [repr(T.nn.Hardtanh(-2, 3, True)), repr(T.nn.ReLU6(True)),
                    repr(T.nn.Softmin()), repr(T.nn.Softmin(dim=0)), repr(T.nn.GLU(0))])
    same_warnings(lambda T: T.nn.Hardtanh(min_value=-3.0, max_value=2.0))
    same(lambda T: repr(T.nn.Hardtanh(min_value=-3.0, max_value=2.0)))
    same_error(lambda T: T.nn.Hardtanh(2, 1))
    same_error(lambda T: T.nn.Softmax2d()(T.ones(3)))
    same_warnings(lambda T: T.nn.Softmin()(T.ones(2, 3)))
    same_error(lambda T: T.nn.CrossMapLRN2d(3)(T.ones(2, 3, 3)))


def test_activation_errors():
    same_error(lambda T: T.nn.functional.hardtanh(T.ones(3), 2, 1))
    same_error(lambda T: T.nn.functional.hardtanh(T.ones(3, dtype=T.bool)))
    same(lambda T: [T.nn.functional.hardtanh(T.tensor([1, 5, -3]), -1.5, 2.5),
                    T.nn.functional.relu6(T.arange(-3, 9))])
    for f in ("hardsigmoid", "hardswish", "mish", "softshrink", "glu"):
        same_error(lambda T: getattr(T.nn.functional, f)(T.ones(4, dtype=T.long)))
    for dtype in ("float16", "float32", "float64"):
        same_error(lambda T: T.nn.functional.softshrink(T.ones(3, dtype=getattr(T, dtype)),
                                                        -0.25))
    same_error(lambda T: T.nn.functional.glu(T.ones(3, 5), 1))
    same_error(lambda T: T.nn.functional.glu(T.tensor(1.0)))
    same_error(lambda T: T.nn.functional.glu(T.ones(2, 4), 2))


def test_double_backward_without_derivative():
    """hardsigmoid's, multi_margin_loss's and multilabel_margin_loss's backward have no
    derivative: PyTorch's NotImplemented node, which raises."""
    def prog(T, f):
        x = T.tensor(X[0, 0] * 3, requires_grad=True)
        g, = T.autograd.grad(f(T, x), x, create_graph=True)
        g.sum().backward()
    for f in (lambda T, x: T.nn.functional.hardsigmoid(x).sum(),
              lambda T, x: T.nn.functional.multi_margin_loss(x, T.tensor([0, 3, 1])),
              lambda T, x: T.nn.functional.multilabel_margin_loss(
                  x, T.tensor([[0, 3, -1, 0]] * 3))):
        same_error(lambda T: prog(T, f))


def test_gumbel_softmax_draws_pytorchs_stream():
    def prog(T):
        T.manual_seed(0)
        logits = T.tensor(X[0, 0], requires_grad=True)
        soft = T.nn.functional.gumbel_softmax(logits, tau=0.5)
        hard = T.nn.functional.gumbel_softmax(logits, hard=True, dim=0)
        return soft, hard, T.autograd.grad((soft + hard * 2).sum() * logits.sum(), logits)
    same(prog)
    same_warnings(lambda T: T.nn.functional.gumbel_softmax(T.ones(3), eps=1e-3))


# ---- losses -------------------------------------------------------------------------------

_T = [[0, 3, -1, 1], [2, -1, 0, 0], [-1, 0, 0, 0]]


@pytest.mark.parametrize("make, args", [
    (lambda T: T.nn.SoftMarginLoss(), lambda T, x: (T.tensor(np.sign(X[1, 0])),)),
    (lambda T: T.nn.SoftMarginLoss(reduction="none"), lambda T, x: (T.tensor(np.sign(X[1, 0])),)),
    (lambda T: T.nn.MultiMarginLoss(), lambda T, x: (T.tensor([0, 3, 1]),)),
    (lambda T: T.nn.MultiMarginLoss(p=2, margin=0.5, weight=T.tensor([1.0, 2, 3, 4],
                                                                   dtype=T.float64),
                                    reduction="sum"), lambda T, x: (T.tensor([0, 3, 1]),)),
    (lambda T: T.nn.MultiLabelMarginLoss(), lambda T, x: (T.tensor(_T),)),
    (lambda T: T.nn.MultiLabelMarginLoss(reduction="none"), lambda T, x: (T.tensor(_T),)),
    (lambda T: T.nn.MultiLabelSoftMarginLoss(), lambda T, x: (T.tensor(X[1, 0] > 0) * 1.0,)),
    (lambda T: T.nn.MultiLabelSoftMarginLoss(weight=T.tensor([1.0, 2, 3, 4], dtype=T.float64),
                                   reduction="sum"),
     lambda T, x: (T.tensor(X[1, 0] > 0) * 1.0,)),
    (lambda T: T.nn.GaussianNLLLoss(), lambda T, x: (T.tensor(X[1, 0]), T.tensor(X[1, 1] ** 2))),
    (lambda T: T.nn.GaussianNLLLoss(full=True, eps=0.1, reduction="none"),
     lambda T, x: (T.tensor(X[1, 0]), T.tensor(X[1, 1, :, :1] ** 2))),
    (lambda T: T.nn.GaussianNLLLoss(reduction="sum"),
     lambda T, x: (T.tensor(X[1, 0]), T.tensor(X[1, 1, :, 0] ** 2))),
    (lambda T: T.nn.GaussianNLLLoss(), lambda T, x: (T.tensor(X[1, 0]), 0.5)),
    (lambda T: T.nn.TripletMarginWithDistanceLoss(),
     lambda T, x: (T.tensor(X[1, 0]), T.tensor(X[1, 1]))),
    (lambda T: T.nn.TripletMarginWithDistanceLoss(
        distance_function=T.nn.CosineSimilarity(), margin=2.0, swap=True, reduction="none"),
     lambda T, x: (T.tensor(X[1, 0]), T.tensor(X[1, 1]))),
    (lambda T: T.nn.NLLLoss2d(), lambda T, x: (T.tensor([2, 0, 3]),)),
], ids=lambda f: "")
def test_loss_modules(make, args):
    def prog(T):
        x = T.tensor(X[0, 0], requires_grad=True)
        m = make(T)
        inputs = (x.log_softmax(1),) if isinstance(m, T.nn.NLLLoss) else (x,)
        return repr(m), _grads(T, m, *inputs, *args(T, x))
    same(prog)


def test_loss_arguments_and_errors():
    same_warnings(lambda T: T.nn.NLLLoss2d())
    same_warnings(lambda T: T.nn.functional.soft_margin_loss(T.ones(3), T.ones(3),
                                                             size_average=False))
    same_warnings(lambda T: T.nn.functional.multilabel_soft_margin_loss(
        T.ones(2, 3), T.ones(2, 3), reduce=False))
    same_error(lambda T: T.nn.functional.soft_margin_loss(T.ones(3),
                                                          T.ones(3, requires_grad=True)))
    same(lambda T: T.nn.functional.soft_margin_loss(T.ones(3), T.ones(3, requires_grad=True)
                                                    .detach()))
    same_error(lambda T: T.nn.functional.soft_margin_loss(T.ones(3, dtype=T.long),
                                                          T.ones(3, dtype=T.long)))
    same_error(lambda T: T.nn.functional.soft_margin_loss(T.ones(3), T.ones(3), reduction="x"))
    same_error(lambda T: T.nn.MultiMarginLoss(p=3))
    same_error(lambda T: T.nn.MultiMarginLoss(weight=T.ones(2, 2)))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1]), p=3))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1]),
                                                           weight=T.ones(2, 2)))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1])))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1, 4])))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0, 1, 2]),
                                                           weight=T.ones(3)))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(2, 3, 4), T.tensor([0, 1])))
    same_error(lambda T: T.nn.functional.multi_margin_loss(T.ones(3, 4), T.tensor([0., 1, 2])))
    same(lambda T: [T.nn.functional.multi_margin_loss(T.tensor(0.3), T.tensor(0)),
                    T.nn.functional.multi_margin_loss(T.tensor([0.3, 2]), T.tensor([1]),
                                                      reduction="none"),
                    T.nn.functional.multilabel_margin_loss(T.tensor(0.3), T.tensor(0))])
    same_error(lambda T: T.nn.functional.multilabel_margin_loss(T.ones(3, 4),
                                                                T.tensor([[0, 5, -1, 0]] * 3)))
    same_error(lambda T: T.nn.functional.multilabel_margin_loss(T.ones(3, 4),
                                                                T.tensor([[0, 1, -1]] * 3)))
    same_error(lambda T: T.nn.functional.multilabel_margin_loss(T.ones(3, 4),
                                                                T.tensor([[0., 1, -1, 0]] * 3)))
    same_error(lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(2, 3, 4), T.zeros(2, 3, 4, dtype=T.long)))
    same_error(lambda T: T.nn.functional.multilabel_soft_margin_loss(T.ones(2, 3), T.ones(2, 3),
                                                                     reduction="x"))
    same_error(lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3),
                                                           T.ones(3, 3)))
    same_error(lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3), -1.0))
    same_error(lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3),
                                                           -T.ones(2, 3)))
    same_error(lambda T: T.nn.functional.gaussian_nll_loss(T.ones(2, 3), T.ones(2, 3),
                                                           T.ones(2, 3), reduction="x"))
    same_error(lambda T: T.nn.TripletMarginWithDistanceLoss(margin=0))
    same_error(lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(3), reduction="sum"))
    same_error(lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), margin=-1.0))
    same_error(lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), reduction="x"))
    same_error(lambda T: T.nn.functional.local_response_norm(T.ones(2, 3), 2))
    same(lambda T: T.nn.functional.local_response_norm(T.ones(0, 3, 2), 2))


# ---- padding, distances, SyncBatchNorm, Container, nn.grad, factory_kwargs -----------------

@pytest.mark.parametrize("name, padding", [
    ("ZeroPad1d", 2), ("ZeroPad2d", (1, 0, 2, 1)), ("ZeroPad3d", 1), ("ConstantPad1d", 3),
    ("ConstantPad2d", 1), ("ConstantPad3d", (1, 0, 0, 1, 1, 0)), ("ReflectionPad1d", 2),
    ("ReflectionPad2d", (1, 2, 0, 1)), ("ReflectionPad3d", 1), ("ReplicationPad1d", 2),
    ("ReplicationPad2d", 1), ("ReplicationPad3d", (1, 0, 0, 1, 1, 0)), ("CircularPad1d", 2),
    ("CircularPad2d", (1, 0, 2, 1)), ("CircularPad3d", 1)])
def test_padding_modules(name, padding):
    n = int(name[-2])

    def prog(T):
        args = (padding, 1.5) if name.startswith("Constant") else (padding,)
        m = getattr(T.nn, name)(*args)
        shape = [(2, 5, 12), (2, 5, 3, 4), (2, 5, 3, 2, 2)][n - 1]
        batched = T.tensor(X.reshape(shape), requires_grad=True)
        unbatched = T.tensor(X[0].reshape(shape[1:]), requires_grad=True)
        return repr(m), m.padding, _grads(T, m, batched), _grads(T, m, unbatched)
    same(prog)
    if name.startswith("Circular"):
        same_error(lambda T: getattr(T.nn, name)(padding)(T.ones(3)))


def test_distance_modules():
    def prog(T):
        a, b = T.tensor(X[0, 0], requires_grad=True), T.tensor(X[0, 1], requires_grad=True)
        return [_grads(T, m, a, b) for m in (
            T.nn.PairwiseDistance(), T.nn.PairwiseDistance(1.0, 1e-3, True),
            T.nn.CosineSimilarity(), T.nn.CosineSimilarity(0, 1e-3))]
    same(prog)


def test_sync_batchnorm_is_batchnorm_without_a_process_group():
    def prog(T):
        m = T.nn.SyncBatchNorm(5)
        x = T.tensor(X, dtype=T.float32, requires_grad=True)
        out = _grads(T, m, x)
        m.eval()
        return repr(m), out, m.running_mean, m.running_var, m.num_batches_tracked, m(x)
    same(prog)
    same_error(lambda T: T.nn.SyncBatchNorm(5)(T.ones(5)))
    same_error(lambda T: T.nn.SyncBatchNorm(0)(T.ones(2, 0)))

    def convert(T):
        net = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3),
                              T.nn.Sequential(T.nn.BatchNorm2d(4, affine=False)))
        sync = T.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        return repr(sync), sync[1].weight is net[1].weight, type(sync[1]).__name__
    same(convert)


def test_container():
    same_warnings(lambda T: T.nn.Container(a=T.nn.ReLU()))
    same(lambda T: [repr(T.nn.Container(a=T.nn.ReLU(), b=T.nn.Tanh())),
                    isinstance(T.nn.Container(), T.nn.Module)])


def test_nn_grad():
    def prog(T):
        w = T.tensor(np.tile(X[0, :3, :2, :2].reshape(3, 1, 2, 2), (1, 2, 1, 1)))
        x = T.tensor(X[:, :2])
        out = T.nn.functional.conv2d(x, w, stride=1, padding=1, dilation=1)
        g = T.ones_like(out) * 0.5
        x1, w1 = T.tensor(X[:, :2, 0]), T.tensor(X[0, :3, :2, :2].reshape(3, 2, 2))
        g1 = T.ones_like(T.nn.functional.conv1d(x1, w1, stride=2))
        x3 = T.tensor(X[:, :, None])
        g3 = T.ones(2, 4, 1, 2, 3, dtype=T.float64)
        return [T.nn.grad.conv2d_input(x.shape, w, g, padding=1),
                T.nn.grad.conv2d_weight(x, w.shape, g, 1, 1),
                T.nn.functional.grad.conv1d_input(x1.shape, w1, g1, stride=2),
                T.nn.grad.conv1d_weight(x1, w1.shape, g1, stride=2),
                T.nn.grad.conv3d_input(x3.shape, T.ones(4, 5, 1, 2, 2, dtype=T.float64), g3),
                T.nn.grad.conv3d_weight(x3, (4, 5, 1, 2, 2), g3)]
    same(prog)


def test_factory_kwargs_common_types_and_functional_constants():
    same(lambda T: [T.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"device": 2}}),
                    T.nn.factory_kwargs(None), T.nn.factory_kwargs({"memory_format": 3})])
    same_error(lambda T: T.nn.factory_kwargs({"x": 1}))
    same_error(lambda T: T.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"dtype": 2}}))
    same(lambda T: [T.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES,
                    T.nn.functional.GRID_SAMPLE_PADDING_MODES])
    same(lambda T: [T.nn.functional.assert_int_or_pair(3, "x", "{} bad"),
                    T.nn.functional.assert_int_or_pair((1, 2), "x", "{} bad")])
    same_error(lambda T: T.nn.functional.assert_int_or_pair((1, 2, 3), "x", "{} bad"))
    import typing
    import chainrule
    import torch
    for name in ("_size_2_t", "_ratio_any_t", "_size_any_opt_t"):
        ours, theirs = getattr(chainrule.nn.common_types, name), getattr(torch.nn.common_types,
                                                                         name)
        assert typing.get_args(ours)[0] == typing.get_args(theirs)[0], name
    assert isinstance(chainrule.nn.common_types.T, typing.TypeVar)


def test_buffer():
    def prog(T):
        m = T.nn.Module()
        m.x = T.nn.Buffer(T.ones(2), persistent=False)
        m.y = T.nn.Buffer(T.ones(2, requires_grad=True))
        m.z = T.nn.Buffer()
        m.y = T.zeros(2)              # a tensor assigned to a buffer name stays a buffer
        b = T.nn.Buffer(T.arange(3.0))
        return [sorted(dict(m.named_buffers())), sorted(m.state_dict()), m.x.requires_grad,
                m.y, m.z, b.persistent, isinstance(b, T.nn.Buffer),
                isinstance(T.ones(1), T.nn.Buffer), type(b).__name__,
                sorted(m._non_persistent_buffers_set)]
    same(prog)
    same_error(lambda T: setattr(T.nn.Linear(2, 2), "weight", T.nn.Buffer(T.ones(2, 2))))


def test_adaptive_log_softmax_with_loss():
    def prog(T):
        T.manual_seed(0)
        asm = T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
        x = T.randn(5, 8, requires_grad=True)
        target = T.tensor([0, 4, 9, 2, 7])
        out, loss = asm(x, target)
        loss.backward()
        single = asm(x[1].detach(), target[1])
        asm.reset_parameters()
        return [repr(asm), out, loss, x.grad, asm.head.weight.grad, asm.tail[1][0].weight.grad,
                asm.log_prob(x), asm.predict(x), asm.predict(x[:1] * 0), single.output,
                single.loss, single._fields]
    same(prog)
    same_error(lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []))
    same_error(lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]))
    same_error(lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]))
    asm = "AdaptiveLogSoftmaxWithLoss"
    for x, t in [((5, 8), [0, 1]), ((5, 8), (5, 2)), ((8,), [1]), ((5, 8), 1),
                 ((5, 8), [0, 1, 2, 3, 10])]:
        def prog(T, x=x, t=t):
            T.manual_seed(0)
            m = getattr(T.nn, asm)(8, 10, [3, 6])
            target = T.zeros(t, dtype=T.long) if isinstance(t, tuple) else T.tensor(t)
            m(T.randn(*x), target)
        same_error(prog)


# ---- linear_cross_entropy ---------------------------------------------------------------

def _lce_inputs(T, k=()):
    T.manual_seed(0)
    x = T.randn(6, 4, requires_grad=True)
    w = T.randn(5, *k, 4, requires_grad=True)
    b = T.randn(5, *k, requires_grad=True)
    return x, w, b


@pytest.mark.parametrize("kwargs", [
    {}, {"reduction": "sum"}, {"reduction": "none"}, {"bias": True},
    {"bias": True, "reduction": "none", "weight": [1.0, 2, 3, 4, 5]},
    {"ignore_index": 2}, {"label_smoothing": 0.1}, {"unbatched": True},
    {"options": {}}, {"options": {}, "reduction": "sum", "bias": True},
    {"options": {}, "reduction": "none", "bias": True, "weight": [1.0, 2, 3, 4, 5]},
    {"options": {"allow_retain_graph": True}, "ignore_index": 1},
    {"options": {"batch_chunk_size": 2, "chunking_method": None}, "unbatched": True},
], ids=str)
def test_linear_cross_entropy(kwargs):
    def prog(T):
        x, w, b = _lce_inputs(T)
        kw = dict(kwargs)
        use_bias = kw.pop("bias", False)
        unbatched = kw.pop("unbatched", False)
        if "weight" in kw:
            kw["weight"] = T.tensor(kw["weight"])
        if "options" in kw:
            kw["options"] = T.nn.LinearCrossEntropyOptions(**kw["options"])
        target = T.tensor([0, 1, 2, 3, 4, 2])
        inputs = (x[0], target[0]) if unbatched else (x, target)
        loss = T.nn.functional.linear_cross_entropy(
            inputs[0], w, inputs[1], linear_bias=b if use_bias else None, **kw)
        grads = T.autograd.grad(loss.sum(), (x, w, b) if use_bias else (x, w))
        return loss, loss.grad_fn.next_functions, grads
    same(prog)


def test_linear_cross_entropy_k_dims_probabilities_and_module():
    def prog(T):
        x, w, b = _lce_inputs(T, (2, 3))
        target = T.randint(0, 5, (6, 2, 3))
        probs = T.randn(6, 5, 2, 3).softmax(1)
        out = [T.nn.functional.linear_cross_entropy(x, w, target, linear_bias=b),
               T.nn.functional.linear_cross_entropy(x, w, probs, reduction="none"),
               T.nn.functional.linear_cross_entropy(x[:, :4], w[:, 0, 0], probs[:, :, 0, 0],
                                                    label_smoothing=0.2)]
        loss = T.nn.LinearCrossEntropyLoss(4, 5, out_features=(2, 3), bias=True)
        val = loss(x, target)
        val.backward()
        return out + [repr(loss), val, loss.linear.weight.grad, loss.linear.bias.grad,
                      T.nn.LinearCrossEntropyLoss(4, 5, options=T.nn.LinearCrossEntropyOptions(
                          allow_retain_graph=True))(x, target[:, 0, 0])]
    same(prog)


def test_linear_cross_entropy_options():
    def prog(T):
        O = T.nn.LinearCrossEntropyOptions
        return [repr(o) for o in (
            O(), O(acc_dtype=T.float64), O()._adjust(100, 16, 1000, T.float32),
            O(chunking_method="aspect_ratio:4")._adjust(100, 16, 1000, T.float32),
            O(acc_policy="balanced", batch_chunk_size=8)._adjust(100, 16, 10, T.float64),
            O()._adjust(7, 4, 3, T.bfloat16, T.device("cpu")))]
    same(prog)
    for kw in ({"acc_policy": "x"}, {"chunking_method": "ratio:2"}, {"batch_chunk_size": 0},
               {"acc_dtype": "float32"}):
        same_error(lambda T, kw=kw: T.nn.LinearCrossEntropyOptions(**kw))
    same_error(lambda T: T.nn.LinearCrossEntropyOptions(
        batch_chunk_size=3, chunking_method="aspect_ratio")._adjust(10, 4, 3, T.float32))


def test_linear_cross_entropy_errors_and_warnings():
    def twice(T, retain):
        x, w, _ = _lce_inputs(T)
        options = T.nn.LinearCrossEntropyOptions(allow_retain_graph=retain)
        loss = T.nn.functional.linear_cross_entropy(x, w, T.tensor([0, 1, 2, 3, 4, 2]),
                                                    options=options)
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad
    same_error(lambda T: twice(T, False))
    same(lambda T: twice(T, True))
    same_warnings(lambda T: T.nn.functional.linear_cross_entropy(
        T.ones(2, 4), T.ones(3, 4), T.tensor([0, 1]), label_smoothing=0.1,
        options=T.nn.LinearCrossEntropyOptions()))
    for args, kw in [(((2, 3, 4), (3, 4), [0, 1]), {}), (((2, 4), (4,), [0, 1]), {}),
                     (((2, 4), (3, 5), [0, 1]), {}), (((2, 4), (3, 4), [0, 1]), {"bias": (4,)}),
                     (((4,), (3, 2, 4), 0), {}), (((2, 4), (3, 4), None), {"ignore_index": 1})]:
        def prog(T, args=args, kw=kw):
            x, w, t = args
            target = T.ones(2, 3).softmax(1) if t is None else T.tensor(t)
            bias = T.ones(kw["bias"]) if "bias" in kw else None
            T.nn.functional.linear_cross_entropy(
                T.ones(x), T.ones(w), target, linear_bias=bias,
                **{k: v for k, v in kw.items() if k != "bias"})
        same_error(prog)
    same_error(lambda T: T.nn.LinearCrossEntropyLoss(4, 5, weight=T.ones(4)))
    same_error(lambda T: T.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=2.0))


# ---- grouped_mm -------------------------------------------------------------------------

@pytest.mark.parametrize("shapes, offs", [
    (((2, 8, 16), (2, 16, 4)), None), (((10, 16), (2, 16, 4)), [3, 10]),
    (((16, 12), (12, 4)), [3, 12]), (((2, 8, 16), (16, 8)), [2, 8])], ids=str)
def test_grouped_mm_and_its_double_backward(shapes, offs):
    def prog(T):
        T.manual_seed(0)
        a, b = (T.randn(*s, requires_grad=True) for s in shapes)
        o = None if offs is None else T.tensor(offs, dtype=T.int32)
        out = T.nn.functional.grouped_mm(a, b, offs=o)
        ga, gb = T.autograd.grad((out * T.randn_like(out)).sum(), (a, b), create_graph=True)
        gga = T.autograd.grad((ga * T.randn_like(ga)).sum() + (gb * T.randn_like(gb)).sum(),
                              (a, b))
        return out, out.grad_fn.next_functions, ga, gb, gga
    same(prog, atol=1e-5)


def test_grouped_mm_errors():
    cases = [((2, 8, 16), (2, 16, 4), {"bias": (2, 4)}),
             ((2, 8, 16), (2, 16, 4), {"out_dtype": "float64"}),
             ((2, 8, 16), (2, 16, 4), {"dtype": "float64"}),
             ((2, 8, 16), (2, 16, 4), {"dtype": "bfloat16"}),
             ((2, 8, 16), (2, 16, 4), {"offs": [3, 10]}), ((10, 16), (2, 16, 4), {}),
             ((10, 16), (2, 16, 4), {"offs": [3, 10], "offs_dtype": "int64"}),
             ((16,), (2, 16, 4), {}), ((2, 8, 16), (2, 8, 4), {}), ((2, 8, 16), (1, 16, 4), {}),
             ((10, 16), (2, 16, 4), {"offs": [10]}), ((2, 3, 5), (2, 5, 7), {})]

    for a_shape, b_shape, kw in cases:
        def prog(T, a_shape=a_shape, b_shape=b_shape, kw=kw):
            dtype = getattr(T, kw.get("dtype", "float32"))
            offs = kw.get("offs")
            T.nn.functional.grouped_mm(
                T.ones(a_shape, dtype=dtype), T.ones(b_shape, dtype=dtype),
                offs=None if offs is None else T.tensor(
                    offs, dtype=getattr(T, kw.get("offs_dtype", "int32"))),
                bias=T.ones(kw["bias"]) if "bias" in kw else None,
                out_dtype=getattr(T, kw["out_dtype"]) if "out_dtype" in kw else None)
        same_error(prog)

    def expanded_grad(T):
        a = T.ones(2, 8, 16, requires_grad=True)
        T.nn.functional.grouped_mm(a, T.ones(2, 16, 4)).sum().backward()
    same_error(expanded_grad)


# ---- scaled_mm --------------------------------------------------------------------------

def _float8_pair(T, n=16):
    T.manual_seed(0)
    a = T.randn(16, 32).to(T.float8_e4m3fn)
    b = T.randn(n, 32).to(T.float8_e4m3fn).t()       # column-major, as the kernels want
    return a, b


def test_scaled_mm():
    def prog(T):
        F = T.nn.functional
        TW, RW = F.ScalingType.TensorWise, F.ScalingType.RowWise
        a, b = _float8_pair(T)
        sa, sb = T.tensor(0.3), T.tensor(1.7)
        rows, cols = T.rand(16, 1), T.rand(1, 16)
        outs = [F.scaled_mm(a, b, sa, TW, sb, TW),
                F.scaled_mm(a, b, [sa], [TW], [sb], [TW], output_dtype=T.float32),
                F.scaled_mm(a, b, rows, RW, cols, RW, bias=T.randn(16, dtype=T.bfloat16)),
                F.scaled_mm(a, b, sa, TW, sb, TW, output_dtype=None),
                F.scaled_mm(a.to(T.float8_e5m2), b, sa, TW, sb, TW, output_dtype=T.float16,
                            swizzle_a=F.SwizzleType.NO_SWIZZLE, use_fast_accum=True)]
        # (NumPy has no bfloat16 or float8 for the comparison: dtypes, then float32 values)
        return [o.dtype for o in outs] + [o.float() for o in outs] + [
            repr(TW), str(F.SwizzleType.SWIZZLE_32_4_4), RW.value, F.ScalingType(1).name]
    same(prog, atol=1e-2, rtol=1e-2)

    def no_derivative(T):
        F = T.nn.functional
        a, b = _float8_pair(T)
        sa = T.tensor(0.5, requires_grad=True)
        out = F.scaled_mm(a, b, sa, F.ScalingType.TensorWise, T.tensor(2.0),
                          F.ScalingType.TensorWise, output_dtype=T.float32)
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        out.sum().backward()
    same_error(no_derivative)


@pytest.mark.parametrize("case", range(8))
def test_scaled_mm_errors(case):
    def prog(T):
        F = T.nn.functional
        TW, RW = F.ScalingType.TensorWise, F.ScalingType.RowWise
        a, b = _float8_pair(T, 8)
        one = T.tensor(1.0)
        args = [(a.float(), b.float(), one, TW, one, TW),
                (a, b, T.rand(16, 1), F.ScalingType.BlockWise1x128, one, TW),
                (a, b, T.rand(16, 2), RW, T.rand(1, 8), RW),
                (a, b, T.rand(16, 1), RW, T.rand(2, 8), RW),
                (a, b, T.rand(16), RW, T.rand(1, 8), RW),
                (a, b, T.rand(1, 16).t(), RW, T.rand(1, 8), RW),
                (a, b[:16], one, TW, one, TW), (a[0], b, one, TW, one, TW)][case]
        F.scaled_mm(*args)
    same_error(prog)


@pytest.mark.parametrize("dtype", ["int64", "bool", "complex64", "float8_e4m3fn", "uint16",
                                   "bfloat16", "float16"])
def test_dtypes_the_kernels_refuse(dtype):
    """Each op runs, or refuses the dtype in PyTorch's words (its kernels' dtype lists)."""
    fns = {"hardtanh": lambda F, T, t: F.hardtanh(t), "relu6": lambda F, T, t: F.relu6(t),
           "hardtanh_": lambda F, T, t: F.hardtanh_(t),
           "hardsigmoid": lambda F, T, t: F.hardsigmoid(t),
           "hardswish": lambda F, T, t: F.hardswish(t), "mish": lambda F, T, t: F.mish(t),
           "mish_": lambda F, T, t: F.mish(t, True), "softshrink": lambda F, T, t: F.softshrink(t),
           "glu": lambda F, T, t: F.glu(t),
           "soft_margin": lambda F, T, t: F.soft_margin_loss(t, t),
           "multi_margin": lambda F, T, t: F.multi_margin_loss(t, T.tensor([0, 1])),
           "multilabel_margin": lambda F, T, t: F.multilabel_margin_loss(
               t, T.tensor([[0, 1, -1, 0]] * 2)),
           "softsign": lambda F, T, t: F.softsign(t), "softmin": lambda F, T, t: F.softmin(t, 1)}
    for name, f in fns.items():
        def prog(T, f=f):
            out = f(T.nn.functional, T, T.ones(2, 4).to(getattr(T, dtype)))
            return out.dtype, out.shape
        try:
            same(prog)
        except AssertionError:
            raise
        except Exception:
            same_error(prog)


# ---- PyTorch 2.13's weighted pointwise losses, SiLU(inplace=True) -------------------------

@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss", "huber_loss"])
def test_weighted_pointwise_losses(fn):
    for reduction in ("mean", "sum", "none"):
        def prog(T, reduction=reduction):
            x = T.tensor(X[0, 0], requires_grad=True)
            w = T.tensor(np.abs(X[0, 1]) + 0.1, requires_grad=True)
            y = getattr(T.nn.functional, fn)(x, T.tensor(X[0, 2]), reduction=reduction,
                                             weight=w)
            return y, T.autograd.grad(y.sum(), (x, w))
        same(prog)
    same_error(lambda T: getattr(T.nn.functional, fn)(T.ones(3), T.ones(3), reduction="x",
                                                      weight=T.ones(3)))
    same_error(lambda T: getattr(T.nn.functional, fn)(T.ones(3), T.ones(3), weight=T.ones(2)))
    same_warnings(lambda T: getattr(T.nn.functional, fn)(T.ones(3, 1), T.ones(3),
                                                         weight=T.ones(3, 1)))
    if fn != "huber_loss":
        same_warnings(lambda T: getattr(T.nn.functional, fn)(T.ones(3), T.ones(3),
                                                             size_average=False,
                                                             weight=T.ones(3)))


def test_silu_inplace():
    def prog(T):
        x = T.tensor(X[0, 0], requires_grad=True)
        y = x * 1
        out = T.nn.SiLU(inplace=True)(y)
        return out is y, out, T.autograd.grad(out.sum(), x), repr(T.nn.SiLU(True)), \
            T.nn.functional.silu(x * 1, True)
    same(prog)


def test_a_small_network_trains_as_pytorchs():
    """A MobileNetV3-like block (padding, ReLU6, Hardswish, Hardsigmoid gate, GLU, Mish), a
    weight-normed and a spectral-normed layer, trained a few SGD steps on margin losses."""
    def prog(T):
        T.manual_seed(0)
        nn = T.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.pad = nn.ReflectionPad2d(1)
                self.conv = nn.utils.parametrizations.weight_norm(nn.Conv2d(3, 8, 3))
                self.act = nn.Sequential(nn.ReLU6(), nn.Hardswish())
                self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(8, 8, 1),
                                          nn.Hardsigmoid())
                self.head = nn.utils.parametrizations.spectral_norm(nn.Linear(8, 10))
                self.glu = nn.GLU()
                self.mish = nn.Mish()

            def forward(self, x):
                h = self.act(self.conv(self.pad(x)))
                h = h * self.gate(h)
                return self.mish(self.glu(self.head(h.mean((2, 3))).repeat(1, 2)))

        net = Block()
        opt = T.optim.SGD(net.parameters(), lr=0.1)
        x = T.randn(4, 3, 6, 6)
        target = T.tensor([0, 3, 9, 5])
        losses = []
        for _ in range(3):
            opt.zero_grad()
            out = net(x)
            loss = nn.MultiMarginLoss()(out, target) + nn.SoftMarginLoss()(
                out, T.ones_like(out)) + nn.Hardtanh()(out).sum() * 0.01
            loss.backward()
            opt.step()
            losses.append(loss)
        return losses, out, [p.grad for p in net.parameters()]
    same(prog, atol=1e-5, rtol=1e-5)
