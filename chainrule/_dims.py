"""Dimension arguments the way PyTorch reads them."""

__all__ = ["wrap_dim", "wrap_dims", "sizes_str"]


def wrap_dim(dim, ndim):
    """A possibly negative `dim` as an index into `ndim` dims, with PyTorch's IndexError.
    A 0-d tensor accepts dims 0 and -1."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def wrap_dims(dim, ndim):
    """`dim` (an int, a sequence, or None for all) as a sorted tuple of wrapped dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dims = (wrap_dim(dim, ndim),)
    else:
        dims = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            d = next(d for d in dims if dims.count(d) > 1)
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if ndim == 0:
        return ()
    return tuple(sorted(dims))


def sizes_str(shape):
    """`[2, 3]`, as PyTorch prints sizes in messages."""
    return "[" + ", ".join(str(s) for s in shape) + "]"
