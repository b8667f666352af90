"""The benchmark results as a bar chart of ratios, a PNG beside their JSON.

One horizontal bar per workload and peer: minitorch's speed divided by NumPy's or
PyTorch's (``ratio`` in the JSON; 1.0 means as fast, 0.5 twice as slow), its number at
its end, on a logarithmic axis so that "twice as slow" and "twice as fast" are as long.
A dashed line marks 1.0. A workload with a target says beside its name whether the
target was met (some targets compare with another row, not with the peers: the printed
table says which). With several conditions (``--both``), one panel per condition::

    python -m benchmarks.run                       # writes results/benchmark-<time>.json and .png
    python -m benchmarks.chart results/benchmark-20261125-062549.json   # draw an old run

matplotlib is imported when a chart is drawn (``pip install -e ".[dev]"``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PEERS = {"numpy": "#4c72b0", "torch": "#dd8452"}  # bar colour of each peer
BAR = 0.38  # each of the two bars of a workload, as a share of its row's height


def ratio_chart(results: dict[str, Any]) -> Any:
    """A matplotlib ``Figure`` of ``results`` (the JSON ``benchmarks.run`` writes)."""
    from matplotlib.figure import Figure  # no pyplot: no window, no global state
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if "conditions" not in results:
        raise ValueError("these results predate the conditions (quiet, loaded) of benchmarks/run.py")
    conditions = results["conditions"]
    rows = [row for row in results["rows"] if not row.get("skipped")]
    figure = Figure(figsize=(6 + 3 * len(conditions), 1.2 + 0.32 * len(rows)), layout="constrained")
    panels = figure.subplots(1, len(conditions), sharey=True, squeeze=False)[0]
    for panel, condition in zip(panels, conditions):
        draw_condition(panel, rows, condition)
        panel.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))  # 0.1 0.2 0.5 1 2 5
        panel.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        panel.xaxis.set_minor_formatter(NullFormatter())
    panels[0].set_yticks(range(len(rows)), [label(row, conditions[0]) for row in rows])
    panels[0].invert_yaxis()  # the first workload on top, as in the printed table
    cores = results.get("machine", {}).get("cores")
    figure.suptitle(f"minitorch (Numba backend) vs NumPy and PyTorch, {cores} cores: speed ratio")
    return figure


def draw_condition(ax: Any, rows: list[dict], condition: str) -> None:
    """The bars of one condition (``quiet``, ``pinned`` or ``loaded``) on ``ax``."""
    for offset, (peer, colour) in zip((-BAR / 2, BAR / 2), PEERS.items()):
        positions, ratios = [], []
        for index, row in enumerate(rows):
            ratio = row["ratio"].get(condition, {}).get(peer)
            if ratio is not None:
                positions.append(index + offset)
                ratios.append(ratio)
        bars = ax.barh(positions, ratios, height=BAR, color=colour, label=f"vs {peer}")
        ax.bar_label(bars, fmt="%.2f", padding=2, fontsize="small")
    ax.set_xscale("log")
    low = min([0.5, *(r for row in rows for r in row["ratio"].get(condition, {}).values())])
    high = max([2.0, *(r for row in rows for r in row["ratio"].get(condition, {}).values())])
    ax.set_xlim(low / 1.3, high * 1.6)  # room for the numbers at the bars' ends
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("minitorch's speed / the peer's (1 = as fast; log scale)")
    ax.set_title(condition)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")


def label(row: dict, condition: str) -> str:
    """The workload's name, and its target's verdict when it has one."""
    target = row.get("target")
    if not target or target.get(condition) is None:
        return row["name"]
    met = "met" if target[condition] >= target["minimum"] else "MISSED"
    return f"{row['name']}  (target {met})"


def write_ratio_chart(results: dict[str, Any], path: Path) -> Path:
    """Draw ``results`` and save the chart as ``path`` (a PNG)."""
    ratio_chart(results).savefig(path, dpi=110)
    return path


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python -m benchmarks.chart results/benchmark-<time>.json ...")
    for name in sys.argv[1:]:
        source = Path(name)
        written = write_ratio_chart(json.loads(source.read_text()), source.with_suffix(".png"))
        print(f"wrote {written}")


if __name__ == "__main__":
    main()
