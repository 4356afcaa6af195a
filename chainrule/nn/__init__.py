"""torch.nn: Parameter, Module and its layers, init, utils and the functional API."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import utils  # noqa: F401
