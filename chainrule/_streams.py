"""torch.Stream and torch.Event on the CPU: one stream (id 0) on which everything is already
done, so queries answer True and synchronization returns at once; recording an event is
PyTorch's CPU error."""
from . import _device
from ._cnames import builtin_names

__all__ = ["Stream", "Event"]

_NO_EVENTS = "cpu backend doesn't support events."


def _cpu_device(device):
    if device is not None:
        d = _device.as_device(device)
        if d.type != "cpu":
            raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


@builtin_names
class Stream:
    """An in-order queue of work on a device; on the CPU work runs at once."""
    __module__ = "torch"

    def __init__(self, device=None, *, priority=0):
        _cpu_device(device)

    device = property(lambda self: _device.cpu)
    device_type = property(lambda self: 0)   # c10::DeviceType::CPU
    device_index = property(lambda self: -1)
    stream_id = property(lambda self: 0)

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self):
        return True

    def synchronize(self):
        return None

    def is_capturing(self):
        return False

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        raise RuntimeError(_NO_EVENTS)

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return hash((0, -1, 0))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def __repr__(self):
        return "torch.Stream device_type=cpu, device_index=-1, stream_id=0"


@builtin_names
class Event:
    """A marker in a stream; on the CPU every event is complete."""
    __module__ = "torch"

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        _cpu_device(device)
        self._timing = bool(enable_timing)

    device = property(lambda self: _device.cpu)
    event_id = property(lambda self: 0)

    def record(self, stream=None):
        raise RuntimeError(_NO_EVENTS)

    def query(self):
        return True

    def synchronize(self):
        return None

    def wait(self, stream=None):
        return None

    def elapsed_time(self, end_event):
        if not (self._timing and end_event._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue "
                                  "if you need this!")

    def __repr__(self):
        return (f"torch.Event device_type=cpu, device_index=-1, event_flag={int(self._timing)}, "
                "event_id=0")
