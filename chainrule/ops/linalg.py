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
from .._dims import sizes_str, wrap_dim
from ..autograd import grad_mode
from .binding import Overloads, Signature, _method_line, declare
from .inplace import dispatch_inplace
from .registry import (_OUT_RESIZED, EXACT, FUNCTIONS, PROMOTE, check_broadcast, op,
                       out_exact, public)
from .shape import _expand, _unsafe_view, _view, _warn_once

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
    if a.ndim > 2 and a.shape[-1] == 1 and b.ndim > 1 and b.shape[-2] == 1:
        # stacked outer products (per-sample weight gradients): one broadcast product, where
        # NumPy would call BLAS once per matrix
        return a * b
    return np.matmul(a, b)


def _half(forward, c, x, y, *params):
    """PyTorch's half BLAS kernels accumulate the product, scale it and add beta * self in
    float32, rounding once: `forward` over float32 copies, rounded back."""
    f32 = np.float32
    return forward(c.astype(f32), x.astype(f32), y.astype(f32), *params).astype(np.float16)


def _times(t, s):
    """PyTorch's maybe_multiply(t, s.conj())."""
    return t if s == 1 else t * s.conjugate()


def _beta_self(c, beta):
    """What PyTorch's BLAS kernels give, before choosing a kernel by dtype, for an empty
    contraction: zero_() for a zero beta, else self.mul_(beta) with its casting check."""
    if beta == 0:
        return np.zeros(c.shape, c.dtype)
    got, promoted = FROM_NP[c.dtype], _dtype.result_type([np.atleast_1d(c), beta])
    if not _dtype.can_cast(promoted, got):
        raise RuntimeError(f"result type {promoted.legacy} can't be cast to the desired output "
                           f"type {got.legacy}")
    return np.asarray(c * beta).astype(c.dtype, copy=False)


def _empty_product(c, k, beta):
    """The kernels' shortcuts: an empty result is handed back, an empty contraction (k == 0)
    gives beta * self; None where the product must be computed."""
    if not c.size:
        return np.zeros(c.shape, c.dtype)
    return _beta_self(c, beta) if k == 0 else None


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
    if not (a.size and b.size):     # empty result or contraction: zeros, before the dtype
        return np.zeros((a.shape[0], b.shape[1]), a.dtype)
    _no_bool(a, "addmm_impl_cpu_")
    return _matmul(a, b)


def _mm_mat2_backward(grad, mat1, mat2_strides):
    """mat1^H grad, in mat2's own layout: a column-major mat2 (a weight passed as weight.t(),
    as linear does) gets (grad^T mat1)^T, so its gradient needs no transposing copy to
    match the weight's strides (PyTorch's choice too)."""
    if mat2_strides[0] == 1 and mat2_strides[1] == mat1.shape[1] != 1:
        return grad.t().mm(mat1.conj()).t()
    return mat1.t().conj().mm(grad)


mm = op("mm", "MmBackward0", "self, mat2", _mm,
        self=lambda grad, mat2: grad.mm(mat2.t().conj()),
        mat2=lambda grad, self, mat2_strides: _mm_mat2_backward(grad, self, mat2_strides),
        out=EXACT)


def _bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if not (a.size and b.size):     # no kernel runs: no dtype checks, mat2's dtype
        return np.zeros((a.shape[0], a.shape[1], b.shape[2]), b.dtype)
    _no_bool(a, "bmm")      # the kernel's refusal comes before the dtype check
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_name(a)} but found {_name(b)}")
    return _matmul(a, b)


bmm = op("bmm", "BmmBackward0", "self, mat2", _bmm,
         self=lambda grad, mat2: grad.bmm(mat2.transpose(1, 2).conj()),
         mat2=lambda grad, self: self.transpose(1, 2).conj().bmm(grad))


def _size_of(a, d):
    """PyTorch's errors of tensor.size(d), which some ops read before their checks."""
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if d >= a.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-a.ndim}, "
                         f"{a.ndim - 1}], but got {d})")


def _mv(a, v):
    _size_of(a, 0)
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(v)}, "
                           f"{_name(a)}, and {_name(v)}")
    if not (a.size and v.size):     # empty result or contraction: zeros, before the dtype
        return np.zeros(a.shape[:1], a.dtype)
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
    return _complex_dot(a, b) if a.dtype.kind == "c" else _matmul(a, b)


def _complex_dot(a, b):
    # PyTorch's complex dot is a plain sum of products: BLAS's zdotu/zdotc (NumPy's) give
    # other non-finite results where an infinity meets a zero part (nan for -inf)
    return np.asarray(np.sum(a * b))


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
    empty = _empty_product(c, a.shape[1], beta)
    if empty is not None:
        return empty
    _no_bool(a, "addmm_impl_cpu_")
    if c.dtype == np.float16:
        return _half(_addmm, c, a, b, beta, alpha)
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
           mat2=lambda grad, mat1, mat2_strides, alpha: _times(
               _mm_mat2_backward(grad, mat1, mat2_strides), alpha), out=EXACT)


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


