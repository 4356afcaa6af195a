"""Matrix products: mm, bmm, mv, dot, addmm rows; matmul, outer and einsum built on them.

matmul is PyTorch's composite (at::native::_matmul_impl): it picks dot/mv/mm/bmm and wraps
them in the same views, expands and copies, so graphs have PyTorch's nodes. einsum is one
row computed by np.einsum whose gradients are einsums again (PyTorch decomposes it into
permutes and bmm instead, so its node names differ).
"""
import string
import warnings

import numpy as np

from .. import _dtype
from .._dtype import FROM_NP
from .._tensor import Tensor, make_tensor
from .._dims import sizes_str
from .inplace import dispatch_inplace
from .registry import EXACT, FUNCTIONS, op, out_exact, public
from .shape import _expand, _unsafe_view

# out= dtype rule of dot and matmul, in their words (Note [out=] in registry.py)
_MATMUL_OUT = out_exact("result dtype {got} does not match input dtype {expected}")

# ---- checks with PyTorch's messages -------------------------------------------------------

# the types a Scalar argument is converted to, as its overflow message names them
_SCALAR_CTYPE = {np.dtype(k): v for k, v in (
    (np.float16, "float"), (np.float32, "float"), (np.float64, "double"), (np.int8, "int8_t"),
    (np.int16, "int16_t"), (np.int32, "int"), (np.int64, "int64_t"), (np.uint8, "uint8_t"))}


def _name(a):
    return FROM_NP[a.dtype].legacy


def _no_bool(a, kernel):
    if a.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_mm(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} "
                           f"and {b.shape[0]}x{b.shape[1]})")


def _scalar(value, dtype):
    """A Scalar argument (alpha, beta) converted to the tensor's type, as PyTorch does."""
    if dtype.kind == "c":
        return value
    if isinstance(value, complex) or (dtype.kind in "iu" and not
                                      np.iinfo(dtype).min <= int(value) <= np.iinfo(dtype).max):
        raise RuntimeError(f"value cannot be converted to type {_SCALAR_CTYPE[dtype]} without "
                           "overflow")
    return int(value) if dtype.kind in "iu" else value


def _matmul(a, b):
    # float16 products accumulate in float32, as PyTorch's CPU kernels do
    if a.dtype == np.float16:
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    return np.matmul(a, b)


def _times(t, s):
    """PyTorch's maybe_multiply(t, s.conj())."""
    return t if s == 1 else t * s.conjugate()


# ---- the rows -----------------------------------------------------------------------------

def _mm(a, b):
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(a, b)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {FROM_NP[a.dtype].cpp} "
                           f"!= {FROM_NP[b.dtype].cpp}")
    _no_bool(a, "addmm_impl_cpu_")
    return _matmul(a, b)


mm = op("mm", "MmBackward0", "self, mat2", _mm,
        self=lambda grad, mat2: grad.mm(mat2.t().conj()),
        mat2=lambda grad, self: self.t().conj().mm(grad), out=EXACT)


def _bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_name(a)} but found {_name(b)}")
    _no_bool(a, "bmm")
    return _matmul(a, b)


bmm = op("bmm", "BmmBackward0", "self, mat2", _bmm,
         self=lambda grad, mat2: grad.bmm(mat2.transpose(1, 2).conj()),
         mat2=lambda grad, self: self.transpose(1, 2).conj().bmm(grad))


def _mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(v)}, "
                           f"{_name(a)}, and {_name(v)}")
    _no_bool(a, "addmv_impl_cpu")
    return _matmul(a, v)


mv = op("mv", "MvBackward0", "self, vec", _mv,
        self=lambda grad, vec: _outer(grad, vec.conj()),
        vec=lambda grad, self: self.conj().t().mv(grad))


def _dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_name(a)} "
                           f"and {_name(b)}")
    if a.shape != b.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _no_bool(a, "dot")
    return _matmul(a, b)


