"""chainrule's command line: `python -m chainrule [tour | demo]` (also the `chainrule`
script)."""
import argparse
import sys


def _tour(args):
    from .tour import run
    run()


def _demo(args):
    from .demo import run
    run(epochs=args.epochs, seed=args.seed)


def _positive(text):
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="chainrule", description="PyTorch's autograd in Python on NumPy.")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    commands.add_parser(
        "tour", help="a guided walkthrough of autograd, run live (the default)"
    ).set_defaults(run=_tour)
    demo = commands.add_parser(
        "demo", help="train a graph network on Zachary's karate club, checking its gradients")
    demo.add_argument("--epochs", type=_positive, default=200,
                      help="training epochs (default 200)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    getattr(args, "run", _tour)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
