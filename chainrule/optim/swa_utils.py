"""Stochastic weight averaging and exponential moving averages of a model's parameters, as
torch.optim.swa_utils: AveragedModel, SWALR, update_bn and the averaging functions."""
from copy import deepcopy
import itertools
import math
import warnings

from .._creation import tensor
from .._dtype import int64
from ..autograd import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA update of lists of averaged parameters (AveragedModel's
    multi_avg_fn): ema = decay * ema + (1 - decay) * param."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running-mean update of lists of averaged parameters (AveragedModel's
    multi_avg_fn)."""
    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
            return
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            diff = p_model - p_avg
            if hasattr(num_averaged, "dim"):
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one parameter (AveragedModel's avg_fn): decay * ema + (1 - decay) * param."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """Running mean of one parameter (AveragedModel's avg_fn)."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_dtype(*lists):
    """PyTorch's _group_tensors_by_device_and_dtype on one device: the positions of each
    dtype in order of first appearance, as lists of the same positions of every list."""
    groups = {}
    for i, t in enumerate(lists[0]):
        groups.setdefault(t.dtype, []).append(i)
    return [[[lst[i] for i in idx] for lst in lists] for idx in groups.values()]


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers with use_buffers) are the running
    average (SWA, default) or another average (avg_fn / multi_avg_fn, e.g. EMA) of the
    model's, as update_parameters(model) is called."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average `model`'s current parameters in (the first call copies them)."""
        self_param = (itertools.chain(self.module.parameters(), self.module.buffers())
                      if self.use_buffers else self.parameters())
        model_param = (itertools.chain(model.parameters(), model.buffers())
                       if self.use_buffers else model.parameters())
        self_param_detached, model_param_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach().to(p_averaged.device)
            self_param_detached.append(p_averaged.detach())
            model_param_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)

        if self.n_averaged > 0:
            if self.multi_avg_fn is not None:
                for self_params, model_params in _group_by_dtype(self_param_detached,
                                                                  model_param_detached):
                    self.multi_avg_fn(self_params, model_params, self.n_averaged)
            else:
                # PyTorch's CPU path: no foreach kernels, the SWA mean one tensor at a time
                avg_fn = self.avg_fn or get_swa_avg_fn()
                for p_averaged, p_model in zip(self_param_detached, model_param_detached):
                    p_averaged.detach().copy_(avg_fn(p_averaged.detach(), p_model,
                                                     self.n_averaged))

        if not self.use_buffers:
            # the buffers (batch norm's running statistics) are the model's latest
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the batch norm running statistics of `model` over one pass of `loader`
    (the cumulative average, momentum=None), as the averaged weights need."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to swa_lr over anneal_epochs (cos or linear), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr_, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = swa_lr_
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        # the lr before annealing is recovered from the current one, so that other
        # schedulers' changes carry over
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self):
        """The base's, without the anneal function (restored from its name)."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
