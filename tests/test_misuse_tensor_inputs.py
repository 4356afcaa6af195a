"""None or a number where a function takes a Tensor first: the error PyTorch gives.

PyTorch's argument parser refuses a non-Tensor input with a TypeError naming the argument
("real(): argument 'input' (position 1) must be Tensor, not NoneType"); a function written in
Python fails in its own way. Every public function of the namespaces below that both libraries
have is called with None and with 2.5 as its only argument, and chainrule's exception class
and message must be PyTorch's (Note [Argument parser checks] in chainrule/ops/binding.py).
"""
import re
import warnings

import pytest
import torch

import chainrule
from helpers import same, same_error

NAMESPACES = {
    "torch": (torch, chainrule),
    "torch.nn.functional": (torch.nn.functional, chainrule.nn.functional),
    "torch.linalg": (torch.linalg, chainrule.linalg),
    "torch.special": (torch.special, chainrule.special),
    "torch.fft": (torch.fft, chainrule.fft),
}

# names (prefixes) not called, by group
SKIPPED = {
    # change global state (seeds, defaults, flags, thread counts) or wait on it
    "state": ("set_", "manual_seed", "seed", "initial_seed", "use_deterministic",
              "get_", "wait", "fork", "init_num_threads", "clear_autocast_cache"),
    # build tensors or other objects from scratch: None or a number is a valid size, value
    # or fill for many of them, and they are tested with their own families
    "creation": ("empty", "zeros", "ones", "rand", "full", "tensor", "as_tensor", "arange",
                 "range", "linspace", "logspace", "eye", "asarray", "from_numpy", "frombuffer",
                 "from_file", "scalar_tensor", "complex", "polar", "tril_indices",
                 "triu_indices", "hamming", "hann", "bartlett", "blackman", "kaiser",
                 "randperm", "randint", "normal", "poisson", "bernoulli", "multinomial",
                 "fftfreq", "rfftfreq", "load", "save"),
    # take a sequence of tensors or any Python value first, not one Tensor
    "not a tensor first": ("is_", "typename", "can_cast", "promote_types", "result_type",
                           "broadcast_shapes", "broadcast_tensors", "atleast", "block_diag",
                           "cartesian_prod", "meshgrid", "einsum", "stack", "cat", "concat",
                           "hstack", "vstack", "dstack", "column_stack", "row_stack",
                           "chain_matmul", "align_tensors", "multi_dot", "unravel_index",
                           "split", "lu_unpack", "sym_", "cond", "vmap", "while_loop",
                           "compile", "autocast", "no_grad", "enable_grad", "inference_mode",
                           "set_grad_enabled", "export", "jit", "device", "dtype", "finfo",
                           "iinfo", "layout", "memory_format", "quantize", "dequantize",
                           "fake"),
}
_SKIP = tuple(p for group in SKIPPED.values() for p in group)

# differences not fixed, with the reason (none now; the test fails when an entry matches)
KNOWN = {}

# Python's own errors for a call with too few (or too many) arguments: PyTorch's parser words
# them differently, with the same class (out of scope here: the declarations fix them)
_ARITY = re.compile(r"missing \d+ required (positional|keyword-only) argument"
                    r"|takes \d+ positional arguments? but \d+ (was|were) given")


def _names(module, ours):
    for name in sorted(set(dir(module)) & set(dir(ours))):
        f = getattr(module, name)
        if (name[0].islower() and callable(f) and not isinstance(f, type)
                and not name.startswith(_SKIP) and not hasattr(f, "__path__")
                and callable(getattr(ours, name)) and not type(f).__name__ == "module"):
            yield name


def _outcome(f, value):
    try:
        f(value)
    except Exception as e:   # noqa: BLE001 (the exception is what is compared)
        return type(e).__name__, str(e)
    return "ok", ""


def _differs(theirs, ours):
    if theirs == ours:
        return False
    if theirs[0] == ours[0] == "TypeError" and _ARITY.search(ours[1]):
        return False
    return True


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_non_tensor_first_argument(namespace):
    module, ours = NAMESPACES[namespace]
    wrong, fixed = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in _names(module, ours):
            key = f"{namespace}.{name}"
            for value in (None, 2.5):
                theirs, got = _outcome(getattr(module, name), value), _outcome(
                    getattr(ours, name), value)
                if _differs(theirs, got):
                    if key not in KNOWN:
                        wrong.append(f"{name}({value!r}): torch {theirs}, chainrule {got}")
                elif key in KNOWN and value is None:
                    fixed.append(key)
    assert not wrong, "\n".join(wrong)
    assert not fixed, f"listed in KNOWN but matching now: {fixed}"


def test_namespaces_are_walked():
    # the walk finds the functions it is meant to check (a filter that drops them all passes)
    names = set(_names(torch, chainrule))
    assert {"real", "reshape", "conj", "where", "trapezoid", "svd"} <= names
    assert "relu" in set(_names(torch.nn.functional, chainrule.nn.functional))
    assert "svd" in set(_names(torch.linalg, chainrule.linalg))


def _aten_optional_tensors():
    """{op name with overload, and without: names of its `Tensor?` arguments}; an op named
    without its overload takes those of all its overloads."""
    optional = {}
    for s in torch._C._jit_get_all_schemas():
        name = s.name.replace("aten::", "")
        names = {a.name for a in s.arguments if str(a.type).startswith("Optional[Tensor]")}
        optional.setdefault(name, set()).update(names)
        optional[name + ("." + s.overload_name if s.overload_name else "")] = names
    return optional


def test_rows_take_none_where_aten_does():
    # dispatch refuses None for a row's input unless it is optional (a default, or op()'s
    # `optional=`): each of PyTorch's `Tensor?` inputs of an op with a row must be optional
    from chainrule.ops.registry import OPS
    optional = _aten_optional_tensors()
    wrong = [f"{name}: {n}" for name, row in OPS.items()
             for i, n in enumerate(row.inputs)
             if n in optional.get(name, optional.get(name.split(".")[0], ()))
             and i not in row.optional_inputs]
    assert sum(name in optional for name in OPS) > 500
    assert not wrong, wrong


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2, 3).mm(None), lambda T: T.mm(T.ones(2, 3), None),
    lambda T: T.ones(2).dot(None), lambda T: T.ones(2).hypot(None),
    lambda T: T.ones(2).heaviside_(None), lambda T: T.ones(2).copy_(None),
    lambda T: T.ones(2).copy_("a"), lambda T: T.ones(2).add_(None), lambda T: T.ones(2).atan2("a"),
    lambda T: T.nn.functional.conv1d(T.ones(1, 1, 3), None)])
def test_none_for_a_required_tensor_input(call):
    # the position counts after self in a method call, from the input in a function call
    same_error(call)


def test_none_for_an_optional_tensor_input_runs():
    same(lambda T: (T.conv1d(T.ones(1, 1, 3), T.ones(1, 1, 2), None),
                    T.native_layer_norm(T.ones(2, 3), [3], None, None, 1e-5)[0],
                    T.ones(2).copy_(other=T.zeros(2))))
