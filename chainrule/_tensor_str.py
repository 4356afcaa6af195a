"""PyTorch's tensor ``repr`` text, produced from a NumPy array.

Follows the rules of torch/_tensor_str.py (PyTorch 2.13) for dense CPU tensors:
one column width per real component, chosen from the elements shown; fixed,
integer-valued (``1.``) or scientific notation; summarization with ``...``;
row wrapping at ``linewidth``; ``size=``/``dtype=``/extra suffixes.
"""
import contextlib
import math

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}
_opts = dict(_PROFILES["default"], sci_mode=None)
_PREFIX = "tensor("


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set print options, as ``torch.set_printoptions`` (``sci_mode`` is always reset)."""
    _opts.update(_PROFILES.get(profile, {}))  # torch ignores unknown profiles
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _opts[key] = value
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """Current print options, as keyword arguments for ``set_printoptions``."""
    return dict(_opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change print options (same arguments as ``set_printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


def _format_real(values):
    """Texts of a flat real array, right-aligned to one width; returns (texts, width)."""
    if values.dtype.kind == "b":
        width = 5 if not values.all() else 4
        return [str(v).rjust(width) for v in values.tolist()], width
    if values.dtype.kind != "f":
        # Text length grows with |v| on each side of zero, so the extremes decide the width.
        width = max(len(str(values.min().item())), len(str(values.max().item())))
        return [str(v).rjust(width) for v in values.tolist()], width

    precision = _opts["precision"]
    finite = values[np.isfinite(values) & (values != 0)]  # only these decide mode and width
    int_mode = bool(np.all(finite == np.ceil(finite)))
    sci_mode, width = False, 1
    if finite.size:  # all zero / nonfinite: torch keeps integer mode and width 1
        mag = np.abs(finite).astype(np.float64)
        lo, hi = mag.min(), mag.max()
        sci_mode = _opts["sci_mode"]
        if sci_mode is None:
            with np.errstate(over="ignore"):  # huge / subnormal is inf, as in torch
                sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
    spec = f".{precision}e" if sci_mode else ".0f" if int_mode else f".{precision}f"
    dot = int_mode and not sci_mode  # integral floats print as "1." (not for nan/inf)
    if finite.size:
        # Within one sign, length is monotone in |v| (in sci mode only the exponent
        # digits vary, widest at either end), so the sign-wise extremes decide the width.
        extremes = [x for side in (finite[finite > 0], finite[finite < 0]) if side.size
                    for x in (side.min(), side.max())]
        width = max(len(format(float(x), spec)) for x in extremes) + dot

    def text(v):
        s = format(v, spec)
        return s + "." if dot and math.isfinite(v) else s

    return [text(v).rjust(width) for v in values.tolist()], width


def _format_elements(shown):
    """Texts of every element of ``shown`` (flat) and the width one element takes in a row."""
    if shown.dtype.kind != "c":
        texts, width = _format_real(shown.ravel())
        return texts, width + 2  # ", " between elements
    real, real_width = _format_real(shown.real.ravel())
    imag, imag_width = _format_real(shown.imag.ravel())
    texts = []
    for r, i in zip(real, imag):
        i = (i + "j").lstrip()
        texts.append(r + i if i[0] in "+-" else r + "+" + i)
    return texts, real_width + 2 + imag_width + 1


def _nest(rows, ndim, indent, cut, element_length):
    """Bracketed text of nested lists of element texts; ``cut[d]`` marks a summarized dim."""
    edge = _opts["edgeitems"]
    if ndim == 1:
        items = rows[:edge] + [" ..."] + rows[edge:] if cut[0] else rows
        per_line = max(1, math.floor((_opts["linewidth"] - indent) / element_length))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_nest(row, ndim - 1, indent + 1, cut[1:], element_length) for row in rows]
    if cut[0]:
        parts.insert(edge, "...")
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(a):
    """The bracketed contents of a non-empty array."""
    edge = _opts["edgeitems"]
    summarize = a.size > _opts["threshold"]
    if summarize and a.ndim and not edge:
        return "[...]"
    cut = [summarize and n > 2 * edge for n in a.shape]
    shown = a
    if any(cut):
        # Gather only the edge items, so huge arrays are never formatted or copied whole.
        index = [np.r_[:edge, n - edge:n] if c else np.arange(n) for n, c in zip(a.shape, cut)]
        shown = a[np.ix_(*index)]
    texts, element_length = _format_elements(shown)
    if a.ndim == 0:
        return texts[0]
    rows = np.array(texts, dtype=object).reshape(shown.shape).tolist()
    return _nest(rows, a.ndim, len(_PREFIX), cut, element_length)


def _add_suffixes(text, suffixes):
    """Append ``, key=value`` suffixes and the closing parenthesis, wrapping as torch does."""
    indent, linewidth = len(_PREFIX), _opts["linewidth"]
    last_line = len(text) - text.rfind("\n") + 1  # torch's count (2 over), kept for identical wraps
    out = [text]
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(out) + ")"


def format_tensor(array, *, dtype_name, is_default_dtype, suffixes=()):
    """``repr`` of a PyTorch tensor holding ``array``.

    ``is_default_dtype``: the dtype is ``torch.get_default_dtype()`` or its complex
    counterpart (int64 and bool are recognised from ``dtype_name``). ``suffixes``
    (e.g. ``'grad_fn=<MulBackward0>'``) follow ``dtype=``.
    """
    a = np.asarray(array)
    if a.dtype.isbuiltin == 2:
        # bfloat16, float8, complex32 (ml_dtypes): every value is exact in float32 / complex64
        a = a.astype(np.complex64 if a.dtype.kind == "W" else np.float32)
    size = f"size={tuple(a.shape)}"
    dtype = f"dtype={dtype_name}"
    extra = []
    if a.size == 0:
        body = "[]"
        if a.ndim != 1:
            extra.append(size)
        # Nothing shows an empty tensor's type, so only the default float dtype is implied.
        if not (is_default_dtype and a.dtype.kind == "f"):
            extra.append(dtype)
    else:
        body = _body(a)
        if not _opts["edgeitems"]:
            extra.append(size)
        if not (is_default_dtype or dtype_name in ("torch.int64", "torch.bool")):
            extra.append(dtype)
    return _add_suffixes(_PREFIX + body, extra + list(suffixes))
