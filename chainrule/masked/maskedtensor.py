"""MaskedTensor: a tensor's data with a bool mask of which elements are specified.

PyTorch's MaskedTensor is a Tensor subclass that intercepts every operator through
__torch_function__/__torch_dispatch__. chainrule has no such dispatch, so this MaskedTensor is
a class of its own (not a chainrule.Tensor): its methods and operators follow PyTorch's
(unary ops keep the mask; binary ops need matching masks; reductions give a MaskedTensor
whose mask says whether anything was reduced; views apply to data and mask alike), and the
torch.masked functions accept it. chainrule's top-level functions (`torch.sin(mt)`) do not:
they raise TypeError. A MaskedTensor made with requires_grad=True holds a leaf; its `.grad`
is a MaskedTensor with the same mask."""
import warnings

import chainrule as torch
from . import _ops

__all__ = ["MaskedTensor", "is_masked_tensor", "masked_tensor", "as_masked_tensor"]

_PROTOTYPE = ("The PyTorch API of MaskedTensors is in prototype stage and will change in the "
              "near future. Please open a Github issue for features requests and see our "
              "documentation on the torch.masked module for further information about the "
              "project.")
_SUPPORTED = ("float16", "float32", "float64", "bool", "int8", "int16", "int32", "int64")


def is_masked_tensor(obj, /):
    """Whether `obj` is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


def _tensors_match(a, b):
    if a.dtype != b.dtype:
        b = b.type(a.dtype)
    return a.dim() == b.dim() and bool(torch.eq(a, b).all().item())


def _masks_match(a, b):
    if is_masked_tensor(a) and is_masked_tensor(b):
        return _tensors_match(a.get_mask(), b.get_mask())
    return True


def _masked_tensor_str(data, mask, formatter):
    if data.dim() == 1:
        items = [d.item() for d in data]
        formatted = [formatter.format(v) if isinstance(v, float) else str(v) for v in items]
        hidden = [not bool(m) for m in mask.tolist()]
        max_len = max(8 if h else len(e) for e, h in zip(formatted, hidden))
        return "[" + ", ".join("--".rjust(max_len) if h else e
                               for e, h in zip(formatted, hidden)) + "]"
    subs = [_masked_tensor_str(d, m, formatter) for d, m in zip(data, mask)]
    subs = ["\n".join("  " + line for line in s.split("\n")) for s in subs]
    return "[\n" + ",\n".join(subs) + "\n]"


class MaskedTensor:
    """`data` whose elements are specified where `mask` is True."""
    __module__ = "torch.masked.maskedtensor.core"
    __array_priority__ = 1000     # NumPy scalars defer to our operators

    def __init__(self, data, mask, requires_grad=False):
        if is_masked_tensor(data) or not isinstance(data, torch.Tensor):
            raise TypeError("data must be a Tensor")
        if is_masked_tensor(mask) or not isinstance(mask, torch.Tensor):
            raise TypeError("mask must be a Tensor")
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn("It is not recommended to create a MaskedTensor with a tensor that "
                          "requires_grad. To avoid this, you can use data.detach().clone()",
                          UserWarning, stacklevel=2)
        if data.layout != mask.layout:
            raise TypeError("data and mask must have the same layout.")
        data, mask = data.clone(), mask.clone()
        if requires_grad:
            data = data.detach().requires_grad_()
        self._set_data_mask(data, mask)

    @classmethod
    def _wrap(cls, data, mask):
        """A MaskedTensor over `data` itself (its autograd history kept), as PyTorch's
        differentiable constructor."""
        mt = object.__new__(cls)
        warnings.warn(_PROTOTYPE, UserWarning, stacklevel=3)
        if data.requires_grad:
            warnings.warn("It is not recommended to create a MaskedTensor with a tensor that "
                          "requires_grad. To avoid this, you can use data.detach().clone()",
                          UserWarning, stacklevel=3)
        mt._set_data_mask(data, mask)
        return mt

    def _set_data_mask(self, data, mask):
        self._masked_data = data
        self._masked_mask = mask
        if mask.dtype != torch.bool:
            raise TypeError("mask must have dtype bool.")
        if str(data.dtype).split(".")[1] not in _SUPPORTED:
            raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if data.size() != mask.size():
            raise ValueError("data.size() must equal mask.size()")

    # ---- the parts ---------------------------------------------------------------------

    def get_data(self):
        """The data, masked-out elements included (their values mean nothing)."""
        return self._masked_data

    def get_mask(self):
        """The bool mask: True where an element is specified."""
        return self._masked_mask

    def to_tensor(self, value):
        """A Tensor with the masked-out elements set to `value`."""
        return self.get_data().masked_fill(~self.get_mask(), value)

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return False

    @property
    def is_sparse(self):
        return False

    # ---- tensor metadata ---------------------------------------------------------------

    shape = property(lambda self: self._masked_data.shape)
    dtype = property(lambda self: self._masked_data.dtype)
    device = property(lambda self: self._masked_data.device)
    layout = property(lambda self: self._masked_data.layout)
    ndim = property(lambda self: self._masked_data.ndim)
    requires_grad = property(lambda self: self._masked_data.requires_grad)
    is_leaf = property(lambda self: self._masked_data.is_leaf)
    grad_fn = property(lambda self: self._masked_data.grad_fn)

    def size(self, dim=None):
        return self._masked_data.size() if dim is None else self._masked_data.size(dim)

    def dim(self):
        return self._masked_data.dim()

    def numel(self):
        return self._masked_data.numel()

    def __len__(self):
        return len(self._masked_data)

    def item(self):
        return self._masked_data.item()

    @property
    def grad(self):
        g = self._masked_data.grad
        return None if g is None else MaskedTensor._wrap(g, self._masked_mask)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if is_masked_tensor(gradient):
            gradient = gradient.get_data()
        self._masked_data.backward(gradient, retain_graph, create_graph, inputs)

    def detach(self):
        return MaskedTensor._wrap(self._masked_data.detach(), self._masked_mask)

    def requires_grad_(self, requires_grad=True):
        self._masked_data.requires_grad_(requires_grad)
        return self

    def __repr__(self):
        formatter = "{0:8.4f}"
        if self.dim() == 0:
            value = self.get_data().item()
            text = formatter.format(value) if isinstance(value, float) else str(value)
            if not self.get_mask().item():
                text = "--"
            return f"MaskedTensor({text}, {self.get_mask().item()})"
        s = _masked_tensor_str(self.get_data(), self.get_mask(), formatter)
        s = "\n".join("  " + line for line in s.split("\n"))
        return "MaskedTensor(\n" + s + "\n)"

    __str__ = __repr__

    # ---- views and indexing: applied to data and mask -------------------------------------

    def __getitem__(self, index):
        return MaskedTensor._wrap(self._masked_data[index], self._masked_mask[index])

    @property
    def T(self):
        return self.t()

    def split(self, split_size, dim=0):
        return tuple(MaskedTensor._wrap(d, m) for d, m in zip(
            self._masked_data.split(split_size, dim), self._masked_mask.split(split_size, dim)))

    def to(self, *args, **kwargs):
        return MaskedTensor._wrap(self._masked_data.to(*args, **kwargs), self._masked_mask)

    def float(self):
        return self.to(torch.float32)

    def double(self):
        return self.to(torch.float64)

    def __neg__(self):
        return self.neg()

    def __abs__(self):
        return self.abs()

    def __invert__(self):
        return self.bitwise_not()

    def __pow__(self, exponent):
        return self.pow(exponent)

    __hash__ = object.__hash__

    def softmax(self, dim, dtype=None):
        """Softmax over the specified elements along `dim`."""
        return MaskedTensor._wrap(_ops.softmax(self, dim, dtype=dtype, mask=self.get_mask()),
                                  self.get_mask())



def _passthrough(name):
    def method(self, *args, **kwargs):
        return MaskedTensor._wrap(getattr(self._masked_data, name)(*args, **kwargs),
                                  getattr(self._masked_mask, name)(*args, **kwargs))
    return method


def _unary(name):
    def method(self, *args, **kwargs):
        _no_tensor_args(tuple(args) + tuple(kwargs.values()),
                        "MaskedTensor unary ops do not support additional Tensor arguments")
        return MaskedTensor._wrap(getattr(self._masked_data, name)(*args, **kwargs),
                                  self._masked_mask)
    return method


def _inplace_unary(name):
    def method(self, *args):
        _no_tensor_args(args, "MaskedTensor unary ops do not support additional Tensor "
                              "arguments")
        getattr(self._masked_data, name)(*args)
        return self
    return method


def _no_tensor_args(args, message):
    if any(isinstance(a, (torch.Tensor, MaskedTensor)) for a in args):
        raise TypeError(message)


def _operands(a, b, args):
    _no_tensor_args(args, "MaskedTensor binary ops do not support Tensor arguments aside from "
                          "the lhs and rhs")
    if not _masks_match(a, b):
        raise ValueError("Input masks must match. If you need support for this, please open an "
                         "issue on Github.")
    return (a.get_data() if is_masked_tensor(a) else a,
            b.get_data() if is_masked_tensor(b) else b)


def _binary(name):
    def method(self, other, *args):
        da, db = _operands(self, other, args)
        data = getattr(da, name)(db, *args)
        return MaskedTensor._wrap(data, self.get_mask().expand_as(data))
    return method


def _inplace_binary(name):
    def method(self, other, *args):
        da, db = _operands(self, other, args)
        getattr(da, name)(db, *args)
        return self
    return method


_UNARY = ("abs", "absolute", "acos", "arccos", "acosh", "arccosh", "angle", "asin", "arcsin",
          "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil",
          "clamp", "clip", "conj_physical", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc",
          "erfinv", "exp", "exp2", "expm1", "fix", "floor", "frac", "lgamma", "log", "log10",
          "log1p", "log2", "logit", "i0", "isnan", "nan_to_num", "neg", "negative", "positive",
          "pow", "rad2deg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn", "signbit",
          "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc")
_BINARY = ("add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_left_shift", "bitwise_right_shift", "div", "divide", "floor_divide", "fmod",
           "logaddexp", "logaddexp2", "mul", "multiply", "nextafter", "remainder", "sub",
           "subtract", "true_divide", "eq", "ne", "le", "ge", "greater", "greater_equal", "gt",
           "less_equal", "lt", "less", "maximum", "minimum", "fmax", "fmin", "not_equal")
_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor")


def _reduction(name):
    def method(self, *args, **kwargs):
        mask = self.get_mask()
        if not args and not kwargs:
            if name == "all":
                data = self.get_data().masked_fill(~mask, True).all()
            else:
                data = getattr(_ops, name)(self, mask=mask)
            return MaskedTensor._wrap(data, torch.any(mask))
        params = dict(zip(("dim", "keepdim", "dtype"), args), **kwargs)
        dim, keepdim = params.get("dim"), params.get("keepdim", False)
        if name == "all":
            data = torch.all(self.get_data().masked_fill(~mask, True), dim=dim, keepdim=keepdim)
        else:
            data = getattr(_ops, name)(self, dim=dim, keepdim=keepdim, dtype=params.get("dtype"),
                                       mask=mask)
        out_mask = mask
        for d in sorted([dim] if isinstance(dim, int) else dim, reverse=True):
            out_mask = torch.any(out_mask, dim=d, keepdim=keepdim)
        return MaskedTensor._wrap(data, out_mask)
    return method


def _install():
    for name in ("select", "transpose", "t", "expand", "view", "reshape", "unsqueeze", "unfold",
                 "contiguous", "clone", "flatten", "permute", "squeeze"):
        setattr(MaskedTensor, name, _passthrough(name))
    for name in _UNARY:
        setattr(MaskedTensor, name, _unary(name))
    for name in set(_UNARY) - {"angle", "positive", "signbit", "isnan"}:
        setattr(MaskedTensor, name + "_", _inplace_unary(name + "_"))
    for name in _BINARY:
        setattr(MaskedTensor, name, _binary(name))
    for name in set(_BINARY) - {"logaddexp", "logaddexp2", "fmin", "minimum", "maximum", "fmax"}:
        setattr(MaskedTensor, name + "_", _inplace_binary(name + "_"))
    for op in _OPERATORS + ("eq", "ne", "le", "ge", "gt", "lt"):
        setattr(MaskedTensor, f"__{op}__", _binary(f"__{op}__"))
    for op in _OPERATORS:
        setattr(MaskedTensor, f"__r{op}__", _binary(f"__r{op}__"))
        setattr(MaskedTensor, f"__i{op}__", _inplace_binary(f"__i{op}__"))
    for name in ("sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "all", "norm",
                 "var", "std"):
        setattr(MaskedTensor, name, _reduction(name))


_install()


def masked_tensor(data, mask, requires_grad=False):
    """A MaskedTensor of copies of `data` and `mask` (a leaf, as torch.tensor makes)."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor over `data`, keeping its autograd history (as torch.as_tensor)."""
    return MaskedTensor._wrap(data, mask)
