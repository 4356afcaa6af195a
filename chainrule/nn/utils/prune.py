"""torch.nn.utils.prune.

Pruning tensor `name` of a module splits it into a parameter `name_orig` and a 0/1 buffer
`name_mask`; `name` itself becomes their product, recomputed before every forward by the
pruning method object, which is registered as the forward pre-hook. Pruning the same tensor
again folds the methods into a PruningContainer whose newest method refines the current mask.
Masks are drawn with the random calls PyTorch makes (rand_like/rand then topk/kthvalue), so a
seeded run prunes the same entries."""
import numbers as _numbers
from abc import ABC as _ABC, abstractmethod as _abstractmethod
from collections.abc import Iterable as _Iterable

from ..._creation import ones_like, rand, rand_like, zeros_like
from ..._tensor import contiguous_format
from ...ops.registry import FUNCTIONS
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _pruning_hooks(module, name):
    """(key, hook) of every pruning hook on `module` that acts on its tensor `name`."""
    return [(key, hook) for key, hook in module._forward_pre_hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]


def _take_over_hook(method_cls, module, name, args, kwargs):
    """Unhook the method already pruning `name` (if any) and return the method to hook next:
    a new `method_cls` alone, or the old method(s) in a container with the new one last."""
    previous = _pruning_hooks(module, name)
    if len(previous) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    for key, _ in previous:
        del module._forward_pre_hooks[key]
    method = method_cls(*args, **kwargs)
    method._tensor_name = name
    if not previous:
        return method
    container = previous[0][1]
    if not isinstance(container, PruningContainer):
        container = PruningContainer(container)
    container.add_pruning_method(method)
    return container


