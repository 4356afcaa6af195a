"""Argument binding: the checks PyTorch's Python argument parser makes before an op runs.

Note [Argument parser checks]
PyTorch binds every Python call against the op's declared signature and refuses, with a
TypeError naming the argument, what the declaration does not take: a number where a Tensor
is declared, a bool where an int is ("chunk(): argument 'chunks' (position 2) must be int,
not bool"), a float where a list of ints is, an int where a bool is. chainrule's kernels
would often take those values silently (a bool is an int to Python and NumPy), so the
functions declare the same signature here and check it first.

A `Signature` is written as PyTorch prints it: `Signature("chunk(Tensor input, int chunks,
int dim=0)")`. The kinds checked are those the parser is strict about; others (Layout,
MemoryFormat, Generator, ...) pass unchecked, the op checks them itself:

    Tensor     a Tensor
    int        an int or NumPy integer or 0-d integer Tensor, not a bool
    int[N]     an int or one-element integer Tensor (when N is given), or a sequence of ints
               whose first element is no bool
    float      a real number or bool, or a 0-d Tensor
    bool       a Python bool only
    str        a str
    ScalarType a dtype, or Python's float, int, bool or complex (printed "torch.dtype")
    Scalar     a number (bool and complex included) or a 0-d Tensor
    float[]    a tuple or list of numbers (an element's error is reported as the list's)
    Tensor[]   a tuple or list of Tensors (an element of another type is refused at once,
               naming its index and the argument's, from 0)
    T?         T or None

Positions count from 1 with the input first; a Tensor method does not count self. PyTorch
shows "(position N)" for an argument passed by position, not for one passed by keyword:
`Signature.bind` wraps a function (or method) whose keyword arguments PyTorch binds by name,
`Signature.check` checks values in signature order, for the many nn.functional functions
that PyTorch writes in Python and which pass everything on by position. A list of ints whose
default is empty (`int[1] dims=[]`) takes None too, as the parser's.

An op PyTorch binds with several declarations (sum, squeeze, narrow, sort, ...) is an
`Overloads` of the lines PyTorch prints for them ("(Tensor input, int dim, int start, int
length)"; the method's lines drop input and out=): the first declaration that takes the
arguments runs; when none does, the one whose argument count fits reports its argument's
error, and when several fit, the parser's "invalid combination of arguments" list is built
under its own rules (_Printed). An Overloads of one line stands for an op whose other
declarations PyTorch hides (deprecated forms such as addmm's (Scalar beta, Tensor self, Scalar
alpha, Tensor mat1, Tensor mat2)): the parser then lists that one line ("but expected (Tensor
mat1, ...)") where a single declaration would name the argument; `hidden=` gives those that
chainrule runs (addcmul's value-first order), taken but never printed nor counted as fitting.
A declaration that fits alone reports, in the parser's order and words, too many positional
arguments, then each parameter's wrong type or absence. `declare(...)` binds a
module's public functions and Tensor methods to their declarations once they exist. The bound
wrapper is generated per declaration: a call whose arguments have the exact types a
declaration takes (an int, a tuple of ints, a bool, a Tensor) goes straight on at the cost of
a few type tests (about 50 ns, Python call included); anything else is looked at closely first.
"""
import functools
import re

import numpy as np

from .._dtype import dtype as _dtype_class
from .._tensor import Size, Tensor


def type_name(value):
    """A value's type as the parser names it: `int`, `Tensor`, `numpy.bool`."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Size):
        return "torch.Size"
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


def not_tensor_input(name, value):
    """Called from `except AttributeError:` around a hot function's first read of its input
    (a check that costs nothing when the input is a Tensor): the parser's error for a
    non-Tensor; a Tensor's own AttributeError goes on."""
    if isinstance(value, Tensor):
        raise       # noqa: PLE0704  (the AttributeError being handled)
    return _not_tensor(name, "input", 1, value)


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


