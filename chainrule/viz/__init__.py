"""Seeing the backward graph: DOT text for Graphviz (`to_dot`, `render`) and a
self-contained interactive HTML page (`explore`)."""
from ..autograd._inspect import record_modules
from ._dot import Dot, render, to_dot

__all__ = ["to_dot", "render", "Dot", "record_modules"]
