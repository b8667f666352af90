"""Optimisation passes over a captured ``Graph``: one small file per pass.

Each pass is a function ``graph -> graph`` that a student can read in one sitting and
switch on or off (``minitorch.compile(fn, passes=["dead_code", ...])``). Each must keep
what the graph computes: the tests replay every pass's graph against eager execution.
"""

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