def _scalar(v):
    if isinstance(v, (int, float, complex, np.number, np.bool_)):
        return None
    if isinstance(v, Tensor) and v._data.ndim == 0:
        return None
    return f"must be Number, not {type_name(v)}"


def _scalar_type(v):
    if isinstance(v, _dtype_class) or any(v is t for t in (float, int, bool, complex)):
        return None
    return f"must be torch.dtype, not {type_name(v)}"


def _str(v):
    return None if isinstance(v, str) else f"must be str, not {type_name(v)}"


def _tensor_list(argnum):
    def check(v):
        if not isinstance(v, (tuple, list)):
            return f"must be tuple of Tensors, not {type_name(v)}"
        for i, e in enumerate(v):
            if not isinstance(e, Tensor):
                # the parser raises this while matching, whatever the other arguments are
                raise TypeError(f"expected Tensor as element {i} in argument {argnum}, but got "
                                f"{type_name(e)}")
        return None
    return check


def _int_list(size):
    def check(v):
        if size and _is_int(v) and not isinstance(v, Tensor):
            return None
        if not isinstance(v, (tuple, list)):
            if (size and isinstance(v, Tensor) and v._data.size == 1
                    and v._data.dtype.kind in "biu"):
                return None  # read as one int, repeated (a list of no given size takes none)
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


def _float_list(v):
    if isinstance(v, (tuple, list)) and all(_float(e) is None for e in v):
        return None
    return f"must be tuple of floats, not {type_name(v)}"


def _optional(check):
    return lambda v: None if v is None else check(v)


_KINDS = {"Tensor": _tensor, "int": _int, "SymInt": _int, "float": _float, "bool": _bool,
          "str": _str, "Scalar": _scalar, "ScalarType": _scalar_type}
_PARAM = re.compile(r"\s*(\w+)(?:\[(\d*)\])?(\??)\s+(\w+)\s*(?:=\s*(.*))?")
# the exact types taken without a closer look, by kind: the bound functions' fast path
_FAST = {"Tensor": (Tensor,), "int": (int,), "SymInt": (int,), "float": (float, int),
         "bool": (bool,), "str": (str,), "Scalar": (float, int, bool, complex),
         "ScalarType": (_dtype_class,)}


def _kind_check(kind, size, optional, index):
    if size is None:
        check = _KINDS.get(kind)
    else:
        check = (_tensor_list(index) if kind == "Tensor" else _float_list if kind == "float"
                 else _int_list(int(size or 0)))
    if check is None:
        return None
    return _optional(check) if optional else check


def _fast_types(kind, size, optional):
    """What the bound functions' fast path takes for this kind (None: any value)."""
    if size is not None:     # a list of Tensors or floats is looked at closely; of ints: _ints
        types = (() if kind in ("Tensor", "float") else _INT_LIST_SIZED if size
                 else _INT_LIST)
    else:
        types = _FAST.get(kind)
        if types is None:
            return None  # not checked
    return types + (type(None),) if optional else types


