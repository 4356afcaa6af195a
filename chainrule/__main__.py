"""chainrule's command line: `python -m chainrule [tour]` (also the `chainrule` script)."""
import argparse
import sys


def _tour(args):
    from .tour import run
    run()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="chainrule", description="PyTorch's autograd in Python on NumPy.")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    commands.add_parser(
        "tour", help="a guided walkthrough of autograd, run live (the default)"
    ).set_defaults(run=_tour)
    args = parser.parse_args(argv)
    getattr(args, "run", _tour)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
