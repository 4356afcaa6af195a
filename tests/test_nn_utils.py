"""nn.utils against PyTorch: parametrize, parametrizations (orthogonal, spectral_norm,
weight_norm), the hook-based weight_norm and spectral_norm, prune, stateless, fusion,
memory_format, skip_init, clip_grad, convert_parameters and rnn's helpers: values after
manual_seed, gradients, module structure (parameters, buffers, state dicts, reprs, class
names), warnings and errors."""
import copy
import pickle

import numpy as np
import pytest
import torch.nn.utils.prune  # noqa: F401  (PyTorch loads it on demand)

from helpers import same, same_error, same_warnings


def _module_state(T, m):
    return [type(m).__name__, repr(m), sorted(dict(m.named_parameters())),
            sorted(dict(m.named_buffers())), sorted(m.state_dict())]


def _symmetric(T):
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, Z):
            return Z.triu()
    return Symmetric()


def _skew(T):
    class Skew(T.nn.Module):
        def forward(self, X):
            return X - X.mT

        def right_inverse(self, Z):
            return Z.triu(1)
    return Skew()


def _split(T):
    class Split(T.nn.Module):
        """Two originals: the tensor as a sum of halves."""
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 2, X / 2
    return Split()


# ---- parametrize ------------------------------------------------------------------------

def test_register_chain_cache_assign_remove():
    def prog(T):
        P = T.nn.utils.parametrize
        T.manual_seed(0)
        lin = T.nn.Linear(3, 3)
        weight = lin.weight
        P.register_parametrization(lin, "weight", _symmetric(T))
        out = _module_state(T, lin) + [
            P.is_parametrized(lin), P.is_parametrized(lin, "bias"),
            P.is_parametrized(lin, "weight"), P.type_before_parametrizations(lin).__name__,
            lin.parametrizations.weight.original is weight, lin.weight,
            isinstance(lin.parametrizations.weight, P.ParametrizationList)]
        y = lin(T.ones(2, 3))
        y.sum().backward()
        out += [y, lin.parametrizations.weight.original.grad]
        P.register_parametrization(lin, "weight", _skew(T))
        out += [lin.weight, repr(lin), lin.parametrizations.weight.unsafe]
        with P.cached():
            out.append(lin.weight is lin.weight)
        out.append(lin.weight is lin.weight)
        lin.weight = T.tensor([[0.0, 1, 2], [-1, 0, 3], [-2, -3, 0]])
        out += [lin.parametrizations.weight.original, lin.weight]
        P.remove_parametrizations(lin, "weight")
        out += _module_state(T, lin) + [lin.weight, lin.weight is weight,
                                        P.type_before_parametrizations(lin).__name__]
        return out
    same(prog)


def test_swap_module_params_on_conversion():
    """Under torch.__future__'s swap flag the originals are swapped in, not set_."""
    def prog(T):
        T.__future__.set_swap_module_params_on_conversion(True)
        try:
            T.manual_seed(0)
            lin = T.nn.Linear(3, 3)
            w = lin.weight
            T.nn.utils.parametrize.register_parametrization(lin, "weight", _skew(T))
            out = [lin.parametrizations.weight.original is w, w, lin.weight]
            lin.weight = T.ones(3, 3)
            out += [w, lin.parametrizations.weight.original]
            T.nn.utils.parametrize.remove_parametrizations(lin, "weight")
            return out + [lin.weight, lin.weight is w, type(lin.weight).__name__]
        finally:
            T.__future__.set_swap_module_params_on_conversion(False)
    same(prog)


def test_leave_unparametrized_and_buffers():
    def prog(T):
        P = T.nn.utils.parametrize
        T.manual_seed(0)
        bn = T.nn.BatchNorm1d(3)
        bn.running_mean.add_(T.tensor([1.0, 2, 3]))
        P.register_parametrization(bn, "running_mean", T.nn.Softplus())
        P.register_parametrization(bn, "weight", T.nn.Tanh())
        out = _module_state(T, bn) + [bn.running_mean, bn.weight]
        P.remove_parametrizations(bn, "running_mean", leave_parametrized=False)
        out += _module_state(T, bn) + [bn.running_mean]
        P.remove_parametrizations(bn, "weight")
        out += _module_state(T, bn) + [bn.weight]
        return out
    same(prog)


