"""torch.distributed.config: the package's switches, read and set as module attributes.
Both are off and neither changes what chainrule does: compile_on_one_rank concerns
torch.compile's graph capture (chainrule compiles nothing), use_torchcomms selects the
torchcomms backend (chainrule's collectives always run on MPI)."""

# compile a graph on one rank and share it with the others (torch.compile)
compile_on_one_rank = False
# run collectives through torchcomms instead of c10d's backends
use_torchcomms = False
