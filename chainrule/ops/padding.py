"""Padding: constant_pad_nd, the reflection and replication pad rows (1-3 padded dims, each
with its backward row, as in derivatives.yaml), and nn.functional.pad. Circular padding is
PyTorch's composition (_pad_circular): slices of an empty tensor filled by in-place copies.

A reflection or replication pad is a gather: each output position along a padded axis reads
one input position (`_sources`); its backward scatters the gradient back with one bincount.
"""
import math
import operator

import numpy as np

from .. import _dtype
from .._tensor import make_tensor
from .pointwise import _zeros
from .registry import op, public
from .shape import slice_

__all__ = ["pad"]


# ---- constant_pad_nd ----------------------------------------------------------------------

def _constant_pad(a, pad, value):
    """Crop where a pad is negative, then pad with `value` where it is positive."""
    crop, widths = [slice(None)] * a.ndim, [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        d, left, right = a.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        crop[d] = slice(max(-left, 0), a.shape[d] - max(-right, 0))
        widths[d] = (max(left, 0), max(right, 0))
    a = a[tuple(crop)]
    if not any(left or right for left, right in widths):
        return a.copy()
    return np.pad(a, widths, constant_values=value)


_constant_pad_row = op(
    "constant_pad_nd", "ConstantPadNdBackward0", "self, pad, value=0", _constant_pad,
    function=False, method=False,
    self=lambda grad, pad: _constant_pad_row(grad, tuple(-p for p in pad), 0))

# PyTorch's names for integer types in c10::checked_convert's message
_INT_NAMES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
              "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _fill_value(value, dtype):
    """`value` as a scalar of `dtype`, or PyTorch's overflow error (c10::checked_convert)."""
    t = dtype.np
    if t.kind == "b":
        return np.bool_(value)
    bad = False
    if isinstance(value, complex) and t.kind != "c":
        bad, value = value.imag != 0, value.real
    if t.kind in "iu":
        info = np.iinfo(t)
        floating = isinstance(value, (float, np.floating))
        high = float(info.max) if floating else info.max
        # an unsigned type takes integers down to -max (wrapped), floating values from 0
        low = info.min if t.kind == "i" else 0 if floating else -info.max
        bad = bad or not low <= value <= high
        name = _INT_NAMES[t.name]
    else:
        limit = _dtype.float_max(t)
        parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
        bad = bad or any(math.isfinite(p) and abs(p) > limit for p in parts)
        name = dtype.cpp
    if bad:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(t)


def _int_list(fname, pad):
    """The pad as a tuple of ints, with PyTorch's argument-parser errors."""
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    out = []
    for i, p in enumerate(pad):
        try:
            if isinstance(p, bool):
                raise TypeError
            out.append(operator.index(p))
        except TypeError:
            raise TypeError(f"{fname}(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}") from None
    return tuple(out)


def _narrow_check(shape, pad):
    # at::constant_pad_nd narrows the input where a pad is negative
    for i in range(len(pad) // 2):
        size = shape[len(shape) - 1 - i]
        left, right = pad[2 * i], pad[2 * i + 1]
        size += min(left, 0)
        if size < 0 or size + min(right, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")


@public(method=False)
def constant_pad_nd(input, pad, value=0):
    """Pads the last len(pad)/2 dims with `value` (pairs from the last dim); negative pads crop."""
    pad = _int_list("constant_pad_nd", pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.dim()}dimensions.")
    _narrow_check(input.shape, pad)
    return _constant_pad_row(input, pad, _fill_value(value, input.dtype))


# ---- reflection and replication -----------------------------------------------------------

def _sources(shape, padding, mode):
    """Per padded axis (outermost first), the input position each output position reads."""
    n = len(padding) // 2
    out = []
    for i in range(n):
        size = shape[len(shape) - n + i]
        left, right = padding[2 * (n - 1 - i)], padding[2 * (n - 1 - i) + 1]
        o = np.arange(-left, size + right)
        if mode == "reflect":
            o = np.abs(o)
            o = np.where(o >= size, 2 * (size - 1) - o, o)
        else:
            o = np.clip(o, 0, size - 1)
        out.append(o)
    return out


def _gather(mode):
    def forward(a, padding):
        # (fancy indexing lays the result out in its own order; PyTorch's is C order)
        return np.ascontiguousarray(a[(Ellipsis,) + np.ix_(*_sources(a.shape, padding, mode))])
    return forward


def _scatter(mode):
    """The backward: each input position sums the gradient of the outputs that read it."""
    def forward(g, a, padding):
        src = _sources(a.shape, padding, mode)
        n = len(src)
        plane = a.shape[-n:]
        flat = np.ravel_multi_index(np.ix_(*src), plane).ravel()
        size = math.prod(plane)
        planes = math.prod(a.shape[:-n])
        index = (flat + np.arange(planes)[:, None] * size).ravel()
        g = g.reshape(-1)
        if g.dtype.kind == "c":     # each part summed apart (1j * inf would be nan+infj)
            out = np.empty(planes * size, np.complex128)
            out.real = np.bincount(index, g.real, planes * size)
            out.imag = np.bincount(index, g.imag, planes * size)
        else:
            out = np.bincount(index, g, planes * size)
        return out.astype(g.dtype).reshape(a.shape)
    return forward


def _pad_rows(mode, kind, n):
    name = f"{kind.lower()}_pad{n}d"

    def forward_formula(grad, self, padding):
        return backward(grad, self, padding)

    def backward_formula(grad, padding):
        return forward(grad, padding)

    backward = op(f"{name}_backward", f"{kind}Pad{n}DBackwardBackward0",
                  "grad_output, self, padding", _scatter(mode), function=False, method=False,
                  grad_output=backward_formula, self=_zeros)
    forward = op(name, f"{kind}Pad{n}DBackward0", "self, padding", _gather(mode),
                 function=False, method=False, self=forward_formula)
    return forward


_PAD_ROWS = {(mode, n): _pad_rows(mode, kind, n)
             for mode, kind in (("reflect", "Reflection"), ("replicate", "Replication"))
             for n in (1, 2, 3)}


def _check_pad(input, pad, mode, kind):
    """PyTorch's checks of reflection_pad{n}d / replication_pad{n}d."""
    n = len(pad) // 2
    shape = list(input.shape)
    # the batch dim alone may be empty
    if 0 in shape[len(shape) - n - 1:]:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{shape}")
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(n)]        # last dim first
    if mode == "reflect":
        for i, (left, right) in enumerate(pairs):
            d = len(shape) - 1 - i
            if left >= shape[d] or right >= shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   "corresponding input dimension, but got: padding "
                                   f"({left}, {right}) at dimension {d} of input {shape}")
    sizes = shape[-n:]
    out = [s + left + right for s, (left, right) in zip(sizes, pairs[::-1])]
    if all(o < 1 for o in out):
        if n == 1:
            raise RuntimeError(f"input (W: {sizes[0]}) is too small. Calculated output W: "
                               f"{out[0]}")
        if n == 2:
            space = " " if mode == "replicate" else ""
            raise RuntimeError(f"input (H: {sizes[0]}, W: {sizes[1]}{space}) is too small. "
                               f"Calculated output H: {out[0]} W: {out[1]}")
        raise RuntimeError(f"input (D: {sizes[0]} H: {sizes[1]}, W: {sizes[2]}) is too small. "
                           f"Calculated output D: {out[0]} H: {out[1]} W: {out[2]}")
    if any(o < 0 for o in out):
        if n == 2 and mode == "reflect":
            raise RuntimeError("numel: integer multiplication overflow")
        full = shape[:-n] + out
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(o for o in out if o < 0)}: {full}")
    if input.dtype.np.kind == "b":
        raise NotImplementedError(f"\"{kind.lower()}_pad{n}d\" not implemented for 'Bool'")


