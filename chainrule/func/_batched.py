"""BatchedTensor and batching rules: how torch.func.vmap runs a function once on a whole batch.

Note [Batching rules]: while a vmap runs batched, registry.dispatch hands every op to
`_dispatch` (the VMAP hook; one global test when no vmap runs). A BatchedTensor is a chainrule
Tensor standing for one batch element (its shape, dtype, dim() are the element's) over a plain
*physical* tensor `_phys` whose leading dims are the batch dims of the running vmaps in
`_levels` (outermost first; a level the tensor does not vary along has no dim). A rule maps an
op on BatchedTensors to ops on physical tensors, chosen by the row's kind, so most rows need
no rule of their own:
  element-wise rows (pointwise and special families, `where`, the nn family's activations):
    operands aligned (missing levels and logical ranks padded with size-1 dims, NumPy
    broadcasting does the rest); element-wise losses: unreduced, then reduced per element;
  rows acting on trailing dims (linalg's matrix functions, tril): the physical tensor as is;
  rows taking `dim` (reductions, softmax, select, slice, cumsum, ...): dims shifted past the
    batch dims; full reductions (sum, mean) become reductions over the element's dims;
  views and reshapes, the matmul family (batched matmul), cat and stack: own rules;
  class-index losses (nll_loss, cross_entropy's smoothing), whose targets are an array
  parameter of their row, are handed to this module by nn.functional.
Any other row falls back to a loop over the batch elements of that op alone (PyTorch's
fallback, without a warning: PyTorch's only warns for ops it lacks a rule for, which are
not the same ops), so correctness never depends on a rule existing.
Autograd records the physical ops, so gradients of the physical inputs are gradients of the
batch (grad of vmap). A transform inside a vmap (vmap of grad) differentiates with respect to
inputs batched along every running level (an unbatched input is expanded first), so the
gradient of the physical output's sum is each element's own gradient; see _transforms.
Hand-written functions that read a tensor's array (`x._data`: NumPy code outside the op
table, `.item()`, printing, in-place ops) cannot see a batch: a BatchedTensor has no `_data`,
and reading it raises `Unbatchable`, upon which vmap runs the function again element by
element (Note [vmap by elements] in _vmap.py), the random generator's state restored first.
"""
import math

import numpy as np

from .. import _dtype as _dtypes
from .._random import get_rng_state, set_rng_state
from .._tensor import Size, Tensor, make_tensor
from ..ops import nn_ops as _nn_ops, registry
from ..ops.linalg import matmul as physical_matmul
from ..ops.pointwise import where
from ..ops.registry import OPS, dispatch


class Unbatchable(BaseException):
    """Raised where a batch cannot be run at once; vmap then maps element by element. A
    BaseException, so user code's `except Exception` does not swallow it."""


SIZES = {}        # level -> batch size, for the running batched vmaps


def final(error):
    """`error` marked as the one vmap raises: a batching rule's own error, which PyTorch's
    rule gives too (not a reason to run element by element)."""
    error.vmap_final = True
    return error


