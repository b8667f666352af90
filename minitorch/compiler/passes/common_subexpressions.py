"""Common-subexpression elimination: a kernel call that repeats an earlier one is dropped.

Two calls with the same primitive, the same scalar op and numbers, and the same operands
(same buffers, same shapes, strides and offsets) compute the same values, as long as
nothing wrote those buffers in between. A training step is full of them: ``mse_loss``
computes ``input - target`` in its forward, and its backward computes it again::

    before                                        after
    n8  b13 = zip:sub(b10, b1)   # Sub forward    n8  b13 = zip:sub(b10, b1)
    ...                                           ...
    n13 b20 = zip:sub(b10, b1)   # Sub backward   (dropped)
    n16 b24 = zip:mul(b20, b22)                   n15 b24 = zip:mul(b13, b22)

One walk over the nodes, remembering the calls seen so far by what they compute::

    same = {}                                     # dropped buffer -> the one that replaces it
    for node in nodes:
        read every operand of node through same   # readers of b20 now read b13
        first = the earlier node with node's key  # key: primitive, numbers, read operands
        if first and nothing in first..node wrote what they read
                 and node's output is a whole temp that only node writes (not returned)
                 and first's output is whole, of the same shape and dtype,
                     and nothing writes it until node's output is last read:
            same[node's output] = first's output; drop node
        else:
            remember node under its key

Reading operands through ``same`` first makes the elimination cascade: once ``b20`` is
``b13``, a later call on ``b20`` may repeat one on ``b13``. Calls that read what they
write (``scatter_add``, the optimizer step), generated kernels and input checks are kept.
"""

from __future__ import annotations

from typing import Any

from minitorch.compiler.graph import READS_WHAT_IT_WRITES, WRITES, Graph, Node, Operand, operands_in
from minitorch.compiler.replay import flatten_outputs


def common_subexpressions(graph: Graph) -> Graph:
    nodes, buffers = graph.nodes, graph.buffers
    returned = {spec.operand.buffer for spec in flatten_outputs(graph.outputs)}
    writers: dict[int, list[int]] = {}  # buffer -> positions of the nodes that write it
    last_use: dict[int, int] = {}  # buffer -> position of the last node that touches it
    for i, node in enumerate(nodes):
        for o in node.writes:
            writers.setdefault(o.buffer, []).append(i)
        for o in operands_in(node.args):
            last_use[o.buffer] = i

    def written_between(buffer: int, start: int, end: int) -> bool:
        return any(start <= i <= end for i in writers.get(buffer, []))

    same: dict[int, int] = {}
    seen: dict[Any, int] = {}  # key -> position of the earliest node computing it
    kept = []
    for i, node in enumerate(nodes):
        node.args = _read_through(node.args, same)
        key = _key(node)
        first = seen.get(key) if key is not None else None
        if first is not None:
            out, earlier = node.writes[0], nodes[first].writes[0]
            buffer = buffers[out.buffer]
            if (
                not any(written_between(o.buffer, first, i - 1) for o in node.reads)
                and buffer.kind == "temp" and writers[out.buffer] == [i] and out.buffer not in returned
                and out.covers(buffer.count) and earlier.covers(buffers[earlier.buffer].count)
                and out.shape == earlier.shape and buffer.dtype == buffers[earlier.buffer].dtype
                and not written_between(earlier.buffer, first + 1, last_use[out.buffer])
            ):  # fmt: skip
                same[out.buffer] = earlier.buffer
                continue
        if key is not None:
            seen[key] = i
        kept.append(node)
    graph.nodes = kept
    graph.passes.append("common_subexpressions")
    return graph.renumber()


def _key(node: Node) -> Any:
    """What ``node`` computes: everything but its output buffer (None: never merged)."""
    if (node.primitive in READS_WHAT_IT_WRITES or node.primitive == "check" or node.code is not None
            or node.scalars_again is not None or len(node.writes) != 1):  # fmt: skip
        return None
    written = WRITES[node.primitive]
    args = tuple("out" if i in written else _signature(a) for i, a in enumerate(node.args))
    return node.primitive, node.device_type, args


def _signature(value: Any) -> Any:
    """A hashable stand-in for an argument; numbers by ``repr``, so that 0.0 and -0.0
    (equal, but ``x * -0.0`` differs from ``x * 0.0``) stay apart."""
    if isinstance(value, Operand):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_signature(v) for v in value)
    return type(value).__name__, repr(value)


def _read_through(value: Any, same: dict[int, int]) -> Any:
    """``value`` with every operand of a dropped buffer moved to the buffer replacing it."""
    if isinstance(value, Operand):
        buffer = same.get(value.buffer)
        return value if buffer is None else Operand(buffer, value.shape, value.strides, value.offset)
    if isinstance(value, list):
        return [_read_through(v, same) for v in value]
    if isinstance(value, tuple):
        return tuple(_read_through(v, same) for v in value)
    return value
