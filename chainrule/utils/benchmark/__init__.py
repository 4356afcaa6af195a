"""torch.utils.benchmark for chainrule: Timer, Measurement and Compare, reporting as
PyTorch's do. Not available: C++ statements (language='cpp') and Callgrind instruction
counts (collect_callgrind), which need PyTorch's C++ toolchain, and the Fuzzer classes."""
from .utils.common import (Measurement, TaskSpec, ordered_unique, select_unit,  # noqa: F401
                           set_torch_threads, trim_sigfig, unit_to_english)
from .utils.compare import Colorize, Compare  # noqa: F401
from .utils.timer import Language, Timer, timer  # noqa: F401

__all__ = ["Timer", "timer", "Language", "Measurement", "TaskSpec", "Compare", "Colorize",
           "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads"]
