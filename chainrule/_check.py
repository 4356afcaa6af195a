"""torch._check and its kin: raise PyTorch's exception class when a condition is False.

The message is a callable, evaluated only on failure, as in PyTorch (its C++ TORCH_CHECK
family). chainrule has no symbolic shapes, so a condition is a Python bool.
"""
import warnings

__all__ = ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
           "_check_is_size", "_check_with", "_check_tensor_all", "_check_tensor_all_with"]

_DEFAULT_MESSAGE = ("Expected cond to be True, but got False. (Could this error message be "
                    "improved? If so, please report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message):
    """Raise `error_type(message())` when `cond` is False."""
    from ._tensor import Tensor
    if not isinstance(cond, bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {_type_repr(cond)}")
    if cond:
        return
    if issubclass(error_type, Warning) or not issubclass(error_type, Exception):
        raise AssertionError("error_type must be a subclass of Exception but not Warning, got "
                             f"{error_type}")
    if message is None:
        raise error_type(_DEFAULT_MESSAGE)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _type_repr(x):
    t = type(x)
    return f"<class '{t.__name__}'>" if t.__module__ == "builtins" else str(t)


def _checker(name, error_type, macro, on_tensor=False):
    """torch.<name>(cond, message=None): `error_type` unless `cond` (C++'s <macro>); with
    `on_tensor`, unless every element of the bool tensor `cond` is True."""
    def check(cond, message=None):
        if on_tensor:
            _check_tensor_all_with(error_type, cond, message)
        else:
            _check_with(error_type, cond, message)
    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"{error_type.__name__} unless `cond` is true ({macro})."
    return check


_check = _checker("_check", RuntimeError, "TORCH_CHECK")
_check_index = _checker("_check_index", IndexError, "TORCH_CHECK_INDEX")
_check_value = _checker("_check_value", ValueError, "TORCH_CHECK_VALUE")
_check_type = _checker("_check_type", TypeError, "TORCH_CHECK_TYPE")
_check_not_implemented = _checker("_check_not_implemented", NotImplementedError,
                                  "TORCH_CHECK_NOT_IMPLEMENTED")
_check_tensor_all = _checker("_check_tensor_all", RuntimeError, "TORCH_CHECK_TENSOR_ALL",
                             on_tensor=True)


def _check_is_size(i, message=None, *, max=None):
    """RuntimeError unless 0 <= i (<= max); deprecated in PyTorch, with its warning."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning,
                  stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type, cond, message=None):
    """`error_type` unless every element of the bool tensor `cond` is True."""
    from ._tensor import Tensor
    from ._dtype import bool as bool_
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {_type_repr(cond)}")
    if cond.dtype != bool_:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, bool(cond._data.all()), message)
