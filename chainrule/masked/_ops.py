"""torch.masked's reductions and normalizations: `op(input, ..., mask=mask)` computes `op`
over the elements where `mask` (broadcast to input's shape) is True, as if the others held
the op's identity (0 for sum, 1 for prod, -inf for amax, ...). Follows torch/masked/_ops.py
for strided tensors (chainrule has no sparse layouts); written in chainrule's ops, so results
are differentiable."""
import chainrule as torch

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "logsumexp", "logaddexp", "norm", "var", "std", "softmax", "log_softmax",
           "softmin", "normalize"]

_builtin_sum = sum
_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")


def _is_masked_tensor(x):
    from .maskedtensor import MaskedTensor
    return isinstance(x, MaskedTensor)


def _reduction_identity(op_name, input, *args):
    """The value masked-out elements take for `op_name` (None where it has none)."""
    dtype = input.dtype
    if op_name in ("sum", "cumsum"):
        return torch.tensor(0, dtype=dtype)
    if op_name in ("prod", "cumprod"):
        return torch.tensor(1, dtype=dtype)
    if op_name in ("amax", "argmax", "logaddexp", "logsumexp"):
        if dtype.is_floating_point:
            return torch.tensor(-torch.inf, dtype=dtype)
        if op_name == "logsumexp" and dtype.is_complex:
            return torch.tensor(-torch.inf + 0j, dtype=dtype)
        if dtype.is_signed or dtype == torch.uint8:
            return torch.tensor(torch.iinfo(dtype).min, dtype=dtype)
    elif op_name in ("amin", "argmin"):
        if dtype.is_floating_point:
            return torch.tensor(torch.inf, dtype=dtype)
        if dtype.is_signed or dtype == torch.uint8:
            return torch.tensor(torch.iinfo(dtype).max, dtype=dtype)
    elif op_name in ("mean", "var", "std"):
        return None
    elif op_name == "norm":
        ord = args[0] if args else 2
        if ord == float("-inf"):
            if not dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return torch.tensor(torch.inf, dtype=dtype)
        return torch.tensor(0, dtype=dtype)
    elif op_name == "median":
        # nanmedian computes it: NaN is ignored
        return torch.tensor(torch.nan, dtype=dtype if dtype.is_floating_point else torch.float)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim):
    """`dim` as a sorted tuple of non-negative dims (all of them for None or ())."""
    if dim == ():
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _any(input, dim, keepdim):
    r = input
    for d in reversed(dim):
        r = r.any(dim=d, keepdim=keepdim)
    return r


def _input_mask(input, *args, **kwargs):
    """The mask as a bool tensor of input's shape."""
    if input.layout != torch.strided:
        raise ValueError("_input_mask expects strided or sparse COO or sparse CSR tensor but "
                         f"got {input.layout}")
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = torch.broadcast_to(mask.clone(), input.shape).to(dtype=torch.bool)
    return mask.to(dtype=torch.bool)


_REDUCTIONS = {"sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm",
               "var", "std", "logsumexp"}
_NORMALIZATIONS = {"softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"}


def _output_mask(op, input, *args, **kwargs):
    """The mask of `op(input, *args, **kwargs)`'s result."""
    if not callable(op):
        raise ValueError("_output_mask expected masked operation (got "
                         f"{type(op).__name__} object)")
    if op.__name__ in _REDUCTIONS:
        if op.__name__ == "norm" and args:
            args = args[1:]
        dim = args[0] if args else kwargs.get("dim")
        outmask = _input_mask(input, *args, **kwargs)
        return _any(outmask, _canonical_dim(dim, input.ndim), bool(kwargs.get("keepdim", False)))
    if op.__name__ in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    raise ValueError("_output_mask expected masked operation (got callable "
                     f"{op.__module__}.{op.__name__})")


def _combine_input_and_mask(op, input, mask, *args):
    """`input` with the masked-out elements replaced by op's identity (a MaskedTensor
    input brings its own mask)."""
    if _is_masked_tensor(input):
        data, mask = input.get_data(), input.get_mask()
    else:
        data = input
    if mask is None:
        return data
    canonical_mask = _input_mask(data, mask=mask)
    return torch.where(canonical_mask, data, _reduction_identity(op.__name__, data, *args))


def _data(input):
    return input.get_data() if _is_masked_tensor(input) else input


