"""nn.Module, containers, layers, losses, init and utils, compared with PyTorch 2.13."""
import math
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
from chainrule import nn
from helpers import same, same_error, warnings_of


def both(build, seed=0):
    """build(lib) under each library from the same seed: (ours, theirs)."""
    chainrule.manual_seed(seed)
    ours = build(chainrule)
    torch.manual_seed(seed)
    return ours, build(torch)


def assert_same(o, t):
    np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3))


class Net:
    """A user Module subclass, built against either library."""

    @staticmethod
    def build(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 2)
                self.blocks = lib.nn.ModuleList([lib.nn.Linear(2, 2), lib.nn.Tanh()])
                self.register_buffer("running", lib.ones(2))
                self.register_buffer("scratch", lib.zeros(1), persistent=False)
                self.scale = lib.nn.Parameter(lib.tensor(2.0))

            def forward(self, x):
                x = self.fc(x) * self.scale + self.running
                for b in self.blocks:
                    x = b(x)
                return x
        return Net()


def test_parameter():
    (o, t) = both(lambda lib: lib.nn.Parameter(lib.randn(2, 3)))
    assert repr(o) == repr(t) and o.requires_grad and o.is_leaf
    assert type(o * 2) is chainrule.Tensor
    assert not nn.Parameter(chainrule.ones(2), requires_grad=False).requires_grad
    base = chainrule.zeros(2)
    p = nn.Parameter(base)
    p.data.add_(1)
    assert base.tolist() == [1.0, 1.0]
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter())


def test_linear_init_forward_backward_match_torch():
    for seed in (0, 7):
        o, t = both(mlp, seed)
        for (no, po), (nt, pt) in zip(o.named_parameters(), t.named_parameters()):
            assert no == nt
            assert_same(po, pt)
        x_o, x_t = both(lambda lib: lib.randn(5, 4), seed + 1)
        yo, yt = o(x_o), t(x_t)
        np.testing.assert_allclose(yo.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
        assert type(yo.grad_fn).__name__ == type(yt.grad_fn).__name__
        yo.pow(2).sum().backward()
        yt.pow(2).sum().backward()
        for po, pt in zip(o.parameters(), t.parameters()):
            np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_linear_without_bias_and_double():
    o, t = both(lambda lib: lib.nn.Linear(3, 2, bias=False).double())
    assert o.bias is None and o.weight.dtype == chainrule.float64
    assert_same(o.weight, t.weight)
    assert repr(o) == repr(t)


def test_training_steps_with_sgd_match_torch():
    o, t = both(mlp, 3)
    x_o, x_t = both(lambda lib: (lib.randn(6, 4), lib.randint(0, 3, (6,))), 4)
    results = []
    for lib, model, (x, y) in ((chainrule, o, x_o), (torch, t, x_t)):
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        loss_fn = lib.nn.CrossEntropyLoss()
        for _ in range(5):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_registration_traversal_and_state_dict():
    o, t = both(Net.build)
    assert repr(o) == repr(t)
    assert [n for n, _ in o.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in o.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in o.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in o.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in o.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix="m", recurse=False)]
    so, st = o.state_dict(), t.state_dict()
    assert type(so) is OrderedDict and list(so) == list(st)
    for k in so:
        assert_same(so[k], st[k])
        assert not so[k].requires_grad
    assert o.state_dict(keep_vars=True)["scale"] is o.scale
    assert o.get_submodule("blocks.0") is o.blocks[0]
    for bad in ("blocks.5", "fc.weight"):
        with pytest.raises(AttributeError) as eo:
            o.get_submodule(bad)
        with pytest.raises(AttributeError) as et:
            t.get_submodule(bad)
        assert str(eo.value) == str(et.value)


