"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
linearize, vmap), functional module calls and einops-style rearrange, on chainrule's
autograd."""
from ._einops import rearrange
from ._functional_call import functional_call, replace_all_batch_norm_modules_, \
    stack_module_state
from ._transforms import debug_unwrap, functionalize, grad, grad_and_value, hessian, jacfwd, \
    jacrev, jvp, linearize, vjp
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vmap", "replace_all_batch_norm_modules_", "functionalize",
           "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "functional_call",
           "stack_module_state", "debug_unwrap", "rearrange"]
