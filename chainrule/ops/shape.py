"""Shape ops: views, reshapes, expansion, joining and splitting; dtype conversion.

Rows marked `view=True` return tensors that share memory and the version counter with
their input (PyTorch's views).
"""
import numpy as np

from .. import _dtype
from .._tensor import Size
from .dims import sizes_str, wrap_dim
from .registry import op, public


def _infer_shape(shape, numel):
    """Resolve one -1 in `shape` against `numel`, with PyTorch's errors."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{sizes_str(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{sizes_str(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(shape[0])
    return tuple(int(s) for s in shape)


def _view(a, shape):
    shape = _infer_shape(shape, a.size)
    out = a.view()
    try:
        out.shape = shape      # raises instead of copying when no view is possible
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return out


view_ = op("view", "ViewBackward0", "self, size", _view, view=True, function=False, method=False,
           self=lambda grad, self_shape: grad.reshape(self_shape))

# reshape's copying path: PyTorch clones, then views the clone (UnsafeViewBackward0).
_unsafe_view = op("_unsafe_view", "UnsafeViewBackward0", "self, size",
                  lambda a, shape: np.reshape(a, _infer_shape(shape, a.size)),
                  function=False, method=False,
                  self=lambda grad, self_shape: grad.reshape(self_shape))


@public("view", function=False)
def view(self, *shape):
    """A view with a new shape (no copy); dtype views are not supported."""
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        raise NotImplementedError("view(dtype) is not supported")
    return view_(self, _shape_args(shape))


@public("reshape")
def reshape(input, *shape):
    """A view with a new shape when possible, else a copy."""
    shape = _infer_shape(_shape_args(shape), input._data.size)
    if shape == input._data.shape:
        return view_(input, shape)
    a = input._data
    try:
        a.view().shape = shape
    except AttributeError:
        return _unsafe_view(clone(input, memory_format=None), shape)
    return view_(input, shape)


def _expand(a, size):
    size = tuple(size)
    if len(size) < a.ndim:
        raise RuntimeError(
            f"expand({_type(a)}{{{sizes_str(a.shape)}}}, size={sizes_str(size)}): the number of "
            f"sizes provided ({len(size)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({a.ndim})")
    lead = len(size) - a.ndim
    target = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            target.append(s)
            continue
        cur = a.shape[i - lead]
        if s == -1:
            s = cur
        elif cur != 1 and s != cur:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{sizes_str(size)}.  Tensor sizes: {sizes_str(a.shape)}")
        target.append(s)
    return np.broadcast_to(a, target)


def _type(a):
    return _dtype.tensor_type_name(_dtype.FROM_NP[a.dtype]).replace("torch.", "")


expand_ = op("expand", "ExpandBackward0", "self, size", _expand, view=True, function=False,
             method=False,
             self=lambda grad, self_shape: grad.sum_to_size(self_shape))


@public("expand", function=False)
def expand(self, *sizes):
    """A broadcast view with the given sizes (-1 keeps a dim)."""
    return expand_(self, _shape_args(sizes))


@public("expand_as", function=False)
def expand_as(self, other):
    return expand_(self, other._data.shape)


@public("sum_to_size", function=False)
def sum_to_size(self, *size):
    """Sum the broadcast dims away to reach `size` (PyTorch's at::sum_to)."""
    size = _shape_args(size)
    shape = self._data.shape
    if shape == size:
        return self
    lead = len(shape) - len(size)
    dims = [i for i in range(len(shape)) if i < lead or (size[i - lead] == 1 and shape[i] != 1)]
    out = self
    if dims:
        out = out.sum(dims, keepdim=True)
    if lead:
        out = out.reshape(size)
    return out


def _unsqueeze(a, dim):
    return np.expand_dims(a, wrap_dim(dim, a.ndim + 1))


unsqueeze = op("unsqueeze", "UnsqueezeBackward0", "self, dim", _unsqueeze, view=True,
               self=lambda grad, dim: grad.squeeze(dim))


def _squeeze_dim(a, dim):
    d = wrap_dim(dim, a.ndim)
    return np.squeeze(a, d) if a.ndim and a.shape[d] == 1 else a.view()


_squeeze_dim_row = op("squeeze.dim", "SqueezeBackward1", "self, dim", _squeeze_dim, view=True,
                      function=False, method=False,
                      self=lambda grad, self_shape, dim: grad.reshape(self_shape))
_squeeze_all_row = op("squeeze", "SqueezeBackward0", "self", lambda a: np.squeeze(a).view(),
                      view=True, function=False, method=False,
                      self=lambda grad, self_shape: grad.reshape(self_shape))


@public("squeeze")
def squeeze(input, dim=None):
    """Remove dims of size 1 (all, or only `dim`)."""
    if dim is None:
        return _squeeze_all_row(input)
    return _squeeze_dim_row(input, dim)


clone = op("clone", "CloneBackward0", "self, *, memory_format=None",
           lambda a, memory_format: np.array(a, copy=True),
           self=lambda grad: grad)

# AccumulateGrad's copy of a first gradient under create_graph (PyTorch names it so).
_copy_grad = op("_copy_grad", "CopyBackwards", "self", lambda a: np.array(a, copy=True),
                method=False, self=lambda grad: grad)

_to_copy = op("_to_copy", "ToCopyBackward0", "self, dtype", lambda a, dtype: a.astype(dtype.np),
              function=False, method=False,
              # the engine casts the gradient back to the input's dtype
              self=lambda grad: grad)


def _conj_forward(a):
    return np.conj(a)


_conj_row = op("conj", "ConjBackward0", "self", _conj_forward, function=False, method=False,
               self=lambda grad: grad.conj())


@public("conj")
def conj(input):
    """Complex conjugate; real tensors are returned as they are."""
    if input._data.dtype.kind != "c":
        return input
    return _conj_row(input)


@public("to", function=False)
def to(self, *args, **kwargs):
    """Convert dtype (`to(torch.float64)`, `to(other)`, `to('cpu', torch.float64)`); returns
    self when nothing changes, unless copy=True."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("device", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif hasattr(a, "_data"):
            dtype = a.dtype
        elif isinstance(a, bool):
            pass   # non_blocking positional
        else:
            from .._device import device as _device_cls
            _device_cls(a)   # validates: only cpu
    if dtype is None or dtype.np == self._data.dtype:
        return clone(self) if copy else self
    return _to_copy(self, dtype)


def _converter(d):
    def convert(self, memory_format=None):
        return to(self, d)
    return convert


for _n, _d in (("float", _dtype.float32), ("double", _dtype.float64), ("half", _dtype.float16),
               ("long", _dtype.int64), ("int", _dtype.int32), ("short", _dtype.int16),
               ("char", _dtype.int8), ("byte", _dtype.uint8), ("bool", _dtype.bool),
               ("cfloat", _dtype.complex64), ("cdouble", _dtype.complex128)):
    public(_n, function=False)(_converter(_d))


@public("type_as", function=False)
def type_as(self, other):
    return to(self, other.dtype)


# ---- joining ------------------------------------------------------------------------------

def _cat_grads(grad, tensors_shape, dim):
    # one slice of grad per input tensor (a loop over the list, not over elements)
    d = wrap_dim(dim, len(tensors_shape[0]))
    out, start = [], 0
    for shape in tensors_shape:
        out.append(grad.narrow(d, start, shape[d]))
        start += shape[d]
    return out


cat = op("cat", "CatBackward0", "tensors, dim=0", lambda arrays, dim: np.concatenate(
             arrays, axis=wrap_dim(dim, arrays[0].ndim)), list_input=True, method=False,
         function=("cat", "concat", "concatenate"),
         tensors=_cat_grads)

stack = op("stack", "StackBackward0", "tensors, dim=0", lambda arrays, dim: np.stack(
               arrays, axis=wrap_dim(dim, arrays[0].ndim + 1)), list_input=True, method=False,
           tensors=lambda grad, dim, tensors_shape: grad.unbind(wrap_dim(dim, len(tensors_shape[0]) + 1)))
