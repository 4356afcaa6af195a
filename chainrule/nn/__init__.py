"""torch.nn: Parameter, Module and its layers, init, utils and the functional API."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import (Buffer, Parameter, UninitializedBuffer,  # noqa: F401
                        UninitializedParameter)
from .modules import *  # noqa: F401,F403
from . import utils  # noqa: F401
from . import common_types, grad  # noqa: F401,E402
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402


def factory_kwargs(kwargs):
    """The device/dtype/memory_format keywords of `kwargs`, merged with its
    `factory_kwargs` dict (each given once)."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r
