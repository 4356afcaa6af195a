"""PyTorch's C++ methods report argument errors as `cpu() got an unexpected keyword argument
'foo'`; Python would say `Tensor.cpu()`. `builtin_names` sets the functions' qualified
names (which Python's argument errors print) so chainrule's methods word these errors as
PyTorch's."""

__all__ = ["builtin_names"]


def builtin_names(cls, names=None):
    """Name each function `names` lists in `cls` (default: all defined in its body) by its
    bare name in argument errors; `__init__` takes the class's name."""
    for name, f in list(vars(cls).items()):
        if names is not None and name not in names:
            continue
        code = getattr(f, "__code__", None)
        if code is None:
            continue
        f.__qualname__ = cls.__name__ if name == "__init__" else name
    return cls
