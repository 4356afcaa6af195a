"""The base class of all optimizers, as torch.optim.Optimizer: parameter groups, per-parameter
state, state_dict / load_state_dict in PyTorch's format, zero_grad, step hooks (global and
per optimizer) and the profiler labels of step and zero_grad."""
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
import functools
from itertools import chain
from typing import Any, Self
import warnings

from .._platform import typename
from .._creation import tensor, zeros_like
from .._dtype import float32, float64, get_default_dtype
from .._tensor import Tensor
from ..autograd import enable_grad, set_grad_enabled
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required"]

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Register `hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`, called
    before every optimizer's step; returns a RemovableHandle."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register `hook(optimizer, args, kwargs) -> None`, called after every optimizer's
    step; returns a RemovableHandle."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


# the hooks of state_dict and load_state_dict, each an OrderedDict of every optimizer
_STATE_DICT_HOOKS = ("_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks")


def _record_function(name):
    # imported on first use: the profiler package stays out of `import chainrule`
    from ..profiler._collector import record_function
    return record_function(name)


class _RequiredParameter:
    """Marks a default that every param group must give itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _scalar_dtype(is_fused=None):
    """The dtype of the `step` counters (PyTorch's _get_scalar_dtype): float32 for the fused
    implementations."""
    if is_fused:
        return float32
    return float64 if get_default_dtype() == float64 else float32


def _check_fused(fused, differentiable, foreach):
    """The options PyTorch's constructors refuse alongside fused=True."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_fused_once(optimizer, group, params):
    """SGD's and Adagrad's fused check: PyTorch's looks at the first parameter with a
    gradient, once per optimizer."""
    if group["fused"] and params and getattr(optimizer, "_need_device_dtype_check_for_fused",
                                             True):
        _check_fused_param(params[0])
        optimizer._need_device_dtype_check_for_fused = False


def _check_fused_param(param):
    """PyTorch's fused kernels take floating (not complex) parameters only."""
    if not param.is_floating_point():
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of supported "
            "devices: ['mps', 'cuda', 'xpu', 'hpu', 'cpu', 'mtia', 'privateuseone'] but "
            f"{param.dtype} and {param.device.type}")


def _to_scalar(x):
    """A hyperparameter given as a 1-element Tensor, as a 0-dim one; others as they are."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_hyperparams(**values):
    """PyTorch's constructor checks of the named hyper-parameters, in the order given and
    with its messages: lr as _check_lr, betas each in [0, 1), rho in [0, 1], others >= 0."""
    for name, value in values.items():
        if name == "lr":
            _check_lr(value)
        elif name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
        elif name == "rho":
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Invalid rho value: {value}")
        elif not 0.0 <= value:
            raise ValueError(f"Invalid {'epsilon' if name == 'eps' else name} value: {value}")


def _check_step_options(group, what="params and state_steps", foreach_what=None,
                        xla=(True, False)):
    """What PyTorch's step refuses once the state is initialized: foreach kernels record no
    autograd, and capturable steps need accelerator tensors, never CPU ones. `what` names
    the tensors in the single-tensor message, `foreach_what` in the foreach one; `xla`
    says whether each path's device list has 'xla'."""
    foreach = bool(group["foreach"])
    if foreach and group["differentiable"]:
        raise AssertionError("_foreach ops don't support autograd")
    if group.get("capturable"):    # (an option of most of them)
        devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if xla[foreach] else [])
        what = (foreach_what or what) if foreach else what
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: "
                             f"{devices}.")