def test_several_originals_and_transfer():
    def prog(T):
        P = T.nn.utils.parametrize
        T.manual_seed(0)
        lin = T.nn.Linear(2, 3)
        P.register_parametrization(lin, "weight", _split(T))
        plist = lin.parametrizations.weight
        out = _module_state(T, lin) + [plist.ntensors, plist.is_tensor, plist.original0,
                                       lin.weight]
        lin.weight = T.ones(3, 2)
        out += [plist.original0, plist.original1]
        other = T.nn.Linear(2, 3)
        P.transfer_parametrizations_and_params(lin, other)
        out += _module_state(T, other) + [
            other.parametrizations.weight.original0 is plist.original0, other.weight]
        third = T.nn.Linear(2, 3)
        P.register_parametrization(lin, "bias", T.nn.Tanh())
        P.transfer_parametrizations_and_params(lin, third, "bias")
        out += _module_state(T, third)
        P.remove_parametrizations(lin, "weight")
        out += _module_state(T, lin) + [lin.weight]
        return out
    same(prog)
    same_error(lambda T: T.nn.utils.parametrize.remove_parametrizations(
        T.nn.utils.parametrize.register_parametrization(T.nn.Linear(2, 3), "weight", _split(T)),
        "weight", leave_parametrized=False))


def test_parametrization_list_and_copies():
    def prog(T):
        P = T.nn.utils.parametrize
        T.manual_seed(0)
        plist = P.ParametrizationList([_symmetric(T)], T.nn.Parameter(T.randn(3, 3)))
        lin = P.register_parametrization(T.nn.Linear(3, 3), "weight", _symmetric(T))
        dup = copy.deepcopy(lin)
        return [plist(), plist.original, type(dup).__name__, dup.weight,
                dup.parametrizations.weight.original is lin.parametrizations.weight.original]
    same(prog)
    same_error(lambda T: pickle.dumps(T.nn.utils.parametrize.register_parametrization(
        T.nn.Linear(3, 3), "weight", _symmetric(T))))


def test_parametrize_errors():
    same_error(lambda T: T.nn.utils.parametrize.register_parametrization(
        T.nn.Linear(2, 3), "missing", T.nn.Tanh()))
    same_error(lambda T: T.nn.utils.parametrize.remove_parametrizations(T.nn.Linear(2, 3),
                                                                        "weight"))
    same_error(lambda T: T.nn.utils.parametrize.ParametrizationList([], T.ones(2)))

    for change in (_first_row, _to_double):
        same_error(lambda T, change=change: T.nn.utils.parametrize.register_parametrization(
            T.nn.Linear(2, 3), "weight", change(T)))

    def no_inverse(T):
        lin = T.nn.utils.parametrize.register_parametrization(T.nn.Linear(2, 3), "weight",
                                                              T.nn.Tanh())
        lin.weight = T.ones(3, 2)
    same_error(no_inverse)


def _to_double(T):
    class ToDouble(T.nn.Module):
        def forward(self, X):
            return X.double()
    return ToDouble()


def _first_row(T):
    class FirstRow(T.nn.Module):
        def forward(self, X):
            return X[0]
    return FirstRow()


# ---- parametrizations -------------------------------------------------------------------

@pytest.mark.parametrize("orthogonal_map, shape", [
    (None, (3, 3)), ("cayley", (4, 3)), ("householder", (3, 5)), ("matrix_exp", (2, 4)),
    ("householder", (4, 2)), ("cayley", (3, 3))])
