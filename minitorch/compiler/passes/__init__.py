"""Optimisation passes over a captured ``Graph``: one small file per pass.

Each pass is a function ``graph -> graph`` that a student can read in one sitting and
switch on or off (``minitorch.compile(fn, passes=["dead_code", ...])``). Each must keep
what the graph computes: the tests replay every pass's graph against eager execution.

**Memory planning runs last, whatever the order asked.** The other passes *rewrite*
the node list; planning only *lays out* the temps of one given node list, letting two
temps share a storage when that list never needs both at once. Any rewrite made after
it can break that promise: fusion moves a node's reads to a later node, and a temp it
now reads late may already hold a neighbour's values::

    n0 b2 = sum(a)                 planned: b2 and b5 share one storage,
    n1 b3 = b2 + 0.0               since b2 is dead after n1
    n2 b5 = sum(b)                 writes over b2
    n3 b6 = b5 + 0.0
    n4 b7 = b3 + b6

Fusing after that merges n1, n3 and n4 into one node at n4's place: it reads b2 after
n2 wrote there, and returns sum(b) + sum(b).

So ``run_passes`` runs the rewriting passes in the order given, then ``plan_memory``
once if it was named anywhere; and a pass that changes the nodes of a planned graph by
hand drops the stale plan (``Graph.renumber``), so a wrong order costs memory, never a
wrong answer.
"""

from minitorch.compiler.graph import Graph
from minitorch.compiler.passes.common_subexpressions import common_subexpressions
from minitorch.compiler.passes.constant_folding import constant_folding
from minitorch.compiler.passes.dead_code import dead_code
from minitorch.compiler.passes.fusion import fuse_elementwise
from minitorch.compiler.passes.memory_planning import plan_memory

# name -> pass, in the order they are best run
PASSES = {
    "constant_folding": constant_folding,
    "common_subexpressions": common_subexpressions,
    "dead_code": dead_code,
    "fuse_elementwise": fuse_elementwise,
    "plan_memory": plan_memory,
}

# What ``minitorch.compile(fn)`` runs when no passes are named. ``fuse_elementwise`` is
# opt-in: each new fused kernel takes Numba 1-3 s to compile on first use (a stall in a
# notebook or the Playground), and on small steps, where kernel launches dominate, it
# measured no faster; on large elementwise chains it pays (``benchmarks/fusion.py``).
DEFAULT_PASSES = ["constant_folding", "common_subexpressions", "dead_code", "plan_memory"]


def run_passes(graph: Graph, passes: list) -> Graph:
    """Run ``passes`` (functions) on ``graph``: the rewrites in the order given, then
    memory planning if it is among them (see the module docstring)."""
    for run_pass in passes:
        if run_pass is not plan_memory:
            graph = run_pass(graph)
    return plan_memory(graph) if plan_memory in passes else graph
