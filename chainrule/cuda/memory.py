"""torch.cuda.memory: the caching allocator's interface (nothing is ever allocated)."""
from . import (MemPool, caching_allocator_alloc, caching_allocator_delete,  # noqa: F401
               caching_allocator_disabled, caching_allocator_enable, change_current_allocator,
               empty_cache, get_allocator_backend, get_per_process_memory_fraction,
               host_memory_stats, host_memory_stats_as_nested_dict, is_initialized,
               list_gpu_processes, max_memory_allocated, max_memory_cached, max_memory_reserved,
               mem_get_info, memory_allocated, memory_cached, memory_reserved, memory_snapshot,
               memory_stats, memory_stats_as_nested_dict, memory_summary,
               reset_accumulated_host_memory_stats, reset_accumulated_memory_stats,
               reset_max_memory_allocated, reset_max_memory_cached, reset_peak_host_memory_stats,
               reset_peak_memory_stats, set_per_process_memory_fraction, use_mem_pool)
