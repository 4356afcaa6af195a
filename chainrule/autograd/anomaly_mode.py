"""Anomaly detection: forward tracebacks for failing backward nodes, and NaN checks."""
import warnings

from .grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]


class _State:
    # Process-wide, as in PyTorch (not thread-local).
    enabled = False
    check_nan = True


state = _State()


def is_anomaly_enabled():
    return state.enabled


def is_anomaly_check_nan_enabled():
    return state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (torch.set_anomaly_enabled)."""
    state.enabled = bool(enabled)
    state.check_nan = bool(check_nan)


class detect_anomaly(_DecoratorContextManager):
    """Record forward tracebacks so a failing backward node can say where it came from;
    optionally raise when a backward node returns NaN."""

    def __init__(self, check_nan=True):
        self.prev = state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = state.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        state.enabled = True
        state.check_nan = self.check_nan

    def __exit__(self, *exc):
        state.enabled = self.prev
        state.check_nan = self.prev_check_nan

    def clone(self):
        return type(self)(self.check_nan)


class set_detect_anomaly(_DecoratorContextManager):
    """Turn anomaly detection on or off now; restore on exit when used as a context."""

    def __init__(self, mode, check_nan=True):
        self.prev = state.enabled
        self.prev_check_nan = state.check_nan
        self.mode, self.check_nan_arg = mode, check_nan
        state.enabled = mode
        state.check_nan = check_nan

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.enabled = self.prev
        state.check_nan = self.prev_check_nan

    def clone(self):
        return type(self)(self.mode, self.check_nan_arg)