def linear(input, weight, bias=None):
    """PyTorch's at::linear: addmm for 2-d input with bias, a flattened addmm for other
    contiguous input with a contiguous bias of one dimension (or one that is not 1), matmul
    otherwise (the bias added in place, so it may not broadcast the product to a larger
    shape)."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is not None and input.dim() == 2:
        return addmm(bias, input, weight.t())
    if (bias is not None and input.is_contiguous() and bias.is_contiguous()
            and (bias.dim() == 1 or sum(n != 1 for n in bias.shape) == 1)):
        # no -1 in the reshape: an empty batch leaves it ambiguous
        rows = int(np.prod(input.shape[:-1]))
        out = addmm(bias, input.reshape(rows, input.shape[-1]), weight.t())
        return out.view(tuple(input.shape[:-1]) + (out.shape[1],))
    out = matmul(input, weight.t())
    return out if bias is None else out.add_(bias)


# ---- einsum -------------------------------------------------------------------------------

def _own_sums(arrays, equation, dtype):
    """PyTorch sums each operand's own labels (found in no other operand, or only of size 1
    there, nor in the output) and takes its diagonals first, before promoting it: those sums
    keep a floating operand's dtype (float16 adds in float32); integer and bool ones are
    int64."""
    lhs, output = equation.split("->")
    specs = lhs.split(",")
    sizes = [dict(zip(s, a.shape)) for s, a in zip(specs, arrays)]
    out_specs = []
    for k, (spec, a) in enumerate(zip(specs, arrays)):
        others = output + "".join(c for j, d in enumerate(sizes) if j != k
                                  for c, n in d.items() if n != 1)
        keep = "".join(c for i, c in enumerate(spec) if c in others and c not in spec[:i])
        if keep != spec:
            kind = a.dtype.kind
            work = np.float32 if a.dtype == np.float16 else a.dtype if kind in "fc" else np.int64
            summed = np.einsum(f"{spec}->{keep}", a.astype(work, copy=False))
            a, spec = summed.astype(a.dtype if kind in "fc" else work, copy=False), keep
        arrays[k] = a
        out_specs.append(spec)
    return arrays, ",".join(out_specs) + "->" + output


def _einsum_forward(arrays, equation, dtype):
    arrays, equation = _own_sums(list(arrays), equation, dtype)
    arrays = [a.astype(dtype.np, copy=False) for a in arrays]
    # PyTorch (without opt_einsum) contracts left to right, which decides where infinities
    # and NaNs meet; NumPy's path keeps each new product last
    n = len(arrays)
    if dtype.np.kind == "c" and not _cannot_overflow(arrays):
        # PyTorch's bmm of small matrices is a plain loop of complex products; BLAS (NumPy's
        # dot) makes other NaNs where an infinity (given, or from an overflow) meets a zero part
        out = _einsum_without_blas(arrays, equation)
    else:
        path = ["einsum_path", (0, 1)] + [(0, m) for m in range(n - 2, 0, -1)] if n > 2 else True
        out = np.einsum(equation, *arrays, optimize=path)
    # np.einsum may return a view of an operand (transposes, diagonals); ours owns its data
    if any(np.may_share_memory(out, a) for a in arrays):
        out = out.copy()
    return np.asarray(out)


def _cannot_overflow(arrays):
    """Whether no product of elements of the operands, nor a sum of those, can reach an
    infinity (a generous bound: each operand's largest magnitude and size)."""
    if any(a.size == 0 for a in arrays):
        return True
    bound = 1.0
    for a in arrays:
        bound *= 2.0 * float(np.abs(a).max()) * a.size
    return bound < float(np.finfo(arrays[0].dtype).max)


def _einsum_without_blas(arrays, equation):
    """The operands contracted left to right, each pair by NumPy's own loops."""
    lhs, output = equation.split("->")
    specs = lhs.split(",")
    out, spec = arrays[0], specs[0]
    for j in range(1, len(arrays)):
        later = output + "".join(specs[j + 1:])
        keep = output if j == len(arrays) - 1 else "".join(
            dict.fromkeys(c for c in spec + specs[j] if c in later))
        out, spec = np.einsum(f"{spec},{specs[j]}->{keep}", out, arrays[j]), keep
    return out if len(arrays) > 1 else np.einsum(equation, out)


def _einsum_grads(grad, operands, equation):
    lhs, output = equation.split("->")
    specs = lhs.split(",")
    return [_einsum_grad(grad, operands, specs, output, k) if t.requires_grad else None
            for k, t in enumerate(operands)]


def _einsum_is_mul(specs, operands, output):
    """Whether PyTorch evaluates this einsum as one mul: two operands sharing no label to
    contract (one summed, of size > 1 in both)."""
    if len(specs) != 2:
        return False
    sizes = [dict(zip(s, t.shape)) for s, t in zip(specs, operands)]
    return not any(c not in output and c in sizes[1] and 1 != n and sizes[1][c] != 1
                   for c, n in sizes[0].items())


def _einsum_grad(grad, operands, specs, output, k):
    """Gradient of operand k: the einsum of grad with the other operands, to k's labels.

    A label repeated in operand k (a diagonal) is computed once and placed on the diagonal
    (zeros elsewhere, as PyTorch's diagonal backward: no identity matrix times an infinity);
    where operand k is larger than what the others give (a label found nowhere else, or of
    size 1 there), the result is broadcast back."""
    shape = operands[k].shape
    conj = (lambda t: t.conj()) if grad.is_complex() else (lambda t: t)
    mul = _einsum_is_mul(specs, operands, output)
    live = ["".join(c for c, n in zip(s, t.shape) if n != 1) for s, t in zip(specs, operands)]
    left, right = [], []
    for j, (spec, t) in enumerate(zip(specs, operands)):
        if j == k:
            continue
        # its own labels (in the other operands of size 1 at most, not in the output) summed
        # first, in its dtype (integers in int64), as the forward's
        others = output + "".join(x for i, x in enumerate(live) if i != j)
        keep = "".join(c for i, c in enumerate(spec) if c in others and c not in spec[:i])
        if keep != spec:
            floating = t.is_floating_point() or t.is_complex()
            summed = t.dtype if floating else _dtype.int64
            t, spec = _einsum_row([t], f"{spec}->{keep}", summed), keep
        (left if j < k else right).append((spec, conj(t).to(grad.dtype)))
    if len(left) > 1:
        # the product of the operands before k, as the forward contracted them (left to
        # right); the gradient meets the later operands first, from the last
        needed = output + "".join(specs[k:])
        labels = "".join(dict.fromkeys(c for s, _ in left for c in s if c in needed))
        left = [(labels, _einsum_row([t for _, t in left], ",".join(s for s, _ in left) + "->"
                                     + labels, grad.dtype))]
    args = [(output, grad)] + right[::-1] + left
    target = specs[k]
    unique = "".join(c for i, c in enumerate(target) if c not in target[:i])
    seen = set("".join(s for s, _ in args))
    kept = "".join(c for c in unique if c in seen)
    if mul:
        # MulBackward0: grad times the other operand elementwise, then summed over the labels
        # operand k lacks (no matmul, which decides where complex infinities make NaNs)
        (spec, t), = args[1:]
        labels = output + "".join(c for c in spec if c not in output)    # those of size 1
        product = _einsum_row([grad, t], f"{output},{spec}->{labels}", grad.dtype)
        g = _einsum_row([product], f"{labels}->{kept}", grad.dtype)
    else:
        g = _einsum_row([t for _, t in args], ",".join(s for s, _ in args) + "->" + kept,
                        grad.dtype)
    sizes = iter(g.shape)
    full = [next(sizes) if c in seen else 1 for c in unique]
    # the unique labels' axes, in target's order, with size-1 axes at the repeats
    placed = [full[unique.index(c)] if c not in target[:i] else 1 for i, c in enumerate(target)]
    if tuple(placed) != tuple(g.shape):
        g = g.reshape(placed)
    if any(f == 1 and s != 1 for f, s in zip(placed, shape)):
        g = g.expand([s if f == 1 else -1 for f, s in zip(placed, shape)])
    if len(unique) < len(target):
        on_diagonal = np.ones((1,) * len(shape), bool)
        for i, c in enumerate(target):
            first = target.index(c)
            if first != i:
                axis = [1] * len(shape)
                at_i, at_first = list(axis), list(axis)
                at_i[i], at_first[first] = shape[i], shape[first]
                on_diagonal = on_diagonal & (np.arange(shape[i]).reshape(at_i)
                                             == np.arange(shape[first]).reshape(at_first))
        g = _where(make_tensor(on_diagonal), g, 0.0)
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
    records = grad_mode.state.grad_enabled and operands[0].requires_grad
    for k, (b, other) in enumerate(zip(live[1:], operands[1:]), 1):
        if records and k > 1 and dtype.category < 2:
            # the intermediate result cannot record its node (a float requiring grad times
            # an integer operand, multiplied on), as PyTorch's does not
            raise RuntimeError(f"Autograd not support dtype: {dtype.legacy}")
        records = records or grad_mode.state.grad_enabled and other.requires_grad
        dt = other.dtype
        pair, alone = set(), set()
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
                alone.add(c)
                counts[c] = 0
        if not pair:
            dtype = _dtype.promote_types(dtype, dt)
        # a label summed alone is gone before the bmm: an empty one leaves zeros, not emptiness
        elif any(size.get(c) == 0 for c in (a | b) - alone):
            dtype = dt      # an empty bmm: no kernel runs, the result has mat2's dtype
        elif dtype is _dtype.bool:     # bmm's refusal comes before its dtype check
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        elif dtype is not dt:
            raise RuntimeError(f"expected scalar type {dtype.legacy} but found {dt.legacy}")
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


# ---- out= of PyTorch's composite functions -------------------------------------------------

_OUT_NEEDS_GRAD = ("{}(): the 'out' tensor was specified and requires gradients, and its shape "
                   "does not match the expected result. Either remove the 'out' argument, ensure "
                   "it does not require gradients, or make sure its shape matches the expected "
                   "output.")


def _copy_out(name, result, out, stacklevel=3, resize_output=True):
    """out= as PyTorch's composite functions do it: resize_output (warning when out had
    elements; refused when out requires grad; resize_output=False: a plain resize_, which
    refuses a leaf requiring grad), then out.copy_(result), which casts, and records the copy
    when result has history (a leaf out requiring grad is refused)."""
    from .registry import _OUT_RESIZED, check_out_kind
    check_out_kind(name, out)
    if tuple(out.shape) != tuple(result.shape):
        if out.requires_grad and not resize_output and out.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if out.requires_grad:
            raise RuntimeError(_OUT_NEEDS_GRAD.format(name))
        if out.numel():
            warnings.warn(_OUT_RESIZED.format(sizes_str(out.shape), sizes_str(result.shape)),
                          UserWarning, stacklevel=stacklevel)
        out._data = np.empty(tuple(result.shape), out._data.dtype)
    return out.copy_(result)


# ---- more products: vdot, cross, addmv, addr, baddbmm, addbmm ----------------------------

def _vdot(a, b):
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
    if a.dtype.kind == "c":
        return _complex_dot(a.conj(), b)
    return np.asarray(np.vdot(a, b) if a.dtype != np.float16 else _matmul(a, b))


vdot = op("vdot", "VdotBackward0", "self, other", _vdot,
          self=lambda grad, other: grad.conj() * other,
          other=lambda grad, self: grad * self, out=_MATMUL_OUT)


def _linalg_cross(a, b, dim):
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    shape = check_broadcast((a, b))     # the shapes broadcast before the kernel runs
    _no_bool(a, "cross")    # the kernel's refusal comes before the dtype check
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_name(a)} but found {_name(b)}")
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    if a.dtype in (np.float32, np.float64):
        # PyTorch's kernel computes a_j b_k - a_k b_j as one fused multiply-add (its rounding
        # shows where the two products cancel)
        from .special import _fma
        at, bt = ([np.take(x, [i], axis=d) for i in range(3)] for x in (a, b))
        return np.concatenate([_fma(at[j], bt[k], -(at[k] * bt[j]))
                               for j, k in ((1, 2), (2, 0), (0, 1))], axis=d)
    return np.cross(a, b, axis=d)


