"""torch.nn.utils.spectral_norm, the hook-based form (parametrizations.spectral_norm is the
newer one).

`name` becomes `name_orig` / sigma, sigma being the largest singular value of `name_orig`
(viewed as a matrix with `dim` as rows), estimated by power iteration on the buffers `name_u`,
`name_v`; a forward pre-hook refreshes it, iterating only in training mode. State dicts carry a
version so that ones saved before `name_v` existed can still be loaded."""
from ... import linalg as _linalg
from ...autograd import no_grad
from ...ops.registry import FUNCTIONS
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .parametrizations import _transposed_conv

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


def _hook_key(hooks, kind, name):
    """Key of the first hook in `hooks` of type `kind` serving tensor `name`, or None."""
    for key, hook in hooks.items():
        if isinstance(hook, kind) and getattr(hook, "fn", hook).name == name:
            return key
    return None


class SpectralNorm:
    """The forward pre-hook (and its settings) normalizing one tensor of a module."""

    _version = 1  # 1: the state dict holds name_orig, name_u and name_v

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """`weight` as a matrix whose rows run along `self.dim`."""
        if self.dim != 0:
            rest = [d for d in range(weight.dim()) if d != self.dim]
            weight = weight.permute(self.dim, *rest)
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        orig = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(orig)
        if do_power_iteration:
            with no_grad():
                # u and v are the module's buffers: updated in place so they persist
                for _ in range(self.n_power_iterations):
                    v = F.normalize(FUNCTIONS["mv"](mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(FUNCTIONS["mv"](mat, v), dim=0, eps=self.eps, out=u)
                # copies for sigma: the next iteration's in-place writes must not reach the
                # values this forward's graph saved
                u, v = u.clone(), v.clone()
        return orig / FUNCTIONS["dot"](u, FUNCTIONS["mv"](mat, v))

    def remove(self, module):
        """Turn `name` back into a plain parameter holding the normalized weight."""
        with no_grad():
            final = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(final.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """A v with u = normalize(W v), scaled so that u^T W v equals target_sigma."""
        pseudo_inverse = weight_mat.t().mm(weight_mat).pinverse()
        v = _linalg.multi_dot([pseudo_inverse, weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        sigma = FUNCTIONS["dot"](u, FUNCTIONS["mv"](weight_mat, v))
        return v.mul_(target_sigma / sigma)

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if _hook_key(module._forward_pre_hooks, SpectralNorm, name) is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter "
                               f"{name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        param = module._parameters[name]
        if param is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(param, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            rows, cols = hook.reshape_weight_to_matrix(param).size()
            # random unit starting vectors, drawn u first as PyTorch does
            u, v = (F.normalize(param.new_empty(size).normal_(0, 1), dim=0, eps=hook.eps)
                    for size in (rows, cols))
        delattr(module, name)
        module.register_parameter(name + "_orig", param)
        # a plain tensor until the first forward pre-hook computes the normalized weight
        setattr(module, name, param.data)
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(hook)
        module._register_state_dict_hook(SpectralNormStateDictHook(hook))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(hook))
        return hook


class SpectralNormLoadStateDictPreHook:
    """Loads a state dict saved before version 1 (which had `name`, not `name_v`)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        current_layout = all(key + s in state_dict for s in ("_orig", "_u", "_v"))
        if version is None and current_layout and key not in state_dict:
            return
        absent = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with no_grad():
            orig = state_dict[key + "_orig"]
            # the old layout stored the normalized weight: its ratio to orig is sigma
            sigma = (orig / state_dict.pop(key)).mean()
            state_dict[key + "_v"] = fn._solve_v_and_rescale(
                fn.reshape_weight_to_matrix(orig), state_dict[key + "_u"], sigma)


class SpectralNormStateDictHook:
    """Records the spectral norm's version in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its spectral norm before each forward."""
    if dim is None:
        dim = 1 if _transposed_conv(module) else 0  # a transposed conv's outputs are dim 1
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: `module.<name>` is a parameter again."""
    pre_hooks = module._forward_pre_hooks
    key = _hook_key(pre_hooks, SpectralNorm, name)
    if key is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    pre_hooks[key].remove(module)
    del pre_hooks[key]
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        key = _hook_key(hooks, kind, name)
        if key is not None:
            del hooks[key]
    return module
