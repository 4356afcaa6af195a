"""Tensor: a NumPy array plus the autograd state PyTorch keeps beside it.

Op methods and operators (`x.exp()`, `x + y`, `x.add_(y)`) are not written here: the op
table generates them (see `ops/registry.py`). This file holds the state, the properties
with PyTorch's checks, conversions, and repr.
"""
import numbers
import operator
import warnings

import numpy as np

from . import _device, _dtype
from ._cnames import builtin_names
from ._dims import insertion_order, sizes_str, wrap_dim
from ._dtype import FROM_NP
from .autograd import grad_mode
from .utils.hooks import RemovableHandle

__all__ = ["Tensor", "Size", "make_tensor", "layout", "memory_format", "strided", "sparse_coo",
           "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged", "contiguous_format",
           "channels_last", "channels_last_3d", "preserve_format"]


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
    # _fn_version: for a view, the version when its grad_fn was set (Note [Stale views]); for
    #   another tensor, unset, or registry.MADE_WITHOUT_GRAD (made under no_grad; for explain)
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
        # as PyTorch, only a non-leaf's missing grad warns (one assigned to it does not)
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            e = self._extra
            grad_dtype = self.dtype if e is None or e.grad_dtype is _SAME else e.grad_dtype
            if grad_dtype is not None and value.dtype is not grad_dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.cpp}' "
                    f"to a tensor with grad_dtype '{grad_dtype.legacy}'. "
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
        """The tensor's own _TensorExtra, to change."""
        e = self._extra
        if e is None:
            e = self._extra = _TensorExtra()
        elif type(e) is _SharedExtra:
            e = self._extra = e.copy()
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
        try:
            return make_tensor(self._data, False, None, 0, self._vc)
        except AttributeError:
            # torch.detach(None) (this is torch.detach too): the parser's error, at no cost
            from .ops.binding import not_tensor_input
            raise not_tensor_input("detach", self) from None

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
        return _cpu

    # Where the tensor lives: always the CPU, as in PyTorch's CPU build.
    is_cpu = True
    is_cuda = is_mps = is_xla = is_xpu = is_ipu = is_maia = is_mtia = is_vulkan = False
    is_mkldnn = is_nested = is_meta = is_sparse = is_sparse_csr = is_quantized = False

    @property
    def layout(self):
        return strided

    def get_device(self):
        """The device ordinal: -1 for a CPU tensor."""
        return -1

    def cpu(self, *, memory_format=None):
        """This tensor (it is on the CPU already), in `memory_format` when given."""
        if memory_format is None:
            return self
        return self.to(memory_format=memory_format_arg(memory_format, "cpu"))

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return _to_accelerator(self, "cuda", device)

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        return _to_accelerator(self, "xpu", device)

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        return _to_accelerator(self, "mtia", device)

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        return _to_accelerator(self, "ipu", device)

    def pin_memory(self, device=None):
        raise RuntimeError(_device.NO_ACCELERATOR)

    def is_pinned(self, device=None):
        return False

    def share_memory_(self):
        """Move this tensor's storage into shared memory (chainrule/multiprocessing/_shared.py)."""
        from .multiprocessing._shared import share_tensor
        share_tensor(self)
        return self

    def is_shared(self):
        from ._storage import is_shared
        return is_shared(self._data)

    def is_floating_point(self):
        return self._data.dtype.kind in "fV"      # V: bfloat16, float8 (ml_dtypes)

    def is_complex(self):
        return self._data.dtype.kind in "cW"      # W: complex32 (ml_dtypes)

    def element_size(self):
        return self._data.itemsize

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def stride(self, dim=None):
        a = self._data
        if a.size == 0 and not any(a.strides):
            st = _contiguous_strides(a.shape)     # NumPy's empty arrays have zero strides
        else:
            st = tuple(s // a.itemsize for s in a.strides)
        return st if dim is None else st[wrap_dim(dim, a.ndim)]

    def storage_offset(self):
        """Offset of the first element in the storage, in elements."""
        from ._storage import storage_offset
        return storage_offset(self._data)

    def is_contiguous(self, *, memory_format=None):
        """Whether the strides are those of `memory_format` (default: row-major)."""
        if memory_format is None:
            return self._data.flags.c_contiguous
        return is_in_format(self._data, memory_format_arg(memory_format, "is_contiguous"))

    def dim_order(self, *, ambiguity_check=False):
        """The dims from outermost to innermost in memory."""
        return _dim_order(self, ambiguity_check)

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    const_data_ptr = data_ptr

    def untyped_storage(self):
        from ._storage import UntypedStorage
        return UntypedStorage._of(self._data)

    def storage(self):
        from ._storage import TypedStorage, _warn_typed_storage
        _warn_typed_storage(stacklevel=3)
        return TypedStorage._of(self._data, self.dtype)

    _typed_storage = storage

    def storage_type(self):
        from ._storage import legacy_storage_class
        return legacy_storage_class(self.dtype)

    def record_stream(self, stream):
        if type(stream).__name__ != "Stream":
            raise RuntimeError("unknown parameter type")
        raise NotImplementedError(_device._missing_kernel("aten::record_stream", "CPU"))

    def is_set_to(self, tensor):
        """Whether both tensors have the same storage, offset, sizes and strides."""
        if not isinstance(tensor, Tensor):
            raise TypeError("is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                            f"{type(tensor).__name__}")
        a, b = self._data, tensor._data
        return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
                and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)

    @property
    def volatile(self):
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                      stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                      "instead.", UserWarning, stacklevel=2)

    @property
    def name(self):
        return None

    @property
    def grad_dtype(self):
        """The dtype `.grad` must have (default: this tensor's; None: any)."""
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        e = self._extra
        if e is not None and e.grad_dtype is not _SAME:
            return e.grad_dtype
        return self.dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError("grad_dtype must be a torch.dtype or None, but got "
                               f"{type(value).__name__}")
        g = self._grad
        if g is not None and value is not None and g._data.dtype != value.np:
            raise RuntimeError(f"Cannot set grad_dtype to '{value.legacy}' because there is "
                               f"already a gradient with dtype '{g.dtype.cpp}'. Please clear the "
                               "gradient (.grad = None) before changing grad_dtype, or ensure "
                               "the new grad_dtype matches the existing gradient's dtype.")
        self._extra_state().grad_dtype = value

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """The legacy type name ('torch.FloatTensor'), or a copy converted to `dtype` (a
        dtype, a legacy type or its name)."""
        if dtype is None:
            return f"torch.{self.dtype.legacy}Tensor"
        if isinstance(dtype, str):
            dtype = _parse_type(dtype)
        elif not isinstance(dtype, _dtype.dtype):
            if not callable(dtype) or not getattr(dtype, "__name__", "").endswith("Tensor"):
                raise TypeError("dtype must be a type, str, or dtype object")
            dtype = _parse_type(f"torch.{dtype.__name__}")    # FloatTensor and friends
        return self.to(dtype)

    def apply_(self, callable):
        """Replace each element by `callable(element)` (a Python loop, as PyTorch's CPU
        kernel); returns self."""
        return _map(self, "apply_", (), callable)

    def map_(self, tensor, callable):
        """Replace each element by `callable(element, tensor's element)`; returns self."""
        return _map(self, "map_", (tensor,), callable)

    def map2_(self, x, y, callable):
        return _map(self, "map2_", (x, y), callable)

    def as_subclass(self, cls):
        """This tensor as an instance of Tensor subclass `cls` (an alias of the same data that
        stays in the graph)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                            "Tensor is not possible. Make sure your class inherits from Tensor.")
        from .ops.shape import _alias
        return _retype(_alias(self), cls)

    def new(self, *args, **kwargs):
        """Legacy constructor of this tensor's dtype (`x.new(2, 3)`, `x.new([1, 2])`)."""
        from ._creation import legacy_new
        return legacy_new(Tensor, self.dtype, args, kwargs)

    def module_load(self, other, assign=False):
        """What Module.load_state_dict stores for this parameter or buffer given `other`:
        `other` detached when assigning, else self with other's values copied in."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

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
        if self._requires_grad and _grad_state.grad_enabled and not force:  # PyTorch's test
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.dtype.isbuiltin == 2:     # an ml_dtypes type
            _no_numpy_type(self)
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _grad_state.grad_enabled:
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

    __nonzero__ = __bool__      # Python 2 names PyTorch still has
    __long__ = __int__

    def __contains__(self, element):
        """Whether `element` (a tensor or a number) equals some element of this tensor."""
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")

    def __reversed__(self):
        """This tensor flipped along dimension 0 (itself when 0-d)."""
        return self if self._data.ndim == 0 else self.flip(0)

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
    __slots__ = ("hooks", "post_acc_hooks", "retains_grad", "inference", "view_info",
                 "grad_dtype")

    def __init__(self):
        self.hooks = {}
        self.post_acc_hooks = {}
        self.retains_grad = False
        self.inference = False
        self.view_info = None
        self.grad_dtype = _SAME


_SAME = object()   # grad_dtype not set: the gradient has the tensor's dtype


class _SharedExtra(_TensorExtra):
    """A _TensorExtra shared by tensors that differ from the default only in `view_info`
    (views made under no_grad: one each would double the cost of such a view). Read in
    place; _extra_state() gives a tensor its own copy before anything changes."""
    __slots__ = ()
    _of = {}

    @classmethod
    def with_view_info(cls, meta):
        e = cls._of.get(meta)
        if e is None:
            e = cls._of[meta] = cls()
            e.view_info = meta
        return e

    def copy(self):
        e = _TensorExtra()
        e.view_info = self.view_info
        return e


# ---- layouts and memory formats -----------------------------------------------------------

class _Named:
    """A named singleton that prints as `torch.<name>` (torch.strided, torch.channels_last)."""
    __slots__ = ("_name",)
    __module__ = "torch"

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name):
        self = object.__new__(cls)
        self._name = name
        _NAMED[name] = self
        return self

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_named, (self._name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class layout(_Named):
    """A tensor's layout; chainrule's tensors are all `torch.strided`."""
    __slots__ = ()


class memory_format(_Named):
    """How a 4-d or 5-d tensor is laid out in memory (`torch.channels_last`: NHWC)."""
    __slots__ = ()


_NAMED = {}


def _named(name):
    return _NAMED[name]


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")
contiguous_format = memory_format._make("contiguous_format")
legacy_contiguous_format = contiguous_format
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")

# physical order of the dims (outermost first) for the channels-last formats, by rank
_CHANNELS_LAST = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def memory_format_arg(value, fname):
    """`value` checked to be a memory format, with PyTorch's error naming function `fname`."""
    if not isinstance(value, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(value).__name__}")
    return value