# ---- circular -----------------------------------------------------------------------------

def _pad_circular(input, pad):
    """PyTorch's _pad_circular: copy the input into an empty tensor, then copy its far ends
    into the pads, one padded dim at a time (so nodes match: CopySlices over slices)."""
    shape = list(input.shape)
    n = len(pad) // 2
    nd = len(shape)
    out_shape = list(shape)
    for i in range(n):
        left, right = pad[2 * (n - i - 1)], pad[2 * (n - i - 1) + 1]
        d = nd - n + i
        out_shape[d] = shape[d] + left + right
        if left > shape[d] or right > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = make_tensor(np.empty(out_shape, input._data.dtype))
    out_slice, in_slice = out, input
    for i in range(n):
        d, left, right = nd - i - 1, pad[2 * i], pad[2 * i + 1]
        out_slice = slice_(out_slice, d, max(left, 0), out_shape[d] - max(right, 0))
        in_slice = slice_(in_slice, d, max(-left, 0), shape[d] - max(-right, 0))
    out_slice.copy_(in_slice)
    for i in range(n):
        d, left, right = nd - i - 1, pad[2 * i], pad[2 * i + 1]
        if left > 0:
            end = out_shape[d] - max(right, 0)
            slice_(out, d, 0, left).copy_(slice_(out, d, end - left, end))
        if right > 0:
            start = max(left, 0)
            slice_(out, d, out_shape[d] - right, out_shape[d]).copy_(
                slice_(out, d, start, start + right))
    return out


# ---- nn.functional.pad --------------------------------------------------------------------

_KINDS = {"reflect": "Reflection", "replicate": "Replication", "circular": None,
          "constant": None}


def pad(input, pad, mode="constant", value=None):
    """nn.functional.pad: `pad` holds (left, right) pairs from the last dim backwards."""
    pad = _int_list("pad", pad)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not "
                        f"{type(mode).__name__}")
    if value is not None:
        if not isinstance(value, (int, float, np.integer, np.floating)):     # NumPy's too
            raise TypeError(f"pad(): argument 'value' (position 4) must be float, not "
                            f"{type(value).__name__}")
        value = float(value)
    if mode not in _KINDS:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.dim() not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        return _pad_circular(input, pad)
    _check_pad(input, pad, mode, _KINDS[mode])
    return _PAD_ROWS[mode, n](input, pad)
