"""Tensor: a NumPy array plus the autograd state PyTorch keeps beside it.

Op methods and operators (`x.exp()`, `x + y`, `x.add_(y)`) are not written here: the op
table generates them (see `ops/registry.py`). This file holds the state, the properties
with PyTorch's checks, conversions, and repr.
"""
import operator
import warnings

from . import _dtype
from ._dims import sizes_str, wrap_dim
from ._dtype import FROM_NP
from .autograd import grad_mode
from .utils.hooks import RemovableHandle

__all__ = ["Tensor", "Size", "make_tensor"]


class Size(tuple):
    """A tensor's shape: a tuple that prints as `torch.Size([2, 3])`."""
    __slots__ = ()

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, s in enumerate(sizes):
            if not isinstance(s, int):
                try:
                    operator.index(s)
                except TypeError:
                    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(s).__name__}')") from None
                sizes = tuple(operator.index(s) for s in sizes)
                break
        return tuple.__new__(cls, sizes)

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return _size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return _size(tuple.__add__(self, other))

    def __radd__(self, other):
        return _size(tuple.__add__(other, self))


def _size(shape):
    """A Size of ints known to be valid (a shape), without Size()'s checks."""
    return tuple.__new__(Size, shape)


_new = object.__new__

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    `Tensor(2, 3)`, `Tensor([1., 2.])` and `Tensor()` are PyTorch's legacy constructors (an
    uninitialized or copied float tensor of the default dtype); use `chainrule.tensor` for
    new code.
    """
    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "_fn_version", "_acc", "_extra", "__dict__", "__weakref__")
    # _vc: the version counter, a one-item list shared with views
    # _base: the tensor this one is a view of, or None
    # _fn_version: for a view, the version when its grad_fn was set (Note [Stale views])
    # _acc: weak reference to this leaf's AccumulateGrad
    # _extra: None, or a _TensorExtra with hooks and flags few tensors use

    __module__ = "torch"  # so type(x) prints as <class 'torch.Tensor'>

    def __new__(cls, *args, **kwargs):
        from ._creation import legacy_new
        return legacy_new(cls, None, args, kwargs)

    # ---- autograd state ------------------------------------------------------------------

    @property
    def requires_grad(self):
        # A view made in no_grad mode has no history, yet requires grad when its base does.
        return self._requires_grad or (self._base is not None and self._grad_fn is None
                                        and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self._set_requires_grad(bool(value), "only Tensors of floating point and complex dtype "
                                             "can require gradients")

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this leaf; returns self."""
        return self._set_requires_grad(bool(requires_grad), "only Tensors of floating point "
                                                            "dtype can require gradients")

    def _set_requires_grad(self, requires_grad, dtype_error):
        # PyTorch words the dtype error differently for the setter and requires_grad_()
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad:
            if FROM_NP[self._data.dtype].category < 2:
                raise RuntimeError(dtype_error)
            if self._extra is not None and self._extra.inference and not grad_mode.state.inference:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                                   "InferenceMode is not allowed.")
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._base is not None:
            from .autograd.graph import refresh_view_history
            return refresh_view_history(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, value):
        raise AttributeError("attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable")

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @is_leaf.setter
    def is_leaf(self, value):
        raise AttributeError("attribute 'is_leaf' of 'torch._C.TensorBase' objects is not writable")

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad(self):
        if self._grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.cpp}' "
                    f"to a tensor with grad_dtype '{self.dtype.legacy}'. "
                    "The gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{sizes_str(value._data.shape)}' to a "
                    f"tensor of size '{sizes_str(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        e = self._extra
        return e is not None and e.retains_grad

    def retain_grad(self):
        """Populate `.grad` for this non-leaf during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self.retains_grad:
            return
        import weakref
        self._extra_state().retains_grad = True
        self._grad_fn._node_hooks().retain[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """Register `hook(grad)`, called with this tensor's gradient before it is used; it
        may return a replacement gradient."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        hooks = self._extra_state().hooks
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """Register `hook(tensor)`, called after this leaf's `.grad` has been accumulated."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = self._extra_state().post_acc_hooks
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def _extra_state(self):
        e = self._extra
        if e is None:
            e = self._extra = _TensorExtra()
        return e

    @property
    def _version(self):
        return self._vc[0]

    @property
    def data(self):
        """A tensor sharing this one's memory, detached from autograd and from its version
        counter."""
        return make_tensor(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def detach(self):
        """A tensor sharing memory and version counter, outside the graph."""
        return make_tensor(self._data, False, None, 0, self._vc)

    def detach_(self):
        """Detach this tensor from the graph in place, making it a leaf."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def is_inference(self):
        e = self._extra
        return e is not None and e.inference

    # ---- metadata -----------------------------------------------------------------------

    @property
    def shape(self):
        return _size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return _size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return FROM_NP[self._data.dtype]

    @property
    def device(self):
        from ._device import cpu
        return cpu

    @property
    def is_cuda(self):
        return False

    is_sparse = False
    is_quantized = False
    is_meta = False

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def element_size(self):
        return self._data.itemsize

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{self.dtype.legacy}Tensor"
        return self.to(dtype)

    # ---- conversion ---------------------------------------------------------------------

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force=False):
        """The NumPy array behind this tensor (shared memory)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype.isbuiltin == 2:     # an ml_dtypes type
            _no_numpy_type(self)
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        a = self._data
        if a.dtype.isbuiltin == 2:
            _no_numpy_type(self)
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __bool__(self):
        n = self._data.size
        if n != 1:
            raise RuntimeError("Boolean value of Tensor with "
                               f"{'more than one value' if n else 'no values'} is ambiguous")
        return bool(self._data.reshape(()).item())

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        t = type(self).__new__(type(self)) if type(self) is not Tensor else _new(Tensor)
        _init(t, self._data.copy(), self._requires_grad, None, 0, [0])
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        if type(self) is not Tensor and hasattr(self, "__dict__"):
            import copy
            t.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = t
        return t

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import format_tensor
        suffixes = []
        if self._grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(self._grad_fn).__name__}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        d = self.dtype
        return format_tensor(self._data, dtype_name=repr(d), is_default_dtype=_is_default_dtype(d),
                             suffixes=tuple(suffixes))

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self._data.item().__format__(spec)
        return object.__format__(self, spec)

    def __dir__(self):
        return sorted(set(object.__dir__(self)))


def _no_numpy_type(t):
    # bfloat16, float8, complex32 live in ml_dtypes arrays, but PyTorch has no NumPy type
    # for them
    raise TypeError(f"Got unsupported ScalarType {t.dtype.legacy}")


class _TensorExtra:
    """State that most tensors never need, kept off the hot path."""
    __slots__ = ("hooks", "post_acc_hooks", "retains_grad", "inference", "view_info")

    def __init__(self):
        self.hooks = {}
        self.post_acc_hooks = {}
        self.retains_grad = False
        self.inference = False
        self.view_info = None


def _init(t, data, requires_grad, grad_fn, output_nr, vc):
    t._data = data
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._vc = vc
    t._base = None
    t._acc = None
    t._extra = None


def make_tensor(data, requires_grad=False, grad_fn=None, output_nr=0, vc=None):
    """Wrap a NumPy array as a Tensor (no copy). The hot path of every op ends here."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._vc = [0] if vc is None else vc
    t._base = None
    t._acc = None
    t._extra = None
    if _grad_state.inference:
        t._extra_state().inference = True
    return t


_grad_state = grad_mode.state


def _rebuild(data, requires_grad):
    return make_tensor(data, requires_grad)


def _is_default_dtype(d):
    # _tensor_str itself omits int64 and bool, as PyTorch does for non-empty tensors.
    return d is _dtype.get_default_dtype() or d is _dtype.default_complex()





def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into `.grad` of the leaves (and of `inputs`)."""
    from .autograd import backward
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _backward