def is_in_format(a, fmt):
    """Whether array `a` has the strides of memory format `fmt` (PyTorch's rule: dims of
    size 1 are ignored)."""
    if fmt not in _CHANNELS_LAST:
        return a.flags.c_contiguous
    rank, order = _CHANNELS_LAST[fmt]
    if a.ndim != rank:
        return False
    expected = a.itemsize
    for d in reversed(order):
        n = a.shape[d]
        if n != 1:
            if a.strides[d] != expected:
                return False
            expected *= n
    return True


def to_memory_format(a, fmt):
    """A copy of array `a` laid out in memory format `fmt` (preserve_format keeps a's
    layout, as NumPy's order 'K' does)."""
    if fmt is None or fmt is preserve_format:
        return np.array(a, copy=True, order="K")
    if fmt not in _CHANNELS_LAST:
        return np.array(a, copy=True, order="C")
    rank, order = _CHANNELS_LAST[fmt]
    if a.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
    # a fresh array: ascontiguousarray would keep a view that NumPy deems contiguous already
    # (dims of size 1, empty arrays), whose strides are not PyTorch's
    physical = tuple(a.shape[i] for i in order)
    if a.size == 0:     # NumPy gives empty arrays zero strides; keep PyTorch's
        strides = [0] * rank
        for k, st in zip(order, _contiguous_strides(physical)):
            strides[k] = st * a.itemsize
        return np.lib.stride_tricks.as_strided(np.empty(0, a.dtype), a.shape, strides)
    out = np.empty(physical, a.dtype)
    out[...] = a.transpose(order)
    return out.transpose(np.argsort(order))


