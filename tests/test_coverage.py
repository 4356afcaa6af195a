"""Breadth, kept honest: every public name of PyTorch's namespaces is in chainrule or in the
scope file (tests/scope.py), no public name is a stub, and every public name chainrule has
is exercised by a test or the op database."""
import ast
import fnmatch
import importlib
import inspect
import pathlib
import textwrap

import pytest
import torch

import chainrule
from scope import OUT_OF_SCOPE, PENDING

ROOT = pathlib.Path(__file__).resolve().parent.parent

NAMESPACES = sorted(set(OUT_OF_SCOPE) | set(PENDING))   # a namespace may have only pending names

# torch loads these on first use, so whether dir(torch) lists them depends on what ran
# before; load them now so the walk sees the same names in every run
for _name in getattr(torch, "_lazy_modules", ()):
    getattr(torch, _name)


def _resolve(lib, path):
    """`lib` (torch or chainrule) followed along a dotted path like 'torch.Tensor'."""
    obj = lib
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            try:
                obj = importlib.import_module(f"{lib.__name__}.{'.'.join(path.split('.')[1:])}")
            except ImportError:
                return None
    return obj


def _public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


_FOREIGN = ("typing", "typing_extensions", "functools", "builtins", "collections", "abc",
            "enum", "contextlib", "dataclasses", "warnings", "os", "sys", "threading",
            "traceback", "importlib", "inspect", "math", "numbers", "weakref", "itertools")


def _api(module, names):
    """PyTorch's public names less what its modules merely import: standard-library modules,
    typing helpers and torch itself (`torch.cuda.Optional`, `torch.profiler.os`,
    `torch.cuda.torch`) are not its API."""
    api = set()
    for n in names:
        obj = getattr(module, n, None)
        if inspect.ismodule(obj):
            if not obj.__name__.startswith("torch") or obj is torch:
                continue
        elif (getattr(obj, "__module__", None) or "").split(".")[0] in _FOREIGN:
            continue
        api.add(n)
    return api


def _matches(name, groups):
    return any(fnmatch.fnmatchcase(name, p) for _, patterns in groups for p in patterns)


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_name_is_present_or_listed(namespace):
    torch_ns = _resolve(torch, namespace)
    theirs = _api(torch_ns, _public(torch_ns))
    ours_ns = _resolve(chainrule, namespace)
    ours = _public(ours_ns) if ours_ns is not None else set()
    listed = OUT_OF_SCOPE.get(namespace, []) + PENDING.get(namespace, [])
    missing = sorted(n for n in theirs - ours if not _matches(n, listed))
    assert not missing, f"{namespace}: neither in chainrule nor in tests/scope.py: {missing}"


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_pending_names_are_still_missing(namespace):
    """A built name leaves PENDING (so the list shows what is left)."""
    ours_ns = _resolve(chainrule, namespace)
    ours = _public(ours_ns) if ours_ns is not None else set()
    built = sorted(n for n in ours if _matches(n, PENDING.get(namespace, [])))
    assert not built, f"{namespace}: built, remove from PENDING in tests/scope.py: {built}"


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_out_of_scope_names_are_absent(namespace):
    """A name built after all leaves OUT_OF_SCOPE (the list says only what is left out)."""
    ours_ns = _resolve(chainrule, namespace)
    ours = _public(ours_ns) if ours_ns is not None else set()
    built = sorted(n for n in ours if _matches(n, OUT_OF_SCOPE.get(namespace, [])))
    assert not built, f"{namespace}: present, remove from OUT_OF_SCOPE in tests/scope.py: {built}"


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_scope_patterns_name_real_torch_names(namespace):
    theirs = _public(_resolve(torch, namespace))
    stale = [p for _, patterns in OUT_OF_SCOPE.get(namespace, []) + PENDING.get(namespace, [])
             for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in theirs)]
    assert not stale, f"{namespace}: patterns matching no PyTorch name: {stale}"


# ---- no stubs -----------------------------------------------------------------------------

def _is_stub(f):
    """A function whose body (after its docstring) only raises NotImplementedError."""
    try:
        src = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError):
        return False
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return False
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc
    name = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(name, ast.Name) and name.id == "NotImplementedError"


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_no_public_name_is_a_stub(namespace):
    ours_ns = _resolve(chainrule, namespace)
    if ours_ns is None:
        pytest.skip(f"chainrule has no {namespace}")
    stubs = sorted(n for n in _public(ours_ns) & _public(_resolve(torch, namespace))
                   if callable(getattr(ours_ns, n, None)) and _is_stub(getattr(ours_ns, n)))
    assert not stubs, f"{namespace}: stubs that only raise NotImplementedError: {stubs}"


# ---- every public name is exercised -------------------------------------------------------

def _names_used_by_tests():
    """Attribute names, imported names and string keys used by the tests and the op
    database: a static proxy for 'some test against PyTorch calls it'."""
    used = set()
    files = list((ROOT / "tests").glob("*.py")) + \
        list((ROOT / "chainrule" / "testing" / "opdb").glob("*.py"))
    for path in files:
        if path.name in ("scope.py", "test_coverage.py"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.alias):
                used.add(node.name.split(".")[-1])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.update(node.value.replace(".", " ").split())
    return used


USED = _names_used_by_tests()


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_public_name_is_exercised(namespace):
    ours_ns = _resolve(chainrule, namespace)
    if ours_ns is None:
        pytest.skip(f"chainrule has no {namespace}")
    names = _public(ours_ns) & _public(_resolve(torch, namespace))
    unused = sorted(names - USED)
    assert not unused, f"{namespace}: public names no test or op-database entry uses: {unused}"
