"""torch.backends.mkl: whether the BLAS under chainrule (NumPy's) is Intel MKL."""

__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    """Whether NumPy is linked against MKL."""
    import numpy as np
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):
        return False
    return "mkl" in str(blas).lower()


class verbose:
    """On-demand MKL verbose output; chainrule cannot switch it, so only VERBOSE_OFF works."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        if self.enable == VERBOSE_OFF:
            return
        raise AssertionError("Failed to set MKL into verbose mode. Please consider to disable "
                             "this verbose scope.")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