class Signature:
    """One declaration of an op's Python signature, checked as PyTorch's parser does."""

    __slots__ = ("name", "names", "checks", "fast", "required", "positional", "defaults")

    def __init__(self, text, method=False):
        """`method`: the declaration as a Tensor method's, whose list arguments are numbered
        after self in the parser's element errors ("element 0 in argument 0")."""
        self.name, params = re.fullmatch(r"(\w+)\((.*)\)", text.strip()).groups()
        self.names, self.checks, self.fast, self.defaults = [], [], [], []
        self.required = self.positional = 0
        params = re.split(r",(?![^\[]*\])", params)    # not within a default's brackets
        for p in params:
            if p.strip() == "*":
                self.positional = len(self.names)
                continue
            if not p.strip():
                continue
            kind, size, optional, arg, default = _PARAM.match(p).groups()
            if default is None:
                self.required = len(self.names) + 1
            # the parser takes None for a list whose default is empty
            optional = "?" if size is not None and default == "[]" else optional
            self.names.append(arg)
            self.defaults.append(default is not None)
            self.checks.append(_kind_check(kind, size, optional == "?",
                                           len(self.checks) - method))
            self.fast.append(_fast_types(kind, size, optional == "?"))
        if "*" not in (p.strip() for p in params):
            self.positional = len(self.names)

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

    def accepts(self, args, kwargs):
        """Whether the parser binds these arguments to this declaration."""
        if len(args) > self.positional:
            return False
        for name in kwargs:
            if name not in self.names or self.names.index(name) < len(args):
                return False
        for i, (name, check) in enumerate(zip(self.names, self.checks)):
            v = args[i] if i < len(args) else kwargs.get(name, _MISSING)
            if v is _MISSING:
                if i < self.required:
                    return False
            elif check is not None:
                tail = check(v)
                if tail is None:
                    continue
                if tail.startswith("failed"):   # the list matched; its unpacking fails
                    raise TypeError(f"{_argument(self.name, name, None)} {tail}")
                return False
        return True

    def raise_for(self, args, kwargs, first):
        """The parser's error for arguments given to this declaration alone: too many, then
        each parameter's in order (a wrong type, or missing), then an unknown keyword."""
        if len(args) > self.positional:     # the parser counts before it looks at types
            self.too_many(len(args))
        self.check(*args, first=first)
        for i in range(len(args), len(self.names)):
            name = self.names[i]
            if name in kwargs:
                tail = self.checks[i] and self.checks[i](kwargs[name])
                if tail:
                    raise TypeError(f"{_argument(self.name, name, None)} {tail}")
            elif not (self.defaults[i] or any(a in kwargs for a in _NUMPY_NAMES.get(name, ()))):
                # the parser names every parameter from here on without a default, given
                # or not (and its plural is the other way round)
                missing = [f'"{n}"' for n, d in zip(self.names[i:], self.defaults[i:]) if not d]
                raise TypeError(f"{self.name}() missing {len(missing)} required positional "
                                f"argument{'s' * (len(missing) == 1)}: {', '.join(missing)}")
        for k in kwargs:    # the parser's last check, once every parameter is bound
            if k not in self.names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{k}'")

    def bind(self, fn, method=False):
        """`fn` checked before it runs: its positional arguments numbered (from 1 after self
        for a Tensor method), its keyword arguments by name."""
        first, skip = (0, 1) if method else (1, 0)

        def slow(args, kwargs):
            if len(args) > self.positional:
                self.too_many(len(args) - skip, skip)
            self.check(*args, first=first)
            if kwargs:
                self.check_keywords(kwargs)
        return _bound(fn, (self,), slow, skip=skip)

    def too_many(self, given, skip=0):
        """The parser's error for more positional arguments than the declaration has (a
        method's counted without self)."""
        least, most = self.required - skip, self.positional - skip
        takes = (f"{most} positional argument{'s' * (most != 1)}" if least == most
                 else f"from {least} to {most} positional arguments")
        raise TypeError(f"{self.name}() takes {takes} but {given} "
                        f"{'was' if given == 1 and least == most else 'were'} given")


_MISSING = object()
# the parser's NumPy spellings of some parameters: one given so is not missing (chainrule does
# not bind by them: it reports them as unexpected keywords)
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                "other": ("x2",)}


