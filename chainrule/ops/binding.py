"""Argument binding: the checks PyTorch's Python argument parser makes before an op runs.

Note [Argument parser checks]
PyTorch binds every Python call against the op's declared signature and refuses, with a
TypeError naming the argument, what the declaration does not take: a number where a Tensor
is declared, a bool where an int is ("chunk(): argument 'chunks' (position 2) must be int,
not bool"), a float where a list of ints is, an int where a bool is. chainrule's kernels
would often take those values silently (a bool is an int to Python and NumPy), so the
functions declare the same signature here and check it first.

A `Signature` is written as PyTorch prints it: `Signature("chunk(Tensor input, int chunks,
int dim=0)")`. The kinds checked are those the parser is strict about; others (Scalar,
str, ScalarType, ...) pass unchecked, the op checks them itself:

    Tensor     a Tensor
    int        an int or NumPy integer or 0-d integer Tensor, not a bool
    int[N]     an int or one-element integer Tensor (when N is given), or a sequence of ints
               whose first element is no bool
    float      a real number or bool, or a 0-d Tensor
    bool       a Python bool only
    T?         T or None

Positions count from 1 with the input first; a Tensor method does not count self. PyTorch
shows "(position N)" for an argument passed by position, not for one passed by keyword:
`Signature.bind` wraps a function (or method) whose keyword arguments PyTorch binds by name,
`Signature.check` checks values in signature order, for the many nn.functional functions
that PyTorch writes in Python and which pass everything on by position.
"""
import functools
import re

import numpy as np

from .._tensor import Tensor


def type_name(value):
    """A value's type as the parser names it: `int`, `Tensor`, `numpy.bool`."""
    if isinstance(value, Tensor):
        return "Tensor"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _bad_arguments(name, args, overloads):
    """PyTorch's TypeError for arguments no overload of `name` takes."""
    got = ", ".join(type_name(a) for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:\n" + "".join(f" * {o}\n" for o in overloads))


def _argument(name, arg, position):
    return (f"{name}(): argument '{arg}'"
            + ("" if position is None else f" (position {position})"))


def _not_tensor(name, arg, position, value):
    return TypeError(f"{_argument(name, arg, position)} must be Tensor, not {type_name(value)}")


# ---- the kinds: each returns None when the value is taken, else the error's tail ----------

def _is_int(v):
    t = type(v)
    if t is int:
        return True
    if t is bool or isinstance(v, np.bool_):
        return False
    if isinstance(v, Tensor):
        return v._data.ndim == 0 and v._data.dtype.kind in "iu"
    return isinstance(v, (int, np.integer))


def _int(v):
    return None if _is_int(v) else f"must be int, not {type_name(v)}"


def _float(v):
    if isinstance(v, (int, float, np.integer, np.floating, np.bool_)):
        return None
    if isinstance(v, Tensor) and v._data.ndim == 0:
        return None
    return f"must be float, not {type_name(v)}"


def _bool(v):
    return None if type(v) is bool else f"must be bool, not {type_name(v)}"


def _tensor(v):
    return None if isinstance(v, Tensor) else f"must be Tensor, not {type_name(v)}"


def _int_list(size):
    def check(v):
        if size and _is_int(v) and not isinstance(v, Tensor):
            return None
        if not isinstance(v, (tuple, list)):
            if isinstance(v, Tensor) and v._data.size == 1 and v._data.dtype.kind in "biu":
                return None  # read as one int, repeated
            return f"must be tuple of ints, not {type_name(v)}"
        if v and not _is_int(v[0]):
            return (f"must be tuple of ints, but found element of type {type_name(v[0])} "
                    "at pos 0")
        for i, e in enumerate(v[1:], 2):
            # the parser looks at the first element; the others fail when unpacked
            if not (_is_int(e) or type(e) is bool or isinstance(e, np.bool_)):
                return (f"failed to unpack the object at pos {i} with error \"type must be "
                        f"tuple of ints,but got {type_name(e)}\"")
        return None
    return check


def _optional(check):
    return lambda v: None if v is None else check(v)


_KINDS = {"Tensor": _tensor, "int": _int, "SymInt": _int, "float": _float, "bool": _bool}
_PARAM = re.compile(r"\s*(\w+)(?:\[(\d*)\])?(\??)\s+(\w+)")


def _kind_check(kind, size, optional):
    check = _int_list(int(size or 0)) if size is not None else _KINDS.get(kind)
    if check is None:
        return None
    return _optional(check) if optional else check


class Signature:
    """One declaration of an op's Python signature, checked as PyTorch's parser does."""

    __slots__ = ("name", "names", "checks")

    def __init__(self, text):
        self.name, params = re.fullmatch(r"(\w+)\((.*)\)", text.strip()).groups()
        self.names, self.checks = [], []
        for p in params.split(","):
            if p.strip() == "*":
                continue
            kind, size, optional, arg = _PARAM.match(p).groups()
            self.names.append(arg)
            self.checks.append(_kind_check(kind, size, optional == "?"))

    def check(self, *values, first=1):
        """Check `values` given in signature order, all counted as passed by position."""
        for i, (check, v) in enumerate(zip(self.checks, values)):
            if check is not None:
                tail = check(v)
                if tail is not None:
                    # an element that fails to unpack is reported without the position
                    position = None if tail.startswith("failed") else first + i
                    raise TypeError(f"{_argument(self.name, self.names[i], position)} {tail}")

    def check_keywords(self, kwargs, skip=0):
        for i in range(skip, len(self.names)):
            check, arg = self.checks[i], self.names[i]
            if check is not None and arg in kwargs:
                tail = check(kwargs[arg])
                if tail is not None:
                    raise TypeError(f"{_argument(self.name, arg, None)} {tail}")

    def bind(self, fn, method=False):
        """`fn` checked before it runs: its positional arguments numbered (from 1 after self
        for a Tensor method), its keyword arguments by name."""
        skip = 1 if method else 0
        first = 1 - skip

        @functools.wraps(fn)
        def bound(*args, **kwargs):
            self.check(*args, first=first)
            if kwargs:
                self.check_keywords(kwargs)
            return fn(*args, **kwargs)
        return bound


def parser_check(name, first, decls, values):
    """Raise PyTorch's TypeError for the first of `values` not of its declared kind
    (`decls`: (int, "dim"), (Tensor, "index"), (None, "p") for one not checked, ...; None
    passes for an int, a bool does not), numbered from position `first`."""
    for i, ((kind, arg), v) in enumerate(zip(decls, values)):
        if kind is int:
            if type(v) is bool:
                raise TypeError(f"{_argument(name, arg, first + i)} must be int, not bool")
        elif kind is Tensor and not isinstance(v, Tensor):
            raise _not_tensor(name, arg, first + i, v)


def parser_checked(method, name, decls):
    """The Tensor method `method` with parser_check of its leading positional arguments
    after self first."""
    n = len(decls)

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        parser_check(name, 1, decls, args[:n])
        return method(self, *args, **kwargs)
    return checked