def test_shared_parameters_are_deduplicated():
    def build(lib):
        lin = lib.nn.Linear(2, 2)
        return lib.nn.Sequential(lin, lin)
    o, t = both(build)
    assert [n for n, _ in o.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert len(list(o.named_parameters(remove_duplicate=False))) == 4
    assert list(o.state_dict()) == list(t.state_dict())


def test_load_state_dict_roundtrip_and_errors():
    o, t = both(Net.build)
    chainrule.manual_seed(9)
    other = Net.build(chainrule)
    result = o.load_state_dict(other.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert_same(o.fc.weight, other.fc.weight)

    def mangle(lib, model):
        sd = model.state_dict()
        del sd["fc.bias"]
        sd["extra"] = lib.zeros(1)
        sd["blocks.0.weight"] = lib.zeros(3, 2)
        return sd
    for strict in (True, False):
        outcomes = []
        for lib, model in ((chainrule, o), (torch, t)):
            try:
                outcomes.append(repr(model.load_state_dict(mangle(lib, model), strict=strict)))
            except RuntimeError as e:
                outcomes.append(str(e))
        assert outcomes[0] == outcomes[1]
    res = o.load_state_dict(OrderedDict((k, v) for k, v in other.state_dict().items()
                                        if k != "running"), strict=False)
    assert res.missing_keys == ["running"]


def test_setattr_errors_match_torch():
    def attempts(lib):
        class Early(lib.nn.Module):
            def __init__(self, what):
                if what == "param":
                    self.p = lib.nn.Parameter(lib.ones(1))
                else:
                    self.m = lib.nn.Linear(1, 1)
                super().__init__()
        out = []
        for what in ("param", "module"):
            try:
                Early(what)
            except AttributeError as e:
                out.append(str(e))
        m = lib.nn.Linear(2, 2)
        m.register_buffer("buf", lib.zeros(1))
        m.add_module("sub", lib.nn.ReLU())
        for name, value in (("weight", lib.zeros(2, 2)), ("sub", 3), ("buf", "x")):
            try:
                setattr(m, name, value)
            except TypeError as e:
                out.append(str(e))
        for call in (lambda: m.register_parameter("a.b", None),
                     lambda: m.register_buffer("in_features", lib.zeros(1)),
                     lambda: m.add_module("", lib.nn.ReLU())):
            try:
                call()
            except KeyError as e:
                out.append(str(e))
        try:
            m.missing
        except AttributeError as e:
            out.append(str(e))
        m.weight = None
        del m.buf
        out.append([n for n, _ in m.named_parameters()] + [n for n, _ in m.named_buffers()])
        return out
    ours, theirs = attempts(chainrule), attempts(torch)
    assert len(ours) == 10 and ours == theirs


def test_modes_grad_helpers_apply_and_dtype():
    o, t = both(Net.build)
    for m in (o, t):
        m.eval()
    assert [m.training for m in o.modules()] == [m.training for m in t.modules()] == [False] * 5
    o.train()
    assert all(m.training for m in o.modules())
    o(chainrule.ones(1, 3)).sum().backward()
    o.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in o.parameters())
    o.zero_grad()
    assert all(p.grad is None for p in o.parameters())
    o.requires_grad_(False)
    assert not any(p.requires_grad for p in o.parameters())
    seen = []
    o.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Linear", "Tanh", "ModuleList", "Net"]
    w = o.fc.weight
    o.half()
    assert o.fc.weight is w and w.dtype == chainrule.float16
    o.to(chainrule.float64)
    assert {str(p.dtype) for p in o.parameters()} | {str(b.dtype) for b in o.buffers()} == \
        {"torch.float64"}
    o.float()
    assert w.dtype == chainrule.float32


def test_forward_hooks():
    o, t = both(mlp)
    for lib, m in ((chainrule, o), (torch, t)):
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = m[0].register_forward_hook(lambda mod, args, out: out + 1)
        h3 = m.register_forward_hook(lambda mod, args, kwargs, out: log.append(kwargs),
                                     with_kwargs=True)
        x = lib.ones(1, 4)
        y = m(x)
        assert log == [{}]
        for h in (h1, h2, h3):
            h.remove()
        m.y_hooked, m.y_plain = y, m(x)
    np.testing.assert_allclose(o.y_hooked.detach().numpy(), t.y_hooked.detach().numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(o.y_plain.detach().numpy(), t.y_plain.detach().numpy(),
                               rtol=1e-6)


def test_containers():
    def build(lib):
        seq = lib.nn.Sequential(OrderedDict([("a", lib.nn.Linear(2, 3)), ("act", lib.nn.GELU()),
                                             ("b", lib.nn.Linear(3, 1))]))
        seq.append(lib.nn.Sigmoid())
        ml = lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)] + [lib.nn.ReLU()])
        md = lib.nn.ModuleDict({"x": lib.nn.Identity(), "y": lib.nn.Flatten()})
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(4)])
        pd = lib.nn.ParameterDict({"w": lib.ones(1), "v": lib.nn.Parameter(lib.ones(2))})
        return lib.nn.ModuleDict({"seq": seq, "ml": ml, "md": md, "pl": pl, "pd": pd})
    o, t = both(build)
    assert repr(o) == repr(t)
    assert list(o.state_dict()) == list(t.state_dict())
    seq = o["seq"]
    assert len(seq) == 4 and list(seq)[-1] is seq[-1] and seq[0] is seq.a
    assert repr(seq[1:3]) == repr(t["seq"][1:3])
    assert len(o["ml"][:2]) == 2 and o["ml"][-1] is list(o["ml"])[-1]
    assert isinstance(o["pl"][1], nn.Parameter) and list(o["pd"]) == list(t["pd"]) == ["v", "w"]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        seq[4]
    x_o, x_t = both(lambda lib: lib.randn(5, 2), 1)
    np.testing.assert_allclose(seq(x_o).detach().numpy(), t["seq"](x_t).detach().numpy(),
                               rtol=1e-6)