class BasePruningMethod(_ABC):
    """A way of choosing which entries of a tensor to zero. Instances act as the forward
    pre-hook that refreshes the pruned tensor from `name_orig` and `name_mask`."""

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @_abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask (default_mask combined with this method's) for tensor `t`."""

    def apply_mask(self, module):
        """The pruned tensor: the module's `name_orig` times its mask."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        kept = getattr(module, self._tensor_name + "_mask")
        full = getattr(module, self._tensor_name + "_orig")
        return kept.to(dtype=full.dtype) * full

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune `module.<name>` with a new `cls(*args, **kwargs)`; returns the hooked method."""
        method = _take_over_hook(cls, module, name, args, kwargs)
        tensor = getattr(module, name)
        if importance_scores is None:
            importance_scores = tensor
        elif importance_scores.shape != tensor.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {tensor.shape}")
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            # The parameter moves to name_orig; the mask starts by keeping everything.
            module.register_parameter(name + "_orig", tensor)
            del module._parameters[name]
            current = ones_like(tensor)
        else:
            current = getattr(module, name + "_mask").detach().clone(
                memory_format=contiguous_format)
        try:
            module.register_buffer(
                name + "_mask", method.compute_mask(importance_scores, default_mask=current))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # put the parameter back where it was
                module.register_parameter(name, module._parameters[name + "_orig"])
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` with this method's mask applied (computed from importance_scores if given)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as tensor t, got "
                f"{importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: `name` becomes a plain parameter holding the pruned
        values, and name_orig / name_mask go away."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        param = module._parameters[name + "_orig"]
        param.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, param)


# Which part of the tensor (an index) the newest method of a container prunes further: the
# entries still kept, the channels along its dim still having a kept entry, or everything.
def _kept_entries(method, t, mask):
    return mask == 1


def _kept_channels(method, t, mask):
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    ndim = t.dim()
    axis = method.dim + ndim if method.dim < 0 else method.dim
    if axis < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
    alive = mask.sum(dim=[d for d in range(ndim) if d != axis]) != 0
    return tuple(alive if d == axis else slice(None) for d in range(ndim))


def _all_entries(method, t, mask):
    return (slice(None),) * len(t.shape)


_REGION_OF = {"unstructured": _kept_entries, "structured": _kept_channels,
              "global": _all_entries}


class PruningContainer(BasePruningMethod):
    """The successive pruning methods applied to one tensor, oldest first."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:  # wrapping one method: the container prunes that method's tensor
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append `method` (which must prune this container's tensor)."""
        if method is not None:
            if not isinstance(method, BasePruningMethod):
                raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
            if self._tensor_name != method._tensor_name:
                raise ValueError(
                    f"Can only add pruning methods acting on the parameter named "
                    f"'{self._tensor_name}' to PruningContainer {self}. "
                    f"Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """default_mask with the newest method's mask written over the region it acts on."""
        newest = self._pruning_methods[-1]
        combined = default_mask.to(dtype=t.dtype)
        region_of = _REGION_OF.get(newest.PRUNING_TYPE)
        if region_of is None:
            raise ValueError(f"Unrecognized PRUNING_TYPE {newest.PRUNING_TYPE}")
        region = region_of(newest, t, default_mask)
        refined = newest.compute_mask(t[region], default_mask=default_mask[region])
        combined[region] = refined.to(dtype=combined.dtype)
        return combined


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays as it is."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _check_amount(amount):
    """`amount` must be a count >= 0 or a fraction in [0, 1]."""
    if not isinstance(amount, _numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, _numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _count_to_prune(amount, total):
    """How many of `total` units `amount` prunes (a fraction is rounded)."""
    count = amount if isinstance(amount, _numbers.Integral) else round(amount * total)
    if isinstance(count, _numbers.Integral) and count > total:
        raise ValueError(f"amount={count} should be smaller than the number of parameters to "
                         f"prune={total}")
    return count


def _zero_extremes(mask, scores, count, largest):
    """Zero (in place) the `count` entries of mask whose scores are the largest/smallest."""
    chosen = FUNCTIONS["topk"](scores.view(-1), k=count, largest=largest).indices
    mask.view(-1)[chosen] = 0


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries chosen uniformly at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if count:
            _zero_extremes(mask, rand_like(t), count, largest=True)
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=contiguous_format)
        if count:
            _zero_extremes(mask, t.abs(), count, largest=False)
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_count(t, dim):
    """Size of `t` along `dim`, after checking that structured pruning can act on it."""
    if len(t.shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return t.shape[dim]


def _channels_kept(t, dim, keep, default_mask):
    """A mask like `t` keeping the channels `keep` (indices or a bool vector) along dim,
    restricted to what default_mask keeps."""
    mask = zeros_like(t)
    index = [slice(None)] * len(t.shape)
    index[dim] = keep
    mask[tuple(index)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        channels = _channel_count(t, self.dim)
        count = _count_to_prune(self.amount, channels)
        if count == 0:
            return default_mask
        draw = rand(channels)
        # the channels whose draw exceeds the count-th smallest survive
        survivors = draw > FUNCTIONS["kthvalue"](draw, k=count).values
        return _channels_kept(t, self.dim, survivors, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        channels = _channel_count(t, self.dim)
        count = _count_to_prune(self.amount, channels)
        ndim = t.dim()
        axis = list(range(ndim))[self.dim]
        norms = FUNCTIONS["norm"](t, p=self.n, dim=[d for d in range(ndim) if d != axis])
        strongest = FUNCTIONS["topk"](norms, k=channels - count, largest=True).indices
        if count == 0:
            return default_mask
        return _channels_kept(t, self.dim, strongest, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _pruned(module, method_cls, name, **options):
    method_cls.apply(module, name, **options)
    return module


def identity(module, name):
    """Hook pruning machinery on `module.<name>` without pruning anything."""
    return _pruned(module, Identity, name)


def random_unstructured(module, name, amount):
    """Prune `amount` random entries of `module.<name>`."""
    return _pruned(module, RandomUnstructured, name, amount=amount)


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the `amount` smallest-magnitude entries of `module.<name>`."""
    return _pruned(module, L1Unstructured, name, amount=amount,
                   importance_scores=importance_scores)


def random_structured(module, name, amount, dim):
    """Prune `amount` random channels along `dim` of `module.<name>`."""
    return _pruned(module, RandomStructured, name, amount=amount, dim=dim)


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the `amount` channels along `dim` of `module.<name>` of smallest Ln norm."""
    return _pruned(module, LnStructured, name, amount=amount, n=n, dim=dim,
                   importance_scores=importance_scores)


def custom_from_mask(module, name, mask):
    """Prune `module.<name>` where `mask` is zero."""
    return _pruned(module, CustomFromMask, name, mask=mask)


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) tensors together, as if they were one flat tensor, with an
    unstructured `pruning_method(**kwargs)`; each then gets its slice as a custom mask."""
    if not isinstance(parameters, _Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    flat_scores = parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    flat_current = parameters_to_vector(
        [getattr(m, n + "_mask", ones_like(getattr(m, n))) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"  # the flat stand-in tensor's name
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    flat_mask = PruningContainer(method).compute_mask(flat_scores, flat_current)
    start = 0
    for module, name in parameters:
        tensor = getattr(module, name)
        stop = start + tensor.numel()
        custom_from_mask(module, name, mask=flat_mask[start:stop].view_as(tensor))
        start = stop


def remove(module, name):
    """Make the pruning of `module.<name>` permanent and drop its hook."""
    found = _pruning_hooks(module, name)
    if not found:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before "
                         "pruning can be removed")
    key, method = found[0]
    method.remove(module)
    del module._forward_pre_hooks[key]
    return module


def is_pruned(module):
    """Whether any submodule of `module` (itself included) has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())


# PyTorch's messages name these classes by their module (global_unstructured's TypeError)
for _cls in (BasePruningMethod, PruningContainer, Identity, RandomUnstructured, L1Unstructured,
             RandomStructured, LnStructured, CustomFromMask):
    _cls.__module__ = "torch.nn.utils.prune"
