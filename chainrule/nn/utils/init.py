"""torch.nn.utils.init: skip_init."""
import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """A `module_cls(*args, **kwargs)` whose parameters and buffers are left uninitialized.
    PyTorch builds it on the meta device, so no initializer draws from the default generator;
    chainrule builds it on the CPU and restores the generator's state, to the same effect."""
    from ..._random import default_generator
    from ..modules.module import Module
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    state = default_generator.get_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        default_generator.set_state(state)
