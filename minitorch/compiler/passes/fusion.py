"""Elementwise fusion: a chain of ``map``/``zip``/``where`` calls becomes one generated kernel.

Eagerly, ``((x * 2 + y).tanh() - 1).exp()`` runs five kernels, and each one reads its
inputs from memory and writes a whole intermediate tensor back: memory traffic, not
arithmetic, is what they spend their time on. One kernel that computes all five ops per
element, with the intermediates in registers, reads ``x`` and ``y`` once and writes the
result once::

    before                                        after
    n0 b2 = zip:mul(b0, b3)                       n0 b8 = fused(b0, b3, b1, b7)
    n1 b4 = zip:add(b2, b1)                             # v4 = mul(v0, v1); v5 = add(v4, v2)
    n2 b5 = map:tanh(b4)                                # v6 = tanh(v5); v7 = sub(v6, v3)
    n3 b6 = zip:sub(b5, b7)                             # out = exp(v7)
    n4 b8 = map:exp(b6)

**Which nodes may merge.** A node ``P`` that wrote a temp ``t`` melts into the node ``N``
that reads it when dropping ``t`` and running ``P``'s work at ``N``'s time cannot change
any result::

    for N in nodes, in order:                         # N: map, zip or where
        for each buffer t that N reads:
            P = the one node that writes t            # also map, zip or where
            merge P's group into N's group if
                t is a temp, nothing but N reads it (no other node, not the outputs),
                N reads t exactly as P wrote it (same shape, strides, offset),
                no node between P and N writes anything P's group reads,
                whatever P's group reads of N's output buffer, it reads in N's layout,
                one device, and dtypes the backend can fuse

A group is a tree of nodes whose root is its last node; every group of two or more
becomes one ``fused`` node at the root's place. Its arguments are ``(out, *inputs)``, its
``code`` the kernel the backend generated for that chain (``dispatch.compile_fused``:
Numba source on the CPU, CUDA C for "cuda"), and ``graph.source(node)`` shows the text.
Shapes need no check: every input of an elementwise kernel has the output's shape, so a
tree glued through identical operands has one shape throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minitorch import dispatch
from minitorch.compiler.graph import Graph, Node, Operand
from minitorch.compiler.replay import flatten_outputs

ELEMENTWISE = ("map", "zip", "where")


@dataclass
class Group:
    """Nodes that will run as one kernel: ``members`` (node positions, the root last)
    and ``inputs``: the operands read from outside the group, in order."""

    members: list[int]
    inputs: list[Operand] = field(default_factory=list)


def fuse_elementwise(graph: Graph) -> Graph:
    nodes = graph.nodes
    writers: dict[int, list[int]] = {}  # buffer -> positions of the nodes that write it
    readers: dict[int, int] = {}  # buffer -> how many operands of nodes read it
    for position, node in enumerate(nodes):
        for o in node.writes:
            writers.setdefault(o.buffer, []).append(position)
        for o in node.reads:
            readers[o.buffer] = readers.get(o.buffer, 0) + 1
    returned = {spec.operand.buffer for spec in flatten_outputs(graph.outputs)}
    groups: dict[int, Group] = {}  # root position -> its group
    for position, node in enumerate(nodes):
        if not _elementwise(node):
            continue
        group = Group([position])
        out = node.writes[0]
        merged: set[Operand] = set()  # results taken from a register (``x * x`` reads one twice)
        for o in node.reads:
            if o in merged:
                continue
            producer = _producer(graph, nodes, writers, readers, returned, o, node)
            if producer is None or producer not in groups:
                group.inputs.append(o)
                continue
            inner = groups[producer]
            if _safe_to_move(nodes, inner, producer, position, out):
                group.members = sorted(inner.members + group.members)  # still in run order
                group.inputs += inner.inputs
                merged.add(o)
                del groups[producer]
            else:
                group.inputs.append(o)
        groups[position] = group
    replaced: dict[int, Node] = {}
    dropped: set[int] = set()
    for root, group in groups.items():
        if len(group.members) < 2:
            continue
        fused = _fused_node(graph, nodes, group)
        if fused is not None:
            replaced[root] = fused
            dropped.update(group.members[:-1])
    graph.nodes = [replaced.get(i, n) for i, n in enumerate(nodes) if i not in dropped]
    graph.passes.append("fuse_elementwise")
    return graph.renumber()


def _elementwise(node: Node) -> bool:
    return node.primitive in ELEMENTWISE and node.code is None


def _producer(graph: Graph, nodes: list[Node], writers: dict, readers: dict, returned: set,
              o: Operand, reader: Node) -> int | None:  # fmt: skip
    """The position of the node whose result ``reader`` may take in a register instead of
    reading operand ``o`` from memory, or None."""
    found = writers.get(o.buffer, [])
    if len(found) != 1 or graph.buffers[o.buffer].kind != "temp" or o.buffer in returned:
        return None
    producer = nodes[found[0]]
    if not _elementwise(producer) or producer.device_type != reader.device_type:
        return None
    if producer.writes[0] != o or readers[o.buffer] != sum(r == o for r in reader.reads):
        return None  # read in another layout, or by another node too
    return found[0]


def _safe_to_move(nodes: list[Node], group: Group, start: int, end: int, out: Operand) -> bool:
    """Whether ``group`` (rooted at ``start``) computes the same values at ``end``: no
    node in between writes what it reads, and it reads the fused node's output buffer
    only element for element (the same layout as ``out``)."""
    read = {o.buffer for o in group.inputs}
    for node in nodes[start + 1 : end]:
        if any(o.buffer in read for o in node.writes):
            return False
    return all(o == out for o in group.inputs if o.buffer == out.buffer)


def _fused_node(graph: Graph, nodes: list[Node], group: Group) -> Node | None:
    """The ``fused`` node of ``group``, or None when the backend cannot fuse it."""
    inputs = list(dict.fromkeys(group.inputs))  # an operand read twice is one input
    value_of = {o: k for k, o in enumerate(inputs)}  # operand -> value number
    steps = []
    for position in group.members:
        node = nodes[position]
        op = node.args[0] if node.primitive != "where" else "where"
        args = tuple(value_of[o] for o in node.reads)
        written = node.writes[0]
        steps.append(dispatch.FusedStep(node.primitive, op, args, graph.buffers[written.buffer].dtype.name))
        value_of[written] = len(inputs) + len(steps) - 1
    root = nodes[group.members[-1]]
    out = root.writes[0]
    dtypes = [graph.buffers[o.buffer].dtype.name for o in inputs]
    strides = [out.strides, *(o.strides for o in inputs)]
    compiled = dispatch.compile_fused(root.device_type, tuple(steps), dtypes, out.shape, strides)
    if compiled is None:
        return None
    code, source = compiled
    ops = ", ".join(nodes[p].op for p in group.members)
    return Node("fused", (out, *inputs), root.device_type, ops, root.phase, code=code, source=source)