class Optimizer:
    """Base class: subclasses define `_update_group(group)`, the update of one param group,
    which `step` runs under no_grad (with grad enabled when `differentiable`)."""

    # PyTorch's __setstate__ of the optimizers: the options that older pickles' groups lack
    # get these defaults, and these state entries saved as numbers become 0-dim tensors;
    # None: the class has no such options
    _setstate_options = None
    _setstate_scalars = ("step",)
    # the keyword arguments of _check_step_options in _params_to_step
    _step_check = {}
    # the state buffers, shaped as the parameter, of the default _initial_state
    _state_buffers = ()

    # the signatures of step pre and post hooks (PyTorch's type aliases)
    OptimizerPreHook = Callable[[Self, tuple[Any, ...], dict[str, Any]],
                                tuple[tuple[Any, ...], dict[str, Any]] | None]
    OptimizerPostHook = Callable[[Self, tuple[Any, ...], dict[str, Any]], None]

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        for name in _STATE_DICT_HOOKS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_optimizer_step_pre_hooks" not in self.__dict__:
            self._optimizer_step_pre_hooks = OrderedDict()
        if "_optimizer_step_post_hooks" not in self.__dict__:
            self._optimizer_step_post_hooks = OrderedDict()
        for name in _STATE_DICT_HOOKS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()   # an unpickled optimizer's class may be new here
        if self._setstate_options is None:
            return
        for group in self.param_groups:
            for key, value in self._setstate_options.items():
                group.setdefault(key, value)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                for key in self._setstate_scalars:
                    if key in p_state and not isinstance(p_state[key], Tensor):
                        p_state[key] = tensor(float(p_state[key]), dtype=_scalar_dtype())

    @staticmethod
    def profile_hook_step(func):
        """Wrap a step function: a profiler label 'Optimizer.step#<class>.step' around the
        global then per-optimizer pre hooks, the step, and the per-optimizer then global
        post hooks."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            with _record_function(f"Optimizer.step#{self.__class__.__name__}.step"):
                for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                                      self._optimizer_step_pre_hooks.values()):
                    result = pre_hook(self, args, kwargs)
                    if result is not None:
                        if isinstance(result, tuple) and len(result) == 2:
                            args, kwargs = result
                        else:
                            raise RuntimeError(f"{func} must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {result}.")
                out = func(*args, **kwargs)
                self._optimizer_step_code()
                for post_hook in chain(self._optimizer_step_post_hooks.values(),
                                       _global_optimizer_post_hooks.values()):
                    post_hook(self, args, kwargs)
                return out
        return wrapper

    def _optimizer_step_code(self):
        """Called after each step (PyTorch's profiler hooks in here); does nothing."""

    def _patch_step_function(self):
        """Wrap this optimizer's class's step once (profile_hook_step), as PyTorch does, so
        that subclasses defining their own step get the hooks too."""
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """Register `hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`,
        called before this optimizer's step; returns a RemovableHandle."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Register `hook(optimizer, args, kwargs) -> None`, called after this optimizer's
        step; returns a RemovableHandle."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register_hook(self, name, hook, prepend):
        hooks = getattr(self, name)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Register `hook(optimizer) -> None`, called before state_dict() builds the dict
        (before the already registered ones when `prepend`); returns a RemovableHandle."""
        return self._register_hook("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Register `hook(optimizer, state_dict) -> state_dict or None`, called on the dict
        state_dict() built; a returned dict replaces it."""
        return self._register_hook("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Register `hook(optimizer, state_dict) -> state_dict or None`, called on (a shallow
        copy of) the dict load_state_dict() receives; a returned dict replaces it."""
        return self._register_hook("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Register `hook(optimizer) -> None`, called once load_state_dict() has loaded."""
        return self._register_hook("_optimizer_load_state_dict_post_hooks", hook, prepend)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group)
                            if key != "params")
        return text + ")"

    def add_param_group(self, param_group):
        """Add a param group (a dict with 'params' and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p
                                 for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        param_set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not param_set.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors (to None, or to zeros)."""
        if not hasattr(self, "_zero_grad_profile_name"):
            self._patch_step_function()
        with _record_function(self._zero_grad_profile_name):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if set_to_none:
                        p.grad = None
                        continue
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """One optimization step; `closure` re-evaluates the loss (with grad enabled) and
        its value is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        # a differentiable optimizer's step is recorded (PyTorch's _use_grad_for_differentiable)
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError

    def _params_with_grad(self, group):
        """The group's parameters that have a gradient, with those gradients (negated when
        maximizing)."""
        params = [p for p in group["params"] if p.grad is not None]
        grads = [-p.grad if group.get("maximize") else p.grad for p in params]
        return params, grads

    def _params_to_step(self, group):
        """_params_with_grad for the optimizers with lazy state: a parameter's state is made
        on its first step with a gradient, from the subclass's `_initial_state(p, group)` (a
        dict, in state_dict order); then, when there is anything to step, the options
        PyTorch's step refuses are checked (_check_step_options with `_step_check`)."""
        params, grads = self._params_with_grad(group)
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state.update(self._initial_state(p, group))
        if params:
            _check_step_options(group, **self._step_check)
        return params, grads

    def _initial_state(self, p, group):
        """A new parameter's state: a `step` counter, then zeros for each _state_buffers."""
        state = {"step": tensor(0.0, dtype=_scalar_dtype())}
        state.update((name, zeros_like(p)) for name in self._state_buffers)
        return state

    def state_dict(self):
        """{'state': {index: state}, 'param_groups': [group with 'params' as indices]}, the
        index of a parameter being its position over all groups."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start)
                            if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    def load_state_dict(self, state_dict):
        """Load a state from `state_dict()`; floating state tensors take their parameter's
        dtype (`step` counters excepted)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key == "step":
                    return value
                return value.to(dtype=param.dtype) if param.is_floating_point() else value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state, "param_groups": [
            update_group(g, ng) for g, ng in zip(groups, saved_groups)]})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
