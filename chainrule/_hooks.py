"""Op interception for autocast and the profiler. Each installs its hook here; the combined
hook goes into the registry's dispatchers (registry.intercept) only while one is on, so
ops pay nothing otherwise. The profiler is outermost: it times what autocast runs."""
import functools

__all__ = ["set_autocast", "set_profiler"]

_active = {"profiler": None, "autocast": None}


def set_autocast(hook):
    _active["autocast"] = hook
    _install()


def set_profiler(hook):
    _active["profiler"] = hook
    _install()


def _install():
    from .ops import registry
    hooks = [h for h in (_active["profiler"], _active["autocast"]) if h is not None]
    if not hooks:
        registry.intercept(None)
        return
    if len(hooks) == 1:
        registry.intercept(hooks[0])
        return
    outer, inner = hooks
    registry.intercept(lambda call, row, inputs, params:
                       outer(functools.partial(inner, call), row, inputs, params))