def _contiguous_strides(shape):
    """PyTorch's row-major strides in elements (a dim of size 0 counts as 1)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def suggest_memory_format(a):
    """PyTorch's suggest_memory_format: channels_last(_3d) when the strides order the dims
    that way (c10's is_channels_last_strides_2d/3d), else contiguous_format."""
    if a.ndim in (4, 5):
        order = _CHANNELS_LAST[channels_last if a.ndim == 4 else channels_last_3d][1]
        shape, strides = a.shape, a.strides
        smallest = 0
        for d in reversed(order):
            if shape[d] == 0 or strides[d] < smallest:
                return contiguous_format
            if d == 0 and smallest == strides[1]:
                return contiguous_format
            smallest = strides[d]
            if shape[d] > 1:
                smallest *= shape[d]
        return channels_last if a.ndim == 4 else channels_last_3d
    return contiguous_format


def _dim_order(t, ambiguity_check):
    # PyTorch's Tensor.dim_order: the permutation from logical to physical dims
    # (torch._prims_common.compute_elementwise_output_logical_to_physical_perm).
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or not all(
                isinstance(f, memory_format) for f in ambiguity_check):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                            "formats.")
    a = t._data
    shape, strides = a.shape, t.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    multiple = any(x == y for x, y in zip(strides, strides[1:])) or 1 in shape
    if check and multiple and sum(is_in_format(a, f) for f in formats) != 1:
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                           "one of the given memory formats.")
    ndim = a.ndim
    if ndim < 2:
        return tuple(range(ndim))
    contiguous, last = a.flags.c_contiguous, is_in_format(a, channels_last)
    if contiguous and not last:
        return tuple(range(ndim))
    if last and not contiguous:
        return (0, *range(2, ndim), 1)

    def ge(x, y):
        return y == 0 or (x != 0 and (x >= y or x % y == 0))

    def should_swap(i, j):
        sa, sb = strides[i], strides[j]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[j], shape[i]) else 1
        if ge(sb, sa):
            return -1
        return 1 if ge(sa, sb) else 0

    perm = insertion_order(ndim, should_swap)
    if ambiguity_check and any(should_swap(perm[i], perm[i + 1]) != -1 for i in range(ndim - 1)):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


