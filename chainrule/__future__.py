"""torch.__future__: opt-in behaviours of nn.Module conversions (`module.float()`, `.to()`,
`._apply`), read by chainrule's Module._apply as PyTorch's reads them."""

__all__ = ["set_overwrite_module_params_on_conversion",
           "get_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion",
           "get_swap_module_params_on_conversion"]

_settings = {"overwrite": False, "swap": False}


def set_overwrite_module_params_on_conversion(value):
    """Whether Module._apply assigns new Parameters (instead of setting `.data` of the
    existing ones) when converting a module."""
    _settings["overwrite"] = value


def get_overwrite_module_params_on_conversion():
    """Whether Module._apply assigns new Parameters; False by default."""
    return _settings["overwrite"]


def set_swap_module_params_on_conversion(value):
    """Whether Module._apply swaps the contents of the existing Parameters (and gradients)
    with the converted ones; takes precedence over the overwrite setting."""
    _settings["swap"] = value


def get_swap_module_params_on_conversion():
    """Whether Module._apply swaps Parameter contents; False by default."""
    return _settings["swap"]
