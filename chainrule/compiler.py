"""torch.compile and torch.compiler. chainrule has no graph compiler: `compile` accepts every
argument torch.compile takes, checks them as it does, and returns a callable that runs the
original code eagerly (what PyTorch's backend="eager" does, whatever backend is named). A
compiled Module is wrapped in OptimizedModule, as in PyTorch (its state_dict keys start with
"_orig_mod."). The torch.compiler queries answer as outside any compilation."""
import functools

from .nn import Module

__all__ = ["compile", "OptimizedModule", "allow_in_graph", "assume_constant_result",
           "cudagraph_mark_step_begin", "disable", "get_default_backend", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "list_backends", "nested_compile_region",
           "reset", "set_default_backend", "set_stance"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# the backends torch._dynamo registers (torch.compiler.list_backends(exclude_tags=None))
_BACKENDS = {
    "aot_eager": ("debug",), "aot_eager_decomp_partition": ("debug",),
    "aot_eager_decomp_partition_crossref": ("debug",),
    "aot_eager_decomp_partition_with_mode": ("debug",), "aot_eager_default_partitioner": ("debug",),
    "aot_ts": ("experimental",), "cudagraphs": (), "dynamo_accuracy_minifier_backend": ("debug",),
    "dynamo_minifier_backend": ("debug",), "eager": ("debug",), "eager_debug": ("debug",),
    "eager_noexcept": ("debug",), "inductor": (), "invoke_subgraph": ("experimental",),
    "non_leaf_compile_error_TESTING_ONLY": ("debug",), "openxla": (),
    "openxla_eval": ("experimental",), "pre_dispatch_eager": ("debug",),
    "relu_accuracy_error_TESTING_ONLY": ("debug",), "relu_compile_error_TESTING_ONLY": ("debug",),
    "relu_runtime_error_TESTING_ONLY": ("debug",), "ts": ("experimental",), "tvm": (),
}
_STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
            "eager_then_compile", "aot_eager_then_compile")


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend."""
    __module__ = "torch._dynamo.exc"

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for "
                         "available backends.")


_default_backend = ["inductor"]


def get_default_backend():
    return _default_backend[0]


def set_default_backend(backend):
    _default_backend[0] = "inductor" if backend is None else backend


def list_backends(exclude_tags=("debug", "experimental")):
    """The names torch.compile accepts as `backend` (all run eagerly in chainrule)."""
    exclude = set(exclude_tags or ())
    return sorted(n for n, tags in _BACKENDS.items() if not exclude.intersection(tags))


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None,
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False,
            shapes_spec=None):
    """Return `model` (a function or Module) "compiled": a callable running it eagerly, as
    torch.compile with backend="eager" does. Used as a decorator without `model`."""
    if backend is None:
        backend = get_default_backend()
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                           mode=mode, options=options, name=name, disable=disable,
                           recompile_limit=recompile_limit, isolate_recompiles=isolate_recompiles,
                           shapes_spec=shapes_spec)
        return fn
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return _eager(model)


def _eager(fn):
    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return fn(*args, **kwargs)
    compiled._torchdynamo_orig_callable = fn
    return compiled


class OptimizedModule(Module):
    """A compiled Module: runs the wrapped module (`_orig_mod`), whose parameters and buffers
    it shares and whose attributes it forwards."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")


OptimizedModule.__module__ = "torch._dynamo.eval_frame"


def disable(fn=None, recursive=True, *, reason=None):
    """Mark `fn` as not to be compiled (everything runs eagerly here): returns it wrapped,
    or a decorator / context manager without `fn`."""
    if fn is None:
        return _Disable()
    return _eager(fn)


class _Disable:
    """torch.compiler.disable() without a function: a decorator (not a context manager, as
    in PyTorch)."""

    def __call__(self, fn):
        return _eager(fn)

    def __enter__(self):
        raise RuntimeError("torch._dynamo.optimize(...) is used with a context manager. Please "
                           "refer to https://pytorch.org/tutorials/intermediate/"
                           "torch_compile_tutorial.html to use torch._dynamo.optimize(...) as an "
                           "annotation/decorator. ")

    def __exit__(self, *exc):
        return False


def is_compiling():
    """Whether code runs inside torch.compile's tracing: never in chainrule."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def reset():
    """Clear compilation caches (there are none)."""


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    fn._dynamo_marked_constant = True
    return fn


def cudagraph_mark_step_begin():
    """Mark the start of a CUDA-graph step (no effect without CUDA graphs)."""


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Mark a region to compile once and reuse; runs as written here."""
    if fn is None:
        return lambda f: f
    return fn


class set_stance:
    """Set torch.compile's stance (a context manager, a decorator, or a plain call); with
    eager execution every stance behaves alike."""
    _current = ["default"]

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        if stance not in _STANCES:
            raise RuntimeError(f"invalid torch.compile stance 'DynamoStance(stance={stance!r}, "
                               f"skip_guard_eval_unsafe={skip_guard_eval_unsafe}, "
                               f"backend={force_backend!r})'")
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.prev = set_stance._current[0]
        self.stance = stance
        set_stance._current[0] = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_stance._current[0] = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = set_stance._current[0]
            set_stance._current[0] = self.stance
            try:
                return fn(*args, **kwargs)
            finally:
                set_stance._current[0] = prev
        set_stance._current[0] = self.prev
        return wrapper
