"""`python -m chainrule graph SCRIPT.py`: run a script that uses chainrule and write the
page (`explore`) of the last tensor it called backward on, or of a variable it names."""
import runpy
import sys

from ..autograd._inspect import record_modules
from ._page import explore, record_gradients

__all__ = ["graph_of_script"]


def _names(scope):
    """Parameter names for the page from the script's globals: each Module's parameters
    (prefixed by its variable when there are several), and leaf tensors by their names."""
    from .._tensor import Tensor
    from ..nn import Module
    modules = {k: v for k, v in scope.items() if isinstance(v, Module)}
    names = {}
    for k, v in scope.items():
        if isinstance(v, Tensor) and v._requires_grad and v._grad_fn is None:
            names[k] = v
    for var, m in modules.items():
        for name, p in m.named_parameters():
            names[name if len(modules) == 1 else f"{var}.{name}"] = p
    return names


def graph_of_script(script, out="graph.html", var=None):
    """Run `script` as __main__, recording Module calls, and write the page of the last
    tensor it called `backward` on (run with retain_graph=True, so its saved tensors stay
    to be seen, and with the gradients that flowed recorded), or of its global `var`.
    Returns the page's path."""
    from .._tensor import Tensor
    last = {}
    original = Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        last["tensor"] = self
        with record_gradients(self):
            return original(self, gradient, True if retain_graph is None else retain_graph,
                            create_graph, inputs)

    argv = sys.argv
    Tensor.backward = backward
    try:
        sys.argv = [script]
        with record_modules() as scopes:
            scope = runpy.run_path(script, run_name="__main__")
    finally:
        Tensor.backward = original
        sys.argv = argv
    if var is not None:
        if var not in scope:
            raise SystemExit(f"chainrule graph: {script} defines no variable {var!r}")
        target = scope[var]
    elif "tensor" in last:
        target = last["tensor"]
    else:
        raise SystemExit(f"chainrule graph: {script} called backward on no tensor; name the "
                         "output to draw with --var NAME")
    return explore(target, path=out, params=_names(scope), scopes=scopes,
                   title=f"{script}: graph")
