"""torch.nn.Parameter: a leaf Tensor that a Module registers as one of its parameters."""
from .._tensor import Tensor, _new

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor sharing `data`'s memory and version counter; requires grad by default."""
    __module__ = "torch.nn.parameter"

    def __new__(cls, data=None, requires_grad=True):
        from .._creation import empty
        src = empty(0) if data is None else data.detach()
        t = _new(cls)
        t._data, t._vc = src._data, src._vc
        t._grad = t._grad_fn = t._base = t._acc = t._extra = None
        t._output_nr = 0
        t._requires_grad = False
        return t.requires_grad_(requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (Parameter, (self.detach(), self._requires_grad))
