"""torch.utils.benchmark for chainrule: Timer, Measurement and Compare, reporting as
PyTorch's do, and the Fuzzer classes drawing PyTorch's parameters and tensors for a seed.
Not available: C++ statements (language='cpp') and Callgrind instruction counts
(collect_callgrind, CallgrindStats, FunctionCounts, CopyIfCallgrind), which need PyTorch's
C++ toolchain; FuzzedSparseTensor takes part in draws but cannot build its sparse tensor
(chainrule has no sparse layouts)."""
from .utils.common import (Measurement, TaskSpec, ordered_unique, select_unit,  # noqa: F401
                           set_torch_threads, trim_sigfig, unit_to_english)
from .utils.compare import Colorize, Compare  # noqa: F401
from .utils.fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias  # noqa: F401
from .utils.sparse_fuzzer import FuzzedSparseTensor  # noqa: F401
from .utils.timer import Language, Timer, timer  # noqa: F401

__all__ = ["Timer", "timer", "Language", "Measurement", "TaskSpec", "Compare", "Colorize",
           "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads", "Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor",
           "FuzzedSparseTensor"]
