"""Saved-tensor hooks and the rest of torch.autograd.graph, against PyTorch: how often pack
and unpack run and on what, values and gradients through them, PyTorch's errors, the
tutorial's patterns ("Hooks for autograd saved tensors"), multi-grad hooks and mutation of
saved tensors."""
import os
import threading
import uuid

import pytest

import chainrule
from helpers import same, same_error


def _log_hooks(T, log, pack_result=None, unpack_result=None):
    """A (pack, unpack) pair that logs what it sees: shape, requires_grad, grad_fn name."""
    def pack(x):
        log.append(("pack", tuple(x.shape), x.requires_grad,
                    None if x.grad_fn is None else x.grad_fn.name()))
        return x if pack_result is None else pack_result(x)

    def unpack(x):
        log.append(("unpack", type(x).__name__))
        return x if unpack_result is None else unpack_result(x)
    return pack, unpack


def _inputs(T):
    T.manual_seed(0)
    return T.randn(3, requires_grad=True), T.randn(3, requires_grad=True)


# ---- when pack and unpack run -------------------------------------------------------------

@pytest.mark.parametrize("case", [
    "mul", "exp", "sigmoid", "mul_number", "pow_number", "cat", "sum", "mv", "square",
    "where", "linear", "index_select", "masked_fill", "max_pool", "layer_norm"])
def test_pack_runs_once_per_saved_tensor(case):
    # outputs saved by exp / sigmoid are packed too; Python numbers and shapes are not
    def prog(T):
        a, b = _inputs(T)
        log = []
        with T.autograd.graph.saved_tensors_hooks(*_log_hooks(T, log)):
            y = {"mul": lambda: a * b, "exp": lambda: (a * b).exp(),
                 "sigmoid": lambda: T.sigmoid(a), "mul_number": lambda: a * 2,
                 "pow_number": lambda: a.pow(2), "cat": lambda: T.cat([a, b]),
                 "sum": lambda: (a + b).sum(), "mv": lambda: T.ones(2, 3) @ a,
                 "square": lambda: a * a,
                 "where": lambda: T.where(a > 0, a, 0.0),
                 "linear": lambda: T.nn.functional.linear(a, T.ones(2, 3, requires_grad=True)),
                 # tensors taken as parameters (an index, a mask) are packed too
                 "index_select": lambda: a.index_select(0, T.tensor([2, 0])),
                 "masked_fill": lambda: a.masked_fill(a > 0, 0.5),
                 "max_pool": lambda: T.nn.functional.max_pool1d(a.view(1, 1, 3), 2),
                 "layer_norm": lambda: T.nn.functional.layer_norm(a, (3,), b, b),
                 }[case]()
        y.sum().backward()
        return log, y, a.grad
    same(prog)


def test_pack_order_is_pytorchs():
    # tensor inputs by name, then outputs
    def prog(T):
        T.manual_seed(0)
        a, b, c = (T.randn(2, 3, requires_grad=True), T.randn(3, 4, requires_grad=True),
                   T.randn(4, requires_grad=True))
        log = []
        with T.autograd.graph.saved_tensors_hooks(lambda x: log.append(tuple(x.shape)) or x,
                                                  lambda x: x):
            T.addmm(c, a, b)
            T.pow(a, T.full((1, 3), 2.0, requires_grad=True))
            T.lerp(a, a * 2, T.full((3,), 0.3, requires_grad=True))
            T.atan2(a, b[:2, :3])
        return log
    same(prog)


def test_unpack_runs_on_each_use():
    def prog(T):
        a, b = _inputs(T)
        log = []
        with T.autograd.graph.saved_tensors_hooks(*_log_hooks(T, log)):
            y = (a * b).exp()
        n_forward = len(log)
        s = y.grad_fn._saved_result          # reading a saved tensor unpacks it
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return n_forward, log, s, a.grad, b.grad
    same(prog)


def test_what_pack_sees():
    # the saved tensor itself, input or output
    def prog(T):
        a, b = _inputs(T)
        c = a * 2.0
        seen = []
        with T.autograd.graph.saved_tensors_hooks(lambda x: seen.append(x) or x, lambda x: x):
            e = c.exp()
            y = a * c
        c_seen, a_seen = seen[1], seen[2]
        with T.no_grad():
            c.add_(1)
        return (seen[0] is e, c_seen is c, c_seen.grad_fn is c.grad_fn, c_seen._version,
                a_seen is a, a_seen.is_leaf, a_seen.requires_grad, a_seen._base is None, y)
    same(prog)