def _bound(fn, sigs, slow, skip=0, offset=0):
    """`fn` calling `slow(args, kwargs)` first unless the arguments have types one of `sigs`
    takes at a glance. View ops and reductions are hot, so the wrapper is generated per
    declaration: positional-only parameters (no tuple or dict to build for a plain call)
    and one expression of `type(p) is T` terms, not a loop over kinds. A declaration's
    parameter i is the call's argument i + offset; the first `skip` are not looked at."""
    width = max(sig.positional for sig in sigs) + offset
    env = {"fn": fn, "slow": slow, "_N": _MISSING, "Tensor": Tensor, "_ints": _ints}
    strict, lenient = [], []   # without keywords / with some (that may fill any parameter)
    for s, sig in enumerate(sigs):
        end = sig.positional + offset
        terms = [f"p{end} is _N"] if end < width else []
        loose = list(terms)
        for i in range(skip, sig.positional):
            j, types = i + offset, sig.fast[i]
            if types is None:
                if i < sig.required:
                    terms.append(f"p{j} is not _N")
                continue
            term = _fast_term(f"p{j}", types, f"T{s}_{j}", env)
            terms.append(term if i < sig.required else f"(p{j} is _N or {term})")
            loose.append(f"(p{j} is _N or {term})")
        for i in range(skip, sig.required):
            loose.append(f"(p{i + offset} is not _N or {sig.names[i]!r} in k)"
                         if i < sig.positional else f"{sig.names[i]!r} in k")
        if sig.required > sig.positional:   # a required keyword: never without keywords
            terms = ["False"]
        env[f"K{s}"] = frozenset(sig.names[skip:])
        loose.append(f"K{s}.issuperset(k)")
        for i in range(skip, len(sig.names)):
            types, name = sig.fast[i], sig.names[i]
            if types is not None:
                term = _fast_term(f"k[{name!r}]", types, f"KT{s}_{i}", env)
                loose.append(f"({name!r} not in k or {term})")
        strict.append(" and ".join(terms) or "True")
        lenient.append(" and ".join(loose))
    first = sigs[0]
    fewest = min(sig.required for sig in sigs) + offset
    params = [f"p{j}" for j in range(width)]

    def calls(indent, keywords, fewest):
        lines = []
        for n in range(width, fewest - 1, -1):
            call = f"return fn({', '.join(params[:n] + keywords)})"
            last = n <= fewest
            lines.append(indent + (call if last else f"if p{n - 1} is not _N: {call}"))
            if last:
                break
        return "\n".join(lines) + "\n"
    given = f"({', '.join(params)},)" if params else "()"
    src = (f"def {first.name}({', '.join(p + '=_N' for p in params)}{', /' if params else ''}"
           ", *rest, **k):\n"
           f"    if not rest:\n"
           f"        if not k:\n"
           f"            if {' or '.join(f'({t})' for t in strict)}:\n"
           + calls(" " * 16, [], max(fewest, 1)) +
           f"        elif {' or '.join(f'({t})' for t in lenient)}:\n"
           + calls(" " * 12, ["**k"], min(skip + offset, width)) +
           f"    a = tuple(p for p in {given} if p is not _N) + rest\n"
           f"    slow(a, k)\n"
           f"    return fn(*a, **k)\n")
    exec(src, env)
    return functools.wraps(fn)(env[first.name])


# a list of ints (of a given size: or one int) or None, as _fast_types gives them
_INT_LIST, _INT_LIST_SIZED = ("ints",), ("ints", int)
_INT_ONLY = {int}


def _ints(v):
    """Whether `v` is a tuple or list of Python ints only (what int-list arguments are)."""
    return (type(v) is tuple or type(v) is list or type(v) is Size) and {*map(type, v)} <= _INT_ONLY


def _fast_term(value, types, name, env):
    """The fast path's test of one argument (`value`, an expression) against `types`."""
    if not types:
        return "False"
    if types[0] == "ints":
        terms = [f"type({value}) is int"] * (int in types) + [f"_ints({value})"]
        terms += [f"{value} is None"] * (type(None) in types)
        return f"({' or '.join(terms)})"
    if types == (Tensor,):
        return f"isinstance({value}, Tensor)"
    env[name] = types[0] if len(types) == 1 else types
    return f"type({value}) {'is' if len(types) == 1 else 'in'} {name}"


# ---- several declarations (overloads) ------------------------------------------------------