ACTIVATIONS = [("ReLU", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.5,)), ("GELU", ("tanh",)),
               ("SiLU", ()), ("Softplus", (2.0, 10.0)), ("Tanh", ()), ("Sigmoid", ()),
               ("Softmax", (1,)), ("LogSoftmax", (-1,)), ("Identity", ()), ("Flatten", (0,)),
               ("Unflatten", (1, (2, 3)))]


@pytest.mark.parametrize("name,args", ACTIVATIONS)
def test_activation_modules(name, args):
    o, t = both(lambda lib: (getattr(lib.nn, name)(*args), lib.randn(4, 6, requires_grad=True)))
    assert repr(o[0]) == repr(t[0])
    yo, yt = o[0](o[1]), t[0](t[1])
    np.testing.assert_allclose(yo.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=1e-7)
    yo.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(o[1].grad.numpy(), t[1].grad.numpy(), rtol=1e-5, atol=1e-7)


LOSSES = [("MSELoss", {}, "real"), ("L1Loss", {"reduction": "sum"}, "real"),
          ("SmoothL1Loss", {"beta": 0.5}, "real"), ("HuberLoss", {"delta": 0.3}, "real"),
          ("CrossEntropyLoss", {"label_smoothing": 0.1}, "class"),
          ("NLLLoss", {"reduction": "none"}, "class"), ("BCELoss", {}, "prob"),
          ("BCEWithLogitsLoss", {}, "prob"), ("KLDivLoss", {"reduction": "batchmean"}, "prob")]


@pytest.mark.parametrize("name,kwargs,target", LOSSES)
def test_loss_modules(name, kwargs, target):
    def build(lib):
        x = lib.randn(4, 3, requires_grad=True)
        y = {"real": lambda: lib.randn(4, 3), "class": lambda: lib.randint(0, 3, (4,)),
             "prob": lambda: lib.rand(4, 3)}[target]()
        inp = x.sigmoid() if name == "BCELoss" else x
        return getattr(lib.nn, name)(**kwargs), x, inp, y
    o, t = both(build)
    assert repr(o[0]) == repr(t[0])
    lo, lt = o[0](o[2], o[3]), t[0](t[2], t[3])
    np.testing.assert_allclose(lo.detach().numpy(), lt.detach().numpy(), rtol=1e-6)
    assert type(lo.grad_fn).__name__ == type(lt.grad_fn).__name__
    lo.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(o[1].grad.numpy(), t[1].grad.numpy(), rtol=1e-5, atol=1e-7)


INITS = [("uniform_", (-2.0, 3.0)), ("normal_", (1.0, 0.5)), ("constant_", (0.25,)),
         ("zeros_", ()), ("ones_", ()), ("xavier_uniform_", (2.0,)), ("xavier_normal_", ()),
         ("kaiming_uniform_", (math.sqrt(5),)), ("kaiming_normal_", (0, "fan_out", "relu"))]


@pytest.mark.parametrize("name,args", INITS)
@pytest.mark.parametrize("shape", [(5, 7), (4, 3, 2, 2), (40, 3)])
def test_init_matches_torch_bit_for_bit(name, args, shape):
    o, t = both(lambda lib: getattr(lib.nn.init, name)(lib.empty(*shape), *args), 11)
    assert_same(o, t)
    assert chainrule.randn(1).item() == torch.randn(1).item()  # same draws consumed


