"""torch.lobpcg: a few extreme eigenpairs of a symmetric (generalized) eigenproblem
A x = lambda B x by LOBPCG (Locally Optimal Block Preconditioned Conjugate Gradient;
Knyazev 2001, with the "ortho" variant of Duersch et al. 2018).

Each iteration does a Rayleigh-Ritz step on the search space S = [X, P, W] (current Ritz
vectors, previous directions, preconditioned residuals) and then rebuilds S. The operations
and their order follow PyTorch's, so the same inputs and seed give the same iterates, up to
the signs of eigenvectors (LAPACK builds choose them differently); the worker keeps PyTorch's
state dictionaries (ivars, fvars, bvars, tvars), which a `tracker` sees. The small dense
eigenproblems are solved by NumPy's LAPACK (syevd, as PyTorch's eigh). A gradient of A goes
through LOBPCGAutogradFunction's backward (symmetric A, B = None), as PyTorch's."""
import math

import numpy as np

import chainrule as torch
from . import linalg
from .autograd.function import Function

__all__ = ["lobpcg"]


# ---- dense helpers ------------------------------------------------------------------------

def _times(op, x):
    """op @ x, where op None stands for the identity (B and iK are optional)."""
    return x if op is None else torch.matmul(op, x)


def _gram(op, S):
    """S^T op S."""
    return _times(S.mT, _times(op, S))


def _eigh_sorted(M, largest=False):
    """Eigenpairs of symmetric M (from its upper triangle), eigenvalues ascending, or
    descending if `largest`. Not differentiable: lobpcg has its own backward."""
    values, vectors = (torch.from_numpy(a) for a in np.linalg.eigh(M.detach().numpy(),
                                                                     UPLO="U"))
    if largest:
        values, vectors = torch.flip(values, dims=(-1,)), torch.flip(vectors, dims=(-1,))
    return values, vectors


def _rel(num, a, b):
    """num / (a * b) as a float, computed as PyTorch does (times the inverse)."""
    return float(num) * float(a * b) ** -1


# ---- backward -----------------------------------------------------------------------------

def _grad_full_eigenbasis(D_grad, U_grad, D, U):
    """A's gradient when U holds all eigenvectors: U (diag(dD) + (U^T dU) o G) U^T with
    G_ij = 1 / (d_j - d_i) off the diagonal and 0 on it."""
    inv_gaps = D.unsqueeze(-2) - D.unsqueeze(-1)
    inv_gaps.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))  # 1/inf = 0 on the diagonal
    inv_gaps.pow_(-1)
    Ut = U.mT.contiguous()
    inner = torch.diag_embed(D_grad) + torch.matmul(Ut, U_grad) * inv_gaps
    return torch.matmul(U, torch.matmul(inner, Ut))


def _monic_from_roots(roots):
    """Coefficients a_0 .. a_n (lowest degree first, a_n = 1) of prod_i (x - roots_i),
    multiplying in one root at a time."""
    n = roots.shape[-1]
    coeffs = roots.new_zeros((*roots.shape[:-1], n + 1))
    coeffs[..., n] = 1
    for i in range(1, n + 1):
        # after i roots the polynomial sits in slots n-i .. n
        low = n - i
        lowered = coeffs[..., low:n] - roots[..., i - 1:i] * coeffs[..., low + 1:]
        coeffs = torch.cat([coeffs[..., :low], lowered, coeffs[..., n:]], dim=-1)
    return coeffs


def _monic_at_vector(coeffs, x):
    """The monic polynomial `coeffs` at each entry of x (Horner)."""
    value = x.new_ones(1).expand(x.shape).clone()
    for j in range(coeffs.size(-1) - 2, -1, -1):
        value = torch.addcmul(coeffs[..., j].unsqueeze(-1), x, value)
    return value


def _monic_at_matrix(coeffs, M):
    """The monic polynomial `coeffs` at the square matrix M (Horner)."""
    size = M.size(-1)
    value = torch.eye(size, size, dtype=M.dtype).view(*([1] * (M.dim() - 2)), size, size)
    value = value.clone()
    for j in range(coeffs.size(-1) - 2, -1, -1):
        value = M.matmul(value)
        value.diagonal(dim1=-2, dim2=-1).add_(coeffs[..., j].unsqueeze(-1))
    return value


