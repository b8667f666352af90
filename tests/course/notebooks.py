"""Execute course notebooks headless, the way CI and a student's "Run all" do."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
EXERCISES = NOTEBOOKS / "exercises"
SOLUTIONS = EXERCISES / "solutions"


def _build_module():
    spec = importlib.util.spec_from_file_location("course_build", NOTEBOOKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _build_module()


def chapter_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def exercise_notebooks() -> list[Path]:
    return sorted(EXERCISES.glob("[0-9][0-9]_*.ipynb"))


def solutions_for(notebook: Path) -> dict[str, str]:
    """``{exercise name: solution code}`` for an exercise notebook."""
    path = SOLUTIONS / notebook.with_suffix(".py").name
    return build.solution_sections(path.read_text(encoding="utf-8"))


def exercise_names(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [c["metadata"]["minitorch"]["exercise"] for c in cells
            if "exercise" in c["metadata"].get("minitorch", {})]  # fmt: skip


def execute(notebook: Path, solutions: dict[str, str] | None = None, timeout: int = 600):
    """Run every cell of ``notebook`` in a fresh kernel (working directory: its folder).
    With ``solutions``, each exercise cell is replaced by its solution first. Returns the
    executed notebook; a cell that raises makes ``nbclient`` raise ``CellExecutionError``."""
    import nbclient
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    if solutions is not None:
        for cell in nb.cells:
            name = cell.metadata.get("minitorch", {}).get("exercise")
            if name:
                cell.source = solutions[name]
    env_note = os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    del env_note
    client = nbclient.NotebookClient(
        nb, timeout=timeout, kernel_name="python3",
        resources={"metadata": {"path": str(notebook.parent)}},
    )  # fmt: skip
    client.execute()
    return nb


def text_outputs(nb) -> str:
    """All printed text and text results of an executed notebook, joined."""
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output.get("text", ""))
            elif "data" in output and "text/plain" in output["data"]:
                parts.append(output["data"]["text/plain"])
    return "\n".join(parts)
