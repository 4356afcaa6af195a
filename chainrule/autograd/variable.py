"""torch.autograd.variable: the deprecated Variable, kept so old code runs. Variables and
Tensors were merged in PyTorch 0.4: every Tensor is a Variable, and Variable(t) is a tensor
sharing t's data, detached, with requires_grad as asked."""
import warnings

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    def __instancecheck__(cls, other):
        from .._tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Variable(data, requires_grad=False, volatile=False): `data` detached (sharing its
    data) with requires_grad set; `volatile` is ignored with PyTorch's warning."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from .._creation import empty
        from .._tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use "
                          "`with torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
