"""torch.functional: the module where PyTorch writes some of its top-level functions in
Python (einsum, split, meshgrid, norm, unique, ...). Each name here is the top-level
function itself; names chainrule does not have yet (stft, istft, until torch.fft lands)
are left out of `__all__` and raise AttributeError."""
import chainrule as _chainrule

_TORCH_ALL = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes",
              "broadcast_tensors", "cartesian_prod", "block_diag", "cdist", "chain_matmul",
              "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split", "stft",
              "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index")

__all__ = [n for n in _TORCH_ALL if hasattr(_chainrule, n)]


def __getattr__(name):
    # resolved on use, so a function another module adds later is found
    if name in _TORCH_ALL and hasattr(_chainrule, name):
        return getattr(_chainrule, name)
    raise AttributeError(f"module 'chainrule.functional' has no attribute '{name}'")
