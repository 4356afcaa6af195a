"""torch.cuda.nvtx: NVTX ranges, absent from a build without CUDA."""
import contextlib

__all__ = ["mark", "range_push", "range_pop", "range_start", "range_end", "range"]

_MISSING = "NVTX functions not installed. Are you sure you have a CUDA build?"


def range_push(msg):
    raise RuntimeError(_MISSING)


def range_pop():
    raise RuntimeError(_MISSING)


def mark(msg):
    raise RuntimeError(_MISSING)


def range_start(msg):
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeStartA'")


def range_end(range_id):
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeEnd'")


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """Push an NVTX range for the scope (a context manager and decorator)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