def test_init_helpers_and_orthogonal():
    for args in (("relu",), ("leaky_relu", 0.2), ("tanh",), ("selu",), ("linear",)):
        assert nn.init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    w = chainrule.empty(4, 3, 5)
    assert nn.init._calculate_fan_in_and_fan_out(w) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 5))
    p = nn.Parameter(chainrule.empty(3, 6))
    out = nn.init.orthogonal_(p, gain=2.0)
    assert out is p and p.is_leaf and p.grad_fn is None
    # NumPy's QR, not LAPACK's geqrf as torch: values agree only to rounding
    np.testing.assert_allclose((p @ p.T).detach().numpy(), 4 * np.eye(3), atol=1e-5)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(chainrule.empty(3))


def test_utils_match_torch():
    o, t = both(mlp, 5)
    x_o, x_t = both(lambda lib: lib.randn(3, 4), 6)
    o(x_o).sum().backward()
    t(x_t).sum().backward()
    no = nn.utils.clip_grad_norm_(o.parameters(), 0.5)
    nt = torch.nn.utils.clip_grad_norm_(t.parameters(), 0.5)
    np.testing.assert_allclose(no.numpy(), nt.numpy(), rtol=1e-6)
    nn.utils.clip_grad_value_(o.parameters(), 0.01)
    torch.nn.utils.clip_grad_value_(t.parameters(), 0.01)
    for po, pt in zip(o.parameters(), t.parameters()):
        np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-8)
    vo = nn.utils.parameters_to_vector(o.parameters())
    vt = torch.nn.utils.parameters_to_vector(t.parameters())
    assert_same(vo, vt)
    assert type(vo.grad_fn).__name__ == type(vt.grad_fn).__name__


# ---- full backward hooks ------------------------------------------------------------------

def seeded(prog):
    """`prog` run after seeding its library, so both build the same layers."""
    def run(lib):
        lib.manual_seed(0)
        return prog(lib)
    return run


def graph(node, depth):
    """A node's name and, `depth` levels down, its next_functions, as nested tuples."""
    if node is None or depth == 0:
        return None if node is None else node.name()
    return node.name(), tuple((graph(n, depth - 1), nr) for n, nr in node.next_functions)


def multi_io(lib):
    """A module with tensor and non-tensor inputs and outputs (and a tensor kwarg)."""
    class MultiIO(lib.nn.Module):
        def forward(self, a, b, k, c=None):
            return a * b + c, a + b * k, "tag"
    return MultiIO()


def test_full_backward_hooks_see_every_input_and_output():
    def prog(lib):
        m = multi_io(lib)
        log = []
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", mod is m, go)))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("post", mod is m, gi, go)))
        a = lib.tensor([1., 2., 3.], requires_grad=True)
        b = lib.tensor([4., 5., 6.])
        c = lib.ones(3, requires_grad=True)
        x, y, tag = m(a, b, 2.0, c=c)
        structure = (graph(x.grad_fn, 5), y.grad_fn is x.grad_fn, x.requires_grad,
                     y.requires_grad, x._base is not None, tag)
        (x * lib.tensor([1., 2., 3.]) + y).sum().backward()
        return structure, log, a.grad, c.grad
    (structure, log, *_), _ = same(seeded(prog))
    assert structure[0][0] == "BackwardHookFunctionBackward"
    assert [entry[0] for entry in log] == ["pre", "post"]


def test_full_backward_hooks_replace_grad_input_and_grad_output():
    def prog(lib):
        lin = lib.nn.Linear(3, 2)
        lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        m = multi_io(lib)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1, gi[1], None))
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[1] * 3, None))
        a = lib.tensor([1., 2., 3.], requires_grad=True)
        x, y, _ = m(a, lib.tensor([4., 5., 6.]), 2.0, c=lib.zeros(3))
        out = lin((x + y).unsqueeze(0))
        (out * lib.tensor([1., -1.])).sum().backward()
        return a.grad, lin.weight.grad, lin.bias.grad
    same(seeded(prog))


def test_hook_order_in_nested_modules():
    def prog(lib):
        seq = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        log = []
        for name, mod in [("seq", seq)] + [(str(i), c) for i, c in enumerate(seq)]:
            mod.register_forward_pre_hook(lambda m, args, n=name: log.append(("fpre", n)))
            mod.register_forward_hook(lambda m, args, out, n=name: log.append(("fwd", n)))
            mod.register_full_backward_pre_hook(
                lambda m, go, n=name: log.append(("bpre", n, go)))
            mod.register_full_backward_hook(lambda m, gi, go, n=name: log.append(("bwd", n, gi)))
            mod.register_full_backward_hook(lambda m, gi, go, n=name: log.append(("first", n)),
                                            prepend=True)
        x = lib.randn(5, 3, requires_grad=True)
        seq(x).pow(2).sum().backward()
        return log, x.grad
    log, _ = same(seeded(prog))[0]
    assert len(log) == 4 * 2 + 4 * 3


