"""Launch a data-parallel job: `python -m chainrule.distributed.run -n 4 train.py args...`
runs `mpiexec -n 4 <this python> train.py args...` with the mpiexec of the installed mpich
package (the one beside this Python) or else the system's."""
import argparse
import os
import shutil
import subprocess
import sys


def find_mpiexec():
    """mpiexec beside the running Python (pip's mpich puts it there), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("mpiexec not found: pip install 'chainrule[distributed]' (mpi4py "
                           "and mpich) or install an MPI library")
    return found


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m chainrule.distributed.run",
        description="Run a training script on several processes under MPI.")
    p.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="nproc", type=int,
                   default=1, help="number of processes (ranks) to start")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module, as python -m does")
    p.add_argument("script", help="the training script (or module, with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def command(argv):
    """The mpiexec command line for launcher arguments argv."""
    a = _parser().parse_args(argv)
    target = ["-m", a.script] if a.module else [a.script]
    return [find_mpiexec(), "-n", str(a.nproc), sys.executable, *target, *a.args]


def main(argv=None):
    return subprocess.call(command(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
