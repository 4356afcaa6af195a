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
        # rebuilt through a function of this module: the class itself is named
        # torch.nn.parameter.Parameter, which pickle would look up in torch
        return (_rebuild_parameter, (self.detach(), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (lazy modules): `materialize`
    gives it one and turns it into its `cls_to_become`."""
    __module__ = "torch.nn.parameter"

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor `shape` (uninitialized values) and makes it `cls_to_become`."""
        from .._creation import empty
        self.data = empty(shape, dtype=self.data.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """True for an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter of a lazy module, before its first forward gives it a shape."""
    __module__ = "torch.nn.parameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from .._creation import empty
        t = Parameter.__new__(cls, empty(0, dtype=dtype), requires_grad)
        return t

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, None, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of a lazy module, before its first forward gives it a shape."""
    __module__ = "torch.nn.parameter"
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._creation import empty
        src = empty(0, dtype=dtype)
        t = _new(cls)
        t._data, t._vc = src._data, src._vc
        t._grad = t._grad_fn = t._base = t._acc = t._extra = None
        t._output_nr = 0
        t._requires_grad = False
        t.requires_grad_(requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


__all__ += ["UninitializedParameter", "UninitializedBuffer"]


class _BufferMeta(type):
    # isinstance(t, Buffer) holds for any tensor flagged _is_buffer (what Buffer() returns,
    # and uninitialized buffers)
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer when assigned to a Module attribute: a plain Tensor (detached,
    keeping requires_grad) flagged as a buffer, persistent or not."""
    __module__ = "torch.nn.parameter"

    def __new__(cls, data=None, *, persistent=True):
        from .._creation import empty
        if data is None:
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


__all__ += ["Buffer"]