def test_full_backward_hooks_fire_once_per_call_of_a_shared_module():
    def prog(lib):
        lin = lib.nn.Linear(2, 2)
        log = []
        lin.register_full_backward_hook(lambda m, gi, go: log.append((gi, go)))
        x = lib.tensor([[1., -2.]], requires_grad=True)
        y = lin(lin(x))
        structure = graph(y.grad_fn, 4)
        (y * y).sum().backward()
        return structure, log, x.grad, lin.weight.grad
    assert len(same(seeded(prog))[0][1]) == 2


def test_full_backward_hook_when_no_input_requires_grad():
    def prog(lib):
        lin = lib.nn.Linear(2, 2)
        log = []
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("pre", go)))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("post", gi, go)))
        y = lin(lib.ones(1, 2))
        warned = warnings_of(lambda: y.sum().backward())
        return warned, log, lin.weight.grad
    warned = same(seeded(prog))[0][0]
    assert warned[0][1].startswith("Full backward hook is firing")

    def returns_a_gradient(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (lib.ones(1, 2),))
        lin(lib.ones(1, 2)).sum().backward()
    same_error(returns_a_gradient)


def test_no_backward_hook_nodes_without_grad():
    def prog(lib):
        lin = lib.nn.Linear(2, 2)
        log = []
        lin.register_full_backward_hook(lambda m, gi, go: log.append(gi))
        with lib.no_grad():
            y = lin(lib.ones(1, 2, requires_grad=True))
        lin.requires_grad_(False)
        z = lin(lib.ones(1, 2))
        return y.grad_fn, z.grad_fn, z.requires_grad, log
    same(seeded(prog))


def test_backward_hook_errors():
    def mixed(full_first):
        def prog(lib):
            lin = lib.nn.Linear(2, 2)
            if full_first:
                lin.register_full_backward_hook(lambda *a: None)
                lin.register_backward_hook(lambda *a: None)
            else:
                lin.register_backward_hook(lambda *a: None)
                lin.register_full_backward_hook(lambda *a: None)
        return prog
    same_error(mixed(True))
    same_error(mixed(False))

    def backward_with(register, hook):
        def prog(lib):
            lin = lib.nn.Linear(2, 2)
            getattr(lin, register)(hook)
            lin(lib.ones(1, 2, requires_grad=True)).sum().backward()
        return prog
    same_error(backward_with("register_full_backward_hook", lambda m, gi, go: (gi[0], gi[0])))
    same_error(backward_with("register_full_backward_pre_hook", lambda m, go: (go[0], go[0])))
    # a bare tensor is taken for a tuple of its rows, as PyTorch does
    same_error(backward_with("register_full_backward_hook", lambda m, gi, go: gi[0]))


def test_backward_hook_handles_remove_hooks():
    lin = nn.Linear(2, 2)
    log = []
    handles = [lin.register_full_backward_hook(lambda *a: log.append("post")),
               lin.register_full_backward_pre_hook(lambda *a: log.append("pre"))]
    assert all(isinstance(h, chainrule.utils.hooks.RemovableHandle) for h in handles)
    x = chainrule.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    for h in handles:
        h.remove()
    lin(x).sum().backward()
    with lin.register_full_backward_hook(lambda *a: log.append("ctx")):
        lin(x).sum().backward()
    lin(x).sum().backward()
    assert log == ["pre", "post", "ctx"]
    assert type(lin(x).grad_fn).__name__ == "AddmmBackward0"


def test_module_output_not_a_tensor_or_tuple():
    def prog(lib):
        class D(lib.nn.Module):
            def forward(self, a):
                return {"a": a * 2}
        d = D()
        log = []
        d.register_full_backward_hook(lambda *a: log.append("called"))
        x = lib.ones(2, requires_grad=True)
        warned = warnings_of(lambda: d(x))
        d(x)["a"].sum().backward()
        return warned, log, x.grad
    same(seeded(prog))


def test_deprecated_backward_hook():
    def prog(lib):
        log = []
        lin = lib.nn.Linear(2, 3)
        # clones: PyTorch's weight.grad may share memory with a logged grad_input
        h = lin.register_backward_hook(
            lambda m, gi, go: log.append((m is lin, [g.clone() for g in gi], go)))
        x = lib.tensor([[1., 2.]], requires_grad=True)
        warned = warnings_of(lambda: lin(x).sum().backward())
        h.remove()
        lin(x).sum().backward()
        t = lib.nn.Tanh()
        t.register_backward_hook(lambda m, gi, go: (gi[0] * 0,))
        t(x).sum().backward()
        return warned, log, x.grad
    same(seeded(prog))


