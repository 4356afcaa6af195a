"""SparseAdam, as torch.optim.SparseAdam: Adam for sparse gradients (embeddings with
sparse=True), updating only the moments of the rows a gradient touches."""
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """PyTorch's SparseAdam steps only sparse gradients and refuses dense ones; chainrule's
    tensors are all dense (strided), so a step with a gradient raises PyTorch's error, and
    Adam is the optimizer to use."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [[index, d_index] for index, group in enumerate(self.param_groups)
                          for d_index, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def _update_group(self, group):
        if any(p.grad is not None for p in group["params"]):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                               "Adam instead")