# ---- devices, legacy types, elementwise Python callables ----------------------------------

_ACCELERATOR_NAMES = {"cuda": "cuda", "xpu": "xpu", "mtia": "MTIA", "ipu": "ipu"}


def _to_accelerator(t, kind, device):
    """Tensor.cuda() / xpu() / mtia() / ipu(): PyTorch's CPU-build errors."""
    if device is not None:
        if not isinstance(device, (str, int, _device.device)) or isinstance(device, bool):
            raise TypeError(f"{kind}(): argument 'device' (position 1) must be torch.device, not "
                            f"{type(device).__name__}")
        d = _device.as_device(device)
        if d.type != kind:
            raise RuntimeError(f"Invalid device, must be {_ACCELERATOR_NAMES[kind]} device")
    _device.use(kind)


_CUDA_LIBRARY = (
    "Cannot {} without ATen_cuda library. PyTorch splits its backend into two shared "
    "libraries: a CPU library and a CUDA library; this error has occurred because you are "
    "trying to use some CUDA functionality, but the CUDA library has not been loaded by the "
    "dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")


def _parse_type(name):
    """The dtype of legacy type name 'torch.FloatTensor'; CUDA types fail as in PyTorch's
    CPU build."""
    if name.startswith("torch.cuda.") and name[11:] in _LEGACY_TYPES:
        raise RuntimeError(_CUDA_LIBRARY.format("initialize CUDA"))
    if name.startswith("torch.") and name[6:] in _LEGACY_TYPES:
        return _LEGACY_TYPES[name[6:]]
    raise ValueError(f"invalid type: '{name}'")


_LEGACY_TYPES = {f"{d.legacy}Tensor": d for d in _dtype.ALL}


def _map(self, name, others, fn):
    """apply_ / map_ / map2_: call `fn` on Python numbers, element by element (the API is a
    per-element Python callback, as PyTorch's CPU kernel)."""
    for t in (self,) + others:
        if t.requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                               f"var.detach().{name}() instead.")
    a = self._data
    arrays = []
    for i, t in enumerate(others):
        if t._data.dtype != a.dtype:
            arg = "other" if len(others) == 1 else "xy"[i]
            raise TypeError(f"{name}: expected {_dtype.tensor_type_name(self.dtype)} for "
                            f"'{arg}' (got {_dtype.tensor_type_name(t.dtype)})")
        arrays.append(t.expand(a.shape)._data.ravel().tolist())
    kind = a.dtype.kind
    convert = {"f": _real, "i": _int, "u": _int, "b": bool, "c": _complex}[kind]
    values = [convert(fn(*v)) for v in zip(a.ravel().tolist(), *arrays)]
    a[...] = np.array(values, a.dtype).reshape(a.shape)
    return self


def _real(v):
    if isinstance(v, (float, int)) or isinstance(v, numbers.Real):
        return float(v)
    raise TypeError(f"must be real number, not {type(v).__name__}")


def _int(v):
    if isinstance(v, numbers.Real):
        return int(v)
    raise TypeError(f"must be real number, not {type(v).__name__}")


def _complex(v):
    if isinstance(v, numbers.Number):
        return complex(v)
    raise TypeError(f"must be real number, not {type(v).__name__}")


def _retype(t, cls):
    """`t`'s state in a new object of Tensor subclass `cls`."""
    if cls is Tensor:
        return t
    sub = object.__new__(cls)
    for slot in ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
                 "_acc", "_extra"):
        setattr(sub, slot, getattr(t, slot))
    if t._base is not None:
        sub._fn_version = t._fn_version
    return sub


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
_cpu = _device.cpu


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
# PyTorch's Tensor methods are C++ bindings: argument errors name `cpu()`, not `Tensor.cpu()`
builtin_names(Tensor)
