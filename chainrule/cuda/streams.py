"""torch.cuda.streams: CUDA streams and events (they need CUDA)."""
from . import Event, ExternalStream, Stream  # noqa: F401
