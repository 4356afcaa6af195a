"""DataParallel on a CPU-only build: there are no devices to split a batch over, so, as
PyTorch does when no GPU is present, the wrapper runs its module directly."""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps `module` (state_dict keys gain the `module.` prefix) and runs it as is: with no
    accelerator PyTorch's DataParallel does the same, and device_ids is empty."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional DataParallel needs an accelerator: on the CPU it fails as PyTorch's."""
    raise RuntimeError("device type could not be determined")
