"""Dead-code elimination: drop the kernel calls whose results nobody uses.

A result is *used* if the function returns it, if it is state the program keeps (an
input written in place, a parameter, ``p.grad``: anything that is not a temp or a
constant), or if a node that is itself used reads it. Walking the nodes from last to
first finds them all in one pass::

    needed = buffers of the outputs + every input, variable and state buffer
    for node in reversed(nodes):
        if node writes a needed buffer (or is a check, which may raise):
            keep node; needed += the buffers node reads
        else:
            drop node

The test is per buffer, not per element, so a node that writes part of a needed buffer
stays even if that part is overwritten later: dead code is dropped only when that is
certainly safe.
"""

from __future__ import annotations

from minitorch.compiler.graph import Graph
from minitorch.compiler.replay import flatten_outputs


def dead_code(graph: Graph) -> Graph:
    needed = {spec.operand.buffer for spec in flatten_outputs(graph.outputs)}
    needed |= {b.index for b in graph.buffers if b.kind in ("input", "variable", "state")}
    kept = []
    for node in reversed(graph.nodes):
        if node.primitive == "check" or any(o.buffer in needed for o in node.writes):
            kept.append(node)
            needed |= {o.buffer for o in node.reads}
    graph.nodes = kept[::-1]
    graph.passes.append("dead_code")
    return graph.renumber()
