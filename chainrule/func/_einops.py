"""torch.func.rearrange: einops-style element reordering as reshapes, a permutation and
(for unit axes on the left) a sum.

PyTorch runs the pattern through first-class dimensions (functorch.dim): each axis of the
left side becomes a dim bound to a size, the dims are reordered and regrouped as the right
side says, and unit axes on the left ('1', '()') are summed over. Here the same plan is three
ordinary ops: a reshape splitting the left side's groups into one dim per axis, `permute`
into the right side's order, a reshape merging its groups and `sum` over the unit axes, so
gradients, forward mode and vmap come from those ops' rules. Parsing, its checks and the
binding of sizes give PyTorch's errors and warnings; a pattern is parsed once per tensor
rank and axis lengths (PyTorch caches the same way, so its warnings come once too).
"""
import functools
import keyword
import warnings

from .._tensor import Tensor

__all__ = ["rearrange"]

_ELLIPSIS = "\u2026"     # '...' once parsed: one character, so it cannot clash with a name


class DimensionBindError(Exception):
    """A size that cannot be bound to the pattern's axes (functorch.dim's error)."""


def _check_name(name):
    if not name.isidentifier():
        return "not a valid python identifier"
    if name[0] == "_" or name[-1] == "_":
        return "axis name should should not start or end with underscore"
    if keyword.iskeyword(name):
        warnings.warn(f"It is discouraged to use axes names that are keywords: {name}",
                      RuntimeWarning)
    if name == "axis":
        warnings.warn("It is discouraged to use 'axis' as an axis name and will raise an "
                      "error in future", FutureWarning)
    return None


class _Side:
    """One side of a pattern: `groups` is a list of positions, each a list of axes (names, or
    objects for anonymous axes such as '2'; an empty list is a unit axis) or the ellipsis."""

    def __init__(self, text):
        self.names = set()
        self.groups = []
        self.ellipsis = False
        self.ellipsis_grouped = False
        self.non_unit_anonymous = False
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only "
                                 "one ellipsis for tensor ")
            text = text.replace("...", _ELLIPSIS)
            self.ellipsis = True
        group, word = None, ""
        for ch in text + " ":
            if ch in "() ":
                if word:
                    self._add(word, group)
                word = ""
                if ch == "(":
                    if group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside "
                                         "brackets not allowed)")
                    group = []
                elif ch == ")":
                    if group is None:
                        raise ValueError("Brackets are not balanced")
                    self.groups.append(group)
                    group = None
            elif ch.isalnum() or ch in ("_", _ELLIPSIS):
                word += ch
            else:
                raise ValueError(f"Unknown character '{ch}'")
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")

    def _add(self, word, group):
        if word in self.names:
            raise ValueError(f"Indexing expression contains duplicate dimension '{word}'")
        if word == _ELLIPSIS:
            self.names.add(word)
            if group is None:
                self.groups.append(word)
            else:
                group.append(word)
                self.ellipsis_grouped = True
            return
        number = word.isdecimal()
        if number and int(word) == 1:
            if group is None:       # a unit axis; inside brackets it changes nothing
                self.groups.append([])
            return
        if not number:
            reason = _check_name(word)
            if reason is not None:
                raise ValueError(f"Invalid axis identifier: {word}\n{reason}")
        if number and int(word) < 1:
            raise ValueError(f"Anonymous axis should have positive length, not {int(word)}")
        axis = object() if number else word     # anonymous axes are never equal
        self.names.add(axis)
        self.non_unit_anonymous |= number
        if group is None:
            self.groups.append([axis])
        else:
            group.append(axis)