def test_orthogonal(orthogonal_map, shape):
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.Linear(shape[1], shape[0])
        T.nn.utils.parametrizations.orthogonal(lin, orthogonal_map=orthogonal_map)
        w = lin.weight
        gram = w @ w.mT if shape[0] <= shape[1] else w.mT @ w
        lin(T.ones(2, shape[1])).sum().backward()
        out = _module_state(T, lin) + [w, gram, lin.parametrizations.weight.original.grad]
        lin.weight = T.nn.init.orthogonal_(T.empty(shape))
        return out + [lin.weight]
    same(prog, atol=1e-5)


def test_orthogonal_without_trivialization_and_errors():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 4)
        T.nn.utils.parametrizations.orthogonal(lin, orthogonal_map="householder",
                                                use_trivialization=False)
        return _module_state(T, lin) + [lin.weight]
    same(prog, atol=1e-5)
    same_error(lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "bias"))
    same_error(lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "x"))
    same_error(lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3),
                                                                orthogonal_map="qr"))

    def assign(T):
        lin = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3),
                                                     use_trivialization=False)
        lin.weight = T.eye(3)
    same_error(assign)


def test_spectral_norm_parametrization():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.Linear(5, 4)
        T.nn.utils.parametrizations.spectral_norm(lin)
        sn = lin.parametrizations.weight[0]
        u = sn._u
        out = _module_state(T, lin) + [lin.weight, sn._u, sn._v]
        lin(T.ones(2, 5)).sum().backward()
        # the power method writes u and v in place (normalize's out=)
        out += [lin.parametrizations.weight.original.grad, sn._u, sn._u is u, u._version]
        lin.eval()
        out += [lin.weight, sn._u]
        conv = T.nn.ConvTranspose2d(3, 4, 2)
        T.nn.utils.parametrizations.spectral_norm(conv, n_power_iterations=3, eps=1e-6)
        bias = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3), "bias")
        return out + [conv.weight, conv.parametrizations.weight[0].dim, bias.bias]
    same(prog, atol=1e-5)
    same_error(lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3), dim=2))
    same_error(lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3),
                                                                   n_power_iterations=0))
    same_error(lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 3), "x"))


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(dim):
    def prog(T):
        T.manual_seed(0)
        conv = T.nn.Conv1d(2, 3, 2)
        T.nn.utils.parametrizations.weight_norm(conv, dim=dim)
        p = conv.parametrizations.weight
        out = _module_state(T, conv) + [p.original0, p.original1, conv.weight]
        y = conv(T.ones(1, 2, 4))
        y.sum().backward()
        return out + [y, p.original0.grad, p.original1.grad]
    same(prog)


def test_weight_norm_double_backward_as_pytorchs():
    """The fused _weight_norm_interface saves the norms and its double backward treats them
    as constants, as PyTorch's does."""
    def prog(T):
        v = T.tensor(np.arange(12.0).reshape(3, 4) / 7 - 0.5, requires_grad=True)
        g = T.tensor([[1.0], [2.0], [3.0]], dtype=T.float64, requires_grad=True)
        w = T._weight_norm(v, g, 0)
        gv, gg = T.autograd.grad((w * T.arange(12.0, dtype=T.float64).view(3, 4)).sum(),
                                 (v, g), create_graph=True)
        return [w, gv, gg, T.autograd.grad((gv ** 2).sum() + gg.sum(), (v, g))]
    same(prog, atol=1e-10)


def test_weight_norm_loads_the_old_state_dict():
    def prog(T):
        T.manual_seed(0)
        old = T.nn.utils.weight_norm(T.nn.Linear(3, 2))
        new = T.nn.utils.parametrizations.weight_norm(T.nn.Linear(3, 2))
        new.load_state_dict(old.state_dict())
        return [new.weight, old.weight, sorted(new.state_dict())]
    same(prog)


# ---- the hook-based weight_norm and spectral_norm ---------------------------------------