def _grad_partial_eigenbasis(D_grad, U_grad, A, D, U, largest):
    """A's gradient when U holds only k eigenvectors. The part outside span(U) solves a
    Sylvester equation, done explicitly with the characteristic polynomial p of diag(D)
    (Hu and Cheng 2006, "The polynomial solution to the Sylvester matrix equation")."""
    Ut = U.mT.contiguous()
    complement = -U.matmul(Ut)  # I - U U^T
    complement.diagonal(dim1=-2, dim2=-1).add_(1)
    # a basis of the complement: random vectors from a fresh generator (deterministic)
    draw = torch.randn((*A.shape[:-1], A.size(-1) - D.size(-1)), dtype=A.dtype,
                       generator=torch.Generator(A.device))
    Q = complement.matmul(draw)
    Qt = Q.mT.contiguous()
    p = _monic_from_roots(D)
    k = p.size(-1) - 1
    series = U_grad.new_zeros(U_grad.shape)
    A_power_dU = U_grad
    for j in range(1, k + 1):
        series += A_power_dU * _monic_at_vector(p[..., j:], D).unsqueeze(-2)
        A_power_dU = A.matmul(A_power_dU)
    p_on_Q = torch.matmul(Qt, torch.matmul(_monic_at_matrix(p, A), Q))
    # p(A) on the complement is definite: negative exactly when largest and k is odd
    sign = -1 if (largest and k % 2 == 1) else +1
    chol = linalg.cholesky(sign * p_on_Q)
    grad = _grad_full_eigenbasis(D_grad, U_grad, D, U)
    grad -= Q.matmul(sign * torch.cholesky_solve(Qt.matmul(series), chol)).matmul(Ut)
    return grad


class LOBPCGAutogradFunction(Function):
    """lobpcg with a gradient for A (its node: LOBPCGAutogradFunctionBackward)."""
    __module__ = "torch._lobpcg"

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
                largest=None, method=None, tracker=None, ortho_iparams=None,
                ortho_fparams=None, ortho_bparams=None):
        A = A.contiguous()
        B = None if B is None else B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                       ortho_fparams, ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        complex_types = (torch.complex64, torch.complex128)
        if A.dtype in complex_types or (B is not None and B.dtype in complex_types):
            raise ValueError("lobpcg.backward does not support complex input yet. Note that "
                             "lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        if U.size(-1) == U.size(-2):
            A_grad = _grad_full_eigenbasis(D_grad, U_grad, D, U)
        else:
            A_grad = _grad_partial_eigenbasis(D_grad, U_grad, A, D, U, largest)
        return (A_grad,) + (None,) * 13  # one per forward argument


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The k largest (or smallest) eigenpairs of the symmetric positive definite
    generalized eigenproblem A x = lambda B x, by LOBPCG (`method` "ortho", the default, or
    "basic"). Returns (eigenvalues, eigenvectors). See torch.lobpcg for every parameter."""
    args = (k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
            ortho_fparams, ortho_bparams)
    if not (A.requires_grad or (B is not None and B.requires_grad)):
        return _lobpcg(A, *args)
    # symmetrized first, so that A's gradient is symmetric too
    sym = (A + A.mT) / 2, None if B is None else (B + B.mT) / 2
    return LOBPCGAutogradFunction.apply(sym[0], k, sym[1], *args[2:])


def _settings(m, n, k, niter, tol, largest, method, ortho_iparams, ortho_fparams,
              ortho_bparams):
    """The worker's iparams, fparams, bparams (ortho's own defaults after the user's)."""
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        tols = dict.fromkeys(("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"), tol)
        for params, given, defaults in (
                (iparams, ortho_iparams, {"ortho_i_max": 3, "ortho_j_max": 3}),
                (fparams, ortho_fparams, tols),
                (bparams, ortho_bparams, {"ortho_use_drop": False})):
            if given is not None:
                params.update(given)
            for key, value in defaults.items():
                params.setdefault(key, value)
    return iparams, fparams, bparams


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
            method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
            ortho_bparams=None):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype if A.dtype in (torch.float16, torch.float32, torch.float64) else \
        torch.float32
    if tol is None:  # sqrt of the machine epsilon
        tol = {torch.float32: 1.2e-07, torch.float64: 2.23e-16}[dtype] ** 0.5
    m = A.shape[-1]
    if k is None:
        k = 1 if X is None else X.shape[-1]
    if X is not None:
        n = X.shape[-1]
    elif n is None:
        n = k
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    if method is None:
        method = "ortho"
    iparams, fparams, bparams = _settings(m, n, k, niter, tol, largest, method, ortho_iparams,
                                          ortho_fparams, ortho_bparams)

    def solve(A1, B1, X1, name):
        if X1 is None:
            X1 = torch.randn((m, n), dtype=dtype)
        if not (len(X1.shape) == 2 and X1.shape == (m, n)):
            raise AssertionError(f"{name} shape mismatch: got {X1.shape}, expected {(m, n)}")
        worker = LOBPCG(A1, B1, X1, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]

    if A.dim() == 2:
        return solve(A, B, X, "X")
    # a batch: each matrix alone, in order (a random X drawn for each in turn)
    batch = A.shape[:-2]
    count = math.prod(batch)
    flat = [t if t is None else t.reshape((count,) + t.shape[-2:]) for t in (A, B, X)]
    values = torch.empty((count, k), dtype=dtype)
    vectors = torch.empty((count, m, k), dtype=dtype)
    for i in range(count):
        iparams["batch_index"] = i
        values[i], vectors[i] = solve(*(t if t is None else t[i] for t in flat), "X_")
    return values.reshape(batch + (k,)), vectors.reshape(batch + (m, k))