@functools.lru_cache(256)
def _plan(ndim, pattern, **axes_lengths):
    """(dims, left, right, units, lengths) for a tensor of rank `ndim`: the pattern's axes
    numbered in left-side order (`dims` of them), the left side as per-dim tuples (groups)
    or ints (ellipsis dims), the right side's groups of dims, the unit axes' dims, and the
    given lengths by dim."""
    sides = pattern.split("->")
    if len(sides) != 2:
        raise ValueError("Pattern must contain a single '->' separator")
    if _ELLIPSIS in axes_lengths:
        raise ValueError(f"'{_ELLIPSIS}' is not an allowed axis identifier")
    left, right = _Side(sides[0]), _Side(sides[1])
    if right.ellipsis and not left.ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.ellipsis and left.ellipsis_grouped:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in axes_lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.non_unit_anonymous or right.non_unit_anonymous:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    difference = left.names.symmetric_difference(right.names)
    if difference:
        raise ValueError("Identifiers only on one side of rearrange expression (should be on "
                         f"both): {difference}")
    unmatched = axes_lengths.keys() - left.names
    if unmatched:
        raise ValueError(f"Identifiers not found in rearrange expression: {unmatched}")

    units = sum(g == [] for g in left.groups)
    if left.ellipsis:
        n_ellipsis = ndim - (len(left.groups) - 1)
        rank = units + len(left.names) - 1
        if rank > ndim:
            raise ValueError(f"Number of dimensions in pattern ({rank}) must be less than or "
                             f"equal to the number of dimensions in the tensor ({ndim})")
    else:
        n_ellipsis = 0
        if len(left.groups) != ndim:
            raise ValueError(f"Number of dimensions in pattern ({len(left.groups)}) must be "
                             f"equal to the number of dimensions in the tensor ({ndim})")
    dim_of, left_plan, unit_dims, n = {}, [], [], 0
    for g in left.groups:
        if g == _ELLIPSIS:
            dim_of[_ELLIPSIS] = tuple(range(n, n + n_ellipsis))
            left_plan.extend(dim_of[_ELLIPSIS])
            n += n_ellipsis
        elif g:
            for axis in g:
                dim_of[axis] = (n,)
                n += 1
            left_plan.append(tuple(dim_of[axis][0] for axis in g))
        else:
            unit_dims.append(n)
            left_plan.append((n,))
            n += 1
    right_plan = []
    for g in right.groups:
        if g == _ELLIPSIS:
            right_plan.extend((d,) for d in dim_of[_ELLIPSIS])
        else:
            right_plan.append(tuple(d for axis in g for d in dim_of[axis]))
    lengths = {dim_of[name][0]: length for name, length in axes_lengths.items()}
    return n, tuple(left_plan), tuple(right_plan), tuple(unit_dims), lengths


def _bind(size, pack, sizes):
    """Sizes for the dims of `pack` from the tensor's `size` (functorch.dim's rules)."""
    known = 1
    for i, d in enumerate(pack):
        if sizes[d] is None:
            for e in pack[i + 1:]:
                if sizes[e] is None:
                    raise DimensionBindError("cannot infer the sizes of two dimensions at once "
                                             f"d{d} and d{e}")
                known *= sizes[e]
            if size % known != 0:
                shown = tuple("?" if sizes[e] is None else sizes[e] for e in pack)
                raise DimensionBindError("inferred dimension does not evenly fit into larger "
                                         f"dimension: {size} vs {shown}")
            sizes[d] = size // known
            known = size
            break
        known *= sizes[d]
    if known != size:
        raise DimensionBindError(f"Dimension sizes to do not match ({size} != {known}) when "
                                 "matching dimension pack (" +
                                 "".join(f"d{d}, " for d in pack)[:-2] +
                                 ("," if len(pack) == 1 else "") + ")")


def rearrange(tensor, pattern, **axes_lengths):
    """torch.func.rearrange: `tensor` (or a sequence of tensors, stacked) reordered as the
    einops `pattern` says, e.g. 'b (h w) c -> b c h w' with h=4."""
    if not isinstance(tensor, Tensor):
        from .. import stack
        tensor = stack(tensor)
    n, left, right, units, lengths = _plan(tensor.dim(), pattern, **axes_lengths)
    if n == 0:
        return tensor
    sizes = [None] * n
    for d, length in lengths.items():
        sizes[d] = length
    for size, item in zip(tensor.shape, left):
        if type(item) is int:
            sizes[item] = size
        else:
            _bind(size, item, sizes)
    x = tensor
    if any(type(item) is tuple and len(item) != 1 for item in left):
        x = x.reshape(sizes)
    # the unit axes go last and are summed over last, as PyTorch's
    order = [d for group in right for d in group] + list(units)
    if order != list(range(n)):
        x = x.permute(order)
    shape = []
    for group in right:
        k = 1
        for d in group:
            k *= sizes[d]
        shape.append(k)
    x = x.reshape(shape + [sizes[d] for d in units])
    return x.sum(tuple(range(len(right), len(right) + len(units)))) if units else x
