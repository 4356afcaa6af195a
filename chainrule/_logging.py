"""torch._logging.set_logs over Python logging.

set_logs takes PyTorch's keyword arguments. A log component sets the level of chainrule's
logger for it ("all": `chainrule`, "autograd": `chainrule.autograd`, the distributed ones:
`chainrule.distributed`); components and artifacts of PyTorch's compilers (dynamo, aot,
inductor, graph_code, recompiles, ...) are accepted, checked as PyTorch checks them, and do
nothing, since chainrule compiles nothing. `modules={"name": level}` sets the level of any
module's logger (`torch.x` names `chainrule.x`). As PyTorch's, the configured loggers print
to stderr through one handler on `chainrule`, and each call replaces the previous settings.
"""
import importlib.util
import logging
import os

__all__ = ["set_logs"]

log = logging.getLogger(__name__)

# component -> chainrule's logger for it (None: a compiler component, nothing to configure)
_LOGS = {"all": "chainrule", "dynamo": None, "aot": None, "autograd": "chainrule.autograd",
         "dynamic": None, "inductor": None, "distributed": "chainrule.distributed",
         "c10d": "chainrule.distributed", "ddp": "chainrule.distributed",
         "fsdp": "chainrule.distributed", "dtensor": "chainrule.distributed", "onnx": None,
         "export": None}
_ARTIFACTS = (
    "bytecode", "aot_graphs", "aot_joint_graph", "ddp_graphs", "graph", "graph_code",
    "graph_code_verbose", "graph_breaks", "side_effects", "graph_sizes", "guards", "recompiles",
    "recompiles_verbose", "trace_source", "trace_call", "trace_bytecode", "output_code",
    "kernel_code", "schedule", "perf_hints", "pre_grad_graphs", "post_grad_graphs",
    "ir_pre_fusion", "ir_post_fusion", "onnx_diagnostics", "fusion", "overlap", "cudagraphs",
    "sym_node", "compiled_autograd", "compiled_autograd_verbose", "cudagraph_static_inputs",
    "benchmarking", "autotuning", "incremental", "graph_region_expansion", "inductor_metrics",
    "hierarchical_compile", "compute_dependencies", "caching")

_configured = set()      # logger names set by the last call
_handler = None


def set_logs(*, modules=None, **kwargs):
    """Set log levels of chainrule's loggers by component (see the module docstring)."""
    if "TORCH_LOGS" in os.environ:
        log.warning("Using TORCH_LOGS environment variable for log settings, ignoring call to "
                    "set_logs")
        return
    for name in kwargs:
        if name not in _LOGS and name not in _ARTIFACTS:
            raise TypeError(f"set_logs() got an unexpected keyword argument '{name}'")
    for name in _configured:
        logging.getLogger(name).setLevel(logging.NOTSET)
    _configured.clear()
    for alias, val in list(kwargs.items()) + list((modules or {}).items()):
        if val is None:
            continue
        if alias in _ARTIFACTS:
            if not isinstance(val, bool):
                raise ValueError(f"Expected bool to enable artifact {alias}, received {val}")
        elif alias in _LOGS:
            _check_level(alias, val)
            if _LOGS[alias] is not None:
                _enable(_LOGS[alias], val)
        elif _is_valid_module(alias):
            _check_level(alias, val)
            _enable("chainrule" + alias[5:] if alias.split(".")[0] == "torch" else alias, val)
        else:
            raise ValueError(f"Unrecognized log or artifact name passed to set_logs: {alias}")


def _check_level(alias, val):
    if val not in logging._levelToName:
        raise ValueError(f"Unrecognized log level for log {alias}: {val}, valid level values "
                         f"are: {','.join([str(k) for k in logging._levelToName])}")


def _is_valid_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _enable(name, level):
    global _handler
    if _handler is None:
        # as PyTorch's _init_logs: one stderr handler on the top logger, not propagated
        _handler = logging.StreamHandler()
        _handler.setFormatter(logging.Formatter("[%(asctime)s] %(name)s: [%(levelname)s] "
                                                "%(message)s"))
        top = logging.getLogger("chainrule")
        top.addHandler(_handler)
        top.propagate = False
    logging.getLogger(name).setLevel(level)
    _configured.add(name)
