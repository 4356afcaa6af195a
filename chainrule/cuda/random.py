"""torch.cuda.random: seeding is ignored (there is no CUDA generator), state needs CUDA."""
from . import (current_device, device_count, get_rng_state, get_rng_state_all,  # noqa: F401
               initial_seed, is_initialized, manual_seed, manual_seed_all, seed, seed_all,
               set_rng_state, set_rng_state_all)