# linalg.cross's row; torch.cross picks its dim and calls it
linalg_cross = op("linalg_cross", "LinalgCrossBackward0", "self, other, dim=-1", _linalg_cross,
                  function=False, method=False, out=EXACT,
                  self=lambda grad, other, dim: linalg_cross(other.conj(), grad, dim),
                  other=lambda grad, self, dim: linalg_cross(grad, self.conj(), dim))

_CROSS_DIM = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
              "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
              "dim will change to agree with that of linalg.cross in a future release.")


def _cross(input, other, dim):
    if dim is None:
        _warn_once(_CROSS_DIM)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim)


@public("cross", method=False, out=EXACT, out_name="linalg_cross")
def cross(input, other, dim=None):
    """Cross product along `dim` (default: the first dim of size 3, deprecated)."""
    _tensor_arg("cross", "input", input, 1)
    _tensor_arg("cross", "other", other, 2)
    return _cross(input, other, dim)


@public("cross", function=False)
def _cross_method(self, other, dim=None):
    _tensor_arg("cross", "other", other, 1)
    return _cross(self, other, dim)


def _blas_scalars(c, beta, alpha):
    """beta and alpha in c's type, and the BLAS rule: a zero beta ignores c (NaNs too)."""
    return _scalar(beta, c.dtype), _scalar(alpha, c.dtype)


def _axpby(c, product, beta, alpha):
    """beta * c + alpha * product, where a zero beta ignores c and a zero alpha the product."""
    out = product if alpha != 0 else np.zeros(c.shape, c.dtype)
    if alpha not in (0, 1):
        out = out * alpha
    if beta != 0:
        out = out + (c if beta == 1 else c * beta)
    elif alpha == 1:
        out = out.copy() if np.may_share_memory(out, c) else out
    return np.asarray(out.astype(c.dtype, copy=False))


def _addmv(c, a, v, beta, alpha):
    if a.ndim != 2 or v.ndim != 1 or c.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {c.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0] or c.size not in (1, a.shape[0]):
        # PyTorch's message reads self's size 0, which a 0-d self has not
        if c.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"size mismatch, got input ({c.shape[0]}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    if not c.dtype == a.dtype == v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(c)}, "
                           f"{_name(a)}, and {_name(v)}")
    if not a.size:
        # PyTorch's shortcut: zero_() for a zero beta, else self * beta (beta as a tensor of
        # self's type) written over the result, which so takes self's own shape
        if beta == 0:
            return np.zeros(a.shape[:1], c.dtype)
        if a.shape[0] and c.shape != a.shape[:1]:
            warnings.warn(_OUT_RESIZED.format(list(a.shape[:1]), list(c.shape)), stacklevel=4)
        return c * np.asarray(_scalar(beta, c.dtype)).astype(c.dtype)
    c = np.broadcast_to(c, a.shape[:1])
    _no_bool(a, "addmv_impl_cpu")
    if c.dtype == np.float16:
        return _half(_addmv, c, a, v, beta, alpha)
    beta, alpha = _blas_scalars(c, beta, alpha)
    product = _matmul(a, v) if alpha != 0 else None
    return _axpby(c, product, beta, alpha)