# PyTorch's printed kinds, in Signature's spelling
_PRINTED = {"tuple of ints": "int[]", "tuple of floats": "float[]",
            "torch.dtype": "ScalarType", "tuple of Tensors": "Tensor[]", "Number": "Scalar",
            "torch.Generator": "Generator"}


def _as_declaration(param):
    """One parameter as PyTorch prints it in an overload list ("int dim = None"), as a
    Signature parameter ("int? dim=None")."""
    if param in ("*", ""):
        return param
    typed, _, default = param.partition(" = ")
    kind, name = typed.rsplit(" ", 1)
    # "tuple of ints[1]?": optional, which PyTorch prints only by a default (sum's dim has none)
    kind = _PRINTED.get(kind) or re.sub(r"^tuple of ints(\[\d\]\??)$", r"int\1", kind)
    if default == "None" and kind[-1] != "?":
        kind += "?"
    return f"{kind} {name}" + (f"={default}" if default else "")


def _described(v):
    """A value's type as the overload list marks it: a sequence shows its elements'."""
    if isinstance(v, (tuple, list)):
        inner = ", ".join(type_name(e) for e in v) + ("," if len(v) == 1 and
                                                       isinstance(v, tuple) else "")
        return f"{type_name(v)} of " + (f"[{inner}]" if isinstance(v, list) else f"({inner})")
    return type_name(v)


class _Printed:
    """An overload's line as PyTorch prints it, and what its message builder reads of it:
    the parameters split at ", " (the `*` marker and an empty list's one empty item
    included), each one's type (all before the last space) and name (after it)."""

    __slots__ = ("line", "items")

    def __init__(self, line):
        # a kind marked optional ("bool? stable") or sized is printed without the mark
        self.line = re.sub(r"(?:\[\d\])?\? | ?\[\d\] ", " ", line)
        self.items = [p.rpartition(" ")[::2] for p in self.line[1:-1].split(", ")]

    def _matches(self, i, v):
        kind = self.items[i][0]
        t = type(v)
        if kind == "int":
            return t is int
        if kind == "float":
            return t is float or t is int
        return type_name(v) == kind

    def _wrong_keywords(self, kwargs):
        # the parser looks for the keywords among the last len(kwargs) parameters only
        start = max(len(self.items) - len(kwargs), 0)
        names = [name for _, name in self.items[start:]]
        return [k for k in kwargs if k not in names]

    def _marked(self, args, kwargs):
        """The arguments' types, each one this overload does not take marked !...!."""
        got = []
        for i in range(len(args) + len(kwargs)):
            name = self.items[i][1]
            v = args[i] if i < len(args) else kwargs[name]
            text = ("" if i < len(args) else f"{name}=") + _described(v)
            got.append(text if self._matches(i, v) else f"!{text}!")
        return _listed(got, args)

    def reason(self, args, kwargs):
        """The line under this overload in the list, or "" (the parser's count test)."""
        if len(args) + len(kwargs) != len(self.items):
            return ""
        wrong = self._wrong_keywords(kwargs)
        if wrong:
            return ("      didn't match because some of the keywords were incorrect: "
                    + ", ".join(wrong) + "\n")
        return ("      didn't match because some of the arguments have invalid types: "
                + self._marked(args, kwargs) + "\n")

    def alone(self, args, kwargs):
        """The error's tail when this is the only overload listed: the parser marks the
        arguments in the "got" part instead of under the line."""
        wrong = self._wrong_keywords(kwargs)
        if wrong:
            return "got unrecognized keyword arguments: " + ", ".join(wrong)
        got = (self._marked(args, kwargs) if len(args) + len(kwargs) == len(self.items)
               else _got(args, kwargs))
        return f"got {got}, but expected {self.line}"


def _listed(items, args):
    # PyTorch drops the trailing ", " only when there are positional arguments
    return "(" + (", ".join(items) if args else "".join(f"{t}, " for t in items)) + ")"


