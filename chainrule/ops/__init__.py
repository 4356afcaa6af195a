"""The op table. Importing this package registers every op family (each module is a list
of rows, see registry.py) and installs the generated methods on Tensor."""
from . import registry
from . import pointwise, reduction, shape, linalg, indexing, advanced_indexing  # noqa: F401
from . import nn_ops, conv, normalization, padding, sorting, diagonal  # noqa: F401
from . import recurrent, sampling  # noqa: F401
from . import statistics  # noqa: F401
from . import joining, aliasing  # noqa: F401
from . import decompositions  # noqa: F401
from . import special  # noqa: F401
from . import spectral  # noqa: F401
from . import attention  # noqa: F401

__all__ = ["registry"]


def __getattr__(name):
    """`torch.ops.<namespace>`: the custom operators chainrule.library defined there."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..library import _namespace
    return _namespace(name)