dot = op("dot", "DotBackward0", "self, tensor", _dot,
         self=lambda grad, tensor: grad * tensor.conj(),
         tensor=lambda grad, self: grad * self.conj(), out=_MATMUL_OUT)


def _addmm(c, a, b, beta, alpha):
    if c.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(c)} and "
                           f"{_name(b)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_name(a)} and "
                           f"{_name(b)}")
    for arg, m in (("mat1", a), ("mat2", b)):
        if m.ndim != 2:
            raise RuntimeError(f"{arg} must be a matrix, got {m.ndim}-D tensor")
    _check_mm(a, b)
    c = _expand(c, (a.shape[0], b.shape[1]))
    _no_bool(a, "addmm_impl_cpu_")
    beta, alpha = _scalar(beta, c.dtype), _scalar(alpha, c.dtype)
    # BLAS semantics: a zero beta ignores self and a zero alpha the product (NaNs included)
    out = _matmul(a, b) if alpha != 0 else np.zeros(c.shape, c.dtype)
    if alpha not in (0, 1):
        out *= alpha
    if beta != 0:
        out += c if beta == 1 else c * beta
    return out


addmm = op("addmm", "AddmmBackward0", "self, mat1, mat2, *, beta=1, alpha=1", _addmm,
           self=lambda grad, beta: _times(grad, beta),
           mat1=lambda grad, mat2, alpha: _times(grad.mm(mat2.t().conj()), alpha),
           mat2=lambda grad, mat1, alpha: _times(mat1.t().conj().mm(grad), alpha), out=EXACT)


@public("addmm_", function=False)
def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    """In-place addmm: self must have the product's shape (it is not broadcast)."""
    if (mat1.dim() == 2 and mat2.dim() == 2 and mat1.shape[1] == mat2.shape[0]
            and self.dtype is mat1.dtype is mat2.dtype
            and tuple(self.shape) != (mat1.shape[0], mat2.shape[1])):
        raise RuntimeError(f"Bad in-place call: input tensor size {sizes_str(self.shape)} and "
                           f"output tensor size {sizes_str((mat1.shape[0], mat2.shape[1]))} "
                           "should match")
    return dispatch_inplace(addmm.op, (self, mat1, mat2), (beta, alpha))


# matmul squeezes its mm result in place (squeeze_); nobody else sees that intermediate, so an
# out-of-place row with squeeze_'s node gives the same graph.
_squeeze_ = op("squeeze_.dim", "SqueezeBackward4", "self, dim", lambda a, dim: np.squeeze(a, dim),
               function=False, method=False,
               self=lambda grad, self_shape: grad.reshape(self_shape))


# ---- composites ---------------------------------------------------------------------------

def _tensor_arg(fn, arg, x, position):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(x).__name__}")


def _outer(input, vec2):
    # PyTorch's outer is a reshape and a mul
    for arg, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {arg}, but got {t.dim()}-D")
    return input.reshape(input.shape[0], 1) * vec2


def _outer_api(name):
    def function(input, vec2):
        """Outer product of two vectors."""
        _tensor_arg(name, "input", input, 1)
        _tensor_arg(name, "vec2", vec2, 2)
        return _outer(input, vec2)
    function.__name__ = function.__qualname__ = name

    def method(self, vec2):
        _tensor_arg(name, "vec2", vec2, 1)
        return _outer(self, vec2)
    public(name, method=False, out=True, out_name="mul")(function)
    public(name, function=False)(method)
    return function


outer = _outer_api("outer")
_ger = _outer_api("ger")


@public("ger", method=False)
def ger(input, vec2, *, out=None):
    """Outer product of two vectors (deprecated for torch.outer)."""
    if out is None:
        return _ger(input, vec2)
    warnings.warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.outer instead.", UserWarning, stacklevel=2)
    return FUNCTIONS["outer"](input, vec2, out=out)


@public("matmul", method=False, out=_MATMUL_OUT)
def matmul(input, other):
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    _tensor_arg("matmul", "input", input, 1)
    _tensor_arg("matmul", "other", other, 2)
    return _matmul_impl(input, other)


