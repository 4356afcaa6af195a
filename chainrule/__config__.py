"""torch.__config__: how chainrule is built (Python on NumPy) and how it runs in parallel."""

__all__ = ["show", "parallel_info"]


def show():
    """A description of the build: chainrule's version and the NumPy and BLAS it runs on."""
    import platform
    import numpy as np
    from . import __version__
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        blas = f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except (AttributeError, KeyError, TypeError):
        blas = "unknown"
    return (f"chainrule {__version__} built with:\n"
            f"  - Python {platform.python_version()}\n"
            f"  - NumPy {np.__version__}\n"
            f"  - BLAS: {blas}\n"
            "  - CPU only (no CUDA, ROCm, XPU, MPS)\n")


def parallel_info():
    """The thread settings: NumPy's BLAS pool does chainrule's parallel work."""
    from ._platform import get_num_interop_threads, get_num_threads
    return (f"chainrule/Parallel:\n\tget_num_threads() : {get_num_threads()}\n"
            f"\tget_num_interop_threads() : {get_num_interop_threads()}\n"
            "Parallel backend: NumPy's BLAS thread pool\n")
