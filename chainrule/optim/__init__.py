"""Optimizers and learning-rate schedulers, as torch.optim."""
from . import lr_scheduler, swa_utils
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler", "swa_utils",
           "swap_in_optimizer_params_and_state"]
