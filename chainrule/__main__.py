"""chainrule's command line: `python -m chainrule [tour | demo | graph SCRIPT.py]` (also the
`chainrule` script)."""
import argparse
import sys


def _tour(args):
    from .tour import run
    run()


def _demo(args):
    from .demo import run
    run(epochs=args.epochs, seed=args.seed)


def _graph(args):
    from .viz._script import graph_of_script
    print(f"wrote {graph_of_script(args.script, out=args.out, var=args.var)}")


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
    graph = commands.add_parser(
        "graph", help="run a script and write the graph of the last tensor it calls backward "
        "on as one interactive HTML page")
    graph.add_argument("script", help="the Python script to run (it uses chainrule)")
    graph.add_argument("--out", default="graph.html", help="the page to write (graph.html)")
    graph.add_argument("--var", help="draw this global variable of the script instead")
    graph.set_defaults(run=_graph)
    args = parser.parse_args(argv)
    getattr(args, "run", _tour)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