def _got(args, kwargs):
    return _listed([type_name(a) for a in args]
                   + [f"{k}={type_name(v)}" for k, v in kwargs.items()], args)


def _method_line(line):
    """A function's overload line as the Tensor method prints it: no input, no out=."""
    line = line.replace("(Tensor input, ", "(").replace("(Tensor input)", "()")
    return re.sub(r"(, |^\()(\*, )?[\w ]+ out = None\)$", lambda m: m[1].strip(", ") + ")",
                  line)


class Overloads:
    """An op's several declarations, resolved as PyTorch's parser resolves them: the first
    that takes the arguments runs; when none does, the one whose argument count fits
    reports its argument error, or, when several fit, the parser lists them all (with
    its reasons, under its own rules of counting, see _Printed). `hidden` lines are
    declarations PyTorch takes but never prints nor counts (deprecated orders of arguments
    that the function still runs)."""

    __slots__ = ("name", "forms", "fast", "hidden")

    def __init__(self, name, lines, method_lines=None, fast=(0,), method_fast=None, hidden=()):
        self.name, self.fast = name, (fast, fast if method_fast is None else method_fast)
        method_lines = method_lines or [_method_line(x) for x in lines
                                        if x.startswith("(Tensor input")]
        self.forms = tuple([(self._signature(x), _Printed(x)) for x in form]
                           for form in (lines, method_lines))
        self.hidden = tuple([self._signature(x) for x in form] for form in (
            hidden, [_method_line(x) for x in hidden if x.startswith("(Tensor input")]))

    def _signature(self, line):
        return Signature(f"{self.name}({', '.join(map(_as_declaration, line[1:-1].split(', ')))})")

    def check(self, args, kwargs, method=False):
        """Raise PyTorch's TypeError unless a declaration takes `args` (after self for a
        method) and `kwargs`."""
        form = self.forms[method]
        if any(sig.accepts(args, kwargs) for sig, _ in form) or any(
                sig.accepts(args, kwargs) for sig in self.hidden[method]):
            return
        n = len(args) + len(kwargs)
        fits = [sig for sig, _ in form if sig.required <= n <= len(sig.names)]
        if len(fits) == 1:
            fits[0].raise_for(args, kwargs, 1)
        kwargs = dict(reversed(kwargs.items()))     # the parser lists them last given first
        if len(form) == 1:
            # one line printed: the op's other declarations are hidden (deprecated ones,
            # addmm's (Scalar beta, Tensor self, Scalar alpha, Tensor mat1, Tensor mat2)),
            # which makes the parser list its one line rather than name the argument
            raise TypeError(f"{self.name}() received an invalid combination of arguments - "
                            + form[0][1].alone(args, kwargs))
        raise TypeError(f"{self.name}() received an invalid combination of arguments - got "
                        f"{_got(args, kwargs)}, but expected one of:\n"
                        + "".join(f" * {p.line}\n{p.reason(args, kwargs)}" for _, p in form))

    def bind(self, fn, method=False):
        """`fn` checked as `check` does; arguments that the declarations numbered in `fast`
        (`method_fast` for the method) take at a glance skip the check."""
        sigs = [self.forms[method][i][0] for i in self.fast[method]]
        if method:
            return _bound(fn, sigs, lambda a, k: self.check(a[1:], k, method=True), offset=1)
        return _bound(fn, sigs, self.check)


def declare(*texts, function=True, method=True):
    """Bind the public function and the Tensor method named by each declaration (a Signature's
    text, or an Overloads) to it, as installed by now (registry rows, @public functions)."""
    from .registry import FUNCTIONS
    for text in texts:
        decl = Signature(text) if isinstance(text, str) else text
        if function:
            FUNCTIONS[decl.name] = decl.bind(FUNCTIONS[decl.name])
        if method:
            decl = Signature(text, method=True) if isinstance(text, str) else decl
            setattr(Tensor, decl.name, decl.bind(getattr(Tensor, decl.name), method=True))
