"""None or a str as a Tensor method's first argument: the error PyTorch gives.

PyTorch binds every Tensor method's arguments through its argument parser, which refuses what
the declarations do not take with a TypeError naming the argument ("mm(): argument 'mat2'
(position 1) must be Tensor, not NoneType") or listing the declarations ("addmm() received
an invalid combination of arguments - got (NoneType), but expected (...)"). Every method both
libraries have (but the groups below) is called as x.m(None) and x.m('a') on x = ones(2, 3):
the exception class must be PyTorch's, and the message too but where KNOWN lists why not
(Note [Argument parser checks] in chainrule/ops/binding.py).
"""
import re
import warnings

import pytest
import torch

import chainrule

# methods not called, by group (name prefixes)
SKIPPED = {
    # private, or change the tensor's storage, metadata, autograd state or hooks
    "state": ("_", "set_", "resize", "storage", "share_memory", "pin_memory", "untyped",
              "record_stream", "register", "backward", "retain", "requires_grad_", "detach_",
              "data_ptr", "module_load", "apply_", "map", "as_subclass", "tag"),
    # fill or sample in place: None or a str is a valid value, seed or generator for some
    "fills": ("copy_", "zero_", "fill_", "uniform_", "normal_", "random_", "exponential_",
              "geometric_", "cauchy_", "log_normal_", "bernoulli_"),
    # conversions and copies to other devices, types or Python objects
    "conversions": ("to_", "cpu", "cuda", "xpu", "mps", "ipu", "hpu", "mtia", "xla", "type",
                    "clone", "contiguous", "numpy", "tolist", "item", "new_"),
    # metadata queries (their arguments are dims or formats, tested with the shape family)
    "queries": ("is_", "dim_order", "element_size", "nelement", "numel", "dim", "ndimension",
                "size", "stride", "storage_offset", "get_device"),
    # sparse layouts, quantization and named tensors (out of scope, tests/scope.py)
    "out of scope": ("sparse", "q_", "int_repr", "dequantize", "align", "refine_names",
                     "rename", "unflatten", "smm", "sspaddmm", "nonzero_static", "values",
                     "indices", "coalesce", "crow", "col", "ccol", "row", "dense_dim", "share"),
}
# the dtype conversions (float, int, ...): exact names, not prefixes (float_power is called)
CONVERSIONS = {"float", "double", "half", "int", "long", "short", "bool", "byte", "char",
               "bfloat16", "cfloat", "cdouble"}
_SKIP = tuple(p for group in SKIPPED.values() for p in group)

# PyTorch's methods without arguments are C functions taking none, whose message names the
# class as the call reached it ("Tensor.abs() takes no arguments (1 given)", TensorBase for
# x.abs(...) written out); chainrule's are Python functions with Python's own (a TypeError too)
_NO_ARGUMENTS = re.compile(r"^(Tensor|TensorBase)\.\w+\(\) takes no arguments \(1 given\)$")

_LISTING = ("PyTorch lists its declarations (Tensor other / Number other); a hot op whose "
            "method is the registry row's own wrapper, not bound with another: the row's "
            "dispatch names the argument")
# (name, value) -> why chainrule's message still differs
KNOWN = {
    **{(n + suffix, v): _LISTING for n in ("eq", "ne", "lt", "le", "gt", "ge", "pow")
       for suffix in ("", "_") for v in (None, "a")},
}


def _names():
    for name in sorted(set(dir(torch.Tensor)) & set(dir(chainrule.Tensor))):
        if (not name.startswith(_SKIP) and name not in CONVERSIONS
                and callable(getattr(torch.Tensor, name))):
            yield name


def _outcome(T, name, value):
    try:
        getattr(T.ones(2, 3), name)(value)
    except Exception as e:   # noqa: BLE001 (the exception is what is compared)
        return type(e).__name__, str(e)
    return "ok", ""


def _walk():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in _names():
            for value in (None, "a"):
                yield name, value, _outcome(torch, name, value), _outcome(chainrule, name, value)


def test_non_tensor_first_argument():
    wrong, fixed = [], []
    for name, value, theirs, ours in _walk():
        call = f"{name}({value!r})"
        if theirs[0] != ours[0]:
            wrong.append(f"{call}: torch {theirs}, chainrule {ours}")
        elif _NO_ARGUMENTS.match(theirs[1]):
            if ours[1] == theirs[1]:
                fixed.append(call)
        elif (name, value) in KNOWN:
            if ours[1] == theirs[1]:
                fixed.append(call)
        elif ours[1] != theirs[1]:
            wrong.append(f"{call}: torch {theirs}, chainrule {ours}")
    assert not wrong, "\n".join(wrong)
    assert not fixed, f"listed in KNOWN but matching now: {fixed}"


def test_known_entries_are_methods_walked():
    # a KNOWN entry for a name the walk skips, or no longer finds, cannot fail
    names = set(_names())
    assert {name for name, _ in KNOWN} <= names
    assert {"mm", "addmm", "svd", "clamp_min", "unique", "bernoulli", "chalf"} <= names


@pytest.mark.parametrize("call, message", [
    ("x.svd(True, 'a')", "svd(): argument 'compute_uv' (position 2) must be bool, not str"),
    ("x.addmm(y, beta=None)", 'addmm() missing 1 required positional arguments: "mat2"'),
    ("x.addmm(alpha=None)", "addmm() received an invalid combination of arguments - got "
                            "unrecognized keyword arguments: alpha"),
    ("x.addcmul(2, y, y, y)", "addcmul() received an invalid combination of arguments - got "
                              "(!int!, Tensor, !Tensor!, !Tensor!), but expected (Tensor "
                              "tensor1, Tensor tensor2, *, Number value = 1)"),
    ("x.float(1, 2)", "float() takes 0 positional arguments but 2 were given"),
    ("x.unique(dim='a')", "unique_dim(): argument 'dim' (position 2) must be int, not str"),
    ("x.index_put([None], y)", "expected Tensor as element 0 in argument 0, but got NoneType"),
])
def test_parser_forms(call, message):
    # the parser's other wordings the declarations above give, each checked against PyTorch
    for T in (torch, chainrule):
        x, y = T.ones(3, 3), T.ones(3, 3)
        with pytest.raises(TypeError) as info:
            eval(call)
        assert str(info.value) == message, T.__name__


def test_deprecated_order_still_runs():
    # addcmul's hidden declaration (value first) is taken (it warns once per process)
    for T in (torch, chainrule):
        x = T.ones(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert x.addcmul(2, x, x).tolist() == [3.0, 3.0]
            assert x.addcdiv_(2, x, x).tolist() == [3.0, 3.0]