class BatchedTensor(Tensor):
    """One batch element's view of the physical tensor `_phys` (Note [Batching rules])."""
    __slots__ = ("_phys", "_levels")

    def __getattr__(self, name):
        # the Tensor slots (_data, _grad_fn, _base, ...) are never set on a BatchedTensor:
        # code reading them works on arrays and cannot see the batch
        raise Unbatchable(name)

    @property
    def shape(self):
        return _new_size(Size, self._phys._data.shape[len(self._levels):])

    def size(self, dim=None):
        shape = _new_size(Size, self._phys._data.shape[len(self._levels):])
        if dim is None:
            return shape
        return shape[_wrap(dim, len(shape))]

    def dim(self):
        return self._phys.dim() - len(self._levels)

    ndimension = dim

    @property
    def ndim(self):
        return self._phys.dim() - len(self._levels)

    def numel(self):
        return math.prod(self._phys.shape[len(self._levels):])

    nelement = numel

    @property
    def dtype(self):
        return self._phys.dtype

    def is_floating_point(self):
        return self._phys.is_floating_point()

    def is_complex(self):
        return self._phys.is_complex()

    def element_size(self):
        return self._phys.element_size()

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def is_contiguous(self, *, memory_format=None):
        return True     # as PyTorch's BatchedTensors say: the element has no strides of its own

    @property
    def requires_grad(self):
        return self._phys.requires_grad

    def requires_grad_(self, requires_grad=True):
        self._phys.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._phys.grad_fn

    @property
    def is_leaf(self):
        return self._phys.is_leaf

    def detach(self):
        return wrap(self._phys.detach(), self._levels)

    def __repr__(self, *, tensor_contents=None):
        raise Unbatchable("repr")

    def __getitem__(self, item):
        if not isinstance(item, tuple):
            item = (item,)
        if not all(i is None or i is Ellipsis or type(i) in (int, slice) for i in item):
            raise Unbatchable("index")
        return unhooked(lambda: wrap(self._phys[(slice(None),) * len(self._levels) + item],
                                      self._levels))

    def new_zeros(self, *size, **kwargs):
        return self._phys.new_zeros(*size, **kwargs)

    def new_ones(self, *size, **kwargs):
        return self._phys.new_ones(*size, **kwargs)

    def new_empty(self, *size, **kwargs):
        return self._phys.new_empty(*size, **kwargs)

    def reshape(self, *shape):
        shape = _shape_arg(shape)
        return unhooked(lambda: wrap(self._phys.reshape(
            tuple(self._phys.shape[:len(self._levels)]) + shape), self._levels))

    view = reshape

    def view_as(self, other):
        return self.reshape(other.shape)

    reshape_as = view_as

    def expand_as(self, other):
        return dispatch(OPS["expand"], (self,), (tuple(other.shape),))

    def flatten(self, start_dim=0, end_dim=-1):
        shape = tuple(self.shape)
        if not shape:
            return self.reshape(1)
        s, e = _wrap(start_dim, len(shape)), _wrap(end_dim, len(shape))
        if s >= e:
            if s > e:
                raise Unbatchable("flatten")
            return self
        return self.reshape(shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])

    def contiguous(self, memory_format=None):
        return self

    def movedim(self, source, destination):
        n = self.dim()
        src = [source] if type(source) is int else list(source)
        dst = [destination] if type(destination) is int else list(destination)
        if len(src) != len(dst) or any(type(d) is not int for d in src + dst):
            raise Unbatchable("movedim")      # the element-by-element run gives the error
        src, dst = [_wrap(d, n) for d in src], [_wrap(d, n) for d in dst]
        if len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise Unbatchable("movedim")
        order = [None] * max(n, 1)
        for s, d in zip(src, dst):
            order[d] = s
        rest = iter(d for d in range(n) if d not in src)
        return self.permute([next(rest) if d is None else d for d in order[:n]])

    moveaxis = movedim

    def to(self, *args, **kwargs):
        out = unhooked(lambda: self._phys.to(*args, **kwargs))
        return self if out is self._phys else wrap(out, self._levels)

    def type_as(self, other):
        return self.to(other.dtype)

    def sum_to_size(self, *size):
        size = _shape_arg(size)
        shape = tuple(self.shape)
        if shape == size:
            return self
        lead = len(shape) - len(size)
        if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
            raise Unbatchable("sum_to_size")
        dims = [i for i in range(len(shape))
                if i < lead or (size[i - lead] == 1 and shape[i] != 1)]
        out = dispatch(OPS["sum.dim_IntList"], (self,), (dims, True, None)) if dims else self
        return out.reshape(size) if lead else out

    def matmul(self, other):
        return unhooked(lambda: matmul(self, other))

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return self.matmul(other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return unhooked(lambda: matmul(other, self))


def _converter(dtype):
    def convert(self, memory_format=None):
        return self.to(dtype)
    return convert


for _name in ("float", "double", "half", "long", "int", "short", "char", "byte", "bool",
              "cfloat", "cdouble", "bfloat16", "chalf"):
    setattr(BatchedTensor, _name, _converter(getattr(_dtypes, {
        "float": "float32", "double": "float64", "half": "float16", "long": "int64",
        "int": "int32", "short": "int16", "char": "int8", "byte": "uint8",
        "cfloat": "complex64", "cdouble": "complex128", "chalf": "complex32"}.get(_name, _name))))

_new = object.__new__
_new_size = tuple.__new__      # a Size of ints already checked


def wrap(phys, levels):
    """A BatchedTensor over `phys`, batched along `levels`; `phys` itself when no level."""
    if not levels:
        return phys
    b = _new(BatchedTensor)
    b._phys = phys
    b._levels = levels
    return b


def _wrap(d, n):
    if not -max(n, 1) <= d < max(n, 1):
        raise Unbatchable("dim")
    return d % max(n, 1)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(shape[0])
    return tuple(shape)


def unhooked(f):
    """f() with the hook off (rules work on physical tensors), restored after."""
    hook, registry.VMAP = registry.VMAP, None
    try:
        return f()
    finally:
        registry.VMAP = hook


def ones(p):
    """Ones shaped as the plain tensor p (the cotangent of a batch of scalars)."""
    return make_tensor(np.ones(p._data.shape, p._data.dtype))


def to_levels(x):
    """x batched along every running level (expanded where it is not)."""
    levels = tuple(sorted(SIZES))
    if type(x) is BatchedTensor and x._levels == levels:
        return x
    if type(x) is not BatchedTensor and not x.requires_grad:
        # nothing to record: the array itself, broadcast
        sizes = tuple(SIZES[level] for level in levels)
        return wrap(make_tensor(np.broadcast_to(x._data, sizes + x._data.shape)), levels)
    return wrap(unhooked(lambda: full(x, levels)), levels)


# ---- the hook ------------------------------------------------------------------------------

def _batched_in(x):
    return type(x) is BatchedTensor or (type(x) in (list, tuple) and any(
        type(y) is BatchedTensor for y in x))


def _dispatch(op, inputs, params):
    """registry.dispatch while a vmap runs batched (Note [Batching rules])."""
    for p in params:
        if type(p) is BatchedTensor or type(p) in _SEQUENCES and _batched_in(p):
            rule = _TENSOR_PARAM_RULES.get(op.name)
            if rule is None:
                # a tensor parameter (a target, running statistics the row updates in place)
                # is read as an array: the element-by-element run's business
                raise Unbatchable(op.name)
            registry.VMAP = None
            try:
                return rule(op, inputs, params)
            finally:
                registry.VMAP = _dispatch
    rule = None
    for x in inputs:
        if type(x) is BatchedTensor:
            if op.name.split(".")[0].endswith("_") or (
                    op.name in _UPDATES_STATS and _UPDATES_STATS[op.name](inputs, params)):
                # the row writes into an input's array: the element-by-element run's
                raise Unbatchable(op.name)
            rule = RULES.get(op.name, _loop)
            break
    registry.VMAP = None
    try:
        return dispatch(op, inputs, params) if rule is None else rule(op, inputs, params)
    finally:
        registry.VMAP = _dispatch


_SEQUENCES = (list, tuple)
# rows whose forward updates running statistics passed as inputs
_UPDATES_STATS = {"native_batch_norm": lambda inputs, params: params[0] and (
                      inputs[3] is not None or inputs[4] is not None),
                  "batch_norm_update_stats": lambda inputs, params: True}


def _levels_of(tensors):
    levels = None
    for x in tensors:
        if type(x) is BatchedTensor:
            if levels is None:
                levels = x._levels
            elif x._levels != levels:
                levels = tuple(sorted(set(levels) | set(x._levels)))
    return levels


def _phys(x, levels, rank):
    """x's physical tensor laid out for `levels` and an element rank of `rank`: size-1 dims
    where x has no such level and before its own dims (a plain tensor: as it is, NumPy
    broadcasting aligns it from the right)."""
    if type(x) is not BatchedTensor:
        return x
    p, own = x._phys, x._levels
    r = p.dim() - len(own)
    if own == levels and r == rank:
        return p
    shape, ps, j = [], p.shape, 0
    for level in levels:
        if j < len(own) and own[j] == level:
            shape.append(ps[j])
            j += 1
        else:
            shape.append(1)
    return p.reshape(shape + [1] * (rank - r) + list(ps[len(own):]))


def full(x, levels, rank=None):
    """x's physical tensor laid out for `levels` and `rank` (default: x's element rank) as
    _phys does, every batch dim at its full size."""
    if rank is None:
        rank = x.dim()
    sizes = tuple(SIZES[level] for level in levels)
    if type(x) is not BatchedTensor:
        if rank > x.dim():
            x = x.reshape((1,) * (rank - x.dim()) + tuple(x.shape))
        return x.expand(sizes + tuple(x.shape))
    p = _phys(x, levels, rank)
    return p if tuple(p.shape[:len(levels)]) == sizes else p.expand(sizes + tuple(p.shape[
        len(levels):]))


def _wrap_out(op, out, levels):
    if op.n_outputs == 1:
        return wrap(out, levels)
    wrapped = [wrap(o, levels) for o in out]
    return tuple(wrapped) if op.n_outputs == -1 else type(out)(*wrapped)


# ---- the fallback: the op alone, element by element ----------------------------------------

def _loop(op, inputs, params):
    """`op` on each batch element's slices, the results stacked (PyTorch's fallback). Tensor
    parameters are never batched here (_dispatch reruns the function for those)."""
    from ._vmap import _MODES
    levels = _levels_of(inputs)
    sizes = tuple(SIZES[level] for level in levels)
    n = math.prod(sizes)
    flat = [full(x, levels, x.dim()).reshape((n,) + tuple(x.shape))
            if type(x) is BatchedTensor else None for x in inputs]
    replay = "same" in _MODES
    if replay:
        state = get_rng_state()
    outs = []
    for i in range(n):
        if replay:
            set_rng_state(state)
        outs.append(dispatch(op, tuple(x if f is None else dispatch(_SELECT, (f,), (0, i))
                                       for x, f in zip(inputs, flat)), params))
    if op.n_outputs == 1:
        return _stacked(outs, sizes, levels)
    wrapped = [_stacked([o[j] for o in outs], sizes, levels) for j in range(len(outs[0]))]
    return tuple(wrapped) if op.n_outputs == -1 else type(outs[0])(*wrapped)


def _stacked(column, sizes, levels):
    out = dispatch(OPS["stack"], tuple(column), (0,))
    return wrap(out.reshape(sizes + tuple(column[0].shape)), levels)


_SELECT = OPS["select.int"]
_BMM = OPS["bmm"]


# ---- rules ---------------------------------------------------------------------------------

def _pointwise(op, inputs, params):
    levels = _levels_of(inputs)
    rank = max(x.dim() for x in inputs if isinstance(x, Tensor))
    if any(type(x) is BatchedTensor and x.dim() == 0 for x in inputs):
        # a batched 0-d operand is physically dimensioned: type promotion would differ
        dtypes = {x.dtype for x in inputs if isinstance(x, Tensor)}
        if len(dtypes) > 1:
            return _loop(op, inputs, params)
    phys = tuple(_phys(x, levels, rank) for x in inputs)
    return _wrap_out(op, dispatch(op, phys, params), levels)


def _shift(d, r, k):
    """Element dim(s) `d` of a rank-r element as physical dims past k batch dims."""
    if type(d) in (tuple, list):
        return type(d)(_shift(x, r, k) for x in d)
    if type(d) is not int or not -r <= d < r:
        raise _Fallback
    return d % r + k


class _Fallback(Exception):
    """A rule's case it does not cover: the op goes to the loop."""


def _dims_rule(*names, rank_offset=0, all_dims=False, none_is_all=False):
    """A rule for single-input rows whose params `names` are element dims (all of them where
    all_dims and the param is None or empty, or none_is_all and it is None)."""
    def rule(op, inputs, params):
        x = inputs[0]
        if len(inputs) != 1 or any(isinstance(p, Tensor) for p in params):
            return _loop(op, inputs, params)
        k, r = len(x._levels), x.dim() + rank_offset
        shifted = list(params)
        try:
            if r == 0:
                raise _Fallback
            for name in names:
                i = op.params.index(name)
                d = params[i]
                if all_dims and (d is None or d == () or d == []) or none_is_all and d is None:
                    shifted[i] = tuple(range(k, k + r))
                else:
                    shifted[i] = _shift(d, r, k)
        except _Fallback:
            return _loop(op, inputs, params)
        return _wrap_out(op, dispatch(op, (x._phys,), tuple(shifted)), x._levels)
    return rule


def _full_reduction(target):
    def rule(op, inputs, params):
        x = inputs[0]
        if type(x) is not BatchedTensor or x.dim() == 0:
            return _loop(op, inputs, params)
        k = len(x._levels)
        row = OPS[target]
        return wrap(dispatch(row, (x._phys,), (tuple(range(k, k + x.dim())), False) + params),
                    x._levels)
    return rule


def _flat_reduction(target):
    """A full reduction as `target`, a row reducing one dim, over each element flattened."""
    def rule(op, inputs, params):
        x = inputs[0]
        if type(x) is not BatchedTensor or x.dim() == 0:
            return _loop(op, inputs, params)
        k = len(x._levels)
        flat = x._phys.reshape(tuple(x._phys.shape[:k]) + (-1,))
        return wrap(dispatch(OPS[target], (flat,), (k, False) + params), x._levels)
    return rule


def _view(op, inputs, params):
    x = inputs[0]
    k = len(x._levels)
    size = tuple(params[0])
    return wrap(x._phys.reshape(tuple(x._phys.shape[:k]) + size), x._levels)


def _expand(op, inputs, params):
    x = inputs[0]
    size = tuple(params[0])
    levels, k = x._levels, len(x._levels)
    if len(size) < x.dim():
        return _loop(op, inputs, params)
    p = _phys(x, levels, len(size))
    new = tuple(p.shape[:k]) + tuple(p.shape[k + j] if s == -1 else s
                                     for j, s in enumerate(size))
    return wrap(dispatch(op, (p,), (new,) + tuple(params[1:])), levels)


def _permute(op, inputs, params):
    x = inputs[0]
    k, r = len(x._levels), x.dim()
    dims = params[0]
    if len(dims) != r or r == 0:
        return _loop(op, inputs, params)
    try:
        dims = tuple(range(k)) + _shift(tuple(dims), r, k)
    except _Fallback:
        return _loop(op, inputs, params)
    return wrap(dispatch(op, (x._phys,), (dims,)), x._levels)


def _t(op, inputs, params):
    x = inputs[0]
    if x.dim() < 2:
        return wrap(dispatch(OPS["alias"], (x._phys,), ()), x._levels)
    if x.dim() > 2:
        return _loop(op, inputs, params)
    k = len(x._levels)
    return wrap(dispatch(OPS["transpose.int"], (x._phys,), (k, k + 1)), x._levels)


def _squeeze(op, inputs, params):
    x = inputs[0]
    k = len(x._levels)
    dims = tuple(k + i for i, s in enumerate(x.shape) if s == 1)
    if not dims:
        return wrap(dispatch(OPS["alias"], (x._phys,), ()), x._levels)
    return wrap(dispatch(OPS["squeeze.dims"], (x._phys,), (dims,)), x._levels)


def _same(op, inputs, params):
    """Rows acting on each element alone whatever its layout (clone, alias, dtype casts)."""
    return _wrap_out(op, dispatch(op, (inputs[0]._phys,), params), inputs[0]._levels)


def matmul(a, b):
    """Element-wise torch.matmul of (possibly) batched a and b, by one physical matmul
    (its broadcasting over leading dims covers the batch dims)."""
    levels = _levels_of((a, b))
    ra, rb = a.dim(), b.dim()
    if ra == 0 or rb == 0:
        raise Unbatchable("matmul")
    if type(a) is not BatchedTensor and ra == 2 and rb == 1:
        # matrix times a batch of vectors: the batch of rows times the matrix's transpose,
        # one matrix product (the matrix is not copied once per element)
        return wrap(physical_matmul(_phys(b, levels, 1), a.mT), levels)
    rank = max(ra, rb, 2)

    def operand(x, r, at):
        if type(x) is not BatchedTensor:
            return x.unsqueeze(at) if r == 1 else x
        p = x._phys.unsqueeze(at) if r == 1 else x._phys
        return _phys(wrap(p, x._levels), levels, rank)
    pa, pb = operand(a, ra, -2), operand(b, rb, -1)
    if pa.dim() == 3 and pb.dim() == 3 and pa.shape[0] == pb.shape[0] and len(levels) == 1:
        out = dispatch(_BMM, (pa, pb), ())      # one batch dim, both full: bmm itself
    else:
        out = physical_matmul(pa, pb)
    if rb == 1:
        out = out.squeeze(-1)
    if ra == 1:
        out = out.squeeze(-1 if rb == 1 else -2)
    return wrap(out, levels)


def _matmul_rule(op, inputs, params):
    return matmul(*inputs)


def _addmm(op, inputs, params):
    bias, m1, m2 = inputs
    beta, alpha = params
    if type(bias) is not BatchedTensor and type(m2) is not BatchedTensor:
        # one BLAS call over the batch folded into mat1's rows
        k = len(m1._levels)
        p = m1._phys
        rows = p.reshape((-1, p.shape[-1]))
        out = dispatch(op, (bias, rows, m2), params)
        return wrap(out.reshape(tuple(p.shape[:k]) + (p.shape[-2], out.shape[-1])), m1._levels)
    levels = _levels_of(inputs)
    if len(levels) == 1 and m1.dim() == 2 and m2.dim() == 2 and all(
            type(m) is BatchedTensor for m in (m1, m2)) and bias.dim() <= 2:
        # baddbmm: the product and the bias in one row
        return wrap(dispatch(OPS["baddbmm"], (_phys(bias, levels, 2), m1._phys, m2._phys),
                             params), levels)
    out = matmul(m1, m2)
    p, levels = out._phys, out._levels
    if alpha != 1:
        p = p * alpha
    if beta != 0:
        b = _phys(bias, _levels_of((bias, out)), 2)
        p = p + (b if beta == 1 else b * beta)
    return wrap(p, _levels_of((bias, out)))


def _pointwise_loss(op, inputs, params):
    """Element-wise losses with a reduction (mse_loss, huber_loss, binary_cross_entropy, ...):
    the unreduced loss of the batch, reduced over each element's dims."""
    x, t = inputs
    at = op.params.index("reduction")
    reduction = params[at]
    levels = _levels_of(inputs)
    rank = max(x.dim(), t.dim())
    loss = dispatch(op, (_phys(x, levels, rank), _phys(t, levels, rank)),
                    params[:at] + ("none",) + params[at + 1:])
    if reduction == "none":
        return wrap(loss, levels)
    dims = tuple(range(len(levels), loss.dim()))
    if not dims:
        return wrap(loss, levels)
    row = OPS["mean.dim" if reduction == "mean" else "sum.dim_IntList"]
    return wrap(dispatch(row, (loss,), (dims, False, None)), levels)


def _gather(op, inputs, params):
    """gather along an element dim, for a batched input or index or both: both at full batch
    size and the dim shifted, so each element's indices pick from its own slice."""
    x, (dim, index, *rest) = inputs[0], params
    r = x.dim()
    if r == 0 or index.dim() != r or type(dim) is not int or not -r <= dim < r:
        if type(index) is BatchedTensor:
            raise Unbatchable("gather")     # the element-by-element run gives the error
        return _loop(op, inputs, params)
    levels = _levels_of((x, index))
    return wrap(dispatch(op, (full(x, levels),), (dim % r + len(levels), full(index, levels),
                                                  *rest)), levels)


def _trailing(core):
    """A rule for single-input rows acting on each element's last `core` dims and batching
    over any dims before them (linalg's matrix functions, tril, view_as_real): the physical
    tensor as it is."""
    def rule(op, inputs, params):
        x = inputs[0]
        if len(inputs) != 1 or x.dim() < core:
            return _loop(op, inputs, params)      # the loop gives PyTorch's error
        out = dispatch(op, (x._phys,), params)
        k = len(x._levels)
        sizes = tuple(x._phys.shape[:k])
        if any(o.dim() < k or tuple(o.shape[:k]) != sizes
               for o in ((out,) if op.n_outputs == 1 else out)):
            return _loop(op, inputs, params)      # an output not per matrix (empty U of svd)
        return _wrap_out(op, out, x._levels)
    return rule


def _joining(op, inputs, params):
    tensors = inputs     # a list input's tensors are the inputs
    dim = params[0]
    ranks = {x.dim() for x in tensors}
    if len(ranks) != 1 or type(dim) is not int:
        return _loop(op, inputs, params)
    r = ranks.pop() + (op.name == "stack")
    levels = _levels_of(tensors)
    try:
        d = _shift(dim, r, len(levels))
    except _Fallback:
        return _loop(op, inputs, params)
    rank = r - (op.name == "stack")
    phys = [full(x, levels, rank) for x in tensors]
    return wrap(dispatch(op, tuple(phys), (d,) + tuple(params[1:])), levels)


# ---- class-index losses: nll_loss, cross_entropy's label smoothing ---------------------------
# Not rows with batched inputs: their class indices are an array parameter of the row, which
# differs per element. nn.functional hands them here while a vmap runs batched; the batch is
# folded into the row's rows (its unreduced losses) and each element reduced on its own, as
# PyTorch's batching rule (a gather) does; its errors are the gather's.

def _class_targets(input, target, weight, ignore_index):
    """(levels, log-probabilities laid out (batch..., target's dims..., classes), the
    targets' array (batch..., target's dims...), where they are ignored, their weights)."""
    levels = _levels_of((input, target))
    k = len(levels)
    sizes = tuple(SIZES[level] for level in levels)
    t = target._phys._data if type(target) is BatchedTensor else target._data
    t = np.broadcast_to(_phys_array(target, levels, t), sizes + tuple(target.shape))
    if t.dtype not in (np.int64, np.int32):
        raise final(RuntimeError("gather(): Expected dtype int32/int64 for index"))
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim]
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise final(RuntimeError(f"index {t[bad].flat[0]} is out of bounds for dimension "
                                 f"{k + class_dim} with size {n_classes}"))
    x = full(input, levels)
    if class_dim != input.dim() - 1:
        x = x.movedim(k + class_dim, -1)
    dtype = x._data.dtype
    w = np.ones(t.shape, dtype) if weight is None else \
        weight.astype(dtype)[np.where(ignored, 0, t)]
    return levels, x, t, ignored, np.where(ignored, 0, w).astype(dtype)