def test_inplace_on_output_of_module_with_full_backward_hook():
    def one(lib):
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda *a: None)
        lin(lib.ones(1, 2, requires_grad=True)).add_(1)
    same_error(one)

    def several(lib):
        m = multi_io(lib)
        m.register_full_backward_hook(lambda *a: None)
        a = lib.ones(2, requires_grad=True)
        m(a, a, 1.0, c=a)[1].mul_(2)
    same_error(several)


def test_global_module_hooks():
    from torch.nn.modules import module as tmod

    from chainrule.nn.modules import module as cmod

    def prog(lib):
        mm = cmod if lib is chainrule else tmod
        log = []
        handles = [
            mm.register_module_forward_pre_hook(lambda m, a: log.append(("fpre", m._get_name()))),
            mm.register_module_forward_hook(lambda m, a, o: log.append(("fwd", m._get_name()))),
            mm.register_module_full_backward_pre_hook(
                lambda m, go: log.append(("bpre", m._get_name()))),
            mm.register_module_full_backward_hook(
                lambda m, gi, go: log.append(("bwd", m._get_name(), gi))),
            mm.register_module_buffer_registration_hook(
                lambda m, n, b: log.append(("buf", n))),
            mm.register_module_parameter_registration_hook(
                lambda m, n, p: log.append(("param", n))),
            mm.register_module_module_registration_hook(
                lambda m, n, s: log.append(("mod", n))),
        ]
        try:
            seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
            seq[1].register_full_backward_hook(lambda m, gi, go: log.append(("own", gi)))
            seq.register_buffer("b", lib.zeros(1))
            x = lib.ones(1, 2, requires_grad=True)
            seq(x).sum().backward()
            try:
                mm.register_module_backward_hook(lambda *a: None)
            except RuntimeError as e:
                log.append(str(e))
        finally:
            for h in handles:
                h.remove()
        seq(x)
        return log
    same(seeded(prog))


# ---- forward hooks ------------------------------------------------------------------------

def test_forward_hook_variants():
    def prog(lib):
        log = []

        class Fwd(lib.nn.Module):
            def forward(self, x, scale=1.0):
                if scale < 0:
                    raise ValueError("negative scale")
                return x * scale

        m = Fwd()
        m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] + 1,), {"scale": 3.0}),
                                    with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, args: args[0] * 2, prepend=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("plain", args, out)))
        m.register_forward_hook(lambda mod, args, kwargs, out: out - 1, with_kwargs=True,
                                prepend=True)
        always = m.register_forward_hook(lambda mod, args, out: log.append(("always", out)),
                                         always_call=True)
        out = m(lib.tensor([1., 2.]), scale=5.0)
        always.remove()
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("always_kw", kwargs)),
                                with_kwargs=True, always_call=True)
        m._forward_pre_hooks.clear()
        try:
            m(lib.tensor([1.]), scale=-1.0)
        except ValueError as e:
            log.append(str(e))
        bad = m.register_forward_pre_hook(lambda mod, args, kwargs: 3, with_kwargs=True)
        try:
            m(lib.tensor([1.]))
        except RuntimeError as e:
            log.append(str(e))
        bad.remove()
        return out, log, len(m._forward_hooks_with_kwargs), len(m._forward_hooks_always_called)
    same(seeded(prog))


# ---- the rest of Module --------------------------------------------------------------------

def test_get_set_parameter_buffer_and_submodule():
    def prog(lib):
        net = Net.build(lib)
        found = [net.get_parameter("fc.weight"), net.get_parameter("scale"),
                 net.get_buffer("running"), net.get_buffer("scratch")]
        net.set_submodule("blocks.1", lib.nn.ReLU())
        net.set_submodule("extra", lib.nn.Identity())
        errors = []
        for call in (lambda: net.get_parameter("fc.nothing"), lambda: net.get_parameter("running"),
                     lambda: net.get_parameter("blocks.0.x.weight"),
                     lambda: net.get_buffer("scale"), lambda: net.get_buffer("fc.none"),
                     lambda: net.set_submodule("", lib.nn.ReLU()),
                     lambda: net.set_submodule("fc", 3),
                     lambda: net.set_submodule("nothing", lib.nn.ReLU(), strict=True),
                     lambda: net.set_submodule("scale", lib.nn.ReLU())):
            try:
                call()
            except (AttributeError, ValueError) as e:
                errors.append((type(e).__name__, str(e).replace("torch.nn", "chainrule.nn")))
        return found, repr(net), errors
    same(seeded(prog))


