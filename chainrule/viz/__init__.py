"""Seeing the backward graph: DOT text for Graphviz (`to_dot`, `render`) and a
self-contained interactive HTML page (`explore`), with the recorders they read: which
Module made each node (`record_modules`) and the gradients that flowed (`record_gradients`)."""
from ..autograd._inspect import record_modules
from ._dot import Dot, render, to_dot
from ._page import explore, record_gradients

__all__ = ["to_dot", "render", "Dot", "explore", "record_modules", "record_gradients"]