def _phys_array(x, levels, array):
    """A target's array laid out for `levels` (size-1 dims where it has no such level)."""
    if type(x) is not BatchedTensor:
        return array
    shape = [array.shape[x._levels.index(lv)] if lv in x._levels else 1 for lv in levels]
    return array.reshape(shape + list(array.shape[len(x._levels):]))


def _reduce(loss, levels, reduction, denominator):
    dims = tuple(range(len(levels), loss.dim()))
    if reduction == "none":
        return loss
    total = loss.sum(dims) if dims else loss
    if reduction == "sum":
        return total
    return total / make_tensor(np.asarray(denominator.sum(dims) if dims else denominator))


def nll_loss(input, target, weight, reduction, ignore_index):
    """F.nll_loss of log-probabilities `input` against class indices `target` (`weight` an
    array or None) with either batched; None when neither is."""
    if type(input) is not BatchedTensor and type(target) is not BatchedTensor:
        return None

    def run():
        levels, x, t, _, w = _class_targets(input, target, weight, ignore_index)
        rows = x.reshape((-1, x.shape[-1]))
        loss = _nn_ops.nll_loss(rows, t.reshape(-1), weight, "none",
                                ignore_index).reshape(t.shape)
        return wrap(_reduce(loss, levels, reduction, w), levels)
    return unhooked(run)


