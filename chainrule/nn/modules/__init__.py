"""torch.nn.modules: Module and the layers built on it."""
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Flatten, Identity, Linear, Unflatten
from .activation import (ELU, GELU, LeakyReLU, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax,
                         Softplus, Tanh)
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss,
                   L1Loss, MSELoss, NLLLoss, SmoothL1Loss)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "Flatten", "Unflatten", "ReLU", "LeakyReLU",
           "ELU", "GELU", "SiLU", "Softplus", "Tanh", "Sigmoid", "Softmax", "LogSoftmax",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]