def test_unpacked_tensors_carry_the_saved_autograd_metadata():
    def prog(T):
        a, b = _inputs(T)
        c = a * 2.0
        with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            y = a * c
            e = c.exp()
        s, o, r = y.grad_fn._saved_self, y.grad_fn._saved_other, e.grad_fn._saved_result
        return (s, s.is_leaf, s is a, o, o.grad_fn, o is c, r, r.grad_fn is e.grad_fn, r is e)
    same(prog)


def test_pack_and_unpack_grad_modes():
    # pack runs without grad mode; unpack in the backward's (create_graph) mode
    def prog(T):
        a, b = _inputs(T)
        log = []
        hooks = (lambda x: log.append(("pack", T.is_grad_enabled())) or x,
                 lambda x: log.append(("unpack", T.is_grad_enabled())) or x)
        with T.autograd.graph.saved_tensors_hooks(*hooks):
            y = a * b
        ga, = T.autograd.grad(y.sum(), a, create_graph=True)
        with T.autograd.graph.saved_tensors_hooks(*hooks):
            z = a.exp()
        z.sum().backward()
        return log, ga
    same(prog)


def test_pack_returning_another_object():
    # the tutorial: pack keeps x * 4, unpack divides by 4; values and gradients unchanged
    def prog(T):
        a, b = _inputs(T)
        with T.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
            y = a * b
            z = (y * y).sigmoid()
        saved = y.grad_fn._saved_self
        z.sum().backward()
        return saved, saved.grad_fn, a.grad, b.grad
    same(prog)


def test_pack_returning_a_non_tensor():
    def prog(T):
        a, b = _inputs(T)
        store = {}

        def pack(x):
            key = len(store)
            store[key] = x.clone()
            return key
        with T.autograd.graph.saved_tensors_hooks(pack, lambda k: store[k]):
            y = (a * b).tanh()
        y.sum().backward()
        return len(store), a.grad, b.grad
    same(prog)


def test_hooks_do_not_check_versions():
    # PyTorch cannot see the version through the hooks: no "modified by an inplace" error
    def prog(T):
        a, _ = _inputs(T)
        with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            d = a.clone()
            y = d * d
        d.add_(1)
        y.sum().backward()
        return a.grad
    same(prog)


def test_inner_hooks_win_and_outer_hooks_come_back():
    def prog(T):
        a, _ = _inputs(T)
        log = []
        with T.autograd.graph.saved_tensors_hooks(lambda x: log.append("outer") or x,
                                                  lambda x: log.append("outer unpack") or x):
            with T.autograd.graph.saved_tensors_hooks(lambda x: log.append("inner") or x,
                                                      lambda x: log.append("inner unpack") or x):
                y = a.exp()
            z = a.sin()
        (y + z).sum().backward()
        return log
    same(prog)


def test_hooks_are_thread_local():
    def prog(T):
        log = []

        def worker():
            b = T.ones(3, requires_grad=True)
            (b * b).sum().backward()
            log.append("thread done")
        with T.autograd.graph.saved_tensors_hooks(lambda x: log.append("pack") or x,
                                                  lambda x: x):
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        return log
    same(prog)


