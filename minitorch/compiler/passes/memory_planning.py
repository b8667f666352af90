"""Memory planning: temps that are never needed at the same time share one storage.

Every intermediate result of a graph is a *temp* buffer, and a replay allocates each
once and keeps it for every call. Most temps live briefly: written by one kernel call,
read by the next few, then dead. A temp whose life starts after another's ended can
reuse that one's storage, as a register allocator reuses registers::

    before: 4 temps, 4 storages                   after: 2 storages
    n0 b1 = map:tanh(b0)       b1 |-|             b1, b3 share s1   (b1 dead before n2)
    n1 b2 = zip:mul(b1, b1)    b2   |---|         b2, b4 share s2
    n2 b3 = map:exp(b2)        b3     |-|
    n3 b4 = zip:add(b3, b2)    b4       |
    return b4

A temp's *lifetime* is from the first node that touches it to the last one (a write
counts, so a buffer filled in parts by several nodes, or read and written by one, such
as ``scatter_add``'s output, is alive across all of them); a returned temp lives to the
end. Greedy best fit, in order of first use::

    groups = []                                   # storages, each: members, size, free after
    for temp in temps, by first use:
        free = groups of temp's dtype and device whose last member died before temp starts
        group = the smallest free one that holds temp, else the largest free one (it grows)
        if no group is free: group = a new group
        add temp to group; group.size = max(size, temp's size); group ends when temp ends
    each member is placed in its group's largest buffer (``graph.placement``)

A temp no node touches any more (another pass dropped its writer) joins any group of
its dtype. ``replay.temp_storages`` then allocates one storage per group (for each
workspace of the replay), and ``graph.memory`` says how many bytes the temps took
before and after. Planning comes after every rewrite (``passes.run_passes``): the plan
is only true of the node list it was made for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minitorch.compiler.graph import Buffer, Graph, operands_in
from minitorch.compiler.replay import flatten_outputs


@dataclass
class Group:
    """Temps sharing one storage: its ``members``, and ``ends``: the last node that
    touches one of them (the storage is free again after it)."""

    members: list[Buffer] = field(default_factory=list)
    ends: int = -1

    @property
    def size(self) -> int:
        return max(b.count for b in self.members)


def plan_memory(graph: Graph) -> Graph:
    before = graph.temp_bytes()
    lifetimes: dict[int, list[int]] = {}  # temp -> [first node touching it, last one]
    for i, node in enumerate(graph.nodes):
        for o in operands_in(node.args):
            lifetimes.setdefault(o.buffer, [i, i])[1] = i
    for spec in flatten_outputs(graph.outputs):  # read when the results are copied out
        lifetimes.setdefault(spec.operand.buffer, [len(graph.nodes)] * 2)[1] = len(graph.nodes)
    temps = [b for b in graph.buffers if b.kind == "temp"]
    used = sorted((b for b in temps if b.index in lifetimes), key=lambda b: lifetimes[b.index][0])
    groups: list[Group] = []
    for buffer in used:
        start, end = lifetimes[buffer.index]
        free = [g for g in groups if g.ends < start and fits(g, buffer)]
        group = best_fit(free, buffer) or Group()
        if not group.members:
            groups.append(group)
        group.members.append(buffer)
        group.ends = end
    for buffer in temps:
        if buffer.index not in lifetimes:  # touched by no node: any storage will do
            group = best_fit([g for g in groups if fits(g, buffer)], buffer)
            if group is not None:
                group.members.append(buffer)
    for group in groups:
        largest = max(group.members, key=lambda b: b.count)
        for buffer in group.members:
            graph.placement[buffer.index] = largest.index
    graph.memory = {"before": before, "after": graph.temp_bytes()}
    graph.passes.append("plan_memory")
    return graph


def fits(group: Group, buffer: Buffer) -> bool:
    """Whether ``buffer`` may share ``group``'s storage at all: same dtype and device."""
    first = group.members[0]
    return first.dtype == buffer.dtype and first.device_type == buffer.device_type


def best_fit(groups: list[Group], buffer: Buffer) -> Group | None:
    """The smallest group that holds ``buffer``, else the largest (the least growth)."""
    holding = [g for g in groups if g.size >= buffer.count]
    if holding:
        return min(holding, key=lambda g: g.size)
    return max(groups, key=lambda g: g.size, default=None)