def test_typenames_in_error_messages():
    """Tensor types print PyTorch's legacy names; classes print their own module path."""
    def prog(lib):
        m = lib.nn.Linear(2, 2)
        m.register_buffer("buf", lib.zeros(1))
        out = []
        for call in (lambda: setattr(m, "weight", lib.zeros(2, 2, dtype=lib.complex64)),
                     lambda: setattr(m, "weight", lib.zeros(2, 2, dtype=lib.int64)),
                     lambda: setattr(m, "buf", 1.5), lambda: setattr(m, "buf", [1]),
                     lambda: m.register_parameter("p", lib.zeros(1, dtype=lib.float64)),
                     lambda: m.register_buffer("b2", 3), lambda: m.register_buffer(3, None),
                     lambda: m.add_module("x", 3), lambda: m.add_module(1, None),
                     lambda: m.register_parameter(2.5, None)):
            try:
                call()
            except (TypeError, KeyError) as e:
                out.append(str(e))
        return out
    same(seeded(prog))
    with pytest.raises(TypeError, match="^chainrule.nn.modules.linear.Linear is not a Module "):
        nn.Linear(1, 1).add_module("x", nn.Linear)


def test_load_state_dict_details():
    def prog(lib):
        out = []

        class WithExtra(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(2, 2)
                self.counter = 0

            def get_extra_state(self):
                return {"counter": self.counter}

            def set_extra_state(self, state):
                self.counter = state["counter"] + 1

        m = WithExtra()
        m.counter = 4
        sd = m.state_dict()
        out.append((list(sd), sd["_extra_state"], dict(sd._metadata)))
        for bad in ({"fc": lib.zeros(1)}, {"fc.weight.x": lib.zeros(1)},
                    {"fc.weight": 3}, {"fc.bias": lib.zeros(3)}, {"fc.bias": lib.zeros(1, 2)}):
            full = dict(sd, **bad)
            try:
                m.load_state_dict(full)
            except RuntimeError as e:
                out.append(str(e))
        res = m.load_state_dict(sd)
        out.append((repr(res), m.counter))
        plain = lib.nn.Linear(2, 2)
        out.append(repr(plain.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.ones(2),
                                               "_extra_state": 1}, strict=False)))
        try:
            plain.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.ones(2),
                                   "_extra_state": 1})
        except RuntimeError as e:
            out.append(str(e))
        w = lib.full((2, 2), 7.0)
        old = plain.weight
        plain.load_state_dict({"weight": w, "bias": lib.ones(2)}, assign=True)
        out.append((plain.weight is old, type(plain.weight).__name__, plain.weight.requires_grad,
                    plain.weight))
        try:
            plain.load_state_dict([1])
        except TypeError as e:
            out.append(str(e))
        return out
    same(seeded(prog))


def test_state_dict_and_load_hooks():
    def prog(lib):
        log = []
        m = lib.nn.Sequential(lib.nn.Linear(1, 1))
        m.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", prefix)))
        m[0].register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: log.append(("post", prefix, list(sd), meta)))
        m[0].register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *rest: log.append(("lpre", prefix, sorted(sd))))

        def forgive_unexpected(mod, keys):
            log.append(("lpost", list(keys.unexpected_keys)))
            keys.unexpected_keys.clear()
        m.register_load_state_dict_post_hook(forgive_unexpected)
        sd = m.state_dict(prefix="p.")
        m.load_state_dict(dict(m.state_dict(), extra=lib.zeros(1)))
        log.append(list(sd))
        m.register_load_state_dict_post_hook(lambda mod, keys: 1)
        try:
            m.load_state_dict(m.state_dict())
        except AssertionError as e:
            log.append(str(e))
        log.append(warnings_of(lambda: m.state_dict(None, "q.")))
        return log
    same(seeded(prog))