addmv = op("addmv", "AddmvBackward0", "self, mat, vec, *, beta=1, alpha=1", _addmv, out=EXACT,
           self=lambda grad, beta: _times(grad, beta),
           mat=lambda grad, vec, alpha: _times(_outer(grad, vec.conj()), alpha),
           vec=lambda grad, mat, alpha: _times(mat.t().conj().mv(grad), alpha))


def _bad_inplace(self, shape, dtype=None):
    """The structured kernels' check of an in-place result: the dtype the op computes in
    (when it is not self's own), then the shape."""
    if dtype is not None and dtype != self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype.cpp} and output "
                           f"tensor dtype {dtype.cpp} should match")
    if tuple(self.shape) != tuple(shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {sizes_str(self.shape)} and "
                           f"output tensor size {sizes_str(shape)} should match")


@public("addmv_")
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """In-place addmv: input must have the product's shape (it is not broadcast)."""
    if mat.dim() == 2 and vec.dim() == 1 and mat.shape[1] == vec.shape[0] and input.dim() <= 1:
        _bad_inplace(input, (mat.shape[0],))
    return dispatch_inplace(addmv.op, (input, mat, vec), (beta, alpha))


def _addr_scalar(value, name, dtype):
    if isinstance(value, bool) and dtype.kind != "b":
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if dtype.kind in "biu" and isinstance(value, (float, complex)):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating "
                           "point number.")
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind == "f" and isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {_SCALAR_CTYPE[dtype]} without "
                           "overflow")
    return value


def _addr(c, v1, v2, beta, alpha):
    for arg, v in (("vec1", v1), ("vec2", v2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {arg}, but got {v.ndim}-D")
    shape = (v1.shape[0], v2.shape[0])
    c = _expand(c, shape)
    dtype = c.dtype      # the operands come promoted
    beta, alpha = _addr_scalar(beta, "beta", dtype), _addr_scalar(alpha, "alpha", dtype)
    if dtype == np.bool_:
        # logical: (beta and self) or (alpha and vec1 outer vec2)
        out = np.zeros(shape, np.bool_)
        if beta:
            out |= c
        if alpha:
            out |= np.logical_and.outer(v1, v2)
        return out
    # the kernel's expression, element by element: (alpha * vec1) * vec2, plus beta * self
    # unless beta is 0 (so a zero alpha still meets infinities, and a complex self is
    # multiplied by beta even when it is 1)
    beta, alpha = _scalar(beta, dtype), _scalar(alpha, dtype)
    with np.errstate(over="ignore"):
        out = (np.asarray(alpha, dtype) * v1)[:, None] * v2
        return out if beta == 0 else np.asarray(beta, dtype) * c + out


addr = op("addr", "AddrBackward0", "self, vec1, vec2, *, beta=1, alpha=1", _addr,
          promote=PROMOTE,
          self=lambda grad, beta: _times(grad, beta),
          vec1=lambda grad, vec2, alpha: _times(grad.mv(vec2.conj()), alpha),
          vec2=lambda grad, vec1, alpha: _times(grad.t().mv(vec1.conj()), alpha))


@public("addr_", function=False)
def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """In-place addr: self must be a matrix of the outer product's shape."""
    if vec1.dim() == 1 and vec2.dim() == 1 and self.dim() != 2:
        raise RuntimeError(f"2D tensor expected, got {self.dim()}D tensor for input")
    if vec1.dim() == 1 and vec2.dim() == 1 and tuple(self.shape) != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {sizes_str(self.shape)}, v1: "
                           f"{sizes_str(vec1.shape)}, v2: {sizes_str(vec2.shape)}")
    return dispatch_inplace(addr.op, (self, vec1, vec2), (beta, alpha))


def _check_batches(b1, b2):
    if b1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _baddbmm_checks(c, b1, b2):
    for t, d in ((b1, 0), (b1, 1), (b2, 2)):    # the sizes PyTorch reads first
        _size_of(t, d)
    if c.dtype != b1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {FROM_NP[c.dtype].cpp}, "
                           f"batch1: {FROM_NP[b1.dtype].cpp}, batch2: {FROM_NP[b2.dtype].cpp}")
    _check_batches(b1, b2)
    if b2.shape[:2] != (b1.shape[0], b1.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, "
                           f"{b2.shape[1]}].")


def _baddbmm(c, b1, b2, beta, alpha):
    _baddbmm_checks(c, b1, b2)
    c = _expand(c, (b1.shape[0], b1.shape[1], b2.shape[2]))
    # the kernel's shortcuts write self into a result of batch2's dtype, as PyTorch's
    empty = _empty_product(c.astype(b2.dtype, copy=False), b1.shape[2], beta)
    if empty is not None:
        return empty
    _no_bool(b1, "baddbmm")     # the kernel's refusal comes before the dtype check
    if b1.dtype != b2.dtype:
        raise RuntimeError(f"expected scalar type {_name(b1)} but found {_name(b2)}")
    if c.dtype == np.float16:     # (self, batch1 and batch2 share it by now)
        return _half(_baddbmm, c, b1, b2, beta, alpha)
    beta, alpha = _blas_scalars(c, beta, alpha)
    return _axpby(c, _matmul(b1, b2) if alpha != 0 else None, beta, alpha)


baddbmm = op("baddbmm", "BaddbmmBackward0", "self, batch1, batch2, *, beta=1, alpha=1", _baddbmm,
             out=EXACT,
             self=lambda grad, beta: _times(grad, beta),
             batch1=lambda grad, batch2, alpha: _times(grad.bmm(batch2.transpose(1, 2).conj()),
                                                        alpha),
             batch2=lambda grad, batch1, alpha: _times(batch1.transpose(1, 2).conj().bmm(grad),
                                                        alpha))