def test_weight_norm_hooks():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.utils.weight_norm(T.nn.Linear(5, 4), dim=None)
        out = _module_state(T, lin) + [lin.weight_g, lin.weight_v, lin.weight]
        lin(T.ones(2, 5)).sum().backward()
        out += [lin.weight_g.grad, lin.weight_v.grad]
        T.nn.utils.remove_weight_norm(lin)
        return out + _module_state(T, lin) + [lin.weight]
    same(prog)
    same_warnings(lambda T: T.nn.utils.weight_norm(T.nn.Linear(2, 2)))
    same_error(lambda T: T.nn.utils.weight_norm(T.nn.utils.weight_norm(T.nn.Linear(2, 2))))
    same_error(lambda T: T.nn.utils.weight_norm(T.nn.LazyLinear(2)))
    same_error(lambda T: T.nn.utils.remove_weight_norm(T.nn.Linear(2, 2)))


def test_spectral_norm_hooks():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.utils.spectral_norm(T.nn.Linear(4, 4))
        out = _module_state(T, lin) + [lin.weight_orig, lin.weight_u, lin.weight_v]
        lin(T.ones(2, 4)).sum().backward()
        out += [lin.weight_orig.grad, lin.weight_u, lin.weight]
        state = lin.state_dict()
        out.append(state._metadata[""])
        copy_ = T.nn.utils.spectral_norm(T.nn.Linear(4, 4))
        copy_.load_state_dict(state)
        out += [copy_.weight_u, copy_.weight_v]
        lin.eval()
        out.append(lin(T.ones(1, 4)))
        T.nn.utils.remove_spectral_norm(lin)
        conv = T.nn.utils.spectral_norm(T.nn.ConvTranspose1d(2, 3, 2))
        return out + _module_state(T, lin) + [lin.weight, conv.weight_u.shape]
    same(prog, atol=1e-5)

    def legacy(T):
        """A state dict from before the version (with the weight): its v is solved for."""
        T.manual_seed(0)
        lin = T.nn.utils.spectral_norm(T.nn.Linear(4, 4, dtype=T.float64))
        lin(T.ones(1, 4, dtype=T.float64))
        state = lin.state_dict()
        old = type(state)((k, v) for k, v in state.items() if k != "weight_v")
        old["weight"] = lin.weight.detach()
        old._metadata = {"": {"version": 1}}
        loaded = T.nn.utils.spectral_norm(T.nn.Linear(4, 4, dtype=T.float64))
        loaded.load_state_dict(old)
        return loaded.weight_v
    same(legacy)
    same_error(lambda T: T.nn.utils.spectral_norm(T.nn.utils.spectral_norm(T.nn.Linear(2, 2))))
    same_error(lambda T: T.nn.utils.spectral_norm(T.nn.Linear(2, 2, bias=False), "bias"))
    same_error(lambda T: T.nn.utils.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0))
    same_error(lambda T: T.nn.utils.remove_spectral_norm(T.nn.Linear(2, 2)))


# ---- prune ------------------------------------------------------------------------------

def test_prune_methods_compose():
    def prog(T):
        P = T.nn.utils.prune
        T.manual_seed(0)
        lin = T.nn.Linear(5, 4)
        P.random_unstructured(lin, "weight", 0.3)
        out = _module_state(T, lin) + [lin.weight, lin.weight_mask, P.is_pruned(lin)]
        P.l1_unstructured(lin, "weight", 3)
        P.ln_structured(lin, "weight", 0.25, 2, 0)
        P.random_structured(lin, "weight", 1, 1)
        P.ln_structured(lin, "weight", 1, float("inf"), -1,
                        importance_scores=T.arange(20.0).view(4, 5))
        container = list(lin._forward_pre_hooks.values())[0]
        out += [lin.weight_mask, len(container), type(container[0]).__name__,
                isinstance(container, P.PruningContainer)]
        lin(T.ones(2, 5)).sum().backward()
        out += [lin.weight_orig.grad, lin.weight]
        P.remove(lin, "weight")
        return out + _module_state(T, lin) + [lin.weight, P.is_pruned(lin)]
    same(prog)


