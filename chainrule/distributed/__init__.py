"""torch.distributed for CPU data-parallel jobs, on MPI through mpi4py (the optional extra
`pip install "chainrule[distributed]"`). Start a job with
`python -m chainrule.distributed.run -n 4 train.py` or `mpiexec -n 4 python train.py`; each
process calls init_process_group() and trains its share of the data under
chainrule.nn.parallel.DistributedDataParallel."""
from . import config, constants, distributed_c10d  # noqa: F401
from .distributed_c10d import *  # noqa: F401,F403
from . import algorithms, utils  # noqa: F401,E402
