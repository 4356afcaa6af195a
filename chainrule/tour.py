"""A guided walkthrough of autograd, run live: `python -m chainrule tour`.

Each section is a short program shown as an interactive session: every statement is
printed after `>>> ` and run, followed by what it prints (the value of a bare expression,
as the Python prompt shows it). A statement marked `# raises` shows its exception; any
other exception stops the tour. The code is written against the torch API, so the same
walkthrough runs under PyTorch (`run(torch)`) and prints the same text.
"""
import ast
import contextlib
import sys

__all__ = ["SECTIONS", "run"]

SECTIONS = [
    ("Building a graph",
     "Every operation on a tensor that requires grad is recorded. Here F = exp(A * B) + E.",
     """
A = torch.tensor(2., requires_grad=True)
B = torch.tensor(.5, requires_grad=True)
E = torch.tensor(1., requires_grad=True)
C = A * B
D = C.exp()
F = D + E
F
"""),
    ("grad_fn and is_leaf",
     "Tensors made by the user are leaves; a computed tensor's grad_fn is the backward node\n"
     "of the operation that made it.",
     """
[x.is_leaf for x in [A, B, C, D, E, F]]
[x.grad_fn for x in [F, D, C, A]]
"""),
    ("next_functions: the graph, linked backwards",
     "A node's next_functions holds one (node, output index) pair per input. A leaf that\n"
     "requires grad is reached through its AccumulateGrad node.",
     """
F.grad_fn.next_functions
exp_node = F.grad_fn.next_functions[0][0]
exp_node.next_functions
mul_node = exp_node.next_functions[0][0]
mul_node.next_functions
mul_node.next_functions[0][0].variable is A
"""),
    ("backward, and retain_graph",
     "backward() fills .grad of the leaves. retain_graph=True keeps the graph's saved\n"
     "tensors, so it can run again; gradients then accumulate.",
     """
F.backward(retain_graph=True)
print(A.grad, B.grad, E.grad)
F.backward()
print(A.grad, B.grad, E.grad)
"""),
    ("Backprop by hand: calling the nodes",
     "A node is callable: give it the gradient of its output, get the gradients of its\n"
     "inputs. Walking next_functions and calling each node is what backward() does.",
     """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = torch.tensor([4., 5., 6.], requires_grad=True)
l = (x * y).sum()
back_sum = l.grad_fn
back_mul = back_sum.next_functions[0][0]
back_x, back_y = [node for node, _ in back_mul.next_functions]
back_sum, back_mul, back_x
with torch.no_grad():  # backward() does not record its own work either
    dz = back_sum(torch.tensor(1.))
    dx, dy = back_mul(dz)
    back_x(dx)
    back_y(dy)
dz
print(x.grad, y.grad)
"""),
    ("Hooks on tensors and on nodes",
     "A tensor hook sees (and may replace) the gradient of that tensor; a node hook runs\n"
     "after the node, with the gradients of its inputs and of its outputs.",
     """
w = torch.tensor([1., 2.], requires_grad=True)
def halve(grad):
    print("tensor hook:", grad)
    return grad / 2
handle = w.register_hook(halve)
loss = (w - 1) ** 2
def operator_hook(grad_inputs, grad_outputs):
    print("node hook:", grad_inputs, grad_outputs)
handle = loss.grad_fn.register_hook(operator_hook)
loss.mean().backward()
w.grad
"""),
    ("autograd.grad and a second derivative",
     "torch.autograd.grad returns gradients instead of filling .grad. With\n"
     "create_graph=True the gradient is itself part of a graph, so it can be differentiated.",
     """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g
torch.autograd.grad(g.sum(), x)
x.grad is None
"""),
    ("A custom Function",
     "Code autograd cannot see through gets its derivative from you: forward computes,\n"
     "backward maps the output's gradient to the input's.",
     """
class MyExternalFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.exp(x) * torch.sin(2 * x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * torch.exp(x) * (torch.sin(2 * x) + 2 * torch.cos(2 * x))

x = torch.tensor([0., .5, 1.], requires_grad=True)
y = MyExternalFunc.apply(x)
y
y.sum().backward()
x.grad
"""),
    ("Backward twice",
     "Without retain_graph, backward() frees what the graph saved, so a second pass has\n"
     "nothing to work with.",
     """
x = torch.tensor([1., 2.], requires_grad=True)
loss = x.exp().sum()
loss.backward()
loss.backward()  # raises: exp(x) was freed
"""),
]


def _show(source, file):
    for i, line in enumerate(source.splitlines()):
        print(("... " if i else ">>> ") + line if line else "...", file=file)


def run(lib=None, file=None):
    """Print the tour, running each section's code with `lib` (chainrule by default) as
    `torch`."""
    if lib is None:
        import chainrule as lib
    file = sys.stdout if file is None else file
    namespace = {"torch": lib, "__name__": "__tour__"}
    print("A tour of autograd, run live\n============================", file=file)
    for n, (heading, intro, code) in enumerate(SECTIONS, 1):
        heading = f"{n}. {heading}"
        print(f"\n{heading}\n{'-' * len(heading)}\n{intro}\n", file=file)
        code = code.strip("\n")
        lines = code.splitlines()
        for stmt in ast.parse(code).body:
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
            source = "\n".join(lines[first - 1:stmt.end_lineno])
            _show(source, file)
            # A bare expression shows its value, as at the prompt; compound statements don't.
            if isinstance(stmt, ast.Expr):
                compiled = compile(ast.Interactive([stmt]), "<tour>", "single")
            else:
                compiled = compile(ast.Module([stmt], []), "<tour>", "exec")
            with contextlib.redirect_stdout(file):
                try:
                    exec(compiled, namespace)
                except Exception as e:
                    if "# raises" not in source:
                        raise
                    print(f"{type(e).__name__}: {e}")
    print("\nUnder `import torch` every line above prints the same values, names and messages.",
          file=file)
