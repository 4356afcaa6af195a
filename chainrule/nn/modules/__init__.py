"""torch.nn.modules: Module and the layers built on it."""
from .module import Module
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Bilinear, Flatten, Identity, LazyLinear, Linear, Unflatten
from .activation import (CELU, ELU, GELU, SELU, Hardshrink, LeakyReLU, LogSigmoid, LogSoftmax,
                         PReLU, ReLU, RReLU, SiLU, Sigmoid, Softmax, Softplus, Tanh, Threshold)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss,
                   HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss,
                   NLLLoss, PoissonNLLLoss, SmoothL1Loss, TripletMarginLoss)

from . import conv, pooling, normalization, batchnorm, sparse, dropout
from . import instancenorm, pixelshuffle, channelshuffle
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Identity", "Linear", "LazyLinear", "Bilinear", "Flatten",
           "Unflatten", "ReLU", "LeakyReLU",
           "ELU", "GELU", "SiLU", "Softplus", "Tanh", "Sigmoid", "Softmax", "LogSoftmax",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "Threshold", "RReLU", "CELU", "SELU",
           "Hardshrink", "LogSigmoid", "PReLU", "PoissonNLLLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss"]
__all__ += (conv.__all__ + pooling.__all__ + normalization.__all__ + batchnorm.__all__
            + sparse.__all__ + dropout.__all__ + instancenorm.__all__ + pixelshuffle.__all__
            + channelshuffle.__all__)

# recurrent layers
from . import rnn  # noqa: E402
from .rnn import *  # noqa: E402,F401,F403
__all__ += rnn.__all__

# upsampling layers, the CTC loss
from . import upsampling  # noqa: E402
from .upsampling import *  # noqa: E402,F401,F403
from .loss import CTCLoss  # noqa: E402
__all__ += upsampling.__all__ + ["CTCLoss"]

# padding, distances, the remaining activations, losses and normalizations, SyncBatchNorm
from . import padding, distance  # noqa: E402
from .padding import *  # noqa: E402,F401,F403
from .distance import *  # noqa: E402,F401,F403
from .activation import (GLU, Hardsigmoid, Hardswish, Hardtanh, Mish, ReLU6,  # noqa: E402
                         Softmax2d, Softmin, Softshrink, Softsign, Tanhshrink)
from .loss import (GaussianNLLLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,  # noqa: E402
                   MultiMarginLoss, NLLLoss2d, SoftMarginLoss, TripletMarginWithDistanceLoss)
from .container import Container  # noqa: E402
__all__ += padding.__all__ + distance.__all__ + [
    "GLU", "Hardsigmoid", "Hardswish", "Hardtanh", "Mish", "ReLU6", "Softmax2d", "Softmin",
    "Softshrink", "Softsign", "Tanhshrink", "GaussianNLLLoss", "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d", "SoftMarginLoss",
    "TripletMarginWithDistanceLoss", "Container"]

# attention and transformers
from . import activation_attention, transformer  # noqa: E402
from .activation_attention import *  # noqa: E402,F401,F403
from .transformer import *  # noqa: E402,F401,F403
__all__ += activation_attention.__all__ + transformer.__all__

from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
__all__ += ["AdaptiveLogSoftmaxWithLoss"]

from .loss import LinearCrossEntropyLoss  # noqa: E402
from .linear_cross_entropy import LinearCrossEntropyOptions  # noqa: E402
__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