def label_smoothing_loss(logp, target, weight, reduction, ignore_index):
    """cross_entropy's smoothing term for class indices (the sum over classes of -logp,
    weighted, reduced as the nll term) with either batched; None when neither is."""
    if type(logp) is not BatchedTensor and type(target) is not BatchedTensor:
        return None

    def run():
        levels, x, _, ignored, w = _class_targets(logp, target, weight, ignore_index)
        if weight is not None:
            x = x * make_tensor(weight.astype(x._data.dtype))
        loss = where(make_tensor(ignored), 0.0, -x.sum(-1))
        return wrap(_reduce(loss, levels, reduction, w if weight is not None else
                            (~ignored).astype(w.dtype)), levels)
    return unhooked(run)


def _pointwise_rows():
    """The element-wise rows: the pointwise and special families' rows with no dims, sizes
    or lists among their parameters."""
    from ..ops import pointwise, special, special_bessel, special_polynomials
    shaped = {"dim", "dims", "size", "shape", "indices", "index", "output_size", "dtype_out"}
    rows = set()
    for module in (pointwise, special, special_bessel, special_polynomials):
        for value in vars(module).values():
            row = getattr(value, "op", None)
            if (type(row) is registry.Op and not row.list_input and row.n_outputs != -1
                    and not shaped.intersection(row.params) and row.inputs
                    and not row.name.split(".")[0].endswith("_")):     # not in place
                rows.add(row.name)
    return rows