def test_prune_global_custom_identity():
    def prog(T):
        P = T.nn.utils.prune
        T.manual_seed(0)
        net = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Linear(4, 2))
        P.global_unstructured([(net[0], "weight"), (net[1], "weight")],
                              pruning_method=P.L1Unstructured, amount=6)
        P.global_unstructured([(net[0], "bias"), (net[1], "bias")],
                              pruning_method=P.RandomUnstructured, amount=0.5,
                              importance_scores={(net[0], "bias"): T.arange(4.0)})
        P.custom_from_mask(net[0], "bias", T.tensor([1, 0, 1, 0]))
        P.identity(net[1], "bias")
        method = P.CustomFromMask(T.tensor([0.0, 1.0]))

        class EveryOther(P.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask
        EveryOther.apply(net[0], "weight")
        structured = P.LnStructured(1, 1, dim=0)
        return [net[0].weight_mask, net[1].weight_mask, net[0].bias, net[1].bias_mask,
                P.RandomUnstructured(0.5).prune(T.ones(3, 3)),
                P.L1Unstructured(2).prune(T.arange(6.0), importance_scores=-T.arange(6.0)),
                method.compute_mask(T.ones(2), T.ones(2)),
                P.Identity().compute_mask(T.ones(2), T.zeros(2)), P.is_pruned(net),
                net[0].weight_mask, structured.compute_mask(T.arange(6.0).view(2, 3),
                                                            T.ones(2, 3))]
    same(prog)


def test_prune_errors():
    for f in (lambda T: T.nn.utils.prune.random_unstructured(T.nn.Linear(2, 2), "weight", 1.5),
              lambda T: T.nn.utils.prune.random_unstructured(T.nn.Linear(2, 2), "weight", -1),
              lambda T: T.nn.utils.prune.random_unstructured(T.nn.Linear(2, 2), "weight", "a"),
              lambda T: T.nn.utils.prune.l1_unstructured(T.nn.Linear(2, 2), "weight", 5),
              lambda T: T.nn.utils.prune.random_structured(T.nn.Linear(2, 2), "bias", 1, 0),
              lambda T: T.nn.utils.prune.ln_structured(T.nn.Linear(2, 2), "weight", 1, 2, 2),
              lambda T: T.nn.utils.prune.remove(T.nn.Linear(2, 2), "weight"),
              lambda T: T.nn.utils.prune.global_unstructured(
                  1, T.nn.utils.prune.L1Unstructured, amount=1),
              lambda T: T.nn.utils.prune.global_unstructured(
                  [(T.nn.Linear(2, 2), "weight")], T.nn.utils.prune.RandomStructured,
                  amount=1),
              lambda T: T.nn.utils.prune.PruningContainer().add_pruning_method(3)):
        same_error(f)


# ---- stateless, fusion, memory format, skip_init, clip_grad, convert_parameters, rnn ----

def test_stateless_functional_call():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2)
        params = {"weight": T.ones(2, 3), "bias": T.zeros(2)}
        return [T.nn.utils.stateless.functional_call(lin, params, (T.ones(1, 3),)),
                lin.weight, T.nn.utils.stateless.functional_call(
                    lin, {"bias": T.ones(2)}, T.ones(1, 3), strict=False)]
    same(prog)
    same_warnings(lambda T: T.nn.utils.stateless.functional_call(
        T.nn.Linear(3, 2), {}, (T.ones(1, 3),)))


