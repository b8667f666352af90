"""The benchmark suite's bar chart of ratios (``benchmarks/chart.py``): the bars are the
JSON's ratios, and ``benchmarks/run.py`` writes the PNG beside its JSON. No timing runs
here: the run's measurements are replaced by fixed numbers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from benchmarks import chart  # noqa: E402
from benchmarks import run as benchmark_run  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def results() -> dict:
    """Results as ``benchmarks.run`` writes them, in two conditions."""
    rows = [
        {"name": "matmul n=512 float32", "unit": "GFLOP/s",
         "ratio": {"quiet": {"numpy": 0.5, "torch": 0.25}, "loaded": {"numpy": 0.4, "torch": 0.2}},
         "target": {"text": "speed >= 0.35x numpy", "issue": 12, "minimum": 0.35,
                    "quiet": 0.5, "loaded": 0.3}},
        {"name": "a + b 10x10", "unit": "us",
         "ratio": {"quiet": {"torch": 2.0}, "loaded": {"torch": 1.5}}},
        {"name": "needs a feature", "skipped": "minitorch.something is missing"},
    ]  # fmt: skip
    return {"machine": {"cores": 2}, "conditions": ["quiet", "loaded"], "rows": rows}


def bar_widths(ax, colour: str) -> list[float]:
    from matplotlib.colors import to_hex

    return [bar.get_width() for bar in ax.patches if to_hex(bar.get_facecolor()) == colour]


def test_bars_are_the_ratios_of_each_condition() -> None:
    figure = chart.ratio_chart(results())
    quiet, loaded = figure.axes[:2]
    assert (quiet.get_title(), loaded.get_title()) == ("quiet", "loaded")
    assert bar_widths(quiet, chart.PEERS["numpy"]) == [0.5]  # a + b has no NumPy ratio
    assert bar_widths(quiet, chart.PEERS["torch"]) == [0.25, 2.0]
    assert bar_widths(loaded, chart.PEERS["torch"]) == [0.2, 1.5]
    assert quiet.get_xscale() == "log" and "1 = as fast" in quiet.get_xlabel()
    labels = [tick.get_text() for tick in quiet.get_yticklabels()]
    assert labels == ["matmul n=512 float32  (target met)", "a + b 10x10"]  # skipped rows left out
    numbers = [text.get_text() for text in quiet.texts]
    assert sorted(numbers) == ["0.25", "0.50", "2.00"]  # each bar's ratio written at its end
    assert [text.get_text() for text in quiet.get_legend().get_texts()] == ["vs numpy", "vs torch"]


def test_a_missed_target_says_so() -> None:
    data = results()
    assert chart.label(data["rows"][0], "loaded") == "matmul n=512 float32  (target MISSED)"


def test_old_results_without_conditions_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="predate the conditions"):
        chart.ratio_chart({"rows": []})


def test_chart_command_writes_a_png_beside_the_json(tmp_path: Path, monkeypatch, capsys) -> None:
    source = tmp_path / "benchmark-1.json"
    source.write_text(json.dumps(results()))
    monkeypatch.setattr(sys, "argv", ["chart", str(source)])
    chart.main()
    assert (tmp_path / "benchmark-1.png").read_bytes()[:8] == PNG_MAGIC
    assert "benchmark-1.png" in capsys.readouterr().out


def test_benchmark_run_writes_the_chart_beside_its_json(tmp_path: Path, monkeypatch) -> None:
    """``benchmarks.run`` end to end, with fixed times instead of measurements."""
    workload = "add 1e6 float32 contiguous"
    times = {"numba": {workload: {"numba": 1e-4}}, "numpy": {workload: {"numpy": 2e-4}},
             "torch": {workload: {"torch": 8e-5}}}  # fmt: skip
    monkeypatch.setattr(benchmark_run, "time_in_subprocess", lambda group, quick, pinned: times[group[0]])
    monkeypatch.setattr(benchmark_run, "startup_seconds", lambda cache_dir: 1.0)
    monkeypatch.setattr(benchmark_run, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["run", "--skip-cold", "--only", workload])
    monkeypatch.delenv("MINITORCH_BENCHMARK_ONLY", raising=False)
    benchmark_run.main()
    (written,) = (tmp_path / "benchmarks" / "results").glob("*.json")
    picture = written.with_suffix(".png")
    assert picture.read_bytes()[:8] == PNG_MAGIC
    ratios = json.loads(written.read_text())["rows"][0]["ratio"]["quiet"]
    assert ratios == pytest.approx({"numpy": 2.0, "torch": 0.8})
