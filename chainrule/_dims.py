"""Dimension arguments the way PyTorch reads them."""

__all__ = ["wrap_dim", "wrap_dims", "sizes_str", "insertion_order"]


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


def insertion_order(ndim, should_swap):
    """The dims sorted as PyTorch sorts them by stride (TensorIterator's reorder_dimensions,
    infer_dense_strides, dim_order: the same insertion sort with their own comparisons):
    innermost first. should_swap(d0, d1) > 0 moves d1 inward past d0, < 0 stops."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm
