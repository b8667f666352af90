"""A layered ("Sugiyama") layout for the graph viewer, in plain Python.

Graphviz's ``dot`` draws graphs like ours well, but many students do not have it
installed, so the viewer lays graphs out itself with the same four classic steps:

1. **Layers.** Put every node on a row so that edges point downwards. A node sits one
   row above its highest consumer (row = how far it is from the bottom), so a
   parameter appears just above the op that uses it, not at the top of the page.
   (Edges that would point upwards, only possible after collapsing modules, are
   reversed first.)
2. **Dummy nodes.** An edge that skips rows is cut into one-row pieces joined by
   invisible dummy nodes; they become the bends of the drawn edge.
3. **Order within rows.** Sweep down and up a few times, sorting each row by the
   *barycenter* (average position) of each node's neighbours in the row above (or
   below). Few crossings remain.
4. **Coordinates.** Each node wants to sit at the average x of its neighbours; nodes
   in a row must keep their order and not overlap. The best such positions (least
   squares) come from *isotonic regression*, solved by the pool-adjacent-violators
   algorithm in ``_place_row``.

Everything is linear or ``n log n`` per sweep, so 1,000 nodes take a fraction of a
second. ``dot_layout`` uses Graphviz instead when it is installed and asked for.

Two edges between the same two nodes (``y * y`` uses ``y`` twice: ``MulBackward0`` has
two edges from ``ExpBackward0``) would share one route and be drawn as one line;
``spread_parallel`` bends them apart, one to each side.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

ROW_GAP = 46  # vertical space between rows
NODE_GAP = 18  # horizontal space between neighbours in a row
DUMMY_WIDTH = 8  # an edge's bend point takes this much room in its row
DUMMY_GAP = 4
PARALLEL_GAP = 30  # horizontal distance between the middles of two parallel edges


@dataclass
class Layout:
    """Node boxes (``id -> (x, y, width, height)``, x and y of the top-left corner) and
    edge routes (polylines from the source's bottom to the target's top)."""

    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    routes: list[list[tuple[float, float]]] = field(default_factory=list)
    width: float = 0
    height: float = 0
    rows: int = 0

    def to_json(self) -> dict:
        return {
            "boxes": {k: [round(v, 1) for v in box] for k, box in self.boxes.items()},
            "routes": [[[round(x, 1), round(y, 1)] for x, y in route] for route in self.routes],
            "width": round(self.width, 1),
            "height": round(self.height, 1),
        }


def _break_cycles(nodes: Sequence[str], edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Reverse the edges that close a cycle (found by an iterative depth-first search)."""
    successors = defaultdict(list)
    for source, target in edges:
        successors[source].append(target)
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    back_edges = set()
    for start in nodes:
        if start in state:
            continue
        stack = [(start, iter(successors[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back_edges.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(successors[child])))
    return [(t, s) if (s, t) in back_edges else (s, t) for s, t in edges]


def _rows(nodes: Sequence[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Row of each node: sinks on the last row, every other node one row above its
    highest successor (longest path to a sink, computed in reverse topological order)."""
    successors = defaultdict(list)
    waiting = {n: 0 for n in nodes}  # successors not yet given a height
    for source, target in edges:
        successors[source].append(target)
        waiting[source] += 1
    predecessors = defaultdict(list)
    for source, target in edges:
        predecessors[target].append(source)
    height = {}
    ready = [n for n in nodes if waiting[n] == 0]
    while ready:
        node = ready.pop()
        height[node] = max((height[s] + 1 for s in successors[node]), default=0)
        for p in predecessors[node]:
            waiting[p] -= 1
            if waiting[p] == 0:
                ready.append(p)
    top = max(height.values(), default=0)
    return {n: top - height[n] for n in nodes}


def _place_row(wanted: list[float], widths: list[float], weights: list[float]) -> list[float]:
    """Centres as close as possible to ``wanted`` (least squares, each node counting
    ``weights[i]``), keeping the order and at least ``NODE_GAP`` between neighbouring
    boxes (``DUMMY_GAP`` next to a dummy).

    Subtracting each node's minimal distance from the first one turns "no overlap"
    into "non-decreasing", and the closest non-decreasing sequence is found by pooling
    adjacent violators: merge neighbouring blocks while a block's (weighted) mean is
    below the previous block's, then give every node of a block the block's mean."""
    shift = [0.0]
    for i in range(1, len(wanted)):
        gap = DUMMY_GAP if DUMMY_WIDTH in (widths[i - 1], widths[i]) else NODE_GAP
        shift.append(shift[-1] + (widths[i - 1] + widths[i]) / 2 + gap)
    blocks: list[list[float]] = []  # [weighted sum, total weight, number of nodes]
    for target, s, weight in zip(wanted, shift, weights):
        blocks.append([(target - s) * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight_sum, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight_sum
            blocks[-1][2] += count
    result = []
    for total, weight_sum, count in blocks:
        result += [total / weight_sum] * count
    return [y + s for y, s in zip(result, shift)]


def _barycenter(node: str, neighbours: dict, slot: dict) -> float:
    """Average slot of a node's neighbours in the adjacent row (its own slot if none)."""
    near = neighbours[node]
    return sum(slot[m] for m in near) / len(near) if near else slot[node]


def layered_layout(sizes: dict[str, tuple[float, float]], edges: Sequence[tuple[str, str]],
                   sweeps: int = 4, rows: dict[str, int] | None = None) -> Layout:  # fmt: skip
    """Lay out nodes (``id -> (width, height)``) and directed edges, top to bottom.

    ``rows`` gives every node its row instead of step 1 (each edge must point to a
    lower row): the captured graph (``static_graph.py``) keeps each phase in a band."""
    nodes = list(sizes)
    pairs = [(s, t) for s, t in edges if s != t and s in sizes and t in sizes]
    upright = _break_cycles(nodes, pairs)
    row_of = dict(rows) if rows is not None else _rows(nodes, upright)
    width = {n: sizes[n][0] for n in nodes}

    # 2. Cut long edges into one-row pieces through dummy nodes.
    chains = []  # per edge: the node ids from source to target, dummies between
    down, up = defaultdict(list), defaultdict(list)  # neighbours in the next/previous row
    for k, (source, target) in enumerate(upright):
        chain = [source]
        for row in range(row_of[source] + 1, row_of[target]):
            dummy = f"~{k}~{row}"
            row_of[dummy], width[dummy] = row, DUMMY_WIDTH
            chain.append(dummy)
        chain.append(target)
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
        chains.append(chain)

    # 3. Order within rows: start in discovery order, then barycenter sweeps.
    rows: list[list[str]] = [[] for _ in range(max(row_of.values(), default=-1) + 1)]
    for node in row_of:
        rows[row_of[node]].append(node)
    slot = {n: i for row in rows for i, n in enumerate(row)}
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        order = range(1, len(rows)) if downward else range(len(rows) - 2, -1, -1)
        neighbours = up if downward else down
        for r in order:
            rows[r].sort(key=lambda n: _barycenter(n, neighbours, slot))
            slot.update({n: i for i, n in enumerate(rows[r])})

    # 4. Coordinates: pack, then pull each node towards its neighbours. A *pendant*
    #    (a node with a single edge, like a parameter) follows its neighbour but does
    #    not pull it, and gives way when two nodes want one spot: otherwise a chain of
    #    ops would drift sideways by half a box at every parameter it consumes.
    pendant = {n for n in row_of if len(up[n]) + len(down[n]) == 1}
    weight = {n: 0.01 if n in pendant else 1.0 for n in row_of}
    pulling = {}
    for n in row_of:
        for direction, near in (("up", up[n]), ("down", down[n])):
            strong = [m for m in near if m not in pendant]
            pulling[n, direction] = strong or near
    x = {}
    for row in rows:
        x.update(zip(row, _place_row([0.0] * len(row), [width[n] for n in row], [1.0] * len(row))))
    for sweep in range(2 * sweeps):
        downward = sweep % 2 == 0
        order = range(1, len(rows)) if downward else range(len(rows) - 2, -1, -1)
        direction = "up" if downward else "down"
        for r in order:
            row = rows[r]
            wanted = []
            for n in row:
                near = pulling[n, direction]
                wanted.append(sum(x[m] for m in near) / len(near) if near else x[n])
            x.update(zip(row, _place_row(wanted, [width[n] for n in row], [weight[n] for n in row])))

    left = min((x[n] - width[n] / 2 for n in x), default=0)
    row_height = [max((sizes[n][1] for n in row if n in sizes), default=0) for row in rows]
    row_top, y = [], 0.0
    for h in row_height:
        row_top.append(y)
        y += h + ROW_GAP
    layout = Layout(rows=len(rows))
    for n in nodes:
        w, h = sizes[n]
        top = row_top[row_of[n]] + (row_height[row_of[n]] - h) / 2
        layout.boxes[n] = (x[n] - w / 2 - left, top, w, h)
    for (source, target), chain, original in zip(upright, chains, pairs):
        route = []
        for node in chain:
            cx = x[node] - left
            if node in sizes:
                bx, by, bw, bh = layout.boxes[node]
                route.append((cx, by + bh if node == chain[0] else by))
            else:
                route.append((cx, row_top[row_of[node]] + row_height[row_of[node]] / 2))
        layout.routes.append(route if (source, target) == original else route[::-1])
    spread_parallel(layout.routes, pairs)
    layout.width = max((b[0] + b[2] for b in layout.boxes.values()), default=0)
    layout.height = max((b[1] + b[3] for b in layout.boxes.values()), default=0)
    return layout


def spread_parallel(routes: list[list[tuple[float, float]]], edges: Sequence[tuple[str, str]]) -> None:
    """Bend edges that join the same two nodes apart, in place: the k-th of n gets its
    middle moved sideways by ``(k - (n - 1) / 2) * PARALLEL_GAP`` (a route of two
    points gets a middle point first) and its ends a third as far, so the two arrow
    heads do not overlap either."""
    groups = defaultdict(list)
    for k, edge in enumerate(edges):
        groups[edge].append(k)
    for members in groups.values():
        for position, k in enumerate(members if len(members) > 1 else []):
            shift = (position - (len(members) - 1) / 2) * PARALLEL_GAP
            route = routes[k]
            if len(route) == 2:
                (x0, y0), (x1, y1) = route
                route.insert(1, ((x0 + x1) / 2, (y0 + y1) / 2))
            last = len(route) - 1
            routes[k] = [(x + (shift / 3 if i in (0, last) else shift), y) for i, (x, y) in enumerate(route)]


def dot_available() -> bool:
    return shutil.which("dot") is not None


def dot_layout(sizes: dict[str, tuple[float, float]], edges: Sequence[tuple[str, str]]) -> Layout:
    """The same layout computed by Graphviz's ``dot`` (node positions only; edges are
    drawn straight between them). Needs the ``dot`` program."""
    points = 72.0  # dot measures in inches; we draw in pixels (1 pt = 1 px here)
    index = {n: f"n{i}" for i, n in enumerate(sizes)}
    lines = ["digraph G {", "node [shape=box, fixedsize=true];", f"ranksep={ROW_GAP / points};"]
    for n, (w, h) in sizes.items():
        lines.append(f"{index[n]} [width={w / points:.3f}, height={h / points:.3f}];")
    for s, t in edges:
        if s in index and t in index:
            lines.append(f"{index[s]} -> {index[t]};")
    lines.append("}")
    plain = subprocess.run(["dot", "-Tplain"], input="\n".join(lines), capture_output=True,
                           text=True, check=True, timeout=60).stdout  # fmt: skip
    back = {v: k for k, v in index.items()}
    layout = Layout()
    total_height = 0.0
    centres = {}
    for line in plain.splitlines():
        parts = line.split()
        if parts and parts[0] == "graph":
            layout.width, total_height = float(parts[2]) * points, float(parts[3]) * points
        elif parts and parts[0] == "node":
            centres[back[parts[1]]] = (float(parts[2]) * points, total_height - float(parts[3]) * points)
    for n, (cx, cy) in centres.items():
        w, h = sizes[n]
        layout.boxes[n] = (cx - w / 2, cy - h / 2, w, h)
    for s, t in edges:
        if s in layout.boxes and t in layout.boxes:
            sx, sy, sw, sh = layout.boxes[s]
            tx, ty, tw, _ = layout.boxes[t]
            layout.routes.append([(sx + sw / 2, sy + sh), (tx + tw / 2, ty)])
    spread_parallel(layout.routes, [(s, t) for s, t in edges if s in layout.boxes and t in layout.boxes])
    layout.height = total_height
    return layout
