"""Helpers the distributions share: broadcasting parameters, probs <-> logits, lazily built
attributes, sums over trailing dims, and packing a lower triangle into a vector and back."""
import functools

import chainrule as torch
import chainrule.nn.functional as F
from chainrule import Tensor


euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant

__all__ = [
    "broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
    "tril_matrix_to_vec", "vec_to_tril_matrix",
]


def broadcast_all(*values):
    """Broadcast tensors and Python numbers together; numbers become tensors of the first
    tensor's dtype and device (the default dtype when there is no tensor)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    if any(not isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    if len(tensors) < len(values):
        like = tensors[0] if tensors else None
        place = (dict(dtype=like.dtype, device=like.device) if like is not None
                 else dict(dtype=torch.get_default_dtype()))
        values = [v if isinstance(v, Tensor) else torch.tensor(v, **place) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """N(0, 1) draws of `shape`, filled in place (so they use the same generator calls)."""
    draws = torch.empty(shape, dtype=dtype, device=device)
    return draws.normal_()


def _sum_rightmost(value, dim):
    """Sum away the last `dim` dimensions of `value`."""
    if not dim:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from log-odds (binary) or from unnormalized log-probabilities."""
    return torch.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Keep probabilities inside [eps, 1 - eps] for the dtype's machine epsilon."""
    tiny = torch.finfo(probs.dtype).eps
    return probs.clamp(min=tiny, max=1 - tiny)


def probs_to_logits(probs, is_binary=False):
    """Log-odds (binary) or log-probabilities from probabilities, clamped away from 0 and 1."""
    p = clamp_probs(probs)
    log_p = torch.log(p)
    return log_p - torch.log1p(-p) if is_binary else log_p


def _exactly_one(probs, logits):
    """Raise unless exactly one of the two parameterizations is given."""
    if (probs is None) is (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _support_along_dim0(values, batch_shape, expand):
    """enumerate_support's layout: 1-D `values` along dim 0, singleton (or, with expand,
    expanded) batch dims after it."""
    values = values.view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + batch_shape) if expand else values


class lazy_property:
    """Decorator for an attribute computed on first access (with grad enabled) and then
    stored on the instance, which hides the descriptor from then on."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            # seen from the class it should look like a property (and still a lazy_property)
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            built = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, built)
        return built


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property is when looked up on the class: both kinds of descriptor."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


class _ProbsOrLogits:
    """Mixin for distributions given by probabilities or logits: whichever was not given
    is derived on first use. `_binary`: a success probability and its log-odds, rather than
    a probability vector over the last dim and its log-probabilities."""

    _binary = True

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._binary)


class _HoldsParam:
    """Mixin exposing the parameter given at construction, held as `_param`."""

    def _hold(self, probs, logits, *total_count):
        """Store whichever of probs/logits is given (and total_count, broadcast with it and
        of its dtype) as tensors; returns the batch shape."""
        _exactly_one(probs, logits)
        label = "probs" if probs is not None else "logits"
        *count, given = broadcast_all(*total_count, probs if probs is not None else logits)
        if count:
            self.total_count = count[0].type_as(given)
        setattr(self, label, given)
        self._param = given
        return given.size()

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _keep_given(self, new):
        # after expand: the expanded copy of whichever parameter was given
        new._param = new.__dict__["logits" if "logits" in new.__dict__ else "probs"]
        return new


def _tril_mask(n, diag, device):
    # True where column - row <= diag
    idx = torch.arange(n, device=device)
    return idx < idx.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the lower triangle (below diagonal `diag`), row by row."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of tril_matrix_to_vec: a lower-triangular matrix filled row by row."""
    length = vec.shape[-1]
    # D solves D**2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 length = 0; take the positive root
    b = 1 + 2 * diag
    side = ((b * b + 8 * length + 4 * abs(diag) * (diag + 1)) ** 0.5 - b) / 2
    if round(side) - side > torch.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {length} which cannot be expressed as the lower "
            "triangular part of a square D x D matrix.")
    side = round(side)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((side, side)))
    mat[..., _tril_mask(side, diag, vec.device)] = vec
    return mat
