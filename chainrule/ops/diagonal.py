"""Triangles and diagonals: tril, triu, diagonal (a view), diagonal_copy, diag_embed, diag,
diagflat, trace, fill_diagonal_.

diagonal's backward, diagonal_backward, is an op of its own (DiagonalBackwardBackward0), so
double backward takes the diagonal again; diag_embed's backward is a diagonal view of the
gradient, as in derivatives.yaml.
"""
import numbers

import numpy as np

from .._dims import wrap_dim
from .._tensor import Tensor, make_tensor
from .._creation import arange
from .binding import declare
from .registry import EXACT, op, out_exact, public
from .shape import view_
from .views import as_strided, geometry

# tril and triu write into an out whose elements alias each other without complaint
_TRI_OUT = out_exact("Expected out tensor to have dtype {expected_cpp}, but got {got_cpp} instead",
                     overlap_ok=True)


def _tri(name, fn):
    def forward(a, diagonal):
        if a.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return fn(a, diagonal)
    return forward


tril = op("tril", "TrilBackward0", "self, diagonal=0", _tri("tril", np.tril), inplace="tril_",
          self=lambda grad, diagonal: grad.tril(diagonal), out=_TRI_OUT)

triu = op("triu", "TriuBackward0", "self, diagonal=0", _tri("triu", np.triu), inplace="triu_",
          self=lambda grad, diagonal: grad.triu(diagonal), out=_TRI_OUT)


# ---- diagonal -----------------------------------------------------------------------------

def _dims(ndim, dim1, dim2):
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_view(a, offset, dim1, dim2):
    """The diagonal as a writable NumPy view (its last dim runs along the diagonal)."""
    view = np.diagonal(a, offset, *_dims(a.ndim, dim1, dim2))
    if a.flags.writeable:
        view.flags.writeable = True      # NumPy hands diagonals out read-only
    return view


def _diagonal_backward(grad, input_sizes, offset, dim1, dim2):
    out = np.zeros(input_sizes, grad.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = grad
    return out


diagonal_backward = op("diagonal_backward", "DiagonalBackwardBackward0",
                       "grad_output, input_sizes, offset, dim1, dim2", _diagonal_backward,
                       function=False, method=False,
                       grad_output=lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1,
                                                                             dim2))


def _diagonal_formula(grad, self_shape, offset, dim1, dim2):
    return diagonal_backward(grad, self_shape, offset, dim1, dim2)


diagonal = op("diagonal", "DiagonalBackward0", "self, offset=0, dim1=0, dim2=1", _diagonal_view,
              view=True, self=_diagonal_formula)

diagonal_copy = op("diagonal_copy", "DiagonalBackward0_copy", "self, offset=0, dim1=0, dim2=1",
                   lambda a, offset, dim1, dim2: _diagonal_view(a, offset, dim1, dim2).copy(),
                   method=False, self=_diagonal_formula, out=EXACT,
                   out_name="aten::diagonal_copy")


def _diag_embed(a, offset, dim1, dim2):
    d1, d2 = _dims(a.ndim + 1, dim1, dim2)
    size = (a.shape[-1] if a.ndim else 1) + abs(offset)
    shape = list(a.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, size)
    out = np.zeros(shape, a.dtype)
    _diagonal_view(out, offset, d1, d2)[...] = a
    return out


diag_embed = op("diag_embed", "DiagEmbedBackward0", "self, offset=0, dim1=-2, dim2=-1",
                _diag_embed, out=False,
                self=lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2))


@public("diag", out=EXACT, out_name="aten::diagonal_copy")
def diag(input, diagonal=0):
    """A 1-D tensor as the given diagonal of a square matrix, or a matrix's diagonal."""
    n = input.dim()
    if n == 1:
        return diag_embed(input, diagonal, 0, 1)
    if n == 2:
        return diagonal_copy(input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


@public("diagflat")
def diagflat(input, offset=0):
    """The flattened input as the given diagonal of a square matrix."""
    return diag(view_(input.contiguous(), (-1,)), offset)


# ---- trace --------------------------------------------------------------------------------

def _trace(a):
    if a.dtype.kind == "b":     # the kernel's refusal comes first
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    return np.trace(a, dtype=np.int64 if a.dtype.kind in "iu" else None)


def _trace_backward(grad, self_shape):
    """The gradient written on the main diagonal of the flattened matrix."""
    n, m = self_shape
    index = arange(0, min(n, m) * (m + 1), m + 1)
    return make_tensor(np.zeros(n * m, grad._data.dtype)).index_fill_(0, index, grad).view(n, m)


trace = op("trace", "TraceBackward0", "self", _trace, out=False, self=_trace_backward)


# ---- fill_diagonal_ -----------------------------------------------------------------------

@public("fill_diagonal_", function=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal for more than 2) in place; with wrap, a tall
    matrix's diagonal starts again every width + 1 rows."""
    if isinstance(fill_value, Tensor) and fill_value.dim() == 0 and not fill_value.requires_grad:
        fill_value = fill_value.item()     # PyTorch's Scalar arguments take these
    if not isinstance(fill_value, numbers.Number):
        raise TypeError("fill_diagonal_(): argument 'fill_value' (position 1) must be Number, "
                        f"not {type(fill_value).__name__}")
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(s != shape[0] for s in shape[1:]):
        raise RuntimeError("all dimensions of input must be of equal length")
    main = self
    for _ in range(len(shape) - 1):
        main = diagonal(main, 0, 0, 1)
    main.fill_(fill_value)
    height, width = shape[:2]
    if wrap and len(shape) == 2 and height > width + 1:
        # PyTorch walks the storage on from row width + 1 with the diagonal's stride
        if self._data.flags.c_contiguous:
            rest = view_(self, (-1,))[(width + 1) * width::width + 1]
        else:
            _, strides, offset = geometry(self._data)
            size = -(-self._data.size // (width + 1)) - width
            rest = as_strided(self, (size,), (sum(strides),), offset + strides[0] * (width + 1))
        rest.fill_(fill_value)
    return self


# Note [Argument parser checks]: PyTorch's declarations of the functions and methods above
declare("tril(Tensor input, int diagonal=0)", "triu(Tensor input, int diagonal=0)",
        "diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1)",
        "diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1)",
        "diag(Tensor input, int diagonal=0)", "diagflat(Tensor input, int offset=0)")
declare("tril_(Tensor input, int diagonal=0)", "triu_(Tensor input, int diagonal=0)",
        function=False)
declare("diagonal_copy(Tensor input, int offset=0, int dim1=0, int dim2=1)", method=False)