@public("baddbmm_", function=False)
def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place baddbmm: self must have the batched product's shape (checked after the
    out-of-place checks; a self of more dimensions fails in expand)."""
    if all(isinstance(t, Tensor) for t in (self, batch1, batch2)) and self.dim() <= 3:
        _baddbmm_checks(self._data, batch1._data, batch2._data)
        # the result takes batch2's dtype
        _bad_inplace(self, (batch1.shape[0], batch1.shape[1], batch2.shape[2]), batch2.dtype)
    return dispatch_inplace(baddbmm.op, (self, batch1, batch2), (beta, alpha))


def _addbmm(c, b1, b2, beta, alpha):
    _size_of(b1, 1)     # the sizes PyTorch reads first
    _size_of(b2, 2)
    _check_batches(b1, b2)
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{b1.shape[0]} and {b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                           f"{b2.shape[1]}x{b2.shape[2]})")
    c = _expand(c, (b1.shape[1], b2.shape[2]))
    if not b1.shape[0]:     # no batch reaches addmm_ and its dtype checks
        return _beta_self(c, beta)
    if c.dtype != b2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(c)} and "
                           f"{_name(b2)}")
    if b1.dtype != b2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_name(b1)} and "
                           f"{_name(b2)}")
    empty = _empty_product(c, b1.shape[2], beta)
    if empty is not None:
        # PyTorch adds batch by batch (addmm_), the later ones with beta 1
        return empty if b1.shape[0] == 1 else _empty_product(empty, b1.shape[2], 1)
    _no_bool(b1, "addmm_impl_cpu_")
    if c.dtype == np.float16:   # addmm_ batch by batch, each rounded to half
        for i in range(b1.shape[0]):
            c = _half(_addmm, c, b1[i], b2[i], beta if i == 0 else 1, alpha)
        return c
    beta, alpha = _blas_scalars(c, beta, alpha)
    product = _matmul(b1, b2).sum(0, dtype=c.dtype) if alpha != 0 else None
    return _axpby(c, product, beta, alpha)


def _addbmm_grad(grad, b1_shape, b2_shape):
    return grad.unsqueeze(0).expand(b1_shape[0], b1_shape[1], b2_shape[2])


addbmm = op("addbmm", "AddbmmBackward0", "self, batch1, batch2, *, beta=1, alpha=1", _addbmm,
            inplace="addbmm_", out=EXACT,
            self=lambda grad, beta: _times(grad, beta),
            batch1=lambda grad, batch1_shape, batch2, alpha: _times(
                _addbmm_grad(grad, batch1_shape, batch2.shape).bmm(batch2.transpose(1, 2).conj()),
                alpha),
            batch2=lambda grad, batch1, batch2_shape, alpha: _times(
                batch1.transpose(1, 2).conj().bmm(_addbmm_grad(grad, batch1.shape, batch2_shape)),
                alpha))


def _resizing_addbmm_(addbmm_):
    """addbmm_ as PyTorch's kernel runs it: self is its own output, which it resizes to the
    product's shape and fills with self's old values broadcast to it, so a self that only
    broadcasts (0-d, one row) grows; the node still sends self's gradient to its old shape."""
    def resizing(self, *args, **kwargs):
        b1, b2 = (list(args[:2]) + [kwargs.get("batch1"), kwargs.get("batch2")][len(args):])[:2]
        if (isinstance(self, Tensor) and isinstance(b1, Tensor) and isinstance(b2, Tensor)
                and b1.dim() == 3 == b2.dim() and b1.shape[0] == b2.shape[0]
                and b1.shape[2] == b2.shape[1] and self.shape != (b1.shape[1], b2.shape[2])):
            from .aliasing import _format_strides, _set_geometry
            from .inplace import check_inplace
            from .._storage import storage_offset
            from ..autograd import grad_mode
            from .views import _storage
            shape = (b1.shape[1], b2.shape[2])
            check_inplace(self, grad_mode.state.grad_enabled and any(
                t.requires_grad for t in (self, b1, b2)))
            old = _expand(self._data, shape).copy()    # PyTorch's error when it does not
            a = self._data
            _set_geometry(self, _storage(a), storage_offset(a), shape,
                          _format_strides(shape, None))
            self._data[...] = old
        return addbmm_(self, *args, **kwargs)
    resizing.__name__ = resizing.__qualname__ = "addbmm_"
    return resizing


Tensor.addbmm_ = _resizing_addbmm_(Tensor.addbmm_)


# ---- tensordot, inner, kron ---------------------------------------------------------------

def _tensordot(a, b, dims1, dims2):
    """at::tensordot: sum broadcast (size-1) contracted dims away, permute both operands to
    matrices, mm (dot when both sides reduce to one row), reshape."""
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2 = a, b
    csize = 1
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:     # the sums keep the operands' dtype (no integer promotion)
            t1 = t1.sum(d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                                   f"in dim {d1} and second has size {s2} in dim {d2}")
            csize *= s1
    c1 = {wrap_dim(d, a.dim()) for d in dims1}
    c2 = {wrap_dim(d, b.dim()) for d in dims2}
    p1 = [i for i in range(a.dim()) if i not in c1]
    p2 = [i for i in range(b.dim()) if i not in c2]
    rsizes = [t1.shape[i] for i in p1] + [t2.shape[i] for i in p2]
    size1, size2 = int(np.prod(rsizes[:len(p1)])), int(np.prod(rsizes[len(p1):]))
    t1 = t1.permute(p1 + list(dims1))
    t2 = t2.permute(list(dims2) + p2)
    if size1 == 1 and size2 == 1:
        return dot(t1.reshape(csize), t2.reshape(csize)).reshape(rsizes)
    return mm(t1.reshape(size1, csize), t2.reshape(csize, size2)).reshape(rsizes)


def _tensordot_out(result, out):
    if out is None:
        return result
    if out.dtype is not result.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype "
                           f"{result.dtype.legacy}, but got an output tensor with dtype "
                           f"{out.dtype.legacy}")
    return _copy_out("tensordot", result, out, 4)


@public("tensordot", method=False)
def tensordot(a, b, dims=2, out=None):
    """Contraction over `dims`: the last `dims` of a with the first of b, or two lists of
    dims (a pair, or a 2-row tensor)."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got "
                                     f"{dims.shape[0]}")
            dims = (dims[0].tolist(), dims[1].tolist())
        else:
            n = int(dims.item())
            if n < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims = (list(range(-n, 0)), list(range(n)))
    elif isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims = (list(range(-dims, 0)), list(range(dims)))
    dims1, dims2 = dims
    dims1 = [dims1] if isinstance(dims1, int) else list(dims1)
    dims2 = [dims2] if isinstance(dims2, int) else list(dims2)
    _TENSORDOT.check(a, b, dims1, dims2)    # PyTorch's binding, reached with the dim lists
    return _tensordot_out(_tensordot(a, b, dims1, dims2), out)


_TENSORDOT = Signature("tensordot(Tensor input, Tensor other, int[] dims_self, "
                       "int[] dims_other)")


def _inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {sizes_str(input.shape)} and {sizes_str(other.shape)}")
    return _tensordot(input, other, [-1], [-1])


@public("inner", method=False)
def inner(input, other, *, out=None):
    """Sum of products over the last dims (a product when either is 0-d)."""
    _tensor_arg("inner", "input", input, 1)
    _tensor_arg("inner", "other", other, 2)
    return _tensordot_out(_inner(input, other), out)


@public("inner", function=False)
def _inner_method(self, other):
    _tensor_arg("inner", "other", other, 1)
    return _inner(self, other)


def _kron(input, other):
    # at::kron: interleave the dims of both (padded to the same rank) and multiply; the
    # product is laid out as TensorIterator lays it out from its operands' strides, and its
    # final _unsafe_view needs a layout that views to the result's shape, as PyTorch's
    n = max(input.dim(), other.dim())
    sa = (1,) * (n - input.dim()) + tuple(input.shape)
    sb = (1,) * (n - other.dim()) + tuple(other.shape)
    ashape = tuple(x for s in sa for x in (s, 1))
    bshape = tuple(x for s in sb for x in (1, s))
    shape = tuple(x * y for x, y in zip(sa, sb))
    if not (input._data.flags.c_contiguous and other._data.flags.c_contiguous):
        from .._creation import _iterator_empty
        _view(_iterator_empty(tuple(x for s in zip(sa, sb) for x in s), np.uint8,
                              _view(input._data, ashape), _view(other._data, bshape)), shape)
    return _unsafe_view(_unsafe_view(input, ashape) * _unsafe_view(other, bshape), shape)


@public("kron", method=False, out=True, out_name="mul")
def kron(input, other):
    """Kronecker product."""
    _tensor_arg("kron", "input", input, 1)
    _tensor_arg("kron", "other", other, 2)
    return _kron(input, other)


@public("kron", function=False)
def _kron_method(self, other):
    _tensor_arg("kron", "other", other, 1)
    return _kron(self, other)


# ---- chain_matmul, multi_dot, matrix_power ------------------------------------------------

def _chain_order(shapes):
    """The matrix-chain split points of at::native's matrix_chain_order."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j], s[i][j] = q, k
    return s