RULES = {name: _pointwise for name in _pointwise_rows()}
RULES.update({
    "add.Scalar": _pointwise, "sub.Scalar": _pointwise, "mul.Scalar": _pointwise,
    "div.Scalar": _pointwise, "where.self": _pointwise,
    # comparisons and logical/bitwise rows (made in pointwise.py without a module name)
    "eq": _pointwise, "ne": _pointwise, "lt": _pointwise, "le": _pointwise, "gt": _pointwise,
    "ge": _pointwise, "logical_and": _pointwise, "logical_or": _pointwise,
    "logical_xor": _pointwise, "bitwise_and": _pointwise, "bitwise_or": _pointwise,
    "bitwise_xor": _pointwise, "conj": _pointwise,
    "tril": _trailing(2), "triu": _trailing(2), "view_as_real": _trailing(0),
    "view_as_complex": _trailing(1),
    "sum": _full_reduction("sum.dim_IntList"), "mean": _full_reduction("mean.dim"),
    "view": _view, "_unsafe_view": _view, "_reshape_alias": _view, "view_copy": _view,
    "expand": _expand, "permute": _permute, "t": _t, "squeeze": _squeeze,
    "transpose.int": _dims_rule("dim0", "dim1"), "unsqueeze": _dims_rule("dim", rank_offset=1),
    "select.int": _dims_rule("dim"),
    "unsqueeze_copy": _dims_rule("dim", rank_offset=1),
    "mm": _matmul_rule, "bmm": _matmul_rule, "mv": _matmul_rule, "dot": _matmul_rule,
    "addmm": _addmm, "cat": _joining, "stack": _joining,
    "alias": _same, "clone": _same, "detach_copy": _same, "_to_copy": _same,
})
for _name in ("celu", "elu", "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
              "leaky_relu", "mish", "silu", "softplus", "softshrink", "threshold",
              "log_sigmoid_forward", "elu_backward", "gelu_backward", "hardshrink_backward",
              "hardsigmoid_backward", "hardswish_backward", "hardtanh_backward",
              "leaky_relu_backward", "log_sigmoid_backward", "softplus_backward",
              "softshrink_backward"):
    RULES[_name] = _pointwise         # element-wise rows of the nn family