class LOBPCG:
    """Worker class of LOBPCG methods (its state is what a `tracker` sees)."""
    __module__ = "torch._lobpcg"

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method = method
        self.tracker = tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X  # the Ritz vectors (the caller's X is updated in place by "basic")
        self.E = torch.zeros((n,), dtype=X.dtype)  # the Ritz values
        self.R = torch.zeros((m, n), dtype=X.dtype)  # the residuals
        self.S = torch.zeros((m, 3 * n), dtype=X.dtype)  # the search space [X, P, W]
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        shown = ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars", "A", "B",
                 "iK", "X", "E")
        return "LOBPCG:\n" + "".join(f"  {name}={getattr(self, name)}\n" for name in shown)

    def update(self):
        """Set and update iteration variables."""
        if self.ivars["istep"] == 0:
            X_norm = float(torch.norm(self.X))
            inverse = X_norm ** -1
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(torch.norm(_times(self.A, self.X))) * inverse
            self.fvars["B_norm"] = float(torch.norm(_times(self.B, self.X))) * inverse
            self.ivars.update(iterations_left=self.iparams["niter"], converged_count=0,
                              converged_end=0)
        if self.method == "ortho":
            self._ortho_step()
        else:
            self._basic_step()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        """Update residual R from A, B, X, E."""
        self.R = _times(self.A, self.X) - _times(self.B, self.X) * self.E

    def update_converged_count(self):
        """The number of converged eigenpairs, by the backward stable criterion of
        [DuerschEtal2018] Sec 4.3 (pairs converge in order)."""
        before = self.ivars["converged_count"]
        X, E = self.X, self.E
        scale = self.fvars["A_norm"] + torch.abs(E[:X.shape[-1]]) * self.fvars["B_norm"]
        rerr = torch.norm(self.R, 2, (0,)) / (torch.norm(X, 2, (0,)) * scale)
        flags = (rerr < self.fparams["tol"]).tolist()
        count = flags.index(False) if False in flags else len(flags)  # the leading run
        if count < before:
            raise AssertionError(f"the number of converged eigenpairs (was {before}, got "
                                 f"{count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        """True to stop (a tracker may set worker.bvars['force_stop'])."""
        if self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0:
            return True
        return self.ivars["converged_count"] >= self.iparams["k"]

    def run(self):
        """Run LOBPCG iterations, calling the tracker after each."""
        while True:
            self.update()
            if self.tracker is not None:
                self.call_tracker()
            if self.stop_iteration():
                return

    def call_tracker(self):
        """Let the tracker see the worker's state."""
        self.tracker(self)

    def _rebuild_search_space(self, P, residuals, new_directions):
        """After the Ritz step moved X (and E): new residuals, the converged count, and
        S = [X, P, W] with W = new_directions(R's columns to use, [X, P] in S)."""
        n = self.iparams["n"]
        self.update_residual()
        done = self.update_converged_count()
        self.S[:, :n] = self.X
        used = n
        if P is not None:
            used += P.shape[-1]
            self.S[:, n:used] = P
        W = new_directions(residuals(done), used)
        end = used + W.shape[-1]
        self.ivars["converged_end"] = end
        self.S[:, used:end] = W

    def _basic_step(self):
        """Rayleigh-Ritz on X (first step) or on S's unconverged part, with B-orthonormal
        coordinates from _get_rayleigh_ritz_transform; W = iK R."""
        n = self.iparams["n"]
        done = self.ivars["converged_count"]
        first = self.ivars["istep"] == 0
        space = self.X if first else self.S[:, done:self.ivars["converged_end"]]
        Ri = self._get_rayleigh_ritz_transform(space)
        theta, Z = _eigh_sorted(_gram(_gram(self.A, space), Ri), self.bparams["largest"])
        if first:
            self.X[:] = torch.matmul(space, torch.matmul(Ri, Z))
            self.E[:] = theta
            P = None
        else:
            self.X[:, done:] = torch.matmul(space, torch.matmul(Ri, Z[:, :n - done]))
            self.E[done:] = theta[:n - done]
            P = torch.matmul(space, torch.matmul(Ri, Z[:, n:2 * n - done]))
        self._rebuild_search_space(
            P, lambda c: self.R if first else self.R[:, c:],
            lambda R, used: _times(self.iK, R))

    def _ortho_step(self):
        """As _basic_step, but S is kept B-orthonormal (so later steps need no transform)
        and P, W are B-orthogonalized ([DuerschEtal2018])."""
        n = self.iparams["n"]
        done = self.ivars["converged_count"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            _, Z = _eigh_sorted(_gram(_gram(self.A, self.X), Ri), largest)
            self.X = torch.matmul(self.X, torch.matmul(Ri, Z))
            first_X = self.X
            # (E stays as it is until the next step, as in PyTorch)
            self._rebuild_search_space(None, lambda c: self.R,
                                       lambda R, used: self._get_ortho(R, first_X))
            return
        space = self.S[:, done:self.ivars["converged_end"]]
        theta, Z = _eigh_sorted(_gram(self.A, space), largest)
        keep = n - done
        self.X[:, done:] = torch.matmul(space, Z[:, :keep])
        self.E[done:] = theta[:keep]
        P = torch.matmul(space, torch.matmul(Z[:, keep:], linalg.qr(Z[:keep, keep:].mT).Q))
        self._rebuild_search_space(P, lambda c: self.R[:, c:],
                                   lambda R, used: self._get_ortho(R, self.S[:, :used]))

    def _get_rayleigh_ritz_transform(self, S):
        """The upper-triangular Ri reducing (S^T A S) C = (S^T B S) C E to the standard
        problem (Ri^T S^T A S Ri) Z = Z E, C = Ri Z ([DuerschEtal2018], with the diagonal
        scalings done elementwise)."""
        SBS = _gram(self.B, S)
        scale = SBS.diagonal(0, -2, -1) ** -0.5
        upper = linalg.cholesky((SBS * scale) * scale.reshape(scale.shape[0], 1), upper=True)
        return linalg.solve_triangular(upper, scale.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """B-orthonormal U (Algorithm 4 of [DuerschPhD2015]); with `drop`, columns adding
        little to span(U) are dropped, else their weights are raised to tau's level."""
        if torch.numel(U) == 0:
            return U
        UBU = _gram(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nonzero = abs(d) != 0.0
        if not bool(nonzero.all()):  # zero columns first, for the d ** -0.5 below
            U = U[:, torch.where(nonzero)[0]]
            if torch.numel(U) == 0:
                return U
            UBU = _gram(self.B, U)
            d = UBU.diagonal(0, -2, -1)
        col_scale = (d ** -0.5).reshape(d.shape[0], 1)
        E, Z = _eigh_sorted((UBU * col_scale) * col_scale.mT)
        floor = tau * abs(E).max()
        if drop:
            kept = torch.where(E > floor)[0]
            E, Z, col_scale = E[kept], Z[:, kept], col_scale[kept]
        else:
            E[torch.where(E < floor)[0]] = floor
        return torch.matmul(U * col_scale.mT, Z * E ** -0.5)

    def _get_ortho(self, U, V):
        """B-orthonormal U whose columns are B-orthogonal to V (Algorithm 3, or 6 with
        ortho_use_drop, of [DuerschPhD2015]); empty when U lies in span(V). Records the
        relative errors of each pass in fvars and the pass counts in ivars."""
        fp, ip = self.fparams, self.iparams
        use_drop = self.bparams["ortho_use_drop"]
        for key in [key for key in self.fvars
                    if key.startswith("ortho_") and key.endswith("_rerr")]:
            del self.fvars[key]
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = torch.norm(_times(self.B, V))
        BU = _times(self.B, U)
        VBU = torch.matmul(V.mT, BU)
        i = j = 0
        for i in range(ip["ortho_i_max"]):
            U = U - torch.matmul(V, VBU)
            for j in range(ip["ortho_j_max"]):
                # with dropping: the first pass keeps every column, raising weak ones to
                # ortho_tol_drop; later passes drop below ortho_tol_replace
                if use_drop and j == 0:
                    U = self._get_svqb(U, False, fp["ortho_tol_drop"])
                else:
                    U = self._get_svqb(U, use_drop, fp["ortho_tol_replace"])
                if torch.numel(U) == 0:
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _times(self.B, U)
                UBU = torch.matmul(U.mT, BU)
                U_norm, BU_norm = torch.norm(U), torch.norm(BU)
                off = torch.norm(UBU - torch.eye(UBU.shape[-1], dtype=UBU.dtype))
                rerr = _rel(off, BU_norm, U_norm)
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < fp["ortho_tol"]:
                    break
            VBU = torch.matmul(V.mT, BU)
            rerr = _rel(torch.norm(VBU), BV_norm, torch.norm(U))
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < fp["ortho_tol"]:
                break
            if ip["m"] < U.shape[-1] + V.shape[-1]:
                if self.B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(f"Overdetermined shape of U: #B-cols(={self.B.shape[-1]}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold")
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U