def _chain(tensors, order, i, j):
    if i == j:
        return tensors[i]
    k = order[i][j]
    return mm(_chain(tensors, order, i, k), _chain(tensors, order, k + 1, j))


def multi_dot(tensors):
    """torch.linalg.multi_dot: the product of a chain of matrices (first and last may be
    vectors) in the cheapest order."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    out_shape = []
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    ts = list(tensors)
    if first.dim() == 1:
        ts[0] = first.unsqueeze(0)
    else:
        out_shape.append(first.shape[0])
    if last.dim() == 1:
        ts[-1] = last.unsqueeze(-1)
    else:
        out_shape.append(last.shape[1])
    for i in range(1, n):
        if ts[i].dtype is not ts[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 "
                               f"is {ts[0].dtype.cpp} and tensor {i} {ts[i].dtype.cpp}")
        if ts[i - 1].shape[-1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{sizes_str(tensors[i - 1].shape)} and "
                               f"{sizes_str(tensors[i].shape)} cannot be multiplied")
    if n == 2:
        result = mm(ts[0], ts[1])
    elif n == 3:
        a, b, c, d = ts[0].shape[0], ts[1].shape[0], ts[2].shape[0], ts[2].shape[1]
        if a * c * (b + d) > b * d * (a + c):
            result = mm(ts[0], mm(ts[1], ts[2]))
        else:
            result = mm(mm(ts[0], ts[1]), ts[2])
    else:
        result = _chain(ts, _chain_order([t.shape for t in ts]), 0, n - 1)
    return result.view(out_shape)


_CHAIN_MATMUL = ("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                 "release. Use torch.linalg.multi_dot instead, which accepts a list of two or more "
                 "tensors rather than multiple parameters.")


_CHAIN_MATMUL_SIGNATURE = Signature("chain_matmul(Tensor[] matrices, *, Tensor? out=None)")


@public("chain_matmul", method=False)
def chain_matmul(*matrices, out=None):
    """Deprecated: torch.linalg.multi_dot of 2-D matrices."""
    # Note [Argument parser checks]: the parser's, before the kernel's warning
    _CHAIN_MATMUL_SIGNATURE.check(matrices)
    _CHAIN_MATMUL_SIGNATURE.check_keywords({"out": out})
    _warn_once(_CHAIN_MATMUL)
    for t in matrices:
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if out is None:
            return matrices[0].clone()
        return _copy_out("chain_matmul", matrices[0], out, resize_output=False)
    if out is None:
        return multi_dot(matrices)
    from .registry import check_out_grad, check_out_kind, write_out
    check_out_kind("chain_matmul", out)
    result = multi_dot(matrices)
    if out.dtype is not result.dtype:
        raise RuntimeError(f"multi_dot(): expected out tensor to have dtype {result.dtype.cpp} "
                           f"but got {out.dtype.cpp}")
    check_out_grad("mm", result, out)
    return write_out("mm", result, out, EXACT, matrices)


def _square(name, a):
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _matrix_power(a, n):
    _square("linalg.matrix_power", a)
    if n == 0:
        eye = make_tensor(np.broadcast_to(np.eye(a.shape[-1], dtype=a._data.dtype), a.shape))
        return a.clone().copy_(eye)
    if n == 1:
        return a.clone()
    if n < 0:
        from .decompositions import inv
        a, n = inv(a), -n
        if n == 1:
            return a
    if n == 2:
        return _matmul_impl(a, a)
    if n == 3:
        return _matmul_impl(_matmul_impl(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else _matmul_impl(z, z)
        if bit:
            result = z if result is None else _matmul_impl(result, z)
    return result


@public("matrix_power", out=EXACT, out_name="linalg_matrix_power")
def matrix_power(input, n):
    """input raised to the integer power n (negative powers invert first)."""
    return _matrix_power(input, n)


# Note [Argument parser checks]
declare("matrix_power(Tensor input, int n)")


# ---- matrix_exp ---------------------------------------------------------------------------

# PyTorch's degree-18 Taylor bound: below it no scaling is needed (float64 / float32)
_EXP_THETA = {np.dtype(np.float64): 1.090863719290036, np.dtype(np.float32): 3.010066362817634}


def _matrix_exp(a):
    if a.dtype.kind not in "fc":
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {_name(a)}")
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {a.shape[-2]} by {a.shape[-1]} matrices")
    dtype = a.dtype
    work = a.astype(np.result_type(dtype, np.float32))
    theta = _EXP_THETA[np.dtype(work.real.dtype)]
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    with np.errstate(all="ignore"):
        # scaling and squaring: A / 2^s has 1-norm below theta, exp(A) = exp(A / 2^s)^(2^s)
        norm = np.abs(work).sum(-2).max(-1)
        s = np.ceil(np.log2(np.where(norm > theta, norm / theta, 1.0)))
        s = np.nan_to_num(s, nan=0.0, posinf=0.0).astype(np.int64)
        x = work / (2.0 ** s)[..., None, None]
        eye = np.eye(n, dtype=work.dtype)
        result = eye + x / 18
        for k in range(17, 0, -1):
            result = eye + np.matmul(x, result) / k
        for i in range(int(s.max(initial=0))):
            squared = np.matmul(result, result)
            result = np.where((s > i)[..., None, None], squared, result)
        # a matrix with an infinite or NaN norm has no scaling PyTorch can compute: all NaN
        result = np.where(np.isfinite(norm)[..., None, None], result, np.nan)
    return result.astype(dtype, copy=False)


def _matrix_exp_backward(grad, self):
    """linalg_matrix_exp_differential(self, grad, adjoint=True): the upper-right block of
    exp([[A^H, G], [0, A^H]])."""
    n = self.shape[-1]
    ah = self.mH
    zeros = make_tensor(np.zeros(tuple(self.shape), self._data.dtype))
    top = _cat([ah, grad.to(self.dtype)], -1)
    bottom = _cat([zeros, ah], -1)
    return matrix_exp(_cat([top, bottom], -2))[..., :n, n:]


matrix_exp = op("linalg_matrix_exp", "LinalgMatrixExpBackward0", "self", _matrix_exp,
                function="matrix_exp", method="matrix_exp", out=False,
                self=_matrix_exp_backward)


def _cat(ts, dim):
    return FUNCTIONS["cat"](ts, dim)


# ---- distances: cdist, pdist, cosine_similarity, pairwise_distance ------------------------

def _pnorm_rows(diff, p, skip_nan_max=False):
    """The p-distance over the last axis of |diff|, with PyTorch's kernels' special cases
    (skip_nan_max: cdist's scalar loop, whose std::max passes NaNs over; pdist's vectorized
    maximum keeps them)."""
    x = np.abs(diff)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if p == 0:
            return np.minimum(np.ceil(x), 1).sum(-1)
        if p == 1:
            return x.sum(-1)
        if p == 2:
            return np.sqrt((x * x).sum(-1))
        if np.isinf(p):
            return (np.fmax if skip_nan_max else np.maximum).reduce(x, -1, initial=0)
        return (x ** p).sum(-1) ** (1.0 / p)


def _kernel_sign(x):
    """The distance kernels' sign: clamp(ceil(x), 0, 1) + clamp(floor(x), -1, 0), NaN for
    NaN (torch.sign gives 0)."""
    return x.ceil().clamp(0, 1) + x.floor().clamp(-1, 0)


def _pnorm_grad(diff, dist, grad, p):
    """d dist / d x1 times grad for diff = x1 - x2, as PyTorch's distance kernels compute it
    (their expressions in their order, 0 where the distance is 0), in differentiable ops;
    diff has one more trailing axis."""
    dist, grad = dist.unsqueeze(-1), grad.unsqueeze(-1)
    if p == 0:
        return diff.new_zeros(tuple(diff.shape))
    if p == 1:
        return grad * _kernel_sign(diff)
    if np.isinf(p):
        # 1 where |diff| is the distance, else 0 (NaN where either is NaN)
        at_max = 1 - (diff.abs() - dist).abs().ceil().clamp_max(1)
        return grad * _kernel_sign(diff) * at_max
    zero = dist == 0
    safe = _where(zero, 1.0, dist)
    if p == 2:
        return _where(zero, 0.0, grad * diff / safe)
    if p < 2:
        mag = diff.abs()
        # |diff|^(p-1) is infinite at 0 for p < 1; PyTorch's kernel gives 0 there
        small = (mag == 0) if p < 1 else None
        power = _where(small, 1.0, mag) ** (p - 1) if p < 1 else mag ** (p - 1)
        term = _where(zero, 0.0, _kernel_sign(diff) * power * grad / safe ** (p - 1))
        return term if small is None else _where(small, 0.0, term)
    return _where(zero, 0.0, diff * diff.abs() ** (p - 2) * grad / safe ** (p - 1))


def _where(cond, a, b):
    return FUNCTIONS["where"](cond, a, b)


def _cdist_check(x1, x2, p, kernel=False):
    """kernel: the p-norm kernel runs (it has no float16 version; the matmul path has)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_name(x)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if kernel and x1.dtype == np.float16:
        raise NotImplementedError("\"cdist\" not implemented for 'Half'")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1)} but found {_name(x2)}")


