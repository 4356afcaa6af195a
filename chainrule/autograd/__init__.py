"""chainrule.autograd: backward, grad, custom Functions, grad modes, gradcheck.

`backward` and `grad` live here, as in PyTorch: they check and complete the root gradients
(`_make_grads`) and hand the work to the engine.
"""
import warnings

from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .grad_mode import (enable_grad, enforce_grad_layout_policy, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled, is_multithreading_enabled,
                        is_view_replay_enabled, no_grad, set_grad_enabled,
                        set_multithreading_enabled)
from . import graph
from .graph import SavedTensor
from .variable import Variable

__all__ = ["backward", "grad", "Function", "once_differentiable", "gradcheck", "gradgradcheck",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "detect_anomaly", "set_detect_anomaly", "Variable", "graph", "GradcheckError"]


def _tensor_or_tensors(x):
    from .._tensor import Tensor
    if isinstance(x, Tensor) or isinstance(x, graph.GradientEdge):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """Check the given root gradients, or make ones for scalar outputs (PyTorch's rules)."""
    from .._creation import ones_like
    from .._tensor import Tensor
    new = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, Tensor):
            # batched: each g[b] is a grad_output; PyTorch checks g[0] (so a 0-dim or empty g
            # fails indexing) and reports the shape of g[0] without its first dim
            shape = g[0].shape if is_grads_batched else g._data.shape
            if shape != out._data.shape:
                if is_grads_batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{i}] has a shape of "
                        f"{shape[1:]} and output[{i}] has a shape of {out.shape}. If you only "
                        "want some tensors in `grad_output` to be considered batched, consider "
                        "using vmap.")
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}.")
            if (out._data.dtype.kind in "cW") != (g._data.dtype.kind in "cW"):
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the "
                    f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} "
                    f"and output[{i}] has a dtype of {out.dtype}.")
            if g._data.dtype != out._data.dtype and not is_grads_batched:
                g = g.to(out.dtype)     # as PyTorch, before the first node runs
            new.append(g)
        elif g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind not in "fV":    # V: bfloat16, float8
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                new.append(ones_like(out))
            else:
                new.append(None)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    return new


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into `.grad` of leaves the gradients of `tensors` (weighted by
    `grad_tensors`); see Tensor.backward."""
    from .._tensor import Tensor
    from .engine import run_backward
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
    if inputs is not None and len(_tensor_or_tensors(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _tensor_or_tensors(tensors)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    else:
        grad_tensors = list(grad_tensors)
    grads = _make_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    inputs = None if inputs is None else _tensor_or_tensors(inputs)
    run_backward(tensors, grads, retain_graph, create_graph, inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned (`.grad` is untouched)."""
    from .._creation import zeros_like
    from .engine import run_backward
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). "
                      "To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    outputs = _tensor_or_tensors(outputs)
    inputs = _tensor_or_tensors(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = _tensor_or_tensors(grad_outputs)
    grads = _make_grads(outputs, grad_outputs, is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        result = _batched_grad(outputs, grads, retain_graph, create_graph, inputs, allow_unused)
    else:
        result = run_backward(outputs, grads, retain_graph, create_graph, inputs,
                              allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        # unbatched zeros even for batched grads, as PyTorch's
        result = [zeros_like(t, requires_grad=create_graph) if g is None else g
                  for g, t in zip(result, inputs)]
    return tuple(result)


def _batched_grad(outputs, grads, keep_graph, create_graph, inputs, allow_unused):
    """grad's vector-Jacobian products for each index of dim 0 of `grads`, stacked: PyTorch
    vmaps one backward pass; here chainrule.func.vmap runs one per index, keeping the graph
    for all but the last. Unused inputs give None, which vmap would not stack."""
    from .. import arange
    from .._tensor import Tensor
    from ..func import vmap
    from .engine import run_backward
    # PyTorch's vmap here is its legacy one: its checks, in its words
    sizes = []
    for g in grads:
        if not isinstance(g, Tensor):
            break                   # func.vmap refuses it with the same message
        if g.dim() == 0:            # a scalar output's implicit gradient
            raise ValueError(
                "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                "input is a Tensor of dimensionality 0 so expected in_dim to satisfy "
                "0 <= in_dim < 0.")
        sizes.append(g.shape[0])
    else:
        if len(set(sizes)) > 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
    used = []

    def vjp(rows, index):
        # the backward pass frees the graph after the last row only; reading the index (data)
        # also keeps a batching vmap from running the pass on the whole batch
        keep = keep_graph or int(index) < sizes[0] - 1
        result = run_backward(outputs, list(rows), keep, create_graph, inputs,
                              allow_unused=allow_unused, accumulate=False)
        used[:] = [r is not None for r in result]
        return tuple(r for r in result if r is not None)

    stacked = iter(vmap(vjp)(tuple(grads), arange(sizes[0] if sizes else 0)))
    return [next(stacked) if u else None for u in used]


def variable(*args, **kwargs):
    """Deprecated in PyTorch, which refuses it: use torch.tensor."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


# as PyTorch's: the function shadows the module torch.autograd.variable, and names its class
variable.Variable = Variable


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or an object with __torch_function__ (torch.overrides)."""
    from .._tensor import Tensor
    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")


from .function import Function, NestedIOFunction, once_differentiable  # noqa: E402
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
# chainrule's own: why a gradient is None (not in PyTorch)
from .explain import explain  # noqa: E402


_LAZY = {"profiler", "profiler_legacy", "profiler_util"}
# the legacy profiler's types and the profiler's enums, as torch.autograd has them
_LAZY_NAMES = {"ProfilerState": "profiler_legacy", "ProfilerConfig": "profiler_legacy",
               "ProfilerEvent": "profiler_legacy", "DeviceType": "profiler_util",
               "kineto_available": "profiler", "ProfilerActivity": "profiler"}


def __getattr__(name):
    # torch.autograd.profiler, forward_ad and functional, loaded on first use
    import importlib
    if name in ("profiler", "forward_ad", "functional") or name in _LAZY:
        return importlib.import_module("." + name, __name__)
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module("." + _LAZY_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY | set(_LAZY_NAMES) | {"forward_ad", "functional"})
