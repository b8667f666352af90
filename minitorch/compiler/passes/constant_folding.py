"""Constant folding: run once, at compile time, every kernel call whose inputs are constants.

A *constant* buffer holds values fixed when the graph was captured (``tensor([..])``
made inside the function, the ones that seed ``backward``; see ``graph.py``). A kernel
call that reads nothing but constants computes the same result on every replay, so the
compiler can run it once now and keep the result as one more constant::

    before                                   after
    n0 b2[3] = map:exp(b1[3])                (b2 is now a constant: exp's values)
    n1 b4[3] = zip:mul(b0[3], b2[3])         n0 b4[3] = zip:mul(b0[3], b2[3])

Variables are not constants: a parameter or an optimizer's state changes between calls.
One walk over the nodes, in order, finds chains of foldable calls too, since a folded
result is a constant for the calls after it::

    constants = buffers of kind "constant"
    for node in nodes:
        if every buffer node reads is in constants and
           node writes only whole temps that no other node writes:
            run node now (replay's own ``run``, on the constants' storages)
            its output buffers become constants (their storage and values); drop node
        else:
            keep node

The output must be a whole temp with one writer: a buffer that several calls fill in
parts, or that the program keeps (state), is left to the replay.
"""

from __future__ import annotations

from minitorch import dispatch
from minitorch.compiler.graph import Buffer, Graph, Node, operands_in
from minitorch.compiler.replay import Strided, run


def constant_folding(graph: Graph) -> Graph:
    writers: dict[int, int] = {}  # buffer -> how many nodes write it
    for node in graph.nodes:
        for o in node.writes:
            writers[o.buffer] = writers.get(o.buffer, 0) + 1
    constants = {b.index for b in graph.buffers if b.kind == "constant"}
    kept = []
    for node in graph.nodes:
        if foldable(node, graph.buffers, constants, writers):
            fold(node, graph.buffers)
            constants.update(o.buffer for o in node.writes)
        else:
            kept.append(node)
    graph.nodes = kept
    graph.passes.append("constant_folding")
    return graph.renumber()


def foldable(node: Node, buffers: list[Buffer], constants: set[int], writers: dict[int, int]) -> bool:
    if node.primitive == "check" or node.scalars_again is not None or not node.writes:
        return False
    if any(o.buffer not in constants for o in node.reads):
        return False
    return all(
        buffers[o.buffer].kind == "temp" and writers[o.buffer] == 1 and o.covers(buffers[o.buffer].count)
        for o in node.writes
    )


def fold(node: Node, buffers: list[Buffer]) -> None:
    """Run ``node`` now; its output buffers become constants holding the result."""
    for o in node.writes:
        out = buffers[o.buffer]
        out.storage = dispatch.empty(out.count, out.dtype, out.device_type)
    for o in node.reads:
        source = buffers[o.buffer]
        if source.storage is None:  # a constant not made yet (as replay.shared_storages does)
            source.storage = dispatch.from_numpy(source.values.reshape(-1), source.device_type)
    storages = [buffers[o.buffer].storage for o in operands_in(node.args)]
    operands = [Strided(s, o.shape, o.strides, o.offset) for s, o in zip(storages, operands_in(node.args))]
    run(node, operands, node.args)
    for o in node.writes:
        out = buffers[o.buffer]
        out.kind, out.values = "constant", dispatch.to_numpy(out.storage, out.device_type).copy()
