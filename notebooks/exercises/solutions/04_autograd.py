"""Reference solutions for exercises/04_autograd.ipynb."""

from minitorch.autograd import Function


# %% exercise=softplus
class Softplus(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp().log1p()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sigmoid()


# %% exercise=hypot
class Hypot(Function):
    @staticmethod
    def forward(ctx, a, b):
        h = (a * a + b * b).sqrt()
        ctx.save_for_backward(a, b, h)
        return h

    @staticmethod
    def backward(ctx, grad):
        a, b, h = ctx.saved_tensors
        return grad * a / h, grad * b / h


# %% exercise=topological_order
def topological_order(root):
    """All nodes reachable from `root`, each before the nodes it sends gradients to."""
    finished = []  # nodes whose children are all finished (reverse topological order)
    visited = set()
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            finished.append(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        for child, _ in node.next_functions:
            if child is not None and child not in visited:
                stack.append((child, False))
    return finished[::-1]
