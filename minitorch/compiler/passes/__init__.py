"""Optimisation passes over a captured ``Graph``: one small file per pass.

Each pass is a function ``graph -> graph`` that a student can read in one sitting and
switch on or off (``minitorch.compile(fn, passes=["dead_code", ...])``). Each must keep
what the graph computes: the tests replay every pass's graph against eager execution.
"""

from minitorch.compiler.passes.dead_code import dead_code
from minitorch.compiler.passes.fusion import fuse_elementwise

# name -> pass, in the order they are best run
PASSES = {
    "dead_code": dead_code,
    "fuse_elementwise": fuse_elementwise,
}

# What ``minitorch.compile(fn)`` runs when no passes are named.
DEFAULT_PASSES = ["dead_code"]
