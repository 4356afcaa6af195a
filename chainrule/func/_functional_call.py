"""torch.func.functional_call, stack_module_state and replace_all_batch_norm_modules_:
calling a module with other tensors in place of its parameters and buffers (PyTorch's
nn.utils.stateless reparametrization), and preparing module ensembles for vmap."""
import contextlib
from collections.abc import Sequence

from .._tensor import Tensor

_MISSING = object()


def _swap_tensor(module, name, tensor):
    """Put `tensor` at `name` of `module` (a parameter, buffer or plain attribute) and return
    what was there (_MISSING where nothing was; _MISSING as `tensor` removes it)."""
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name, _MISSING)
    if orig is not _MISSING and not isinstance(orig, Tensor) and orig is not None:
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif orig is not _MISSING:
        delattr(module, name)
    return orig


def _swap_path(module, path, tensor):
    prefix, _, attr = path.rpartition(".")
    return _swap_tensor(module.get_submodule(prefix) if prefix else module, attr, tensor)


def _untie(module, parameters_and_buffers):
    """The given values extended to every name tied to a given one (tie_weights=True)."""
    names_of = {}
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    for name, t in named.items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given = [n for n in parameters_and_buffers if n in tied]
    for name in given:
        names = tied[name]
        values = {id(parameters_and_buffers[n]) for n in names if n in parameters_and_buffers}
        if len(names.intersection(given)) > 1 and len(values) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(parameters_and_buffers)
    for name in given:
        for n in tied[name]:
            untied[n] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(values)), sorted(set(values) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    orig = {}
    try:
        for name, tensor in values.items():
            orig[name] = _swap_path(module, name, tensor)
        yield
    finally:
        new = {name: _swap_path(module, name, t) for name, t in orig.items()}
        # in-place updates of the module's state (a running mean) reach the caller's dict
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """torch.func.functional_call: `module(*args, **kwargs)` with the given tensors in place of
    its parameters and buffers (a dict, or a sequence of dicts with distinct keys)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, values, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def _stacked_leaf(tensors, name):
    from .. import stack
    all_grad = all(t.requires_grad for t in tensors)
    if not all_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all_grad else result


def stack_module_state(models):
    """torch.func.stack_module_state: the parameters and buffers of same-class modules
    stacked along a new leading dim, by name (new leaves, ready for an optimizer)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    states = []
    for named in ("named_parameters", "named_buffers"):
        per_model = [dict(getattr(m, named)()) for m in models]
        states.append({k: _stacked_leaf(tuple(p[k] for p in per_model), k)
                       for k in per_model[0]})
    return tuple(states)


def replace_all_batch_norm_modules_(root):
    """torch.func.replace_all_batch_norm_modules_: every batch norm in `root` stops tracking
    running statistics (so vmap over it needs none), in place."""
    from ..nn.modules.batchnorm import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