def _cdist_forward(x1, x2, p, compute_mode):
    _cdist_check(x1, x2, p, kernel=x1.size and x2.size and x1.shape[-1])
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if x1.shape[-1] == 0:
        return np.zeros(batch + (r1, r2), x1.dtype)
    a = np.broadcast_to(x1, batch + x1.shape[-2:])[..., :, None, :]
    b = np.broadcast_to(x2, batch + x2.shape[-2:])[..., None, :, :]
    if p == 2 and (compute_mode == 1 or (compute_mode is None and (r1 > 25 or r2 > 25))):
        return _euclidean(a[..., 0, :], b[..., 0, :, :])
    return _pnorm_rows(a - b, p, skip_nan_max=True).astype(x1.dtype, copy=False)


def _cdist_backward(grad, x1, x2, p, result):
    return _pnorm_grad(x1.unsqueeze(-2) - x2.unsqueeze(-3), result, grad, p).sum(-2)


_cdist_row = op("_cdist_forward", "CdistBackward0", "x1, x2, p, compute_mode", _cdist_forward,
                function=False, method=False,
                x1=lambda grad, x1, x2, p, result: _cdist_backward(grad, x1, x2, p, result),
                x2=lambda grad, x1, x2, p, result: _cdist_backward(
                    grad.mT, x2, x1, p, result.mT))


def _euclidean(a, b):
    """_euclidean_dist's forward: one matmul of [-2 x1, |x1|^2, 1] with [x2, 1, |x2|^2]."""
    n1 = (a * a).sum(-1, keepdims=True)
    n2 = (b * b).sum(-1, keepdims=True)
    a_ = np.concatenate([a * -2, n1, np.ones_like(n1)], -1)
    b_ = np.concatenate([b, np.ones_like(n2), n2], -1)
    return np.sqrt(np.maximum(_matmul(a_, np.swapaxes(b_, -1, -2)), 0))


def _euclidean_backward(grad, x1, x2, result):
    ratio = _where(result == 0, 0.0, grad / _where(result == 0, 1.0, result))
    return (x1 * ratio.sum(-1, True) - _matmul_impl(ratio, x2),
            x2 * ratio.sum(-2).unsqueeze(-1) - _matmul_impl(ratio.mT, x1))


_euclidean_row = op("_euclidean_dist", "EuclideanDistBackward0", "x1, x2", _euclidean,
                    function=False, method=False,
                    x1=lambda grad, x1, x2, result: _euclidean_backward(grad, x1, x2, result)[0],
                    x2=lambda grad, x1, x2, result: _euclidean_backward(grad, x1, x2, result)[1])

_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


