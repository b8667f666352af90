"""One of every public widget, drawn from small real programs, for the tests that check
what all widgets share: the type scale (test_typography.py) and the static pictures
saved with a notebook (test_static_fallbacks.py). ``NOTEBOOK_CELLS`` is the same
program as notebook cells, one widget per cell."""

from __future__ import annotations

from typing import Any

# Each cell ends with one widget: the notebook displays it, every_widget() keeps it.
NOTEBOOK_CELLS = {
    "strides": """\
import minitorch
from minitorch import nn, widgets
t = minitorch.arange(6.0).view(2, 3)
widgets.strides(t, tT=t.t(), row=t[1])""",
    "broadcast": """\
a, b = minitorch.arange(6.0).view(2, 3), minitorch.tensor([10.0, 20.0, 30.0])
widgets.broadcast(a, b)""",
    "graph": """\
minitorch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
x = minitorch.randn(4, 2)
with widgets.watch(model):
    loss = model(x).pow(2).mean()
widgets.graph(loss, params=model)""",
    "dispatch_trace": """\
with widgets.dispatch_trace() as trace:
    y = (t * 2 + 1).relu().sum()
trace""",
    "static_graph": """\
opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
y = minitorch.randn(4, 1)
def step(x, y):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss
compiled = minitorch.compile(step)
eager_loss = compiled(x, y)
compiled(x, y)
widgets.graph(compiled, autograd=eager_loss)""",
    "memory": """\
kept = minitorch.ones(64, 64)
widgets.memory()""",
    "Playground": """\
pg = widgets.Playground("dataset=xor&hidden=4,2")
pg.step(epochs=5)
pg""",
    "rank_timeline": """\
from minitorch.distributed.pipelining import simulate_gpipe
gpipe = {f"{m} micro-batches": simulate_gpipe(2, m, forward=1e-3, backward=2e-3) for m in (1, 4)}
widgets.rank_timeline(gpipe, title="GPipe on 2 stages")""",
}


def every_widget() -> dict[str, Any]:
    """Run the cells in one namespace; the widget each cell ends with, by cell name."""
    namespace: dict[str, Any] = {}
    widgets = {}
    for name, source in NOTEBOOK_CELLS.items():
        *body, last = source.split("\n")
        exec("\n".join(body), namespace)
        widgets[name] = eval(last, namespace)
    return widgets
