"""torch.cuda.graphs: CUDA graph capture (it needs CUDA)."""
from . import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing  # noqa: F401
