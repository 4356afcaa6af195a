"""torch.nn.utils.parametrizations: orthogonal, spectral_norm and weight_norm as
parametrizations (PyTorch's parametrizations.py)."""
from enum import Enum as _Enum, auto as _auto

from ... import linalg as _linalg
from ..._creation import eye, randn, zeros_like
from ..._dtype import finfo
from ..._tensor import Tensor as _Tensor
from ...autograd import no_grad
from ...ops.registry import FUNCTIONS
from .. import functional as _F
from ..modules.module import Module as _Module
from . import parametrize as _parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return FUNCTIONS["allclose"](Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A's QR decomposition, with the signs making R's diagonal positive."""
    X, tau = FUNCTIONS["geqrf"](A)
    Q = _linalg.householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(_Enum):
    matrix_exp = _auto()
    cayley = _auto()
    householder = _auto()


class _Orthogonal(_Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = FUNCTIONS["cat"]([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)],
                                     dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = FUNCTIONS["matrix_exp"](A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = _linalg.solve(FUNCTIONS["add"](Id, A, alpha=-0.5),
                                  FUNCTIONS["add"](Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                A, tau = FUNCTIONS["geqrf"](Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:
                N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(FUNCTIONS["cat"]([Q, N], dim=-1))
            self.base = Q
            neg_Id = zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain `module.<name>` to orthogonal (unitary) matrices."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    _parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(_Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return FUNCTIONS["_weight_norm"](weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return FUNCTIONS["norm_except_dim"](weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as its magnitude (original0) times its direction
    (original1)."""
    _parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        # a state dict of torch.nn.utils.weight_norm (name_g, name_v) loads too
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(_Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", _F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", _F.normalize(v, dim=0, eps=self.eps))
            # u and v start close to the singular vectors: 15 iterations
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got "
                                 f"{weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = _F.normalize(FUNCTIONS["mv"](weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = _F.normalize(FUNCTIONS["mv"](weight_mat.H, self._u), dim=0,
                                      eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return _F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones, so that the power method may update u and v in place (PyTorch's note)
        u, v = self._u.clone(), self._v.clone()
        sigma = FUNCTIONS["vdot"](u, FUNCTIONS["mv"](weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _transposed_conv(module):
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its spectral norm, estimated by power iteration (one step
    per call in training)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _transposed_conv(module) else 0
    _parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
