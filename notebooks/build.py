"""Build the course notebooks (``*.ipynb``) from their plain-text sources in ``src/``.

    python notebooks/build.py           # rewrite every notebook from its source
    python notebooks/build.py --check   # exit 1 if a notebook is out of date (CI)

Why sources: a ``.py`` file diffs and reviews like code, and the parts every notebook
shares (the "Open in Colab" badge, the setup cell with the repository address) are
written in from ``minitorch/course/notebook_setup.py``, so they live in one place.

Source format (the "percent" format that Jupytext and VS Code also read)::

    # %% [markdown]
    # # A title
    # Some *markdown*, each line behind "# ".

    # %% setup(backend="reference")      <- the shared setup cell, with these arguments

    # %%
    x = minitorch.arange(6)              <- a code cell

    # %% exercise=index_to_position      <- a code cell the student fills in; the tests
    def index_to_position(...):             replace it by the same-named section of
        raise NotImplementedError           exercises/solutions/<notebook>.py

A notebook source may start with ``# colab: gpu`` to ask Colab for a GPU runtime.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # build from a checkout without installing

from minitorch.course.notebook_setup import badge, setup_cell  # noqa: E402

MARKER = re.compile(r"^# %%(?P<rest>.*)$")


def parse_cells(text: str) -> list[dict]:
    """Split a percent-format source into cells: ``{"kind", "source", "exercise", "setup"}``."""
    cells: list[dict] = []
    current: dict | None = None
    for line in text.splitlines():
        match = MARKER.match(line)
        if match:
            rest = match.group("rest").strip()
            current = {"kind": "code", "lines": [], "exercise": None, "setup": None}
            if rest == "[markdown]":
                current["kind"] = "markdown"
            elif rest.startswith("exercise="):
                current["exercise"] = rest.removeprefix("exercise=").strip()
            elif rest.startswith("setup(") and rest.endswith(")"):
                current["setup"] = rest[len("setup(") : -1]
            elif rest:
                raise ValueError(f"unknown cell marker: {line!r}")
            cells.append(current)
        elif current is not None:
            if current["kind"] == "markdown":
                if line and not line.startswith("#"):
                    raise ValueError(f"markdown line without '# ': {line!r}")
                line = line[2:] if line.startswith("# ") else line[1:]
            current["lines"].append(line)
    for cell in cells:
        cell["source"] = "\n".join(cell.pop("lines")).strip("\n")
    return cells


def solution_sections(text: str) -> dict[str, str]:
    """``{exercise name: code}`` from a solutions file (sections ``# %% exercise=NAME``)."""
    return {cell["exercise"]: cell["source"] for cell in parse_cells(text) if cell["exercise"]}


def _lines(source: str) -> list[str]:
    lines = source.split("\n")
    return [line + "\n" for line in lines[:-1]] + [lines[-1]]


def build_notebook(source_path: Path, notebook_path: Path) -> str:
    """The JSON text of the notebook built from ``source_path``."""
    text = source_path.read_text(encoding="utf-8")
    cells = parse_cells(text)
    relative = notebook_path.relative_to(HERE.parent).as_posix()
    stem = notebook_path.stem
    out_cells = []
    badge_done = False
    for number, cell in enumerate(cells):
        source = cell["source"]
        metadata: dict = {}
        if cell["kind"] == "markdown" and not badge_done:
            source = badge(relative) + "\n\n" + source
            badge_done = True
        if cell["setup"] is not None:
            source = setup_cell(cell["setup"])
            metadata["minitorch"] = {"setup": True}
        if cell["exercise"]:
            metadata["minitorch"] = {"exercise": cell["exercise"]}
            metadata["tags"] = ["exercise"]
        entry: dict = {
            "cell_type": cell["kind"],
            "id": f"{stem[:40]}-{number}",
            "metadata": metadata,
            "source": _lines(source),
        }
        if cell["kind"] == "code":
            entry["execution_count"] = None
            entry["outputs"] = []
        out_cells.append(entry)
    colab: dict = {"provenance": [], "toc_visible": True}
    notebook_metadata: dict = {
        "colab": colab,
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    if text.startswith("# colab: gpu"):
        notebook_metadata["accelerator"] = "GPU"
        colab["gpuType"] = "T4"
    notebook = {"cells": out_cells, "metadata": notebook_metadata, "nbformat": 4,
                "nbformat_minor": 5}  # fmt: skip
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def pairs() -> list[tuple[Path, Path]]:
    """Every ``(source, notebook)`` pair: ``src/X.py -> X.ipynb``,
    ``src/exercises/X.py -> exercises/X.ipynb``."""
    result = []
    for source in sorted((HERE / "src").rglob("*.py")):
        relative = source.relative_to(HERE / "src").with_suffix(".ipynb")
        result.append((source, HERE / relative))
    return result


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for source, notebook in pairs():
        text = build_notebook(source, notebook)
        if notebook.exists() and notebook.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(notebook.relative_to(HERE.parent).as_posix())
        else:
            notebook.parent.mkdir(parents=True, exist_ok=True)
            notebook.write_text(text, encoding="utf-8")
            print(f"wrote {notebook.relative_to(HERE.parent)}")
    if stale:
        print("out of date (run `python notebooks/build.py`): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
