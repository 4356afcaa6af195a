"""nn.Module, containers, layers, losses, init and utils, compared with PyTorch 2.13."""
import math
from collections import OrderedDict

import numpy as np
import pytest
import torch

import chainrule
from chainrule import nn


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
