"""torch.return_types: the named-tuple types of ops with several named results
(`torch.max(x, 0)` is a `torch.return_types.max` with fields `values` and `indices`).

The types live in the op registry (`ops.registry.return_types`), where the ops that return
them find them; this module names PyTorch's set of them, making those no op has made yet,
so `isinstance(torch.max(x, 0), torch.return_types.max)` holds whichever comes first."""
from .ops.registry import _structseq, return_types as _registry

_VALUES_INDICES = ("values", "indices")
_FIELDS = {
    **{n: _VALUES_INDICES for n in ("cummax", "cummin", "kthvalue", "max", "median", "min",
                                    "mode", "nanmedian", "sort", "topk")},
    "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"), "geqrf": ("a", "tau"),
    "histogram": ("hist", "bin_edges"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_eig": ("eigenvalues", "eigenvectors"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu": ("P", "L", "U"), "linalg_lu_factor": ("LU", "pivots"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_qr": ("Q", "R"),
    "linalg_slogdet": ("sign", "logabsdet"), "linalg_solve_ex": ("result", "info"),
    "linalg_svd": ("U", "S", "Vh"), "lu_unpack": ("P", "L", "U"), "qr": ("Q", "R"),
    "slogdet": ("sign", "logabsdet"), "svd": ("U", "S", "V"),
    "triangular_solve": ("solution", "cloned_coefficient"),
}
# every type has its out= twin, except histogramdd (which has no out=)
_FIELDS.update({n + "_out": f for n, f in list(_FIELDS.items())})
_FIELDS["histogramdd"] = ("hist", "bin_edges")

all_return_types = []
for _name, _fields in sorted(_FIELDS.items()):
    _rt = _registry.get(_name)
    if _rt is None:
        _rt = _registry[_name] = _structseq(_name, _fields)
    globals()[_name] = _rt
    all_return_types.append(_rt)
del _name, _fields, _rt

__all__ = ["all_return_types"] + sorted(_FIELDS)


def _rebuild(name, values):
    """Unpickle a structseq: the type registered under `name`, over `values`."""
    return _registry[name](*values)