def test_fusion():
    def prog(T):
        T.manual_seed(0)
        conv, bn = T.nn.Conv2d(2, 3, 2), T.nn.BatchNorm2d(3)
        bn.running_mean.uniform_()
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_()
        conv.eval(), bn.eval()
        x = T.randn(1, 2, 4, 4)
        fused = T.nn.utils.fuse_conv_bn_eval(conv, bn)
        convt, bnt = T.nn.ConvTranspose2d(2, 3, 2, bias=False).eval(), T.nn.BatchNorm2d(3).eval()
        fused_t = T.nn.utils.fusion.fuse_conv_bn_eval(convt, bnt, transpose=True)
        lin, bn1 = T.nn.Linear(3, 4).eval(), T.nn.BatchNorm1d(4).eval()
        bn1.running_var.fill_(2.0)
        fused_l = T.nn.utils.fuse_linear_bn_eval(lin, bn1)
        w, b = T.nn.utils.fuse_conv_bn_weights(conv.weight, None, bn.running_mean,
                                               bn.running_var, 1e-5, None, None)
        w2, b2 = T.nn.utils.fuse_linear_bn_weights(lin.weight, None, bn1.running_mean,
                                                   bn1.running_var, 1e-5, bn1.weight, bn1.bias)
        return [fused(x), bn(conv(x)), fused_t(x), fused_l(T.ones(2, 3)), w, b, w2, b2,
                type(w).__name__, b.requires_grad, fused is conv]
    same(prog)
    same_error(lambda T: T.nn.utils.fuse_conv_bn_eval(T.nn.Conv2d(2, 3, 2), T.nn.BatchNorm2d(3)))
    same_error(lambda T: T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(2, 3).eval(),
                                                        T.nn.BatchNorm1d(2).eval()))


def test_memory_format():
    def prog(T):
        T.manual_seed(0)
        net = T.nn.Sequential(T.nn.Conv2d(2, 3, 2), T.nn.Sequential(T.nn.ConvTranspose2d(3, 2, 2)),
                              T.nn.Conv3d(2, 2, 1))
        T.nn.utils.convert_conv2d_weight_memory_format(net, T.channels_last)
        T.nn.utils.memory_format.convert_conv3d_weight_memory_format(net, T.channels_last_3d)
        return [(m.weight.stride(), m.weight) for m in (net[0], net[1][0], net[2])]
    same(prog)


def test_skip_init_leaves_the_generator_alone():
    def prog(T):
        T.manual_seed(0)
        lin = T.nn.utils.skip_init(T.nn.Linear, 3, 4, bias=False)
        return [lin.weight.shape, repr(lin), T.randn(3), type(lin).__name__]
    same(prog)
    same_error(lambda T: T.nn.utils.skip_init(int))
    same_error(lambda T: T.nn.utils.init.skip_init(T.nn.Identity))


def test_clip_grad_and_convert_parameters_modules():
    def prog(T):
        p = T.nn.Parameter(T.arange(4.0))
        p.grad = T.tensor([3.0, -4.0, 0.0, 12.0])
        total = T.nn.utils.get_total_norm([p.grad])
        T.nn.utils.clip_grads_with_norm_([p], 5.0, total)
        vec = T.nn.utils.convert_parameters.parameters_to_vector([p, p])
        T.nn.utils.convert_parameters.vector_to_parameters(vec * 2, [p])
        q = T.nn.Parameter(T.ones(2))
        q.grad = T.tensor([5.0, -7.0])
        T.nn.utils.clip_grad.clip_grad_value_(q, 1.5)
        return [total, p.grad, vec, p, q.grad,
                T.nn.utils.clip_grad.clip_grad_norm_(q, 1.0)]
    same(prog)


def test_rnn_helpers():
    same(lambda T: [T.nn.utils.rnn.bind(None, len), T.nn.utils.rnn.bind([1, 2], len),
                    T.nn.utils.rnn.PackedSequence_._fields])


def test_modules_utils():
    def prog(T):
        from importlib import import_module
        U = import_module(T.__name__ + ".nn.modules.utils")
        net = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
        state = T.nn.Sequential(net).state_dict()
        U.consume_prefix_in_state_dict_if_present(state, "0.")
        net.load_state_dict(state)
        return [sorted(state), sorted(state._metadata), U._pair(3), U._triple((1, 2, 3)),
                U._quadruple(0), U._single.__name__, U._reverse_repeat_tuple((1, 2), 2),
                U._list_with_default([None, 3], [1, 2, 5, 7])]
    same(prog)
    same_error(lambda T: __import__(T.__name__ + ".nn.modules.utils", fromlist=["x"])
               ._list_with_default([None, 3], [4]))