@public("matmul", function=False)
def _matmul_method(self, other):
    _tensor_arg("matmul", "other", other, 1)
    return _matmul_impl(self, other)


@public("__matmul__", function=False)
def _matmul_dunder(self, other):
    return _matmul_impl(self, other) if isinstance(other, Tensor) else NotImplemented


@public("__rmatmul__", function=False)
def _rmatmul_dunder(self, other):
    return _matmul_impl(other, self) if isinstance(other, Tensor) else NotImplemented


def _should_fold(t1, t2):
    """Whether matmul folds the batch of the larger operand into mm/mv rows: always when the
    smaller one requires grad (its gradient stays small), else when that is a view."""
    larger = t1.dim() >= t2.dim()
    a = t1._data if larger else np.swapaxes(t2._data, -1, -2)
    if not (a.ndim >= 3 and (t2 if larger else t1).dim() <= 2):
        return False
    if (t2 if larger else t1).requires_grad:
        return True
    if t1.dim() == 2:
        return False
    if a.size == 0:
        return True
    st, sh = a.strides, a.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(a.ndim - 2))


def _broadcast_batch(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _matmul_impl(t1, t2):
    d1, d2 = t1.dim(), t2.dim()
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D "
                           f"and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(t1, t2)
    if d1 == 2 and d2 == 1:
        return mv(t1, t2)
    if d1 == 1 and d2 == 2:
        return _squeeze_(mm(t1.unsqueeze(0), t2), 0)
    if d1 == 2 and d2 == 2:
        return mm(t1, t2)
    if _should_fold(t1, t2):
        transpose = d2 > d1
        a = t2.mT if transpose else t1
        b = (t1.t() if d1 == 2 else t1) if transpose else t2
        out_shape = tuple(a.shape[:-1])
        folded = a.reshape(int(np.prod(out_shape)), a.shape[-1])
        if b.dim() == 1:
            return _unsafe_view(mv(folded, b), out_shape)
        out = _unsafe_view(mm(folded, b), out_shape + (b.shape[1],))
        return out.mT.contiguous() if transpose else out
    s1, s2 = tuple(t1.shape), tuple(t2.shape)
    n, m1 = (s1[-2] if d1 > 1 else 1), s1[-1]
    m2, p = (s2[-2], s2[-1]) if d2 > 1 else (s2[0], 1)
    b1, b2 = s1[:max(d1 - 2, 0)], s2[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and b1[0] != b2[0]:
        # a batch of one that requires grad is dropped, so its gradient needs no batch sum
        if b1[0] == 1 and t1.requires_grad:
            return _matmul_impl(t1.squeeze(0), t2)
        if b2[0] == 1 and t2.requires_grad:
            return _matmul_impl(t1, t2.squeeze(0))
    batch = _broadcast_batch(b1, b2)
    size = int(np.prod(batch))
    a = t1.expand(batch + (n, m1)).reshape(size, n, m1)
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    if d2 == 1:
        b = t2.expand(batch + (m2,)).reshape(size, m2).unsqueeze(2)
        return _unsafe_view(bmm(a, b).squeeze(-1), out_shape)
    return _unsafe_view(bmm(a, t2.expand(batch + (m2, p)).reshape(size, m2, p)), out_shape)


# ---- einsum -------------------------------------------------------------------------------

def _einsum_forward(arrays, equation, dtype):
    out = np.einsum(equation, *(a.astype(dtype.np, copy=False) for a in arrays), optimize=True)
    # np.einsum may return a view of an operand (transposes, diagonals); ours owns its data
    if any(np.may_share_memory(out, a) for a in arrays):
        out = out.copy()
    return np.asarray(out)


def _einsum_grads(grad, operands, equation):
    lhs, output = equation.split("->")
    specs = lhs.split(",")
    return [_einsum_grad(grad, operands, specs, output, k) if t.requires_grad else None
            for k, t in enumerate(operands)]


def _einsum_grad(grad, operands, specs, output, k):
    """Gradient of operand k: the einsum of grad with the other operands, to k's labels.

    A label repeated in operand k (a diagonal) gets a fresh label tied to the first by an
    identity matrix; where operand k is larger than what the others give (a label found
    nowhere else, or of size 1 there), the result is broadcast back."""
    fresh = iter(sorted(set(string.ascii_letters) - set("".join(specs) + output)))
    shape = operands[k].shape
    conj = (lambda t: t.conj()) if grad.is_complex() else (lambda t: t)
    args = [(output, grad)] + [(s, conj(t).to(grad.dtype)) for j, (s, t) in
                               enumerate(zip(specs, operands)) if j != k]
    target = []
    for pos, c in enumerate(specs[k]):
        if c in target:
            f = next(fresh)
            args.append((c + f, make_tensor(np.eye(shape[pos], dtype=grad._data.dtype))))
            c = f
        target.append(c)
    seen = set("".join(s for s, _ in args))
    kept = "".join(c for c in target if c in seen)
    g = _einsum_row([t for _, t in args], ",".join(s for s, _ in args) + "->" + kept, grad.dtype)
    sizes = iter(g.shape)
    full = [next(sizes) if c in seen else 1 for c in target]
    if len(kept) < len(target):
        g = g.reshape(full)
    if any(f == 1 and s != 1 for f, s in zip(full, shape)):
        g = g.expand([s if f == 1 else -1 for f, s in zip(full, shape)])
    return g


_einsum_row = op("einsum", "EinsumBackward0", "operands, equation, dtype", _einsum_forward,
                 list_input=True, function=False, method=False, operands=_einsum_grads)


_ELLIPSIS_ERRORS = {
    "input": ("for which an ellipsis was already found", "that is not part of any ellipsis"),
    "output": ("but an ellipsis (...) was already found", "that is not part of any ellipsis (...)")}


def _labels(term, side, offset, n_ops=0):
    """One side of an equation as label lists (the ellipsis as '.'), with PyTorch's errors;
    `offset` is where `term` starts in the equation."""
    terms, ell, i = [[]], False, 0
    while i < len(term):
        c = term[i]
        if c == ".":
            where = f"operand {len(terms) - 1}" if side == "input" else "output"
            repeated, broken = _ELLIPSIS_ERRORS[side]
            if ell:
                raise RuntimeError(f"einsum(): found '.' for {where} {repeated}")
            if not (i + 2 < len(term) and term[i + 1] == "." and term[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for {where} {broken}")
            terms[-1].append(".")
            ell = True
            i += 2
        elif c == "," and side == "input":
            if len(terms) == n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                                   "equation")
            terms.append([])
            ell = False
        elif c != " ":
            if c not in string.ascii_letters:
                raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in "
                                   "the equation string, subscripts must be in [a-zA-Z]")
            terms[-1].append(c)
        i += 1
    return terms


def _einsum_equation(equation, shapes):
    """Check `equation` against the operand shapes as PyTorch does; return it in NumPy's
    explicit form, the ellipsis spelled out in unused labels."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    terms = _labels(lhs, "input", 0, len(shapes))
    if len(terms) != len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    count = {}
    ell_dims = 0
    for i, (labels, shape) in enumerate(zip(terms, shapes)):
        n = len(labels) - ("." in labels)
        if "." in labels:
            ell_dims = max(ell_dims, len(shape) - n)
        for c in labels:
            if c != ".":
                count[c] = count.get(c, 0) + 1
        if ("." in labels and n > len(shape)) or ("." not in labels and n != len(shape)):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({n}) "
                + ("is more than" if "." in labels else "does not match")
                + f" the number of dimensions ({len(shape)}) for operand {i}"
                + ("" if "." in labels else " and no ellipsis was given"))
    unused = [c for c in string.ascii_letters if c not in count]
    ell = "".join(unused[:ell_dims])
    if arrow < 0:
        out = ell + "".join(sorted(c for c, k in count.items() if k == 1))
    else:
        out = ""
        for c in _labels(equation[arrow + 2:], "output", arrow + 2)[0]:
            if c == ".":
                out += ell
            elif count.get(c, 0) == 0 or c in out:
                raise RuntimeError(f"einsum(): output subscript {c} " + (
                    "appears more than once in the output" if c in out
                    else "does not appear in the equation for any input operand"))
            else:
                out += c
    specs, size = [], {}
    for i, (labels, shape) in enumerate(zip(terms, shapes)):
        spec = "".join(ell[ell_dims - (len(shape) - len(labels) + 1):] if c == "." else c
                       for c in labels)
        first = {}
        for d, (c, s) in enumerate(zip(spec, shape)):
            if c in first:
                if s != shape[first[c]]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {i} but "
                                       f"the sizes don't match, {s} != {shape[first[c]]}")
                continue
            first[c] = d
            if s != 1:
                if size.get(c, 1) not in (1, s):
                    if c in ell:
                        raise RuntimeError(
                            # sic: PyTorch's message lacks the space before "has"
                            f"einsum(): dimension {d} covered by ellipsis in operand {i}has size "
                            f"{s} which does not broadcast with previously seen ellipsis with size "
                            f"{size[c]} for the respective dimension")
                    raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which "
                                       f"does not broadcast with previously seen size {size[c]}")
                size[c] = s
        specs.append(spec)
    return ",".join(specs) + "->" + out, size


def _einsum_dtype(equation, operands, size):
    """The result dtype of PyTorch's pairwise evaluation (left to right): a pair with nothing
    to contract is a promoting mul, one with contractions a bmm that needs equal dtypes; a
    label summed on its own is a sum (integers become int64)."""
    lhs, out = equation.split("->")
    specs = lhs.split(",")
    summed = {c for c in size if c not in out}
    dtype = operands[0].dtype

    def summing(dt):
        return _dtype.int64 if dt.category < 2 else dt
    if len(specs) == 1:
        return summing(dtype) if set(specs[0]) - set(out) else dtype
    # labels of size > 1 per operand, and in how many operands each still occurs
    live = [{c for c, n in zip(s, t._data.shape) if n != 1} for s, t in zip(specs, operands)]
    counts = {c: sum(c in s for s in live) for c in summed}
    a = live[0]
    for b, other in zip(live[1:], operands[1:]):
        dt = other.dtype
        pair = set()
        for c in summed:
            if c in a and c in b:
                counts[c] -= 1
                if counts[c] == 1:
                    pair.add(c)
                    counts[c] = 0
            elif counts[c] == 1 and (c in a or c in b):
                if c in a:
                    dtype = summing(dtype)
                else:
                    dt = summing(dt)
                counts[c] = 0
        if not pair:
            dtype = _dtype.promote_types(dtype, dt)
        elif dtype is not dt:
            raise RuntimeError(f"expected scalar type {dtype.legacy} but found {dt.legacy}")
        elif dtype is _dtype.bool:
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        a = (a | b) - pair - {c for c in summed if counts[c] == 0}
    return dtype


def _sublist_label(n):
    if n is Ellipsis:
        return "..."
    if not 0 <= n < 52:
        raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                         "[0, 52)")
    return chr(ord("A") + n) if n < 26 else chr(ord("a") + n - 26)


@public("einsum", method=False)
def einsum(*args):
    """Einstein summation: einsum('ij,jk->ik', a, b), einsum('ij,jk', [a, b]), or the
    sublist form einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    else:
        operands = args[0:-1:2] if len(args) % 2 else args[0::2]
        equation = ",".join("".join(_sublist_label(n) for n in s) for s in args[1::2])
        if len(args) % 2:
            equation += "->" + "".join(_sublist_label(n) for n in args[-1])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(t).__name__}")
    equation, size = _einsum_equation(equation, [t._data.shape for t in operands])
    return _einsum_row(operands, equation, _einsum_dtype(equation, operands, size))
