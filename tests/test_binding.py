"""The argument-binding kinds of chainrule.ops.binding (Note [Argument parser checks]) take
and refuse what PyTorch's parser does, with its messages: each value is passed to a PyTorch
function declaring that kind and to a Signature of the same declaration."""
import numpy as np
import pytest
import torch

import chainrule
from chainrule.ops.binding import Signature

# (PyTorch call with the value in the checked place, the Signature, arguments before it)
DECLARATIONS = {
    "int[2]": (lambda v: torch.max_pool2d(torch.ones(1, 1, 4, 4), v),
               "max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[])"),
    "int": (lambda v: torch.chunk(torch.ones(4), v), "chunk(Tensor input, int chunks, int dim=0)"),
    "Scalar": (lambda v: torch.hardshrink(torch.ones(4), v),
               "hardshrink(Tensor input, Scalar lambd=0.5)"),
    "int[]": (lambda v: torch.permute(torch.ones(1, 1), v), "permute(Tensor input, int[] dims)"),
    "float": (lambda v: torch.dropout(torch.ones(4), v, False),
              "dropout(Tensor input, float p, bool train)"),
    "bool": (lambda v: torch.dropout(torch.ones(4), 0.5, v),
             "dropout(Tensor input, float p, bool train)"),
    "Tensor": (lambda v: torch.select_scatter(torch.ones(4), v, 0, 0),
               "select_scatter(Tensor input, Tensor src, int dim, SymInt index)"),
}
POSITION = {"Scalar": 1, "int[]": 1, "int[2]": 1, "int": 1, "float": 1, "bool": 2, "Tensor": 1}

VALUES = [2, True, False, 2.0, 0.5, 1j, None, "a", np.int64(2), np.bool_(True), np.float32(0.5),
          (2, 2), (2, True), (True, 2), (2.0,), (2, 2.0), (None,), [2, np.int64(2)], (), [],
          torch.Size([2, 2]), "tensor(2)", "tensor(2.)", "tensor(True)", "tensor([2])",
          "tensor([2, 2])", "tensor(0.5)", ("tensor(2)", 2), ("tensor(2.)", 2)]


def _value(v, T):
    if isinstance(v, str) and v.startswith("tensor("):
        return eval("T." + v, {"T": T})
    if isinstance(v, tuple):
        return tuple(_value(e, T) for e in v)
    return v


@pytest.mark.parametrize("kind", list(DECLARATIONS))
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_kind_matches_pytorch(kind, value):
    call, text = DECLARATIONS[kind]
    try:
        call(_value(value, torch))
        theirs = None
    except TypeError as e:
        theirs = str(e)
    except Exception:  # refused by the op after binding: taken by the parser
        theirs = None
    sig = Signature(text)
    args = [chainrule.ones(4)] + [0.5] * POSITION[kind]
    args[POSITION[kind]] = _value(value, chainrule)
    try:
        sig.check(*args)
        ours = None
    except TypeError as e:
        ours = str(e)
    assert ours == theirs


def test_keyword_arguments_have_no_position():
    def chunk(input, chunks, dim=0):
        return "called"
    bound = Signature("chunk(Tensor input, int chunks, int dim=0)").bind(chunk)
    assert bound(chainrule.ones(4), 2, dim=0) == "called"
    with pytest.raises(TypeError) as ours:
        bound(chainrule.ones(4), 2, dim=True)
    with pytest.raises(TypeError) as theirs:
        torch.chunk(torch.ones(4), 2, dim=True)
    assert str(ours.value) == str(theirs.value) == "chunk(): argument 'dim' must be int, not bool"


def test_method_positions_do_not_count_self():
    def chunk(self, chunks, dim=0):
        return "called"
    bound = Signature("chunk(Tensor input, int chunks, int dim=0)").bind(chunk, method=True)
    with pytest.raises(TypeError) as ours:
        bound(chainrule.ones(4), True)
    with pytest.raises(TypeError) as theirs:
        torch.ones(4).chunk(True)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("value", [1, None, "tensor(2)", ("tensor(2)", 1.0), ["tensor(2)", True],
                                   ("tensor(2)", "tensor(2)"), []], ids=repr)
def test_tensor_list_matches_pytorch(value):
    def lstm_cell(input, hx, w_ih, w_hh):
        return "called"
    bound = Signature("lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh)").bind(
        lstm_cell)
    h, w = torch.ones(1, 1), torch.ones(4, 1)
    try:
        torch.lstm_cell(h, _value(value, torch), w, w)
        theirs = None
    except TypeError as e:
        theirs = str(e)
    except (RuntimeError, IndexError):      # taken by the parser
        theirs = None
    try:
        bound(chainrule.ones(1, 1), _value(value, chainrule), chainrule.ones(4, 1),
              chainrule.ones(4, 1))
        ours = None
    except TypeError as e:
        ours = str(e)
    assert ours == theirs


@pytest.mark.parametrize("value", ["tanh", 1, None, True, "tensor(2)"], ids=repr)
def test_str_matches_pytorch(value):
    def gelu(input, *, approximate="none"):
        return "called"
    bound = Signature("gelu(Tensor input, *, str approximate='none')").bind(gelu)
    try:
        torch._C._nn.gelu(torch.ones(2), approximate=_value(value, torch))
        theirs = None
    except TypeError as e:
        theirs = str(e)
    try:
        bound(chainrule.ones(2), approximate=_value(value, chainrule))
        ours = None
    except TypeError as e:
        ours = str(e)
    assert ours == theirs


@pytest.mark.parametrize("prog", [
    lambda T: T.linalg.vander(T.ones(3), 2), lambda T: T.chunk(T.ones(3), 2, 0, 1),
    lambda T: T.ones(3).chunk(2, 0, 1), lambda T: T.ones(3).unfold(0, 1, 1, 1),
], ids=["keyword-only parameter", "function", "method", "all required"])
def test_too_many_positional_arguments(prog):
    from helpers import same_error
    same_error(prog)