@public("cdist", method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between each pair of rows of x1 and x2 (batched)."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _COMPUTE_MODES[compute_mode]
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if (x1.numel() == 0 or x2.numel() == 0 or
            not (p == 2 and (mode == 1 or (mode is None and (r1 > 25 or r2 > 25))))):
        return _cdist_row(x1, x2, p, mode)
    # PyTorch's matmul path (cdist_impl): autograd sees _euclidean_dist and views
    _cdist_check(x1._data, x2._data, p)
    batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    c = x1.shape[-1]
    size = int(np.prod(batch))
    out_shape = batch + (r1, r2)
    if size == 0:
        return make_tensor(np.empty(out_shape, x1._data.dtype))
    if size == 1:
        return _euclidean_row(x1, x2).view(out_shape)
    t1 = x1.expand(batch + (r1, c)).contiguous().view(size, r1, c)
    t2 = x2.expand(batch + (r2, c)).contiguous().view(size, r2, c)
    return _euclidean_row(t1, t2).view(out_shape)


def _pdist_forward(a, p):
    n = a.shape[0]
    i, j = np.triu_indices(n, 1)
    if a.shape[1] == 0:
        return np.zeros(len(i), a.dtype)
    if a.dtype == np.float16 and len(i):
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    return _pnorm_rows(a[i] - a[j], p).astype(a.dtype, copy=False)


def _pdist_backward(grad, self, p, result):
    n = self.shape[0]
    i, j = (make_tensor(k) for k in np.triu_indices(n, 1))
    w = _pnorm_grad(self.index_select(0, i) - self.index_select(0, j), result, grad, p)
    return self.new_zeros(tuple(self.shape)).index_add(0, i, w).index_add(0, j, -w)


_pdist_row = op("_pdist_forward", "PdistBackward0", "self, p=2", _pdist_forward,
                function=False, method=False, self=_pdist_backward)


@public("pdist", method=False)
@Signature("pdist(Tensor input, float p=2)").bind    # (bound here: F.pdist is this function)
def pdist(input, p=2):
    """p-norm distances between each pair of rows of a 2-D input (upper triangle, row order)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _pdist_row(input.contiguous(), p)


def _norm_scalar_dim(a, p, dim, keepdim):
    from .reduction import _vector_norm
    return _vector_norm(a, p, dim, keepdim, None)


def _norm_scalar_dim_backward(grad, self, p, result, dim, keepdim):
    from .reduction import _vector_norm_backward
    return _vector_norm_backward(grad, self, p, result, dim, keepdim)


# at::norm(self, p, dim, keepdim): the node pairwise_distance records
_norm_dim = op("norm.ScalarOpt_dim", "NormBackward1", "self, p, dim, keepdim=False",
               _norm_scalar_dim, function=False, method=False, self=_norm_scalar_dim_backward)


@public("pairwise_distance", method=False)
@Signature("pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, "
           "bool keepdim=False)").bind
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm of x1 - x2 + eps over the last dim."""
    from .nn_ops import add_scalar
    innermost = max(x1.dim(), x2.dim()) - 1
    diff = x1 - x2
    if not (diff.is_floating_point() or diff.is_complex()):
        diff = diff.to(_dtype.result_type((diff, eps)))
    return _norm_dim(add_scalar(diff, eps), p, innermost, keepdim)


@public("cosine_similarity", method=False)
@Signature("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08)").bind
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along dim (each divided by its norm, clamped to
    eps, first)."""
    from .reduction import vector_norm
    common = _dtype.result_type((x1, x2))
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common.legacy}")
    if not (x1.is_floating_point() or x1.is_complex()):
        x1 = x1.to(common)
    if not (x2.is_floating_point() or x2.is_complex()):
        x2 = x2.to(common)
    if tuple(x1.shape) != tuple(x2.shape):
        shape = _broadcast_batch(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = vector_norm(x1, 2, dim, True).clone()
    n2 = vector_norm(x2, 2, dim, True).clone()
    from ..autograd import no_grad
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


# ---- vander -------------------------------------------------------------------------------

@public("vander", method=False)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: columns x**(N-1), ..., x, 1 (or increasing).
    Built as ATen builds it (ones, a copy of x, an in-place cumprod, a flip), so its graph is
    PyTorch's."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = _dtype.promote_types(x.dtype, _dtype.int64)
    result = make_tensor(np.empty((x.shape[0], n), dtype.np))
    if n > 0:
        result.select(1, 0).fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)


# Note [Argument parser checks]
declare("vander(Tensor x, SymInt? N=None, bool increasing=False)", method=False)


# last: matmul squeezes its mm result in place (squeeze_), an intermediate nobody else sees,
# so squeeze_'s row called out of place gives PyTorch's graph
from .aliasing import _squeeze_dim_inplace as _squeeze_  # noqa: E402


# ---- torch.linalg's products: vecdot, vander --------------------------------------------------

def linalg_vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: sum(conj(x) * y) along dim (x and y broadcast)."""
    from .decompositions import _check_float
    _check_float("linalg.vecdot", x._data)
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {x.dtype.legacy} and y of type {y.dtype.legacy} instead")
    return ((x.conj() if x.is_complex() else x) * y).sum(dim)


def linalg_vander(x, *, N=None):
    """torch.linalg.vander: powers x^0, x^1, ..., x^(N-1) along a new last dim (batched),
    built as ATen builds it: a cumprod of x repeated, after a column of ones."""
    dt = x._data.dtype
    if not (dt in (np.float32, np.float64, np.complex64, np.complex128) or dt.kind in "iu"):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {x.dtype.legacy}")
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    shape = list(x_.shape)
    n = shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    result = x_.unsqueeze(-1).expand(shape + [n - 1]).cumprod(-1)
    ones = result.new_ones(shape + [1])
    return _cat([ones, result], -1)


# Note [Argument parser checks]: torch.matrix_exp is named as itself (its row's name is
# linalg_matrix_exp)
declare("matrix_exp(Tensor input)", method=False)


# Note [Argument parser checks]: PyTorch also declares the product-and-add ops with beta (and
# alpha) first, hidden and deprecated, so that a call no printed line takes gets the parser's
# listing of that one line ("but expected (Tensor mat1, ...)") rather than a named argument.
# chainrule does not run the deprecated orders; it gives the listing.
_SCALED = "(Tensor input, Tensor {}, Tensor {}, {}*, Number beta = 1, Number alpha = 1{})"


def _declare_scaled(name, a, b):
    lines = [_SCALED.format(a, b, "", ", Tensor out = None")]
    if name in ("addmm", "baddbmm"):     # the function's out_dtype= form, not the method's
        lines.append(_SCALED.format(a, b, "torch.dtype out_dtype, ", ", Tensor out = None"))
    declare(Overloads(name, lines, method_lines=[_method_line(lines[0])]))
    declare(Overloads(name + "_", [_SCALED.format(a, b, "", "")]),
            function=name + "_" in FUNCTIONS)


for _args in (("addmm", "mat1", "mat2"), ("baddbmm", "batch1", "batch2"),
              ("addbmm", "batch1", "batch2"), ("addmv", "mat", "vec"), ("addr", "vec1", "vec2")):
    _declare_scaled(*_args)