def _int64_for_small(input, dtype):
    if dtype is not None:
        return dtype
    return torch.int64 if str(input.dtype).split(".")[1] in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the elements `mask` keeps (small integer types sum in int64)."""
    dtype = _int64_for_small(input, dtype)
    dim_ = _canonical_dim(dim, input.ndim)
    return torch.sum(_combine_input_and_mask(sum, input, mask), dim_, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the elements `mask` keeps."""
    dtype = _int64_for_small(input, dtype)
    dim_ = _canonical_dim(dim, input.ndim)
    result = _combine_input_and_mask(prod, input, mask).to(dtype=dtype)
    for d in reversed(dim_):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    """Cumulative sum along `dim`, masked-out elements counting as 0."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    return torch.cumsum(_combine_input_and_mask(sum, input, mask), dim_,
                        dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Cumulative product along `dim`, masked-out elements counting as 1."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    return torch.cumprod(_combine_input_and_mask(prod, input, mask), dim_,
                         dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the elements `mask` keeps (-inf where none is)."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(amax, input, mask)
    dim_ = _canonical_dim(dim, mask_input.ndim)
    return torch.amax(mask_input, dim_, bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the elements `mask` keeps (inf where none is)."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(amin, input, mask)
    dim_ = _canonical_dim(dim, mask_input.ndim)
    return torch.amin(mask_input, dim_, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the maximum among the elements `mask` keeps."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(argmax, input, mask)
    return torch.argmax(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the minimum among the elements `mask` keeps."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(argmin, input, mask)
    return torch.argmin(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the elements `mask` keeps (nan where none is)."""
    dtype_source = "Optional"
    if dtype is None:
        dtype = input.dtype
        dtype_source = "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {dtype_source} dtype must be "
                         f"either a floating point or complex dtype. Got: {dtype}")
    if mask is None:
        count = sum(torch.ones(input.shape, dtype=torch.int64), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(_data(input), mask=mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the elements `mask` keeps along `dim` (nan where none is)."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=torch.float)
    output = torch.nanmedian(_combine_input_and_mask(median, input, mask), dim_, keepdim).values
    if is_float:
        return output
    if not torch.isnan(output).any():
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating "
                     "point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp(x))) over the elements `mask` keeps."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)
    return torch.logsumexp(_combine_input_and_mask(logsumexp, input, mask), dim_,
                           keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """logaddexp of `input` and `other`, each with its masked-out elements at -inf."""
    if dtype is None:
        dtype = input.dtype
    return torch.logaddexp(_combine_input_and_mask(logaddexp, input, input_mask),
                           _combine_input_and_mask(logaddexp, other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector norm of the elements `mask` keeps."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(norm, input, mask, ord)
    import chainrule.linalg  # noqa: F401  (torch.linalg is loaded with torch)
    return torch.linalg.vector_norm(mask_input, ord, _canonical_dim(dim, input.ndim),
                                    bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, *, correction_opt, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = torch.float32
    compute_dtype = dtype
    if not (compute_dtype.is_floating_point or compute_dtype.is_complex):
        compute_dtype = torch.float32
    if mask is None:
        count = sum(torch.ones(input.shape, dtype=torch.int64), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
    else:
        inmask = _input_mask(_data(input), mask=mask)
        count = inmask.sum(dim=dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    sample_mean = torch.divide(sample_total, count)
    x = torch.subtract(_data(input), sample_mean)
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype,
                mask=None if mask is None else inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real_dtype = compute_dtype.to_real() if compute_dtype.is_complex else compute_dtype
        count = count.to(real_dtype)
        count = torch.subtract(count, correction)
        count = torch.maximum(count, count.new_zeros([]))
    output = torch.divide(total, count).to(dtype=dtype)
    if take_sqrt:
        output = torch.sqrt(output)
    return output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Variance of the elements `mask` keeps (nan where none is)."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """Standard deviation of the elements `mask` keeps (nan where none is)."""
    return _std_var(input, dim, unbiased, correction_opt=correction, keepdim=keepdim,
                    dtype=dtype, mask=mask, take_sqrt=True)


def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along `dim` over the elements `mask` keeps (0 elsewhere)."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    return torch.nn.functional.softmax(_combine_input_and_mask(amax, input, mask), dim_,
                                       dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log-softmax along `dim` over the elements `mask` keeps (-inf elsewhere)."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    return torch.nn.functional.log_softmax(_combine_input_and_mask(amax, input, mask), dim_,
                                           dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin along `dim` over the elements `mask` keeps (0 elsewhere)."""
    if dtype is None:
        dtype = input.dtype
    dim_ = _canonical_dim(dim, input.ndim)[0]
    # nn.functional.softmin's own graph: softmax of the negation
    return (-_combine_input_and_mask(amin, input, mask)).softmax(dim_, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """`input` divided by its masked `ord`-norm along `dim` (at least eps)."""
    if dtype is None:
        dtype = input.dtype
    mask_input = _combine_input_and_mask(sum, input, mask)
    nrm_ = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = torch.maximum(nrm_, nrm_.new_full([], eps))
    return torch.divide(mask_input, denom)


for _f in (sum, prod, cumsum, cumprod, amax, amin, argmax, argmin, mean, median, logsumexp,
           norm, var, std, softmax, log_softmax, softmin, normalize):
    _f.__module__ = "torch.masked._ops"
del _f