def test_to_and_conversions():
    def prog(lib):
        m = Net.build(lib)
        m.register_buffer("steps", lib.tensor(3))
        m(lib.ones(1, 3)).sum().backward()
        grad, weight = m.fc.weight.grad, m.fc.weight
        out = [warnings_of(lambda: m.to(lib.complex64))]
        m.to("cpu", lib.float64)
        out.append((m.fc.weight is weight, m.fc.weight.grad is grad, grad.dtype, m.steps.dtype,
                    m.running.dtype))
        m.to(lib.zeros(1, dtype=lib.float32))
        m.to(device="cpu", dtype=lib.float16)
        out.append([p.dtype for p in m.parameters()])
        m.type(lib.float64)
        out.append([b.dtype for b in m.buffers()])
        for call in (lambda: m.to(lib.int32), lambda: m.to(lib.float64, copy=True),
                     lambda: m.to("cpu", foo=1)):
            try:
                call()
            except (TypeError, RuntimeError) as e:
                out.append(str(e))
        return out
    same(seeded(prog))
    same_error(lambda lib: lib.nn.Linear(1, 1).to("cuda"))


def test_repr_dir_and_modules():
    def prog(lib):
        class Multi(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Sequential(lib.nn.Linear(1, 1))

            def extra_repr(self):
                return "first\n\nthird"

        lin = lib.nn.Linear(1, 1)
        seq = lib.nn.Sequential(Multi(), lin, lin)
        keys = [k for k in dir(seq[0]) if k not in dir(type(seq[0]))]
        return (repr(seq), len(list(seq.modules())), len(list(seq.modules(remove_duplicate=False))),
                keys, [n for n, _ in seq.named_modules(remove_duplicate=False)])
    same(seeded(prog))


# ---- nn.utils ------------------------------------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, math.inf, 0.5])
def test_clip_grad_norm_matches_torch(norm_type):
    def prog(lib):
        lib.manual_seed(0)
        model = mlp(lib)
        model(lib.randn(3, 4)).pow(2).sum().backward()
        norm = lib.nn.utils.clip_grad_norm_(model.parameters(), 0.3, norm_type=norm_type,
                                            foreach=True)
        return norm, [p.grad for p in model.parameters()]
    ours, theirs = prog(chainrule), prog(torch)
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_edge_cases():
    def prog(lib):
        p = lib.nn.Parameter(lib.tensor([3.0, -4.0]))
        q = lib.nn.Parameter(lib.tensor([1.0]))
        out = [lib.nn.utils.clip_grad_norm_([p, q], 1.0)]          # no grads at all
        out.append(warnings_of(lambda: lib.nn.utils.clip_grad_norm_((x for x in []), 1.0)))
        p.grad = lib.tensor([3.0, -4.0])
        out.append(lib.nn.utils.clip_grad_norm_(p, 10.0))          # a single tensor, no clip
        out.append(p.grad.clone())
        out.append(lib.nn.utils.clip_grad_norm_([p, q], 1.0, norm_type="inf"))
        out.append(p.grad.clone())
        p.grad = lib.tensor([float("inf"), 1.0])
        try:
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        except RuntimeError as e:
            out.append(str(e))
        out.append(p.grad.clone())
        out.append(lib.nn.utils.clip_grad_norm_([p], 1.0))
        out.append(warnings_of(lambda: lib.nn.utils.clip_grad_norm([p], 1.0)))
        p.grad = lib.tensor([0.5, -2.0])
        lib.nn.utils.clip_grad_value_(p, 1)
        out.append(p.grad)
        out.append(lib.nn.utils.get_total_norm([lib.tensor([3.0]), lib.tensor([4.0])]))
        return out
    same(seeded(prog))


def test_vector_conversions():
    def prog(lib):
        lib.manual_seed(0)
        model = mlp(lib)
        vec = lib.nn.utils.parameters_to_vector(model.parameters())
        lib.nn.utils.vector_to_parameters(vec * 2, model.parameters())
        out = [vec, list(model.parameters()), lib.nn.utils.parameters_to_vector(lib.ones(2, 3))]
        try:
            lib.nn.utils.vector_to_parameters([1.0], model.parameters())
        except TypeError as e:
            out.append(str(e))
        return out
    same(seeded(prog))


def test_pickle_round_trip_of_modules_and_parameters():
    import pickle

    def prog(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU())
        p = T.nn.Parameter(T.tensor([1.0, 2.0]), requires_grad=False)
        m2, p2 = pickle.loads(pickle.dumps((m, p)))
        return (type(m2[0].weight).__name__, type(p2).__name__, p2.requires_grad,
                m2[0].weight.detach(), m2[0].bias.detach(), p2.detach(),
                m2(T.ones(1, 3)).detach())
    same(prog)