RULES["gather"] = _gather
# rows whose batched tensor parameters a rule handles (others rerun element by element)
_TENSOR_PARAM_RULES = {"gather": _gather}
for _name in ("mse_loss", "huber_loss", "smooth_l1_loss", "soft_margin_loss",
              "binary_cross_entropy", "binary_cross_entropy_with_logits"):
    RULES[_name] = _pointwise_loss
for _name in ("linalg_det", "linalg_inv_ex", "_linalg_svd", "linalg_eig", "linalg_slogdet",
              "linalg_matrix_exp", "linalg_lu_factor_ex", "linalg_cholesky_ex", "linalg_qr",
              "_linalg_eigh"):
    RULES[_name] = _trailing(2)       # matrix functions batch over leading dims
for _name in ("sum.dim_IntList", "mean.dim", "amax", "amin", "nansum"):
    RULES[_name] = _dims_rule("dim", all_dims=True)
for _name in ("all", "any", "count_nonzero", "linalg_vector_norm", "std.correction",
              "var.correction", "std_mean.correction", "var_mean.correction"):
    RULES[_name] = _dims_rule("dim", none_is_all=True)
# full reductions: max and min spread the gradient over ties as amax and amin do
RULES.update({"max": _full_reduction("amax"), "min": _full_reduction("amin"),
              "prod": _flat_reduction("prod.dim_int")})
# rows whose `dim` is the one dim they keep (the others are reduced over together)
_ALL_BUT_DIM = ("renorm", "_weight_norm", "_weight_norm_interface", "norm_except_dim")
for _name, _row in OPS.items():
    if _name not in RULES and "dim" in _row.params and len(_row.inputs) == 1 and \
            not _row.list_input and not {"index", "indices", "dims"} & set(_row.params) \
            and not any("size" in p or "shape" in p for p in _row.params) \
            and _name.split(".")[0] not in _ALL_BUT_DIM:     # sizes would be the element's
        RULES[_name] = _dims_rule("dim")