def test_custom_function_saves_through_the_hooks():
    def prog(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                out = x * y
                ctx.save_for_backward(x, out, None)
                return out

            @staticmethod
            def backward(ctx, g):
                x, out, none = ctx.saved_tensors
                return g * out / x, g * x
        a, b = _inputs(T)
        c = a * 1.0
        log = []
        with T.autograd.graph.saved_tensors_hooks(*_log_hooks(T, log)):
            o = F.apply(c, b)
            F.apply(T.ones(3), T.ones(3))       # records nothing: nothing is packed
        raw = o.grad_fn._raw_saved_tensors
        info = (len(raw), raw[2].data, raw[0].unpack_hook is not None, raw[1].data)
        o.sum().backward()
        return log, info, a.grad, b.grad
    same(prog)


def test_module_forward_under_hooks():
    # the tutorial: hooks around a module's forward (here a small MLP)
    def prog(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.ReLU(), T.nn.Linear(3, 1))
        x = T.randn(5, 4)
        log = []
        with T.autograd.graph.saved_tensors_hooks(*_log_hooks(T, log)):
            y = model(x)
        y.sum().backward()
        return log, y, [p.grad for p in model.parameters()]
    same(prog)


def test_hooks_inside_a_module_forward():
    def prog(T):
        log = []
        pack, unpack = _log_hooks(T, log)

        class Model(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.linspace(-1, 1, 5))

            def forward(self, x):
                with T.autograd.graph.saved_tensors_hooks(pack, unpack):
                    h = self.w * x
                return (h * h).sum()       # saved outside the hooks: not packed
        m = Model()
        m(T.ones(5)).backward()
        return log, m.w.grad
    same(prog)


def test_save_to_disk(tmp_path):
    # the tutorial's pattern: tensors above a size go to disk, read back on unpack
    def prog(T):
        class SelfDeletingTempFile:
            def __init__(self):
                self.name = os.path.join(str(tmp_path), str(uuid.uuid4()))

            def __del__(self):
                os.remove(self.name)

        def pack_hook(x):
            if x.numel() < 5:
                return x
            temp_file = SelfDeletingTempFile()
            T.save(x, temp_file.name)
            return temp_file

        def unpack_hook(tensor_or_file):
            if isinstance(tensor_or_file, T.Tensor):
                return tensor_or_file
            return T.load(tensor_or_file.name)
        T.manual_seed(0)
        a = T.randn(6, requires_grad=True)
        b = T.randn(3, requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = (a * a).sum() + (b * b).sum()
        files = len(os.listdir(tmp_path))
        y.backward()
        return files, a.grad, b.grad
    ours = same(prog)[0]
    assert ours[0] == 2
    assert not os.listdir(tmp_path)        # the graph is freed, and the files with it


def test_save_on_cpu():
    def prog(T):
        a, b = _inputs(T)
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            y = (a * b).exp()
        with T.autograd.graph.save_on_cpu(pin_memory=True):
            z = (a * b).sin()
        saved = y.grad_fn._raw_saved_result.data
        (y + z).sum().backward()
        return saved[0], saved[1], a.grad, b.grad
    same(prog)


# ---- errors -------------------------------------------------------------------------------

def test_pack_modifying_its_input_in_place():
    def prog(T):
        c = T.ones(3, requires_grad=True) * 2
        with T.autograd.graph.saved_tensors_hooks(lambda x: x.mul_(2), lambda x: x):
            c * c
    same_error(prog)


def test_unpack_returning_a_non_tensor():
    def prog(T):
        a, b = _inputs(T)
        with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 1):
            y = a * b
        y.sum().backward()
    same_error(prog)


def test_disable_saved_tensors_hooks():
    def set_inside(T):
        with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass

    def disable_inside(T):
        with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            with T.autograd.graph.disable_saved_tensors_hooks("hooks were set"):
                pass

    def nested(T):
        with T.autograd.graph.disable_saved_tensors_hooks("outer"):
            with T.autograd.graph.disable_saved_tensors_hooks("inner"):
                pass
            with T.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    for prog in (set_inside, disable_inside, nested):
        same_error(prog)

    def after(T):       # leaving the context allows hooks again
        with T.autograd.graph.disable_saved_tensors_hooks("x"):
            pass
        with T.autograd.graph.saved_tensors_hooks(lambda x: x * 2, lambda x: x / 2):
            y = T.ones(2, requires_grad=True).exp()
        return y.grad_fn._saved_result
    same(after)


# ---- SavedTensor: grad_fn._raw_saved_* -----------------------------------------------------

def test_raw_saved_tensor_register_hooks():
    def prog(T):
        a, b = _inputs(T)
        c = a * 2.0
        log = []
        y = c.exp()
        raw = y.grad_fn._raw_saved_result
        before = (type(raw).__name__, type(raw).__module__, raw.data, raw.unpack_hook)
        raw.register_hooks(lambda x: log.append(("pack", x.requires_grad)) or x * 4,
                           lambda x: log.append("unpack") or x / 4)
        after = (raw.data, raw.unpack_hook is not None, y.grad_fn._saved_result)
        z = a * b      # an input: pack sees it detached; unpack gives it its leaf back
        z.grad_fn._raw_saved_self.register_hooks(
            lambda x: log.append(("pack input", x.requires_grad, x.is_leaf)) or x, lambda x: x)
        (y.sum() + z.sum()).backward()
        return before, after, log, a.grad, b.grad, isinstance(raw, T.autograd.SavedTensor)
    same(prog)


def test_raw_saved_tensor_views_of_saved_values():
    def prog(T):
        a, b = _inputs(T)
        y = a * b
        w = a * 2.0              # the number is saved as a wrapped float64 0-d tensor
        return (y.grad_fn._raw_saved_self.data, y.grad_fn._raw_saved_self.unpack(),
                y.grad_fn._raw_saved_self.unpack() is a, w.grad_fn._raw_saved_other.data,
                w.grad_fn._saved_other)
    same(prog)


@pytest.mark.parametrize("case", ["twice", "none", "freed", "not_callable", "create",
                                  "unpack_output", "unpack_freed", "ctx_freed"])
def test_raw_saved_tensor_errors(case):
    def prog(T):
        a, b = _inputs(T)
        if case == "twice":
            y = a * b
            raw = y.grad_fn._raw_saved_self
            raw.register_hooks(lambda x: x, lambda x: x)
            raw.register_hooks(lambda x: x, lambda x: x)
        elif case == "none":
            class F(T.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(None)
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2
            y = F.apply(a)       # kept alive: PyTorch's SavedTensor refers into its node
            y.grad_fn._raw_saved_tensors[0].register_hooks(lambda x: x, lambda x: x)
        elif case == "freed":
            y = a.exp()
            y.sum().backward()
            y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
        elif case == "not_callable":
            # pybind's message names the object's address: compare the part before it
            y = a.exp()
            try:
                y.grad_fn._raw_saved_result.register_hooks(1, 2)
            except TypeError as e:
                raise TypeError(str(e).split("Invoked with")[0])
        elif case == "create":
            T.autograd.SavedTensor()
        elif case == "unpack_output":
            y = a.exp()
            y.grad_fn._raw_saved_result.unpack()
        elif case == "unpack_freed":
            y = a * b
            raw = y.grad_fn._raw_saved_self
            y.sum().backward()
            assert raw.data is None
            raw.unpack()
        else:
            class G(T.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2
            y = G.apply(a)
            y.sum().backward()
            y.grad_fn._raw_saved_tensors
    same_error(prog)


def test_raw_saved_tensor_of_a_tensor_parameter():
    def prog(T):
        a, _ = _inputs(T)
        y = a.index_select(0, T.tensor([2, 0]))
        raw = y.grad_fn._raw_saved_index
        before = (raw.data, raw.unpack())
        raw.register_hooks(lambda x: x + 1, lambda x: x - 1)
        after = (raw.data, y.grad_fn._saved_index)
        y.sum().backward()
        return before, after, a.grad
    same(prog)


def test_advanced_indexing_packs_its_index_tensors():
    def prog(T):
        T.manual_seed(0)
        x = T.randn(3, 4, requires_grad=True)
        log = []
        with T.autograd.graph.saved_tensors_hooks(lambda t: log.append(tuple(t.shape)) or t,
                                                  lambda t: log.append("unpack") or t):
            z = x[T.tensor([0, 2]), T.tensor([1, 1])]
            w = x[:, T.tensor([1, 3])]
            m = x[x > 0]
        saved = (z.grad_fn._saved_indices, w.grad_fn._saved_indices)
        (z.sum() + w.sum() + m.sum()).backward()
        z2 = x[T.tensor([0, 2]), T.tensor([1, 1])]
        raw = z2.grad_fn._raw_saved_indices
        before = (type(raw).__name__, raw[0].data, raw[1].unpack())
        raw[0].register_hooks(lambda t: t + 1, lambda t: t - 1)
        w2 = x[:, T.tensor([1, 3])]       # kept alive: PyTorch's SavedTensor points into it
        after = (raw[0].data, z2.grad_fn._saved_indices,
                 w2.grad_fn._raw_saved_indices[0].data)
        z2.sum().backward()
        return log, saved, before, after, x.grad
    same(prog)


def test_no_raw_saved_for_a_number_parameter():
    same_error(lambda T: T.ones(2, requires_grad=True).pow(2).grad_fn._raw_saved_exponent)


# ---- register_multi_grad_hook -------------------------------------------------------------

def test_register_multi_grad_hook_all():
    # the docstring's example, then autograd.grad
    def prog(T):
        T.manual_seed(0)
        a = T.rand(2, 3, requires_grad=True)
        b = T.rand(2, 3, requires_grad=True)
        c = a * b
        d = a * b
        log = []
        handle = T.autograd.graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: log.append([g is not None for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        T.autograd.grad(c.sum(), (c,), retain_graph=True)
        handle.remove()
        c.sum().backward(retain_graph=True)
        return log, type(handle).__name__
    same(prog)


def test_register_multi_grad_hook_any_and_errors():
    def prog(T):
        a, b = _inputs(T)
        c = a * b
        log = []
        T.autograd.graph.register_multi_grad_hook((a, b, c), lambda g: log.append(g),
                                                  mode="any")
        (c * 2).sum().backward()
        return log
    same(prog)
    same_error(lambda T: T.autograd.graph.register_multi_grad_hook(
        (T.ones(1, requires_grad=True),), print, mode="some"))

    def leaf_in_grad(T):
        a, b = _inputs(T)
        c = a * b
        T.autograd.graph.register_multi_grad_hook((a, b, c), print)
        T.autograd.grad(c.sum(), (b,))
    same_error(leaf_in_grad)


# ---- allow_mutation_on_saved_tensors ------------------------------------------------------

def test_allow_mutation_on_saved_tensors():
    def prog(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = T.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            counts = (len(ctx.cloned), len(ctx.original))
            out.sum().backward()
        return counts, len(ctx.cloned), a.grad, b
    same(prog)

    def nested(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            with T.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    same_error(nested)

    def outside(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            a = T.ones(2, requires_grad=True)
            out = (a.clone() ** 2).sum()
        out.backward()
    same_error(outside)


@pytest.mark.parametrize("mutation", ["add_", "copy_", "setitem", "zero_", "view_mul_",
                                      "fill_", "clamp_"])
def test_allow_mutation_clones_before_each_kind_of_write(mutation):
    # a write through a view of another data pointer is not seen, as in PyTorch
    def prog(T):
        mutate = {"add_": lambda b: b.add_(1), "copy_": lambda b: b.copy_(T.zeros(2, 3)),
                  "setitem": lambda b: b.__setitem__(0, 5.), "zero_": lambda b: b.zero_(),
                  "view_mul_": lambda b: b[1].mul_(3), "fill_": lambda b: b.fill_(2),
                  "clamp_": lambda b: b.clamp_(0, 0.5)}[mutation]
        with T.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = T.linspace(0, 1, 6).view(2, 3).requires_grad_()
            b = a.clone()
            out = (b ** 2).sum()
            mutate(b)
            counts = (len(ctx.cloned), len(ctx.original))
            out.backward()
        return counts, a.grad
    same(prog)


def test_mutation_without_the_context_still_fails():
    def prog(T):
        a = T.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
    same_error(prog)


# ---- the small names ----------------------------------------------------------------------

def test_gradient_edge_and_increment_version():
    def prog(T):
        a, b = _inputs(T)
        c = a * b
        edge = T.autograd.graph.get_gradient_edge(c)
        leaf = T.autograd.graph.get_gradient_edge(a)
        x = T.ones(3)
        T.autograd.graph.increment_version(x)
        v1 = x._version
        T.autograd.graph.increment_version([x, x])
        g, = T.autograd.grad(c.sum(), edge)
        made = T.autograd.graph.GradientEdge(c.grad_fn, 0)
        g2, = T.autograd.grad(c.sum(), made)
        return (edge.node, edge.output_nr, edge.ownership_token, len(edge), type(edge).__name__,
                made == edge, g2, list(edge._asdict()), edge._replace(output_nr=1).output_nr,
                edge._fields, leaf.node, v1, x._version, g,
                isinstance(edge, tuple), isinstance(c.grad_fn, T.autograd.graph.Node))
    same(prog)
    same_error(lambda T: T.autograd.graph.get_gradient_edge(T.ones(2)))


@pytest.mark.parametrize("budget", [True, 1.5, -0.1, 0.5, "x"])
def test_region_activation_memory_budget(budget):
    same_error(lambda T: T.autograd.graph.region_activation_memory_budget(budget))


@pytest.mark.parametrize("name", ["set_warn_on_accumulate_grad_stream_mismatch",
                                  "set_override_stale_capture_stream"])
def test_stream_settings(name):
    def prog(T):
        f = getattr(T.autograd.graph, name)
        return f(True), f(False)
    same(prog)
    same_error(lambda T: getattr(T.autograd.graph, name)(1))


def test_no_hooks_path_has_one_check_per_node():
    # while no thread has hooks, recording a node reads one empty module-level list
    from chainrule.autograd import graph
    assert graph.HOOKED == []
    with chainrule.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        assert len(graph.HOOKED) == 1
    assert graph.HOOKED == []
    y = chainrule.ones(2, requires_grad=True).exp()
    assert type(y.grad_fn._saved["result"]).__name__ == "SavedOutput"
